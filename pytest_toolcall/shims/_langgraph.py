"""LangChain's ``create_agent`` and LangGraph's ``create_react_agent`` own loops, with their own
chat model client, under the loop cases.

``toolcall_loop = shims.langchain_agent()`` (profile ``LANGCHAIN_AGENT_PROFILE``) or
``shims.langgraph_react()`` (profile ``LANGGRAPH_REACT_PROFILE``). Run with
``--toolcall-loop-model=fake``: each case hands the loop the fake provider serving its script
(``request.endpoint``) and the shim points LangChain's chat model there, by default
``ChatOpenAI("gpt-4o-mini")`` (langchain-openai) over the endpoint's httpx clients;
``model=lambda ep: ...`` builds another ``BaseChatModel`` on the endpoint. The shim builds the
agent graph with the case's tools, runs it with the profile's step limit (``recursion_limit``)
streams it, mapping what the stream shows onto loop events and how the run ended onto a stop
reason. It maps shapes and never repairs what the framework does.

Both factories build the same loop: a model node, then every tool call of its answer as one
``Send`` to a ``ToolNode`` (all in one graph step, run concurrently), until the model answers
without tool calls. Sources, read 2026-11-25 on langchain 1.5.2, langgraph 1.2.24,
langgraph-prebuilt 1.1.3, langchain-core 1.8.3, langchain-openai 1.7.4 (site-packages):

- ``langchain/agents/factory.py`` ``create_agent``: ``model_to_tools`` returns
  ``[Send("tools", [tool_call]) for tool_call in pending_tool_calls]`` and ends the run when the
  last ``AIMessage`` has no ``tool_calls``; the compiled graph is ``.with_config({
  "recursion_limit": 9_999})`` (comment: langgraph issue 7313).
- ``langgraph/prebuilt/chat_agent_executor.py`` ``create_react_agent`` (deprecated since
  LangGraph 1.0 in favour of ``create_agent``; ``version="v2"`` by default): ``should_continue``
  sends each call of the last ``AIMessage`` to ``"tools"`` with ``Send`` and ends at ``END``
  when it has none. Its docstring: when ``remaining_steps`` is below 2 and the model's answer
  has tool calls, the answer is replaced by ``AIMessage("Sorry, need more steps to process
  this request.")`` and no ``GraphRecursionError`` is raised.
- ``langgraph/_internal/_config.py``: ``DEFAULT_RECURSION_LIMIT`` is 10007
  (``LANGGRAPH_DEFAULT_RECURSION_LIMIT``) in langgraph 1.2.24, not the 25 of older releases;
  ``langgraph/pregel/_loop.py``: ``stop = step + recursion_limit + 1``, past it the run raises
  ``GraphRecursionError``. ``recursion_limit`` counts graph steps: the model node is one, the
  tools node (all of a round's calls) another. Read off the runs (2026-11-25, in-process fake):
  with an odd limit ``2k + 1`` both agents call the model ``k + 1`` times, run ``k`` rounds of
  tools and raise ``GraphRecursionError`` before running the last answer's calls (the kit's
  ``iteration_counts="rounds"`` with ``max_iterations=k``); with an even limit ``2k``
  ``create_agent`` runs the calls of its ``k``-th answer and stops before another model call
  (``"model_calls"``, ``k``) while ``create_react_agent`` replaces its ``k``-th answer by the
  "need more steps" message (``"rounds"``, ``k - 1``). The defaults (9999, 10007) are odd: the
  profiles declare ``"rounds"``, 4999 and 5003, and the shims pass ``recursion_limit`` back
  from the profile.
- ``langgraph/prebuilt/tool_node.py`` ``ToolNode``: ``handle_tool_errors`` defaults to
  ``_default_handle_tool_errors``, which returns the message of a ``ToolInvocationError``
  (arguments the tool's pydantic schema rejects) and re-raises everything else: a tool's
  exception ends the run (``crash_policy="abort"``); an unknown tool name is answered with
  ``"Error: {name} is not a valid tool, try one of [...]"``; no tool timeout.
- ``langchain_core/tools/base.py``: a ``ToolException`` raised by a tool built with
  ``handle_tool_error=True`` becomes a ``ToolMessage(status="error")`` holding its message
  (``_handle_tool_error``): LangChain's documented way to send a tool's error to the model; a
  JSON-schema ``args_schema`` (a dict) is not validated (``BaseTool._parse_input`` returns the
  input unchanged), a pydantic one is. Since 2026-11-28 (issue 28) the shim builds each tool as
  users do, ``StructuredTool.from_function`` over a typed function (``typed_tool``), whose
  inferred pydantic ``args_schema`` validates the arguments; ToolNode answers the
  ``ToolInvocationError`` with its message: ``argument_validation="feed_back"``.
- ``langgraph/pregel``: ``stream(stream_mode=["updates", "messages", "values"])`` gives each
  node's update (the model's ``AIMessage`` with its ``tool_calls``, each ``ToolMessage``, whose
  ``status="error"`` marks a failure), the chat model's tokens (the ``messages`` mode's handler
  makes ``BaseChatModel`` stream) and the state: the shim's loop events
  (``loop_events=True``).
- ``langchain_openai/chat_models/base.py``: ``max_retries`` defaults to ``None``, leaving the
  openai SDK's ``DEFAULT_MAX_RETRIES = 2`` (``openai/_constants.py``, openai 3.57.0):
  ``model_retries=2``.
"""

from __future__ import annotations

import inspect
import json
import warnings
from collections.abc import Callable
from typing import Any

from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import UsageError
from pytest_toolcall.core.loop import LoopEvent, LoopRequest, LoopResult, ToolError
from pytest_toolcall.core.model import Usage
from pytest_toolcall.shims._base import (
    built_model,
    model_factory,
    require,
    typed_tool,
    with_events,
)

#: what both agents do, as their sources above say and their runs show (confirmed 2026-11-25;
#: undeclared_arguments 2026-11-28: the typed tool's args_schema is a pydantic model with the
#: default extra='ignore', so a key the model sent that the tool does not declare is dropped
#: and the tool runs with the declared ones: a declared risk, core/risks.py)
_LANGGRAPH_POLICY: dict[str, Any] = dict(
    iteration_counts="rounds", max_failure_rounds=None, tool_failure_budget=None,
    crash_policy="abort", permanent_failure_stops=False, argument_validation="feed_back",
    undeclared_arguments="drop",
    parallel_dispatch=True, tool_timeout=None, model_retries=2, loop_events=True)

#: ``create_agent`` (langchain 1.5.2): ``recursion_limit`` 9_999 (factory.py) = 4999 rounds of
#: tools, the 5000th answer's calls not run (``GraphRecursionError``); ToolNode's default error
#: handler: a tool's exception other than a handled ToolException ends the run; a
#: ToolException's message is fed back, it never stops the run (``permanent_failure_stops``
#: False: LangChain has no notion of a permanent tool failure); no failure-round cap; no tool
#: timeout; typed tools validated; ChatOpenAI's openai SDK retries a 5xx twice.
LANGCHAIN_AGENT_PROFILE = Profile(name="LangChain create_agent", max_iterations=4999,
                                  **_LANGGRAPH_POLICY)
#: ``create_react_agent`` (langgraph-prebuilt 1.1.3 on langgraph 1.2.24): the same loop with
#: langgraph's own ``DEFAULT_RECURSION_LIMIT`` 10007 = 5003 rounds (``GraphRecursionError``).
LANGGRAPH_REACT_PROFILE = Profile(name="LangGraph create_react_agent", max_iterations=5003,
                                  **_LANGGRAPH_POLICY)

#: create_react_agent's documented answer when its steps run out (chat_agent_executor.py)
NEED_MORE_STEPS = "Sorry, need more steps to process this request."


class _LangGraphLoop:
    """An agent graph built by a LangChain/LangGraph factory, pointed at ``request.endpoint``.

    A ``ToolError`` becomes a ``ToolException`` of a tool built with ``handle_tool_error=True``
    (LangChain's documented way to send a tool's error back to the model); anything else a tool
    raises is left to the framework. The profile's ``max_iterations`` sets ``recursion_limit``,
    so the profile and the agent state the same cap."""

    shim = ""
    factory = ""
    extra = ""  #: the pytest-toolcall extra that installs the framework
    modules: tuple[str, ...] = ()  #: what it imports

    def __init__(self, model: Callable[[Any], Any] | None = None,
                 profile: Profile | None = None) -> None:
        model_factory(self.shim, model, "a LangChain chat model",
                      "lambda ep: ChatOpenAI(model='gpt-4o-mini', base_url=ep.base_url, "
                      "api_key=ep.api_key, http_client=ep.client, "
                      "http_async_client=ep.async_client)")
        # imported here, not in the run: importing langchain-openai takes seconds, which would
        # count against the case's deadline
        for module in self.modules + (("langchain_openai",) if model is None else ()):
            require(module, self.extra, self.shim)
        self.model = model
        self.profile = profile if profile is not None else self.default_profile()
        self.recursion_limit = self.limit_for(self.profile)

    def default_profile(self) -> Profile:  # pragma: no cover - overridden
        raise NotImplementedError

    def limit_for(self, profile: Profile) -> int:
        """The ``recursion_limit`` that makes the agent keep the profile's cap."""
        if profile.iteration_counts != "rounds":
            raise UsageError(
                f"shims.{self.shim}: {self.factory} caps graph steps (recursion_limit), two per "
                "round of tool calls: declare iteration_counts='rounds' (max_iterations rounds, "
                "recursion_limit 2 * max_iterations + 1)"
                + (" or 'model_calls' (recursion_limit 2 * max_iterations)"
                   if self.shim == "langchain_agent" else "")
                + f"; got {profile.iteration_counts!r}")
        return 2 * profile.max_iterations + 1

    # -- building ------------------------------------------------------------------------------
    def build_model(self, endpoint: Any) -> Any:
        from langchain_core.language_models import BaseChatModel

        if self.model is not None:
            return built_model(self.shim, self.model, endpoint, BaseChatModel,
                               "a langchain_core BaseChatModel (ChatOpenAI, ChatAnthropic...)")
        from langchain_openai import ChatOpenAI

        # stream_usage: the fake stands in for api.openai.com, where ChatOpenAI asks a streamed
        # answer for its usage by itself; with a base_url or an http_client it does not
        # (langchain_openai/chat_models/base.py: stream_usage defaults to True only for the
        # default base URL and client), so this is what OpenAI's users get
        return ChatOpenAI(model="gpt-4o-mini", base_url=endpoint.base_url,
                          api_key=endpoint.api_key, http_client=endpoint.client,
                          http_async_client=endpoint.async_client, stream_usage=True)

    def build_tools(self, request: LoopRequest) -> list[Any]:
        """Each case tool as a user writes one: a function typed from the case's schema
        (``typed_tool``) made a ``StructuredTool`` by ``from_function``, which infers its
        pydantic ``args_schema`` from the signature and validates the model's arguments with
        it (``langchain_core/tools/base.py`` ``_parse_input``); ToolNode answers a
        ``ToolInvocationError`` with its message (``_default_handle_tool_errors``)."""
        from langchain.tools import ToolRuntime
        from langchain_core.tools import StructuredTool, ToolException

        runtime = inspect.Parameter("runtime", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    annotation=ToolRuntime)

        def tool(name: str) -> tuple[Callable[..., str], Callable[..., Any]]:
            # ``runtime``: ToolNode injects its ToolRuntime (the call's id) into a parameter
            # of that name (tool_node.py ``_get_all_injected_args``)
            def call(runtime: Any = None, **arguments: Any) -> str:
                try:
                    return request.executor.run(name, arguments, call_id=_call_id(runtime))
                except ToolError as exc:
                    raise ToolException(exc.message) from None

            async def acall(runtime: Any = None, **arguments: Any) -> str:
                try:
                    return await request.executor.arun(name, arguments,
                                                       call_id=_call_id(runtime))
                except ToolError as exc:
                    raise ToolException(exc.message) from None
            return call, acall

        tools = []
        for spec in request.tools:
            func, coroutine = tool(spec.name)
            tools.append(StructuredTool.from_function(
                func=typed_tool(spec, func, leading=(runtime,)),
                coroutine=typed_tool(spec, coroutine, leading=(runtime,)), name=spec.name,
                description=spec.description or "", handle_tool_error=True))
        return tools

    def build_agent(self, model: Any, tools: list[Any]) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _prepare(self, request: LoopRequest) -> tuple[Any, dict[str, Any], dict[str, Any]]:
        if request.endpoint is None:
            raise UsageError(
                f"shims.{self.shim} runs {self.factory} with its own chat model client, which "
                "needs the fake provider's endpoint: run with --toolcall-loop-model=fake "
                "(ini: toolcall_loop_model = fake)")
        agent = self.build_agent(self.build_model(request.endpoint), self.build_tools(request))
        messages = [{"role": m.role, "content": m.content or ""} for m in request.messages
                    if m.role in ("system", "user", "assistant")]
        return agent, {"messages": messages}, {"recursion_limit": self.recursion_limit}

    # -- running -------------------------------------------------------------------------------
    #: LangGraph's stream modes the shim reads: the node updates (each answer's calls, each
    #: ToolMessage), the chat model's tokens (``messages``: the model streams, LangGraph's
    #: StreamMessagesHandler makes ``BaseChatModel`` call ``_stream``), the state (the run's
    #: last messages)
    MODES = ("updates", "messages", "values")

    def run(self, request: LoopRequest) -> LoopResult:
        agent, state, config = self._prepare(request)
        seen = _Seen()
        try:
            for mode, chunk in agent.stream(state, config, stream_mode=list(self.MODES)):
                seen.add(mode, chunk)
        except Exception as exc:
            return seen.ended(_ended_by(exc))
        return seen.ended(_ended_with(seen.messages))

    async def arun(self, request: LoopRequest) -> LoopResult:
        agent, state, config = self._prepare(request)
        seen = _Seen()
        try:
            async for mode, chunk in agent.astream(state, config,
                                                   stream_mode=list(self.MODES)):
                seen.add(mode, chunk)
        except Exception as exc:
            return seen.ended(_ended_by(exc))
        return seen.ended(_ended_with(seen.messages))


class _Seen:
    """What the agent's stream showed its client, as loop events, and its last state."""

    def __init__(self) -> None:
        self.events: list[LoopEvent] = []
        self.messages: list[Any] = []
        self.names: dict[str, str] = {}

    def add(self, mode: str, chunk: Any) -> None:
        from langchain_core.messages import AIMessage, AIMessageChunk, ToolMessage

        if mode == "values":
            self.messages = list(chunk.get("messages") or ())
        elif mode == "messages":
            message, _metadata = chunk
            if isinstance(message, AIMessageChunk) and message.text:
                self.events.append(LoopEvent(type="text", content=str(message.text)))
        elif mode == "updates":
            for update in (chunk or {}).values():
                for message in (update or {}).get("messages") or ():
                    if isinstance(message, AIMessage):
                        for call in message.tool_calls:
                            self.names[call["id"]] = call["name"]
                            self.events.append(LoopEvent(
                                type="tool_call", call_id=call["id"], name=call["name"],
                                content=json.dumps(call["args"])))
                    elif isinstance(message, ToolMessage):
                        self.events.append(LoopEvent(
                            type="tool_error" if message.status == "error" else "tool_result",
                            call_id=message.tool_call_id,
                            name=message.name or self.names.get(message.tool_call_id),
                            content=str(message.text)))

    def ended(self, result: LoopResult) -> LoopResult:
        return with_events(result, self.events)  # type: ignore[no-any-return]


class LangChainAgentLoop(_LangGraphLoop):
    """LangChain's ``create_agent`` (``from langchain.agents import create_agent``)."""

    shim = "langchain_agent"
    factory = "langchain.agents.create_agent"
    extra = "langchain-agent"
    modules = ("langgraph", "langchain_core.tools", "langchain.agents")

    def default_profile(self) -> Profile:
        return LANGCHAIN_AGENT_PROFILE

    def limit_for(self, profile: Profile) -> int:
        # an even limit 2k: the calls of the k-th answer run, then the run stops before
        # another model call (read off the runs, module docstring)
        if profile.iteration_counts == "model_calls":
            return 2 * profile.max_iterations
        return super().limit_for(profile)

    def build_agent(self, model: Any, tools: list[Any]) -> Any:
        from langchain.agents import create_agent

        return create_agent(model, tools=tools)


class LangGraphReactLoop(_LangGraphLoop):
    """LangGraph's prebuilt ``create_react_agent`` (``from langgraph.prebuilt import
    create_react_agent``; deprecated since LangGraph 1.0, still shipped)."""

    shim = "langgraph_react"
    factory = "langgraph.prebuilt.create_react_agent"
    extra = "langgraph"
    modules = ("langgraph", "langchain_core.tools", "langgraph.prebuilt")

    def default_profile(self) -> Profile:
        return LANGGRAPH_REACT_PROFILE

    def build_agent(self, model: Any, tools: list[Any]) -> Any:
        from langgraph.prebuilt import create_react_agent
        from langgraph.warnings import LangGraphDeprecatedSinceV10

        with warnings.catch_warnings():  # deprecated in favour of create_agent; still works
            warnings.simplefilter("ignore", LangGraphDeprecatedSinceV10)
            return create_react_agent(model, tools)


def _call_id(runtime: Any) -> str | None:
    return getattr(runtime, "tool_call_id", None)


def _text(message: Any) -> str | None:
    return str(message.text) or None  # a property since langchain-core 1


def _ended_with(messages: list[Any]) -> LoopResult:
    """How a run that returned ended: its last message is the model's answer (or, from
    create_react_agent out of steps, its documented stand-in)."""
    from langchain_core.messages import AIMessage

    answers = [m for m in messages if isinstance(m, AIMessage)]
    used = [m.usage_metadata for m in answers if m.usage_metadata]
    usage = Usage(input_tokens=sum(u.get("input_tokens", 0) for u in used),
                  output_tokens=sum(u.get("output_tokens", 0) for u in used),
                  total_tokens=sum(u.get("total_tokens", 0) for u in used)) if used else None
    last = messages[-1] if messages else None
    if not isinstance(last, AIMessage):
        return LoopResult(stop_reason="error", text="the run ended without an answer",
                          usage=usage)
    if last.content == NEED_MORE_STEPS and not last.response_metadata:
        return LoopResult(stop_reason="max_iterations", text=NEED_MORE_STEPS, usage=usage)
    finish = last.response_metadata.get("finish_reason")
    reason = finish if finish in ("length", "content_filter") else "completed"
    return LoopResult(stop_reason=reason, text=_text(last), usage=usage)


def _ended_by(exc: Exception) -> LoopResult:
    """How a run that raised ended: the step limit, or a failure (never its text)."""
    from langgraph.errors import GraphRecursionError

    if isinstance(exc, GraphRecursionError):
        return LoopResult(stop_reason="max_iterations", text="recursion limit reached")
    module = type(exc).__module__.split(".")[0]
    if module in ("openai", "httpx", "httpx2", "anthropic", "google"):
        return LoopResult(stop_reason="error",
                          text=f"the model call failed ({type(exc).__name__})")
    return LoopResult(stop_reason="error", text=f"the run failed ({type(exc).__name__})")

"""The OpenAI Agents SDK's own ``Runner`` loop, with its own OpenAI client, under the loop cases.

``toolcall_loop = OpenAIAgentsLoop()`` (its profile: ``PROFILE``). Run with
``--toolcall-loop-model=fake``: each case hands the loop the fake provider serving its script
(``request.endpoint``) and the shim points the agent's model there, by default
``OpenAIChatCompletionsModel`` over ``openai.AsyncOpenAI``; ``model=lambda ep: ...`` builds
another ``agents`` model on the endpoint. The shim builds an ``Agent`` with the case's tools,
runs ``Runner.run_streamed`` with tracing disabled (nothing leaves the process) and maps its
events and how the run ended. It maps shapes and never repairs what the framework does.
"""

from __future__ import annotations

import inspect
from typing import Any

from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import UsageError
from pytest_toolcall.core.loop import LoopEvent, LoopRequest, LoopResult, ToolError
from pytest_toolcall.core.model import Usage
from pytest_toolcall.shims._base import AgentLoop, system_prompt, typed_tool, with_events

#: openai-agents' documented defaults (openai-agents 0.24.0, read in site-packages/agents and
#: its docs, with openai 3.57.0; confirmed 2026-11-25):
#: - iteration_counts="model_calls", max_iterations=10: a turn is one model call; ``Runner.run``
#:   raises ``MaxTurnsExceeded`` when the next call would exceed ``max_turns``
#:   (docs/running_agents.md "The agent loop"; ``run.py`` checks ``current_turn > max_turns``
#:   before the call), ``max_turns=DEFAULT_MAX_TURNS = 10`` (``run_config.py``). The shim passes
#:   ``max_turns=profile.max_iterations``.
#: - max_failure_rounds=None, tool_failure_budget=None: the runner has no cap on failed tool
#:   calls; a tool's error is output for the model like any other, and only ``max_turns`` ends
#:   a run of failures (docs/running_agents.md "The agent loop").
#: - permanent_failure_stops=False: nothing marks a tool error permanent; a manual
#:   ``FunctionTool`` returns "a string error message (which will be sent back to the LLM)"
#:   (``FunctionTool.on_invoke_tool`` docstring, ``tool.py``).
#: - crash_policy="feed_back": a crashing function tool is answered with
#:   ``default_tool_error_function``'s fixed text "An error occurred while running the tool.
#:   Please try again." (docs/tools.md "Handling errors in function tools"; ``tool.py``; the
#:   text is fixed since openai-agents-python PR #5112). A manual ``FunctionTool`` "must handle
#:   errors inside the on_invoke_tool function" (same page): the shim does, with that same
#:   function. Under ``crash_policy="abort"`` the shim re-raises instead, the documented
#:   ``failure_error_function=None`` behaviour: the run fails with ``UserError``
#:   (``run_internal/tool_execution.py``).
#: - parallel_dispatch=True: "the SDK starts all emitted local function tool calls"
#:   (docs/running_agents.md ``tool_execution``, ``max_function_tool_concurrency=None``).
#: - duplicate_call_ids="dedupe": calls of one response sharing an id are coalesced before they
#:   run (``run_internal/tool_planning.py`` ``_dedupe_processed_response_invocations``); read
#:   off the runs: the tool runs once, one result is sent.
#: - argument_validation="feed_back" (since 2026-11-28, issue 28): each case tool is what a
#:   user writes, ``@function_tool`` over a typed function (``typed_tool``); the SDK validates
#:   the arguments with the pydantic model it builds from the signature and raises
#:   ``ModelBehaviorError("Invalid JSON input for tool ...")`` on a ``ValidationError``, which
#:   the tool's ``failure_error_function`` answers (``tool.py`` ``_prepare_arguments``): the
#:   tool does not run, the model is told. (A manual ``FunctionTool``, which the shim built
#:   before, gets "the arguments as a JSON string" unchecked, docs/tools.md.)
#: - model_retries=2: ``OpenAIChatCompletionsModel`` leaves retries to the openai client
#:   (``max_retries=2``) unless ``ModelSettings.retry`` is set
#:   (``run_internal/model_retry.py`` ``_should_disable_provider_managed_retries``).
#: - tool_timeout: ``FunctionTool.timeout_seconds`` is None by default (docs/tools.md "Function
#:   tool timeouts"); the shim sets it from the profile, with the default
#:   ``timeout_behavior="error_as_result"`` ("Tool 'x' timed out after N seconds." goes back to
#:   the model).
#: - unknown_tool_policy="abort": a call to a tool the agent does not have raises
#:   ``ModelBehaviorError`` and ends the run (``RunConfig.tool_not_found_behavior="raise_error"``,
#:   the default, ``run_config.py``); the shim sets it from the profile (``feed_back``:
#:   ``"return_error_to_model"``, the documented alternative).
#: - sync=False: ``Runner.run`` is async (``run_sync`` wraps it).
#: - loop_events=True, event_errors=False (since 2026-11-28): the shim runs
#:   ``Runner.run_streamed`` (the model's answers stream) and maps ``stream_events()``: the
#:   ``tool_called`` and ``tool_output`` run items and the text deltas (``stream_events.py``);
#:   a ``ToolCallOutputItem`` has no failure flag (``items.py``), so a failed call shows as a
#:   ``tool_result`` event holding the error text.
PROFILE = Profile(
    name="openai-agents Runner", sync=False, loop_events=True, event_errors=False,
    iteration_counts="model_calls", max_iterations=10, max_failure_rounds=None,
    tool_failure_budget=None, crash_policy="feed_back", unknown_tool_policy="abort",
    permanent_failure_stops=False,
    parallel_dispatch=True, duplicate_call_ids="dedupe", argument_validation="feed_back",
    # the argument model @function_tool builds from the typed function keeps pydantic's
    # default extra='ignore': an undeclared key is dropped, the tool runs (2026-11-28)
    undeclared_arguments="drop", model_retries=2, tool_timeout=0.5)


class OpenAIAgentsLoop(AgentLoop):
    """openai-agents' ``Agent`` and ``Runner`` pointed at ``request.endpoint``.

    Each case tool is a ``@function_tool`` over a function typed from the case's schema (the
    SDK validates the arguments against it; ``strict_mode=False`` keeps optional parameters
    optional, as the case's schema has them). A ``ToolError`` is returned as the tool's output
    (the documented way to send an error back to the model). Anything else (a crash, arguments
    the SDK rejects) is answered by the SDK's own ``default_tool_error_function``, as a
    ``@function_tool``'s is by default, or re-raised under ``crash_policy="abort"``
    (``failure_error_function=None``). The profile's ``max_iterations``, ``tool_timeout``,
    ``crash_policy`` and ``unknown_tool_policy`` configure the run, so the profile and the agent
    state the same policy. The run is ``Runner.run_streamed``, its stream events the loop's
    events; everything else is the SDK's default ``RunConfig`` (tracing off)."""

    shim, requires = "openai_agents", ("agents", "openai-agents")
    model_returns = "an agents Model"
    model_example = ("lambda ep: OpenAIChatCompletionsModel('gpt-4o-mini', "
                     "openai_client=openai.AsyncOpenAI(base_url=ep.base_url, "
                     "api_key=ep.api_key, http_client=ep.async_client))")
    model_class = "agents:Model"
    model_expected = "an agents.Model (OpenAIChatCompletionsModel, OpenAIResponsesModel...)"
    default_profile = PROFILE

    def default_model(self, endpoint: Any) -> Any:
        import openai
        from agents import OpenAIChatCompletionsModel

        client = openai.AsyncOpenAI(base_url=endpoint.base_url, api_key=endpoint.api_key,
                                    http_client=endpoint.async_client)
        return OpenAIChatCompletionsModel("gpt-4o-mini", openai_client=client)

    def build_tools(self, request: LoopRequest) -> list[Any]:
        """Each case tool as a user writes one: ``@function_tool`` over a function typed from
        the case's schema (``typed_tool``). The SDK builds the argument model from the
        signature and validates the model's arguments with it; a ``ValidationError`` (or bad
        JSON) raises ``ModelBehaviorError("Invalid JSON input for tool ...")``, answered by the
        tool's ``failure_error_function`` (``tool.py`` ``_prepare_arguments``)."""
        from agents import default_tool_error_function, function_tool
        from agents.tool_context import ToolContext

        abort = self.profile.crash_policy == "abort"

        def invoke(name: str) -> Any:
            async def call(ctx: Any, **arguments: Any) -> str:
                try:
                    return await request.executor.arun(name, arguments,
                                                       call_id=ctx.tool_call_id)
                except ToolError as exc:  # written for the model
                    return exc.message
            return call

        context = inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    annotation=ToolContext[Any])
        return [function_tool(typed_tool(spec, invoke(spec.name), leading=(context,)),
                              name_override=spec.name,
                              description_override=spec.description or "",
                              failure_error_function=None if abort
                              else default_tool_error_function,
                              strict_mode=False, timeout=self.profile.tool_timeout)
                for spec in request.tools]

    async def arun(self, request: LoopRequest) -> LoopResult:
        import openai
        from agents import (
            Agent,
            InputGuardrailTripwireTriggered,
            MaxTurnsExceeded,
            ModelBehaviorError,
            ModelRefusalError,
            ModelSettings,
            OutputGuardrailTripwireTriggered,
            RunConfig,
            Runner,
        )

        if request.endpoint is None:
            raise UsageError(
                "shims.openai_agents runs openai-agents with its own model client, which "
                "needs the fake provider's endpoint: run with --toolcall-loop-model=fake "
                "(ini: toolcall_loop_model = fake)")
        model = self.build_model(request.endpoint)
        # the fake stands in for api.openai.com, where the SDK asks a streamed answer for its
        # usage by itself; on another base_url it does not (chatcmpl_helpers.py
        # get_stream_options_param: include_usage defaults to True for the official client
        # only), so a user's ModelSettings.include_usage=True is what OpenAI's users get. The
        # conversation's system prompt is the agent's instructions (the SDK sends them first,
        # as the system message, with every model call)
        agent = Agent(name="assistant", model=model, tools=self.build_tools(request),
                      model_settings=ModelSettings(include_usage=True),
                      instructions=system_prompt(request) or None)
        prompt = "\n".join(m.content for m in request.messages if m.role == "user")
        events: list[LoopEvent] = []

        def ended(reason: str, text: str | None, usage: Usage | None = None) -> LoopResult:
            return with_events(LoopResult(stop_reason=reason, text=text,  # type: ignore[arg-type]
                                          usage=usage), events)

        try:
            not_found = ("raise_error" if self.profile.unknown_tool_policy == "abort"
                         else "return_error_to_model")
            result = Runner.run_streamed(agent, prompt, max_turns=self.profile.max_iterations,
                                         run_config=RunConfig(tracing_disabled=True,
                                                              tool_not_found_behavior=not_found))
            names: dict[str, str] = {}
            async for event in result.stream_events():
                events.extend(_events(event, names))
        except MaxTurnsExceeded:
            return ended("max_iterations", None)
        except ModelRefusalError as exc:  # the SDK names this ending itself
            return ended("content_filter", exc.refusal)
        except (InputGuardrailTripwireTriggered, OutputGuardrailTripwireTriggered) as exc:
            return ended("content_filter", type(exc).__name__)
        except ModelBehaviorError as exc:
            return ended("error", f"the run failed ({type(exc).__name__})")
        except openai.OpenAIError as exc:
            return ended("error", f"model call failed ({type(exc).__name__})")
        except Exception as exc:  # a tool's crash under crash_policy="abort", and the rest
            return ended("error", f"the run failed ({type(exc).__name__})")
        usage = result.context_wrapper.usage
        return ended("completed", str(result.final_output), usage=Usage(
            input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
            total_tokens=usage.total_tokens))


def _events(event: Any, names: dict[str, str]) -> list[LoopEvent]:
    """What ``RunResultStreaming.stream_events()`` shows its client, as loop events: a
    ``tool_called`` item (the call, its id and name), a ``tool_output`` item (its output; the
    SDK's items carry no failure flag, ``items.py`` ``ToolCallOutputItem``: every outcome is a
    ``tool_result``, ``event_errors=False``) and the model's text deltas
    (``raw_response_event`` with ``response.output_text.delta``; ``stream_events.py``)."""
    kind = getattr(event, "type", None)
    if kind == "raw_response_event":
        data = event.data
        if getattr(data, "type", None) == "response.output_text.delta" and data.delta:
            return [LoopEvent(type="text", content=data.delta)]
        return []
    if kind != "run_item_stream_event":
        return []
    item = event.item
    if event.name == "tool_called":
        raw = item.raw_item
        call_id, name = _field(raw, "call_id"), _field(raw, "name")
        if call_id and name:
            names[call_id] = name
        return [LoopEvent(type="tool_call", call_id=call_id, name=name,
                          content=str(_field(raw, "arguments") or ""))]
    if event.name == "tool_output":
        call_id = _field(item.raw_item, "call_id")
        return [LoopEvent(type="tool_result", call_id=call_id, name=names.get(call_id or ""),
                          content=str(item.output))]
    return []


def _field(raw: Any, name: str) -> Any:
    return raw.get(name) if isinstance(raw, dict) else getattr(raw, name, None)

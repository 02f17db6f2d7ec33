"""pydantic-ai's own ``Agent`` loop, with its own model client, under the loop cases.

``toolcall_loop = shims.pydantic_ai_agent()`` (its profile:
``shims.loop_profile("pydantic_ai_agent")``).
Run with ``--toolcall-loop-model=fake``: each case hands the loop the fake provider serving its
script (``request.endpoint``) and the shim points pydantic-ai's model there, by default
``OpenAIChatModel`` over ``OpenAIProvider``; ``model=lambda ep: ...`` builds another model on the
endpoint. The shim builds an ``Agent`` with the case's tools and maps how the run ended onto a
stop reason. It maps shapes and never repairs what the framework does.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import UsageError
from pytest_toolcall.core.loop import LoopEvent, LoopRequest, LoopResult, ToolError
from pytest_toolcall.core.model import Usage
from pytest_toolcall.shims._base import AgentLoop, system_prompt, typed_tool, with_events

#: pydantic-ai's documented defaults (confirmed 2026-11-23 on pydantic-ai-slim 2.68.0):
#: UsageLimits(request_limit=50) counts model requests and raises UsageLimitExceeded before the
#: 51st (https://github.com/pydantic/pydantic-ai/issues/2593 quotes check_before_request); a
#: tool raising ModelRetry more than its ``retries`` (default 1) ends the run with
#: UnexpectedModelBehavior; any other exception a tool raises propagates out of the run
#: (https://ai.pydantic.dev/api/exceptions); tool calls of one response run concurrently.
#: Read off the runs (2026-11-23): tool calls sharing an id are refused, none runs, and the run
#: ends with UnexpectedModelBehavior ("Function tool calls must have unique `tool_call_id`
#: values"); the openai SDK under OpenAIProvider retries a 5xx twice (``max_retries=2``). The
#: tool timeout is the shim's ``Agent(tool_timeout=...)``, taken from the profile.
#: Since 2026-11-28 (issue 28) the shim takes the paths users write: each tool is a typed
#: function (``typed_tool``), whose arguments pydantic-ai validates against the schema it builds
#: from the signature, a ``ValidationError`` going back to the model as a retry prompt
#: (``argument_validation="feed_back"``; ``Tool.from_schema``, used before, skips that
#: validation, its docstring says); and the run streams with an ``event_stream_handler``
#: (``agent/abstract.py`` ``run``: each model-request and call-tools node is streamed to the
#: handler), whose ``FunctionToolCallEvent``/``FunctionToolResultEvent`` (``ToolReturnPart.
#: outcome`` marks a failure) and text deltas are the loop's events (``loop_events=True``).
PROFILE = Profile(
    name="pydantic-ai Agent", sync=False, loop_events=True,
    iteration_counts="model_calls", max_iterations=50, max_failure_rounds=None,
    tool_failure_budget=1, crash_policy="abort", permanent_failure_stops=False,
    duplicate_call_ids="refuse", argument_validation="feed_back", model_retries=2,
    tool_timeout=0.5)


class PydanticAIAgentLoop(AgentLoop):
    """pydantic-ai's ``Agent`` pointed at ``request.endpoint``.

    A ``ToolError`` becomes ``ModelRetry`` (pydantic-ai's documented way to send a tool's error
    back to the model); anything else a tool raises is left to pydantic-ai. The profile's
    ``tool_failure_budget``, ``tool_timeout`` and ``max_iterations`` configure the agent, so
    the profile and the agent state the same policy."""

    shim, requires = "pydantic_ai_agent", ("pydantic_ai", "pydantic-ai")
    model_returns = "a pydantic_ai Model"
    model_example = ("lambda ep: OpenAIChatModel('gpt-4o-mini', provider=OpenAIProvider("
                     "base_url=ep.base_url, api_key=ep.api_key, http_client=ep.async_client))")
    model_class = "pydantic_ai.models:Model"
    model_expected = ("a pydantic_ai.models.Model (OpenAIChatModel, AnthropicModel, "
                      "GoogleModel...)")
    default_profile = PROFILE

    def default_model(self, endpoint: Any) -> Any:
        from pydantic_ai.exceptions import PydanticAIDeprecationWarning
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        with warnings.catch_warnings():  # httpx.AsyncClient: deprecated for v3, works in v2
            warnings.simplefilter("ignore", PydanticAIDeprecationWarning)
            provider = OpenAIProvider(base_url=endpoint.base_url, api_key=endpoint.api_key,
                                      http_client=endpoint.async_client)
        return OpenAIChatModel("gpt-4o-mini", provider=provider)

    async def arun(self, request: LoopRequest) -> LoopResult:
        from pydantic_ai import Agent, ModelRetry, RunContext, Tool
        from pydantic_ai.exceptions import (
            ContentFilterError,
            ModelAPIError,
            OutputTokenLimitExceeded,
            UnexpectedModelBehavior,
            UsageLimitExceeded,
        )
        from pydantic_ai.usage import UsageLimits

        if request.endpoint is None:
            raise UsageError(
                "shims.pydantic_ai_agent runs pydantic-ai with its own model client, which "
                "needs the fake provider's endpoint: run with --toolcall-loop-model=fake "
                "(ini: toolcall_loop_model = fake)")
        model = self.build_model(request.endpoint)

        def tool(name: str) -> Any:
            async def call(ctx: RunContext[Any], **arguments: Any) -> str:
                try:
                    return await request.executor.arun(name, arguments,
                                                       call_id=ctx.tool_call_id)
                except ToolError as exc:
                    raise ModelRetry(exc.message) from None
            return call

        context = inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    annotation=RunContext[Any])
        tools = [Tool(typed_tool(spec, tool(spec.name), leading=(context,)), takes_ctx=True,
                      name=spec.name, description=spec.description or "")
                 for spec in request.tools]
        # the conversation's system prompt is the agent's instructions (sent first with every
        # request: pydantic-ai's documented place for it)
        agent = Agent(model, tools=tools, retries=self.profile.tool_failure_budget or 0,
                      tool_timeout=self.profile.tool_timeout,
                      instructions=system_prompt(request) or None)
        prompt = "\n".join(m.content for m in request.messages if m.role == "user")
        events: list[LoopEvent] = []

        async def shown(_ctx: Any, stream: Any) -> None:
            async for event in stream:
                events.extend(_events(event))

        def ended(reason: str, text: str | None, usage: Usage | None = None) -> LoopResult:
            return with_events(LoopResult(stop_reason=reason, text=text,  # type: ignore[arg-type]
                                          usage=usage), events)

        try:
            result = await agent.run(prompt, event_stream_handler=shown, usage_limits=UsageLimits(
                request_limit=self.profile.max_iterations))
        except UsageLimitExceeded:
            return ended("max_iterations", None)
        # pydantic-ai names these two endings itself (both subclass UnexpectedModelBehavior)
        except ContentFilterError as exc:
            return ended("content_filter", str(exc))
        except OutputTokenLimitExceeded as exc:
            return ended("length", str(exc))
        except UnexpectedModelBehavior as exc:  # a tool over its retries, or a refusal
            reason = "failure_rounds" if "exceeded max retries" in str(exc) else "error"
            return ended(reason, str(exc))
        except ModelAPIError as exc:
            return ended("error", f"model call failed ({type(exc).__name__})")
        except Exception as exc:  # a tool's crash propagates out of pydantic-ai's run
            return ended("error", f"the run failed ({type(exc).__name__})")
        usage = result.usage  # a property (a method before pydantic-ai 2)
        usage = usage if hasattr(usage, "input_tokens") else usage()
        # plain text cut at the token limit is the run's output; the run's last response says
        # so (``result.response.finish_reason``, pydantic-ai's OutputTokenLimitExceeded docs)
        finish = getattr(getattr(result, "response", None), "finish_reason", None)
        return ended("length" if finish == "length" else "completed", str(result.output),
                     usage=Usage(input_tokens=usage.input_tokens,
                                 output_tokens=usage.output_tokens,
                                 total_tokens=usage.input_tokens + usage.output_tokens))


def _events(event: Any) -> list[LoopEvent]:
    """What pydantic-ai's event stream shows its client, as loop events: a function tool's call
    and its result (``ToolReturnPart.outcome`` other than ``success``: a failure), and the
    model's text as it streams (messages.py, pydantic-ai-slim 2.68.0)."""
    from pydantic_ai.messages import (
        FunctionToolCallEvent,
        FunctionToolResultEvent,
        PartDeltaEvent,
        PartStartEvent,
        TextPart,
        TextPartDelta,
    )

    if isinstance(event, FunctionToolCallEvent):
        return [LoopEvent(type="tool_call", call_id=event.part.tool_call_id,
                          name=event.part.tool_name, content=event.part.args_as_json_str())]
    if isinstance(event, FunctionToolResultEvent):
        part = event.part
        failed = getattr(part, "outcome", "success") != "success"
        return [LoopEvent(type="tool_error" if failed else "tool_result",
                          call_id=part.tool_call_id, name=part.tool_name,
                          content=part.model_response_str())]
    if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
        return [LoopEvent(type="text", content=event.part.content)] if event.part.content else []
    if isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
        return [LoopEvent(type="text", content=event.delta.content_delta)]
    return []

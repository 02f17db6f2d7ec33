"""Real agent frameworks' own loops under the loop cases (issue 15, item 5).

Each shim hands the framework the case's conversation, tools and the fake provider's endpoint
(``LoopRequest.endpoint``, so it runs with ``--toolcall-loop-model=fake`` / ``loop_model="fake"``)
and maps how the run ended onto a stop reason. Shims map shapes; they never repair what the
framework does. Each comes with the profile of the framework's documented default policy; the
cases it still fails are its known gaps, each with the reason (``tests/test_framework_loops.py``).
"""

from __future__ import annotations

import warnings
from typing import Any

from pytest_toolcall import Profile, Usage
from pytest_toolcall.loop import LoopRequest, LoopResult, ToolError

#: pydantic-ai's documented defaults (confirmed 2026-11-23 on pydantic-ai-slim 2.68.0):
#: UsageLimits(request_limit=50) counts model requests and raises UsageLimitExceeded before the
#: 51st (https://github.com/pydantic/pydantic-ai/issues/2593 quotes check_before_request); a
#: tool raising ModelRetry more than its ``retries`` (default 1) ends the run with
#: UnexpectedModelBehavior; any other exception a tool raises propagates out of the run
#: (https://ai.pydantic.dev/api/exceptions); tool calls of one response run concurrently.
#: Read off the runs (2026-11-23): tool calls sharing an id are refused, none runs, and the run
#: ends with UnexpectedModelBehavior ("Function tool calls must have unique `tool_call_id`
#: values"); ``Tool.from_schema`` skips schema validation of the arguments (its docstring);
#: the openai SDK under OpenAIProvider retries a 5xx twice (``max_retries=2``).
PYDANTIC_AI_PROFILE = Profile(
    name="pydantic-ai Agent", sync=False, loop_events=False,
    iteration_counts="model_calls", max_iterations=50, max_failure_rounds=None,
    tool_failure_budget=1, crash_policy="abort", permanent_failure_stops=False,
    duplicate_call_ids="refuse", argument_validation="none", model_retries=2,
    tool_timeout=0.5)


class PydanticAILoop:
    """pydantic-ai's ``Agent`` with its OpenAI chat model, pointed at ``request.endpoint``.

    A ``ToolError`` becomes ``ModelRetry`` (pydantic-ai's documented way to send a tool's error
    back to the model); anything else a tool raises is left to pydantic-ai."""

    def __init__(self, profile: Profile = PYDANTIC_AI_PROFILE) -> None:
        self.profile = profile

    async def arun(self, request: LoopRequest) -> LoopResult:
        from pydantic_ai import Agent, ModelRetry, RunContext, Tool
        from pydantic_ai.exceptions import (
            ContentFilterError,
            ModelAPIError,
            OutputTokenLimitExceeded,
            PydanticAIDeprecationWarning,
            UnexpectedModelBehavior,
            UsageLimitExceeded,
        )
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider
        from pydantic_ai.usage import UsageLimits

        endpoint = request.endpoint
        if endpoint is None:
            return LoopResult(stop_reason="error",
                              text="this loop needs --toolcall-loop-model=fake")
        with warnings.catch_warnings():  # httpx.AsyncClient: deprecated for v3, works in v2
            warnings.simplefilter("ignore", PydanticAIDeprecationWarning)
            provider = OpenAIProvider(base_url=endpoint.base_url, api_key=endpoint.api_key,
                                      http_client=endpoint.async_client)
        model = OpenAIChatModel("gpt-4o-mini", provider=provider)

        def tool(name: str) -> Any:
            async def call(ctx: RunContext[Any], **arguments: Any) -> str:
                try:
                    return await request.executor.arun(name, arguments,
                                                       call_id=ctx.tool_call_id)
                except ToolError as exc:
                    raise ModelRetry(exc.message) from None
            return call

        tools = [Tool.from_schema(tool(spec.name), name=spec.name,
                                  description=spec.description or "",
                                  json_schema=spec.parameters, takes_ctx=True)
                 for spec in request.tools]
        agent = Agent(model, tools=tools, retries=self.profile.tool_failure_budget or 0,
                      tool_timeout=self.profile.tool_timeout)
        prompt = "\n".join(m.content for m in request.messages if m.role == "user")
        try:
            result = await agent.run(prompt, usage_limits=UsageLimits(
                request_limit=self.profile.max_iterations))
        except UsageLimitExceeded:
            return LoopResult(stop_reason="max_iterations", text=None)
        # pydantic-ai names these two endings itself (both subclass UnexpectedModelBehavior)
        except ContentFilterError as exc:
            return LoopResult(stop_reason="content_filter", text=str(exc))
        except OutputTokenLimitExceeded as exc:
            return LoopResult(stop_reason="length", text=str(exc))
        except UnexpectedModelBehavior as exc:  # a tool over its retries, or a refusal
            reason = "failure_rounds" if "exceeded max retries" in str(exc) else "error"
            return LoopResult(stop_reason=reason, text=str(exc))
        except ModelAPIError as exc:
            return LoopResult(stop_reason="error", text=f"model call failed ({type(exc).__name__})")
        except Exception as exc:  # a tool's crash propagates out of pydantic-ai's run
            return LoopResult(stop_reason="error", text=f"the run failed ({type(exc).__name__})")
        usage = result.usage  # a property (a method before pydantic-ai 2)
        usage = usage if hasattr(usage, "input_tokens") else usage()
        # plain text cut at the token limit is the run's output; the run's last response says
        # so (``result.response.finish_reason``, pydantic-ai's OutputTokenLimitExceeded docs)
        finish = getattr(getattr(result, "response", None), "finish_reason", None)
        return LoopResult(stop_reason="length" if finish == "length" else "completed",
                          text=str(result.output), usage=Usage(
            input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
            total_tokens=usage.input_tokens + usage.output_tokens))

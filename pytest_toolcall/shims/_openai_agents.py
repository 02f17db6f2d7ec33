"""The OpenAI Agents SDK's own ``Runner`` loop, with its own OpenAI client, under the loop cases.

``toolcall_loop = OpenAIAgentsLoop()`` (its profile: ``PROFILE``). Run with
``--toolcall-loop-model=fake``: each case hands the loop the fake provider serving its script
(``request.endpoint``) and the shim points the agent's model there, by default
``OpenAIChatCompletionsModel`` over ``openai.AsyncOpenAI``; ``model=lambda ep: ...`` builds
another ``agents`` model on the endpoint. The shim builds an ``Agent`` with the case's tools,
runs ``Runner.run`` with tracing disabled (nothing leaves the process) and maps how the run
ended onto a stop reason. It maps shapes and never repairs what the framework does.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import UsageError
from pytest_toolcall.core.loop import LoopRequest, LoopResult, ToolError
from pytest_toolcall.core.model import Usage
from pytest_toolcall.shims._base import built_model, model_factory, require, system_prompt

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
#: - argument_validation="none": a manual ``FunctionTool`` gets "the arguments as a JSON
#:   string" and validates them itself if at all (docs/tools.md "Custom function tools"); the
#:   SDK does not check them against ``params_json_schema`` (read off the runs: the tool runs
#:   with a missing or mistyped argument).
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
#: - sync=False: ``Runner.run`` is async (``run_sync`` wraps it); loop_events=False: the shim
#:   reports no events.
PROFILE = Profile(
    name="openai-agents Runner", sync=False, loop_events=False,
    iteration_counts="model_calls", max_iterations=10, max_failure_rounds=None,
    tool_failure_budget=None, crash_policy="feed_back", unknown_tool_policy="abort",
    permanent_failure_stops=False,
    parallel_dispatch=True, duplicate_call_ids="dedupe", argument_validation="none",
    model_retries=2, tool_timeout=0.5)


class OpenAIAgentsLoop:
    """openai-agents' ``Agent`` and ``Runner`` pointed at ``request.endpoint``.

    Each case tool is a ``FunctionTool`` with the case's JSON schema as it is
    (``strict_json_schema=False``: the SDK's strict rewrite would change it). Its
    ``on_invoke_tool`` parses the arguments, runs the kit's executor and returns a
    ``ToolError``'s message as the tool's output (the documented way to send an error back to
    the model). Anything else (a crash, arguments that are not JSON) is answered by the SDK's
    own ``default_tool_error_function``, as a ``@function_tool`` is by default (for bad JSON
    it raises ``ModelBehaviorError("Invalid JSON input for tool ...")`` into that same
    function), or re-raised under ``crash_policy="abort"``. The profile's ``max_iterations``,
    ``tool_timeout``, ``crash_policy`` and ``unknown_tool_policy`` configure the run, so the profile and the agent state
    the same policy. Everything else is the SDK's default ``RunConfig`` (tracing off)."""

    def __init__(self, model: Callable[[Any], Any] | None = None,
                 profile: Profile = PROFILE) -> None:
        self.model = model_factory(
            "openai_agents", model, "an agents Model",
            "lambda ep: OpenAIChatCompletionsModel('gpt-4o-mini', openai_client=openai.AsyncOpenAI("
            "base_url=ep.base_url, api_key=ep.api_key, http_client=ep.async_client))")
        require("agents", "openai-agents", "openai_agents")
        self.profile = profile

    def build_model(self, endpoint: Any) -> Any:
        from agents import Model, OpenAIChatCompletionsModel

        if self.model is not None:
            return built_model("openai_agents", self.model, endpoint, Model,
                               "an agents.Model (OpenAIChatCompletionsModel, "
                               "OpenAIResponsesModel...)")
        import openai

        client = openai.AsyncOpenAI(base_url=endpoint.base_url, api_key=endpoint.api_key,
                                    http_client=endpoint.async_client)
        return OpenAIChatCompletionsModel("gpt-4o-mini", openai_client=client)

    def build_tools(self, request: LoopRequest) -> list[Any]:
        from agents import FunctionTool, default_tool_error_function

        abort = self.profile.crash_policy == "abort"

        def invoke(name: str) -> Any:
            async def on_invoke_tool(ctx: Any, arguments: str) -> str:
                try:
                    parsed = json.loads(arguments) if arguments else {}
                    return await request.executor.arun(name, parsed, call_id=ctx.tool_call_id)
                except ToolError as exc:  # written for the model
                    return exc.message
                except Exception as exc:
                    if abort:
                        raise
                    return str(default_tool_error_function(ctx, exc))
            return on_invoke_tool

        return [FunctionTool(name=spec.name, description=spec.description or "",
                             params_json_schema=dict(spec.parameters),
                             on_invoke_tool=invoke(spec.name), strict_json_schema=False,
                             timeout_seconds=self.profile.tool_timeout)
                for spec in request.tools]

    async def arun(self, request: LoopRequest) -> LoopResult:
        import openai
        from agents import (
            Agent,
            InputGuardrailTripwireTriggered,
            MaxTurnsExceeded,
            ModelBehaviorError,
            ModelRefusalError,
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
        # the conversation's system prompt is the agent's instructions (the SDK sends them
        # first, as the system message, with every model call)
        agent = Agent(name="assistant", model=model, tools=self.build_tools(request),
                      instructions=system_prompt(request) or None)
        prompt = "\n".join(m.content for m in request.messages if m.role == "user")
        try:
            not_found = ("raise_error" if self.profile.unknown_tool_policy == "abort"
                         else "return_error_to_model")
            result = await Runner.run(agent, prompt, max_turns=self.profile.max_iterations,
                                      run_config=RunConfig(tracing_disabled=True,
                                                           tool_not_found_behavior=not_found))
        except MaxTurnsExceeded:
            return LoopResult(stop_reason="max_iterations", text=None)
        except ModelRefusalError as exc:  # the SDK names this ending itself
            return LoopResult(stop_reason="content_filter", text=exc.refusal)
        except (InputGuardrailTripwireTriggered, OutputGuardrailTripwireTriggered) as exc:
            return LoopResult(stop_reason="content_filter", text=type(exc).__name__)
        except ModelBehaviorError as exc:
            return LoopResult(stop_reason="error", text=f"the run failed ({type(exc).__name__})")
        except openai.OpenAIError as exc:
            return LoopResult(stop_reason="error", text=f"model call failed ({type(exc).__name__})")
        except Exception as exc:  # a tool's crash under crash_policy="abort", and the rest
            return LoopResult(stop_reason="error", text=f"the run failed ({type(exc).__name__})")
        usage = result.context_wrapper.usage
        return LoopResult(stop_reason="completed", text=str(result.final_output), usage=Usage(
            input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
            total_tokens=usage.total_tokens))

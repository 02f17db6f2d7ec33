"""smolagents' own ``ToolCallingAgent`` loop, with its own model client, under the loop cases.

``toolcall_loop = shims.smolagents()`` (its profile: ``shims.loop_profile("smolagents")``).
Run with ``--toolcall-loop-model=fake``: each case hands the loop the fake provider serving its
script (``request.endpoint``) and the shim points smolagents' model there, by default
``OpenAIServerModel`` (the openai SDK on the endpoint's httpx client); ``model=lambda ep: ...``
builds another smolagents model on the endpoint. The shim builds a ``ToolCallingAgent`` with the
case's tools and maps how the run ended onto a stop reason. It maps shapes and never repairs
what the framework does.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import UsageError
from pytest_toolcall.core.loop import LoopRequest, LoopResult
from pytest_toolcall.core.model import Usage
from pytest_toolcall.shims._base import built_model, model_factory, require, system_prompt

#: smolagents' documented default policy (smolagents 1.26.0, confirmed 2026-11-25; the
#: reference page https://huggingface.co/docs/smolagents/reference/agents and the installed
#: sources site-packages/smolagents/agents.py, models.py, memory.py, tools.py):
#: - ``max_steps`` (default 20, ``MultiStepAgent.__init__``) counts steps, one model call each
#:   (``_run_stream``: ``while not returned_final_answer and self.step_number <= max_steps``),
#:   and the tool calls of the 20th step still run: ``iteration_counts="model_calls"``;
#: - after ``max_steps`` without an answer, ``_handle_max_steps_reached`` ->
#:   ``provide_final_answer`` makes ONE more model call, without tools, whose text is the run's
#:   output (``RunResult.state == "max_steps_error"``): ``closing_call=True``;
#: - a run ends only through the ``final_answer`` tool (``FinalAnswerTool``, added to every
#:   agent by ``_setup_tools``); a model answer without tool calls goes to
#:   ``Model.parse_tool_calls``, which looks for a JSON tool call in the text and otherwise
#:   raises ``AgentParsingError``: the step fails and the loop goes on. OpenAIServerModel asks
#:   the provider for ``tool_choice="required"`` (``Model._prepare_completion_kwargs``):
#:   ``final_answer_tool="final_answer"``;
#: - any exception a tool raises becomes ``AgentToolExecutionError("Error executing tool ...:
#:   {type}: {exc}")`` (``execute_tool_call``); ``_run_stream`` stores it on the step and goes
#:   on, and ``ActionStep.to_messages`` sends it back as a ``tool-response`` message, which
#:   ``tool_role_conversions`` turns into a USER message, as are the observations:
#:   ``feedback_role="user"``, ``crash_policy="feed_back"``, no failure-round cap, no per-tool
#:   budget, and a failure cannot be permanent (``permanent_failure_stops=False``);
#: - ``validate_tool_arguments`` checks every argument's name and JSON type against the
#:   tool's ``inputs`` and the required ones before the tool runs, and the error is fed back
#:   (``AgentToolCallError``): ``argument_validation="feed_back"``;
#: - ``process_tool_calls`` keys a step's calls by id (a repeated id runs once:
#:   ``duplicate_call_ids="dedupe"``) and runs two or more in a ``ThreadPoolExecutor``
#:   (``parallel_dispatch=True``); a tool call has no timeout (``tool_timeout=None``);
#: - ``OpenAIServerModel`` builds an ``openai.OpenAI`` client, which retries a 5xx, a 429 and
#:   a timeout twice (``max_retries=2``): ``model_retries=2``. smolagents' own ``Retrying``
#:   (``ApiModel``, ``RETRY_MAX_ATTEMPTS=3``, 60 s apart) retries only what
#:   ``is_rate_limit_error`` matches, after the SDK has given up;
#: - ``MultiStepAgent.run`` is sync (no async run in 1.26.0); the shim reports no events.
PROFILE = Profile(
    name="smolagents ToolCallingAgent", sync=True, async_=False, loop_events=False,
    iteration_counts="model_calls", max_iterations=20, max_failure_rounds=None,
    tool_failure_budget=None, closing_call=True, final_answer_tool="final_answer",
    feedback_role="user", crash_policy="feed_back", permanent_failure_stops=False,
    duplicate_call_ids="dedupe", argument_validation="feed_back", parallel_dispatch=True,
    tool_timeout=None, model_retries=2)

#: JSON Schema types smolagents' ``Tool.inputs`` accepts as they are (``AUTHORIZED_TYPES``)
_JSON_TYPES = ("string", "boolean", "integer", "number", "array", "object", "null")


class SmolagentsLoop:
    """smolagents' ``ToolCallingAgent`` pointed at ``request.endpoint``.

    Each case tool is a smolagents ``Tool`` whose ``inputs`` come from its JSON schema and
    whose ``forward`` runs the kit's executor. A tool reports failure to smolagents by raising
    (its documented way: ``execute_tool_call`` feeds the error back), so a ``ToolError`` and
    any other exception are left to smolagents as raised. The profile's ``max_iterations``
    is the agent's ``max_steps``, so the profile and the agent state the same policy."""

    def __init__(self, model: Callable[[Any], Any] | None = None,
                 profile: Profile = PROFILE) -> None:
        self.model = model_factory(
            "smolagents", model, "a smolagents Model",
            "lambda ep: OpenAIServerModel('gpt-4o-mini', api_base=ep.base_url, "
            "api_key=ep.api_key, client_kwargs={'http_client': ep.client})")
        require("smolagents", "smolagents", "smolagents")
        self.profile = profile

    def build_model(self, endpoint: Any) -> Any:
        from smolagents.models import Model

        if self.model is not None:
            return built_model("smolagents", self.model, endpoint, Model,
                               "a smolagents.models.Model (OpenAIServerModel, LiteLLMModel, "
                               "InferenceClientModel...)")
        provider = getattr(endpoint, "provider", "openai")
        if provider != "openai":
            raise UsageError(
                f"shims.smolagents: the default model (OpenAIServerModel) speaks OpenAI Chat "
                f"Completions, and the fake provider plays {provider!r}: run with "
                "--toolcall-provider=openai, or pass model=lambda ep: ... building a smolagents "
                f"model that speaks {provider!r} on the endpoint")
        require("openai", "smolagents", "smolagents")
        from smolagents import OpenAIServerModel

        return OpenAIServerModel("gpt-4o-mini", api_base=endpoint.base_url,
                                 api_key=endpoint.api_key,
                                 client_kwargs={"http_client": endpoint.client})

    def run(self, request: LoopRequest) -> LoopResult:
        from smolagents import ToolCallingAgent
        from smolagents.memory import ActionStep, FinalAnswerStep, PlanningStep, ToolCall
        from smolagents.monitoring import LogLevel
        from smolagents.utils import AgentGenerationError, AgentMaxStepsError

        if request.endpoint is None:
            raise UsageError(
                "shims.smolagents runs smolagents with its own model client, which needs the "
                "fake provider's endpoint: run with --toolcall-loop-model=fake "
                "(ini: toolcall_loop_model = fake)")
        model = self.build_model(request.endpoint)
        ids = _CallIds()
        tools = [_tool(spec, request.executor, ids) for spec in request.tools]
        # the conversation's system prompt goes where smolagents takes one: ``instructions``,
        # inserted in its own system prompt (agents.py, smolagents 1.26.0)
        agent = ToolCallingAgent(tools=tools, model=model, add_base_tools=False,
                                 max_steps=self.profile.max_iterations,
                                 verbosity_level=LogLevel.OFF,
                                 instructions=system_prompt(request) or None)
        prompt = "\n".join(m.content for m in request.messages if m.role == "user")
        output: Any = None
        try:
            # streamed steps: smolagents names each call's id in a ToolCall event before the
            # step's tools run; the executor records it (it is not passed to the tool)
            for event in agent.run(prompt, stream=True):
                if isinstance(event, ToolCall):
                    ids.add(event.name, event.arguments, event.id)
                elif isinstance(event, FinalAnswerStep):
                    output = event.output
        except AgentGenerationError as exc:  # the model call failed (smolagents re-raises it)
            cause = exc.__cause__ or exc
            return LoopResult(stop_reason="error",
                              text=f"model call failed ({type(cause).__name__})")
        except Exception as exc:  # anything else smolagents lets out of its run
            return LoopResult(stop_reason="error", text=f"the run failed ({type(exc).__name__})")
        steps = agent.memory.steps
        # how smolagents itself tells the two endings apart (MultiStepAgent.run's RunResult)
        capped = bool(steps) and isinstance(getattr(steps[-1], "error", None), AgentMaxStepsError)
        counted = [s.token_usage for s in steps if isinstance(s, (ActionStep, PlanningStep))]
        usage = None
        if counted and all(u is not None for u in counted):
            inputs = sum(u.input_tokens for u in counted)
            outputs = sum(u.output_tokens for u in counted)
            usage = Usage(input_tokens=inputs, output_tokens=outputs,
                          total_tokens=inputs + outputs)
        return LoopResult(stop_reason="max_iterations" if capped else "completed",
                          text=None if output is None else str(output), usage=usage)


class _CallIds:
    """The ids smolagents gave a step's calls (its ToolCall events), handed to the executor
    when the matching call runs: by name and arguments, else the first one left by name."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pending: list[tuple[str, str, str]] = []

    def add(self, name: str, arguments: Any, call_id: str) -> None:
        with self.lock:
            self.pending.append((name, _key(arguments), call_id))

    def take(self, name: str, arguments: Any) -> str | None:
        key = _key(arguments)
        with self.lock:
            for match in (lambda p: p[0] == name and p[1] == key, lambda p: p[0] == name):
                for n, pending in enumerate(self.pending):
                    if match(pending):
                        return self.pending.pop(n)[2]
        return None


def _key(arguments: Any) -> str:
    try:
        return json.dumps(arguments, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return repr(arguments)


def _tool(spec: Any, executor: Any, ids: _CallIds) -> Any:
    """A smolagents ``Tool`` for one case tool: ``inputs`` from its JSON schema (a property
    that is not required is ``nullable``, smolagents' way to say optional)."""
    from smolagents import Tool

    schema = spec.parameters or {}
    required = set(schema.get("required", ()))
    inputs: dict[str, dict[str, Any]] = {}
    for key, prop in (schema.get("properties") or {}).items():
        kind = prop.get("type", "any")
        entry = {"type": kind if kind in _JSON_TYPES else "any",
                 "description": prop.get("description") or key}
        if key not in required:
            entry["nullable"] = True
        inputs[key] = entry

    class CaseTool(Tool):
        skip_forward_signature_validation = True  # forward takes the inputs as **kwargs

        def __init__(self) -> None:
            self.name = spec.name
            self.description = spec.description or spec.name
            self.inputs = inputs
            self.output_type = "string"
            super().__init__()

        def forward(self, *args: Any, **arguments: Any) -> str:
            if args:  # smolagents passes a lone non-dict argument positionally
                arguments = dict(zip(inputs, args))
            call_id = ids.take(spec.name, arguments)
            return executor.run(spec.name, arguments, call_id=call_id)

    return CaseTool()

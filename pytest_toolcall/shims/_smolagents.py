"""smolagents' own ``ToolCallingAgent`` loop, with its own model client, under the loop cases.

``toolcall_loop = shims.smolagents()`` (its profile: ``shims.loop_profile("smolagents")``).
Run with ``--toolcall-loop-model=fake``: each case hands the loop the fake provider serving its
script (``request.endpoint``) and the shim points smolagents' model there, by default
``OpenAIServerModel`` (the openai SDK on the endpoint's httpx client); ``model=lambda ep: ...``
builds another smolagents model on the endpoint. The shim builds a streaming
``ToolCallingAgent`` with the case's tools and maps its events and how the run ended. It maps
shapes and never repairs what the framework does.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import UsageError
from pytest_toolcall.core.loop import LoopEvent, LoopRequest, LoopResult
from pytest_toolcall.core.model import Usage
from pytest_toolcall.shims._base import AgentLoop, require, system_prompt, with_events

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
#: - ``MultiStepAgent.run`` is sync (no async run in 1.26.0);
#: - loop_events=True (since 2026-11-28, issue 28): ``run(stream=True)`` yields each
#:   ``ToolCall``, each ``ToolOutput`` and each finished ``ActionStep`` with its ``error``
#:   (``_run_stream``), the shim's loop events; ``stream_outputs=True`` makes each answer come
#:   through ``generate_stream`` (``_step_stream``), the path of a user who streams.
PROFILE = Profile(
    name="smolagents ToolCallingAgent", sync=True, async_=False, loop_events=True,
    iteration_counts="model_calls", max_iterations=20, max_failure_rounds=None,
    tool_failure_budget=None, closing_call=True, final_answer_tool="final_answer",
    feedback_role="user", crash_policy="feed_back", permanent_failure_stops=False,
    duplicate_call_ids="dedupe", argument_validation="feed_back", parallel_dispatch=True,
    tool_timeout=None, model_retries=2)

#: JSON Schema types smolagents' ``Tool.inputs`` accepts as they are (``AUTHORIZED_TYPES``)
_JSON_TYPES = ("string", "boolean", "integer", "number", "array", "object", "null")


class SmolagentsLoop(AgentLoop):
    """smolagents' ``ToolCallingAgent`` pointed at ``request.endpoint``.

    Each case tool is a smolagents ``Tool`` whose ``inputs`` come from its JSON schema and
    whose ``forward`` runs the kit's executor. A tool reports failure to smolagents by raising
    (its documented way: ``execute_tool_call`` feeds the error back), so a ``ToolError`` and
    any other exception are left to smolagents as raised. The profile's ``max_iterations``
    is the agent's ``max_steps``, so the profile and the agent state the same policy."""

    shim, requires = "smolagents", ("smolagents", "smolagents")
    model_returns = "a smolagents Model"
    model_example = ("lambda ep: OpenAIServerModel('gpt-4o-mini', api_base=ep.base_url, "
                     "api_key=ep.api_key, client_kwargs={'http_client': ep.client})")
    model_class = "smolagents.models:Model"
    model_expected = ("a smolagents.models.Model (OpenAIServerModel, LiteLLMModel, "
                      "InferenceClientModel...)")
    default_profile = PROFILE

    def default_model(self, endpoint: Any) -> Any:
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
        # a streaming agent shows each answer in a rich Live panel on its logger's console
        # whatever the level (agents.py _step_stream): a quiet console keeps the test log clean.
        # The conversation's system prompt goes where smolagents takes one: ``instructions``,
        # inserted in its own system prompt (agents.py, smolagents 1.26.0)
        from rich.console import Console
        from smolagents.monitoring import AgentLogger

        agent = ToolCallingAgent(tools=tools, model=model, add_base_tools=False,
                                 max_steps=self.profile.max_iterations,
                                 logger=AgentLogger(level=LogLevel.OFF,
                                                    console=Console(quiet=True)),
                                 stream_outputs=self.stream_outputs(model),
                                 instructions=system_prompt(request) or None)
        prompt = "\n".join(m.content for m in request.messages if m.role == "user")
        output: Any = None
        seen = _Seen(self.profile.final_answer_tool)
        try:
            # streamed steps: smolagents names each call's id in a ToolCall event before the
            # step's tools run; the executor records it (it is not passed to the tool)
            for event in agent.run(prompt, stream=True):
                if isinstance(event, ToolCall):
                    ids.add(event.name, event.arguments, event.id)
                elif isinstance(event, FinalAnswerStep):
                    output = event.output
                seen.add(event)
        except AgentGenerationError as exc:  # the model call failed (smolagents re-raises it)
            cause = exc.__cause__ or exc
            return seen.ended(LoopResult(stop_reason="error",
                                         text=f"model call failed ({type(cause).__name__})"))
        except Exception as exc:  # anything else smolagents lets out of its run
            return seen.ended(LoopResult(stop_reason="error",
                                         text=f"the run failed ({type(exc).__name__})"))
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
        return seen.ended(LoopResult(stop_reason="max_iterations" if capped else "completed",
                                     text=None if output is None else str(output),
                                     usage=usage))

    @staticmethod
    def stream_outputs(model: Any) -> bool:
        """``ToolCallingAgent(stream_outputs=True)`` where the model streams (it has
        ``generate_stream``, as ``OpenAIServerModel`` has): each step's answer then comes
        through ``generate_stream`` (agents.py ``_step_stream``), the path a user who streams
        takes."""
        return hasattr(model, "generate_stream")


class _Seen:
    """What ``agent.run(stream=True)`` showed its client, as loop events: each ``ToolCall``
    (but the agent's own final-answer tool), each ``ToolOutput`` as the call's result, a step's
    ``error`` as the failure of each of its calls (its ``ToolCall`` events) that gave no
    output, the ``FinalAnswerStep`` as the answer (agents.py ``_run_stream``, memory.py;
    smolagents 1.26.0)."""

    def __init__(self, final_answer_tool: str | None) -> None:
        self.final = final_answer_tool
        self.events: list[LoopEvent] = []
        self.answered: set[str] = set()
        #: the calls (id, name) the current step's ToolCall events showed
        self.step: list[tuple[str, str]] = []

    def add(self, event: Any) -> None:
        from smolagents.agents import ToolOutput
        from smolagents.memory import ActionStep, FinalAnswerStep, ToolCall

        if isinstance(event, ToolCall) and event.name != self.final:
            self.step.append((event.id, event.name))
            self.events.append(LoopEvent(type="tool_call", call_id=event.id, name=event.name,
                                         content=_key(event.arguments)))
        elif isinstance(event, ToolOutput) and not event.is_final_answer:
            self.answered.add(event.id)
            self.events.append(LoopEvent(type="tool_result", call_id=event.id,
                                         name=event.tool_call.name,
                                         content=str(event.observation or event.output)))
        elif isinstance(event, ActionStep):
            # the step's calls are those its ToolCall events showed: a step that failed sets
            # ``tool_calls`` only once every call returned (agents.py process_tool_calls)
            for call_id, name in self.step if event.error is not None else ():
                if call_id not in self.answered:
                    self.answered.add(call_id)
                    self.events.append(LoopEvent(type="tool_error", call_id=call_id,
                                                 name=name, content=str(event.error)))
            self.step = []
        elif isinstance(event, FinalAnswerStep) and event.output is not None:
            self.events.append(LoopEvent(type="text", content=str(event.output)))

    def ended(self, result: LoopResult) -> LoopResult:
        return with_events(result, self.events)  # type: ignore[no-any-return]


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

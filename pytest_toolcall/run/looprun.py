"""Running loop and history cases: scripts, recordings, and the drivers.

A loop case gives the loop under test a conversation, scripted tools (an
:class:`~pytest_toolcall.cases.tools.Executor`) and a model that answers from the script: in-process
(:class:`~pytest_toolcall.run.scripted.ScriptedModel`) or the reference adapter of the dialect wired
to the fake provider. A history case hands a stored history to the builder under test.
"""

from __future__ import annotations

import contextlib
import copy
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pytest_toolcall.cases import HistoryScript, LoopScript, Turn
from pytest_toolcall.run.checks import breach_failure, describe_error, rejection_failure
from pytest_toolcall.core.contracts import Interface
from pytest_toolcall.core.errors import ConformanceFailure, KitError, ToolcallError, UsageError
from pytest_toolcall.core.loop import LoopRequest, LoopResult
from pytest_toolcall.core.model import (
    AssistantMessage,
    ChatRequest,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from pytest_toolcall.providers import REGISTRY as PROVIDERS
from pytest_toolcall.run.runbase import (
    CaseSkipped,
    Held,
    SubjectFault,
    hypothesis_home,
    call_with_deadline,
    check_crashed,
    coerce,
    interfaces,
    run_checks,
)
from pytest_toolcall.cases.tools import Executor, ScriptedTool

__all__ = [
    "BoundedScript",
    "CancelScript",
    "HistoryRun",
    "HistoryScript",
    "LoopRun",
    "LoopScript",
    "loop_interfaces",
    "model_call_ceiling",
    "run_history",
    "run_loop",
]

LoopModel = Literal["inprocess", "fake"]


class CancelScript(LoopScript):
    """A loop script in which the user presses stop: the kit sets ``LoopRequest.cancel`` while
    the tool named ``cancel_during`` runs (its first call), as an application's stop button
    would while the agent works."""

    cancel_during: str
    #: a tool of the script still working when the user presses stop: it ends only once the
    #: stop is pressed and ``grace`` seconds have passed (a tool that checks its abort signal
    #: between steps), or when its task is cancelled; the kit records whether it was still
    #: running when the loop returned (``loop.tools_stopped``)
    stoppable: str | None = None
    grace: float = Field(default=0.25, gt=0)
    #: press the stop only once ``cancel_during`` and ``stoppable`` have both started (a loop
    #: that runs a round's calls in parallel: the stop then comes while both work, whatever
    #: order its threads or tasks start in)
    together: bool = False

    @model_validator(mode="after")
    def _a_tool_of_the_script(self) -> CancelScript:
        names = [t.spec.name for t in self.tools]
        for field_name in ("cancel_during", "stoppable"):
            name = getattr(self, field_name)
            if name is not None and name not in names:
                raise ValueError(f"{field_name}={name!r} names no tool of the script (its "
                                 f"tools: {', '.join(names)})")
        return self


class BoundedScript(LoopScript):
    """A loop script whose run must end sooner than the profile's ``timeout``: past
    ``deadline`` seconds the case fails with ``clause`` and ``hint`` (a wait the loop should
    have capped), not with the generic ``loop.timeout``."""

    deadline: float = Field(gt=0)
    clause: str
    hint: str


class _StopButton(Executor):
    """The case's executor, which sets the run's cancel signal when ``during`` starts."""

    def __init__(self, tools: Any, cancel: threading.Event, during: str,
                 stoppable: str | None = None, grace: float = 0.25,
                 together: bool = False) -> None:
        super().__init__(tools)
        self.cancel, self.during = cancel, during
        self.stoppable, self.grace = stoppable, grace
        self.pressed_with = {during, stoppable} if together and stoppable else {during}
        #: when the stop was pressed and when the loop returned (``time.perf_counter()``), and
        #: the executions still running at that return
        self.pressed_at: float | None = None
        self.returned_at: float | None = None
        self.running_at_return: list[Any] = []
        self._returned = threading.Event()

    def _start(self, name: str, arguments: Any, call_id: str | None) -> Any:
        started = super()._start(name, arguments, call_id)
        with self._lock:
            running = {e.name for e in self.executions}
        if name in self.pressed_with and self.pressed_with <= running \
                and not self.cancel.is_set():
            self.pressed_at = time.perf_counter()
            self.cancel.set()  # pressed while the tool runs, before it returns
        return started

    def returned(self) -> None:
        """The loop just returned: note what still runs (nothing of the loop's may run between
        its return and this call), then let a stoppable tool end."""
        if self.returned_at is None:
            self.returned_at = time.perf_counter()
            with self._lock:
                self.running_at_return = [e for e in self.executions if not e.ended]
        self._returned.set()

    def _stopped(self) -> bool:
        """Whether a stoppable call may end: the stop was pressed ``grace`` seconds ago, or the
        loop returned, or the case ended."""
        if self._returned.is_set() or self._released.is_set():
            return True
        return (self.pressed_at is not None
                and time.perf_counter() - self.pressed_at >= self.grace)

    def run(self, name: str, arguments: Any = None, *, call_id: str | None = None) -> str:
        if name != self.stoppable:
            return super().run(name, arguments, call_id=call_id)
        record, _ = self._start(name, arguments, call_id)
        try:
            while not self._stopped():
                self._returned.wait(0.005)
        finally:
            record.ended, record.outcome = time.perf_counter(), "ok"
        record.result = "stopped"
        return "stopped"

    async def arun(self, name: str, arguments: Any = None, *,
                   call_id: str | None = None) -> str:
        if name != self.stoppable:
            return await super().arun(name, arguments, call_id=call_id)
        import asyncio

        record, _ = self._start(name, arguments, call_id)
        try:  # a cancelled task ends here too: it stopped
            while not self._stopped():
                await asyncio.sleep(0.005)
        finally:
            record.ended, record.outcome = time.perf_counter(), "ok"
        record.result = "stopped"
        return "stopped"


#: why a loop in another process cannot take a cancel case
FOREIGN_CANCEL = ("the subprocess protocol (docs/protocol.md) does not carry "
                  "LoopRequest.cancel: the kit cannot press stop in a loop in another process, "
                  "so its claim cancellation=True cannot be checked there; test the loop's "
                  "cancellation in its own language")


@dataclass
class LoopRun:
    """What a loop case's checks read."""

    case: Any
    profile: Any
    interface: Interface
    loop: Any
    executor: Executor
    model: Any
    script: LoopScript
    requests: list[ChatRequest] = field(default_factory=list)
    #: when each request reached the model (``time.perf_counter()``), in the order of requests
    request_times: list[float] = field(default_factory=list)
    rejections: list[Any] = field(default_factory=list)
    #: (model call, rule) for each of OpenAI's rules a request broke that the provider's fake
    #: let pass (issue 30): hardening, ``request.unconfirmed``
    breaches: list[Any] = field(default_factory=list)
    result: LoopResult | None = None
    error: BaseException | None = None
    seconds: float = 0.0
    model_mode: LoopModel = "inprocess"
    dialect: str = "openai"

    @property
    def model_calls(self) -> int:
        return len(self.requests)

    def sent_ids(self, turn: Any) -> list[Any]:
        """The ids of ``turn``'s calls as the loop received them: the script's in-process;
        through the fake, the ids the provider's fake sends for them (a service with its own id
        format mints its own: Mistral's 9 letters and digits for ``call_1``)."""
        scripted = [call.id for call in turn.tool_calls]
        if self.model_mode != "fake":
            return scripted
        from pytest_toolcall.providers.base import get_dialect

        call_ids = getattr(get_dialect(self.dialect), "call_ids", None)
        return list(call_ids(turn)) if call_ids is not None else scripted


@dataclass
class HistoryRun:
    """What a history case's checks read: the stored history and what the builder made of it."""

    case: Any
    profile: Any
    builder: Any
    stored: tuple[Any, ...]
    built: list[Any] | None = None
    rebuilt: list[Any] | None = None
    error: BaseException | None = None


def loop_interfaces(loop: Any, profile: Any) -> list[Interface]:
    """The loop's interfaces (``run`` / ``arun``); a usage error names what is missing."""
    return interfaces(loop, profile, fixture="toolcall_loop", kind="ToolLoop", sync="run",
                      async_="arun")


def _model(script: LoopScript, dialect: str, mode: LoopModel,
           serve_on: Any = None) -> tuple[Any, Any, Any]:
    """``(model, recorder, endpoint)``: the chat adapter the loop gets, where requests are read
    back, and (fake mode) the fake provider's endpoint the adapter is wired to.

    ``serve_on`` (an ExitStack): serve the fake provider on loopback, for loops in another
    process (``pytest_toolcall.run.foreign``), and keep it up until the stack closes."""
    from pytest_toolcall.run.scripted import EXHAUSTED_TEXT, ScriptedModel

    scripted = ScriptedModel(script.turns, dialect=dialect, max_calls=script.max_model_calls)
    if mode == "inprocess":
        return scripted, scripted, None
    from pytest_toolcall.cases import ScriptedCall
    from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
    from pytest_toolcall.reference import reference_adapter

    turns = []
    for index in range(script.max_model_calls):
        turn, ids = scripted.turn_for(index)
        turns.append(turn.model_copy(update={"tool_calls": tuple(
            ScriptedCall(name=c.name, arguments=c.arguments, id=cid)
            for c, cid in zip(turn.tool_calls, ids))}))
    fake = FakeProvider(dialect, turns)
    fake.expect_after(Turn(text=EXHAUSTED_TEXT))
    if serve_on is not None:
        from pytest_toolcall.run.foreign import served

        endpoint = serve_on.enter_context(served(fake))
        serve_on.endpoint = endpoint
    else:
        endpoint = in_process_endpoint(fake)
    return reference_adapter(endpoint), fake, endpoint


def run_loop(case: Any, loop: Any, profile: Any, *, dialect: str = "openai",
             model_mode: LoopModel = "inprocess",
             transport: Literal["inprocess", "loopback"] = "inprocess") -> list[LoopRun]:
    """Drive a loop case through every interface of ``loop``; checks run on each recording.

    With ``model_mode="fake"`` the loop's request carries the fake provider's ``endpoint``;
    ``transport="loopback"`` serves it on 127.0.0.1 (for clients that are not httpx)."""
    script = resolve_script(case, profile)
    _check_final_answer_tool(script, profile)
    reason = inexpressible(script, dialect)
    if reason is not None:
        raise CaseSkipped(f"{case.id} cannot run on {dialect}: {reason}")
    runs = []
    held = Held(case.id)
    # a loop in another process calls the fake provider over HTTP on 127.0.0.1
    loopback = getattr(loop, "toolcall_loop_model", None) == "loopback"
    if loopback and isinstance(script, CancelScript):
        raise CaseSkipped(f"{case.id} cannot run on a loop in another process: "
                          f"{FOREIGN_CANCEL}")
    if loopback:
        model_mode = "fake"
    serve = loopback or (model_mode == "fake" and transport == "loopback")
    for interface in loop_interfaces(loop, profile):
        stack = contextlib.ExitStack()
        model, recorder, endpoint = _model(script, dialect, model_mode, stack if serve else None)
        # the application's stop button: set only by a case in which the user presses stop
        cancel = threading.Event()
        executor = (_StopButton(script.tools, cancel, script.cancel_during, script.stoppable,
                                script.grace, script.together)
                    if isinstance(script, CancelScript) else Executor(script.tools))
        run = LoopRun(case=case, profile=profile, interface=interface, loop=loop,
                      executor=executor, model=model, model_mode=model_mode, script=script,
                      dialect=dialect)
        # deep copies: a loop that edits a message or a tool schema in place must not change
        # the case for the next interface or the next case (issue 18)
        request = LoopRequest(messages=copy.deepcopy(list(script.messages)),
                              tools=copy.deepcopy([t.spec for t in script.tools]),
                              model=model, executor=executor, endpoint=endpoint,
                              cancel=cancel)
        if loopback:
            served = stack.endpoint  # type: ignore[attr-defined]
            request.metadata["endpoint"] = {"provider": dialect, "base_url": served.base_url,
                                            "api_key": served.api_key}
        timeout, clause, hint = profile.timeout, "loop.timeout", (
            "a loop that never stops, or a tool call without a timeout (a hung tool must not "
            "hang the loop); raise Profile(timeout=...) if it is just slow")
        if isinstance(script, BoundedScript):
            timeout, clause, hint = min(timeout, script.deadline), script.clause, script.hint
        returned = getattr(executor, "returned", lambda: None)

        def sync_call(request: LoopRequest = request, returned: Any = returned) -> Any:
            outcome = loop.run(request)
            returned()  # before anything else runs: what the loop left running
            return outcome

        async def async_call(request: LoopRequest = request, returned: Any = returned) -> Any:
            outcome = await loop.arun(request)
            returned()  # no await in between: no task of the loop's runs before it
            return outcome

        started = time.perf_counter()
        try:
            try:
                outcome = call_with_deadline(
                    sync_call, async_call, interface, timeout, clause=clause,
                    what="the loop", hint=hint)
            finally:
                run.seconds = time.perf_counter() - started
                executor.release()
                getattr(model, "release", lambda: None)()  # a hung model call ends
                if recorder is not model:  # the fake provider: a stalled body ends
                    getattr(recorder, "release", lambda: None)()
                stack.close()
                _read_back(run, recorder)
            if isinstance(outcome, ToolcallError):  # a shim's usage error: no verdict
                raise outcome
            if isinstance(outcome, BaseException):
                run.error = outcome
            else:
                run.result = outcome
            _verify_loop(run)
        except ConformanceFailure as failure:  # name the case and interface (timeouts too)
            from pytest_toolcall.run.trace import loop_ladder

            failure.case_id, failure.provider, failure.interface = case.id, dialect, interface
            failure.trace = failure.trace or loop_ladder(run)
            held.hold(failure)  # a should failure must not hide a must of the next interface
        runs.append(run)
    held.release()
    return runs


def _read_back(run: LoopRun, recorder: Any) -> None:
    if hasattr(recorder, "requests"):
        run.requests = list(recorder.requests)
        run.request_times = list(recorder.times)
        run.rejections = list(recorder.rejections)
        run.breaches = list(getattr(recorder, "breaches", ()))
        return
    for exchange in recorder.exchanges:  # the fake provider
        if exchange.kit_error:
            raise KitError(f"the kit could not run model call {exchange.index + 1}: "
                           f"{exchange.kit_error}")
        if exchange.decoded is not None:
            # whether the loop asked for a stream, wherever the wire says it (Gemini: the path)
            streamed = recorder.dialect.wants_stream(exchange.json or {}, exchange.path)
            decoded = exchange.decoded
            if decoded.stream != streamed:
                decoded = decoded.model_copy(update={"stream": streamed})
            run.requests.append(decoded)
            run.request_times.append(exchange.at)
        if exchange.rejection is not None:
            run.rejections.append((exchange.index, exchange.rejection))
        run.breaches += [(exchange.index, b) for b in exchange.breaches]


def model_call_ceiling(profile: Any) -> int:
    """How many model calls a loop case answers from its script before the model says it has
    nothing more to say: 40, or more when the profile's caps need it (a framework whose
    default cap is 50 model calls runs as shipped)."""
    caps = (profile.max_iterations + (profile.max_failure_rounds or 0)
            + (profile.tool_failure_budget or 0) + profile.model_retries + 2)
    return max(40, 2 * caps)


#: dialects whose non-streamed response carries a call's arguments as TEXT, so a model can send
#: malformed JSON there: OpenAI Chat Completions (``function.arguments`` is a string) and the
#: Responses API (``function_call.arguments`` is a string). Anthropic (``tool_use.input``),
#: Gemini (``functionCall.args``) and Ollama (``function.arguments``) carry a JSON object
#: (WIRE.md sections 1-5; confirmed 2026-11-23): a loop calling ``complete`` never sees
#: malformed arguments there.
TEXT_ARGUMENT_DIALECTS: tuple[str, ...] = ("openai", "openai-responses")


def inexpressible(script: LoopScript, dialect: str) -> str | None:
    """Why ``script`` cannot be played on ``dialect``'s wire, or ``None`` when it can.

    A scripted call whose arguments are not a JSON object (truncated JSON, say) exists only on
    the dialects that carry arguments as text; elsewhere the fake could not send it and the
    in-process model would invent something no adapter of that provider ever returns."""
    from pytest_toolcall.providers.errors import kinds_for

    for turn in script.turns:
        kind = turn.error.kind if turn.error is not None else None
        if kind is not None and kind not in kinds_for(dialect):
            return (f"the script fails a model call with the provider's {kind!r} error, which "
                    f"the fake does not play for {dialect} (it plays "
                    f"{', '.join(kinds_for(dialect)) or 'no provider errors'} there: those "
                    "its sources document)")
    if wire_of(dialect) in TEXT_ARGUMENT_DIALECTS:
        return None
    import json

    for turn in script.turns:
        for call in turn.tool_calls:
            raw = call.arguments
            if raw is None or isinstance(raw, dict) or not raw.strip():
                continue
            try:
                value = json.loads(raw)
            except ValueError:
                value = None
            if not isinstance(value, dict):
                return (f"the scripted call {call.name} has arguments {raw!r}, which are not a "
                        f"JSON object, and the {dialect} wire carries arguments as a JSON "
                        "object, never as text (a model cannot send malformed arguments there; "
                        f"only the {', '.join(TEXT_ARGUMENT_DIALECTS)} wires and the services "
                        "on them can)")
    return None


def wire_of(dialect: str) -> str:
    """The wire format ``dialect`` speaks: a service (deepseek, vertex, ...) speaks its base's."""
    provider = PROVIDERS.get(dialect)
    return provider.dialect if provider is not None else dialect


def resolve_script(case: Any, profile: Any) -> LoopScript:
    """The case's loop script; a factory is called with the profile (caps vary by profile)."""
    script = case.loop(profile) if callable(case.loop) else case.loop
    kinds = {"LoopScript": LoopScript, "CancelScript": CancelScript,
             "BoundedScript": BoundedScript}
    if not isinstance(script, LoopScript) and type(script).__name__ in kinds \
            and hasattr(script, "model_dump"):
        # the same class from a second import of the kit (pytest's pytester re-imports it
        # in-process): same fields, so take its data
        script = kinds[type(script).__name__].model_validate(script.model_dump())
    if not isinstance(script, LoopScript):
        from pytest_toolcall.core.errors import CaseDefinitionError

        raise CaseDefinitionError(case.id, f"its loop script factory returned "
                                  f"{type(script).__name__}, not a LoopScript")
    if "max_model_calls" not in script.model_fields_set:
        script = script.model_copy(update={"max_model_calls": model_call_ceiling(profile)})
    return script


def _check_final_answer_tool(script: LoopScript, profile: Any) -> None:
    """The profile's final_answer_tool is the loop's own tool: one of the case's tools under
    that name would end the run at its first call, and every verdict after it would be the
    profile's doing, not the loop's (issue 35). A usage error naming the field."""
    final = getattr(profile, "final_answer_tool", None)
    names = [tool.spec.name for tool in script.tools]
    if final is not None and final in names:
        raise UsageError(
            f"Profile(final_answer_tool={final!r}) names a tool the kit's cases give the loop "
            f"({', '.join(sorted(set(names)))}): the final-answer tool is the loop's own; "
            "declare the name your loop gives it (e.g. 'final_answer')")


def _verify_loop(run: LoopRun) -> None:

    if run.error is not None:
        expected, hint = _raised_advice(run)
        failure = ConformanceFailure(
            "loop.raised", "the loop raised instead of returning a LoopResult",
            expected=expected, got=describe_error(run.error), hint=hint)
        failure.crash = run.error
        raise failure
    run.result = coerce(run.result, LoopResult, clause="loop.result", what="the loop",
                        expected="pytest_toolcall.core.loop.LoopResult")
    for index, rejection in run.rejections:
        raise rejection_failure(
            rejection, f"model call {index + 1}: the provider rejected the loop's request",
            run.dialect,
            hint="every tool call must be answered, once, right after the assistant message "
                 "that made it; no tool message without its call")
    held = Held(run.case.id)  # a should failure of the checks must not hide a refused result
    for index, breach in run.breaches[:1]:
        held.hold(breach_failure(breach, f"model call {index + 1}: the loop's request",
                                 run.dialect))
    try:
        run_checks(run.case, run)
    except ConformanceFailure as failure:
        held.hold(failure)
    try:
        _result_messages_valid(run)
    except ConformanceFailure as failure:
        held.hold(failure)
    held.release()


def _raised_advice(run: LoopRun) -> tuple[str, str]:
    """``(expected, hint)`` for a loop that raised: after a model call that FAILED the fix is
    to stop with 'error'; after one that asked for tools, the raise came from running them and
    the fix is to answer the failing call and go on (stopping would end a healthy run)."""
    if run.model_calls:
        index = run.model_calls - 1
        turn = run.script.turns[min(index, len(run.script.turns) - 1)]
        if turn.error is None and turn.tool_calls and index < run.script.max_model_calls:
            return ("an error result for the call that failed, and the loop going on",
                    "the loop raised while running the model's tool calls: a call that cannot "
                    "run (an unknown tool, arguments that do not parse or fit, a tool that "
                    "raises) is answered with an error result (is_error=True) saying what to "
                    "fix, and the loop calls the model again. stop_reason='error' is for a "
                    "failed model call only")
        if turn.error is not None:
            return ("a LoopResult with stop_reason='error'",
                    "the model call failed: catch its exception and stop with "
                    "stop_reason='error' (text naming the exception type, not its message)")
    return ("a LoopResult with a stop reason (a failed model call: 'error')",
            "catch failures inside the loop: answer a failing tool call with an error result "
            "and go on; stop with stop_reason='error' when the model call itself fails")


def _result_messages_valid(run: LoopRun) -> None:
    """The conversation a loop returns is what its application stores and sends next time: the
    provider must accept it (a loop that stops mid-round must still answer every call)."""
    messages = run.result.messages if run.result is not None else ()
    if not messages:
        return
    from pydantic import ValidationError

    from pytest_toolcall.run.scripted import wire_verdict

    try:
        request = ChatRequest(messages=tuple(messages),
                              tools=tuple(t.spec for t in run.script.tools))
    except ValidationError as exc:
        raise ConformanceFailure(
            "loop.result_messages", "LoopResult.messages holds something that is not a "
            "message", expected="pytest_toolcall messages (UserMessage, AssistantMessage, "
            "ToolMessage...)", got=f"{exc.error_count()} validation error(s): "
            f"{exc.errors()[0]['msg']}") from None
    rejection, breaches = wire_verdict(request, run.dialect)
    for breach in breaches[:1]:
        raise breach_failure(breach, "the conversation the loop returned, sent again",
                             run.dialect)
    if rejection is not None:
        raise ConformanceFailure(
            "loop.result_messages", "the conversation the loop returned would be rejected when "
            f"sent again (HTTP {rejection.status}): {rejection.message}",
            expected="LoopResult.messages the provider accepts",
            got=[getattr(m, "role", type(m).__name__) for m in messages],
            hint="when the loop stops after running tools, answer every call of the round "
                 "before returning; when it stops without running them, leave their "
                 "assistant message out")


def run_history(case: Any, builder: Any, profile: Any) -> HistoryRun:
    """Hand the stored history to ``builder`` (twice: ``build`` must be idempotent); check it."""
    if not callable(getattr(builder, "build", None)):
        raise UsageError(f"the toolcall_history fixture returned a {type(builder).__name__}, "
                         "which is not a HistoryBuilder: it needs build(stored)")

    script: HistoryScript = case.history
    if script.property_examples:
        return _history_property(case, builder, profile, script.property_examples)
    return _history_once(case, builder, profile, tuple(script.stored))


#: examples -> the stored histories hypothesis drew for a passing run, in order. The search is
#: derandomized (a fixed seed, no database), so every run of the property draws these same
#: histories: a later run (the next provider of the matrix, the next interface) replays them
#: without hypothesis' engine, and only a failure hands the search back to hypothesis, which
#: draws them again and shrinks the failing one (issue 13: the matrix ran the engine 19 times)
_DRAWN: dict[int, tuple[tuple[Any, ...], ...]] = {}


def _history_property(case: Any, builder: Any, profile: Any, examples: int) -> HistoryRun:
    drawn = _DRAWN.get(examples)
    if drawn:
        try:
            for stored in drawn:
                run = _history_once(case, builder, profile, stored)
            return run
        except SubjectFault:  # a child process broke: nothing to search for
            raise
        except Exception:  # noqa: BLE001 - hypothesis searches again, shrinks and reports
            pass
    return _explore(case, builder, profile, examples)


def _explore(case: Any, builder: Any, profile: Any, examples: int) -> HistoryRun:
    from hypothesis import HealthCheck, given, settings

    from pytest_toolcall.cases.strategies import stored_histories

    from hypothesis.errors import Flaky

    last: list[HistoryRun] = []
    seen: list[tuple[Any, ...]] = []
    broke: list[SubjectFault] = []  # a child process broke: no more runs, its fault is raised

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
    @given(stored_histories())
    def explore(stored: list[Any]) -> None:
        if broke:
            return
        seen.append(tuple(stored))
        try:
            last[:] = [_history_once(case, builder, profile, tuple(stored))]
        except SubjectFault as fault:
            broke.append(fault)
            raise

    try:
        with hypothesis_home():
            explore()  # raises on a failing history, after shrinking it
    except (ConformanceFailure, Flaky):
        if broke:
            raise broke[0] from None
        raise
    _DRAWN[examples] = tuple(seen)
    return last[0]


def _history_once(case: Any, builder: Any, profile: Any, stored: tuple[Any, ...]) -> HistoryRun:
    from pytest_toolcall.core.errors import ToolcallError

    run = HistoryRun(case=case, profile=profile, builder=builder, stored=stored)
    try:
        # a deep copy: a builder that edits the stored messages in place must not change the
        # case's history (the checks compare against it) or the next example's (issue 18)
        run.built = _build(builder, copy.deepcopy(list(stored)), profile, run, "stored")
        run.rebuilt = _build(builder, list(run.built), profile, run, "built")
    except ConformanceFailure as failure:
        failure.case_id = case.id
        raise
    for item in case.checks:
        try:
            item(run)
        except ConformanceFailure as failure:
            failure.case_id = case.id
            failure.trace = failure.trace or _history_trace(run)
            raise
        except ToolcallError:
            raise
        except Exception as exc:
            raise check_crashed(item, case.id, exc) from exc
    return run


def _built(value: Any) -> Any:
    """The messages ``build()`` returned, read inside the deadline (a generator runs here)."""
    # a pydantic model (a ToolCall, one message) iterates as its (field, value) pairs: no list
    if (value is None or isinstance(value, (str, bytes, dict, BaseModel))
            or not hasattr(value, "__iter__")):
        return _NotMessages(value)
    items = list(value)
    kinds = (SystemMessage, UserMessage, AssistantMessage, ToolMessage)
    stray = next((i for i, m in enumerate(items) if not isinstance(m, kinds)), None)
    return items if stray is None else _NotMessages(items, stray)


class _NotMessages:
    def __init__(self, value: Any, stray: int | None = None) -> None:
        self.value = value
        #: the index of the first item that is no message, when ``value`` is a list
        self.stray = stray


def _build(builder: Any, history: list[Any], profile: Any, run: HistoryRun, which: str) -> Any:
    """``builder.build(history)`` under the profile's deadline (issue 18: a build() that sleeps,
    spins or blocks must not hang the session)."""
    outcome = call_with_deadline(
        lambda: _built(builder.build(history)), lambda: None, "sync", profile.timeout,
        clause="history.timeout", what=f"build() on the {which} history",
        hint="build() only rearranges messages: no network, no sleeping, no waiting on locks; "
             "raise Profile(timeout=...) if it is just slow")
    if isinstance(outcome, BaseException):
        run.error = outcome
        failure = ConformanceFailure(
            "history.raised", f"build() raised on the {which} history",
            got=describe_error(outcome),
            hint="a messy history is normal input: filter, never raise")
        failure.crash = outcome
        raise failure
    if isinstance(outcome, _NotMessages):
        value = outcome.value
        what = (type(value).__name__ if outcome.stray is None else
                f"a list whose item {outcome.stray} is a {type(value[outcome.stray]).__name__}")
        raise ConformanceFailure(
            "history.result", f"build() returned {what} on the {which} "
            "history, not a list of messages",
            expected="a list of pytest_toolcall messages (an empty list for an empty history)",
            got=f"{value!r:.200}",
            hint="return the rebuilt list (a missing `return` gives None)")
    return outcome


def _history_trace(run: HistoryRun) -> str:
    def show(messages: Any) -> str:
        out = []
        for m in messages or ():
            calls = getattr(m, "tool_calls", ())
            label = m.role
            if calls:
                label += "[" + ",".join(c.id or "?" for c in calls) + "]"
            if m.role == "tool":
                label += f"({m.tool_call_id}{', error' if m.is_error else ''})"
            out.append(label)
        return " ".join(out) or "(empty)"

    return f"stored: {show(run.stored)}\nbuilt:  {show(run.built)}"

"""The runner: drives one case against one adapter through the fake provider, then checks it.

Outcomes are exceptions with distinct meanings: :class:`CaseSkipped` (a capability is not
claimed), :class:`~pytest_toolcall.errors.ConformanceFailure` (the implementation broke a clause),
:class:`~pytest_toolcall.errors.ToolcallError` (the kit could not run). Anything else escaping
from here is a kit bug.
"""

from __future__ import annotations

import asyncio
import inspect
import queue
import signal
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from .cases import Case, Step
from .contracts import Interface, Profile, check_adapter
from .errors import ConformanceFailure, KitError, ToolcallError, UsageError
from .fake.provider import Endpoint, Exchange
from .model import (
    ChatResponse,
    StreamDone,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    ToolCallDelta,
    assemble_stream,
)

__all__ = ["CaseRun", "CaseSkipped", "StepRecord", "run_case"]

_EVENT = TypeAdapter(StreamEvent)
_EVENT_TYPES = (TextDelta, ToolCallDelta, ToolCallComplete, StreamDone)


class CaseSkipped(Exception):
    """The case does not apply: a capability it needs is not claimed by the profile."""


@dataclass
class StepRecord:
    """What happened in one step: the wire exchanges, and what the adapter returned or raised."""

    index: int
    step: Step
    exchanges: list[Exchange] = field(default_factory=list)
    response: ChatResponse | None = None
    events: list[Any] | None = None
    error: BaseException | None = None
    seconds: float = 0.0

    @property
    def requests(self) -> list[Exchange]:
        return self.exchanges


@dataclass
class CaseRun:
    """The recording a case's checks read."""

    case: Case
    dialect: str
    profile: Profile
    interface: Interface
    adapter: Any
    steps: list[StepRecord] = field(default_factory=list)

    def step(self, index: int) -> StepRecord:
        return self.steps[index]


def run_case(case: Case, adapter: Any, profile: Profile, endpoint: Endpoint | None = None, *,
             interfaces: Sequence[Interface] | None = None, dialect: str | None = None,
             loop_model: str = "inprocess") -> list[Any]:
    """Run ``case`` through every interface its subject offers; returns the recordings.

    The subject is what the case's contract tests: a chat adapter (which needs the ``endpoint``
    it is wired to), a tool loop, or a history builder. Raises :class:`CaseSkipped`,
    :class:`ConformanceFailure` or a kit error; see module doc.
    """
    if case.contract != "chat":
        for capability in sorted(case.required_capabilities()):
            if not profile.claims(capability, adapter):
                raise CaseSkipped(
                    f"the profile does not claim {capability!r}, which {case.id} needs")
        from .looprun import run_history, run_loop

        name = dialect or (endpoint.provider if endpoint is not None else "openai")
        if case.contract == "loop":
            return run_loop(case, adapter, profile, dialect=name,
                            model_mode=loop_model)  # type: ignore[arg-type]
        if case.contract == "fallback":
            from .fallbackrun import run_fallback

            return run_fallback(case, adapter, profile, dialect=name)
        return [run_history(case, adapter, profile)]
    if endpoint is None:
        raise UsageError(f"case {case.id} tests a chat adapter: pass the endpoint it is wired to")
    if interfaces is None:
        interfaces = check_adapter(adapter, profile)
    for capability in sorted(case.required_capabilities()):
        if not profile.claims(capability, adapter):
            raise CaseSkipped(f"the profile does not claim {capability!r}, which {case.id} needs")
    if "stream" in case.required_capabilities():
        try:
            _check_stream_methods(case, adapter, interfaces)
        except ConformanceFailure as failure:  # name the case like every other failure does
            failure.case_id, failure.provider = case.id, endpoint.provider
            raise
    runs = []
    for interface in interfaces:
        run = CaseRun(case=case, dialect=endpoint.provider, profile=profile, interface=interface,
                      adapter=adapter)
        try:
            _drive(run, endpoint)
            _verify(run)
        except ConformanceFailure as failure:
            from .trace import ladder

            failure.case_id, failure.provider = case.id, endpoint.provider
            failure.interface = interface
            failure.trace = failure.trace or ladder(run)
            raise
        runs.append(run)
    return runs


def _check_stream_methods(case: Case, adapter: Any, interfaces: Sequence[Interface]) -> None:
    for interface in interfaces:
        name = "stream" if interface == "sync" else "astream"
        if not callable(getattr(adapter, name, None)):
            raise ConformanceFailure(
                "profile.claims.stream",
                f"the profile claims streaming, but the adapter has no {name}() method for its "
                f"{interface} interface",
                expected=f"{type(adapter).__name__}.{name}(request) -> stream events",
                got="no such method",
                hint="implement it, or declare Profile(streaming=False) to skip streaming cases",
            )


def _drive(run: CaseRun, endpoint: Endpoint) -> None:
    boundaries_needed = any(s.reply.stream.chunking == "hypothesis" and s.via == "stream"
                            for s in run.case.steps)
    if not boundaries_needed:
        _drive_once(run, endpoint, None)
        return
    _drive_with_hypothesis(run, endpoint)


def _drive_once(run: CaseRun, endpoint: Endpoint, boundaries: Sequence[int] | None) -> None:
    fake = endpoint.fake
    fake.exchanges.clear()
    run.steps = []
    for index, step in enumerate(run.case.steps):
        record = StepRecord(index=index, step=step)
        run.steps.append(record)
        use = boundaries if step.reply.stream.chunking == "hypothesis" else None
        fake.expect(step.reply, step=index, boundaries=use)
        started = time.perf_counter()
        try:
            _call(run, record)
        finally:
            record.seconds = time.perf_counter() - started
            record.exchanges = [e for e in fake.exchanges if e.step == index]


def _drive_with_hypothesis(run: CaseRun, endpoint: Endpoint) -> None:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    examples = max(s.reply.stream.hypothesis_examples for s in run.case.steps)

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              phases=(Phase.explicit, Phase.generate, Phase.shrink),
              suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
    @given(st.lists(st.integers(min_value=1, max_value=4096), max_size=48))
    def explore(boundaries: list[int]) -> None:
        _drive_once(run, endpoint, boundaries)
        _verify(run)

    try:
        explore()
    except ConformanceFailure as failure:
        # the offsets where the failing stream was really cut (hypothesis may draw offsets past
        # its end, which cut nothing), after shrinking: usually one or two
        cuts = _cut_offsets(run)
        failure.message += f" (stream cut at byte offsets {cuts})"
        failure.args = (f"[{failure.clause}] {failure.message}",)
        raise


def _cut_offsets(run: CaseRun) -> list[int]:
    offsets: list[int] = []
    for record in run.steps:
        if record.step.via != "stream" or record.step.reply.stream.chunking != "hypothesis":
            continue
        for exchange in record.exchanges:
            position = 0
            for piece in exchange.chunks[:-1]:
                position += len(piece)
                offsets.append(position)
    return offsets


def _call(run: CaseRun, record: StepRecord) -> None:
    adapter, step = run.adapter, record.step
    request = step.request.model_copy(deep=True, update={"stream": step.via == "stream"})
    if run.interface == "sync":
        method: Callable[[], Any]
        if step.via == "complete":
            def method() -> Any:
                return adapter.complete(request)
        else:
            def method() -> Any:
                return list(adapter.stream(request))
    else:
        if step.via == "complete":
            def method() -> Any:
                return run_async(_await(adapter.acomplete(request)))
        else:
            def method() -> Any:
                return run_async(_collect(adapter.astream(request)))
    outcome = _with_timeout(method, run.profile.timeout)
    if isinstance(outcome, _Timeout):
        raise ConformanceFailure(
            "adapter.timeout",
            f"the adapter did not return within {run.profile.timeout:g}s "
            f"({'complete' if step.via == 'complete' else 'stream'}, {run.interface})",
            hint="a loop that never ends, or a read that waits for more data than was sent; "
                 "raise Profile(timeout=...) if the adapter is just slow",
        )
    if isinstance(outcome, _Raised):
        record.error = outcome.error
        return
    if step.via == "complete":
        record.response = _as_response(outcome, run)
    else:
        record.events = _as_events(outcome)
        record.response = assemble_stream(record.events)


_loops = threading.local()


def run_async(coro: Any) -> Any:
    """Run ``coro`` to the end on this thread's event loop, kept from call to call.

    ``asyncio.run`` builds and tears down a loop per call, five times the cost of the call
    itself here. What ``asyncio.run`` would clean up is cleaned up after each call: tasks the
    adapter left running are cancelled and async generators closed.
    """
    loop = getattr(_loops, "loop", None)
    if loop is None or loop.is_closed():
        loop = _loops.loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coro)
    finally:
        leftover = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in leftover:
            task.cancel()
        if leftover:
            loop.run_until_complete(asyncio.gather(*leftover, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())


async def _await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


async def _collect(stream: Any) -> list[Any]:
    if inspect.isawaitable(stream):
        stream = await stream
    if hasattr(stream, "__aiter__"):
        return [event async for event in stream]
    return list(stream)


class _Timeout:
    pass


@dataclass
class _Raised:
    error: BaseException


class _Worker:
    """A daemon thread that runs adapter calls one at a time.

    Reused from call to call: starting a thread per step cost about as much as the step itself.
    A worker whose call timed out is abandoned (it may never return) and a new one started.
    """

    def __init__(self) -> None:
        self.tasks: queue.SimpleQueue[Any] = queue.SimpleQueue()
        thread = threading.Thread(target=self._serve, name="toolcall-case", daemon=True)
        thread.start()

    def _serve(self) -> None:
        while True:
            func, box, done = self.tasks.get()
            try:
                box.append(func())
            except BaseException as exc:  # noqa: BLE001 - the adapter's errors are data here
                box.append(_Raised(exc))
            done.set()


_workers = threading.local()


class _AdapterTimeout(BaseException):
    """Raised into an adapter call that ran past its deadline (a BaseException, so that an
    adapter's ``except Exception`` does not swallow it)."""


def _alarm_usable() -> bool:
    # Only in the main thread, and only when nobody else (pytest-timeout's signal method, the
    # user) has a SIGALRM handler installed: theirs is never replaced.
    return (hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None))


def _with_alarm(func: Callable[[], Any], timeout: float) -> Any:
    fired = False

    def on_alarm(signum: int, frame: Any) -> None:
        nonlocal fired
        fired = True
        raise _AdapterTimeout()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    # the interval re-fires the alarm should the adapter swallow the first one
    signal.setitimer(signal.ITIMER_REAL, timeout, 0.2)
    try:
        try:
            result: Any = func()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    except _AdapterTimeout:
        return _Timeout()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - the adapter's errors are data here
        return _Timeout() if fired else _Raised(exc)
    return _Timeout() if fired else result


def _with_timeout(func: Callable[[], Any], timeout: float) -> Any:
    """Run ``func`` under a deadline: its result, ``_Raised(error)`` or ``_Timeout()``.

    In the main thread on Unix the call runs right here and a SIGALRM ends it at the deadline
    (a thread hand-off per call cost as much as the call); elsewhere it runs in a worker thread
    that is abandoned if it does not finish in time.
    """
    if _alarm_usable():
        return _with_alarm(func, timeout)
    worker = getattr(_workers, "current", None)
    if worker is None:
        worker = _workers.current = _Worker()
    box: list[Any] = []
    done = threading.Event()
    worker.tasks.put((func, box, done))
    if not done.wait(timeout):
        _workers.current = None  # stuck in the adapter: leave it, start afresh next time
        return _Timeout()
    return box[0]


def _as_response(value: Any, run: CaseRun) -> ChatResponse:
    if isinstance(value, ChatResponse):
        return value
    try:
        if isinstance(value, dict):
            return ChatResponse.model_validate(value)
        if isinstance(value, BaseModel):
            return ChatResponse.model_validate(value.model_dump())
    except ValidationError as exc:
        raise ConformanceFailure(
            "adapter.result", "complete() returned something that is not a ChatResponse",
            expected="pytest_toolcall.ChatResponse", got=f"{value!r:.300} ({exc.error_count()} "
            "validation errors)", hint="convert your adapter's result with ChatResponse(...)",
        ) from None
    raise ConformanceFailure(
        "adapter.result", "complete() returned something that is not a ChatResponse",
        expected="pytest_toolcall.ChatResponse", got=f"{type(value).__name__}: {value!r:.300}",
        hint="return pytest_toolcall.ChatResponse(text=..., tool_calls=..., finish_reason=...)",
    )


def _as_events(values: list[Any]) -> list[Any]:
    events = []
    for position, value in enumerate(values):
        try:
            if isinstance(value, _EVENT_TYPES):
                events.append(value)
            else:  # a dict, or the adapter's own model with the same fields
                raw = value.model_dump() if isinstance(value, BaseModel) else value
                events.append(_EVENT.validate_python(raw))
        except ValidationError:
            raise ConformanceFailure(
                "stream.events.type", f"stream event #{position} is not a StreamEvent",
                expected="TextDelta, ToolCallDelta, ToolCallComplete or StreamDone",
                got=f"{type(value).__name__}: {value!r:.200}",
                hint="yield pytest_toolcall stream events from stream()/astream()",
            ) from None
    return events


# -- verification -------------------------------------------------------------------------------
def run_checks(case: Case, run: Any) -> None:
    """Run the case's checks over ``run``: a check that crashes is a kit error, not a verdict."""
    for item in case.checks:
        try:
            item(run)
        except (ConformanceFailure, ToolcallError):
            raise
        except Exception as exc:
            clause = getattr(item, "clause", getattr(item, "__name__", "?"))
            raise KitError(
                f"check {clause!r} of case {case.id} crashed: {type(exc).__name__}: {exc}"
            ) from exc


def call_with_deadline(sync_call: Callable[[], Any], async_call: Callable[[], Any],
                       interface: Interface, timeout: float, *, clause: str, what: str,
                       hint: str) -> Any:
    """The subject's answer through ``interface`` within ``timeout``: its result or the
    exception it raised; running past the deadline is a ConformanceFailure of ``clause``."""
    if interface == "sync":
        outcome = _with_timeout(sync_call, timeout)
    else:
        async def go() -> Any:
            return await async_call()

        outcome = _with_timeout(lambda: run_async(go()), timeout)
    if isinstance(outcome, _Timeout):
        raise ConformanceFailure(clause, f"{what} did not return within {timeout:g}s", hint=hint)
    if isinstance(outcome, _Raised):
        return outcome.error
    return outcome


def coerce(value: Any, model: type[BaseModel], *, clause: str, what: str,
           expected: str) -> Any:
    """``value`` as ``model`` (from the model itself, a dict, or a look-alike pydantic model)."""
    if isinstance(value, model):
        return value
    try:
        raw = value.model_dump() if isinstance(value, BaseModel) else value
        return model.model_validate(raw)
    except Exception:
        raise ConformanceFailure(clause, f"{what} returned something that is not a "
                                 f"{model.__name__}", expected=expected,
                                 got=f"{value!r:.300}") from None


def _verify(run: CaseRun) -> None:
    from . import checks

    for record in run.steps:
        checks.step_basics(run, record)
    run_checks(run.case, run)
    # last: a bug that breaks the completed calls is named by the case's own clause first
    for record in run.steps:
        if record.events is not None and record.step.expect == "response":
            checks.deltas_match_calls(record)


def is_done_last(events: list[Any]) -> bool:
    dones = [i for i, e in enumerate(events) if isinstance(e, StreamDone)]
    return dones == [len(events) - 1]

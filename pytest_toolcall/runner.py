"""The runner: drives one case against one adapter through the fake provider, then checks it.

Outcomes are exceptions with distinct meanings: :class:`CaseSkipped` (a capability is not
claimed), :class:`~pytest_toolcall.errors.ConformanceFailure` (the implementation broke a clause),
:class:`~pytest_toolcall.errors.ToolcallError` (the kit could not run). Anything else escaping
from here is a kit bug.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import queue
import signal
import sys
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
    AssistantMessage,
    ChatResponse,
    ReasoningComplete,
    StreamDone,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    ToolCallDelta,
    ToolMessage,
    assemble_stream,
    extends_id,
)

__all__ = ["CaseRun", "CaseSkipped", "StepRecord", "run_case"]

_EVENT = TypeAdapter(StreamEvent)
_EVENT_TYPES = (TextDelta, ToolCallDelta, ToolCallComplete, ReasoningComplete, StreamDone)


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
    #: the deep copy of the step's request the adapter was handed (read after the call, it shows
    #: whether the adapter edited it in place)
    handed: Any = None

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
             loop_model: str = "inprocess", transport: str = "inprocess") -> list[Any]:
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
            return run_loop(case, adapter, profile, dialect=name,  # type: ignore[arg-type]
                            model_mode=loop_model, transport=transport)  # type: ignore[arg-type]
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


def _with_ids_handed_back(run: CaseRun, request: Any) -> Any:
    """The step's history with each call id as the implementation handed it back in an
    earlier step, where it extended the provider's id (``model.extends_id``: litellm encodes
    Gemini's thought signature in the id and strips it on the way out): a library is given back
    what it returned, as its users' histories do, and what reaches the provider is judged on
    the wire (issue 14, defect 8). Every other history is sent as scripted."""
    handed: dict[str, str] = {}
    for record in run.steps[:-1]:
        if record.response is None:
            continue
        for want, got in zip(record.step.reply.tool_calls, record.response.tool_calls):
            if want.id and extends_id(got.id, want.id):
                handed[want.id] = got.id  # type: ignore[assignment]
    if not handed:
        return request
    messages = []
    for m in request.messages:
        if isinstance(m, AssistantMessage) and m.tool_calls:
            m = m.model_copy(update={"tool_calls": tuple(
                c.model_copy(update={"id": handed.get(c.id, c.id)}) for c in m.tool_calls)})
        elif isinstance(m, ToolMessage) and m.tool_call_id in handed:
            m = m.model_copy(update={"tool_call_id": handed[m.tool_call_id]})
        messages.append(m)
    return request.model_copy(update={"messages": tuple(messages)})


def _call(run: CaseRun, record: StepRecord) -> None:
    adapter, step = run.adapter, record.step
    request = _with_ids_handed_back(run, step.request.model_copy(
        deep=True, update={"stream": step.via == "stream"}))
    record.handed = request
    if run.interface == "sync":
        method: Callable[[], Any]
        if step.via == "complete":
            def method() -> Any:
                return adapter.complete(request)
        else:
            def method() -> Any:
                return _listed(adapter.stream(request), step.take)
    else:
        if step.via == "complete":
            def method() -> Any:
                return run_async(_await(adapter.acomplete(request)))
        else:
            def method() -> Any:
                return run_async(_collect(adapter.astream(request), step.take))
    outcome = _with_timeout(method, run.profile.timeout)
    if isinstance(outcome, _Timeout):
        raise ConformanceFailure(
            "adapter.timeout",
            f"the adapter did not return within {run.profile.timeout:g}s "
            f"({'complete' if step.via == 'complete' else 'stream'}, {run.interface})"
            + outcome.note(),
            hint="a loop that never ends, or a read that waits for more data than was sent; "
                 "raise Profile(timeout=...) if the adapter is just slow",
        )
    if isinstance(outcome, _NotIterable):
        name = "stream" if run.interface == "sync" else "astream"
        raise ConformanceFailure(
            "stream.events.type", f"{name}() returned {type(outcome.value).__name__}, not an "
            f"{'' if run.interface == 'sync' else 'async '}iterable of stream events",
            expected="a generator (or list) of TextDelta, ToolCallDelta, ToolCallComplete and "
                     "StreamDone", got=f"{outcome.value!r:.200}",
            hint=f"yield the events from {name}() (a missing `yield` or `return` gives None)")
    if isinstance(outcome, _Raised):
        exited(outcome.error, "adapter", "the adapter")
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


def release_loop_threads(wait: float = 0.5) -> None:
    """Let the worker threads of this thread's kit event loop go (end of session).

    ``getaddrinfo`` and ``run_in_executor(None, ...)`` in an async adapter run on the loop's
    default executor, whose non-daemon workers stay parked until the interpreter exits: they
    are the kit's loop's, not the implementation's. Idle workers are told to stop and given
    ``wait`` seconds; a worker still busy then (a call that hangs) stays, and is reported."""
    loop = getattr(_loops, "loop", None)
    executor = getattr(loop, "_default_executor", None)  # asyncio keeps it there (3.5+)
    if executor is None:
        return
    workers = list(getattr(executor, "_threads", ()))
    executor.shutdown(wait=False)
    loop._default_executor = None  # type: ignore[union-attr]  # a later call makes a new one
    deadline = time.monotonic() + wait
    for worker in workers:
        worker.join(max(0.0, deadline - time.monotonic()))


async def _await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


async def _collect(stream: Any, take: int | None = None) -> Any:
    if inspect.isawaitable(stream):
        stream = await stream
    if take is not None and hasattr(stream, "__aiter__"):  # the caller stops, then closes
        events = []
        async for event in stream:
            events.append(event)
            if len(events) >= take:
                break
        if hasattr(stream, "aclose"):
            await stream.aclose()
        return events
    if hasattr(stream, "__aiter__"):
        return [event async for event in stream]
    return _listed(stream, take)


@dataclass
class _NotIterable:
    """stream()/astream() returned something that is no stream of events (None, a number)."""

    value: Any


def _listed(stream: Any, take: int | None = None) -> Any:
    if stream is None or isinstance(stream, (str, bytes)) or not hasattr(stream, "__iter__"):
        return _NotIterable(stream)
    return _take(stream, take)


def _take(stream: Any, take: int | None) -> list[Any]:
    """All events, or (``Step.take``) the first ``take`` and then the stream is closed."""
    if take is None:
        return list(stream)
    events = []
    for event in stream:
        events.append(event)
        if len(events) >= take:
            break
    close = getattr(stream, "close", None)
    if callable(close):
        close()
    return events


@dataclass
class _Timeout:
    #: the implementation caught the kit's timeout (``except BaseException`` / a bare
    #: ``except``) and went on; the kit had to force it out
    swallowed: bool = False
    #: the call went on after the first timeout signal (swallowed it, or a cleanup blocked)
    refired: bool = False

    def note(self) -> str:
        if self.swallowed:
            return (" and swallowed the kit's timeout (an `except BaseException` or bare "
                    "`except` in a retry loop?): it had to be forced out")
        if self.refired:
            return (" and went on after the kit's timeout signal (it swallowed it, or a cleanup "
                    "such as joining a hung thread blocked)")
        return ""


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


def _subject(func: Callable[[], Any]) -> Any:
    """The frame the implementation runs under: forced timeouts stop propagating here."""
    return func()


#: code never interrupted by the escalation: the event loop and the kit itself must unwind
#: cleanly (a timeout raised inside asyncio's own bookkeeping would leave the loop running)
_MACHINERY = (os.path.dirname(asyncio.__file__) + os.sep, os.path.dirname(__file__) + os.sep)


def _force_out(handler_frame: Any) -> list[Any]:
    """Escalation for an implementation that swallowed the timeout: a trace function that raises
    the timeout again at every line it runs (its own ``except`` bodies included), until the
    exception reaches :func:`_subject`. Returns the frames it traced."""
    def inside(frame: Any) -> bool:
        frame = frame.f_back
        while frame is not None:
            if frame.f_code is _subject.__code__:
                return True
            frame = frame.f_back
        return False

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if (event in ("line", "call") and frame.f_code is not _subject.__code__
                and not frame.f_code.co_filename.startswith(_MACHINERY) and inside(frame)):
            raise _AdapterTimeout()
        return tracer

    frames = []
    frame = handler_frame
    while frame is not None and frame.f_code is not _subject.__code__:
        frame.f_trace = tracer
        frames.append(frame)
        frame = frame.f_back
    sys.settrace(tracer)
    return frames


def _forced_cleanup(frames: list[Any]) -> None:
    """After an escalation: untrace frames that live on (a suspended coroutine that swallowed
    the cancellation too), and abandon this thread's event loop with its zombie tasks."""
    for frame in frames:
        frame.f_trace = None
    _abandon_loop()


def _abandon_loop() -> None:
    """After a timeout in this thread: the alarm may have struck inside the event loop's own
    bookkeeping (a callback popped and lost), and the timed-out coroutine may still be pending
    in it; the next call starts on a fresh loop. The pending coroutines are closed here, under a
    trace function that stops one that swallows its ``GeneratorExit`` too: left to the garbage
    collector, such a coroutine would spin forever wherever it happened to be collected."""
    loop = getattr(_loops, "loop", None)
    _loops.loop = None
    if loop is None or loop.is_running():
        return
    with contextlib.suppress(BaseException):
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        if pending:
            _close_stubborn([t.get_coro() for t in pending])
    with contextlib.suppress(Exception):
        loop.close()


def _closing(coro: Any) -> None:
    """The frame a stubborn coroutine is closed under (see :func:`_close_stubborn`)."""
    coro.close()


def _close_stubborn(coroutines: list[Any]) -> None:
    """Close ``coroutines`` even when one swallows its ``GeneratorExit`` and spins.

    CPython unsets a trace function the first time it raises, so one trace function gets one
    shot; a coroutine that catches that one too (``except BaseException: pass`` around an
    ``await`` that fails at once outside a running loop) would spin in ``close()`` forever. In
    the main thread a repeating alarm re-arms the trace function and raises again, every 50 ms,
    until every coroutine has ended: each alarm is two more shots, and a swallowing loop runs
    Python lines that the trace function turns into an exception it cannot catch again."""
    def inside(frame: Any) -> bool:
        frame = frame.f_back
        while frame is not None:
            if frame.f_code is _closing.__code__:
                return True
            frame = frame.f_back
        return False

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if (event in ("line", "call") and not frame.f_code.co_filename.startswith(_MACHINERY)
                and inside(frame)):
            raise _AdapterTimeout()
        return tracer

    def arm(frame: Any) -> None:
        while frame is not None and frame.f_code is not _closing.__code__:
            frame.f_trace = tracer
            frame = frame.f_back
        sys.settrace(tracer)

    def on_alarm(signum: int, frame: Any) -> None:
        if frame is not None and inside(frame):  # only inside a close, never in the kit
            arm(frame)
            raise _AdapterTimeout()

    previous = sys.gettrace()
    alarm = _alarm_usable()
    previous_handler = signal.signal(signal.SIGALRM, on_alarm) if alarm else None
    sys.settrace(tracer)
    try:
        for coro in coroutines:
            frame = getattr(coro, "cr_frame", None)
            while frame is not None:  # the suspended frames: awaited coroutines included
                frame.f_trace = tracer
                inner = getattr(coro, "cr_await", None)
                coro = inner if inspect.iscoroutine(inner) else None
                frame = getattr(coro, "cr_frame", None)
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0.05, 0.05)
        for coro in [c for c in coroutines if inspect.iscoroutine(c)]:
            with contextlib.suppress(BaseException):
                _closing(coro)
    finally:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous_handler)
        sys.settrace(previous)


def _with_alarm(func: Callable[[], Any], timeout: float) -> Any:
    fired = 0
    forced: list[Any] | None = None
    previous_trace = sys.gettrace()

    def on_alarm(signum: int, frame: Any) -> None:
        nonlocal fired, forced
        fired += 1
        if fired > 2 and forced is None:  # the first two were swallowed: force it out
            forced = _force_out(frame)
        raise _AdapterTimeout()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    # the interval re-fires the alarm should the adapter swallow the first one
    signal.setitimer(signal.ITIMER_REAL, timeout, 0.2)
    try:
        try:
            result: Any = _subject(func)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            if forced is not None:
                sys.settrace(previous_trace)
                _forced_cleanup(forced)
            signal.signal(signal.SIGALRM, previous)
    except _AdapterTimeout:
        _abandon_loop()
        return _Timeout(swallowed=forced is not None, refired=fired > 1)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - the adapter's errors are data here
        if not fired:
            return _Raised(exc)
        _abandon_loop()
        return _Timeout(swallowed=forced is not None, refired=fired > 1)
    if fired:
        _abandon_loop()
        return _Timeout(swallowed=forced is not None, refired=fired > 1)
    return result


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
    if isinstance(box[0], _Raised) and isinstance(box[0].error, KeyboardInterrupt):
        raise box[0].error  # the user (or the implementation) asked to stop the session
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
                expected="TextDelta, ToolCallDelta, ToolCallComplete, ReasoningComplete or "
                         "StreamDone",
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
        raise ConformanceFailure(clause, f"{what} did not return within {timeout:g}s"
                                 + outcome.note(), hint=hint)
    if isinstance(outcome, _Raised):
        exited(outcome.error, clause.partition(".")[0], what)
        return outcome.error
    return outcome


def exited(error: BaseException, prefix: str, what: str) -> None:
    """``SystemExit`` from an implementation (``sys.exit()`` in a library, ``exit()`` left in a
    debug path) is never an answer: a ``<prefix>.exit`` failure, not a crash of the session."""
    if isinstance(error, SystemExit):
        raise ConformanceFailure(
            f"{prefix}.exit", f"{what} raised SystemExit({error.code!r}): it tried to end the "
            "test process", expected="a result, or an exception the caller can handle",
            got=f"SystemExit({error.code!r})",
            hint="never call sys.exit()/exit() in library code; raise an exception instead")


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
        if (record.events is not None and record.step.expect == "response"
                and record.step.take is None):
            checks.deltas_match_calls(record)


def is_done_last(events: list[Any]) -> bool:
    dones = [i for i, e in enumerate(events) if isinstance(e, StreamDone)]
    return dones == [len(events) - 1]

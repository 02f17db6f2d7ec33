"""What the runners share, below them: the recordings, the deadline an implementation's call runs
under, and running a case's checks.

:mod:`pytest_toolcall.run.runner` (chat adapters), :mod:`pytest_toolcall.run.looprun` (tool loops
and history builders) and :mod:`pytest_toolcall.run.fallbackrun` (structured output) call the
subject under test through :func:`call_with_deadline` (or the lower :func:`_with_timeout`) and check
it with :func:`run_checks`; :mod:`pytest_toolcall.run.checks` reads :class:`CaseRun` and
:class:`StepRecord`. Nothing here imports a runner, so the runners and the checks form no cycle.
"""

from __future__ import annotations

import _weakrefset
import asyncio
import contextlib
import inspect
import os
import queue
import signal
import sys
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from pytest_toolcall.cases import Case, Step
from pytest_toolcall.core.contracts import Interface, Profile
from pytest_toolcall.core.errors import ConformanceFailure, KitError, ToolcallError, UsageError
from pytest_toolcall.core.model import ChatResponse
from pytest_toolcall.providers.fake.provider import Exchange

__all__ = ["CaseRun", "CaseSkipped", "Held", "StepRecord", "SubjectFault", "call_with_deadline",
           "coerce", "exited", "release_loop_threads", "run_async", "run_checks"]


class SubjectFault(ConformanceFailure):
    """A verdict reached inside a call to the subject, by the kit's own code that carries it:
    a child process behind ``--toolcall-command`` that exited, spoke outside the protocol or
    missed the protocol's deadline (``subprocess.exited``, ``subprocess.protocol``,
    ``adapter.timeout``; :mod:`pytest_toolcall.run.foreign`). The runners fail the case with it
    as it is, never as the implementation raising (``adapter.raised``, ``loop.raised``, ...)."""

class CaseSkipped(Exception):
    """The case does not apply: a capability it needs is not claimed by the profile.

    ``risk``: the id of the declared risk (:mod:`pytest_toolcall.core.risks`) that left the
    capability unclaimed, when one did; the reason then names it."""

    def __init__(self, reason: str, risk: str | None = None) -> None:
        super().__init__(reason)
        self.risk = risk



#: where hypothesis keeps its files (its example database, the constants it caches from the
#: project's modules) while the kit's own searches run (issue 32: a run of the suite wrote a
#: ``.hypothesis/`` folder into the user's project). The pytest plugin sets a folder under
#: pytest's cache (``.pytest_cache/d/toolcall-hypothesis``); ``None``: a folder in the temp dir.
#: ``HYPOTHESIS_STORAGE_DIRECTORY`` set by the user wins: asked for, it is used as it is.
HYPOTHESIS_HOME: Any = None


@contextlib.contextmanager
def hypothesis_home() -> Any:
    """Hypothesis' storage moved to :data:`HYPOTHESIS_HOME` while the block runs, then put back:
    a user's own hypothesis tests in the same session keep theirs."""
    from hypothesis import configuration

    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        yield
        return
    import tempfile
    from pathlib import Path

    # hypothesis has no getter: the module global its setter writes (None: not set yet)
    previous = vars(configuration).get("__hypothesis_home_directory")
    home = HYPOTHESIS_HOME or Path(tempfile.gettempdir()) / "pytest-toolcall-hypothesis"
    configuration.set_hypothesis_home_dir(home)
    try:
        yield
    finally:
        configuration.set_hypothesis_home_dir(previous)

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
    #: the API key the adapter was wired with (the endpoint's): what no error it raises may carry
    api_key: str | None = None

    def step(self, index: int) -> StepRecord:
        return self.steps[index]


_loops = threading.local()


def run_async(coro: Any) -> Any:
    """Run ``coro`` to the end on this thread's event loop, kept from call to call.

    ``asyncio.run`` builds and tears down a loop per call, five times the cost of the call
    itself here. What ``asyncio.run`` would clean up is cleaned up after each call: tasks the
    adapter left running are cancelled and async generators left open are closed.

    The generators are closed one by one, not with ``loop.shutdown_asyncgens()``: that marks
    the loop as shut down for good, and every async generator started on it afterwards (httpx
    starts one per request) raises a ResourceWarning, which a project that turns warnings into
    errors (``-W error``, ``filterwarnings = error``) saw as the adapter raising.
    """
    loop = this_threads_loop()
    try:
        return loop.run_until_complete(coro)
    finally:
        leftover = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in leftover:
            task.cancel()
        if leftover:
            loop.run_until_complete(asyncio.gather(*leftover, return_exceptions=True))
        _close_async_generators(loop)


def this_threads_loop() -> asyncio.AbstractEventLoop:
    """This thread's kit event loop, made if there is none (or it was closed or abandoned).

    :func:`_with_alarm` calls it before it arms the deadline: an alarm that struck inside
    ``new_event_loop()`` left a half-built loop, whose collection then raised in ``__del__``
    (``'_UnixSelectorEventLoop' object has no attribute '_signal_handlers'``), an unraisable
    exception in the user's session (seen 2026-11-28 with a 1 ms deadline)."""
    loop = getattr(_loops, "loop", None)
    if loop is None or loop.is_closed():
        loop = _loops.loop = asyncio.new_event_loop()
    return loop


def _close_async_generators(loop: asyncio.AbstractEventLoop) -> None:
    """Close the async generators started on ``loop`` and left open, as
    ``shutdown_asyncgens()`` does, but leave the loop usable for more (see :func:`run_async`)."""
    open_ones = getattr(loop, "_asyncgens", None)  # asyncio's own loops keep them there
    if open_ones is None:  # a loop that does not: asyncio.run's cleanup, a new loop next call
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
        _loops.loop = None
        return
    if open_ones:
        generators = list(open_ones)
        open_ones.clear()
        loop.run_until_complete(_aclose(generators))


async def _aclose(generators: list[Any]) -> None:
    # gathered inside the loop: outside it, gather would take the policy's loop for its futures
    await asyncio.gather(*(g.aclose() for g in generators), return_exceptions=True)


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


try:  # the C functions under the signal module's enum wrappers, which convert every handler
    # to an enum and back (6 of a call's 8 microseconds here; two calls per round trip)
    import _signal as _raw_signal
except ImportError:  # pragma: no cover - an interpreter without it (not CPython)
    _raw_signal = signal  # type: ignore[assignment]
_SIGALRM = int(getattr(signal, "SIGALRM", 0))
_ITIMER_REAL = int(getattr(signal, "ITIMER_REAL", 0))


def _alarm_usable() -> bool:
    # Only in the main thread, and only when nobody else (pytest-timeout's signal method, the
    # user) has a SIGALRM handler installed: theirs is never replaced.
    return (hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
            and _raw_signal.getsignal(_SIGALRM) in (signal.SIG_DFL, None))


def _subject(func: Callable[[], Any]) -> Any:
    """The frame the implementation runs under: forced timeouts stop propagating here."""
    return func()


#: code never interrupted by the escalation: the event loop and the kit itself must unwind
#: cleanly (a timeout raised inside asyncio's own bookkeeping would leave the loop running)
#: the kit's package folder (this module sits one layer folder below it) and asyncio's
_MACHINERY = (os.path.dirname(asyncio.__file__) + os.sep,
              os.path.dirname(os.path.dirname(__file__)) + os.sep)


def interfaces(subject: Any, profile: Any, *, fixture: str, kind: str, sync: str,
               async_: str) -> list[Interface]:
    """The interfaces ``subject`` (what the ``fixture`` fixture returned) implements, a callable
    ``sync`` / ``async_`` method each, that the profile does not turn off; a usage error naming
    the two methods where there is neither (it is no ``kind``)."""
    found: list[Interface] = []
    if callable(getattr(subject, sync, None)) and profile.sync is not False:
        found.append("sync")
    if callable(getattr(subject, async_, None)) and profile.async_ is not False:
        found.append("async")
    if not found:
        raise UsageError(f"the {fixture} fixture returned a {type(subject).__name__}, which is "
                         f"not a {kind}: it needs {sync}(request) or async {async_}(request)")
    return found


def _called_under(code: Any) -> Callable[[Any], bool]:
    """Whether a frame runs under a call of ``code`` (some frame below it runs that code)."""
    def inside(frame: Any) -> bool:
        frame = frame.f_back
        while frame is not None:
            if frame.f_code is code:
                return True
            frame = frame.f_back
        return False
    return inside


def _force_out(handler_frame: Any) -> list[Any]:
    """Escalation for an implementation that swallowed the timeout: a trace function that raises
    the timeout again at every line it runs (its own ``except`` bodies included), until the
    exception reaches :func:`_subject`. Returns the frames it traced."""
    inside = _called_under(_subject.__code__)

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
    inside = _called_under(_closing.__code__)

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


def _disarm(previous: Any) -> None:
    """Stop the repeating alarm and put back the ``previous`` handler, even when the alarm
    strikes while this runs (under load it can fire between the call's return and the
    ``finally`` that disarms it: its exception then skipped the rest of that block, leaving
    the timer and the handler armed to strike later, in pytest's teardown of the test)."""
    while True:
        try:
            _raw_signal.setitimer(_ITIMER_REAL, 0)
            _raw_signal.signal(_SIGALRM, previous)
            return
        except _AdapterTimeout:
            continue  # the alarm struck inside this block: stop it again


#: the files whose frames are weakref callbacks the interpreter calls from a garbage collection
#: (WeakSet's ``_remove``, WeakValueDictionary's ``remove``, ``weakref.finalize``)
_WEAKREF_FILES = frozenset(os.path.normcase(os.path.abspath(module.__file__))
                           for module in (weakref, _weakrefset))
#: how often in a row the deadline waits for a finalizer to return (10 ms each): a finalizer
#: that hangs is struck after that, as any other frame is
_FINALIZER_DEFERRALS = 20


def _in_finalizer(frame: Any) -> bool:
    """Whether the alarm struck under a ``__del__`` or a weakref callback of the standard
    library, below the implementation's call. An exception raised there does not propagate:
    the interpreter prints it as "Exception ignored in ..." (sys.unraisablehook, which pytest
    turns into a PytestUnraisableExceptionWarning of the test), the finalizer is cut short,
    and only the alarm's next strike, 0.2 s later, ends the call."""
    while frame is not None and frame.f_code is not _subject.__code__:
        code = frame.f_code
        if code.co_name == "__del__" or os.path.normcase(code.co_filename) in _WEAKREF_FILES:
            return True
        frame = frame.f_back
    return False


def _with_alarm(func: Callable[[], Any], timeout: float) -> Any:
    fired = 0
    deferred = 0
    forced: list[Any] | None = None
    previous_trace = sys.gettrace()

    def on_alarm(signum: int, frame: Any) -> None:
        nonlocal fired, forced, deferred
        if deferred < _FINALIZER_DEFERRALS and forced is None and _in_finalizer(frame):
            # strike again once the finalizer has returned (the next 10 ms), not inside it
            deferred += 1
            _raw_signal.setitimer(_ITIMER_REAL, 0.01, 0.2)
            return
        deferred = 0
        fired += 1
        if fired > 2 and forced is None:  # the first two were swallowed: force it out
            forced = _force_out(frame)
        raise _AdapterTimeout()

    this_threads_loop()  # made before the alarm is armed, never half-built by it
    previous = _raw_signal.signal(_SIGALRM, on_alarm)
    # the interval re-fires the alarm should the adapter swallow the first one
    _raw_signal.setitimer(_ITIMER_REAL, timeout, 0.2)
    try:
        try:
            result: Any = _subject(func)
        finally:
            _disarm(previous)
            if forced is not None:
                sys.settrace(previous_trace)
                _forced_cleanup(forced)
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


# -- verification -------------------------------------------------------------------------------
class Held:
    """``should`` failures held back while the rest of a case runs (issue 28).

    A case's checks run in order and stop at the first failure; a ``should`` failure (hardening)
    that came first would hide a ``must`` failure (a defect) of a later check or interface, and a
    defect would pass the run as hardening. :meth:`hold` keeps the first ``should`` failure and
    re-raises anything else; :meth:`release` raises the kept one once nothing else failed. The
    order uses the newest levels; the level shown is set where the pin is known
    (:func:`pytest_toolcall.run.runner.run_case`).
    """

    def __init__(self, case_id: str) -> None:
        self.case_id = case_id
        self.first: ConformanceFailure | None = None

    def hold(self, failure: ConformanceFailure) -> None:
        from pytest_toolcall.cases.levels import level_of

        if level_of(failure.clause, self.case_id) != "should":
            raise failure
        if self.first is None:
            self.first = failure

    def release(self) -> None:
        if self.first is not None:
            raise self.first


def run_checks(case: Case, run: Any) -> None:
    """Run the case's checks over ``run``: a check that crashes is a kit error, not a verdict.
    A ``should`` failure is raised only after the other checks found no ``must`` one."""
    held = Held(case.id)
    for item in case.checks:
        try:
            item(run)
        except ConformanceFailure as failure:
            held.hold(failure)
        except ToolcallError:
            raise
        except Exception as exc:
            raise check_crashed(item, case.id, exc) from exc
    held.release()


#: where the kit's own checks are written: the package and, in a source checkout, conformance/
_KIT_SOURCES = (str(Path(__file__).resolve().parents[1]) + os.sep,
                str(Path(__file__).resolve().parents[2] / "conformance") + os.sep)


def check_crashed(item: Any, case_id: str, exc: Exception) -> ToolcallError:
    """A check that raised something other than a verdict: the kit's own check is a kit bug
    (KitError, "please report it"); a check written for a project's own case (a
    ``pytest_toolcall_cases`` hook, ``register_case``) is that case's fault, with its frames
    (issue 35)."""
    from pytest_toolcall.core.errors import CaseDefinitionError, raised_by_user

    clause = getattr(item, "clause", getattr(item, "__name__", "?"))
    code = getattr(inspect.unwrap(item), "__code__", None)
    source = str(Path(code.co_filename).resolve()) if code is not None else ""
    if not source or source.startswith(_KIT_SOURCES):
        return KitError(f"check {clause!r} of case {case_id} crashed: "
                        f"{type(exc).__name__}: {exc}")
    return CaseDefinitionError(case_id, raised_by_user(
        f"its check {clause!r} ({code.co_filename}:{code.co_firstlineno}), not the "
        "implementation,", exc))


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
        if isinstance(outcome.error, SubjectFault):
            raise outcome.error
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

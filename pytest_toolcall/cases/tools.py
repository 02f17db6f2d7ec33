"""Scripted tools and the executor that runs them for a loop under test, recording everything.

Each tool answers call after call from a list of behaviours (the last one repeats)::

    ok("18°C")          returns the text
    fail("timeout")     raises ToolError(retryable=True)
    permanent("gone")   raises ToolError(retryable=False)
    crash()             raises RuntimeError whose text holds a traceback and a secret token
    hang()              blocks far past any sane tool timeout (released when the case ends)
    sleep(0.2, "done")  sleeps, then returns the text (for concurrency)

``call_id="call_a"`` ties a behaviour to the call with that id (whatever order concurrent calls
start in); ``sleep(0.2, after=["call_b"])`` sleeps until call_b has ended (0.2 s at most), which
fixes the order concurrent calls finish in however loaded the machine is;
``sleep(0.5, together=["call_a", "call_b"])`` waits until both calls have started (0.5 s at
most), a rendezvous that holds concurrent calls in flight at once however late a thread starts.
With ``counts_pauses=False`` such a wait does not count a pause of the whole process (a garbage
collection, the process descheduled), only the time the process ran.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_toolcall.core.loop import Execution, ToolError
from pytest_toolcall.core.model import ToolSpec
from pytest_toolcall.core.redact import PLANTED

__all__ = [
    "SECRET",
    "Behaviour",
    "Executor",
    "ScriptedTool",
    "crash",
    "fail",
    "hang",
    "ok",
    "permanent",
    "sleep",
]

#: Planted in crash texts; it must never reach the model, the client or a report (every text the
#: kit writes masks it: :mod:`pytest_toolcall.core.redact`).
SECRET = PLANTED
CRASH_TEXT = (
    "Traceback (most recent call last):\n"
    '  File "/srv/app/tools/db.py", line 42, in query\n'
    f"    conn = connect('postgres://admin:{SECRET}@db.internal:5432/prod')\n"
    f"ConnectionError: could not connect to postgres://admin:{SECRET}@db.internal:5432/prod"
)


class Behaviour(BaseModel):
    """What one call of a scripted tool does."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["ok", "fail", "permanent", "crash", "hang", "sleep"]
    text: str = ""
    seconds: float = Field(default=0.0, ge=0)
    #: answer only the call with this id (whatever order the calls start in)
    call_id: str | None = None
    #: sleep until the calls with these ids have ended (``seconds`` is then the longest wait):
    #: makes the completion order of concurrent calls independent of the machine's load
    after: tuple[str, ...] = ()
    #: sleep until the calls with these ids have all started (``seconds`` at most), then return:
    #: calls dispatched concurrently are all in flight at one moment, whatever the scheduling;
    #: calls run one after the other never are (each waits out ``seconds`` alone)
    together: tuple[str, ...] = ()
    #: whether a pause of the whole process counts toward the ``seconds`` of an ``after`` or
    #: ``together`` wait. True: the wall clock, for a wait that must end before a deadline of
    #: the loop's own (its tool timeout). False: each poll of the wait counts at most
    #: :data:`POLL_STEP`, so a garbage collection that holds every thread, or the process
    #: descheduled on a loaded machine, spends none of it (for a loop with no tool timeout,
    #: where nothing but the case's deadline ends the call)
    counts_pauses: bool = True


def ok(text: str = "ok") -> Behaviour:
    return Behaviour(kind="ok", text=text)


def fail(message: str = "the upstream service is unavailable, try again") -> Behaviour:
    return Behaviour(kind="fail", text=message)


def permanent(message: str = "this record was deleted and cannot be fetched") -> Behaviour:
    return Behaviour(kind="permanent", text=message)


def crash() -> Behaviour:
    return Behaviour(kind="crash", text=CRASH_TEXT)


def hang(seconds: float = 30.0) -> Behaviour:
    return Behaviour(kind="hang", seconds=seconds)


def sleep(seconds: float, text: str = "ok", *, call_id: str | None = None,
          after: Iterable[str] = (), together: Iterable[str] = (),
          counts_pauses: bool = True) -> Behaviour:
    return Behaviour(kind="sleep", seconds=seconds, text=text, call_id=call_id,
                     after=tuple(after), together=tuple(together), counts_pauses=counts_pauses)


#: the most one poll of a wait that does not count pauses (``counts_pauses=False``) adds to the
#: time waited. The wait polls every 2 ms; a poll that comes back later was held up by a pause
#: of the whole process (a gen-2 garbage collection took 0.4 to 1.7 s in a LangChain test's
#: process on this project's loaded 2-core machine, 2026-11-28), which is not counted
POLL_STEP = 0.02


class _Waited:
    """The time a wait has spent: wall time, or (``counts_pauses=False``) its polls' steps,
    each at most :data:`POLL_STEP`."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.limit = behaviour.seconds
        self.wall = behaviour.counts_pauses or not (behaviour.after or behaviour.together)
        self.spent, self.last = 0.0, time.perf_counter()

    def left(self) -> bool:
        now = time.perf_counter()
        step, self.last = now - self.last, now
        self.spent += step if self.wall else min(step, POLL_STEP)
        return self.spent < self.limit


class ScriptedTool(BaseModel):
    """A tool spec and what its calls do, in order (the last behaviour repeats)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec: ToolSpec
    behaviours: tuple[Behaviour, ...] = (Behaviour(kind="ok", text="ok"),)


class Executor:
    """Runs scripted tools for a loop and records every execution.

    Call ``run(name, arguments, call_id=...)`` (sync) or ``await arun(...)``. Failures raise
    :class:`~pytest_toolcall.core.loop.ToolError`; a crash raises ``RuntimeError`` with a secret
    in its text. Unknown names raise ``ToolError(kind="unknown_tool")``.
    """

    def __init__(self, tools: Iterable[ScriptedTool]) -> None:
        self.tools = {t.spec.name: t for t in tools}
        self.executions: list[Execution] = []
        self._calls: dict[str, int] = {}
        self._lock = threading.Lock()
        self._released = threading.Event()

    @property
    def specs(self) -> list[ToolSpec]:
        return [t.spec for t in self.tools.values()]

    def release(self) -> None:
        """Let every hanging call return (the runner calls this when a case ends)."""
        self._released.set()

    def _start(self, name: str, arguments: Any, call_id: str | None) -> tuple[Execution, Behaviour | None]:
        with self._lock:
            record = Execution(call_id=call_id, name=name, arguments=arguments,
                               started=time.perf_counter())
            self.executions.append(record)
            tool = self.tools.get(name)
            if tool is None:
                return record, None
            for behaviour in tool.behaviours:
                if call_id is not None and behaviour.call_id == call_id:
                    return record, behaviour
            queue = [b for b in tool.behaviours if b.call_id is None] or list(tool.behaviours)
            n = self._calls.get(name, 0)
            self._calls[name] = n + 1
            return record, queue[min(n, len(queue) - 1)]

    def _waited(self, behaviour: Behaviour) -> bool:
        """Whether every call ``behaviour`` waits for has ended (``after``) or started
        (``together``), or the case ended."""
        if self._released.is_set():
            return True
        with self._lock:
            if behaviour.together:
                started = {e.call_id for e in self.executions}
                return all(i in started for i in behaviour.together)
            ended = {e.call_id for e in self.executions if e.ended}
        return all(i in ended for i in behaviour.after)

    def _finish(self, record: Execution, behaviour: Behaviour | None) -> str:
        record.ended = time.perf_counter()
        if behaviour is None:
            record.outcome = "unknown_tool"
            record.error = f"no tool named {record.name!r}"
            raise ToolError(f"no tool named {record.name!r}; available: "
                            f"{', '.join(sorted(self.tools))}", kind="unknown_tool")
        kind = behaviour.kind
        if kind in ("ok", "sleep"):
            record.outcome, record.result = "ok", behaviour.text
            return behaviour.text
        if kind == "fail":
            record.outcome, record.error = "failed", behaviour.text
            raise ToolError(behaviour.text, retryable=True)
        if kind == "permanent":
            record.outcome, record.error = "permanent", behaviour.text
            raise ToolError(behaviour.text, retryable=False)
        if kind == "hang":
            record.outcome, record.error = "timeout", "hung past the loop's tool timeout"
            raise ToolError("the tool did not answer in time", kind="timeout")
        record.outcome, record.error = "crashed", behaviour.text
        raise RuntimeError(behaviour.text)

    def run(self, name: str, arguments: Any = None, *, call_id: str | None = None) -> str:
        record, behaviour = self._start(name, arguments, call_id)
        if behaviour is not None and (behaviour.after or behaviour.together):
            waited = _Waited(behaviour)
            while not self._waited(behaviour) and waited.left():
                self._released.wait(0.002)
        elif behaviour is not None and behaviour.kind in ("sleep", "hang"):
            self._released.wait(behaviour.seconds)
        return self._finish(record, behaviour)

    async def arun(self, name: str, arguments: Any = None, *, call_id: str | None = None) -> str:
        record, behaviour = self._start(name, arguments, call_id)
        if behaviour is not None and behaviour.kind in ("sleep", "hang"):
            waited = _Waited(behaviour)
            waits = behaviour.after or behaviour.together
            step = min(0.002 if waits else 0.01, behaviour.seconds)
            while waited.left() and not (
                    self._waited(behaviour) if waits else self._released.is_set()):
                await asyncio.sleep(step)
        return self._finish(record, behaviour)

    def by_name(self, name: str) -> Sequence[Execution]:
        return [e for e in self.executions if e.name == name]


class ToolKit:
    """What the ``toolcall_tools`` fixture gives: executors over scripted tools, and the
    behaviours to script them with."""

    ok, fail, permanent, crash, hang, sleep = (staticmethod(ok), staticmethod(fail),
                                               staticmethod(permanent), staticmethod(crash),
                                               staticmethod(hang), staticmethod(sleep))
    ScriptedTool = ScriptedTool

    def __init__(self) -> None:
        self._executors: list[Executor] = []

    def executor(self, *tools: ScriptedTool) -> Executor:
        """An executor over ``tools``; released (hung calls return) when the test ends."""
        made = Executor(tools)
        self._executors.append(made)
        return made

    def release_all(self) -> None:
        for made in self._executors:
            made.release()

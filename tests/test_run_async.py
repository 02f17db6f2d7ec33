"""The kit's event loop for async adapters (``runbase.run_async``): kept from call to call, and
cleaned up after each call as ``asyncio.run`` would be, without ever warning.

Until 2026-11-25 the cleanup called ``loop.shutdown_asyncgens()``, which marks the loop as shut
down for good: every async generator started on it afterwards (httpx starts one per request)
raised a ResourceWarning. A project that turns warnings into errors (``-W error``, or
``filterwarnings = ["error"]`` in its pytest configuration) saw the reference adapter fail
979 of the 1,963 case runs of ``--toolcall-provider=all`` with ``adapter.raised``.
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator

import pytest

from pytest_toolcall.run.runbase import run_async


async def _numbers(closed: list[str]) -> AsyncIterator[int]:
    try:
        yield 1
        yield 2
    finally:
        closed.append("closed")


def test_an_async_generator_left_open_is_closed_after_the_call() -> None:
    closed: list[str] = []
    held = []

    async def call() -> int:
        numbers = _numbers(closed)
        held.append(numbers)  # still referenced: only the cleanup can close it
        return await numbers.__anext__()

    assert run_async(call()) == 1
    assert closed == ["closed"]


def test_calls_after_the_first_start_async_generators_without_a_warning() -> None:
    async def call() -> list[int]:
        return [n async for n in _numbers([])]

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):  # the second call warned (and, as an error, raised)
            assert run_async(call()) == [1, 2]


def test_a_project_that_turns_warnings_into_errors_passes_with_the_reference(
        pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess(
        "--toolcall-provider=openai", "--toolcall-cases=wire.text_only,wire.usage,stream.zero_args",
        "-W", "error::ResourceWarning", "-p", "no:randomly")
    result.assert_outcomes(passed=3)


def test_the_loop_is_made_before_the_deadline_is_armed(monkeypatch: pytest.MonkeyPatch) -> None:
    """An alarm that struck inside ``new_event_loop()`` left a half-built loop whose collection
    raised in ``__del__`` (an unraisable exception in the user's session, seen 2026-11-28 with a
    1 ms deadline): the loop is made before the deadline's alarm is armed, never while it is."""
    import asyncio
    import signal

    from pytest_toolcall.run import runbase

    armed: list[bool] = []
    real = asyncio.new_event_loop

    def made() -> asyncio.AbstractEventLoop:
        armed.append(signal.getitimer(signal.ITIMER_REAL)[0] > 0)
        return real()

    monkeypatch.setattr(asyncio, "new_event_loop", made)
    runbase._abandon_loop()  # this thread has no kit loop: the next call makes one

    async def call() -> int:
        return 1

    assert runbase._with_timeout(lambda: run_async(call()), 5.0) == 1
    assert armed == [False], "the kit's event loop was made while the deadline's alarm was armed"

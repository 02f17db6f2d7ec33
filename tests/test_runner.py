"""The runner: interfaces, timeouts, who is at fault, hypothesis chunking, profile claims."""

from __future__ import annotations

import re
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.cases import Case, default_registry, make_case
from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import (
    CaseDefinitionError,
    ConformanceFailure,
    KitError,
    UsageError,
)
from pytest_toolcall.core.model import ChatRequest, ChatResponse, StreamDone, TextDelta
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.providers.fake.provider import Endpoint
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter
from pytest_toolcall.run.runner import CaseSkipped, run_case


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    ep = in_process_endpoint(FakeProvider("openai"))
    yield ep
    ep.close()


@pytest.fixture
def reference(endpoint: Endpoint) -> OpenAIChatAdapter:
    return OpenAIChatAdapter.from_endpoint(endpoint)


def builtin(case_id: str) -> Case:
    return default_registry()[case_id]


def variant(case_id: str, **over: Any) -> Case:
    base = builtin(case_id)
    fields = {k: getattr(base, k) for k in ("title", "why", "dialects", "needs", "steps", "checks")}
    return make_case(**{**fields, "id": "test." + case_id.replace(".", "_"), **over})


# -- interfaces -----------------------------------------------------------------------------------
def test_reference_runs_through_sync_and_async(reference: OpenAIChatAdapter,
                                               endpoint: Endpoint) -> None:
    for case_id in ("wire.single_call", "stream.parallel_sequential"):
        runs = run_case(builtin(case_id), reference, Profile(), endpoint)
        assert [r.interface for r in runs] == ["sync", "async"]
        for run in runs:
            assert run.case.id == case_id and run.dialect == "openai"
            assert all(len(s.exchanges) == 1 and s.exchanges[0].accepted for s in run.steps)
            assert all(s.response is not None and s.error is None for s in run.steps)


def test_streamed_steps_record_events(reference: OpenAIChatAdapter, endpoint: Endpoint) -> None:
    [sync_run, async_run] = run_case(builtin("stream.parallel_sequential"), reference, Profile(),
                                     endpoint)
    for run in (sync_run, async_run):
        events = run.steps[0].events
        assert events is not None and isinstance(events[-1], StreamDone)
        assert run.steps[0].exchanges[0].streamed
    assert sync_run.steps[0].response == async_run.steps[0].response


class AsyncOnly:
    """Only acomplete/astream, delegating to the reference adapter."""

    def __init__(self, inner: OpenAIChatAdapter) -> None:
        self.inner = inner

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        return await self.inner.acomplete(request)

    def astream(self, request: ChatRequest) -> Any:
        return self.inner.astream(request)


def test_adapter_with_only_async_methods_runs_async_only(reference: OpenAIChatAdapter,
                                                         endpoint: Endpoint) -> None:
    adapter = AsyncOnly(reference)
    for case_id in ("wire.single_call", "stream.parallel_sequential"):
        runs = run_case(builtin(case_id), adapter, Profile(), endpoint)
        assert [r.interface for r in runs] == ["async"]


def test_profile_can_disable_an_interface(reference: OpenAIChatAdapter,
                                          endpoint: Endpoint) -> None:
    for profile in (Profile.model_validate({"async": False}), Profile(async_=False)):
        runs = run_case(builtin("wire.single_call"), reference, profile, endpoint)
        assert [r.interface for r in runs] == ["sync"]
    runs = run_case(builtin("wire.single_call"), reference, Profile(sync=False), endpoint)
    assert [r.interface for r in runs] == ["async"]


def test_not_an_adapter_is_a_usage_error(endpoint: Endpoint) -> None:
    with pytest.raises(UsageError, match=r"returned a object object, which is not a ChatAdapter"):
        run_case(builtin("wire.single_call"), object(), Profile(), endpoint)


# -- skips and claims -----------------------------------------------------------------------------
class SyncComplete:
    def __init__(self, inner: OpenAIChatAdapter) -> None:
        self.inner = inner

    def complete(self, request: ChatRequest) -> ChatResponse:
        return self.inner.complete(request)


def test_stream_case_is_skipped_when_the_adapter_cannot_stream(reference: OpenAIChatAdapter,
                                                               endpoint: Endpoint) -> None:
    with pytest.raises(CaseSkipped, match=r"does not claim 'stream', which stream\.parallel_seq"):
        run_case(builtin("stream.parallel_sequential"), SyncComplete(reference), Profile(),
                 endpoint)
    assert endpoint.exchanges == []


def test_stream_claimed_without_a_stream_method(reference: OpenAIChatAdapter,
                                                endpoint: Endpoint) -> None:
    with pytest.raises(ConformanceFailure) as info:
        run_case(builtin("stream.parallel_sequential"), SyncComplete(reference),
                 Profile(streaming=True), endpoint)
    failure = info.value
    assert failure.clause == "profile.claims.stream"
    assert "no stream() method for its sync interface" in failure.message
    assert failure.case_id == "stream.parallel_sequential" and failure.provider == "openai"
    assert endpoint.exchanges == []


def test_unclaimed_usage_skips(reference: OpenAIChatAdapter, endpoint: Endpoint) -> None:
    case = variant("wire.single_call", needs=frozenset({"usage"}))
    with pytest.raises(CaseSkipped, match="does not claim 'usage'"):
        run_case(case, reference, Profile(usage=False), endpoint)


# -- timeout --------------------------------------------------------------------------------------
def test_timeout_is_a_conformance_failure(endpoint: Endpoint) -> None:
    release = threading.Event()

    class Hangs:
        def complete(self, request: ChatRequest) -> ChatResponse:
            release.wait(10)
            return ChatResponse(text="late")

    try:
        with pytest.raises(ConformanceFailure) as info:
            run_case(builtin("wire.single_call"), Hangs(), Profile(timeout=0.2), endpoint)
    finally:
        release.set()
    failure = info.value
    assert failure.clause == "adapter.timeout"
    assert failure.message == "the adapter did not return within 0.2s (complete, sync)"
    assert "Profile(timeout=...)" in (failure.hint or "")
    assert failure.case_id == "wire.single_call" and failure.interface == "sync"


# -- who is at fault: the adapter, a check, or the kit --------------------------------------------
class Raises:
    def complete(self, request: ChatRequest) -> ChatResponse:
        raise KeyError("choices")


def test_adapter_exception_is_the_adapters_fault_not_a_kit_error(endpoint: Endpoint) -> None:
    with pytest.raises(ConformanceFailure) as info:
        run_case(builtin("wire.single_call"), Raises(), Profile(), endpoint)
    assert not isinstance(info.value, KitError)
    assert info.value.clause == "adapter.raised"
    assert "KeyError: 'choices'" in str(info.value.got)


def test_a_crashing_kit_check_is_a_kit_error_naming_the_check(reference: OpenAIChatAdapter,
                                                              endpoint: Endpoint) -> None:
    # a check whose code is the kit's (compiled under the package's folder)
    import pytest_toolcall

    where = Path(pytest_toolcall.__file__).parent / "run" / "checks_of_the_kit.py"
    space: dict[str, Any] = {}
    exec(compile("def broken(run):\n    return {}['missing']\n", str(where), "exec"), space)
    broken = space["broken"]
    broken.clause = "mine.broken"
    case = variant("wire.single_call", checks=(broken,))
    with pytest.raises(KitError) as info:
        run_case(case, reference, Profile(), endpoint)
    assert str(info.value) == ("check 'mine.broken' of case test.wire_single_call crashed: "
                               "KeyError: 'missing'")
    assert isinstance(info.value.__cause__, KeyError)


def test_a_crashing_user_check_is_the_cases_fault_not_the_kits(reference: OpenAIChatAdapter,
                                                               endpoint: Endpoint) -> None:
    # issue 35: a project's own check that crashes is headed as its case's fault, with its frame
    def broken(run: Any) -> None:
        return {}["missing"]  # type: ignore[no-any-return]

    broken.clause = "mine.broken"  # type: ignore[attr-defined]
    case = variant("wire.single_call", checks=(broken,))
    with pytest.raises(CaseDefinitionError) as info:
        run_case(case, reference, Profile(), endpoint)
    text = str(info.value)
    assert not isinstance(info.value, KitError)
    assert text.startswith("case 'test.wire_single_call' is malformed: its check 'mine.broken' (")
    assert "raised KeyError: 'missing'" in text and 'return {}["missing"]' in text
    assert "runbase.py" not in text  # the kit's frames are left out


def test_a_check_that_crashes_after_the_adapter_raised_is_not_reached(endpoint: Endpoint) -> None:
    # the adapter's own exception is judged by step_basics first, so a check that would trip
    # over the missing response never runs and never turns the adapter's bug into a kit error
    ran: list[str] = []

    def reads_response(run: Any) -> None:
        ran.append("yes")
        run.steps[0].response.tool_calls  # noqa: B018

    case = variant("wire.single_call", checks=(reads_response,))
    with pytest.raises(ConformanceFailure) as info:
        run_case(case, Raises(), Profile(), endpoint)
    assert info.value.clause == "adapter.raised" and ran == []


def test_conformance_failure_from_a_check_gets_case_and_trace(reference: OpenAIChatAdapter,
                                                              endpoint: Endpoint) -> None:
    def strict(run: Any) -> None:
        raise ConformanceFailure("mine.strict", "never satisfied", expected="x", got="y")

    case = variant("wire.single_call", checks=(strict,))
    with pytest.raises(ConformanceFailure) as info:
        run_case(case, reference, Profile(), endpoint)
    failure = info.value
    assert (failure.clause, failure.case_id, failure.provider, failure.interface) == (
        "mine.strict", "test.wire_single_call", "openai", "sync")
    assert failure.trace and "✓ emitted" in failure.trace
    assert failure.render().startswith("[mine.strict] never satisfied\n")


def test_usage_error_from_a_check_passes_through(reference: OpenAIChatAdapter,
                                                 endpoint: Endpoint) -> None:
    def misconfigured(run: Any) -> None:
        raise UsageError("set the thing")

    case = variant("wire.single_call", checks=(misconfigured,))
    with pytest.raises(UsageError, match="set the thing"):
        run_case(case, reference, Profile(), endpoint)


def test_non_response_result_is_adapter_result(endpoint: Endpoint) -> None:
    class ReturnsText:
        def complete(self, request: ChatRequest) -> Any:
            return "hello"

    with pytest.raises(ConformanceFailure) as info:
        run_case(builtin("wire.single_call"), ReturnsText(), Profile(), endpoint)
    assert info.value.clause == "adapter.result"
    assert info.value.got == "str: 'hello'"


def test_stream_event_of_wrong_type(reference: OpenAIChatAdapter, endpoint: Endpoint) -> None:
    class BadEvents(SyncComplete):
        def stream(self, request: ChatRequest) -> Iterator[Any]:
            list(self.inner.stream(request))
            yield TextDelta(text="x")
            yield "not an event"

    with pytest.raises(ConformanceFailure) as info:
        run_case(builtin("stream.parallel_sequential"), BadEvents(reference), Profile(),
                 endpoint)
    assert info.value.clause == "stream.events.type"
    assert info.value.message == "stream event #1 is not a StreamEvent"


def test_event_dicts_are_accepted(reference: OpenAIChatAdapter, endpoint: Endpoint) -> None:
    class DictEvents(SyncComplete):
        def stream(self, request: ChatRequest) -> Iterator[Any]:
            for event in self.inner.stream(request):
                yield event.model_dump()

    [run] = run_case(builtin("stream.parallel_sequential"), DictEvents(reference), Profile(),
                     endpoint)
    assert isinstance(run.steps[0].events[-1], StreamDone)  # type: ignore[index]


# -- hypothesis chunking --------------------------------------------------------------------------
class WholeLinesPerRead(OpenAIChatAdapter):
    """A classic bug: assumes every network read holds whole SSE lines."""

    def stream(self, request: ChatRequest) -> Iterator[Any]:
        body = self.build_body(request, stream=True)
        with self.client.stream("POST", self.url, headers=self.headers, json=body) as response:
            acc = self.new_accumulator()
            for raw in response.iter_raw():
                for line in raw.decode("utf-8").split("\n"):
                    yield from acc.feed_line(line)
            yield from acc.close()


def test_hypothesis_case_passes_for_the_reference(reference: OpenAIChatAdapter,
                                                  endpoint: Endpoint) -> None:
    [run] = run_case(builtin("stream.any_chunking"), reference, Profile(), endpoint,
                     interfaces=["sync"])
    assert run.steps[0].exchanges[0].streamed


def test_hypothesis_case_shrinks_and_reports_the_cut_offsets(endpoint: Endpoint) -> None:
    adapter = WholeLinesPerRead.from_endpoint(endpoint)
    with pytest.raises(ConformanceFailure) as info:
        run_case(builtin("stream.any_chunking"), adapter, Profile(), endpoint,
                 interfaces=["sync"])
    failure = info.value
    match = re.search(r"\(stream cut at byte offsets \[([0-9, ]+)\]\)$", failure.message)
    assert match, failure.message
    offsets = [int(x) for x in match.group(1).split(", ")]
    assert len(offsets) == 1  # shrunk to a single cut
    assert str(failure).endswith(match.group(0))
    # the reported offsets are the real cuts of the failing stream
    exchange = endpoint.exchanges[0]
    assert [len(c) for c in exchange.chunks][0] == offsets[0]
    body = exchange.response_body
    assert body[offsets[0] - 1:offsets[0] + 1] != b"\n\n"
    assert failure.case_id == "stream.any_chunking"


def test_an_alarm_striking_while_the_deadline_is_disarmed_leaves_nothing_armed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Under load the deadline's repeating alarm can strike between the call's return and the
    ``finally`` that stops it (a full run at load 10 saw it strike later, in pytest's teardown
    of a litellm test). The strike is played here without timing: the first attempt to stop
    the timer raises the alarm's exception, as the handler would at that instant. The timer must
    still end stopped and SIGALRM's handler put back."""
    import signal
    import types

    from pytest_toolcall.run import runbase

    if not runbase._alarm_usable():
        pytest.skip("no SIGALRM deadline here (not the main thread on Unix)")
    real = runbase._raw_signal
    strikes = []

    def setitimer(which: int, seconds: float, interval: float = 0.0) -> Any:
        if seconds == 0 and not strikes:
            strikes.append(which)
            raise runbase._AdapterTimeout()  # the alarm, delivered inside the disarming block
        return real.setitimer(which, seconds, interval)

    fake = types.SimpleNamespace(signal=real.signal, getsignal=real.getsignal,
                                 setitimer=setitimer)
    monkeypatch.setattr(runbase, "_raw_signal", fake)
    before = signal.getsignal(signal.SIGALRM)
    try:
        runbase._with_alarm(lambda: 42, 30.0)
    finally:
        armed = signal.getitimer(signal.ITIMER_REAL)
        handler = signal.getsignal(signal.SIGALRM)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
    assert strikes, "the strike was not played"
    assert armed == (0.0, 0.0), f"the deadline's timer is still armed: {armed}"
    assert handler == before, "the deadline's SIGALRM handler was left installed"


@pytest.mark.parametrize("finalizer", ["__del__", "weakref.finalize"])
def test_an_alarm_striking_in_a_finalizer_strikes_again_once_it_returns(
        finalizer: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A deadline can fall while the implementation's call runs a ``__del__`` or a weakref
    callback (a garbage collection runs them anywhere). Raised there, the timeout does not
    propagate: the interpreter prints "Exception ignored in ...", which pytest reports as a
    PytestUnraisableExceptionWarning (a full run of the kit's tests failed that way, 2026-11-28,
    in ``_weakrefset._remove``), the finalizer is cut short, and only the next strike, 0.2 s
    later, ends the call. The strike is played here without timing: the finalizer raises
    SIGALRM itself. The deadline must wait for the finalizer to return, then end the call with
    one strike and nothing unraisable."""
    import signal

    from pytest_toolcall.run import runbase

    if not runbase._alarm_usable():
        pytest.skip("no SIGALRM deadline here (not the main thread on Unix)")
    unraisable: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    finished: list[bool] = []

    def finalize() -> None:
        signal.raise_signal(signal.SIGALRM)  # the deadline falls inside the finalizer
        finished.append(True)

    class Resource:
        def __del__(self) -> None:
            finalize()

    class Plain:
        pass

    def implementation() -> None:
        if finalizer == "__del__":
            Resource()  # dropped at once: its __del__ runs here
        else:
            weakref.finalize(Plain(), finalize)  # the callback runs here, from weakref.py
        time.sleep(5)

    outcome = runbase._with_alarm(implementation, 3.0)
    assert isinstance(outcome, runbase._Timeout), outcome
    assert finished == [True], "the finalizer was cut short"
    assert unraisable == [], [u.exc_value for u in unraisable]
    assert not outcome.refired, "the call ended on a second strike, not on the first"

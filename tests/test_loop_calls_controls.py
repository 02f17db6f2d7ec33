"""The model-call and cancellation loop cases (issue 29, families 2 and 6) against their negative
controls (``tests/loop_calls_controls.py``), and against correct loops written other ways: the
reference, the reference with a capped retry policy, and :class:`TaskLoop`."""

from __future__ import annotations

from typing import Any

import loop_calls_controls as calls  # tests/loop_calls_controls.py (tests/ is on sys.path)
import pytest
import pytest_toolcall.conformance.loop as loop_cases
from pytest_toolcall.conformance.loop.model_calls import CASES as NEW_CASES

from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.core.loop import LoopResult
from pytest_toolcall.reference.loop import ReferenceToolLoop
from pytest_toolcall.run.runner import CaseSkipped, run_case

LOOP = {case.id: case for case in loop_cases.CASES}
NEW = sorted(case.id for case in NEW_CASES)
MODES = ("inprocess", "fake")
DIALECTS = ("openai", "openai-responses", "anthropic", "gemini", "ollama")


def breaks(loop: type[Any]) -> tuple[str, ...]:
    """The interfaces a control's bug is in: the dispatch it overrides says which."""
    own = set(vars(loop)) | {n for base in loop.__mro__[1:] if base.__module__ == calls.__name__
                             for n in vars(base)}
    if "adispatch" in own:
        return ("async",)
    if "dispatch" in own:
        return ("sync",)
    return ("sync", "async")


def profile_for(case_id: str, interface: str | None = None, **fields: Any) -> Profile:
    fields = {**calls.CASE_PROFILE.get(case_id, {}), **fields}
    if interface == "sync":
        fields["async_"] = False
    elif interface == "async":
        fields["sync"] = False
    return Profile(**fields)


CONTROL_RUNS = [pytest.param(case_id, control, clause, fields, dialect, mode, interface,
                             id=f"{case_id}-{control.__name__}-{dialect}-{mode}-{interface}")
                for case_id, control, clause, fields, dialects in calls.LOOP_CONTROLS
                for dialect in dialects for mode in MODES for interface in breaks(control)
                if (mode == "inprocess" if control.__name__ in calls.INPROCESS_ONLY
                    else dialect == "openai" or mode == "fake")]


@pytest.mark.parametrize(("case_id", "control", "clause", "fields", "dialect", "mode",
                          "interface"), CONTROL_RUNS)
def test_case_fails_its_negative_control(case_id: str, control: type[Any], clause: str,
                                         fields: dict[str, Any], dialect: str, mode: str,
                                         interface: str) -> None:
    profile = profile_for(case_id, interface, **fields)
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP[case_id], control.from_profile(profile), profile, loop_model=mode,
                 dialect=dialect)
    assert exc.value.clause == clause, exc.value.render()
    assert (exc.value.case_id, exc.value.interface, exc.value.provider) == (
        case_id, interface, dialect)


def test_every_new_case_has_a_control_and_every_control_cites_a_census_report() -> None:
    import json
    from pathlib import Path

    from pytest_toolcall.cases.bugs import parse_refs

    assert {row[0] for row in calls.LOOP_CONTROLS} == set(NEW)
    census = json.loads((Path(__file__).parent.parent / "conformance" / "census.json")
                        .read_text(encoding="utf-8"))
    reports = {(r["url"].split("github.com/")[1].rsplit("/", 2)[0].lower(),
                int(r["url"].rsplit("/", 1)[1])): r["class"] for r in census}
    for _, control, *_ in calls.LOOP_CONTROLS:
        refs = parse_refs(control.__doc__ or "")
        assert refs, control.__name__
        assert all(reports.get((ref.project, ref.number)) in (
            "model_call_errors", "cancellation") for ref in refs), (control.__name__, refs)


# -- correct loops of other shapes pass ---------------------------------------------------------
#: (name, factory, profile fields): each runs every new case, both modes, both interfaces
CORRECT = [
    ("reference", ReferenceToolLoop.from_profile, {}),
    # retries declared and done by the loop itself, its waits capped at 0.05 s
    ("reference with a capped retry policy", calls._RetryPolicy.from_profile, {
        "model_retries": 2}),
    ("TaskLoop", calls.TaskLoop.from_profile, {"model_retries": 2, "max_retry_wait": 0.2}),
    ("TaskLoop without retries", calls.TaskLoop.from_profile, {}),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case_id", NEW)
@pytest.mark.parametrize(("name", "factory", "fields"), CORRECT, ids=[c[0] for c in CORRECT])
def test_correct_loops_pass(name: str, factory: Any, fields: dict[str, Any], case_id: str,
                            mode: str) -> None:
    if name == "reference with a capped retry policy" and case_id == "loop.model_deadline":
        pytest.skip("its retries run inside the reference's deadline on the call: one "
                    "deadline spans them all, a policy the profile cannot declare")
    profile = profile_for(case_id, **fields)
    dialect = "anthropic" if case_id == "loop.overloaded_retried" else "openai"
    runs = run_case(LOOP[case_id], factory(profile), profile, loop_model=mode, dialect=dialect)
    assert [run.interface for run in runs] == ["sync", "async"]
    assert all(isinstance(run.result, LoopResult) for run in runs)


def test_retries_are_what_the_profile_declares() -> None:
    """The same retrying loop: a 529 is retried and the run completes when retries are
    declared; the 429 that keeps coming stops it after exactly its declared retries."""
    profile = Profile(model_retries=2)
    loop = calls.TaskLoop.from_profile(profile)
    runs = run_case(LOOP["loop.overloaded_retried"], loop, profile, dialect="anthropic")
    assert [(r.result.stop_reason, r.model_calls) for r in runs] == [("completed", 3)] * 2
    runs = run_case(LOOP["loop.rate_limit_retries_bounded"], loop, profile)
    assert [(r.result.stop_reason, r.model_calls) for r in runs] == [("error", 4)] * 2


def test_a_capped_wait_then_retry_and_giving_up_both_pass() -> None:
    capped = Profile(model_retries=2)  # _RetryPolicy waits 0.05 s and retries
    runs = run_case(LOOP["loop.retry_after_capped"], calls._RetryPolicy.from_profile(capped),
                    capped)
    assert [(r.result.stop_reason, r.model_calls) for r in runs] == [("completed", 3)] * 2
    giving_up = Profile(model_retries=2, max_retry_wait=0.2)  # TaskLoop: 3600 s > 0.2 s
    runs = run_case(LOOP["loop.retry_after_capped"], calls.TaskLoop.from_profile(giving_up),
                    giving_up)
    assert [(r.result.stop_reason, r.model_calls) for r in runs] == [("error", 2)] * 2


def test_the_uncapped_sleep_is_never_waited_for() -> None:
    """The hour a sleeping loop waits is cut at the case's deadline (model_retries x
    max_retry_wait + 1 s, within the profile's timeout)."""
    import time

    profile = Profile(model_retries=1, max_retry_wait=0.05, async_=False)
    started = time.perf_counter()
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP["loop.retry_after_capped"], calls.SleepsOutRetryAfter.from_profile(profile),
                 profile)
    assert exc.value.clause == "loop.retry_cap"
    assert "1.05s" in exc.value.render() and time.perf_counter() - started < 3


def test_the_cancel_case_skips_a_loop_without_a_cancel_hook() -> None:
    with pytest.raises(CaseSkipped, match="loop.cancellation"):
        run_case(LOOP["loop.cancelled_tools_stopped"], ReferenceToolLoop(), Profile())


def test_a_sequential_loop_starts_no_call_after_the_stop() -> None:
    """The reference, sequential: the call after the one the stop came in is answered as not
    run, and the conversation it returns is valid."""
    profile = profile_for("loop.cancelled_tools_stopped", parallel_dispatch=False)
    runs = run_case(LOOP["loop.cancelled_tools_stopped"], ReferenceToolLoop.from_profile(profile),
                    profile)
    assert [r.result.stop_reason for r in runs] == ["cancelled"] * 2
    for run in runs:
        assert [e.name for e in run.executor.executions] == ["get_weather"]
        answers = [m for m in run.result.messages if m.role == "tool"]
        assert [(m.tool_call_id, m.is_error) for m in answers] == [
            ("call_1", False), ("call_2", True)]
        assert "stopped the run before this call ran" in answers[1].content


@pytest.mark.parametrize("case_id", NEW)
def test_the_cases_skip_only_where_the_fake_plays_no_such_error(case_id: str) -> None:
    """Ollama documents no 429 and no context-length error (the other dialects run every new
    case: tests/test_loop_negative_controls.py, test_dialect_tables_are_exact)."""
    profile = profile_for(case_id)
    for dialect in ("ollama",):
        try:
            run_case(LOOP[case_id], ReferenceToolLoop.from_profile(profile), profile,
                     dialect=dialect)
        except CaseSkipped as skip:
            assert (case_id, dialect) in calls.INEXPRESSIBLE, str(skip)
        else:
            assert (case_id, dialect) not in calls.INEXPRESSIBLE

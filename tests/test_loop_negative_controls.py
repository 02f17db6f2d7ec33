"""Every loop and history case has a negative control: a broken loop or builder it must fail, on
the right clause, through the interface the bug is in, with the model in-process and behind the
fake provider.

Each row of :data:`LOOP_CONTROLS` / :data:`HISTORY_CONTROLS` is one bug (a class in
``tests/loop_controls.py``), the case that must catch it and the exact clause it must name. The
reference loop and history builder pass every case (positive controls), and :data:`ESCAPES`
records the mutants of the reference loop that no case kills.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import loop_controls as c  # tests/loop_controls.py (tests/ is on sys.path)
import pytest
from hypothesis import Phase, settings

import conformance.history as history_cases
import conformance.loop as loop_cases
from pytest_toolcall.contracts import Profile
from pytest_toolcall.errors import ConformanceFailure
from pytest_toolcall.loop import STOP_REASONS, LoopResult
from pytest_toolcall.reference.history import ReferenceHistoryBuilder
from pytest_toolcall.reference.loop import ReferenceToolLoop
from pytest_toolcall.runner import CaseSkipped, run_case
from pytest_toolcall.tools import SECRET

LOOP = {case.id: case for case in loop_cases.CASES}
HISTORY = {case.id: case for case in history_cases.CASES}
MODES = ("inprocess", "fake")
INTERFACES = ("sync", "async")

#: profile fields per case: a short tool timeout keeps the hung-tool case fast
CASE_PROFILE: dict[str, dict[str, Any]] = {"loop.tool_timeout": {"tool_timeout": 0.1}}
#: a loop without a tool timeout hangs: the case deadline that ends it
HANG = {"timeout": 0.35}
#: sequential dispatch never overlaps: shorter sleeps (the script follows tool_timeout) suffice
QUICK = {"tool_timeout": 0.25}
CLARIFY = {"argument_validation": "clarify"}

#: (case id, broken loop, the clause the case must name, profile fields)
LOOP_CONTROLS: list[tuple[str, type[ReferenceToolLoop], str, dict[str, Any]]] = [
    # -- failure rounds (seed 002 AC1) --------------------------------------------------------
    ("loop.all_failure_rounds", c.NoFailureRoundLimit, "loop.stop_reason", {}),
    ("loop.all_failure_rounds", c.SuccessConditionFlipped, "loop.stop_reason", {}),
    ("loop.all_failure_rounds", c.FailureRoundsOffByOne, "loop.model_calls", {}),
    ("loop.failure_rounds_reset", c.NeverResetsFailureRounds, "loop.model_calls", {}),
    ("loop.failure_rounds_reset", c.FailureRoundsOffByOne, "loop.model_calls", {}),
    ("loop.failure_rounds_not_iterations", c.FailureRoundsCountAsIterations, "loop.model_calls",
     {}),
    # -- permanent vs retryable (AC2, AC10) ---------------------------------------------------
    ("loop.permanent_failure", c.PermanentTreatedAsRetryable, "loop.stop_reason", {}),
    ("loop.permanent_failure", c.PermanentCheckedNextRound, "loop.model_calls", {}),
    ("loop.permanent_failure", c.PermanentStopLeavesCallsUnanswered, "loop.result_messages", {}),
    ("loop.retryable_failure_continues", c.RetryableTreatedAsPermanent, "loop.stop_reason", {}),
    # -- arguments (AC3) -------------------------------------------------------------------------
    ("loop.missing_required_argument", c.NoArgumentValidation, "loop.tool_not_run", {}),
    ("loop.missing_required_argument", c.SkipsArgumentChecks, "loop.tool_not_run", {}),
    ("loop.missing_required_argument", c.NeverClarifies, "loop.stop_reason", CLARIFY),
    ("loop.malformed_arguments", c.UnguardedJsonParse, "loop.raised", {}),
    ("loop.malformed_arguments", c.MalformedAsEmptyObject, "loop.malformed_arguments", {}),
    ("loop.malformed_arguments", c.SkipsArgumentChecks, "loop.tool_not_run", {}),
    ("loop.unknown_tool", c.KeyErrorOnUnknownTool, "loop.raised", {}),
    ("loop.unknown_tool", c.UnknownToolStopsTheLoop, "loop.unknown_tool", {}),
    # -- sanitised failures (AC4) ----------------------------------------------------------------
    ("loop.sanitised_failures", c.RawExceptionText, "loop.sanitised", {}),
    ("loop.sanitised_failures", c.ExceptionRepr, "loop.sanitised", {}),
    ("loop.sanitised_failures", c.CrashPropagates, "loop.raised", {}),
    ("loop.sanitised_failures", c.AsyncLeaksCrashText, "loop.sanitised", {}),
    # -- mixed batches (AC5 and the gate's escaped mutant) -------------------------------------
    ("loop.mixed_batch", c.DropsFailedCallsFromMixedBatch, "loop.failure_fed_back", {}),
    ("loop.mixed_batch", c.DropsFailedResultsFromMixedBatch,
     "request.messages.tool_calls.unanswered", {}),
    ("loop.mixed_batch", c.AnyFailureIsFailureRound, "loop.stop_reason", {}),
    ("loop.mixed_batch", c.SuccessConditionFlipped, "loop.stop_reason", {}),
    ("loop.mixed_batch", c.RetryableTreatedAsPermanent, "loop.failure_fed_back", {}),
    # -- pairing and order -------------------------------------------------------------------------
    ("loop.answered_once_in_order", c.CompletionOrder, "loop.answered_once_in_order", {}),
    ("loop.answered_once_in_order", c.AsyncCompletionOrder, "loop.answered_once_in_order", {}),
    ("loop.duplicate_call_id", c.NoDedupeOfCallIds, "loop.executed_once", {}),
    # -- caps and usage (seed 004) -----------------------------------------------------------------
    ("loop.iteration_cap", c.IterationCapOffByOne, "loop.model_calls", {}),
    ("loop.iteration_cap", c.IterationCapOneShort, "loop.model_calls", {}),
    ("loop.iteration_cap", c.NoIterationCap, "loop.stop_reason", {}),
    ("loop.failure_rounds_not_iterations", c.IterationCapOffByOne, "loop.model_calls", {}),
    ("loop.usage_summed", c.LastCallUsageOnly, "loop.usage", {}),
    ("loop.usage_summed", c.SumsTotalTokensOnly, "loop.usage", {}),
    # -- dispatch ------------------------------------------------------------------------------------
    ("loop.parallel_dispatch", c.SequentialDispatch, "loop.parallel", QUICK),
    ("loop.parallel_dispatch", c.AsyncSequential, "loop.parallel", QUICK),
    ("loop.parallel_dispatch", c.DedupesCallsByName, "loop.parallel", {}),
    ("loop.tool_timeout", c.NoToolTimeout, "loop.timeout", HANG),
    ("loop.tool_timeout", c.AsyncNoToolTimeout, "loop.timeout", HANG),
    ("loop.tool_timeout", c.PoolWaitsForHungTools, "loop.timeout", HANG),
    ("loop.tool_timeout", c.TimeoutIsFatal, "loop.failure_fed_back", {}),
    # -- the first scoreboard's escapes --------------------------------------------------------
    ("loop.model_error", c.ModelErrorRaises, "loop.raised", {}),
    ("loop.events", c.NoClientEvents, "loop.events", {}),
    ("loop.events", c.ReportsSuccessesOnly, "loop.events", {}),
    ("loop.iteration_cap", c.ForgetsEarlierRounds, "loop.conversation_kept", {}),
    ("loop.iteration_cap", c.ToolsOnlyOnFirstCall, "loop.conversation_kept", {}),
]

#: (case id, broken history builder, the clause the case must name)
HISTORY_CONTROLS: list[tuple[str, type[ReferenceHistoryBuilder], str]] = [
    ("history.orphan_calls", c.KeepsEverything, "history.valid"),
    ("history.orphan_calls", c.DropsAllToolTraffic, "history.kept"),
    ("history.orphan_calls", c.AnswersOrphanCallsWithErrors, "history.idempotent"),
    ("history.orphan_results", c.KeepsEverything, "history.orphan_dropped"),
    ("history.orphan_results", c.KeepsOrphanResults, "history.orphan_dropped"),
    ("history.all_calls_failed", c.KeepsFailedCalls, "history.failed_calls_dropped"),
    ("history.all_calls_failed", c.DropsTextWithFailedCalls, "history.failed_calls_dropped"),
    ("history.dedupe", c.NoDedupeOfResults, "history.results_deduped"),
    ("history.dedupe", c.DropsAllToolTraffic, "history.kept"),
    ("history.results_without_id", c.KeepsEverything, "history.no_id_dropped"),
    ("history.results_without_id", c.MergesIdlessResults, "history.results_intact"),
    ("history.result_stored_late", c.KeepsStoredOrder, "history.valid"),
    ("history.result_stored_late", c.DropsAllToolTraffic, "history.kept"),
    ("history.random_histories", c.OnlyLastTurnRepaired, "history.valid"),
    ("history.random_histories", c.AnswersOrphanCallsWithErrors, "history.idempotent"),
    ("history.random_histories", c.MergesIdlessResults, "history.results_intact"),
]


def breaks(loop: type[ReferenceToolLoop]) -> tuple[str, ...]:
    """The interfaces a control's bug is in: its own methods say which path it touches."""
    own = set(vars(loop))
    if own & {"arun", "adispatch"}:
        return ("async",)
    if own & {"run", "dispatch"}:
        return ("sync",)
    return INTERFACES


def profile_for(case_id: str, only: str | None = None, **fields: Any) -> Profile:
    fields = {**CASE_PROFILE.get(case_id, {}), **fields}
    if only == "sync":
        fields["async_"] = False
    elif only == "async":
        fields["sync"] = False
    return Profile(**fields)


def _loop_id(row: tuple[Any, ...]) -> str:
    return f"{row[0]}-{row[1].__name__}"


# every control through each interface its bug is in, in both model modes; the interface it
# is not in (async-only and sync-only bugs) passes, checked in-process
LOOP_RUNS = [pytest.param(*row, mode, interface, id=f"{_loop_id(row)}-{mode}-{interface}")
             for row in LOOP_CONTROLS for mode in MODES for interface in INTERFACES
             if interface in breaks(row[1]) or mode == "inprocess"]


@pytest.mark.parametrize(("case_id", "broken", "clause", "fields", "mode", "interface"),
                         LOOP_RUNS)
def test_loop_case_fails_its_negative_control(case_id: str, broken: type[ReferenceToolLoop],
                                              clause: str, fields: dict[str, Any], mode: str,
                                              interface: str) -> None:
    profile = profile_for(case_id, interface, **fields)
    loop = broken.from_profile(profile)
    if interface not in breaks(broken):
        # the bug is in the other interface's path: this one is the reference's and passes
        runs = run_case(LOOP[case_id], loop, profile, loop_model=mode)
        assert [run.interface for run in runs] == [interface]
        assert isinstance(runs[0].result, LoopResult)
        return
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP[case_id], loop, profile, loop_model=mode)
    assert exc.value.clause == clause, exc.value.render()
    assert exc.value.case_id == case_id
    assert exc.value.interface == interface


@pytest.fixture
def no_shrinking() -> Iterator[None]:
    """Random-history cases stop at the first failing history: the clause is what these tests
    check, and shrinking the example costs seconds."""
    previous = settings.get_current_profile_name()
    settings.register_profile("toolcall-no-shrink", settings.get_profile(previous),
                              phases=[Phase.explicit, Phase.reuse, Phase.generate])
    settings.load_profile("toolcall-no-shrink")
    yield
    settings.load_profile(previous)


@pytest.mark.parametrize(("case_id", "broken", "clause"), HISTORY_CONTROLS,
                         ids=[_loop_id(row) for row in HISTORY_CONTROLS])
@pytest.mark.usefixtures("no_shrinking")
def test_history_case_fails_its_negative_control(case_id: str,
                                                 broken: type[ReferenceHistoryBuilder],
                                                 clause: str) -> None:
    with pytest.raises(ConformanceFailure) as exc:
        run_case(HISTORY[case_id], broken(), Profile())
    assert exc.value.clause == clause, exc.value.render()
    assert exc.value.case_id == case_id
    assert "stored:" in exc.value.trace and "built:" in exc.value.trace


# -- positive controls ------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case_id", sorted(LOOP))
def test_reference_loop_passes(case_id: str, mode: str) -> None:
    profile = profile_for(case_id)
    runs = run_case(LOOP[case_id], ReferenceToolLoop.from_profile(profile), profile,
                    loop_model=mode)
    assert [run.interface for run in runs] == ["sync", "async"]
    for run in runs:
        assert run.error is None and isinstance(run.result, LoopResult)
        assert run.result.stop_reason in STOP_REASONS
        assert run.model_calls >= 1 and run.rejections == []
        assert run.model_mode == mode
        # nothing the loop showed anyone holds the planted secret
        shown = [run.result.text or ""] + [e.content for e in run.result.events or ()]
        shown += [getattr(m, "content", None) or "" for r in run.requests for m in r.messages]
        assert not any(SECRET in text for text in shown)


@pytest.mark.parametrize("case_id", sorted(HISTORY))
def test_reference_history_builder_passes(case_id: str) -> None:
    [run] = run_case(HISTORY[case_id], ReferenceHistoryBuilder(), Profile())
    assert run.error is None and run.built is not None
    assert run.rebuilt == run.built


@pytest.mark.parametrize("fields", [
    {"max_iterations": 2, "max_failure_rounds": 2, "argument_validation": "clarify"},
    {"max_iterations": 1, "max_failure_rounds": 4, "parallel_dispatch": False},
], ids=["tight-caps-clarify", "one-iteration-sequential"])
def test_reference_loop_passes_with_other_profiles(fields: dict[str, Any]) -> None:
    """The scripts follow the profile's caps: other claims, same verdict."""
    passed, skipped = [], []
    for case_id, case in LOOP.items():
        profile = profile_for(case_id, "sync", **fields)
        try:
            run_case(case, ReferenceToolLoop.from_profile(profile), profile)
            passed.append(case_id)
        except CaseSkipped:
            skipped.append(case_id)
    expected_skips = [] if fields.get("parallel_dispatch", True) else ["loop.parallel_dispatch"]
    assert skipped == expected_skips
    assert len(passed) == len(LOOP) - len(expected_skips)


# -- the tables are complete and honest ------------------------------------------------------
def test_every_loop_and_history_case_has_a_negative_control() -> None:
    covered = {row[0] for row in LOOP_CONTROLS} | {row[0] for row in HISTORY_CONTROLS}
    missing = sorted((set(LOOP) | set(HISTORY)) - covered)
    assert not missing, f"cases without a negative control: {missing}"


def test_every_control_names_a_real_case() -> None:
    assert {row[0] for row in LOOP_CONTROLS} <= set(LOOP)
    assert {row[0] for row in HISTORY_CONTROLS} <= set(HISTORY)


def test_every_mutant_is_used_or_a_known_escape() -> None:
    used = {row[1] for row in LOOP_CONTROLS}
    assert not used & set(c.ESCAPES)
    assert sorted(m.__name__ for m in set(c.LOOP_MUTANTS) - used - set(c.ESCAPES)) == []
    assert sorted(m.__name__ for m in set(c.HISTORY_MUTANTS)
                  - {row[1] for row in HISTORY_CONTROLS}) == []


def test_controls_are_documented_and_async_ones_break_only_async() -> None:
    for mutant in c.LOOP_MUTANTS + c.HISTORY_MUTANTS:
        assert (mutant.__doc__ or "").strip(), f"{mutant.__name__} has no docstring"
    for mutant in c.LOOP_MUTANTS:
        if mutant.__name__.startswith("Async"):
            assert breaks(mutant) == ("async",), mutant.__name__
        else:
            assert "async" not in breaks(mutant) or breaks(mutant) == INTERFACES


@pytest.mark.parametrize("mutant", c.ESCAPES, ids=lambda m: m.__name__)
def test_known_escapes_pass_every_loop_case(mutant: type[ReferenceToolLoop]) -> None:
    """Known gaps, kept honest: when a case learns to kill one of these, move it to
    LOOP_CONTROLS."""
    for case_id, case in LOOP.items():
        quick = QUICK if case_id == "loop.parallel_dispatch" else {}
        profile = profile_for(case_id, breaks(mutant)[0], **quick)
        runs = run_case(case, mutant.from_profile(profile), profile)
        assert [run.interface for run in runs] == [breaks(mutant)[0]]


def test_never_clarifies_escapes_the_default_profile_only() -> None:
    """argument_validation="clarify" is checked only when the profile claims it."""
    case = LOOP["loop.missing_required_argument"]
    profile = profile_for(case.id, "sync")
    run_case(case, c.NeverClarifies.from_profile(profile), profile)
    profile = profile_for(case.id, "sync", **CLARIFY)
    with pytest.raises(ConformanceFailure) as exc:
        run_case(case, c.NeverClarifies.from_profile(profile), profile)
    assert exc.value.clause == "loop.stop_reason"

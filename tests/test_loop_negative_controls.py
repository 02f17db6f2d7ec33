"""Every loop and history case has a negative control: a broken loop or builder it must fail, on
the right clause, through the interface the bug is in, with the model in-process and behind the
fake provider.

Each row of :data:`LOOP_CONTROLS` / :data:`HISTORY_CONTROLS` is one bug (a class in
``tests/loop_controls.py``), the case that must catch it and the exact clause it must name. The
reference loop and history builder pass every case (positive controls), and :data:`ESCAPES`
records the mutants of the reference loop that no case kills.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import loop_calls_controls as calls  # the model-call and cancellation cases' controls
import loop_controls as c  # tests/loop_controls.py (tests/ is on sys.path)
import loop_turns_controls as turns  # tests/loop_turns_controls.py: issue 29's
import pytest
from hypothesis import Phase, settings
from pydantic import ValidationError

import pytest_toolcall.conformance.history as history_cases
import pytest_toolcall.conformance.loop as loop_cases
from pydantic import ValidationError

from pytest_toolcall.core.contracts import Profile, make_profile
from pytest_toolcall.core.errors import ConformanceFailure, ProviderError, UsageError
from pytest_toolcall.core.loop import STOP_REASONS, LoopResult, ToolError
from pytest_toolcall.run.looprun import model_call_ceiling
from pytest_toolcall.core.model import AssistantMessage, ChatRequest, ToolMessage, UserMessage
from pytest_toolcall.reference.history import ReferenceHistoryBuilder
from pytest_toolcall.reference.loop import ReferenceToolLoop, _State
from pytest_toolcall.run.runner import CaseSkipped, run_case
from pytest_toolcall.cases.tools import SECRET

LOOP = {case.id: case for case in loop_cases.CASES}
HISTORY = {case.id: case for case in [*history_cases.CASES, *turns.HISTORY_CASES]}
MODES = ("inprocess", "fake")
INTERFACES = ("sync", "async")

#: profile fields per case: a short tool timeout keeps the hung-tool case fast
CASE_PROFILE: dict[str, dict[str, Any]] = {"loop.tool_timeout": {"tool_timeout": 0.1}}
#: the loop policies the two stop-reason cases need claimed (the defaults skip them)
HANDOFF = {"handoff_tools": ("transfer_to_human",)}
CASE_PROFILE.update({"loop.cancelled": {"cancellation": True}, "loop.handed_off": HANDOFF})
CASE_PROFILE.update(calls.CASE_PROFILE)
#: a loop without a tool timeout hangs: the case deadline that ends it
HANG = {"timeout": 0.35}
#: sequential dispatch never overlaps, nor does a deduped call: shorter sleeps (the script follows
#: tool_timeout) suffice
QUICK = {"tool_timeout": 0.25}
CLARIFY = {"argument_validation": "clarify"}
#: profiles shaped like real frameworks' documented policies (docs/loops.md, "Profile fields");
#: the caps are lowered so the runs stay short
AGENTS_SDK = {"iteration_counts": "model_calls", "max_iterations": 4, "max_failure_rounds": None}
PYDANTIC_AI = {"iteration_counts": "model_calls", "max_iterations": 6, "max_failure_rounds": None,
               "tool_failure_budget": 1, "crash_policy": "abort"}
LANGGRAPH = {"iteration_counts": "rounds", "max_iterations": 4, "max_failure_rounds": None,
             "crash_policy": "abort", "duplicate_call_ids": "refuse"}
SMOLAGENTS = {"iteration_counts": "model_calls", "max_iterations": 4, "max_failure_rounds": None,
              "closing_call": True, "final_answer_tool": "final_answer"}

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
    ("loop.permanent_failure", c.RetriesPermanentFailures, "loop.executed_once",
     {"tool_retries": 1}),
    ("loop.retryable_failure_continues", c.RetryableTreatedAsPermanent, "loop.stop_reason", {}),
    # -- arguments (AC3) -------------------------------------------------------------------------
    ("loop.missing_required_argument", c.NoArgumentValidation, "loop.tool_not_run", {}),
    ("loop.missing_required_argument", c.SkipsArgumentChecks, "loop.tool_not_run", {}),
    ("loop.missing_required_argument", c.NeverClarifies, "loop.stop_reason", CLARIFY),
    ("loop.malformed_arguments", c.UnguardedJsonParse, "loop.raised", {}),
    ("loop.malformed_arguments", c.EmptyResultForUnrunCalls, "loop.malformed_arguments", {}),
    ("loop.malformed_arguments", c.SkipsArgumentChecks, "loop.tool_not_run", {}),
    ("loop.unknown_tool", c.KeyErrorOnUnknownTool, "loop.raised", {}),
    ("loop.unknown_tool", c.UnknownToolStopsTheLoop, "loop.stop_reason", {}),
    ("loop.unknown_tool", c.EmptyResultForUnrunCalls, "loop.unknown_tool", {}),
    ("loop.unknown_tool", c.RunsTheClosestTool, "loop.unknown_tool", {}),
    # -- sanitised failures (AC4) ----------------------------------------------------------------
    ("loop.sanitised_failures", c.RawExceptionText, "loop.sanitised", {}),
    ("loop.sanitised_failures", c.ExceptionRepr, "loop.sanitised", {}),
    ("loop.sanitised_failures", c.CrashPropagates, "loop.raised", {}),
    ("loop.sanitised_failures", c.AsyncLeaksCrashText, "loop.sanitised", {}),
    # -- mixed batches (AC5 and the gate's escaped mutant) -------------------------------------
    ("loop.mixed_batch", c.DropsFailedCallsFromMixedBatch, "loop.failure_fed_back", {}),
    ("loop.mixed_batch", c.DropsFailedResultsFromMixedBatch,
     "request.messages.tool_calls.unanswered", {}),
    ("loop.mixed_batch", c.DropsSuccessfulObservations, "loop.results_fed_back",
     {"feedback_role": "user"}),
    ("loop.mixed_batch", c.AnyFailureIsFailureRound, "loop.stop_reason", {}),
    ("loop.mixed_batch", c.SuccessConditionFlipped, "loop.stop_reason", {}),
    ("loop.mixed_batch", c.RetryableTreatedAsPermanent, "loop.stop_reason", {}),
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
    ("loop.parallel_dispatch", c.DedupesCallsByName, "loop.parallel", QUICK),
    ("loop.tool_timeout", c.NoToolTimeout, "loop.timeout", HANG),
    ("loop.tool_timeout", c.AsyncNoToolTimeout, "loop.timeout", HANG),
    ("loop.tool_timeout", c.PoolWaitsForHungTools, "loop.timeout", HANG),
    ("loop.tool_timeout", c.TimeoutIsFatal, "loop.stop_reason", {}),
    # -- the first scoreboard's escapes --------------------------------------------------------
    ("loop.model_error", c.ModelErrorRaises, "loop.raised", {}),
    ("loop.events", c.NoClientEvents, "loop.events", {}),
    ("loop.events", c.ReportsSuccessesOnly, "loop.events", {}),
    ("loop.iteration_cap", c.ForgetsEarlierRounds, "loop.conversation_kept", {}),
    ("loop.iteration_cap", c.ToolsOnlyOnFirstCall, "loop.conversation_kept", {}),
    # -- declared policies not kept (issue 15) ---------------------------------------------------
    ("loop.all_failure_rounds", c.IgnoresToolFailureBudget, "loop.stop_reason", PYDANTIC_AI),
    ("loop.iteration_cap", c.CapCountsRoundsNotModelCalls, "loop.model_calls", AGENTS_SDK),
    ("loop.iteration_cap", c.NoClosingCall, "loop.model_calls", SMOLAGENTS),
    ("loop.retryable_failure_continues", c.NoFinalAnswerTool, "loop.stop_reason", SMOLAGENTS),
    ("loop.sanitised_failures", c.AbortLeaksCrashText, "loop.sanitised", LANGGRAPH),
    ("loop.retryable_failure_continues", c.DropsToolErrorMessage, "loop.failure_fed_back", {}),
    ("loop.model_error", c.RetriesServerErrors, "loop.model_calls", {}),
    # -- issue 12: a 429 retried where undeclared, or without waiting its delay ------------------
    ("loop.rate_limited", c.RetriesServerErrors, "loop.stop_reason", {}),
    ("loop.model_timeout", c.RetriesServerErrors, "loop.model_calls", {}),  # a retry storm
    ("loop.rate_limited", c.RetriesServerErrors, "loop.retry_delay", {"model_retries": 2}),
    ("loop.duplicate_call_id", c.RefusalRunsTheCall, "loop.executed_once", LANGGRAPH),
    # -- issue 16 ------------------------------------------------------------------------------
    ("loop.text_with_calls", c.IgnoresCallsWithText, "loop.calls_run", {}),
    ("loop.text_with_calls", c.LoopDropsTextWithCalls, "loop.text_replayed", {}),
    ("loop.stop_with_calls", c.TrustsFinishReason, "loop.calls_run", {}),
    ("loop.result_contents_match", c.ContentsInCompletionOrder, "loop.results_match_calls", {}),
    ("loop.argument_types", c.RequiredKeysOnly, "loop.tool_not_run", {}),
    # types checked, additionalProperties: false ignored: set_alarm runs with its `snooze` key
    ("loop.argument_types", c.IgnoresUndeclaredKeys, "loop.tool_not_run", {}),
    ("loop.truncated_answer", c.CompletedWhateverTheFinish, "loop.stop_reason", {}),
    ("loop.content_filtered", c.CompletedWhateverTheFinish, "loop.stop_reason", {}),
    # -- issue 12: gaps the mutation self-check found (docs/mutation.md) -----------------------
    ("loop.sanitised_failures", c.CrashAnsweredAsSuccess, "loop.failure_flagged", {}),
    ("loop.tool_timeout", c.TimeoutAnsweredAsSuccess, "loop.failure_flagged", {}),
    ("loop.unknown_tool", c.UnrunCallsAnsweredAsSuccess, "loop.failure_flagged", {}),
    ("loop.malformed_arguments", c.UnrunCallsAnsweredAsSuccess, "loop.failure_flagged", {}),
    ("loop.argument_types", c.UnrunCallsAnsweredAsSuccess, "loop.failure_flagged", {}),
    ("loop.unknown_tool", c.FailuresShownAsResults, "loop.events", {}),
    ("loop.sanitised_failures", c.FailuresShownAsResults, "loop.events", {}),
    ("loop.events", c.EventsWithoutToolNames, "loop.events", {}),
    ("loop.events", c.StopTextNotShown, "loop.events", {}),
    ("loop.model_error", c.StopTextNotShown, "loop.events", {}),
    ("loop.missing_required_argument", c.StopTextNotShown, "loop.events", CLARIFY),
    ("loop.usage_summed", c.AnswerTextDropped, "loop.result_text", {}),
    ("loop.missing_required_argument", c.AnswerTextDropped, "loop.result_text", CLARIFY),
    ("loop.text_with_calls", c.FinalAnswerArgumentIgnored, "loop.result_text", SMOLAGENTS),
    ("loop.iteration_cap", c.ClosingAnswerIgnored, "loop.closing_call", SMOLAGENTS),
    ("loop.permanent_failure", c.ClosingAnswerIgnored, "loop.closing_call", SMOLAGENTS),
    ("loop.iteration_cap", c.ClosingUsageNotSummed, "loop.usage", SMOLAGENTS),
    ("loop.all_failure_rounds", c.ClosingUsageNotSummed, "loop.usage", SMOLAGENTS),
    ("loop.duplicate_call_id", c.RefusedTurnUsageNotSummed, "loop.usage", LANGGRAPH),
    # -- issue 12: the last loop mutation gaps (docs/mutation.md) --------------------------------
    ("loop.mixed_batch", c.ToolArgumentsDropped, "loop.arguments_passed", {}),
    ("loop.text_with_calls", c.ToolArgumentsDropped, "loop.arguments_passed", {}),
    ("loop.tool_timeout", c.HungCallEndsTheBatch, "request.messages.tool_calls.unanswered", {}),
    ("loop.duplicate_call_id", c.RepeatedIdDropsTheRest, "loop.calls_run", {}),
    ("loop.iteration_cap", c.NoToolsOffered, "loop.conversation_kept", {}),
    ("loop.usage_summed", c.NoToolsOffered, "loop.conversation_kept", {}),
    ("loop.iteration_cap", c.NoClosingCallAtRoundCap, "loop.model_calls", {"closing_call": True}),
    ("loop.truncated_answer", c.PartialAnswerDropped, "loop.result_text", {}),
    # -- issue 16: cancelled and handed_off ------------------------------------------------------
    ("loop.cancelled", c.IgnoresCancel, "loop.stop_reason", {}),
    ("loop.cancelled", c.CancelReportedAsError, "loop.stop_reason", {}),
    ("loop.handed_off", c.HandoffRunAsATool, "loop.stop_reason", {}),
    ("loop.handed_off", c.HandoffReportedAsCompleted, "loop.stop_reason", {}),
    ("loop.handed_off", c.HandoffTurnUsageDropped, "loop.usage", {}),
]
LOOP_CONTROLS += turns.LOOP_TURNS_CONTROLS
#: the wire formats the fake plays: every control runs on each one its case runs on
#: (Case.dialects; see CROSS_MODE for the model modes); the services (deepseek, mistral,
#: openrouter, zhipu, vertex) play openai's or gemini's wire and loop behaviour: not crossed here
DIALECTS = ("openai", "openai-responses", "anthropic", "gemini", "ollama")
#: wires without an error flag on a tool result (Chat Completions' tool message, the Responses
#: API's function_call_output, Ollama's tool message): behind the fake, loop.failure_flagged
#: cannot read the flag there, and the client's events are what still say the call failed
FLAGLESS_WIRES = ("openai", "openai-responses", "ollama")
#: where a dialect names the breach under its own clause: its wire's 400 comes first (the
#: Responses API and Anthropic refuse a repeated call id, each names an unanswered call its own
#: way, Gemini counts function responses), or its wire has no such rule (Ollama pairs no ids) and
#: a loop clause catches the bug. Keyed (case id, control, dialect); both model modes.
DIALECT_CLAUSES: dict[tuple[str, str, str], str] = {
    **{(case_id, control, dialect): clause
       for case_id, control in (("loop.mixed_batch", "DropsFailedResultsFromMixedBatch"),
                                ("loop.tool_timeout", "HungCallEndsTheBatch"))
       for dialect, clause in (("openai-responses", "request.input.function_call.unanswered"),
                               ("anthropic", "request.messages.tool_use.unanswered"),
                               ("gemini", "request.messages.function_response.count"),
                               ("ollama", "loop.failure_fed_back"))},
    ("loop.duplicate_call_id", "NoDedupeOfCallIds", "openai-responses"):
        "request.input.function_call_output.duplicate",
    ("loop.duplicate_call_id", "NoDedupeOfCallIds", "anthropic"):
        "request.messages.tool_use.unique",
}
DIALECT_CLAUSES.update(turns.FAKE_CLAUSES)  # run behind the fake only, below (CROSS_MODE)
#: (case id, control, dialect, model mode or "*") -> why the control cannot fail there by design.
#: test_excluded_pairs_still_pass runs each: a pair that starts failing must move to the table.
EXCLUDED: dict[tuple[str, str, str, str], str] = {
    # the case's own text: the reference adapters of gemini and ollama report 'tool_calls' for
    # a STOP (done_reason 'stop') with calls, so behind the fake a loop trusting finish_reason
    # sees 'tool_calls' and runs them; in-process the model reports the wire's 'stop' and fails it
    ("loop.stop_with_calls", "TrustsFinishReason", "gemini", "fake"):
        "the gemini reference adapter reports tool_calls for STOP with functionCall parts",
    ("loop.stop_with_calls", "TrustsFinishReason", "ollama", "fake"):
        "the ollama reference adapter reports tool_calls for done_reason 'stop' with calls",
    # loop.result_messages asks the dialect's wire whether it would take the returned
    # conversation back; a conversation ending on an unanswered call is refused only where calls
    # must be answered by id before the next request (openai, openai-responses, anthropic)
    # an empty result flagged is_error says the call failed where the wire carries the flag
    # to the model (Anthropic tool_result.is_error, Gemini response.error): no defect there
    **{("loop.unknown_tool", "EmptyResultForUnrunCalls", dialect, "*"):
       f"the {dialect} wire carries is_error to the model" for dialect in ("anthropic", "gemini")},
    ("loop.permanent_failure", "PermanentStopLeavesCallsUnanswered", "ollama", "*"):
        "Ollama's wire has no call ids: an assistant turn with unanswered calls is accepted",
    ("loop.permanent_failure", "PermanentStopLeavesCallsUnanswered", "gemini", "*"):
        "the gemini fake accepts a functionCall turn that ends the conversation (or is followed "
        "by a user text turn); it counts function responses only where a response turn follows",
}
EXCLUDED.update(turns.EXCLUDED)
#: (case id, dialect) pairs the kit cannot play (looprun.inexpressible): the case skips there
INEXPRESSIBLE = {("loop.malformed_arguments", d) for d in ("anthropic", "gemini", "ollama")} | {
    ("loop.rate_limited", "ollama")}

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
    ("history.orphan_calls", c.AnswersInterruptedCallsAsSuccess, "history.results_intact"),
    # -- issue 16 ------------------------------------------------------------------------------
    ("history.results_in_call_order", c.ResultsInStoredOrder, "history.results_in_call_order"),
    ("history.call_id_reused", c.AnswersReusedIdTwice, "history.call_ids_unique"),
    ("history.call_repeated_in_one_turn", c.KeepsCallRepeatedInTurn, "history.call_ids_unique"),
    ("history.empty_assistant_dropped", c.KeepsEmptyAssistant, "history.no_empty_assistant"),
]

HISTORY_CONTROLS += turns.HISTORY_TURNS_CONTROLS


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


def expected_clause(case_id: str, broken: type[ReferenceToolLoop], clause: str, dialect: str,
                    mode: str) -> str:
    """The clause a control must fail on ``dialect`` (the row's own unless the wire says
    otherwise: DIALECT_CLAUSES, FLAGLESS_WIRES)."""
    if clause == "loop.failure_flagged" and mode == "fake" and dialect in FLAGLESS_WIRES:
        return "loop.events"
    return DIALECT_CLAUSES.get((case_id, broken.__name__, dialect), clause)


def excluded(case_id: str, broken: type[ReferenceToolLoop], dialect: str, mode: str) -> bool:
    return any((case_id, broken.__name__, dialect, m) in EXCLUDED for m in (mode, "*"))


def _runs_on(case_id: str, dialect: str) -> bool:
    return LOOP[case_id].applies_to(dialect) and (case_id, dialect) not in (
        INEXPRESSIBLE | calls.INEXPRESSIBLE)


#: the model mode the other dialects run in (openai runs both): behind the fake, where each
#: dialect's wire is encoded, sent and read back by its reference adapter. Both modes on all five
#: dialects took ~90 s single-worker; a pair the fake cannot show (EXCLUDED there) runs in-process.
CROSS_MODE = "fake"


#: controls whose bug is in how the loop dispatches the calls of its first turn, and whose
#: verdict reads what the executor recorded (loop.parallel: which calls ran, and when) or the
#: loop's own stop before any further model call (TimeoutIsFatal: loop.stop_reason): a dialect
#: changes only how that turn's calls reach the loop, which is the same on every dialect
#: (test_the_dialect_does_not_change_what_the_loop_dispatches), so they run on openai, both
#: modes, as the HANG rows do. On the four other dialects these 28 runs waited out their
#: rendezvous or tool timeout (0.1 s to 0.3 s each, 6.4 s) and proved nothing the openai runs
#: do not. The other loop.tool_timeout controls keep every dialect: their verdicts are the
#: wire's (DIALECT_CLAUSES, FLAGLESS_WIRES)
DISPATCH_ONLY = {*(("loop.parallel_dispatch", name)
                   for name in ("SequentialDispatch", "AsyncSequential", "DedupesCallsByName")),
                 ("loop.tool_timeout", "TimeoutIsFatal")}


def _cross(row: tuple[Any, ...], dialect: str, mode: str) -> bool:
    if row[3] is HANG:
        # a hung tool hangs the loop before any further model call, whatever the wire: these
        # controls wait out their 0.35 s deadline, and on the four other dialects (16 runs,
        # 6 s) they proved nothing the openai runs, in both modes, do not. Each other dialect
        # keeps its own loop.tool_timeout controls (TimeoutIsFatal, TimeoutAnsweredAsSuccess,
        # HungCallEndsTheBatch), so every case still has a control on every dialect it runs on
        return dialect == "openai"
    if (row[0], row[1].__name__) in DISPATCH_ONLY:
        return dialect == "openai"
    return (dialect == "openai" or mode == CROSS_MODE
            or excluded(row[0], row[1], dialect, CROSS_MODE))


# every control through each interface its bug is in, on every dialect its case runs on; the
# interface it is not in (async-only and sync-only bugs) passes, checked in-process on openai
# (the path, not the wire, is what differs)
LOOP_RUNS = [pytest.param(*row, dialect, mode, interface,
                          id=f"{_loop_id(row)}-{dialect}-{mode}-{interface}")
             for row in LOOP_CONTROLS for dialect in DIALECTS for mode in MODES
             for interface in INTERFACES
             if _runs_on(row[0], dialect) and not excluded(row[0], row[1], dialect, mode)
             and _cross(row, dialect, mode)
             and (interface in breaks(row[1]) or (mode == "inprocess" and dialect == "openai"))]


@pytest.mark.parametrize(("case_id", "broken", "clause", "fields", "dialect", "mode",
                          "interface"), LOOP_RUNS)
def test_loop_case_fails_its_negative_control(case_id: str, broken: type[ReferenceToolLoop],
                                              clause: str, fields: dict[str, Any], dialect: str,
                                              mode: str, interface: str) -> None:
    profile = profile_for(case_id, interface, **fields)
    loop = broken.from_profile(profile)
    if interface not in breaks(broken):
        # the bug is in the other interface's path: this one is the reference's and passes
        runs = run_case(LOOP[case_id], loop, profile, loop_model=mode, dialect=dialect)
        assert [run.interface for run in runs] == [interface]
        assert isinstance(runs[0].result, LoopResult)
        return
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP[case_id], loop, profile, loop_model=mode, dialect=dialect)
    assert exc.value.clause == expected_clause(case_id, broken, clause, dialect, mode), \
        exc.value.render()
    assert exc.value.case_id == case_id
    assert exc.value.interface == interface
    assert exc.value.provider == dialect


@pytest.mark.parametrize("key", sorted(EXCLUDED), ids="-".join)
def test_excluded_pairs_still_pass(key: tuple[str, str, str, str]) -> None:
    """Each exclusion is exact: the control passes its case there (if it starts failing, the
    exclusion is stale and the pair belongs in LOOP_RUNS)."""
    case_id, name, dialect, mode = key
    [row] = [r for r in LOOP_CONTROLS if r[0] == case_id and r[1].__name__ == name]
    for model_mode in (MODES if mode == "*" else (mode,)):
        for interface in breaks(row[1]):
            profile = profile_for(case_id, interface, **row[3])
            run_case(LOOP[case_id], row[1].from_profile(profile), profile,
                     loop_model=model_mode, dialect=dialect)


def test_dialect_tables_are_exact() -> None:
    """Every DIALECT_CLAUSES key is a row on a dialect it runs on; every skip is the kit's."""
    rows = {(r[0], r[1].__name__) for r in LOOP_CONTROLS}
    assert {k[:2] for k in DIALECT_CLAUSES} <= rows
    assert {k[:2] for k in EXCLUDED} <= rows
    assert all(_runs_on(k[0], k[2]) for k in [*DIALECT_CLAUSES, *EXCLUDED])
    skipped = set()
    for case_id in {r[0] for r in LOOP_CONTROLS}:
        for dialect in DIALECTS:
            if not LOOP[case_id].applies_to(dialect):
                continue
            profile = profile_for(case_id, "sync")
            try:
                run_case(LOOP[case_id], ReferenceToolLoop.from_profile(profile), profile,
                         dialect=dialect)
            except CaseSkipped as skip:
                assert "cannot run on" in str(skip)
                skipped.add((case_id, dialect))
    assert skipped == INEXPRESSIBLE
    # every case has a control on every dialect it runs on (one that runs and fails there), or
    # the dialect is shown not to change what its controls act on (DISPATCH_ONLY)
    covered = {(p.values[0], p.values[4]) for p in LOOP_RUNS if p.values[6] in breaks(p.values[1])}
    covered |= {(case_id, d) for case_id, _ in DISPATCH_ONLY for d in DIALECTS}
    # tests/test_loop_calls_controls.py runs these on the dialects each row names
    covered |= {(r[0], d) for r in calls.LOOP_CONTROLS for d in r[4]}
    wanted = {(case_id, d) for case_id in LOOP for d in DIALECTS if _runs_on(case_id, d)}
    assert sorted(wanted - covered) == []


@pytest.mark.parametrize("case_id", sorted({case_id for case_id, _ in DISPATCH_ONLY}))
def test_the_dialect_does_not_change_what_the_loop_dispatches(case_id: str) -> None:
    """Why DISPATCH_ONLY's controls run on openai alone: the turn whose calls they dispatch
    reaches the loop as the same calls (tool, arguments, id, in order) on every dialect the
    case runs on, in-process and decoded by each dialect's reference adapter behind its fake;
    the loop's dispatch, the executor's records loop.parallel reads and the loop's stop after
    that turn follow from them."""
    from pytest_toolcall.core.model import ChatRequest
    from pytest_toolcall.run.looprun import _model, resolve_script

    profile = profile_for(case_id)
    script = resolve_script(LOOP[case_id], profile)
    request = ChatRequest(messages=tuple(script.messages),
                          tools=tuple(tool.spec for tool in script.tools))
    turns = {}
    for dialect in [d for d in DIALECTS if _runs_on(case_id, d)]:
        for mode in MODES:
            model = _model(script, dialect, mode)[0]
            turns[dialect, mode] = [(call.name, call.arguments, call.id)
                                    for call in model.complete(request).tool_calls]
    assert len(turns) == 2 * len(DIALECTS)
    first = turns["openai", "inprocess"]
    assert len(first) >= 2 and len({call[2] for call in first}) == len(first), first
    assert {key: calls for key, calls in turns.items() if calls != first} == {}


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


class _AnswersInterruptedCallsWithErrors(ReferenceHistoryBuilder):
    """Answers each interrupted call with a synthesized error, idempotently (failed results are
    kept, so a rebuild keeps the answer): "filtered or answered" allows it."""

    def __init__(self) -> None:
        super().__init__(failed_calls="keep")

    def build(self, stored: Any) -> list[Any]:
        return super().build(c.answer_interrupted_calls(
            stored, "The call was interrupted; it did not run.", is_error=True))


@pytest.mark.parametrize("case_id", ["history.orphan_calls", "history.random_histories"])
@pytest.mark.usefixtures("no_shrinking")
def test_a_synthesized_error_answer_to_an_interrupted_call_passes(case_id: str) -> None:
    [run] = run_case(HISTORY[case_id], _AnswersInterruptedCallsWithErrors(), Profile())
    if case_id == "history.orphan_calls":  # call_b was interrupted: answered, not filtered
        assert [m.tool_call_id for m in run.built if isinstance(m, ToolMessage)] == [
            "call_a", "call_b"]


@pytest.mark.parametrize("case_id", sorted(HISTORY))
def test_reference_history_builder_passes(case_id: str) -> None:
    [run] = run_case(HISTORY[case_id], ReferenceHistoryBuilder(), Profile())
    assert run.error is None and run.built is not None
    assert run.rebuilt == run.built


#: the cases a profile's own policy makes inapplicable, each skipped by its capability
NO_FAILURE_ROUNDS = ["loop.failure_rounds_not_iterations", "loop.failure_rounds_reset"]


@pytest.mark.parametrize(("fields", "expected_skips"), [
    ({"max_iterations": 2, "max_failure_rounds": 2, "argument_validation": "clarify"}, []),
    ({"max_iterations": 1, "max_failure_rounds": 4, "parallel_dispatch": False},
     ["loop.parallel_dispatch"]),
    # issue 15: max_failure_rounds=1 used to fail six unrelated cases, the reference loop too
    ({"max_failure_rounds": 1}, NO_FAILURE_ROUNDS),
    (AGENTS_SDK, NO_FAILURE_ROUNDS),
    (PYDANTIC_AI, NO_FAILURE_ROUNDS),
    (LANGGRAPH, NO_FAILURE_ROUNDS),
    (SMOLAGENTS, NO_FAILURE_ROUNDS),
    # default caps as shipped: pydantic-ai's request_limit=50 is past the old 40-call ceiling
    ({**PYDANTIC_AI, "max_iterations": 50}, NO_FAILURE_ROUNDS),
    ({"iteration_counts": "rounds", "tool_failure_budget": 0, "max_failure_rounds": None,
      "closing_call": True}, NO_FAILURE_ROUNDS),
    ({"tool_timeout": None, "parallel_dispatch": False}, ["loop.parallel_dispatch",
                                                          "loop.tool_timeout"]),
    # a retry of a retryable failure inside the round: the scripts fail once more per retry,
    # and a permanent failure is still run once (loop.executed_once in loop.permanent_failure)
    ({"tool_retries": 1}, []),
], ids=["tight-caps-clarify", "one-iteration-sequential", "one-failure-round", "agents-sdk",
        "pydantic-ai", "langgraph", "smolagents", "pydantic-ai-cap-50", "budget-0-closing",
        "no-tool-timeout", "tool-retries"])
def test_reference_loop_passes_with_other_profiles(fields: dict[str, Any],
                                                   expected_skips: list[str]) -> None:
    """The scripts and expectations follow the profile's declared policy: other claims, same
    verdict; only the cases whose premise the policy lacks skip, each naming it."""
    passed, skipped = [], []
    # the reference's own tool timeout (reference_profile: 0.1 s) where the row sets none: the
    # scripts' sleeps follow it, and the default 0.5 s made each row wait about 0.4 s longer
    fields = {"tool_timeout": 0.1, **fields}
    for case_id, case in LOOP.items():
        profile = profile_for(case_id, "sync", **fields)
        try:
            run_case(case, ReferenceToolLoop.from_profile(profile), profile)
            passed.append(case_id)
        except CaseSkipped:
            skipped.append(case_id)
    assert sorted(skipped) == sorted(expected_skips)
    assert len(passed) == len(LOOP) - len(expected_skips)


# -- legitimate policies a loop declares (positive controls, issue 15) ------------------------
def test_client_retries_are_the_clients_when_declared() -> None:
    """The provider SDK retries a 500 itself (the openai SDK twice by default): declared as
    ``model_retries``, those calls are not the loop's."""
    case = LOOP["loop.model_error"]
    for mode in MODES:
        profile = profile_for(case.id, model_retries=2)
        runs = run_case(case, c.RetriesServerErrors.from_profile(profile), profile,
                        loop_model=mode)
        assert [run.model_calls for run in runs] == [4, 4]


class _WaitingRetryModel(c._RetryingModel):
    """Retries a failed model call after the delay the provider named (``retry_after``)."""

    def complete(self, request: Any) -> Any:
        for attempt in range(self.retries + 1):
            try:
                return self.model.complete(request)
            except ProviderError as exc:
                if attempt == self.retries or not exc.retryable:
                    raise
                time.sleep(exc.retry_after or 0)
        raise AssertionError("unreachable")

    async def acomplete(self, request: Any) -> Any:
        for attempt in range(self.retries + 1):
            try:
                return await self.model.acomplete(request)
            except ProviderError as exc:
                if attempt == self.retries or not exc.retryable:
                    raise
                await asyncio.sleep(exc.retry_after or 0)
        raise AssertionError("unreachable")


class RetriesAfterTheDelay(ReferenceToolLoop):
    """A positive control: retries a retryable model error twice, after the delay the
    provider asked for, as the official SDKs do (declared ``model_retries=2``)."""

    def new_state(self, request: Any) -> Any:
        request.model = _WaitingRetryModel(request.model, 2)
        return super().new_state(request)


def test_a_client_that_waits_out_a_429_passes_when_declared() -> None:
    """The official SDKs retry a 429 after its retry-after: declared as ``model_retries``, the
    retry is the client's, and the run goes on to its answer."""
    case = LOOP["loop.rate_limited"]
    for mode in MODES:
        profile = profile_for(case.id, model_retries=2)
        runs = run_case(case, RetriesAfterTheDelay.from_profile(profile), profile,
                        loop_model=mode)
        assert [(run.model_calls, run.result.stop_reason) for run in runs] == \
            [(3, "completed")] * 2
        assert all(run.request_times[2] - run.request_times[1] >= 0.95 for run in runs)


class _ToolErrorTextOnly(ReferenceToolLoop):
    """Feeds a ToolError back as its bare message: no 'error' or 'fail' in it, no flag."""

    @staticmethod
    def failed(call: Any, exc: BaseException) -> Any:
        outcome = ReferenceToolLoop.failed(call, exc)
        if isinstance(exc, ToolError) and exc.kind == "execution":
            outcome.text = exc.message
        return outcome

    def new_state(self, request: Any) -> Any:
        return _UnflaggedState(request)


class _UnflaggedState(_State):
    def chat_request(self) -> Any:
        request = super().chat_request()
        return request.model_copy(update={"messages": tuple(
            m.model_copy(update={"is_error": False}) if isinstance(m, ToolMessage) else m
            for m in request.messages)})


class _UserRoleFeedback(ReferenceToolLoop):
    """Renders calls and results as text, results as user-role observations (smolagents'
    ToolCallingAgent does so for models without a tool role)."""

    def new_state(self, request: Any) -> Any:
        return _TextState(request)


class _TextState(_State):
    def chat_request(self) -> Any:
        out: list[Any] = []
        for m in self.messages:
            if isinstance(m, AssistantMessage) and m.tool_calls:
                out.append(AssistantMessage(content="Calling tools: " + ", ".join(
                    f"{c.name}({c.raw_arguments}) as {c.id}" for c in m.tool_calls)))
            elif isinstance(m, ToolMessage):
                out.append(UserMessage(content=f"Observation for {m.tool_call_id}: {m.content}"))
            else:
                out.append(m)
        return ChatRequest(messages=tuple(out), tools=self.tool_specs)


@pytest.mark.parametrize("case_id", ["loop.retryable_failure_continues", "loop.mixed_batch"])
def test_a_tool_errors_own_text_is_feedback(case_id: str) -> None:
    """The keyword test is gone: the scripted error's own text reaching the model is what
    counts, with or without the words 'error' or 'fail' and the is_error flag."""
    for mode in MODES:
        profile = profile_for(case_id)
        run_case(LOOP[case_id], _ToolErrorTextOnly.from_profile(profile), profile,
                 loop_model=mode)


@pytest.mark.parametrize("case_id", ["loop.retryable_failure_continues", "loop.mixed_batch",
                                     "loop.unknown_tool", "loop.sanitised_failures"])
def test_user_role_feedback_passes_when_declared(case_id: str) -> None:
    profile = profile_for(case_id, feedback_role="user")
    run_case(LOOP[case_id], _UserRoleFeedback.from_profile(profile), profile)
    # undeclared, the results are missing where the model is told to look for them
    profile = profile_for(case_id)
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP[case_id], _UserRoleFeedback.from_profile(profile), profile)
    assert exc.value.clause in ("loop.failure_fed_back", "loop.unknown_tool")


def test_a_crash_type_name_is_not_a_leak() -> None:
    """Aborting on a crash and naming the exception type in the stop text is a policy; the
    exception's text is the leak (AbortLeaksCrashText)."""
    case = LOOP["loop.sanitised_failures"]
    profile = profile_for(case.id, crash_policy="abort")
    [run] = run_case(case, ReferenceToolLoop.from_profile(profile), profile)[:1]
    assert run.result.stop_reason == "error" and "RuntimeError" in (run.result.text or "")


def test_a_loop_that_never_stops_on_failures_is_a_usage_error() -> None:
    with pytest.raises(ValidationError, match="never stops when every call fails"):
        Profile(max_failure_rounds=None)
    with pytest.raises(UsageError, match="never stops when every call fails"):
        make_profile({"max_failure_rounds": None})
    assert Profile(max_failure_rounds=None, tool_failure_budget=2).tool_failure_budget == 2


def test_the_model_call_ceiling_follows_the_profile() -> None:
    assert model_call_ceiling(Profile()) == 40
    assert model_call_ceiling(Profile(max_iterations=50, iteration_counts="model_calls",
                                      max_failure_rounds=None)) > 50


# -- the tables are complete and honest ------------------------------------------------------
def test_every_loop_and_history_case_has_a_negative_control() -> None:
    covered = {row[0] for row in LOOP_CONTROLS} | {row[0] for row in HISTORY_CONTROLS}
    covered |= {row[0] for row in calls.LOOP_CONTROLS}  # tests/test_loop_calls_controls.py
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


class _NoFailureFlagInEvents(ReferenceToolLoop):
    """Its client events carry no per-call failure flag: every outcome is a 'tool_result'."""

    def new_state(self, request: Any) -> Any:
        return _ResultEventsState(request)


class _ResultEventsState(_State):
    def stop(self, reason: Any, text: Any) -> LoopResult:
        result = super().stop(reason, text)
        return result.model_copy(update={"events": tuple(
            e.model_copy(update={"type": "tool_result"}) if e.type == "tool_error" else e
            for e in result.events or ())})


def test_events_without_a_failure_flag_pass_when_declared() -> None:
    case = LOOP["loop.events"]
    profile = profile_for(case.id, event_errors=False)
    run_case(case, _NoFailureFlagInEvents.from_profile(profile), profile)
    profile = profile_for(case.id)
    with pytest.raises(ConformanceFailure) as exc:
        run_case(case, _NoFailureFlagInEvents.from_profile(profile), profile)
    assert exc.value.clause == "loop.events"
    # what the flag cannot excuse: failed calls left out of the client's view
    profile = profile_for(case.id, event_errors=False)
    with pytest.raises(ConformanceFailure) as exc:
        run_case(case, c.ReportsSuccessesOnly.from_profile(profile), profile)
    assert exc.value.clause == "loop.events"


class _RetryingExecutor:
    """Runs a call again, once, when it fails retryably: the loop retries internally."""

    def __init__(self, executor: Any) -> None:
        self.executor = executor

    def run(self, name: str, arguments: Any = None, *, call_id: Any = None) -> str:
        try:
            return self.executor.run(name, arguments, call_id=call_id)
        except ToolError as exc:
            if not exc.retryable or exc.kind != "execution":
                raise
            return self.executor.run(name, arguments, call_id=call_id)

    async def arun(self, name: str, arguments: Any = None, *, call_id: Any = None) -> str:
        try:
            return await self.executor.arun(name, arguments, call_id=call_id)
        except ToolError as exc:
            if not exc.retryable or exc.kind != "execution":
                raise
            return await self.executor.arun(name, arguments, call_id=call_id)


class _RetriesToolsInternally(ReferenceToolLoop):
    def new_state(self, request: Any) -> Any:
        request.executor = _RetryingExecutor(request.executor)
        return super().new_state(request)


@pytest.mark.parametrize("case_id", ["loop.retryable_failure_continues", "loop.mixed_batch",
                                     "loop.all_failure_rounds", "loop.sanitised_failures"])
def test_a_loop_that_retries_a_failed_tool_itself_passes(case_id: str) -> None:
    """What the model is told is the last attempt's outcome (issue 15: a loop that retries a
    retryable tool failure internally was failed)."""
    profile = profile_for(case_id)
    for run in run_case(LOOP[case_id], _RetriesToolsInternally.from_profile(profile), profile):
        if case_id == "loop.retryable_failure_continues":  # fail, then its retry succeeds
            assert [e.outcome for e in run.executor.executions][:2] == ["failed", "ok"]


def test_an_unknown_tool_may_end_the_run_when_declared() -> None:
    """unknown_tool_policy="abort" (openai-agents' default tool_not_found_behavior) makes
    stopping with 'error' honest; undeclared it stays a failure, and a loop declaring it that
    feeds the error back instead is failed on the stop reason."""
    case = LOOP["loop.unknown_tool"]
    declared = profile_for(case.id, unknown_tool_policy="abort")
    run_case(case, c.UnknownToolStopsTheLoop.from_profile(declared), declared)
    with pytest.raises(ConformanceFailure) as exc:
        run_case(case, ReferenceToolLoop.from_profile(declared), declared)
    assert exc.value.clause == "loop.stop_reason"


def test_the_error_flag_is_read_behind_the_fake_where_the_wire_has_one() -> None:
    """loop.failure_flagged behind the fake: Anthropic's tool_result.is_error and Gemini's
    response.error carry the flag, and a crash answered as a success fails there; the openai
    wire has no flag, so a loop cannot be held to it."""
    case = LOOP["loop.sanitised_failures"]
    profile = profile_for(case.id)
    for dialect in ("anthropic", "gemini"):
        run_case(case, ReferenceToolLoop.from_profile(profile), profile, loop_model="fake",
                 dialect=dialect)
        with pytest.raises(ConformanceFailure) as exc:
            run_case(case, c.CrashAnsweredAsSuccess.from_profile(profile), profile,
                     loop_model="fake", dialect=dialect)
        assert exc.value.clause == "loop.failure_flagged", exc.value.render()
    # on openai the flag is not demanded; the client's events still say the call failed
    with pytest.raises(ConformanceFailure) as exc:
        run_case(case, c.CrashAnsweredAsSuccess.from_profile(profile), profile,
                 loop_model="fake", dialect="openai")
    assert exc.value.clause == "loop.events", exc.value.render()
    quiet = profile_for(case.id, loop_events=False)
    run_case(case, c.CrashAnsweredAsSuccess.from_profile(quiet), quiet, loop_model="fake",
             dialect="openai")


def test_behind_a_fake_that_mints_its_own_ids_the_results_are_found_by_the_sent_ids() -> None:
    """Mistral's fake sends its own 9-character id for a scripted ``call_1`` (its id format):
    the loop's results carry that id, and the checks look for it (LoopRun.sent_ids). Before,
    they looked for ``call_1`` and failed a correct loop on loop.failure_fed_back; a loop that
    drops a failed call's result still fails there."""
    case = LOOP["loop.mixed_batch"]
    profile = profile_for(case.id)
    run_case(case, ReferenceToolLoop.from_profile(profile), profile, loop_model="fake",
             dialect="mistral")
    with pytest.raises(ConformanceFailure) as exc:
        run_case(case, c.DropsFailedCallsFromMixedBatch.from_profile(profile), profile,
                 loop_model="fake", dialect="mistral")
    assert exc.value.clause == "loop.failure_fed_back", exc.value.render()
    script = case.loop(profile) if callable(case.loop) else case.loop
    scripted = [call.id for call in script.turns[0].tool_calls]
    assert not set(scripted) & set(exc.value.expected)  # the ids the fake sent

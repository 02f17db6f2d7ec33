"""Every conformance case has a negative control: a broken adapter it must fail, on the right clause.

A case that a realistic bug can pass is a case that proves nothing; a case that fails it on the
wrong clause sends the user to the wrong place. Each row of :data:`CONTROLS` is one bug (a class
in ``tests/controls.py``), the case that must catch it, and the exact clause it must name. The
reference adapter passes every case (positive control), and every case id has a row.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_toolcall.cases import Registry, default_registry
from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.providers.fake.provider import Endpoint
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter
from pytest_toolcall.run.runner import run_case

import controls as c  # tests/controls.py (tests/ is on sys.path, like tests/corpus.py)

#: (case id, broken adapter, the clause the case must name)
CONTROLS: list[tuple[str, type[OpenAIChatAdapter], str]] = [
    # -- wire: the request -----------------------------------------------------------------
    ("wire.tool_definitions_intact", c.DropsDescriptions, "wire.tools.intact"),
    ("wire.tool_definitions_intact", c.DropsSchemaKeywords, "wire.tools.intact"),
    ("wire.strict_tool_intact", c.DropsStrict, "wire.tools.intact"),
    ("wire.parallel_tool_calls_without_tools", c.ParallelFlagWithoutTools,
     "request.parallel_tool_calls.without_tools"),
    ("wire.tool_choice_auto", c.NeverSendsToolChoice, "wire.tool_choice"),
    ("wire.tool_choice_none", c.NeverSendsToolChoice, "wire.tool_choice"),
    ("wire.tool_choice_none", c.AlwaysAuto, "wire.tool_choice"),
    ("wire.tool_choice_required", c.AlwaysAuto, "wire.tool_choice"),
    ("wire.tool_choice_required", c.ToolChoiceAnthropicSpelling, "request.tool_choice.value"),
    ("wire.tool_choice_named", c.NeverSendsToolChoice, "wire.tool_choice"),
    ("wire.tool_choice_named", c.ToolChoiceAsPlainName, "request.tool_choice.value"),
    ("wire.parallel_tool_calls_false", c.DropsParallelToolCalls, "wire.parallel_tool_calls"),
    ("wire.parallel_tool_calls_false", c.ParallelToolCallsTruthy, "wire.parallel_tool_calls"),
    # -- wire: reading the answer ------------------------------------------------------------
    ("wire.single_call", c.DropsCallIds, "response.tool_calls.id"),
    ("wire.single_call", c.ArgumentsFromFlatShape, "response.tool_calls.arguments"),
    ("wire.single_call", c.FinishAlwaysStop, "response.finish_reason"),
    ("wire.single_call", c.CompleteAsksForStream, "adapter.raised"),
    ("wire.parallel_calls", c.KeysCallsByName, "response.tool_calls.count"),
    ("wire.parallel_calls", c.FirstCallOnly, "response.tool_calls.count"),
    ("wire.parallel_calls", c.CallsSortedByName, "response.tool_calls.id"),
    ("wire.text_and_calls", c.ContentOrToolCalls, "response.text"),
    ("wire.text_only", c.ReadsLegacyText, "response.text"),
    ("wire.zero_args_empty_string", c.UnguardedJsonLoads, "adapter.raised"),
    ("wire.zero_args_empty_string", c.EmptyStringIsParseError, "response.tool_calls.arguments"),
    ("wire.zero_args_empty_string", c.ReplaysRawArguments, "wire.replay.arguments_json"),
    ("wire.zero_args_null", c.UnguardedJsonLoads, "adapter.raised"),
    ("wire.zero_args_null", c.EmptyArgumentsAsEmptyString, "wire.replay.arguments_json"),
    # null replayed as null: OpenAI itself refuses the request
    ("wire.zero_args_null", c.ReplaysRawArguments, "request.type"),
    ("wire.zero_args_empty_object", c.EmptyObjectIsMissing, "response.tool_calls.arguments"),
    ("wire.zero_args_empty_object", c.EmptyArgumentsAsEmptyString, "wire.replay.arguments_json"),
    ("wire.non_ascii_arguments", c.ReplaysAsciiEscaped, "wire.replay.non_ascii"),
    ("wire.non_ascii_arguments", c.DecodesLatin1, "response.tool_calls.arguments"),
    ("wire.malformed_arguments", c.UnguardedJsonLoads, "adapter.raised"),
    ("wire.malformed_arguments", c.MalformedBecomesEmpty, "response.tool_calls.parse_error"),
    ("wire.malformed_arguments", c.ParseErrorLosesRawText, "response.tool_calls.raw_arguments"),
    ("wire.usage", c.IgnoresUsage, "response.usage"),
    ("wire.usage", c.SwapsUsage, "response.usage"),
    # -- wire: the second turn -----------------------------------------------------------------
    ("wire.second_turn_passthrough", c.ReplaysNamespacedName, "wire.history.tool_calls"),
    ("wire.second_turn_passthrough", c.ToolResultsJsonEncoded, "wire.history.tool_results"),
    ("wire.second_turn_passthrough", c.ToolResultsReversed, "wire.history.tool_results"),
    ("wire.second_turn_passthrough", c.DropsToolResults,
     "request.messages.tool_calls.unanswered"),
    ("wire.second_turn_passthrough", c.DropsAssistantToolCalls, "request.messages.tool.orphan"),
    # -- wire: errors ------------------------------------------------------------------------
    ("wire.provider_error", c.SwallowsErrorBody, "error.surfaced"),
    ("wire.provider_error", c.GenericErrorMessage, "error.message"),
    ("wire.provider_error", c.RaiseForStatus, "error.message"),
    ("wire.provider_error", c.KeyErrorOnErrorBody, "error.typed"),
    ("wire.provider_error", c.ErrorAsText, "error.surfaced"),
    ("wire.provider_error", c.RetriesOnError, "request.count"),
    # -- errors: what a retrying caller reads (issue 12) ---------------------------------------
    ("errors.rate_limited", c.NoRetryAfter, "errors.retry_after"),
    ("errors.rate_limited", c.NeverRetryable, "errors.retryable"),
    ("errors.rate_limited", c.StatusLost, "errors.status"),
    ("errors.rate_limited_stream", c.StreamLosesRetryAfter, "errors.retry_after"),
    ("errors.quota_exhausted", c.RetryableByStatusOnly, "errors.retryable"),
    ("errors.auth_invalid", c.EveryErrorRetryable, "errors.retryable"),
    ("errors.permission_denied", c.EveryErrorRetryable, "errors.retryable"),
    ("errors.model_not_found", c.EveryErrorRetryable, "errors.retryable"),
    ("errors.model_not_found", c.StatusLost, "errors.status"),
    ("errors.context_length", c.DropsErrorCode, "errors.type"),
    ("errors.context_length", c.EveryErrorRetryable, "errors.retryable"),
    ("errors.server_error", c.NeverRetryable, "errors.retryable"),
    ("errors.server_error", c.StatusLost, "errors.status"),
    ("errors.overloaded", c.NeverRetryable, "errors.retryable"),
    ("errors.gateway_html", c.StatusLost, "errors.status"),
    ("errors.gateway_html", c.JsonDecodesEveryErrorBody, "error.typed"),
    ("errors.in_stream", c.StreamErrorFinal, "errors.retryable"),
    ("errors.in_stream", c.StreamErrorUntyped, "errors.type"),
    ("errors.connection_refused", c.EmptyAnswerWhenUnreachable, "error.surfaced"),
    ("errors.connection_reset", c.ReturnsPartialOnReset, "error.surfaced"),
    ("errors.connection_reset", c.ResetIsFinal, "errors.retryable"),
    ("errors.stream_cancelled", c.LeaksStream, "stream.closed"),
    ("errors.stream_stalled", c.ReturnsPartialOnReset, "error.surfaced"),
    # -- stream: fragments ---------------------------------------------------------------------
    ("stream.single_call_fragmented", c.OverwritesArguments, "response.tool_calls.arguments"),
    ("stream.single_call_fragmented", c.StreamWithoutStreamFlag, "stream.requested"),
    ("stream.text_fragmented", c.StreamDropsText, "response.text"),
    ("stream.text_fragmented", c.StripsTextDeltas, "response.text"),
    ("stream.text_fragmented", c.NoStreamDone, "stream.done_last"),
    ("stream.text_fragmented", c.TwoStreamDones, "stream.done_last"),
    ("stream.parallel_sequential", c.OneCallPerStream, "response.tool_calls.count"),
    ("stream.parallel_sequential", c.StreamKeysCallsByName, "response.tool_calls.count"),
    ("stream.parallel_sequential", c.RetriesStream, "request.count"),
    ("stream.parallel_interleaved", c.AppendsToCurrentCall, "response.tool_calls.arguments"),
    ("stream.parallel_interleaved", c.OneCallPerStream, "response.tool_calls.count"),
    ("stream.id_name_once", c.ExpectsIdOnEveryChunk, "adapter.raised"),
    ("stream.id_name_once", c.DropsFragmentsWithoutId, "response.tool_calls.arguments"),
    ("stream.id_name_once", c.LastNameWins, "response.tool_calls.name"),
    ("stream.call_in_role_chunk", c.SkipsRoleChunk, "response.tool_calls.id"),
    ("stream.sse_data_without_space", c.FixedDataPrefix, "adapter.raised"),
    ("stream.sse_comment_lines", c.BreaksOnSseComments, "adapter.raised"),
    ("stream.index_stuck_at_zero", c.DeltaIndexIsProviderIndex, "stream.deltas"),
    ("stream.single_call_fragmented", c.DeltasWithoutArguments, "stream.deltas"),
    ("wire.error_not_json", c.JsonDecodesEveryErrorBody, "error.typed"),
    ("wire.malformed_success", c.IndexesStraightIntoTheAnswer, "error.typed"),
    ("wire.malformed_success", c.MalformedAnswerWithoutDetail, "error.message"),
    ("wire.error_not_json", c.ErrorPageWithoutItsWords, "error.message"),
    ("wire.unknown_finish_reason", c.FinishReasonDictLookup, "adapter.raised"),
    ("wire.unknown_finish_reason", c.UnknownFinishIsStop, "response.finish_reason"),
    ("wire.assistant_text_replayed", c.DropsTextOnlyAssistant, "wire.history.messages"),
    # -- wire: the conversation (issue 12) -----------------------------------------------------
    ("wire.system_prompt", c.SystemAsUser, "wire.messages.system"),
    ("wire.system_prompt", c.DropsSystemMessages, "wire.messages.system"),
    ("wire.system_prompts_several", c.MergesSystemMessages, "wire.messages.system"),
    ("wire.system_prompts_several", c.DropsSystemMessages, "wire.messages.system"),
    ("wire.developer_message", c.DeveloperAsUser, "wire.messages.system"),
    ("wire.developer_message", c.SystemAsUser, "wire.messages.system"),
    ("wire.assistant_text_with_calls_replayed", c.DropsTextWithToolCalls,
     "wire.history.messages"),
    ("wire.foreign_history", c.RemintsForeignIdsOnCalls, "request.messages.tool.unknown_id"),
    ("stream.id_name_repeated", c.ConcatenatesIdAndName, "response.tool_calls.id"),
    ("stream.id_name_repeated", c.ConcatenatesName, "response.tool_calls.name"),
    ("stream.id_name_repeated", c.IdStartsNewCall, "response.tool_calls.count"),
    ("stream.index_stuck_at_zero", c.KeysOnIndexOnly, "response.tool_calls.count"),
    ("stream.index_missing", c.IndexRequired, "adapter.raised"),
    ("stream.index_missing", c.KeysOnIndexOnly, "response.tool_calls.count"),
    # -- stream: bytes -------------------------------------------------------------------------
    ("stream.oversized_line", c.LineBufferLimit, "adapter.raised"),
    ("stream.unicode_line_separators", c.SplitsLinesLikeStr, "adapter.raised"),
    ("stream.bytewise", c.DecodesEachRead, "adapter.raised"),
    ("stream.bytewise", c.ReadIsWholeLines, "adapter.raised"),
    ("stream.any_chunking", c.ReadIsWholeLines, "adapter.raised"),
    ("stream.any_chunking", c.DecodesEachRead, "adapter.raised"),
    # -- stream: arguments -----------------------------------------------------------------------
    ("stream.zero_args", c.CompletesOnlyCallsWithArguments, "response.tool_calls.count"),
    ("stream.zero_args", c.StreamUnguardedJsonLoads, "adapter.raised"),
    ("stream.zero_args", c.ReplaysRawArguments, "wire.replay.arguments_json"),
    ("stream.zero_args_null", c.CompletesOnlyCallsWithArguments, "response.tool_calls.count"),
    ("stream.zero_args_null", c.JoinsNullArguments, "adapter.raised"),
    ("stream.malformed_arguments", c.StreamUnguardedJsonLoads, "adapter.raised"),
    ("stream.malformed_arguments", c.StreamMalformedBecomesEmpty,
     "response.tool_calls.parse_error"),
    # -- stream: errors and endings ------------------------------------------------------------
    ("stream.mid_stream_error", c.IgnoresErrorEvent, "error.message"),
    ("stream.mid_stream_error", c.IndexesFirstChoice, "error.typed"),
    ("stream.truncated", c.NoDoneCheck, "error.surfaced"),
    ("stream.truncated", c.AssertsDone, "error.typed"),
    ("stream.provider_error", c.StreamNoStatusCheck, "error.message"),
    ("stream.provider_error", c.RaiseForStatus, "error.message"),
    ("stream.usage_chunk", c.IndexesFirstChoice, "adapter.raised"),
    ("stream.usage_chunk", c.StreamIgnoresUsage, "response.usage"),
    ("stream.usage_chunk", c.NoIncludeUsage, "response.usage"),
    ("stream.usage_chunk", c.IgnoresUsage, "response.usage"),
    ("stream.same_as_complete", c.StreamDropsFinishReason, "stream.same_as_complete"),
    ("stream.same_as_complete", c.StreamDropsText, "stream.same_as_complete"),
    # usage is compared by no other check of this case: only the comparison catches it
    ("stream.same_as_complete", c.StreamIgnoresUsage, "stream.same_as_complete"),
]

#: Bugs in the async path only: the sync interface passes, the async one must fail.
ASYNC_CONTROLS: list[tuple[str, type[OpenAIChatAdapter], str]] = [
    ("wire.provider_error", c.AsyncGenericErrorMessage, "error.message"),
    ("wire.usage", c.AsyncIgnoresUsage, "response.usage"),
    ("wire.parallel_calls", c.AsyncKeysCallsByName, "response.tool_calls.count"),
    ("stream.single_call_fragmented", c.AsyncStreamWithoutFlag, "stream.requested"),
    ("stream.bytewise", c.AsyncDecodesEachRead, "adapter.raised"),
    ("stream.any_chunking", c.AsyncDecodesEachRead, "adapter.raised"),
    ("stream.unicode_line_separators", c.AsyncSplitsLinesLikeStr, "adapter.raised"),
    ("stream.truncated", c.AsyncNoDoneCheck, "error.surfaced"),
    ("stream.same_as_complete", c.AsyncStreamDropsText, "stream.same_as_complete"),
]

# chat cases only: the loop and history cases have their controls in
# tests/test_loop_negative_controls.py
#: the controls and the reference are meant for any OpenAI-compatible server: the quirk cases
#: (which the bare openai wire plays only for such a profile) run too
ANY_SERVER = Profile(compatible_with={"*"})

REGISTRY = Registry()
REGISTRY.extend(case for case in default_registry()
                if case.contract == "chat" and case.applies_to("openai"))


def _id(row: tuple[str, type, str]) -> str:
    return f"{row[0]}-{row[1].__name__}"


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    ep = in_process_endpoint(FakeProvider("openai"))
    yield ep
    ep.close()


@pytest.mark.parametrize(("case_id", "broken", "clause"), CONTROLS, ids=map(_id, CONTROLS))
def test_case_fails_its_negative_control(case_id: str, broken: type[OpenAIChatAdapter],
                                         clause: str, endpoint: Endpoint) -> None:
    with pytest.raises(ConformanceFailure) as exc:
        run_case(REGISTRY[case_id], broken.from_endpoint(endpoint), ANY_SERVER, endpoint)
    assert exc.value.clause == clause, exc.value.render()
    assert exc.value.case_id == case_id
    # the bug is in a path both interfaces share, so the first interface run already fails
    assert exc.value.interface == "sync"


@pytest.mark.parametrize(("case_id", "broken", "clause"), ASYNC_CONTROLS,
                         ids=map(_id, ASYNC_CONTROLS))
def test_async_path_is_checked_on_its_own(case_id: str, broken: type[OpenAIChatAdapter],
                                          clause: str, endpoint: Endpoint) -> None:
    adapter = broken.from_endpoint(endpoint)
    # the sync path of the control is the reference's: it passes
    runs = run_case(REGISTRY[case_id], adapter, ANY_SERVER, endpoint, interfaces=["sync"])
    assert [run.interface for run in runs] == ["sync"]
    with pytest.raises(ConformanceFailure) as exc:
        run_case(REGISTRY[case_id], adapter, ANY_SERVER, endpoint)
    assert exc.value.clause == clause, exc.value.render()
    assert exc.value.interface == "async"


@pytest.mark.parametrize("case_id", sorted(case.id for case in REGISTRY))
def test_reference_adapter_passes(case_id: str, endpoint: Endpoint) -> None:
    case = REGISTRY[case_id]
    runs = run_case(case, OpenAIChatAdapter.from_endpoint(endpoint), ANY_SERVER, endpoint)
    assert [run.interface for run in runs] == ["sync", "async"]
    for run in runs:
        assert len(run.steps) == len(case.steps)
        for record in run.steps:
            assert len(record.exchanges) == 1
            if record.step.expect == "error":
                assert record.error is not None and record.response is None
            else:
                assert record.error is None and record.response is not None


def test_every_case_has_a_negative_control() -> None:
    covered = {case_id for case_id, _, _ in CONTROLS}
    missing = sorted({case.id for case in REGISTRY} - covered)
    assert not missing, f"cases without a negative control in CONTROLS: {missing}"


def test_every_control_names_a_real_case() -> None:
    known = {case.id for case in REGISTRY}
    unknown = sorted({case_id for case_id, _, _ in CONTROLS + ASYNC_CONTROLS} - known)
    assert not unknown, f"controls for cases that do not exist: {unknown}"


def test_every_broken_adapter_is_used() -> None:
    used = {broken.__name__ for _, broken, _ in CONTROLS + ASYNC_CONTROLS}
    assert sorted(set(c.__all__) - used) == []


def test_controls_are_documented_and_async_ones_break_only_async() -> None:
    for name in c.__all__:
        broken = getattr(c, name)
        assert (broken.__doc__ or "").strip(), f"{name} has no docstring naming its bug"
        own = {m for m in ("complete", "acomplete", "stream", "astream") if m in vars(broken)}
        if name.startswith("Async"):
            assert own <= {"acomplete", "astream"} and own, name
        else:
            assert not own & {"acomplete", "astream"}, name

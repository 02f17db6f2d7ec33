"""Every openai-responses case fails a small broken adapter, on the right clause; the reference
Responses adapter passes every case of the dialect (shared and specific)."""

from __future__ import annotations

from collections.abc import Iterator

import controls_openai_responses as c  # tests/ is on sys.path
import pytest

from pytest_toolcall.cases import default_registry
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.providers.fake.provider import Endpoint
from pytest_toolcall.reference import reference_profile
from pytest_toolcall.providers.openai_responses.reference import OpenAIResponsesAdapter
from pytest_toolcall.run.runner import run_case

DIALECT = "openai-responses"

CONTROLS: list[tuple[str, type[OpenAIResponsesAdapter], str]] = [
    # issue 13: reasoning items travel with the calls they preceded
    ("wire.responses_reasoning_replayed", c.DropsReasoningItems,
     "request.input.function_call.reasoning"),
    ("wire.responses_reasoning_replayed", c.ReasoningAfterCalls,
     "request.input.function_call.reasoning"),
    ("wire.responses_reasoning_replayed", c.EditsReasoningSummary, "wire.reasoning.replayed"),
    ("wire.responses_reasoning_replayed", c.IgnoresReasoningItems, "response.reasoning"),
    ("stream.responses_reasoning_replayed", c.StreamSkipsReasoningItems, "response.reasoning"),
    ("stream.responses_reasoning_replayed", c.DropsReasoningItems,
     "request.input.function_call.reasoning"),
    ("stream.responses_arguments_in_done_only", c.ArgumentsFromDeltasOnly,
     "response.tool_calls.arguments"),
    ("wire.responses_call_id_not_item_id", c.ItemIdAsCallId, "response.tool_calls.id"),
    ("wire.responses_call_id_not_item_id", c.ReplaysCallIdAsItemId,
     "request.input.function_call.id_prefix"),
    ("wire.responses_call_id_not_item_id", c.ReplaysWrongItemId, "wire.responses.item_id"),
    ("wire.responses_call_id_not_item_id", c.OutputKeyedByItemId,
     "request.input.function_call_output.orphan"),
    ("stream.responses_call_id_from_item", c.CallIdFromFragments, "response.tool_calls.id"),
    ("stream.responses_call_id_from_item", c.StreamItemIdAsCallId, "response.tool_calls.id"),
    ("stream.responses_call_id_from_item", c.ReplaysWrongItemId, "wire.responses.item_id"),
    ("wire.responses_every_call_answered", c.DropsFunctionCallOutputs,
     "request.input.function_call.unanswered"),
    ("wire.responses_every_call_answered", c.TextTurnDropsCalls,
     "request.input.function_call_output.orphan"),
    ("wire.responses_every_call_answered", c.OutputKeyedByItemId,
     "request.input.function_call_output.orphan"),
    ("stream.responses_output_index", c.OutputIndexAsCallPosition, "adapter.raised"),
    ("stream.responses_usage_from_completed", c.FirstResponseWins, "response.usage"),
    ("stream.responses_no_completed", c.EndsOnLastItemDone, "error.surfaced"),
    ("stream.responses_failed_event", c.IgnoresFailedEvent, "error.surfaced"),
    # WIRE.md §6 on shared cases: litellm #21331, every parallel call on output_index 0
    ("stream.index_stuck_at_zero", c.KeysOnOutputIndexOnly, "response.tool_calls.count"),
    # -- messages (issue 12) -----------------------------------------------------------------
    ("wire.system_prompt", c.SystemAsUserItem, "wire.messages.system"),
    # a call from another provider has no fc_ item id; its call id is not one
    ("wire.foreign_history", c.ReplaysCallIdAsItemId, "request.input.function_call.id_prefix"),
    ("wire.developer_message", c.SystemAsUserItem, "wire.messages.system"),
    ("wire.system_prompts_several", c.AllSystemIntoInstructions, "wire.messages.system"),
    ("wire.assistant_text_with_calls_replayed", c.DropsTextNextToCalls,
     "wire.history.messages"),
]


def _id(row: tuple[str, type, str]) -> str:
    return f"{row[0]}-{row[1].__name__}"


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    ep = in_process_endpoint(FakeProvider(DIALECT))
    yield ep
    ep.close()


@pytest.mark.parametrize(("case_id", "broken", "clause"), CONTROLS, ids=map(_id, CONTROLS))
def test_case_fails_its_negative_control(case_id: str, broken: type[OpenAIResponsesAdapter],
                                         clause: str, endpoint: Endpoint) -> None:
    with pytest.raises(ConformanceFailure) as exc:
        run_case(default_registry()[case_id], broken.from_endpoint(endpoint),
                 reference_profile(DIALECT), endpoint)
    assert exc.value.clause == clause, exc.value.render()
    assert exc.value.case_id == case_id
    assert exc.value.interface == "sync"


@pytest.mark.parametrize("case_id", sorted(
    case.id for case in default_registry().select(dialect=DIALECT) if case.contract == "chat"))
def test_reference_adapter_passes(case_id: str, endpoint: Endpoint) -> None:
    case = default_registry()[case_id]
    runs = run_case(case, OpenAIResponsesAdapter.from_endpoint(endpoint),
                    reference_profile(DIALECT), endpoint)
    assert [run.interface for run in runs] == ["sync", "async"]
    for run in runs:
        for record in run.steps:
            assert len(record.exchanges) == 1 and record.exchanges[0].rejection is None
            if record.step.expect == "error":
                assert record.error is not None and record.response is None
            else:
                assert record.error is None and record.response is not None


def test_every_dialect_case_has_a_negative_control() -> None:
    own = {case.id for case in default_registry() if case.dialects == (DIALECT,)}
    assert len(own) == 10  # + the two reasoning cases of issue 13
    assert sorted(own - {case_id for case_id, _, _ in CONTROLS}) == []


def test_every_control_is_used_and_documented() -> None:
    used = {broken.__name__ for _, broken, _ in CONTROLS}
    assert sorted(set(c.__all__) - used) == []
    for name in c.__all__:
        assert (getattr(c, name).__doc__ or "").strip(), name


def test_the_shared_text_argument_cases_that_apply_run_for_the_dialect() -> None:
    ids = {case.id for case in default_registry().select(dialect=DIALECT)}
    assert {"wire.zero_args_empty_string", "wire.malformed_arguments", "stream.zero_args",
            "stream.parallel_interleaved", "stream.index_stuck_at_zero",
            "stream.index_missing", "stream.id_name_once"} <= ids
    # chat-completions-only mechanisms: null arguments, repeated id/name, the role chunk
    assert not {"stream.id_name_repeated", "stream.call_in_role_chunk",
                "stream.usage_chunk", "wire.zero_args_null"} & ids

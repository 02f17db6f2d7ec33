"""Every Gemini case fails a broken adapter on the right clause; the reference passes every case
that applies to Gemini (shared ones included), also when it is wired to ``/v1``."""

from __future__ import annotations

from collections.abc import Iterator

import controls_gemini as c  # tests/ is on sys.path
import pytest

from pytest_toolcall.cases import Registry, default_registry
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.providers.fake.provider import Endpoint
from pytest_toolcall.reference import reference_profile
from pytest_toolcall.providers.gemini.reference import GeminiAdapter
from pytest_toolcall.run.runner import CaseSkipped, run_case

#: (case id, broken adapter, the clause the case must name)
CONTROLS: list[tuple[str, type[GeminiAdapter], str]] = [
    ("wire.gemini_calls_without_ids", c.NameAsId, "response.tool_calls.id_unique"),
    ("wire.gemini_calls_without_ids", c.NoIdMadeUp, "response.tool_calls.id_unique"),
    ("wire.gemini_id_less_results_paired", c.PairsByIdOnly,
     "request.messages.function_response.name"),
    # no functionResponse at all: every call of the turn goes back unanswered
    ("wire.gemini_id_less_results_paired", c.ResultsLeftOut, "wire.gemini.results_paired"),
    ("wire.gemini_ids_and_signature_echoed", c.DropsCallIdsOnReplay, "wire.gemini.ids_echoed"),
    ("wire.gemini_ids_and_signature_echoed", c.DropsThoughtSignature,
     "wire.gemini.thought_signature"),
    ("stream.gemini_signature_echoed", c.StreamForgetsSignature,
     "wire.gemini.thought_signature"),
    ("stream.gemini_signature_echoed", c.DropsCallIdsOnReplay, "wire.gemini.ids_echoed"),
    ("wire.gemini_one_response_turn", c.OneTurnPerResult,
     "request.messages.function_response.count"),
    ("wire.gemini_one_response_turn", c.ResultsAsToolRole, "request.messages.role"),
    ("wire.gemini_stop_with_calls", c.StopIsStop, "response.finish_reason"),
    ("wire.gemini_stop_with_calls", c.UnknownFinishIsStop, "response.finish_reason"),
    ("stream.gemini_calls_in_one_chunk", c.FirstFunctionCallPartOnly,
     "response.tool_calls.count"),
    ("stream.gemini_one_call_per_chunk", c.LastChunkCallsWin, "response.tool_calls.count"),
    ("stream.gemini_finish_on_last_chunk", c.FinishChunkEndsStream,
     "response.tool_calls.count"),
    ("wire.gemini_calls_without_signature", c.RequiresThoughtSignature, "adapter.raised"),
    ("stream.gemini_crlf_events", c.SplitsEventsOnLfLf, "adapter.raised"),
    # the cut inside "data: " loses the first event silently: its text is missing
    ("stream.gemini_crlf_events", c.ParsesEachRead, "response.text"),
    # the same bugs caught by shared cases, as Gemini sends them
    ("wire.second_turn_passthrough", c.OneTurnPerResult,
     "request.messages.function_response.count"),
    ("stream.parallel_sequential", c.FirstFunctionCallPartOnly, "response.tool_calls.count"),
    ("stream.bytewise", c.ParsesEachRead, "adapter.raised"),
    ("errors.rate_limited", c.RetryDelayFromHeadersOnly, "errors.retry_after"),
    # -- messages (issue 12) -----------------------------------------------------------------
    ("wire.system_prompt", c.SystemAsUserTurn, "wire.messages.system"),
    ("wire.system_prompts_several", c.KeepsFirstSystemOnly, "wire.messages.system"),
    ("wire.developer_message", c.KeepsFirstSystemOnly, "wire.messages.system"),
    ("wire.assistant_text_with_calls_replayed", c.DropsTextNextToCalls,
     "wire.history.messages"),
]

REGISTRY = Registry()
REGISTRY.extend(case for case in default_registry() if case.contract == "chat")
GEMINI_CASES = sorted(case.id for case in REGISTRY.select(dialect="gemini"))
OWN_CASES = sorted(case.id for case in REGISTRY if case.dialects == ("gemini",))
PROFILE = reference_profile("gemini")


def _id(row: tuple[str, type, str]) -> str:
    return f"{row[0]}-{row[1].__name__}"


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    ep = in_process_endpoint(FakeProvider("gemini"))
    yield ep
    ep.close()


@pytest.mark.parametrize(("case_id", "broken", "clause"), CONTROLS, ids=map(_id, CONTROLS))
def test_case_fails_its_negative_control(case_id: str, broken: type[GeminiAdapter],
                                         clause: str, endpoint: Endpoint) -> None:
    with pytest.raises(ConformanceFailure) as exc:
        run_case(REGISTRY[case_id], broken.from_endpoint(endpoint), PROFILE, endpoint)
    assert exc.value.clause == clause, exc.value.render()
    assert exc.value.case_id == case_id


@pytest.mark.parametrize("case_id", GEMINI_CASES)
def test_reference_adapter_passes(case_id: str, endpoint: Endpoint) -> None:
    case = REGISTRY[case_id]
    if "parallel_tool_calls" in case.needs:  # Gemini has no such switch: the profile says so
        with pytest.raises(CaseSkipped, match="parallel_tool_calls"):
            run_case(case, GeminiAdapter.from_endpoint(endpoint), PROFILE, endpoint)
        return
    runs = run_case(case, GeminiAdapter.from_endpoint(endpoint), PROFILE, endpoint)
    assert [run.interface for run in runs] == ["sync", "async"]
    for run in runs:
        for record in run.steps:
            assert len(record.exchanges) == 1
            assert record.exchanges[0].path.startswith("/v1beta/models/gemini-2.5-flash:")


@pytest.mark.parametrize("case_id", ["wire.second_turn_passthrough", "stream.parallel_sequential",
                                     "wire.gemini_ids_and_signature_echoed"])
def test_reference_adapter_passes_on_v1(case_id: str) -> None:
    """Recent google-genai clients call /v1: the fake routes it like /v1beta."""
    fake = FakeProvider("gemini")
    ep = in_process_endpoint(fake)
    ep.base_url = ep.base_url.replace("/v1beta", "/v1")
    run_case(REGISTRY[case_id], GeminiAdapter.from_endpoint(ep), PROFILE, ep)
    assert fake.exchanges and all(e.path.startswith("/v1/models/") for e in fake.exchanges)


def test_every_gemini_case_has_a_negative_control() -> None:
    covered = {case_id for case_id, _, _ in CONTROLS}
    assert OWN_CASES, "no Gemini-specific cases were collected"
    assert sorted(set(OWN_CASES) - covered) == []


def test_every_control_is_used_and_documented() -> None:
    used = {broken.__name__ for _, broken, _ in CONTROLS}
    assert sorted(set(c.__all__) - used) == []
    for name in c.__all__:
        assert (getattr(c, name).__doc__ or "").strip(), name


def test_shared_text_argument_cases_do_not_apply() -> None:
    """Gemini arguments are objects: the cases about argument text are not run for it."""
    assert "wire.malformed_arguments" not in GEMINI_CASES
    assert "stream.index_missing" not in GEMINI_CASES
    assert "wire.single_call" in GEMINI_CASES

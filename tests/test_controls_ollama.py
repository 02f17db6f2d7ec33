"""Negative controls for the ``ollama`` cases: each broken adapter fails its case on the right
clause; the reference adapter passes every case that applies to ``ollama`` (positive control);
every Ollama-specific case has at least one control.

The OpenAI-compatible route of the dialect is covered here too: the shared index cases, run with
the reference OpenAI adapter pointed at ``/v1`` of an Ollama fake, catch the index-only control
(ollama #15457, litellm #33678) and the index-required control (ollama #7881).
"""

from __future__ import annotations

import controls as oc  # tests/controls.py: the OpenAI controls, for the compatible route
import controls_ollama as c
import pytest

from pytest_toolcall.cases import default_registry
from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.providers.fake.provider import Endpoint
from pytest_toolcall.reference import reference_profile
from pytest_toolcall.providers.ollama.reference import OllamaAdapter
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter
from pytest_toolcall.run.runner import CaseSkipped, run_case

CONTROLS: list[tuple[str, type[OllamaAdapter], str]] = [
    ("wire.ollama_object_arguments", c.JsonLoadsArguments, "adapter.raised"),
    ("wire.ollama_object_arguments", c.ReplaysArgumentsAsString,
     "request.messages.tool_calls.arguments"),
    ("wire.ollama_calls_without_ids", c.KeepsMissingIds, "response.tool_calls.ids_unique"),
    ("wire.ollama_calls_without_ids", c.IdFromToolName, "response.tool_calls.ids_unique"),
    ("wire.ollama_tool_name_on_results", c.DropsToolName, "wire.ollama.tool_name"),
    ("wire.ollama_done_reason_stop_with_calls", c.DoneReasonVerbatim, "response.finish_reason"),
    ("stream.ollama_ndjson_split", c.DecodesEachRead, "adapter.raised"),
    ("stream.ollama_ndjson_split", c.OnlyNewlineTerminatedLines, "adapter.raised"),
    ("stream.ollama_error_line", c.IgnoresErrorLine, "error.surfaced"),
    ("stream.ollama_error_line", c.ErrorLineUnread, "error.message"),
    ("stream.ollama_index_stuck_at_zero", c.MergesCallsByIndex, "response.tool_calls.count"),
    # -- messages (issue 12) -----------------------------------------------------------------
    ("wire.developer_message", c.DeveloperRolePassedThrough, "wire.messages.system"),
    ("wire.system_prompt", c.SystemAsUser, "wire.messages.system"),
    ("wire.assistant_text_with_calls_replayed", c.DropsTextNextToCalls,
     "wire.history.messages"),
]

PROFILE = reference_profile("ollama")


def _endpoint() -> Endpoint:
    return in_process_endpoint(FakeProvider("ollama"))


@pytest.mark.parametrize(("case_id", "control", "clause"), CONTROLS,
                         ids=[f"{k}-{a.__name__}" for k, a, _ in CONTROLS])
def test_control_fails_on_clause(case_id: str, control: type[OllamaAdapter], clause: str) -> None:
    endpoint = _endpoint()
    with pytest.raises(ConformanceFailure) as info:
        run_case(default_registry()[case_id], control.from_endpoint(endpoint), PROFILE, endpoint)
    assert info.value.clause == clause, str(info.value)


def _ollama_cases() -> list[str]:
    return [case.id for case in default_registry().select(dialect="ollama")
            if case.contract == "chat"]


@pytest.mark.parametrize("case_id", _ollama_cases())
def test_reference_adapter_passes(case_id: str) -> None:
    endpoint = _endpoint()
    try:
        runs = run_case(default_registry()[case_id], OllamaAdapter.from_endpoint(endpoint),
                        PROFILE, endpoint)
    except CaseSkipped as skip:
        assert "tool_choice" in str(skip) or "parallel_tool_calls" in str(skip), str(skip)
        return
    assert runs and all(r.steps for r in runs)


def test_every_ollama_case_has_a_control() -> None:
    own = {case.id for case in default_registry() if case.dialects == ("ollama",)}
    assert own, "no ollama-specific cases were loaded"
    assert own <= {case_id for case_id, _, _ in CONTROLS}, sorted(own - {k for k, _, _ in CONTROLS})


def test_no_ids_reaches_the_adapter_as_missing() -> None:
    """The no_ids quirk really strips ids (else the ids_unique controls would prove nothing)."""
    endpoint = _endpoint()
    run_case(default_registry()["wire.ollama_calls_without_ids"],
             OllamaAdapter.from_endpoint(endpoint), PROFILE, endpoint)
    sent = endpoint.exchanges[0].response_json["message"]["tool_calls"]
    assert [call.get("id") for call in sent] == [None, None, None]


# -- the OpenAI-compatible route: shared OpenAI cases, ollama's fake --------------------------
def _compat_endpoint() -> Endpoint:
    fake = FakeProvider("ollama")
    endpoint = in_process_endpoint(fake)
    endpoint.base_url += "/v1"
    return endpoint


COMPAT = [
    ("stream.index_stuck_at_zero", oc.KeysOnIndexOnly, "response.tool_calls.count"),
    ("stream.index_missing", oc.IndexRequired, "adapter.raised"),
]


@pytest.mark.parametrize(("case_id", "control", "clause"), COMPAT,
                         ids=[f"{k}-{a.__name__}" for k, a, _ in COMPAT])
def test_compat_route_index_bugs(case_id: str, control: type[OpenAIChatAdapter],
                                 clause: str) -> None:
    case = default_registry()[case_id]
    endpoint = _compat_endpoint()
    # index_missing is Gemini's compat quirk (Ollama's before 0.4.7): a profile for any server
    profile = Profile(compatible_with={"*"})
    run_case(case, OpenAIChatAdapter.from_endpoint(endpoint), profile, endpoint)
    exchange = endpoint.exchanges[-1]
    assert exchange.path == "/v1/chat/completions" and exchange.streamed
    assert b"data: [DONE]" in exchange.response_body  # SSE, not NDJSON, on this route
    endpoint = _compat_endpoint()
    with pytest.raises(ConformanceFailure) as info:
        run_case(case, control.from_endpoint(endpoint), profile, endpoint)
    assert info.value.clause == clause, str(info.value)

"""Quirk cases run for the services that send the quirk, never for OpenAI alone (issue 13).

``--toolcall-provider=openai`` plays only what OpenAI does: a case whose stream carries a quirk of
some OpenAI-compatible service (index missing, index stuck at 0, id and name repeated, ``data:``
without a space, SSE comments) runs under the bare wire only for a profile that declares a
service sending it in ``compatible_with`` (or ``"*"``), and always in that service's own run.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_toolcall.cases import SERVICE_QUIRKS as QUIRKS, default_registry
from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.providers.fake.provider import Endpoint
from pytest_toolcall.providers import REGISTRY, quirk_senders
from pytest_toolcall.reference import reference_profile
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter
from pytest_toolcall.run.runbase import CaseSkipped
from pytest_toolcall.run.runner import run_case

QUIRK_CASES = sorted((c for c in default_registry() if c.quirk is not None), key=lambda c: c.id)


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    ep = in_process_endpoint(FakeProvider("openai"))
    yield ep
    ep.close()


def test_the_quirk_cases_are_the_ones_openai_never_sends() -> None:
    assert {c.id for c in QUIRK_CASES} == {
        "stream.index_missing", "stream.index_stuck_at_zero", "stream.id_name_repeated",
        "stream.id_name_null",
        "stream.sse_data_without_space", "stream.sse_comment_lines", "wire.zero_args_null",
        "stream.zero_args_null", "wire.unknown_finish_reason"}
    for case in QUIRK_CASES:
        # the quirk the case names is the one its stream plays, or the shape its turn scripts
        if case.quirk == "arguments_null":
            assert any(c.arguments is None for step in case.steps
                       for c in step.reply.tool_calls), case.id
        elif case.quirk == "finish_reason_unlisted":  # OpenAI's five, per its API reference
            assert any(step.reply.wire_finish_reason not in (
                None, "stop", "length", "tool_calls", "content_filter", "function_call")
                for step in case.steps), case.id
        else:
            assert any(case.quirk in step.reply.stream.quirks for step in case.steps), case.id


@pytest.mark.parametrize("case", QUIRK_CASES, ids=lambda c: c.id)
def test_an_openai_only_profile_skips_a_quirk_case_naming_who_sends_it(
        case: object, endpoint: Endpoint) -> None:
    with pytest.raises(CaseSkipped) as skip:
        run_case(case, OpenAIChatAdapter.from_endpoint(endpoint), Profile(), endpoint)
    message = str(skip.value)
    assert case.id in message and QUIRKS[case.quirk] in message  # type: ignore[attr-defined]
    assert "compatible_with" in message
    for sender in case.senders():  # type: ignore[attr-defined]
        assert repr(sender) in message
    assert not endpoint.exchanges, "a skipped case must not reach the fake"


def test_declaring_a_service_runs_its_quirks_and_only_those(endpoint: Endpoint) -> None:
    adapter = OpenAIChatAdapter.from_endpoint(endpoint)
    ran, skipped = set(), set()
    for case in QUIRK_CASES:
        try:
            run_case(case, adapter, Profile(compatible_with={"ollama"}), endpoint)
            ran.add(case.id)
        except CaseSkipped:
            skipped.add(case.id)
    assert ran == {"stream.index_stuck_at_zero"}  # ollama #15457
    assert "stream.index_missing" in skipped  # Gemini's, not Ollama's (since 0.4.7)


def test_star_runs_every_quirk_and_the_reference_passes_them(endpoint: Endpoint) -> None:
    adapter = OpenAIChatAdapter.from_endpoint(endpoint)
    for case in QUIRK_CASES:
        run_case(case, adapter, Profile(compatible_with={"*"}), endpoint)
    assert "*" in reference_profile("openai").compatible_with


def test_a_control_fails_the_quirk_once_declared(endpoint: Endpoint) -> None:
    from controls_openai import IndexRequired  # tests/providers/ is on sys.path (conftest.py)

    case = default_registry()["stream.index_missing"]
    broken = IndexRequired.from_endpoint(endpoint)
    with pytest.raises(CaseSkipped):  # an OpenAI-only adapter is not failed for it
        run_case(case, broken, Profile(), endpoint)
    with pytest.raises(ConformanceFailure) as failure:
        run_case(case, broken, Profile(compatible_with={"gemini"}), endpoint)
    assert failure.value.clause == "adapter.raised"


def test_a_service_plays_its_own_quirks_in_its_own_run() -> None:
    comments = default_registry()["stream.sse_comment_lines"]
    for service in ("deepseek", "openrouter"):
        assert comments.applies_to(service)
        assert "sse_comments" in REGISTRY[service].quirks
    assert not comments.applies_to("mistral")  # Mistral is not known to send them
    assert not comments.applies_to("anthropic")
    # Gemini's compat quirk does not run on the native Gemini wire
    assert not default_registry()["stream.index_missing"].applies_to("gemini")


def test_under_the_responses_wire_only_star_claims_a_quirk() -> None:
    endpoint = in_process_endpoint(FakeProvider("openai-responses"))
    try:
        from pytest_toolcall.providers.openai_responses.reference import OpenAIResponsesAdapter

        case = default_registry()["stream.index_stuck_at_zero"]
        adapter = OpenAIResponsesAdapter.from_endpoint(endpoint)
        with pytest.raises(CaseSkipped):
            run_case(case, adapter, Profile(compatible_with={"ollama"}), endpoint)
        run_case(case, adapter, Profile(compatible_with={"*"}), endpoint)
    finally:
        endpoint.close()


def test_every_declared_quirk_is_known_and_sourced() -> None:
    for name, provider in REGISTRY.items():
        for quirk, fact in provider.quirks.items():
            assert quirk in QUIRKS, f"{name}: unknown quirk {quirk!r}"
            assert fact.is_confirmed, f"{name}: quirk {quirk!r} needs a source and a date"
    assert quirk_senders("index_missing") and quirk_senders("sse_comments")


def test_an_unknown_compatible_service_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown services \['vlm'\]; known: .*ollama"):
        Profile(compatible_with={"vlm"})
    with pytest.raises(ValueError, match=r"write compatible_with=\{'vllm'\}"):
        Profile(compatible_with="vllm")


def test_a_case_with_an_unknown_quirk_is_refused() -> None:
    from pytest_toolcall.cases import make_case
    from pytest_toolcall.core.errors import CaseDefinitionError

    base = default_registry()["stream.index_missing"]
    with pytest.raises(CaseDefinitionError, match="unknown quirk 'index_mising'"):
        make_case(**{**dict(base), "id": "mine.typo", "quirk": "index_mising"})

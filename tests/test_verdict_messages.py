"""What a failure says (issue 28, parts 5 and 6), through the real libraries where they install.

- A provider's rejection names the field it refused, shows that field's value (a body shown
  whole was cut before it: Mistral's ``extra_forbidden`` never named ``stream_options``), and
  gets the hint of its own rule, led by the field (every ``request.*`` rejection of a family got
  the same hint; Mistral's 422 was told to "send the request body as JSON").
- A failure whose expected value is None shows it (the line was dropped).
- ``errors.retryable`` on an error inside a 200 stream hints at the error event's type or code,
  not at HTTP statuses.
- ``wire.malformed_success`` judges meaning: a typed error passes whatever its words (the
  words tested in tests/test_issue14_kit_defects.py); an answer returned as a success or a crash
  fails. A failure that is an exception records the module of the frame that raised it, so a
  pin names the library's code, never the kit's shim.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolcall import shims
from pytest_toolcall.cases import default_registry
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter
from pytest_toolcall.reference import reference_profile
from pytest_toolcall.run.checks import rejection_hint
from pytest_toolcall.run.runner import run_case

REGISTRY = default_registry()


def _openai_factory(ep: Any) -> Any:
    import openai

    return openai.OpenAI(base_url=ep.base_url, api_key=ep.api_key, http_client=ep.client,
                         max_retries=0)


def _run(case_id: str, dialect: str, make: Any) -> ConformanceFailure | None:
    """``case_id`` on ``dialect``'s fake through ``make(endpoint)``; its failure, or None."""
    ep = in_process_endpoint(FakeProvider(dialect))
    profile = reference_profile(dialect).model_copy(update={"compatible_with": frozenset()})
    try:
        run_case(REGISTRY[case_id], make(ep), profile, ep)
    except ConformanceFailure as failure:
        return failure
    finally:
        ep.close()
    return None


# -- rejections ----------------------------------------------------------------------------------

def test_a_mistral_extra_forbidden_rejection_names_the_field_and_its_hint() -> None:
    """The openai SDK, pointed at Mistral, streams with stream_options, a key Mistral's request
    model does not define: 422 extra_forbidden, whose message ('Extra inputs are not permitted')
    names no field."""
    pytest.importorskip("openai")
    failure = _run("stream.single_call_fragmented", "mistral", shims.openai(_openai_factory))
    assert failure is not None and failure.clause == "request.body.extra_forbidden", failure
    assert "(field: stream_options)" in failure.message
    assert str(failure.got).startswith("stream_options: {")
    assert failure.hint is not None and "as JSON" not in failure.hint
    assert failure.hint.startswith("the provider refused stream_options: leave the field out")


def test_each_rejection_gets_its_own_hint() -> None:
    hints = {rule: rejection_hint(rule, "openai") for rule in (
        "body.json", "body.extra_forbidden", "messages.extra_forbidden",
        "messages.tool_calls.unanswered", "tool_choice.without_tools", "tools.name.pattern")}
    assert len(set(hints.values())) == len(hints), hints
    assert "JSON" in hints["body.json"] and "JSON" not in hints["body.extra_forbidden"]
    # the field the provider named leads the hint
    assert rejection_hint("tools.name.pattern", "openai", "tools[0].function.name") \
        .startswith("the provider refused tools[0].function.name: tool names must match")


def test_an_openai_rejection_shows_the_refused_fields_value() -> None:
    """OpenAI names the field in error.param; the value shown is that field's, however long the
    body before it."""
    d = get_dialect("openai")
    body = {"model": "m", "messages": [{"role": "user", "content": "x" * 500}],
            "tools": [{"type": "function", "function": {"name": "bad name!",
                                                        "parameters": {"type": "object"}}}]}
    rejection = d.validate(body)
    assert rejection is not None
    from pytest_toolcall.run.checks import rejection_failure

    failure = rejection_failure(rejection, "step 1", "openai", body=body)
    assert "bad name!" in str(failure.got), failure.render()
    assert "xxxxx" not in str(failure.got)


# -- an expected None --------------------------------------------------------------------------

def test_an_expected_none_is_shown() -> None:
    shown = ConformanceFailure("response.text", "wrong text", expected=None, got="Hi").render()
    assert "  expected: None\n  got:      Hi" in shown
    none_named = ConformanceFailure("adapter.raised", "raised", got="KeyError").render()
    assert "expected:" not in none_named


class AnswersTextItWasNotSent(OpenAIChatAdapter):
    """Reports text on an answer that has none: the failure must show the expected None."""

    def parse_response(self, data: Any) -> Any:
        return super().parse_response(data).model_copy(update={"text": "(no text)"})


def test_a_real_failure_with_an_expected_none_shows_it() -> None:
    failure = _run("wire.single_call", "openai", AnswersTextItWasNotSent.from_endpoint)
    assert failure is not None and failure.clause == "response.text", failure
    assert "  expected: None" in failure.render()


# -- the hint of an error inside a 200 stream ----------------------------------------------------

def test_an_in_stream_error_is_not_hinted_at_http_statuses() -> None:
    pytest.importorskip("openai")
    failure = _run("errors.in_stream", "openai", shims.openai(_openai_factory))
    assert failure is not None and failure.clause == "errors.retryable", failure
    assert "408, 409" not in (failure.hint or "")
    assert "answered 200" in failure.hint and "error event's own type or code" in failure.hint
    # a status error keeps the statuses' hint
    quota = _run("errors.quota_exhausted", "openai", shims.openai(_openai_factory))
    assert quota is not None and "408, 409, 429 and 5xx" in (quota.hint or "")


# -- wire.malformed_success: meaning, not words; the failing frame ---------------------------------

class IndexesTheAnswer(OpenAIChatAdapter):
    """Crashes on a body without choices: a KeyError, raised in this module."""

    def parse_response(self, data: Any) -> Any:
        data["choices"][0]
        return super().parse_response(data)


def test_control_a_crash_fails_and_names_the_frame_that_raised() -> None:
    failure = _run("wire.malformed_success", "openai", IndexesTheAnswer.from_endpoint)
    assert failure is not None and failure.clause == "error.typed", failure
    assert failure.frame == __name__


@pytest.mark.parametrize(("library", "make"), [
    ("openai", lambda: shims.openai(_openai_factory)),
    ("openai-responses", lambda: shims.openai_responses(_openai_factory)),
])
def test_the_shim_passes_the_sdks_unvalidated_success_on(library: str, make: Any) -> None:
    """The SDK hands a body without choices (output) over as a success: so does the shim, and
    the verdict says so (error.surfaced), with no exception of the kit's own."""
    pytest.importorskip("openai")
    failure = _run("wire.malformed_success", library, make())
    assert failure is not None and failure.clause == "error.surfaced", failure
    assert failure.frame is None


def test_the_anthropic_shim_passes_the_sdks_unvalidated_success_on() -> None:
    anthropic = pytest.importorskip("anthropic")

    def factory(ep: Any) -> Any:
        return anthropic.Anthropic(base_url=ep.base_url.removesuffix("/v1"),
                                   api_key=ep.api_key, http_client=ep.httpx2_client(),
                                   max_retries=0)

    failure = _run("wire.malformed_success", "anthropic", shims.anthropic(factory))
    assert failure is not None and failure.clause == "error.surfaced", failure
    assert failure.frame is None


def test_strict_validation_turns_it_into_a_typed_error() -> None:
    """With the SDK's own validation on, the same body raises the SDK's typed error: the case
    passes (the shim adds nothing either way)."""
    openai = pytest.importorskip("openai")

    def strict(ep: Any) -> Any:
        return openai.OpenAI(base_url=ep.base_url, api_key=ep.api_key, http_client=ep.client,
                             max_retries=0, _strict_response_validation=True)

    assert _run("wire.malformed_success", "openai", shims.openai(strict)) is None

"""The ``openrouter`` provider (issue 13): OpenRouter's Chat Completions on the openai wire.

Its rules with their exact texts, its stream shape, and the official openai SDK (strict validation)
reading every response and stream the fake sends, SSE comments included. The OpenRouter cases with
their negative controls (``controls_openrouter.py``) and the reference adapter on every case that
applies to openrouter run in ``test_controls.py``.
"""

from __future__ import annotations

import json
from typing import Any

import openai_wire_sdk as w
import pytest
from provider_kit import assert_sourced_and_dated

from pytest_toolcall.cases import ScriptedCall, StreamPlan, Turn
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.openrouter.dialect import (
    BAD_KEY,
    DETAILS_MISSING,
    MID_STREAM_ERROR,
    NO_AUTH,
    OpenRouter,
)
from pytest_toolcall.providers.fake import FakeProvider
from pytest_toolcall.core.model import Reasoning
from pytest_toolcall.providers.openrouter.reference import OpenRouterAdapter

# -- the provider's rules, with their texts -----------------------------------------------------

def test_routes_and_auth() -> None:
    d = get_dialect("openrouter")
    assert d.route("POST", "/api/v1/chat/completions")
    assert not d.route("POST", "/v1/chat/completions") and not d.route("GET",
                                                                       "/api/v1/chat/completions")
    assert d.check_auth({"authorization": "Bearer k"}, {}, "k") is None
    wrong = d.check_auth({"authorization": "Bearer sk-or-v1-nope"}, {}, "k")
    assert wrong is not None and dict(wrong.body) == {"error": {"message": BAD_KEY, "code": 401}}
    missing = d.check_auth({}, {}, "k")
    assert missing is not None and dict(missing.body) == {"error": {"message": NO_AUTH,
                                                                    "code": 401}}


_CALL = {"role": "assistant", "content": "", "tool_calls": [
    {"id": "tool_f_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
_RESULT = {"role": "tool", "tool_call_id": "tool_f_1", "content": "ok"}


def _body(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"model": "google/gemini-3-flash-preview",
            "messages": [{"role": "user", "content": "weather?"}, *messages]}


def test_reasoning_details_must_come_back_with_the_calls_the_fake_signed() -> None:
    d = OpenRouter()
    turn = Turn(reasoning=(Reasoning(type="thinking", text="hm"),
                           Reasoning(type="redacted_thinking", signature="SIG")),
                tool_calls=(ScriptedCall(id="tool_f_1", name="f"),))
    message = d.encode_response(turn, {})["choices"][0]["message"]
    assert message["reasoning"] == "hm"
    assert message["reasoning_details"][1] == {"type": "reasoning.encrypted", "data": "SIG",
                                               "id": "tool_f_1", "format": "google-gemini-v1",
                                               "index": 1}
    dropped = d.validate(_body(_CALL, _RESULT))
    assert dropped is not None and dropped.status == 400
    error = dict(dropped.body)["error"]
    assert (error["message"], error["code"]) == ("Provider returned error", 400)
    assert error["metadata"]["raw"].startswith(DETAILS_MISSING)
    edited = dict(_CALL, reasoning_details=[{"type": "reasoning.encrypted", "data": "SIG="}])
    assert d.validate(_body(edited, _RESULT)) is not None
    kept = dict(_CALL, reasoning_details=[{"type": "reasoning.encrypted", "data": "SIG"}])
    assert d.validate(_body(kept, _RESULT)) is None
    assert OpenRouter().validate(_body(_CALL, _RESULT)) is None  # never signed: no rule


def _chunks(events: list[bytes]) -> list[dict[str, Any]]:
    return [json.loads(e[len(b"data: "):]) for e in events
            if e.startswith(b"data: {")]


def test_stream_shape() -> None:
    turn = Turn(tool_calls=(ScriptedCall(id="toolu_bdrk_01X", name="get_time",
                                         arguments='{"tz": "UTC"}'),))
    events = OpenRouter().encode_stream(turn, {"model": "anthropic/claude-4.5-haiku"})
    assert events[-1] == b"data: [DONE]\n\n"
    chunks = _chunks(events)
    assert all(ch["choices"][0]["delta"]["role"] == "assistant" for ch in chunks)
    assert all(ch["id"].startswith("gen-") and ch["provider"] for ch in chunks)
    frags = [f for ch in chunks for f in ch["choices"][0]["delta"].get("tool_calls") or ()]
    assert frags[0] == {"index": 0, "id": "toolu_bdrk_01X", "type": "function",
                        "function": {"name": "get_time", "arguments": ""}}
    finishes = [ch for ch in chunks if ch["choices"][0]["finish_reason"]]
    assert len(finishes) == 2, "the finish chunk comes twice"
    assert "usage" not in finishes[0] and finishes[1]["usage"]["cost"] >= 0
    assert finishes[0]["choices"][0]["native_finish_reason"] == "tool_calls"
    comments = OpenRouter().encode_stream(turn.model_copy(update={"stream": StreamPlan(
        quirks=frozenset({"sse_comments"}))}), {})
    assert comments[0] == b": OPENROUTER PROCESSING\n\n"


def test_mid_stream_error_event_is_the_docs_example() -> None:
    turn = Turn(text="The weather in Paris is", stream=StreamPlan(error_after=2))
    events = OpenRouter().encode_stream(turn, {})
    assert events[-1] != b"data: [DONE]\n\n"
    last = json.loads(events[-1][len(b"data: "):])
    assert last["error"] == MID_STREAM_ERROR
    assert last["choices"] == [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}]
    assert list(last)[:5] == ["id", "object", "created", "model", "provider"]


def test_openrouter_errors_in_its_own_words() -> None:
    from pytest_toolcall.providers.errors import error_reply

    for kind in ("rate_limit", "quota", "auth", "permission", "model_not_found",
                 "context_length", "server_error", "overloaded"):
        status, _, body = error_reply("openrouter", kind)
        assert body["error"]["code"] == status, "OpenRouter's code is the HTTP status"
    assert error_reply("openrouter", "rate_limit", 7)[1] == {"retry-after": "7"}
    assert error_reply("openrouter", "quota")[2]["error"]["message"].startswith(
        "This request requires more credits, or fewer max_tokens.")


def test_provider_facts_are_sourced_and_dated() -> None:
    assert_sourced_and_dated(
        "openrouter", "routes auth error_shape midstream_error stream_shape sse_comments "
        "reasoning reasoning_details_required tool_choice ids", or_later=True)


# -- fidelity: the official openai SDK reads everything the openrouter fake sends --------------

openai, sdk = w.openai_and_sdk("openrouter")


@w.each_answer("openrouter", quirks=frozenset({"sse_comments"}))
def test_openai_sdk_reads_every_openrouter_answer(sdk: tuple[Any, FakeProvider], step: Any,
                                                  mode: str) -> None:
    client, fake = sdk
    turn = step.reply
    fake.dialect.signed_calls.clear()  # type: ignore[attr-defined]  # one case at a time
    fake.expect(turn)
    body = w.request_body(OpenRouterAdapter, step)
    want_calls = w.wanted_calls(turn, OpenRouter.call_ids)
    want_details = [r.signature for r in turn.reasoning if r.type == "redacted_thinking"]
    got = w.read_answer(client, body, mode)
    if got.streamed:
        assert all(role == "assistant" for role in got.roles)
        assert got.finish == turn.expected_finish()
    if got.extras is None:
        got_details = want_details  # the helper keeps only OpenAI's fields
    else:
        got_details = [d["data"] for e in got.extras for d in e.get("reasoning_details") or ()
                       if d["type"] == "reasoning.encrypted"]
    assert got.calls == want_calls
    assert got_details == want_details
    assert ("".join(c or "" for c in got.contents) or None) == (turn.text or None)
    w.assert_usage_read(got, turn)


def test_openai_sdk_skips_the_comments_and_raises_on_the_mid_stream_error(
        sdk: tuple[Any, FakeProvider]) -> None:
    """The SDK's SSE decoder drops ': OPENROUTER PROCESSING' and raises APIError on a data event
    whose ``error`` is set (openai 3.57.0 _streaming.py, strict validation)."""
    client, fake = sdk
    body = {"model": "google/gemini-3-flash-preview",
            "messages": [{"role": "user", "content": "weather?"}]}
    fake.expect(Turn(text="Checking both.", stream=StreamPlan(quirks=frozenset({"sse_comments"}))))
    chunks = list(client.chat.completions.create(**body, stream=True))
    assert "".join(ch.choices[0].delta.content or "" for ch in chunks if ch.choices) == \
        "Checking both."
    fake.expect(Turn(text="The weather in Paris is", stream=StreamPlan(error_after=2)))
    with pytest.raises(openai.APIError, match=MID_STREAM_ERROR["message"]):
        list(client.chat.completions.create(**body, stream=True))

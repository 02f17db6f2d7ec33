"""The ``mistral`` provider (issue 13): Mistral's Chat Completions on the openai wire.

Its rules with their exact bodies, its error bodies, its stream shape, and the official openai SDK
reading every answer and stream. The Mistral cases with their negative controls
(``controls_mistral.py``) and the reference adapter on every case that applies to mistral run in
``test_controls.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai_wire_sdk as w
import pytest
from provider_kit import assert_served_at, assert_sourced_and_dated, bearer_refusals, chat_body

from pytest_toolcall.cases import ScriptedCall, Turn
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.mistral.dialect import UNANSWERED, Mistral
from pytest_toolcall.providers.fake import FakeProvider, serve
from pytest_toolcall.core.model import Reasoning
from pytest_toolcall.providers.mistral.reference import MistralAdapter, mistral_id


def test_mistral_errors_in_its_own_words() -> None:
    from pytest_toolcall.providers.errors import error_reply

    status, headers, body = error_reply("mistral", "rate_limit", 7)
    assert (status, headers) == (429, {}), "no rate-limit header is documented: none is sent"
    assert body == {"object": "error", "message": "Rate limit exceeded", "type": "rate_limited",
                    "param": None, "code": "1300", "raw_status_code": 429}
    assert error_reply("mistral", "auth")[2] == {"detail": "Unauthorized"}
    assert error_reply("mistral", "model_not_found")[2]["type"] == "invalid_model"


# -- the provider's rules, with their bodies ----------------------------------------------------

def test_routes_and_auth() -> None:
    d = get_dialect("mistral")
    assert_served_at(d, "/v1", "/chat/completions")
    for denied in bearer_refusals(d, "k"):
        assert denied.status == 401 and dict(denied.body) == {"detail": "Unauthorized"}


def _body(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return chat_body("mistral-small-latest", *messages, **extra)


def _call(cid: str = "gSIMJiOkT") -> dict[str, Any]:
    return {"role": "assistant", "content": "", "tool_calls": [
        {"id": cid, "type": "function", "function": {"name": "f", "arguments": "{}"}}]}


def _result(cid: str = "gSIMJiOkT") -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": cid, "content": "ok"}


def test_id_format_in_mistrals_words() -> None:
    d = Mistral()
    assert d.validate(_body(_call(), _result())) is None
    bad = d.validate(_body(_call("call_0fypS1hVX"), _result("call_0fypS1hVX")))
    assert bad is not None and bad.status == 400
    body = dict(bad.body)
    assert body == {"object": "error", "message": "Tool call id was call_0fypS1hVX but must be "
                    "a-z, A-Z, 0-9, with a length of 9.", "type": "invalid_function_call",
                    "param": None, "code": "3280"}
    # gptel #1203: the real response announced content-length: 167 for exactly this body
    assert len(json.dumps(body, separators=(",", ":"))) == 167
    assert mistral_id("call_0fypS1hVX") == mistral_id("call_0fypS1hVX") != "call_0fypS1hVX"
    assert mistral_id("gSIMJiOkT") == "gSIMJiOkT"


def test_pairing_order_and_schema_errors() -> None:
    d = Mistral()
    unanswered = d.validate(_body(_call()))
    assert unanswered is not None and unanswered.message == UNANSWERED
    orphan = d.validate(_body(_result()))
    assert orphan is not None and dict(orphan.body) == {
        "object": "error", "message": "Unexpected role 'tool' after role 'user'",
        "type": "invalid_request_message_order", "param": None, "code": "3230"}
    after = _body(_call(), _result(), {"role": "user", "content": "thanks"})
    assert d.validate(after) is None  # off by default (see Mistral.enforce_user_after_tool)
    strict = Mistral()
    strict.enforce_user_after_tool = True
    order = strict.validate(after)
    assert order is not None and order.message == "Unexpected role 'user' after role 'tool'"
    extra = d.validate(_body(dict(_call(), reasoning_content="hm"), _result()))
    assert extra is not None and extra.status == 422
    assert dict(extra.body) == {"detail": [{"type": "extra_forbidden", "loc": [
        "body", "messages", 1, "assistant", "reasoning_content"],
        "msg": "Extra inputs are not permitted", "input": "hm"}]}
    top = d.validate(_body(stream_options={"include_usage": True}, store=False))
    assert top is not None and [e["loc"] for e in top.body["detail"]] == [
        ["body", "stream_options"], ["body", "store"]]
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    for choice in ("auto", "none", "any", "required", {"type": "function", "function": {"name": "f"}}):
        assert d.validate(_body(tools=tools, tool_choice=choice)) is None, choice
    assert d.decode_request(_body(tools=tools, tool_choice="any")).tool_choice == "required"


def test_answer_and_stream_shapes() -> None:
    turn = Turn(reasoning=(Reasoning(type="thinking", text="abcdef"),), text="Hi there",
                tool_calls=(ScriptedCall(name="get_time", arguments='{"tz": "UTC"}'),
                            ScriptedCall(name="get_time", arguments="{}")))
    message = Mistral().encode_response(turn, {})["choices"][0]["message"]
    assert message["content"] == [
        {"type": "thinking", "thinking": [{"type": "text", "text": "abcdef"}], "closed": True},
        {"type": "text", "text": "Hi there"}]
    assert [set(t) for t in message["tool_calls"]] == [{"id", "function", "index"}] * 2
    events = Mistral().encode_stream(turn, {})
    assert events[-1] == b"data: [DONE]\n\n"
    chunks = [json.loads(e[len(b"data: "):]) for e in events[:-1]]
    deltas = [ch["choices"][0]["delta"] for ch in chunks]
    assert isinstance(deltas[0]["content"], list) and deltas[0]["role"] == "assistant"
    kinds = [[p["type"] for p in d["content"]] if isinstance(d.get("content"), list)
             else type(d.get("content")).__name__ for d in deltas]
    assert ["thinking", "text"] in kinds and "str" in kinds
    last = chunks[-1]
    assert last["choices"][0]["finish_reason"] == "tool_calls" and last["usage"]
    assert [t["index"] for t in deltas[-1]["tool_calls"]] == [0, 1]
    assert all(len(t["id"]) == 9 for t in deltas[-1]["tool_calls"])
    assert all("usage" not in ch for ch in chunks[:-1])


def test_provider_facts_are_sourced_and_dated() -> None:
    assert_sourced_and_dated(
        "mistral", "routes auth error_shape ids content_chunks stream_shape tool_choice "
        "message_order", or_later=True)


# -- fidelity: the official openai SDK reads everything the mistral fake sends -----------------
# (the official mistralai SDK is not installed here: the openai SDK with base_url stands in)

openai = pytest.importorskip("openai")


@pytest.fixture(scope="module")
def sdk() -> Iterator[tuple[Any, Any, FakeProvider]]:
    fake = FakeProvider("mistral")
    with serve(fake) as ep:
        strict, lenient = w.openai_client(ep), w.openai_client(ep, strict=False)
        yield strict, lenient, fake
        strict.close()
        lenient.close()


def _text_and_thinking(content: Any) -> tuple[str, str]:
    if isinstance(content, str) or content is None:
        return content or "", ""
    text = "".join(p.get("text", "") for p in content if p.get("type") == "text")
    thought = "".join(q.get("text", "") for p in content if p.get("type") == "thinking"
                      for q in p.get("thinking") or ())
    return text, thought


@pytest.mark.parametrize("mode", ["create", "create_stream"])
@pytest.mark.parametrize("step", w.sdk_steps("mistral"))
def test_openai_sdk_reads_every_mistral_answer(sdk: tuple[Any, Any, FakeProvider], step: Any,
                                               mode: str) -> None:
    """Strict validation reads every answer but those Mistral shapes outside OpenAI's schema:
    a content LIST (message and delta) and, in a JSON answer, tool calls without ``type``
    (the SDK's discriminator). Those are refused by strict validation (asserted: a real
    limitation of using the openai SDK against Mistral) and read by the lenient default."""
    strict, lenient, fake = sdk
    turn = step.reply
    body = w.request_body(MistralAdapter, step)
    want_calls = w.wanted_calls(turn, Mistral.call_ids)
    want_thought = "".join(r.text or "" for r in turn.reasoning)
    outside = bool(turn.reasoning) or (mode == "create" and bool(turn.tool_calls))
    client = lenient if outside else strict
    if outside:
        fake.expect(turn)
        with pytest.raises(openai.APIResponseValidationError):
            w.read_answer(strict, body, mode)
    fake.expect(turn)
    got = w.read_answer(client, body, mode)
    assert got.usage is not None
    if got.streamed:
        assert got.finish
    pairs = [_text_and_thinking(c) for c in got.contents]
    text, thought = "".join(t for t, _ in pairs), "".join(th for _, th in pairs)
    assert got.calls == want_calls
    assert text == (turn.text or "") and thought == want_thought

"""The ``fireworks`` provider (issue 13): Fireworks AI's Chat Completions on the openai wire.

Its rules with their exact texts (the 401, the 400 shape, the 429 whose error is a string), its
error bodies, reasoning_content with interleaved thinking, Kimi K2.6's id-before-name tool-call
stream, the quirk it declares played on request, and the official openai SDK (strict validation)
reading every response and stream the fake sends. The Fireworks cases with their negative controls
(``controls_fireworks.py``) and the reference adapter on every case that applies to fireworks run in
``test_controls.py``.
"""

from __future__ import annotations

from typing import Any

import openai_wire_sdk as w
import pytest
from provider_kit import (
    TOOL,
    assert_served_at,
    assert_sourced_and_dated,
    bearer_refusals,
    chat_body,
)

from pytest_toolcall.cases import QUIRKS, ScriptedCall, StreamPlan, Turn, Usage
from pytest_toolcall.providers.base import get_dialect, noting_breaches
from pytest_toolcall.providers.fireworks.dialect import BAD_KEY, Fireworks
from pytest_toolcall.providers.fake import FakeProvider
from pytest_toolcall.core.model import Reasoning
from pytest_toolcall.providers import get
from pytest_toolcall.providers.fireworks.reference import FireworksAdapter


def test_fireworks_errors_in_its_own_words() -> None:
    from pytest_toolcall.providers.errors import error_reply

    status, headers, body = error_reply("fireworks", "rate_limit", 7)
    assert (status, headers) == (429, {"retry-after": "7"})
    assert body == {"error": "Too Many Requests", "message": (
        "You have exceeded your usage limits. Please try again later or contact Fireworks to "
        "explore dedicated capacity.")}, "the error is a string (LEAP #6)"
    assert error_reply("fireworks", "rate_limit")[1] == {}
    assert error_reply("fireworks", "auth")[2] == {"error": {
        "message": BAD_KEY, "code": "UNAUTHORIZED", "type": "error"}}
    status, _, body = error_reply("fireworks", "model_not_found")
    assert status == 404 and body["error"]["code"] == "NOT_FOUND"
    assert body["error"]["message"] == "Model not found, inaccessible, and/or not deployed"
    for kind in ("quota", "context_length", "permission"):
        with pytest.raises(KeyError):
            error_reply("fireworks", kind)


# -- the provider's rules, with their texts -----------------------------------------------------

def test_routes_and_auth() -> None:
    d = get_dialect("fireworks")
    assert_served_at(d, "/inference/v1", "/v1/chat/completions")
    for refused in bearer_refusals(d, "fw_1234"):
        assert refused.status == 401
        assert dict(refused.body) == {"error": {"message": BAD_KEY, "code": "UNAUTHORIZED",
                                                "type": "error"}}


def _body(**extra: Any) -> dict[str, Any]:
    return chat_body("accounts/fireworks/models/kimi-k2p6", **{"tools": [TOOL], **extra})


def test_refusals_in_fireworks_shape() -> None:
    d = Fireworks()
    for choice in ("auto", "none", "required", {"type": "function", "function": {"name": "f"}}):
        assert d.validate(_body(tool_choice=choice)) is None
    with noting_breaches() as breaches:  # "any" is Fireworks' own (fact tool_choice)
        assert d.validate(_body(tool_choice="any")) is None
        assert d.decode_request(_body(tool_choice="any")).tool_choice == "required"
    assert breaches == []
    with noting_breaches() as breaches:  # OpenAI's rule, not shown on Fireworks (issue 30)
        assert d.validate(_body(tool_choice="anything")) is None
    assert [b.rule for b in breaches] == ["tool_choice.value"]
    refused = d.validate(_body(messages=[]))  # no messages: refused on every service
    assert refused is not None and refused.status == 400
    assert set(refused.body) == {"error", "type"} and refused.body["type"] == "error"
    assert set(refused.body["error"]) == {"type", "message"}
    assert refused.body["error"]["type"] == "invalid_request_error"


def test_reasoning_content_decoded_and_not_enforced() -> None:
    d = Fireworks()
    call = {"role": "assistant", "content": "", "reasoning_content": "hm", "tool_calls": [
        {"id": "call_a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    result = {"role": "tool", "tool_call_id": "call_a", "content": "ok"}
    body = _body(messages=[{"role": "user", "content": "q"}, call, result])
    assert d.validate(body) is None
    assert d.decode_request(body).messages[1].reasoning == (
        Reasoning(type="thinking", text="hm"),)
    del call["reasoning_content"]
    assert d.validate(body) is None, "a model without interleaved thinking ignores it"


_TURN = Turn(reasoning=(Reasoning(type="thinking", text="abcdef"),), text="ok",
             tool_calls=(ScriptedCall(name="get_time", arguments='{"tz": "UTC"}'),),
             usage=Usage(input_tokens=3, output_tokens=2, total_tokens=5))


def test_response_shape() -> None:
    data = Fireworks().encode_response(_TURN, {})
    message = data["choices"][0]["message"]
    assert message["reasoning_content"] == "abcdef" and message["content"] == "ok"
    (call,) = message["tool_calls"]
    assert call["index"] == 0 and call["id"].startswith("call_") and len(call["id"]) == 29
    assert list(data["usage"]) == ["prompt_tokens", "total_tokens", "completion_tokens"]


def test_kimi_stream_sends_the_id_before_the_name() -> None:
    turn = _TURN.model_copy(update={"stream": StreamPlan(fragment_size=4)})
    chunks = w.sse_chunks(Fireworks().encode_stream(turn, {"model": "accounts/fireworks/models/"
                                                               "kimi-k2p6"}))
    frags = [f for ch in chunks for f in ch["choices"][0]["delta"].get("tool_calls") or ()]
    cid = frags[0]["id"]
    assert frags[0]["function"] == {"arguments": ""}, "the id first, without the name"
    assert frags[1]["function"] == {"name": "get_time"}
    assert all(f["id"] == cid for f in frags), "the same id on every fragment"
    assert "".join(f["function"].get("arguments", "") for f in frags) == '{"tz": "UTC"}'
    deltas = [ch["choices"][0]["delta"] for ch in chunks]
    assert "".join(d.get("reasoning_content") or "" for d in deltas) == "abcdef"
    # another model: OpenAI's fragments
    other = w.sse_chunks(Fireworks().encode_stream(turn, {"model": "accounts/fireworks/models/"
                                                              "glm-5p1"}))
    frags = [f for ch in other for f in ch["choices"][0]["delta"].get("tool_calls") or ()]
    assert frags[0]["function"]["name"] == "get_time" and "id" not in frags[1]


def test_declared_quirk_is_named_and_played_on_request() -> None:
    declared = get("fireworks").quirks
    assert set(declared) == {"repeat_id_name"} and set(declared) <= set(QUIRKS)
    turn = Turn(tool_calls=(ScriptedCall(name="get_time", arguments='{"tz": "UTC"}'),),
                stream=StreamPlan(quirks={"repeat_id_name"}, fragment_size=4))
    for model in ("accounts/fireworks/models/glm-5p1", "accounts/fireworks/models/kimi-k2p6"):
        chunks = w.sse_chunks(Fireworks().encode_stream(turn, {"model": model}))
        frags = [f for ch in chunks for f in ch["choices"][0]["delta"].get("tool_calls") or ()]
        assert len(frags) > 2 and all(f["id"] for f in frags), model
        assert all(f["function"].get("name") for f in frags[-2:]), model


def test_provider_facts_are_sourced_and_dated() -> None:
    assert_sourced_and_dated(
        "fireworks", "routes auth error_shape model_not_found rate_limit reasoning_content "
        "kimi_stream ids tool_choice",
        unconfirmed="auth_missing_key server_errors stream_shape midstream_error",
        quirks=True, or_later=True)


# -- fidelity: the official openai SDK reads everything the fireworks fake sends ---------------

openai, sdk = w.openai_and_sdk("fireworks")


def _body_for(step: Any, mode: str) -> dict[str, Any]:
    body = w.request_body(FireworksAdapter, step)
    if mode != "create":
        body["stream_options"] = {"include_usage": True}  # usage comes only when asked
    return body


@w.each_answer("fireworks", quirks=frozenset({"repeat_id_name"}))
def test_openai_sdk_reads_every_fireworks_answer(sdk: tuple[Any, FakeProvider], step: Any,
                                                 mode: str) -> None:
    client, fake = sdk
    turn = step.reply
    fake.expect(turn)
    body = _body_for(step, mode)
    want_calls = w.wanted_calls(turn, Fireworks.call_ids)
    want_reasoning = w.wanted_reasoning(turn)
    repeated = "repeat_id_name" in turn.stream.quirks or Fireworks.is_kimi(body["model"])
    if mode == "create_stream":
        chunks = list(client.chat.completions.create(**body, stream=True))
        slots: dict[int, list[Any]] = {}
        pieces, finish, usage = [], None, None
        for ch in chunks:
            usage = ch.usage or usage
            for choice in ch.choices:
                extra = choice.delta.model_extra or {}
                if isinstance(extra.get("reasoning_content"), str):
                    pieces.append(extra["reasoning_content"])
                finish = choice.finish_reason or finish
                for f in choice.delta.tool_calls or ():
                    slot = slots.setdefault(f.index, [None, None, []])
                    slot[0] = slot[0] or f.id
                    slot[1] = slot[1] or (f.function.name if f.function else None)
                    slot[2].append((f.function.arguments if f.function else None) or "")
        got_calls = [(s[0], s[1], "".join(s[2])) for _, s in sorted(slots.items())]
        reasoning = "".join(pieces) if turn.reasoning else None
        assert finish == turn.expected_finish()
        if turn.usage is not None:
            assert usage is not None and usage.total_tokens == turn.usage.total_tokens
    else:
        got = w.read_answer(client, body, mode)
        got_calls = got.calls
        reasoning = (got.extras[0].get("reasoning_content") if got.extras is not None
                     else want_reasoning)  # the helper keeps only OpenAI's fields
        w.assert_usage_read(got, turn)
        assert got.finish == turn.expected_finish()
        if mode == "stream_helper" and repeated and turn.tool_calls:
            # openai 3.57.0's accumulate_delta joins every string it meets: a repeated id (and
            # name) comes out repeated (a real interaction, not the fake's)
            def _repeats(got: str, want: str) -> bool:
                return bool(want) and got == want * (len(got) // len(want))

            assert all(_repeats(g[0], x[0]) and _repeats(g[1], x[1])
                       for g, x in zip(got_calls, want_calls)), got_calls
            assert any(g[0] != x[0] for g, x in zip(got_calls, want_calls))
            got_calls = [(x[0], x[1], g[2]) for g, x in zip(got_calls, want_calls)]
    assert got_calls == want_calls
    assert reasoning == want_reasoning


def test_openai_sdk_raises_the_string_error_429(sdk: tuple[Any, FakeProvider]) -> None:
    from pytest_toolcall.cases import ErrorReply

    client, fake = sdk
    fake.expect(Turn(error=ErrorReply(kind="rate_limit")))
    with pytest.raises(openai.RateLimitError) as exc:
        client.chat.completions.create(model="accounts/fireworks/models/kimi-k2p6",
                                       messages=[{"role": "user", "content": "hi"}])
    assert exc.value.status_code == 429 and exc.value.body == "Too Many Requests"

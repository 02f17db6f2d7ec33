"""The ``xai`` provider (issue 13): xAI's Chat Completions on the openai wire.

Its rules with their exact bodies (a wrong key is a 400 in xAI's flat ``{code, error}`` shape), its
error bodies, its stream shape (each call whole in one chunk), and the official openai SDK (strict
validation) reading every response and stream the fake sends. The xAI cases with their negative
controls (``controls_xai.py``) and the reference adapter on every case that applies to xai run in
``test_controls.py``.
"""

from __future__ import annotations

import json
from typing import Any

import openai_wire_sdk as w
import pytest
from provider_kit import assert_served_at, assert_sourced_and_dated, bearer_refusals

from pytest_toolcall.cases import QUIRKS, ErrorReply, ScriptedCall, StreamPlan, Turn, Usage
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.xai.dialect import BAD_KEY, COMPLETION_ID, NO_KEY, XAI
from pytest_toolcall.providers.fake import FakeProvider
from pytest_toolcall.core.model import Reasoning
from pytest_toolcall.providers import get
from pytest_toolcall.providers.xai.reference import XAIAdapter


def test_xai_errors_in_its_own_words() -> None:
    from pytest_toolcall.providers.errors import error_reply

    status, headers, body = error_reply("xai", "rate_limit", 7)
    assert (status, headers) == (429, {}), "no Retry-After confirmed: none is sent"
    assert body["code"] == "resource-exhausted"
    assert body["error"].startswith("Too many requests for team ")
    assert error_reply("xai", "auth") == (400, {}, {"code": "invalid-argument",
                                                    "error": BAD_KEY})
    status, _, body = error_reply("xai", "quota")
    assert (status, body["code"]) == (403, "permission-denied")
    assert "used all available credits" in body["error"]
    assert error_reply("xai", "model_not_found")[:1] == (404,)
    assert error_reply("xai", "context_length")[2]["error"].startswith(
        "This model's maximum prompt length is ")
    for kind in ("rate_limit", "quota", "auth", "model_not_found", "context_length",
                 "server_error"):
        body = error_reply("xai", kind)[2]
        assert set(body) == {"code", "error"} and all(isinstance(v, str) for v in body.values())
    for kind in ("permission", "overloaded", "request_too_large"):
        with pytest.raises(KeyError):
            error_reply("xai", kind)


# -- the provider's rules, with their bodies ----------------------------------------------------

def test_routes_and_auth() -> None:
    d = get_dialect("xai")
    assert_served_at(d, "/v1", "/chat/completions")
    wrong, missing = bearer_refusals(d, "xai-1234")
    assert wrong.status == 400
    assert dict(wrong.body) == {"code": "invalid-argument", "error": BAD_KEY}
    assert wrong.message == BAD_KEY
    assert missing.status == 401
    assert dict(missing.body) == {"code": "unauthenticated", "error": NO_KEY}


def test_request_rules_answer_in_xai_shape() -> None:
    d = XAI()
    ok = {"model": "grok-4.3", "messages": [{"role": "user", "content": "hi"}]}
    assert d.validate(ok) is None
    refused = d.validate({"model": "grok-4.3", "messages": []})
    assert refused is not None and refused.status == 400
    assert set(refused.body) == {"code", "error"} and refused.body["code"] == "invalid-argument"
    assert refused.body["error"].startswith("Invalid 'messages': empty array.")


def test_response_shape() -> None:
    turn = Turn(text="", reasoning=(Reasoning(type="thinking", text="First, the user"),),
                tool_calls=(ScriptedCall(name="get_weather", arguments={"city": "Paris"}),),
                usage=Usage(input_tokens=291, output_tokens=26, total_tokens=513))
    data = XAI().encode_response(turn, {"model": "grok-3-mini"})
    assert data["id"] == COMPLETION_ID and data["object"] == "chat.completion"
    choice = data["choices"][0]
    assert set(choice) == {"index", "message", "finish_reason"}, "no logprobs key"
    message = choice["message"]
    assert list(message) == ["role", "content", "reasoning_content", "tool_calls", "refusal"]
    assert message["content"] == "" and message["reasoning_content"] == "First, the user"
    (call,) = message["tool_calls"]
    assert list(call) == ["id", "function", "type"], "no index outside a stream"
    assert call["id"].startswith("call_") and len(call["id"]) == 13 and call["id"][5:].isdigit()
    usage = data["usage"]
    assert usage["completion_tokens_details"]["reasoning_tokens"] == 196
    assert usage["prompt_tokens"] + usage["completion_tokens"] + 196 == usage["total_tokens"]


def test_stream_shape() -> None:
    turn = Turn(reasoning=(Reasoning(type="thinking", text="abcdefgh"),),
                tool_calls=(ScriptedCall(name="get_time", arguments={"tz": "UTC"}),
                            ScriptedCall(name="get_weather", arguments={"city": "Paris"})),
                stream=StreamPlan(fragment_size=3),
                usage=Usage(input_tokens=3, output_tokens=2, total_tokens=9))
    chunks = w.sse_chunks(XAI().encode_stream(turn, {"model": "grok-3-mini"}))
    choices = [ch["choices"][0] for ch in chunks]
    assert choices[0]["delta"] == {"reasoning_content": "abc", "role": "assistant"}
    assert all("role" not in ch["delta"] for ch in choices[1:])
    assert all("finish_reason" not in ch and "logprobs" not in ch for ch in choices[:-1])
    assert choices[-1] == {"index": 0, "delta": {}, "finish_reason": "tool_calls"}
    calls = [ch["delta"]["tool_calls"] for ch in choices if "tool_calls" in ch["delta"]]
    assert [len(x) for x in calls] == [1, 1], "one whole call per chunk"
    assert calls[0][0]["function"] == {"name": "get_time", "arguments": '{"tz": "UTC"}'}
    assert [x[0]["index"] for x in calls] == [0, 1]
    assert list(calls[0][0]) == ["id", "function", "index", "type"]
    assert "usage" not in chunks[-1], "without include_usage: OpenAI's behaviour"
    asked = w.sse_chunks(XAI().encode_stream(turn, {"stream_options": {"include_usage": True}}))
    assert asked[-1]["choices"] == [] and asked[-1]["usage"]["total_tokens"] == 9
    assert asked[-1]["usage"]["completion_tokens_details"]["reasoning_tokens"] == 4
    # a tool-call-only turn: the role rides on the call's chunk
    only = w.sse_chunks(XAI().encode_stream(Turn(tool_calls=turn.tool_calls), {}))
    assert only[0]["choices"][0]["delta"]["role"] == "assistant"
    assert "tool_calls" in only[0]["choices"][0]["delta"]


def test_a_cut_stream_ends_before_done_however_short() -> None:
    turn = Turn(tool_calls=(ScriptedCall(name="get_time", arguments={}),),
                stream=StreamPlan(truncate_after=20))
    events = XAI().encode_stream(turn, {})
    assert b"data: [DONE]\n\n" not in events


def test_no_quirks_declared_and_asked_ones_are_played() -> None:
    """xAI's whole calls are its normal shape, not the one_call_per_chunk quirk: no quirk is
    declared (none is sourced); a StreamPlan that asks for one still gets it."""
    xa = get("xai")
    assert xa.quirks == {}
    assert set(xa.quirks) <= set(QUIRKS)
    calls = (ScriptedCall(name="get_time", arguments={}),
             ScriptedCall(name="get_weather", arguments={"city": "Paris"}))

    def frags(*quirks: str) -> list[dict[str, Any]]:
        events = XAI().encode_stream(Turn(tool_calls=calls,
                                          stream=StreamPlan(quirks=set(quirks))), {})
        body = [e for e in events if e.startswith(b"data:") and not e.endswith(b"[DONE]\n\n")]
        return [f for e in body for f in json.loads(e[5:])["choices"][0]["delta"]
                .get("tool_calls") or ()]

    assert [f["index"] for f in frags("index_stuck_at_zero")] == [0, 0]
    assert all("index" not in f for f in frags("index_missing"))
    assert all("id" not in f for f in frags("no_ids"))
    events = XAI().encode_stream(Turn(tool_calls=calls, stream=StreamPlan(
        quirks={"data_no_space", "sse_comments"})), {})
    assert any(e.startswith(b":") for e in events)
    assert all(e.startswith(b"data:{") or e.startswith(b":") or e == b"data:[DONE]\n\n"
               for e in events)


def test_provider_facts_are_sourced_and_dated() -> None:
    assert_sourced_and_dated(
        "xai", "routes auth error_shape credits_exhausted rate_limit model_not_found "
        "context_length tool_choice stream_tool_calls stream_shape reasoning_content usage_fields "
        "ids",
        unconfirmed="auth_missing_key error_codes_other server_error midstream_error "
        "stream_usage_without_option stream_done")


# -- fidelity: the official openai SDK reads everything the xai fake sends ----------------------

openai, sdk = w.openai_and_sdk("xai")


@w.each_answer("xai")
def test_openai_sdk_reads_every_xai_answer(sdk: tuple[Any, FakeProvider], step: Any,
                                           mode: str) -> None:
    client, turn, body = w.expect(sdk, step, XAIAdapter)
    if mode == "create_stream":
        # the usage chunk (choices: []) comes last: usage and finish are read where they are
        chunks = list(client.chat.completions.create(
            **body, stream=True, stream_options={"include_usage": True}))
        got = w.stream_answer(chunks, usage=w.last_usage(chunks), finish=w.last_finish(chunks))
        pieces = [e["reasoning_content"] for e in got.extras or ()
                  if isinstance(e.get("reasoning_content"), str)]
        reasoning = "".join(pieces) if pieces else None
    else:  # the stream helper keeps OpenAI's fields only: no reasoning to read
        if mode == "stream_helper":
            body["stream_options"] = {"include_usage": True}
        got = w.read_answer(client, body, mode)
        reasoning = w.reasoning_read(got, "reasoning_content", turn)
    assert got.calls == w.wanted_calls(turn, XAI.call_ids)
    assert reasoning == w.wanted_reasoning(turn)
    assert got.finish == turn.expected_finish()
    usage = got.usage
    if turn.usage is not None:
        assert usage is not None and (usage.prompt_tokens, usage.completion_tokens,
                                      usage.total_tokens) == (turn.usage.input_tokens,
                                                              turn.usage.output_tokens,
                                                              turn.usage.total_tokens)


def test_openai_sdk_raises_xai_errors(sdk: tuple[Any, FakeProvider]) -> None:
    client, fake = sdk
    ask = {"model": "grok-4.3", "messages": [{"role": "user", "content": "hi"}]}
    fake.expect(Turn(error=ErrorReply(kind="auth")))
    with pytest.raises(openai.BadRequestError) as bad:
        client.chat.completions.create(**ask)
    # the SDK takes body["error"] as the error's body: xAI's is the text itself
    assert bad.value.status_code == 400 and bad.value.body == BAD_KEY
    fake.expect(Turn(error=ErrorReply(kind="quota")))
    with pytest.raises(openai.PermissionDeniedError) as denied:
        client.chat.completions.create(**ask)
    assert "used all available credits" in str(denied.value.body)
    fake.expect(Turn(error=ErrorReply(kind="rate_limit")))
    with pytest.raises(openai.RateLimitError):
        client.chat.completions.create(**ask)

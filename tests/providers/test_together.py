"""The ``together`` provider (issue 13): Together AI's Chat Completions on the openai wire.

Its rules with their exact texts, its error bodies, its stream shape (the last chunk saying 'stop'
after 'tool_calls', usage always in the stream, the reasoning field), the quirks it declares played
on request, the plain OpenAI adapter failing on them, and the official openai SDK (strict
validation) reading every response and stream the fake sends. The Together cases with their negative
controls (``controls_together.py``) and the reference adapter on every case that applies to together
run in ``test_controls.py``.
"""

from __future__ import annotations

import json
from typing import Any

import openai_wire_sdk as w
import pytest
from provider_kit import (
    TOOL,
    assert_served_at,
    assert_sourced_and_dated,
    bearer_refusals,
    chat_body,
    reference_cases,
)

from pytest_toolcall.cases import QUIRKS, ScriptedCall, StreamPlan, Turn, Usage, default_registry
from pytest_toolcall.providers.base import get_dialect, noting_breaches
from pytest_toolcall.providers.together.dialect import BAD_KEY, COMPLETION_ID, Together
from pytest_toolcall.providers.fake import FakeProvider
from pytest_toolcall.core.model import Reasoning
from pytest_toolcall.providers import get
from pytest_toolcall.providers.together.reference import TogetherAdapter
from pytest_toolcall.reference import reference_profile
from pytest_toolcall.run.runner import run_case

PROFILE = reference_profile("together")


def test_together_errors_in_its_own_words() -> None:
    from pytest_toolcall.providers.errors import error_reply

    status, headers, body = error_reply("together", "rate_limit", 7)
    assert status == 429 and headers["retry-after"] == "7"
    assert headers["x-ratelimit-remaining"] == "0"
    assert body["id"] == COMPLETION_ID and body["error"]["type"] == "model_rate_limit"
    assert body["error"]["message"].startswith("You have reached the rate limit specific to "
                                               "this model ")
    assert "retry-after" not in error_reply("together", "rate_limit")[1]
    assert error_reply("together", "auth")[:1] == (401,)
    assert error_reply("together", "auth")[2]["error"] == {
        "message": BAD_KEY, "type": "invalid_request_error", "param": None,
        "code": "invalid_api_key"}
    status, _, body = error_reply("together", "model_not_found")
    assert status == 404 and body["error"]["code"] == "model_not_available"
    assert body["error"]["message"].startswith("Unable to access model ")
    for kind in ("quota", "context_length", "permission"):
        with pytest.raises(KeyError):
            error_reply("together", kind)


def test_the_openai_reference_fails_on_togethers_stream_end_and_reasoning() -> None:
    """The plain OpenAI adapter (the last finish wins, no reasoning field) against Together's
    fake: every stream with calls comes out 'stop', and message.reasoning is lost."""
    from pytest_toolcall.core.errors import ConformanceFailure
    from pytest_toolcall.providers.fake import in_process_endpoint
    from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter

    failed = {}
    for case_id in reference_cases("together", PROFILE):
        ep = in_process_endpoint(FakeProvider("together"))
        try:
            run_case(default_registry()[case_id], OpenAIChatAdapter.from_endpoint(ep), PROFILE,
                     ep)
        except ConformanceFailure as exc:
            failed[case_id] = exc.clause
        finally:
            ep.close()
    assert failed.pop("wire.together_reasoning_field") == "response.reasoning"
    assert failed.pop("stream.same_as_complete") == "stream.same_as_complete"
    assert set(failed.values()) == {"response.finish_reason"}
    assert set(failed) == {
        "stream.any_chunking", "stream.bytewise", "stream.oversized_line",
        "stream.parallel_sequential", "stream.single_call_fragmented",
        "stream.together_finish_after_tool_calls", "stream.together_reasoning_field",
        "stream.together_usage_on_last_chunk"}


# -- the provider's rules, with their texts -----------------------------------------------------

def test_routes_and_auth() -> None:
    d = get_dialect("together")
    assert_served_at(d, "/v1", "/chat/completions")
    for refused in bearer_refusals(d, "tg-1234"):
        assert refused.status == 401
        assert dict(refused.body) == {"id": COMPLETION_ID, "error": {
            "message": BAD_KEY, "type": "invalid_request_error", "param": None,
            "code": "invalid_api_key"}}


def _body(**extra: Any) -> dict[str, Any]:
    return chat_body("zai-org/GLM-5.1", **{"tools": [TOOL], **extra})


def test_tool_choice_values() -> None:
    d = Together()
    for choice in ("auto", "none", "required", {"type": "function", "function": {"name": "f"}}):
        assert d.validate(_body(tool_choice=choice)) is None
    with noting_breaches() as breaches:  # OpenAI's rule, not shown on Together (issue 30)
        assert d.validate(_body(tool_choice="any")) is None
    assert [b.rule for b in breaches] == ["tool_choice.value"]
    refused = d.validate(_body(messages=[]))  # no messages: refused on every service
    assert refused is not None and refused.status == 400
    assert refused.body["id"] == COMPLETION_ID and refused.body["error"]["param"] == "messages"


def test_reasoning_decoded_and_switched() -> None:
    d = Together()
    call = {"role": "assistant", "content": None, "reasoning": "hm", "tool_calls": [
        {"id": "call_a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    result = {"role": "tool", "tool_call_id": "call_a", "content": "ok"}
    body = _body(messages=[{"role": "user", "content": "q"}, call, result],
                 reasoning={"enabled": False})
    assert d.validate(body) is None
    request = d.decode_request(body)
    assert request.reasoning is False
    assert request.messages[1].reasoning == (Reasoning(type="thinking", text="hm"),)
    # not enforced: the history without it is accepted too
    del call["reasoning"]
    assert d.validate(body) is None
    sent = TogetherAdapter("http://unused.invalid", "k").build_body(
        request.model_copy(update={"reasoning": True}), stream=False)
    assert sent["reasoning"] == {"enabled": True}
    assert all("reasoning" not in m for m in sent["messages"]), "not sent back"


_TURN = Turn(reasoning=(Reasoning(type="thinking", text="abcdef"),), text="ok",
             tool_calls=(ScriptedCall(name="get_time", arguments='{"tz": "UTC"}'),),
             usage=Usage(input_tokens=3, output_tokens=2, total_tokens=5))


def test_response_shape() -> None:
    data = Together().encode_response(_TURN, {"model": "zai-org/GLM-5.1"})
    assert data["id"] == COMPLETION_ID and data["object"] == "chat.completion"
    message = data["choices"][0]["message"]
    assert message["reasoning"] == "abcdef" and message["content"] == "ok"
    (call,) = message["tool_calls"]
    assert call["index"] == 0 and call["id"].startswith("call_") and len(call["id"]) == 29
    assert call["id"][5:].isalnum() and call["id"][5:] == call["id"][5:].lower()
    assert set(data["usage"]) == {"prompt_tokens", "total_tokens", "completion_tokens"}
    calls_only = Together().encode_response(Turn(tool_calls=_TURN.tool_calls), {})
    assert calls_only["choices"][0]["message"]["content"] is None


def test_stream_shape() -> None:
    chunks = w.sse_chunks(Together().encode_stream(_TURN, {"model": "zai-org/GLM-5.1"}))
    first = chunks[0]
    assert "usage" not in first and first["choices"][0]["role"] == "assistant"
    assert "tool_calls" not in first["choices"][0]["delta"], "the role chunk comes alone"
    for ch in chunks:
        for choice in ch["choices"]:
            delta = choice["delta"]
            assert delta["token_id"] is None and delta["role"] == "assistant"
            assert choice["text"] == (delta["content"] or "")
            assert "reasoning" in delta, "reasoning: null on the other deltas"
    deltas = [ch["choices"][0]["delta"] for ch in chunks]
    assert "".join(d["reasoning"] or "" for d in deltas) == "abcdef"
    frags = [f for d in deltas for f in d.get("tool_calls") or ()]
    assert set(frags[0]) == {"index", "id", "type", "function"}
    assert frags[0]["function"] == {"name": "get_time", "arguments": ""}
    assert all(set(f) == {"index", "function"} for f in frags[1:])
    finishes = [ch["choices"][0]["finish_reason"] for ch in chunks]
    # tool_calls on the chunk with the last piece, again with matched_stop, then 'stop'
    assert finishes[-3:] == ["tool_calls", "tool_calls", "stop"]
    assert chunks[-3]["choices"][0]["delta"]["tool_calls"] == [frags[-1]]
    assert chunks[-2]["choices"][0]["matched_stop"] == 151645
    assert chunks[-1]["usage"] == {"prompt_tokens": 3, "total_tokens": 5,
                                   "completion_tokens": 2, "reasoning_tokens": 0}
    assert all(ch.get("usage") is None for ch in chunks[:-1])
    # a length stop: a choices: [] usage chunk at the end, no 'stop'
    cut = _TURN.model_copy(update={"tool_calls": (), "finish_reason": "length"})
    tail = w.sse_chunks(Together().encode_stream(cut, {}))
    assert tail[-1]["choices"] == [] and tail[-1]["usage"]["total_tokens"] == 5
    assert tail[-2]["choices"][0]["finish_reason"] == "length"


def _plays(quirk: str) -> tuple[list[dict[str, Any]], list[bytes]]:
    turn = Turn(tool_calls=(ScriptedCall(name="get_weather", arguments='{"city": "Paris"}'),
                            ScriptedCall(name="get_time", arguments="{}")),
                stream=StreamPlan(quirks={quirk}, fragment_size=4))
    events = Together().encode_stream(turn, {})
    data = [e for e in events if e.startswith(b"data:") and b"[DONE]" not in e]
    return [json.loads(e.split(b":", 1)[1]) for e in data], events


def test_declared_quirks_are_named_and_played_on_request() -> None:
    declared = get("together").quirks
    assert set(declared) == {"role_chunk_alone"} and set(declared) <= set(QUIRKS)
    chunks, _ = _plays("role_chunk_alone")
    assert "tool_calls" not in chunks[0]["choices"][0]["delta"]
    assert chunks[1]["choices"][0]["delta"]["tool_calls"][0]["id"]


@pytest.mark.parametrize("quirk", ["interleave", "repeat_id_name", "index_missing",
                                   "index_stuck_at_zero", "no_ids", "data_no_space",
                                   "sse_comments", "call_in_role_chunk"])
def test_the_fake_plays_the_shared_quirks_on_request(quirk: str) -> None:
    chunks, events = _plays(quirk)
    frags = [f for ch in chunks for choice in ch["choices"]
             for f in choice["delta"].get("tool_calls") or ()]
    if quirk == "interleave":
        assert [f.get("index") for f in frags[:2]] == [0, 1]
    elif quirk == "repeat_id_name":
        assert all(f.get("id") and f["function"].get("name") for f in frags)
    elif quirk == "index_missing":
        assert all("index" not in f for f in frags)
    elif quirk == "index_stuck_at_zero":
        assert {f["index"] for f in frags} == {0}
    elif quirk == "no_ids":
        assert all("id" not in f for f in frags)
    elif quirk == "data_no_space":
        assert all(e.startswith(b"data:{") or e == b"data:[DONE]\n\n" for e in events)
    elif quirk == "sse_comments":
        assert any(e.startswith(b":") for e in events)
    else:
        assert chunks[0]["choices"][0]["delta"]["tool_calls"][0]["index"] == 0


def test_provider_facts_are_sourced_and_dated() -> None:
    assert_sourced_and_dated(
        "together", "routes auth error_shape model_not_found rate_limit tool_choice stream_shape "
        "stream_finish stream_usage reasoning ids",
        unconfirmed="auth_missing_key server_errors quota reasoning_back request_errors "
        "midstream_error", quirks=True)


# -- fidelity: the official openai SDK reads everything the together fake sends -----------------

openai, sdk = w.openai_and_sdk("together")


@w.each_answer("together")
def test_openai_sdk_reads_every_together_answer(sdk: tuple[Any, FakeProvider], step: Any,
                                                mode: str) -> None:
    client, turn, body = w.expect(sdk, step, TogetherAdapter)
    if mode == "create_stream":
        chunks = list(client.chat.completions.create(**body, stream=True))
        got = w.stream_answer(chunks, usage=w.last_usage(chunks), finish=None)
        finishes = [c.finish_reason for ch in chunks for c in ch.choices if c.finish_reason]
        # the stream's first finish is the answer's; a tool-call stream ends with 'stop'
        assert finishes[0] == turn.expected_finish()
        if turn.expected_finish() in ("stop", "tool_calls"):
            assert finishes[-1] == "stop"
    else:
        got = w.read_answer(client, body, mode)
        if mode == "stream_helper" and turn.expected_finish() == "tool_calls":
            # the helper lets the last chunk's 'stop' win: the hazard the finish case checks
            assert got.finish == "stop"
        else:
            assert got.finish == turn.expected_finish()
    w.assert_usage_read(got, turn)
    assert got.calls == w.wanted_calls(turn, Together.call_ids)
    # the stream's pieces joined; the helper keeps only OpenAI's fields
    assert w.reasoning_read(got, "reasoning", turn) == w.wanted_reasoning(turn)


def test_openai_sdk_raises_together_errors_with_their_code(sdk: tuple[Any, FakeProvider]
                                                           ) -> None:
    from pytest_toolcall.cases import ErrorReply

    client, fake = sdk
    fake.expect(Turn(error=ErrorReply(kind="model_not_found")))
    with pytest.raises(openai.NotFoundError) as exc:
        client.chat.completions.create(model="toolcall/missing-model",
                                       messages=[{"role": "user", "content": "hi"}])
    assert exc.value.status_code == 404 and exc.value.code == "model_not_available"

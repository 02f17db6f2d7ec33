"""The ``groq`` provider (issue 13): Groq's Chat Completions on the openai wire.

Its rules with their texts, its error bodies, its stream shape (whole calls, usage under x_groq),
and BOTH the official openai SDK (strict validation) and Groq's own SDK (groq 1.7.0, strict
validation) reading every answer and stream the fake sends (the openai SDK without strict
validation: its strict mode refuses Groq's service_tier 'on_demand'). The Groq cases with their
negative controls (``controls_groq.py``) and the reference adapter on every case that applies to
groq run in ``test_controls.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import openai_wire_sdk as w
import pytest
from provider_kit import assert_served_at, assert_sourced_and_dated, bearer_refusals

from pytest_toolcall.cases import ErrorReply, ScriptedCall, StreamPlan, Turn, Usage
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.groq.dialect import BAD_KEY, REQUEST_ID, Groq
from pytest_toolcall.providers.fake import FakeProvider, serve
from pytest_toolcall.core.model import Reasoning
from pytest_toolcall.providers import get
from pytest_toolcall.providers.groq.reference import GroqAdapter


def test_groq_errors_in_its_own_words() -> None:
    from pytest_toolcall.providers.errors import error_reply

    status, headers, body = error_reply("groq", "rate_limit", 7)
    assert status == 429 and headers["retry-after"] == "7"
    assert {"x-ratelimit-limit-requests", "x-ratelimit-limit-tokens",
            "x-ratelimit-remaining-requests", "x-ratelimit-remaining-tokens",
            "x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"} <= set(headers)
    assert body["error"]["type"] == "tokens" and body["error"]["code"] == "rate_limit_exceeded"
    assert "Please try again in 7s." in body["error"]["message"]
    assert "retry-after" not in error_reply("groq", "rate_limit")[1], "only a delay asked for"
    assert error_reply("groq", "auth") == (401, {}, {"error": {
        "message": "Invalid API Key", "type": "invalid_request_error",
        "code": "invalid_api_key"}})
    assert error_reply("groq", "model_not_found")[2]["error"]["code"] == "model_not_found"
    for kind in ("rate_limit", "auth", "model_not_found", "context_length", "server_error",
                 "overloaded"):
        assert "param" not in error_reply("groq", kind)[2]["error"], "Groq sends no param"
    for kind in ("quota", "permission"):
        with pytest.raises(KeyError):
            error_reply("groq", kind)


# -- the provider's rules and shapes ------------------------------------------------------------

def test_routes_and_auth() -> None:
    d = get_dialect("groq")
    assert_served_at(d, "/openai/v1", "/v1/chat/completions")
    want = {"error": {"message": BAD_KEY, "type": "invalid_request_error",
                      "code": "invalid_api_key"}}
    for found in bearer_refusals(d, "gsk_1"):
        assert found.status == 401 and dict(found.body) == want


def test_reasoning_decoded_from_the_request() -> None:
    body = {"model": "openai/gpt-oss-20b", "messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "", "reasoning": "hm", "tool_calls": [
            {"id": "call_ab12", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_ab12", "content": "ok"}]}
    d = Groq()
    assert d.validate(body) is None
    assert d.decode_request(body).messages[1].reasoning == (Reasoning(type="thinking", text="hm"),)


_TURN = Turn(text="ok", reasoning=(Reasoning(type="thinking", text="abcdef"),),
             tool_calls=(ScriptedCall(name="get_time", arguments='{"tz": "UTC"}'),
                         ScriptedCall(name="get_weather", arguments='{"city": "Paris"}')),
             usage=Usage(input_tokens=3, output_tokens=2, total_tokens=5))


def test_response_shape() -> None:
    data = Groq().encode_response(_TURN, {"model": "openai/gpt-oss-20b"})
    message = data["choices"][0]["message"]
    assert message["reasoning"] == "abcdef" and message["content"] == "ok"
    ids = [x["id"] for x in message["tool_calls"]]
    # llama models' ids as recorded (48f5r72yf: fact ids, issue 30)
    assert all(re.fullmatch(r"[a-z0-9]{9}", i) for i in ids), ids
    assert data["x_groq"]["id"] == REQUEST_ID and data["service_tier"] == "on_demand"
    assert {"queue_time", "prompt_time", "completion_time", "total_time"} <= set(data["usage"])


def test_stream_shape_whole_calls_and_usage_in_x_groq() -> None:
    chunks = w.sse_chunks(Groq().encode_stream(_TURN, {"model": "openai/gpt-oss-20b"}))
    first, last = chunks[0], chunks[-1]
    assert first["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert first["x_groq"]["id"] == REQUEST_ID
    deltas = [ch["choices"][0]["delta"] for ch in chunks]
    assert "".join(d.get("reasoning") or "" for d in deltas) == "abcdef"
    assert all(d.get("channel") == "analysis" for d in deltas if "reasoning" in d)
    calls = [d["tool_calls"] for d in deltas if "tool_calls" in d]
    assert [len(x) for x in calls] == [1, 1], "one whole call a chunk"
    assert [x[0]["function"]["arguments"] for x in calls] == ['{"tz": "UTC"}',
                                                              '{"city": "Paris"}']
    assert [x[0]["index"] for x in calls] == [0, 1]
    assert last["choices"][0] == {"index": 0, "delta": {}, "logprobs": None,
                                  "finish_reason": "tool_calls"}
    assert last["x_groq"]["usage"]["total_tokens"] == 5
    # the recorded streams of issue 30: the same usage at the top level of the finish chunk
    assert last["usage"] == last["x_groq"]["usage"]
    assert all("usage" not in ch for ch in chunks[:-1]), "usage on the finish chunk only"


def test_stream_usage_under_x_groq_only_with_the_quirk() -> None:
    turn = _TURN.model_copy(update={"stream": StreamPlan(
        quirks=frozenset({"usage_in_x_groq_only"}))})
    chunks = w.sse_chunks(Groq().encode_stream(turn, {}))
    assert chunks[-1]["x_groq"]["usage"]["total_tokens"] == 5
    assert all("usage" not in ch for ch in chunks), "no top-level usage under the quirk"


def test_stream_shape_with_include_usage() -> None:
    chunks = w.sse_chunks(Groq().encode_stream(_TURN, {"stream_options": {"include_usage": True}}))
    finish, tail = chunks[-2], chunks[-1]
    assert finish["usage"] == finish["x_groq"]["usage"], "mirrored on the finish chunk"
    assert tail["choices"] == [] and tail["usage"]["total_tokens"] == 5
    assert tail["service_tier"] == "on_demand"
    assert all("usage" not in ch for ch in chunks[:-2])


def test_declared_quirks_are_played() -> None:
    declared = set(get("groq").quirks)
    assert declared == {"one_call_per_chunk", "usage_in_x_groq_only"}
    turn = _TURN.model_copy(update={"stream": StreamPlan(quirks=frozenset(declared),
                                                         fragment_size=2)})
    deltas = [ch["choices"][0]["delta"] for ch in w.sse_chunks(Groq().encode_stream(turn, {}))]
    frags = [f for d in deltas for f in d.get("tool_calls") or ()]
    assert len(frags) == 2 and all(f["id"] and f["function"]["name"] for f in frags)
    # quirks Groq does not send are still playable where a case asks for them
    stuck = _TURN.model_copy(update={"stream": StreamPlan(quirks=frozenset(
        {"index_stuck_at_zero"}))})
    frags = [f for ch in w.sse_chunks(Groq().encode_stream(stuck, {}))
             for f in ch["choices"][0]["delta"].get("tool_calls") or ()]
    assert [f["index"] for f in frags] == [0, 0]


def test_provider_facts_are_sourced_and_dated() -> None:
    assert_sourced_and_dated(
        "groq", "routes auth error_shape tool_use_failed rate_limit tool_choice stream_shape "
        "stream_usage reasoning ids",
        unconfirmed="error_wordings_unconfirmed", quirks=True, or_later=True)


# -- fidelity: the openai SDK and Groq's own SDK read everything the fake sends -----------------

openai = pytest.importorskip("openai")
groq_sdk = pytest.importorskip("groq")

STEPS = w.sdk_steps("groq", quirks=frozenset({"one_call_per_chunk"}))


@pytest.fixture(name="sdks", scope="module")
def _sdks() -> Iterator[tuple[Any, Any, FakeProvider]]:
    fake = FakeProvider("groq")
    with serve(fake) as ep:
        # not strict: the openai SDK's service_tier Literal has no 'on_demand', which Groq
        # sends on every answer (test_openai_sdk_strict_refuses_groqs_service_tier)
        oa = w.openai_client(ep, strict=False)
        gq = groq_sdk.Groq(base_url=ep.base_url.removesuffix("/openai/v1"), api_key=ep.api_key,
                           max_retries=0, timeout=10, _strict_response_validation=True,
                           http_client=groq_sdk.DefaultHttpxClient(trust_env=False))
        yield oa, gq, fake
        oa.close()
        gq.close()


def _read(client: Any, body: dict[str, Any], mode: str) -> tuple[Any, Any, Any, Any]:
    """(calls, reasoning, usage total, finish) as the SDK reads them; usage from the top-level
    field, else from x_groq.usage (the SDK's own field on groq, model_extra on openai)."""
    if mode == "create":
        done = client.chat.completions.create(**body)
        message = done.choices[0].message
        reasoning = getattr(message, "reasoning", None)
        if reasoning is None:
            reasoning = (message.model_extra or {}).get("reasoning")
        calls = [(x.id, x.function.name, x.function.arguments) for x in message.tool_calls or ()]
        return calls, reasoning, done.usage.total_tokens if done.usage else None, \
            done.choices[0].finish_reason
    chunks = list(client.chat.completions.create(**body, stream=True))
    slots: dict[int, list[Any]] = {}
    pieces: list[str] = []
    usage = finish = None
    for ch in chunks:
        x_groq = getattr(ch, "x_groq", None) or (ch.model_extra or {}).get("x_groq")
        if isinstance(x_groq, dict):
            x_usage = (x_groq.get("usage") or {}).get("total_tokens")
        else:
            x_usage = x_groq.usage.total_tokens if x_groq is not None and x_groq.usage else None
        usage = ch.usage.total_tokens if ch.usage else (x_usage or usage)
        for choice in ch.choices:
            delta = choice.delta
            piece = getattr(delta, "reasoning", None) or (delta.model_extra or {}).get("reasoning")
            if isinstance(piece, str):
                pieces.append(piece)
            for f in delta.tool_calls or ():
                assert f.id and f.function.name, "Groq: every fragment is a whole call"
                slot = slots.setdefault(f.index, [f.id, f.function.name, []])
                slot[2].append(f.function.arguments or "")
            finish = choice.finish_reason or finish
    calls = [(s[0], s[1], "".join(s[2])) for _, s in sorted(slots.items())]
    return calls, "".join(pieces) if pieces else None, usage, finish


#: (mode, include_usage): stream_options is a stream parameter, so only a stream asks for the
#: top-level usage; without it the usage is read from x_groq.usage
READS = [pytest.param("create", False, id="create"),
         pytest.param("create_stream", False, id="create_stream-x_groq"),
         pytest.param("create_stream", True, id="create_stream-include_usage")]


@pytest.mark.parametrize(("mode", "include_usage"), READS)
@pytest.mark.parametrize("which", ["openai", "groq"])
@pytest.mark.parametrize("step", STEPS)
def test_sdks_read_every_groq_answer(sdks: tuple[Any, Any, FakeProvider], step: Any, mode: str,
                                     which: str, include_usage: bool) -> None:
    oa, gq, fake = sdks
    turn = step.reply
    fake.expect(turn)
    body = w.request_body(GroqAdapter, step)
    if include_usage:
        # the groq SDK has no stream_options parameter: extra_body, as its users send it
        body["extra_body"] = {"stream_options": {"include_usage": True}}
    got_calls, reasoning, usage, finish = _read(oa if which == "openai" else gq, body, mode)
    assert got_calls == w.wanted_calls(turn, Groq.call_ids)
    want = w.wanted_reasoning(turn)
    assert reasoning == want
    if turn.usage is not None:
        assert usage == turn.usage.total_tokens
    assert finish == turn.expected_finish()


@pytest.mark.parametrize("which", ["openai", "groq"])
def test_sdks_raise_tool_use_failed_with_failed_generation(sdks: tuple[Any, Any, FakeProvider],
                                                           which: str) -> None:
    from pytest_toolcall.providers.groq.cases import FAILED_GENERATION, TOOL_USE_FAILED_BODY

    oa, gq, fake = sdks
    fake.expect(Turn(error=ErrorReply(status=400, raw_body=json.dumps(TOOL_USE_FAILED_BODY),
                                      headers={"content-type": "application/json"})))
    module = openai if which == "openai" else groq_sdk
    with pytest.raises(module.BadRequestError) as exc:
        (oa if which == "openai" else gq).chat.completions.create(
            model="llama-3.3-70b-versatile", messages=[{"role": "user", "content": "hi"}])
    assert exc.value.status_code == 400
    body = exc.value.body
    error = body.get("error", body) if isinstance(body, dict) else {}
    assert error["failed_generation"] == FAILED_GENERATION


def test_openai_sdk_strict_refuses_groqs_service_tier() -> None:
    """Groq answers with service_tier 'on_demand' (live captures, 2026-08; a recorded qwen3.8
    answer, 2026-10), which the openai SDK's strict validation refuses: its ChatCompletion
    and ChatCompletionChunk take only OpenAI's tiers. A fact about the SDK on real Groq
    traffic, kept here so that a change on either side shows."""
    fake = FakeProvider("groq")
    with serve(fake) as ep:
        strict = w.openai_client(ep)
        fake.expect(Turn(text="ok"))
        with pytest.raises(openai.APIResponseValidationError):
            strict.chat.completions.create(model="llama-3.3-70b-versatile",
                                           messages=[{"role": "user", "content": "hi"}])
        strict.close()


def test_sdks_raise_the_rate_limit_with_its_delay(sdks: tuple[Any, Any, FakeProvider]) -> None:
    oa, gq, fake = sdks
    for client, module in ((oa, openai), (gq, groq_sdk)):
        fake.expect(Turn(error=ErrorReply(kind="rate_limit", retry_after=3)))
        with pytest.raises(module.RateLimitError) as exc:
            client.chat.completions.create(model="llama-3.3-70b-versatile",
                                           messages=[{"role": "user", "content": "hi"}])
        assert exc.value.status_code == 429
        assert exc.value.response.headers["retry-after"] == "3"

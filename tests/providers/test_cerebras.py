"""The ``cerebras`` provider (issue 13): Cerebras Inference's Chat Completions on the openai wire.

Its rules with their exact texts, its error bodies, its stream shape and the quirk it declares,
and BOTH the official openai SDK (strict validation) and Cerebras' own SDK (cerebras_cloud_sdk)
reading every answer and stream the fake sends. The Cerebras cases with their negative controls
(``controls_cerebras.py``) and the reference adapter on every case that applies to cerebras run
in ``test_controls.py``.
"""

from __future__ import annotations

import json
from typing import Any

import controls_cerebras as c  # tests/providers/ is on sys.path
import openai_wire_sdk as w
import pytest
from provider_kit import (
    TOOL,
    assert_served_at,
    assert_sourced_and_dated,
    bearer_refusals,
    chat_body,
    endpoint_fixture,
)

from pytest_toolcall.cases import ErrorReply, ScriptedCall, StreamPlan, Turn, Usage
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.cerebras.dialect import (
    COMPLETION_ID,
    NOT_AUTHENTICATED,
    WRONG_API_KEY,
    Cerebras,
)
from pytest_toolcall.providers.fake import FakeProvider, serve
from pytest_toolcall.providers.fake.provider import Endpoint
from pytest_toolcall.core.model import Reasoning
from pytest_toolcall.providers import get
from pytest_toolcall.providers.cerebras.reference import CerebrasAdapter

endpoint = endpoint_fixture("cerebras")


def test_cerebras_errors_in_its_own_words() -> None:
    from pytest_toolcall.providers.errors import error_reply

    status, headers, body = error_reply("cerebras", "rate_limit", 7)
    assert status == 429 and headers["retry-after"] == "7"
    assert headers["x-ratelimit-remaining-tokens-minute"] == "0"
    assert body == {"message": "Tokens per minute limit exceeded - too many tokens processed.",
                    "type": "too_many_tokens_error", "param": "quota",
                    "code": "token_quota_exceeded"}
    status, headers, body = error_reply("cerebras", "quota")
    assert (status, headers["x-should-retry"], body["code"]) == (402, "false", "payment_required")
    assert error_reply("cerebras", "auth")[2] == WRONG_API_KEY
    assert error_reply("cerebras", "overloaded")[2]["code"] == "queue_exceeded"
    for kind in ("rate_limit", "quota", "auth", "model_not_found", "context_length",
                 "server_error", "overloaded"):
        assert "error" not in error_reply("cerebras", kind)[2], "top level, no 'error' key"
    with pytest.raises(KeyError):
        error_reply("cerebras", "permission")


# -- the provider's rules, with their texts -----------------------------------------------------

def test_routes_and_auth() -> None:
    d = get_dialect("cerebras")
    assert_served_at(d, "/v1", "/chat/completions")
    wrong, missing = bearer_refusals(d, "csk-1")
    assert wrong.status == 401 and dict(wrong.body) == WRONG_API_KEY
    assert missing.status == 403 and dict(missing.body) == NOT_AUTHENTICATED


def _body(**extra: Any) -> dict[str, Any]:
    return chat_body("gpt-oss-120b", **{"tools": [TOOL], **extra})


def test_closed_request_schema() -> None:
    d = Cerebras()
    accepted = _body(tool_choice="required", parallel_tool_calls=False, stream=True,
                     stream_options={"include_usage": True}, reasoning_effort="low",
                     disable_reasoning=False, clear_thinking=True, service_tier="auto")
    assert d.validate(accepted) is None
    refused = d.validate(_body(store=False))
    assert refused is not None and (refused.status, refused.rule) == (422, "body.unsupported")
    assert dict(refused.body) == {"message": "body.store: property 'body.store' is unsupported",
                                  "type": "invalid_request_error", "param": "validation_error",
                                  "code": "wrong_api_format"}
    # OpenAI's own rules answer in Cerebras' top-level shape
    empty = d.validate(_body(messages=[]))
    assert empty is not None and "error" not in empty.body and empty.body["message"]


def test_an_adapter_sending_an_unknown_key_is_refused(endpoint: Endpoint) -> None:
    from pytest_toolcall.core.errors import ProviderError
    from pytest_toolcall.core.model import ChatRequest, UserMessage

    adapter = c.UnknownKeySent.from_endpoint(endpoint)
    with pytest.raises(ProviderError) as exc:
        adapter.complete(ChatRequest(messages=(UserMessage(content="hi"),)))
    assert (exc.value.status, exc.value.code) == (422, "wrong_api_format")


def test_reasoning_decoded_from_the_request() -> None:
    d = Cerebras()
    call = {"role": "assistant", "content": "", "reasoning": "hm", "tool_calls": [
        {"id": "75a06f4da", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    body = _body(messages=[{"role": "user", "content": "q"}, call,
                           {"role": "tool", "tool_call_id": "75a06f4da", "content": "ok"}],
                 disable_reasoning=True)
    request = d.decode_request(body)
    assert request.reasoning is False
    assert request.messages[1].reasoning == (Reasoning(type="thinking", text="hm"),)


def test_response_shape() -> None:
    turn = Turn(text="Checking.", reasoning=(Reasoning(type="thinking", text="hm"),),
                tool_calls=(ScriptedCall(name="get_time"), ScriptedCall(name="get_weather")),
                usage=Usage(input_tokens=3, output_tokens=2, total_tokens=5))
    data = Cerebras().encode_response(turn, {"model": "zai-glm-4.7"})
    assert data["id"] == COMPLETION_ID and data["system_fingerprint"].startswith("fp_")
    message = data["choices"][0]["message"]
    assert message["reasoning"] == "hm" and "reasoning_content" not in message
    ids = [x["id"] for x in message["tool_calls"]]
    assert all(len(i) == 9 and int(i, 16) >= 0 for i in ids) and len(set(ids)) == 2
    assert set(data["time_info"]) == {"queue_time", "prompt_time", "completion_time",
                                      "total_time", "created"}


def test_stream_shape_and_declared_quirk() -> None:
    turn = Turn(reasoning=(Reasoning(type="thinking", text="abcdef"),),
                tool_calls=(ScriptedCall(name="get_time", arguments='{"tz": "UTC"}'),),
                usage=Usage(input_tokens=3, output_tokens=2, total_tokens=5),
                stream=StreamPlan(fragment_size=4))
    chunks = w.sse_chunks(Cerebras().encode_stream(turn, {"model": "gpt-oss-120b"}))
    deltas = [ch["choices"][0]["delta"] for ch in chunks]
    assert deltas[0] == {"role": "assistant"}, "the role chunk alone"
    assert "".join(d.get("reasoning") or "" for d in deltas) == "abcdef"
    frags = [f for d in deltas for f in d.get("tool_calls") or ()]
    assert frags[0] == {"index": 0, "id": frags[0]["id"], "type": "function",
                        "function": {"name": "get_time", "arguments": ""}}
    assert all(f["type"] == "function" and "id" not in f for f in frags[1:])
    last = chunks[-1]
    assert last["choices"][0]["finish_reason"] == "tool_calls" and last["usage"]
    assert last["time_info"] and deltas[-1] == {}
    # the declared quirk, asked for: the role chunk still carries no fragment
    assert set(get("cerebras").quirks) == {"role_chunk_alone"}
    alone = w.sse_chunks(Cerebras().encode_stream(
        turn.model_copy(update={"stream": StreamPlan(quirks={"role_chunk_alone"})}), {}))
    assert alone[0]["choices"][0]["delta"] == {"role": "assistant"}


def test_error_inside_a_stream() -> None:
    turn = Turn(text="partial answer", stream=StreamPlan(
        fragment_size=4, error_after=2, error=ErrorReply(kind="server_error")))
    events = Cerebras().encode_stream(turn, {})
    last = json.loads(events[-1][len(b"data: "):])
    assert set(last) == {"error", "status_code"}
    assert last["status_code"] == turn.stream.error.status
    assert set(last["error"]) >= {"message", "type", "code", "id"}


def test_provider_facts_are_sourced_and_dated() -> None:
    assert_sourced_and_dated(
        "cerebras", "routes auth error_shape rate_limit quota unsupported_keys tool_choice "
        "reasoning stream_shape time_info ids midstream_error",
        unconfirmed="server_error_wording", quirks=True)


# -- fidelity: the official openai SDK AND cerebras_cloud_sdk read everything the fake sends ----

openai, sdk = w.openai_and_sdk("cerebras")


@w.each_answer("cerebras", quirks=frozenset({"role_chunk_alone"}))
def test_openai_sdk_reads_every_cerebras_answer(sdk: tuple[Any, FakeProvider], step: Any,
                                                mode: str) -> None:
    client, fake = sdk
    w.assert_sdk_reads_reasoning_field(client, fake, step, mode, adapter=CerebrasAdapter,
                                       call_ids=Cerebras.call_ids, field="reasoning")


def test_openai_sdk_raises_cerebras_errors(sdk: tuple[Any, FakeProvider]) -> None:
    client, fake = sdk
    fake.expect(Turn(error=ErrorReply(kind="rate_limit", retry_after=3)))
    with pytest.raises(openai.RateLimitError) as exc:
        client.chat.completions.create(model="gpt-oss-120b",
                                       messages=[{"role": "user", "content": "hi"}])
    assert exc.value.status_code == 429
    assert exc.value.body["code"] == "token_quota_exceeded"


cerebras_sdk = pytest.importorskip("cerebras.cloud.sdk")


@pytest.fixture(scope="module")
def native() -> Any:
    import httpx

    fake = FakeProvider("cerebras")
    with serve(fake) as ep:
        client = cerebras_sdk.Cerebras(base_url=ep.base_url.removesuffix("/v1"),
                                       api_key=ep.api_key, max_retries=0,
                                       warm_tcp_connection=False,
                                       http_client=httpx.Client(trust_env=False, timeout=10),
                                       _strict_response_validation=True)
        yield client, fake
        client.close()


@pytest.mark.parametrize("streamed", [False, True], ids=["create", "create_stream"])
@pytest.mark.parametrize("step", w.sdk_steps("cerebras", quirks=frozenset({"role_chunk_alone"})))
def test_cerebras_sdk_reads_every_answer(native: tuple[Any, FakeProvider], step: Any,
                                         streamed: bool) -> None:
    client, fake = native
    turn = step.reply
    fake.expect(turn)
    body = w.request_body(CerebrasAdapter, step)
    want_calls = w.wanted_calls(turn, Cerebras.call_ids)
    want_reasoning = w.wanted_reasoning(turn)
    if not streamed:
        done = client.chat.completions.create(**body)
        message = done.choices[0].message
        calls = [(x.id, x.function.name, x.function.arguments) for x in message.tool_calls or ()]
        reasoning, usage = message.reasoning, done.usage
        assert done.time_info is not None
        assert done.choices[0].finish_reason == turn.expected_finish()
    else:
        chunks = list(client.chat.completions.create(**body, stream=True))
        slots: dict[int, list[Any]] = {}
        pieces: list[str] = []
        for ch in chunks:
            for choice in ch.choices or ():
                if choice.delta is None:
                    continue
                if choice.delta.reasoning:
                    pieces.append(choice.delta.reasoning)
                for f in choice.delta.tool_calls or ():
                    slot = slots.setdefault(f.index, [f.id, f.function.name, []])
                    slot[2].append(f.function.arguments or "")
        calls = [(s[0], s[1], "".join(s[2])) for _, s in sorted(slots.items())]
        reasoning = "".join(pieces) if turn.reasoning else None
        usage = chunks[-1].usage
        assert chunks[-1].time_info is not None
        assert chunks[-1].choices[0].finish_reason == turn.expected_finish()
    assert calls == want_calls
    assert reasoning == want_reasoning
    if turn.usage is not None:
        assert usage is not None and usage.total_tokens == turn.usage.total_tokens


def test_cerebras_sdk_raises_cerebras_errors(native: tuple[Any, FakeProvider]) -> None:
    client, fake = native
    fake.expect(Turn(error=ErrorReply(kind="quota")))
    with pytest.raises(cerebras_sdk.APIStatusError) as exc:
        client.chat.completions.create(model="gpt-oss-120b",
                                       messages=[{"role": "user", "content": "hi"}])
    assert exc.value.status_code == 402 and exc.value.body["code"] == "payment_required"

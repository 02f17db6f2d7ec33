"""The ``lmstudio`` provider (issue 13): LM Studio's OpenAI-compatible server on the openai wire.

Its rules with their exact texts (routes, the 200 for an unknown route, auth, string and object
errors, the stream error event), its answer and stream shapes, and the official openai SDK (strict
validation) reading every response and stream the fake sends. The LM Studio cases with their
negative controls (``controls_lmstudio.py``) and the reference adapter on every case that applies to
lmstudio run in ``test_controls.py``.
"""

from __future__ import annotations

import json
from typing import Any

import openai_wire_sdk as w
import pytest
from provider_kit import assert_sourced_and_dated, endpoint_fixture, reference_cases

from pytest_toolcall.cases import (
    ErrorReply,
    ScriptedCall,
    StreamPlan,
    Turn,
    Usage,
)
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.lmstudio.dialect import (
    AUTH_REQUIRED,
    CONTEXT_OVERFLOW,
    NO_MODELS_LOADED,
    STREAM_CONTEXT_OVERFLOW,
    LMStudio,
    reasoning_field,
)
from pytest_toolcall.providers.fake import FakeProvider
from pytest_toolcall.providers.fake.provider import Endpoint
from pytest_toolcall.core.model import Reasoning
from pytest_toolcall.providers import get
from pytest_toolcall.providers.lmstudio.reference import LMStudioAdapter
from pytest_toolcall.reference import reference_profile

PROFILE = reference_profile("lmstudio")

endpoint = endpoint_fixture("lmstudio")


def test_lmstudio_errors_in_its_own_words() -> None:
    from pytest_toolcall.providers.errors import error_reply

    assert error_reply("lmstudio", "auth") == (401, {}, {"error": {
        "type": "invalid_request", "code": "invalid_api_key", "message": AUTH_REQUIRED}})
    status, _, body = error_reply("lmstudio", "model_not_found")
    assert status == 400 and body["error"]["code"] == "model_not_found"
    assert body["error"]["message"].startswith('Invalid model identifier "')
    assert error_reply("lmstudio", "context_length") == (400, {}, {"error": CONTEXT_OVERFLOW})
    for kind in ("rate_limit", "quota", "overloaded", "server_error", "permission"):
        with pytest.raises(KeyError):
            error_reply("lmstudio", kind)


def test_reference_profile_claims_the_documented_tool_choices() -> None:
    assert PROFILE.tool_choice == frozenset({"auto", "none", "required"})
    assert "wire.tool_choice_named" not in reference_cases("lmstudio", PROFILE)


# -- the provider's rules, with their texts -----------------------------------------------------

def test_routes_and_auth() -> None:
    d = get_dialect("lmstudio")
    assert d.base_path == "/v1" and d.route("POST", "/v1/chat/completions")
    for method, path in (("POST", "/chat/completions"), ("GET", "/v1/chat/completions"),
                         ("POST", "/api/v1/chat")):
        assert not d.route(method, path)
    wrong = d.not_found("POST", "/chat/completions")
    assert wrong.status == 200, "'Returning 200 anyway'"
    assert dict(wrong.body) == {"error": "Unexpected endpoint or method. (POST /chat/completions)"}
    assert d.check_auth({"authorization": "Bearer sk-lm-abc:def"}, {}, "sk-lm-abc:def") is None
    for headers, rule in (({}, "auth.missing"), ({"authorization": "Bearer no"}, "auth.invalid")):
        denied = d.check_auth(headers, {}, "sk-lm-abc:def")
        assert denied is not None and (denied.status, denied.rule) == (401, rule)
        assert dict(denied.body)["error"]["message"] == AUTH_REQUIRED


def test_unknown_route_is_a_200_with_an_error_string(endpoint: Endpoint) -> None:
    r = endpoint.client.post(endpoint.base_url.rsplit("/v1", 1)[0] + "/chat/completions",
                             json={"model": "m", "messages": []})
    assert r.status_code == 200 and r.json() == {
        "error": "Unexpected endpoint or method. (POST /chat/completions)"}


def test_answer_shape() -> None:
    turn = Turn(text=None, reasoning=(Reasoning(type="thinking", text="hm"),),
                tool_calls=(ScriptedCall(name="get_time"), ScriptedCall(name="get_weather")),
                usage=Usage(input_tokens=3, output_tokens=2, total_tokens=5))
    data = LMStudio().encode_response(turn, {"model": "qwen/qwen3-4b-2507"})
    assert data["id"].startswith("chatcmpl-") and len(data["id"]) == len("chatcmpl-") + 22
    assert data["system_fingerprint"] == data["model"] == "qwen/qwen3-4b-2507"
    message = data["choices"][0]["message"]
    assert "content" not in message, "a tool-call message has no content key (docs)"
    assert message["reasoning_content"] == "hm"
    ids = [x["id"] for x in message["tool_calls"]]
    assert all(i.isdigit() and len(i) == 9 for i in ids) and len(set(ids)) == 2
    assert data["usage"] == {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    oss = LMStudio().encode_response(turn, {"model": "openai/gpt-oss-20b"})
    assert oss["choices"][0]["message"]["reasoning"] == "hm"
    assert "reasoning_content" not in oss["choices"][0]["message"]
    assert reasoning_field("openai/gpt-oss-120b") == "reasoning"


def test_stream_shape() -> None:
    turn = Turn(tool_calls=(ScriptedCall(name="get_weather", arguments={"city": "Paris"}),),
                usage=Usage(input_tokens=3, output_tokens=2, total_tokens=5),
                stream=StreamPlan(fragment_size=4))
    chunks = w.sse_chunks(LMStudio().encode_stream(turn, {"model": "m"}))
    deltas = [ch["choices"][0]["delta"] for ch in chunks]
    first, rest = deltas[0]["tool_calls"][0], [d["tool_calls"][0] for d in deltas[1:-1]]
    assert deltas[0]["role"] == "assistant", "no empty role chunk: role on the first delta"
    assert first["id"].isdigit() and first["type"] == "function"
    assert first["function"] == {"name": "get_weather", "arguments": ""}
    assert all(set(f) == {"index", "function"} and set(f["function"]) == {"arguments"}
               for f in rest), "id, type and name come once"
    assert deltas[-1] == {} and chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
    assert all(ch["system_fingerprint"] == "m" and "usage" not in ch for ch in chunks)
    asked = w.sse_chunks(LMStudio().encode_stream(turn, {"model": "m", "stream_options": {
        "include_usage": True}}))
    assert asked[-1]["choices"] == [] and asked[-1]["usage"]["total_tokens"] == 5
    text = w.sse_chunks(LMStudio().encode_stream(Turn(text="Hello there"), {"model": "m"}))
    assert text[0]["choices"][0]["delta"] == {"role": "assistant", "content": "Hell"}


def test_stream_error_event() -> None:
    turn = Turn(text="The weather in Paris is", stream=StreamPlan(
        error_after=2, error=ErrorReply(status=200, message=STREAM_CONTEXT_OVERFLOW)))
    events = LMStudio().encode_stream(turn, {"model": "m"})
    assert events[-1] == (b"event: error\ndata: " + json.dumps(
        {"error": {"message": STREAM_CONTEXT_OVERFLOW}, "message": STREAM_CONTEXT_OVERFLOW},
        separators=(",", ":")).encode() + b"\n\n")
    assert b"[DONE]" not in b"".join(events), "the stream ends at the error"


def test_no_quirk_is_declared_and_the_openai_quirks_still_play() -> None:
    assert get("lmstudio").quirks == {}
    two = (ScriptedCall(name="a", arguments={"x": 1}), ScriptedCall(name="b", arguments={"y": 2}))
    for quirk, probe in (("index_missing", lambda f: "index" not in f),
                         ("index_stuck_at_zero", lambda f: f["index"] == 0),
                         ("repeat_id_name", lambda f: "id" in f),
                         ("no_ids", lambda f: "id" not in f)):
        turn = Turn(tool_calls=two, stream=StreamPlan(quirks=frozenset({quirk})))
        frags = [f for ch in w.sse_chunks(LMStudio().encode_stream(turn, {}))
                 for f in ch["choices"][0]["delta"].get("tool_calls") or ()]
        assert frags and all(probe(f) for f in frags), quirk
    spaced = LMStudio().encode_stream(Turn(text="hi", stream=StreamPlan(
        quirks=frozenset({"data_no_space"}))), {})
    assert all(e.startswith(b"data:{") or e == b"data:[DONE]\n\n" for e in spaced)


def test_provider_facts_are_sourced_and_dated() -> None:
    assert_sourced_and_dated(
        "lmstudio", "routes unknown_route auth error_shape unknown_model no_model_loaded "
        "context_length midstream_error tool_choice ids stream_fragments reasoning "
        "invalid_messages",
        unconfirmed="auth_status_and_wrong_token stream_usage stream_role_calls_only "
        "request_errors server_error", or_later=True)


# -- fidelity: the official openai SDK reads everything the lmstudio fake sends -----------------

openai, sdk = w.openai_and_sdk("lmstudio")


@w.each_answer("lmstudio")
def test_openai_sdk_reads_every_lmstudio_answer(sdk: tuple[Any, FakeProvider], step: Any,
                                                mode: str) -> None:
    client, turn, body = w.expect(sdk, step, LMStudioAdapter)
    if mode == "stream_helper":  # usage in a stream only when asked (0.3.18), as OpenAI
        body["stream_options"] = {"include_usage": True}
    field = reasoning_field(body["model"])
    got = w.read_answer(client, body, mode)
    if got.streamed:
        assert got.finish == turn.expected_finish()
        assert got.roles[0] == "assistant" and not any(got.roles[1:])
    assert got.calls == w.wanted_calls(turn, LMStudio.call_ids)
    assert w.reasoning_read(got, field, turn) == w.wanted_reasoning(turn)
    if mode == "create_stream":
        assert got.usage is None, "not asked for: no usage chunk"
    else:
        w.assert_usage_read(got, turn)


def _ask() -> dict[str, Any]:
    return {"model": "qwen/qwen3-4b-2507", "messages": [{"role": "user", "content": "hi"}]}


def test_openai_sdk_raises_the_stream_error_event(sdk: tuple[Any, FakeProvider]) -> None:
    client, fake = sdk
    fake.expect(Turn(text="The weather in Paris is", stream=StreamPlan(
        error_after=2, error=ErrorReply(status=200, message=STREAM_CONTEXT_OVERFLOW))))
    with pytest.raises(openai.APIError) as exc:
        list(client.chat.completions.create(**_ask(), stream=True))
    assert STREAM_CONTEXT_OVERFLOW in str(exc.value)


def test_openai_sdk_raises_string_and_object_errors(sdk: tuple[Any, FakeProvider]) -> None:
    client, fake = sdk
    fake.expect(Turn(error=ErrorReply(status=400, raw_body=json.dumps(
        {"error": NO_MODELS_LOADED}))))
    with pytest.raises(openai.BadRequestError) as exc:
        client.chat.completions.create(**_ask())
    # the SDK keeps the string as the error's body (its str() says only "Error code: 400")
    assert exc.value.status_code == 400 and exc.value.body == NO_MODELS_LOADED
    fake.expect(Turn(error=ErrorReply(kind="model_not_found")))
    with pytest.raises(openai.BadRequestError) as exc:
        client.chat.completions.create(**_ask())
    assert exc.value.code == "model_not_found"

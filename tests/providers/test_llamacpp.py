"""The ``llamacpp`` provider (issue 13): llama.cpp's llama-server on the openai wire.

Its rules with their exact texts (each with a request it accepts and one it refuses), its error
bodies, its stream shape and the quirk it declares, what its reference profile claims and sends, and
the official openai SDK (strict validation) reading every response and stream the fake sends. The
llama.cpp cases with their negative controls (``controls_llamacpp.py``) and the reference adapter on
every case that applies to llamacpp run in ``test_controls.py``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import openai_wire_sdk as w
import pytest
from provider_kit import TOOL, assert_sourced_and_dated, chat_body

from pytest_toolcall.cases import (
    ErrorReply,
    ScriptedCall,
    StreamPlan,
    Turn,
    Usage,
    default_registry,
)
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.llamacpp.dialect import (
    BUILD,
    COMPLETION_ID,
    FILE_NOT_FOUND,
    INVALID_KEY,
    JINJA_REQUIRED,
    LlamaCpp,
)
from pytest_toolcall.providers.fake import FakeProvider
from pytest_toolcall.core.model import Reasoning
from pytest_toolcall.providers import get
from pytest_toolcall.providers.llamacpp.reference import LlamaCppAdapter
from pytest_toolcall.reference import reference_profile

PROFILE = reference_profile("llamacpp")
_ID = re.compile(r"^[0-9A-Za-z]{32}$")


def test_llamacpp_errors_in_its_own_words() -> None:
    from pytest_toolcall.providers.errors import error_reply

    assert error_reply("llamacpp", "auth") == (401, {}, {"error": {
        "message": INVALID_KEY, "type": "authentication_error", "code": 401}})
    status, headers, body = error_reply("llamacpp", "context_length")
    assert (status, headers) == (400, {})
    assert body["error"]["type"] == "exceed_context_size_error"
    assert body["error"]["message"] == ("request (36017 tokens) exceeds the available context "
                                        "size (32768 tokens), try increasing it")
    assert (body["error"]["n_prompt_tokens"], body["error"]["n_ctx"]) == (36017, 32768)
    status, _, body = error_reply("llamacpp", "server_error")
    assert status == 500 and body["error"]["type"] == "server_error"
    assert body["error"]["message"].startswith("Failed to parse input at pos ")
    assert error_reply("llamacpp", "overloaded") == (503, {}, {"error": {
        "code": 503, "message": "Loading model", "type": "unavailable_error"}})
    for kind in ("auth", "context_length", "server_error", "overloaded"):
        error = error_reply("llamacpp", kind)[2]["error"]
        assert isinstance(error["code"], int) and error["code"] == error_reply("llamacpp",
                                                                               kind)[0]
    for kind in ("rate_limit", "quota", "permission", "model_not_found"):
        with pytest.raises(KeyError):
            error_reply("llamacpp", kind)


def test_reference_profile_claims_the_tool_choice_strings() -> None:
    assert PROFILE.tool_choice == frozenset({"auto", "none", "required"})
    skipped = {case.id for case in default_registry().select(dialect="llamacpp")
               if any(n.startswith("tool_choice.") and not PROFILE.claims(n) for n in case.needs)}
    assert "wire.tool_choice_named" in skipped
    assert not {"wire.tool_choice_none", "wire.tool_choice_required"} & skipped


def test_reference_sends_enable_thinking_as_a_template_kwarg() -> None:
    from pytest_toolcall.core.model import ChatRequest, UserMessage

    adapter = LlamaCppAdapter("http://unused.invalid", "k")
    ask = (UserMessage(content="hi"),)
    off = adapter.build_body(ChatRequest(messages=ask, reasoning=False), stream=False)
    assert off["chat_template_kwargs"] == {"enable_thinking": False} and "thinking" not in off
    assert "chat_template_kwargs" not in adapter.build_body(ChatRequest(messages=ask),
                                                           stream=False)
    assert LlamaCpp().decode_request(off).reasoning is False


# -- the provider's rules, with their texts -----------------------------------------------------

def test_routes_and_auth() -> None:
    d = get_dialect("llamacpp")
    assert d.base_path == "/v1"
    for path in ("/v1/chat/completions", "/chat/completions"):
        assert d.route("POST", path)
    assert not d.route("POST", "/api/chat")
    assert not d.route("GET", "/v1/chat/completions")
    missing = d.not_found("POST", "/nope")
    assert (missing.status, dict(missing.body)) == (404, {"error": {
        "code": 404, "message": FILE_NOT_FOUND, "type": "not_found_error"}})
    for headers in ({"authorization": "Bearer sk-local"}, {"authorization": "sk-local"},
                    {"x-api-key": "sk-local"}):
        assert d.check_auth(headers, {}, "sk-local") is None, headers
    # Authorization wins over X-Api-Key when both are there
    assert d.check_auth({"authorization": "Bearer x", "x-api-key": "sk-local"}, {},
                        "sk-local") is not None
    wrong = d.check_auth({"authorization": "Bearer nope"}, {}, "sk-local")
    none = d.check_auth({}, {}, "sk-local")
    assert wrong is not None and none is not None
    assert (wrong.rule, none.rule) == ("auth.invalid", "auth.missing")
    for refused in (wrong, none):
        assert (refused.status, dict(refused.body)) == (401, {"error": {
            "code": 401, "message": INVALID_KEY, "type": "authentication_error"}})


def _body(**extra: Any) -> dict[str, Any]:
    return chat_body("gpt-oss-20b", **{"tools": [TOOL], **extra})


def test_tool_choice_strings_and_the_named_fallback() -> None:
    d = LlamaCpp()
    for choice in ("auto", "none", "required", None):
        assert d.validate(_body(tool_choice=choice)) is None, choice
    refused = d.validate(_body(tool_choice="any"))
    assert refused is not None and (refused.status, refused.rule) == (400, "tool_choice.value")
    assert dict(refused.body) == {"error": {"code": 400, "message": "Invalid tool_choice: any",
                                            "type": "invalid_request_error"}}
    # an object is read as "auto" by llama-server (json_value's fallback): accepted
    named = _body(tool_choice={"type": "function", "function": {"name": "f"}})
    assert d.validate(named) is None


def test_messages_rules_in_llama_server_words() -> None:
    d = LlamaCpp()
    body = _body()
    del body["messages"]
    refused = d.validate(body)
    assert refused is not None and dict(refused.body) == {"error": {
        "code": 400, "message": "'messages' is required", "type": "invalid_request_error"}}
    refused = d.validate(_body(messages="hi"))
    assert refused is not None and refused.message == "Expected 'messages' to be an array"


def test_reasoning_content_decoded_and_not_enforced() -> None:
    d = LlamaCpp()
    call = {"role": "assistant", "content": None, "reasoning_content": "hm", "tool_calls": [
        {"id": "a" * 32, "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    result = {"role": "tool", "tool_call_id": "a" * 32, "content": "ok"}
    body = _body(messages=[{"role": "user", "content": "q"}, call, result],
                 chat_template_kwargs={"enable_thinking": True})
    assert d.validate(body) is None
    request = d.decode_request(body)
    assert request.reasoning is True
    assert request.messages[1].reasoning == (Reasoning(type="thinking", text="hm"),)
    dropped = {k: v for k, v in call.items() if k != "reasoning_content"}
    assert d.validate(_body(messages=[{"role": "user", "content": "q"}, dropped, result])) is None


_TURN = Turn(reasoning=(Reasoning(type="thinking", text="abcdef"),),
             tool_calls=(ScriptedCall(name="get_time", arguments='{"tz": "UTC"}'),
                         ScriptedCall(name="get_weather", arguments='{"city": "Paris"}')),
             usage=Usage(input_tokens=3, output_tokens=2, total_tokens=5))


def test_response_shape() -> None:
    data = LlamaCpp().encode_response(_TURN, {"model": "gpt-oss-20b"})
    assert data["id"] == COMPLETION_ID and re.match(r"^chatcmpl-[0-9A-Za-z]{32}$", data["id"])
    assert data["object"] == "chat.completion" and data["system_fingerprint"] == BUILD
    message = data["choices"][0]["message"]
    assert list(message) == ["role", "reasoning_content", "content", "tool_calls"]
    assert message["content"] is None, "content is null when the model only made calls"
    assert message["reasoning_content"] == "abcdef"
    for call in message["tool_calls"]:
        assert list(call) == ["type", "function", "id"] and _ID.match(call["id"])
    assert len({call["id"] for call in message["tool_calls"]}) == 2
    assert data["usage"] == {"completion_tokens": 2, "prompt_tokens": 3, "total_tokens": 5,
                             "prompt_tokens_details": {"cached_tokens": 0}}
    assert {"cache_n", "prompt_n", "predicted_n", "predicted_per_second"} <= set(data["timings"])
    text = LlamaCpp().encode_response(Turn(text="Hi."), {})["choices"][0]["message"]
    assert text == {"role": "assistant", "content": "Hi."}


def test_stream_shape() -> None:
    chunks = w.sse_chunks(LlamaCpp().encode_stream(_TURN, {"model": "gpt-oss-20b"}))
    deltas = [ch["choices"][0]["delta"] for ch in chunks]
    assert deltas[0] == {"role": "assistant", "content": None}, "the role chunk goes alone"
    assert all("role" not in d for d in deltas[1:])
    assert "".join(d.get("reasoning_content") or "" for d in deltas) == "abcdef"
    frags = [f for d in deltas for f in d.get("tool_calls") or ()]
    assert all("index" in f for f in frags)
    for k in (0, 1):
        mine = [f for f in frags if f["index"] == k]
        assert _ID.match(mine[0]["id"]) and mine[0]["type"] == "function"
        assert mine[0]["function"]["name"]
        assert all("id" not in f and "name" not in f["function"] for f in mine[1:])
    assert [f["index"] for f in frags] == sorted(f["index"] for f in frags), "one after another"
    last = chunks[-1]
    assert last["choices"][0] == {"finish_reason": "tool_calls", "index": 0, "delta": {}}
    assert "usage" not in last and "timings" in last, "no include_usage: no usage at all"
    assert all(ch["system_fingerprint"] == BUILD and ch["id"] == COMPLETION_ID for ch in chunks)
    # include_usage: a choices: [] chunk with the usage, the timings on it
    asked = w.sse_chunks(LlamaCpp().encode_stream(
        _TURN, {"stream_options": {"include_usage": True}}))
    assert asked[-1]["choices"] == [] and asked[-1]["usage"]["total_tokens"] == 5
    assert "timings" in asked[-1] and "timings" not in asked[-2]
    assert all("usage" not in ch for ch in asked[:-1])


def test_error_inside_a_stream_ends_it_without_done() -> None:
    turn = Turn(text="Hello there.", stream=StreamPlan(error_after=1))
    events = LlamaCpp().encode_stream(turn, {})
    assert events[-1] != b"data: [DONE]\n\n"
    error = json.loads(events[-1][len(b"data: "):])
    assert set(error) == {"error"} and isinstance(error["error"]["code"], int)
    assert error["error"]["type"] == "server_error" and error["error"]["code"] == 500
    loading = ErrorReply(status=503, message="Loading model")
    assert LlamaCpp().encode_error(loading) == (503, {"error": {
        "code": 503, "message": "Loading model", "type": "unavailable_error"}})


def _frags(events: list[bytes]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    chunks = [json.loads(e.split(b"data:", 1)[1]) for e in events
              if e.startswith(b"data:") and not e.endswith(b"[DONE]\n\n")]
    deltas = [ch["choices"][0]["delta"] for ch in chunks if ch["choices"]]
    return deltas[0], [f for d in deltas for f in d.get("tool_calls") or ()]


def test_the_fake_plays_every_declared_quirk_and_the_shared_ones() -> None:
    declared = set(get("llamacpp").quirks)
    assert declared == {"role_chunk_alone"}
    one = Turn(tool_calls=(ScriptedCall(name="get_time", arguments="{}"),))
    for quirks in (frozenset(), frozenset({"role_chunk_alone"})):
        role, frags = _frags(LlamaCpp().encode_stream(
            one.model_copy(update={"stream": StreamPlan(quirks=quirks)}), {}))
        assert "tool_calls" not in role and frags, quirks
    plan = {"index_missing": lambda f: all("index" not in x for x in f),
            "index_stuck_at_zero": lambda f: {x["index"] for x in f} == {0},
            "repeat_id_name": lambda f: all("id" in x for x in f),
            "no_ids": lambda f: all("id" not in x for x in f)}
    for quirk, holds in plan.items():
        _, frags = _frags(LlamaCpp().encode_stream(_TURN.model_copy(update={
            "stream": StreamPlan(quirks=frozenset({quirk}))}), {}))
        assert holds(frags), quirk
    _, mixed = _frags(LlamaCpp().encode_stream(_TURN.model_copy(update={
        "stream": StreamPlan(quirks=frozenset({"interleave"}), fragment_size=2)}), {}))
    assert [f["index"] for f in mixed][:2] == [0, 1]
    role, _ = _frags(LlamaCpp().encode_stream(_TURN.model_copy(update={
        "reasoning": (), "stream": StreamPlan(quirks=frozenset({"call_in_role_chunk"}))}), {}))
    assert role["tool_calls"]
    events = LlamaCpp().encode_stream(one.model_copy(update={
        "stream": StreamPlan(quirks=frozenset({"data_no_space", "sse_comments"}))}), {})
    assert any(e.startswith(b":") for e in events)
    assert all(e.startswith(b"data:{") or e.startswith(b":") or e == b"data:[DONE]\n\n"
               for e in events)


def test_provider_facts_are_sourced_and_dated() -> None:
    assert_sourced_and_dated(
        "llamacpp", "routes auth error_shape context_length jinja_required tool_choice "
        "parallel_tool_calls ids response_shape stream_shape stream_usage midstream_error "
        "reasoning_content message_parse",
        unconfirmed="request_errors", quirks=True, or_later=True)


def test_llama_server_parse_errors_are_its_500s() -> None:
    """Fact message_parse: what common/chat.cpp parses itself is a 500 server_error in its
    words; what it does not read (a call without id, content: null) is taken, no finding."""
    from pytest_toolcall.providers.base import noting_breaches
    from pytest_toolcall.providers.llamacpp.dialect import LlamaCpp

    d = LlamaCpp()
    user = {"role": "user", "content": "hi"}
    call = {"type": "function", "function": {"name": "f", "arguments": "{}"}}
    refused = d.validate({"model": "m", "messages": [{"content": "hi"}]})
    assert refused is not None and refused.status == 500
    assert refused.body == {"error": {"code": 500, "type": "server_error", "message":
                                      "Failed to parse messages: Missing 'role' in message: "
                                      '{"content":"hi"}'}}
    refused = d.validate({"model": "m", "messages": [user], "tools": [{"function": {}}]})
    assert refused is not None and refused.rule == "tools.type.missing"
    assert refused.body["error"]["message"].startswith(
        'Failed to parse tools: Missing tool type: {"function":{}}; tools = [')
    with noting_breaches() as breaches:
        assert d.validate({"model": "m", "messages": [
            user, {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "x", "content": "ok"}]}) is None
    # the call without id is taken; the result answering no call is OpenAI's breach
    assert [b.rule for b in breaches] == ["messages.tool.unknown_id"]


# -- fidelity: the official openai SDK reads everything the llamacpp fake sends -----------------

openai, sdk = w.openai_and_sdk("llamacpp")


def _read_stream(client: Any, body: dict[str, Any]) -> w.Answer:
    """``create(stream=True)`` read chunk by chunk: the finish from the last chunk with a choice,
    the usage from llama-server's ``choices: []`` chunk after it (openai_wire_sdk.read_answer
    reads both from the last chunk)."""
    chunks = list(client.chat.completions.create(**body, stream=True))
    return w.stream_answer(chunks, usage=w.last_usage(chunks), finish=w.last_finish(chunks))


@w.each_answer("llamacpp", quirks=frozenset({"role_chunk_alone"}))
def test_openai_sdk_reads_every_llamacpp_answer(sdk: tuple[Any, FakeProvider], step: Any,
                                                mode: str) -> None:
    client, turn, body = w.expect(sdk, step, LlamaCppAdapter)
    if mode != "create":
        # llama-server sends usage in a stream only when asked (stream_options.include_usage)
        body["stream_options"] = {"include_usage": True}
    got = _read_stream(client, body) if mode == "create_stream" else w.read_answer(client, body,
                                                                                  mode)
    assert got.calls == w.wanted_calls(turn, LlamaCpp.call_ids)
    want = w.wanted_reasoning(turn)
    if got.extras is not None:  # the stream helper keeps only OpenAI's fields
        if got.streamed:
            pieces = [e["reasoning_content"] for e in got.extras
                      if isinstance(e.get("reasoning_content"), str)]
            assert ("".join(pieces) if pieces else None) == want
            assert got.roles[0] == "assistant" and got.contents[0] is None
            assert got.finish == turn.expected_finish()
        else:
            assert got.extras[0].get("reasoning_content") == want
            assert "timings" not in got.extras[0]  # on the completion, not the message
    w.assert_usage_read(got, turn)


def test_openai_sdk_keeps_timings_as_an_extra_field(sdk: tuple[Any, FakeProvider]) -> None:
    client, fake = sdk
    fake.expect(Turn(text="Hi.", usage=Usage(input_tokens=3, output_tokens=2, total_tokens=5)))
    done = client.chat.completions.create(model="gpt-oss-20b",
                                          messages=[{"role": "user", "content": "hi"}])
    assert done.id == COMPLETION_ID and done.usage is not None and done.usage.total_tokens == 5
    assert (done.model_extra or {})["timings"]["prompt_n"] == 3
    fake.expect(Turn(text="Hi.", usage=Usage(input_tokens=3, output_tokens=2, total_tokens=5)))
    chunks = list(client.chat.completions.create(
        model="gpt-oss-20b", messages=[{"role": "user", "content": "hi"}], stream=True,
        stream_options={"include_usage": True}))
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert (chunks[-1].model_extra or {})["timings"]["predicted_n"] == 2


def test_openai_sdk_raises_llama_server_errors(sdk: tuple[Any, FakeProvider]) -> None:
    client, fake = sdk
    ask = {"model": "gpt-oss-20b", "messages": [{"role": "user", "content": "hi"}]}
    fake.expect(Turn(error=ErrorReply(kind="context_length")))
    with pytest.raises(openai.BadRequestError) as bad:
        client.chat.completions.create(**ask)
    assert bad.value.status_code == 400 and bad.value.code == "400"  # the SDK makes it a str
    assert bad.value.type == "exceed_context_size_error"
    fake.expect(Turn(error=ErrorReply(status=500, raw_body=(
        '{"error":{"code":500,"message":"' + JINJA_REQUIRED + '","type":"server_error"}}'))))
    with pytest.raises(openai.InternalServerError) as failed:
        client.chat.completions.create(**ask, tools=[TOOL])
    assert JINJA_REQUIRED in str(failed.value)
    fake.expect(Turn(text="Hello there, friend.", stream=StreamPlan(error_after=1)))
    with pytest.raises(openai.APIError) as broke:
        list(client.chat.completions.create(**ask, stream=True))
    assert "server had an error" in str(broke.value)
    keyless = w.openai_client(type("E", (), {"base_url": client.base_url, "api_key": "x"})())
    with pytest.raises(openai.AuthenticationError) as denied:
        keyless.chat.completions.create(**ask)
    assert denied.value.status_code == 401 and INVALID_KEY in str(denied.value)
    keyless.close()

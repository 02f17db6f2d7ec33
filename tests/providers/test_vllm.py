"""The ``vllm`` provider (issue 13): vLLM's OpenAI-compatible server on the openai wire.

Its rules with their exact texts, its error bodies, its stream shape (and the quirk it declares),
and the official openai SDK (strict validation) reading every response and stream the fake sends.
The vLLM cases with their negative controls (``controls_vllm.py``) and the reference adapter on
every case that applies to vllm run in ``test_controls.py``.
"""

from __future__ import annotations

import json
from typing import Any

import openai_wire_sdk as w
import pytest
from provider_kit import assert_sourced_and_dated, bearer_refusals

from pytest_toolcall.cases import ScriptedCall, StreamPlan, Turn, default_registry
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.vllm.dialect import (
    AUTO_NEEDS_PARSER,
    EMPTY_TOOLS,
    GENERATION_ERROR,
    STREAM_OPTIONS,
    TOOL_CHOICE_UNKNOWN,
    VLLM,
)
from pytest_toolcall.providers.fake import FakeProvider
from pytest_toolcall.core.model import Reasoning, Usage
from pytest_toolcall.providers import get
from pytest_toolcall.providers.vllm.reference import VLLMAdapter


def test_vllm_errors_in_its_own_words() -> None:
    from pytest_toolcall.providers.errors import error_reply

    assert error_reply("vllm", "auth") == (401, {}, {"error": "Unauthorized"})
    status, _, body = error_reply("vllm", "model_not_found")
    assert (status, body["error"]["type"], body["error"]["code"]) == (404, "NotFoundError", 404)
    assert body["error"]["message"].endswith("does not exist.")


# -- the provider's rules, with their texts -----------------------------------------------------

def test_routes_and_auth() -> None:
    d = get_dialect("vllm")
    assert d.route("POST", "/v1/chat/completions")
    assert not d.route("POST", "/chat/completions") and not d.route("GET", "/v1/chat/completions")
    assert dict(d.not_found("POST", "/chat/completions").body) == {"detail": "Not Found"}
    for found in bearer_refusals(d, "k-1"):
        assert found.status == 401
        assert dict(found.body) == {"error": "Unauthorized"}, "one answer for both"


def _body(**extra: Any) -> dict[str, Any]:
    return {"model": "Qwen/Qwen3-8B", "messages": [{"role": "user", "content": "hi"}], **extra}


_TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}


def test_request_rules_in_vllms_words() -> None:
    d = VLLM()
    empty = d.validate(_body(tools=[]))
    assert empty is not None and empty.rule == "tools.empty" and EMPTY_TOOLS in empty.message
    error = dict(empty.body)["error"]
    assert (error["type"], error["code"], error["param"]) == ("Bad Request", 400, "tools")
    assert error["message"].startswith("1 validation error:\n")
    options = d.validate(_body(stream_options={"include_usage": True}))
    assert options is not None and STREAM_OPTIONS in options.message
    assert d.validate(_body(stream=True, stream_options={"include_usage": True})) is None
    unknown = d.validate(_body(tools=[_TOOL], tool_choice={"type": "function",
                                                            "function": {"name": "g"}}))
    assert unknown is not None and TOOL_CHOICE_UNKNOWN in unknown.message
    for choice in ("auto", "required", "none", {"type": "function", "function": {"name": "f"}}):
        assert d.validate(_body(tools=[_TOOL], tool_choice=choice)) is None
    # a server started without --enable-auto-tool-choice: tools alone mean "auto"
    bare = VLLM(auto_tools=False)
    for body in (_body(tools=[_TOOL]), _body(tools=[_TOOL], tool_choice="auto")):
        found = bare.validate(body)
        assert found is not None and dict(found.body) == {"error": {
            "message": AUTO_NEEDS_PARSER, "type": "BadRequestError", "param": None,
            "code": 400}}
    assert bare.validate(_body(tools=[_TOOL], tool_choice="none")) is None


def test_stream_shape() -> None:
    turn = Turn(reasoning=(Reasoning(type="thinking", text="abcdef"),), tool_calls=(
        ScriptedCall(name="get_time", arguments='{"tz": "UTC"}'),),
        usage=Usage(input_tokens=3, output_tokens=4, total_tokens=7))
    plain = w.sse_chunks(VLLM().encode_stream(turn, {"model": "m"}))
    assert plain[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert plain[0]["prompt_token_ids"] is None
    deltas = [ch["choices"][0]["delta"] for ch in plain]
    assert "".join(d.get("reasoning") or "" for d in deltas) == "abcdef"
    assert not any("reasoning_content" in d for d in deltas)
    frags = [f for d in deltas for f in d.get("tool_calls") or ()]
    assert frags[0]["id"].startswith("chatcmpl-tool-") and len(frags[0]["id"]) == 30
    assert frags[0]["function"] == {"name": "get_time"}, "no arguments key on the first"
    assert all(set(f) == {"index", "function"} for f in frags[1:])
    last = plain[-1]["choices"][0]
    assert last["finish_reason"] == "tool_calls" and last["stop_reason"] is None
    assert last["delta"]["tool_calls"][0]["function"]["arguments"], "last piece on the finish"
    assert "".join(f["function"].get("arguments", "") for f in frags) == '{"tz": "UTC"}'
    assert not any("usage" in ch for ch in plain), "no usage without include_usage"
    usage = w.sse_chunks(VLLM().encode_stream(turn, {"stream_options": {"include_usage": True}}))
    assert usage[-1]["choices"] == [] and usage[-1]["usage"] == {
        "prompt_tokens": 3, "total_tokens": 7, "completion_tokens": 4}
    assert not any("usage" in ch for ch in usage[:-1])
    every = w.sse_chunks(VLLM().encode_stream(turn, {"stream_options": {
        "include_usage": True, "continuous_usage_stats": True}}))
    assert all("usage" in ch for ch in every)


def test_declared_quirks_are_played() -> None:
    """Every quirk in the registry's ``quirks`` is what the fake sends when a plan asks."""
    declared = get("vllm").quirks
    assert set(declared) == {"role_chunk_alone"}
    for quirk in declared:
        turn = Turn(tool_calls=(ScriptedCall(name="f", arguments={"a": 1}),),
                    stream=StreamPlan(quirks=frozenset({quirk})))
        chunks = w.sse_chunks(VLLM().encode_stream(turn, {}))
        assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
        assert "tool_calls" in chunks[1]["choices"][0]["delta"]


def test_error_in_a_stream_is_followed_by_done() -> None:
    turn = Turn(text="The weather in Paris is", stream=StreamPlan(error_after=2))
    events = VLLM().encode_stream(turn, {})
    assert events[-1] == b"data: [DONE]\n\n"
    assert json.loads(events[-2][len(b"data: "):]) == {"error": GENERATION_ERROR}


def test_full_answer_shape() -> None:
    turn = Turn(reasoning=(Reasoning(type="thinking", text="hm"),),
                tool_calls=(ScriptedCall(name="f", arguments={}),))
    data = VLLM().encode_response(turn, {"model": "m"})
    message = data["choices"][0]["message"]
    assert message["reasoning"] == "hm" and "reasoning_content" not in message
    assert message["tool_calls"][0]["id"].startswith("chatcmpl-tool-")
    assert data["choices"][0]["stop_reason"] is None and data["id"].startswith("chatcmpl-")
    assert VLLM().decode_request(_body(messages=[
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": None, "reasoning": "r", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "a", "content": "ok"}])).messages[1].reasoning[0].text \
        == "r"


def test_provider_facts_are_sourced_and_dated() -> None:
    vl = assert_sourced_and_dated(
        "vllm", "routes auth error_shape error_shape_history tool_choice reasoning stream_shape "
        "midstream_error ids context_length request_model", quirks=True, or_later=True)
    for name in ("error_shape_history", "reasoning_content_history"):
        assert "historical" in str(vl.facts[name].value)


# -- fidelity: the official openai SDK reads everything the vllm fake sends --------------------

openai, sdk = w.openai_and_sdk("vllm")


def _read_vllm(client: Any, body: dict[str, Any]) -> w.Answer:
    """The SDK's chunks of a vLLM stream read as ``w.read_answer`` reads OpenAI's, except that
    the usage comes in a last ``choices: []`` chunk after the finish."""
    chunks = list(client.chat.completions.create(**body, stream=True))
    usage = next((ch.usage for ch in chunks if ch.usage is not None), None)
    assert chunks[-1].choices == [] or usage is None, "usage is the last chunk"
    return w.stream_answer(chunks, usage=usage, finish=w.last_finish(chunks))


@w.each_answer("vllm")
def test_openai_sdk_reads_every_vllm_answer(sdk: tuple[Any, FakeProvider], step: Any,
                                            mode: str) -> None:
    client, turn, body = w.expect(sdk, step, VLLMAdapter)
    if mode != "create":  # vLLM sends a stream's usage only when asked (and only then)
        body["stream_options"] = {"include_usage": True}
    got = _read_vllm(client, body) if mode == "create_stream" else w.read_answer(client, body,
                                                                                 mode)
    if got.streamed:
        assert got.finish == turn.expected_finish()
    assert got.calls == w.wanted_calls(turn, VLLM.call_ids)
    assert w.reasoning_read(got, "reasoning", turn) == w.wanted_reasoning(turn)
    w.assert_usage_read(got, turn)


def test_openai_sdk_reads_vllms_errors(sdk: tuple[Any, FakeProvider]) -> None:
    """The SDK's status errors carry vLLM's words: the nested body and the 401 string."""
    client, fake = sdk
    step = default_registry()["errors.vllm_auto_tool_choice_unconfigured"].steps[0]
    fake.expect(step.reply)
    with pytest.raises(openai.BadRequestError) as exc:
        client.chat.completions.create(**w.request_body(VLLMAdapter, step))
    assert AUTO_NEEDS_PARSER in str(exc.value) and exc.value.status_code == 400

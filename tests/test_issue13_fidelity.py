"""Issue 13, "Fidelity defects in today's fakes": each defect pinned by a test.

Facts measured in the wire corpus (the recorded real traffic shipped in ``tests/data/wire-corpus``,
or ``$TOOLCALL_WIRE_CORPUS``; see ``tests/corpus.py``) are checked against it. A missing corpus is
an error (``corpus.CorpusMissing``), never a skip: those tests would check nothing.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_toolcall.cases import ErrorReply, ScriptedCall, StreamPlan, Turn, error_type_for
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.core.model import Reasoning

import corpus


def _corpus(folder: str) -> list[corpus.Interaction]:
    pytest.importorskip("yaml", reason="PyYAML is needed to read the wire corpus (it is in the "
                        "'dev' extra)")
    # a missing folder raises corpus.CorpusMissing, naming where it looked
    return [i for path in corpus.files(folder) for i in corpus.load(path)]


def _sse_json(events: list[bytes]) -> list[tuple[str | None, Any]]:
    out: list[tuple[str | None, Any]] = []
    for event in events:
        name, data = None, None
        for line in event.decode().splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                payload = line[5:].strip()
                data = payload if payload == "[DONE]" else json.loads(payload)
        out.append((name, data))
    return out


# -- Anthropic usage and tool_use fields --------------------------------------------------------

ANTHROPIC = get_dialect("anthropic")
CALL_TURN = Turn(tool_calls=(ScriptedCall(name="get_weather", arguments={"city": "Paris"}),))


def _anthropic_stream(turn: Turn) -> dict[str, Any]:
    events = _sse_json(ANTHROPIC.encode_stream(turn, {"model": "claude-sonnet-4-5"}))
    return {name: data for name, data in events}


def test_anthropic_stream_usage_has_the_real_fields() -> None:
    events = _anthropic_stream(CALL_TURN)
    start = events["message_start"]["message"]["usage"]
    assert start["cache_creation"] == {"ephemeral_5m_input_tokens": 0,
                                       "ephemeral_1h_input_tokens": 0}
    assert start["service_tier"] == "standard"
    delta = events["message_delta"]["usage"]
    assert set(delta) == {"input_tokens", "cache_creation_input_tokens",
                          "cache_read_input_tokens", "output_tokens"}
    block = events["content_block_start"]["content_block"]
    assert block["caller"] == {"type": "direct"}


def test_anthropic_usage_matches_recorded_streams() -> None:
    real_start: set[frozenset[str]] = set()
    real_delta: set[frozenset[str]] = set()
    real_use: set[frozenset[str]] = set()
    for i in _corpus("anthropic"):
        if not (i.response_text and "event:" in i.response_text):
            continue
        for data in i.sse_chunks():
            if data.get("type") == "message_start":
                real_start.add(frozenset(data["message"]["usage"]) - {"inference_geo"})
            elif data.get("type") == "message_delta":
                real_delta.add(frozenset(data["usage"]) - {"server_tool_use", "iterations",
                                                           "output_tokens_details"})
            elif data.get("type") == "content_block_start" and \
                    data["content_block"]["type"] == "tool_use":
                real_use.add(frozenset(data["content_block"]))
    events = _anthropic_stream(CALL_TURN)
    # 9 recorded streams: every message_start has cache_creation and service_tier, no
    # message_delta has either (counted 2026-11-23)
    assert frozenset(events["message_start"]["message"]["usage"]) in real_start
    assert frozenset(events["message_delta"]["usage"]) in real_delta
    assert all("service_tier" not in d and "cache_creation" not in d for d in real_delta)
    assert frozenset(events["content_block_start"]["content_block"]) in real_use


# -- ErrorReply.type follows the status ---------------------------------------------------------

@pytest.mark.parametrize(("status", "kind"), [
    (400, "invalid_request_error"), (401, "invalid_request_error"), (404, "invalid_request_error"),
    (422, "invalid_request_error"), (429, "requests"), (500, "server_error"),
    (503, "server_error"), (200, "server_error"),
])
def test_error_type_follows_the_status(status: int, kind: str) -> None:
    assert ErrorReply(status=status).type == kind == error_type_for(status)
    # an explicit type wins
    assert ErrorReply(status=status, type="insufficient_quota").type == "insufficient_quota"


@pytest.mark.parametrize(("status", "kind"), [
    (400, "invalid_request_error"), (401, "authentication_error"), (403, "permission_error"),
    (404, "not_found_error"), (429, "rate_limit_error"), (500, "api_error"),
    (529, "overloaded_error"),
])
def test_anthropic_error_type_follows_the_status(status: int, kind: str) -> None:
    code, body = ANTHROPIC.encode_error(ErrorReply(status=status, message="m"))
    assert code == status and body == {"type": "error", "error": {"type": kind, "message": "m"}}


def test_openai_error_body_carries_the_status_type() -> None:
    code, body = get_dialect("openai").encode_error(ErrorReply(status=500, message="boom"))
    assert (code, body["error"]["type"]) == (500, "server_error")


# -- Python's None never leaks into a provider's error text ------------------------------------

NO_TYPE_TOOL = {
    "openai": {"model": "m", "messages": [{"role": "user", "content": "hi"}],
               "tools": [{"function": {"name": "f", "parameters": {"type": "object"}}}]},
    "openai-responses": {"model": "m", "input": "hi",
                         "tools": [{"name": "f", "parameters": {"type": "object"}}]},
}
NO_ROLE = {
    "openai": {"model": "m", "messages": [{"content": "hi"}]},
    "openai-responses": {"model": "m", "input": [{"content": "hi"}]},
}


@pytest.mark.parametrize("dialect", sorted(NO_TYPE_TOOL))
def test_a_tool_without_type_is_missing_not_none(dialect: str) -> None:
    rejection = get_dialect(dialect).validate(NO_TYPE_TOOL[dialect])
    assert rejection is not None and "None" not in rejection.message
    assert rejection.message == "Missing required parameter: 'tools[0].type'."
    assert rejection.rule == "tools.type.missing"


@pytest.mark.parametrize("dialect", sorted(NO_ROLE))
def test_a_message_without_role_is_missing_not_none(dialect: str) -> None:
    rejection = get_dialect(dialect).validate(NO_ROLE[dialect])
    assert rejection is not None and "None" not in rejection.message
    assert rejection.message.startswith("Missing required parameter: '")
    assert rejection.message.endswith("[0].role'.")


def test_no_rejection_text_of_the_openai_dialect_formats_a_bare_none() -> None:
    import inspect
    import re

    import pytest_toolcall.providers.openai.dialect as module

    # an f-string quoting a .get(...) that can be None is how 'None' leaked: the values quoted
    # in "Invalid value: '...'" are now checked to be strings first
    source = inspect.getsource(module)
    assert not re.search(r"Invalid value: '\{[a-z_]+\.get\(", source)


# -- the reference OpenAI adapter on a 200 whose content is a list ------------------------------

def _mistral_answer(content: Any) -> str:
    return json.dumps({"id": "x", "object": "chat.completion", "model": "magistral-medium-2509",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": content,
                                                "tool_calls": None}}],
                       "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}})


def _complete_raw(raw: str) -> Any:
    from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
    from pytest_toolcall.core.model import ChatRequest, UserMessage
    from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter

    fake = FakeProvider("openai", [Turn(error=ErrorReply(status=200, raw_body=raw))])
    endpoint = in_process_endpoint(fake)
    try:
        adapter = OpenAIChatAdapter.from_endpoint(endpoint)
        return adapter.complete(ChatRequest(messages=(UserMessage(content="hi"),)))
    finally:
        endpoint.close()


def test_reference_adapter_reads_the_text_of_a_content_list() -> None:
    # Mistral's reasoning models (docs.mistral.ai, Reasoning; confirmed 2026-11-23)
    content = [{"type": "thinking", "thinking": [{"type": "text", "text": "Let me think."}]},
               {"type": "text", "text": "Paris."}]
    response = _complete_raw(_mistral_answer(content))
    assert response.text == "Paris." and response.finish_reason == "stop"


@pytest.mark.parametrize("content", [42, {"text": "Paris."}, True])
def test_reference_adapter_raises_a_typed_error_on_other_content(content: Any) -> None:
    from pydantic import ValidationError

    from pytest_toolcall.core.errors import ProviderError

    with pytest.raises(ProviderError, match="malformed response") as exc:
        _complete_raw(_mistral_answer(content))
    assert not isinstance(exc.value, ValidationError)


def test_reference_adapter_raises_a_typed_error_on_bad_tool_calls() -> None:
    from pytest_toolcall.core.errors import ProviderError

    raw = json.loads(_mistral_answer("x"))
    raw["choices"][0]["message"]["tool_calls"] = [{"id": 1, "function": "nope"}]
    with pytest.raises(ProviderError, match="malformed response"):
        _complete_raw(json.dumps(raw))


def test_reference_stream_reads_a_content_list_delta() -> None:
    from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter, StreamAccumulator
    from pytest_toolcall.core.model import TextDelta

    acc = StreamAccumulator(OpenAIChatAdapter("http://x/v1", "k"))
    events = acc.feed({"choices": [{"index": 0, "finish_reason": None, "delta": {
        "content": [{"type": "thinking", "thinking": [{"type": "text", "text": "hm"}]},
                    {"type": "text", "text": "Par"}]}}]})
    assert events == [TextDelta(text="Par")]


# -- OpenAI: the default stream shape is the measured majority ----------------------------------

def test_openai_role_chunk_shape_counts_in_the_corpus() -> None:
    in_role = alone = 0
    for i in _corpus("openai-chat"):
        if not (i.is_openai_chat and i.response_text and "data:" in i.response_text):
            continue
        chunks = [c for c in i.sse_chunks() if c.get("choices")]
        calls = {f.get("index") for c in chunks for f in c["choices"][0]["delta"].get(
            "tool_calls") or ()}
        if not calls:
            continue
        first = chunks[0]["choices"][0]["delta"]
        if "tool_calls" in first:
            in_role += 1
            assert len(calls) == 1
        else:
            alone += 1
            assert len(calls) > 1 and first == {"role": "assistant", "content": None}
    # counted 2026-11-23: one call -> in the role chunk, parallel calls -> after a bare one
    assert (in_role, alone) == (23, 11)


# -- Gemini: the 2.0-flash ending and unsigned calls ---------------------------------------------

GEMINI = get_dialect("gemini")
ONE_CALL = (ScriptedCall(name="get_capital", arguments={"country": "France"}),)


def _gemini_chunks(turn: Turn) -> list[dict[str, Any]]:
    return [data for _, data in _sse_json(GEMINI.encode_stream(turn, {}))]


def test_gemini_finish_on_last_chunk() -> None:
    quirks = frozenset({"finish_on_last_chunk", "no_thought_signature"})
    chunks = _gemini_chunks(Turn(tool_calls=ONE_CALL, stream=StreamPlan(quirks=quirks)))
    assert len(chunks) == 1
    candidate = chunks[0]["candidates"][0]
    assert candidate == {"content": {"parts": [{"functionCall": {
        "name": "get_capital", "args": {"country": "France"}}}], "role": "model"},
        "finishReason": "STOP"}
    text = _gemini_chunks(Turn(text="The temperature in Paris is 30°C.", stream=StreamPlan(
        fragment_size=24, quirks=frozenset({"finish_on_last_chunk"}))))
    assert [c["candidates"][0].get("finishReason") for c in text] == [None, "STOP"]
    assert text[-1]["candidates"][0]["content"]["parts"] == [{"text": " is 30°C."}]


def test_gemini_default_ending_is_the_empty_chunk() -> None:
    chunks = _gemini_chunks(Turn(tool_calls=ONE_CALL))
    assert chunks[-1]["candidates"][0]["content"]["parts"] == [{"text": ""}]
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    assert "thoughtSignature" in chunks[0]["candidates"][0]["content"]["parts"][0]


def test_gemini_signatures_in_the_corpus_follow_the_model_not_the_id() -> None:
    seen: dict[tuple[str, bool, bool], int] = {}
    for i in _corpus("gemini"):
        model = i.path.split("/models/")[-1].split(":")[0]
        parts: list[dict[str, Any]] = []
        if isinstance(i.response_json, dict) and i.response_json.get("candidates"):
            parts = i.response_json["candidates"][0].get("content", {}).get("parts") or []
        elif i.response_text and "data:" in i.response_text:
            parts = [p for c in i.sse_chunks()
                     for p in (c.get("candidates") or [{}])[0].get("content", {}).get("parts")
                     or ()]
        first = next((p for p in parts if "functionCall" in p), None)
        if first is not None:
            key = (model.split("-")[1][:3], "id" in first["functionCall"],
                   "thoughtSignature" in first)
            seen[key] = seen.get(key, 0) + 1
    # 2.0: never signed; 2.5 / 3.x: always signed, with or without ids (2026-11-23)
    assert {k: v for k, v in seen.items() if k[0] == "2.0"} == {("2.0", False, False): 8}
    assert all(k[2] for k in seen if k[0] != "2.0")
    assert sum(v for k, v in seen.items() if k[0] != "2.0" and not k[1]) == 23


def test_gemini_unsigned_calls() -> None:
    turn = Turn(tool_calls=ONE_CALL, stream=StreamPlan(quirks=frozenset(
        {"no_ids", "no_thought_signature"})))
    part = GEMINI.encode_response(turn, {})["candidates"][0]["content"]["parts"][0]
    assert part == {"functionCall": {"name": "get_capital", "args": {"country": "France"}}}


# -- reasoning with tools: the canonical model and the fakes' rules ------------------------------

def test_reasoning_travels_through_the_canonical_model() -> None:
    from pytest_toolcall.core.model import (
        Reasoning,
        ReasoningComplete,
        StreamDone,
        ToolCall,
        ToolCallComplete,
        assemble_stream,
    )

    thought = Reasoning(type="thinking", text="hm", signature="sig")
    call = ToolCall.from_raw(id="c1", name="f", arguments="{}")
    response = assemble_stream([ReasoningComplete(reasoning=thought), ToolCallComplete(call=call),
                                StreamDone(finish_reason="tool_calls")])
    assert response.reasoning == (thought,)
    assert response.to_message().reasoning == (thought,)


def _anthropic_history(blocks: list[dict[str, Any]], thinking: bool = True) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "claude-sonnet-4-5", "max_tokens": 2048, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [*blocks, {"type": "tool_use", "id": "toolu_1",
                                                    "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                      "content": "ok"}]}]}
    if thinking:
        body["thinking"] = {"type": "enabled", "budget_tokens": 1024}
    return body


def test_anthropic_thinking_rules() -> None:
    from pytest_toolcall.providers.anthropic.dialect import AnthropicMessages, thinking_signature

    # a turn the fake answered with thinking: its replay must carry it
    assert AnthropicMessages().validate(_anthropic_history([])) is None
    ANTHROPIC.encode_response(Turn(reasoning=(Reasoning(type="thinking", text="x"),),
                                   tool_calls=(ScriptedCall(id="toolu_1", name="f"),)), {})

    ok = {"type": "thinking", "thinking": "x", "signature": thinking_signature("x", 0)}
    assert ANTHROPIC.validate(_anthropic_history([ok])) is None
    dropped = ANTHROPIC.validate(_anthropic_history([]))
    assert dropped is not None and dropped.rule == "messages.thinking.missing"
    assert dropped.message.startswith("messages.1.content.0.type: Expected `thinking` or "
                                      "`redacted_thinking`, but found `tool_use`.")
    edited = ANTHROPIC.validate(_anthropic_history([dict(ok, thinking="y")]))
    assert edited is not None and edited.rule == "messages.thinking.signature"
    # thinking off: previous thinking may be dropped (Anthropic's rule needs thinking on)
    assert ANTHROPIC.validate(_anthropic_history([], thinking=False)) is None
    # a signature the fake did not make (a real one) is not judged
    assert ANTHROPIC.validate(_anthropic_history([dict(ok, thinking="y", signature="EqQB")])) \
        is None


def test_anthropic_decodes_replayed_thinking() -> None:
    from pytest_toolcall.providers.anthropic.dialect import thinking_signature

    blocks = [{"type": "thinking", "thinking": "x", "signature": thinking_signature("x", 0)},
              {"type": "redacted_thinking", "data": "opaque"}]
    assistant = ANTHROPIC.decode_request(_anthropic_history(blocks)).messages[1]
    assert [(r.type, r.text, r.signature) for r in assistant.reasoning] == [
        ("thinking", "x", thinking_signature("x", 0)), ("redacted_thinking", None, "opaque")]


def test_responses_fake_links_reasoning_to_the_calls_that_follow() -> None:
    from pytest_toolcall.providers.openai_responses.dialect import OpenAIResponses, item_id
    from pytest_toolcall.core.model import Reasoning

    dialect = OpenAIResponses()
    turn = Turn(reasoning=(Reasoning(type="reasoning", id="rs_1", signature="enc"),),
                tool_calls=ONE_CALL)
    output = dialect.encode_response(turn, {"model": "gpt-5"})["output"]
    assert [o["type"] for o in output] == ["reasoning", "function_call"]
    assert output[0] == {"id": "rs_1", "type": "reasoning", "encrypted_content": "enc",
                         "summary": []}
    fc = item_id("call_001")
    call = {"type": "function_call", "id": fc, "call_id": "call_001", "name": "get_capital",
            "arguments": "{}"}
    answer = {"type": "function_call_output", "call_id": "call_001", "output": "Paris"}
    without = {"model": "gpt-5", "input": [{"role": "user", "content": "hi"}, call, answer]}
    rejection = dialect.validate(without)
    assert rejection is not None and rejection.rule == "input.function_call.reasoning"
    assert rejection.message == (f"Item '{fc}' of type 'function_call' was provided without its "
                                 "required 'reasoning' item: 'rs_1'.")
    with_it = dict(without, input=[without["input"][0], output[0], call, answer])
    assert dialect.validate(with_it) is None
    # a fresh fake (another conversation) knows no such link: the corpus stays accepted
    assert OpenAIResponses().validate(without) is None


def test_responses_reasoning_items_have_the_recorded_keys() -> None:
    from pytest_toolcall.providers.openai_responses.dialect import OpenAIResponses

    real: set[frozenset[str]] = set()
    for i in _corpus("openai-responses"):
        if isinstance(i.response_json, dict):
            real |= {frozenset(o) for o in i.response_json.get("output") or ()
                     if isinstance(o, dict) and o.get("type") == "reasoning"}
    turn = Turn(reasoning=(Reasoning(type="reasoning", id="rs_1", signature="enc"),),
                tool_calls=ONE_CALL)
    events = [data for _, data in _sse_json(OpenAIResponses().encode_stream(turn, {}))]
    items = [e["item"] for e in events if isinstance(e, dict)
             and (e.get("item") or {}).get("type") == "reasoning"]
    assert [e["type"] for e in events if (e.get("item") or {}).get("type") == "reasoning"] == [
        "response.output_item.added", "response.output_item.done"]
    assert all(frozenset(item) in real for item in items)
    # the reasoning item comes first, the call after it
    added = [e for e in events if e.get("type") == "response.output_item.added"]
    assert [e["item"]["type"] for e in added] == ["reasoning", "function_call"]
    assert [e["output_index"] for e in added] == [0, 1]


def test_responses_reasoning_summary_streams_as_the_sdk_types_it() -> None:
    from pytest_toolcall.providers.openai_responses.dialect import OpenAIResponses

    turn = Turn(reasoning=(Reasoning(type="reasoning", id="rs_1", text="Two cities."),),
                tool_calls=ONE_CALL, stream=StreamPlan(fragment_size=5))
    events = [d for _, d in _sse_json(OpenAIResponses().encode_stream(turn, {}))]
    kinds = [e["type"] for e in events if e.get("item_id") == "rs_1"
             or (e.get("item") or {}).get("id") == "rs_1"]
    assert kinds == ["response.output_item.added", "response.reasoning_summary_part.added",
                     "response.reasoning_summary_text.delta",
                     "response.reasoning_summary_text.delta",
                     "response.reasoning_summary_text.delta",
                     "response.reasoning_summary_text.done",
                     "response.reasoning_summary_part.done", "response.output_item.done"]
    deltas = "".join(e["delta"] for e in events
                     if e["type"] == "response.reasoning_summary_text.delta")
    assert deltas == "Two cities."
    done = next(e for e in events if e["type"] == "response.output_item.done"
                and e["item"]["type"] == "reasoning")
    assert done["item"]["summary"] == [{"type": "summary_text", "text": "Two cities."}]


@pytest.mark.parametrize(("kind", "dialects"), [
    ("thinking", ("*",)), ("thinking", ("openai-responses",)), ("reasoning", ("anthropic",)),
    ("redacted_thinking", ("gemini",)),
])
def test_reasoning_scripted_for_a_wire_without_it_is_a_case_error(
        kind: str, dialects: tuple[str, ...]) -> None:
    from pytest_toolcall.cases import Step, make_case
    from pytest_toolcall.core.errors import CaseDefinitionError
    from pytest_toolcall.core.model import ChatRequest, UserMessage

    step = Step(request=ChatRequest(messages=(UserMessage(content="hi"),)),
                reply=Turn(reasoning=(Reasoning(type=kind, text="x"),)))  # type: ignore[arg-type]
    with pytest.raises(CaseDefinitionError, match="does not carry"):
        make_case(id="wire.reasoning_misplaced", title="t", why="w", dialects=dialects,
                  steps=(step,), checks=())

"""The OpenAI Chat Completions dialect: validation bodies, decoding, JSON and stream encoding."""

from __future__ import annotations

import json
from typing import Any

import pytest
from dialect_rules import WEATHER_TOOL, assert_rejects_exactly, assert_round_trips, rules_named

from pytest_toolcall.cases import ErrorReply, ScriptedCall, StreamPlan, Turn
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.openai.dialect import OpenAIChat
from pytest_toolcall.core.errors import UsageError
from pytest_toolcall.core.model import (
    AssistantMessage,
    ChatRequest,
    NamedToolChoice,
    SystemMessage,
    ToolCall,
    ToolMessage,
    Usage,
    UserMessage,
)
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter

D = OpenAIChat()
TOOL = {"type": "function", "function": {"name": "get_weather", "description": "",
                                         "parameters": {"type": "object", "properties": {}}}}
USER = {"role": "user", "content": "hi"}


def call(cid: str, name: str = "get_weather", arguments: Any = "{}") -> dict[str, Any]:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": arguments}}


def asks(*ids: str) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [call(i) for i in ids]}


def answer(cid: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": cid, "content": "ok"}


def body(messages: Any = None, **extra: Any) -> dict[str, Any]:
    return {"model": "gpt-4o-mini", "messages": [USER] if messages is None else messages, **extra}


def error(message: str, param: str | None = None, code: str | None = None,
          type: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": type, "param": param, "code": code}}


# -- validation: one row per rule, the exact body ----------------------------------------------
REJECTIONS: list[tuple[str, Any, dict[str, Any]]] = [
    ("body.json", None, error(
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't "
        "using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was "
        "sent was not valid JSON.)")),
    ("model.missing", {"messages": [USER]}, error("you must provide a model parameter")),
    ("model.missing", body(model=None), error("you must provide a model parameter")),
    ("messages.missing", {"model": "m"}, error(
        "Missing required parameter: 'messages'.", "messages", "missing_required_parameter")),
    ("type", body("hi"), error(
        "Invalid type for 'messages': expected an array, but got a string instead.",
        "messages", "invalid_type")),
    ("messages.empty", body([]), error(
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an "
        "empty array instead.", "messages", "empty_array")),
    ("type", body(tools={"a": 1}), error(
        "Invalid type for 'tools': expected an array, but got an object instead.",
        "tools", "invalid_type")),
    ("tools.type", body(tools=[{"type": "retrieval"}]), error(
        "Invalid value: 'retrieval'. Supported values are: 'function' and 'custom'.",
        "tools[0].type", "invalid_value")),
    ("tools.function.missing", body(tools=[{"type": "function"}]), error(
        "Missing required parameter: 'tools[0].function'.", "tools[0].function",
        "missing_required_parameter")),
    ("tools.name.missing", body(tools=[TOOL, {"type": "function", "function": {}}]), error(
        "Missing required parameter: 'tools[1].function.name'.", "tools[1].function.name",
        "missing_required_parameter")),
    ("tools.name.pattern",
     body(tools=[{"type": "function", "function": {"name": "get weather"}}]), error(
         "Invalid 'tools[0].function.name': string does not match pattern. Expected a string "
         "that matches the pattern '^[a-zA-Z0-9_-]+$'.", "tools[0].function.name",
         "invalid_value")),
    ("tools.name.length", body(tools=[{"type": "function", "function": {"name": "a" * 65}}]),
     error("Invalid 'tools[0].function.name': string too long. Expected a string with maximum "
           "length 64, but got a string with length 65 instead.", "tools[0].function.name",
           "string_above_max_length")),
    ("type", body(tools=[{"type": "function", "function": {"name": "f", "parameters": []}}]),
     error("Invalid type for 'tools[0].function.parameters': expected an object, but got an "
           "array instead.", "tools[0].function.parameters", "invalid_type")),
    ("tools.parameters.schema",
     body(tools=[{"type": "function",
                  "function": {"name": "f", "parameters": {"type": "objekt"}}}]),
     error("Invalid schema for function 'f': 'objekt' is not valid under any of the given "
           "schemas.", "tools[0].function.parameters", "invalid_function_parameters")),
    ("tool_choice.without_tools", body(tool_choice="auto"), error(
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are "
        "specified.", "tool_choice")),
    ("tool_choice.value", body(tools=[TOOL], tool_choice="always"), error(
        "Invalid value: 'always'. Supported values are: 'none', 'auto', and 'required'.",
        "tool_choice", "invalid_value")),
    ("tool_choice.unknown_tool",
     body(tools=[TOOL], tool_choice={"type": "function", "function": {"name": "nope"}}), error(
         "Invalid value for 'tool_choice': tool 'nope' not found in 'tools'.", "tool_choice")),
    ("tool_choice.function.missing",
     body(tools=[TOOL], tool_choice={"type": "function", "function": "get_weather"}), error(
         "Missing required parameter: 'tool_choice.function'.", "tool_choice.function",
         "missing_required_parameter")),
    ("tool_choice.value", body(tools=[TOOL], tool_choice={"type": "tool"}), error(
        "Invalid 'tool_choice': expected one of 'none', 'auto', 'required', or an object "
        "naming a function.", "tool_choice", "invalid_value")),
    ("parallel_tool_calls.without_tools", body(parallel_tool_calls=False), error(
        "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when "
        "'tools' are specified.", "parallel_tool_calls")),
    ("type", body(tools=[TOOL], parallel_tool_calls="no"), error(
        "Invalid type for 'parallel_tool_calls': expected a boolean, but got a string instead.",
        "parallel_tool_calls", "invalid_type")),
    ("type", body([USER, "hi"]), error(
        "Invalid type for 'messages[1]': expected an object, but got a string instead.",
        "messages[1]", "invalid_type")),
    ("messages.role", body([{"role": "bot", "content": "x"}]), error(
        "Invalid value: 'bot'. Supported values are: 'system', 'assistant', 'user', 'function', "
        "'tool', and 'developer'.", "messages[0].role", "invalid_value")),
    # Python's None never leaks into the text (issue 13): OpenAI's own "Missing required
    # parameter" (openai-cookbook #1248 quotes it for tools[0].type; confirmed 2026-11-23)
    ("tools.type.missing", body(tools=[{"function": TOOL["function"]}]), error(
        "Missing required parameter: 'tools[0].type'.", "tools[0].type",
        "missing_required_parameter")),
    ("messages.role.missing", body([{"content": "x"}]), error(
        "Missing required parameter: 'messages[0].role'.", "messages[0].role",
        "missing_required_parameter")),
    ("messages.content.missing", body([{"role": "user"}]), error(
        "Missing required parameter: 'messages[0].content'.", "messages[0].content",
        "missing_required_parameter")),
    # WIRE.md §1: the orphan tool message, misspelling and "messages.[3]" param included
    ("messages.tool.orphan",
     body([{"role": "system", "content": "s"}, USER, {"role": "assistant", "content": "hello"},
           answer("call_X")]),
     error("Invalid parameter: messages with role 'tool' must be a response to a preceeding "
           "message with 'tool_calls'.", "messages.[3].role")),
    ("messages.tool.orphan", body([USER, asks("a"), answer("a"), USER, answer("a")]), error(
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
        "message with 'tool_calls'.", "messages.[4].role")),
    ("messages.tool.tool_call_id", body([USER, asks("a"), {"role": "tool", "content": "x"}]),
     error("Missing required parameter: 'messages[2].tool_call_id'.",
           "messages[2].tool_call_id", "missing_required_parameter")),
    ("messages.tool.unknown_id", body([USER, asks("a"), answer("b")]), error(
        "Invalid parameter: 'tool_call_id' of 'b' not found in 'tool_calls' of previous "
        "message.", "messages.[2].tool_call_id")),
    ("type", body([USER, asks("a"), {"role": "tool", "tool_call_id": "a", "content": None}]),
     error("Invalid type for 'messages[2].content': expected a string or array, but got null "
           "instead.", "messages[2].content", "invalid_type")),
    ("messages.assistant.content_null", body([USER, {"role": "assistant", "content": None}]),
     error("Invalid value for 'content': expected a string, got null.", "messages.[1].content")),
    ("type", body([USER, {"role": "assistant", "tool_calls": {"id": "a"}}]), error(
        "Invalid type for 'messages[1].tool_calls': expected an array, but got an object "
        "instead.", "messages[1].tool_calls", "invalid_type")),
    ("messages.assistant.empty_tool_calls", body([USER, {"role": "assistant", "tool_calls": []}]),
     error("Invalid 'messages[1].tool_calls': empty array. Expected an array with minimum length "
           "1, but got an empty array instead.", "messages[1].tool_calls", "empty_array")),
    ("messages.tool_calls.id",
     body([USER, {"role": "assistant", "tool_calls": [{"type": "function", "function": {}}]}]),
     error("Missing required parameter: 'messages[1].tool_calls[0].id'.",
           "messages[1].tool_calls[0].id", "missing_required_parameter")),
    ("messages.tool_calls.type",
     body([USER, {"role": "assistant", "tool_calls": [{"id": "a", "function": {}}]}]),
     error("Missing required parameter: 'messages[1].tool_calls[0].type'.",
           "messages[1].tool_calls[0].type", "missing_required_parameter")),
    ("type", body([USER, {"role": "assistant", "tool_calls": [call(None)]}]),  # type: ignore
     error("Invalid type for 'messages[1].tool_calls[0].id': expected a string, but got null "
           "instead.", "messages[1].tool_calls[0].id", "invalid_type")),
    ("messages.tool_calls.function.name",
     body([USER, {"role": "assistant", "tool_calls": [
         {"id": "a", "type": "function", "function": {"arguments": "{}"}}]}]),
     error("Missing required parameter: 'messages[1].tool_calls[0].function.name'.",
           "messages[1].tool_calls[0].function.name", "missing_required_parameter")),
    ("messages.tool_calls.type",
     body([USER, {"role": "assistant", "tool_calls": [
         {"id": "a", "type": "tool", "function": {"name": "f", "arguments": "{}"}}]}]),
     error("Invalid value: 'tool'. Supported values are: 'function' and 'custom'.",
           "messages[1].tool_calls[0].type", "invalid_value")),
    ("messages.tool_calls.function.arguments",
     body([USER, {"role": "assistant", "tool_calls": [
         {"id": "a", "type": "function", "function": {"name": "f"}}]}]),
     error("Missing required parameter: 'messages[1].tool_calls[0].function.arguments'.",
           "messages[1].tool_calls[0].function.arguments", "missing_required_parameter")),
    ("type", body([USER, {"role": "assistant", "tool_calls": [call("a", arguments={})]}]), error(
        "Invalid type for 'messages[1].tool_calls[0].function.arguments': expected a string, "
        "but got an object instead.", "messages[1].tool_calls[0].function.arguments",
        "invalid_type")),
    # WIRE.md §1: unanswered calls, reported at the first message after the tool messages
    ("messages.tool_calls.unanswered",
     body([{"role": "system", "content": "s"}, USER, asks("call_A"), answer("call_A"),
           asks("call_B", "call_X"), answer("call_B"), USER]),
     error("An assistant message with 'tool_calls' must be followed by tool messages responding "
           "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
           "call_X", "messages.[6].role")),
    ("messages.tool_calls.unanswered", body([USER, asks("call_A", "call_B")]), error(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        "call_A, call_B", "messages.[1].role")),
    ("messages.tool_calls.unanswered", body([USER, asks("a"), asks("b"), answer("b")]), error(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to "
        "each 'tool_call_id'. The following tool_call_ids did not have response messages: a",
        "messages.[2].role")),
]


@pytest.mark.parametrize("rule, request_body, expected", REJECTIONS,
                         ids=[f"{i:02d}-{r[0]}" for i, r in enumerate(REJECTIONS)])
def test_validate_rejects_with_the_exact_body(rule: str, request_body: Any,
                                              expected: dict[str, Any]) -> None:
    assert_rejects_exactly(D, request_body, rule, expected)


def test_every_rule_in_the_dialect_has_a_row() -> None:
    import pytest_toolcall.providers.openai.dialect as module

    declared = rules_named(module) | {"type"}
    declared |= {f"messages.tool_calls.{f}" for f in ("id", "type", "function")}
    declared -= {"route", "auth.missing", "auth.invalid", "messages.tool_calls.function"}
    covered = {row[0] for row in REJECTIONS}
    assert declared - covered == set()


# -- validation: what real OpenAI accepts must pass ---------------------------------------------
ACCEPTED = {
    "plain": body(),
    "developer_and_parts": body([{"role": "developer", "content": "d"},
                                 {"role": "user", "content": [{"type": "text", "text": "hi"}]}]),
    "parallel_answered_in_reverse": body([USER, asks("a", "b", "c"), answer("c"), answer("a"),
                                          answer("b")], tools=[TOOL]),
    "several_rounds": body([USER, asks("a"), answer("a"), asks("b", "c"), answer("b"),
                            answer("c"), {"role": "assistant", "content": "done"}, USER,
                            asks("d"), answer("d")], tools=[TOOL]),
    "text_with_calls": body([USER, {"role": "assistant", "content": "let me check",
                                    "tool_calls": [call("a")]}, answer("a")]),
    "tool_content_parts": body([USER, asks("a"), {"role": "tool", "tool_call_id": "a",
                                                  "content": [{"type": "text", "text": "r"}]}]),
    "named_choice": body(tools=[TOOL], tool_choice={"type": "function",
                                                    "function": {"name": "get_weather"}},
                         parallel_tool_calls=False),
    "allowed_tools": body(tools=[TOOL], tool_choice={"type": "allowed_tools", "allowed_tools": {
        "mode": "auto", "tools": [{"type": "function", "function": {"name": "get_weather"}}]}}),
    "null_choice": body(tool_choice=None, parallel_tool_calls=None),
    "draft07_schema": body(tools=[{"type": "function", "function": {"name": "f", "parameters": {
        "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        "properties": {"p": {"type": "array", "items": [{"type": "string"}]}}}}}]),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_validate_accepts_valid_requests(name: str) -> None:
    assert D.validate(ACCEPTED[name]) is None


# -- decoding -------------------------------------------------------------------------------------
def test_decode_round_trips_what_the_reference_adapter_builds() -> None:
    request = ChatRequest(
        messages=(
            SystemMessage(content="be brief"),
            UserMessage(content="weather in Zürich and Paris?"),
            AssistantMessage(content=None, tool_calls=(
                ToolCall(id="call_1", name="get_weather", arguments={"city": "Zürich"}),
                ToolCall(id="call_2", name="get_weather", arguments={"city": "Paris"}))),
            ToolMessage(tool_call_id="call_2", content="rain"),
            ToolMessage(tool_call_id="call_1", content="sun"),
            AssistantMessage(content="Sun in Zürich, rain in Paris."),
            UserMessage(content="thanks"),
        ),
        tools=(WEATHER_TOOL,), tool_choice=NamedToolChoice(name="get_weather"),
        parallel_tool_calls=False, model="gpt-4o",
    )
    adapter = OpenAIChatAdapter("http://unused.invalid/v1", "k")
    for _, decoded in assert_round_trips(D, adapter, request):
        sent_calls = decoded.messages[2].tool_calls  # type: ignore[union-attr]
        assert [c.raw_arguments for c in sent_calls] == ['{"city":"Zürich"}', '{"city":"Paris"}']


def test_decode_maps_text_parts_and_string_choices() -> None:
    decoded = D.decode_request(body(
        [{"role": "developer", "content": [{"type": "text", "text": "a"}, {"type": "text",
                                                                           "text": "b"}]},
         {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}],
        tools=[TOOL], tool_choice="required"))
    # the developer role is kept (issue 12): the canonical model has it since SystemMessage.role
    assert decoded.messages == (SystemMessage(role="developer", content="ab"),
                                UserMessage(content="[image_url]"))
    assert decoded.tool_choice == "required"


def test_decode_keeps_unparseable_arguments_as_raw_text() -> None:
    decoded = D.decode_request(body([USER, {"role": "assistant", "content": None,
                                            "tool_calls": [call("a", arguments='{"x": ')]}]))
    sent = decoded.messages[1].tool_calls[0]  # type: ignore[union-attr]
    assert sent.arguments is None and sent.raw_arguments == '{"x": '
    assert sent.parse_error is not None


# -- non-streaming encoding -----------------------------------------------------------------------
def tokens(usage: dict[str, Any]) -> tuple[int, int, int]:
    return usage["prompt_tokens"], usage["completion_tokens"], usage["total_tokens"]


def test_encode_response_with_calls() -> None:
    turn = Turn(tool_calls=(ScriptedCall(name="get_weather", arguments={"city": "Zürich"}),
                            ScriptedCall(name="now", arguments="", id="call_own")))
    data = D.encode_response(turn, body(model="gpt-4o"))
    assert data["object"] == "chat.completion" and data["model"] == "gpt-4o"
    [choice] = data["choices"]
    assert choice["finish_reason"] == "tool_calls"
    message = choice["message"]
    assert (message["role"], message["content"], message["refusal"]) == ("assistant", None, None)
    assert message["tool_calls"] == [
        {"id": "call_001", "type": "function",
         "function": {"name": "get_weather", "arguments": '{"city": "Zürich"}'}},
        {"id": "call_own", "type": "function", "function": {"name": "now", "arguments": ""}}]
    assert tokens(data["usage"]) == (11, 7, 18)


def test_encode_response_text_only_without_usage() -> None:
    data = D.encode_response(Turn(text="hello", usage=None), {})
    message = data["choices"][0]["message"]
    assert (message["role"], message["content"]) == ("assistant", "hello")
    assert "tool_calls" not in message
    assert data["choices"][0]["finish_reason"] == "stop"
    assert data["model"] == "toolcall-fake" and "usage" not in data


def test_encode_error() -> None:
    status, data = D.encode_error(ErrorReply(status=429, message="slow down",
                                             type="rate_limit_error", code="rate_limit_exceeded"))
    assert status == 429
    assert data == error("slow down", None, "rate_limit_exceeded", type="rate_limit_error")


# -- streaming encoding ---------------------------------------------------------------------------
STREAM_BODY = body(stream=True, stream_options={"include_usage": True})
TWO_CALLS = (ScriptedCall(name="get_weather", arguments={"city": "Paris"}),
             ScriptedCall(name="get_time", arguments='{"tz":"CET"}'))


def decode_events(events: list[bytes]) -> list[Any]:
    out: list[Any] = []
    for event in events:
        assert event.startswith(b"data: ") and event.endswith(b"\n\n"), event
        payload = event[len(b"data: "):-2]
        out.append("[DONE]" if payload == b"[DONE]" else json.loads(payload))
    return out


def fragments(chunks: list[Any]) -> list[dict[str, Any]]:
    return [frag for c in chunks if isinstance(c, dict) and c.get("choices")
            for frag in c["choices"][0]["delta"].get("tool_calls", [])]


def test_stream_shape_for_two_calls() -> None:
    turn = Turn(tool_calls=TWO_CALLS, stream=StreamPlan(fragment_size=5))
    chunks = decode_events(D.encode_stream(turn, STREAM_BODY))
    assert chunks[-1] == "[DONE]"
    first = chunks[0]["choices"][0]
    # parallel calls: the role chunk comes alone, without refusal (all 11 recorded streams)
    assert first["delta"] == {"role": "assistant", "content": None}
    assert first["finish_reason"] is None
    frags = fragments(chunks)
    heads = [f for f in frags if "id" in f]
    assert heads == [
        {"index": 0, "id": "call_001", "type": "function",
         "function": {"name": "get_weather", "arguments": ""}},
        {"index": 1, "id": "call_002", "type": "function",
         "function": {"name": "get_time", "arguments": ""}}]
    for frag in frags:
        if "id" not in frag:
            assert set(frag) == {"index", "function"} and set(frag["function"]) == {"arguments"}
            assert len(frag["function"]["arguments"]) <= 5
    # real OpenAI finishes call 0 before call 1 starts; indices are dense from 0
    assert [f["index"] for f in frags] == sorted(f["index"] for f in frags)
    assert sorted({f["index"] for f in frags}) == [0, 1]
    for k, call in enumerate(TWO_CALLS):
        text = "".join(f["function"]["arguments"] for f in frags if f["index"] == k)
        assert text == call.arguments_text()
    finish, usage = chunks[-3], chunks[-2]
    assert finish["choices"] == [{"index": 0, "delta": {}, "logprobs": None,
                                  "finish_reason": "tool_calls"}]
    assert usage["choices"] == [] and tokens(usage["usage"]) == (11, 7, 18)
    assert all(c["usage"] is None for c in chunks[:-2])
    assert {c["id"] for c in chunks[:-1]} == {"chatcmpl-toolcall"}
    assert {c["object"] for c in chunks[:-1]} == {"chat.completion.chunk"}


def _role_delta(turn: Turn) -> dict[str, Any]:
    return decode_events(D.encode_stream(turn, STREAM_BODY))[0]["choices"][0]["delta"]


ONE_CALL = (ScriptedCall(id="call_1", name="get_weather", arguments='{"city":"Paris"}'),)


def test_one_call_rides_in_the_role_chunk_by_default() -> None:
    # all 23 recorded single-call streams (wire corpus, openai-chat, confirmed 2026-11-23)
    delta = _role_delta(Turn(tool_calls=ONE_CALL))
    assert list(delta) == ["role", "content", "tool_calls", "refusal"]
    assert delta["tool_calls"] == [{"index": 0, "id": "call_1", "type": "function",
                                    "function": {"name": "get_weather", "arguments": ""}}]


@pytest.mark.parametrize(("calls", "quirk", "in_role"), [
    (ONE_CALL, "role_chunk_alone", False),
    (TWO_CALLS, "call_in_role_chunk", True),
    (TWO_CALLS, None, False),
])
def test_role_chunk_variants(calls: tuple[ScriptedCall, ...], quirk: str | None,
                             in_role: bool) -> None:
    quirks = frozenset({quirk} if quirk else ())
    turn = Turn(tool_calls=calls, stream=StreamPlan(quirks=quirks))
    delta = _role_delta(turn)
    assert ("tool_calls" in delta) is in_role
    chunks = decode_events(D.encode_stream(turn, STREAM_BODY))
    heads = [f for f in fragments(chunks) if "id" in f]
    assert [h["id"] for h in heads] == [c.id or f"call_{k + 1:03d}" for k, c in enumerate(calls)]


def test_text_then_call_keeps_the_call_out_of_the_role_chunk() -> None:
    delta = _role_delta(Turn(text="Checking.", tool_calls=ONE_CALL))
    assert delta == {"role": "assistant", "content": "", "refusal": None}


def test_sse_comments_come_before_and_between_events() -> None:
    from pytest_toolcall.providers.openai.dialect import SSE_COMMENT

    turn = Turn(tool_calls=ONE_CALL, stream=StreamPlan(quirks=frozenset({"sse_comments"})))
    events = D.encode_stream(turn, STREAM_BODY)
    plain = D.encode_stream(Turn(tool_calls=ONE_CALL), STREAM_BODY)
    assert SSE_COMMENT == b": OPENROUTER PROCESSING\n\n"
    assert events[:3] == [SSE_COMMENT] * 3
    assert [e for e in events if e != SSE_COMMENT] == plain
    assert events[-1] == b"data: [DONE]\n\n"


def test_stream_without_include_usage_has_no_usage_anywhere() -> None:
    chunks = decode_events(D.encode_stream(Turn(tool_calls=TWO_CALLS), body(stream=True)))
    assert all("usage" not in c for c in chunks[:-1])
    assert all(c["choices"] for c in chunks[:-1])
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"


def test_stream_text_is_cut_by_fragment_size() -> None:
    turn = Turn(text="Grüße aus Zürich", stream=StreamPlan(fragment_size=4))
    chunks = decode_events(D.encode_stream(turn, STREAM_BODY))
    assert chunks[0]["choices"][0]["delta"]["content"] == ""
    pieces = [c["choices"][0]["delta"]["content"] for c in chunks[1:-3]]
    assert pieces == ["Grüß", "e au", "s Zü", "rich"]
    assert chunks[-3]["choices"][0]["finish_reason"] == "stop"
    raw = b"".join(D.encode_stream(turn, STREAM_BODY))
    assert "Grüß".encode() in raw  # not \u-escaped on the wire


@pytest.mark.parametrize("arguments, head_arguments, pieces", [
    ("", "", []), (None, None, []), ("{}", "", ["{}"]),
])
def test_zero_argument_call_forms(arguments: Any, head_arguments: Any, pieces: list[str]) -> None:
    turn = Turn(tool_calls=(ScriptedCall(name="now", arguments=arguments),))
    frags = fragments(decode_events(D.encode_stream(turn, STREAM_BODY)))
    assert frags[0]["function"] == {"name": "now", "arguments": head_arguments}
    assert [f["function"]["arguments"] for f in frags[1:]] == pieces


def _frags_for(quirks: set[str], calls: tuple[ScriptedCall, ...] = TWO_CALLS) -> list[Any]:
    turn = Turn(tool_calls=calls, stream=StreamPlan(quirks=frozenset(quirks), fragment_size=6))
    return fragments(decode_events(D.encode_stream(turn, STREAM_BODY)))


def _strip(frags: list[Any], *keys: str) -> list[Any]:
    return [{k: v for k, v in f.items() if k not in keys} for f in frags]


def test_quirk_interleave_only_reorders() -> None:
    plain, mixed = _frags_for(set()), _frags_for({"interleave"})
    assert sorted(map(json.dumps, plain)) == sorted(map(json.dumps, mixed))
    assert [f["index"] for f in mixed][:4] == [0, 1, 0, 1]
    for k in (0, 1):
        assert [f for f in mixed if f["index"] == k] == [f for f in plain if f["index"] == k]


def test_quirk_repeat_id_name() -> None:
    plain, repeated = _frags_for(set()), _frags_for({"repeat_id_name"})
    assert len(plain) == len(repeated)
    names = {0: "get_weather", 1: "get_time"}
    for p, r in zip(plain, repeated):
        assert r["id"] == f"call_00{r['index'] + 1}" and r["type"] == "function"
        assert r["function"]["name"] == names[r["index"]]
        assert r["function"]["arguments"] == p["function"]["arguments"]
        assert r["index"] == p["index"]


def test_quirk_index_missing() -> None:
    plain, quirky = _frags_for(set()), _frags_for({"index_missing"})
    assert all("index" not in f for f in quirky)
    assert quirky == _strip(plain, "index")


def test_quirk_index_stuck_at_zero() -> None:
    plain, quirky = _frags_for(set()), _frags_for({"index_stuck_at_zero"})
    assert {f["index"] for f in quirky} == {0}
    assert _strip(quirky, "index") == _strip(plain, "index")


def test_quirk_no_ids() -> None:
    plain, quirky = _frags_for(set()), _frags_for({"no_ids"})
    assert all("id" not in f for f in quirky)
    assert quirky == _strip(plain, "id")


def test_quirks_leave_everything_but_tool_call_fragments_alone() -> None:
    turn = Turn(text="hi", tool_calls=TWO_CALLS)
    quirky = turn.model_copy(update={"stream": StreamPlan(quirks=frozenset(
        {"interleave", "repeat_id_name", "index_missing", "index_stuck_at_zero", "no_ids"}))})
    strip = lambda cs: [c for c in cs if c == "[DONE]" or "tool_calls" not in  # noqa: E731
                        (c["choices"][0]["delta"] if c["choices"] else {})]
    assert strip(decode_events(D.encode_stream(quirky, STREAM_BODY))) == \
        strip(decode_events(D.encode_stream(turn, STREAM_BODY)))


def test_error_after_replaces_the_rest_with_an_error_event() -> None:
    turn = Turn(tool_calls=TWO_CALLS)
    full = D.encode_stream(turn, STREAM_BODY)
    cut = D.encode_stream(turn.model_copy(update={"stream": StreamPlan(error_after=2)}),
                          STREAM_BODY)
    assert cut[:3] == full[:3]
    assert len(cut) == 4
    assert decode_events(cut[3:]) == [error(
        "The server had an error while processing your request.", type="server_error")]
    assert b"[DONE]" not in b"".join(cut)


def test_error_after_zero_comes_right_after_the_role_chunk() -> None:
    cut = D.encode_stream(Turn(text="x", stream=StreamPlan(error_after=0)), STREAM_BODY)
    assert len(cut) == 2 and b'"error"' in cut[1]


def test_truncate_after_drops_the_rest_and_done() -> None:
    turn = Turn(tool_calls=TWO_CALLS)
    full = D.encode_stream(turn, STREAM_BODY)
    cut = D.encode_stream(turn.model_copy(update={"stream": StreamPlan(truncate_after=3)}),
                          STREAM_BODY)
    assert cut == full[:4]


def test_scripted_ids_are_used_and_generated_ones_fill_in() -> None:
    turn = Turn(tool_calls=(ScriptedCall(name="a", id="call_A"), ScriptedCall(name="b")))
    assert D.call_ids(turn) == ["call_A", "call_002"]


# -- routing and the registry ---------------------------------------------------------------------
@pytest.mark.parametrize("method, path, served", [
    ("POST", "/v1/chat/completions", True), ("POST", "/v1/chat/completions/", True),
    ("POST", "/openai/v1/chat/completions", True), ("GET", "/v1/chat/completions", False),
    ("POST", "/v1/responses", False), ("POST", "/v1/completions", False),
])
def test_route(method: str, path: str, served: bool) -> None:
    assert D.route(method, path) is served


def test_not_found_body() -> None:
    rejection = D.not_found("GET", "/v1/models")
    assert rejection.status == 404
    assert dict(rejection.body) == error("Invalid URL (GET /v1/models)")


def test_wants_stream_only_for_true() -> None:
    assert D.wants_stream({"stream": True}, "/v1/chat/completions") is True
    assert D.wants_stream({"stream": "true"}, "/v1/chat/completions") is False
    assert D.wants_stream({}, "/v1/chat/completions") is False


def test_get_dialect() -> None:
    assert get_dialect("openai").name == "openai"
    with pytest.raises(UsageError, match=r"unknown provider 'openia': valid providers are openai"):
        get_dialect("openia")


def test_usage_type_in_turn_is_canonical() -> None:
    data = D.encode_response(Turn(text="x", usage=Usage(input_tokens=1)), {})
    assert tokens(data["usage"]) == (1, 0, 0)

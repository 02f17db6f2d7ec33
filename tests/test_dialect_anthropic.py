"""The Anthropic Messages dialect: validation bodies, auth, decoding, JSON and stream encoding."""

from __future__ import annotations

import json
from typing import Any

import pytest
from dialect_rules import WEATHER_TOOL, assert_rejects_exactly, assert_round_trips, rules_named

from pytest_toolcall.cases import ErrorReply, ScriptedCall, StreamPlan, Turn
from pytest_toolcall.providers.anthropic.dialect import AnthropicMessages
from pytest_toolcall.core.errors import UsageError
from pytest_toolcall.core.model import (
    AssistantMessage,
    ChatRequest,
    NamedToolChoice,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from pytest_toolcall.providers.anthropic.dialect import THINKING_FIRST
from pytest_toolcall.providers.anthropic.probes import (BREAKING, TOOL, USER, answers, asks,
                                                        body, result, use)
from pytest_toolcall.providers.anthropic.reference import AnthropicAdapter

D = AnthropicMessages()
# the fake answered toolu_1 with thinking: only such a turn must come back with it (issue 13)
D.thinking_before.add("toolu_1")


def error(message: str, type: str = "invalid_request_error") -> dict[str, Any]:
    return {"type": "error", "error": {"type": type, "message": message}}


_UNANSWERED = ("`tool_use` ids were found without `tool_result` blocks immediately after: {}. "
               "Each `tool_use` block must have a corresponding `tool_result` block in the next "
               "message.")
_UNEXPECTED = ("unexpected `tool_use_id` found in `tool_result` blocks: {}. Each `tool_result` "
               "block must have a corresponding `tool_use` block in the previous message.")

# -- validation: one row per rule, the exact body ----------------------------------------------
REJECTIONS: list[tuple[str, Any, dict[str, Any]]] = [
    ("body.json", BREAKING["body.json"],
     error("There was an issue with the JSON body of your request: it is "
                              "not a JSON object.")),
    ("model.missing", BREAKING["model.missing"], error("model: Field required")),
    ("messages.missing", BREAKING["messages.missing"], error("messages: Field required")),
    ("max_tokens.missing", BREAKING["max_tokens.missing"], error("max_tokens: Field required")),
    ("type", BREAKING["type"], error("messages: Input should be a valid list")),
    ("messages.empty", BREAKING["messages.empty"],
     error("messages: at least one message is required")),
    ("type", body(tools={"a": 1}), error("tools: Input should be a valid list")),
    ("tools.name.missing", BREAKING["tools.name.missing"],
     error("tools.0.custom.name: Field required")),
    ("tools.name.pattern", BREAKING["tools.name.pattern"],
     error("tools.1.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'")),
    ("tools.name.pattern", body(tools=[dict(TOOL, name="a" * 129)]),
     error("tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'")),
    ("tools.input_schema.missing", BREAKING["tools.input_schema.missing"],
     error("tools.0.custom.input_schema: Field required")),
    ("type", body(tools=[{"name": "f", "input_schema": []}]),
     error("tools.0.custom.input_schema: Input should be a valid dictionary")),
    ("tools.input_schema.type", BREAKING["tools.input_schema.type"],
     error("tools.0.custom.input_schema.type: Field required")),
    ("tools.input_schema.type", body(tools=[{"name": "f", "input_schema": {"type": "array"}}]),
     error("tools.0.custom.input_schema.type: Input should be 'object'")),
    ("tools.input_schema.schema", BREAKING["tools.input_schema.schema"],
     error("tools.0.custom.input_schema: JSON schema is invalid. It must match JSON Schema "
           "draft 2020-12 (https://json-schema.org/draft/2020-12). Learn more about tool use at "
           "https://docs.anthropic.com/en/docs/tool-use.")),
    ("tools.unique", BREAKING["tools.unique"], error("tools: Tool names must be unique.")),
    ("tool_choice.without_tools", BREAKING["tool_choice.without_tools"],
     error("tool_choice may only be specified while providing tools.")),
    ("tool_choice.type", BREAKING["tool_choice.type"], error(
        "tool_choice: Input should be a valid dictionary or object to extract fields from")),
    ("tool_choice.type", body(tools=[TOOL], tool_choice={"type": "required"}), error(
        "tool_choice: Input tag 'required' found using 'type' does not match any of the "
        "expected tags: 'auto', 'any', 'tool', 'none'")),
    ("tool_choice.type", body(tools=[TOOL], tool_choice={"name": "get_weather"}),
     error("tool_choice: Unable to extract tag using discriminator 'type'")),
    ("tool_choice.name.missing", BREAKING["tool_choice.name.missing"],
     error("tool_choice.tool.name: Field required")),
    ("tool_choice.none.extra", BREAKING["tool_choice.none.extra"],
     error("tool_choice.none.disable_parallel_tool_use: Extra inputs are not permitted")),
    ("tool_choice.extra", BREAKING["tool_choice.extra"],
     error("tool_choice.auto.parallel_tool_calls: Extra inputs are not permitted")),
    ("type", body(tools=[TOOL], tool_choice={"type": "any", "disable_parallel_tool_use": "y"}),
     error("tool_choice.any.disable_parallel_tool_use: Input should be a valid boolean")),
    ("type", body([USER, "hi"]), error("messages.1: Input should be a valid dictionary")),
    ("messages.role", BREAKING["messages.role"],
     error("messages.0.role: Input should be 'user' or 'assistant'")),
    # sglang #367 and ChainForge #271 quote the API (2024); confirmed 2026-11-23
    ("messages.role.system", BREAKING["messages.role.system"],
     error('messages: Unexpected role "system". The Messages API accepts a top-level `system` '
           'parameter, not "system" as an input message role.')),
    # mid-conversation system messages (Anthropic docs, confirmed 2026-11-24): Opus 4.8 only,
    # and on it the placement rules; the placement texts are the kit's own
    ("messages.role.system",
     body([USER, {"role": "system", "content": "be brief"}], model="claude-haiku-4-5"),
     error('messages: Unexpected role "system". The Messages API accepts a top-level `system` '
           'parameter, not "system" as an input message role.')),
    ("messages.role.system.placement", BREAKING["messages.role.system.placement"],
     error("messages.0: a system message cannot be the first message: use the top-level "
           "`system` parameter.")),
    ("messages.role.system.placement",
     body([USER, {"role": "system", "content": "a"}, {"role": "system", "content": "b"}],
          model="claude-opus-4-8"),
     error("messages.1: a system message cannot be adjacent to another system message.")),
    ("messages.role.system.placement",
     body([USER, {"role": "assistant", "content": "ok"}, {"role": "system", "content": "a"}],
          model="claude-opus-4-8"),
     error("messages.2: a system message must immediately follow a user message (or an "
           "assistant message that ends in a server tool use).")),
    ("messages.role.system.placement",
     body([USER, {"role": "system", "content": "a"}, USER], model="claude-opus-4-8"),
     error("messages.1: a system message must be the last message or be followed by an "
           "assistant message.")),
    ("messages.content.missing", BREAKING["messages.content.missing"],
     error("messages.0.content: Field required")),
    ("type", body([{"role": "user", "content": None}]),
     error("messages.0.content: Input should be a valid list")),
    ("messages.content.empty", BREAKING["messages.content.empty"],
     error("messages.1: all messages must have non-empty content except for the optional "
           "final assistant message")),
    ("messages.text.empty", BREAKING["messages.text.empty"],
     error("messages: text content blocks must be non-empty")),
    ("type", body([{"role": "user", "content": [{"text": "x"}]}]),
     error("messages.0.content.0: Input should be a valid dictionary")),
    ("type", body([{"role": "user", "content": [{"type": "text"}]}]),
     error("messages.0.content.0.text.text: Field required")),
    ("messages.tool_use.id", BREAKING["messages.tool_use.id"],
     error("messages.1.content.0.tool_use.id: Field required")),
    ("messages.tool_use.name", BREAKING["messages.tool_use.name"],
     error("messages.1.content.0.tool_use.name: Field required")),
    ("messages.tool_use.input", BREAKING["messages.tool_use.input"],
     error("messages.1.content.0.tool_use.input: Field required")),
    ("messages.tool_use.id_pattern", BREAKING["messages.tool_use.id_pattern"],
     error("messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'")),
    # litellm #5063: a zero-argument call replayed with input "" instead of {}
    ("type", body([USER, {"role": "assistant", "content": [use("a", input="")]}, answers("a")]),
     error("messages.1.content.0.tool_use.input: Input should be a valid dictionary")),
    ("messages.tool_result.tool_use_id", BREAKING["messages.tool_result.tool_use_id"],
     error("messages.2.content.0.tool_result.tool_use_id: Field required")),
    ("type", body([USER, asks("a"), {"role": "user", "content": [dict(result("a"),
                                                                       content=7)]}]),
     error("messages.2.content.0.tool_result.content: Input should be a valid list")),
    ("type", body([USER, asks("a"), {"role": "user", "content": [dict(result("a"),
                                                                       is_error="true")]}]),
     error("messages.2.content.0.tool_result.is_error: Input should be a valid boolean")),
    ("messages.tool_use.unique", BREAKING["messages.tool_use.unique"],
     error("messages.1.content.1: `tool_use` ids must be unique")),
    # WIRE.md §3: unanswered ids, at the assistant message
    ("messages.tool_use.unanswered", BREAKING["messages.tool_use.unanswered"],
     error("messages.1: " + _UNANSWERED.format("toolu_A, toolu_B"))),
    ("messages.tool_use.unanswered", body([USER, asks("a")]),
     error("messages.1: " + _UNANSWERED.format("a"))),
    # tool_result after a text block does not count as "immediately after"
    ("messages.tool_use.unanswered",
     body([USER, asks("a", "b"), {"role": "user", "content": [
         result("a"), {"type": "text", "text": "note"}, result("b")]}]),
     error("messages.1: " + _UNANSWERED.format("b"))),
    # WIRE.md §3: the orphan result
    ("messages.tool_result.unexpected", BREAKING["messages.tool_result.unexpected"],
     error("messages.2.content.0: " + _UNEXPECTED.format("toolu_X"))),
    ("messages.tool_result.unexpected", body([USER, asks("a"), answers("a", "b")]),
     error("messages.2.content.1: " + _UNEXPECTED.format("b"))),
    ("messages.tool_result.unexpected", body([answers("a")]),
     error("messages.0.content.0: " + _UNEXPECTED.format("a"))),
    # issue 13: thinking before the tool_use it precedes, unchanged (thinking enabled only)
    ("messages.thinking.missing",
     body([USER, asks("toolu_1"), answers("toolu_1")],
          thinking={"type": "enabled", "budget_tokens": 1024}),
     error(THINKING_FIRST.format(i=1, found="tool_use"))),
    ("messages.thinking.signature", BREAKING["messages.thinking.signature"],
     error("messages.1.content.0: Invalid `signature` in `thinking` block")),
]


@pytest.mark.parametrize("rule, request_body, expected", REJECTIONS,
                         ids=[f"{i:02d}-{r[0]}" for i, r in enumerate(REJECTIONS)])
def test_validate_rejects_with_the_exact_body(rule: str, request_body: Any,
                                              expected: dict[str, Any]) -> None:
    assert_rejects_exactly(D, request_body, rule, expected)


def test_every_rule_in_the_dialect_has_a_row() -> None:
    import pytest_toolcall.providers.anthropic.dialect as module

    declared = rules_named(module) | {"type"}
    declared |= {f"{f}.missing" for f in ("model", "messages", "max_tokens")}
    declared |= {f"messages.tool_use.{f}" for f in ("id", "name", "input")}
    declared -= {"route", "auth.missing", "auth.invalid", "auth.version"}
    assert declared - {row[0] for row in REJECTIONS} == set()


ACCEPTED = {
    "plain": body(),
    "system_blocks_and_parts": body([{"role": "user", "content": [
        {"type": "text", "text": "hi"}, {"type": "image", "source": {}}]}],
        system=[{"type": "text", "text": "be brief"}]),
    "parallel_answered_in_any_order": body([USER, asks("a", "b"), answers("b", "a")],
                                           tools=[TOOL]),
    "results_then_text": body([USER, asks("a"), {"role": "user", "content": [
        result("a"), {"type": "text", "text": "and?"}]}]),
    # the API merges consecutive user messages (split results are accepted, just unwise)
    "results_split": body([USER, asks("a", "b"), answers("a"), answers("b")]),
    "final_assistant_prefill": body([USER, {"role": "assistant", "content": []}]),
    "server_tool": body(tools=[{"type": "web_search_20250305", "name": "web_search"}, TOOL]),
    "choices": body(tools=[TOOL], tool_choice={"type": "tool", "name": "get_weather",
                                               "disable_parallel_tool_use": True}),
    "none_choice": body(tools=[TOOL], tool_choice={"type": "none"}),
    "server_tool_use_unpaired": body([USER, {"role": "assistant", "content": [
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}]}, USER]),
    # real traffic (wire corpus, tool_search cross-provider replay): an id reused by a later turn
    "id_reused_by_a_later_turn": body([USER, asks("a"), answers("a"), asks("a"), answers("a")]),
    "error_result": body([USER, asks("a"), {"role": "user", "content": [
        dict(result("a"), is_error=True, content=[{"type": "text", "text": "boom"}])]}]),
    # mid-conversation system messages on the model that takes them (docs and recorded 200s)
    "system_after_user_last": body([USER, {"role": "system", "content": "be brief"}],
                                   model="claude-opus-4-8"),
    "system_after_results_then_assistant": body(
        [USER, asks("a"), answers("a"), {"role": "system", "content": [
            {"type": "text", "text": "be brief"}]}, {"role": "assistant", "content": "ok"}],
        model="claude-opus-4-8-20260528", tools=[TOOL]),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_validate_accepts_valid_requests(name: str) -> None:
    assert D.validate(ACCEPTED[name]) is None


def test_auth_and_route() -> None:
    key = "k"
    assert D.check_auth({"x-api-key": "k", "anthropic-version": "2023-06-01"}, {}, key) is None
    missing = D.check_auth({}, {}, key)
    assert missing and (missing.status, missing.message) == (401, "x-api-key header is required")
    assert missing.body["error"]["type"] == "authentication_error"
    wrong = D.check_auth({"x-api-key": "nope", "anthropic-version": "v"}, {}, key)
    assert wrong and (wrong.status, wrong.message) == (401, "invalid x-api-key")
    # the official SDK 2.x sends the key as a bearer token: accepted, and checked the same way
    assert D.check_auth({"authorization": "Bearer k", "anthropic-version": "v"}, {}, key) is None
    bearer = D.check_auth({"authorization": "Bearer x", "anthropic-version": "v"}, {}, key)
    assert bearer and bearer.rule == "auth.invalid"
    basic = D.check_auth({"authorization": "Basic k", "anthropic-version": "v"}, {}, key)
    assert basic and basic.rule == "auth.missing"
    version = D.check_auth({"x-api-key": "k"}, {}, key)
    assert version and (version.status, version.message) == (
        400, "anthropic-version: header is required")
    assert D.route("POST", "/v1/messages") and not D.route("POST", "/v1/chat/completions")
    assert not D.route("GET", "/v1/messages")
    assert D.not_found("POST", "/x").body == error("Not Found", type="not_found_error")


# -- decoding -------------------------------------------------------------------------------------
def test_decode_round_trips_what_the_reference_adapter_builds() -> None:
    request = ChatRequest(
        messages=(
            SystemMessage(content="be brief"),
            UserMessage(content="weather in Zürich and Paris?"),
            AssistantMessage(content="Checking.", tool_calls=(
                ToolCall(id="toolu_1", name="get_weather", arguments={"city": "Zürich"}),
                ToolCall(id="toolu_2", name="get_weather", arguments={"city": "Paris"}))),
            ToolMessage(tool_call_id="toolu_1", content="sun"),
            ToolMessage(tool_call_id="toolu_2", content="timeout", is_error=True),
            AssistantMessage(content="Sun in Zürich; Paris failed."),
            UserMessage(content="thanks"),
        ),
        tools=(WEATHER_TOOL,), tool_choice=NamedToolChoice(name="get_weather"),
        parallel_tool_calls=False, model="claude-sonnet-4-5",
    )
    adapter = AnthropicAdapter("http://unused.invalid/v1", "k")
    for wire, decoded in assert_round_trips(D, adapter, request):
        assert wire["system"] == "be brief" and wire["max_tokens"] == 1024
        assert wire["tool_choice"] == {"type": "tool", "name": "get_weather",
                                       "disable_parallel_tool_use": True}
        assert wire["messages"][2] == {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sun"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "timeout",
             "is_error": True}]}
        sent = decoded.messages[2].tool_calls  # type: ignore[union-attr]
        assert [c.raw_arguments for c in sent] == ['{"city": "Zürich"}', '{"city": "Paris"}']


@pytest.mark.parametrize(("wire", "choice", "parallel"), [
    ({"type": "auto"}, "auto", None), ({"type": "any"}, "required", None),
    ({"type": "none"}, "none", None), ({"type": "auto", "disable_parallel_tool_use": True},
                                       "auto", False),
    ({"type": "any", "disable_parallel_tool_use": False}, "required", True),
    ({"type": "tool", "name": "get_weather"}, NamedToolChoice(name="get_weather"), None)])
def test_decode_tool_choice(wire: dict[str, Any], choice: Any, parallel: Any) -> None:
    decoded = D.decode_request(body(tools=[TOOL], tool_choice=wire))
    assert (decoded.tool_choice, decoded.parallel_tool_calls) == (choice, parallel)


# -- encoding ---------------------------------------------------------------------------------------
def test_encode_response_with_calls() -> None:
    turn = Turn(text="Let me see.", tool_calls=(
        ScriptedCall(name="get_weather", arguments={"city": "Zürich"}),
        ScriptedCall(name="now", arguments="", id="toolu_own")))
    data = D.encode_response(turn, body())
    assert (data["type"], data["role"], data["stop_reason"]) == ("message", "assistant",
                                                                 "tool_use")
    assert data["content"] == [
        {"type": "text", "text": "Let me see."},
        {"type": "tool_use", "id": "toolu_001", "name": "get_weather", "input": {"city": "Zürich"},
         "caller": {"type": "direct"}},
        {"type": "tool_use", "id": "toolu_own", "name": "now", "input": {},
         "caller": {"type": "direct"}}]
    assert (data["usage"]["input_tokens"], data["usage"]["output_tokens"]) == (11, 7)


def test_encode_response_refuses_arguments_it_cannot_carry() -> None:
    with pytest.raises(UsageError, match="cannot send the arguments '\\[1, 2\\]'"):
        D.encode_response(Turn(tool_calls=(ScriptedCall(name="f", arguments="[1, 2]"),)), {})


def test_encode_error_uses_anthropic_types() -> None:
    assert D.encode_error(ErrorReply(status=500, type="server_error", message="boom")) == (
        500, error("boom", type="api_error"))
    assert D.encode_error(ErrorReply(status=429, type="rate_limit_error", message="slow")) == (
        429, error("slow", type="rate_limit_error"))


def events_of(raw: list[bytes]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for event in raw:
        text = event.decode()
        assert text.endswith("\n\n") and text.startswith("event: "), text
        name_line, data_line = text[:-2].split("\n")
        data = json.loads(data_line.removeprefix("data: "))
        name = name_line.removeprefix("event: ")
        assert data["type"] == name  # the event line and the JSON type always agree
        out.append((name, data))
    return out


def test_stream_shape() -> None:
    turn = Turn(text="Hi.", tool_calls=(
        ScriptedCall(name="get_weather", arguments={"city": "Paris"}),
        ScriptedCall(name="now", arguments=None), ScriptedCall(name="now", arguments="")),
        stream=StreamPlan(fragment_size=5))
    events = events_of(D.encode_stream(turn, body(stream=True)))
    names = [n for n, _ in events]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert names.count("ping") == 1
    starts = [d for n, d in events if n == "content_block_start"]
    assert [s["index"] for s in starts] == [0, 1, 2, 3]
    assert starts[1]["content_block"] == {"type": "tool_use", "id": "toolu_001",
                                          "name": "get_weather", "input": {},
                                          "caller": {"type": "direct"}}
    # blocks never interleave: each block's events sit between its start and its stop
    current = None
    for name, data in events:
        if name == "content_block_start":
            assert current is None
            current = data["index"]
        elif name == "content_block_delta":
            assert data["index"] == current
        elif name == "content_block_stop":
            assert data["index"] == current
            current = None
    deltas = {i: [d["delta"]["partial_json"] for n, d in events
                  if n == "content_block_delta" and d["index"] == i] for i in (1, 2, 3)}
    assert deltas[1][0] == "" and "".join(deltas[1]) == '{"city": "Paris"}'
    assert deltas[2] == [] and deltas[3] == [""]  # null: no delta at all; "": one empty delta
    message_delta = events[-2][1]
    assert message_delta["delta"] == {"stop_reason": "tool_use", "stop_sequence": None}
    assert message_delta["usage"]["output_tokens"] == 7
    assert events[0][1]["message"]["usage"]["input_tokens"] == 11


def test_stream_quirks_errors_and_truncation() -> None:
    pinged = events_of(D.encode_stream(Turn(text="Hi.", stream=StreamPlan(
        quirks=frozenset({"ping_everywhere", "delta_usage_output_only"}))), {}))
    names = [n for n, _ in pinged]
    assert all(names[k] == "ping" for k in range(1, len(names), 2))
    assert next(d for n, d in pinged if n == "message_delta")["usage"] == {"output_tokens": 7}
    broken = events_of(D.encode_stream(Turn(text="Hello there", stream=StreamPlan(
        error_after=2)), {}))
    assert [n for n, _ in broken] == ["message_start", "content_block_start", "ping", "error"]
    assert broken[-1][1]["error"]["type"] == "overloaded_error"
    cut = D.encode_stream(Turn(text="Hello", stream=StreamPlan(truncate_after=1)), {})
    assert [n for n, _ in events_of(cut)] == ["message_start", "content_block_start"]

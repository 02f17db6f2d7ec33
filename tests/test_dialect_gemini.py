"""The Gemini dialect: routes, auth, validation bodies (one row per rule), decoding, encoding."""

from __future__ import annotations

import json
from typing import Any

import pytest
from dialect_rules import rules_named

from pytest_toolcall.cases import ErrorReply, ScriptedCall, StreamPlan, Turn
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.gemini.dialect import Gemini, thought_signature
from pytest_toolcall.providers.gemini.probes import BREAKING, USER, body, calls, results
from pytest_toolcall.providers.fake import FakeProvider
from pytest_toolcall.core.model import (
    AssistantMessage,
    ChatRequest,
    NamedToolChoice,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from pytest_toolcall.reference import request_body
from pytest_toolcall.providers.gemini.reference import SYNTHETIC_ID_PREFIX, GeminiAdapter

D = Gemini()


def error(message: str, code: int = 400, status: str = "INVALID_ARGUMENT") -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "status": status}}


REJECTIONS: list[tuple[str, Any, dict[str, Any]]] = [
    ("body.json", BREAKING["body.json"], error(
        "Invalid JSON payload received. Unexpected token.")),
    ("body.unknown_field", BREAKING["body.unknown_field"], error(
        'Invalid JSON payload received. Unknown name "messages": Cannot find field.')),
    ("messages.missing", BREAKING["messages.missing"], error(
        "* GenerateContentRequest.contents: contents is not specified\n")),
    ("messages.type", BREAKING["messages.type"], error(
        "Invalid value at 'contents' (type.googleapis.com/google.ai.generativelanguage.v1beta."
        'Content), "hi"')),
    ("messages.unknown_field", BREAKING["messages.unknown_field"], error(
        'Invalid JSON payload received. Unknown name "arguments" at '
        "'contents[1].parts[0].function_call': Cannot find field.")),
    ("messages.role", BREAKING["messages.role"], error(
        "Please use a valid role: user, model.")),
    ("messages.parts.empty", BREAKING["messages.parts.empty"], error(
        "* GenerateContentRequest.contents[1].parts: contents.parts must not be empty.\n")),
    ("messages.struct", BREAKING["messages.struct"], error(
        "Invalid value at 'contents[2].parts[0].function_response.response' "
        '(type.googleapis.com/google.protobuf.Struct), "ok"')),
    ("messages.function_response.name", BREAKING["messages.function_response.name"], error(
        "* GenerateContentRequest.contents[2].parts[0].function_response.name: Name cannot be "
        "empty.\n")),
    ("messages.function_call.position", BREAKING["messages.function_call.position"], error(
        "Please ensure that function call turn comes immediately after a user turn or after a "
        "function response turn.")),
    ("messages.function_response.position", BREAKING["messages.function_response.position"],
     error("Please ensure that function response turn comes immediately after a function call "
           "turn.")),
    ("messages.function_response.count", BREAKING["messages.function_response.count"], error(
        "Please ensure that the number of function response parts is equal to the number of "
        "function call parts of the function call turn.")),
    ("tools.unknown_field", BREAKING["tools.unknown_field"], error(
        'Invalid JSON payload received. Unknown name "input_schema" at '
        "'tools[0].function_declarations[0]': Cannot find field.")),
    ("tools.name.pattern", BREAKING["tools.name.pattern"],
     error("* GenerateContentRequest.tools[0].function_declarations[1].name: Invalid function "
           "name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, "
           "0-9), underscores (_), dots (.) or dashes (-), with a maximum length of 64.\n")),
    ("tools.parameters.unknown_field", BREAKING["tools.parameters.unknown_field"], error(
        'Invalid JSON payload received. Unknown name "additionalProperties" at '
        "'tools[0].function_declarations[0].parameters': Cannot find field.")),
    ("tool_choice.mode", BREAKING["tool_choice.mode"], error(
        "Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/"
        "google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), \"REQUIRED\"")),
]


@pytest.mark.parametrize(("rule", "payload", "expected"), REJECTIONS,
                         ids=[f"{r[0]}-{n}" for n, r in enumerate(REJECTIONS)])
def test_validation_rule(rule: str, payload: Any, expected: dict[str, Any]) -> None:
    found = D.validate(payload)
    assert found is not None, f"{rule} not enforced"
    assert (found.rule, found.status, dict(found.body)) == (rule, 400, expected)


def test_every_rule_has_a_row() -> None:
    from pytest_toolcall.providers.gemini import dialect as gemini

    rules = rules_named(gemini)
    rules |= {"body.unknown_field", "messages.unknown_field", "tools.unknown_field",
              "tools.parameters.unknown_field"}  # passed as arguments to _unknown()
    by_route = {"messages.function_call.thought_signature"}  # test_gemini_3_* below
    assert rules - {"route", "auth.missing", "auth.invalid"} - by_route == {
        r[0] for r in REJECTIONS}


def _signed(*names: str, signature: str | None = "c2ln") -> dict[str, Any]:
    turn = calls(*names)
    if signature is not None:
        turn["parts"][0]["thoughtSignature"] = signature
    return turn


PATH3 = "/v1beta/models/gemini-3-flash-preview:generateContent"


@pytest.mark.parametrize("model", ["gemini-3-pro-preview", "gemini-3.1-flash-lite-preview",
                                   "gemini-flash-latest", "gemini-4-argon"])
def test_gemini_3_refuses_an_unsigned_call_of_the_current_turn(model: str) -> None:
    """Each step of the current turn needs the signature on its first functionCall part: the
    second step here lost it (contents[3], 'position 4')."""
    path = f"/v1beta/models/{model}:streamGenerateContent"
    payload = body([USER, _signed("f", "g"), results("f", "g"), _signed("h", signature=None),
                    results("h")])
    found = D.validate_route(path, payload)
    assert found is not None and (found.rule, found.status) == (
        "messages.function_call.thought_signature", 400)
    assert dict(found.body) == error(
        "Function call is missing a thought_signature in functionCall parts. This is required "
        "for tools to work correctly, and missing thought_signature may lead to degraded model "
        "performance. Additional data, function call `default_api:h` , position 4. Please "
        "refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.")


@pytest.mark.parametrize(("path", "contents"), [
    # every step signed on its first call (a parallel call after it needs none)
    (PATH3, [USER, _signed("f", "g"), results("f", "g"), _signed("h"), results("h")]),
    # an earlier turn (before the last user text) is not checked
    (PATH3, [USER, calls("f"), results("f"), {"role": "model", "parts": [{"text": "ok"}]},
             USER, _signed("g"), results("g")]),
    # Gemini 2.5 and 2.0 do not check
    ("/v1beta/models/gemini-2.5-flash:generateContent", [USER, calls("f"), results("f")]),
    ("/v1/models/gemini-2.0-flash:generateContent", [USER, calls("f"), results("f")]),
], ids=["signed", "earlier-turn", "2.5", "2.0"])
def test_gemini_3_takes_what_it_takes(path: str, contents: Any) -> None:
    assert D.validate(body(contents)) is None
    assert D.validate_route(path, body(contents)) is None


def test_the_fake_refuses_an_unsigned_replay_for_gemini_3_only() -> None:
    fake = FakeProvider("gemini", turns=[Turn(text="ok"), Turn(text="ok")])
    payload = json.dumps(body([USER, calls("f"), results("f")])).encode()
    headers = {"x-goog-api-key": fake.api_key}
    status, _, chunks = fake.respond("POST", PATH3, headers, payload)
    assert status == 400 and b"missing a thought_signature" in b"".join(chunks)
    status, _, _ = fake.respond("POST", "/v1beta/models/gemini-2.5-flash:generateContent",
                                headers, payload)
    assert status == 200


def test_a_replayed_signature_decodes_as_signed_thinking() -> None:
    request = D.decode_request(body([USER, _signed("f", "g"), results("f", "g")]))
    [assistant] = [m for m in request.messages if isinstance(m, AssistantMessage)]
    assert [(r.type, r.text, r.signature) for r in assistant.reasoning] == [
        ("thinking", None, "c2ln")]


@pytest.mark.parametrize("payload", [
    body([USER, calls("f", "f"), results("f", "f"), {"role": "model", "parts": [{"text": "ok"}]}]),
    # snake_case is what the proto JSON parser also takes (google-genai sends some)
    {"contents": [USER], "tools": [{"function_declarations": [
        {"name": "f", "parameters_json_schema": {"type": "object", "$defs": {}}}]}],
     "tool_config": {"function_calling_config": {"mode": "ANY",
                                                 "allowed_function_names": ["f"]}}},
    # the Developer API takes ids on calls and responses, and text next to results
    body([USER, {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}, "id": "a"},
                                             "thoughtSignature": "c2ln"}]},
          {"role": "user", "parts": [{"functionResponse": {"name": "f", "id": "a",
                                                           "response": {"error": "x"}}},
                                     {"text": "go on"}]}]),
])
def test_accepted(payload: Any) -> None:
    assert D.validate(payload) is None


def test_routes_v1beta_and_v1_and_nothing_else() -> None:
    assert D.route("POST", "/v1beta/models/gemini-2.5-flash:generateContent")
    assert D.route("POST", "/v1/models/gemini-2.5-flash:streamGenerateContent")
    assert not D.route("GET", "/v1beta/models/gemini-2.5-flash:generateContent")
    assert not D.route("POST", "/v1beta/models/gemini-2.5-flash:countTokens")
    assert not D.route("POST", "/v1/chat/completions")
    assert D.wants_stream({}, "/v1/models/m:streamGenerateContent")
    assert not D.wants_stream({"stream": True}, "/v1/models/m:generateContent")
    assert D.not_found("POST", "/v2/x").status == 404


@pytest.mark.parametrize(("headers", "query", "rule"), [
    ({"x-goog-api-key": "k"}, {}, None),
    ({}, {"key": "k"}, None),
    ({}, {}, "auth.missing"),
    ({"x-goog-api-key": "nope"}, {}, "auth.invalid"),
    ({"authorization": "Bearer k"}, {}, "auth.missing"),
])
def test_auth_header_or_query_key(headers: dict[str, str], query: dict[str, str],
                                  rule: str | None) -> None:
    found = D.check_auth(headers, query, "k")
    assert (found.rule if found else None) == rule


def test_query_key_accepted_end_to_end() -> None:
    fake = FakeProvider("gemini", [Turn(text="hi")])
    status, _, chunks = fake.respond("POST", f"/v1/models/m:generateContent?key={fake.api_key}",
                                     {}, json.dumps(body()).encode())
    assert status == 200
    assert json.loads(b"".join(chunks))["candidates"][0]["content"]["parts"] == [{"text": "hi"}]


def test_encode_response_ids_signature_and_finish() -> None:
    turn = Turn(text="t", tool_calls=(ScriptedCall(name="f", arguments='{"a": 1}', id="x"),
                                      ScriptedCall(name="f", arguments=None, id="y")))
    data = D.encode_response(turn, {})
    candidate = data["candidates"][0]
    assert candidate["finishReason"] == "STOP"
    assert candidate["content"]["parts"] == [
        {"text": "t"},
        {"functionCall": {"name": "f", "args": {"a": 1}, "id": "x"},
         "thoughtSignature": thought_signature("x", "f")},
        {"functionCall": {"name": "f", "args": {}, "id": "y"}}]
    no_ids = turn.model_copy(update={"stream": StreamPlan(quirks={"no_ids"})})
    parts = D.encode_response(no_ids, {})["candidates"][0]["content"]["parts"][1:]
    assert [p["functionCall"] for p in parts] == [{"name": "f", "args": {"a": 1}},
                                                  {"name": "f", "args": {}}]
    assert D.call_ids(no_ids) == [None, None] and D.call_ids(turn) == ["x", "y"]
    assert D.encode_response(Turn(finish_reason="error"), {})["candidates"][0][
        "finishReason"] == "MALFORMED_FUNCTION_CALL"


def test_encode_stream_shapes() -> None:
    turn = Turn(tool_calls=(ScriptedCall(name="f", id="x"), ScriptedCall(name="g", id="y")))
    events = D.encode_stream(turn, {})
    assert all(e.startswith(b"data: ") and e.endswith(b"}\r\n\r\n") for e in events)
    chunks = [json.loads(e[6:]) for e in events]
    assert len(chunks) == 2  # both calls in one chunk, then the finish chunk
    assert [p["functionCall"]["name"] for p in chunks[0]["candidates"][0]["content"]["parts"]] \
        == ["f", "g"]
    assert chunks[1]["candidates"][0] == {"content": {"parts": [{"text": ""}], "role": "model"},
                                          "finishReason": "STOP", "index": 0}
    split = D.encode_stream(turn.model_copy(update={"stream": StreamPlan(
        quirks={"one_call_per_chunk"})}), {})
    assert len(split) == 3
    # errors and cuts always land before the finish chunk: there is no other end marker
    cut = D.encode_stream(turn.model_copy(update={"stream": StreamPlan(truncate_after=9)}), {})
    assert cut == events[:1]
    broken = D.encode_stream(turn.model_copy(update={"stream": StreamPlan(error_after=9)}), {})
    assert json.loads(broken[-1][6:]) == {"error": {
        "code": 500, "message": StreamPlan().error.message, "status": "INTERNAL"}}
    assert broken[:-1] == events[:1]


def test_encode_error() -> None:
    assert D.encode_error(ErrorReply(status=429, message="slow down")) == (
        429, {"error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED"}})


def test_decode_round_trip_of_reference_body() -> None:
    history = ChatRequest(
        messages=(SystemMessage(content="be brief"), UserMessage(content="hi"),
                  AssistantMessage(content="on it", tool_calls=(
                      ToolCall(id="a", name="f", arguments={"x": "é"}),
                      ToolCall(id=f"{SYNTHETIC_ID_PREFIX}1", name="f", arguments={}))),
                  ToolMessage(tool_call_id="a", content="r1"),
                  ToolMessage(tool_call_id=f"{SYNTHETIC_ID_PREFIX}1", content="r2",
                              is_error=True)),
        tool_choice=NamedToolChoice(name="f"))
    sent = request_body("gemini", history)
    assert D.validate(sent) is None
    model_turn, results_turn = sent["contents"][1], sent["contents"][2]
    assert [p["functionCall"].get("id") for p in model_turn["parts"][1:]] == ["a", None]
    assert results_turn["parts"] == [
        {"functionResponse": {"name": "f", "response": {"output": "r1"}, "id": "a"}},
        {"functionResponse": {"name": "f", "response": {"error": "r2"}}}]
    decoded = D.decode_request(sent)
    assert decoded.messages[0] == SystemMessage(content="be brief")
    assert [(m.tool_call_id, m.content, m.is_error) for m in decoded.messages[3:]] == [
        ("a", "r1", False), (None, "r2", True)]
    assert decoded.messages[2].tool_calls[0].arguments == {"x": "é"}


@pytest.mark.parametrize(("choice", "config"), [
    ("auto", {"mode": "AUTO"}), ("none", {"mode": "NONE"}), ("required", {"mode": "ANY"}),
    (NamedToolChoice(name="f"), {"mode": "ANY", "allowedFunctionNames": ["f"]}),
])
def test_tool_choice_round_trip(choice: Any, config: dict[str, Any]) -> None:
    from pytest_toolcall.core.model import ToolSpec

    request = ChatRequest(messages=(UserMessage(content="hi"),), tools=(ToolSpec(name="f"),),
                          tool_choice=choice)
    sent = request_body("gemini", request)
    assert sent["toolConfig"] == {"functionCallingConfig": config}
    assert D.decode_request(sent).tool_choice == choice


def test_made_up_ids_are_unique_and_never_sent() -> None:
    adapter = GeminiAdapter("http://x/v1beta", "k")
    part = {"functionCall": {"name": "f", "args": {}}}
    a, b = adapter.parse_call(part), adapter.parse_call(part)
    assert a.id != b.id and a.id.startswith(SYNTHETIC_ID_PREFIX)
    assert "id" not in adapter.encode_call(a)["functionCall"]


def test_registered() -> None:
    assert isinstance(get_dialect("gemini"), Gemini)


def test_the_reference_adapter_sends_a_carried_gemini_signature_only() -> None:
    """A signed thinking entry with no text (what the fake decodes a replayed signature to) goes
    on the first call when the adapter remembers none; another provider's signed block (with
    its text) does not."""
    from pytest_toolcall.core.model import Reasoning

    call = ToolCall.from_raw(id="call_1", name="f", arguments={})

    def first_part(reasoning: Any) -> dict[str, Any]:
        message = AssistantMessage(tool_calls=(call,), reasoning=reasoning)
        body = request_body("gemini", ChatRequest(messages=(UserMessage(content="hi"), message)))
        return body["contents"][1]["parts"][0]

    assert first_part((Reasoning(type="thinking", signature="c2ln"),))["thoughtSignature"] == \
        "c2ln"
    assert "thoughtSignature" not in first_part(
        (Reasoning(type="thinking", text="Claude's words", signature="EqQB"),))
    assert "thoughtSignature" not in first_part(())

"""The canonical model: tool specs, tool calls, messages, requests, stream assembly."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from pytest_toolcall.core.model import (
    AssistantMessage,
    ChatRequest,
    ChatResponse,
    NamedToolChoice,
    StreamDone,
    TextDelta,
    ToolCall,
    ToolCallComplete,
    ToolCallDelta,
    ToolMessage,
    ToolSpec,
    Usage,
    UserMessage,
    assemble_stream,
    parse_arguments,
)

DRAFT7 = "http://json-schema.org/draft-07/schema#"


# -- ToolSpec ---------------------------------------------------------------------------------
def test_toolspec_default_parameters_are_an_empty_object_schema() -> None:
    spec = ToolSpec(name="ping")
    assert spec.parameters == {"type": "object", "properties": {}}
    assert spec.description == "" and spec.strict is None


def test_toolspec_rejects_invalid_schema_at_root() -> None:
    with pytest.raises(ValidationError) as info:
        ToolSpec(name="f", parameters={"type": "objekt"})
    [error] = info.value.errors()
    assert error["loc"] == ("parameters",)
    assert "parameters is not a valid JSON Schema at type:" in error["msg"]
    assert "'objekt'" in error["msg"]


def test_toolspec_names_a_nested_location() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "strin"}}}
    with pytest.raises(ValidationError) as info:
        ToolSpec(name="f", parameters=schema)
    assert "at properties/city/type:" in info.value.errors()[0]["msg"]


def test_toolspec_checks_against_the_declared_draft07() -> None:
    # tuple-form "items" is valid draft-07 but not valid 2020-12
    schema = {"$schema": DRAFT7, "type": "object",
              "properties": {"pair": {"type": "array", "items": [{"type": "string"}]}},
              "definitions": {"unit": {"enum": ["c", "f"]}}}
    assert ToolSpec(name="f", parameters=schema).parameters == schema
    undeclared = {k: v for k, v in schema.items() if k != "$schema"}
    with pytest.raises(ValidationError, match=r"at properties/pair/items:"):
        ToolSpec(name="f", parameters=undeclared)


def test_toolspec_draft07_still_rejects_draft07_errors() -> None:
    with pytest.raises(ValidationError, match=r"at properties/n/minimum: 'zero' is not of type"):
        ToolSpec(name="f", parameters={"$schema": DRAFT7, "type": "object",
                                       "properties": {"n": {"minimum": "zero"}}})


def test_toolspec_name_must_not_be_empty() -> None:
    with pytest.raises(ValidationError) as info:
        ToolSpec(name="")
    assert info.value.errors()[0]["loc"] == ("name",)


@pytest.mark.parametrize("model, field", [
    (ToolSpec, "paramters"), (ToolCall, "argument"), (ChatRequest, "tool"),
    (ChatResponse, "tool_call"), (Usage, "prompt_tokens"),
])
def test_extra_fields_are_forbidden(model: type, field: str) -> None:
    base = {ToolSpec: {"name": "f"}, ToolCall: {"name": "f"},
            ChatRequest: {"messages": [{"role": "user", "content": "hi"}]},
            ChatResponse: {}, Usage: {}}[model]
    with pytest.raises(ValidationError) as info:
        model(**base, **{field: {}})
    [error] = info.value.errors()
    assert error["type"] == "extra_forbidden" and error["loc"] == (field,)


def test_models_are_frozen() -> None:
    call = ToolCall(name="f", arguments={})
    with pytest.raises(ValidationError):
        call.name = "g"  # type: ignore[misc]


# -- ToolCall.from_raw ------------------------------------------------------------------------
@pytest.mark.parametrize("raw", ["", "   ", None, "{}", {}])
def test_from_raw_empty_forms_all_mean_no_arguments(raw: object) -> None:
    call = ToolCall.from_raw(id="call_1", name="now", arguments=raw)  # type: ignore[arg-type]
    assert call.arguments == {}
    assert call.parse_error is None
    assert call.raw_arguments == (raw if isinstance(raw, str) else None)
    assert call.arguments_json() == "{}"


def test_from_raw_dict_is_copied_and_has_no_raw_text() -> None:
    given = {"city": "Paris"}
    call = ToolCall.from_raw(id=None, name="w", arguments=given)
    assert call.arguments == {"city": "Paris"} and call.arguments is not given
    assert call.raw_arguments is None and call.id is None


def test_from_raw_invalid_json_is_a_parse_error_not_an_exception() -> None:
    call = ToolCall.from_raw(id="c", name="w", arguments='{"city": "Par')
    assert call.arguments is None
    assert call.raw_arguments == '{"city": "Par'
    assert call.parse_error is not None
    assert call.parse_error.startswith("arguments are not valid JSON: ")
    assert "position" in call.parse_error


@pytest.mark.parametrize("raw, kind", [("[1, 2]", "an array"), ('"x"', "a string"),
                                       ("null", "null"), ("3", "a number"), ("true", "a boolean")])
def test_from_raw_non_object_json_names_the_json_type(raw: str, kind: str) -> None:
    call = ToolCall.from_raw(id="c", name="w", arguments=raw)
    assert call.arguments is None
    assert call.parse_error == f"arguments must be a JSON object, got {kind}: {raw}"


def test_from_raw_wrong_python_type() -> None:
    args, error = parse_arguments(5)  # type: ignore[arg-type]
    assert args is None and error == "arguments must be a JSON object or its text, got int"


def test_from_raw_non_ascii_round_trips_without_escapes() -> None:
    escaped = '{"city": "Z\\u00fcrich", "emoji": "\\ud83c\\udf0d"}'
    call = ToolCall.from_raw(id="c", name="w", arguments=escaped)
    assert call.arguments == {"city": "Zürich", "emoji": "🌍"}
    assert call.raw_arguments == escaped
    assert call.arguments_json() == '{"city":"Zürich","emoji":"🌍"}'
    assert "\\u" not in call.arguments_json()


def test_arguments_json_is_never_empty() -> None:
    assert ToolCall(name="f").arguments_json() == "{}"
    assert ToolCall(name="f", raw_arguments="").arguments_json() == "{}"
    assert ToolCall(name="f", arguments={}).arguments_json() == "{}"


def test_arguments_json_replays_unparseable_text_verbatim() -> None:
    call = ToolCall.from_raw(id="c", name="w", arguments="{bad")
    assert call.arguments_json() == "{bad"


def test_arguments_json_is_compact_valid_json() -> None:
    call = ToolCall(name="f", arguments={"a": [1, 2], "b": {"c": None}})
    text = call.arguments_json()
    assert text == '{"a":[1,2],"b":{"c":null}}'
    assert json.loads(text) == call.arguments


# -- messages and requests --------------------------------------------------------------------
def test_chat_request_discriminates_messages_by_role() -> None:
    request = ChatRequest.model_validate({
        "messages": [
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "tool_calls": [{"id": "c1", "name": "w", "arguments": {}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        ],
        "tool_choice": {"type": "tool", "name": "w"},
    })
    kinds = [type(m) for m in request.messages]
    assert kinds == [UserMessage, AssistantMessage, ToolMessage]
    assert request.tool_choice == NamedToolChoice(name="w")
    assert request.messages[1].tool_calls[0].id == "c1"  # type: ignore[union-attr]


def test_chat_request_rejects_unknown_role() -> None:
    with pytest.raises(ValidationError) as info:
        ChatRequest.model_validate({"messages": [{"role": "robot", "content": "x"}]})
    assert info.value.errors()[0]["type"] == "union_tag_invalid"


def test_chat_request_rejects_unknown_tool_choice() -> None:
    with pytest.raises(ValidationError):
        ChatRequest.model_validate({"messages": [{"role": "user", "content": "x"}],
                                    "tool_choice": "always"})


def test_response_to_message_replays_calls_and_drops_empty_text() -> None:
    call = ToolCall(id="c1", name="w", arguments={})
    response = ChatResponse(text="", tool_calls=(call,), finish_reason="tool_calls")
    assert response.to_message() == AssistantMessage(content=None, tool_calls=(call,))
    assert ChatResponse(text="hi").to_message().content == "hi"


# -- assemble_stream --------------------------------------------------------------------------
def test_assemble_stream_folds_text_calls_and_done() -> None:
    first = ToolCall(id="a", name="f", arguments={"x": 1})
    second = ToolCall(id="b", name="g", arguments={})
    usage = Usage(input_tokens=3, output_tokens=4, total_tokens=7)
    events = [TextDelta(text="Hel"), ToolCallDelta(index=0, id="a", name="f"),
              TextDelta(text="lo"), ToolCallComplete(call=first),
              ToolCallDelta(index=1, arguments_delta="{}"), ToolCallComplete(call=second),
              StreamDone(finish_reason="tool_calls", usage=usage)]
    response = assemble_stream(events)
    assert response == ChatResponse(text="Hello", tool_calls=(first, second),
                                    finish_reason="tool_calls", usage=usage)


def test_assemble_stream_ignores_deltas_without_completion() -> None:
    response = assemble_stream([ToolCallDelta(index=0, id="a", name="f", arguments_delta="{")])
    assert response == ChatResponse(text=None, tool_calls=(), finish_reason=None, usage=None)


def test_assemble_stream_of_nothing() -> None:
    assert assemble_stream(iter(())) == ChatResponse()

"""The openai-responses dialect: one row per validation rule with the exact error body, the
request decoding, and the shape of the stream (first event, sequence numbers, output_index)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_toolcall.cases import ScriptedCall, StreamPlan, Turn
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.openai_responses.dialect import item_id
from pytest_toolcall.providers.openai_responses.probes import ASK, BREAKING, CALL, OUT, body
from pytest_toolcall.core.model import AssistantMessage, SystemMessage, ToolMessage, UserMessage

D = get_dialect("openai-responses")


#: (rule, request body, status, message, param, code)
RULES: list[tuple[str, Any, int, str, str | None, str | None]] = [
    ("body.json", BREAKING["body.json"], 400,
     "We could not parse the JSON body of your request. (HINT: This "
     "likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON "
     "payload, but what was sent was not valid JSON.)", None, None),
    ("model.missing", BREAKING["model.missing"], 400,
     "Missing required parameter: 'model'.", "model",
     "missing_required_parameter"),
    ("tools.name.missing", BREAKING["tools.name.missing"], 400,
     "Missing required parameter: 'tools[0].name'.", "tools[0].name",
     "missing_required_parameter"),
    ("tools.name.pattern", BREAKING["tools.name.pattern"], 400,
     "Invalid 'tools[0].name': string does not match pattern. Expected a string that matches "
     "the pattern '^[a-zA-Z0-9_-]+$'.", "tools[0].name", "invalid_value"),
    ("tools.name.length", BREAKING["tools.name.length"], 400,
     "Invalid 'tools[0].name': string too long. Expected a string with maximum length 64, but "
     "got a string with length 65 instead.", "tools[0].name", "string_above_max_length"),
    ("tools.parameters.schema", BREAKING["tools.parameters.schema"], 400,
     None, "tools[0].parameters", "invalid_function_parameters"),  # message: the schema problem
    ("tool_choice.value", BREAKING["tool_choice.value"], 400,
     "Invalid value: 'any'. Supported values "
     "are: 'none', 'auto', and 'required'.", "tool_choice", "invalid_value"),
    ("tool_choice.name.missing", BREAKING["tool_choice.name.missing"], 400,
     "Missing required parameter: 'tool_choice.name'.", "tool_choice.name",
     "missing_required_parameter"),
    ("type", BREAKING["type"], 400, "Invalid type for 'parallel_tool_calls': "
     "expected a boolean, but got a string instead.", "parallel_tool_calls", "invalid_type"),
    ("input.message.role", BREAKING["input.message.role"], 400,
     "Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and "
     "'user'.", "input[1].role", "invalid_value"),
    ("input.function_call.call_id", BREAKING["input.function_call.call_id"], 400,
     "Missing required parameter: 'input[1].call_id'.", "input[1].call_id",
     "missing_required_parameter"),
    ("type", body(input=[ASK, dict(CALL, arguments={"city": "Paris"}), OUT]), 400,
     "Invalid type for 'input[1].arguments': expected a string, but got an object instead.",
     "input[1].arguments", "invalid_type"),
    ("input.function_call.id_prefix", BREAKING["input.function_call.id_prefix"], 400,
     "Invalid 'input[1].id': 'call_A'. Expected an ID that begins with 'fc'.", "input[1].id",
     "invalid_value"),
    ("input.function_call.unanswered", BREAKING["input.function_call.unanswered"], 400,
     "No tool output found for function call call_A.", "input", None),
    ("input.function_call_output.orphan", BREAKING["input.function_call_output.orphan"], 400,
     "No tool call found for function call output with call_id call_A.", "input", None),
    ("input.function_call_output.duplicate", BREAKING["input.function_call_output.duplicate"], 400,
     "Duplicate function_call_output for call_id 'call_A'. Each function_call must have exactly "
     "one matching function_call_output", "input", None),
    ("input.function_call_output.output", BREAKING["input.function_call_output.output"], 400,
     "Missing required parameter: 'input[2].output'.", "input[2].output",
     "missing_required_parameter"),
    ("input.reasoning.following_item", BREAKING["input.reasoning.following_item"], 400,
     "Item 'rs_1' of type 'reasoning' was provided without its required following item.",
     "input", None),
    # OpenAI's wording for every missing parameter, on the paths of Responses' items
    *[(rule, BREAKING[rule], 400, f"Missing required parameter: '{param}'.", param,
       "missing_required_parameter") for rule, param in (
        ("tools.type.missing", "tools[0].type"),
        ("input.message.role.missing", "input[0].role"),
        ("input.message.content", "input[0].content"),
        ("input.function_call.name", "input[1].name"),
        ("input.function_call.arguments", "input[1].arguments"),
        ("input.function_call_output.call_id", "input[2].call_id"))],
]


@pytest.mark.parametrize(("rule", "request_body", "status", "message", "param", "code"), RULES,
                         ids=[f"{r[0]}-{n}" for n, r in enumerate(RULES)])
def test_validation_rule(rule: str, request_body: Any, status: int, message: str | None,
                         param: str | None, code: str | None) -> None:
    rejection = D.validate(request_body)
    assert rejection is not None and rejection.rule == rule
    assert rejection.status == status
    error = rejection.body["error"]
    assert (error["param"], error["code"], error["type"]) == (param, code, "invalid_request_error")
    if message is not None:
        assert error["message"] == message
    else:
        assert error["message"].startswith("Invalid schema for function 'get_weather': ")


def test_every_rule_with_a_probe_has_a_row() -> None:
    assert set(BREAKING) - {row[0] for row in RULES} == set()


@pytest.mark.parametrize("request_body", [
    body(),
    body(input="just text", tools=None),
    body(input=[ASK, dict(CALL, id=item_id("call_A")), OUT]),  # replayed with its fc_ id
    body(input=[ASK, CALL, {"role": "user", "content": "and?"}, OUT]),  # output later: accepted
    body(input=[OUT], previous_response_id="resp_1"),  # the call is stored on the server
    body(input=[ASK, {"type": "tool_search_call", "call_id": "s1", "arguments": {}},
                {"type": "function_call_output", "call_id": "s1", "output": "found"}]),
    body(tool_choice={"type": "function", "name": "get_weather"}, parallel_tool_calls=False),
    body(tools=[{"type": "web_search"}], tool_choice={"type": "allowed_tools", "mode": "auto",
                                                      "tools": []}),
], ids=["plain", "string-input", "fc-id", "late-output", "previous-response", "tool-search",
        "named-choice", "hosted-tools"])
def test_accepted(request_body: dict[str, Any]) -> None:
    assert D.validate(request_body) is None


def test_decode_merges_calls_into_their_assistant_turn() -> None:
    decoded = D.decode_request(body(
        instructions="Be brief.", tool_choice={"type": "function", "name": "get_weather"},
        input=[ASK, {"role": "assistant", "content": "Checking."}, CALL,
               dict(CALL, call_id="call_B"), OUT, dict(OUT, call_id="call_B", output="18°C")]))
    kinds = [type(m) for m in decoded.messages]
    assert kinds == [SystemMessage, UserMessage, AssistantMessage, ToolMessage, ToolMessage]
    assistant = decoded.messages[2]
    assert assistant.content == "Checking."
    assert [(c.id, c.arguments) for c in assistant.tool_calls] == [
        ("call_A", {"city": "Paris"}), ("call_B", {"city": "Paris"})]
    assert decoded.tool_choice.name == "get_weather"
    assert decoded.tools[0].name == "get_weather" and decoded.tools[0].strict is False


def _events(turn: Turn) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for raw in D.encode_stream(turn, {"model": "m"}):
        event_line, data_line, blank = raw.decode().split("\n", 2)
        assert blank == "\n" and event_line.startswith("event: ")
        data = json.loads(data_line.removeprefix("data: "))
        assert data["type"] == event_line.removeprefix("event: ")
        out.append((data["type"], data))
    return out


def test_stream_shape() -> None:
    turn = Turn(text="Hi", tool_calls=(ScriptedCall(id="call_A", name="get_weather",
                                                    arguments='{"city":"Paris"}'),
                                       ScriptedCall(id="call_B", name="get_time", arguments="")),
                stream=StreamPlan(fragment_size=5))
    events = _events(turn)
    assert events[0][0] == "response.created" and events[-1][0] == "response.completed"
    assert [d["sequence_number"] for _, d in events] == list(range(len(events)))
    added = [d for t, d in events if t == "response.output_item.added"]
    assert [d["output_index"] for d in added] == [0, 1, 2]
    assert [d["item"].get("arguments") for d in added] == [None, "", ""]
    deltas = [d for t, d in events if t == "response.function_call_arguments.delta"]
    assert {d["item_id"] for d in deltas} == {item_id("call_A")}
    assert "".join(d["delta"] for d in deltas) == '{"city":"Paris"}'
    final = events[-1][1]["response"]
    assert final["usage"]["total_tokens"] == 18 and final["status"] == "completed"
    assert [o.get("call_id") for o in final["output"]] == [None, "call_A", "call_B"]
    assert "[DONE]" not in b"".join(D.encode_stream(turn, {})).decode()


def test_stream_errors_and_truncation() -> None:
    turn = Turn(tool_calls=(ScriptedCall(id="call_A", name="get_time"),),
                stream=StreamPlan(error_after=2))
    assert _events(turn)[-1][0] == "error" and len(_events(turn)) == 4
    failed = turn.model_copy(update={"stream": StreamPlan(error_after=2,
                                                          quirks=frozenset({"response_failed"}))})
    last = _events(failed)[-1][1]
    assert last["type"] == "response.failed" and last["response"]["status"] == "failed"
    cut = turn.model_copy(update={"stream": StreamPlan(truncate_after=3)})
    assert [t for t, _ in _events(cut)][-1] != "response.completed" and len(_events(cut)) == 4

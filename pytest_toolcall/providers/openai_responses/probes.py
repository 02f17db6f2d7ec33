"""The smallest request breaking each of the Responses API's rules the fake judges (the rules of
``dialect.py``), and its accepted twin: the data of the rule tests
(tests/test_dialect_openai_responses.py) and of the probes a user runs against the real service
(``pytest-toolcall probe``, issue 33).
"""

from __future__ import annotations

from typing import Any

__all__ = ["ASK", "BREAKING", "CALL", "OUT", "TOOL", "TWINS", "body", "twin_of"]

TOOL = {"type": "function", "name": "get_weather", "description": "", "strict": False,
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}
CALL = {"type": "function_call", "call_id": "call_A", "name": "get_weather",
        "arguments": '{"city":"Paris"}'}
OUT = {"type": "function_call_output", "call_id": "call_A", "output": "21°C"}
ASK = {"role": "user", "content": "Weather in Paris?"}


def body(**fields: Any) -> dict[str, Any]:
    return {"model": "gpt-4.1-mini", "input": [ASK], "tools": [TOOL], **fields}


def _without(item: dict[str, Any], field: str) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k != field}


#: one body per rule, breaking that rule alone (``input.function_call.reasoning`` needs a
#: reasoning item of an earlier answer: no one-request body shows it)
BREAKING: dict[str, Any] = {
    "body.json": None,
    "model.missing": {"input": "hi"},
    "type": body(parallel_tool_calls="no"),
    "tools.type.missing": body(tools=[_without(TOOL, "type")]),
    "tools.name.missing": body(tools=[{"type": "function",
                                       "function": {"name": "get_weather"}}]),
    "tools.name.pattern": body(tools=[dict(TOOL, name="get weather")]),
    "tools.name.length": body(tools=[dict(TOOL, name="x" * 65)]),
    "tools.parameters.schema": body(tools=[dict(TOOL, parameters={"type": "objekt"})]),
    "tool_choice.value": body(tool_choice="any"),
    "tool_choice.name.missing": body(tool_choice={"type": "function",
                                                  "function": {"name": "get_weather"}}),
    "input.message.role.missing": body(input=[{"content": "hi"}]),
    "input.message.role": body(input=[ASK, {"role": "tool", "tool_call_id": "call_A",
                                            "content": "x"}]),
    "input.message.content": body(input=[{"role": "user"}]),
    "input.function_call.call_id": body(input=[ASK, _without(CALL, "call_id")]),
    "input.function_call.name": body(input=[ASK, _without(CALL, "name"), OUT]),
    "input.function_call.arguments": body(input=[ASK, _without(CALL, "arguments"), OUT]),
    "input.function_call.id_prefix": body(input=[ASK, dict(CALL, id="call_A"), OUT]),
    "input.function_call.unanswered": body(input=[ASK, CALL]),
    "input.function_call_output.call_id": body(input=[ASK, CALL, _without(OUT, "call_id")]),
    "input.function_call_output.output": body(input=[ASK, CALL, _without(OUT, "output")]),
    "input.function_call_output.orphan": body(input=[ASK, OUT]),
    "input.function_call_output.duplicate": body(input=[ASK, CALL, OUT, CALL, OUT]),
    "input.reasoning.following_item": body(input=[ASK, {"type": "reasoning", "id": "rs_1",
                                                        "summary": []},
                                                  {"role": "assistant", "content": "42"}]),
}

#: the accepted twins: the plain request and a conversation with one call answered
TWINS = {"plain": body(), "round_trip": body(input=[ASK, CALL, OUT])}


def twin_of(rule: str) -> str:
    return "round_trip" if rule.startswith(("input.function_call", "input.reasoning")) \
        else "plain"

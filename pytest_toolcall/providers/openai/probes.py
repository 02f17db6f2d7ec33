"""The smallest request breaking each of OpenAI's request rules (``OPENAI_RULES``), and its
accepted twin: the data of the rule tests (tests/providers/test_unconfirmed_rules.py) and of the
probes a user runs against the real service (``pytest-toolcall probe``, issue 33).
"""

from __future__ import annotations

from typing import Any

__all__ = ["BREAKING", "OWN_BREAKING", "ROUND_TRIP", "TWINS", "body", "call", "calls", "result",
           "tool", "twin_of"]

TOOL = {"type": "function", "function": {"name": "get_weather", "description": "Weather.",
                                          "parameters": {"type": "object", "properties": {
                                              "city": {"type": "string"}}}}}
ID = "D681PevKs"  # 9 letters and digits: Mistral's own id rule takes it
USER = {"role": "user", "content": "Weather in Paris?"}


def call(**fields: Any) -> dict[str, Any]:
    out = {"id": ID, "type": "function",
           "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}
    out.update(fields)
    return {k: v for k, v in out.items() if v is not None}


def calls(*made: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": list(made)}


def result(**fields: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": ID, "content": "sunny", **fields}


def body(**fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"model": "m", "messages": [USER], "tools": [TOOL]}
    out.update(fields)
    return {k: v for k, v in out.items() if v is not None}


def tool(**function: Any) -> dict[str, Any]:
    return {"type": "function", "function": {**TOOL["function"], **function}}


#: one body per rule of OpenAI's that breaks that rule alone
BREAKING: dict[str, Any] = {
    "body.json": None,
    "model.missing": {"messages": [USER]},
    "messages.missing": {"model": "m"},
    "messages.empty": body(messages=[]),
    "type": body(parallel_tool_calls="yes"),
    "tools.type.missing": body(tools=[{"function": TOOL["function"]}]),
    "tools.type": body(tools=[{"type": "wizardry"}]),
    "tools.function.missing": body(tools=[{"type": "function"}]),
    "tools.name.missing": body(tools=[{"type": "function", "function": {"description": "x"}}]),
    "tools.name.pattern": body(tools=[tool(name="get weather")]),
    "tools.name.length": body(tools=[tool(name="a" * 65)]),
    "tools.parameters.schema": body(tools=[tool(parameters={"type": 5})]),
    "tool_choice.without_tools": {"model": "m", "messages": [USER], "tool_choice": "auto"},
    "tool_choice.value": body(tool_choice="any"),
    "tool_choice.function.missing": body(tool_choice={"type": "function"}),
    "tool_choice.unknown_tool": body(tool_choice={"type": "function",
                                                   "function": {"name": "nope"}}),
    "parallel_tool_calls.without_tools": {"model": "m", "messages": [USER],
                                          "parallel_tool_calls": True},
    "messages.role.missing": body(messages=[{"content": "hi"}]),
    "messages.role": body(messages=[{"role": "wizard", "content": "hi"}, USER]),
    "messages.tool.orphan": body(messages=[USER, result()]),
    "messages.tool.tool_call_id": body(messages=[
        USER, calls(call()), {"role": "tool", "content": "x"}, result()]),
    "messages.tool.unknown_id": body(messages=[
        USER, calls(call()), result(), result(tool_call_id="Q9x2LmP0z")]),
    "messages.tool_calls.unanswered": body(messages=[USER, calls(call()), USER]),
    "messages.assistant.content_null": body(messages=[
        USER, {"role": "assistant", "content": None}, USER]),
    "messages.assistant.empty_tool_calls": body(messages=[
        USER, {"role": "assistant", "content": "Hello.", "tool_calls": []}, USER]),
    "messages.content.missing": body(messages=[{"role": "user"}]),
    "messages.tool_calls.id": body(messages=[USER, calls(call(id=None)), USER]),
    "messages.tool_calls.function": body(messages=[USER, calls(call(function=None)),
                                                    result()]),
    "messages.tool_calls.type": body(messages=[USER, calls(call(type="wizard")),
                                                result()]),
    "messages.tool_calls.function.name": body(messages=[
        USER, calls(call(function={"arguments": "{}"})), result()]),
    "messages.tool_calls.function.arguments": body(messages=[
        USER, calls(call(function={"name": "get_weather"})), result()]),
}


#: a conversation with one call answered: what the rules on replayed calls and results start from
ROUND_TRIP = body(messages=[USER, calls(call()), result()])

#: the accepted twins: the request each breaking body comes from, with nothing broken
TWINS = {"plain": body(), "round_trip": ROUND_TRIP}


def twin_of(rule: str) -> str:
    """The name of ``rule``'s accepted twin in :data:`TWINS`: the round trip for the rules on a
    replayed call or its result, the plain request for the others."""
    return "round_trip" if rule.startswith(("messages.tool.", "messages.tool_calls.",
                                            "messages.order.")) else "plain"


#: the smallest request breaking each rule a service on this wire has of its own (beside OpenAI's),
#: service -> rule -> body; its accepted twin is the plain request (the round trip for a rule on
#: replayed calls). A rule that needs what an earlier answer said (DeepSeek's reasoning_content,
#: OpenRouter's reasoning_details) has no one-request probe
OWN_BREAKING: dict[str, dict[str, Any]] = {
    "mistral": {
        "messages.tool_calls.id_format": body(messages=[
            USER, calls(call(id="call_1")), result(tool_call_id="call_1")]),
        "messages.order.user_after_tool": body(messages=[USER, calls(call()), result(), USER]),
    },
    "vllm": {
        "tools.empty": body(tools=[]),
        "stream_options.without_stream": body(stream_options={"include_usage": True}),
        "tool_choice.auto_unconfigured": body(tool_choice="auto"),
    },
    "cerebras": {"body.unsupported": body(toolcall_probe_field=1)},
}

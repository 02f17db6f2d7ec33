"""The smallest request breaking each of the generateContent rules the fake judges (the rules of
``dialect.py``, Vertex's too: the same wire), and its accepted twin: the data of the rule tests
(tests/test_dialect_gemini.py) and of the probes a user runs against the real service
(``pytest-toolcall probe``, issue 33). The model is in the URL, not in the body.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BREAKING", "DECL", "PINNED_MODELS", "SKIP_SIGNATURE", "TWINS", "USER", "body",
           "calls", "results", "twin_of"]

USER = {"role": "user", "parts": [{"text": "hi"}]}
DECL = {"name": "get_weather", "description": "", "parametersJsonSchema": {"type": "object"}}
#: the value Google documents for a replayed call whose signature is not at hand: the API skips
#: the check (Thought signatures, ai.google.dev/gemini-api/docs/thought-signatures, FAQ;
#: confirmed 2026-11-28)
SKIP_SIGNATURE = "skip_thought_signature_validator"


def calls(*names: str) -> dict[str, Any]:
    return {"role": "model", "parts": [{"functionCall": {"name": n, "args": {}}} for n in names]}


def results(*names: str, response: Any = None) -> dict[str, Any]:
    return {"role": "user", "parts": [{"functionResponse": {
        "name": n, "response": {"output": "ok"} if response is None else response}}
        for n in names]}


def body(contents: Any = None, **extra: Any) -> dict[str, Any]:
    return {"contents": [USER] if contents is None else contents, **extra}


def _signed(turn: dict[str, Any]) -> dict[str, Any]:
    first, *rest = turn["parts"]
    return dict(turn, parts=[dict(first, thoughtSignature=SKIP_SIGNATURE), *rest])


_TOOLS = [{"functionDeclarations": [DECL]}]

#: one body per rule, breaking that rule alone
BREAKING: dict[str, Any] = {
    "body.json": None,
    "body.unknown_field": body(messages=[]),
    "messages.missing": {"tools": []},
    "messages.type": body("hi"),
    "messages.unknown_field": body([USER, {"role": "model", "parts": [
        {"functionCall": {"name": "f", "arguments": "{}"}}]}]),
    "messages.role": body([USER, {"role": "assistant", "parts": [{"text": "x"}]}]),
    "messages.parts.empty": body([USER, {"role": "model", "parts": []}]),
    "messages.struct": body([USER, calls("f"), results("f", response="ok")]),
    "messages.function_response.name": body([USER, calls("f"), results("")]),
    "messages.function_call.position": body([USER, calls("f"), calls("g")]),
    "messages.function_response.position": body([USER, results("f")]),
    "messages.function_response.count": body([USER, calls("f", "g"), results("f"),
                                              results("g")]),
    "tools.unknown_field": body(tools=[{"functionDeclarations": [dict(DECL, input_schema={})]}]),
    "tools.name.pattern": body(tools=[{"functionDeclarations": [DECL, dict(DECL, name="1x")]}]),
    "tools.parameters.unknown_field": body(tools=[{"functionDeclarations": [
        {"name": "f", "parameters": {"type": "object", "properties": {
            "a": {"type": "string"}}, "additionalProperties": False}}]}]),
    "tool_choice.mode": body(tools=_TOOLS,
                             toolConfig={"functionCallingConfig": {"mode": "REQUIRED"}}),
    # judged by the model in the path (Gemini 3 and later): see PINNED_MODELS
    "messages.function_call.thought_signature": body([USER, calls("get_weather"),
                                                      results("get_weather")], tools=_TOOLS),
}

#: the rules about one model, probed on it whatever the run's model: Gemini 3 checks the
#: signature of a replayed call, 2.5 does not
PINNED_MODELS = {"messages.function_call.thought_signature": "gemini-3-flash-preview"}

#: the accepted twins: the plain request and a conversation with one call answered (its call
#: signed with the documented skip value, which every model takes)
TWINS = {"plain": body(tools=_TOOLS),
         "round_trip": body([USER, _signed(calls("get_weather")), results("get_weather")],
                            tools=_TOOLS)}


def twin_of(rule: str) -> str:
    return "round_trip" if rule.startswith(("messages.function_", "messages.struct")) \
        else "plain"

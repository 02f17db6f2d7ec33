"""The smallest request breaking each rule the fake judges on Ollama's two routes (native
``/api/chat`` and the OpenAI-compatible ``/v1/chat/completions``, ``dialect.py``), and its
accepted twin: the data of the rule tests (tests/test_dialect_ollama.py) and of the probes a user
runs against a local server (``pytest-toolcall probe --provider ollama``, issue 33).
"""

from __future__ import annotations

from typing import Any

__all__ = ["BREAKING", "CALL", "COMPAT_BREAKING", "EMPTY", "OK", "TWINS", "twin_of", "with_"]

OK = {"model": "llama3.2", "messages": [{"role": "user", "content": "hi"}]}
CALL = {"role": "assistant", "content": "",
        "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]}
#: a request with no body at all (what ``body.missing`` is about: Go's io.EOF)
EMPTY = b""
_TOOL = {"type": "function", "function": {"name": "f", "description": "",
                                          "parameters": {"type": "object", "properties": {}}}}


def with_(**fields: Any) -> dict[str, Any]:
    return {**OK, **fields}


#: native /api/chat: one body per rule, breaking that rule alone (EMPTY: no body)
BREAKING: dict[str, Any] = {
    "body.missing": EMPTY,
    "type": [1],
    "model.missing": {"messages": []},
    "messages.tool_calls.arguments": with_(messages=[{"role": "assistant", "content": "",
                                                      "tool_calls": [{"function": {
                                                          "name": "f",
                                                          "arguments": "{\"a\": 1}"}}]}]),
}

#: the OpenAI-compatible route: one body per rule of Ollama's own there (None: not JSON)
COMPAT_BREAKING: dict[str, Any] = {
    "body.json": None,
    "messages.empty": {"model": "m", "messages": []},
    "messages.format": {"model": "m", "messages": ["hi"]},
    "messages.content.missing": {"model": "m", "messages": [{"role": "user"}]},
    "messages.tool_calls.arguments": {"model": "m", "messages": [{
        "role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}]}]},
    "model.missing": {"messages": [{"role": "user", "content": "x"}]},
}

#: the accepted twins: native (not streamed), a native round trip, and the compatible route's
TWINS = {"plain": with_(tools=[_TOOL], stream=False),
         "round_trip": with_(messages=[*OK["messages"], CALL,
                                       {"role": "tool", "content": "ok", "tool_name": "f"}],
                             tools=[_TOOL], stream=False),
         "v1.plain": {"model": "m", "messages": [{"role": "user", "content": "hi"}]}}


def twin_of(rule: str) -> str:
    return "round_trip" if rule.startswith("messages.tool_calls.") else "plain"

"""The smallest request breaking each of the Messages API's rules the fake judges (the rules of
``dialect.py``), and its accepted twin: the data of the rule tests (tests/test_dialect_anthropic.py)
and of the probes a user runs against the real service (``pytest-toolcall probe``, issue 33).

A body with ``tool_use`` or ``tool_result`` blocks offers the tool: the API refuses such a history
without ``tools`` (a rule of its own the fake does not play), so that a probe breaks its one rule.
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.providers.anthropic.dialect import thinking_signature

__all__ = ["BREAKING", "PINNED_MODELS", "TOOL", "TWINS", "USER", "answers", "asks", "body",
           "result", "twin_of", "use"]

TOOL = {"name": "get_weather", "description": "",
        "input_schema": {"type": "object", "properties": {}}}
USER = {"role": "user", "content": "hi"}
THINKING = {"type": "enabled", "budget_tokens": 1024}


def use(cid: str, name: str = "get_weather", input: Any = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": cid, "name": name, "input": {} if input is None else input}


def asks(*ids: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [use(i) for i in ids]}


def result(cid: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": cid, "content": "ok"}


def answers(*ids: str) -> dict[str, Any]:
    return {"role": "user", "content": [result(i) for i in ids]}


def body(messages: Any = None, **extra: Any) -> dict[str, Any]:
    return {"model": "claude-haiku-4-5", "max_tokens": 100,
            "messages": [USER] if messages is None else messages, **extra}


def _replay(messages: list[Any], **extra: Any) -> dict[str, Any]:
    """A history with tool blocks: it offers the tool, as the API wants."""
    return body(messages, tools=[TOOL], **extra)


def _signed_edited() -> dict[str, Any]:
    return {"type": "thinking", "thinking": "edited", "signature": thinking_signature("orig", 0)}


#: one body per rule, breaking that rule alone (``messages.thinking.missing`` needs a thinking
#: turn the service answered: no one-request body shows it)
BREAKING: dict[str, Any] = {
    "body.json": None,
    "model.missing": {"messages": [USER], "max_tokens": 1},
    "messages.missing": {"model": "m", "max_tokens": 1},
    "max_tokens.missing": {"model": "m", "messages": [USER]},
    "type": body("hi"),
    "messages.empty": body([]),
    "tools.name.missing": body(tools=[{"input_schema": {"type": "object"}}]),
    "tools.name.pattern": body(tools=[TOOL, dict(TOOL, name="caldav.list")]),
    "tools.input_schema.missing": body(tools=[{"name": "f"}]),
    "tools.input_schema.type": body(tools=[{"name": "f", "input_schema": {"properties": {}}}]),
    "tools.input_schema.schema": body(tools=[{"name": "f", "input_schema": {
        "type": "object", "properties": {"a": 3}}}]),
    "tools.unique": body(tools=[TOOL, TOOL]),
    "tool_choice.without_tools": body(tool_choice={"type": "auto"}),
    "tool_choice.type": body(tools=[TOOL], tool_choice="auto"),
    "tool_choice.name.missing": body(tools=[TOOL], tool_choice={"type": "tool"}),
    "tool_choice.none.extra": body(tools=[TOOL], tool_choice={
        "type": "none", "disable_parallel_tool_use": True}),
    "tool_choice.extra": body(tools=[TOOL], tool_choice={"type": "auto",
                                                         "parallel_tool_calls": False}),
    "messages.role": body([{"role": "tool", "content": "x"}]),
    "messages.role.system": body([{"role": "system", "content": "be brief"}, USER]),
    "messages.role.system.placement": body([{"role": "system", "content": "be brief"}, USER],
                                           model="claude-opus-4-8"),
    "messages.content.missing": body([{"role": "user"}]),
    "messages.content.empty": body([USER, {"role": "assistant", "content": []}, USER]),
    "messages.text.empty": _replay([USER, {"role": "assistant", "content": [
        {"type": "text", "text": ""}, use("a")]}, answers("a")]),
    "messages.tool_use.id": _replay([USER, {"role": "assistant", "content": [
        {"type": "tool_use", "name": "get_weather", "input": {}}]}]),
    "messages.tool_use.name": _replay([USER, {"role": "assistant", "content": [
        {"type": "tool_use", "id": "a", "input": {}}]}]),
    "messages.tool_use.input": _replay([USER, {"role": "assistant", "content": [
        {"type": "tool_use", "id": "a", "name": "get_weather"}]}]),
    "messages.tool_use.id_pattern": _replay([USER, asks("call:1"), answers("call:1")]),
    "messages.tool_result.tool_use_id": _replay([USER, asks("a"), {
        "role": "user", "content": [{"type": "tool_result"}]}]),
    "messages.tool_use.unique": _replay([USER, asks("a", "a"), answers("a")]),
    "messages.tool_use.unanswered": _replay([USER, asks("toolu_A", "toolu_B"), USER]),
    "messages.tool_result.unexpected": _replay([USER, {"role": "assistant", "content": "hello"},
                                                answers("toolu_X")]),
    "messages.thinking.signature": _replay([USER, {"role": "assistant", "content": [
        _signed_edited(), use("toolu_1")]}, answers("toolu_1")], thinking=THINKING),
}

#: the rules about one model, probed on it whatever the run's model (the system message placement
#: is judged only on the models that take system messages inside ``messages``)
PINNED_MODELS = {"messages.role.system.placement": "claude-opus-4-8"}

#: the accepted twins: the plain request and a conversation with one call answered
TWINS = {"plain": body(tools=[TOOL]),
         "round_trip": _replay([USER, asks("toolu_01A"), answers("toolu_01A")])}


def twin_of(rule: str) -> str:
    return "round_trip" if rule.startswith(("messages.tool_", "messages.thinking.",
                                            "messages.text.")) else "plain"

"""The ``ollama`` dialect: one row per validation rule with Ollama's exact error body, routes,
streaming defaults and the shapes the fake sends (native and OpenAI-compatible)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_toolcall.cases import ScriptedCall, StreamPlan, Turn
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.core.errors import CaseDefinitionError
from pytest_toolcall.providers.ollama.probes import BREAKING, CALL, COMPAT_BREAKING, OK
from pytest_toolcall.providers.ollama.probes import with_ as _with


# (rule, body, status, exact error body) - sources: server/routes.go ChatHandler, api/types.go
# (Go's encoding/json errors), openclaw #46679 / #50713 for the arguments error text
NATIVE_RULES = [
    ("body.missing", None, 400, {"error": "missing request body"}),
    ("type", BREAKING["type"], 400,
     {"error": "json: cannot unmarshal array into Go value of type api.ChatRequest"}),
    ("model.missing", BREAKING["model.missing"], 400, {"error": "model is required"}),
    ("model.missing", _with(model="  "), 400, {"error": "model is required"}),
    ("type", _with(model=3), 400, {"error": "json: cannot unmarshal number into Go struct field "
                                            "ChatRequest.model of type string"}),
    ("type", _with(messages="hi"), 400, {"error": "json: cannot unmarshal string into Go struct "
                                                  "field ChatRequest.messages of type "
                                                  "[]api.Message"}),
    ("type", _with(stream="yes"), 400, {"error": "json: cannot unmarshal string into Go struct "
                                                 "field ChatRequest.stream of type bool"}),
    ("type", _with(messages=[{"role": "user", "content": [{"type": "text", "text": "x"}]}]), 400,
     {"error": "json: cannot unmarshal array into Go struct field ChatRequest.messages.content "
               "of type string"}),
    ("type", _with(tools={"type": "function"}), 400,
     {"error": "json: cannot unmarshal object into Go struct field ChatRequest.tools of type "
               "api.Tools"}),
    ("messages.tool_calls.arguments", BREAKING["messages.tool_calls.arguments"], 400,
     {"error": "Value looks like object, but can't find closing '}' symbol"}),
]


@pytest.mark.parametrize(("rule", "body", "status", "error"), NATIVE_RULES,
                         ids=[f"{r[0]}-{i}" for i, r in enumerate(NATIVE_RULES)])
def test_native_rule(rule: str, body: Any, status: int, error: dict[str, Any]) -> None:
    dialect = get_dialect("ollama")
    assert dialect.route("POST", "/api/chat")
    found = dialect.validate(body)
    assert found is not None and (found.rule, found.status, dict(found.body)) == (rule, status,
                                                                                  error)


ACCEPTED = [
    pytest.param(OK, id="plain"),
    # no pairing rules at all: an orphan tool result and an unanswered call are both accepted
    pytest.param(_with(messages=[{"role": "tool", "content": "x", "tool_name": "f"}]),
                 id="orphan-tool-result"),
    pytest.param(_with(messages=[OK["messages"][0], CALL]), id="unanswered-call"),
    pytest.param(_with(messages=[]), id="no-messages-is-a-load-request"),
    pytest.param(_with(tool_choice="required", parallel_tool_calls=False), id="unknown-fields"),
    pytest.param(_with(messages=[{"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_x", "function": {"index": 0, "name": "f", "arguments": None}}]}]),
        id="null-arguments-and-content"),
]


@pytest.mark.parametrize("body", ACCEPTED)
def test_native_accepts(body: dict[str, Any]) -> None:
    dialect = get_dialect("ollama")
    dialect.route("POST", "/api/chat")
    assert dialect.validate(body) is None


COMPAT_RULES = [
    (rule, COMPAT_BREAKING[rule], message) for rule, message in (
        ("messages.empty", "[] is too short - 'messages'"),
        ("messages.format", "invalid message format"),
        ("messages.content.missing", "invalid message content type: <nil>"),
        ("messages.tool_calls.arguments", "invalid tool call arguments"),
        ("model.missing", "model is required"))
]


@pytest.mark.parametrize(("rule", "body", "message"), COMPAT_RULES,
                         ids=[r[0] for r in COMPAT_RULES])
def test_compat_rule(rule: str, body: Any, message: str) -> None:
    dialect = get_dialect("ollama")
    assert dialect.route("POST", "/v1/chat/completions")
    found = dialect.validate(body)
    assert found is not None and found.rule == rule and found.status == 400
    assert dict(found.body) == {"error": {"message": message, "type": "invalid_request_error",
                                          "param": None, "code": None}}


def test_routes_auth_and_stream_defaults() -> None:
    dialect = get_dialect("ollama")
    assert dialect.route("POST", "/api/chat") and dialect.route("POST", "/v1/chat/completions")
    assert not dialect.route("GET", "/api/chat") and not dialect.route("POST", "/api/generate")
    assert dialect.check_auth({}, {}, "k") is None
    assert dialect.check_auth({"authorization": "Bearer anything"}, {}, "k") is None
    assert dialect.wants_stream({}, "/api/chat") is True  # Ollama streams by default
    assert dialect.wants_stream({"stream": False}, "/api/chat") is False
    assert dialect.wants_stream({}, "/v1/chat/completions") is False


TURN = Turn(text="Hi", tool_calls=(ScriptedCall(name="get_weather", arguments='{"city": "Zürich"}',
                                                id="call_a"),
                                   ScriptedCall(name="get_time", arguments=None)))


def test_native_response_shape() -> None:
    dialect = get_dialect("ollama")
    dialect.route("POST", "/api/chat")
    data = dialect.encode_response(TURN, OK)
    assert data["done"] is True and data["done_reason"] == "stop"
    calls = data["message"]["tool_calls"]
    assert calls[0] == {"id": "call_a", "function": {"index": 0, "name": "get_weather",
                                                     "arguments": {"city": "Zürich"}}}
    assert calls[1]["function"]["arguments"] == {}
    assert calls[1]["id"].startswith("call_") and len(calls[1]["id"]) == 13
    assert (data["prompt_eval_count"], data["eval_count"]) == (11, 7)


def test_native_stream_lines() -> None:
    dialect = get_dialect("ollama")
    dialect.route("POST", "/api/chat")
    events = dialect.encode_stream(TURN, OK)
    assert all(e.endswith(b"\n") and e.count(b"\n") == 1 for e in events)  # no blank lines
    lines = [json.loads(e) for e in events]
    assert [bool(x.get("message", {}).get("tool_calls")) for x in lines] == [False, True, True,
                                                                             False]
    assert lines[-1]["done"] is True and lines[-1]["done_reason"] == "stop"
    assert all(x["done"] is False for x in lines[:-1])
    quirky = TURN.model_copy(update={"stream": StreamPlan(
        quirks=frozenset({"ndjson_no_final_newline", "no_ids", "index_stuck_at_zero"}))})
    events = dialect.encode_stream(quirky, OK)
    assert not events[-1].endswith(b"\n") and json.loads(events[-1])["done"] is True
    sent = [json.loads(e)["message"]["tool_calls"][0] for e in events[1:3]]
    assert [("id" in s, s["function"]["index"]) for s in sent] == [(False, 0), (False, 0)]


def test_native_error_line_never_after_done() -> None:
    dialect = get_dialect("ollama")
    dialect.route("POST", "/api/chat")
    turn = TURN.model_copy(update={"stream": StreamPlan(error_after=99)})
    events = dialect.encode_stream(turn, OK)
    assert json.loads(events[-1]) == {"error": StreamPlan().error.message}
    assert not any(json.loads(e).get("done") for e in events)


def test_compat_stream_each_call_whole_with_string_arguments() -> None:
    dialect = get_dialect("ollama")
    dialect.route("POST", "/v1/chat/completions")
    assert dialect.stream_content_type.startswith("text/event-stream")
    events = dialect.encode_stream(TURN, {"model": "m", "stream": True})
    frags = [f for e in events if e.startswith(b"data: {")
             for ch in json.loads(e[6:])["choices"] for f in ch["delta"].get("tool_calls") or ()]
    assert [(f["index"], f["id"] == "call_a", f["function"]["arguments"]) for f in frags] == [
        (0, True, '{"city": "Zürich"}'), (1, False, "{}")]


def test_unsendable_arguments_name_the_fix() -> None:
    dialect = get_dialect("ollama")
    dialect.route("POST", "/api/chat")
    turn = Turn(tool_calls=(ScriptedCall(name="f", arguments='{"city": "Par'),))
    with pytest.raises(CaseDefinitionError, match="JSON object.*TEXT_ARGUMENTS"):
        dialect.encode_response(turn, OK)

"""Ollama: native ``POST /api/chat`` (NDJSON), and the OpenAI-compatible ``/v1/chat/completions``.

Facts (from Ollama's server source: ``api/types.go``, ``server/routes.go``, ``openai/openai.go``,
``middleware/openai.go``; and WIRE.md §5):

- native calls are ``message.tool_calls[].{id, function: {index, name, arguments: {object}}}``;
  ``id`` is ``call_`` + 8 lowercase letters/digits on current servers and absent on older ones;
- the native stream is NDJSON, one JSON object per line, each tool call whole in one line, and a
  last line with ``done: true`` and ``done_reason: "stop"`` even when the model called tools;
- errors are ``{"error": "<text>"}``: the whole body before the stream starts, one line after;
- there is no tool_choice and no pairing validation of tool messages; the request is decoded by
  Go's ``encoding/json`` (a wrongly typed field is a 400 naming the Go type) and tool-call
  ``arguments`` must be a JSON object (a string is answered with the error of the ordered map
  that holds them, ``Value looks like object, but can't find closing '}' symbol``);
- no authentication by default: any ``Authorization`` header, or none, is accepted.

The OpenAI-compatible route reuses the ``openai`` dialect's encoding, with Ollama's shape: each
call whole in one chunk with string arguments, Ollama's own (small) validation and error bodies.
The old bugs of that route are stream quirks: ``index_missing`` (ollama #7881) and
``index_stuck_at_zero`` (ollama #15457).

Quirks on the native route: ``no_ids`` (below), ``index_stuck_at_zero`` (``function.index`` 0 on
every call, as servers whose parser did not number calls sent it: Go's zero value),
``ndjson_no_final_newline``, and ``done_line_payload`` (the last text and the calls on the
``done: true`` line, as Ollama's parsers flush them when the model stops). ``no_ids`` applies to non-streamed answers too.

Ids: the fake sends ids by default, as current Ollama does; the ``no_ids`` quirk gives the older
servers' calls without ids (what litellm #11262 tripped over, and what ollama-python 0.6.x hands
its callers even from a current server, since its model drops the field).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping
from typing import Any

from pytest_toolcall.cases import ErrorReply, ScriptedCall, Turn
from pytest_toolcall.core.errors import CaseDefinitionError
from pytest_toolcall.core.model import (AssistantMessage, ChatRequest, SystemMessage, ToolCall,
                                        ToolMessage, ToolSpec, UserMessage)
from pytest_toolcall.providers.base import Rejection
from pytest_toolcall.providers.openai.dialect import OpenAIChat
from pytest_toolcall.providers.ollama import errors as _errors

__all__ = ["DIALECT", "OllamaChat", "OllamaOpenAICompat"]

CREATED_AT = "2025-06-01T12:00:00.000000Z"
COMPAT_PATH = "/v1/chat/completions"
NATIVE_PATH = "/api/chat"
#: Ollama answers a tool-call ``arguments`` that is not a JSON object with the ordered map's error
ARGUMENTS_NOT_OBJECT = "Value looks like object, but can't find closing '}' symbol"
# durations in nanoseconds, as Ollama reports them (values are made up, shapes are real)
_DURATIONS = {"total_duration": 812_345_678, "load_duration": 21_345_678,
              "prompt_eval_duration": 101_234_567, "eval_duration": 650_123_456}


def _error(status: int, message: str, rule: str) -> Rejection:
    return Rejection(status=status, body={"error": message}, rule=rule)


def _json_type(value: Any) -> str:
    """The JSON type word of Go's ``UnmarshalTypeError``."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "array", dict: "object"}.get(type(value), "value")


def _go_type_text(value: Any, field: str, go_type: str,
                  struct: str = "ChatRequest") -> str:
    """Go's ``UnmarshalTypeError`` text for a field of ``struct`` (the request type)."""
    return (f"json: cannot unmarshal {_json_type(value)} into Go struct field "
            f"{struct}.{field} of type {go_type}")


def _go_type_error(value: Any, field: str, go_type: str) -> Rejection:
    return _error(400, _go_type_text(value, field, go_type), rule="type")


def _expect(value: Any, kind: type | tuple[type, ...], field: str, go_type: str) -> Rejection | None:
    """Go accepts null for any field; anything else must have the field's JSON type."""
    if value is None:
        return None
    if isinstance(value, bool) and kind is not bool and bool not in (
            kind if isinstance(kind, tuple) else (kind,)):
        return _go_type_error(value, field, go_type)
    if not isinstance(value, kind):
        return _go_type_error(value, field, go_type)
    return None


def call_id(turn_call: ScriptedCall, k: int) -> str:
    """The scripted id, or an id shaped like Ollama's (``call_`` + 8 of [a-z0-9]), stable per
    call so that reruns of a case send the same bytes."""
    if turn_call.id:
        return turn_call.id
    digest = hashlib.sha256(f"{k}:{turn_call.name}".encode()).hexdigest()
    return "call_" + digest[:8]


def arguments_object(call: ScriptedCall) -> dict[str, Any]:
    """The arguments as the native wire carries them: always a JSON object.

    Ollama parses the model's output itself and only ever sends objects (``{}`` for none), so
    a scripted text that is not a JSON object cannot be sent on this wire.
    """
    args = call.arguments
    if args is None or args == "":
        return {}
    if isinstance(args, dict):
        return args
    try:
        parsed = json.loads(args)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        raise CaseDefinitionError(
            "<ollama>", f"tool call {call.name!r} has arguments {args!r}, which Ollama cannot "
            "send: its native wire carries arguments as a JSON object. Script an object (or "
            "JSON object text), or limit the case to text-argument dialects (TEXT_ARGUMENTS)")
    return parsed


class OllamaOpenAICompat(OpenAIChat):
    """Ollama's OpenAI-compatible route: OpenAI's shapes, Ollama's way of filling them."""

    name = "ollama"

    @staticmethod
    def call_ids(turn: Turn) -> list[str]:
        return [call_id(c, k) for k, c in enumerate(turn.tool_calls)]

    @staticmethod
    def _call_fragments(k: int, cid: str, call: ScriptedCall, size: int,
                        quirks: frozenset[str]) -> list[dict[str, Any]]:
        # each call whole, in one chunk (Ollama parses the call before it sends anything)
        frag: dict[str, Any] = {"id": cid, "index": k, "type": "function",
                                "function": {"name": call.name,
                                             "arguments": json.dumps(arguments_object(call),
                                                                     ensure_ascii=False)}}
        if "index_stuck_at_zero" in quirks:
            frag["index"] = 0
        if "index_missing" in quirks:
            del frag["index"]
        if "no_ids" in quirks:
            del frag["id"]
        return [frag]

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        response = super().encode_response(turn, body)
        message = response["choices"][0]["message"]
        for cid, wire, call in zip(self.call_ids(turn), message.get("tool_calls") or (),
                                   turn.tool_calls):
            wire["function"]["arguments"] = json.dumps(arguments_object(call),
                                                       ensure_ascii=False)
            if "no_ids" in turn.stream.quirks:
                wire.pop("id", None)
        return response

    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        return error.status, {"error": {"message": error.message, "type": error.type,
                                        "param": None, "code": None}}

    def validate(self, body: Any) -> Rejection | None:
        """Ollama's few rules for this route (``middleware/openai.go``, ``openai/openai.go``)."""
        def err(message: str, rule: str) -> Rejection:
            return Rejection(status=400, body={"error": {
                "message": message, "type": "invalid_request_error", "param": None,
                "code": None}}, rule=rule)

        if not isinstance(body, Mapping):
            return err("missing request body" if body is None else
                       f"json: cannot unmarshal {_json_type(body)} into Go value of type "
                       "openai.ChatCompletionRequest", "body.json")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return err("[] is too short - 'messages'", "messages.empty")
        for msg in messages:
            if not isinstance(msg, Mapping):
                return err("invalid message format", "messages.format")
            calls = msg.get("tool_calls")
            if msg.get("content") is None and calls is None:
                return err("invalid message content type: <nil>", "messages.content.missing")
            if calls is not None and not isinstance(calls, list):
                # Go's decoder refuses the body (the wording of the native route's type errors,
                # with this route's request type; not confirmed on the service)
                return err(_go_type_text(calls, "messages.tool_calls", "[]openai.ToolCall",
                                         struct="ChatCompletionRequest"), "type")
            for call in calls or ():
                function = call.get("function") if isinstance(call, Mapping) else None
                text = function.get("arguments") if isinstance(function, Mapping) else None
                try:
                    ok = isinstance(text, str) and isinstance(json.loads(text), dict)
                except ValueError:
                    ok = False
                if not ok:
                    return err("invalid tool call arguments", "messages.tool_calls.arguments")
        model = body.get("model")
        if not isinstance(model, str) or not model.strip():
            return err("model is required", "model.missing")
        return None


class OllamaChat:
    """The ``ollama`` dialect: native ``/api/chat``, plus the OpenAI-compatible route."""

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    name = "ollama"
    title = "Ollama chat (native /api/chat, and /v1/chat/completions)"
    base_path = ""

    def __init__(self) -> None:
        self.compat = OllamaOpenAICompat()
        # route() is called first for every request, and the fake answers a request in one
        # thread: the route it chose is kept per thread for the calls that have no path
        self._local = threading.local()

    def _on_compat(self) -> bool:
        return bool(getattr(self._local, "compat", False))

    @property
    def stream_content_type(self) -> str:  # type: ignore[override]
        if self._on_compat():
            return self.compat.stream_content_type
        return "application/x-ndjson"

    # -- routing and auth -------------------------------------------------------------------
    def route(self, method: str, path: str) -> bool:
        path = path.rstrip("/")
        self._local.compat = path.endswith(COMPAT_PATH)
        return method == "POST" and path.endswith((NATIVE_PATH, COMPAT_PATH))

    def not_found(self, method: str, path: str) -> Rejection:
        # gin's default 404 is plain text "404 page not found"; the body here is its JSON twin
        return _error(404, "404 page not found", rule="route")

    def check_auth(self, headers: Mapping[str, str], query: Mapping[str, str],
                   key: str) -> Rejection | None:
        return None  # a local Ollama has no authentication: any key, or none, is accepted

    def wants_stream(self, body: Mapping[str, Any], path: str) -> bool:
        if path.rstrip("/").endswith(COMPAT_PATH):
            return body.get("stream") is True
        return body.get("stream") is not False  # native: streams unless told "stream": false

    # -- validation ---------------------------------------------------------------------------
    def validate(self, body: Any) -> Rejection | None:
        if self._on_compat():
            return self.compat.validate(body)
        if body is None:
            # io.EOF from gin's ShouldBindJSON; the fake cannot tell an empty body from one that
            # is not JSON, and both are a 400 before anything else is looked at
            return _error(400, "missing request body", rule="body.missing")
        if not isinstance(body, Mapping):
            return _error(400, f"json: cannot unmarshal {_json_type(body)} into Go value of type "
                          "api.ChatRequest", rule="type")
        messages = body.get("messages")
        # a hard error of the arguments' own decoder wins over the type errors Go keeps going past
        for msg in messages if isinstance(messages, list) else ():
            calls = msg.get("tool_calls") if isinstance(msg, Mapping) else None
            for call in calls if isinstance(calls, list) else ():  # else: Go's type error below
                function = call.get("function") if isinstance(call, Mapping) else None
                if isinstance(function, Mapping) and "arguments" in function:
                    args = function["arguments"]
                    if args is not None and not isinstance(args, dict):
                        return _error(400, ARGUMENTS_NOT_OBJECT,
                                      rule="messages.tool_calls.arguments")
        found = (_expect(body.get("model"), str, "model", "string")
                 or _expect(messages, list, "messages", "[]api.Message")
                 or _expect(body.get("stream"), bool, "stream", "bool")
                 or _expect(body.get("tools"), list, "tools", "api.Tools"))
        if found:
            return found
        for msg in messages or ():
            found = self._validate_message(msg)
            if found:
                return found
        for tool in body.get("tools") or ():
            found = self._validate_tool(tool)
            if found:
                return found
        model = body.get("model")
        if not isinstance(model, str) or not model.strip():
            return _error(400, "model is required", rule="model.missing")
        # no rule on messages being there (none is a load request), nor on tool messages
        # answering calls: Ollama checks neither
        return None

    @staticmethod
    def _validate_message(msg: Any) -> Rejection | None:
        where = "messages"
        found = _expect(msg, dict, where, "api.Message")
        if found or msg is None:
            return found
        for key in ("role", "content", "tool_name", "tool_call_id", "thinking"):
            found = _expect(msg.get(key), str, f"{where}.{key}", "string")
            if found:
                return found
        calls = msg.get("tool_calls")
        found = _expect(calls, list, f"{where}.tool_calls", "[]api.ToolCall")
        if found:
            return found
        for call in calls or ():
            found = _expect(call, dict, f"{where}.tool_calls", "api.ToolCall")
            if found or call is None:
                return found
            found = (_expect(call.get("id"), str, f"{where}.tool_calls.id", "string")
                     or _expect(call.get("function"), dict, f"{where}.tool_calls.function",
                                "api.ToolCallFunction"))
            if found:
                return found
            function = call.get("function") or {}
            found = (_expect(function.get("name"), str, f"{where}.tool_calls.function.name",
                             "string")
                     or _expect(function.get("index"), int, f"{where}.tool_calls.function.index",
                                "int"))
            if found:
                return found
        return None

    @staticmethod
    def _validate_tool(tool: Any) -> Rejection | None:
        found = _expect(tool, dict, "tools", "api.Tool")
        if found or tool is None:
            return found
        found = (_expect(tool.get("type"), str, "tools.type", "string")
                 or _expect(tool.get("function"), dict, "tools.function", "api.ToolFunction"))
        if found:
            return found
        function = tool.get("function") or {}
        return (_expect(function.get("name"), str, "tools.function.name", "string")
                or _expect(function.get("description"), str, "tools.function.description",
                           "string")
                or _expect(function.get("parameters"), dict, "tools.function.parameters",
                           "api.ToolFunctionParameters"))

    # -- decoding -----------------------------------------------------------------------------
    def decode_request(self, body: Mapping[str, Any]) -> ChatRequest:
        if self._on_compat():
            return self.compat.decode_request(body)
        messages: list[Any] = []
        for msg in body.get("messages") or ():
            role = str(msg.get("role") or "").lower()  # Ollama lower-cases roles
            content = msg.get("content") or ""
            # only these four roles reach the model: a "developer" message is ignored (Ollama
            # API docs list system/user/assistant/tool; earendil-works/pi PR #140 "The Ollama API
            # ignores messages with role developer", ollama-python #453; confirmed 2026-11-23)
            if role == "system":
                messages.append(SystemMessage(content=content))
            elif role == "user":
                messages.append(UserMessage(content=content))
            elif role == "assistant":
                calls = tuple(self._decode_call(c) for c in msg.get("tool_calls") or ())
                messages.append(AssistantMessage(content=msg.get("content") or None,
                                                 tool_calls=calls))
            elif role == "tool":
                messages.append(ToolMessage(tool_call_id=msg.get("tool_call_id") or None,
                                            name=msg.get("tool_name") or None, content=content))
        tools = tuple(
            ToolSpec(name=t["function"]["name"],
                     description=t["function"].get("description") or "",
                     parameters=t["function"].get("parameters")
                     or {"type": "object", "properties": {}},
                     # Ollama ignores "strict"; read it so the definition compares as sent
                     strict=t["function"].get("strict"))
            for t in body.get("tools") or ())
        return ChatRequest(
            messages=tuple(messages), tools=tools,
            # no tool_choice on this API: with tools the model chooses, which is "auto"
            tool_choice="auto" if tools else None,
            stream=self.wants_stream(body, NATIVE_PATH), model=body.get("model"))

    @staticmethod
    def _decode_call(call: Mapping[str, Any]) -> ToolCall:
        function = call.get("function") or {}
        args = function.get("arguments")
        # the object as JSON text, so that checks on replayed argument text read what was sent
        text = json.dumps(args, ensure_ascii=False) if isinstance(args, dict) else args
        return ToolCall.from_raw(id=call.get("id") or None, name=function.get("name") or "",
                                 arguments=text)

    # -- encoding -----------------------------------------------------------------------------
    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        if self._on_compat():
            return self.compat.encode_error(error)
        return error.status, {"error": error.message}

    @staticmethod
    def call_ids(turn: Turn) -> list[str]:
        return [call_id(c, k) for k, c in enumerate(turn.tool_calls)]

    def _calls(self, turn: Turn) -> list[dict[str, Any]]:
        out = []
        for k, (cid, call) in enumerate(zip(self.call_ids(turn), turn.tool_calls)):
            wire: dict[str, Any] = {"id": cid, "function": {
                "index": k, "name": call.name, "arguments": arguments_object(call)}}
            if "no_ids" in turn.stream.quirks:
                del wire["id"]
            if "index_stuck_at_zero" in turn.stream.quirks:
                # Go's zero value: servers whose parser did not number calls sent index 0
                wire["function"]["index"] = 0
            out.append(wire)
        return out

    @staticmethod
    def _metrics(turn: Turn) -> dict[str, Any]:
        u = turn.usage
        if u is None:
            return {}
        metrics: dict[str, Any] = dict(_DURATIONS)
        # Go's omitempty leaves zero counts out
        if u.input_tokens:
            metrics["prompt_eval_count"] = u.input_tokens
        if u.output_tokens:
            metrics["eval_count"] = u.output_tokens
        return metrics

    @staticmethod
    def _done_reason(turn: Turn) -> str:
        # Ollama says "stop" when the model stopped, tool calls or not; "length" at num_predict
        return "length" if turn.expected_finish() == "length" else "stop"

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        if self._on_compat():
            return self.compat.encode_response(turn, body)
        message: dict[str, Any] = {"role": "assistant", "content": turn.text or ""}
        if turn.tool_calls:
            message["tool_calls"] = self._calls(turn)
        return {"model": body.get("model") or "toolcall-fake", "created_at": CREATED_AT,
                "message": message, "done": True, "done_reason": self._done_reason(turn),
                **self._metrics(turn)}

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        if self._on_compat():
            return self.compat.encode_stream(turn, body)
        plan = turn.stream
        model = body.get("model") or "toolcall-fake"

        def line(message: dict[str, Any], **extra: Any) -> dict[str, Any]:
            return {"model": model, "created_at": CREATED_AT,
                    "message": {"role": "assistant", **message}, "done": False, **extra}

        lines: list[dict[str, Any]] = []
        text, size = turn.text or "", plan.fragment_size
        pieces = [text[k:k + size] for k in range(0, len(text), size)]
        calls = self._calls(turn)
        last: dict[str, Any] = {"content": ""}
        if "done_line_payload" in plan.quirks:
            # what Ollama's parsers flush when the model stops comes on the done line: the text
            # the tool parser held back (toolParser.Content()) and the calls a built-in parser
            # closes at the end (builtinParser.Add(content, done); server/routes.go ChatHandler;
            # QuantumNous/new-api #7252, decolua/9router #2694; confirmed 2026-11-28)
            last = {"content": pieces.pop() if pieces else ""}
            if calls:
                last["tool_calls"], calls = calls, []
        lines += [line({"content": piece}) for piece in pieces]
        # each call arrives whole, in a line of its own
        lines += [line({"content": "", "tool_calls": [call]}) for call in calls]
        lines.append(line(last, done=True, done_reason=self._done_reason(turn),
                          **self._metrics(turn)))
        events = [_ndjson(d) for d in lines]
        if plan.error_after is not None:
            # an error line ends the stream, never after the done line
            events = events[: min(plan.error_after + 1, len(events) - 1)] + [
                _ndjson({"error": plan.error.message})]
        elif plan.truncate_after is not None:
            events = events[: min(plan.truncate_after + 1, len(events) - 1)]
        if "ndjson_no_final_newline" in plan.quirks and events:
            events[-1] = events[-1].rstrip(b"\n")
        return events


def _ndjson(data: Mapping[str, Any]) -> bytes:
    # Go's json.Marshal: compact, UTF-8 as is
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = OllamaChat

"""OpenAI Chat Completions, ``POST /v1/chat/completions``: decode, validate, encode.

Facts (error wording, stream shape) follow what OpenAI sends; see ``docs/architecture.md`` and the
real traffic in the wire corpus that the kit's tests replay.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from pytest_toolcall.cases import ErrorReply, ScriptedCall, Turn
from pytest_toolcall.core.model import (AssistantMessage, ChatRequest, NamedToolChoice, Reasoning,
                                        SystemMessage, ToolCall, ToolMessage, ToolSpec, UserMessage)
from pytest_toolcall.providers.base import ReferenceRules, Rejection, judged
from pytest_toolcall.providers._compat import pieces, reasoning_text, wire_reasoning
from pytest_toolcall.providers.openai import errors as _errors

__all__ = ["DIALECT", "OPENAI_RULES", "UNAVOIDABLE_RULES", "OpenAIChat"]

_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")
_FINISH = {"stop": "stop", "tool_calls": "tool_calls", "length": "length",
           "content_filter": "content_filter", "error": "stop", "other": "stop"}
CREATED = 1_700_000_000
#: what OpenRouter writes to keep a stream open (https://openrouter.ai/docs/api-reference/
#: streaming, "Additional information", confirmed 2026-11-23): SSE comment lines, which the SSE
#: spec says a client ignores; a parser that json-decodes every line breaks on them
SSE_COMMENT = b": OPENROUTER PROCESSING\n\n"


def _error(status: int, message: str, *, param: str | None = None, code: str | None = None,
           type: str = "invalid_request_error", rule: str) -> Rejection:
    body = {"error": {"message": message, "type": type, "param": param, "code": code}}
    return Rejection(status=status, body=body, rule=rule)


def _text(content: Any) -> str:
    """Text of a message content that is a string, null or a list of parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for part in content:
            if isinstance(part, Mapping):
                out.append(str(part.get("text", f"[{part.get('type', 'part')}]")))
        return "".join(out)
    return str(content)


#: the request rules OpenAIChat enforces, rule id -> what OpenAI refuses; a service on the wire
#: states for each whether it is confirmed (``confirmed_rules``: its fake refuses) or taken
#: (``lenient_rules``); any other is *unconfirmed*: its fake takes the request and the kit
#: reports the breach as hardening (``request.unconfirmed``, issue 30). docs/providers.md
#: renders the table
OPENAI_RULES = {
    "body.json": "a body that is not JSON",
    "model.missing": "no model",
    "messages.missing": "no messages",
    "messages.empty": "an empty messages array",
    "type": "a field of the wrong JSON type",
    "tools.type.missing": "a tool without type",
    "tools.type": "a tool whose type is not 'function'",
    "tools.function.missing": "a function tool without its function",
    "tools.name.missing": "a function without a name",
    "tools.name.pattern": "a name outside ^[a-zA-Z0-9_-]+$",
    "tools.name.length": "a name longer than 64",
    "tools.parameters.schema": "parameters that are not a JSON schema object",
    "tool_choice.without_tools": "tool_choice without tools",
    "tool_choice.value": "a tool_choice string other than none, auto, required",
    "tool_choice.function.missing": "a named tool_choice without its function or name",
    "tool_choice.unknown_tool": "a named tool_choice naming no tool",
    "parallel_tool_calls.without_tools": "parallel_tool_calls without tools",
    "messages.role.missing": "a message without role",
    "messages.role": "an unknown role",
    "messages.tool.orphan": "a tool message after no tool calls",
    "messages.tool.tool_call_id": "a tool message without tool_call_id",
    "messages.tool.unknown_id": "a tool message answering no call of the message before",
    "messages.tool_calls.unanswered": "tool calls left without their results",
    "messages.assistant.content_null": "an assistant message with neither content nor calls",
    "messages.assistant.empty_tool_calls": "an assistant message with tool_calls: []",
    "messages.content.missing": "a system or user message without content",
    "messages.tool_calls.id": "a call without id",
    "messages.tool_calls.function": "a call without its function",
    "messages.tool_calls.type": "a call whose type is not 'function'",
    "messages.tool_calls.function.name": "a call without a function name",
    "messages.tool_calls.function.arguments": "a call without arguments",
}


#: OpenAI's rules every fake on the wire keeps, whatever the service (rule id -> why): without
#: them there is nothing to answer. A ``type`` rejection of ``messages`` (not an array) is one
UNAVOIDABLE_RULES = {
    "body.json": "a body that is not JSON is no request: there is nothing to read or answer",
    "messages.missing": "no messages: no conversation to answer (and nothing to check)",
    "messages.empty": "no messages: no conversation to answer (and nothing to check)",
}


def unavoidable(found: Rejection) -> bool:
    """Whether ``found`` (OpenAI's rejection) is one every fake keeps (:data:`UNAVOIDABLE_RULES`;
    ``messages`` that is not an array)."""
    if found.rule in UNAVOIDABLE_RULES:
        return True
    error = found.body.get("error")
    return found.rule == "type" and isinstance(error, Mapping) and error.get("param") == "messages"


class OpenAIChat(ReferenceRules):
    """The ``openai`` dialect: Chat Completions."""

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    name = "openai"
    title = "OpenAI Chat Completions"
    base_path = "/v1"
    stream_content_type = "text/event-stream; charset=utf-8"

    # What a service on this wire states as data instead of code (docs/writing-a-provider.md):
    #: the paths it answers on, a trailing slash ignored (None: any path that ends in
    #: ``/chat/completions``, as the ``openai`` fake takes them)
    paths: frozenset[str] | None = None
    #: the assistant-message field it carries thinking in (``reasoning``, ``reasoning_content``):
    #: the fake sends the turn's thinking there and reads it back as the message's reasoning
    reasoning_field: str | None = None
    #: its switch for thinking, a function of the request body giving the decoded request's
    #: ``reasoning`` (True, False or None); None: no switch
    thinking_switch: Callable[[Mapping[str, Any]], bool | None] | None = None
    #: what a generated call id is made from (:meth:`call_id`): the turn's call names joined by
    #: commas ("turn") or the call's own name ("call")
    call_id_key = "turn"
    #: the SSE comment it writes while the model works (the ``sse_comments`` quirk)
    sse_comment = SSE_COMMENT
    #: OpenAI's rules this service is not shown to enforce, rule id -> what the service takes
    #: instead (with its source): :meth:`lenient` reads the body as the service does before
    #: OpenAI's rules run, so the fake lets it pass (docs/providers.md lists them per service)
    lenient_rules: Mapping[str, str] = {}
    #: lenient rules the service takes for some bodies only, which :meth:`lenient` reads as it
    #: does (OpenRouter's server tools): a breach left after that reading is still noted
    lenient_in_part: frozenset[str] = frozenset()
    #: OpenAI's rules the service is shown to enforce itself (its own words where the fake
    #: has them), rule id -> the fact of the service's registry entry that shows it
    confirmed_rules: Mapping[str, str] = {}
    #: whether every one of OpenAI's rules is this provider's own (OpenAI's; its rules are
    #: measured on its recorded traffic, the wire corpus). Never inherited: a subclass (a
    #: service, a plugin's provider) enforces only ``confirmed_rules`` and the unavoidable ones,
    #: and takes a request that breaks another, noting the breach (:meth:`_judge`)
    enforces_all_rules = True
    #: other routes the service answers on another wire: a path suffix -> the dialect class
    #: playing it (DeepSeek's and OpenRouter's ``/responses``); :meth:`dialect_for` picks it
    other_routes: Mapping[str, type] = {}

    # -- routing and auth -------------------------------------------------------------------
    def route(self, method: str, path: str) -> bool:
        if self.paths is None:
            return method == "POST" and path.rstrip("/").endswith("/chat/completions")
        return method == "POST" and (path.rstrip("/") or "/") in self.paths

    def not_found(self, method: str, path: str) -> Rejection:
        found = self.own_shape(_error(404, f"Invalid URL ({method} {path})", rule="route"))
        assert found is not None
        return found

    def dialect_for(self, path: str) -> Any:
        """The dialect that answers ``path``: this one, or the one :attr:`other_routes` names
        for it (one instance each, kept: it may remember what it answered)."""
        stripped = path.rstrip("/")
        for suffix, cls in self.other_routes.items():
            if stripped.endswith(suffix):
                kept = self.__dict__.setdefault("_other_dialects", {})
                if suffix not in kept:
                    kept[suffix] = cls()
                return kept[suffix]
        return self

    def check_auth(self, headers: Mapping[str, str], query: Mapping[str, str],
                   key: str) -> Rejection | None:
        """The key as a bearer token in ``Authorization``, as OpenAI and most services on its wire
        take it; anything else gets :meth:`auth_rejection`, each service's own answer."""
        auth = headers.get("authorization", "")
        if auth == f"Bearer {key}":
            return None
        return self.auth_rejection(auth)

    def auth_rejection(self, auth: str) -> Rejection:
        """OpenAI's answer to a missing (``auth`` empty) or wrong ``Authorization`` header."""
        if not auth:
            return _error(
                401,
                "You didn't provide an API key. You need to provide your API key in an "
                "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
                rule="auth.missing",
            )
        shown = auth.removeprefix("Bearer ")
        shown = shown[:3] + "*" * 4 + shown[-4:] if len(shown) > 8 else "****"
        return _error(401, f"Incorrect API key provided: {shown}.", code="invalid_api_key",
                      rule="auth.invalid")

    def wants_stream(self, body: Mapping[str, Any], path: str) -> bool:
        return body.get("stream") is True

    # -- validation ---------------------------------------------------------------------------
    def lenient(self, body: Mapping[str, Any]) -> Mapping[str, Any]:
        """``body`` as the service reads it before OpenAI's rules run (:attr:`lenient_rules`);
        OpenAI's own: the body as sent."""
        return body

    def validate(self, body: Any) -> Rejection | None:
        """OpenAI's rules on the body as the service reads it (:meth:`lenient`), a rejection in
        the service's own error shape (:meth:`own_shape`); a rule the service is not shown to
        enforce lets the request pass (:meth:`_judge`)."""
        if isinstance(body, Mapping):
            body = self.lenient(body)
        return self.own_shape(self._openai_rules(body))

    def refuses(self, rule: str) -> bool:
        """Whether this provider's fake refuses a request that breaks OpenAI's ``rule``."""
        return (self.enforces_all_rules or rule in UNAVOIDABLE_RULES
                or rule in self.confirmed_rules)

    def _judge(self, found: Rejection) -> Rejection | None:
        """``found`` (OpenAI's rejection) when this provider refuses it; else None, and the
        breach is noted (``providers.base.noting_breaches``) unless the service is shown to
        take it (``lenient_rules``): the checks go on past it."""
        return judged(self, found, unavoidable(found))

    def own_shape(self, found: Rejection | None) -> Rejection | None:
        """``found`` (OpenAI's rule, in OpenAI's shape) in this service's error shape: its
        :meth:`encode_error` of the same status, message, type, param and code."""
        if found is None or type(self).encode_error is OpenAIChat.encode_error:
            return found
        error = found.body.get("error")
        if not isinstance(error, Mapping):
            return found  # already the service's own body
        status, body = self.encode_error(ErrorReply(
            status=found.status, message=str(error.get("message", "")),
            type=str(error.get("type") or "invalid_request_error"),
            param=error.get("param"), code=error.get("code")))
        return Rejection(status=status, body=body, rule=found.rule)

    def _openai_rules(self, body: Any) -> Rejection | None:  # noqa: C901 - one rule after another
        if not isinstance(body, Mapping):
            return _error(400, "We could not parse the JSON body of your request. (HINT: This "
                          "likely means you aren't using your HTTP library correctly. The OpenAI "
                          "API expects a JSON payload, but what was sent was not valid JSON.)",
                          rule="body.json")
        judge = self._judge
        if not isinstance(body.get("model"), str) or not body["model"]:
            found = judge(_error(400, "you must provide a model parameter", rule="model.missing"))
            if found:
                return found
        messages = body.get("messages")
        if messages is None:
            return _error(400, "Missing required parameter: 'messages'.", param="messages",
                          code="missing_required_parameter", rule="messages.missing")
        if not isinstance(messages, list):
            return _type_error("messages", "an array", messages)
        if not messages:
            return _error(400, "Invalid 'messages': empty array. Expected an array with minimum "
                          "length 1, but got an empty array instead.", param="messages",
                          code="empty_array", rule="messages.empty")
        tools = body.get("tools")
        if tools is not None and not isinstance(tools, list):
            found = judge(_type_error("tools", "an array", tools))
            if found:
                return found
            tools = None
        found = validate_tools(self, tools)
        if found:
            return found
        has_tools = bool(tools)
        if "tool_choice" in body and body["tool_choice"] is not None:
            if not has_tools:
                found = judge(_error(400, "Invalid value for 'tool_choice': 'tool_choice' is only "
                                     "allowed when 'tools' are specified.", param="tool_choice",
                                     rule="tool_choice.without_tools"))
            else:
                found = self._validate_tool_choice(body["tool_choice"], tools or [])
            if found:
                return found
        if "parallel_tool_calls" in body and body["parallel_tool_calls"] is not None:
            if not has_tools:
                found = judge(_error(400, "Invalid value for 'parallel_tool_calls': "
                                     "'parallel_tool_calls' is only allowed when 'tools' are "
                                     "specified.", param="parallel_tool_calls",
                                     rule="parallel_tool_calls.without_tools"))
            elif not isinstance(body["parallel_tool_calls"], bool):
                found = judge(_type_error("parallel_tool_calls", "a boolean",
                                          body["parallel_tool_calls"]))
            if found:
                return found
        return self._validate_messages(messages)

    def _validate_tool(self, i: int, tool: Any) -> Rejection | None:
        where, judge = f"tools[{i}]", self._judge
        if not isinstance(tool, Mapping):
            return judge(_type_error(where, "an object", tool))
        if "type" not in tool:
            # OpenAI's own words (openai-cookbook #1248, quoted 2024-06; confirmed 2026-11-23):
            # never Python's 'None' in a provider's error text
            return judge(_error(400, f"Missing required parameter: '{where}.type'.",
                                param=f"{where}.type", code="missing_required_parameter",
                                rule="tools.type.missing"))
        if not isinstance(tool["type"], str):
            return judge(_type_error(f"{where}.type", "a string", tool["type"]))
        if tool["type"] != "function":
            return judge(_error(400, f"Invalid value: '{tool['type']}'. Supported values are: "
                                "'function' and 'custom'.", param=f"{where}.type",
                                code="invalid_value", rule="tools.type"))
        function = tool.get("function")
        if not isinstance(function, Mapping):
            return judge(_error(400, f"Missing required parameter: '{where}.function'.",
                                param=f"{where}.function", code="missing_required_parameter",
                                rule="tools.function.missing"))
        name = function.get("name")
        if not isinstance(name, str):
            return judge(_error(400, f"Missing required parameter: '{where}.function.name'.",
                                param=f"{where}.function.name",
                                code="missing_required_parameter", rule="tools.name.missing"))
        if not _NAME.match(name):
            return judge(_error(400, f"Invalid '{where}.function.name': string does not match "
                                "pattern. Expected a string that matches the pattern "
                                "'^[a-zA-Z0-9_-]+$'.", param=f"{where}.function.name",
                                code="invalid_value", rule="tools.name.pattern"))
        if len(name) > 64:
            return judge(_error(400, f"Invalid '{where}.function.name': string too long. "
                                f"Expected a string with maximum length 64, but got a string "
                                f"with length {len(name)} instead.",
                                param=f"{where}.function.name", code="string_above_max_length",
                                rule="tools.name.length"))
        params = function.get("parameters")
        if params is not None and not isinstance(params, Mapping):
            return judge(_type_error(f"{where}.function.parameters", "an object", params))
        problem = _schema_problem(params) if params is not None else None
        if problem:
            # without this the fake would accept a schema the canonical model cannot hold and
            # the failure would read as a kit error instead of the provider's 400
            return judge(_error(400, f"Invalid schema for function '{name}': {problem}",
                                param=f"{where}.function.parameters",
                                code="invalid_function_parameters",
                                rule="tools.parameters.schema"))
        return None

    def _validate_tool_choice(self, choice: Any, tools: list[Any]) -> Rejection | None:
        judge = self._judge
        if isinstance(choice, str):
            found = tool_choice_mode(choice)
            return judge(found) if found else None
        if isinstance(choice, Mapping) and choice.get("type") == "function":
            function = choice.get("function")
            if not isinstance(function, Mapping):  # a string here used to crash the fake
                return judge(_error(400, "Missing required parameter: 'tool_choice.function'.",
                                    param="tool_choice.function",
                                    code="missing_required_parameter",
                                    rule="tool_choice.function.missing"))
            name = function.get("name")
            if name is None:  # OpenAI's wording for any missing field; never 'None' quoted
                return judge(_error(400, "Missing required parameter: "
                                    "'tool_choice.function.name'.",
                                    param="tool_choice.function.name",
                                    code="missing_required_parameter",
                                    rule="tool_choice.function.missing"))
            if not isinstance(name, str):  # a list or an object here used to crash the fake
                return judge(_type_error("tool_choice.function.name", "a string", name))
            # the tools' names, skipping a tool whose shape is broken (a breach noted above)
            names = {t["function"]["name"] for t in tools
                     if isinstance(t, Mapping) and _function_named(t)}
            if name not in names:
                return judge(_error(400, f"Invalid value for 'tool_choice': tool '{name}' not "
                                    "found in 'tools'.", param="tool_choice",
                                    rule="tool_choice.unknown_tool"))
            return None
        if isinstance(choice, Mapping) and choice.get("type") == "allowed_tools":
            return None
        return judge(_error(400, "Invalid 'tool_choice': expected one of 'none', 'auto', "
                            "'required', or an object naming a function.", param="tool_choice",
                            code="invalid_value", rule="tool_choice.value"))

    def _validate_messages(self, messages: list[Any]) -> Rejection | None:
        """OpenAI's rules on the messages; a breach this provider lets pass (:meth:`_judge`)
        skips the rest of its message, and the checks go on."""
        judge = self._judge
        pending: list[str] = []  # ids of the last assistant message still to be answered
        answered: set[str] = set()
        open_at: int | None = None
        for i, msg in enumerate(messages):
            found: Rejection | None = None
            role = msg.get("role") if isinstance(msg, Mapping) else None
            if not isinstance(msg, Mapping):
                found = judge(_type_error(f"messages[{i}]", "an object", msg))
            elif role is None:
                found = judge(_error(400, f"Missing required parameter: 'messages[{i}].role'.",
                                     param=f"messages[{i}].role",
                                     code="missing_required_parameter",
                                     rule="messages.role.missing"))
            elif not isinstance(role, str):  # else Python's repr ('True', '[...]') is quoted
                found = judge(_type_error(f"messages[{i}].role", "a string", role))
            elif role not in ("system", "developer", "user", "assistant", "tool", "function"):
                found = judge(_error(400, f"Invalid value: '{role}'. Supported values are: "
                                     "'system', 'assistant', 'user', 'function', 'tool', and "
                                     "'developer'.", param=f"messages[{i}].role",
                                     code="invalid_value", rule="messages.role"))
            else:
                if role != "tool" and open_at is not None:
                    missing = [c for c in pending if c not in answered]
                    open_at = None
                    if missing:
                        found = judge(_unanswered(i, missing))
                        if found:
                            return found
                if role == "tool":
                    found = self._validate_result(i, msg, open_at, pending)
                    if found is None and isinstance(msg.get("tool_call_id"), str):
                        answered.add(msg["tool_call_id"])
                elif role == "assistant":
                    calls = msg.get("tool_calls")
                    if calls is None:
                        if msg.get("content") is None:
                            found = judge(_error(400, "Invalid value for 'content': expected a "
                                                 "string, got null.",
                                                 param=f"messages.[{i}].content",
                                                 rule="messages.assistant.content_null"))
                    elif not isinstance(calls, list):
                        found = judge(_type_error(f"messages[{i}].tool_calls", "an array",
                                                  calls))
                    elif not calls:
                        found = judge(_error(400, f"Invalid 'messages[{i}].tool_calls': empty "
                                             "array. Expected an array with minimum length 1, "
                                             "but got an empty array instead.",
                                             param=f"messages[{i}].tool_calls",
                                             code="empty_array",
                                             rule="messages.assistant.empty_tool_calls"))
                    else:
                        pending, answered, open_at = [], set(), i
                        for j, call in enumerate(calls):
                            found = self._validate_call(i, j, call)
                            if found:
                                return found
                            if isinstance(call, Mapping) and isinstance(call.get("id"), str):
                                pending.append(call["id"])
                elif msg.get("content") is None:
                    found = judge(_error(400, f"Missing required parameter: "
                                         f"'messages[{i}].content'.",
                                         param=f"messages[{i}].content",
                                         code="missing_required_parameter",
                                         rule="messages.content.missing"))
            if found:
                return found
        if open_at is not None:
            missing = [c for c in pending if c not in answered]
            if missing:
                return judge(_unanswered(len(messages) - 1, missing))
        return None

    def _validate_result(self, i: int, msg: Mapping[str, Any], open_at: int | None,
                         pending: list[str]) -> Rejection | None:
        """OpenAI's rules on a tool message (``open_at``: the assistant message whose calls are
        being answered, ``pending``: their ids)."""
        judge = self._judge
        if open_at is None:
            return judge(_error(400, "Invalid parameter: messages with role 'tool' must be a "
                                "response to a preceeding message with 'tool_calls'.",
                                param=f"messages.[{i}].role", rule="messages.tool.orphan"))
        call_id = msg.get("tool_call_id")
        if not isinstance(call_id, str):
            return judge(_error(400, f"Missing required parameter: "
                                f"'messages[{i}].tool_call_id'.",
                                param=f"messages[{i}].tool_call_id",
                                code="missing_required_parameter",
                                rule="messages.tool.tool_call_id"))
        if call_id not in pending:
            return judge(_error(400, f"Invalid parameter: 'tool_call_id' of '{call_id}' not "
                                "found in 'tool_calls' of previous message.",
                                param=f"messages.[{i}].tool_call_id",
                                rule="messages.tool.unknown_id"))
        content = msg.get("content")
        if not isinstance(content, (str, list)):
            return judge(_type_error(f"messages[{i}].content", "a string or array", content))
        return None

    def _validate_call(self, i: int, j: int, call: Any) -> Rejection | None:
        where, judge = f"messages[{i}].tool_calls[{j}]", self._judge
        if not isinstance(call, Mapping):
            return judge(_type_error(where, "an object", call))
        for field in ("id", "type", "function"):
            if field not in call:
                return judge(_error(400, f"Missing required parameter: '{where}.{field}'.",
                                    param=f"{where}.{field}", code="missing_required_parameter",
                                    rule=f"messages.tool_calls.{field}"))
        if not isinstance(call["id"], str):
            return judge(_type_error(f"{where}.id", "a string", call["id"]))
        if not isinstance(call["type"], str):
            return judge(_type_error(f"{where}.type", "a string", call["type"]))
        if call["type"] != "function":
            return judge(_error(400, f"Invalid value: '{call['type']}'. Supported values are: "
                                "'function' and 'custom'.", param=f"{where}.type",
                                code="invalid_value", rule="messages.tool_calls.type"))
        function = call["function"]
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            return judge(_error(400, f"Missing required parameter: '{where}.function.name'.",
                                param=f"{where}.function.name",
                                code="missing_required_parameter",
                                rule="messages.tool_calls.function.name"))
        if "arguments" not in function:
            return judge(_error(400, f"Missing required parameter: "
                                f"'{where}.function.arguments'.",
                                param=f"{where}.function.arguments",
                                code="missing_required_parameter",
                                rule="messages.tool_calls.function.arguments"))
        if not isinstance(function["arguments"], str):
            return judge(_type_error(f"{where}.function.arguments", "a string",
                                     function["arguments"]))
        return None

    # -- decoding -----------------------------------------------------------------------------
    def decode_request(self, body: Mapping[str, Any]) -> ChatRequest:
        """The canonical request the service reads from ``body``. A body that breaks a rule the
        service is not shown to enforce is taken (:meth:`_judge`), so the reading is the kind
        one: what cannot be read (a message that is no object, a tool without a function name)
        is left out, a tool without ``type`` is a function tool."""
        body = self.lenient(body)
        messages: list[Any] = []
        for msg in _objects(body.get("messages")):
            role = msg.get("role")
            if role in ("system", "developer"):
                messages.append(SystemMessage(role=role, content=_text(msg.get("content"))))
            elif role == "user":
                messages.append(UserMessage(content=_text(msg.get("content"))))
            elif role == "assistant":
                calls = tuple(
                    ToolCall.from_raw(
                        id=c["id"] if isinstance(c.get("id"), str) else None,
                        name=c["function"]["name"],
                        arguments=_arguments(c["function"].get("arguments")),
                    )
                    for c in _objects(msg.get("tool_calls"))
                    if isinstance(c.get("function"), Mapping)
                    and isinstance(c["function"].get("name"), str)
                )
                content = msg.get("content")
                messages.append(AssistantMessage(
                    content=None if content is None else _text(content), tool_calls=calls))
            elif role == "tool":
                call_id = msg.get("tool_call_id")
                messages.append(ToolMessage(
                    tool_call_id=call_id if isinstance(call_id, str) else None,
                    content=_text(msg.get("content"))))
        tools = tuple(_tool_spec(t["function"]) for t in _objects(body.get("tools"))
                      if t.get("type", "function") == "function" and _function_named(t))
        choice = body.get("tool_choice")
        tool_choice: Any = None
        if isinstance(choice, str):
            refused = tool_choice_mode(choice) if choice not in _MODES else None
            if refused is not None and self.refuses(refused.rule):
                # decoding a body validate() refuses: say why, no crash
                raise ValueError(f"{self.name} refuses this request ({refused.rule}): "
                                 f"{refused.message}")
            tool_choice = choice if refused is None else None
        elif (isinstance(choice, Mapping) and choice.get("type") == "function"
              and _function_named(choice)):
            tool_choice = NamedToolChoice(name=choice["function"]["name"])
        parallel = body.get("parallel_tool_calls")
        model = body.get("model")
        request = ChatRequest(
            messages=tuple(messages),
            tools=tools,
            tool_choice=tool_choice,
            parallel_tool_calls=parallel if isinstance(parallel, bool) else None,
            stream=bool(body.get("stream")),
            model=model if isinstance(model, str) else None,
        )
        if self.reasoning_field is not None:
            request = with_wire_reasoning(request, body, wire_reasoning(self.reasoning_field))
        if self.thinking_switch is not None:
            request = request.model_copy(update={"reasoning": self.thinking_switch(body)})
        return request

    # -- encoding -----------------------------------------------------------------------------
    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        return error.status, {"error": {"message": error.message, "type": error.type,
                                        "param": error.param, "code": error.code}}

    @classmethod
    def call_ids(cls, turn: Turn) -> list[str]:
        """Each call's scripted id, else :meth:`call_id` of its key (see ``call_id_key``) and
        its position in the turn."""
        names = ",".join(c.name for c in turn.tool_calls)
        return [c.id or cls.call_id(c.name if cls.call_id_key == "call" else names, i)
                for i, c in enumerate(turn.tool_calls)]

    @staticmethod
    def call_id(key: str, position: int) -> str:
        """The id the fake makes for a call the case gives none (stable per ``key``)."""
        return f"call_{position + 1:03d}"

    @staticmethod
    def _usage(turn: Turn) -> dict[str, Any]:
        """The turn's usage in this service's keys (OpenAI's: both detail objects)."""
        return _usage(turn)

    def with_usage(self, answer: dict[str, Any], turn: Turn) -> dict[str, Any]:
        """``answer`` with ``usage`` (:meth:`_usage`) added when the case scripts any."""
        if turn.usage is not None:
            answer["usage"] = self._usage(turn)
        return answer

    @staticmethod
    def chunk(base: Mapping[str, Any], delta: dict[str, Any], finish: str | None = None, *,
              include_usage: bool = False) -> dict[str, Any]:
        """OpenAI's stream chunk: ``base`` (id, object, created, model ...) and one choice
        with ``delta``, ``logprobs: null`` and ``finish_reason``; ``usage: null`` on each
        chunk when the request asks for usage."""
        data = dict(base, choices=[{"index": 0, "delta": delta, "logprobs": None,
                                    "finish_reason": finish}])
        if include_usage:
            data["usage"] = None
        return data

    @staticmethod
    def include_usage(body: Mapping[str, Any]) -> bool:
        """Whether the request asks for usage in the stream (``stream_options``)."""
        return bool((body.get("stream_options") or {}).get("include_usage"))

    def text_deltas(self, turn: Turn, size: int, field: str | None = None) -> list[dict[str, Any]]:
        """The deltas of a turn's thinking (under ``field``, default ``reasoning_field``) and
        then its text, in pieces of ``size`` characters."""
        thinking = [{field or self.reasoning_field: p} for p in pieces(reasoning_text(turn), size)]
        return thinking + [{"content": p} for p in pieces(turn.text, size)]

    def call_fragments(self, turn: Turn, size: int, quirks: frozenset[str],
                       of: Callable[..., list[dict[str, Any]]] | None = None
                       ) -> list[dict[str, Any]]:
        """The turn's calls as stream fragments in the order they are sent; ``of`` makes one
        call's fragments (default :meth:`_call_fragments`)."""
        of = of or self._call_fragments
        return ordered_fragments([of(k, cid, c, size, quirks) for k, (cid, c)
                                  in enumerate(zip(self.call_ids(turn), turn.tool_calls))], quirks)

    def stream_events(self, chunks: list[dict[str, Any]], plan: Any,
                      quirks: frozenset[str]) -> list[bytes]:
        """The chunks as the stream's events (:meth:`sse_events`), with ``sse_comment`` lines
        under the ``sse_comments`` quirk."""
        events = self.sse_events(chunks, plan, quirks)
        if "sse_comments" in quirks:
            events = with_sse_comments(events, comment=self.sse_comment)
        return events

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        # the message keys of real traffic (wire corpus): annotations is always there, [] here
        message: dict[str, Any] = {"role": "assistant", "content": turn.text, "refusal": None,
                                   "annotations": []}
        if turn.tool_calls:
            message["tool_calls"] = [
                {"id": cid, "type": "function",
                 "function": {"name": c.name, "arguments": c.arguments_text()}}
                for cid, c in zip(self.call_ids(turn), turn.tool_calls)
            ]
        response: dict[str, Any] = {
            "id": "chatcmpl-toolcall",
            "object": "chat.completion",
            "created": CREATED,
            "model": body.get("model") or "toolcall-fake",
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": _finish(turn)}],
            "system_fingerprint": "fp_toolcall",
            "service_tier": "default",
        }
        if turn.usage is not None:
            response["usage"] = _usage(turn)
        return response

    #: validate() and decode_request() read the request body alone, so the fake provider may
    #: keep their verdict per body (not inherited: a subclass declares it for itself)
    pure_requests = True

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        if type(self) is not OpenAIChat:  # subclasses may encode from more than these three
            return self._encode_stream(turn, body, include_usage)
        # The events follow from the (frozen) turn, the model and include_usage alone: a case
        # that streams one turn again and again (hypothesis cut points, both interfaces, a
        # 600 KB event) encodes it once per fake provider.
        cache = self.__dict__.setdefault("_streams", {})
        key = (id(turn), body.get("model"), include_usage)
        held = cache.get(key)
        if held is None or held[0] is not turn:
            held = cache[key] = (turn, tuple(self._encode_stream(turn, body, include_usage)))
        return list(held[1])

    def _encode_stream(self, turn: Turn, body: Mapping[str, Any],
                       include_usage: bool) -> list[bytes]:
        plan = turn.stream
        quirks = plan.quirks
        base = {"id": "chatcmpl-toolcall", "object": "chat.completion.chunk",
                "created": CREATED, "model": body.get("model") or "toolcall-fake",
                "system_fingerprint": "fp_toolcall", "service_tier": "default"}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return self.chunk(base, delta, finish, include_usage=include_usage)

        role: dict[str, Any] = {"role": "assistant", "content": "" if turn.text else None,
                                "refusal": None}
        if turn.tool_calls and not turn.text:
            # a stream of calls only opens with {role, content: null} (no refusal key): all 34
            # tool-call streams of the wire corpus (openai-chat, confirmed 2026-11-23)
            role = {"role": "assistant", "content": None}
        chunks: list[dict[str, Any]] = [chunk(role)]
        size = plan.fragment_size
        chunks += [chunk({"content": p}) for p in pieces(turn.text, size)]
        fragments = self.call_fragments(turn, size, quirks)
        if fragments and not turn.text and _call_in_role_chunk(turn, quirks):
            # the majority shape: the first fragment rides in the role chunk, refusal after it
            delta = chunks[0]["choices"][0]["delta"]
            delta["tool_calls"] = [fragments.pop(0)]
            delta["refusal"] = None
        chunks += [chunk({"tool_calls": [frag]}) for frag in fragments]
        chunks.append(chunk({}, _finish(turn)))
        if include_usage and turn.usage is not None:
            chunks.append(dict(base, choices=[], usage=_usage(turn)))
        return self.stream_events(chunks, plan, quirks)

    def sse_events(self, chunks: list[dict[str, Any]], plan: Any,
                   quirks: frozenset[str]) -> list[bytes]:
        """The chunks as SSE events ending in ``[DONE]``, with the plan's error or cut."""
        events = [_sse(c) for c in chunks] + [b"data: [DONE]\n\n"]
        if "data_no_space" in quirks:
            events = [b"data:" + e[len(b"data: "):] for e in events]
        # chunk 0 is the role chunk; error_after / truncate_after count the events after it
        if plan.error_after is not None:
            # never after [DONE]: an error past the end would never be read
            events = events[: min(plan.error_after + 1, len(events) - 1)] + [
                self.stream_error_event(plan.error)]
        elif plan.truncate_after is not None:
            # before the chunk that ends the answer, however short the stream is (a service
            # that sends calls whole: a cut counted for OpenAI's fragments may fall past it)
            events = cut_before_finish(events, plan.truncate_after)
        return events

    def stream_error(self, error: ErrorReply) -> dict[str, Any]:
        """The event an error inside a 200 stream sends (default: the error body)."""
        return self.encode_error(error)[1]

    def stream_error_event(self, error: ErrorReply) -> bytes:
        """The SSE event of an error inside a 200 stream: a ``data:`` line of
        :meth:`stream_error` (a service that names the event overrides this)."""
        return _sse(self.stream_error(error))

    @staticmethod
    def _call_fragments(k: int, cid: str, call: ScriptedCall, size: int,
                        quirks: frozenset[str]) -> list[dict[str, Any]]:
        text = call.arguments_text()
        head: dict[str, Any] = {"index": k, "id": cid, "type": "function",
                                "function": {"name": call.name,
                                             "arguments": "" if text is not None else None}}
        pieces = [text[n:n + size] for n in range(0, len(text), size)] if text else []
        frags = [head] + [{"index": k, "function": {"arguments": p}} for p in pieces]
        if "repeat_id_name" in quirks:
            frags = [head] + [{"index": k, "id": cid, "type": "function",
                               "function": {"name": call.name, "arguments": p}} for p in pieces]
        elif "null_id_name" in quirks:
            frags = [head] + [{"index": k, "id": None, "type": "function",
                               "function": {"name": None, "arguments": p}} for p in pieces]
        for frag in frags:
            if "index_stuck_at_zero" in quirks:
                frag["index"] = 0
            if "index_missing" in quirks:
                frag.pop("index", None)
            if "no_ids" in quirks:
                frag.pop("id", None)
        return frags


def _call_in_role_chunk(turn: Turn, quirks: frozenset[str]) -> bool:
    """Whether the first tool-call fragment rides in the role chunk.

    Measured in the wire corpus (openai-chat, 34 tool-call streams, confirmed 2026-11-23): the
    23 streams with one call all put its first fragment in the role chunk; the 11 with two calls
    (parallel) all send the role chunk alone. So that is the default; ``call_in_role_chunk``
    forces the first shape on parallel calls too, ``role_chunk_alone`` the second on one call.
    """
    if "role_chunk_alone" in quirks:
        return False
    return "call_in_role_chunk" in quirks or len(turn.tool_calls) == 1


def with_sse_comments(events: list[bytes], before: int = 3, *,
                      comment: bytes = SSE_COMMENT) -> list[bytes]:
    """``events`` with ``before`` comment lines ahead of the first one and one after each event
    but the last (comments come while the model works, before and between data lines)."""
    out = [comment] * before
    for k, event in enumerate(events):
        out.append(event)
        if k < len(events) - 1:
            out.append(comment)
    return out


def _ends_answer(event: bytes) -> bool:
    """Whether an SSE event is a chunk that ends the answer (a choice with a finish_reason)."""
    for line in event.splitlines():
        if line.startswith(b"data:"):
            try:
                data = json.loads(line[len(b"data:"):])
            except ValueError:
                return False
            choices = data.get("choices") if isinstance(data, dict) else None
            return any(isinstance(c, dict) and c.get("finish_reason") for c in choices or ())
    return False


def cut_before_finish(events: list[bytes], truncate_after: int) -> list[bytes]:
    """The events of a stream cut after event ``truncate_after``, and in any case before the
    chunk that ends the answer (its ``finish_reason``). A cut after that chunk loses [DONE]
    alone (and the usage chunk), which no client can tell from the end of the stream: the
    openai SDK (3.57.0 ``_streaming.py`` ``Stream.__stream__``), groq (1.7.0, the same
    generated code), mistralai (3.7.0 ``utils/eventstreaming.py``) and zai-sdk (0.2.3) stop at
    EOF as they stop at the sentinel (read 2026-11-28). A cut there is no detectable truncation:
    the answer is whole."""
    finish = next((k for k, event in enumerate(events) if _ends_answer(event)), len(events) - 1)
    return events[: min(truncate_after + 1, finish)]


def ordered_fragments(per_call: list[list[dict[str, Any]]],
                      quirks: frozenset[str]) -> list[dict[str, Any]]:
    """The calls' fragments (one list per call) in the order they are sent: call after call, or
    round-robin under the ``interleave`` quirk."""
    if "interleave" in quirks:
        longest = max((len(f) for f in per_call), default=0)
        return [f[n] for n in range(longest) for f in per_call if n < len(f)]
    return [piece for f in per_call for piece in f]


def with_wire_reasoning(request: ChatRequest, body: Mapping[str, Any],
                        read: Callable[[Mapping[str, Any]], tuple[Reasoning, ...] | None]
                        ) -> ChatRequest:
    """``request``, decoded from ``body`` by :meth:`OpenAIChat.decode_request`, with each
    assistant message's reasoning as ``read`` finds it on its wire message (None: not there)."""
    raw = [m for m in body.get("messages", []) if m.get("role") in (
        "system", "developer", "user", "assistant", "tool")]
    messages = []
    for msg, wire in zip(request.messages, raw):
        reasoning = read(wire) if isinstance(msg, AssistantMessage) else None
        if reasoning is not None:
            msg = msg.model_copy(update={"reasoning": reasoning})
        messages.append(msg)
    return request.model_copy(update={"messages": tuple(messages)})


def tool_choice_mode(choice: str) -> Rejection | None:
    """OpenAI's 400 for a ``tool_choice`` string that is not one of its modes (both OpenAI
    wires), else None."""
    if choice in ("none", "auto", "required"):
        return None
    return _error(400, f"Invalid value: '{choice}'. Supported values are: 'none', 'auto', and "
                  "'required'.", param="tool_choice", code="invalid_value",
                  rule="tool_choice.value")


def validate_tools(dialect: Any, tools: Any) -> Rejection | None:
    """The first rejection of a request's ``tools``: not an array, else the first tool
    ``dialect._validate_tool`` refuses (both OpenAI wires; None when absent or all valid)."""
    if tools is None:
        return None
    if not isinstance(tools, list):
        return _type_error("tools", "an array", tools)
    for i, tool in enumerate(tools):
        found = dialect._validate_tool(i, tool)
        if found:
            return found
    return None


def _finish(turn: Turn) -> str:
    return turn.wire_finish_reason or _FINISH[turn.expected_finish()]


def _schema_problem(schema: Mapping[str, Any]) -> str | None:
    from pytest_toolcall.core._schema import schema_problem

    problem = schema_problem(schema)
    return f"{problem[1]}." if problem else None


def _usage(turn: Turn) -> dict[str, Any]:
    u = turn.usage
    assert u is not None
    # real usage always carries both detail objects (wire corpus, JSON and stream alike)
    return {"prompt_tokens": u.input_tokens or 0, "completion_tokens": u.output_tokens or 0,
            "total_tokens": u.total_tokens or 0,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                          "accepted_prediction_tokens": 0,
                                          "rejected_prediction_tokens": 0}}


#: json.dumps(data, ensure_ascii=False, separators=(",", ":")), without building an encoder per event
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _sse(data: Mapping[str, Any]) -> bytes:
    return b"data: " + _COMPACT.encode(data).encode() + b"\n\n"


def _type_error(param: str, expected: str, value: Any) -> Rejection:
    kind = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            int: "an integer", float: "a number", type(None): "null"}.get(type(value), "a value")
    return _error(400, f"Invalid type for '{param}': expected {expected}, but got {kind} instead.",
                  param=param, code="invalid_type", rule="type")


def _unanswered(at: int, missing: list[str]) -> Rejection:
    return _error(400, "An assistant message with 'tool_calls' must be followed by tool messages "
                  "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                  f"response messages: {', '.join(missing)}", param=f"messages.[{at}].role",
                  rule="messages.tool_calls.unanswered")


_MODES = ("none", "auto", "required")


def _objects(value: Any) -> list[Mapping[str, Any]]:
    """The objects of ``value`` when it is an array (what a kind reading can use), else none."""
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def _function_named(item: Mapping[str, Any]) -> bool:
    """Whether a tool (or a named tool_choice) carries a function with a name."""
    function = item.get("function")
    name = function.get("name") if isinstance(function, Mapping) else None
    return isinstance(name, str) and bool(name)


def _tool_spec(function: Mapping[str, Any]) -> ToolSpec:
    params = function.get("parameters")
    description = function.get("description")
    strict = function.get("strict")
    readable = isinstance(params, Mapping) and params and not _schema_problem(params)
    return ToolSpec(name=function["name"],
                    description=description if isinstance(description, str) else "",
                    parameters=params if readable else {"type": "object", "properties": {}},
                    strict=strict if isinstance(strict, bool) else None)


def _arguments(value: Any) -> Any:
    """A call's arguments as the kit reads them: text, an object, else none."""
    return value if isinstance(value, (str, Mapping)) else None


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = OpenAIChat

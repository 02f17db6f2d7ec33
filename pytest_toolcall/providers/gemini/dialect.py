"""Gemini API (Developer API), ``POST /v1beta/models/{model}:generateContent`` and
``:streamGenerateContent?alt=sse``: decode, validate, encode.

Facts (WIRE.md §0 and §4, checked against the wire corpus): bodies are camelCase but the proto
JSON parser takes snake_case too (``parameters_json_schema`` is what the SDK sends); calls come
whole as ``functionCall`` parts with an ``args`` object, ``finishReason`` is ``STOP`` even with
calls, and ``id`` is often absent (2.x). Newer models send ids and put a ``thoughtSignature`` on
the first ``functionCall`` part (2.5 and 3.x sign it with or without an id; 2.0-flash signs
nothing: the ``no_thought_signature`` quirk). The fake serves ``/v1`` as well as ``/v1beta``
(google-genai 3.x calls ``/v1`` by default). :class:`Gemini` plays the Developer API, which
accepts ``id`` on ``functionCall`` and ``functionResponse`` (every request of the corpus carries
them, all answered 200). ``providers/vertex/dialect.py`` plays Vertex on the same wire (Vertex
rejected ids until September 2026; today's Vertex accepts and sends them; the wire corpus
holds no Vertex traffic, rechecked 2026-11-25).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from typing import Any

from pytest_toolcall.cases import ErrorReply, ScriptedCall, Turn
from pytest_toolcall.core.errors import KitError
from pytest_toolcall.core.model import (AssistantMessage, ChatRequest, NamedToolChoice, Reasoning,
                                        SystemMessage, ToolCall, ToolMessage, ToolSpec, UserMessage)
from pytest_toolcall.providers.base import Rejection, halves
from pytest_toolcall.providers.gemini import errors as _errors

__all__ = ["DIALECT", "Gemini", "signs_strictly", "thought_signature"]

_ROUTE = re.compile(r"/(v1|v1beta)/models/[^/:]+:(generateContent|streamGenerateContent)$")
_MODEL = re.compile(r"/models/([^/:]+):")
#: the models that refuse a function call replayed without its thoughtSignature: Gemini 3 and
#: later ("When using Gemini 3 models, you must pass back thought signatures during function
#: calling, otherwise you will get a validation error (4xx status code)", Thought signatures,
#: ai.google.dev/gemini-api/docs/thought-signatures; 2.5 does not check), and the -latest
#: aliases that point at them (1jehuang/jcode #518, 2026-08-05: gemini-flash-latest refuses an
#: unsigned replay). Confirmed 2026-11-28.
_STRICT_MODEL = re.compile(
    r"^(gemini-([3-9]|\d{2,})[.\-]|gemini-(flash|pro|flash-lite)-latest$)")
_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_.\-]{0,63}$")
#: google.rpc.Code name for each HTTP status: the Gemini API's error table
#: (ai.google.dev/gemini-api/docs/generate-content/api-errors: 400, 402 RESOURCE_EXHAUSTED for
#: used-up prepaid credits, 403, 404, 429, 499 CANCELLED, 500, 503, 504) and "HTTP Mapping" in
#: google/rpc/code.proto (401, 409, 501); confirmed 2026-11-25. The error body's ``status``
#: follows the HTTP status; any other is UNKNOWN.
_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 402: "RESOURCE_EXHAUSTED",
           403: "PERMISSION_DENIED", 404: "NOT_FOUND", 409: "ABORTED",
           429: "RESOURCE_EXHAUSTED", 499: "CANCELLED", 500: "INTERNAL", 501: "UNIMPLEMENTED",
           503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}
_FINISH = {"stop": "STOP", "tool_calls": "STOP", "length": "MAX_TOKENS",
           "content_filter": "SAFETY", "error": "MALFORMED_FUNCTION_CALL", "other": "OTHER"}
_MODES = ("MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED")
_MODE_ENUM = "type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode"
_STRUCT = "type.googleapis.com/google.protobuf.Struct"
RESPONSE_ID = "toolcall-fake-response"

# Field names the proto knows, camelCase (the parser also takes their snake_case spelling).
_TOP = {"model", "contents", "tools", "toolConfig", "safetySettings", "systemInstruction",
        "generationConfig", "cachedContent", "labels", "serviceTier", "store"}
_CONTENT = {"role", "parts"}
_PART = {"text", "inlineData", "functionCall", "functionResponse", "fileData", "executableCode",
         "codeExecutionResult", "thought", "thoughtSignature", "videoMetadata", "partMetadata",
         "mediaResolution", "toolCall", "toolResponse"}
_CALL = {"id", "name", "args", "partialArgs", "willContinue"}
_RESPONSE = {"id", "name", "response", "parts", "willContinue", "scheduling"}
_DECLARATION = {"name", "description", "parameters", "parametersJsonSchema", "response",
                "responseJsonSchema", "behavior"}
# the OpenAPI-subset Schema of ``parameters`` (full JSON Schema goes in parametersJsonSchema)
_SCHEMA = {"type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
           "properties", "required", "minProperties", "maxProperties", "minLength",
           "maxLength", "pattern", "example", "anyOf", "propertyOrdering", "default", "items",
           "minimum", "maximum"}


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _snake(key: str) -> str:
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), key)


def _get(obj: Mapping[str, Any], camel: str, default: Any = None) -> Any:
    """A field in either spelling the proto JSON parser accepts."""
    if camel in obj:
        return obj[camel]
    return obj.get(_snake(camel), default)


def _error(status: int, message: str, *, rule: str) -> Rejection:
    body = {"error": {"code": status, "message": message,
                      "status": _STATUS.get(status, "UNKNOWN")}}
    return Rejection(status=status, body=body, rule=rule)


def _unknown(obj: Mapping[str, Any], known: set[str], where: str | None,
             rule: str) -> Rejection | None:
    for key in obj:
        if _camel(key) not in known:
            at = f" at '{where}'" if where else ""
            return _error(400, f'Invalid JSON payload received. Unknown name "{key}"{at}: '
                          "Cannot find field.", rule=rule)
    return None


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def thought_signature(call_id: str | None, name: str) -> str:
    """The opaque signature the fake puts on the first call of a turn (base64, like Gemini's)."""
    return base64.b64encode(f"toolcall-fake-thought:{call_id or ''}:{name}".encode()).decode()


def signs_strictly(model: str) -> bool:
    """Whether ``model`` refuses a function call of the current turn replayed without its
    thoughtSignature (Gemini 3 and later, and the aliases that point at them)."""
    return _STRICT_MODEL.match(model.removeprefix("models/")) is not None


def _signature(part: Mapping[str, Any]) -> Any:
    return _get(part, "thoughtSignature")


def _unsigned_call(contents: list[Any]) -> tuple[int, str] | None:
    """The first model turn of the current turn whose first functionCall part carries no
    thoughtSignature: ``(its index in contents, the call's name)``.

    The current turn starts after the last user content that is not only function responses
    (Thought signatures: "strict validation on the current turn ... the first function call
    part in each step of the current turn"; earlier turns are not checked). Parallel calls of
    one step carry one signature, on the first part; any non-empty value is taken (the fake
    cannot check Google's encryption, and Google documents dummy values that skip it)."""
    start = 0
    for i, content in enumerate(contents):
        if not isinstance(content, Mapping) or content.get("role", "user") != "user":
            continue
        parts = [p for p in content.get("parts") or () if isinstance(p, Mapping)]
        if any(_get(p, "functionResponse") is None for p in parts):
            start = i + 1
    for i, content in enumerate(contents[start:], start=start):
        if not isinstance(content, Mapping) or content.get("role") != "model":
            continue
        calls = [p for p in content.get("parts") or ()
                 if isinstance(p, Mapping) and _get(p, "functionCall") is not None]
        if calls and not _signature(calls[0]):
            return i, str(_get(calls[0], "functionCall").get("name", ""))
    return None


class Gemini:
    """The ``gemini`` dialect: the Gemini Developer API's generateContent."""

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    name = "gemini"
    title = "Gemini API generateContent"
    base_path = "/v1beta"
    stream_content_type = "text/event-stream"
    #: the fields of FunctionCall / FunctionResponse the API knows
    CALL_FIELDS = _CALL
    RESPONSE_FIELDS = _RESPONSE

    # -- routing and auth -------------------------------------------------------------------
    def route(self, method: str, path: str) -> bool:
        return method == "POST" and _ROUTE.search(path) is not None

    def not_found(self, method: str, path: str) -> Rejection:
        return _error(404, f"The requested URL {path} was not found on this server "
                      f"({method}); Gemini serves POST /v1beta/models/{{model}}:generateContent "
                      "and :streamGenerateContent?alt=sse (also under /v1).", rule="route")

    def check_auth(self, headers: Mapping[str, str], query: Mapping[str, str],
                   key: str) -> Rejection | None:
        given = headers.get("x-goog-api-key") or query.get("key")
        if not given:
            return _error(403, "Method doesn't allow unregistered callers (callers without "
                          "established identity). Please use API Key or other form of API "
                          "consumer identity to call this API.", rule="auth.missing")
        if given != key:
            return _error(400, "API key not valid. Please pass a valid API key.",
                          rule="auth.invalid")
        return None

    def wants_stream(self, body: Mapping[str, Any], path: str) -> bool:
        return path.endswith(":streamGenerateContent")

    #: Gemini's answer to a function call of the current turn replayed without its signature
    #: (the position is the content's, counted from 1): niki914/zafiro #100 (2026-08-02) and
    #: nearai/ironclaw #1510 (2026-03-21) quote it whole, with status INVALID_ARGUMENT;
    #: confirmed 2026-11-28
    UNSIGNED_CALL = ("Function call is missing a thought_signature in functionCall parts. This is "
                     "required for tools to work correctly, and missing thought_signature may "
                     "lead to degraded model performance. Additional data, function call "
                     "`default_api:{name}` , position {position}. Please refer to "
                     "https://ai.google.dev/gemini-api/docs/thought-signatures for more details.")

    def validate_route(self, path: str, body: Any) -> Rejection | None:
        """What the model named in ``path`` refuses beyond the body's rules: Gemini 3 and later
        refuse a function call of the current turn replayed without its thoughtSignature."""
        match = _MODEL.search(path)
        if match is None or not signs_strictly(match.group(1)) or not isinstance(body, Mapping):
            return None
        contents = _get(body, "contents")
        found = _unsigned_call(contents) if isinstance(contents, list) else None
        if found is None:
            return None
        index, name = found
        return _error(400, self.UNSIGNED_CALL.format(name=name, position=index + 1),
                      rule="messages.function_call.thought_signature")

    # -- validation ---------------------------------------------------------------------------
    def validate(self, body: Any) -> Rejection | None:
        if not isinstance(body, Mapping):
            return _error(400, "Invalid JSON payload received. Unexpected token.",
                          rule="body.json")
        found = _unknown(body, _TOP, None, "body.unknown_field")
        if found:
            return found
        contents = _get(body, "contents")
        if not contents:
            return _error(400, "* GenerateContentRequest.contents: contents is not specified\n",
                          rule="messages.missing")
        if not isinstance(contents, list):
            return _error(400, f"Invalid value at 'contents' (type.googleapis.com/google.ai."
                          f"generativelanguage.v1beta.Content), {_shown(contents)}",
                          rule="messages.type")
        tools = _get(body, "tools") or []
        found = _not_repeated(tools, "tools", "Tool")
        if found:
            return found
        for i, tool in enumerate(tools):
            found = _not_message(tool, f"tools[{i}]", "Tool") or self._validate_tool(i, tool)
            if found:
                return found
        config = _get(_get(body, "toolConfig") or {}, "functionCallingConfig")
        if isinstance(config, Mapping):
            mode = _get(config, "mode", "MODE_UNSPECIFIED")
            if mode not in _MODES:
                return _error(400, "Invalid value at 'tool_config.function_calling_config.mode' "
                              f"({_MODE_ENUM}), {_shown(mode)}", rule="tool_choice.mode")
        system = _get(body, "systemInstruction")
        if isinstance(system, Mapping):
            found = self._validate_parts(system.get("parts") or [], "system_instruction")
            if found:
                return found
        return self._validate_contents(contents)

    def _validate_tool(self, i: int, tool: Any) -> Rejection | None:
        declarations = _get(tool, "functionDeclarations") or []
        found = _not_repeated(declarations, f"tools[{i}].function_declarations",
                              "FunctionDeclaration")
        if found:
            return found
        for j, decl in enumerate(declarations):
            where = f"tools[{i}].function_declarations[{j}]"
            found = (_not_message(decl, where, "FunctionDeclaration")
                     or _unknown(decl, _DECLARATION, where, "tools.unknown_field"))
            if found:
                return found
            name = decl.get("name")
            if not isinstance(name, str) or not _NAME.match(name):
                return _error(400, f"* GenerateContentRequest.{where}.name: Invalid function "
                              "name. Must start with a letter or an underscore. Must be "
                              "alphameric (a-z, A-Z, 0-9), underscores (_), dots (.) or dashes "
                              "(-), with a maximum length of 64.\n", rule="tools.name.pattern")
            params = decl.get("parameters")
            if isinstance(params, Mapping):
                found = self._validate_schema(params, f"{where}.parameters")
                if found:
                    return found
        return None

    def _validate_schema(self, schema: Mapping[str, Any], where: str) -> Rejection | None:
        found = _unknown(schema, _SCHEMA, where, "tools.parameters.unknown_field")
        if found:
            return found
        children = [(f"{where}.properties[{k!r}].value", v)
                    for k, v in (schema.get("properties") or {}).items()]
        if isinstance(schema.get("items"), Mapping):
            children.append((f"{where}.items", schema["items"]))
        children += [(f"{where}.any_of[{n}]", s) for n, s in enumerate(schema.get("anyOf") or ())]
        for at, child in children:
            if isinstance(child, Mapping):
                found = self._validate_schema(child, at)
                if found:
                    return found
        return None

    def _validate_parts(self, parts: Any, where: str) -> Rejection | None:
        found = _not_repeated(parts, f"{where}.parts", "Part")
        if found:
            return found
        for j, part in enumerate(parts):
            at = f"{where}.parts[{j}]"
            found = _entry(part, at, "Part", _PART)
            if found:
                return found
            call = _get(part, "functionCall")
            if call is not None:
                found = _message(call, f"{at}.function_call", "FunctionCall", self.CALL_FIELDS,
                                 "args")
                if found:
                    return found
            response = _get(part, "functionResponse")
            if response is not None:
                found = _message(response, f"{at}.function_response", "FunctionResponse",
                                 self.RESPONSE_FIELDS, "response")
                if found:
                    return found
                if not response.get("name"):
                    return _error(400, f"* GenerateContentRequest.{at}.function_response.name: "
                                  "Name cannot be empty.\n",
                                  rule="messages.function_response.name")
        return None

    def _validate_contents(self, contents: list[Any]) -> Rejection | None:
        previous: Mapping[str, Any] | None = None
        for i, content in enumerate(contents):
            where = f"contents[{i}]"
            found = _entry(content, where, "Content", _CONTENT)
            if found:
                return found
            role = content.get("role", "user")
            if role not in ("user", "model"):
                return _error(400, "Please use a valid role: user, model.", rule="messages.role")
            parts = content.get("parts") or []
            if not parts:
                return _error(400, f"* GenerateContentRequest.{where}.parts: contents.parts must "
                              "not be empty.\n", rule="messages.parts.empty")
            found = self._validate_parts(parts, where)
            if found:
                return found
            calls = _count(content, "functionCall")
            responses = _count(content, "functionResponse")
            before = _count(previous, "functionCall") if previous else 0
            if calls and (previous is None or previous.get("role", "user") != "user"):
                return _error(400, "Please ensure that function call turn comes immediately after "
                              "a user turn or after a function response turn.",
                              rule="messages.function_call.position")
            if responses:
                if not before:
                    return _error(400, "Please ensure that function response turn comes "
                                  "immediately after a function call turn.",
                                  rule="messages.function_response.position")
                if responses != before:
                    return _error(400, "Please ensure that the number of function response parts "
                                  "is equal to the number of function call parts of the function "
                                  "call turn.", rule="messages.function_response.count")
            previous = content
        return None

    # -- decoding -----------------------------------------------------------------------------
    def decode_request(self, body: Mapping[str, Any]) -> ChatRequest:
        messages: list[Any] = []
        system = _get(body, "systemInstruction")
        if isinstance(system, Mapping):
            messages.append(SystemMessage(content=_text(system.get("parts") or [])))
        for content in _get(body, "contents") or ():
            parts = content.get("parts") or []
            if content.get("role", "user") == "model":
                # args as the JSON text of the object: the canonical call keeps what was sent
                calls = tuple(
                    ToolCall.from_raw(id=call.get("id"), name=call.get("name", ""),
                                      arguments=json.dumps(call.get("args", {}),
                                                           ensure_ascii=False))
                    for call in (_get(p, "functionCall") for p in parts) if call is not None)
                text = _text(parts)
                messages.append(AssistantMessage(content=text or None, tool_calls=calls,
                                                 reasoning=_signed(parts)))
                continue
            for part in parts:
                response = _get(part, "functionResponse")
                if response is not None:
                    messages.append(_tool_message(response))
            text = _text(parts)
            if text or not any(_get(p, "functionResponse") is not None for p in parts):
                messages.append(UserMessage(content=text))
        tools = tuple(
            ToolSpec(name=decl["name"], description=decl.get("description") or "",
                     parameters=_get(decl, "parametersJsonSchema")
                     or _from_openapi(decl.get("parameters"))
                     or {"type": "object", "properties": {}})
            for tool in _get(body, "tools") or ()
            for decl in _get(tool, "functionDeclarations") or ()
        )
        return ChatRequest(messages=tuple(messages), tools=tools,
                           tool_choice=_decode_choice(body), stream=False,
                           model=body.get("model"))

    # -- encoding -----------------------------------------------------------------------------
    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        # a mid-stream error is scripted with status 200: on the wire it is an INTERNAL error
        status = error.status if error.status >= 400 else 500
        return status, {"error": {"code": status, "message": error.message,
                                  "status": _STATUS.get(status, "UNKNOWN")}}

    @staticmethod
    def call_ids(turn: Turn) -> list[str | None]:  # type: ignore[override]
        """The scripted ids, sent as ``functionCall.id`` (newer models); ``None`` where the
        provider sends none: unscripted ids, or every call under the ``no_ids`` quirk (2.x)."""
        if "no_ids" in turn.stream.quirks:
            return [None] * len(turn.tool_calls)
        return [c.id for c in turn.tool_calls]

    @staticmethod
    def _thoughts(turn: Turn) -> list[dict[str, Any]]:
        """The turn's thought summaries, ``{"text": ..., "thought": true}`` parts before the
        answer and the calls (what Gemini sends with ``includeThoughts``; Thinking guide,
        ai.google.dev/gemini-api/docs/thinking, confirmed 2026-11-28)."""
        return [{"text": r.text, "thought": True} for r in turn.reasoning if r.text]

    @staticmethod
    def _text_parts(turn: Turn) -> list[dict[str, Any]]:
        """The answer's text: one part, or two under ``text_in_parts`` (Gemini splits an
        answer's text over several parts of one candidate: agno-agi/agno #3229 quotes three from
        its HTTP logs; google-genai's ``GenerateContentResponse.text`` joins them with nothing
        between, 3.6.1; confirmed 2026-11-28), cut after the space nearest the middle."""
        text = turn.text or ""
        if "text_in_parts" not in turn.stream.quirks:
            return [{"text": text}] if text else []
        return [{"text": piece} for piece in halves(text)]

    def _parts(self, turn: Turn) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = self._thoughts(turn)
        parts += self._text_parts(turn)
        # a scripted turn's reasoning carries the signature its first call is sent with
        scripted = next((r.signature for r in turn.reasoning if r.signature), None)
        for k, (cid, call) in enumerate(zip(self.call_ids(turn), turn.tool_calls)):
            function: dict[str, Any] = {"name": call.name, "args": _args(call)}
            if cid is not None:
                function["id"] = cid
            part: dict[str, Any] = {"functionCall": function}
            if k == 0 and "no_thought_signature" not in turn.stream.quirks:
                # 2.5 and 3.x sign the first call of a turn; 3.x wants it back on replay.
                # gemini-2.0-flash signs nothing (no_thought_signature): wire corpus, 8 of 8
                # first calls unsigned, 23 of 23 from 2.5 / 3.x signed, ids or not (2026-11-23)
                part["thoughtSignature"] = scripted or thought_signature(cid, call.name)
            parts.append(part)
        return parts

    def _envelope(self, parts: list[dict[str, Any]], turn: Turn, body: Mapping[str, Any],
                  finish: str | None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
        if finish is not None:
            candidate["finishReason"] = finish
        candidate["index"] = 0
        out: dict[str, Any] = {"candidates": [candidate]}
        if turn.usage is not None:
            out["usageMetadata"] = _usage(turn)
        out["modelVersion"] = body.get("model") or "gemini-2.5-flash"
        out["responseId"] = RESPONSE_ID
        return out

    def _blocked(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        """A blocked prompt (``prompt_blocked``): a 200 with no candidates, the block reason in
        ``promptFeedback`` and the prompt's usage only. "If set, the prompt was blocked and no
        candidates are returned" (ai.google.dev/api/generate-content, PromptFeedback.blockReason);
        google-genai 3.6.1 types.py, GenerateContentResponsePromptFeedback: "sent only in the
        first stream chunk and only if no candidates were generated"; vercel/ai #19758 quotes
        such a stream, recorded from streamGenerateContent: that one event, then the end, its
        usage the prompt and total token counts only (no candidates count). The reason as
        googleapis/python-genai #774 shows it (gemini-2.5-pro, 2025-05-07: block_reason OTHER,
        no safety ratings). Confirmed 2026-11-28."""
        out: dict[str, Any] = {"promptFeedback": {"blockReason": "OTHER"}}
        if turn.usage is not None:
            usage = _usage(turn)
            out["usageMetadata"] = {k: v for k, v in usage.items()
                                    if k != "candidatesTokenCount"}
        out["modelVersion"] = body.get("model") or "gemini-2.5-flash"
        out["responseId"] = RESPONSE_ID
        return out

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        if "prompt_blocked" in turn.stream.quirks:
            return self._blocked(turn, body)
        return self._envelope(self._parts(turn), turn, body, _FINISH[turn.expected_finish()])

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        plan = turn.stream
        if "prompt_blocked" in plan.quirks:
            return [_sse(self._blocked(turn, body))]  # the one chunk, then the stream ends
        size = plan.fragment_size
        text = turn.text or ""
        thoughts = self._thoughts(turn)
        chunks = [self._envelope([p], turn, body, None) for p in thoughts]
        if "text_in_parts" in plan.quirks:
            chunks += [self._envelope(self._text_parts(turn), turn, body, None)] if text else []
        else:
            chunks += [self._envelope([{"text": text[k:k + size]}], turn, body, None)
                       for k in range(0, len(text), size)]
        calls = self._parts(turn.model_copy(update={"text": None}))[len(thoughts):]
        if calls:
            groups = [[c] for c in calls] if "one_call_per_chunk" in plan.quirks else [calls]
            chunks += [self._envelope(g, turn, body, None) for g in groups]
        finish = _FINISH[turn.expected_finish()]
        if "finish_on_last_chunk" in plan.quirks and chunks:
            # gemini-2.0-flash: finishReason rides on the last call or text chunk, with no
            # empty chunk after it (wire corpus, test_google_model_iter_stream: 3 of the 7
            # recorded streams; confirmed 2026-11-23)
            # the recorded candidates of that shape have no index: {content, finishReason}
            chunks[-1]["candidates"][0] = {"content": chunks[-1]["candidates"][0]["content"],
                                           "finishReason": finish}
        else:
            # as 2.5 and 3.x end a stream (4 of 7): an empty text part carrying the finish
            chunks.append(self._envelope([{"text": ""}], turn, body, finish))
        events = [_sse(c) for c in chunks]
        # there is no end marker but the finish reason: errors and cuts land before it
        if plan.error_after is not None:
            _, err = self.encode_error(plan.error)
            events = events[: min(plan.error_after, len(events) - 1)] + [_sse(err)]
        elif plan.truncate_after is not None:
            events = events[: min(plan.truncate_after, len(events) - 1)]
        return events


def _count(content: Mapping[str, Any] | None, kind: str) -> int:
    if not isinstance(content, Mapping):
        return 0
    return sum(1 for p in content.get("parts") or () if isinstance(p, Mapping)
               and _get(p, kind) is not None)


def _entry(value: Any, at: str, message: str, fields: Any) -> Rejection | None:
    """An entry of a repeated field at ``at`` must be a proto ``message`` object (the
    v1beta type named in the error) with no field but ``fields``."""
    if not isinstance(value, Mapping):
        return _error(400, f"Invalid value at '{at}' (type.googleapis.com/google.ai."
                      f"generativelanguage.v1beta.{message}), {_shown(value)}",
                      rule="messages.type")
    return _unknown(value, fields, at, "messages.unknown_field")


def _message(value: Any, at: str, proto: str, fields: Any, struct: str) -> Rejection | None:
    """A ``proto`` object at ``at`` (a FunctionCall, a FunctionResponse): an object, with no
    field but ``fields``, its ``struct`` field a Struct."""
    return (_not_message(value, at, proto)
            or _unknown(value, fields, at, "messages.unknown_field")
            or _struct(value.get(struct, {}), f"{at}.{struct}"))


def _not_message(value: Any, where: str, proto: str) -> Rejection | None:
    """Google's proto JSON parser on a value that is not an object where a message belongs.

    An array: 'Invalid JSON payload received. Unknown name "<key>" at '<parent>': Proto field is
    not repeating, cannot start list.' (quoted in zed-industries/zed #44875 and #53919,
    2026; confirmed 2026-11-25); anything else: 'Invalid value at '<field>' (<message type>),
    <value as JSON>', the form of the fake's other such errors. Without this a string or a
    number here crashed the fake instead of answering 400.
    """
    if isinstance(value, Mapping):
        return None
    if isinstance(value, list) and not where.endswith("]"):  # a field, not a list's element
        parent, _, field = where.rpartition(".")
        at = f" at '{parent}'" if parent else ""
        name = _camel(field)
        return _error(400, f'Invalid JSON payload received. Unknown name "{name}"{at}: Proto '
                      "field is not repeating, cannot start list.", rule="messages.type")
    return _error(400, f"Invalid value at '{where}' (type.googleapis.com/google.ai."
                  f"generativelanguage.v1beta.{proto}), {_shown(value)}", rule="messages.type")


def _not_repeated(value: Any, where: str, proto: str) -> Rejection | None:
    """A scalar where a list belongs (an object is left to the caller: the proto JSON parser
    may take one object for a repeated field)."""
    if isinstance(value, (list, Mapping)):
        return None
    return _error(400, f"Invalid value at '{where}' (type.googleapis.com/google.ai."
                  f"generativelanguage.v1beta.{proto}), {_shown(value)}", rule="messages.type")


def _struct(value: Any, where: str) -> Rejection | None:
    if isinstance(value, Mapping):
        return None
    return _error(400, f"Invalid value at '{where}' ({_STRUCT}), {_shown(value)}",
                  rule="messages.struct")


def _signed(parts: Any) -> tuple[Reasoning, ...]:
    """The signature a replayed model turn carries on its first functionCall part, as the
    canonical model holds it: one signed thinking entry with no text (thought summaries need
    not go back; Thought signatures, confirmed 2026-11-28)."""
    calls = [p for p in parts if isinstance(p, Mapping) and _get(p, "functionCall") is not None]
    signature = _signature(calls[0]) if calls else None
    return (Reasoning(type="thinking", signature=signature),) if signature else ()


def _text(parts: Any) -> str:
    return "".join(p["text"] for p in parts if isinstance(p, Mapping)
                   and isinstance(p.get("text"), str) and not p.get("thought"))


#: ``functionResponse.response`` is "any JSON object" (Gemini API reference, FunctionResponse,
#: confirmed 2026-11-22): Google's function-calling guide wraps results as ``{"result": ...}``,
#: google-genai's docs as ``{"output": ...}`` / ``{"error": ...}``, and pydantic-ai's recorded
#: Gemini traffic (wire corpus, test_google__test_thinking_with_tool_calls_from_other_model, all
#: answered 200) as ``{"return_value": ...}``. The fake reads the result of a one-key wrapper
#: whatever the key, and a result object sent as is (several keys) as that object's JSON.
#: ``{"error": ...}`` alone marks a failed call (the SDK docs' convention). A one-key object whose
#: value is not text and whose key is no known wrapper (``{"temp": 18}``) is the result itself.
_WRAPPERS = frozenset({"output", "result", "return_value", "content"})


def _tool_message(response: Mapping[str, Any]) -> ToolMessage:
    payload = response.get("response") or {}
    if not isinstance(payload, Mapping):
        payload = {"output": payload}
    is_error = "error" in payload and "output" not in payload
    if is_error:
        value = payload["error"]
    elif "output" in payload:
        value = payload["output"]
    elif len(payload) == 1 and (next(iter(payload)) in _WRAPPERS
                                or isinstance(next(iter(payload.values())), str)):
        value = next(iter(payload.values()))
    else:
        value = payload
    content = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return ToolMessage(tool_call_id=response.get("id"), name=response.get("name"),
                       content=content, is_error=is_error)


#: ``parameters`` is Gemini's OpenAPI subset (``Schema``), whose ``type`` is the ``Type`` enum:
#: ``STRING``, ``NUMBER``, ``INTEGER``, ``BOOLEAN``, ``ARRAY``, ``OBJECT``, ``NULL`` (Gemini API
#: reference, Schema and Type, confirmed 2026-11-22; google-genai's ``types.Type`` sends these
#: upper-case names, langchain-google-genai too). The API accepts either case; the canonical
#: request is JSON Schema, so the decoder lower-cases the enum names and keeps all else.
_OPENAPI_TYPES = frozenset({"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"})


def _from_openapi(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_from_openapi(s) for s in schema]
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str) and value in _OPENAPI_TYPES:
            out[key] = value.lower()
        elif key == "properties" and isinstance(value, Mapping):
            out[key] = {name: _from_openapi(sub) for name, sub in value.items()}
        elif key in ("items", "anyOf", "oneOf", "allOf", "not", "additionalProperties",
                     "$defs", "definitions"):
            out[key] = ({n: _from_openapi(v) for n, v in value.items()}
                        if key in ("$defs", "definitions") and isinstance(value, Mapping)
                        else _from_openapi(value))
        else:
            out[key] = value
    return out


def _decode_choice(body: Mapping[str, Any]) -> Any:
    config = _get(_get(body, "toolConfig") or {}, "functionCallingConfig")
    if not isinstance(config, Mapping):
        return None
    mode = _get(config, "mode", "MODE_UNSPECIFIED")
    names = _get(config, "allowedFunctionNames") or []
    if mode == "ANY":
        return NamedToolChoice(name=names[0]) if len(names) == 1 else "required"
    return {"NONE": "none", "AUTO": "auto", "VALIDATED": "auto"}.get(mode)


def _args(call: ScriptedCall) -> dict[str, Any]:
    raw = call.arguments
    if isinstance(raw, dict):
        return raw
    if raw is None or raw.strip() == "":
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise KitError(f"the gemini dialect sends arguments as an object; the scripted call "
                       f"{call.name} has {raw!r}, which is not a JSON object (cases about "
                       "malformed argument text apply to TEXT_ARGUMENTS dialects only)")
    return value


def _usage(turn: Turn) -> dict[str, Any]:
    u = turn.usage
    assert u is not None
    prompt = u.input_tokens or 0
    return {"promptTokenCount": prompt, "candidatesTokenCount": u.output_tokens or 0,
            "totalTokenCount": u.total_tokens or 0,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}]}


def _sse(data: Mapping[str, Any]) -> bytes:
    # real Gemini ends every event with CRLF CRLF (wire corpus)
    return (b"data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
            + b"\r\n\r\n")


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = Gemini

"""Anthropic Messages, ``POST /v1/messages``: decode, validate, encode.

Facts follow WIRE.md §3, the errors Anthropic sends (quoted in public issue reports: the
``tool_use``/``tool_result`` pairing texts, the name pattern) and the real traffic of the wire
corpus (``pydantic-ai/anthropic``), whose accepted requests the kit's tests replay through
:meth:`AnthropicMessages.validate`. Anthropic validates with pydantic, hence "Field required" and
dotted locations (``tools.0.custom.name``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pytest_toolcall.cases import ErrorReply, Turn
from pytest_toolcall.core.errors import UsageError
from pytest_toolcall.core.model import (AssistantMessage, ChatRequest, NamedToolChoice, Reasoning,
                                        SystemMessage, ToolCall, ToolMessage, ToolSpec, UserMessage)
from pytest_toolcall.providers.base import Rejection, halves
from pytest_toolcall.providers.anthropic import errors as _errors

__all__ = ["AnthropicMessages", "DIALECT", "thinking_signature"]

_SIGNED = "toolcall-fake-thinking:"


def thinking_signature(text: str, position: int) -> str:
    """The signature the fake puts on a thinking block at ``position`` in its turn's content:
    bound to the text and the place, as Anthropic's are (anthropic-sdk-python #1598, a
    maintainer, 2026-08-05: any edit, re-serialisation, reordering or merging fails the check)."""
    import base64
    import hashlib

    digest = hashlib.sha256(f"{position}\0{text}".encode()).hexdigest()[:24]
    return base64.b64encode(f"{_SIGNED}{position}:{digest}".encode()).decode()


def _fake_signed(signature: Any) -> bool:
    import base64
    import binascii

    if not isinstance(signature, str):
        return False
    try:
        return base64.b64decode(signature, validate=True).startswith(_SIGNED.encode())
    except (binascii.Error, ValueError):
        return False


#: Anthropic's words when the assistant turn of the current tool round does not start with its
#: thinking (quoted in haystack-core-integrations #2146, opencode #3077, kilocode #5219, with
#: docs.claude.com in the link since late 2025; confirmed 2026-11-23)
THINKING_FIRST = ("messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but "
                  "found `{found}`. When `thinking` is enabled, a final `assistant` message must "
                  "start with a thinking block (preceeding the lastmost set of `tool_use` and "
                  "`tool_result` blocks). We recommend you include thinking blocks from previous "
                  "turns. To avoid this requirement, disable `thinking`. Please consult our "
                  "documentation at https://docs.claude.com/en/docs/build-with-claude/"
                  "extended-thinking")

#: the pattern in Anthropic's 400 since mid-2025 (it said {1,64} before; WIRE.md §3 quotes that)
NAME_PATTERN = "^[a-zA-Z0-9_-]{1,128}$"
_NAME = re.compile(NAME_PATTERN)
ID_PATTERN = "^[a-zA-Z0-9_-]+$"
_ID = re.compile(ID_PATTERN)
#: canonical finish reason -> stop_reason
_STOP = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens",
         "content_filter": "refusal", "error": "end_turn", "other": "pause_turn"}
#: ErrorReply.type (OpenAI words in shared cases) -> Anthropic's error type
_ERROR_TYPES = {"server_error": "api_error", "invalid_request_error": "invalid_request_error"}
#: Anthropic's error type for each HTTP status: docs.claude.com/en/api/errors (400, 401, 403,
#: 404, 413 request_too_large, 429, 500, 529; "invalid_request_error ... for other 4XX status
#: codes not listed"), confirmed 2026-11-23; 402 billing_error, 409 conflict_error and 504
#: timeout_error from anthropic 2.14.0 (types/shared/error_type.py ErrorType,
#: billing_error_object.py, gateway_timeout_error_object.py), confirmed 2026-11-25. Other
#: statuses: 4xx invalid_request_error, 5xx api_error (the docs' 500 type).
_TYPE_BY_STATUS = {400: "invalid_request_error", 401: "authentication_error",
                   402: "billing_error", 403: "permission_error", 404: "not_found_error",
                   409: "conflict_error", 413: "request_too_large", 429: "rate_limit_error",
                   500: "api_error", 504: "timeout_error", 529: "overloaded_error"}
_OPENAI_WORDS = frozenset({"invalid_request_error", "server_error", "requests"})
CHOICE_TAGS = ("auto", "any", "tool", "none")


def _error(status: int, message: str, *, rule: str,
           type: str = "invalid_request_error") -> Rejection:
    return Rejection(status=status, body={"type": "error",
                                          "error": {"type": type, "message": message}},
                     rule=rule)


def _text(content: Any) -> str:
    """Text of a content that is a string or a list of blocks (non-text blocks by their type)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(b.get("text", "")) if b.get("type") == "text" else f"[{b.get('type', 'block')}]"
            for b in content if isinstance(b, Mapping))
    return str(content)


def _is_custom_tool(tool: Mapping[str, Any]) -> bool:
    # server tools (web_search_20250305, code_execution_..., memory_...) carry a versioned type
    return tool.get("type") in (None, "custom")


class AnthropicMessages:
    """The ``anthropic`` dialect: the Messages API."""

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    name = "anthropic"
    title = "Anthropic Messages"
    base_path = "/v1"
    stream_content_type = "text/event-stream; charset=utf-8"

    def __init__(self) -> None:
        #: tool_use ids of the turns this fake answered with thinking: only those turns must
        #: come back with it (an adapter cannot replay thinking it never received)
        self.thinking_before: set[str] = set()

    # -- routing and auth -------------------------------------------------------------------
    def route(self, method: str, path: str) -> bool:
        return method == "POST" and path.rstrip("/").endswith("/v1/messages")

    def not_found(self, method: str, path: str) -> Rejection:
        return _error(404, "Not Found", type="not_found_error", rule="route")

    def check_auth(self, headers: Mapping[str, str], query: Mapping[str, str],
                   key: str) -> Rejection | None:
        # x-api-key is the documented header; the official SDK (2.x) sends the key as a bearer
        # token in authorization instead, and the API takes both
        given = headers.get("x-api-key")
        if not given and headers.get("authorization", "").startswith("Bearer "):
            given = headers["authorization"].removeprefix("Bearer ")
        if not given:
            return _error(401, "x-api-key header is required", type="authentication_error",
                          rule="auth.missing")
        if given != key:
            return _error(401, "invalid x-api-key", type="authentication_error",
                          rule="auth.invalid")
        if not headers.get("anthropic-version"):
            return _error(400, "anthropic-version: header is required", rule="auth.version")
        return None

    def wants_stream(self, body: Mapping[str, Any], path: str) -> bool:
        return body.get("stream") is True

    # -- validation ---------------------------------------------------------------------------
    def validate(self, body: Any) -> Rejection | None:
        if not isinstance(body, Mapping):
            return _error(400, "There was an issue with the JSON body of your request: it is "
                          "not a JSON object.", rule="body.json")
        for field in ("model", "messages", "max_tokens"):
            if field not in body:
                return _error(400, f"{field}: Field required", rule=f"{field}.missing")
        messages = body["messages"]
        if not isinstance(messages, list):
            return _error(400, "messages: Input should be a valid list", rule="type")
        if not messages:
            return _error(400, "messages: at least one message is required",
                          rule="messages.empty")
        tools = body.get("tools")
        if tools is not None:
            if not isinstance(tools, list):
                return _error(400, "tools: Input should be a valid list", rule="type")
            seen: set[str] = set()
            for i, tool in enumerate(tools):
                found = self._validate_tool(i, tool)
                if found:
                    return found
                if tool["name"] in seen:
                    return _error(400, "tools: Tool names must be unique.", rule="tools.unique")
                seen.add(tool["name"])
        choice = body.get("tool_choice")
        if choice is not None:
            if not tools:
                return _error(400, "tool_choice may only be specified while providing tools.",
                              rule="tool_choice.without_tools")
            found = self._validate_tool_choice(choice)
            if found:
                return found
        return self._validate_messages(messages, body)

    def _validate_tool(self, i: int, tool: Any) -> Rejection | None:
        if not isinstance(tool, Mapping):
            return _error(400, f"tools.{i}: Input should be a valid dictionary", rule="type")
        where = f"tools.{i}.custom" if _is_custom_tool(tool) else f"tools.{i}"
        name = tool.get("name")
        if not isinstance(name, str):
            return _error(400, f"{where}.name: Field required", rule="tools.name.missing")
        if not _is_custom_tool(tool):
            return None
        if not _NAME.match(name):
            return _error(400, f"{where}.name: String should match pattern '{NAME_PATTERN}'",
                          rule="tools.name.pattern")
        schema = tool.get("input_schema")
        if schema is None:
            return _error(400, f"{where}.input_schema: Field required",
                          rule="tools.input_schema.missing")
        if not isinstance(schema, Mapping):
            return _error(400, f"{where}.input_schema: Input should be a valid dictionary",
                          rule="type")
        if "type" not in schema:
            return _error(400, f"{where}.input_schema.type: Field required",
                          rule="tools.input_schema.type")
        if schema["type"] != "object":
            return _error(400, f"{where}.input_schema.type: Input should be 'object'",
                          rule="tools.input_schema.type")
        from pytest_toolcall.core._schema import schema_problem

        if schema_problem(schema) is not None:
            return _error(400, f"{where}.input_schema: JSON schema is invalid. It must match "
                          "JSON Schema draft 2020-12 (https://json-schema.org/draft/2020-12). "
                          "Learn more about tool use at "
                          "https://docs.anthropic.com/en/docs/tool-use.",
                          rule="tools.input_schema.schema")
        return None

    @staticmethod
    def _validate_tool_choice(choice: Any) -> Rejection | None:
        if not isinstance(choice, Mapping):
            return _error(400, "tool_choice: Input should be a valid dictionary or object to "
                          "extract fields from", rule="tool_choice.type")
        tag = choice.get("type")
        if tag not in CHOICE_TAGS:
            if tag is None:
                return _error(400, "tool_choice: Unable to extract tag using discriminator "
                              "'type'", rule="tool_choice.type")
            return _error(400, f"tool_choice: Input tag '{tag}' found using 'type' does not "
                          "match any of the expected tags: 'auto', 'any', 'tool', 'none'",
                          rule="tool_choice.type")
        if tag == "tool" and not isinstance(choice.get("name"), str):
            return _error(400, "tool_choice.tool.name: Field required",
                          rule="tool_choice.name.missing")
        if tag == "none" and "disable_parallel_tool_use" in choice:
            return _error(400, "tool_choice.none.disable_parallel_tool_use: Extra inputs are "
                          "not permitted", rule="tool_choice.none.extra")
        allowed = {"type", "disable_parallel_tool_use"} | ({"name"} if tag == "tool" else set())
        extra = sorted(set(choice) - allowed)
        if extra:
            return _error(400, f"tool_choice.{tag}.{extra[0]}: Extra inputs are not permitted",
                          rule="tool_choice.extra")
        flag = choice.get("disable_parallel_tool_use")
        if flag is not None and not isinstance(flag, bool):
            return _error(400, f"tool_choice.{tag}.disable_parallel_tool_use: Input should be "
                          "a valid boolean", rule="type")
        return None

    def _validate_messages(self, messages: list[Any],
                           body: Mapping[str, Any] | None = None) -> Rejection | None:
        # shape of every message and block first, then tool_use / tool_result pairing
        for i, msg in enumerate(messages):
            if not isinstance(msg, Mapping):
                return _error(400, f"messages.{i}: Input should be a valid dictionary",
                              rule="type")
            if msg.get("role") == "system":
                found = _validate_system_message(i, messages, (body or {}).get("model"))
                if found:
                    return found
                continue
            if msg.get("role") not in ("user", "assistant"):
                return _error(400, f"messages.{i}.role: Input should be 'user' or 'assistant'",
                              rule="messages.role")
            if "content" not in msg:
                return _error(400, f"messages.{i}.content: Field required",
                              rule="messages.content.missing")
            content = msg["content"]
            if not isinstance(content, (str, list)):
                return _error(400, f"messages.{i}.content: Input should be a valid list",
                              rule="type")
            final_assistant = i == len(messages) - 1 and msg["role"] == "assistant"
            if not content and not final_assistant:
                return _error(400, f"messages.{i}: all messages must have non-empty content "
                              "except for the optional final assistant message",
                              rule="messages.content.empty")
            if isinstance(content, list):
                for j, block in enumerate(content):
                    found = self._validate_block(i, j, block, msg["role"])
                    if found:
                        return found
        return self._validate_pairing(messages) or self._validate_thinking(body or {}, messages)

    def _validate_thinking(self, body: Mapping[str, Any], messages: list[Any]) -> Rejection | None:
        """With ``thinking`` on: the assistant turn whose tool_use the last message answers
        starts with its thinking, and thinking blocks the fake signed come back unchanged, in
        their place (anthropic-sdk-python #1598; the texts: THINKING_FIRST and claude-code
        #10627 ``messages.1.content.0: Invalid `signature` in `thinking` block``)."""
        thinking = body.get("thinking")
        if not (isinstance(thinking, Mapping) and thinking.get("type") in ("enabled",
                                                                           "adaptive")):
            return None
        if len(messages) >= 2:
            last, previous = messages[-1], messages[-2]
            results = (last.get("role") == "user" and isinstance(last.get("content"), list)
                       and any(isinstance(b, Mapping) and b.get("type") == "tool_result"
                               for b in last["content"]))
            content = previous.get("content")
            ours = isinstance(content, list) and any(
                isinstance(b, Mapping) and b.get("id") in self.thinking_before for b in content)
            if results and previous.get("role") == "assistant" and ours:
                first = content[0].get("type") if isinstance(content[0], Mapping) else None
                if first not in ("thinking", "redacted_thinking"):
                    return _error(400, THINKING_FIRST.format(i=len(messages) - 2, found=first),
                                  rule="messages.thinking.missing")
        for i, msg in enumerate(messages):
            if msg.get("role") != "assistant" or not isinstance(msg.get("content"), list):
                continue
            for j, block in enumerate(msg["content"]):
                if not isinstance(block, Mapping) or block.get("type") != "thinking":
                    continue
                signature = block.get("signature")
                if _fake_signed(signature) and signature != thinking_signature(
                        str(block.get("thinking", "")), j):
                    return _error(400, f"messages.{i}.content.{j}: Invalid `signature` in "
                                  "`thinking` block", rule="messages.thinking.signature")
        return None

    @staticmethod
    def _validate_block(i: int, j: int, block: Any, role: str) -> Rejection | None:
        where = f"messages.{i}.content.{j}"
        if not isinstance(block, Mapping) or "type" not in block:
            return _error(400, f"{where}: Input should be a valid dictionary", rule="type")
        kind = block["type"]
        if kind == "text":
            if not isinstance(block.get("text"), str):
                return _error(400, f"{where}.text.text: Field required", rule="type")
            if not block["text"]:
                return _error(400, "messages: text content blocks must be non-empty",
                              rule="messages.text.empty")
        elif kind == "tool_use":
            for field in ("id", "name", "input"):
                if field not in block:
                    return _error(400, f"{where}.tool_use.{field}: Field required",
                                  rule=f"messages.tool_use.{field}")
            if not isinstance(block["id"], str) or not _ID.match(block["id"]):
                return _error(400, f"{where}.tool_use.id: String should match pattern "
                              f"'{ID_PATTERN}'", rule="messages.tool_use.id_pattern")
            if not isinstance(block["input"], Mapping):
                return _error(400, f"{where}.tool_use.input: Input should be a valid "
                              "dictionary", rule="type")
        elif kind == "tool_result":
            if "tool_use_id" not in block:
                return _error(400, f"{where}.tool_result.tool_use_id: Field required",
                              rule="messages.tool_result.tool_use_id")
            if not isinstance(block["tool_use_id"], str):  # a list or an object crashed the fake
                return _error(400, f"{where}.tool_result.tool_use_id: Input should be a valid "
                              "string", rule="type")
            content = block.get("content")
            if content is not None and not isinstance(content, (str, list)):
                return _error(400, f"{where}.tool_result.content: Input should be a valid list",
                              rule="type")
            if "is_error" in block and not isinstance(block["is_error"], bool):
                return _error(400, f"{where}.tool_result.is_error: Input should be a valid "
                              "boolean", rule="type")
        return None

    @staticmethod
    def _validate_pairing(messages: list[Any]) -> Rejection | None:
        # Consecutive messages of one role are merged by the API before it pairs blocks (the
        # docs warn that results split over several user messages make the model stop calling
        # in parallel: accepted, but bad). Pairing is checked on the merged turns.
        turns: list[tuple[str, list[tuple[int, int, Mapping[str, Any]]]]] = []
        for i, msg in enumerate(messages):
            blocks = msg["content"] if isinstance(msg["content"], list) else [
                {"type": "text", "text": msg["content"]}]
            located = [(i, j, b) for j, b in enumerate(blocks)]
            if turns and turns[-1][0] == msg["role"]:
                turns[-1][1].extend(located)
            else:
                turns.append((msg["role"], located))
        for t, (role, blocks) in enumerate(turns):
            if role == "assistant":
                uses = [(i, j, b["id"]) for i, j, b in blocks if b.get("type") == "tool_use"]
                # unique within a turn only: the corpus has an id reused by a later turn, accepted
                seen_ids: set[str] = set()
                for i, j, use_id in uses:
                    if use_id in seen_ids:
                        return _error(400, f"messages.{i}.content.{j}: `tool_use` ids must be "
                                      "unique", rule="messages.tool_use.unique")
                    seen_ids.add(use_id)
                if not uses:
                    continue
                answered: set[str] = set()
                if t + 1 < len(turns) and turns[t + 1][0] == "user":
                    for _, _, b in turns[t + 1][1]:
                        if b.get("type") != "tool_result":
                            break  # only results at the very beginning count
                        answered.add(b.get("tool_use_id"))
                missing = [u for _, _, u in uses if u not in answered]
                if missing:
                    at = uses[-1][0]
                    return _error(400, f"messages.{at}: `tool_use` ids were found without "
                                  f"`tool_result` blocks immediately after: {', '.join(missing)}."
                                  " Each `tool_use` block must have a corresponding "
                                  "`tool_result` block in the next message.",
                                  rule="messages.tool_use.unanswered")
            elif role == "user":
                previous = turns[t - 1] if t > 0 else None
                ids = ({b.get("id") for _, _, b in previous[1] if b.get("type") == "tool_use"}
                       if previous and previous[0] == "assistant" else set())
                for i, j, b in blocks:
                    if b.get("type") == "tool_result" and b.get("tool_use_id") not in ids:
                        return _error(400, f"messages.{i}.content.{j}: unexpected `tool_use_id` "
                                      f"found in `tool_result` blocks: {b.get('tool_use_id')}. "
                                      "Each `tool_result` block must have a corresponding "
                                      "`tool_use` block in the previous message.",
                                      rule="messages.tool_result.unexpected")
        return None

    # -- decoding -----------------------------------------------------------------------------
    def decode_request(self, body: Mapping[str, Any]) -> ChatRequest:
        messages: list[Any] = []
        system = body.get("system")
        if system:
            messages.append(SystemMessage(content=_text(system)))
        for msg in body.get("messages", []):
            role, content = msg.get("role"), msg.get("content")
            blocks = content if isinstance(content, list) else [{"type": "text",
                                                                 "text": content or ""}]
            if role == "system":
                messages.append(SystemMessage(content=_text(content)))
            elif role == "assistant":
                calls = tuple(self._decode_call(b) for b in blocks if b.get("type") == "tool_use")
                text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
                reasoning = tuple(
                    Reasoning(type="thinking", text=b.get("thinking"), signature=b.get("signature"))
                    if b.get("type") == "thinking" else
                    Reasoning(type="redacted_thinking", signature=b.get("data"))
                    for b in blocks if b.get("type") in ("thinking", "redacted_thinking"))
                messages.append(AssistantMessage(content=text or None, tool_calls=calls,
                                                 reasoning=reasoning))
            else:
                rest = []
                for b in blocks:
                    if b.get("type") == "tool_result":
                        messages.append(ToolMessage(tool_call_id=b.get("tool_use_id"),
                                                    content=_text(b.get("content")),
                                                    is_error=bool(b.get("is_error", False))))
                    else:
                        rest.append(b)
                if rest:
                    messages.append(UserMessage(content=_text(rest)))
        tools = tuple(
            ToolSpec(name=t["name"], description=t.get("description") or "",
                     parameters=t.get("input_schema") or {"type": "object", "properties": {}},
                     strict=t.get("strict"))
            for t in body.get("tools") or () if _is_custom_tool(t)
        )
        choice = body.get("tool_choice")
        tool_choice: Any = None
        parallel: bool | None = None
        if isinstance(choice, Mapping):
            tag = choice.get("type")
            tool_choice = ({"auto": "auto", "any": "required", "none": "none"}.get(tag)
                           or NamedToolChoice(name=choice.get("name", "")))
            if "disable_parallel_tool_use" in choice:
                parallel = not choice["disable_parallel_tool_use"]
        return ChatRequest(messages=tuple(messages), tools=tools, tool_choice=tool_choice,
                           parallel_tool_calls=parallel, stream=bool(body.get("stream")),
                           model=body.get("model"))

    @staticmethod
    def _decode_call(block: Mapping[str, Any]) -> ToolCall:
        raw = block.get("input")
        # the wire holds an object; as text (never escaped) so that replay checks read it
        text = json.dumps(raw, ensure_ascii=False) if isinstance(raw, Mapping) else raw
        return ToolCall.from_raw(id=block.get("id"), name=block.get("name", ""), arguments=text)

    # -- encoding -----------------------------------------------------------------------------
    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        kind = _ERROR_TYPES.get(error.type, error.type)
        if error.type in _OPENAI_WORDS:
            # an error scripted in OpenAI's words (ErrorReply's default follows the status in
            # them: cases.error_type_for) takes Anthropic's type for its status
            kind = _TYPE_BY_STATUS.get(error.status, kind)
        return error.status, {"type": "error", "error": {"type": kind, "message": error.message}}

    @staticmethod
    def call_ids(turn: Turn) -> list[str]:
        return [c.id or f"toolu_{i + 1:03d}" for i, c in enumerate(turn.tool_calls)]

    @staticmethod
    def _input(call: Any) -> dict[str, Any]:
        """The ``input`` object of a non-streamed tool_use: "" and null mean no arguments."""
        if isinstance(call.arguments, dict):
            return dict(call.arguments)
        text = call.arguments or ""
        try:
            value = json.loads(text) if text.strip() else {}
        except ValueError:
            value = None
        if not isinstance(value, dict):
            # a JSON object is all this wire can carry outside a stream
            raise UsageError(f"the anthropic dialect cannot send the arguments {text!r} of "
                             f"{call.name!r} in a JSON response (input is an object there); "
                             "script them in a stream step, or as a JSON object")
        return value

    def reasoning_blocks(self, turn: Turn) -> list[dict[str, Any]]:
        """The turn's thinking / redacted_thinking blocks, first in its content (a scripted
        signature is sent as it is, else :func:`thinking_signature` signs the block)."""
        blocks: list[dict[str, Any]] = []
        if any(r.type in ("thinking", "redacted_thinking") for r in turn.reasoning):
            self.thinking_before.update(self.call_ids(turn))
        for position, r in enumerate(turn.reasoning):
            if r.type == "redacted_thinking":
                blocks.append({"type": "redacted_thinking", "data": r.signature or ""})
            elif r.type == "thinking":
                text = r.text or ""
                blocks.append({"type": "thinking", "thinking": text,
                               "signature": r.signature or thinking_signature(text, position)})
        return blocks

    @staticmethod
    def text_blocks(turn: Turn) -> list[str]:
        """The answer's text blocks: one, or two under ``text_in_blocks`` (Anthropic splits
        an answer's text into several text blocks, around citations: WordPress/php-ai-client
        #277 quotes a live answer in 7 text blocks; the anthropic SDK's helpers join them with
        nothing between; confirmed 2026-11-28)."""
        text = turn.text or ""
        if "text_in_blocks" not in turn.stream.quirks:
            return [text] if text else []
        return halves(text)

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        content: list[dict[str, Any]] = self.reasoning_blocks(turn)
        content += [{"type": "text", "text": t} for t in self.text_blocks(turn)]
        for cid, call in zip(self.call_ids(turn), turn.tool_calls):
            content.append({"type": "tool_use", "id": cid, "name": call.name,
                            "input": self._input(call), "caller": dict(_CALLER)})
        # stop_details (null; Anthropic's RefusalStopDetails when not): in 101 of the 149
        # recorded JSON answers (claude-sonnet-4-5 to -sonnet-5; the others, recorded
        # earlier, omit it; wire corpus, pydantic-ai/anthropic, e.g.
        # test_anthropic__test_anthropic_tool_output.yaml; counted 2026-11-25); anthropic
        # 2.14.0 types it (Message.stop_details). Streams keep the earlier shape without it
        # (4 of the 9 recorded; the other 5 put it on message_start and on message_delta's
        # delta, e.g. test_tool_search__test_anthropic_native_tool_search_streaming.yaml):
        # tests/test_dialect_anthropic.py pins the delta without it.
        return {
            "id": "msg_toolcall", "type": "message", "role": "assistant",
            "model": body.get("model") or "toolcall-fake", "content": content,
            "stop_reason": _STOP[turn.expected_finish()], "stop_sequence": None,
            "stop_details": None, "usage": _usage(turn),
        }

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        plan = turn.stream
        size = plan.fragment_size
        start_usage = dict(_usage(turn), output_tokens=1)
        events: list[tuple[str, dict[str, Any]]] = [("message_start", {
            "type": "message_start",
            "message": {"id": "msg_toolcall", "type": "message", "role": "assistant",
                        "model": body.get("model") or "toolcall-fake", "content": [],
                        "stop_reason": None, "stop_sequence": None, "usage": start_usage}})]
        index = 0
        for block in self.reasoning_blocks(turn):
            # as recorded (wire corpus, 5 streamed thinking blocks): a thinking block opens
            # empty, its text comes in thinking_delta, its signature in one signature_delta; a
            # redacted block comes whole
            start = block if block["type"] == "redacted_thinking" else {
                "type": "thinking", "thinking": "", "signature": ""}
            events.append(_block_start(index, start))
            if index == 0:
                events.append(("ping", {"type": "ping"}))  # after the first block start
            if block["type"] == "thinking":
                text = block["thinking"]
                events += [_delta(index, {"type": "thinking_delta", "thinking": text[k:k + size]})
                           for k in range(0, len(text), size)]
                events.append(_delta(index, {"type": "signature_delta",
                                             "signature": block["signature"]}))
            events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
            index += 1
        for text in self.text_blocks(turn):
            events.append(_block_start(index, {"type": "text", "text": ""}))
            if index == 0:
                events.append(("ping", {"type": "ping"}))  # real streams ping after the first start
            events += [_delta(index, {"type": "text_delta", "text": text[k:k + size]})
                       for k in range(0, len(text), size)]
            events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
            index += 1
        for cid, call in zip(self.call_ids(turn), turn.tool_calls):
            events.append(_block_start(index, {"type": "tool_use", "id": cid, "name": call.name,
                                               "input": {}, "caller": dict(_CALLER)}))
            if index == 0:
                events.append(("ping", {"type": "ping"}))
            text = call.arguments_text()
            # "" sends one empty delta (the first delta is often ""); null sends none at all
            pieces = [] if text is None else [""] + [text[k:k + size]
                                                     for k in range(0, len(text), size)]
            events += [_delta(index, {"type": "input_json_delta", "partial_json": p})
                       for p in pieces]
            events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
            index += 1
        delta_usage = _usage(turn, "delta")
        if "delta_usage_output_only" in plan.quirks:
            delta_usage = {"output_tokens": delta_usage["output_tokens"]}
        events.append(("message_delta", {
            "type": "message_delta",
            "delta": {"stop_reason": _STOP[turn.expected_finish()], "stop_sequence": None},
            "usage": delta_usage}))
        events.append(("message_stop", {"type": "message_stop"}))
        if "ping_everywhere" in plan.quirks:
            pinged: list[tuple[str, dict[str, Any]]] = []
            for event in events:
                pinged += [event, ("ping", {"type": "ping"})]
            events = pinged[:-1]
        out = [_sse(name, data) for name, data in events]
        # event 0 is message_start; error_after / truncate_after count the events after it
        if plan.error_after is not None:
            _, err = self.encode_error(plan.error)
            if plan.error.type == "server_error":
                err["error"]["type"] = "overloaded_error"  # what Anthropic streams break with
            out = out[: min(plan.error_after + 1, len(out) - 1)] + [_sse("error", err)]
        elif plan.truncate_after is not None:
            out = out[: plan.truncate_after + 1]
        return out


def _block_start(index: int, block: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "content_block_start", {"type": "content_block_start", "index": index,
                                   "content_block": block}


def _delta(index: int, delta: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}


def _usage(turn: Turn, where: str = "message") -> dict[str, Any]:
    """Usage as each place carries it (wire corpus, pydantic-ai/anthropic, confirmed 2026-11-23).

    ``message`` (a JSON answer, 149 of 149, and ``message_start``, 9 of 9): the cache counts,
    the ``cache_creation`` breakdown by TTL, and ``service_tier``. ``delta`` (the final
    ``message_delta``, 9 of 9): the four counts only; never ``service_tier`` nor
    ``cache_creation``. Recounted 2026-11-25: a delta adds ``server_tool_use`` only when the
    turn used a server tool (8 of 9, all with web search, code execution, MCP or tool search;
    test_tool_search__test_anthropic_native_tool_search_streaming.yaml's second stream, which
    used none, has the four counts only); the fake's turns use none. ``inference_geo``
    (``"global"``: 104 of 149 JSON answers, 5 of 9 message_start) is not played yet.
    """
    u = turn.usage
    # Anthropic always reports usage; the cache fields are in every real answer
    counts = {"input_tokens": (u.input_tokens or 0) if u else 0,
              "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    output = {"output_tokens": (u.output_tokens or 0) if u else 0}
    if where == "delta":
        return {**counts, **output}
    return {**counts,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            **output, "service_tier": "standard"}


#: ``caller`` on tool_use blocks: on 43 of the 77 recorded JSON tool_use blocks (all of those
#: recorded since the programmatic tool calling beta) and on the streamed one (wire corpus,
#: confirmed 2026-11-23); an adapter must ignore fields it does not know
_CALLER = {"type": "direct"}


def _sse(event: str, data: Mapping[str, Any]) -> bytes:
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {event}\ndata: {payload}\n\n".encode()


#: models that take ``{"role": "system"}`` messages inside ``messages`` ("mid-conversation system
#: messages": Anthropic docs, build-with-claude/mid-conversation-system-messages, "available on
#: Claude Opus 4.8 only. No beta header is required"; recorded traffic in tests/data/wire-corpus
#: shows claude-opus-4-8 and claude-fable-5 answering such requests with 200; confirmed
#: 2026-11-24). Matched as prefixes, so dated snapshots count too.
MID_CONVERSATION_SYSTEM_MODELS = ("claude-opus-4-8", "claude-fable-5")


def _validate_system_message(i: int, messages: list[Any], model: Any) -> Rejection | None:
    """A ``system`` role inside ``messages``: a 400 on every model but the few that take
    mid-conversation system messages, and on those, the documented placement rules."""
    if not (isinstance(model, str) and model.startswith(MID_CONVERSATION_SYSTEM_MODELS)):
        # the API's own text, quoted in sglang #367 (2024-04-15) and ChainForge #271
        # (2024-04-29); the system prompt goes in the top-level `system` (Anthropic docs,
        # "Giving Claude a role with a system prompt"; confirmed 2026-11-23). Still the answer
        # for the models without mid-conversation system messages ("Requests that include
        # role: system in messages[] on unsupported models return a 400 invalid_request_error",
        # Bedrock's page on the feature, 2026-11-24); the exact text for them is not confirmed
        return _error(400, 'messages: Unexpected role "system". The Messages API '
                      "accepts a top-level `system` parameter, not \"system\" as an "
                      "input message role.", rule="messages.role.system")
    # the placement rules of the docs page above (2026-11-24); each is "a 400
    # invalid_request_error" there, the wording of these texts is the kit's (not confirmed)
    previous = messages[i - 1] if i else None
    following = messages[i + 1] if i + 1 < len(messages) else None
    role = (lambda m: m.get("role") if isinstance(m, Mapping) else None)
    if previous is None:
        why = "cannot be the first message: use the top-level `system` parameter"
    elif role(previous) == "system" or role(following) == "system":
        why = "cannot be adjacent to another system message"
    elif role(previous) != "user" and not _ends_in_server_tool_use(previous):
        why = "must immediately follow a user message (or an assistant message that ends in " \
              "a server tool use)"
    elif following is not None and role(following) != "assistant":
        why = "must be the last message or be followed by an assistant message"
    else:
        # the docs say "text blocks only", but recorded 200s carry `tool_addition` blocks
        # (tool availability changes mid-conversation): the block types are not judged here
        return None
    return _error(400, f"messages.{i}: a system message {why}.",
                  rule="messages.role.system.placement")


def _ends_in_server_tool_use(message: Any) -> bool:
    content = message.get("content") if isinstance(message, Mapping) else None
    return (message.get("role") == "assistant" and isinstance(content, list) and bool(content)
            and isinstance(content[-1], Mapping)
            and content[-1].get("type") == "server_tool_use")


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = AnthropicMessages

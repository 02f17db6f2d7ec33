"""Mistral (``api.mistral.ai``), an OpenAI-compatible Chat Completions service (issue 13).

The ``openai`` dialect with what Mistral does differently. Every fact below carries its source
and was confirmed 2026-11-25 (the provider registry, ``pytest_toolcall.providers.MISTRAL``, holds
them as data); what could not be confirmed inherits OpenAI's behaviour.

- Route: ``POST /v1/chat/completions`` (``base_url`` ``https://api.mistral.ai/v1``); bearer auth.
  A bad or missing key is 401 ``{"detail": "Unauthorized"}`` (agent-zero #539, 2025-06, on
  chat/completions; nextcloud integration_openai #332, 2026-01).
- Errors: ``{"object": "error", "message", "type", "param": null, "code"}`` at the top level,
  never under ``"error"``. A body that does not fit the request schema is 422 with pydantic's
  ``{"detail": [{"type", "loc", "msg", "input"}]}``: the request and every message are closed
  schemas ("Extra inputs are not permitted": ``reasoning_content`` on an assistant message,
  crush #1590, litellm #30835, OpenMinis #87; ``name`` on a tool call, zeroclaw #2693; ``store``
  and ``max_completion_tokens``, openclaude #739). The allowed keys are those of the official
  SDK's request models (mistralai/client-python ``chatcompletionrequest.py``,
  ``assistantmessage.py``, ``toolcall.py``).
- Tool call ids are exactly 9 characters ``[a-zA-Z0-9]``; a history with any other id is 400
  ``{"object": "error", "message": "Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9,
  with a length of 9.", "type": "invalid_function_call", "param": null, "code": "3280"}``
  (gptel #1203, 2026-01: the 167-byte body its headers announce; ironclaw #1241, opencode
  #1680, langchain PR #24668). Ids minted by another provider must be re-mapped, the same way
  on the calls and on the results.
- Message order (400, type ``invalid_request_message_order``, code ``"3230"``): "Unexpected role
  'user' after role 'tool'" (a user message may not follow tool results: avante.nvim #2562,
  litellm #17761, onyx #6458) and "Unexpected role 'tool' after role 'user'" (a tool message
  without the calls before it: crush #279). Unanswered calls: "Not the same number of function
  calls and responses" (type ``invalid_request_error``, code null: mistralai/client-ts #106,
  camel #1467).
- ``tool_choice``: ``auto``, ``none``, ``any``, ``required`` or a named function (the SDK's
  ``ToolChoiceEnum``); ``parallel_tool_calls`` a boolean.
- Taken where OpenAI refuses (``lenient_rules``; mistralai 3.7.0 ``tool.py``,
  ``assistantmessage.py``; recorded requests, 2026-11): a tool without ``type`` is a function
  tool, ``tool_calls: []`` is no calls. OpenAI's other rules, not confirmed, answer in Mistral's
  top-level shape (``own_shape``).
- Reasoning (``reasoning_effort="high"`` on mistral-small / mistral-medium-3-5; Magistral):
  ``message.content`` is a LIST of chunks, ``{"type": "thinking", "thinking": [{"type": "text",
  "text": ...}], "closed": true}`` then ``{"type": "text", "text": ...}`` (vercel/ai recorded
  fixtures mistral-large-4-reasoning-high.json, mistral-reasoning-history-live.json). In a
  stream, ``delta.content`` is a list holding a thinking chunk while the model thinks, then
  plain strings; the transition delta may hold the last thinking chunk and the first text
  chunk together (mistralai/client-python examples/mistral/chat/reasoning_with_streaming.py).
  The thinking goes back as a content chunk of the assistant message (reasoning_multi_turn.py:
  "always replay the assistant turn ... with its ThinkChunks intact").
- Stream: each tool call arrives whole in one delta (``id``, ``function{name, arguments}``, a
  distinct ``index``, no ``type``), on the chunk that also carries ``finish_reason`` and the
  usage (vercel/ai mistral-tool-call.chunks.txt; opik PR #7385, checked live 2026-07; semantic-
  kernel #6316). Usage rides on the finish chunk, with ``prompt_tokens_details`` and
  ``service_tier``; there is no ``stream_options`` (the SDK's stream request has none).
- Ids: completion ids are 32 hex digits; call ids 9 letters and digits.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_toolcall.cases import ErrorReply, Turn
from pytest_toolcall.core.model import AssistantMessage, ChatRequest, Reasoning
from pytest_toolcall.providers.base import Rejection
from pytest_toolcall.providers._compat import minted, reasoning_text
from pytest_toolcall.providers.openai.dialect import (CREATED, OpenAIChat, _finish, _objects,
                                                      _text)
from pytest_toolcall.providers.mistral import errors as _errors

__all__ = [
    "DIALECT", "EXTRA_FORBIDDEN", "ID_FORMAT", "Mistral", "MistralRejection", "TOOL_CHOICES",
    "UNANSWERED", "UNAUTHORIZED", "mistral_error", "valid_id",
]

#: a tool call id Mistral accepts
_ID = re.compile(r"^[a-zA-Z0-9]{9}$")
ID_FORMAT = "Tool call id was {id} but must be a-z, A-Z, 0-9, with a length of 9."
UNANSWERED = "Not the same number of function calls and responses"
UNEXPECTED_ROLE = "Unexpected role '{role}' after role '{previous}'"
EXTRA_FORBIDDEN = "Extra inputs are not permitted"
UNAUTHORIZED = {"detail": "Unauthorized"}
TOOL_CHOICES = ("auto", "none", "any", "required")
_COMPLETION_ID = "3f1c2b7d9e0a4c58b6d1e2f3a4b5c6d7"

#: the request keys the service takes (mistralai/client-python ChatCompletionRequest; the
#: sampling and logprobs keys of mistralai 3.7.0, min_tokens to top_prompt_logprobs, added
#: 2026-11-28: the SDK sends them, issue 30)
_REQUEST_KEYS = frozenset({
    "model", "messages", "temperature", "top_p", "max_tokens", "stream", "stop", "random_seed",
    "metadata", "response_format", "tools", "tool_choice", "presence_penalty",
    "frequency_penalty", "n", "prediction", "parallel_tool_calls", "reasoning_effort",
    "prompt_mode", "guardrails", "prompt_cache_key", "service_tier", "safe_prompt",
    "min_tokens", "repetition_penalty", "top_k", "logprobs", "top_logprobs", "prompt_logprobs",
    "top_prompt_logprobs"})
#: the keys of each message (SystemMessage, UserMessage, AssistantMessage, ToolMessage)
_MESSAGE_KEYS = {
    "system": frozenset({"role", "content"}),
    "user": frozenset({"role", "content"}),
    "assistant": frozenset({"role", "content", "tool_calls", "prefix"}),
    "tool": frozenset({"role", "content", "tool_call_id", "name"}),
}
_CALL_KEYS = frozenset({"id", "type", "function", "index"})
_FUNCTION_KEYS = frozenset({"name", "arguments"})


@dataclass(frozen=True)
class MistralRejection(Rejection):
    """A rejection whose body is Mistral's: the message at the top level (or pydantic's
    ``detail``), not under ``"error"``."""

    @property
    def message(self) -> str:
        body = self.body
        if isinstance(body.get("message"), str):
            return str(body["message"])
        detail = body.get("detail")
        if isinstance(detail, list) and detail and isinstance(detail[0], Mapping):
            return str(detail[0].get("msg", ""))
        return str(detail if detail is not None else body)


def mistral_error(status: int, message: str, *, type: str = "invalid_request_error",
                  code: str | None = None, rule: str) -> MistralRejection:
    """A rejection in Mistral's shape: ``object: error`` and the fields at the top level."""
    return MistralRejection(status=status, rule=rule, body={
        "object": "error", "message": message, "type": type, "param": None, "code": code})


def valid_id(call_id: Any) -> bool:
    """Whether Mistral takes ``call_id``: exactly 9 letters and digits."""
    return isinstance(call_id, str) and bool(_ID.match(call_id))


def _mint_id(seed: str) -> str:
    return minted(seed, 9)


def _extra(loc: list[Any], value: Any) -> dict[str, Any]:
    return {"type": "extra_forbidden", "loc": loc, "msg": EXTRA_FORBIDDEN, "input": value}


def thinking_text(chunk: Mapping[str, Any]) -> str:
    """The text of a ``{"type": "thinking", "thinking": [text chunks]}`` content chunk."""
    inner = chunk.get("thinking")
    if isinstance(inner, str):
        return inner
    return "".join(str(part.get("text", "")) for part in inner or ()
                   if isinstance(part, Mapping) and part.get("type", "text") == "text")


class Mistral(OpenAIChat):
    """The ``mistral`` provider: Mistral's Chat Completions on the ``openai`` wire."""

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    name = "mistral"
    title = "Mistral Chat Completions (api.mistral.ai)"
    base_path = "/v1"
    #: Mistral refuses a user message right after tool results ("Unexpected role 'user' after
    #: role 'tool'", confirmed). Off by default: the kit's history and loop cases build
    #: tool -> user histories that every other service takes, and the reference history
    #: builder has no Mistral mode yet (issue 13 follow-up); a test turns it on
    enforce_user_after_tool = False
    paths = frozenset({"/v1/chat/completions"})

    # -- routing and auth -------------------------------------------------------------------
    def not_found(self, method: str, path: str) -> Rejection:
        # not confirmed: the gateway's 404 wording for an unknown path
        return MistralRejection(status=404, body={"detail": "Not Found"}, rule="route")

    def auth_rejection(self, auth: str) -> Rejection:
        return MistralRejection(status=401, body=dict(UNAUTHORIZED),
                                rule="auth.invalid" if auth else "auth.missing")

    #: what Mistral takes that OpenAI refuses (facts tool_type_default, empty_tool_calls)
    lenient_rules = {
        "tools.type.missing": "a tool without \"type\" is a function tool (the SDK's Tool.type "
                              "defaults to \"function\")",
        "messages.assistant.empty_tool_calls": "an assistant message with \"tool_calls\": [] "
                                               "is taken (the SDK's AssistantMessage allows it)",
    }
    confirmed_rules = {"messages.tool_calls.unanswered": "message_order",
                       "messages.tool.orphan": "message_order", "tool_choice.value": "tool_choice"}

    # -- validation ---------------------------------------------------------------------------
    def lenient(self, body: Mapping[str, Any]) -> Mapping[str, Any]:
        """The body as Mistral reads it: a tool without ``type`` is a function tool, an empty
        ``tool_calls`` list is no calls (``lenient_rules``)."""
        tools, messages = body.get("tools"), body.get("messages")
        out = dict(body)
        if isinstance(tools, list):
            out["tools"] = [dict(t, type="function") if isinstance(t, Mapping)
                            and "type" not in t else t for t in tools]
        if isinstance(messages, list):
            out["messages"] = [
                {k: v for k, v in m.items() if k != "tool_calls"}
                if isinstance(m, Mapping) and m.get("role") == "assistant"
                and m.get("tool_calls") == [] else m for m in messages]
        return out

    def own_shape(self, found: Rejection | None) -> Rejection | None:
        if found is None or not isinstance(found.body.get("error"), Mapping):
            return found
        error = found.body["error"]
        return mistral_error(found.status, str(error.get("message", "")),
                             type=str(error.get("type") or "invalid_request_error"),
                             code=error.get("code"), rule=found.rule)

    def validate(self, body: Any) -> Rejection | None:
        if isinstance(body, Mapping):
            extra = self._extra_keys(body)
            if extra:
                where = "messages" if extra[0]["loc"][1] == "messages" else "body"
                return MistralRejection(status=422, body={"detail": extra},
                                        rule=f"{where}.{extra[0]['type']}")
        found = super().validate(body)
        if found is not None:
            if found.rule == "messages.tool_calls.unanswered":
                return mistral_error(400, UNANSWERED, rule=found.rule)
            if found.rule == "messages.tool.orphan":
                return self._orphan(body)
            return found  # not confirmed for Mistral: OpenAI's words, in Mistral's shape
        body = self.lenient(body)
        return self._validate_ids(body) or (
            self._validate_order(body) if self.enforce_user_after_tool else None)

    @staticmethod
    def _extra_keys(body: Mapping[str, Any]) -> list[dict[str, Any]]:
        """pydantic's ``extra_forbidden`` errors of a request, in the order it reports them."""
        out = [_extra(["body", k], body[k]) for k in body if k not in _REQUEST_KEYS]
        messages = body.get("messages")
        for i, msg in enumerate(messages if isinstance(messages, list) else ()):
            if isinstance(msg, Mapping) and msg.get("role") == "developer":
                # the roles are a closed set (the SDK's message union): pydantic's tag error;
                # the wording is pydantic's, not confirmed on the service
                out.append({"type": "union_tag_invalid", "loc": ["body", "messages", i],
                            "msg": "Input tag 'developer' found using 'role' does not match any "
                                   "of the expected tags: 'assistant', 'system', 'tool', 'user'",
                            "input": dict(msg)})
                continue
            if not isinstance(msg, Mapping) or not isinstance(msg.get("role"), str) \
                    or msg["role"] not in _MESSAGE_KEYS:
                continue
            role = msg["role"]
            out += [_extra(["body", "messages", i, role, k], msg[k]) for k in msg
                    if k not in _MESSAGE_KEYS[role]]
            if role != "assistant":
                continue
            calls = msg.get("tool_calls")
            for j, call in enumerate(calls if isinstance(calls, list) else ()):
                if not isinstance(call, Mapping):
                    continue
                loc = ["body", "messages", i, role, "tool_calls", j]
                out += [_extra([*loc, k], call[k]) for k in call if k not in _CALL_KEYS]
                function = call.get("function")
                if isinstance(function, Mapping):
                    out += [_extra([*loc, "function", k], function[k]) for k in function
                            if k not in _FUNCTION_KEYS]
        return out

    def _validate_tool_choice(self, choice: Any, tools: list[Any]) -> Rejection | None:
        if isinstance(choice, str) and choice in TOOL_CHOICES:
            return None
        return super()._validate_tool_choice(choice, tools)

    @staticmethod
    def _orphan(body: Mapping[str, Any]) -> Rejection:
        """The role before the first tool message that answers no calls."""
        previous, open_calls = "system", False
        for msg in _objects(body.get("messages")):
            role = msg.get("role")
            if not isinstance(role, str):  # a breach noted (issue 30): no role to name
                continue
            if role == "tool" and not open_calls:
                break
            if role == "assistant":
                open_calls = bool(msg.get("tool_calls"))
            elif role != "tool":
                open_calls = False
            previous = role
        return mistral_error(400, UNEXPECTED_ROLE.format(role="tool", previous=previous),
                             type="invalid_request_message_order", code="3230",
                             rule="messages.tool.orphan")

    @staticmethod
    def _validate_ids(body: Mapping[str, Any]) -> Rejection | None:
        for msg in _objects(body.get("messages")):
            ids = [c.get("id") for c in _objects(msg.get("tool_calls"))] \
                if msg.get("role") == "assistant" else \
                [msg.get("tool_call_id")] if msg.get("role") == "tool" else []
            for call_id in ids:
                # an id that is no string breaks OpenAI's rule (noted unless confirmed), not
                # the format rule: its message would quote Python's repr ('None')
                if isinstance(call_id, str) and not valid_id(call_id):
                    return mistral_error(400, ID_FORMAT.format(id=call_id),
                                         type="invalid_function_call", code="3280",
                                         rule="messages.tool_calls.id_format")
        return None

    @staticmethod
    def _validate_order(body: Mapping[str, Any]) -> Rejection | None:
        previous = None
        for msg in _objects(body.get("messages")):
            role = msg.get("role")
            if previous == "tool" and role == "user":
                return mistral_error(400, UNEXPECTED_ROLE.format(role=role, previous=previous),
                                     type="invalid_request_message_order", code="3230",
                                     rule="messages.order.user_after_tool")
            previous = role
        return None

    def decode_request(self, body: Mapping[str, Any]) -> ChatRequest:
        wire = [m for m in body.get("messages", []) if m.get("role") in _MESSAGE_KEYS]
        plain = dict(body, messages=[self._plain(m) for m in wire])
        if body.get("tool_choice") == "any":
            plain["tool_choice"] = "required"
        request = super().decode_request(plain)
        messages = []
        for msg, raw in zip(request.messages, wire):
            content = raw.get("content")
            if isinstance(msg, AssistantMessage) and isinstance(content, list):
                thoughts = tuple(Reasoning(type="thinking", text=thinking_text(c))
                                 for c in content if isinstance(c, Mapping)
                                 and c.get("type") == "thinking")
                if thoughts:
                    msg = msg.model_copy(update={"reasoning": thoughts})
            messages.append(msg)
        return request.model_copy(update={"messages": tuple(messages)})

    @staticmethod
    def _plain(msg: Mapping[str, Any]) -> Mapping[str, Any]:
        """``msg`` with a content list reduced to its text chunks (thinking read apart)."""
        content = msg.get("content")
        if not isinstance(content, list):
            return msg
        texts = [c for c in content if isinstance(c, Mapping) and c.get("type") == "text"]
        text = _text(texts) if texts else ("" if msg.get("tool_calls") else None)
        return dict(msg, content=text)

    # -- encoding -----------------------------------------------------------------------------
    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        return error.status, {"object": "error", "message": error.message, "type": error.type,
                              "param": error.param, "code": error.code}

    @staticmethod
    def call_ids(turn: Turn) -> list[str]:
        """Mistral's ids: a scripted id that fits is sent as it is, any other becomes 9
        letters and digits (the service never sends another shape)."""
        key = ",".join(c.name for c in turn.tool_calls)
        return [c.id if valid_id(c.id) else _mint_id(f"{key}/{i}/{c.id}")
                for i, c in enumerate(turn.tool_calls)]

    @staticmethod
    def _usage(turn: Turn) -> dict[str, Any]:
        u = turn.usage
        assert u is not None
        return {"prompt_tokens": u.input_tokens or 0, "total_tokens": u.total_tokens or 0,
                "completion_tokens": u.output_tokens or 0,
                "prompt_tokens_details": {"cached_tokens": 0}, "service_tier": "standard"}

    def _calls(self, turn: Turn) -> list[dict[str, Any]]:
        return [{"id": cid, "function": {"name": c.name, "arguments": c.arguments_text() or ""},
                 "index": k}
                for k, (cid, c) in enumerate(zip(self.call_ids(turn), turn.tool_calls))]

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        reasoning = reasoning_text(turn)
        content: Any = turn.text or ""
        if reasoning is not None:
            content = [{"type": "thinking", "thinking": [{"type": "text", "text": reasoning}],
                        "closed": True}]
            if turn.text:
                content.append({"type": "text", "text": turn.text})
        message: dict[str, Any] = {"role": "assistant",
                                   "tool_calls": self._calls(turn) or None,
                                   "content": content}
        response: dict[str, Any] = {
            "id": _COMPLETION_ID, "created": CREATED,
            "model": body.get("model") or "mistral-small-latest"}
        if turn.usage is not None:
            response["usage"] = self._usage(turn)
        response.update({"object": "chat.completion", "choices": [
            {"index": 0, "finish_reason": _finish(turn), "message": message}]})
        return response

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        plan, quirks = turn.stream, turn.stream.quirks
        reasoning = reasoning_text(turn)
        base = {"id": _COMPLETION_ID, "object": "chat.completion.chunk", "created": CREATED,
                "model": body.get("model") or "mistral-small-latest"}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": finish}])

        def think(piece: str) -> dict[str, Any]:
            return {"type": "thinking", "thinking": [{"type": "text", "text": piece}]}

        size = plan.fragment_size
        text_pieces = [turn.text[k:k + size] for k in range(0, len(turn.text or ""), size)]
        chunks: list[dict[str, Any]] = []
        if reasoning is not None:
            # thinking as lists of thinking chunks (the first rides with the role), then the
            # transition delta [last thinking piece, first text chunk], then plain strings
            pieces = [reasoning[k:k + size] for k in range(0, len(reasoning), size)] or [""]
            chunks.append(chunk({"role": "assistant", "content": [think(pieces[0])]}))
            middle, last = pieces[1:-1], pieces[1:][-1:]
            chunks += [chunk({"content": [think(p)]}) for p in middle]
            if text_pieces:
                head = [think(p) for p in last] + [{"type": "text", "text": text_pieces[0]}]
                chunks.append(chunk({"content": head}))
                text_pieces = text_pieces[1:]
            else:
                chunks += [chunk({"content": [think(p)]}) for p in last]
        else:
            chunks.append(chunk({"role": "assistant", "content": ""}))
        chunks += [chunk({"content": p}) for p in text_pieces]
        finish = _finish(turn)
        if turn.tool_calls:
            # every call whole, in one delta, on the chunk that ends the answer
            last = chunk({"content": None, "tool_calls": self._calls(turn)}, finish)
        else:
            last = chunk({"content": ""}, finish)
        if turn.usage is not None:
            last["usage"] = self._usage(turn)
        chunks.append(last)
        return self.stream_events(chunks, plan, quirks)

    def stream_error(self, error: ErrorReply) -> dict[str, Any]:
        # not confirmed: the shape of an error inside a 200 stream; OpenAI's is played
        return OpenAIChat.encode_error(self, error)[1]


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = Mistral

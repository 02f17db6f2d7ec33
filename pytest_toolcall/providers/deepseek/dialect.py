"""DeepSeek (``api.deepseek.com``), an OpenAI-compatible Chat Completions service (issue 13).

The ``openai`` dialect with what DeepSeek does differently. Every fact below carries its source
and was confirmed 2026-11-25 (the provider registry, ``pytest_toolcall.providers.DEEPSEEK``,
holds them as data); what could not be confirmed inherits OpenAI's behaviour.

- Routes: ``POST /chat/completions`` and ``/v1/chat/completions`` ("the v1 here has NO
  relationship with the model's version"), ``/beta/chat/completions`` for the beta features
  (strict tools, prefix completion); bearer auth (api-docs.deepseek.com, Your First API Call).
- Errors: ``{"error": {"message", "type", "param": null, "code": "invalid_request_error"}}``;
  401 ``authentication_error`` "Authentication Fails, Your api key: ****abcd is invalid"; 402
  "Insufficient Balance" (type ``unknown_error``); 400, 422, 429, 500, 503 per the Error Codes
  page.
- Roles: system, user, assistant, tool (and ``latest_reminder``): OpenAI's ``developer`` is a
  400 "Failed to deserialize the JSON body into the target type: messages[0].role: unknown
  variant `developer`, expected one of `system`, ..." (earendil-works/pi #1048, 2026-01-28;
  decolua/9router #773, 2026-05-02; confirmed 2026-11-28).
- Tool pairing, with DeepSeek's own words (400): unanswered calls "An assistant message with
  'tool_calls' must be followed by tool messages responding to each 'tool_call_id'.
  (insufficient tool messages following tool_calls message)" (gptme blog on deepseek-v4-flash;
  recorded Codex error log), an orphan tool message "Messages with role 'tool' must be a
  response to a preceding message with 'tool_calls'" (spring-ai / agent test fixtures quoting
  DeepSeek's 400).
- Thinking mode (the default on V4 models; ``thinking: {"type": "disabled"}`` turns it off):
  the chain of thought comes in ``message.reasoning_content`` (stream: ``delta.reasoning_content``)
  next to ``content``; an assistant turn that made tool calls must come back WITH its
  ``reasoning_content`` in every later request, else 400 "The `reasoning_content` in the
  thinking mode must be passed back to the API." (api-docs.deepseek.com/guides/thinking_mode;
  langchain #37713 and crewAI #5878 quote the body; Raven #297 bisected it: the key must be
  there, an empty string is accepted). The fake enforces it for the turns it answered with
  ``reasoning_content`` (it remembers their call ids): an adapter cannot replay what it never
  received.
- Stream: the first fragment of a call carries ``index, id, type, function{name, arguments:""}``,
  later ones ``index`` and an ``arguments`` piece only (id and name are NOT repeated); usage rides
  on the finish chunk (delta ``{"content": "", "reasoning_content": null}``), never in a separate
  ``choices: []`` chunk, with or without ``stream_options.include_usage`` (the Create Chat
  Completion reference; a measured deepseek-v4-pro stream in a public Go client's fixtures).
  Waiting streams carry ``: keep-alive`` SSE comments (Rate Limit page): the ``sse_comments``
  quirk plays them.
- Ids: ``call_00_`` + 24 letters and digits (the two digits are the call's position), completion
  ids are UUIDs; usage adds ``prompt_cache_hit_tokens`` / ``prompt_cache_miss_tokens``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolcall.cases import ErrorReply, Turn
from pytest_toolcall.providers.base import Rejection
from pytest_toolcall.providers._compat import (error_object, message_calls, minted, pieces,
                                               reasoning_text, thinking_type, usage_tokens)
from pytest_toolcall.providers.openai.dialect import CREATED, OpenAIChat, _finish
from pytest_toolcall.providers.openai_responses.dialect import ServiceResponses
from pytest_toolcall.providers.deepseek import errors as _errors

__all__ = [
    "DIALECT", "DeepSeek", "INSUFFICIENT_BALANCE", "KEEP_ALIVE", "ORPHAN_TOOL", "REASONING_MISSING",
    "UNANSWERED", "deepseek_error",
]

#: the 400 of a tool-call turn sent back without its reasoning_content (thinking mode)
REASONING_MISSING = ("The `reasoning_content` in the thinking mode must be passed back to the "
                     "API.")
UNANSWERED = ("An assistant message with 'tool_calls' must be followed by tool messages "
              "responding to each 'tool_call_id'. (insufficient tool messages following "
              "tool_calls message)")
ORPHAN_TOOL = "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'"
INSUFFICIENT_BALANCE = "Insufficient Balance"
#: the message roles DeepSeek's request type knows (serde refuses any other: facts "roles")
ROLES = ("system", "user", "assistant", "tool", "latest_reminder")
UNKNOWN_ROLE = ("Failed to deserialize the JSON body into the target type: messages[{i}].role: "
                "unknown variant `{role}`, expected one of "
                + ", ".join(f"`{r}`" for r in ROLES))
#: what DeepSeek writes into a stream while the request waits to be scheduled (Rate Limit page)
KEEP_ALIVE = b": keep-alive\n\n"
_PATHS = frozenset({"/chat/completions", "/v1/chat/completions", "/beta/chat/completions"})


def deepseek_error(status: int, message: str, *, type: str = "invalid_request_error",
                   rule: str) -> Rejection:
    """A rejection in DeepSeek's shape: param null, code ``invalid_request_error``."""
    return Rejection(status=status, body={"error": {
        "message": message, "type": type, "param": None, "code": "invalid_request_error"}},
        rule=rule)


def _call_id(turn_key: str, position: int) -> str:
    tail = minted(f"{turn_key}/{position}", 24)
    return f"call_{position:02d}_{tail}"


class DeepSeekResponses(ServiceResponses):
    """DeepSeek's Responses API (``POST /responses`` and ``/v1/responses``, live since
    2026-07-31: api-docs.deepseek.com/zh-cn/guides/responses_api, quoted in opencode #39992;
    QuantumNous/new-api #6563): OpenAI's Responses wire, with DeepSeek's key check and error
    shape (fact responses_route). It refuses calls and outputs that do not pair, in its own
    words (fact responses_tool_pairing); OpenAI's other Responses rules are not confirmed: the
    fake takes a body that breaks one, noting the breach (issue 30)."""

    name = "deepseek"
    paths = frozenset({"/responses", "/v1/responses"})
    confirmed_rules = {"input.function_call.unanswered": "responses_tool_pairing",
                       "input.function_call_output.orphan": "responses_tool_pairing"}

    def validate(self, body: Any) -> Rejection | None:
        found = super().validate(body)
        if found is None or found.rule not in self.confirmed_rules:
            return found
        call_id = found.message.rsplit(" ", 1)[-1].removesuffix(".")
        if found.rule == "input.function_call.unanswered":
            return deepseek_error(400, f"No tool output found for tool call {call_id}",
                                  rule=found.rule)
        return deepseek_error(400, f"No tool call found for tool output with call_id {call_id}.",
                              rule=found.rule)


class DeepSeek(OpenAIChat):
    """The ``deepseek`` provider: DeepSeek's Chat Completions on the ``openai`` wire."""

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    name = "deepseek"
    title = "DeepSeek Chat Completions (api.deepseek.com)"
    base_path = ""
    paths = _PATHS
    reasoning_field = "reasoning_content"
    thinking_switch = staticmethod(thinking_type)
    call_id = staticmethod(_call_id)
    sse_comment = KEEP_ALIVE
    #: DeepSeek's Responses API (fact responses_route)
    other_routes = {"/responses": DeepSeekResponses}
    confirmed_rules = {"messages.tool_calls.unanswered": "tool_pairing",
                       "messages.tool.orphan": "tool_pairing", "tools.name.pattern": "tool_names",
                       "messages.role": "roles", "type": "deserialize_errors"}

    def __init__(self) -> None:
        #: call ids of the turns this fake answered with reasoning_content: only those turns
        #: must come back with it
        self.thinking_calls: set[str] = set()

    # -- auth -----------------------------------------------------------------------------------
    def auth_rejection(self, auth: str) -> Rejection:
        shown = auth.removeprefix("Bearer ").strip()
        # the missing-key wording is not confirmed: DeepSeek's one 401 text, with no key shown
        return deepseek_error(401, f"Authentication Fails, Your api key: ****{shown[-4:]} is "
                              "invalid", type="authentication_error",
                              rule="auth.invalid" if auth else "auth.missing")

    # -- validation ---------------------------------------------------------------------------
    def validate(self, body: Any) -> Rejection | None:
        # OpenAI's developer role (and function) is no DeepSeek role: serde's 400, before any
        # other rule (the fake leaves out serde's "at line 1 column N")
        messages = body.get("messages") if isinstance(body, Mapping) else None
        for i, msg in enumerate(messages if isinstance(messages, list) else ()):
            role = msg.get("role") if isinstance(msg, Mapping) else None
            if isinstance(role, str) and role not in ROLES:
                return deepseek_error(400, UNKNOWN_ROLE.format(i=i, role=role),
                                      rule="messages.role")
        found = super().validate(body)
        if found is not None:
            if found.rule == "messages.tool_calls.unanswered":
                return deepseek_error(400, UNANSWERED, rule=found.rule)
            if found.rule == "messages.tool.orphan":
                return deepseek_error(400, ORPHAN_TOOL, rule=found.rule)
            # the rest: confirmed rules in OpenAI's words (tools.name.pattern: fact tool_names;
            # type: serde's refusal, fact deserialize_errors) or unavoidable ones, in DeepSeek's
            # shape (param null, code invalid_request_error)
            return deepseek_error(found.status, found.message, rule=found.rule)
        return self._validate_reasoning(body)

    def _validate_reasoning(self, body: Mapping[str, Any]) -> Rejection | None:
        thinking = body.get("thinking")
        if isinstance(thinking, Mapping) and thinking.get("type") == "disabled":
            return None
        for msg in body.get("messages") or ():
            if not isinstance(msg, Mapping) or msg.get("role") != "assistant":
                continue
            ids = {c.get("id") for c in msg.get("tool_calls") or () if isinstance(c, Mapping)}
            if ids & self.thinking_calls and not isinstance(msg.get("reasoning_content"), str):
                return deepseek_error(400, REASONING_MISSING,
                                      rule="messages.reasoning_content.missing")
        return None

    # -- encoding -----------------------------------------------------------------------------
    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        return error.status, {"error": error_object(
            error, code=error.code or "invalid_request_error")}

    def _remember(self, turn: Turn) -> str | None:
        text = reasoning_text(turn)
        if text is not None:
            self.thinking_calls.update(self.call_ids(turn))
        return text

    @staticmethod
    def _usage(turn: Turn) -> dict[str, Any]:
        prompt, completion, total = usage_tokens(turn)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": total,
                "prompt_tokens_details": {"cached_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 0},
                "prompt_cache_hit_tokens": 0, "prompt_cache_miss_tokens": prompt}

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        reasoning = self._remember(turn)
        message: dict[str, Any] = {"role": "assistant", "content": turn.text or ""}
        if reasoning is not None:
            message["reasoning_content"] = reasoning
        if turn.tool_calls:
            message["tool_calls"] = message_calls(turn, self.call_ids(turn))
        response: dict[str, Any] = {
            "id": "0f8c3a52-5d6e-4f1b-9a7c-2b3d4e5f6a7b", "object": "chat.completion",
            "created": CREATED, "model": body.get("model") or "deepseek-v4-flash",
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": _finish(turn)}],
            "system_fingerprint": "fp_toolcall_deepseek"}
        return self.with_usage(response, turn)

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        plan, quirks = turn.stream, turn.stream.quirks
        reasoning = self._remember(turn)
        include_usage = self.include_usage(body)
        base = {"id": "0f8c3a52-5d6e-4f1b-9a7c-2b3d4e5f6a7b", "object": "chat.completion.chunk",
                "created": CREATED, "model": body.get("model") or "deepseek-v4-flash",
                "system_fingerprint": "fp_toolcall_deepseek"}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return self.chunk(base, delta, finish, include_usage=include_usage)

        size = plan.fragment_size
        role: dict[str, Any] = {"role": "assistant", "content": ""}
        if reasoning is not None:
            role = {"role": "assistant", "content": None, "reasoning_content": ""}
        chunks = [chunk(role)]
        chunks += [chunk({"content": None, "reasoning_content": p})
                   for p in pieces(reasoning, size)]
        extra = {"reasoning_content": None} if reasoning is not None else {}
        chunks += [chunk({"content": p, **extra}) for p in pieces(turn.text, size)]
        fragments = self.call_fragments(turn, size, quirks)
        chunks += [chunk({"tool_calls": [frag]}) for frag in fragments]
        last = chunk({"content": "", "reasoning_content": None}, _finish(turn))
        if turn.usage is not None:
            # usage rides on the finish chunk, include_usage or not; no choices: [] chunk
            last["usage"] = self._usage(turn)
        chunks.append(last)
        return self.stream_events(chunks, plan, quirks)


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = DeepSeek

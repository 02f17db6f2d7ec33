"""vLLM's OpenAI-compatible server (``vllm serve``), ``POST /v1/chat/completions`` (issue 13).

The ``openai`` dialect with what vLLM does differently. Every fact below carries its source and
was confirmed 2026-11-25 (the provider registry, ``pytest_toolcall.providers.VLLM``, holds them
as data); what could not be confirmed inherits OpenAI's behaviour. The sources are vLLM's own
server code (vllm-project/vllm): ``vllm/entrypoints/openai/chat_completion/{serving,protocol}.py``,
``vllm/entrypoints/generate/base/protocol.py``, ``vllm/entrypoints/openai/engine/serving.py``,
``vllm/entrypoints/serve/exception_handling/handlers/validation.py`` and the api_server's
authentication middleware.

- Routes: ``POST /v1/chat/completions`` (no bare ``/chat/completions``). Auth is optional: with
  ``--api-key`` (or ``VLLM_API_KEY``) every ``/v1`` path wants ``Authorization: Bearer <key>``;
  a missing or wrong key is the same 401 ``{"error": "Unauthorized"}`` (a string, not an
  object). The fake always has a key, so it always checks.
- Errors: ``{"error": {"message", "type", "param", "code": <int, the HTTP status>}}`` with
  exception-class types (``BadRequestError``, ``NotFoundError``, ``InternalServerError``) since
  v0.10.1 (PR #22099); before it the same fields sat at the top level next to ``"object":
  "error"`` (historical: issue #12886 quotes one). A request the pydantic model refuses is 400
  with type ``Bad Request`` and a message that starts ``"1 validation error:"``.
- Request rules, vLLM's words: ``tools: []`` is 400 "`tools` must not be an empty array. Either
  provide at least one tool or omit the field entirely."; ``stream_options`` without
  ``stream: true`` is 400 "Stream options can only be defined when `stream=True`."; a named
  ``tool_choice`` that matches no tool is 400 "The tool specified in `tool_choice` does not match
  any of the specified `tools`". Tools without ``tool_choice`` mean ``"auto"``; a server started
  without ``--enable-auto-tool-choice --tool-call-parser`` answers 400 '"auto" tool choice
  requires --enable-auto-tool-choice and --tool-call-parser to be set' (the fake plays a server
  started WITH them; ``VLLM(auto_tools=False)`` plays one without).
- Stream (serving.py's chat_completion_stream_generator, chunks dumped with
  ``exclude_unset``): the role chunk is ALONE, ``{"role": "assistant", "content": ""}``, even
  before a single call (the ``role_chunk_alone`` quirk); a call's first fragment carries
  ``index, id, type, function{name}`` with NO ``arguments`` key (the tool parsers'
  ``DeltaFunctionCall(name=...).model_dump(exclude_none=True)``), later ones ``index`` and an
  ``arguments`` piece; the last arguments piece rides on the finish chunk (the "unstreamed
  arguments" check of the finish branch); choices carry ``logprobs: null`` and the finish chunk
  ``stop_reason: null``. Usage only with ``stream_options.include_usage``: a last ``choices:
  []`` chunk; ``continuous_usage_stats`` puts it on every chunk. ``data: [DONE]`` ends it.
- An error after the stream began is ``data: {"error": {...}}`` (a GenerationError is
  "Internal server error", type ``InternalServerError``, code 500), and then ``data: [DONE]``
  all the same.
- Reasoning (``--reasoning-parser``): ``message.reasoning`` / ``delta.reasoning`` since PR
  #27752 (2025-11); ``reasoning_content`` was kept beside it until PR #33402 (2026-01) removed
  it (historical). An assistant message sent back carries ``reasoning`` for the chat template
  (chat_utils reads ``reasoning``; issue #38488: ``reasoning_content`` is dropped on input).
  Nothing is refused when it is left out: the cases check what is sent.
- A named ``tool_choice`` finishes with ``"stop"``, not ``"tool_calls"`` ("In OpenAI's API,
  when a tool is called, the finish_reason is ... 'stop' for named tool calls", serving.py);
  the fake sends the finish the case scripts.
- Ids: completion ids ``chatcmpl-`` and call ids ``chatcmpl-tool-`` + 16 hex digits
  (``random_uuid``: the low 64 bits of a uuid4; 32 hex digits before, historical); Kimi K2
  models ``functions.<name>:<n>``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from pytest_toolcall.cases import ErrorReply, StreamPlan, Turn
from pytest_toolcall.providers.base import Rejection
from pytest_toolcall.providers._compat import message_calls, reasoning_text, usage_tokens
from pytest_toolcall.providers.openai.dialect import (CREATED, OpenAIChat, _finish,
                                                      _function_named, _sse)
from pytest_toolcall.providers.vllm import errors as _errors

__all__ = [
    "AUTO_NEEDS_PARSER", "DIALECT", "EMPTY_TOOLS", "GENERATION_ERROR", "STREAM_OPTIONS",
    "TOOLS_NEEDED", "TOOL_CHOICE_UNKNOWN", "UNAUTHORIZED", "VLLM", "call_id", "validation_error",
    "vllm_error",
]

UNAUTHORIZED = {"error": "Unauthorized"}
EMPTY_TOOLS = ("`tools` must not be an empty array. Either provide at least one tool or omit "
               "the field entirely.")
STREAM_OPTIONS = "Stream options can only be defined when `stream=True`."
TOOL_CHOICE_UNKNOWN = ("The tool specified in `tool_choice` does not match any of the "
                       "specified `tools`")
TOOLS_NEEDED = "When using `tool_choice`, `tools` must be set."
AUTO_NEEDS_PARSER = ('"auto" tool choice requires --enable-auto-tool-choice and '
                     "--tool-call-parser to be set")
#: the stream's error event when generation fails (engine/serving.py GenerationError)
GENERATION_ERROR = {"message": "Internal server error", "type": "InternalServerError",
                    "param": None, "code": 500}
#: vLLM's error types by status (create_error_response: the exception class's name)
_TYPES = {400: "BadRequestError", 404: "NotFoundError", 500: "InternalServerError",
          501: "NotImplementedError"}


def vllm_error(status: int, message: str, *, rule: str, param: str | None = None,
               type: str | None = None) -> Rejection:
    """A rejection as vLLM's create_error_response builds it."""
    return Rejection(status=status, body={"error": {
        "message": message, "type": type or _TYPES.get(status, "BadRequestError"),
        "param": param, "code": status}}, rule=rule)


def validation_error(message: str, *, param: str, rule: str, items: int) -> Rejection:
    """A 400 from the request model's validators, as the RequestValidationError handler words
    it (type 'Bad Request', the pydantic error rendered; the ``ctx`` part is not played)."""
    text = ("1 validation error:\n  {'type': 'value_error', 'loc': ('body',), 'msg': "
            f"'Value error, {message}', 'input': '<dict of {items} items>'}}")
    return Rejection(status=400, body={"error": {
        "message": text, "type": HTTPStatus.BAD_REQUEST.phrase, "param": param,
        "code": 400}}, rule=rule)


def call_id(key: str, position: int) -> str:
    """``chatcmpl-tool-`` and 16 hex digits (vLLM's make_tool_call_id)."""
    return "chatcmpl-tool-" + hashlib.sha256(f"{key}/{position}".encode()).hexdigest()[:16]


class VLLM(OpenAIChat):
    """The ``vllm`` provider: ``vllm serve``'s Chat Completions on the ``openai`` wire."""

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    name = "vllm"
    confirmed_rules = {"tool_choice.without_tools": "tool_choice",
                       "tool_choice.value": "tool_choice",
                       "tool_choice.unknown_tool": "tool_choice",
                       # its pydantic request model (fact request_model)
                       "tools.type": "request_model", "tools.function.missing": "request_model",
                       "tools.name.missing": "request_model",
                       "tool_choice.function.missing": "request_model",
                       "messages.role.missing": "request_model",
                       **{f"messages.tool_calls.{part}": "request_model" for part in (
                           "id", "type", "function", "function.name", "function.arguments")}}
    #: what vLLM's request model takes that OpenAI refuses (fact request_model)
    lenient_rules = {
        "model.missing": "no model: the served model answers (model: str | None = None)",
        "tools.type.missing": "a tool without type is a function tool (type defaults to "
                              "'function')",
        "messages.role": "any role (CustomChatCompletionMessageParam: role: Required[str])",
        "messages.content.missing": "a message without content (content is optional)",
        "messages.assistant.content_null": "an assistant message with neither content nor "
                                           "calls (content is optional)",
        "messages.tool.tool_call_id": "a tool message without tool_call_id (optional)",
    }
    title = "vLLM OpenAI-compatible server (vllm serve)"
    base_path = "/v1"
    completion_id = "chatcmpl-9f86d081884c7d65"
    paths = frozenset({"/v1/chat/completions"})
    reasoning_field = "reasoning"
    call_id = staticmethod(call_id)

    def __init__(self, *, auto_tools: bool = True) -> None:
        #: the server was started with --enable-auto-tool-choice --tool-call-parser
        self.auto_tools = auto_tools

    # -- routing and auth -------------------------------------------------------------------
    def not_found(self, method: str, path: str) -> Rejection:
        # FastAPI's own 404 for a route vLLM does not have
        return Rejection(status=404, body={"detail": "Not Found"}, rule="route")

    def auth_rejection(self, auth: str) -> Rejection:
        # one answer for a missing and a wrong key
        return Rejection(status=401, body=dict(UNAUTHORIZED),
                         rule="auth.invalid" if auth else "auth.missing")

    # -- validation ---------------------------------------------------------------------------
    def validate(self, body: Any) -> Rejection | None:
        if isinstance(body, Mapping):
            found = self._validate_vllm(body)
            if found is not None:
                return found
        # its request model's rules (confirmed_rules, lenient_rules); the rest of OpenAI's
        # structural rules (tool-call pairing: vLLM renders whatever the chat template takes)
        # are taken and reported as hardening
        return super().validate(body)

    def _validate_vllm(self, body: Mapping[str, Any]) -> Rejection | None:
        items = len(body)
        if body.get("tools") == []:
            return validation_error(EMPTY_TOOLS, param="tools", rule="tools.empty", items=items)
        if body.get("stream_options") and not body.get("stream"):
            return validation_error(STREAM_OPTIONS, param="stream_options",
                                    rule="stream_options.without_stream", items=items)
        choice = body.get("tool_choice", "auto" if body.get("tools") else "none")
        if choice is None or choice == "none":
            return None
        if not body.get("tools"):
            return validation_error(TOOLS_NEEDED, param="tool_choice",
                                    rule="tool_choice.without_tools", items=items)
        if isinstance(choice, str) and choice not in ("auto", "required"):
            return validation_error(f"Invalid value for `tool_choice`: {choice}! Only named "
                                    'tools, "none", "auto" or "required" are supported.',
                                    param="tool_choice", rule="tool_choice.value", items=items)
        if isinstance(choice, Mapping) and isinstance(body["tools"], list):  # else: a type error
            function = choice.get("function")
            name = function.get("name") if isinstance(function, Mapping) else None
            names = {t["function"]["name"] for t in body["tools"]
                     if isinstance(t, Mapping) and _function_named(t)}
            if isinstance(name, str) and name and name not in names:
                return validation_error(TOOL_CHOICE_UNKNOWN, param="tool_choice",
                                        rule="tool_choice.unknown_tool", items=items)
        if choice == "auto" and not self.auto_tools:
            return vllm_error(400, AUTO_NEEDS_PARSER, rule="tool_choice.auto_unconfigured")
        return None

    # -- encoding -----------------------------------------------------------------------------
    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        status = error.status
        code = status if status >= 400 else 500
        return status, {"error": {"message": error.message,
                                  "type": _TYPES.get(code, error.type), "param": error.param,
                                  "code": code}}

    @staticmethod
    def _usage(turn: Turn) -> dict[str, Any]:
        prompt, completion, total = usage_tokens(turn)
        # UsageInfo's field order; prompt_tokens_details only with
        # --enable-prompt-tokens-details
        return {"prompt_tokens": prompt, "total_tokens": total, "completion_tokens": completion}

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        # JSONResponse(content=response.model_dump()): every field, None included
        message: dict[str, Any] = {"role": "assistant", "content": turn.text, "refusal": None,
                                   "annotations": None, "audio": None, "function_call": None}
        if turn.tool_calls:
            message["tool_calls"] = message_calls(turn, self.call_ids(turn))
        message["reasoning"] = reasoning_text(turn)
        response: dict[str, Any] = {
            "id": self.completion_id, "object": "chat.completion", "created": CREATED,
            "model": body.get("model") or "Qwen/Qwen3-8B",
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": _finish(turn), "stop_reason": None,
                         "token_ids": None}],
            "service_tier": None, "system_fingerprint": None}
        if turn.usage is not None:
            response["usage"] = dict(self._usage(turn), prompt_tokens_details=None)
        response.update(prompt_logprobs=None, prompt_token_ids=None, kv_transfer_params=None)
        return response

    @staticmethod
    def _call_fragments(k: int, cid: str, call: Any, size: int,
                        quirks: frozenset[str]) -> list[dict[str, Any]]:
        frags = OpenAIChat._call_fragments(k, cid, call, size, quirks)
        head = frags[0].get("function") or {}
        if head.get("arguments") == "" and "repeat_id_name" not in quirks:
            # the parsers' first fragment names the call and carries no arguments key
            head.pop("arguments")
        return frags

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        plan, quirks = turn.stream, turn.stream.quirks
        options = body.get("stream_options") or {}
        include_usage = bool(options.get("include_usage"))
        continuous = include_usage and bool(options.get("continuous_usage_stats"))
        base = {"id": self.completion_id, "object": "chat.completion.chunk",
                "created": CREATED, "model": body.get("model") or "Qwen/Qwen3-8B"}
        usage = self._usage(turn) if turn.usage is not None else None

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            choice: dict[str, Any] = {"index": 0, "delta": delta, "logprobs": None,
                                      "finish_reason": finish}
            if finish is not None:
                choice["stop_reason"] = None
            data = dict(base, choices=[choice])
            if continuous and usage is not None:
                data["usage"] = usage
            return data

        size = plan.fragment_size
        first = chunk({"role": "assistant", "content": ""})
        first["prompt_token_ids"] = None
        chunks = [first] + [chunk(d) for d in self.text_deltas(turn, size)]
        fragments = self.call_fragments(turn, size, quirks)
        last_delta: dict[str, Any] = {}
        if fragments and set(fragments[-1]) <= {"index", "function"} \
                and set(fragments[-1].get("function") or {}) == {"arguments"}:
            # the last arguments piece rides on the finish chunk
            last_delta = {"tool_calls": [fragments.pop()]}
        chunks += [chunk({"tool_calls": [frag]}) for frag in fragments]
        chunks.append(chunk(last_delta, _finish(turn)))
        if include_usage and usage is not None:
            chunks.append(dict(base, choices=[], usage=usage))
        return self.stream_events(chunks, plan, quirks)

    def sse_events(self, chunks: list[dict[str, Any]], plan: Any,
                   quirks: frozenset[str]) -> list[bytes]:
        if plan.error_after is None:
            return super().sse_events(chunks, plan, quirks)
        events = super().sse_events(chunks, plan.model_copy(update={"error_after": None}),
                                    quirks)
        if plan.error == StreamPlan().error:
            error: dict[str, Any] = {"error": dict(GENERATION_ERROR)}
        else:
            error = self.encode_error(plan.error)[1]
        # the error event, then [DONE] all the same (the generator's except branch falls
        # through to its final yield)
        done = events[-1]
        return events[: min(plan.error_after + 1, len(events) - 1)] + [_sse(error), done]


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = VLLM

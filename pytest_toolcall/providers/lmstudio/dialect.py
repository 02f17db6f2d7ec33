"""LM Studio's OpenAI-compatible server (``http://localhost:1234/v1``) on the openai wire
(issue 13).

The ``openai`` dialect with what LM Studio does differently. Every fact below carries its source
and was confirmed 2026-11-25 (the provider registry, ``pytest_toolcall.providers.LMSTUDIO``, holds
them as data); what could not be confirmed inherits OpenAI's behaviour.

- Routes: ``POST /v1/chat/completions`` (also ``/v1/responses``, ``/v1/completions``,
  ``/v1/embeddings``, ``GET /v1/models``; lmstudio-ai/docs 1_developer/3_openai-compat). Any other
  method or path is answered **200** ``{"error": "Unexpected endpoint or method. (POST
  /chat/completions)"}`` ("Returning 200 anyway": lmstudio-bug-tracker #618 (the raw exchange),
  #1323 and #2085, still open in 2026).
- Auth: none by default; with "Require Authentication" on (LM Studio 0.4.0+, docs core/
  authentication) a request without ``Authorization: Bearer <LM API token>`` gets ``{"error":
  {"type": "invalid_request", "code": "invalid_api_key", "message": "An LM Studio API token is
  required ..."}}`` (agustif/opencode-lmstudio #41, LM Studio 0.4.18). The fake plays the server
  with authentication required (the endpoint always has a key). The status (401) and the
  wording for a *wrong* token are not confirmed: the missing-token body with 401 is played.
- Errors come in two shapes, both current: an object ``{"error": {"message", "type":
  "invalid_request_error", "param", "code"}}`` (an unknown model: 400 'Invalid model identifier
  "x". Please specify a valid downloaded model (e.g., ...).' code ``model_not_found``:
  gpt-researcher #1556, continue #12757, qwen-code #10065 (0.4.23)) and a bare string
  ``{"error": "<text>"}`` (400 "No models loaded. ..." gpt-researcher #1556; a context overflow:
  400 "The number of tokens to keep from the initial prompt is greater than the context length
  (n_keep: ...>= n_ctx: ...). ..." Gitlawb/openclaude #353, 2026-04).
- An error inside a 200 stream is an SSE event named ``error``: ``event: error`` then ``data:
  {"error": {"message": M}, "message": M}``, and the stream ends (LM Studio 0.4.21, a context
  overflow "Input does not fit in context length. The input has 31430 tokens, but the context
  length only supports 30000 tokens.": aaif-goose/goose #11318 (the raw capture),
  lmstudio-bug-tracker #2322).
- Call ids are numeric strings ("365174485", "814890118": docs openai-compat/tools, the
  non-stream answer, the Python print-out and the streamed ``ChoiceDeltaToolCall``); completion
  ids ``chatcmpl-`` + 21-22 lowercase letters and digits; ``system_fingerprint`` is the model id;
  usage is ``{prompt_tokens, completion_tokens, total_tokens}``; a message with tool calls has
  no ``content`` key.
- Stream: a call's first fragment ``{index, id, type, function: {name, arguments: ""}}``, later
  ones ``{index, function: {arguments}}`` (docs openai-compat/tools, "Streaming"); there is no
  empty role chunk: ``role`` rides on the first delta with the first piece ("<think>" in the
  raw streams of lmstudio-bug-tracker #649 and #723). For an answer of calls only, which delta
  carries the role is not confirmed: the first fragment's is played. ``stream_options.
  include_usage`` (0.3.18) adds usage; its chunk shape is not confirmed: OpenAI's is played.
- Reasoning: with "Separate reasoning_content and content in API responses" on (App Settings
  > Developer, 0.3.9) reasoning models send ``message.reasoning_content`` /
  ``delta.reasoning_content`` (moltis #597, 2026-04: qwen3.5, gemma-4); gpt-oss sends
  ``message.reasoning`` / ``delta.reasoning`` since 0.3.23 (API changelog). The fake sends
  ``reasoning`` for a model whose id names gpt-oss, ``reasoning_content`` otherwise. Nothing
  says the reasoning must come back: not enforced.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from pytest_toolcall.cases import ErrorReply, Turn
from pytest_toolcall.providers.base import Rejection
from pytest_toolcall.providers._compat import (LOWER_ALNUM, error_object, message_calls, minted,
                                               reasoning_text, usage_tokens)
from pytest_toolcall.providers.openai.dialect import CREATED, OpenAIChat, _finish, _sse
from pytest_toolcall.providers.lmstudio import errors as _errors
# their texts live with the error answers; named here too, where they always were
from pytest_toolcall.providers.lmstudio.errors import AUTH_REQUIRED, CONTEXT_OVERFLOW

__all__ = [
    "AUTH_REQUIRED", "CONTEXT_OVERFLOW", "DEFAULT_MODEL", "DIALECT", "LMStudio", "NO_MODELS_LOADED",
    "STREAM_CONTEXT_OVERFLOW", "UNEXPECTED_ENDPOINT", "lmstudio_stream_error", "reasoning_field",
]

DEFAULT_MODEL = "qwen/qwen3-4b-2507"
UNEXPECTED_ENDPOINT = "Unexpected endpoint or method. ({method} {path})"
NO_MODELS_LOADED = ("No models loaded. Please load a model in the developer page or use the "
                    "'lms load' command.")
STREAM_CONTEXT_OVERFLOW = ("Input does not fit in context length. The input has 31430 tokens, "
                           "but the context length only supports 30000 tokens.")


def reasoning_field(model: Any) -> str:
    """Where LM Studio puts a model's reasoning: ``reasoning`` for gpt-oss (0.3.23),
    ``reasoning_content`` for the others (the "separate reasoning_content" setting)."""
    return "reasoning" if isinstance(model, str) and "gpt-oss" in model else "reasoning_content"


def lmstudio_stream_error(message: str) -> bytes:
    """LM Studio's error inside a 200 stream: an SSE event named ``error``."""
    return b"event: error\n" + _sse({"error": {"message": message}, "message": message})


def _completion_id(key: str) -> str:
    return "chatcmpl-" + minted(key, 22, LOWER_ALNUM)


def _call_id(key: str, position: int) -> str:
    digest = hashlib.sha256(f"{key}/{position}".encode()).digest()
    return str(100_000_000 + int.from_bytes(digest[:8], "big") % 900_000_000)


#: LM Studio's refusal of a history it cannot read (fact invalid_messages)
INVALID_MESSAGES = ("Invalid 'messages' in payload. Please check the structure of your "
                    "'messages' and try again")

class LMStudio(OpenAIChat):
    """The ``lmstudio`` provider: LM Studio's OpenAI-compatible server on the ``openai`` wire."""

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    name = "lmstudio"
    title = "LM Studio OpenAI-compatible server (localhost:1234/v1)"
    base_path = "/v1"
    # Express answers text/event-stream (the goose #11318 capture); no charset
    stream_content_type = "text/event-stream"
    #: validate() and decode_request() read the body alone (OpenAI's rules, no state)
    pure_requests = True

    paths = frozenset({"/v1/chat/completions"})
    call_id = staticmethod(_call_id)

    # -- routing and auth -------------------------------------------------------------------
    def not_found(self, method: str, path: str) -> Rejection:
        # "Returning 200 anyway": the status is 200, the body an error string
        return Rejection(status=200, body={"error": UNEXPECTED_ENDPOINT.format(
            method=method, path=path)}, rule="route")

    def auth_rejection(self, auth: str) -> Rejection:
        # the wording for a wrong token is not confirmed: the missing-token body is sent
        return Rejection(status=401, body={"error": {
            "type": "invalid_request", "code": "invalid_api_key", "message": AUTH_REQUIRED}},
            rule="auth.invalid" if auth else "auth.missing")

    # -- validation ---------------------------------------------------------------------------
    #: OpenAI's rules shown on LM Studio (the rest are taken and reported as hardening)
    confirmed_rules = {"messages.tool_calls.function": "invalid_messages"}

    def validate(self, body: Any) -> Rejection | None:
        found = super().validate(body)
        if found is not None and found.rule == "messages.tool_calls.function":
            # its own words (fact invalid_messages), in its object shape
            status, error = self.encode_error(ErrorReply(status=400, message=INVALID_MESSAGES))
            return Rejection(status=status, body=error, rule=found.rule)
        return found

    # -- encoding -----------------------------------------------------------------------------
    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        # LM Studio's object shape (the model_not_found 400); its string shape comes from the
        # error kinds (provider_errors) and from raw bodies
        return error.status, {"error": error_object(error)}

    @staticmethod
    def _usage(turn: Turn) -> dict[str, Any]:
        prompt, completion, total = usage_tokens(turn)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": total}

    def _base(self, turn: Turn, body: Mapping[str, Any], obj: str) -> dict[str, Any]:
        model = body.get("model") or DEFAULT_MODEL
        key = f"{model}/{turn.text}/{','.join(c.name for c in turn.tool_calls)}"
        return {"id": _completion_id(key), "object": obj, "created": CREATED, "model": model,
                "system_fingerprint": model}

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant"}
        if not turn.tool_calls or turn.text:
            message["content"] = turn.text or ""
        reasoning = reasoning_text(turn)
        if reasoning is not None:
            message[reasoning_field(body.get("model"))] = reasoning
        if turn.tool_calls:
            message["tool_calls"] = message_calls(turn, self.call_ids(turn))
        response = dict(self._base(turn, body, "chat.completion"), choices=[{
            "index": 0, "logprobs": None, "finish_reason": _finish(turn), "message": message}])
        return self.with_usage(response, turn)

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        plan, quirks = turn.stream, turn.stream.quirks
        include_usage = self.include_usage(body)
        base = self._base(turn, body, "chat.completion.chunk")
        field = reasoning_field(body.get("model"))

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return dict(base, choices=[{"index": 0, "delta": delta, "logprobs": None,
                                        "finish_reason": finish}])

        size = plan.fragment_size
        deltas = self.text_deltas(turn, size, field)
        deltas += [{"tool_calls": [frag]} for frag in self.call_fragments(turn, size, quirks)]
        if "role_chunk_alone" in quirks or not deltas:
            deltas.insert(0, {"content": ""})
        # no empty role chunk: the role rides on the first delta, whatever it carries
        deltas[0] = {"role": "assistant", **deltas[0]}
        chunks = [chunk(d) for d in deltas]
        chunks.append(chunk({}, _finish(turn)))
        if include_usage and turn.usage is not None:
            chunks.append(dict(base, choices=[], usage=self._usage(turn)))
        return self.stream_events(chunks, plan, quirks)

    def sse_events(self, chunks: list[dict[str, Any]], plan: Any,
                   quirks: frozenset[str]) -> list[bytes]:
        """OpenAI's events, with LM Studio's ``event: error`` in place of the plan's error."""
        if plan.error_after is None:
            return super().sse_events(chunks, plan, quirks)
        events = super().sse_events(chunks, plan.model_copy(update={"error_after": None}),
                                    quirks)
        error = lmstudio_stream_error(plan.error.message)
        if "data_no_space" in quirks:
            error = error.replace(b"data: ", b"data:", 1)
        return events[: min(plan.error_after + 1, len(events) - 1)] + [error]


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = LMStudio

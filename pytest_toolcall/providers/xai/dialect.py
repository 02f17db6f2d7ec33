"""xAI (``api.x.ai/v1``), an OpenAI-compatible Chat Completions service (issue 13).

The ``openai`` dialect with what xAI does differently. Every fact below carries its source and
was confirmed 2026-11-25 (the provider registry, ``pytest_toolcall.providers.XAI``, holds them
as data); what could not be confirmed inherits OpenAI's behaviour and is marked so.

- Route ``POST /v1/chat/completions``, bearer auth (docs.x.ai REST reference; the debugging
  page: "Supply an Authorization: Bearer <XAI_API_KEY> header").
- Errors are NOT OpenAI's: a flat ``{"code": "<status name>", "error": "<text>"}`` with the
  gRPC status spelled in kebab case (``invalid-argument``, ``permission-denied``,
  ``resource-exhausted``, ``not-found``; 2025 bodies spelled the code as a sentence, "Client
  specified an invalid argument": historical). A WRONG key is a 400, not a 401 (the debugging
  page: "400 ... An incorrect API key was supplied"): ``{"code": "invalid-argument", "error":
  "Incorrect API key provided. You can obtain an API key from https://console.x.ai."}``; a
  missing key is a 401 (the page's wording; the body is not confirmed).
- Stream: "the function call is returned in whole in a single chunk, not streamed across
  chunks" (docs.x.ai/developers/tools/function-calling): a call's one fragment carries ``id``,
  ``function{name, arguments}`` (the whole JSON), ``index`` and ``type``. That is xAI's normal
  shape, not a quirk a stream may or may not have. Chunks carry no ``finish_reason`` key until
  the finish chunk (``delta: {}``), no ``logprobs``; ``role`` rides on the first delta with the
  first piece; with ``stream_options.include_usage`` a ``choices: []`` chunk carries the usage
  (vercel/ai packages/xai fixtures xai-tool-call.chunks.txt / xai-text.chunks.txt, grok-3-mini
  streams recorded 2026-02-10).
- Reasoning: in Chat Completions only grok-3-mini returns ``message.reasoning_content``
  (``delta.reasoning_content`` pieces before the answer); grok-4 models return none (their
  reasoning is encrypted, Responses API only). Nothing says it must come back, and xAI's own
  clients do not send it back (docs.x.ai reasoning guide; vercel/ai convert-to-xai-chat-messages).
- Usage: ``completion_tokens`` EXCLUDES the reasoning tokens, which ``completion_tokens_details.
  reasoning_tokens`` counts and ``total_tokens`` includes (291 + 26 + 196 = 513 in the recorded
  stream); ``prompt_tokens_details.text_tokens``, ``num_sources_used``, ``cost_in_usd_ticks``.
- Ids: call ids ``call_`` + 8 digits (``call_55117580``), completion ids UUID-shaped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from pytest_toolcall.cases import ErrorReply, Turn
from pytest_toolcall.providers.base import Rejection
from pytest_toolcall.providers._compat import reasoning_text
from pytest_toolcall.providers.openai.dialect import CREATED, OpenAIChat, _finish, ordered_fragments
from pytest_toolcall.providers.xai import errors as _errors

__all__ = ["BAD_KEY", "CODES", "COMPLETION_ID", "DIALECT", "NO_KEY", "XAI", "code_for", "xai_error"]

#: the 400 for a wrong key (autohandai/code-cli #545, 2026-09; a client test "verified live
#: 2026-07-26"); 2025 to 2026-03 it showed the key masked, "Incorrect API key provided:
#: sk***YA. ..." (continuedev/continue #11412): historical
BAD_KEY = "Incorrect API key provided. You can obtain an API key from https://console.x.ai."
#: not confirmed: the 401 body for a request without a key (the debugging page's cause text)
NO_KEY = "No authorization header or an invalid authorization token was provided."
COMPLETION_ID = "de9d896d-e946-b3a7-bb14-75ab33326930"
_FINGERPRINT = "fp_2a885414fb"
#: HTTP status -> xAI's code (the gRPC status, kebab case). Confirmed: 400 invalid-argument,
#: 403 permission-denied, 404 not-found, 429 resource-exhausted (public bodies, see the
#: registry); the others follow the same naming and are not confirmed
CODES = {400: "invalid-argument", 401: "unauthenticated", 403: "permission-denied",
         404: "not-found", 408: "deadline-exceeded", 409: "already-exists",
         413: "invalid-argument", 422: "invalid-argument", 429: "resource-exhausted",
         500: "internal", 501: "unimplemented", 502: "unavailable", 503: "unavailable",
         504: "deadline-exceeded"}


def code_for(status: int) -> str:
    return CODES.get(status, "internal" if status >= 500 else "invalid-argument")


def xai_error(status: int, message: str, *, rule: str, code: str | None = None) -> Rejection:
    """A rejection in xAI's shape: ``{"code": ..., "error": message}``."""
    return Rejection(status=status, body={"code": code or code_for(status), "error": message},
                     rule=rule)


def _call_id(name: str, position: int) -> str:
    digest = hashlib.sha256(f"{name}/{position}".encode()).digest()
    return "call_" + str(10_000_000 + int.from_bytes(digest[:4], "big") % 90_000_000)


class XAI(OpenAIChat):
    """The ``xai`` provider: xAI's Chat Completions on the ``openai`` wire."""

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    name = "xai"
    title = "xAI Chat Completions (api.x.ai/v1)"
    base_path = "/v1"
    pure_requests = True
    paths = frozenset({"/v1/chat/completions"})
    call_id = staticmethod(_call_id)
    call_id_key = "call"

    # -- routing and auth -------------------------------------------------------------------
    def not_found(self, method: str, path: str) -> Rejection:
        # not confirmed: the wording of an unknown route (the status is the debugging page's)
        return xai_error(404, f"Invalid URL ({method} {path})", rule="route")

    def auth_rejection(self, auth: str) -> Rejection:
        if not auth:
            return xai_error(401, NO_KEY, rule="auth.missing")
        return xai_error(400, BAD_KEY, rule="auth.invalid")

    # -- validation ---------------------------------------------------------------------------
    def validate(self, body: Any) -> Rejection | None:
        found = super().validate(body)
        if found is None:
            return None
        # xAI's shape is confirmed; its wording per rule is not: OpenAI's words are played
        return xai_error(found.status, found.message, rule=found.rule)

    # -- encoding -----------------------------------------------------------------------------
    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        return error.status, {"code": error.code or code_for(error.status),
                              "error": error.message}

    @staticmethod
    def _usage(turn: Turn) -> dict[str, Any]:
        u = turn.usage
        assert u is not None
        prompt, completion = u.input_tokens or 0, u.output_tokens or 0
        total = u.total_tokens if u.total_tokens is not None else prompt + completion
        # the reasoning tokens are what total counts beyond prompt and completion
        reasoning = max(total - prompt - completion, 0)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": total,
                "prompt_tokens_details": {"text_tokens": prompt, "audio_tokens": 0,
                                          "image_tokens": 0, "cached_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": reasoning, "audio_tokens": 0,
                                              "accepted_prediction_tokens": 0,
                                              "rejected_prediction_tokens": 0},
                "num_sources_used": 0, "cost_in_usd_ticks": 1330500}

    def _base(self, body: Mapping[str, Any], obj: str) -> dict[str, Any]:
        return {"id": COMPLETION_ID, "object": obj, "created": CREATED,
                "model": body.get("model") or "grok-4.3"}

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        reasoning = reasoning_text(turn)
        message: dict[str, Any] = {"role": "assistant", "content": turn.text or ""}
        if reasoning is not None:
            message["reasoning_content"] = reasoning
        if turn.tool_calls:
            message["tool_calls"] = [
                {"id": cid, "function": {"name": c.name, "arguments": c.arguments_text()},
                 "type": "function"}
                for cid, c in zip(self.call_ids(turn), turn.tool_calls)]
        message["refusal"] = None
        response = dict(self._base(body, "chat.completion"), choices=[
            {"index": 0, "message": message, "finish_reason": _finish(turn)}])
        self.with_usage(response, turn)
        response["system_fingerprint"] = _FINGERPRINT
        return response

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        plan, quirks = turn.stream, turn.stream.quirks
        include_usage = self.include_usage(body)
        base = self._base(body, "chat.completion.chunk")

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            choice: dict[str, Any] = {"index": 0, "delta": delta}
            if finish is not None:  # no finish_reason key before the finish chunk
                choice["finish_reason"] = finish
            return dict(base, choices=[choice], system_fingerprint=_FINGERPRINT)

        size = plan.fragment_size
        deltas = self.text_deltas(turn, size, "reasoning_content")
        # every call whole, in one chunk of its own: one "fragment" per call
        whole = [[self._whole_call(k, cid, turn.tool_calls[k], quirks)]
                 for k, cid in enumerate(self.call_ids(turn))]
        deltas += [{"tool_calls": [frag]} for frag in ordered_fragments(whole, quirks)]
        if not deltas:
            deltas = [{"content": ""}]
        deltas[0]["role"] = "assistant"  # the role rides on the first piece, never alone
        chunks = [chunk(d) for d in deltas]
        chunks.append(chunk({}, _finish(turn)))
        if include_usage and turn.usage is not None:
            chunks.append(dict(base, choices=[], usage=self._usage(turn),
                               system_fingerprint=_FINGERPRINT))
        return self.stream_events(chunks, plan, quirks)

    @staticmethod
    def _whole_call(k: int, cid: str, call: Any, quirks: frozenset[str]) -> dict[str, Any]:
        frag: dict[str, Any] = {"id": cid, "function": {"name": call.name,
                                                        "arguments": call.arguments_text()},
                                "index": k, "type": "function"}
        if "index_stuck_at_zero" in quirks:
            frag["index"] = 0
        if "index_missing" in quirks:
            frag.pop("index")
        if "no_ids" in quirks:
            frag.pop("id")
        return frag

    def stream_error(self, error: ErrorReply) -> dict[str, Any]:
        # not confirmed: the shape of an error inside a 200 stream; OpenAI's is played
        return OpenAIChat.encode_error(self, error)[1]


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = XAI

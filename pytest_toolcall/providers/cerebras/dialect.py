"""Cerebras Inference (``api.cerebras.ai``): an OpenAI-compatible Chat Completions service.

The ``openai`` dialect with what Cerebras does differently. Every fact below carries its source
and was confirmed 2026-11-25 (the provider registry, ``pytest_toolcall.providers.CEREBRAS``,
holds them as data); what could not be confirmed inherits OpenAI's behaviour and is marked so.

- Route: ``POST /v1/chat/completions`` (base_url ``https://api.cerebras.ai/v1``,
  inference-docs.cerebras.ai/resources/openai); ``Authorization: Bearer <key>``.
- Auth: a wrong key is 401 ``{"message": "Wrong API Key", "type": "invalid_request_error",
  "param": "api_key", "code": "wrong_api_key"}``; no key at all is 403 ``{"detail": "Not
  authenticated"}`` (FastAPI's shape), both struck live against api.cerebras.ai on 2026-09-13 in
  a public API-emulation recipe; the same 401 body is matched verbatim by a public Rust client.
- Errors: ``{"message", "type", "param", "code"}`` at the TOP LEVEL, no ``"error"`` key
  (the 401 above; 429 ``too_many_tokens_error`` / ``token_quota_exceeded`` and 402
  ``payment_required_error`` bodies quoted in many public logs and fixtures). Only the
  in-stream error event nests it: ``{"error": {"id", "code", "message", "param", "type"},
  "status_code": N}`` (cerebras_cloud_sdk 1.91.0, ``types/chat/chat_completion.py``
  ``ErrorChunkResponse``).
- Closed request schema: a key Cerebras does not know is refused with 422 ``{"message":
  "body.<key>: property 'body.<key>' is unsupported", "type": "invalid_request_error", "param":
  "validation_error", "code": "wrong_api_format"}`` (``store``: mem0 reports on Cerebras;
  ``prompt_cache_key`` (since then accepted): dirge; ``reasoning``: a Claude-Code proxy note;
  the body keys as in Cerebras' 400 ``wrong_api_format`` bodies quoted by elizaOS tests). The
  known keys are the SDK's ``CompletionCreateParams`` (1.91.0), which now include
  ``parallel_tool_calls``, ``frequency_penalty``, ``logit_bias``, ``presence_penalty`` and
  ``service_tier`` (older guides list them as refused: historical).
- Reasoning (gpt-oss-120b, zai-glm-4.7; inference-docs.cerebras.ai/capabilities/reasoning):
  with the default ``reasoning_format`` (``text_parsed``) or ``parsed`` the chain of thought is
  ``message.reasoning`` (stream: ``delta.reasoning``), next to ``content``; an assistant message
  may carry ``reasoning`` back (SDK ``MessageAssistantMessageRequest.reasoning``);
  ``disable_reasoning`` / ``reasoning_effort`` switch it.
- Stream (a recorded gpt-oss-120b tool-call stream, jleechanorg/codex_plus, 2025-10-04): the
  role chunk alone (``{"role": "assistant"}``), ``delta.reasoning`` pieces, a call's first
  fragment ``{function: {name, arguments: ""}, type, id, index}``, later fragments ``{function:
  {arguments}, type, index}`` (``type`` repeated, no id), then ``{"delta": {}, finish_reason,
  usage, time_info}``; ``time_info`` ``{queue_time, prompt_time, completion_time, total_time,
  created}`` rides with usage (SDK ``ChatChunkResponseTimeInfo``).
- Ids: call ids 9 lowercase hex digits (``75a06f4da`` in the recorded stream); completion ids
  ``chatcmpl-`` and a UUID; ``system_fingerprint`` ``fp_`` and 20 hex digits (a recorded
  qwen-3-32b answer, 2025-05-29).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from pytest_toolcall.cases import ErrorReply, Turn
from pytest_toolcall.providers.base import Rejection
from pytest_toolcall.providers._compat import error_object, reasoning_text, usage_tokens
from pytest_toolcall.providers.openai.dialect import CREATED, OpenAIChat, _finish
from pytest_toolcall.providers.cerebras import errors as _errors

__all__ = [
    "COMPLETION_ID", "Cerebras", "DIALECT", "FINGERPRINT", "KNOWN_KEYS", "NOT_AUTHENTICATED",
    "WRONG_API_KEY", "call_id", "cerebras_error", "unsupported",
]

WRONG_API_KEY = {"message": "Wrong API Key", "type": "invalid_request_error", "param": "api_key",
                 "code": "wrong_api_key"}
NOT_AUTHENTICATED = {"detail": "Not authenticated"}
COMPLETION_ID = "chatcmpl-5f0c7a52-3d6e-4f1b-9a7c-2b3d4e5f6a7b"
FINGERPRINT = "fp_d7c70c58dd52e0143bae"
#: the request keys Cerebras knows: cerebras_cloud_sdk 1.91.0 CompletionCreateParams (the
#: CF-RAY / X-Amz-Cf-Id / X-delay-time entries there are headers, not body keys)
KNOWN_KEYS = frozenset({
    "messages", "model", "clear_thinking", "disable_reasoning", "frequency_penalty",
    "logit_bias", "logprobs", "max_completion_tokens", "max_tokens", "min_completion_tokens",
    "min_tokens", "model_parameters", "n", "parallel_tool_calls", "prediction",
    "presence_penalty", "prompt_cache_key", "reasoning_effort", "reasoning_format",
    "response_format", "seed", "service_tier", "stop", "stream", "stream_options",
    "temperature", "tool_choice", "tools", "top_logprobs", "top_p", "user"})


def cerebras_error(status: int, message: str, *, rule: str, type: str = "invalid_request_error",
                   param: str | None = None, code: str | None = None) -> Rejection:
    """A rejection in Cerebras' shape: message, type, param, code at the top level."""
    return Rejection(status=status, body={"message": message, "type": type, "param": param,
                                          "code": code}, rule=rule)


def unsupported(key: str) -> Rejection:
    """Cerebras' 422 for a request key it does not know."""
    return cerebras_error(422, f"body.{key}: property 'body.{key}' is unsupported",
                          param="validation_error", code="wrong_api_format",
                          rule="body.unsupported")


def call_id(key: str, position: int) -> str:
    """9 lowercase hex digits, as recorded (``75a06f4da``)."""
    return hashlib.sha256(f"{key}/{position}".encode()).hexdigest()[:9]


def thinking_switch(body: Mapping[str, Any]) -> bool | None:
    """``disable_reasoning`` (or ``reasoning_effort: none``) as the request's ``reasoning``."""
    if body.get("disable_reasoning") is True or body.get("reasoning_effort") == "none":
        return False
    return True if body.get("disable_reasoning") is False else None


class Cerebras(OpenAIChat):
    """The ``cerebras`` provider: Cerebras Inference's Chat Completions on the ``openai`` wire."""

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    name = "cerebras"
    title = "Cerebras Inference Chat Completions (api.cerebras.ai)"
    base_path = "/v1"
    paths = frozenset({"/v1/chat/completions"})
    reasoning_field = "reasoning"
    thinking_switch = staticmethod(thinking_switch)
    call_id = staticmethod(call_id)

    # -- auth -----------------------------------------------------------------------------------
    def auth_rejection(self, auth: str) -> Rejection:
        if not auth:
            return Rejection(status=403, body=dict(NOT_AUTHENTICATED), rule="auth.missing")
        return Rejection(status=401, body=dict(WRONG_API_KEY), rule="auth.invalid")

    # -- validation ---------------------------------------------------------------------------
    def validate(self, body: Any) -> Rejection | None:
        if isinstance(body, Mapping):
            for key in body:
                if key not in KNOWN_KEYS:
                    return unsupported(str(key))
        found = super().validate(body)
        if found is not None and isinstance(found.body, Mapping) and "error" in found.body:
            # not confirmed rule by rule: OpenAI's words, in Cerebras' top-level shape
            return Rejection(status=found.status, body=dict(found.body["error"]),
                             rule=found.rule)
        return found

    # -- encoding -----------------------------------------------------------------------------
    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        return error.status, error_object(error)  # at the top level, no "error" envelope

    @staticmethod
    def _usage(turn: Turn) -> dict[str, Any]:
        prompt, completion, total = usage_tokens(turn)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": total,
                "prompt_tokens_details": {"cached_tokens": 0}}

    @staticmethod
    def time_info() -> dict[str, Any]:
        return {"queue_time": 0.0007, "prompt_time": 0.157, "completion_time": 0.14,
                "total_time": 0.3, "created": float(CREATED)}

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": turn.text}
        reasoning = reasoning_text(turn)
        if reasoning is not None:
            message["reasoning"] = reasoning
        if turn.tool_calls:
            message["tool_calls"] = [
                {"function": {"name": c.name, "arguments": c.arguments_text()},
                 "type": "function", "id": cid}
                for cid, c in zip(self.call_ids(turn), turn.tool_calls)]
        response: dict[str, Any] = {
            "id": COMPLETION_ID,
            "choices": [{"finish_reason": _finish(turn), "index": 0, "message": message}],
            "created": CREATED, "model": body.get("model") or "gpt-oss-120b",
            "system_fingerprint": FINGERPRINT, "object": "chat.completion"}
        self.with_usage(response, turn)
        response["time_info"] = self.time_info()
        return response

    @staticmethod
    def _call_fragments(k: int, cid: str, call: Any, size: int,
                        quirks: frozenset[str]) -> list[dict[str, Any]]:
        frags = OpenAIChat._call_fragments(k, cid, call, size, quirks)
        # Cerebras repeats type on every fragment (the recorded stream); the named quirks
        # (index_missing, no_ids, ...) are applied by _call_fragments before
        return [dict(f, type="function") if "type" not in f else f for f in frags]

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        plan, quirks = turn.stream, turn.stream.quirks
        base = {"id": COMPLETION_ID, "created": CREATED,
                "model": body.get("model") or "gpt-oss-120b",
                "system_fingerprint": FINGERPRINT, "object": "chat.completion.chunk"}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            choice: dict[str, Any] = {"delta": delta, "index": 0}
            if finish is not None:
                choice["finish_reason"] = finish
            return dict(base, choices=[choice])

        size = plan.fragment_size
        chunks = [chunk(d) for d in [{"role": "assistant"}, *self.text_deltas(turn, size)]]
        fragments = self.call_fragments(turn, size, quirks)
        if fragments and "call_in_role_chunk" in quirks:
            chunks[0]["choices"][0]["delta"]["tool_calls"] = [fragments.pop(0)]
        chunks += [chunk({"tool_calls": [frag]}) for frag in fragments]
        last = chunk({}, _finish(turn))
        if turn.usage is not None:
            last["usage"] = self._usage(turn)
        last["time_info"] = self.time_info()
        chunks.append(last)
        return self.stream_events(chunks, plan, quirks)

    def sse_events(self, chunks: list[dict[str, Any]], plan: Any,
                   quirks: frozenset[str]) -> list[bytes]:
        events = super().sse_events(chunks, plan, quirks)
        if plan.error_after is not None:
            # the SDK's ErrorChunkResponse: the error nested, with the HTTP status beside it
            status, err = self.encode_error(plan.error)
            event = {"error": dict(err, id=COMPLETION_ID), "status_code": status}
            prefix = b"data:" if "data_no_space" in quirks else b"data: "
            events[-1] = prefix + json.dumps(event).encode() + b"\n\n"
        return events


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = Cerebras

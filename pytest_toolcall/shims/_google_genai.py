"""The official ``google-genai`` SDK: ``models.generate_content`` and
``models.generate_content_stream``.

``shims.google_genai(lambda ep: genai.Client(api_key=ep.api_key, http_options=types.HttpOptions(
base_url=ep.base_url.rsplit("/", 1)[0], api_version="v1beta", httpx_client=ep.client)))``.

The canonical request becomes the SDK's ``contents`` and ``config`` (the SDK validates them into
its own types and serialises them again: that is where its defects show). Tool results go as
``{"output": ...}`` / ``{"error": ...}``, the keys the SDK's ``FunctionResponse`` documents.
Calls without an id (Gemini often sends none) get a local id, never sent back; a call's
``thought_signature`` is kept and replayed with it, as Gemini requires.
"""

from __future__ import annotations

import importlib
import uuid
from collections.abc import Iterator
from typing import Any

from pytest_toolcall.core.model import (
    ChatRequest,
    ChatResponse,
    StreamDone,
    TextDelta,
    ToolCall,
    ToolCallComplete,
    Usage,
)
from pytest_toolcall.core.errors import ProviderError
from pytest_toolcall.shims._base import Shim, encoder, maps_errors

_FINISH = {"STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "content_filter",
           "RECITATION": "content_filter", "BLOCKLIST": "content_filter",
           "PROHIBITED_CONTENT": "content_filter", "SPII": "content_filter",
           "IMAGE_SAFETY": "content_filter", "MALFORMED_FUNCTION_CALL": "error",
           "UNEXPECTED_TOOL_CALL": "error", "TOO_MANY_TOOL_CALLS": "error"}


def _value(enum: Any) -> str | None:
    return None if enum is None else str(getattr(enum, "value", enum))


def api_error(exc: BaseException) -> ProviderError | None:
    """``google.genai.errors.APIError`` as a ProviderError (None for any other exception): its
    ``code`` is the HTTP status, its ``status`` the provider's own (``RESOURCE_EXHAUSTED``);
    retryable is the SDK's own retry policy (``_api_client._RETRY_HTTP_STATUS_CODES``: 408, 429,
    500, 502, 503, 504 in google-genai 3.4, read 2026-11-24). The SDK never reads
    RetryInfo.retryDelay (googleapis/python-genai#1875), so no delay is reported. Shared with
    the LangChain shim (langchain-google-genai raises these, or its own errors chained from
    them)."""
    errors = importlib.import_module("google.genai.errors")
    if not isinstance(exc, errors.APIError):
        return None
    codes = getattr(importlib.import_module("google.genai._api_client"),
                    "_RETRY_HTTP_STATUS_CODES", None)
    status = exc.code if isinstance(exc.code, int) and exc.code > 0 else None
    return ProviderError(
        str(exc.message or exc), status=status,
        type=exc.status if isinstance(exc.status, str) else None, body=exc.details,
        retryable=(status in codes) if codes is not None and status is not None else None)


def gemini_finish(reason: str | None, has_calls: bool) -> Any:
    """Gemini's finishReason (the enum's name) as a canonical finish reason: STOP with calls is
    ``tool_calls`` (Gemini says STOP for a turn of calls). Shared with the LangChain shim."""
    if reason is None:
        return None
    if reason == "STOP" and has_calls:
        return "tool_calls"
    return _FINISH.get(reason, "other")


class GoogleGenaiShimAdapter:
    def __init__(self, client: Any) -> None:
        from pytest_toolcall.providers.gemini.reference import SYNTHETIC_ID_PREFIX

        self.client = client
        self.prefix = SYNTHETIC_ID_PREFIX
        self.encoder = encoder("gemini")
        self.encoder.signatures = {}  # call id -> thought_signature (bytes), replayed with it

    def provider_error(self, exc: Exception) -> ProviderError | None:
        return api_error(exc)

    def kwargs(self, request: ChatRequest) -> dict[str, Any]:
        body = self.encoder.build_body(request, stream=False)
        config: dict[str, Any] = {}
        if "systemInstruction" in body:
            config["system_instruction"] = body["systemInstruction"]
        if "tools" in body:
            config["tools"] = body["tools"]
        if "toolConfig" in body:
            config["tool_config"] = body["toolConfig"]
        model = body.get("model") or request.model or self.encoder.model
        return {"model": model, "contents": body["contents"], "config": config or None}

    @maps_errors
    def complete(self, request: ChatRequest) -> ChatResponse:
        return self.read(self.client.models.generate_content(**self.kwargs(request)))

    @maps_errors
    def stream(self, request: ChatRequest) -> Iterator[Any]:
        calls: list[ToolCall] = []
        finish: str | None = None
        usage: Usage | None = None
        for chunk in self.client.models.generate_content_stream(**self.kwargs(request)):
            part_text, part_calls, reason = self.parts(chunk)
            if part_text:
                yield TextDelta(text=part_text)
            calls += part_calls
            finish = reason or self.blocked(chunk) or finish
            usage = self.usage(chunk.usage_metadata) or usage
        for call in calls:
            yield ToolCallComplete(call=call)
        yield StreamDone(finish_reason=self.finish(finish, bool(calls)), usage=usage)

    def parts(self, response: Any) -> tuple[str, list[ToolCall], str | None]:
        if not response.candidates:
            return "", [], None
        candidate = response.candidates[0]
        parts = (candidate.content.parts if candidate.content else None) or []
        text = "".join(p.text for p in parts if p.text and not p.thought)
        calls = []
        for part in parts:
            if part.function_call is None:
                continue
            call_id = part.function_call.id or self.prefix + uuid.uuid4().hex[:16]
            if part.thought_signature:
                self.encoder.signatures[call_id] = part.thought_signature
            calls.append(ToolCall.from_raw(id=call_id, name=part.function_call.name or "",
                                           arguments=part.function_call.args))
        return text, calls, _value(candidate.finish_reason)

    @staticmethod
    def blocked(response: Any) -> str | None:
        """``SAFETY`` for a blocked prompt (no candidates, the SDK's ``prompt_feedback`` with a
        ``block_reason``; a stream: its one chunk), which ends as a SAFETY finish would."""
        feedback = response.prompt_feedback
        if not response.candidates and feedback is not None and feedback.block_reason is not None:
            return "SAFETY"
        return None

    def read(self, response: Any) -> ChatResponse:
        text, calls, reason = self.parts(response)
        reason = reason or self.blocked(response)
        return ChatResponse(text=text or None, tool_calls=tuple(calls),
                            finish_reason=self.finish(reason, bool(calls)),
                            usage=self.usage(response.usage_metadata),
                            model=response.model_version)

    @staticmethod
    def finish(reason: str | None, has_calls: bool) -> Any:
        return gemini_finish(reason, has_calls)

    @staticmethod
    def usage(raw: Any) -> Usage | None:
        if raw is None:
            return None
        return Usage(input_tokens=raw.prompt_token_count,
                     output_tokens=raw.candidates_token_count,
                     total_tokens=raw.total_token_count)


class GoogleGenaiShim(Shim):
    expected = "a google.genai.Client"
    shim, requires = "google_genai", ("google.genai", "google-genai")
    client_class = "Client"
    adapter_class = GoogleGenaiShimAdapter

"""The reference OpenRouter adapter: the OpenAI Chat Completions adapter plus OpenRouter's
reasoning fields and its mid-stream error event.

- ``message.reasoning_details`` (stream: ``delta.reasoning_details`` pieces) is decoded into
  ``ChatResponse.reasoning``: ``reasoning.text`` -> ``Reasoning(type="thinking", text,
  signature)``, ``reasoning.encrypted`` -> ``Reasoning(type="redacted_thinking", signature=data,
  id)``, ``reasoning.summary`` -> ``Reasoning(type="reasoning", text=summary)``; with no
  details, ``message.reasoning`` (text) is one thinking entry. An assistant message that carries
  reasoning sends it back as ``reasoning_details``, the encrypted data unchanged: a Gemini model
  answers 400 "Gemini models require OpenRouter reasoning details to be preserved in each
  request" otherwise (openrouter.ai/docs/use-cases/reasoning-tokens, "Preserving reasoning
  blocks"; OpenRouterTeam/ai-sdk-provider #381; confirmed 2026-11-25). The entries' ``format``
  is not kept: the canonical ``Reasoning`` has no field for it, and whether OpenRouter needs it
  back is not confirmed.
- An error after the stream began is a data event with a top-level ``error`` (``code`` an HTTP
  status or a string such as ``server_error``) and ``finish_reason: "error"``
  (docs/api-reference/streaming): a :class:`StreamError`, retryable when the code is a
  retryable status or type.
- Role on every chunk and the repeated finish chunk need nothing: the OpenAI accumulator ignores
  ``role`` and takes the last finish reason and usage it sees.
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.core.errors import StreamError, status_is_retryable
from pytest_toolcall.core.model import AssistantMessage, ChatResponse, Reasoning, ReasoningComplete
from pytest_toolcall.reference._http import RETRYABLE_TYPES
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter, StreamAccumulator
from pytest_toolcall.providers.openrouter.dialect import reasoning_of

__all__ = ["ADAPTER", "OpenRouterAdapter", "OpenRouterStreamAccumulator"]

DEFAULT_MODEL = "google/gemini-3-flash-preview"


def detail_of(reasoning: Reasoning) -> dict[str, Any]:
    """One ``reasoning_details`` entry for a canonical reasoning entry."""
    if reasoning.type == "redacted_thinking":
        out: dict[str, Any] = {"type": "reasoning.encrypted", "data": reasoning.signature or ""}
        if reasoning.id is not None:
            out["id"] = reasoning.id
        return out
    if reasoning.type == "reasoning":
        return {"type": "reasoning.summary", "summary": reasoning.text or ""}
    out = {"type": "reasoning.text", "text": reasoning.text or ""}
    if reasoning.signature is not None:
        out["signature"] = reasoning.signature
    return out


class OpenRouterAdapter(OpenAIChatAdapter):
    """Canonical requests to ``POST {base_url}/chat/completions`` on OpenRouter and back."""

    DEFAULT_MODEL = DEFAULT_MODEL

    # -- canonical -> wire --------------------------------------------------------------------
    def encode_message(self, message: Any) -> dict[str, Any]:
        out = super().encode_message(message)
        if isinstance(message, AssistantMessage) and message.reasoning:
            out["reasoning_details"] = self.encode_reasoning(message.reasoning)
        return out

    @staticmethod
    def encode_reasoning(reasoning: tuple[Reasoning, ...]) -> list[dict[str, Any]]:
        return [dict(detail_of(r), index=k) for k, r in enumerate(reasoning)]

    # -- wire -> canonical --------------------------------------------------------------------
    @staticmethod
    def parse_reasoning(message: dict[str, Any]) -> tuple[Reasoning, ...]:
        details = message.get("reasoning_details")
        if isinstance(details, list) and details:
            return tuple(r for r in (reasoning_of(d) for d in details) if r is not None)
        text = message.get("reasoning")
        return (Reasoning(type="thinking", text=text),) if isinstance(text, str) and text else ()

    def parse_response(self, data: Any) -> ChatResponse:
        response = super().parse_response(data)
        reasoning = self.parse_reasoning(data["choices"][0]["message"])
        return response.model_copy(update={"reasoning": reasoning}) if reasoning else response

    def new_accumulator(self) -> OpenRouterStreamAccumulator:
        return OpenRouterStreamAccumulator(self)


def mid_stream_error(data: dict[str, Any]) -> StreamError:
    """OpenRouter's unified mid-stream error event as a typed error."""
    error = data.get("error") or {}
    if not isinstance(error, dict):
        error = {"message": str(error)}
    code = error.get("code")
    retryable = (status_is_retryable(code) if isinstance(code, int)
                 else code in RETRYABLE_TYPES)
    return StreamError(str(error.get("message", error)), code=code, body=data,
                       retryable=bool(retryable))


class OpenRouterStreamAccumulator(StreamAccumulator):
    """Also joins ``delta.reasoning_details`` pieces (same type and index: one entry), handed
    over before the calls; a top-level ``error`` is OpenRouter's mid-stream error."""

    def __init__(self, adapter: OpenRouterAdapter) -> None:
        super().__init__(adapter)
        self.details: list[dict[str, Any]] = []
        self.text: list[str] = []

    def error_event(self, data: Any) -> Exception:
        if isinstance(data, dict) and data.get("error"):
            return mid_stream_error(data)
        return super().error_event(data)

    def feed(self, data: dict[str, Any]) -> list[Any]:
        for choice in data.get("choices") or ():
            delta = choice.get("delta") or {}
            if isinstance(delta.get("reasoning"), str):
                self.text.append(delta["reasoning"])
            for piece in delta.get("reasoning_details") or ():
                self.add_detail(piece)
        return super().feed(data)

    def add_detail(self, piece: Any) -> None:
        if not isinstance(piece, dict):
            return
        last = self.details[-1] if self.details else None
        kind = piece.get("type")
        key = {"reasoning.text": "text", "reasoning.summary": "summary"}.get(str(kind))
        if (last is not None and key is not None and last.get("type") == kind
                and last.get("index") == piece.get("index")):
            last[key] = (last.get(key) or "") + (piece.get(key) or "")
            if piece.get("signature"):
                last["signature"] = piece["signature"]
            return
        self.details.append(dict(piece))

    def finish_events(self) -> list[Any]:
        events = super().finish_events()
        if self.details:
            found = [r for r in (reasoning_of(d) for d in self.details) if r is not None]
        elif "".join(self.text):
            found = [Reasoning(type="thinking", text="".join(self.text))]
        else:
            found = []
        for k, reasoning in enumerate(found):
            events.insert(k, ReasoningComplete(reasoning=reasoning))
        return events


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = OpenRouterAdapter

"""The reference Mistral adapter: the OpenAI Chat Completions adapter with Mistral's differences.

- Tool call ids: Mistral takes exactly 9 letters and digits and answers 400 "Tool call id was
  ... but must be a-z, A-Z, 0-9, with a length of 9." to any other (gptel #1203, ironclaw
  #1241, opencode #1680). A history that holds ids minted elsewhere (``call_...``, ``toolu_...``)
  is re-mapped: an id that fits is kept, any other becomes 9 letters and digits derived from it,
  so a call and its result map alike and distinct ids stay distinct (langchain PR #24668 does
  the same with a hash).
- Content: an answer's ``content`` may be a list of chunks: ``thinking`` chunks (the model's
  reasoning, ``{"type": "thinking", "thinking": [{"type": "text", "text": ...}]}``) and ``text``
  chunks (the answer). The text is the answer's text; the thinking is ``ChatResponse.reasoning``
  (one ``Reasoning(type="thinking")``). In a stream ``delta.content`` is such a list while the
  model thinks, then plain strings.
- The thinking goes back as a thinking chunk at the head of the assistant message's content
  list (mistralai/client-python examples/mistral/chat/reasoning_multi_turn.py); never as
  ``reasoning_content``, which Mistral refuses with 422 "Extra inputs are not permitted"
  (crush #1590, litellm #30835).
- Errors: ``{"object": "error", "message", "type", "param", "code"}`` at the top level; 422
  bodies are pydantic's ``{"detail": [...]}``; 401 is ``{"detail": "Unauthorized"}``.
- No ``stream_options``: usage rides on the finish chunk, and the request schema has no such
  key (mistralai/client-python ChatCompletionStreamRequest). ``ChatRequest.tool_choice``
  ``required`` is sent as Mistral's ``any``.

Confirmed 2026-11-25; the sources are in ``pytest_toolcall.providers.MISTRAL``.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from pytest_toolcall.core.errors import ProviderError
from pytest_toolcall.core.model import (AssistantMessage, ChatResponse, Reasoning,
                                        ReasoningComplete, TextDelta, ToolCall, ToolMessage)
from pytest_toolcall.providers._compat import minted
from pytest_toolcall.reference._http import read_error, retry_fields
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter, StreamAccumulator

__all__ = ["ADAPTER", "MistralAdapter", "MistralStreamAccumulator", "mistral_id"]

DEFAULT_MODEL = "mistral-small-latest"
_ID = re.compile(r"^[a-zA-Z0-9]{9}$")


def mistral_id(call_id: str | None) -> str | None:
    """``call_id`` as Mistral takes it: kept when it is 9 letters and digits, else 9 letters and
    digits derived from it (the same id always maps alike)."""
    if call_id is None or _ID.match(call_id):
        return call_id
    return minted(call_id, 9)


class MistralAdapter(OpenAIChatAdapter):
    """Canonical requests to ``POST {base_url}/chat/completions`` on Mistral and back."""

    DEFAULT_MODEL = DEFAULT_MODEL
    STREAM_OPTIONS = False  # the request schema has no such key; usage rides on the finish chunk

    # -- canonical -> wire --------------------------------------------------------------------
    def encode_tool_choice(self, choice: Any) -> Any:
        return "any" if choice == "required" else super().encode_tool_choice(choice)

    def map_id(self, call_id: str | None) -> str | None:
        return mistral_id(call_id)

    def encode_message(self, message: Any) -> dict[str, Any]:
        out = super().encode_message(message)
        if out.get("role") == "developer":  # Mistral's roles: system, user, assistant, tool
            out["role"] = "system"
        if isinstance(message, ToolMessage):
            out["tool_call_id"] = self.map_id(message.tool_call_id)
        if isinstance(message, AssistantMessage):
            thinking = self.encode_reasoning(message.reasoning)
            if thinking:
                text = out.get("content")
                out["content"] = thinking + ([{"type": "text", "text": text}] if text else [])
        return out

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        out = super().encode_call(call)
        out["id"] = self.map_id(call.id)
        return out

    @staticmethod
    def encode_reasoning(reasoning: tuple[Reasoning, ...]) -> list[dict[str, Any]]:
        """The thinking chunks of a turn, as they came."""
        return [{"type": "thinking", "thinking": [{"type": "text", "text": r.text or ""}]}
                for r in reasoning if r.type == "thinking"]

    # -- wire -> canonical --------------------------------------------------------------------
    @staticmethod
    def thinking_of(content: Any) -> list[str]:
        """The texts of the thinking chunks of a content list."""
        if not isinstance(content, list):
            return []
        out = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "thinking":
                inner = part.get("thinking")
                if isinstance(inner, str):
                    out.append(inner)
                else:
                    out.append("".join(str(c.get("text", "")) for c in inner or ()
                                       if isinstance(c, dict) and c.get("type", "text") == "text"))
        return out

    def parse_response(self, data: Any) -> ChatResponse:
        response = super().parse_response(data)
        thoughts = self.thinking_of(data["choices"][0]["message"].get("content"))
        if not thoughts:
            return response
        reasoning = (Reasoning(type="thinking", text="".join(thoughts)),)
        return response.model_copy(update={"reasoning": reasoning})

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        if response.status_code < 400:
            return
        data, _ = read_error(body)
        if isinstance(data, dict) and "detail" in data:
            detail = data["detail"]
            if isinstance(detail, list):
                message = "; ".join(f"{d.get('msg')} at {'.'.join(map(str, d.get('loc', ())))}"
                                    for d in detail if isinstance(d, dict))
            else:
                message = str(detail)
            raise ProviderError(message, status=response.status_code, body=data,
                                **retry_fields(response, data))
        if isinstance(data, dict) and "message" in data:
            code = data.get("code")
            raise ProviderError(str(data["message"]), status=response.status_code,
                                type=data.get("type"), code=None if code is None else str(code),
                                param=data.get("param"), body=data,
                                **retry_fields(response, data, code))
        super().raise_for_error(response, body)

    def new_accumulator(self) -> MistralStreamAccumulator:
        return MistralStreamAccumulator(self)


class MistralStreamAccumulator(StreamAccumulator):
    """Reads ``delta.content`` lists: thinking chunks are joined into the reasoning, handed
    over before the calls; text chunks are text."""

    def __init__(self, adapter: MistralAdapter) -> None:
        super().__init__(adapter)
        self.reasoning: list[str] | None = None

    def feed(self, data: dict[str, Any]) -> list[Any]:
        events: list[Any] = []
        rest = dict(data)
        choices = []
        for choice in data.get("choices") or ():
            delta = dict(choice.get("delta") or {})
            content = delta.get("content")
            if isinstance(content, list):
                thoughts = MistralAdapter.thinking_of(content)
                if thoughts:
                    self.reasoning = (self.reasoning or []) + thoughts
                text = self.adapter.parse_content(content)
                if text:
                    events.append(TextDelta(text=text))
                delta["content"] = None
            choices.append(dict(choice, delta=delta))
        rest["choices"] = choices
        return events + super().feed(rest)

    def finish_events(self) -> list[Any]:
        events = super().finish_events()
        if self.reasoning is not None:
            reasoning = Reasoning(type="thinking", text="".join(self.reasoning))
            events.insert(0, ReasoningComplete(reasoning=reasoning))
        return events


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = MistralAdapter

"""The reference DeepSeek adapter: the OpenAI Chat Completions adapter plus ``reasoning_content``.

In thinking mode (the default on DeepSeek's V4 models) the answer carries the chain of thought in
``message.reasoning_content`` (``delta.reasoning_content`` in a stream), next to ``content``. It
is not the answer's text: it goes to ``ChatResponse.reasoning`` as one ``Reasoning(type=
"thinking", text=...)``, and an assistant message that carries it sends it back as
``reasoning_content``, unchanged, even when it is the empty string: DeepSeek answers 400 "The
`reasoning_content` in the thinking mode must be passed back to the API." when a tool-call turn
comes back without it (api-docs.deepseek.com/guides/thinking_mode, confirmed 2026-11-25).
``ChatRequest.reasoning`` True / False sends ``thinking: {"type": "enabled" / "disabled"}``.
"""

from __future__ import annotations

from typing import Any

from ..model import AssistantMessage, ChatRequest, ChatResponse, Reasoning, ReasoningComplete
from .openai import OpenAIChatAdapter, StreamAccumulator

__all__ = ["DeepSeekAdapter", "DeepSeekStreamAccumulator"]

#: DeepSeek's current model ids (deepseek-chat / deepseek-reasoner were aliases of
#: deepseek-v4-flash without / with thinking, scheduled to end 2026-07-24)
DEFAULT_MODEL = "deepseek-v4-flash"


class DeepSeekAdapter(OpenAIChatAdapter):
    """Canonical requests to ``POST {base_url}/chat/completions`` on DeepSeek and back."""

    DEFAULT_MODEL = DEFAULT_MODEL

    def __init__(self, base_url: str, api_key: str, *, model: str = DEFAULT_MODEL,
                 **kwargs: Any) -> None:
        super().__init__(base_url, api_key, model=model, **kwargs)

    # -- canonical -> wire --------------------------------------------------------------------
    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        if request.reasoning is not None:
            body["thinking"] = {"type": "enabled" if request.reasoning else "disabled"}
        return body

    def encode_message(self, message: Any) -> dict[str, Any]:
        out = super().encode_message(message)
        if isinstance(message, AssistantMessage):
            text = self.encode_reasoning(message.reasoning)
            if text is not None:
                out["reasoning_content"] = text
        return out

    @staticmethod
    def encode_reasoning(reasoning: tuple[Reasoning, ...]) -> str | None:
        """The ``reasoning_content`` of a turn: its thinking text as it came, "" included."""
        kept = [r for r in reasoning if r.type == "thinking"]
        if not kept:
            return None
        return "".join(r.text or "" for r in kept)

    # -- wire -> canonical --------------------------------------------------------------------
    @staticmethod
    def parse_reasoning(text: Any) -> tuple[Reasoning, ...]:
        if not isinstance(text, str):
            return ()
        return (Reasoning(type="thinking", text=text),)

    def parse_response(self, data: Any) -> ChatResponse:
        response = super().parse_response(data)
        message = data["choices"][0]["message"]
        reasoning = self.parse_reasoning(message.get("reasoning_content"))
        return response.model_copy(update={"reasoning": reasoning}) if reasoning else response

    def new_accumulator(self) -> DeepSeekStreamAccumulator:
        return DeepSeekStreamAccumulator(self)


class DeepSeekStreamAccumulator(StreamAccumulator):
    """Also joins ``delta.reasoning_content`` pieces; the reasoning is handed over before the
    calls (a ``null`` piece, as on content and finish chunks, is no reasoning)."""

    def __init__(self, adapter: DeepSeekAdapter) -> None:
        super().__init__(adapter)
        self.reasoning: list[str] | None = None

    def feed(self, data: dict[str, Any]) -> list[Any]:
        for choice in data.get("choices") or ():
            piece = (choice.get("delta") or {}).get("reasoning_content")
            if isinstance(piece, str):
                self.reasoning = (self.reasoning or []) + [piece]
        return super().feed(data)

    def finish_events(self) -> list[Any]:
        events = super().finish_events()
        if self.reasoning is not None:
            (reasoning,) = DeepSeekAdapter.parse_reasoning("".join(self.reasoning))
            events.insert(0, ReasoningComplete(reasoning=reasoning))
        return events

"""The reasoning field that OpenAI-compatible services add to Chat Completions, shared.

DeepSeek, Zhipu, llama.cpp, Fireworks and xAI put the chain of thought in ``message.
reasoning_content`` (``delta.reasoning_content`` in a stream); Groq, Cerebras, Together and vLLM
in ``message.reasoning``; LM Studio in either. The mechanics are the same everywhere, only the
wire field and whether the service reads it back differ, so each adapter names those two and
inherits the rest (the sources of each service's choice are in its own module's docstring):

- the field's text goes to ``ChatResponse.reasoning`` as one ``Reasoning(type="thinking")``,
  never into the answer's text ("" included: an empty thought is still one);
- a stream's pieces are joined and the reasoning is handed over before the calls (a ``null``
  piece, as on content and finish chunks, is no reasoning);
- with :attr:`ReasoningChatAdapter.SEND_REASONING`, an assistant message that carries thinking
  sends it back, unchanged, under the first of the fields.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pytest_toolcall.core.model import AssistantMessage, ChatResponse, Reasoning, ReasoningComplete
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter, StreamAccumulator

__all__ = ["ReasoningChatAdapter", "ReasoningStreamAccumulator"]


class ReasoningChatAdapter(OpenAIChatAdapter):
    """The OpenAI Chat Completions adapter plus a reasoning field on messages and deltas."""

    #: where the service puts the reasoning, read in this order (the first string wins)
    REASONING_FIELDS: ClassVar[tuple[str, ...]] = ("reasoning_content",)
    #: whether an assistant message's thinking goes back, as ``REASONING_FIELDS[0]``
    SEND_REASONING: ClassVar[bool] = True

    # -- canonical -> wire --------------------------------------------------------------------
    def encode_message(self, message: Any) -> dict[str, Any]:
        out = super().encode_message(message)
        if self.SEND_REASONING and isinstance(message, AssistantMessage):
            text = self.encode_reasoning(message.reasoning)
            if text is not None:
                out[self.REASONING_FIELDS[0]] = text
        return out

    @staticmethod
    def encode_reasoning(reasoning: tuple[Reasoning, ...]) -> str | None:
        """The reasoning text of a turn: its thinking text as it came, "" included."""
        kept = [r for r in reasoning if r.type == "thinking"]
        if not kept:
            return None
        return "".join(r.text or "" for r in kept)

    # -- wire -> canonical --------------------------------------------------------------------
    @classmethod
    def reasoning_text(cls, holder: dict[str, Any]) -> str | None:
        """The reasoning text of a message or delta: its first field that holds a string."""
        for field in cls.REASONING_FIELDS:
            text = holder.get(field)
            if isinstance(text, str):
                return text
        return None

    @staticmethod
    def parse_reasoning(text: Any) -> tuple[Reasoning, ...]:
        if not isinstance(text, str):
            return ()
        return (Reasoning(type="thinking", text=text),)

    def parse_response(self, data: Any) -> ChatResponse:
        response = super().parse_response(data)
        reasoning = self.parse_reasoning(self.reasoning_text(data["choices"][0]["message"]))
        return response.model_copy(update={"reasoning": reasoning}) if reasoning else response

    def new_accumulator(self) -> ReasoningStreamAccumulator:
        return ReasoningStreamAccumulator(self)


class ReasoningStreamAccumulator(StreamAccumulator):
    """Also joins the reasoning pieces of the deltas; the reasoning is handed over before the
    calls."""

    adapter: ReasoningChatAdapter

    def __init__(self, adapter: ReasoningChatAdapter) -> None:
        super().__init__(adapter)
        self.reasoning: list[str] | None = None

    def reasoning_pieces(self, delta: dict[str, Any]) -> list[str]:
        text = self.adapter.reasoning_text(delta)
        return [] if text is None else [text]

    def feed(self, data: dict[str, Any]) -> list[Any]:
        for choice in data.get("choices") or ():
            for piece in self.reasoning_pieces(choice.get("delta") or {}):
                self.reasoning = (self.reasoning or []) + [piece]
        return super().feed(data)

    def finish_events(self) -> list[Any]:
        events = super().finish_events()
        if self.reasoning is not None:
            (reasoning,) = ReasoningChatAdapter.parse_reasoning("".join(self.reasoning))
            events.insert(0, ReasoningComplete(reasoning=reasoning))
        return events

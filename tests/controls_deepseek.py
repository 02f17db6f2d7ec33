"""Negative controls for the DeepSeek cases: the reference :class:`DeepSeekAdapter` with ONE thing
broken each; the docstring names the bug and its public report. ``tests/test_controls_deepseek.py``
pairs each with the case that must fail it and the clause."""

from __future__ import annotations

from typing import Any

from pytest_toolcall.model import ChatResponse
from pytest_toolcall.reference.deepseek import DeepSeekAdapter, DeepSeekStreamAccumulator
from pytest_toolcall.reference.openai import OpenAIChatAdapter

__all__ = ["DropsReasoning", "EditsReasoning", "NonEmptyReasoningOnly", "ReasoningAsText",
           "ReasoningNotDecoded", "StreamDropsReasoning", "UsageChunkOnly", "RetriesEverything"]


class DropsReasoning(DeepSeekAdapter):
    """The plain OpenAI encoder: reasoning_content never goes back (langchain #37713, crewAI
    #5878, opencode #24083): DeepSeek's 400."""

    def encode_message(self, message: Any) -> dict[str, Any]:
        return OpenAIChatAdapter.encode_message(self, message)


class EditsReasoning(DeepSeekAdapter):
    """Sends the reasoning back trimmed (a re-serialising history store)."""

    @staticmethod
    def encode_reasoning(reasoning: Any) -> str | None:
        text = DeepSeekAdapter.encode_reasoning(reasoning)
        return None if text is None else text.strip()


class NonEmptyReasoningOnly(DeepSeekAdapter):
    """Sends reasoning_content only when it is non-empty (deepseek-harness #739's
    serializeAssistant; Raven #297): an empty one is dropped, and DeepSeek answers 400."""

    @staticmethod
    def encode_reasoning(reasoning: Any) -> str | None:
        return DeepSeekAdapter.encode_reasoning(reasoning) or None


class ReasoningAsText(DeepSeekAdapter):
    """Folds the chain of thought into the answer's text (a client that shows '<think>' text)."""

    def parse_response(self, data: Any) -> ChatResponse:
        response = super().parse_response(data)
        thought = "".join(r.text or "" for r in response.reasoning)
        return response.model_copy(update={"text": thought + (response.text or "")})


class ReasoningNotDecoded(DeepSeekAdapter):
    """The OpenAI decoder: reasoning_content is ignored, nothing can be replayed (the adapters
    behind openai-agents #2155)."""

    def parse_response(self, data: Any) -> ChatResponse:
        return OpenAIChatAdapter.parse_response(self, data)


class _NoReasoningAccumulator(DeepSeekStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        return super(DeepSeekStreamAccumulator, self).feed(data)


class StreamDropsReasoning(DeepSeekAdapter):
    """The stream reader keeps content and tool_calls deltas only (deepseek-harness #739 asks
    whether reasoning_content is lost in the streaming chunks)."""

    def new_accumulator(self) -> DeepSeekStreamAccumulator:
        return _NoReasoningAccumulator(self)


class _UsageChunkOnly(DeepSeekStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        if data.get("choices"):
            data = {k: v for k, v in data.items() if k != "usage"}
        return super().feed(data)


class UsageChunkOnly(DeepSeekAdapter):
    """Reads usage only from OpenAI's separate ``choices: []`` chunk, which DeepSeek never sends."""

    def new_accumulator(self) -> DeepSeekStreamAccumulator:
        return _UsageChunkOnly(self)


class RetriesEverything(DeepSeekAdapter):
    """Marks every provider error retryable: a 402 Insufficient Balance is retried forever."""

    def raise_for_error(self, response: Any, body: bytes) -> None:
        try:
            super().raise_for_error(response, body)
        except Exception as exc:
            exc.retryable = True  # type: ignore[attr-defined]
            raise


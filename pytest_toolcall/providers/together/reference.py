"""The reference Together AI adapter: the OpenAI Chat Completions adapter with Together's
differences.

- A tool-call stream ends with a chunk that says ``finish_reason: "stop"`` (and carries the
  usage) after the chunks that said ``"tool_calls"`` (recorded Qwen3-235B streams in maruel/genai's
  Together test data, 2025-12-14 and -15): the first real finish reason of the stream is the
  answer's, a later ``"stop"`` does not override ``"tool_calls"``.
- Reasoning models put the chain of thought in ``message.reasoning`` (``delta.reasoning`` in a
  stream), next to ``content`` (docs.together.ai/docs/inference/chat/reasoning): it goes to
  ``ChatResponse.reasoning`` as one ``Reasoning(type="thinking")``, never into the text.
  ``ChatRequest.reasoning`` True / False sends ``reasoning: {"enabled": true / false}`` (the
  page's switch for hybrid models). Whether Together reads reasoning on an input assistant
  message is not documented: it is not sent back.
- Errors are OpenAI's shape with a request ``id`` beside ``error``: OpenAI's reader serves.

Confirmed 2026-11-25; the sources are in ``pytest_toolcall.providers.TOGETHER``.
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.core.model import ChatRequest
from pytest_toolcall.reference._compat import ReasoningChatAdapter, ReasoningStreamAccumulator

__all__ = ["ADAPTER", "DEFAULT_MODEL", "TogetherAdapter", "TogetherStreamAccumulator"]

#: a serverless function-calling model (docs.together.ai function-calling best practices
#: recommend zai-org/GLM-5.1; the recorded streams are Qwen3-235B's)
DEFAULT_MODEL = "zai-org/GLM-5.1"


class TogetherAdapter(ReasoningChatAdapter):
    """Canonical requests to ``POST {base_url}/chat/completions`` on Together AI and back."""

    DEFAULT_MODEL = DEFAULT_MODEL
    REASONING_FIELDS = ("reasoning",)
    SEND_REASONING = False  # whether Together reads it on input is not documented

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        if request.reasoning is not None:
            body["reasoning"] = {"enabled": bool(request.reasoning)}
        return body

    def new_accumulator(self) -> TogetherStreamAccumulator:
        return TogetherStreamAccumulator(self)


class TogetherStreamAccumulator(ReasoningStreamAccumulator):
    """Joins ``delta.reasoning`` pieces too (handed over before the calls), and keeps the
    stream's ``tool_calls`` finish when a later chunk says ``stop``."""

    def feed(self, data: dict[str, Any]) -> list[Any]:
        before = self.finish
        events = super().feed(data)
        if before == "tool_calls" and self.finish == "stop":
            self.finish = before
        return events


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = TogetherAdapter

"""The reference Groq adapter: the OpenAI Chat Completions adapter with Groq's differences.

- Usage in a stream: Groq puts it under ``x_groq.usage`` on the finish chunk, whatever the
  request says; only with ``stream_options.include_usage`` does it also come at the top level
  (and in a ``choices: []`` chunk). Groq's own SDK (groq 1.7.0) has no ``stream_options``
  parameter, so this adapter sends none, like the SDK, and reads ``x_groq.usage`` (a top-level
  ``usage`` wins where there is one).
- Reasoning (``reasoning_format: "parsed"``, gpt-oss's ``include_reasoning``): ``message.
  reasoning`` (``delta.reasoning`` pieces in a stream) is the chain of thought, not the answer's
  text: it goes to ``ChatResponse.reasoning`` as one ``Reasoning(type="thinking")`` and goes
  back, unchanged, as the assistant message's ``reasoning`` (groq 1.7.0
  ``ChatCompletionAssistantMessageParam.reasoning``).
- Errors: ``{"error": {"message", "type", "code"}}`` as OpenAI's, without ``param``; a
  ``tool_use_failed`` 400 keeps its ``failed_generation`` in ``ProviderError.body``.

Confirmed 2026-11-25; the sources are in ``pytest_toolcall.providers.GROQ``.
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.reference._compat import ReasoningChatAdapter, ReasoningStreamAccumulator

__all__ = ["ADAPTER", "DEFAULT_MODEL", "GroqAdapter", "GroqStreamAccumulator"]

DEFAULT_MODEL = "llama-3.3-70b-versatile"


class GroqAdapter(ReasoningChatAdapter):
    """Canonical requests to ``POST {base_url}/chat/completions`` on Groq and back."""

    DEFAULT_MODEL = DEFAULT_MODEL
    REASONING_FIELDS = ("reasoning",)  # sent back: groq 1.7.0 ChatCompletionAssistantMessageParam
    STREAM_OPTIONS = False  # usage comes in x_groq.usage without it

    def new_accumulator(self) -> GroqStreamAccumulator:
        return GroqStreamAccumulator(self)


class GroqStreamAccumulator(ReasoningStreamAccumulator):
    """Also reads ``x_groq.usage`` (where Groq puts a stream's usage); joins ``delta.reasoning``
    pieces, handed over before the calls."""

    def feed(self, data: dict[str, Any]) -> list[Any]:
        x_groq = data.get("x_groq")
        if isinstance(x_groq, dict) and x_groq.get("usage") and not data.get("usage"):
            self.usage = self.adapter.parse_usage(x_groq["usage"])
        return super().feed(data)


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = GroqAdapter

"""Negative controls for the Together AI cases: the reference :class:`TogetherAdapter` with ONE
thing broken each; the docstring names the bug. Above each, ``@fails`` names the case that must fail
it and the clause; the tables at the end collect them for ``tests/providers/test_controls.py``."""

from __future__ import annotations

from typing import Any

from provider_kit import (
    BrokenStream,
    DecodesAsOpenAI,
    ReasoningOnlyInText,
    UsageFromEmptyChoicesOnly,
    collected,
    fails,
)

from pytest_toolcall.providers.together.reference import TogetherAdapter, TogetherStreamAccumulator

__all__ = ["LastFinishWins", "UsageChunkOnly", "ReasoningNotDecoded", "ReasoningAsText",
           "StreamReasoningDropped", "StreamReasoningAsText"]


class _LastFinishWins(TogetherStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        events = super().feed(data)
        for choice in data.get("choices") or ():
            if choice.get("finish_reason"):
                self.finish = choice["finish_reason"]
        return events


@fails("stream.together_finish_after_tool_calls", "response.finish_reason")
class LastFinishWins(BrokenStream, TogetherAdapter):
    """OpenAI's stream reader: the last finish_reason of the stream wins, so Together's final
    'stop' chunk turns a tool-call turn into a 'stop' (the openai SDK's stream helper does the
    same)."""

    accumulator = _LastFinishWins


@fails("stream.together_usage_on_last_chunk", "response.usage")
class UsageChunkOnly(UsageFromEmptyChoicesOnly, TogetherAdapter):
    """Reads usage only from OpenAI's separate ``choices: []`` chunk; Together's rides on the
    last chunk beside its 'stop' choice."""


@fails("wire.together_reasoning_field", "response.reasoning")
class ReasoningNotDecoded(DecodesAsOpenAI, TogetherAdapter):
    """The OpenAI decoder: message.reasoning is ignored."""


@fails("wire.together_reasoning_field", "response.text")
class ReasoningAsText(ReasoningOnlyInText, TogetherAdapter):
    """Folds the chain of thought into the answer's text."""


class _NoReasoning(TogetherStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        for choice in data.get("choices") or ():
            (choice.get("delta") or {}).pop("reasoning", None)
        return super().feed(data)


@fails("stream.together_reasoning_field", "response.reasoning")
class StreamReasoningDropped(BrokenStream, TogetherAdapter):
    """The stream reader keeps content and tool_calls deltas only (reads reasoning_content,
    DeepSeek's name, which Together does not send)."""

    accumulator = _NoReasoning


class _ReasoningAsText(TogetherStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        for choice in data.get("choices") or ():
            delta = choice.get("delta") or {}
            if isinstance(delta.get("reasoning"), str):
                delta["content"] = delta["reasoning"] + (delta.get("content") or "")
                delta["reasoning"] = None
        return super().feed(data)


@fails("stream.together_reasoning_field", "response.text")
class StreamReasoningAsText(BrokenStream, TogetherAdapter):
    """Streams the reasoning pieces as text (a reader that treats every string delta field as
    content)."""

    accumulator = _ReasoningAsText


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "together"
#: the path of every request the reference adapter sends
PATH = "/v1/chat/completions"
#: the error kinds Together has: each one's case runs on its bodies with the generic error bugs
ERROR_KINDS = {"rate_limit", "auth", "model_not_found", "server_error", "overloaded"}

#: (case id, broken adapter, the clause the case must name)
CONTROLS = collected(__name__)

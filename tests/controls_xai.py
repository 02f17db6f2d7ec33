"""Negative controls for the xAI cases: the reference :class:`XAIAdapter` with ONE thing broken
each; the docstring names the bug. ``tests/test_controls_xai.py`` pairs each with the case that
must fail it and the clause."""

from __future__ import annotations

from typing import Any

import controls as _generic  # tests/controls.py

from pytest_toolcall.core.model import ChatResponse, Usage
from pytest_toolcall.providers.deepseek.reference import DeepSeekStreamAccumulator
from pytest_toolcall.providers.openai.reference import (
    OpenAIChatAdapter,
    StreamAccumulator,
    ToolCallDelta,
)
from pytest_toolcall.providers.xai.reference import XAIAdapter

__all__ = ["ReasoningAsText", "ReasoningNotDecoded", "StreamDropsReasoning",
           "StreamReasoningAsText", "FirstFragmentArgumentsDropped", "RecomputesTotal",
           "ReadsOpenAIErrorShape", "StatusLost", "EveryErrorRetryable", "NeverRetryable",
           "DropsErrorCode"]


class ReasoningAsText(XAIAdapter):
    """Folds grok-3-mini's chain of thought into the answer's text."""

    def parse_response(self, data: Any) -> ChatResponse:
        response = super().parse_response(data)
        thought = "".join(r.text or "" for r in response.reasoning)
        return response.model_copy(update={"text": thought + (response.text or "")})


class ReasoningNotDecoded(XAIAdapter):
    """The OpenAI decoder: reasoning_content is ignored."""

    def parse_response(self, data: Any) -> ChatResponse:
        return OpenAIChatAdapter.parse_response(self, data)


class StreamDropsReasoning(XAIAdapter):
    """The plain OpenAI stream reader: content and tool_calls deltas only."""

    def new_accumulator(self) -> StreamAccumulator:
        return StreamAccumulator(self)


class _ReasoningIsContent(DeepSeekStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        for choice in data.get("choices") or ():
            delta = choice.get("delta") or {}
            if isinstance(delta.get("reasoning_content"), str):
                delta["content"] = (delta.get("content") or "") + delta.pop("reasoning_content")
        return super().feed(data)


class StreamReasoningAsText(XAIAdapter):
    """Reads any string delta as text: the reasoning pieces land in the answer."""

    def new_accumulator(self) -> DeepSeekStreamAccumulator:
        return _ReasoningIsContent(self)  # type: ignore[arg-type]


class _ArgumentsFromLaterFragments(DeepSeekStreamAccumulator):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        function = frag.get("function") or {}
        if frag.get("id") and function.get("name"):
            # the call's head: id and name only, as OpenAI's (whose arguments are "")
            frag = dict(frag, function={"name": function["name"], "arguments": ""})
        return super().add_fragment(frag)


class FirstFragmentArgumentsDropped(XAIAdapter):
    """Takes only id and name from a call's first fragment and its arguments from the later
    ones, as OpenAI's streams allow: xAI's calls come whole in that first fragment, so every
    call ends with empty arguments."""

    def new_accumulator(self) -> DeepSeekStreamAccumulator:
        return _ArgumentsFromLaterFragments(self)  # type: ignore[arg-type]


class RecomputesTotal(XAIAdapter):
    """Computes total_tokens as prompt + completion: xAI's completion_tokens leaves the
    reasoning tokens out, so every reasoning turn is under-counted."""

    @staticmethod
    def parse_usage(raw: dict[str, Any] | None) -> Usage | None:
        if not raw:
            return None
        prompt, completion = raw.get("prompt_tokens"), raw.get("completion_tokens")
        return Usage(input_tokens=prompt, output_tokens=completion,
                     total_tokens=(prompt or 0) + (completion or 0))


class ReadsOpenAIErrorShape(XAIAdapter):
    """The OpenAI error reader: xAI's flat {code, error} has no error object, so the code is
    lost (the words survive only inside the dumped body)."""

    def raise_for_error(self, response: Any, body: bytes) -> None:
        OpenAIChatAdapter.raise_for_error(self, response, body)


# -- the errors family on xAI's own bodies: the generic error bugs of tests/controls.py ---------

class StatusLost(_generic.StatusLost, XAIAdapter):
    """The words without the HTTP status: a 429 looks like a 400."""


class EveryErrorRetryable(_generic.EveryErrorRetryable, XAIAdapter):
    """Every error retryable: a wrong key or a team out of credits is retried forever."""


class NeverRetryable(_generic.NeverRetryable, XAIAdapter):
    """No error retryable: a resource-exhausted 429 stops the caller at once."""


class DropsErrorCode(_generic.DropsErrorCode, XAIAdapter):
    """xAI's code (resource-exhausted, invalid-argument, ...) is dropped."""

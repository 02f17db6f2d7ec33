"""Negative controls for the xAI cases: the reference :class:`XAIAdapter` with ONE thing broken
each; the docstring names the bug. Above each, ``@fails`` names the case that must fail it and the
clause; the tables at the end collect them for ``tests/providers/test_controls.py``."""

from __future__ import annotations

from typing import Any

import controls_openai as _generic  # tests/providers/controls_openai.py
from provider_kit import BrokenStream, DecodesAsOpenAI, ReasoningInText, collected, fails

from pytest_toolcall.core.model import Usage
from pytest_toolcall.providers.deepseek.reference import DeepSeekStreamAccumulator
from pytest_toolcall.providers.openai.reference import (
    OpenAIChatAdapter,
    StreamAccumulator,
    ToolCallDelta,
)
from pytest_toolcall.providers.xai.reference import XAIAdapter

__all__ = ["ReasoningAsText", "ReasoningNotDecoded", "StreamDropsReasoning",
           "StreamReasoningAsText", "FirstFragmentArgumentsDropped", "RecomputesTotal",
           "ReadsOpenAIErrorShape"]


@fails("wire.xai_reasoning_content", "response.text")
class ReasoningAsText(ReasoningInText, XAIAdapter):
    """Folds grok-3-mini's chain of thought into the answer's text."""


@fails("wire.xai_reasoning_content", "response.reasoning")
class ReasoningNotDecoded(DecodesAsOpenAI, XAIAdapter):
    """The OpenAI decoder: reasoning_content is ignored."""


@fails("stream.xai_reasoning_content", "response.reasoning")
class StreamDropsReasoning(BrokenStream, XAIAdapter):
    """The plain OpenAI stream reader: content and tool_calls deltas only."""

    accumulator = StreamAccumulator


class _ReasoningIsContent(DeepSeekStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        for choice in data.get("choices") or ():
            delta = choice.get("delta") or {}
            if isinstance(delta.get("reasoning_content"), str):
                delta["content"] = (delta.get("content") or "") + delta.pop("reasoning_content")
        return super().feed(data)


@fails("stream.xai_reasoning_content", "response.text")
class StreamReasoningAsText(BrokenStream, XAIAdapter):
    """Reads any string delta as text: the reasoning pieces land in the answer."""

    accumulator = _ReasoningIsContent


class _ArgumentsFromLaterFragments(DeepSeekStreamAccumulator):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        function = frag.get("function") or {}
        if frag.get("id") and function.get("name"):
            # the call's head: id and name only, as OpenAI's (whose arguments are "")
            frag = dict(frag, function={"name": function["name"], "arguments": ""})
        return super().add_fragment(frag)


@fails("stream.xai_whole_calls", "response.tool_calls.arguments")
class FirstFragmentArgumentsDropped(BrokenStream, XAIAdapter):
    """Takes only id and name from a call's first fragment and its arguments from the later
    ones, as OpenAI's streams allow: xAI's calls come whole in that first fragment, so every
    call ends with empty arguments."""

    accumulator = _ArgumentsFromLaterFragments


@fails("wire.xai_usage_reasoning_tokens", "response.usage")
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


@fails("wire.xai_error_body", "errors.type")
@fails("errors.rate_limited", "errors.type", table="SHARED_CONTROLS")
class ReadsOpenAIErrorShape(XAIAdapter):
    """The OpenAI error reader: xAI's flat {code, error} has no error object, so the code is
    lost (the words survive only inside the dumped body)."""

    def raise_for_error(self, response: Any, body: bytes) -> None:
        OpenAIChatAdapter.raise_for_error(self, response, body)


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "xai"
#: the path of every request the reference adapter sends
PATH = "/v1/chat/completions"
#: the error kinds xAI has: each one's case runs on its bodies with the generic error bugs
ERROR_KINDS = {"rate_limit", "quota", "auth", "model_not_found", "context_length", "server_error"}

#: (case id, broken adapter, the clause the case must name)
CONTROLS = [
    *collected(__name__),
    ("wire.xai_error_body", _generic.EveryErrorRetryable, "errors.retryable"),
]

#: the shared cases that run on xAI's own bodies (the errors family's kinds), each with the bug
#: it must catch there
SHARED_CONTROLS = collected(__name__, "SHARED_CONTROLS")


def check_sent(body: dict[str, Any]) -> None:
    """xAI documents no reasoning_content in a request: the reference never sends it back."""
    assert all("reasoning_content" not in m for m in body.get("messages") or ())

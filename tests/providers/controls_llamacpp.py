"""Negative controls for the llama.cpp (llama-server) cases: the reference :class:`LlamaCppAdapter`
with ONE thing broken each; the docstring names the bug. Above each, ``@fails`` names the case that
must fail it and the clause; the tables at the end collect them for
``tests/providers/test_controls.py``."""

from __future__ import annotations

from typing import Any

import controls_openai as _generic  # tests/providers/controls_openai.py
from provider_kit import (
    BrokenStream,
    DecodesAsOpenAI,
    EncodesAsOpenAI,
    OpenAIPrefix,
    ReasoningInText,
    collected,
    fails,
)

from pytest_toolcall.providers.deepseek.reference import DeepSeekAdapter, DeepSeekStreamAccumulator
from pytest_toolcall.providers.llamacpp.reference import LlamaCppAdapter, LlamaCppStreamAccumulator

__all__ = ["DropsReasoning", "ReasoningAsText", "ReasoningNotDecoded", "StreamDropsReasoning",
           "PrefixesIds", "JinjaRetried", "JinjaWordsLost", "SplitsLinesLikeStr"]


@fails("wire.llamacpp_reasoning_replayed", "wire.llamacpp.reasoning_replayed")
@fails("stream.llamacpp_reasoning_replayed", "wire.llamacpp.reasoning_replayed")
class DropsReasoning(EncodesAsOpenAI, LlamaCppAdapter):
    """The plain OpenAI encoder: reasoning_content never goes back with the tool calls."""


@fails("wire.llamacpp_reasoning_replayed", "response.text")
class ReasoningAsText(ReasoningInText, LlamaCppAdapter):
    """Folds the chain of thought into the answer's text (what --reasoning-format none would
    leave in content)."""


@fails("wire.llamacpp_reasoning_replayed", "response.reasoning")
class ReasoningNotDecoded(DecodesAsOpenAI, LlamaCppAdapter):
    """The OpenAI decoder: reasoning_content is ignored, nothing can be sent back."""


class _NoReasoningAccumulator(LlamaCppStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        return super(DeepSeekStreamAccumulator, self).feed(data)


@fails("stream.llamacpp_reasoning_replayed", "response.reasoning")
class StreamDropsReasoning(BrokenStream, LlamaCppAdapter):
    """The stream reader keeps content and tool_calls deltas only."""

    accumulator = _NoReasoningAccumulator


@fails("wire.llamacpp_call_ids_replayed", "wire.llamacpp.call_ids")
class PrefixesIds(OpenAIPrefix, LlamaCppAdapter):
    """Normalises call ids to OpenAI's look, adding 'call_' to llama-server's bare 32-character
    ids, consistently on the calls and the results."""


@fails("errors.llamacpp_jinja_required", "errors.retryable")
class JinjaRetried(LlamaCppAdapter):
    """Decides from the status alone: the 500 'tools param requires --jinja flag' is retried
    though the server refuses every request with tools until it is restarted."""

    def raise_for_error(self, response: Any, body: bytes) -> None:
        DeepSeekAdapter.raise_for_error(self, response, body)


@fails("errors.llamacpp_jinja_required", "error.message")
class JinjaWordsLost(_generic.GenericErrorMessage, LlamaCppAdapter):
    """The error names the HTTP status only ("request failed: HTTP 500"): the server's
    'tools param requires --jinja flag' never reaches the user."""


@fails("stream.unicode_line_separators", "adapter.raised", table="STREAM_CONTROLS")
class SplitsLinesLikeStr(_generic.SplitsLinesLikeStr, LlamaCppAdapter):
    """Reads llama.cpp's stream with httpx's iter_lines, which also cuts at the U+2028 and
    U+2029 that nlohmann::json's dump (ensure_ascii off) leaves raw in its chunks
    (httpx-sse #34)."""


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "llamacpp"
#: the path of every request the reference adapter sends
PATH = "/v1/chat/completions"
#: the error kinds llama-server has: each one's case runs on its bodies with the generic error bugs
ERROR_KINDS = {"auth", "context_length", "server_error", "overloaded"}

#: (case id, broken adapter, the clause the case must name)
CONTROLS = collected(__name__)

#: shared cases whose stream shape llama.cpp's server sends, each with the bug it must catch there
STREAM_CONTROLS = collected(__name__, "STREAM_CONTROLS")


def check_sent(body: dict[str, Any]) -> None:
    """llama-server has no thinking switch: the reference sends chat_template_kwargs instead."""
    assert "thinking" not in body

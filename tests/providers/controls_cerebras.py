"""Negative controls for the Cerebras cases: the reference :class:`CerebrasAdapter` with ONE thing
broken each; the docstring names the bug. Above each, ``@fails`` names the case that must fail it
and the clause; the tables at the end collect them for ``tests/providers/test_controls.py``."""

from __future__ import annotations

from typing import Any

from provider_kit import (
    BrokenStream,
    ReasoningOnlyInText,
    UsageFromEmptyChoicesOnly,
    collected,
    fails,
)

from pytest_toolcall.core.model import ChatResponse
from pytest_toolcall.providers.cerebras.reference import CerebrasAdapter, CerebrasStreamAccumulator
from pytest_toolcall.providers.deepseek.reference import DeepSeekAdapter
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter, StreamAccumulator

__all__ = ["ReadsReasoningContent", "ReasoningAsText", "StreamDropsReasoning", "UsageChunkOnly",
           "UnknownKeySent"]


@fails("wire.cerebras_reasoning_decoded", "response.reasoning")
class ReadsReasoningContent(CerebrasAdapter):
    """Reads DeepSeek's reasoning_content instead of Cerebras' reasoning: the thought is lost."""

    def parse_response(self, data: Any) -> ChatResponse:
        response = OpenAIChatAdapter.parse_response(self, data)
        message = data["choices"][0]["message"]
        reasoning = DeepSeekAdapter.parse_reasoning(message.get("reasoning_content"))
        return response.model_copy(update={"reasoning": reasoning}) if reasoning else response


@fails("wire.cerebras_reasoning_decoded", "response.text")
class ReasoningAsText(ReasoningOnlyInText, CerebrasAdapter):
    """Folds the chain of thought into the answer's text."""


class _NoReasoning(CerebrasStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        return StreamAccumulator.feed(self, data)


@fails("stream.cerebras_reasoning_decoded", "response.reasoning")
class StreamDropsReasoning(BrokenStream, CerebrasAdapter):
    """The stream reader keeps content and tool_calls deltas only."""

    accumulator = _NoReasoning


@fails("stream.cerebras_usage_on_finish_chunk", "response.usage")
class UsageChunkOnly(UsageFromEmptyChoicesOnly, CerebrasAdapter):
    """Reads usage only from OpenAI's separate ``choices: []`` chunk, which Cerebras does not
    send: usage rides on the finish chunk."""


@fails("wire.single_call", "request.body.unsupported", table="SHARED_CONTROLS")
class UnknownKeySent(CerebrasAdapter):
    """Sends OpenAI's ``store: false`` on every request: Cerebras refuses the key (422)."""

    def build_body(self, request: Any, *, stream: bool) -> dict[str, Any]:
        return dict(super().build_body(request, stream=stream), store=False)


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "cerebras"
#: the path of every request the reference adapter sends
PATH = "/v1/chat/completions"
#: the error kinds Cerebras has: each one's case runs on its bodies with the generic error bugs
ERROR_KINDS = {"rate_limit", "quota", "auth", "model_not_found", "context_length", "server_error",
               "overloaded"}

#: (case id, broken adapter, the clause the case must name)
CONTROLS = collected(__name__)

#: the shared cases that run on Cerebras' closed request schema: the first request of any case
#: is a 422
SHARED_CONTROLS = collected(__name__, "SHARED_CONTROLS")

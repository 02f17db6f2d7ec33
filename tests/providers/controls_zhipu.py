"""Negative controls for the Zhipu / Z.ai GLM cases: the reference :class:`ZhipuAdapter` with ONE
thing broken each; the docstring names the bug. Above each, ``@fails`` names the case that must fail
it and the clause; the tables at the end collect them for ``tests/providers/test_controls.py``."""

from __future__ import annotations

from typing import Any

from provider_kit import (
    BrokenStream,
    DecodesAsOpenAI,
    DropsReasoningDeltas,
    EncodesAsOpenAI,
    ReasoningInText,
    RewritesIds,
    UsageFromEmptyChoicesOnly,
    collected,
    fails,
)

from pytest_toolcall.providers.deepseek.reference import DeepSeekAdapter, DeepSeekStreamAccumulator
from pytest_toolcall.providers.zhipu.reference import ZhipuAdapter

__all__ = ["DropsReasoning", "EditsReasoning", "ReasoningAsText", "ReasoningNotDecoded",
           "StreamDropsReasoning", "FinishChunkDeltasIgnored", "UsageChunkOnly",
           "SanitizesIds", "BalanceRetried"]


@fails("wire.zhipu_reasoning_replayed", "wire.zhipu.reasoning_replayed")
@fails("stream.zhipu_reasoning_replayed", "wire.zhipu.reasoning_replayed")
class DropsReasoning(EncodesAsOpenAI, ZhipuAdapter):
    """The plain OpenAI encoder: reasoning_content never goes back with the tool results."""


@fails("wire.zhipu_reasoning_replayed", "wire.zhipu.reasoning_replayed")
class EditsReasoning(ZhipuAdapter):
    """Sends the reasoning back trimmed (a re-serialising history store): not 'complete,
    unmodified'."""

    @staticmethod
    def encode_reasoning(reasoning: Any) -> str | None:
        text = DeepSeekAdapter.encode_reasoning(reasoning)
        return None if text is None else text.strip()


@fails("wire.zhipu_reasoning_replayed", "response.text")
class ReasoningAsText(ReasoningInText, ZhipuAdapter):
    """Folds the chain of thought into the answer's text."""


@fails("wire.zhipu_reasoning_replayed", "response.reasoning")
class ReasoningNotDecoded(DecodesAsOpenAI, ZhipuAdapter):
    """The OpenAI decoder: reasoning_content is ignored, nothing can be sent back."""


@fails("stream.zhipu_reasoning_replayed", "response.reasoning")
class StreamDropsReasoning(DropsReasoningDeltas, ZhipuAdapter):
    """The stream reader keeps content and tool_calls deltas only."""


class _FinishIsTheEnd(DeepSeekStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        for choice in data.get("choices") or ():
            if choice.get("finish_reason"):
                self.finish = choice["finish_reason"]
                if data.get("usage"):
                    self.usage = self.adapter.parse_usage(data["usage"])
                return []  # the finish chunk read as the end marker: its delta is never read
        return super().feed(data)


@fails("stream.zhipu_whole_calls_on_finish_chunk", "response.tool_calls.count")
class FinishChunkDeltasIgnored(BrokenStream, ZhipuAdapter):
    """Reads a chunk with finish_reason as the end of the answer and none of its delta (the
    terminal-chunk handling of opencode-cmd-provider PR #213): GLM's whole calls ride there."""

    accumulator = _FinishIsTheEnd


@fails("stream.zhipu_usage_on_finish_chunk", "response.usage")
class UsageChunkOnly(UsageFromEmptyChoicesOnly, ZhipuAdapter):
    """Reads usage only from OpenAI's separate ``choices: []`` chunk, which GLM sends only when
    asked with stream_options."""


@fails("wire.zhipu_call_ids_replayed", "wire.zhipu.call_ids")
class SanitizesIds(RewritesIds, ZhipuAdapter):
    """Cleans call ids to [a-zA-Z0-9_] before sending them (the rule some providers set for
    ids): GLM's 'call_-7263...' goes back as 'call_7263...', consistently on calls and
    results."""

    @staticmethod
    def rewrite_id(call_id: str) -> Any:
        return call_id.replace("-", "") if isinstance(call_id, str) else call_id


@fails("errors.quota_exhausted", "errors.retryable", table="SHARED_CONTROLS")
class BalanceRetried(ZhipuAdapter):
    """Decides from the status alone: GLM's 429 code 1113 (the balance is used up) is retried
    forever."""

    def raise_for_error(self, response: Any, body: bytes) -> None:
        DeepSeekAdapter.raise_for_error(self, response, body)


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "zhipu"
#: the path of every request the reference adapter sends
PATH = "/api/paas/v4/chat/completions"
#: the error kinds GLM has: each one's case runs on its bodies with the generic error bugs
ERROR_KINDS = {"rate_limit", "quota", "auth", "model_not_found", "context_length", "server_error",
               "overloaded"}

#: (case id, broken adapter, the clause the case must name)
CONTROLS = collected(__name__)

#: the shared cases that run on GLM's own bodies (the errors family's kinds), each with the bug
#: it must catch there
SHARED_CONTROLS = collected(__name__, "SHARED_CONTROLS")


def check_sent(body: dict[str, Any]) -> None:
    """Usage rides on the finish chunk without it: the reference never sends stream_options."""
    assert "stream_options" not in body

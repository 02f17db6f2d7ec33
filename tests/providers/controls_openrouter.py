"""Negative controls for the OpenRouter cases: the reference :class:`OpenRouterAdapter` with ONE
thing broken each; the docstring names the bug and its public report. Above each, ``@fails`` names
the case that must fail it and the clause; the tables at the end collect them for
``tests/providers/test_controls.py``."""

from __future__ import annotations

import json
from typing import Any

import controls_openai as _generic  # tests/providers/controls_openai.py
from provider_kit import BrokenStream, DecodesAsOpenAI, EncodesAsOpenAI, collected, fails

from pytest_toolcall.core.errors import StreamError
from pytest_toolcall.providers.openai.reference import StreamAccumulator
from pytest_toolcall.providers.openrouter.reference import (
    OpenRouterAdapter,
    OpenRouterStreamAccumulator,
)

__all__ = ["RoleRestartsMessage", "StopsAtFirstFinish", "DropsReasoningDetails",
           "EditsSignature", "ReasoningNotDecoded", "StreamDropsReasoning", "ReadsChoicesOnly",
           "BreaksOnComments", "MidStreamErrorFinal"]


class _RoleRestarts(OpenRouterStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        for choice in data.get("choices") or ():
            if (choice.get("delta") or {}).get("role"):
                self.slots, self.by_index = [], {}  # a new message begins, as it thinks
        return super().feed(data)


@fails("stream.openrouter_role_every_chunk", "response.tool_calls.count")
class RoleRestartsMessage(BrokenStream, OpenRouterAdapter):
    """Starts a new assistant message on every delta with a role: OpenRouter's role on every
    chunk keeps only the last fragment of each call."""

    accumulator = _RoleRestarts


class _FirstFinish(OpenRouterStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        if self.finish is not None:
            return []  # the answer is over at the first finish_reason (bifrost #191's loop)
        return super().feed(data)


@fails("stream.openrouter_repeated_finish", "response.usage")
class StopsAtFirstFinish(BrokenStream, OpenRouterAdapter):
    """Stops reading at the first finish_reason: the usage on OpenRouter's second finish chunk
    is lost."""

    accumulator = _FirstFinish


@fails("wire.openrouter_reasoning_details_replayed", "request.messages.reasoning_details.missing")
@fails("stream.openrouter_reasoning_details_replayed", "request.messages.reasoning_details.missing")
class DropsReasoningDetails(EncodesAsOpenAI, OpenRouterAdapter):
    """The plain OpenAI encoder: reasoning_details never go back (the Codex arms of a public
    benchmark, 'all six google/* models require it'): the Gemini 400."""


@fails("wire.openrouter_reasoning_details_replayed", "request.messages.reasoning_details.missing")
class EditsSignature(OpenRouterAdapter):
    """Re-serialises the encrypted data (a history store that trims it): 'Corrupted thought
    signature'."""

    @staticmethod
    def encode_reasoning(reasoning: Any) -> list[dict[str, Any]]:
        out = OpenRouterAdapter.encode_reasoning(reasoning)
        return [dict(d, data=d["data"].rstrip("=")) if "data" in d else d for d in out]


@fails("wire.openrouter_reasoning_details_replayed", "response.reasoning")
class ReasoningNotDecoded(DecodesAsOpenAI, OpenRouterAdapter):
    """The OpenAI decoder: reasoning and reasoning_details are ignored."""


class _NoDetails(OpenRouterStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        return StreamAccumulator.feed(self, data)


@fails("stream.openrouter_reasoning_details_replayed", "response.reasoning")
class StreamDropsReasoning(BrokenStream, OpenRouterAdapter):
    """The stream reader keeps content and tool_calls deltas only (what Roo-Code PR #9506 and
    kilocode PR #3605 fixed)."""

    accumulator = _NoDetails


class _ChoicesOnly(OpenRouterStreamAccumulator):
    def feed_line(self, line: str) -> Any:
        if line.startswith("data:") and line[5:].strip() != "[DONE]":
            data = json.loads(line[5:].strip())
            data.pop("error", None)  # reads choices, never the top-level error
            return self.feed(data)
        return StreamAccumulator.feed_line(self, line)


@fails("stream.openrouter_error_event", "error.message")
class ReadsChoicesOnly(BrokenStream, OpenRouterAdapter):
    """Reads choices only: OpenRouter's top-level mid-stream error is missed, finish_reason
    'error' is one more unknown reason, and the provider's message is lost."""

    accumulator = _ChoicesOnly


class _FinalMidStream(OpenRouterStreamAccumulator):
    def feed_line(self, line: str) -> Any:
        try:
            return super().feed_line(line)
        except StreamError as exc:
            exc.retryable = False  # 'the stream failed': treated as final
            raise


@fails("errors.in_stream", "errors.retryable", table="SHARED_CONTROLS")
class MidStreamErrorFinal(BrokenStream, OpenRouterAdapter):
    """Marks OpenRouter's mid-stream error final: a 'Provider disconnected unexpectedly' is
    never sent again, though the same request may well succeed."""

    accumulator = _FinalMidStream


@fails("stream.sse_comment_lines", "adapter.raised", table="SHARED_CONTROLS")
class BreaksOnComments(_generic.BreaksOnSseComments, OpenRouterAdapter):
    """Reads every non-empty SSE line as data: ': OPENROUTER PROCESSING' makes it raise (the
    streaming page warns of exactly this)."""


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "openrouter"
#: the path of every request the reference adapter sends
PATH = "/api/v1/chat/completions"
#: the error kinds OpenRouter has: each one's case runs on its bodies with the generic error bugs
ERROR_KINDS = {"rate_limit", "quota", "auth", "permission", "model_not_found", "context_length",
               "server_error", "overloaded"}
#: the kinds whose body names no type or code, so the kind controls drop none there: OpenRouter's
#: error.code is the HTTP status, a number
UNNAMED_ERRORS = ERROR_KINDS

#: (case id, broken adapter, the clause the case must name)
CONTROLS = collected(__name__)

#: the shared cases that run on OpenRouter's own bodies and stream, with the bug they catch
SHARED_CONTROLS = collected(__name__, "SHARED_CONTROLS")

"""Negative controls for the Mistral cases: the reference :class:`MistralAdapter` with ONE thing
broken each; the docstring names the bug and its public report. Above each, ``@fails`` names the
case that must fail it and the clause; the tables at the end collect them for
``tests/providers/test_controls.py``."""

from __future__ import annotations

from typing import Any

from provider_kit import (
    BrokenStream,
    DecodesAsOpenAI,
    ReasoningInText,
    UsageFromEmptyChoicesOnly,
    collected,
    fails,
)

from pytest_toolcall.providers.mistral.reference import MistralAdapter, MistralStreamAccumulator
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter, StreamAccumulator

__all__ = ["KeepsForeignIds", "MapsCallsOnly", "CutsIds", "OpenAIDecoder", "ThinkingAsText",
           "ReasoningContentReplay", "DropsThinking", "StringsOnlyStream", "UsageChunkOnly",
           "NeedsTypeOnFragment"]


@fails("wire.mistral_tool_call_id_format", "request.messages.tool_calls.id_format")
class KeepsForeignIds(MistralAdapter):
    """Replays ids as they came from another provider (opencode #1680, ironclaw #1241)."""

    def map_id(self, call_id: str | None) -> str | None:
        return call_id


# the results answer no call: Mistral's own refusal of unanswered calls (fact message_order;
# OpenAI's unknown_id rule is not shown on Mistral, issue 30)
@fails("wire.mistral_tool_call_id_format", "request.messages.tool_calls.unanswered")
class MapsCallsOnly(MistralAdapter):
    """Re-maps the calls' ids but not the results' tool_call_id (a mapping done in one place)."""

    def encode_message(self, message: Any) -> dict[str, Any]:
        out = super().encode_message(message)
        if out.get("role") == "tool":
            out["tool_call_id"] = message.tool_call_id
        return out


@fails("wire.mistral_tool_call_id_format", "wire.mistral.id_mapping")
class CutsIds(MistralAdapter):
    """Keeps the first 9 letters and digits of an id (magentic #276 cut its ids to 9): two
    counters that share a prefix, tool_call_turn1_0 and tool_call_turn1_1, collide."""

    def map_id(self, call_id: str | None) -> str | None:
        if call_id is None:
            return None
        return "".join(ch for ch in call_id if ch.isalnum())[:9].ljust(9, "0")


@fails("wire.mistral_content_chunks", "response.reasoning")
class OpenAIDecoder(DecodesAsOpenAI, MistralAdapter):
    """The OpenAI decoder: text chunks are read, the thinking is lost (nothing to replay)."""


@fails("wire.mistral_content_chunks", "response.text")
class ThinkingAsText(ReasoningInText, MistralAdapter):
    """Folds the thinking into the answer's text (a client that shows it inline)."""


@fails("wire.mistral_content_chunks", "request.messages.extra_forbidden")
class ReasoningContentReplay(MistralAdapter):
    """Sends the thinking back DeepSeek's way, as reasoning_content: Mistral's 422 (crush #1590,
    litellm #30835, OpenMinis #87)."""

    def encode_message(self, message: Any) -> dict[str, Any]:
        out = OpenAIChatAdapter.encode_message(self, message)
        if out.get("role") == "tool":
            out["tool_call_id"] = self.map_id(message.tool_call_id)
        thinking = "".join(r.text or "" for r in getattr(message, "reasoning", ()))
        if thinking:
            out["reasoning_content"] = thinking
        return out


@fails("wire.mistral_content_chunks", "wire.mistral.thinking_replayed")
class DropsThinking(MistralAdapter):
    """Replays only the text: the thinking chunk is dropped (what Mistral's multi-turn example
    warns degrades the model)."""

    @staticmethod
    def encode_reasoning(reasoning: Any) -> list[dict[str, Any]]:
        return []


class _StringsOnly(MistralStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        return StreamAccumulator.feed(self, data)


@fails("stream.mistral_content_chunks", "response.reasoning")
class StringsOnlyStream(BrokenStream, MistralAdapter):
    """A stream reader for string deltas: a list's thinking chunks are skipped
    (braintrust-sdk-javascript #1857)."""

    accumulator = _StringsOnly


@fails("stream.mistral_whole_calls_on_finish_chunk", "response.usage")
class UsageChunkOnly(UsageFromEmptyChoicesOnly, MistralAdapter):
    """Reads usage only from OpenAI's separate ``choices: []`` chunk, which Mistral never sends."""


class _NeedsType(MistralStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        for choice in data.get("choices") or ():
            delta = choice.get("delta") or {}
            if delta.get("tool_calls"):
                delta["tool_calls"] = [f for f in delta["tool_calls"] if f.get("type")]
        return super().feed(data)


@fails("stream.mistral_whole_calls_on_finish_chunk", "response.tool_calls.count")
class NeedsTypeOnFragment(BrokenStream, MistralAdapter):
    """Opens a call only on a fragment with ``type: function`` (OpenAI's first fragment has
    it; Mistral's calls have none): every call is lost."""

    accumulator = _NeedsType


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "mistral"
#: the path of every request the reference adapter sends
PATH = "/v1/chat/completions"
#: the error kinds Mistral has: each one's case runs on its bodies with the generic error bugs
ERROR_KINDS = {"rate_limit", "auth", "model_not_found", "context_length", "server_error",
               "overloaded"}
#: the kinds whose body names no type or code, so the kind controls drop none there: Mistral's 401
#: is {"detail": "Unauthorized"}
UNNAMED_ERRORS = {"auth"}

#: (case id, broken adapter, the clause the case must name)
CONTROLS = collected(__name__)


#: generic cases the reference adapter fails under mistral, {case: (clause, reason)}: none
#: (history ids are compared without ids for mistral: conformance.wire.NO_WIRE_IDS)
PINNED: dict[str, tuple[str, str]] = {}

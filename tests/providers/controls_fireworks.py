"""Negative controls for the Fireworks AI cases: the reference :class:`FireworksAdapter` with ONE
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
    collected,
    fails,
)

from pytest_toolcall.core.model import ToolCallDelta
from pytest_toolcall.providers.deepseek.reference import DeepSeekStreamAccumulator
from pytest_toolcall.providers.fireworks.reference import FireworksAdapter
from pytest_toolcall.providers.openai.reference import _Slot

__all__ = ["DropsReasoning", "ReasoningAsText", "ReasoningNotDecoded", "StreamDropsReasoning",
           "NameFromFirstFragmentOnly", "NewCallPerId"]


@fails("wire.fireworks_reasoning_replayed", "wire.fireworks.reasoning_replayed")
@fails("stream.fireworks_reasoning_replayed", "wire.fireworks.reasoning_replayed")
class DropsReasoning(EncodesAsOpenAI, FireworksAdapter):
    """The plain OpenAI encoder: reasoning_content never goes back with the tool results."""


@fails("wire.fireworks_reasoning_replayed", "response.text")
class ReasoningAsText(ReasoningInText, FireworksAdapter):
    """Folds the chain of thought into the answer's text."""


@fails("wire.fireworks_reasoning_replayed", "response.reasoning")
class ReasoningNotDecoded(DecodesAsOpenAI, FireworksAdapter):
    """The OpenAI decoder: reasoning_content is ignored, nothing can be sent back."""


@fails("stream.fireworks_reasoning_replayed", "response.reasoning")
class StreamDropsReasoning(DropsReasoningDeltas, FireworksAdapter):
    """The stream reader keeps content and tool_calls deltas only."""


class _FirstFragmentName(DeepSeekStreamAccumulator):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        index = frag.get("index")
        known = self.by_index.get(index)
        if known is not None and not known.name:
            frag = dict(frag, function={k: v for k, v in (frag.get("function") or {}).items()
                                        if k != "name"})
        return super().add_fragment(frag)


@fails("stream.fireworks_kimi_id_before_name", "response.tool_calls.name")
class NameFromFirstFragmentOnly(BrokenStream, FireworksAdapter):
    """Takes a call's name from its first fragment only (the collector timbal-ai/timbal PR #27
    fixed): Kimi's name, which comes on the second fragment, is lost."""

    accumulator = _FirstFragmentName


class _CallPerId(DeepSeekStreamAccumulator):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        if frag.get("id"):
            function = frag.get("function") or {}
            slot = _Slot(len(self.slots), frag["id"], function.get("name"))
            self.slots.append(slot)
            self.by_index[frag.get("index")] = slot
        return super().add_fragment(frag)


@fails("stream.fireworks_kimi_id_before_name", "response.tool_calls.count")
@fails("stream.id_name_repeated", "response.tool_calls.count", table="SHARED_CONTROLS")
class NewCallPerId(BrokenStream, FireworksAdapter):
    """Starts a new call on every fragment that carries an id (the collector timbal-ai/timbal
    PR #27 fixed): a repeated id splits one call into many."""

    accumulator = _CallPerId


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "fireworks"
#: the path of every request the reference adapter sends
PATH = "/inference/v1/chat/completions"
#: the error kinds Fireworks has: each one's case runs on its bodies with the generic error bugs
ERROR_KINDS = {"rate_limit", "auth", "model_not_found", "server_error", "overloaded"}
#: the kinds whose body names no type or code, so the kind controls drop none there: Fireworks' 429
#: is {"error": "Too Many Requests", "message": ...}
UNNAMED_ERRORS = {"rate_limit"}

#: (case id, broken adapter, the clause the case must name)
CONTROLS = collected(__name__)

#: the shared cases that run on Fireworks' own bodies and quirks, each with the bug it must
#: catch there
SHARED_CONTROLS = collected(__name__, "SHARED_CONTROLS")

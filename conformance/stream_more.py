"""More chat cases (issue 29, family 7): two consecutive thinking blocks in one Anthropic stream.

The Anthropic thinking cases stream one thinking block and one redacted_thinking block: an
accumulator that merges consecutive blocks of the same type (keyed by type, not by content
block index) passed them. Claude sends several thinking blocks in one turn (interleaved
thinking, and a long chain of thought split in blocks); each has its own signature, and
Anthropic checks each against its own text.
"""

from __future__ import annotations

from pytest_toolcall.conformance._common import (
    PARIS_TOKYO_TIME,
    answered,
    case,
    reasoning_decoded,
    request,
)

from pytest_toolcall.cases import Case, Step, Turn
from pytest_toolcall.core.model import AssistantMessage, Reasoning
from pytest_toolcall.providers.anthropic.cases import thinking_replayed
from pytest_toolcall.providers.anthropic.dialect import thinking_signature
from pytest_toolcall.run.checks import matches_script

__all__ = ["CASES"]

_FIRST = "Two cities: get_weather for each.\n"
_SECOND = "They are independent, so both calls go out at once.\n"
#: two thinking blocks in a row (content blocks 0 and 1), each signed for its own text
TWO_THINKING = (
    Reasoning(type="thinking", text=_FIRST, signature=thinking_signature(_FIRST, 0)),
    Reasoning(type="thinking", text=_SECOND, signature=thinking_signature(_SECOND, 1)),
)
_TURN = Turn(reasoning=TWO_THINKING, tool_calls=PARIS_TOKYO_TIME[:2])
_ANSWERED = answered(_TURN)
_REPLAYED = (_ANSWERED[0], AssistantMessage(content=None, reasoning=TWO_THINKING,
                                            tool_calls=_ANSWERED[1].tool_calls),
             *_ANSWERED[2:])

CASES: list[Case] = [
    case(
        id="stream.anthropic_consecutive_thinking",
        dialects=("anthropic",),
        title="Two thinking blocks in a row stay two, each with its own signature",
        why="Claude streams several thinking blocks in one turn, each signed for its own text; "
            "an accumulator that merges consecutive thinking blocks returns one block whose "
            "signature matches neither, and the replay gets 400 'Invalid `signature` in "
            "`thinking` block' (NousResearch/hermes-agent #6112, 2026-04-08: merged blocks "
            "broke their signatures; confirmed 2026-11-28).",
        steps=(Step(request=request(reasoning=True), reply=_TURN, via="stream"),
               Step(request=request(*_REPLAYED, reasoning=True), reply=Turn(text="Sunny."),
                    via="stream")),
        checks=(matches_script, reasoning_decoded, thinking_replayed),
    ),
]

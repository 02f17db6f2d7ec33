"""Cases for the ``fireworks`` provider (issue 13): what Fireworks AI does beyond the OpenAI wire.

Reasoning models answer with ``reasoning_content`` next to ``content``, and with interleaved
thinking "you must include the reasoning_content from previous assistant turns in subsequent
requests" (docs.fireworks.ai/guides/reasoning). Kimi K2.6 streams a call's id before its name
and repeats the id on the argument fragments (timbal-ai/timbal PR #27). Sources and dates:
``pytest_toolcall.providers.FIREWORKS``.
"""

from __future__ import annotations

from pytest_toolcall.cases import Case, Step, StreamPlan, Turn
from pytest_toolcall.run.checks import matches_script
from pytest_toolcall.core.model import Reasoning

from pytest_toolcall.conformance._common import (PARIS_TOKYO_TIME, case, reasoning_content_cases,
                                                 request)

DIALECT = ("fireworks",)
KIMI = "accounts/fireworks/models/kimi-k2p6"
_THOUGHT = ("The user wants the weather in Paris and Tokyo and the time. I will call "
            "get_weather twice and get_time.\n")


_FIRST = Turn(reasoning=(Reasoning(type="thinking", text=_THOUGHT),), text="Let me check.",
              tool_calls=PARIS_TOKYO_TIME, stream=StreamPlan(fragment_size=5))


CASES: list[Case] = [
    *reasoning_content_cases(
        "fireworks", sender="Fireworks", first=_FIRST, final="Sunny in both; it is noon.",
        because="'you must include the reasoning_content from previous assistant turns in "
            "subsequent requests' (docs.fireworks.ai/guides/reasoning, Interleaved thinking)",
        why="Fireworks' reasoning models answer with reasoning_content next to content; 'when "
            "building multi-turn tool-calling agents with models that support interleaved "
            "thinking, you must include the reasoning_content from previous assistant turns in "
            "subsequent requests' (docs.fireworks.ai/guides/reasoning). No error is documented "
            "when it is left out (a model without interleaved thinking ignores it): the model "
            "just loses its reasoning between tool rounds; confirmed 2026-11-25.",
        why_stream="When streaming, 'the reasoning content is available in each chunk's delta' as "
            "reasoning_content (docs.fireworks.ai/guides/reasoning); an accumulator that reads "
            "only content and tool_calls cannot send it back for interleaved thinking; "
            "confirmed 2026-11-25."),
    case(
        id="stream.fireworks_kimi_id_before_name",
        dialects=DIALECT,
        title="A Kimi call whose id comes before its name, then again on every argument piece, "
              "is one call with its name and all its arguments",
        why="Fireworks streams Kimi K2.6's tool calls with the id (and empty arguments) on the "
            "first fragment but not the name, and then further chunks reusing the same id with "
            "the argument pieces (timbal-ai/timbal PR #27, 2026-04-28: a collector that built "
            "the call from the first fragment failed on the missing name, one that started a "
            "new call per id ran the tool with {}); confirmed 2026-11-25.",
        steps=(Step(request=request(model=KIMI), via="stream", reply=Turn(
            tool_calls=PARIS_TOKYO_TIME, stream=StreamPlan(fragment_size=4))),),
        checks=(matches_script,),
    ),
]

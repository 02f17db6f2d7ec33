"""Cases for the ``openrouter`` provider (issue 13): what OpenRouter sends beyond the OpenAI wire.

OpenRouter's streams put ``role: "assistant"`` on every chunk and send the finish chunk twice,
the second time with the usage; reasoning models answer with ``reasoning`` and
``reasoning_details``, and a Gemini model's encrypted detail (its thought signature) must come
back with the tool calls, or the next request is OpenRouter's 400 "Provider returned error"
(metadata.raw: "Gemini models require OpenRouter reasoning details to be preserved in each
request ..."). An error after the first token is a data event with a top-level ``error`` and
``finish_reason: "error"``. Its SSE comments run in ``stream.sse_comment_lines``, its errors in
the ``errors`` family (``errors.in_stream`` included).
"""

from __future__ import annotations

from pytest_toolcall.cases import Case, Step, StreamPlan, Turn
from pytest_toolcall.run.checks import error_surfaced, matches_script
from pytest_toolcall.providers.openrouter.dialect import MID_STREAM_ERROR
from pytest_toolcall.core.model import Reasoning

from pytest_toolcall.conformance._common import (PARIS_TOKYO_TIME, calls, case, reasoning_decoded,
                                                 reasoning_replayed_steps, request,
                                                 stream_usage_case, wire_and_stream)

DIALECT = ("openrouter",)
_THOUGHT = "Two cities: call get_weather for Paris and for Tokyo.\n"
#: an encrypted detail as Google AI Studio's thought signatures look (base64)
_SIGNATURE = "EqQBCkgIARABGAIiQIFq7o3s2Jb5QWJ8d2cXZ1R3c2lnbmF0dXJlLW9wYXF1ZQ=="
_REASONING = (Reasoning(type="thinking", text=_THOUGHT),
              Reasoning(type="redacted_thinking", signature=_SIGNATURE))


def _reasoning_steps(via: str) -> tuple[Step, ...]:
    return reasoning_replayed_steps(Turn(reasoning=_REASONING, tool_calls=PARIS_TOKYO_TIME[:2]),
                                    via=via, final="Sunny in both.")


CASES: list[Case] = [
    case(
        id="stream.openrouter_role_every_chunk",
        dialects=DIALECT,
        title="A stream with role: assistant on every chunk is one message",
        why="OpenRouter repeats role: 'assistant' in every chunk's delta, next to text, "
            "tool-call fragments and the finish (a recorded anthropic/claude-4.5-haiku stream "
            "via Amazon Bedrock; qwen-code #2402); a reader that starts a new message on each "
            "role delta keeps only the last piece; confirmed 2026-11-25.",
        steps=(Step(request=request(), via="stream", reply=Turn(
            text="Checking both cities.", tool_calls=PARIS_TOKYO_TIME[:2],
            stream=StreamPlan(fragment_size=3))),),
        checks=(matches_script,),
    ),
    stream_usage_case(
        id="stream.openrouter_repeated_finish",
        dialects=DIALECT,
        title="A finish chunk sent twice, the usage on the second, ends one answer with usage",
        why="OpenRouter sends two chunks with the finish_reason, the first without usage, the "
            "second with it (langchain #38226: 'stopstop' in the merged metadata; qwen-code "
            "#2402: the calls lost on the second 'tool_calls' finish); a reader that stops at "
            "the first finish_reason reports no usage; confirmed 2026-11-25.",
        reply=Turn(tool_calls=calls(("get_time", "{}")), stream=StreamPlan(fragment_size=2)),
    ),
    *wire_and_stream(
        "openrouter_reasoning_details_replayed", _reasoning_steps, dialects=DIALECT,
        checks=(matches_script, reasoning_decoded),
        title="reasoning_details are decoded and sent back with the calls, the signature intact",
        why="OpenRouter's reasoning docs: preserve reasoning_details when passing messages back "
            "(openrouter.ai/docs/use-cases/reasoning-tokens, 'Preserving reasoning blocks'); a "
            "Gemini tool-call turn without its encrypted detail is 400 'Provider returned "
            "error' / 'Gemini models require OpenRouter reasoning details to be preserved in "
            "each request' (OpenRouterTeam/ai-sdk-provider #381, vscode-copilot-chat PR "
            "#2649); confirmed 2026-11-25.",
        stream_title="Streamed reasoning_details pieces are joined, kept and sent back with the "
            "calls",
        stream_why="The reasoning streams as delta.reasoning / delta.reasoning_details pieces "
            "before the calls, the encrypted signature in one piece of its own; a stream reader "
            "that keeps only content and tool_calls cannot replay it, and the next request is "
            "OpenRouter's 400 (Roo-Code PR #9506, Kilo-Org/kilocode PR #3605 added the "
            "accumulation); confirmed 2026-11-25."),
    case(
        id="stream.openrouter_error_event",
        dialects=DIALECT,
        title="OpenRouter's mid-stream error event raises with the provider's message",
        why="After the first token OpenRouter cannot change the 200: the error comes as a data "
            "event with a top-level error next to choices[0].finish_reason 'error', and the "
            "stream ends (openrouter.ai/docs/api-reference/streaming, 'Errors After Tokens "
            "Have Been Sent'); a reader that looks at choices only sees an unknown finish "
            "reason and loses the message; confirmed 2026-11-25.",
        steps=(Step(request=request(), via="stream", expect="error", reply=Turn(
            text="The weather in Paris is", stream=StreamPlan(error_after=3))),),
        checks=(error_surfaced(must_contain=MID_STREAM_ERROR["message"]),),
    ),
]

"""Cases for the ``cerebras`` provider (issue 13): what Cerebras Inference asks beyond the OpenAI
wire.

Its reasoning models (gpt-oss-120b, zai-glm-4.7) put the chain of thought in
``message.reasoning`` / ``delta.reasoning`` (not DeepSeek's ``reasoning_content``), and its
stream ends with one chunk that carries the finish reason, the usage and ``time_info``.
Sources and dates: ``pytest_toolcall.providers.CEREBRAS``.
"""

from __future__ import annotations

from pytest_toolcall.cases import Case, Step, StreamPlan, Turn
from pytest_toolcall.run.checks import matches_script
from pytest_toolcall.core.model import Reasoning

from pytest_toolcall.conformance._common import (PARIS_TOKYO_TIME, case, reasoning_decoded, request,
                                                 stream_usage_case)

DIALECT = ("cerebras",)
_THOUGHT = ("The user wants the weather in two cities and the time. I will call get_weather "
            "twice and get_time.")


def _reasoning_turn(size: int = 8) -> Turn:
    return Turn(reasoning=(Reasoning(type="thinking", text=_THOUGHT),), text="Let me check.",
                tool_calls=PARIS_TOKYO_TIME, stream=StreamPlan(fragment_size=size))


CASES: list[Case] = [
    case(
        id="wire.cerebras_reasoning_decoded",
        dialects=DIALECT,
        title="The reasoning field is decoded apart from the text",
        why="Cerebras' reasoning models (gpt-oss-120b, zai-glm-4.7) answer with the chain of "
            "thought in message.reasoning next to content, the default reasoning_format "
            "(text_parsed) and 'parsed' alike (inference-docs.cerebras.ai/capabilities/"
            "reasoning; cerebras_cloud_sdk 1.91.0 ChatCompletionResponseChoiceMessage."
            "reasoning). An adapter that reads only DeepSeek's reasoning_content, or folds the "
            "reasoning into the text, loses or leaks it; confirmed 2026-11-25.",
        steps=(Step(request=request(), reply=_reasoning_turn()),),
        checks=(matches_script, reasoning_decoded),
    ),
    case(
        id="stream.cerebras_reasoning_decoded",
        dialects=DIALECT,
        title="Streamed delta.reasoning pieces are joined into the reasoning",
        why="Cerebras streams the chain of thought as delta.reasoning pieces after the role "
            "chunk and before the content and the calls (a recorded gpt-oss-120b tool-call "
            "stream, 2025-10-04; inference-docs.cerebras.ai/capabilities/reasoning: 'When "
            "streaming, reasoning tokens are delivered in the reasoning field'); a reader of "
            "content and tool_calls only drops it; confirmed 2026-11-25.",
        steps=(Step(request=request(), via="stream", reply=_reasoning_turn(5)),),
        checks=(matches_script, reasoning_decoded),
    ),
    stream_usage_case(
        id="stream.cerebras_usage_on_finish_chunk",
        dialects=DIALECT,
        title="Streamed usage rides on the finish chunk, with time_info",
        why="Cerebras' stream ends with {delta: {}, finish_reason, usage, time_info} (a "
            "recorded gpt-oss-120b tool-call stream, 2025-10-04; cerebras_cloud_sdk 1.91.0 "
            "ChatChunkResponse.usage / time_info), not with OpenAI's separate choices: [] usage "
            "chunk. A reader that takes usage only from that chunk reports none; confirmed "
            "2026-11-25.",
    ),
]

"""Cases for the ``together`` provider (issue 13): what Together AI does beyond the OpenAI wire.

Together's tool-call streams end with a chunk that says ``finish_reason: "stop"`` after the
chunks that said ``"tool_calls"``, and that last chunk carries the usage whatever
``stream_options`` says; reasoning models answer with a ``reasoning`` field next to ``content``
(docs.together.ai/docs/inference/chat/reasoning). Sources and dates:
``pytest_toolcall.providers.TOGETHER``.
"""

from __future__ import annotations

from pytest_toolcall.cases import Case, Step, StreamPlan, Turn
from pytest_toolcall.run.checks import matches_script
from pytest_toolcall.core.model import Reasoning

from pytest_toolcall.conformance._common import (PARIS_TOKYO_TIME, case, reasoning_decoded, request,
                                                 stream_usage_case)

DIALECT = ("together",)
_THOUGHT = ("The user wants the weather in Paris and Tokyo and the time. I will call "
            "get_weather twice and get_time.\n")
_REC = ("maruel/genai's recorded Together streams (Qwen/Qwen3-235B-A22B-Instruct-2507-tput, "
        "GenStream-Tools-SquareRoot-1.yaml, 2025-12-14 and 2025-12-15)")


def _reasoning_turn(plan: StreamPlan | None = None) -> Turn:
    return Turn(reasoning=(Reasoning(type="thinking", text=_THOUGHT),), text="Let me check.",
                tool_calls=PARIS_TOKYO_TIME, stream=plan or StreamPlan(fragment_size=5))


CASES: list[Case] = [
    case(
        id="stream.together_finish_after_tool_calls",
        dialects=DIALECT,
        title="A tool-call stream whose last chunk says 'stop' still finishes with tool_calls",
        why="Together sends finish_reason 'tool_calls' on the chunk with the last arguments "
            "piece and again on a chunk with matched_stop, then a LAST chunk with "
            f"finish_reason 'stop' and the usage ({_REC}). A reader that lets the last "
            "finish_reason win (the openai SDK's stream helper does) reports 'stop' for a turn "
            "that made calls, and a loop that trusts the finish reason never runs them; "
            "confirmed 2026-11-25.",
        steps=(Step(request=request(), via="stream", reply=Turn(
            tool_calls=PARIS_TOKYO_TIME, stream=StreamPlan(fragment_size=4))),),
        checks=(matches_script,),
    ),
    stream_usage_case(
        id="stream.together_usage_on_last_chunk",
        dialects=DIALECT,
        title="Streamed usage is read from Together's last chunk, which carries a choice",
        why="Together puts the usage in the stream whatever stream_options says, on the last "
            "chunk next to its finish_reason 'stop' choice, not in OpenAI's choices: [] chunk "
            f"({_REC}; usage {{prompt_tokens, total_tokens, completion_tokens, "
            "reasoning_tokens}}). A reader that takes usage only from a chunk without choices "
            "reports none; confirmed 2026-11-25.",
    ),
    case(
        id="wire.together_reasoning_field",
        dialects=DIALECT,
        title="message.reasoning is decoded as reasoning, apart from the text",
        why="Together's reasoning models 'first produce a chain of thought, visible as tokens "
            "in the reasoning output field, and then output a final answer in the content "
            "field' (docs.together.ai/docs/inference/chat/reasoning; Kimi K2.x, GLM-5.x, "
            "DeepSeek-V4, Qwen3.5 on serverless). An adapter that reads reasoning_content only "
            "(DeepSeek's name) loses it; one that joins it to content shows the chain of "
            "thought as the answer; confirmed 2026-11-25.",
        steps=(Step(request=request(), reply=_reasoning_turn()),),
        checks=(matches_script, reasoning_decoded),
    ),
    case(
        id="stream.together_reasoning_field",
        dialects=DIALECT,
        title="Streamed delta.reasoning pieces are joined as reasoning, apart from the text",
        why="Together streams the chain of thought as delta.reasoning pieces (reasoning: null "
            "on the content and tool-call deltas) before the content and the calls (a recorded "
            "moonshotai/Kimi-K2-Thinking stream in maruel/genai's Together test data, "
            "2025-12-15; docs.together.ai/docs/inference/chat/reasoning's streaming example "
            "reads delta.reasoning); confirmed 2026-11-25.",
        steps=(Step(request=request(), via="stream", reply=_reasoning_turn()),),
        checks=(matches_script, reasoning_decoded),
    ),
]

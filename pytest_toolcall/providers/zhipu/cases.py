"""Cases for the ``zhipu`` provider (issue 13): what Zhipu AI / Z.ai's GLM asks beyond the OpenAI
wire.

Thinking (GLM-4.5 and later, on by default on GLM-4.7 / 5.x) puts the chain of thought in
``reasoning_content`` next to ``content``; "when using interleaved thinking with tools, thinking
blocks should be explicitly preserved and returned together with the tool results"
(docs.z.ai/guides/capabilities/thinking-mode). GLM streams a tool call whole, in one delta, on
the chunk that carries ``finish_reason`` (and, without ``stream_options``, the usage); its call
ids are ``call_-`` and 19 digits. Sources and dates: ``pytest_toolcall.providers.ZHIPU``.
"""

from __future__ import annotations


from pytest_toolcall.cases import Case, ScriptedCall, Step, StreamPlan, Turn
from pytest_toolcall.run.checks import matches_script
from pytest_toolcall.core.model import Reasoning

from pytest_toolcall.conformance._common import (PARIS_TOKYO_TIME, answered,
                                                 call_ids_replayed_check, case,
                                                 reasoning_content_cases, request,
                                                 stream_usage_case)

DIALECT = ("zhipu",)
_THOUGHT = ("The user wants the weather in two cities and the time. I will call get_weather "
            "twice and get_time.\n")
#: GLM's call ids as recorded (a glm-5.2 answer, 2026-09-13): a minus sign and 19 digits
GLM_CALLS = (
    ScriptedCall(name="get_weather", arguments={"city": "Paris"}, id="call_-7263702910662343394"),
    ScriptedCall(name="get_weather", arguments={"city": "Tokyo"}, id="call_-7263702910662343393"),
    ScriptedCall(name="get_time", arguments="{}", id="call_-7263702910662343392"),
)


_FIRST = Turn(reasoning=(Reasoning(type="thinking", text=_THOUGHT),), text="Let me check.",
              tool_calls=PARIS_TOKYO_TIME)


#: the calls go back with GLM's ids exactly as they came, on the calls and the results
call_ids_verbatim = call_ids_replayed_check(
    "wire.zhipu.call_ids", [c.id for c in GLM_CALLS], "GLM",
    hint="keep a call id as an opaque string: GLM's are 'call_-' and 19 digits; never parse, "
         "trim or re-mint them")


CASES: list[Case] = [
    *reasoning_content_cases(
        "zhipu", sender="GLM", first=_FIRST, final="Sunny in both; it is noon.",
        because="'thinking blocks should be explicitly preserved and returned together with the "
            "tool results' (docs.z.ai/guides/capabilities/thinking-mode)",
        why="GLM-4.5+ in thinking mode (the default on GLM-4.7 and 5.x) answers with "
            "reasoning_content next to content; 'when using interleaved thinking with tools, "
            "thinking blocks should be explicitly preserved and returned together with the tool "
            "results' (docs.z.ai/guides/capabilities/thinking-mode; docs.bigmodel.cn: 必须显式保留"
            " Reasoning content), 'complete, unmodified' with clear_thinking: false. An adapter "
            "that drops unknown message fields or folds the reasoning into the text loses it; "
            "confirmed 2026-11-25.",
        why_stream="GLM streams the chain of thought as delta.reasoning_content pieces before the "
            "content (docs.z.ai/guides/capabilities/stream-tool: 'The delta object ... "
            "reasoning_content'; a recorded glm-4.6 stream, 2026-02-10); an accumulator that "
            "reads only content and tool_calls cannot send it back; confirmed 2026-11-25."),
    case(
        id="stream.zhipu_whole_calls_on_finish_chunk",
        dialects=DIALECT,
        title="Tool calls that arrive whole on the finish chunk are read",
        why="Without tool_stream, GLM sends each tool call whole (id, type, name, arguments, "
            "index) in one delta of the chunk that carries finish_reason 'tool_calls', with "
            "role 'assistant' on every delta (langchain PR #26693 quotes Zhipu's chunk; "
            "docs.z.ai/guides/capabilities/stream-tool: tool_stream=True is what streams the "
            "arguments). A reader that treats the finish chunk as the end and reads no delta "
            "from it (opencode-cmd-provider PR #213 flushed calls on a terminal-looking chunk; "
            "kubectl-ai PR #559 had to add whole calls in a single chunk) loses every call; "
            "confirmed 2026-11-25.",
        steps=(Step(request=request(), via="stream", reply=Turn(
            text="Checking.", tool_calls=PARIS_TOKYO_TIME, stream=StreamPlan(fragment_size=3))),),
        checks=(matches_script,),
    ),
    stream_usage_case(
        id="stream.zhipu_usage_on_finish_chunk",
        dialects=DIALECT,
        title="Streamed usage rides on the finish chunk when no stream_options is sent",
        why="GLM's stream ends with the finish_reason chunk carrying usage, with no choices: "
            "[] chunk (docs.z.ai/guides/capabilities/streaming and docs.bigmodel.cn response "
            "examples); only with stream_options.include_usage does usage come in a chunk of its "
            "own (a recorded glm-4.6 stream, 2026-02-10). A reader that takes usage only from "
            "OpenAI's separate chunk reports none; confirmed 2026-11-25.",
    ),
    case(
        id="wire.zhipu_call_ids_replayed",
        dialects=DIALECT,
        title="GLM's call ids (call_- and 19 digits) go back exactly as they came",
        why="GLM's call ids are 'call_-' and a 19-digit number, consecutive within an answer "
            "(call_-7263702910662343394, ...393, ...392 in a recorded glm-5.2 answer, "
            "2026-09-13; glm-4.7 in a recorded 2026-04 answer); the 2024 ids were "
            "'call_<request id>' (langchain PR #26693). An adapter that parses, trims or "
            "re-mints ids (the minus sign is not in [a-zA-Z0-9_]) breaks the pairing of calls "
            "and results; confirmed 2026-11-25.",
        steps=(Step(request=request(), reply=Turn(tool_calls=GLM_CALLS)),  # type: ignore[arg-type]
               Step(request=request(*answered(Turn(tool_calls=GLM_CALLS))),  # type: ignore[arg-type]
                    reply=Turn(text="Done."))),
        checks=(matches_script, call_ids_verbatim),
    ),
]

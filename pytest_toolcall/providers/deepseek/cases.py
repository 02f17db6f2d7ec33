"""Cases for the ``deepseek`` provider (issue 13): what DeepSeek asks beyond the OpenAI wire.

Thinking mode (on by default for DeepSeek's V4 models) puts the chain of thought in
``reasoning_content`` next to ``content``; a turn that made tool calls must come back with it
in every later request, or DeepSeek answers 400 "The `reasoning_content` in the thinking mode
must be passed back to the API." Streams carry it as ``delta.reasoning_content`` pieces; usage
rides on the finish chunk; a used-up balance is a 402 that no retry heals. While a request waits
to be scheduled, DeepSeek keeps the connection alive: a non-stream answer starts with empty lines
before its JSON (a stream with ``: keep-alive`` comments: ``stream.sse_comment_lines``).
"""

from __future__ import annotations

import dataclasses
import json

from pytest_toolcall.cases import Case, ErrorReply, ScriptedCall, Step, StreamPlan, Turn, check
from pytest_toolcall.run.checks import compare_response, error_surfaced, matches_script
from pytest_toolcall.providers.deepseek.dialect import INSUFFICIENT_BALANCE, DeepSeek
from pytest_toolcall.core.model import Reasoning
from pytest_toolcall.run.runner import CaseRun

from pytest_toolcall.conformance._common import (PARIS_TOKYO_TIME, calls, case,
                                                 reasoning_content_cases, reasoning_content_check,
                                                 reasoning_replayed_steps, request,
                                                 stream_usage_case)
from pytest_toolcall.conformance.errors import provider_error

DIALECT = ("deepseek",)
_THOUGHT = ("The user asks for two cities and the time. I will call get_weather for Paris and "
            "for Tokyo.\n")


def _first(thought: str, text: str | None = None) -> Turn:
    return Turn(reasoning=(Reasoning(type="thinking", text=thought),), text=text,
                tool_calls=PARIS_TOKYO_TIME[:2])


#: the assistant message that replays the calls carries the turn's ``reasoning_content``,
#: unchanged ("" included)
reasoning_content_replayed = reasoning_content_check(
    "wire.deepseek.reasoning_replayed", "the model",
    hint="keep reasoning_content (AssistantMessage.reasoning) and send it back as it came on "
         "the assistant message with the tool_calls, an empty string too: DeepSeek's thinking "
         "mode says 'must be passed back to the API' (api-docs.deepseek.com/guides/"
         "thinking_mode)")


#: the answer a waiting non-stream request gets: DeepSeek's JSON after the empty lines it wrote
#: while the request waited (api-docs.deepseek.com/quick_start/rate_limit)
_WAITED = Turn(text="Checking both cities.", tool_calls=(
    ScriptedCall(name="get_weather", arguments={"city": "Paris"},
                 id="call_00_JKplDF8t8DbqkZaGChDX1881"),
    ScriptedCall(name="get_weather", arguments={"city": "Tokyo"},
                 id="call_01_q8X2mVd4LpRt7sNe3YbKc0Hw")))
_KEEP_ALIVE_BODY = "\n\n\n\n" + json.dumps(
    DeepSeek().encode_response(_WAITED, {"model": "deepseek-v4-flash"}), ensure_ascii=False)


@check("response.keep_alive_body")
def waited_answer_read(run: CaseRun) -> None:
    """The answer behind the keep-alive lines is the one the model gave (calls, text, finish)."""
    for record in run.steps:
        if record.response is None:
            continue
        step = record.step.model_copy(update={"reply": _WAITED})
        compare_response(run, dataclasses.replace(record, step=step), record.response)


CASES: list[Case] = [
    *reasoning_content_cases(
        "deepseek", reasoning_content_replayed, final="Sunny in both.",
        first=_first(_THOUGHT, "Checking both cities."), stream_first=_first(_THOUGHT),
        why="In thinking mode DeepSeek answers 400 'The `reasoning_content` in the thinking mode "
            "must be passed back to the API.' when a tool-call turn comes back without it "
            "(api-docs.deepseek.com/guides/thinking_mode; langchain #37713, crewAI #5878, "
            "litellm #37636, opencode #24083); adapters that drop unknown message fields, or "
            "fold the reasoning into content, break every tool loop; confirmed 2026-11-25.",
        why_stream="The chain of thought streams as delta.reasoning_content pieces before the "
            "content and tool_calls deltas; accumulators that read only content and tool_calls "
            "lose it (deepseek-harness #739 asks whether 'reasoning_content is lost in "
            "streaming chunks'), and the next request is DeepSeek's 400; confirmed 2026-11-25."),
    case(
        id="wire.deepseek_empty_reasoning_replayed",
        dialects=DIALECT,
        title="An empty reasoning_content goes back too: the key, with \"\"",
        why="deepseek-v4-flash sometimes answers a tool call with reasoning_content \"\"; a "
            "replay that sends the field only when it is non-empty gets the same 400 (Raven "
            "#297 bisected it, deepseek-harness #739 and #1850, OpenClaw's sanitizer); "
            "confirmed 2026-11-25.",
        steps=reasoning_replayed_steps(_first(""), via="complete", final="Sunny in both."),
        checks=(matches_script, reasoning_content_replayed),
    ),
    stream_usage_case(
        id="stream.deepseek_usage_on_finish_chunk",
        dialects=DIALECT,
        title="Streamed usage rides on the finish chunk, with no choices: [] chunk after it",
        why="DeepSeek puts the usage of a stream on its last chunk, the one with the "
            "finish_reason, include_usage or not (Create Chat Completion reference; a measured "
            "deepseek-v4-pro stream); a reader that takes usage only from OpenAI's separate "
            "usage chunk reports none; confirmed 2026-11-25.",
        reply=Turn(tool_calls=calls(("get_time", "{}")), stream=StreamPlan(fragment_size=2)),
    ),
    case(
        id="wire.deepseek_keep_alive_lines",
        dialects=DIALECT,
        title="A 200 body that starts with empty keep-alive lines is read",
        why="While a request waits to be scheduled, DeepSeek keeps the connection alive and "
            "'non-streaming requests continuously return empty lines' before the JSON "
            "(api-docs.deepseek.com/quick_start/rate_limit: 'If you are parsing the HTTP "
            "responses yourself, please ensure to handle these empty lines'); a reader that "
            "parses the first line, or wants the body to start with '{', fails every answer "
            "of a busy hour; confirmed 2026-11-25.",
        steps=(Step(request=request(), reply=Turn(error=ErrorReply(
            status=200, raw_body=_KEEP_ALIVE_BODY))),),
        checks=(waited_answer_read,),
    ),
    case(
        id="errors.deepseek_insufficient_balance",
        dialects=DIALECT,
        title="DeepSeek's 402 Insufficient Balance surfaces as a final error with its status",
        why="A used-up balance is 402 'Insufficient Balance' at DeepSeek (Error Codes page: "
            "'You have run out of balance'); retrying cannot help until someone tops up; "
            "confirmed 2026-11-25.",
        steps=(Step(request=request(), expect="error", reply=Turn(error=ErrorReply(
            status=402, message=INSUFFICIENT_BALANCE, type="unknown_error",
            code="invalid_request_error"))),),
        checks=(error_surfaced(must_contain=INSUFFICIENT_BALANCE),
                provider_error(retryable=False)),
    ),
]

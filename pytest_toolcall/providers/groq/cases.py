"""Cases for the ``groq`` provider (issue 13): what Groq asks beyond the OpenAI wire.

Groq puts a stream's usage under ``x_groq.usage`` on the finish chunk (a top-level ``usage``
only with ``stream_options.include_usage``, which Groq's own SDK does not even offer); it sends
each tool call whole in a chunk of its own; reasoning models answer with a ``reasoning`` field
next to ``content``; and a tool call the model wrote wrongly is a 400 ``tool_use_failed`` whose
``failed_generation`` holds what the model wrote. Sources and dates:
``pytest_toolcall.providers.GROQ``.
"""

from __future__ import annotations

import json
from typing import Any

from pytest_toolcall.cases import Case, ErrorReply, ScriptedCall, Step, StreamPlan, Turn, check
from pytest_toolcall.run.checks import describe_error, error_surfaced, matches_script
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.core.model import Reasoning
from pytest_toolcall.run.runner import CaseRun

from pytest_toolcall.conformance._common import (PARIS_TOKYO_TIME, calls, case, one_step,
                                                 reasoning_decoded, request, stream_usage_case)

DIALECT = ("groq",)
_THOUGHT = "The user wants the weather in Paris and Tokyo and the time; three calls."
#: Groq's call ids as recorded (llama-3.3-70b-versatile, 2025-03): call_ and 4 characters
GROQ_CALLS = (
    ScriptedCall(name="get_weather", arguments={"city": "Paris"}, id="call_re03"),
    ScriptedCall(name="get_weather", arguments={"city": "Tokyo"}, id="call_483b"),
    ScriptedCall(name="get_time", arguments="{}", id="call_wtty"),
)
#: the failed_generation of a recorded tool_use_failed (huggingface/smolagents #1119)
FAILED_GENERATION = ('web_search{"query": "SPFMV and SPCSV in the Pearl Of Africa 2016", '
                     '"filter_year": 2016}</function>')
TOOL_USE_FAILED_BODY = {"error": {
    "message": "Failed to call a function. Please adjust your prompt. See 'failed_generation' "
               "for more details.",
    "type": "invalid_request_error", "code": "tool_use_failed",
    "failed_generation": FAILED_GENERATION}}


def _chain(error: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and all(current is not e for e in out):
        out.append(current)
        current = current.__cause__ or (None if current.__suppress_context__
                                        else current.__context__)
    return out


@check("errors.groq.failed_generation")
def failed_generation_kept(run: CaseRun) -> None:
    """The tool_use_failed error carries its status, its code and what the model wrote."""
    for record in run.steps:
        if record.step.expect != "error" or record.error is None:
            continue
        n, chain = record.index + 1, _chain(record.error)
        got = describe_error(record.error)
        if not any(getattr(e, "code", None) == "tool_use_failed"
                   or getattr(e, "type", None) == "tool_use_failed" for e in chain):
            raise ConformanceFailure(
                "errors.type", f"step {n}: the error does not carry Groq's code",
                expected="code 'tool_use_failed'", got=got,
                hint="copy error.code onto the error: a caller tells a failed tool call "
                     "(retry with a lower temperature, repair the prompt) from a bad request "
                     "by it")
        found = any(_holds(getattr(e, "body", None)) or FAILED_GENERATION in str(e)
                    for e in chain)
        if not found:
            raise ConformanceFailure(
                "errors.groq.failed_generation", f"step {n}: the error lost Groq's "
                "failed_generation", expected=f"failed_generation {FAILED_GENERATION!r} on the "
                "error (its body or its message)", got=got,
                hint="keep the whole error body (ProviderError.body): failed_generation is what "
                     "the model wrote, the one thing that lets a caller repair or show the "
                     "failed call")


def _holds(value: Any) -> bool:
    """Whether ``value`` (an error body, as parsed or as text) holds the failed_generation."""
    if isinstance(value, str):
        return FAILED_GENERATION in value
    if isinstance(value, dict):
        return any(_holds(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds(v) for v in value)
    return False


CASES: list[Case] = [
    stream_usage_case(
        id="stream.groq_usage_in_x_groq",
        dialects=DIALECT,
        title="A stream's usage under x_groq.usage on the finish chunk is read",
        why="Groq puts a stream's usage under x_groq.usage on the finish chunk ('Usage "
            "information for the stream. Only sent in the final chunk': groq 1.7.0 "
            "ChatCompletionChunk.x_groq; vercel/ai #1651: 'They return the usage object under "
            "a x-groq key in the last chunk'); only a request with stream_options.include_usage "
            "gets a top-level usage too (live captures of 2026-08), and Groq's own SDK has no "
            "stream_options parameter. A reader that takes usage only from OpenAI's field "
            "reports none (vercel/ai #1651, Helicone's GroqUsageProcessor, pydantic-ai-gateway "
            "PR #146); confirmed 2026-11-25.",
        reply=Turn(text="Checking.", tool_calls=calls(("get_time", "{}"))),
    ),
    case(
        id="stream.groq_whole_calls",
        dialects=DIALECT,
        title="Parallel tool calls that each arrive whole, in one chunk, are read",
        why="Groq sends each tool call whole (id, type, name, arguments, index) in a chunk of "
            "its own, never in fragments (litellm #7621: 'Groq outputs a single chunk per one "
            "tool call'; vercel/ai PR #1653, Groq's engineer: 'the entire tool call payload in "
            "a single delta'; a recorded llama-3.3-70b stream, 2025-03). A reader built on "
            "OpenAI's shape, whose first fragment carries arguments '' and whose later "
            "fragments carry the pieces, drops the arguments that ride with the id (vercel/ai "
            "had to add it in PR #1838; llama-stack PR #630 assumed one call a chunk); "
            "confirmed 2026-11-25.",
        steps=(Step(request=request(), via="stream", reply=Turn(
            text="Let me check.", tool_calls=GROQ_CALLS,
            stream=StreamPlan(quirks=frozenset({"one_call_per_chunk"})))),),
        checks=(matches_script,),
    ),
    case(
        id="wire.groq_reasoning_decoded",
        dialects=DIALECT,
        title="The reasoning field is decoded apart from the text",
        why="With reasoning_format 'parsed' (and on gpt-oss with include_reasoning) Groq "
            "answers with message.reasoning next to content (console.groq.com/docs/reasoning; "
            "groq 1.7.0 ChatCompletionMessage.reasoning). It is the chain of thought, not the "
            "answer: an adapter that drops unknown fields loses it, one that folds it into the "
            "text shows it to the user; confirmed 2026-11-25.",
        steps=one_step(Turn(reasoning=(Reasoning(type="thinking", text=_THOUGHT),),
                            text="Let me check.", tool_calls=PARIS_TOKYO_TIME)),
        checks=(matches_script, reasoning_decoded),
    ),
    case(
        id="stream.groq_reasoning_decoded",
        dialects=DIALECT,
        title="Streamed delta.reasoning pieces are joined apart from the text",
        why="Groq streams the chain of thought as delta.reasoning pieces (with channel "
            "'analysis' on gpt-oss) before the content (groq 1.7.0 ChoiceDelta.reasoning; live "
            "gpt-oss-20b captures, 2026-08); an accumulator that reads only content and "
            "tool_calls loses it; confirmed 2026-11-25.",
        steps=one_step(Turn(reasoning=(Reasoning(type="thinking", text=_THOUGHT),),
                            text="Let me check.", tool_calls=PARIS_TOKYO_TIME), via="stream"),
        checks=(matches_script, reasoning_decoded),
    ),
    case(
        id="errors.groq_tool_use_failed",
        dialects=DIALECT,
        title="Groq's tool_use_failed 400 keeps its code and its failed_generation",
        why="When the model writes a tool call Groq cannot parse, Groq answers 400 code "
            "tool_use_failed with failed_generation holding what the model wrote (agno #4090, "
            "smolagents #1119, picoclaw #748; Hive v0.5.1 recovers from it by its code). An "
            "adapter that keeps only the message loses the code a caller recovers on and the "
            "text it could repair or show; confirmed 2026-11-25.",
        steps=one_step(Turn(error=ErrorReply(
            status=400, raw_body=json.dumps(TOOL_USE_FAILED_BODY),
            headers={"content-type": "application/json"})), expect="error"),
        checks=(error_surfaced(must_contain="Failed to call a function"),
                failed_generation_kept),
    ),
]

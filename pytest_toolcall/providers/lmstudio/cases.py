"""Cases for the ``lmstudio`` provider (issue 13): what LM Studio's OpenAI-compatible server sends
beyond the OpenAI wire.

Its call ids are numeric strings ("365174485"); reasoning models answer with
``reasoning_content`` (the "Separate reasoning_content" setting) or, for gpt-oss, ``reasoning``;
its errors come as objects or as a bare string (``{"error": "No models loaded. ..."}``), an
unknown route is answered with status 200 and ``{"error": "Unexpected endpoint or method.
..."}``, and an error inside a 200 stream is an SSE event named ``error``. Sources and dates in
``pytest_toolcall.providers.LMSTUDIO``, confirmed 2026-11-25.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from pytest_toolcall.cases import Case, ErrorReply, ScriptedCall, Step, StreamPlan, Turn, check
from pytest_toolcall.run.checks import error_surfaced, matches_script
from pytest_toolcall.providers.lmstudio.dialect import (NO_MODELS_LOADED, STREAM_CONTEXT_OVERFLOW,
                                                        UNEXPECTED_ENDPOINT)
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.core.model import Reasoning
from pytest_toolcall.run.runner import CaseRun

from pytest_toolcall.conformance._common import case, reasoning_decoded, replayed_step, request
from pytest_toolcall.conformance.errors import provider_error

DIALECT = ("lmstudio",)
#: ids as LM Studio's docs show them (openai-compat/tools: the answer and the stream)
_IDS = ("365174485", "814890118")
_NUMERIC_CALLS = Turn(tool_calls=(
    ScriptedCall(name="get_weather", arguments={"city": "Paris"}, id=_IDS[0]),
    ScriptedCall(name="get_weather", arguments={"city": "Tokyo"}, id=_IDS[1])))
_THOUGHT = "The user wants Paris and Tokyo. I will call get_weather twice.\n"
_THINKING = Turn(reasoning=(Reasoning(type="thinking", text=_THOUGHT),), text="Checking both.",
                 tool_calls=_NUMERIC_CALLS.tool_calls)
_WRONG_ROUTE = UNEXPECTED_ENDPOINT.format(method="POST", path="/chat/completions")


@check("wire.lmstudio.call_ids")
def numeric_ids_replayed(run: CaseRun) -> None:
    """Step 2 sends the calls and their results back under LM Studio's ids, as strings, as they
    came."""
    want = [c.id for c in run.steps[0].step.reply.tool_calls]
    for record in run.steps[1:]:
        messages = (record.exchanges[0].json or {}).get("messages") if record.exchanges else None
        sent = [c.get("id") for m in messages or () if m.get("role") == "assistant"
                for c in m.get("tool_calls") or ()]
        answered = [m.get("tool_call_id") for m in messages or () if m.get("role") == "tool"]
        if sent != want or answered != want:
            raise ConformanceFailure(
                "wire.lmstudio.call_ids", f"step {record.index + 1}: the call ids LM Studio "
                "gave are not sent back as they came", expected={"tool_calls": want,
                                                                 "tool_call_id": want},
                got={"tool_calls": sent, "tool_call_id": answered},
                hint="keep a call's id as the string the provider sent ('365174485'): no "
                     "'call_' prefix, no new id, no number")


def message_is_the_text(clause: str, text: str) -> Callable[[CaseRun], None]:
    """The error says LM Studio's words themselves, not the repr of the body around them."""

    @check(clause)
    def message_is_text(run: CaseRun) -> None:
        for record in run.steps:
            if record.step.expect != "error" or record.error is None:
                continue
            chain, seen = [], record.error
            while seen is not None and seen not in chain:
                chain.append(seen)
                seen = seen.__cause__ or seen.__context__
            said = [getattr(e, "message", None) or str(e) for e in chain]
            if not any(text in s and "'error':" not in s and '"error":' not in s for s in said):
                raise ConformanceFailure(
                    clause, f"step {record.index + 1}: the error does not say LM Studio's "
                    "message, only the body it came in", expected=text, got=said[0],
                    hint="LM Studio's 'error' is often a string ({\"error\": \"No models "
                         "loaded. ...\"}): make that string the error's message")

    return message_is_text


CASES: list[Case] = [
    case(
        id="wire.lmstudio_numeric_call_ids",
        dialects=DIALECT,
        title="Numeric call ids ('365174485') go back as the strings they came as",
        why="LM Studio's call ids are numeric strings (lmstudio.ai docs, openai-compat/tools: "
            "'id': '365174485', ChoiceDeltaToolCall(id='814890118')); an adapter that "
            "'repairs' ids lacking OpenAI's call_ prefix, or reads them as numbers, sends "
            "results LM Studio's chat template cannot pair with the calls; confirmed "
            "2026-11-25.",
        steps=replayed_step(_NUMERIC_CALLS, final="Sunny in both."),
        checks=(matches_script, numeric_ids_replayed),
    ),
    case(
        id="stream.lmstudio_numeric_call_ids",
        dialects=DIALECT,
        title="Streamed numeric call ids are kept and sent back unchanged",
        why="The id comes once, on a call's first fragment (docs openai-compat/tools, "
            "Streaming: ChoiceDeltaToolCall(index=0, id='814890118', ...), later fragments "
            "id=None); confirmed 2026-11-25.",
        steps=replayed_step(_NUMERIC_CALLS, via="stream", final="Sunny in both."),
        checks=(matches_script, numeric_ids_replayed),
    ),
    case(
        id="wire.lmstudio_reasoning_content",
        dialects=DIALECT,
        title="reasoning_content is the chain of thought, apart from the answer's text",
        why="With 'Separate reasoning_content and content in API responses' on (App Settings > "
            "Developer, LM Studio 0.3.9) reasoning models answer message.reasoning_content "
            "next to content (moltis #597, 2026-04: qwen3.5, gemma-4); folding it into the "
            "text, or dropping it, loses or leaks the thinking; confirmed 2026-11-25.",
        steps=(Step(request=request(), reply=_THINKING),),
        checks=(matches_script, reasoning_decoded),
    ),
    case(
        id="stream.lmstudio_reasoning_content",
        dialects=DIALECT,
        title="Streamed delta.reasoning_content pieces are joined into the reasoning",
        why="Streams carry it as delta.reasoning_content pieces before the content and the "
            "calls (lmstudio-bug-tracker #378, moltis #597, Zoo-Code PR #1175: 'the entire "
            "thought stream was silently dropped'); confirmed 2026-11-25.",
        steps=(Step(request=request(), reply=_THINKING, via="stream"),),
        checks=(matches_script, reasoning_decoded),
    ),
    case(
        id="wire.lmstudio_gpt_oss_reasoning",
        dialects=DIALECT,
        title="gpt-oss's reasoning comes in message.reasoning, not reasoning_content",
        why="Since LM Studio 0.3.23, for gpt-oss on POST /v1/chat/completions 'reasoning "
            "content moves out of message.content and into choices.message.reasoning "
            "(non-streaming) and choices.delta.reasoning (streaming)' (API changelog; "
            "lmstudio-bug-tracker #894); a reader of reasoning_content alone loses it; "
            "confirmed 2026-11-25.",
        steps=(Step(request=request(model="openai/gpt-oss-20b"), reply=_THINKING),
               Step(request=request(model="openai/gpt-oss-20b"), reply=_THINKING,
                    via="stream")),
        checks=(matches_script, reasoning_decoded),
    ),
    case(
        id="wire.lmstudio_error_in_200_body",
        dialects=DIALECT,
        title="A 200 whose body is {\"error\": \"...\"} is an error with LM Studio's words",
        why="LM Studio answers a route it does not serve (a base URL without /v1) with status "
            "200 and {\"error\": \"Unexpected endpoint or method. (POST /chat/completions)\"} "
            "('Returning 200 anyway': lmstudio-bug-tracker #618, #1323, #2085, open in 2026); "
            "an adapter that trusts the status returns an empty answer or a 'malformed "
            "response' that hides why; confirmed 2026-11-25.",
        steps=(Step(request=request(), expect="error", reply=Turn(error=ErrorReply(
            status=200, raw_body=json.dumps({"error": _WRONG_ROUTE})))),),
        checks=(error_surfaced(must_contain=_WRONG_ROUTE),
                message_is_the_text("wire.lmstudio.error_message", _WRONG_ROUTE)),
    ),
    case(
        id="errors.lmstudio_string_error",
        dialects=DIALECT,
        title="An error whose 'error' is a string surfaces with that string and its status",
        why="LM Studio sends some errors as a bare string: 400 {\"error\": \"No models loaded. "
            "Please load a model in the developer page or use the 'lms load' command.\"} "
            "(gpt-researcher #1556), a context overflow's 400 (Gitlawb/openclaude #353, "
            "2026-04); readers of error.message crash on it, others show the body's repr; "
            "confirmed 2026-11-25.",
        steps=(Step(request=request(), expect="error", reply=Turn(error=ErrorReply(
            status=400, raw_body=json.dumps({"error": NO_MODELS_LOADED})))),),
        checks=(error_surfaced(must_contain=NO_MODELS_LOADED),
                message_is_the_text("errors.lmstudio.message", NO_MODELS_LOADED),
                provider_error(retryable=False)),
    ),
    case(
        id="stream.lmstudio_error_event",
        dialects=DIALECT,
        title="An 'event: error' inside a 200 stream raises with LM Studio's message",
        why="A context overflow found after the 200 is sent comes as 'event: error' and data: "
            "{\"error\": {\"message\": M}, \"message\": M}, and the stream ends (LM Studio "
            "0.4.21, raw capture in aaif-goose/goose #11318; lmstudio-bug-tracker #2322); a "
            "reader that skips chunks without choices returns the partial text as the answer; "
            "the input does not fit: sending it again cannot help; confirmed 2026-11-25.",
        steps=(Step(request=request(), via="stream", expect="error", reply=Turn(
            text="The weather in Paris is", stream=StreamPlan(error_after=2, error=ErrorReply(
                status=200, message=STREAM_CONTEXT_OVERFLOW)))),),
        checks=(error_surfaced(must_contain=STREAM_CONTEXT_OVERFLOW),
                provider_error(retryable=False)),
    ),
]

"""Ollama-specific cases: object arguments, calls without ids, ``tool_name``, NDJSON streams.

The OpenAI-compatible route of the ``ollama`` dialect (``/v1/chat/completions``, with its old
``index`` bugs) is not reached by these cases, which run the native adapter; the kit's tests run
the shared index cases against an OpenAI adapter on that route instead.
"""

from __future__ import annotations

from pytest_toolcall.cases import Case, ErrorReply, Step, StreamPlan, Turn, check
from pytest_toolcall.run.checks import error_surfaced, matches_script, same_result_both_ways
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.run.runner import CaseRun

from pytest_toolcall.conformance._common import (PARIS_TOKYO_TIME, answered, calls, case, one_step,
                                                 replayed_step, request)
from pytest_toolcall.conformance.errors import provider_error
from pytest_toolcall.conformance.wire import _messages_intact, history_intact

_DIALECTS = ("ollama",)
_NO_IDS = StreamPlan(quirks=frozenset({"no_ids"}))
# nested and non-ASCII values: an object on the wire both ways
_OBJECT_ARGS = calls(("get_weather", {"city": "Zürich", "unit": "celsius"}),
                     ("search-docs_v2", {"query": "naïve café", "filters": {"tags": ["a", "b"]},
                                         "limit": 3}))
_MODEL_ERROR = "an error was encountered while running the model: unexpected EOF"
_ON_DONE_LINE = StreamPlan(quirks=frozenset({"done_line_payload"}))
#: Ollama's 400 for a request with tools to a model whose template has none (server/images.go
#: capabilities, server/routes.go handleScheduleError: errCapabilities -> 400)
_NO_TOOLS = 'registry.ollama.ai/library/llama9-toolcall does not support tools'


@check("response.tool_calls.ids_unique")
def ids_unique(run: CaseRun) -> None:
    """Every call has an id of its own, even when the provider sent none (to pair results)."""
    for record in run.steps:
        if record.response is None or not record.step.reply.tool_calls:
            continue
        ids = [c.id for c in record.response.tool_calls]
        if any(not i for i in ids) or len(set(ids)) != len(ids):
            raise ConformanceFailure(
                "response.tool_calls.ids_unique", f"step {record.index + 1}: the provider sent "
                "its calls without ids, and the adapter did not give each one an id of its own",
                expected="a distinct, non-empty id per call", got=ids,
                hint="make up a unique id for each call without one (litellm #11262: results "
                     "could not be paired with calls); never the tool name, two calls may "
                     "share it")


@check("wire.ollama.tool_name")
def results_carry_tool_name(run: CaseRun) -> None:
    """Each tool message sent to Ollama names its tool in ``tool_name``."""
    for record in run.steps[1:]:
        body = record.exchanges[0].json or {}
        names: dict[str, str] = {}
        last_calls: list[str | None] = []  # names of the latest assistant turn's calls
        answered = 0
        for n, msg in enumerate(body.get("messages") or ()):
            if msg.get("tool_calls"):
                last_calls, answered = [], 0
            for call in msg.get("tool_calls") or ():
                name = (call.get("function") or {}).get("name")
                last_calls.append(name)
                if call.get("id"):
                    names[call["id"]] = name
            if msg.get("role") != "tool":
                continue
            # pair by the id the library sent, else by position after the calls (ollama-python
            # sends no tool_call_id): the expectation is derived from what was sent, never
            # None for a result that has a call (issue 14, defect 9)
            want = names.get(msg.get("tool_call_id") or "")
            if want is None and answered < len(last_calls):
                want = last_calls[answered]
            answered += 1
            if not msg.get("tool_name") or msg.get("tool_name") != want:
                raise ConformanceFailure(
                    "wire.ollama.tool_name", f"step {record.index + 1}: tool message "
                    f"messages[{n}] does not name the tool it answers",
                    expected=f"tool_name={want!r}", got=f"tool_name={msg.get('tool_name')!r}",
                    hint="Ollama's chat templates read tool_name on tool results; set it to "
                         "the name of the call whose id is tool_call_id")


#: the conversation on the wire is the conversation of the request: role and text, in order
messages_intact = check("wire.history.messages")(_messages_intact)


CASES: list[Case] = [
    case(
        id="wire.ollama_object_arguments",
        dialects=_DIALECTS,
        title="Ollama: arguments are a JSON object both ways",
        why="Ollama sends tool-call arguments as an object and rejects a JSON string on replay "
            "(400 'Value looks like object, but can't find closing '}' symbol'; openclaw #46679 "
            "and #50713); an adapter written for OpenAI json.loads-es the object and crashes, "
            "or json.dumps-es it back and breaks every second turn.",
        steps=replayed_step(Turn(tool_calls=_OBJECT_ARGS)),
        checks=(matches_script, history_intact),
    ),
    case(
        id="wire.ollama_calls_without_ids",
        dialects=_DIALECTS,
        title="Ollama: calls without ids get unique ids of their own",
        why="litellm #11262: older Ollama servers (and ollama-python 0.6.x, which drops the "
            "field) give calls no id; without one, results cannot be paired with calls, and "
            "two calls of the same tool collapse.",
        steps=(Step(request=request(), reply=Turn(tool_calls=PARIS_TOKYO_TIME, stream=_NO_IDS)),
               Step(request=request(), reply=Turn(tool_calls=PARIS_TOKYO_TIME, stream=_NO_IDS),
                    via="stream")),
        checks=(matches_script, ids_unique),
    ),
    case(
        id="wire.ollama_tool_name_on_results",
        dialects=_DIALECTS,
        title="Ollama: tool results carry tool_name",
        why="Ollama pairs a result with its call by tool_name (tool_call_id came later); "
            "adapters written for OpenAI send tool_call_id only, and the model reads results "
            "it cannot attribute.",
        steps=(Step(request=request(), reply=Turn(tool_calls=PARIS_TOKYO_TIME)),
               Step(request=request(*answered(Turn(tool_calls=PARIS_TOKYO_TIME))),
                    reply=Turn(text="Done."))),
        checks=(results_carry_tool_name, history_intact),
    ),
    case(
        id="wire.ollama_done_reason_stop_with_calls",
        dialects=_DIALECTS,
        title="Ollama: done_reason 'stop' with tool calls is finish reason tool_calls",
        why="Ollama says done_reason 'stop' even when the model called tools; a loop that "
            "reads the finish reason verbatim thinks the model is done and never runs them.",
        steps=(Step(request=request(), reply=Turn(tool_calls=PARIS_TOKYO_TIME[:1])),
               Step(request=request(), reply=Turn(tool_calls=PARIS_TOKYO_TIME[:1]),
                    via="stream")),
        checks=(matches_script, same_result_both_ways),
    ),
    case(
        id="stream.ollama_ndjson_split",
        dialects=_DIALECTS,
        title="Ollama: NDJSON lines cut across reads, the last one without a newline",
        why="Network reads cut NDJSON lines anywhere, and a stream may end without a final "
            "newline (proxies strip it); an adapter that json.loads each read, or keeps only "
            "lines ending in a newline, crashes or loses the done line.",
        steps=one_step(Turn(text="Voilà, Zürich:", tool_calls=_OBJECT_ARGS,
                            stream=StreamPlan(chunking="seeded", seed=7,
                                              quirks=frozenset({"ndjson_no_final_newline"}))),
                       via="stream"),
        checks=(matches_script,),
    ),
    case(
        id="stream.ollama_error_line",
        dialects=_DIALECTS,
        title="Ollama: an {\"error\": ...} line mid-stream raises a typed error with its text",
        why="Ollama reports a failure after the stream started as one {\"error\": \"...\"} "
            "line and closes the stream; an adapter that skips lines without 'message' ends "
            "with a partial answer, or an error that does not say what went wrong.",
        steps=one_step(Turn(tool_calls=PARIS_TOKYO_TIME,
                            stream=StreamPlan(error_after=2, error=ErrorReply(
                                status=200, message=_MODEL_ERROR))),
                       via="stream", expect="error"),
        checks=(error_surfaced(must_contain=_MODEL_ERROR),),
    ),
    case(
        id="stream.ollama_index_stuck_at_zero",
        dialects=_DIALECTS,
        title="Ollama: whole calls that all say function.index 0 stay separate",
        why="litellm #33678: Ollama streams sent every call with index 0; an adapter that "
            "merges calls by index, as it would OpenAI fragments, gets {\"path\":\"a\"}"
            "{\"path\":\"b\"}. Each Ollama call is whole: never merge two.",
        steps=one_step(Turn(tool_calls=PARIS_TOKYO_TIME,
                            stream=StreamPlan(quirks=frozenset({"index_stuck_at_zero"}))),
                       via="stream"),
        checks=(matches_script,),
    ),
    case(
        id="stream.ollama_payload_on_done_line",
        dialects=_DIALECTS,
        title="Ollama: text and tool calls that arrive on the done: true line are kept",
        why="Ollama's parsers hold text back while it may still become a tool call and flush "
            "it when the model stops: the last text (toolParser.Content()) and the calls a "
            "built-in parser closes at the end (builtinParser.Add(content, done)) come on the "
            "line with done: true (ollama/ollama server/routes.go, ChatHandler; confirmed "
            "2026-11-28). A reader that takes the done line for metadata only loses the end "
            "of the answer (decolua/9router #2694) or the calls, and the turn ends as 'stop' "
            "with no tool run (QuantumNous/new-api #7252, qwen3-coder).",
        steps=(Step(request=request(), reply=Turn(text="Paris: 18°C and sunny, Tokyo: 21°C.",
                                                  stream=_ON_DONE_LINE), via="stream"),
               Step(request=request(), reply=Turn(tool_calls=PARIS_TOKYO_TIME[:2],
                                                  stream=_ON_DONE_LINE), via="stream")),
        checks=(matches_script,),
    ),
    case(
        id="wire.ollama_calls_only_turn_replayed",
        dialects=_DIALECTS,
        title="Ollama: an assistant turn with calls and no text goes back without invented text",
        why="Ollama renders every replayed assistant message into the model's prompt with its "
            "template, text and calls: even an empty content where the template expects none "
            "changes what qwen3-coder does on the next turn (ollama/ollama #14181). An adapter "
            "that fills a calls-only turn with placeholder text ('(no content)', as "
            "UKGovernmentBEIS/inspect_ai #2772 removed for Anthropic) puts words in the "
            "model's mouth it never said.",
        steps=replayed_step(Turn(tool_calls=PARIS_TOKYO_TIME[:2])),
        checks=(messages_intact, history_intact, matches_script),
    ),
    case(
        id="errors.ollama_tools_unsupported",
        dialects=_DIALECTS,
        title="Ollama: the 400 'does not support tools' surfaces with its words, final",
        why="Ollama answers a request with tools to a model whose template has no tool support "
            "with 400 {\"error\": \"registry.ollama.ai/library/<model> does not support "
            "tools\"}, before anything is generated, streamed or not (server/routes.go "
            "handleScheduleError: errCapabilities is a 400; ollama/ollama #14795, #6027; "
            "confirmed 2026-11-28). Retrying cannot help until the user picks another model: "
            "an adapter that swallows it into a generic 'please try again' sends users round "
            "in circles (kenlasko/monize #405).",
        steps=tuple(Step(request=request(), expect="error", via=via,
                         reply=Turn(error=ErrorReply(status=400, message=_NO_TOOLS)))
                    for via in ("complete", "stream")),
        checks=(error_surfaced(must_contain="does not support tools"),
                provider_error(retryable=False)),
    ),
]

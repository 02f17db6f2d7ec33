"""Cases of the ``openai-responses`` dialect: two ids per call, item pairing, the event stream.

A Responses function call has an item id (``fc_…``) and a ``call_id`` (``call_…``). The call_id is
the canonical id and what a ``function_call_output`` names; the item id is what the stream's
argument fragments name, and what a replayed item may carry as ``id`` (never the call_id).
"""

from __future__ import annotations

from pytest_toolcall.cases import Case, ErrorReply, ScriptedCall, Step, StreamPlan, Turn, check
from pytest_toolcall.run.checks import error_surfaced, matches_script
from pytest_toolcall.providers.openai_responses.dialect import OpenAIResponses, item_id
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.core.model import AssistantMessage, Reasoning, ToolCall, ToolMessage
from pytest_toolcall.run.runner import CaseRun

from pytest_toolcall.conformance._common import (ASK, PARIS_TOKYO_TIME, answered, case, one_step,
                                                 reasoning_decoded, replayed_step, request,
                                                 stream_usage_case, wire_and_stream)
from pytest_toolcall.conformance.wire import history_intact

DIALECT = ("openai-responses",)


@check("wire.responses.item_id")
def item_ids_round_trip(run: CaseRun) -> None:
    """A replayed function_call carries no ``id``, or the fc_ id the provider gave that call."""
    for record in run.steps[1:]:
        body = record.exchanges[0].json or {}
        for n, item in enumerate(body.get("input") or ()):
            if not isinstance(item, dict) or item.get("type") != "function_call":
                continue
            sent, call_id = item.get("id"), item.get("call_id")
            if sent is not None and sent != item_id(str(call_id)):
                raise ConformanceFailure(
                    "wire.responses.item_id", f"step {record.index + 1}: input[{n}] replays call "
                    f"{call_id} with the item id of another item", expected=item_id(str(call_id)),
                    got=sent, hint="keep the fc_ id of each call by its call_id (or send no id)")


def _parallel(**plan: object) -> Turn:
    return Turn(text="Checking both cities.", tool_calls=PARIS_TOKYO_TIME,
                stream=StreamPlan(**plan))  # type: ignore[arg-type]


def _two_rounds() -> tuple[object, ...]:
    """Two rounds of calls, the first with text, each call answered after its round."""
    first = tuple(ToolCall.from_raw(id=f"call_r1_{k}", name="get_weather", arguments=a)
                  for k, a in enumerate(({"city": "Paris"}, {"city": "Tokyo"})))
    second = (ToolCall.from_raw(id="call_r2_0", name="get_time", arguments="{}"),)
    return (ASK, AssistantMessage(content="Checking both cities.", tool_calls=first),
            ToolMessage(tool_call_id="call_r1_0", content="21°C"),
            ToolMessage(tool_call_id="call_r1_1", content="18°C"),
            AssistantMessage(tool_calls=second),
            ToolMessage(tool_call_id="call_r2_0", content="12:00"))


def _without_completed(turn: Turn) -> Turn:
    """``turn`` with its stream cut right before response.completed: every item is done."""
    events = OpenAIResponses().encode_stream(turn, {})
    plan = turn.stream.model_copy(update={"truncate_after": len(events) - 2})
    return turn.model_copy(update={"stream": plan})


_ERROR = "The model produced invalid content. Consider modifying your prompt if you are seeing " \
         "this error persistently."

# -- reasoning items travel with the function call that follows them ---------------------------
_REASONING = (Reasoning(
    type="reasoning", id="rs_toolcall0a1b2c3d4e5f60718293a4b5c6d7e8f9012345",
    text="Two cities: call get_weather for each.",
    signature="gAAAAABtoolcall-encrypted-reasoning-Zm9yIHRoZSBmYWtlIG9ubHk="),)
_REASONING_TURN = Turn(reasoning=_REASONING, tool_calls=PARIS_TOKYO_TIME[:2])


def _reasoning_steps(via: str) -> tuple[Step, ...]:
    ask, assistant, *results = answered(_REASONING_TURN)
    assert isinstance(assistant, AssistantMessage)
    history = (ask, assistant.model_copy(update={"reasoning": _REASONING}), *results)
    first = Step(request=request(), reply=_REASONING_TURN, via=via)  # type: ignore[arg-type]
    again = request(*history)
    second = Step(request=again, reply=Turn(text="Sunny."), via=via)  # type: ignore[arg-type]
    return (first, second)


@check("wire.reasoning.replayed")
def reasoning_items_replayed(run: CaseRun) -> None:
    """The reasoning items the model sent come back unchanged (id, summary,
    encrypted_content), before the function calls they preceded."""
    first = run.steps[0].step.reply
    want = OpenAIResponses().reasoning_items(first)
    calls_ = {c.id for c in first.tool_calls}
    for record in run.steps[1:]:
        items = [i for i in (record.exchanges[0].json or {}).get("input") or ()
                 if isinstance(i, dict)]
        at = next((n for n, i in enumerate(items) if i.get("type") == "function_call"
                   and i.get("call_id") in calls_), None)
        if at is None:
            continue
        got = [{k: v for k, v in i.items() if k in ("id", "type", "encrypted_content",
                                                     "summary")}
               for i in items[:at] if i.get("type") == "reasoning"]
        if got != want:
            raise ConformanceFailure(
                "wire.reasoning.replayed", f"step {record.index + 1}: the reasoning items do "
                "not come back unchanged before the function calls they preceded",
                expected=want, got=got,
                hint="replay each reasoning item (id, summary, encrypted_content) as it came, "
                     "right before its function_call items; OpenAI answers 400 \"Item 'fc_…' of "
                     "type 'function_call' was provided without its required 'reasoning' "
                     "item\" (cline #12242, continuedev #10018)")


# -- a response cut short: status "incomplete", incomplete_details.reason ------------------------
_INCOMPLETE_WHY = (
    "Responses has no finish_reason: a response cut short by max_output_tokens or a content "
    "filter has status \"incomplete\" and incomplete_details.reason \"max_output_tokens\" or "
    "\"content_filter\" (openai-python 3.57.0, types/responses/response.py IncompleteDetails; "
    "confirmed 2026-11-28). An adapter that reads only the output reports a truncated answer "
    "as a finished one, and the loop takes half an answer for the whole (omlx PR #2817: an "
    "agent settled on an empty turn; home-assistant/core #139964).")
_INCOMPLETE_STEPS = (Turn(text="Paris is 21°C and sunny; Tokyo is", finish_reason="length"),
                     Turn(finish_reason="content_filter"))


#: an answer whose text comes in two message items (``text_in_messages``)
_TWO_MESSAGES = Turn(text="Paris: 21°C and sunny.\nTokyo: 17°C, light rain.",
                     stream=StreamPlan(quirks=frozenset({"text_in_messages"})))


CASES: list[Case] = [
    *wire_and_stream(
        "responses_reasoning_replayed", _reasoning_steps, dialects=DIALECT,
        checks=(matches_script, reasoning_decoded, reasoning_items_replayed),
        title="A reasoning item goes back with the function calls that followed it",
        why="Reasoning models (o-series, gpt-5) put a reasoning item before their calls; a "
            "history that replays the calls with their fc_ ids but drops the reasoning gets "
            "400 \"Item 'fc_…' of type 'function_call' was provided without its required "
            "'reasoning' item: 'rs_…'\" (cline #12242, continuedev #10018, mastra #8738, "
            "rig #751; confirmed 2026-11-23).",
        stream_title="A streamed reasoning item is kept and replayed with its calls",
        stream_why="In a stream the reasoning item comes as output_item.added / output_item.done "
            "before the calls (5 recorded streams, wire corpus); accumulators that skip every "
            "item but messages and calls lose it, and the next request gets the 400 of "
            "wire.responses_reasoning_replayed (vercel/ai #7099)."),
    case(
        id="stream.responses_arguments_in_done_only",
        dialects=DIALECT,
        title="Streamed arguments that arrive only in function_call_arguments.done are read",
        why="Some models send a call's arguments with no delta events, whole in "
            "response.function_call_arguments.done (and the output_item.done item): an adapter "
            "that rebuilds arguments from deltas only returns {} (found by adapter authors, "
            "issue 14; case added 2026-11-22).",
        steps=(Step(request=request(), via="stream", reply=Turn(
            tool_calls=PARIS_TOKYO_TIME,
            stream=StreamPlan(quirks=frozenset({"arguments_done_only"})))),),
        checks=(matches_script,),
    ),
    case(
        id="wire.responses_call_id_not_item_id",
        dialects=DIALECT,
        title="The call_id is the call's id; the fc_ item id only ever goes back as the item's id",
        why="A Responses call has two ids. An adapter that reads the item id (fc_…) as the call "
            "id answers with an output the provider cannot pair ('No tool call found for "
            "function call output'); one that replays the call_id as item id gets \"Expected an "
            "ID that begins with 'fc'\" (nodetool PR #4252, sub2api PR #1505).",
        steps=replayed_step(Turn(tool_calls=PARIS_TOKYO_TIME)),
        checks=(matches_script, history_intact, item_ids_round_trip),
    ),
    case(
        id="stream.responses_call_id_from_item",
        dialects=DIALECT,
        title="Streamed calls take call_id and name from the item, not from the fragments",
        why="Argument fragments carry only item_id (the fc_ id): openai-agents #4553 streamed a "
            "function call with an empty call_id; using item_id instead breaks the pairing of "
            "the next turn.",
        steps=replayed_step(_parallel(fragment_size=3), via="stream"),
        checks=(matches_script, history_intact, item_ids_round_trip),
    ),
    case(
        id="wire.responses_every_call_answered",
        dialects=DIALECT,
        title="Two rounds of calls replay as items: every function_call answered, no orphan output",
        why="The provider refuses 'No tool output found for function call call_X.' and 'No tool "
            "call found for function call output with call_id call_X.' (continuedev/continue "
            "#10092, CLIProxyAPI #2368): outputs keyed by the wrong id, or calls dropped from a "
            "text turn.",
        steps=one_step(Turn(text="Paris 21°C, Tokyo 18°C, it is noon."),
                       request(*_two_rounds())),  # type: ignore[arg-type]
        checks=(history_intact,),
    ),
    case(
        id="stream.responses_output_index",
        dialects=DIALECT,
        title="Calls after a text item sit at output_index 1, 2, 3: not at call positions 0, 1, 2",
        why="output_index counts every output item (the message too) and is dense; an adapter "
            "that takes it for the call's position files fragments under the wrong call "
            "(litellm #21331 put every parallel call on index 0).",
        steps=one_step(_parallel(fragment_size=4), via="stream"),
        checks=(matches_script,),
    ),
    stream_usage_case(
        id="stream.responses_usage_from_completed",
        dialects=DIALECT,
        title="Usage and status come from response.completed, not from response.created",
        why="response.created and response.in_progress carry a whole response too, with "
            "usage null and no output; an adapter that takes the first response it sees "
            "reports no usage.",
    ),
    case(
        id="stream.responses_no_completed",
        dialects=DIALECT,
        title="A stream whose items are all done but that never sends response.completed fails",
        why="Every output_item.done can arrive before the connection drops; without "
            "response.completed the response is not finished (no usage, no status): returning "
            "it hands the loop a turn the model never ended.",
        steps=one_step(_without_completed(_parallel()), via="stream", expect="error"),
        checks=(error_surfaced(),),
    ),
    case(
        id="stream.responses_failed_event",
        dialects=DIALECT,
        title="A response.failed event raises with the provider's message",
        why="Server errors in a Responses stream come as response.failed (status failed, "
            "response.error); an adapter that only knows the error event returns the partial "
            "output as a success.",
        steps=(Step(request=request(), via="stream", expect="error", reply=Turn(
            tool_calls=(ScriptedCall(id="call_001", name="get_weather",
                                     arguments={"city": "Paris"}),),
            stream=StreamPlan(error_after=4, quirks=frozenset({"response_failed"}),
                              error=ErrorReply(status=200, type="server_error",
                                               code="server_error", message=_ERROR)))),),
        checks=(error_surfaced(must_contain="The model produced invalid content"),),
    ),
    case(
        id="wire.responses_incomplete",
        dialects=DIALECT,
        title="status incomplete is finish 'length' (max_output_tokens) or 'content_filter'",
        why=_INCOMPLETE_WHY,
        steps=tuple(Step(request=request(), reply=turn) for turn in _INCOMPLETE_STEPS),
        checks=(matches_script,),
    ),
    case(
        id="stream.responses_incomplete_event",
        dialects=DIALECT,
        title="A stream that ends with response.incomplete is finished, with its reason",
        why=_INCOMPLETE_WHY + " Streamed, the last event is response.incomplete, not "
            "response.completed (openai-python 3.57.0, response_incomplete_event.py): an "
            "accumulator that waits for response.completed reports a cut stream, one that "
            "ignores the event loses the reason (langchain #33840, fixed by PR #33871; "
            "envoyproxy/ai-gateway PR #2184 lost the usage).",
        steps=tuple(Step(request=request(), reply=turn, via="stream")
                    for turn in _INCOMPLETE_STEPS),
        checks=(matches_script,),
    ),
    case(
        id="wire.responses_failed",
        dialects=DIALECT,
        title="A complete response with status failed raises with the provider's message",
        why="A Responses request the model fails after it was taken is answered 200 with "
            "status \"failed\", an empty output and error {code, message} (openai-python "
            "3.57.0, types/responses/response.py Response.error; confirmed 2026-11-28). An "
            "adapter that reads only the output returns an empty answer as a success "
            "(experientiallabs/experiential PR #46 review, 2026-07-02: failed responses became "
            "empty outputs; stream.responses_failed_event is the streamed form).",
        steps=one_step(Turn(error=ErrorReply(status=200, type="server_error",
                                             code="server_error", message=_ERROR)),
                       expect="error"),
        checks=(error_surfaced(must_contain="The model produced invalid content"),),
    ),
    case(
        id="wire.responses_text_in_messages",
        dialects=DIALECT,
        title="An answer's text in two message items is read whole",
        why="A response may hold several message items (openai/openai-java #625 quotes two, "
            "a file_search_call between them; UKGovernmentBEIS/inspect_ai PR #1928: an assert "
            "that there is one fired on search-tool answers); openai-python's "
            "Response.output_text joins the output_text of every message with nothing between "
            "(3.57.0, types/responses/response.py; confirmed 2026-11-28). An adapter that keeps "
            "one message item's text loses the rest of the answer. Complete and streamed.",
        steps=tuple(Step(request=request(), reply=_TWO_MESSAGES, via=via)
                    for via in ("complete", "stream")),
        checks=(matches_script,),
    ),
]

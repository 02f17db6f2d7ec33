"""Gemini-only cases: calls without ids, ids and thought signatures echoed, one response turn,
finishReason STOP with calls, whole calls in chunks, CRLF event endings, a blocked prompt, an
answer's text in two parts, a stored history's signatures."""

from __future__ import annotations

import base64
from typing import Any

from pytest_toolcall.cases import Case, ErrorReply, Step, StreamPlan, Turn, check
from pytest_toolcall.run.checks import error_surfaced, matches_script, wire_request
from pytest_toolcall.providers.gemini.dialect import Gemini, _camel, thought_signature
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.core.model import (AssistantMessage, Reasoning, ToolCall, ToolMessage, Usage,
                                        UserMessage)
from pytest_toolcall.run.runner import CaseRun

from pytest_toolcall.conformance._common import (ASK, PARIS_TOKYO_TIME, calls, case, one_step,
                                                 replayed_step, request)
from pytest_toolcall.conformance.wire import history_intact

GEMINI = ("gemini",)
_NO_IDS = tuple(c.model_copy(update={"id": None}) for c in PARIS_TOKYO_TIME)


def _wire_parts(run: CaseRun, step: int, role: str, kind: str) -> list[list[dict[str, Any]]]:
    """The ``kind`` parts (functionCall / functionResponse) of each ``role`` turn of a step's
    raw request, one list per turn that has any."""
    body = run.steps[step].exchanges[0].json or {}
    out = []
    for content in body.get("contents") or ():
        if content.get("role", "user") != role:
            continue
        parts = [p for p in map(_camel_part, content.get("parts") or ()) if kind in p]
        if parts:
            out.append(parts)
    return out


def _answered_turns(run: CaseRun, step: int) -> list[tuple[list[Any], list[Any]]]:
    """Each model turn of a step's request that has calls, with the turn of responses that
    follows it (the n-th call turn with the n-th response turn, or none): the functionCall and
    functionResponse objects."""
    call_turns = _wire_parts(run, step, "model", "functionCall")
    result_turns = _wire_parts(run, step, "user", "functionResponse")
    return [([p["functionCall"] for p in calls_],
             [p["functionResponse"] for p in (result_turns[n] if n < len(result_turns) else [])])
            for n, calls_ in enumerate(call_turns)]


def _camel_part(part: Any) -> dict[str, Any]:
    """A part with its field names (and its call's or result's) in camelCase: Gemini's proto
    JSON parser takes the snake_case spelling too (``function_call``, ``thought_signature``),
    which litellm sends (read off its requests, 2026-11-25, litellm 1.110.2); the arguments
    and the result object are the caller's data and keep their keys."""
    if not isinstance(part, dict):
        return {}
    out = {}
    for key, value in part.items():
        key = _camel(key)
        if key in ("functionCall", "functionResponse") and isinstance(value, dict):
            value = {_camel(k): v for k, v in value.items()}
        out[key] = value
    return out


@check("response.tool_calls.id_unique")
def ids_made_up(run: CaseRun) -> None:
    """Calls that came without an id get one each: non-empty and unique within the turn."""
    for record in run.steps:
        if record.response is None:
            continue
        ids = [c.id for c in record.response.tool_calls]
        if any(not i for i in ids) or len(set(ids)) != len(ids):
            raise ConformanceFailure(
                "response.tool_calls.id_unique", f"step {record.index + 1}: calls that Gemini "
                "sent without an id must each get a non-empty id of their own",
                expected="distinct non-empty ids", got=ids,
                hint="make one up per call (a uuid), never the function name: two calls of "
                     "the same tool would share it (TanStack/ai #199)")


@check("wire.gemini.results_paired")
def results_paired(run: CaseRun) -> None:
    """Every call of the history is answered: each call turn has its turn of functionResponse
    parts, one per call, each naming the call it answers, in call order. (A call turn with no
    responses at all fails too: the n-th call turn is held to the n-th response turn, or to
    none.) Every step is read, the first too: its request may carry a history (the id-less
    history of wire.gemini_id_less_results_paired is all in its one step)."""
    for record in run.steps:
        for calls_, results in _answered_turns(run, record.index):
            want = [c.get("name") for c in calls_]
            got = [r.get("name") for r in results]
            if want != got:
                raise ConformanceFailure(
                    "wire.gemini.results_paired", f"step {record.index + 1}: the function "
                    "responses do not answer the calls in order", expected=want, got=got,
                    hint="pair a result with its call by id, else by position, and send the "
                         "call's name (litellm #11262: id-less calls could not be paired)")


@check("wire.gemini.results_paired")
def results_answer_their_calls(run: CaseRun) -> None:
    """Each functionResponse that carries an id names the call of that id, and each call of
    the turn is answered once: results given out of call order keep their own calls (in the
    order given or in call order, both pair)."""
    for record in run.steps:
        for calls_, results in _answered_turns(run, record.index):
            want = sorted((c.get("id") or "", c.get("name")) for c in calls_)
            got = sorted((r.get("id") or "", r.get("name")) for r in results)
            if want != got:
                raise ConformanceFailure(
                    "wire.gemini.results_paired", f"step {record.index + 1}: the function "
                    "responses do not each answer the call their id names",
                    expected=want, got=got,
                    hint="pair a result with its call by id (by position only when nothing has "
                         "an id) and send that call's name (router-for-me/CLIProxyAPI #5199: "
                         "results given out of order paired by position)")


@check("wire.gemini.ids_echoed")
def ids_echoed(run: CaseRun) -> None:
    """Ids Gemini sent come back on the functionCall parts and on the matching responses."""
    turn = run.steps[0].step.reply
    sent = [c.id for c in turn.tool_calls]
    for record in run.steps[1:]:
        calls_ = [p["functionCall"].get("id") for t in
                  _wire_parts(run, record.index, "model", "functionCall") for p in t]
        results = [p["functionResponse"].get("id") for t in
                   _wire_parts(run, record.index, "user", "functionResponse") for p in t]
        for what, got in (("functionCall", calls_), ("functionResponse", results)):
            if got != sent:
                raise ConformanceFailure(
                    "wire.gemini.ids_echoed", f"step {record.index + 1}: the {what} parts do "
                    "not carry the ids Gemini gave the calls", expected=sent, got=got,
                    hint="send functionCall.id and functionResponse.id back when Gemini sent "
                         "an id (vercel/ai #15891, litellm PR #34603: ids dropped or "
                         "invented)")


@check("wire.gemini.thought_signature")
def signature_replayed(run: CaseRun) -> None:
    """The thoughtSignature of the first call comes back on that call's part, unchanged."""
    first = run.steps[0].step.reply.tool_calls[0]
    want = thought_signature(first.id, first.name)
    for record in run.steps[1:]:
        turns = _wire_parts(run, record.index, "model", "functionCall")
        got = turns[0][0].get("thoughtSignature") if turns else None
        if got != want:
            raise ConformanceFailure(
                "wire.gemini.thought_signature", f"step {record.index + 1}: the first call's "
                "thoughtSignature was not replayed", expected=want, got=got,
                hint="keep the thoughtSignature of each functionCall part and send it back "
                     "on the same part; Gemini 3 answers 400 without it")


def _carried(message: AssistantMessage) -> str | None:
    """The Gemini signature an assistant message carries: a signed thinking entry with no text
    (what the fake decodes a replayed signature to; an Anthropic block has its text)."""
    return next((r.signature for r in message.reasoning
                 if r.type == "thinking" and r.signature and not r.text), None)


def _foreign(message: AssistantMessage) -> list[str]:
    """The signatures of another provider's reasoning an assistant message carries: Anthropic's
    thinking blocks (with their text) and redacted blocks, a Responses item's encrypted content."""
    return [r.signature for r in message.reasoning
            if r.signature and (r.text or r.type != "thinking")]


@check("wire.gemini.thought_signature")
def carried_signature_sent(run: CaseRun) -> None:
    """A stored history's signatures go where Gemini reads them: the one a model turn carries
    (its signed thinking entry without text) on that turn's first functionCall part, and
    another provider's (a Claude thinking block's) on no part at all. Gemini checks a signature
    it is sent and answers 400 'Corrupted thought signature.' to another model's; a first call
    with no signature or Google's documented stand-in is not judged here."""
    for record in run.steps:
        body = record.exchanges[0].json or {}
        assistants = [m for m in record.step.request.messages
                      if isinstance(m, AssistantMessage) and m.tool_calls]
        turns = _wire_parts(run, record.index, "model", "functionCall")
        for n, message in enumerate(assistants):
            want = _carried(message)
            got = turns[n][0].get("thoughtSignature") if n < len(turns) else None
            if want is not None and got != want:
                raise ConformanceFailure(
                    "wire.gemini.thought_signature", f"step {record.index + 1}: model turn "
                    f"{n + 1} of the history did not send the signature it carries on its first "
                    "call", expected=want, got=got,
                    hint="send the signature a stored assistant turn carries (a signed "
                         "thinking entry with no text) as thoughtSignature on its first "
                         "functionCall part; Gemini 3 answers 400 without it")
        foreign = {s for m in record.step.request.messages if isinstance(m, AssistantMessage)
                   for s in _foreign(m)}
        sent = [p.get("thoughtSignature") for c in body.get("contents") or ()
                if isinstance(c, dict) for p in map(_camel_part, c.get("parts") or ())]
        wrong = sorted(foreign.intersection(s for s in sent if isinstance(s, str)))
        if wrong:
            raise ConformanceFailure(
                "wire.gemini.thought_signature", f"step {record.index + 1}: another "
                "provider's signature was sent to Gemini as a thoughtSignature",
                expected="no Claude signature on any part", got=wrong,
                hint="a thinking block Claude signed means nothing to Gemini (400 'Corrupted "
                     "thought signature.'): send only the signatures Gemini gave")


@check("response.usage")
def prompt_usage_kept(run: CaseRun) -> None:
    """A blocked prompt's usage is read: its prompt and total token counts as sent. Gemini sends
    no candidates count then: no output tokens and 0 are the same answer."""
    for record in run.steps:
        want, got = record.step.reply.usage, record.response.usage if record.response else None
        if record.response is None or want is None:
            continue
        if got is None or (got.input_tokens, got.total_tokens) != (
                want.input_tokens, want.total_tokens) or got.output_tokens not in (None, 0):
            raise ConformanceFailure(
                "response.usage", f"step {record.index + 1}: the blocked prompt's usage was not "
                "reported as sent", expected=want.model_dump(),
                got=got.model_dump() if got else None,
                hint="read usageMetadata from an answer without candidates too: the prompt's "
                     "tokens are billed")


@check("wire.gemini.failed_result")
def failed_result_marked(run: CaseRun) -> None:
    """Each functionResponse says whether its call failed as its ToolMessage does: a failed
    result under ``error``, a good one not (as the fake decodes them)."""
    for record in run.steps:
        want = [m.is_error for m in record.step.request.messages if isinstance(m, ToolMessage)]
        got = [m.is_error for m in wire_request(run, record.index).messages
               if isinstance(m, ToolMessage)]
        if want != got:
            raise ConformanceFailure(
                "wire.gemini.failed_result", f"step {record.index + 1}: which results failed "
                "was not sent as given (is_error of each result, in order)", expected=want,
                got=got, hint="send a failed result as functionResponse.response {\"error\": "
                              "...} and a good one under \"output\" (Gemini's FunctionResponse)")


def _two_rounds() -> tuple[Any, ...]:
    """A stored history of two rounds of calls, the second one's result failed."""
    first, second = (ToolCall.from_raw(id=c.id, name=c.name, arguments=c.arguments)
                     for c in PARIS_TOKYO_TIME[:2])
    return (ASK, AssistantMessage(tool_calls=(first,)),
            ToolMessage(tool_call_id=first.id, content="18°C, cloudy"),
            AssistantMessage(content="Now the other city.", tool_calls=(second,)),
            ToolMessage(tool_call_id=second.id, content="weather service timed out",
                        is_error=True))


#: the signature Claude put on its thinking block, and the one Gemini put on its turn's first
#: call: opaque base64 both, the one signature of its turn each
_CLAUDE_SIGNATURE = base64.b64encode(b"toolcall-claude-thinking:toolu_01").decode()
_GEMINI_SIGNATURE = thought_signature("call_002", "get_weather")


def _signed_history() -> tuple[Any, ...]:
    """A stored history of two models: a Claude round (a thinking block with its text and
    signature before the call), a new question, then a Gemini round whose turn carries
    Gemini's signature (a signed thinking entry without text) before two parallel calls."""
    claude = ToolCall.from_raw(id="toolu_01", name="get_weather", arguments={"city": "Paris"})
    weather, clock = (ToolCall.from_raw(id=c.id, name=c.name, arguments=c.arguments)
                      for c in PARIS_TOKYO_TIME[1:])
    return (UserMessage(content="What's the weather in Paris?"),
            AssistantMessage(tool_calls=(claude,), reasoning=(Reasoning(
                type="thinking", text="The user wants the weather in Paris: one lookup.",
                signature=_CLAUDE_SIGNATURE),)),
            ToolMessage(tool_call_id=claude.id, content="18°C, cloudy"),
            AssistantMessage(content="Paris: 18°C, cloudy."),
            UserMessage(content="And Tokyo, and what time is it?"),
            AssistantMessage(tool_calls=(weather, clock), reasoning=(Reasoning(
                type="thinking", signature=_GEMINI_SIGNATURE),)),
            ToolMessage(tool_call_id=weather.id, content="17°C, light rain"),
            ToolMessage(tool_call_id=clock.id, content="21:04"))


def _results_out_of_order() -> tuple[Any, ...]:
    """Two calls of different tools, their results stored in the order the tools finished
    (the second call's first), without names."""
    weather, clock = (ToolCall.from_raw(id=c.id, name=c.name, arguments=c.arguments)
                      for c in (PARIS_TOKYO_TIME[0], PARIS_TOKYO_TIME[2]))
    return (ASK, AssistantMessage(tool_calls=(weather, clock)),
            ToolMessage(tool_call_id=clock.id, content="21:04"),
            ToolMessage(tool_call_id=weather.id, content="18°C, cloudy"))


def _no_id_history() -> tuple[Any, ...]:
    """The history after an id-less turn, as an application that kept no ids stores it."""
    parsed = [ToolCall.from_raw(id=None, name=c.name, arguments=c.arguments) for c in _NO_IDS]
    return (ASK, AssistantMessage(tool_calls=tuple(parsed)),
            *(ToolMessage(tool_call_id=None, content=f"result {n + 1}")
              for n in range(len(parsed))))


#: a turn whose response holds a thought summary (a ``thought: true`` text part, what Gemini
#: sends with ``includeThoughts``) before its answer text and its calls
_THOUGHT = Turn(reasoning=(Reasoning(
    type="thinking", text="**Planning the lookups**\nThe user wants the weather in two "
    "cities; both lookups are independent, so I will request them together."),),
    text="Checking both cities.", tool_calls=PARIS_TOKYO_TIME[:2])


#: a prompt Gemini blocked (the fake's ``prompt_blocked``): no candidates, promptFeedback with
#: its blockReason, and the prompt's usage alone
_BLOCKED = Turn(finish_reason="content_filter", usage=Usage(input_tokens=11, total_tokens=11),
                stream=StreamPlan(quirks={"prompt_blocked"}))

#: an answer whose text Gemini sends in two parts of one candidate (``text_in_parts``)
_TWO_PARTS = Turn(text="Paris: 21°C and sunny.\nTokyo: 17°C, light rain.",
                  stream=StreamPlan(quirks={"text_in_parts"}))


#: a 200 whose body is a JSON array of one answer: the shape streamGenerateContent answers in
#: when it is asked without alt=sse, never generateContent's
_ARRAY_BODY = ('[{"candidates": [{"content": {"role": "model", "parts": [{"text": "Paris: '
               '21°C, sunny."}]}, "finishReason": "STOP"}]}]')


def _stored(history: tuple[Any, ...]) -> tuple[Step, ...]:
    """One step whose request is a stored ``history`` (the adapter read none of it), answered
    with text."""
    return (Step(request=request(*history), reply=Turn(text="Done.")),)


def _both(reply: Turn) -> tuple[Step, ...]:
    """``reply`` answered complete, then streamed."""
    return (Step(request=request(), reply=reply), Step(request=request(), reply=reply,
                                                       via="stream"))


def _crlf_boundaries() -> tuple[int, ...]:
    """Cuts inside ``data: `` of the first event, inside its JSON, and between the CRLF pairs
    of the first and second event endings."""
    turn = Turn(text="Bonjour", tool_calls=PARIS_TOKYO_TIME)
    data = b"".join(Gemini().encode_stream(turn, {}))
    first = data.index(b"\r\n\r\n")
    second = data.index(b"\r\n\r\n", first + 4)
    return (3, first // 2, first + 2, second + 1, second + 3)


CASES: list[Case] = [
    case(
        id="wire.gemini_calls_without_ids",
        dialects=GEMINI,
        title="Calls Gemini sends without ids get unique ids, same-name calls too",
        why="Gemini 2.x sends no functionCall.id. TanStack/ai #199 used the function name as "
            "id and two get_weather calls collapsed into one.",
        steps=one_step(Turn(tool_calls=_NO_IDS)),
        checks=(matches_script, ids_made_up),
    ),
    case(
        id="wire.gemini_id_less_results_paired",
        dialects=GEMINI,
        title="Results of id-less calls go back paired with their calls, by position",
        why="litellm #11262: calls without ids could not be paired with their results; a "
            "functionResponse needs the call's name even when nothing has an id.",
        steps=_stored(_no_id_history()),
        checks=(results_paired,),
    ),
    case(
        id="wire.gemini_results_out_of_order",
        dialects=GEMINI,
        title="Results stored out of call order go back each with its own call's id and name",
        why="Parallel tools finish in any order and a history may keep their results in that "
            "order; a functionResponse names the call it answers: 'id: The id of the function call "
            "this response is for', 'name: ... Matches FunctionDeclaration.name and "
            "FunctionCall.name' (google-genai 3.6.1, types.py FunctionResponse; confirmed "
            "2026-11-28). An adapter that pairs results with calls by position gives "
            "each the other call's name (router-for-me/CLIProxyAPI #5199: permuted results "
            "paired by position, rejected with 'functionResponse.id does not match "
            "functionCall.id'). Sent in the order given or in call order, both pair.",
        steps=_stored(_results_out_of_order()),
        checks=(results_answer_their_calls,),
    ),
    case(
        id="wire.gemini_ids_and_signature_echoed",
        dialects=GEMINI,
        title="Ids and the thoughtSignature Gemini sent are echoed back on replay",
        why="vercel/ai #15891 and litellm PR #34603: Gemini call ids dropped or sent where "
            "rejected; Gemini 3 answers 400 when the first call's thoughtSignature is missing.",
        steps=replayed_step(Turn(tool_calls=PARIS_TOKYO_TIME)),
        checks=(ids_echoed, signature_replayed, history_intact),
    ),
    case(
        id="wire.gemini_signed_history_replayed",
        dialects=GEMINI,
        title="A stored history's signatures: Gemini's on its turn's first call, Claude's on none",
        why="A history the adapter did not read itself (stored, or read by another adapter "
            "instance or model) holds Gemini's signature in its model turn, and Gemini 3 "
            "answers 400 'Function call is missing a thought_signature' when the current turn's "
            "first call comes back without it (ai.google.dev/gemini-api/docs/thought-signatures; "
            "dirge-code/dirge #833: the stored tool call had no field for it, replayed with "
            "signature None; octos-org/octos PR #1897: persisted or transferred histories). A "
            "signature another model gave (a Claude thinking block) means nothing to Gemini: "
            "'Corrupted thought signature.' (decolua/9router #4136: Claude's signatures put on "
            "Gemini functionCall parts after a model switch; router-for-me/CLIProxyAPI PR #994). "
            "No signature, or Google's documented stand-in, on a turn Gemini did not sign is "
            "not judged. Confirmed 2026-11-28.",
        steps=_stored(_signed_history()),
        checks=(carried_signature_sent, results_paired),
    ),
    case(
        id="stream.gemini_signature_echoed",
        dialects=GEMINI,
        title="A streamed call's thoughtSignature and id are echoed back on replay",
        why="The signature comes on the streamed part; adapters that keep it only on the "
            "non-streaming path lose it (vercel/ai #10344: Gemini 3 'missing a "
            "thought_signature').",
        steps=replayed_step(Turn(tool_calls=PARIS_TOKYO_TIME[:2]), via="stream"),
        checks=(ids_echoed, signature_replayed),
    ),
    case(
        id="wire.gemini_thought_not_answer",
        dialects=GEMINI,
        title="A thought part before the answer and the calls is not answer text",
        why="With includeThoughts Gemini sends its thought summary as text parts marked "
            "thought: true, before the answer and the function calls (ai.google.dev/"
            "gemini-api/docs/thinking, confirmed 2026-11-28); an adapter that joins every "
            "text part shows the model's reasoning to the user as its answer and stores it "
            "as the assistant's words (AstrBotDevs/AstrBot #4222: thought=True parts were not "
            "filtered out of the reply). Complete and streamed.",
        steps=_both(_THOUGHT),
        checks=(matches_script,),
    ),
    case(
        id="wire.gemini_prompt_blocked",
        dialects=GEMINI,
        title="A blocked prompt is an answer: no text, no calls, finish content_filter, usage",
        why="Gemini answers a prompt it blocks with a 200 that has no candidates, the reason in "
            "promptFeedback.blockReason and the prompt's usage (ai.google.dev/api/"
            "generate-content, PromptFeedback: 'If set, the prompt was blocked and no "
            "candidates are returned'; a stream sends that one chunk, google-genai 3.6.1 "
            "GenerateContentResponsePromptFeedback; googleapis/python-genai #774: block_reason "
            "OTHER on gemini-2.5-pro; confirmed 2026-11-28). An adapter that indexes "
            "candidates[0] crashes (gbaptista/gemini-ai PR #9, microsoft/eureka-ml-insights PR "
            "#79: an IndexError); one that reads the empty answer as a success hands the caller "
            "a blank final answer (2389-research/tracker #543: 'swallowed as a successful empty "
            "completion'). google-genai, langchain-google-genai 4.4.3, litellm 1.110.2 and "
            "pydantic-ai 2.68.0 all return an answer, not an error, with no text, no calls and "
            "the usage (so an invented answer or lost usage is a defect); others raise on "
            "purpose (0xPlaygrounds/rig PR #2475), so a raise is hardening here; litellm and "
            "pydantic-ai mark it finish content_filter, the other two keep the block in their "
            "prompt_feedback field, so the finish reason is hardening too. Complete and "
            "streamed.",
        steps=_both(_BLOCKED),
        checks=(matches_script, prompt_usage_kept),
    ),
    case(
        id="wire.gemini_text_in_parts",
        dialects=GEMINI,
        title="An answer's text in two parts of one candidate is read whole",
        why="Gemini may split an answer's text over several text parts of one candidate "
            "(agno-agi/agno #3229 quotes three from its HTTP logs: only the last was kept; "
            "ag2ai/ag2 PR #2977: a JSON answer cut to its tail). google-genai's "
            "GenerateContentResponse.text joins them with nothing between (3.6.1; confirmed "
            "2026-11-28). Complete, and streamed with both parts in one chunk.",
        steps=_both(_TWO_PARTS),
        checks=(matches_script,),
    ),
    case(
        id="wire.gemini_failed_result",
        dialects=GEMINI,
        title="A failed result goes back under error, a good one under output, round after round",
        why="Gemini's FunctionResponse.response: 'Use \"output\" key to specify function "
            "output and \"error\" key to specify error details (if any)' (google-genai 3.6.1, "
            "types.py FunctionResponse.response; confirmed 2026-11-28); an adapter that sends "
            "every result as output lets the model read a failure as data. pydantic-ai 2.68.0 "
            "sends a failed call under error; langchain-google-genai 4.4.3 sends every ToolMessage "
            "under output and litellm's OpenAI-shaped messages have no failure flag, so it is "
            "hardening. The history has two rounds of calls, each with its turn of results "
            "(an adapter that groups results once per conversation loses the second).",
        steps=_stored(_two_rounds()),
        checks=(results_paired, failed_result_marked),
    ),
    case(
        id="wire.gemini_success_not_object",
        dialects=GEMINI,
        title="A 200 whose body is not a JSON object raises a typed error, not a crash",
        why="generateContent answers one GenerateContentResponse object; a JSON array is what "
            "streamGenerateContent sends when it is called without alt=sse (symfony/ai PR "
            "#1988, nyo16/nous PR #26: 'returns a JSON array by default, not SSE'; confirmed "
            "2026-11-28), and a gateway or a misrouted request hands it to a generateContent "
            "reader (coreply/coreply #18: \"Expected start of the object '{', but had '['\" "
            "from the Gemini API). An adapter that reads the body as an object crashes with an "
            "AttributeError instead of saying what came back (wire.malformed_success sends an "
            "object without candidates).",
        steps=one_step(Turn(error=ErrorReply(status=200, raw_body=_ARRAY_BODY)),
                       expect="error"),
        checks=(error_surfaced(),),
    ),
    case(
        id="wire.gemini_one_response_turn",
        dialects=GEMINI,
        title="All results go back in ONE user turn right after the call turn",
        why="langchain #27799: one turn per result; Gemini answers 400 'the number of function "
            "response parts is equal to the number of function call parts'.",
        steps=replayed_step(Turn(text="Checking.", tool_calls=PARIS_TOKYO_TIME)),
        checks=(history_intact, results_paired),
    ),
    case(
        id="wire.gemini_stop_with_calls",
        dialects=GEMINI,
        title="finishReason STOP with calls is tool_calls; MALFORMED_FUNCTION_CALL is error",
        why="Gemini says STOP even when the turn is tool calls; a loop that reads 'stop' thinks "
            "the model is done and never runs them.",
        steps=(Step(request=request(), reply=Turn(tool_calls=calls(("get_time", {})))),
               Step(request=request(), reply=Turn(finish_reason="error"))),
        checks=(matches_script,),
    ),
    case(
        id="stream.gemini_calls_in_one_chunk",
        dialects=GEMINI,
        title="Several functionCall parts in one chunk are all read",
        why="langchainjs #10196: only the first functionCall part of a chunk was read.",
        steps=one_step(Turn(tool_calls=PARIS_TOKYO_TIME), via="stream"),
        checks=(matches_script,),
    ),
    case(
        id="stream.gemini_one_call_per_chunk",
        dialects=GEMINI,
        title="Calls sent one per chunk are all kept",
        why="Gemini also sends parallel calls one per chunk, with no index; an adapter that "
            "takes each chunk's calls as the turn's calls keeps only the last.",
        steps=one_step(Turn(text="Checking.", tool_calls=PARIS_TOKYO_TIME,
                            stream=StreamPlan(quirks={"one_call_per_chunk"})), via="stream"),
        checks=(matches_script,),
    ),
    case(
        id="stream.gemini_finish_on_last_chunk",
        dialects=GEMINI,
        title="A finishReason on the chunk that carries the last call or text keeps that chunk",
        why="gemini-2.0-flash puts finishReason on the last call or text chunk, with no empty "
            "chunk after it (wire corpus, test_google_model_iter_stream; 2.5 and 3.x send an "
            "empty closing chunk instead; confirmed 2026-11-23); an adapter that takes the "
            "finishing chunk as a bare end marker loses the call or the text it carries.",
        steps=(Step(request=request(), via="stream",
                    reply=Turn(tool_calls=_NO_IDS[:1], stream=StreamPlan(
                        quirks={"finish_on_last_chunk", "no_ids", "no_thought_signature"}))),
               Step(request=request(), via="stream",
                    reply=Turn(text="Paris: 21°C, sunny.", stream=StreamPlan(
                        fragment_size=6, quirks={"finish_on_last_chunk"})))),
        checks=(matches_script,),
    ),
    case(
        id="wire.gemini_calls_without_signature",
        dialects=GEMINI,
        title="A call with neither id nor thoughtSignature is read and replayed",
        why="gemini-2.0-flash signs no call (wire corpus: 8 of 8 first calls unsigned, while "
            "2.5 and 3.x sign the first call of a turn, id or not; confirmed 2026-11-23); an "
            "adapter written for Gemini 3 that expects the signature crashes on it.",
        steps=replayed_step(Turn(tool_calls=_NO_IDS[:2], stream=StreamPlan(
            quirks={"no_ids", "no_thought_signature"}))),
        checks=(matches_script, ids_made_up, history_intact),
    ),
    case(
        id="wire.vertex_call_ids",
        dialects=("vertex",),
        title="Vertex: the ids Vertex gives the calls are kept; going back they may be left out",
        why="Vertex gives function calls ids and takes them back since its discovery revision "
            "20260921 (anomalyco/opencode PR #50504, live-verified on v1 and v1beta1; "
            "google-genai 3.6.1 sends them), and takes results without them as it did before; "
            "rechecked 2026-11-25. An adapter that still drops Vertex's ids on the way in (the "
            "workaround for the 400 Vertex gave until 2026-09: pydantic-ai #5081) can no longer "
            "pair a result with its call by id.",
        steps=replayed_step(Turn(tool_calls=PARIS_TOKYO_TIME)),
        checks=(matches_script, history_intact),
    ),
    case(
        id="stream.gemini_crlf_events",
        dialects=GEMINI,
        title="CRLF CRLF event endings and a data: line cut across network reads",
        why="Real Gemini ends SSE events with \\r\\n\\r\\n (wire corpus); parsers that split on "
            "\\n\\n see no event at all, and those that parse each read lose a cut line.",
        steps=one_step(Turn(text="Bonjour", tool_calls=PARIS_TOKYO_TIME,
                            stream=StreamPlan(chunking="explicit",
                                              boundaries=_crlf_boundaries())), via="stream"),
        checks=(matches_script,),
    ),
]

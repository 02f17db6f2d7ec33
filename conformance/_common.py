"""Tools, prompts and checks shared by the case families."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_toolcall.cases import Case, ScriptedCall, Step, Turn, check, make_case
from pytest_toolcall.run.checks import matches_script, usage_reported, wire_request
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.core.model import (
    AssistantMessage,
    ChatRequest,
    ToolCall,
    ToolMessage,
    ToolSpec,
    UserMessage,
)
from pytest_toolcall.providers._compat import reasoning_text
from pytest_toolcall.run.runner import CaseRun

WEATHER = ToolSpec(
    name="get_weather",
    description="Current weather for a city.",
    parameters={
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name, e.g. Zürich"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["city"],
        "additionalProperties": False,
    },
)
TIME = ToolSpec(name="get_time", description="The current UTC time. Takes no arguments.")
SEARCH = ToolSpec(
    name="search-docs_v2",
    description="Search the documentation — returns «snippets» ranked by relevance.",
    parameters={
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1},
            "filters": {
                "type": "object",
                "properties": {
                    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
                    "since": {"type": ["string", "null"], "format": "date"},
                },
                "additionalProperties": False,
            },
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
            "mode": {"anyOf": [{"const": "fast"}, {"const": "thorough"}]},
        },
        "required": ["query"],
        "$defs": {"unused": {"type": "boolean"}},
    },
    strict=False,
)
TOOLS = (WEATHER, TIME)

#: Dialects whose wire carries tool-call arguments as JSON *text* in deltas keyed by index:
#: the cases about "" / null arguments, malformed JSON text and delta quirks apply to them only.
#: A dialect whose wire has the same mechanism adds itself here.
TEXT_ARGUMENTS: tuple[str, ...] = ("openai",)
ASK = UserMessage(content="What's the weather in Paris and in Tokyo, and what time is it?")


def request(*messages: Any, tools: tuple[ToolSpec, ...] = TOOLS, **fields: Any) -> ChatRequest:
    return ChatRequest(messages=messages or (ASK,), tools=tools, **fields)


def calls(*specs: tuple[str, Any] | tuple[str, Any, str]) -> tuple[ScriptedCall, ...]:
    """Scripted calls from ``(name, arguments[, id])`` tuples; ids default to call_001, …"""
    out = []
    for n, spec in enumerate(specs):
        name, arguments = spec[0], spec[1]
        call_id = spec[2] if len(spec) > 2 else f"call_{n + 1:03d}"  # type: ignore[misc]
        out.append(ScriptedCall(name=name, arguments=arguments, id=call_id))
    return tuple(out)


PARIS_TOKYO_TIME = calls(
    ("get_weather", {"city": "Paris"}),
    ("get_weather", {"city": "Tokyo", "unit": "celsius"}),
    ("get_time", "{}"),
)


def answered(turn: Turn, results: list[str] | None = None, *,
             ask: Any = ASK) -> tuple[Any, ...]:
    """The history after ``turn``: the ask, the assistant's calls, one tool result per call."""
    parsed = tuple(ToolCall.from_raw(id=c.id, name=c.name, arguments=c.arguments)
                   for c in turn.tool_calls)
    results = results or [f"result {n + 1}" for n in range(len(parsed))]
    return (ask, AssistantMessage(content=turn.text, tool_calls=parsed),
            *(ToolMessage(tool_call_id=c.id, content=r) for c, r in zip(parsed, results)))


def case(**fields: Any) -> Case:
    return make_case(**fields)


def one_step(reply: Turn, req: ChatRequest | None = None, *, via: str = "complete",
             expect: str = "response") -> tuple[Step, ...]:
    return (Step(request=req or request(), reply=reply, via=via, expect=expect),)  # type: ignore[arg-type]


def replayed_step(first: Turn, *, via: str = "complete", final: str = "Done.") -> tuple[Step, ...]:
    """Step 1 answers with ``first``; step 2 sends the history back and gets ``final``."""
    return (
        Step(request=request(), reply=first, via=via),  # type: ignore[arg-type]
        Step(request=request(*answered(first)), reply=Turn(text=final), via=via),  # type: ignore[arg-type]
    )


def reasoning_replayed_steps(first: Turn, *, via: str, final: str) -> tuple[Step, ...]:
    """:func:`replayed_step` for a turn with reasoning: the assistant message of the history
    sent back in step 2 keeps ``first``'s reasoning."""
    history = answered(first)
    assistant = history[1]
    assert isinstance(assistant, AssistantMessage)
    history = (history[0], assistant.model_copy(update={"reasoning": first.reasoning}),
               *history[2:])
    return (Step(request=request(), reply=first, via=via),  # type: ignore[arg-type]
            Step(request=request(*history), reply=Turn(text=final), via=via))  # type: ignore[arg-type]


def wire_field(clause: str, describe: str, get: Callable[[ChatRequest], Any],
               want: Callable[[ChatRequest], Any], hint: str) -> Callable[[CaseRun], None]:
    """A check that a field of the decoded wire request equals the canonical request's."""

    @check(clause)
    def wire_field_check(run: CaseRun) -> None:
        for record in run.steps:
            sent = wire_request(run, record.index)
            expected, got = want(record.step.request), get(sent)
            if expected != got:
                raise ConformanceFailure(clause, f"step {record.index + 1}: {describe}",
                                         expected=expected, got=got, hint=hint)

    wire_field_check.__name__ = clause.replace(".", "_")
    return wire_field_check


@check("response.reasoning")
def reasoning_decoded(run: CaseRun) -> None:
    """The response carries the turn's reasoning, in order, text and signature unchanged."""
    for record in run.steps:
        if record.response is None or record.step.expect != "response":
            continue
        want = [(r.type, r.text or None, r.signature) for r in record.step.reply.reasoning]
        got = [(r.type, r.text or None, r.signature) for r in record.response.reasoning]
        if got != want:
            raise ConformanceFailure(
                "response.reasoning", f"step {record.index + 1}: the reasoning the model sent "
                "is not in the response as it came", expected=want, got=got,
                hint="decode the reasoning into ChatResponse.reasoning / ReasoningComplete, in "
                     "order: Anthropic thinking blocks (text and signature, streamed as "
                     "thinking_delta and signature_delta) and redacted_thinking (data); "
                     "Responses reasoning items (id, summary, encrypted_content)")


def reasoning_content_check(clause: str, sender: str, hint: str, *,
                            field: str = "reasoning_content",
                            carries: str | None = None) -> Callable[[CaseRun], None]:
    """A check of ``clause``: the assistant message that replays the calls carries the first
    turn's thinking in ``field``, unchanged ("" included); ``sender`` names who sent it
    (``carries``: the failure's words for what is missing, after "does not carry")."""
    carries = carries or f" the {field} {sender} sent with these calls"

    @check(clause)
    def reasoning_content_replayed(run: CaseRun) -> None:
        first = run.steps[0].step.reply
        want = reasoning_text(first)
        ids = {c.id for c in first.tool_calls}
        for record in run.steps[1:]:
            messages = (run.steps[record.index].exchanges[0].json or {}).get("messages") or []
            for i, msg in enumerate(messages):
                if msg.get("role") != "assistant":
                    continue
                if not {c.get("id") for c in msg.get("tool_calls") or ()} & ids:
                    continue
                got = msg.get(field, f"<no {field} key>")
                if got != want:
                    raise ConformanceFailure(
                        clause, f"step {record.index + 1}: messages[{i}] does not carry{carries}",
                        expected=want, got=got, hint=hint)

    return reasoning_content_replayed


def call_ids_replayed_check(clause: str, ids: list[str | None], sender: str,
                            hint: str) -> Callable[[CaseRun], None]:
    """A check of ``clause``: every request after the first sends the calls back with ``ids``
    exactly as ``sender`` gave them, on the assistant's tool_calls and on the tool results."""

    @check(clause)
    def call_ids_verbatim(run: CaseRun) -> None:
        for record in run.steps[1:]:
            messages = (run.steps[record.index].exchanges[0].json or {}).get("messages") or []
            sent = [c.get("id") for m in messages if m.get("role") == "assistant"
                    for c in m.get("tool_calls") or ()]
            answered_ids = [m.get("tool_call_id") for m in messages if m.get("role") == "tool"]
            for what, got in (("assistant tool_calls ids", sent), ("tool_call_id", answered_ids)):
                if got != ids:
                    raise ConformanceFailure(
                        clause, f"step {record.index + 1}: the {what} are not {sender}'s ids as "
                        "they came", expected=ids, got=got, hint=hint)

    return call_ids_verbatim


def wire_and_stream(name: str, steps: Callable[[str], tuple[Step, ...]], *, title: str,
                    why: str, stream_title: str, stream_why: str, **fields: Any) -> list[Case]:
    """One behaviour as two cases: ``wire.<name>`` answered as JSON and ``stream.<name>``
    streamed, on ``steps(via)`` and the same ``fields`` (dialects, checks ...); each with its
    own title and why."""
    return [case(id=f"wire.{name}", title=title, why=why, steps=steps("complete"), **fields),
            case(id=f"stream.{name}", title=stream_title, why=stream_why,
                 steps=steps("stream"), **fields)]


def reasoning_content_cases(provider: str, replayed: Callable[[CaseRun], None] | None = None, *,
                            first: Turn, final: str, why: str, why_stream: str,
                            stream_first: Turn | None = None, sender: str = "",
                            because: str = "") -> list[Case]:
    """The two cases of a service that answers with ``reasoning_content`` and wants it back
    with the calls: ``wire.<provider>_reasoning_replayed`` (``first`` answered, the history
    sent back, ``final`` answered) and ``stream.<provider>_reasoning_replayed`` (the same
    streamed, with ``stream_first`` if given); each checks the script, the decoded reasoning
    and ``replayed``: by default ``wire.<provider>.reasoning_replayed``, that the reasoning goes
    back unchanged (``sender`` sent it; its hint ends with ``because``)."""
    if replayed is None:
        replayed = reasoning_content_check(
            f"wire.{provider}.reasoning_replayed", sender,
            hint="keep reasoning_content (AssistantMessage.reasoning) and send it back unchanged "
                 f"on the assistant message with the tool_calls: {because}")

    def steps(via: str) -> tuple[Step, ...]:
        turn = first if via == "complete" else stream_first or first
        return reasoning_replayed_steps(turn, via=via, final=final)

    return wire_and_stream(
        f"{provider}_reasoning_replayed", steps, dialects=(provider,),
        checks=(matches_script, reasoning_decoded, replayed),
        title="reasoning_content is decoded apart from the text and sent back with the calls",
        why=why,
        stream_title="Streamed reasoning_content deltas are joined, kept and sent back with the "
                     "calls",
        stream_why=why_stream)


#: the reply of a stream-usage case: one call, streamed
_USAGE_REPLY = Turn(tool_calls=calls(("get_time", "{}")))


def stream_usage_case(*, reply: Turn = _USAGE_REPLY, **fields: Any) -> Case:
    """A case that a stream's usage is read where the provider puts it: one request, ``reply``
    streamed (default: one call of get_time), the usage reported and the script matched;
    ``fields``: the case's id, dialects, title and why."""
    return case(needs={"usage"}, steps=(Step(request=request(), via="stream", reply=reply),),
                checks=(usage_reported, matches_script), **fields)

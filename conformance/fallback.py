"""The ``fallback`` family: structured output through a tool, with fallbacks. Generalised from a
streamed tool-args collector with JSON and text fallbacks (seed 003): ``emit_plan`` tool call
first, then JSON in the text, then the text itself, the channel reported; the stream read once
(collecting tool calls first, then the text from the same stream, found it exhausted).

Every case runs ``extract`` and ``aextract``; the model is in-process and records each stream it
opens and how far it was read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pytest_toolcall.cases import Case, ScriptedCall, Turn, check, make_case
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.run.fallbackrun import FallbackRun, FallbackScript
from pytest_toolcall.core.model import ToolSpec

_PLAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"goal": {"type": "string"},
                   "steps": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
    "required": ["goal", "steps"],
    "additionalProperties": False,
}
EMIT_PLAN = ToolSpec(name="emit_plan", description="Emit the plan as structured data.",
                     parameters=_PLAN_SCHEMA)
#: another tool whose arguments also fit emit_plan's schema: only its name tells them apart
EMIT_DRAFT = ToolSpec(name="emit_draft", description="Emit a rough draft of a plan.",
                      parameters=_PLAN_SCHEMA)

#: the value of the tool call, the value of the JSON in the text: distinct, so a value tells
#: which channel it came from
TOOL_PLAN = {"goal": "ship v2", "steps": ["freeze", "tag", "publish"]}
TEXT_PLAN = {"goal": "ship v2", "steps": ["write notes", "publish"]}
DRAFT_PLAN = {"goal": "draft only", "steps": ["sketch"]}
PLAIN = "I cannot plan this yet: which date should the release have?"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _script(text: str | None, *calls: ScriptedCall, calls_first: bool = False,
            other_tools: tuple[ToolSpec, ...] = ()) -> FallbackScript:
    return FallbackScript(tool=EMIT_PLAN, other_tools=other_tools,
                          turn=Turn(text=text, tool_calls=calls), calls_first=calls_first)


def _plan_call(arguments: Any, name: str = "emit_plan") -> ScriptedCall:
    return ScriptedCall(name=name, arguments=arguments, id="call_plan")


# -- checks -------------------------------------------------------------------------------------
@check("fallback.one_stream")
def one_stream(run: FallbackRun) -> None:
    """The model is streamed exactly once: a second stream is a second model call."""
    if len(run.opens) != 1:
        raise ConformanceFailure(
            "fallback.one_stream", f"the model was streamed {len(run.opens)} time(s)",
            expected="1 stream, read once for the tool call and the text together",
            got=[f"stream {o.index + 1}: read {o.read}/{o.events} events" for o in run.opens],
            hint="collect the text and the tool calls in the same pass; never re-ask the model "
                 "for the fallback")


@check("fallback.stream_drained")
def stream_drained(run: FallbackRun) -> None:
    """Every stream opened is read to its StreamDone (nothing after the tool call is lost)."""
    for record in run.opens:
        if not record.done:
            raise ConformanceFailure(
                "fallback.stream_drained", f"stream {record.index + 1} was not read to its end",
                expected=f"all {record.events} events, StreamDone last",
                got=f"{record.read} event(s) read",
                hint="do not stop at the first tool call: the text the fallback needs may come "
                     "after it, and a stream left open holds the connection")


def channel(expected: str) -> Callable[[FallbackRun], None]:
    @check("fallback.channel")
    def channel_check(run: FallbackRun) -> None:
        got = run.result.channel if run.result else None
        if got != expected:
            raise ConformanceFailure(
                "fallback.channel", "the value came from (or was reported on) the wrong channel",
                expected=expected, got=f"{got} (value {run.result.value if run.result else None!r:.120})",
                hint=_channel_hint(run, expected))
    return channel_check


_CHANNEL_HINTS = {
    "tool": "a call of the requested tool whose arguments parse and fit the schema wins over "
            "any JSON in the text",
    "json": "with no usable call of the requested tool (none, malformed, failing the schema, or "
            "another tool's), parse JSON from the text: whole, fenced, or the first {...}",
    "text": "when neither a tool call nor JSON in the text fits the schema, fall back to the "
            "text (value None)",
}


def _channel_hint(run: FallbackRun, expected: str) -> str:
    """What most likely put the value on the wrong channel, read from the result: text missing
    from the result (a stream read twice, or text deltas dropped), a value reported on a
    channel it did not come from (a mislabel), or else what the expected channel needs."""
    result, turn = run.result, run.script.turn
    if result is None:
        return _CHANNEL_HINTS[expected]
    if turn.text and not result.text:
        return ("the result has no text although the model streamed some: the text never "
                "reached the decision. A stream read twice (tool calls in a first pass, text in "
                "a second) finds it exhausted; collect TextDelta and ToolCallComplete events in "
                "ONE pass")
    if result.value is not None:
        sources = [c.name for c in turn.tool_calls if c.arguments == result.value]
        if sources and run.script.tool_name not in sources:
            return _CHANNEL_HINTS[expected]  # another tool's call: not a labelling problem
        from_call = bool(sources)
        came_from = "tool" if from_call else "json"
        if came_from != result.channel:
            return (f"the value is reported on channel {result.channel!r} but came from "
                    f"{'a call of ' + run.script.tool_name if from_call else 'the text'}: "
                    f"the channel is mislabelled; report {came_from!r}")
    return _CHANNEL_HINTS[expected]


def value(expected: dict[str, Any] | None) -> Callable[[FallbackRun], None]:
    @check("fallback.value")
    def value_check(run: FallbackRun) -> None:
        got = run.result.value if run.result else None
        if got != expected:
            raise ConformanceFailure(
                "fallback.value", "the structured value is not the one the channel carried",
                expected=expected, got=got,
                hint="return the arguments of the chosen call, or the JSON object parsed from "
                     "the text; None on the text channel")
    return value_check


def text(expected: str) -> Callable[[FallbackRun], None]:
    @check("fallback.text")
    def text_check(run: FallbackRun) -> None:
        got = run.result.text if run.result else None
        if got != expected:
            raise ConformanceFailure(
                "fallback.text", "the text of the answer is lost or changed",
                expected=expected, got=got,
                hint="FallbackResult.text is every text delta of the stream, joined")
    return text_check


def _fallback_case(*, expect: str, value_: dict[str, Any] | None, text_: str | None = None,
                   **fields: Any) -> Case:
    checks: list[Any] = [one_stream, stream_drained, channel(expect), value(value_)]
    if text_ is not None:
        checks.append(text(text_))
    return make_case(contract="fallback", checks=tuple(checks), **fields)


FENCED = f"Here is the plan:\n```json\n{_json(TEXT_PLAN)}\n```\nTell me if it works."
PROSE = f"Sure. The plan is {_json(TEXT_PLAN)} and I can refine it."

CASES: list[Case] = [
    _fallback_case(
        id="fallback.tool_first",
        title="A valid call of the tool wins, even when the text holds JSON too",
        why="Seed 003: priority 1 is the tool call (emit_plan), validated; models often repeat "
            "the plan as JSON in their text, and reading the text first returns the wrong one.",
        fallback=_script(f"Plan: {_json(TEXT_PLAN)}", _plan_call(TOOL_PLAN)),
        expect="tool", value_=TOOL_PLAN),
    _fallback_case(
        id="fallback.json_in_text",
        title="With no tool call, JSON that is the whole text is taken, on channel json",
        why="Seed 003: models emit the structure as content instead of a tool call; "
            "tryParsePlanFromJson is priority 2.",
        fallback=_script(_json(TEXT_PLAN)), expect="json", value_=TEXT_PLAN,
        text_=_json(TEXT_PLAN)),
    _fallback_case(
        id="fallback.fenced_json",
        title="JSON in a fenced ```json block inside prose is found",
        why="Chat models wrap JSON in a Markdown fence with a sentence around it; parsing only "
            "the whole text misses it and drops to the text channel.",
        fallback=_script(FENCED), expect="json", value_=TEXT_PLAN, text_=FENCED),
    _fallback_case(
        id="fallback.json_in_prose",
        title="A bare {...} object in the middle of prose is found",
        why="Without a fence, the JSON sits inside a sentence; the first object that fits the "
            "schema is the value.",
        fallback=_script(PROSE), expect="json", value_=TEXT_PLAN, text_=PROSE),
    _fallback_case(
        id="fallback.plain_text",
        title="Neither a tool call nor JSON: the text, on channel text, value None",
        why="Seed 003's priority 3 (the legacy text outline): an answer without structure is a "
            "normal answer, not an exception.",
        fallback=_script(PLAIN), expect="text", value_=None, text_=PLAIN),
    _fallback_case(
        id="fallback.json_failing_schema",
        title="JSON in the text that fails the schema is not a value: channel text",
        why="Any {...} is not a plan: JSON that does not fit the schema must fall through like "
            "tool arguments that do not.",
        fallback=_script('Noted: {"note": "no plan yet"}'), expect="text", value_=None,
        text_='Noted: {"note": "no plan yet"}'),
    _fallback_case(
        id="fallback.malformed_arguments",
        title="Malformed tool arguments fall through to the JSON in the text; the stream is "
              "read once",
        why="Seed 003's stream exhaustion: collecting the tool call first consumed the stream, "
            "leaving nothing for the fallback. Here the (truncated) call streams before the "
            "text: a reader that stops at the call, re-reads the stream or asks again fails.",
        fallback=_script(_json(TEXT_PLAN), _plan_call('{"goal": "ship v2", "steps": ["fre'),
                         calls_first=True),
        expect="json", value_=TEXT_PLAN, text_=_json(TEXT_PLAN)),
    _fallback_case(
        id="fallback.arguments_fail_schema",
        title="Tool arguments that fail the schema fall through to the JSON in the text",
        why="Seed 003: the tool result is validated before it is used; arguments that parse "
            "but miss a required key are no plan.",
        fallback=_script(_json(TEXT_PLAN), _plan_call({"goal": "ship v2"}), calls_first=True),
        expect="json", value_=TEXT_PLAN),
    _fallback_case(
        id="fallback.other_tool_ignored",
        title="A call of another tool is not taken, even when its arguments fit",
        why="Seed 003 collects the arguments of one tool name; taking the first call whatever "
            "its name returns another tool's data as the plan.",
        fallback=_script(_json(TEXT_PLAN), _plan_call(DRAFT_PLAN, name="emit_draft"),
                         other_tools=(EMIT_DRAFT,)),
        expect="json", value_=TEXT_PLAN),
]


# == issue 16: gaps found by independent implementations ========================================
#: a shell block first (with braces of its own), then the plan in a json fence
TWO_FENCES = ("Run this first:\n```bash\ncurl -d '{\"dry_run\": true}' https://ci.example/release"
              f"\n```\nThen follow the plan:\n```json\n{_json(TEXT_PLAN)}\n```\n")
#: two objects in one sentence: the first does not fit the schema (no steps), the second does
TWO_OBJECTS = (f'Not {_json({"goal": "ship v1", "steps": []})} any more: the plan is '
               f"{_json(TEXT_PLAN)}, agreed?")
#: streamed after the tool call (calls_first): the tool channel wins, the text is still the answer's
AFTER_CALL = "I have frozen the branch already; the plan is in the call."

CASES += [
    _fallback_case(
        id="fallback.fence_other_language",
        title="A fenced block in another language before the ```json one is skipped",
        why="Models put a shell command in a ```bash fence before the ```json plan; taking the "
            "first fenced block whatever its language parses the shell, fails and drops to "
            "the text channel (or, with JSON in it, returns the wrong object).",
        fallback=_script(TWO_FENCES), expect="json", value_=TEXT_PLAN, text_=TWO_FENCES),
    _fallback_case(
        id="fallback.two_objects_in_prose",
        title="Prose holding two objects: each is tried on its own, the one that fits wins",
        why="The span from the first '{' to the last '}' of prose holding two objects is not "
            "JSON; parse object by object (json.JSONDecoder.raw_decode) and take the first that "
            "fits the schema.",
        fallback=_script(TWO_OBJECTS), expect="json", value_=TEXT_PLAN, text_=TWO_OBJECTS),
    _fallback_case(
        id="fallback.text_kept_when_tool_wins",
        title="When the tool channel wins, the text streamed after the call is kept",
        why="Anthropic and some OpenAI-compatible servers stream the call before the text; an "
            "implementation that stops collecting text once it has a valid call (and still "
            "reads the stream to its end) returns the value and loses what the model said.",
        fallback=_script(AFTER_CALL, _plan_call(TOOL_PLAN), calls_first=True),
        expect="tool", value_=TOOL_PLAN, text_=AFTER_CALL),
]


# == issue 12: gaps the mutation self-check of the reference found ==============================
#: a plan quoted as an example in the prose, the answer in a ```json fence after it
EXAMPLE_THEN_FENCE = (f"A plan looks like {_json(DRAFT_PLAN)}, for example. Yours:\n```json\n"
                      f"{_json(TEXT_PLAN)}\n```\n")
#: braces that are not JSON before and after the plan, one of them right before its own '{'
#: (a placeholder, a template's double braces), and an object that fails the schema first
BRACES = ('Not {"goal": "ship v1", "steps": []} any more; ignore the {placeholder}: the plan '
          f"is {{{_json(TEXT_PLAN)}}}, and {{that}} is all.")

CASES += [
    _fallback_case(
        id="fallback.tool_after_other_call",
        title="A call of the tool after a call of another tool is still taken",
        why="Models call several tools in one turn; a reader that gives up at the first call "
            "that is not the requested tool (or not parsable) misses the valid one after it "
            "and drops to the JSON or text channel.",
        fallback=_script(PLAIN, ScriptedCall(name="emit_draft", arguments=DRAFT_PLAN,
                                             id="call_draft"),
                         _plan_call(TOOL_PLAN), other_tools=(EMIT_DRAFT,)),
        expect="tool", value_=TOOL_PLAN, text_=PLAIN),
    _fallback_case(
        id="fallback.fence_wins_over_prose",
        title="A ```json block wins over an object quoted earlier in the prose",
        why="A fenced JSON block is the model's answer; prose before it may quote an example "
            "that fits the schema too. Candidates are tried in the order docs/fallback.md lists "
            "them: the whole text, the fenced blocks, then objects in the prose.",
        fallback=_script(EXAMPLE_THEN_FENCE), expect="json", value_=TEXT_PLAN,
        text_=EXAMPLE_THEN_FENCE),
    _fallback_case(
        id="fallback.braces_around_json",
        title="Braces that are not JSON around the object do not hide it",
        why="Prose carries braces that are not JSON (placeholders, template syntax such as "
            "{{ }}) before and after the object; a scan that gives up at the first brace that "
            "does not parse, skips a character after one, or starts from the last brace, "
            "misses the plan and drops to the text channel.",
        fallback=_script(BRACES), expect="json", value_=TEXT_PLAN, text_=BRACES),
]

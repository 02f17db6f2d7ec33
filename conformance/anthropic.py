"""Cases for the ``anthropic`` dialect (Messages API): what its wire asks beyond the shared suite.

Tool results go back in ONE user message, ``tool_result`` blocks first, with ``is_error``;
``tool_choice`` is an object (``any`` for "required") that carries ``disable_parallel_tool_use``
except on ``none``; streams are typed by their ``event:`` line, ``ping`` anywhere, one
``content_block`` index per block, usage split over ``message_start`` and ``message_delta``.
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.cases import Case, ScriptedCall, Step, StreamPlan, Turn, check
from pytest_toolcall.checks import matches_script, usage_reported, wire_request
from pytest_toolcall.errors import ConformanceFailure
from pytest_toolcall.model import NamedToolChoice, ToolMessage, UserMessage
from pytest_toolcall.runner import CaseRun

from ._common import PARIS_TOKYO_TIME, answered, calls, case, request
from .wire import history_intact, replay_arguments_are_json

DIALECT = ("anthropic",)
_TWO = Turn(tool_calls=PARIS_TOKYO_TIME[:2])
_FOLLOW_UP = UserMessage(content="And give both in Fahrenheit, please.")


def _raw(run: CaseRun, step: int) -> Any:
    return run.steps[step].exchanges[0].json


@check("wire.anthropic.results_one_message")
def results_in_one_message(run: CaseRun) -> None:
    """After an assistant message with tool_use blocks, ONE user message answers them all."""
    for record in run.steps[1:]:
        messages = (_raw(run, record.index) or {}).get("messages") or []
        for i, msg in enumerate(messages[:-1]):
            content = msg.get("content")
            if msg.get("role") != "assistant" or not isinstance(content, list):
                continue
            ids = [b.get("id") for b in content if b.get("type") == "tool_use"]
            following = messages[i + 1].get("content")
            got = [b.get("tool_use_id") for b in following or ()
                   if isinstance(b, dict) and b.get("type") == "tool_result"]
            if ids and sorted(got) != sorted(ids):
                raise ConformanceFailure(
                    "wire.anthropic.results_one_message",
                    f"step {record.index + 1}: the results of messages.{i} are spread over "
                    "several user messages", expected=f"one user message with tool_result "
                    f"blocks for {ids}", got=f"messages.{i + 1} answers {got}",
                    hint="put every tool_result of one assistant turn in the same user message; "
                         "the API merges split ones, but Anthropic's docs warn that this teaches "
                         "the model to stop calling tools in parallel")


@check("wire.anthropic.is_error")
def is_error_sent(run: CaseRun) -> None:
    """Each tool result reaches the wire with is_error as the canonical ToolMessage says."""
    for record in run.steps[1:]:
        want = [(m.tool_call_id, m.is_error) for m in record.step.request.messages
                if isinstance(m, ToolMessage)]
        got = [(m.tool_call_id, m.is_error) for m in wire_request(run, record.index).messages
               if isinstance(m, ToolMessage)]
        if want != got:
            raise ConformanceFailure(
                "wire.anthropic.is_error", f"step {record.index + 1}: is_error of the tool "
                "results was not sent as given", expected=want, got=got,
                hint="set is_error: true on the tool_result block of a failed call "
                     "(ToolMessage.is_error), and only there")


def _expected_choice(req: Any) -> tuple[Any, Any]:
    # tool_choice none cannot carry disable_parallel_tool_use (400): the flag is dropped there
    parallel = None if req.tool_choice == "none" else req.parallel_tool_calls
    return req.tool_choice, parallel


@check("wire.anthropic.tool_choice")
def tool_choice_mapped(run: CaseRun) -> None:
    """tool_choice and parallel_tool_calls=False arrive as Anthropic's tool_choice object."""
    for record in run.steps:
        sent = wire_request(run, record.index)
        expected = _expected_choice(record.step.request)
        got = (sent.tool_choice, sent.parallel_tool_calls)
        if expected != got:
            raise ConformanceFailure(
                "wire.anthropic.tool_choice", f"step {record.index + 1}: tool_choice / "
                "parallel_tool_calls not sent as requested", expected=expected, got=got,
                hint="required -> {type: any}, named -> {type: tool, name}; "
                     "parallel_tool_calls=False -> disable_parallel_tool_use: true on "
                     "auto/any/tool (never on none)")


def _history_step(first: Turn, *extra: Any, results: list[ToolMessage] | None = None) -> Step:
    history = answered(first)
    if results is not None:
        history = (*history[:2], *results)
    return Step(request=request(*history, *extra), reply=Turn(text="Done."))


_FAILED = [ToolMessage(tool_call_id="call_001", content="18°C, cloudy"),
           ToolMessage(tool_call_id="call_002", content="weather service timed out",
                       is_error=True)]
_ZERO_MIXED = (ScriptedCall(id="toolu_01A", name="get_time", arguments=None),
               ScriptedCall(id="toolu_01B", name="get_weather", arguments={"city": "Lyon"}),
               ScriptedCall(id="toolu_01C", name="get_time", arguments=""))

CASES: list[Case] = [
    case(
        id="wire.anthropic_tool_results_first",
        dialects=DIALECT,
        title="Tool results come first in the user message, before the user's text",
        why="Anthropic rejects a user message whose tool_result blocks follow a text block "
            "(400 '`tool_use` ids were found without `tool_result` blocks immediately after'); "
            "hermes-agent PR #65369 and qwen-code #8161 put an injected text block first.",
        steps=(Step(request=request(), reply=_TWO), _history_step(_TWO, _FOLLOW_UP)),
        checks=(matches_script, history_intact),
    ),
    case(
        id="wire.anthropic_results_one_message",
        dialects=DIALECT,
        title="All results of one assistant turn go back in ONE user message",
        why="A user message per tool result is merged by the API, but Anthropic's parallel "
            "tool use docs name it the mistake that teaches the model to stop calling in "
            "parallel; adapters that map each canonical tool message to a user message do it.",
        steps=(Step(request=request(), reply=Turn(tool_calls=PARIS_TOKYO_TIME)),
               _history_step(Turn(tool_calls=PARIS_TOKYO_TIME))),
        checks=(results_in_one_message, history_intact),
    ),
    case(
        id="wire.anthropic_is_error",
        dialects=DIALECT,
        title="A failed tool result is sent with is_error: true, a good one without",
        why="Without is_error the model reads an error text as a result; adapters drop the "
            "flag or set it on every result.",
        steps=(Step(request=request(), reply=_TWO), _history_step(_TWO, results=_FAILED)),
        checks=(is_error_sent, history_intact),
    ),
    case(
        id="wire.anthropic_tool_choice_parallel",
        dialects=DIALECT,
        title="required/named/none with parallel_tool_calls=False map to Anthropic's objects",
        why="'required' is 'any' at Anthropic; parallel_tool_calls=False is "
            "disable_parallel_tool_use on the tool_choice object, which tool_choice none "
            "refuses (400 'Extra inputs are not permitted').",
        needs={"tool_choice.required", "tool_choice.named", "tool_choice.none",
               "parallel_tool_calls"},
        steps=tuple(Step(request=request(tool_choice=choice, parallel_tool_calls=False),
                         reply=Turn(text="ok"))
                    for choice in ("required", NamedToolChoice(name="get_weather"), "none")),
        checks=(tool_choice_mapped,),
    ),
    case(
        id="stream.anthropic_pings_everywhere",
        dialects=DIALECT,
        title="ping events between any two events are skipped, wherever they come",
        why="Anthropic streams 'ping' anywhere (WIRE.md §3); an accumulator that expects an "
            "index on every data line, or that ends the current block on any other event, "
            "crashes or cuts the arguments.",
        steps=(Step(request=request(), via="stream", reply=Turn(
            text="Checking both.", tool_calls=PARIS_TOKYO_TIME,
            stream=StreamPlan(quirks=frozenset({"ping_everywhere"}), fragment_size=3))),),
        checks=(matches_script,),
    ),
    case(
        id="stream.anthropic_zero_args_blocks",
        dialects=DIALECT,
        title="Zero-argument tool_use blocks (no delta, or only \"\") complete as {} and replay",
        why="litellm #5063: a streamed zero-argument Anthropic tool was left with arguments "
            "\"\" and the replay failed to parse; here one call has no input_json_delta at all, "
            "one only \"\", next to a call with arguments.",
        steps=(Step(request=request(), via="stream", reply=Turn(tool_calls=_ZERO_MIXED)),
               Step(request=request(*answered(Turn(tool_calls=_ZERO_MIXED))), via="stream",
                    reply=Turn(text="It is noon."))),
        checks=(matches_script, replay_arguments_are_json, history_intact),
    ),
    case(
        id="stream.anthropic_parallel_blocks",
        dialects=DIALECT,
        title="Parallel tool_use blocks after a text block stay separate calls",
        why="litellm #5231: parallel tool_use blocks were all mapped to index 0 and merged; "
            "the text block takes index 0, so block index and call position differ by one.",
        steps=(Step(request=request(), via="stream", reply=Turn(
            text="Let me look.", tool_calls=PARIS_TOKYO_TIME, stream=StreamPlan(
                fragment_size=2))),),
        checks=(matches_script,),
    ),
    case(
        id="stream.anthropic_usage_split",
        dialects=DIALECT,
        title="Streamed usage: input tokens from message_start, output from message_delta",
        why="message_start carries the input tokens and a placeholder output count; the final "
            "message_delta carries both final counts (every stream of the wire corpus, "
            "recorded through 2026; confirmed 2026-11-22): adapters that keep message_start's "
            "placeholder report the wrong numbers.",
        needs={"usage"},
        steps=(Step(request=request(), via="stream", reply=Turn(
            tool_calls=calls(("get_time", "{}")))),),
        checks=(usage_reported, matches_script),
    ),
    case(
        id="stream.anthropic_usage_legacy_delta",
        dialects=DIALECT,
        title="Streamed usage, older shape: message_delta with output_tokens only",
        why="Before input counts moved into message_delta, its usage held output_tokens only; "
            "an adapter that must read such streams (a proxy, an old API version) takes input "
            "tokens from message_start. Runs only for a profile claiming "
            "anthropic_legacy_usage.",
        needs={"usage", "anthropic.legacy_usage"},
        steps=(Step(request=request(), via="stream", reply=Turn(
            tool_calls=calls(("get_time", "{}")),
            stream=StreamPlan(quirks=frozenset({"delta_usage_output_only"})))),),
        checks=(usage_reported, matches_script),
    ),
]

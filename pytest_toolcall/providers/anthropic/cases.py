"""Cases for the ``anthropic`` dialect (Messages API): what its wire asks beyond the shared suite.

Tool results go back in ONE user message, ``tool_result`` blocks first, with ``is_error``;
``tool_choice`` is an object (``any`` for "required") that carries ``disable_parallel_tool_use``
except on ``none``; streams are typed by their ``event:`` line, ``ping`` anywhere, one
``content_block`` index per block, usage split over ``message_start`` and ``message_delta``.
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.cases import Case, ScriptedCall, Step, StreamPlan, Turn, check
from pytest_toolcall.run.checks import matches_script, usage_reported, wire_request
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.providers.anthropic.dialect import AnthropicMessages, thinking_signature
from pytest_toolcall.core.model import (AssistantMessage, NamedToolChoice, Reasoning, ToolMessage,
                                        UserMessage)
from pytest_toolcall.run.runner import CaseRun

from pytest_toolcall.conformance._common import (PARIS_TOKYO_TIME, answered, calls, case,
                                                 reasoning_decoded, request, stream_usage_case,
                                                 wire_and_stream)
from pytest_toolcall.conformance.wire import history_intact, replay_arguments_are_json

DIALECT = ("anthropic",)
_TWO = Turn(tool_calls=PARIS_TOKYO_TIME[:2])
#: an answer whose text Anthropic sends in two text blocks (``text_in_blocks``)
_TWO_BLOCKS = Turn(text="Paris: 21°C and sunny.\nTokyo: 17°C, light rain.",
                   stream=StreamPlan(quirks={"text_in_blocks"}))
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

# -- reasoning with tools: thinking blocks travel unchanged with the tool_use they precede ------
_THOUGHT = "The user wants two cities; I will call get_weather twice, in parallel.\n"
_THINKING = (
    Reasoning(type="thinking", text=_THOUGHT, signature=thinking_signature(_THOUGHT, 0)),
    # opaque: Anthropic encrypts thinking its safety systems flag; replayed as it came
    Reasoning(type="redacted_thinking",
              signature="EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPtoolcall"),
)
_THINKING_TURN = Turn(reasoning=_THINKING, tool_calls=PARIS_TOKYO_TIME[:2])


def _thinking_steps(via: str) -> tuple[Step, ...]:
    history = answered(_THINKING_TURN)
    assistant = history[1]
    assert isinstance(assistant, AssistantMessage)
    history = (history[0], assistant.model_copy(update={"reasoning": _THINKING}), *history[2:])
    ask = request(reasoning=True)
    first = Step(request=ask, reply=_THINKING_TURN, via=via)  # type: ignore[arg-type]
    again = request(*history, reasoning=True)
    second = Step(request=again, reply=Turn(text="Sunny."), via=via)  # type: ignore[arg-type]
    return (first, second)


def _calls_ids(turn: Turn) -> set[str]:
    return {c.id for c in turn.tool_calls if c.id}


@check("wire.reasoning.replayed")
def thinking_replayed(run: CaseRun) -> None:
    """The assistant turn replayed with the calls starts with the exact thinking and
    redacted_thinking blocks the model sent, in their order."""
    first = run.steps[0].step.reply
    want = AnthropicMessages().reasoning_blocks(first)
    for record in run.steps[1:]:
        for i, msg in enumerate((_raw(run, record.index) or {}).get("messages") or []):
            content = msg.get("content")
            if msg.get("role") != "assistant" or not isinstance(content, list):
                continue
            if not {b.get("id") for b in content if isinstance(b, dict)} & _calls_ids(first):
                continue
            lead = []
            for block in content:
                if not isinstance(block, dict) or block.get("type") not in (
                        "thinking", "redacted_thinking"):
                    break
                lead.append(dict(block))
            if lead != want:
                raise ConformanceFailure(
                    "wire.reasoning.replayed", f"step {record.index + 1}: messages.{i} does not "
                    "start with the thinking blocks the model sent, unchanged",
                    expected=want, got=lead or [b.get("type") for b in content],
                    hint="replay every thinking / redacted_thinking block of the turn, first, in "
                         "order, byte for byte (Anthropic: 'Expected `thinking` or "
                         "`redacted_thinking`, but found `tool_use`' when one is dropped, "
                         "'Invalid `signature` in `thinking` block' when one is edited or moved)")


CASES: list[Case] = [
    *wire_and_stream(
        "anthropic_thinking_replayed", _thinking_steps, dialects=DIALECT,
        checks=(matches_script, reasoning_decoded, thinking_replayed),
        title="Thinking and redacted_thinking blocks go back unchanged before the tool_use",
        why="With extended thinking on, Anthropic answers 400 'Expected `thinking` or "
            "`redacted_thinking`, but found `tool_use`' when the thinking of the turn is "
            "dropped (haystack-core-integrations #2146, mastra #7799, llama_index #18834), and "
            "'Invalid `signature` in `thinking` block' when a block is edited, re-serialised or "
            "reordered (anthropic-sdk-python #1598, hermes-agent #17890); confirmed 2026-11-23.",
        stream_title="Streamed thinking (thinking_delta, signature_delta) is kept and replayed",
        stream_why="A streamed thinking block arrives as thinking_delta pieces and one "
            "signature_delta; accumulators that only know text and input_json deltas lose it, "
            "and the next request gets Anthropic's 400 (braintrust-sdk-javascript #1857 is the "
            "same loss for Mistral's thinking chunks; confirmed 2026-11-23)."),
    case(
        id="wire.anthropic_text_in_blocks",
        dialects=DIALECT,
        title="An answer's text in two text blocks is read whole",
        why="Anthropic may split an answer's text over several text blocks (around citations "
            "and around tool_use: WordPress/php-ai-client #277 quotes a live answer in 7 text "
            "blocks); the anthropic SDK's get_final_text joins them with nothing between "
            "(anthropic 2.14.0, lib/streaming/_messages.py; confirmed 2026-11-28). An adapter "
            "that reads the first text block loses the rest of the answer (odysseus-dev/"
            "odysseus PR #1255: 'multiple text blocks lose all but the first'). Complete and "
            "streamed.",
        steps=(Step(request=request(), reply=_TWO_BLOCKS),
               Step(request=request(), reply=_TWO_BLOCKS, via="stream")),
        checks=(matches_script,),
    ),
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
    stream_usage_case(
        id="stream.anthropic_usage_split",
        dialects=DIALECT,
        title="Streamed usage: input tokens from message_start, output from message_delta",
        why="message_start carries the input tokens and a placeholder output count; the final "
            "message_delta carries both final counts (every stream of the wire corpus, "
            "recorded through 2026; confirmed 2026-11-22): adapters that keep message_start's "
            "placeholder report the wrong numbers.",
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

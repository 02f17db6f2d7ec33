"""Cases for the ``mistral`` provider (issue 13): what Mistral asks beyond the OpenAI wire.

Mistral takes tool call ids of exactly 9 letters and digits: a history holding ids another
provider minted must be re-mapped, alike on the calls and on their results. Its reasoning
models answer ``content`` as a list of ``thinking`` and ``text`` chunks; in a stream the
thinking comes as chunk lists, then the text as plain strings, and every tool call arrives
whole in one delta on the finish chunk, with the usage.
"""

from __future__ import annotations

from functools import partial

from typing import Any

from pytest_toolcall.cases import Case, Step, StreamPlan, Turn, check
from pytest_toolcall.run.checks import matches_script, usage_reported
from pytest_toolcall.providers.mistral.dialect import thinking_text, valid_id
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.core.model import AssistantMessage, Reasoning, ToolCall, ToolMessage
from pytest_toolcall.run.runner import CaseRun

from pytest_toolcall.conformance._common import (ASK, PARIS_TOKYO_TIME, calls, case,
                                                 reasoning_decoded, request, wire_and_stream)

DIALECT = ("mistral",)
_THOUGHT = "Two cities and the time: get_weather for Paris, then for Tokyo.\n"
#: ids minted elsewhere: OpenAI's, and a framework's counters (ironclaw #1241: 'turn1_0')
_FOREIGN = ("call_PTLP8xhu3uwZk4l3nlnrrJha", "tool_call_turn1_0", "tool_call_turn1_1")


def _raw(run: CaseRun, step: int) -> Any:
    return run.steps[step].exchanges[0].json


def _foreign_history() -> tuple[Any, ...]:
    made = [ToolCall.from_raw(id=cid, name=c.name, arguments=c.arguments)
            for cid, c in zip(_FOREIGN, PARIS_TOKYO_TIME)]
    return (ASK, AssistantMessage(content=None, tool_calls=tuple(made)),
            *(ToolMessage(tool_call_id=c.id, content=f"result {n + 1}")
              for n, c in enumerate(made)))


@check("wire.mistral.id_mapping")
def ids_mapped(run: CaseRun) -> None:
    """Every call id on the wire is Mistral's shape, distinct ids stay distinct, and each
    result carries the id its call was given."""
    for record in run.steps:
        body = _raw(run, record.index) or {}
        sent: list[str] = []
        for msg in body.get("messages") or ():
            if msg.get("role") == "assistant":
                sent += [c.get("id") for c in msg.get("tool_calls") or ()]
        want = [c.id for m in record.step.request.messages if isinstance(m, AssistantMessage)
                for c in m.tool_calls]
        if len(set(sent)) != len(set(want)):
            raise ConformanceFailure(
                "wire.mistral.id_mapping", f"step {record.index + 1}: {len(set(want))} distinct "
                f"call ids went out as {len(set(sent))}", expected=want, got=sent,
                hint="map each id to 9 letters and digits one to one (a hash of the whole id, "
                     "not a cut: 'call_' prefixes and shared tails collide)")
        bad = [i for i in sent if not valid_id(i)]
        if bad:
            raise ConformanceFailure(
                "wire.mistral.id_mapping", f"step {record.index + 1}: ids Mistral refuses",
                expected="9 letters and digits", got=bad,
                hint="re-map ids minted elsewhere: Mistral answers 400 'Tool call id was ... "
                     "but must be a-z, A-Z, 0-9, with a length of 9.'")


@check("wire.mistral.thinking_replayed")
def thinking_replayed(run: CaseRun) -> None:
    """The assistant message that replays the calls carries the turn's thinking as a thinking
    chunk of its content, unchanged."""
    first = run.steps[0].step.reply
    want = "".join(r.text or "" for r in first.reasoning)
    for record in run.steps[1:]:
        for i, msg in enumerate((_raw(run, record.index) or {}).get("messages") or []):
            if msg.get("role") != "assistant" or not msg.get("tool_calls"):
                continue
            content = msg.get("content")
            got = [thinking_text(c) for c in content if isinstance(c, dict)
                   and c.get("type") == "thinking"] if isinstance(content, list) else []
            if got != [want]:
                raise ConformanceFailure(
                    "wire.mistral.thinking_replayed", f"step {record.index + 1}: messages[{i}] "
                    "does not carry the thinking the model sent with these calls",
                    expected=[want], got=got or content,
                    hint="send the assistant turn back with its content list as it came, the "
                         "thinking chunk first (mistralai/client-python reasoning_multi_turn.py:"
                         " 'always replay the assistant turn ... with its ThinkChunks intact')")


def _thinking_steps(via: str, *, text: str | None) -> tuple[Step, ...]:
    reasoning = (Reasoning(type="thinking", text=_THOUGHT),)
    first = Turn(reasoning=reasoning, text=text, tool_calls=calls(
        ("get_weather", {"city": "Paris"}, "Xq3Lm9TzA"),
        ("get_weather", {"city": "Tokyo"}, "b7RkP2wQe")))
    made = tuple(ToolCall.from_raw(id=c.id, name=c.name, arguments=c.arguments)
                 for c in first.tool_calls)
    history = (ASK, AssistantMessage(content=text, tool_calls=made, reasoning=reasoning),
               *(ToolMessage(tool_call_id=c.id, content="sunny") for c in made))
    return (Step(request=request(), reply=first, via=via),  # type: ignore[arg-type]
            Step(request=request(*history), reply=Turn(text="Sunny in both."),  # type: ignore[arg-type]
                 via=via))


CASES: list[Case] = [
    case(
        id="wire.mistral_tool_call_id_format",
        dialects=DIALECT,
        title="Call ids minted by another provider are re-mapped to 9 letters and digits, "
              "alike on calls and results",
        why="Mistral answers 400 'Tool call id was call_0fypS1hVX but must be a-z, A-Z, 0-9, "
            "with a length of 9.' (type invalid_function_call, code 3280) to any other id: a "
            "history started on another provider, or ids a framework minted, break the next "
            "request (gptel #1203, ironclaw #1241, opencode #1680, avante.nvim PR #2951; "
            "langchain PR #24668 re-maps them); confirmed 2026-11-25.",
        steps=(Step(request=request(*_foreign_history()), reply=Turn(text="Done.")),),
        checks=(matches_script, ids_mapped),
    ),
    *wire_and_stream(
        "mistral_content_chunks", partial(_thinking_steps, text="Checking both cities."),
        dialects=DIALECT,
        checks=(matches_script, reasoning_decoded, thinking_replayed),
        title="A content list of thinking and text chunks is read as text plus reasoning, and "
              "the thinking goes back as a chunk",
        why="Mistral's reasoning models (reasoning_effort='high', Magistral) answer content as "
            "[{type: thinking, thinking: [...]}, {type: text, text}] (docs.mistral.ai Reasoning;"
            " recorded answers in vercel/ai's fixtures); decoders that expect a string crash "
            "(spring-ai #5019) or fold the thinking into the text; sent back as "
            "reasoning_content it is a 422 'Extra inputs are not permitted' (crush #1590, "
            "litellm #30835); confirmed 2026-11-25.",
        stream_title="Streamed thinking chunks are joined into the reasoning; the text that "
            "follows comes as a chunk, then as plain strings",
        stream_why="While the model thinks, delta.content is a list holding a thinking chunk; "
            "after it plain strings, and the transition delta may hold both "
            "(mistralai/client-python reasoning_with_streaming.py); readers that take only "
            "strings or only text chunks lose the thinking (braintrust-sdk-javascript #1857) or "
            "the text; confirmed 2026-11-25."),
    case(
        id="stream.mistral_whole_calls_on_finish_chunk",
        dialects=DIALECT,
        title="Parallel calls that arrive whole in one delta, on the finish chunk with the "
              "usage, are all read",
        why="Mistral sends each tool call complete (id, name, arguments, index; no type) in one "
            "delta, on the chunk that carries finish_reason and the usage (vercel/ai recorded "
            "mistral-tool-call.chunks.txt; opik PR #7385, checked live); readers that wait for "
            "a later usage chunk or a type field lose the usage or the calls; confirmed "
            "2026-11-25.",
        needs={"usage"},
        steps=(Step(request=request(), via="stream", reply=Turn(
            tool_calls=PARIS_TOKYO_TIME, stream=StreamPlan(fragment_size=2))),),
        checks=(matches_script, usage_reported),
    ),
]

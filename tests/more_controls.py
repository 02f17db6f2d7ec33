"""Negative controls of issue 29's families 4 and 5 (``conformance/fallback_more.py``,
``conformance/history_more.py``), and two correct implementations built differently from the
references, which must pass every case of their contract.

Each control is a reference with one method overridden; its docstring names the public report
of its class it reproduces. ``tests/test_more_controls.py`` runs the tables below.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from pytest_toolcall.core.fallback import FallbackRequest, FallbackResult
from pytest_toolcall.core.model import (
    AssistantMessage,
    StreamDone,
    TextDelta,
    ToolCall,
    ToolCallComplete,
    ToolCallDelta,
    ToolMessage,
)
from pytest_toolcall.reference.fallback import (
    Collector,
    ReferenceStructuredOutput,
    json_objects,
    prose_objects,
)
from pytest_toolcall.reference.history import ReferenceHistoryBuilder


# == structured output ===========================================================================
class LastCallWins(ReferenceStructuredOutput):
    """Keeps the arguments of the output tool in a dict keyed by tool name, so a second valid
    call overwrites the first: the last call wins. Models do call the structured-output tool
    more than once in one turn, and frameworks mishandle the extra calls
    (langchain-ai/langchainjs #11022)."""

    def from_tool(self, request: FallbackRequest, calls: list[ToolCall]) -> dict[str, Any] | None:
        by_name = {c.name: c for c in calls if c.parse_error is None
                   and isinstance(c.arguments, dict) and self.fits(c.arguments, request.schema)}
        chosen = by_name.get(request.tool_name)
        return dict(chosen.arguments) if chosen is not None else None  # type: ignore[arg-type]


def _repair(raw: str) -> str:
    """A partial-JSON "repair": close the open string, then the open brackets."""
    closers, in_string, escaped = [], False, False
    for char in raw:
        if in_string:
            escaped = char == "\\" and not escaped
            if char == '"' and not escaped:
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            closers.append("]" if char == "[" else "}")
        elif char in "]}" and closers:
            closers.pop()
    return raw + ('"' if in_string else "") + "".join(reversed(closers))


class _RepairingCollector(Collector):
    def __init__(self) -> None:
        super().__init__()
        self.started: dict[int, dict[str, Any]] = {}
        self.completed: set[int] = set()

    def feed(self, event: Any) -> bool:
        if isinstance(event, ToolCallDelta):
            entry = self.started.setdefault(event.index, {"id": None, "name": None, "raw": ""})
            entry["id"] = event.id or entry["id"]
            entry["name"] = event.name or entry["name"]
            entry["raw"] += event.arguments_delta or ""
        elif isinstance(event, ToolCallComplete):
            self.completed.add(len(self.calls))
        return super().feed(event)

    def finish(self) -> None:
        for index, entry in self.started.items():
            if index not in self.completed:
                self.calls.append(ToolCall.from_raw(id=entry["id"], name=entry["name"],
                                                    arguments=_repair(entry["raw"])))


class RepairsCutCall(ReferenceStructuredOutput):
    """At the end of the stream, a call whose arguments never completed is "repaired" with a
    partial-JSON parser and taken as a finished call: mastra-ai/mastra #24442 (truncated
    structured output repaired by parsePartialJson and returned as complete) and
    langchain-ai/langchainjs #11469 (repaired partial JSON presented as a finished tool
    call)."""

    def extract(self, request: FallbackRequest) -> FallbackResult:
        collector = _RepairingCollector()
        for event in request.model.stream(request.request):
            if not collector.feed(event):
                break
        collector.finish()
        return self.decide(request, collector.text, collector.calls)

    async def aextract(self, request: FallbackRequest) -> FallbackResult:
        collector = _RepairingCollector()
        async for event in request.model.astream(request.request):
            if not collector.feed(event):
                break
        collector.finish()
        return self.decide(request, collector.text, collector.calls)


_ANY_FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.DOTALL)
#: the pattern docs/fallback.md's example had until 2026-11-28: it does not consume a language
#: tag, so after a ```python block it takes the closing fence for an opening one
_DOCS_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)```", re.DOTALL)


def _fences_then_prose(text: str, pattern: re.Pattern[str]) -> Iterator[dict[str, Any]]:
    yield from json_objects([text, *pattern.findall(text)])
    yield from prose_objects(text)


class AnyLanguageFence(ReferenceStructuredOutput):
    """Tries every fenced block whatever its language, so a ```python block holding an object
    that fits is taken before the ```json answer (a fence marker taken for the JSON one:
    langgenius/dify #41958)."""

    def candidates(self, text: str) -> Iterator[dict[str, Any]]:
        return _fences_then_prose(text, _ANY_FENCE)


class DocsFenceRegex(ReferenceStructuredOutput):
    """docs/fallback.md's example fence pattern before 2026-11-28: a ```python block's closing
    fence opens a "block" of prose, the ```json block is missed, and the scan of the prose
    finds the python block's object first (the fence confusion of langgenius/dify #41958)."""

    def candidates(self, text: str) -> Iterator[dict[str, Any]]:
        return _fences_then_prose(text, _DOCS_FENCE)


# == history =====================================================================================
class SortsResultsById(ReferenceHistoryBuilder):
    """Sorts each run of results by tool_call_id, which is call order only when the ids happen
    to sort that way: a sort reordered results against their calls in
    allenhutchison/obsidian-gemini #1499."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        built, out = super().build(stored), []
        run: list[ToolMessage] = []
        for message in [*built, None]:
            if isinstance(message, ToolMessage):
                run.append(message)
                continue
            out += sorted(run, key=lambda m: m.tool_call_id or "")
            run = []
            if message is not None:
                out.append(message)
        return out


class DropsTextBesideCalls(ReferenceHistoryBuilder):
    """Rebuilds an assistant message that has calls from its calls alone, so the text beside
    them is lost: agno-agi/agno #8990 (assistant text dropped when the message also has
    tool_calls)."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        return [AssistantMessage(tool_calls=m.tool_calls, reasoning=m.reasoning)
                if isinstance(m, AssistantMessage) and m.tool_calls else m
                for m in super().build(stored)]


#: (case id, broken implementation, the clause the case must name)
FALLBACK_MORE_CONTROLS: list[tuple[str, type[ReferenceStructuredOutput], str]] = [
    ("fallback.first_valid_call_wins", LastCallWins, "fallback.value"),
    ("fallback.cut_call_not_repaired", RepairsCutCall, "fallback.channel"),
    ("fallback.fence_other_language_json", AnyLanguageFence, "fallback.value"),
    ("fallback.fence_other_language_json", DocsFenceRegex, "fallback.value"),
]
HISTORY_MORE_CONTROLS: list[tuple[str, type[ReferenceHistoryBuilder], str]] = [
    ("history.results_in_call_order_random_ids", SortsResultsById,
     "history.results_in_call_order"),
    ("history.text_beside_kept_calls", DropsTextBesideCalls, "history.assistant_text_kept"),
]


# == correct implementations of another shape ====================================================
class LineFenceStructured:
    """A structured output written another way than the reference: it assembles each call from
    its deltas itself (a call counts once its ToolCallComplete arrives, and its arguments must
    parse strictly), reads fenced blocks line by line (a fence line opens a block with its
    language, the next fence line closes it), validates with Draft 7, and keeps the first fit
    in one pass over ordered candidates."""

    def extract(self, request: FallbackRequest) -> FallbackResult:
        state = _State()
        for event in request.model.stream(request.request):
            state.take(event)
        return state.result(request)

    async def aextract(self, request: FallbackRequest) -> FallbackResult:
        state = _State()
        async for event in request.model.astream(request.request):
            state.take(event)
        return state.result(request)


class _State:
    def __init__(self) -> None:
        self.text: list[str] = []
        self.raw: dict[int, list[str]] = {}
        self.names: dict[int, str | None] = {}
        self.done: list[int] = []  # indexes of completed calls, in completion order
        self.count = 0

    def take(self, event: Any) -> None:
        if isinstance(event, TextDelta):
            self.text.append(event.text)
        elif isinstance(event, ToolCallDelta):
            self.raw.setdefault(event.index, [])
            self.names[event.index] = event.name or self.names.get(event.index)
            if event.arguments_delta:
                self.raw[event.index].append(event.arguments_delta)
        elif isinstance(event, ToolCallComplete):
            index = self.count if self.count in self.raw else max(self.raw, default=0)
            self.count += 1
            # the deltas are the arguments as streamed; a call streamed whole has none
            if not self.raw.get(index):
                self.raw[index] = [event.call.raw_arguments or json.dumps(event.call.arguments)]
            self.names[index] = event.call.name
            self.done.append(index)
        elif isinstance(event, StreamDone):
            pass

    def result(self, request: FallbackRequest) -> FallbackResult:
        from jsonschema import Draft7Validator

        fits = Draft7Validator(request.schema).is_valid
        text = "".join(self.text)
        shown = text or None
        for index in self.done:
            if self.names.get(index) != request.tool_name:
                continue
            try:
                value = json.loads("".join(self.raw[index]) or "{}")
            except ValueError:
                continue
            if isinstance(value, dict) and fits(value):
                return FallbackResult(channel="tool", value=value, text=shown)
        for value in _line_candidates(text):
            if fits(value):
                return FallbackResult(channel="json", value=value, text=shown)
        return FallbackResult(channel="text", value=None, text=shown)


def _line_candidates(text: str) -> Iterator[dict[str, Any]]:
    pieces = [text]
    block: list[str] | None = None
    language = ""
    for line in text.split("\n"):
        stripped = line.strip()
        if block is None and stripped.startswith("```"):
            block, language = [], stripped[3:].strip().lower()
        elif block is not None and stripped.startswith("```"):
            if language in ("", "json", "jsonc", "json5"):
                pieces.append("\n".join(block))
            block = None
        elif block is not None:
            block.append(line)
    yield from json_objects(pieces)
    decoder = json.JSONDecoder()
    for start, char in enumerate(text):
        if char != "{":
            continue
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(value, dict):
            yield value


class IndexFirstHistory:
    """A history builder written another way than the reference: it first indexes the stored
    messages (calls by id, their first stored result), then walks the assistant turns once,
    copying each message with only its answered calls (``model_copy``), and places the results
    by looking them up in call order."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        first: dict[str, ToolMessage] = {}
        for m in stored:
            if isinstance(m, ToolMessage) and m.tool_call_id and m.tool_call_id not in first:
                first[m.tool_call_id] = m
        answered = {k for k, m in first.items() if not m.is_error}
        out: list[Any] = []
        placed: set[str] = set()
        for m in stored:
            if isinstance(m, ToolMessage):
                continue
            if not isinstance(m, AssistantMessage):
                out.append(m)
                continue
            keep: list[ToolCall] = []
            for call in m.tool_calls:
                if call.id in answered and call.id not in placed:
                    keep.append(call)
                    placed.add(call.id)
            if not keep and not (m.content or "").strip():
                continue
            out.append(m.model_copy(update={"tool_calls": tuple(keep)}))
            out.extend(first[c.id] for c in keep)  # type: ignore[index]
        return out

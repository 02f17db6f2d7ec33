"""The reference structured output: one pass over the stream, then tool -> json -> text.

The stream is read once, to its end, collecting the text and the completed tool calls together
(seed 003's unified collector: reading the tool calls first, then the text from the same
stream, finds the stream exhausted). Then, in order:

1. the first call of ``tool_name`` whose arguments parsed and fit the schema -> ``tool``;
2. the first JSON object in the text that fits the schema -> ``json``; candidates in order:
   the whole text, each fenced code block (```` ```json ```` or bare; a fence in another
   language is skipped), each ``{...}`` object found in the prose, one object at a time;
3. the text -> ``text``.

Small overridable methods (:meth:`new_collector`, :meth:`from_tool`, :meth:`from_text`,
:meth:`candidates`, :meth:`fits`) are what the docs' shim and the negative controls change.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from pytest_toolcall.core.fallback import FallbackRequest, FallbackResult
from pytest_toolcall.core.model import StreamDone, TextDelta, ToolCall, ToolCallComplete

__all__ = ["Collector", "ReferenceStructuredOutput", "json_objects", "prose_objects"]

#: a fenced block with its language tag: each opening fence is consumed with its block, so a
#: ```bash block before the ```json one is skipped whole (not mistaken for JSON, issue 16)
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+.-]*)[ \t]*\n(.*?)```", re.DOTALL)
_JSON_FENCES = frozenset({"", "json", "jsonc", "json5"})


class Collector:
    """One pass over a stream: the text deltas and the completed tool calls, together."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.calls: list[ToolCall] = []

    def feed(self, event: Any) -> bool:
        """Take one event; ``False`` once the stream is over (its :class:`StreamDone`)."""
        if isinstance(event, TextDelta):
            self.parts.append(event.text)
        elif isinstance(event, ToolCallComplete):
            self.calls.append(event.call)
        elif isinstance(event, StreamDone):
            return False
        return True

    @property
    def text(self) -> str:
        return "".join(self.parts)


class ReferenceStructuredOutput:
    """A :class:`~pytest_toolcall.core.fallback.StructuredOutput` (sync and async)."""

    def extract(self, request: FallbackRequest) -> FallbackResult:
        collector = self.new_collector()
        for event in request.model.stream(request.request):
            if not collector.feed(event):
                break
        return self.decide(request, collector.text, collector.calls)

    async def aextract(self, request: FallbackRequest) -> FallbackResult:
        collector = self.new_collector()
        async for event in request.model.astream(request.request):
            if not collector.feed(event):
                break
        return self.decide(request, collector.text, collector.calls)

    def new_collector(self) -> Collector:
        """What reads the stream (sync and async alike)."""
        return Collector()

    # -- deciding -------------------------------------------------------------------------------
    def decide(self, request: FallbackRequest, text: str,
               calls: list[ToolCall]) -> FallbackResult:
        shown = text or None
        value = self.from_tool(request, calls)
        if value is not None:
            return FallbackResult(channel="tool", value=value, text=shown)
        value = self.from_text(request, text)
        if value is not None:
            return FallbackResult(channel="json", value=value, text=shown)
        return FallbackResult(channel="text", value=None, text=shown)

    def from_tool(self, request: FallbackRequest, calls: list[ToolCall]) -> dict[str, Any] | None:
        """The arguments of the first call of the tool that parsed and fit the schema."""
        for call in calls:
            if call.name != request.tool_name or call.parse_error is not None:
                continue
            if isinstance(call.arguments, dict) and self.fits(call.arguments, request.schema):
                return dict(call.arguments)
        return None

    def from_text(self, request: FallbackRequest, text: str) -> dict[str, Any] | None:
        """The first JSON object in the text that fits the schema."""
        for candidate in self.candidates(text):
            if self.fits(candidate, request.schema):
                return candidate
        return None

    def candidates(self, text: str) -> Iterator[dict[str, Any]]:
        """JSON objects in ``text``: the whole text, fenced blocks, then ``{...}`` in prose."""
        pieces = [text, *(m.group(2) for m in _FENCE.finditer(text)
                          if m.group(1).lower() in _JSON_FENCES)]
        yield from json_objects(pieces)
        yield from prose_objects(text)

    def fits(self, value: Any, schema: dict[str, Any]) -> bool:
        from jsonschema import validators

        validator = validators.validator_for(schema, default=validators.Draft202012Validator)
        return bool(validator(schema).is_valid(value))


def json_objects(pieces: Iterable[str]) -> Iterator[dict[str, Any]]:
    """Each of ``pieces`` that is a JSON object as a whole, parsed, in order (the others are
    skipped)."""
    for piece in pieces:
        try:
            value = json.loads(piece)
        except ValueError:
            continue
        if isinstance(value, dict):
            yield value


def prose_objects(text: str) -> Iterator[dict[str, Any]]:
    """Each ``{...}`` object inside ``text``, in order, parsed one at a time: a brace that does
    not open JSON is skipped, and the scan goes on after the end of each object."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            yield value
        start = text.find("{", end)

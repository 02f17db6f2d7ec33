"""Negative controls of the structured-output (fallback) contract: small broken implementations.

Every control is the reference :class:`ReferenceStructuredOutput` with ONE method overridden;
its docstring names the bug (most from seed 003: the stream exhaustion of a tool collector run
before the text collector, the tool-name filter, the validation of the tool result). Names
starting with ``Async`` override only ``aextract`` and break only the async path.
``tests/test_fallback_controls.py`` pairs each control with the case that must fail it and the
exact clause.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from pytest_toolcall.core.fallback import FallbackRequest, FallbackResult
from pytest_toolcall.core.model import TextDelta, ToolCall, ToolCallComplete
from pytest_toolcall.reference.fallback import (
    Collector,
    ReferenceStructuredOutput,
    json_objects,
    prose_objects,
)


def _calls_only(events: Iterable[Any]) -> list[ToolCall]:
    """Seed 003's first collector: tool calls only, to the end of the stream."""
    return [e.call for e in events if isinstance(e, ToolCallComplete)]


def _text_only(events: Iterable[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


# == the stream ====================================================================================
class SecondStreamForFallback(ReferenceStructuredOutput):
    """Reads the tool calls from one stream, then asks the model again for the text to fall
    back on: a second model call, and another answer (seed 003's first fix attempt)."""

    def extract(self, request: FallbackRequest) -> FallbackResult:
        calls = _calls_only(request.model.stream(request.request))
        if self.from_tool(request, calls) is not None:
            return self.decide(request, "", calls)
        text = _text_only(request.model.stream(request.request))
        return self.decide(request, text, calls)


class AsyncSecondStreamForFallback(ReferenceStructuredOutput):
    """:class:`SecondStreamForFallback` in ``aextract`` only."""

    async def aextract(self, request: FallbackRequest) -> FallbackResult:
        calls = [e.call async for e in request.model.astream(request.request)
                 if isinstance(e, ToolCallComplete)]
        if self.from_tool(request, calls) is not None:
            return self.decide(request, "", calls)
        text = "".join([e.text async for e in request.model.astream(request.request)
                        if isinstance(e, TextDelta)])
        return self.decide(request, text, calls)


class TwoPassesOverOneStream(ReferenceStructuredOutput):
    """Seed 003's stream exhaustion: the tool collector runs over the stream, then the text
    collector over the SAME stream, which the first pass consumed; the text is lost."""

    def extract(self, request: FallbackRequest) -> FallbackResult:
        stream = request.model.stream(request.request)
        calls = _calls_only(stream)
        return self.decide(request, _text_only(stream), calls)


class AsyncTwoPassesOverOneStream(ReferenceStructuredOutput):
    """:class:`TwoPassesOverOneStream` in ``aextract`` only."""

    async def aextract(self, request: FallbackRequest) -> FallbackResult:
        stream = request.model.astream(request.request)
        calls = [e.call async for e in stream if isinstance(e, ToolCallComplete)]
        text = "".join([e.text async for e in stream if isinstance(e, TextDelta)])
        return self.decide(request, text, calls)


class _StopAtCallCollector(Collector):
    def feed(self, event: Any) -> bool:
        return super().feed(event) and not isinstance(event, ToolCallComplete)


class StopsAfterToolCall(ReferenceStructuredOutput):
    """Stops reading at the first completed tool call ("we have the call, why wait"): text
    streamed after the call never arrives, and the stream is left half read."""

    def new_collector(self) -> Collector:
        return _StopAtCallCollector()


# == the tool channel ==============================================================================
class UnguardedArgumentsParse(ReferenceStructuredOutput):
    """Parses the raw arguments with ``json.loads`` and no guard: truncated arguments raise
    instead of falling through (seed 003's E-UICP-0101 surfacing as a crash)."""

    def from_tool(self, request: FallbackRequest, calls: list[ToolCall]) -> dict[str, Any] | None:
        for call in calls:
            if call.name == request.tool_name:
                value = json.loads(call.raw_arguments) if call.raw_arguments else call.arguments
                if self.fits(value, request.schema):
                    return dict(value)
        return None


class NoSchemaOnArguments(ReferenceStructuredOutput):
    """Takes the tool's arguments once they parse, without validating them against the
    schema (seed 003 validates the tool result before returning it)."""

    def from_tool(self, request: FallbackRequest, calls: list[ToolCall]) -> dict[str, Any] | None:
        for call in calls:
            if call.name == request.tool_name and call.arguments is not None:
                return dict(call.arguments)
        return None


class AnyToolName(ReferenceStructuredOutput):
    """Takes the first valid call whatever its tool's name (seed 003's collector filters by
    tool name; this one does not)."""

    def from_tool(self, request: FallbackRequest, calls: list[ToolCall]) -> dict[str, Any] | None:
        for call in calls:
            if call.arguments is not None and self.fits(call.arguments, request.schema):
                return dict(call.arguments)
        return None


class JsonBeforeTool(ReferenceStructuredOutput):
    """Tries the JSON in the text before the tool call: the priorities swapped."""

    def decide(self, request: FallbackRequest, text: str,
               calls: list[ToolCall]) -> FallbackResult:
        value = self.from_text(request, text)
        if value is not None:
            return FallbackResult(channel="json", value=value, text=text or None)
        value = self.from_tool(request, calls)
        if value is not None:
            return FallbackResult(channel="tool", value=value, text=text or None)
        return FallbackResult(channel="text", text=text or None)


class StaleValue(ReferenceStructuredOutput):
    """Falls through to the JSON channel but reports the rejected tool arguments as the value
    (``value or parsed``: a variable kept from the tool attempt)."""

    def decide(self, request: FallbackRequest, text: str,
               calls: list[ToolCall]) -> FallbackResult:
        value = None
        for call in calls:
            if call.name == request.tool_name and call.arguments is not None:
                value = call.arguments
                if self.fits(value, request.schema):
                    return FallbackResult(channel="tool", value=value, text=text or None)
        parsed = self.from_text(request, text)
        if parsed is not None:
            return FallbackResult(channel="json", value=value or parsed, text=text or None)
        return FallbackResult(channel="text", text=text or None)


# == the json channel ==============================================================================
class NoJsonChannel(ReferenceStructuredOutput):
    """No JSON channel: without a tool call, straight to text."""

    def from_text(self, request: FallbackRequest, text: str) -> dict[str, Any] | None:
        return None


class WholeTextOnly(ReferenceStructuredOutput):
    """Parses the whole text only: a fenced block or an object inside prose is missed."""

    def candidates(self, text: str) -> Iterator[dict[str, Any]]:
        yield from json_objects([text])


class UnguardedJsonParse(ReferenceStructuredOutput):
    """``json.loads`` on the text without a guard: a plain-text answer raises instead of
    falling back to the text channel."""

    def from_text(self, request: FallbackRequest, text: str) -> dict[str, Any] | None:
        value = json.loads(text)
        return value if isinstance(value, dict) and self.fits(value, request.schema) else None


class JsonWithoutSchema(ReferenceStructuredOutput):
    """Takes the first JSON object in the text whatever its shape."""

    def from_text(self, request: FallbackRequest, text: str) -> dict[str, Any] | None:
        return next(iter(self.candidates(text)), None)


class FirstFenceOnly(ReferenceStructuredOutput):
    """Takes the first fenced block whatever its language: a ```bash block before the ```json
    one is parsed, fails, and the answer drops to the text channel (issue 16)."""

    def candidates(self, text: str) -> Iterator[dict[str, Any]]:
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, dict):
            yield value
            return
        match = re.search(r"```[^\n]*\n(.*?)```", text, re.DOTALL)
        if match is None:
            return
        try:
            value = json.loads(match.group(1))
        except ValueError:
            return
        if isinstance(value, dict):
            yield value


class GreedyBraces(ReferenceStructuredOutput):
    """Parses the span from the first ``{`` to the last ``}`` of the text: prose holding two
    objects is not JSON there (issue 16)."""

    def candidates(self, text: str) -> Iterator[dict[str, Any]]:
        start, end = text.find("{"), text.rfind("}")
        if start == -1 or end < start:
            return
        try:
            value = json.loads(text[start:end + 1])
        except ValueError:
            return
        if isinstance(value, dict):
            yield value


class _TextUntilCallCollector(Collector):
    def feed(self, event: Any) -> bool:
        if isinstance(event, TextDelta) and self.calls:
            return True  # read on, but the text after a call is not kept
        return super().feed(event)


class TextLostAfterToolCall(ReferenceStructuredOutput):
    """Reads the stream to its end but stops collecting text once a tool call is complete:
    the tool channel wins and the text streamed after the call is lost (issue 16)."""

    def new_collector(self) -> Collector:
        return _TextUntilCallCollector()


# == reporting =====================================================================================
class ReportsToolForEveryValue(ReferenceStructuredOutput):
    """Reports channel ``tool`` for any structured value: the metrics of seed 003's
    ``channelUsed`` (tool success rate vs JSON parse rate) become meaningless."""

    def decide(self, request: FallbackRequest, text: str,
               calls: list[ToolCall]) -> FallbackResult:
        result = super().decide(request, text, calls)
        if result.channel == "json":
            return result.model_copy(update={"channel": "tool"})
        return result


class TextChannelDropsText(ReferenceStructuredOutput):
    """Falls back to the text channel but leaves ``text`` empty."""

    def decide(self, request: FallbackRequest, text: str,
               calls: list[ToolCall]) -> FallbackResult:
        result = super().decide(request, text, calls)
        return result.model_copy(update={"text": None}) if result.channel == "text" else result


class EmptyObjectOnText(ReferenceStructuredOutput):
    """Reports ``{}`` as the value of a plain-text answer (a default that looks like data)."""

    def decide(self, request: FallbackRequest, text: str,
               calls: list[ToolCall]) -> FallbackResult:
        result = super().decide(request, text, calls)
        return result.model_copy(update={"value": {}}) if result.channel == "text" else result


class DropsTextWhenStructured(ReferenceStructuredOutput):
    """Drops the model's text once a structured value is found (the text is the answer's too:
    a fenced block's explanation, the model's caveats)."""

    def decide(self, request: FallbackRequest, text: str,
               calls: list[ToolCall]) -> FallbackResult:
        result = super().decide(request, text, calls)
        return result if result.channel == "text" else result.model_copy(update={"text": None})


# == issue 12: what the mutation self-check of the reference found =================================
class FirstCallOnly(ReferenceStructuredOutput):
    """Looks at the first call of the turn only: a call of another tool before the requested
    one hides it (a ``break`` where the reference has ``continue``)."""

    def from_tool(self, request: FallbackRequest, calls: list[ToolCall]) -> dict[str, Any] | None:
        return super().from_tool(request, calls[:1])


class ProseBeforeFences(ReferenceStructuredOutput):
    """Tries the objects in the prose before the fenced blocks: an example quoted in the prose
    wins over the ```json answer."""

    def candidates(self, text: str) -> Iterator[dict[str, Any]]:
        yield from prose_objects(text)
        yield from super().candidates(text)


class GivesUpAtBadBrace(ReferenceStructuredOutput):
    """Scans the prose object by object but stops at the first ``{`` that does not parse."""

    def candidates(self, text: str) -> Iterator[dict[str, Any]]:
        decoder = json.JSONDecoder()
        start = text.find("{")
        while start != -1:
            try:
                value, end = decoder.raw_decode(text, start)
            except ValueError:
                return
            if isinstance(value, dict):
                yield value
            start = text.find("{", end)


MUTANTS: list[type[ReferenceStructuredOutput]] = [
    value for value in list(globals().values())
    if isinstance(value, type) and issubclass(value, ReferenceStructuredOutput)
    and value is not ReferenceStructuredOutput
]

"""Negative controls for the ``ollama`` dialect: the reference OllamaAdapter with ONE thing broken.

Each docstring names the bug and, where there is one, its public report (WIRE.md §6).
``tests/test_controls_ollama.py`` pairs each with the case that must fail it and the clause.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from pytest_toolcall.core.model import (
    ChatRequest,
    SystemMessage,
    ToolCall,
    ToolCallDelta,
    ToolMessage,
)
from pytest_toolcall.providers.ollama.reference import NdjsonAccumulator, OllamaAdapter


class JsonLoadsArguments(OllamaAdapter):
    """OpenAI habits: ``json.loads(function["arguments"])`` on Ollama's object (TypeError)."""

    def parse_call(self, raw: dict[str, Any]) -> ToolCall:
        function = raw.get("function") or {}
        return ToolCall(id=raw.get("id") or self.new_call_id(), name=function.get("name", ""),
                        arguments=json.loads(function.get("arguments")))


class ReplaysArgumentsAsString(OllamaAdapter):
    """Arguments replayed as a JSON string, as for OpenAI; Ollama answers 400 (openclaw #46679)."""

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        out = super().encode_call(call)
        out["function"]["arguments"] = call.arguments_json()
        return out


class KeepsMissingIds(OllamaAdapter):
    """A call without id stays without one: results cannot be paired (litellm #11262)."""

    def parse_call(self, raw: dict[str, Any]) -> ToolCall:
        function = raw.get("function") or {}
        return ToolCall.from_raw(id=raw.get("id"), name=function.get("name", ""),
                                 arguments=function.get("arguments"))


class IdFromToolName(OllamaAdapter):
    """A missing id is filled with the tool's name: two calls of one tool share an id
    (TanStack/ai #199's collapse, on Ollama's id-less calls)."""

    def parse_call(self, raw: dict[str, Any]) -> ToolCall:
        function = raw.get("function") or {}
        return ToolCall.from_raw(id=raw.get("id") or function.get("name"),
                                 name=function.get("name", ""),
                                 arguments=function.get("arguments"))


class DropsToolName(OllamaAdapter):
    """Tool results sent OpenAI-style: tool_call_id only, no tool_name."""

    def encode_result(self, message: ToolMessage, names: dict[str, str]) -> dict[str, Any]:
        out = super().encode_result(message, names)
        out.pop("tool_name", None)
        return out


class DoneReasonVerbatim(OllamaAdapter):
    """done_reason read verbatim: calls come with finish reason "stop"."""

    @staticmethod
    def parse_finish(reason: str | None, has_calls: bool) -> Any:
        return {"stop": "stop", "length": "length"}.get(reason or "", None)


class DecodesEachRead(OllamaAdapter):
    """Each network read is taken as whole lines: ``json.loads`` of half a line crashes."""

    def stream(self, request: ChatRequest) -> Iterator[Any]:
        body = self.build_body(request, stream=True)
        with self.client.stream("POST", self.url, headers=self.headers, json=body) as response:
            acc = self.new_accumulator()
            for chunk in response.iter_bytes():
                for line in chunk.decode().split("\n"):
                    yield from acc.feed_line(line)
            yield from acc.close()


class OnlyNewlineTerminatedLines(OllamaAdapter):
    """Buffers reads and parses only lines that end in "\\n": an unterminated last line (the
    done line) is dropped and a complete stream reads as cut off."""

    def stream(self, request: ChatRequest) -> Iterator[Any]:
        body = self.build_body(request, stream=True)
        with self.client.stream("POST", self.url, headers=self.headers, json=body) as response:
            acc = self.new_accumulator()
            buffer = b""
            for chunk in response.iter_bytes():
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    yield from acc.feed_line(line.decode())
            yield from acc.close()


class _IgnoresErrorAcc(NdjsonAccumulator):
    def feed_line(self, line: str) -> Iterable[Any]:
        if not line.strip() or self.done:
            return ()
        return self.feed(json.loads(line))  # no look at "error"

    def close(self) -> Iterable[Any]:
        return () if self.done else self.finish_events({})  # whatever came, as a success


class IgnoresErrorLine(OllamaAdapter):
    """The error line is read as an empty chunk and the stream's end as success."""

    def new_accumulator(self) -> NdjsonAccumulator:
        return _IgnoresErrorAcc(self)


class _ErrorUnreadAcc(NdjsonAccumulator):
    def feed_line(self, line: str) -> Iterable[Any]:
        if not line.strip() or self.done:
            return ()
        return self.feed(json.loads(line))


class ErrorLineUnread(OllamaAdapter):
    """The error line is skipped; the stream then fails as incomplete, without Ollama's words."""

    def new_accumulator(self) -> NdjsonAccumulator:
        return _ErrorUnreadAcc(self)


class _MergesByIndexAcc(NdjsonAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        events: list[Any] = []
        message = data.get("message") or {}
        for raw in message.pop("tool_calls", None) or ():
            index = (raw.get("function") or {}).get("index", 0)
            call = self.adapter.parse_call(raw)
            if index < len(self.calls):  # "continues" the call at that index, like OpenAI deltas
                old = self.calls[index]
                merged = (old.arguments_json() + call.arguments_json())
                self.calls[index] = ToolCall.from_raw(id=old.id, name=old.name, arguments=merged)
            else:
                self.calls.append(call)
            events.append(ToolCallDelta(index=index, id=call.id, name=call.name,
                                        arguments_delta=call.arguments_json()))
        return events + super().feed(data)


class MergesCallsByIndex(OllamaAdapter):
    """Whole calls merged by ``function.index`` as if they were OpenAI fragments: every call at
    index 0 becomes one call with ``{"path":"a"}{"path":"b"}`` (litellm #33678)."""

    def new_accumulator(self) -> NdjsonAccumulator:
        return _MergesByIndexAcc(self)


# == messages (issue 12) ===========================================================================


class DeveloperRolePassedThrough(OllamaAdapter):
    """The canonical role is copied to the wire: a developer message goes out with role
    developer, which Ollama ignores (earendil-works/pi PR #140: the system prompt was missing
    on Ollama)."""

    def encode_message(self, message: Any, names: dict[str, str] | None = None) -> dict[str, Any]:
        out = super().encode_message(message, names)
        if isinstance(message, SystemMessage):
            out["role"] = message.role
        return out


class SystemAsUser(OllamaAdapter):
    """System messages are sent with role user."""

    def encode_message(self, message: Any, names: dict[str, str] | None = None) -> dict[str, Any]:
        out = super().encode_message(message, names)
        if out["role"] == "system":
            out["role"] = "user"
        return out


class DropsTextNextToCalls(OllamaAdapter):
    """An assistant turn with tool calls is replayed with empty content (issue 12)."""

    def encode_message(self, message: Any, names: dict[str, str] | None = None) -> dict[str, Any]:
        out = super().encode_message(message, names)
        if out.get("tool_calls"):
            out["content"] = ""
        return out

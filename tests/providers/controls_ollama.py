"""Negative controls for the ``ollama`` dialect: the reference OllamaAdapter with ONE thing broken.

Each docstring names the bug and, where there is one, its public report (WIRE.md §6). Above each,
``@fails`` names the case that must fail it and the clause; the tables at the end collect them for
``tests/providers/test_controls.py``. The OpenAI-compatible route of the dialect is covered too: the
shared index cases, run with the OpenAI adapter pointed at ``/v1`` of an Ollama fake, catch OpenAI's
index-only control (ollama #15457, litellm #33678) and index-required control (ollama #7881). """

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import controls_openai as _openai  # the OpenAI controls, for the compatible route
import httpx
from provider_kit import BrokenStream, Route, collected, fails

from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import ProviderError
from pytest_toolcall.core.model import (
    SystemMessage,
    ToolCall,
    ToolCallDelta,
    ToolMessage,
)
from pytest_toolcall.providers.ollama.reference import NdjsonAccumulator, OllamaAdapter
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter

__all__ = ["JsonLoadsArguments", "ReplaysArgumentsAsString", "KeepsMissingIds", "IdFromToolName",
           "DropsToolName", "DoneReasonVerbatim", "DecodesEachRead", "OnlyNewlineTerminatedLines",
           "IgnoresErrorLine", "ErrorLineUnread", "MergesCallsByIndex",
           "DeveloperRolePassedThrough", "SystemAsUser", "DropsTextNextToCalls",
           "DoneLineTextDropped", "DoneLineCallsDropped", "ToolsUnsupportedRetried",
           "ToolsUnsupportedWordsLost", "PlaceholderTextOnCalls"]


@fails("wire.ollama_object_arguments", "adapter.raised")
class JsonLoadsArguments(OllamaAdapter):
    """OpenAI habits: ``json.loads(function["arguments"])`` on Ollama's object (TypeError)."""

    def parse_call(self, raw: dict[str, Any]) -> ToolCall:
        function = raw.get("function") or {}
        return ToolCall(id=raw.get("id") or self.new_call_id(), name=function.get("name", ""),
                        arguments=json.loads(function.get("arguments")))


@fails("wire.ollama_object_arguments", "request.messages.tool_calls.arguments")
class ReplaysArgumentsAsString(OllamaAdapter):
    """Arguments replayed as a JSON string, as for OpenAI; Ollama answers 400 (openclaw #46679)."""

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        out = super().encode_call(call)
        out["function"]["arguments"] = call.arguments_json()
        return out


@fails("wire.ollama_calls_without_ids", "response.tool_calls.ids_unique")
class KeepsMissingIds(OllamaAdapter):
    """A call without id stays without one: results cannot be paired (litellm #11262)."""

    def parse_call(self, raw: dict[str, Any]) -> ToolCall:
        function = raw.get("function") or {}
        return ToolCall.from_raw(id=raw.get("id"), name=function.get("name", ""),
                                 arguments=function.get("arguments"))


@fails("wire.ollama_calls_without_ids", "response.tool_calls.ids_unique")
class IdFromToolName(OllamaAdapter):
    """A missing id is filled with the tool's name: two calls of one tool share an id
    (TanStack/ai #199's collapse, on Ollama's id-less calls)."""

    def parse_call(self, raw: dict[str, Any]) -> ToolCall:
        function = raw.get("function") or {}
        return ToolCall.from_raw(id=raw.get("id") or function.get("name"),
                                 name=function.get("name", ""),
                                 arguments=function.get("arguments"))


@fails("wire.ollama_tool_name_on_results", "wire.ollama.tool_name")
class DropsToolName(OllamaAdapter):
    """Tool results sent OpenAI-style: tool_call_id only, no tool_name."""

    def encode_result(self, message: ToolMessage, names: dict[str, str]) -> dict[str, Any]:
        out = super().encode_result(message, names)
        out.pop("tool_name", None)
        return out


@fails("wire.ollama_done_reason_stop_with_calls", "response.finish_reason")
class DoneReasonVerbatim(OllamaAdapter):
    """done_reason read verbatim: calls come with finish reason "stop"."""

    @staticmethod
    def parse_finish(reason: str | None, has_calls: bool) -> Any:
        return {"stop": "stop", "length": "length"}.get(reason or "", None)


@fails("stream.ollama_ndjson_split", "adapter.raised")
class DecodesEachRead(OllamaAdapter):
    """Each network read is taken as whole lines: ``json.loads`` of half a line crashes."""

    def lines(self, response: httpx.Response) -> Iterator[str]:
        for chunk in response.iter_bytes():
            yield from chunk.decode().split("\n")


@fails("stream.ollama_ndjson_split", "adapter.raised")
class OnlyNewlineTerminatedLines(OllamaAdapter):
    """Buffers reads and parses only lines that end in "\\n": an unterminated last line (the
    done line) is dropped and a complete stream reads as cut off."""

    def lines(self, response: httpx.Response) -> Iterator[str]:
        buffer = b""
        for chunk in response.iter_bytes():
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                yield line.decode()


class _IgnoresErrorAcc(NdjsonAccumulator):
    def feed_line(self, line: str) -> Iterable[Any]:
        if not line.strip() or self.done:
            return ()
        return self.feed(json.loads(line))  # no look at "error"

    def close(self) -> Iterable[Any]:
        return () if self.done else self.finish_events({})  # whatever came, as a success


@fails("stream.ollama_error_line", "error.surfaced")
class IgnoresErrorLine(BrokenStream, OllamaAdapter):
    """The error line is read as an empty chunk and the stream's end as success."""

    accumulator = _IgnoresErrorAcc


class _ErrorUnreadAcc(NdjsonAccumulator):
    def feed_line(self, line: str) -> Iterable[Any]:
        if not line.strip() or self.done:
            return ()
        return self.feed(json.loads(line))


@fails("stream.ollama_error_line", "error.message")
class ErrorLineUnread(BrokenStream, OllamaAdapter):
    """The error line is skipped; the stream then fails as incomplete, without Ollama's words."""

    accumulator = _ErrorUnreadAcc


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


@fails("stream.ollama_index_stuck_at_zero", "response.tool_calls.count")
class MergesCallsByIndex(BrokenStream, OllamaAdapter):
    """Whole calls merged by ``function.index`` as if they were OpenAI fragments: every call at
    index 0 becomes one call with ``{"path":"a"}{"path":"b"}`` (litellm #33678)."""

    accumulator = _MergesByIndexAcc


class _DoneLineTextDroppedAcc(NdjsonAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        if data.get("done"):  # the done line read for its metadata only
            self.done = True
            return self.finish_events(data)
        return super().feed(data)


@fails("stream.ollama_payload_on_done_line", "response.text")
class DoneLineTextDropped(BrokenStream, OllamaAdapter):
    """The ``done: true`` line is read for its finish reason and usage only: the text Ollama
    flushes there is lost (decolua/9router #2694: the translator returned an empty delta as
    soon as it saw ``done``)."""

    accumulator = _DoneLineTextDroppedAcc


class _DoneLineCallsDroppedAcc(NdjsonAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        if data.get("done"):  # text handled, tool calls only read on the lines before
            (data.get("message") or {}).pop("tool_calls", None)
        return super().feed(data)


@fails("stream.ollama_payload_on_done_line", "response.tool_calls.count")
class DoneLineCallsDropped(BrokenStream, OllamaAdapter):
    """Tool calls are read only from the lines before ``done: true``: calls a parser flushes on
    the done line are dropped and the turn ends as "stop" (QuantumNous/new-api #7252, with
    qwen3-coder)."""

    accumulator = _DoneLineCallsDroppedAcc


@fails("errors.ollama_tools_unsupported", "errors.retryable")
class ToolsUnsupportedRetried(OllamaAdapter):
    """Every error is marked retryable, the 400 "does not support tools" too: the caller
    retries a request that fails until the user switches models (kenlasko/monize #405 showed
    "Please try again" for it)."""

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        try:
            super().raise_for_error(response, body)
        except ProviderError as error:
            error.retryable = True
            raise


@fails("errors.ollama_tools_unsupported", "error.message")
class ToolsUnsupportedWordsLost(OllamaAdapter):
    """The error says only that the request failed: Ollama's "does not support tools" never
    reaches the user, who cannot tell that the model is the problem (kenlasko/monize #405)."""

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        if response.status_code >= 400:
            raise ProviderError("the model request failed, please try again",
                                status=response.status_code)


@fails("wire.ollama_calls_only_turn_replayed", "wire.history.messages")
class PlaceholderTextOnCalls(OllamaAdapter):
    """An assistant turn with calls and no text is replayed with placeholder text, which
    Ollama renders into the prompt as the model's words (UKGovernmentBEIS/inspect_ai #2772:
    "(no content)" inserted on replay)."""

    def encode_message(self, message: Any, names: dict[str, str] | None = None) -> dict[str, Any]:
        out = super().encode_message(message, names)
        if out.get("tool_calls") and not out.get("content"):
            out["content"] = "(no content)"
        return out


# == messages (issue 12) ===========================================================================


@fails("wire.developer_message", "wire.messages.system", table="SHARED_CONTROLS")
class DeveloperRolePassedThrough(OllamaAdapter):
    """The canonical role is copied to the wire: a developer message goes out with role
    developer, which Ollama ignores (earendil-works/pi PR #140: the system prompt was missing
    on Ollama)."""

    def encode_message(self, message: Any, names: dict[str, str] | None = None) -> dict[str, Any]:
        out = super().encode_message(message, names)
        if isinstance(message, SystemMessage):
            out["role"] = message.role
        return out


@fails("wire.system_prompt", "wire.messages.system", table="SHARED_CONTROLS")
class SystemAsUser(OllamaAdapter):
    """System messages are sent with role user."""

    def encode_message(self, message: Any, names: dict[str, str] | None = None) -> dict[str, Any]:
        out = super().encode_message(message, names)
        if out["role"] == "system":
            out["role"] = "user"
        return out


@fails("wire.assistant_text_with_calls_replayed", "wire.history.messages", table="SHARED_CONTROLS")
class DropsTextNextToCalls(OllamaAdapter):
    """An assistant turn with tool calls is replayed with empty content (issue 12)."""

    def encode_message(self, message: Any, names: dict[str, str] | None = None) -> dict[str, Any]:
        out = super().encode_message(message, names)
        if out.get("tool_calls"):
            out["content"] = ""
        return out


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "ollama"
#: the path of every request the reference adapter sends (the native API)
PATH = "/api/chat"

#: (case id, broken adapter, the clause the case must name): the ollama cases
CONTROLS = collected(__name__)

#: the shared cases, each with a bug of the ollama wire it must catch there
SHARED_CONTROLS = collected(__name__, "SHARED_CONTROLS")

#: shared OpenAI cases on Ollama's OpenAI-compatible route, with OpenAI's controls
COMPAT_CONTROLS = [
    ("stream.index_stuck_at_zero", _openai.KeysOnIndexOnly, "response.tool_calls.count"),
    ("stream.index_missing", _openai.IndexRequired, "adapter.raised"),
]

#: the OpenAI-compatible route (``/v1``): not a dialect of its own in the suite, it plays the openai
#: wire's cases, streamed as SSE (not NDJSON); index_missing is Gemini's compat quirk (Ollama's
#: before 0.4.7): a profile for any server
ROUTES = {"compat": Route(path="/v1/chat/completions", dialect="openai", adapter=OpenAIChatAdapter,
                          base_url=lambda url: url + "/v1", profile=Profile(compatible_with={"*"}),
                          cases=("stream.index_stuck_at_zero", "stream.index_missing"),
                          stream_marker=b"data: [DONE]", controls=COMPAT_CONTROLS)}

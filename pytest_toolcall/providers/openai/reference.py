"""The reference OpenAI Chat Completions adapter, on httpx: sync and async, complete and stream.

It is the worked example of ``docs/writing-an-adapter-shim.md`` and passes every case. Each step is
a small method so that the kit's negative controls can break exactly one of them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import httpx
from pydantic import ValidationError

from pytest_toolcall.core.errors import ProviderError, StreamError
from pytest_toolcall.core.model import (AssistantMessage, ChatRequest, ChatResponse,
                                        NamedToolChoice, StreamDone, SystemMessage, TextDelta,
                                        ToolCall, ToolCallComplete, ToolCallDelta, ToolMessage,
                                        ToolSpec, Usage, UserMessage)
from pytest_toolcall.reference._http import (RETRYABLE_TYPES, EndMarked, HttpxAdapter,
                                             finish_reason, tool_fields)

__all__ = ["ADAPTER", "OpenAIChatAdapter", "PROFILE", "StreamAccumulator"]

#: the reference reads what any OpenAI-compatible server sends, so under the bare openai wire
#: it claims every service's stream quirks (a user's OpenAI-only adapter claims none)
PROFILE: dict[str, Any] = {"compatible_with": frozenset({"*"})}

_FINISH = {"stop": "stop", "tool_calls": "tool_calls", "function_call": "tool_calls",
           "length": "length", "content_filter": "content_filter"}


class OpenAIChatAdapter(HttpxAdapter):
    """Canonical requests to ``POST {base_url}/chat/completions`` and back."""

    #: the model a request without one names (each service's adapter gives its own)
    DEFAULT_MODEL = "gpt-4o-mini"
    #: a stream asks for usage with ``stream_options`` (False: a service that sends usage
    #: without it, or refuses the key)
    STREAM_OPTIONS = True

    def __init__(self, base_url: str, api_key: str, *, model: str | None = None,
                 client: httpx.Client | None = None,
                 async_client: httpx.AsyncClient | None = None) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.headers = {"authorization": f"Bearer {api_key}"}
        self.model = self.DEFAULT_MODEL if model is None else model
        self._client, self._async_client = client, async_client  # built on first use

    # -- canonical -> wire --------------------------------------------------------------------
    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": request.model or self.model,
            "messages": [self.encode_message(m) for m in request.messages],
        }
        body.update(tool_fields(self, request))
        if stream:
            body["stream"] = True
            if self.STREAM_OPTIONS:
                body["stream_options"] = {"include_usage": True}
        return body

    def encode_tool(self, tool: ToolSpec) -> dict[str, Any]:
        function: dict[str, Any] = {"name": tool.name, "description": tool.description,
                                    "parameters": tool.parameters}
        if tool.strict is not None:
            function["strict"] = tool.strict
        return {"type": "function", "function": function}

    def encode_tool_choice(self, choice: Any) -> Any:
        if isinstance(choice, NamedToolChoice):
            return {"type": "function", "function": {"name": choice.name}}
        return choice

    def encode_message(self, message: Any) -> dict[str, Any]:
        if isinstance(message, (SystemMessage, UserMessage)):
            return {"role": message.role, "content": message.content}
        if isinstance(message, AssistantMessage):
            out: dict[str, Any] = {"role": "assistant", "content": message.content}
            if message.tool_calls:
                out["tool_calls"] = [self.encode_call(c) for c in message.tool_calls]
            elif message.content is None:
                out["content"] = ""
            return out
        if isinstance(message, ToolMessage):
            return {"role": "tool", "tool_call_id": message.tool_call_id,
                    "content": message.content}
        raise TypeError(f"not a canonical message: {message!r}")

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        # arguments_json: "" becomes "{}" and non-ASCII stays as it is (no \\u escapes)
        return {"id": call.id, "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_json()}}

    # -- wire -> canonical --------------------------------------------------------------------
    def parse_response(self, data: Any) -> ChatResponse:
        try:
            choice = data["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise ProviderError(f"malformed response, no choices[0].message: {data!r:.200}") from None
        try:
            calls = tuple(self.parse_call(c) for c in message.get("tool_calls") or ())
            return ChatResponse(text=self.parse_content(message.get("content")), tool_calls=calls,
                                finish_reason=self.parse_finish(choice.get("finish_reason")),
                                usage=self.parse_usage(data.get("usage")), model=data.get("model"))
        except (ValidationError, AttributeError, TypeError) as exc:
            # a 200 whose fields have shapes no service sends: a typed error saying what came
            # back, never pydantic's ValidationError from inside the adapter (issue 13)
            raise ProviderError(f"malformed response: {exc.__class__.__name__}: "
                                f"{str(exc).splitlines()[0]}; the answer was {data!r:.200}",
                                body=data) from None

    @staticmethod
    def parse_content(content: Any) -> str | None:
        """The text of ``message.content`` (or of a stream delta's ``content``).

        A string, or null; or, from services that send it, a list of parts whose ``text``
        parts are the answer: Mistral's reasoning models answer ``[{"type": "thinking",
        "thinking": [...]}, {"type": "text", "text": "..."}]`` (docs.mistral.ai, Reasoning;
        spring-ai #5020; confirmed 2026-11-23). Thinking parts are not the answer's text.
        """
        if content is None or isinstance(content, str):
            return content or None
        if isinstance(content, list):
            texts = [part["text"] for part in content if isinstance(part, dict)
                     and part.get("type", "text") == "text" and isinstance(part.get("text"), str)]
            return "".join(texts) or None
        raise ProviderError(f"malformed response: content is {type(content).__name__} "
                            f"{content!r:.100}, expected a string, null or a list of parts")

    def parse_call(self, raw: dict[str, Any]) -> ToolCall:
        function = raw.get("function") or {}
        return ToolCall.from_raw(id=raw.get("id"), name=function.get("name", ""),
                                 arguments=function.get("arguments"))

    @staticmethod
    def parse_finish(reason: str | None) -> Any:
        return finish_reason(_FINISH, reason)

    @staticmethod
    def parse_usage(raw: dict[str, Any] | None) -> Usage | None:
        if not raw:
            return None
        return Usage(input_tokens=raw.get("prompt_tokens"),
                     output_tokens=raw.get("completion_tokens"),
                     total_tokens=raw.get("total_tokens"))

    def new_accumulator(self) -> StreamAccumulator:
        return StreamAccumulator(self)


class _Slot:
    __slots__ = ("id", "name", "arguments", "index")

    def __init__(self, index: int, id: str | None, name: str | None) -> None:
        self.index, self.id, self.name = index, id, name
        self.arguments: list[str] | None = None


class StreamAccumulator(EndMarked):
    """Turns SSE lines into stream events; tool calls are keyed on ``index``, then on ``id``.

    Keying on index alone merges calls from servers that send every call at index 0 or with no
    index (Ollama's OpenAI endpoint, some proxies); keying on id alone loses fragments that carry
    no id (OpenAI sends id and name only on a call's first fragment). So: a fragment continues the
    call at its index unless it brings a *different* id, which starts a new call.
    """

    end_marker = "'data: [DONE]'"
    finish_name = "finish_reason"

    def __init__(self, adapter: OpenAIChatAdapter) -> None:
        self.adapter = adapter
        self.slots: list[_Slot] = []
        self.by_index: dict[int | None, _Slot] = {}
        self.finish: str | None = None
        self.usage: Usage | None = None
        self.done = False

    def feed_line(self, line: str) -> Iterable[Any]:
        if not line.startswith("data:") or self.done:
            return ()
        payload = line[5:].strip()
        if payload == "[DONE]":
            self.done = True
            return self.finish_events()
        return self.feed_event(json.loads(payload))

    def feed_event(self, data: Any) -> Iterable[Any]:
        """One decoded ``data:`` event: an error event raises (:meth:`error_event`), a chunk is
        fed."""
        if "error" in data:
            raise self.error_event(data)
        return self.feed(data)

    def error_event(self, data: Any) -> Exception:
        """What an event with an ``error`` inside a 200 stream raises: OpenAI's error object as
        a StreamError (a service whose error events differ reads its own here)."""
        error = data["error"] or {}
        return StreamError(str(error.get("message", error)), type=error.get("type"),
                           code=error.get("code"), body=data,
                           retryable=error.get("type") in RETRYABLE_TYPES)

    def feed(self, data: dict[str, Any]) -> list[Any]:
        events: list[Any] = []
        if data.get("usage"):
            self.usage = self.adapter.parse_usage(data["usage"])
        for choice in data.get("choices") or ():
            delta = choice.get("delta") or {}
            text = self.adapter.parse_content(delta.get("content"))
            if text:
                events.append(TextDelta(text=text))
            for frag in delta.get("tool_calls") or ():
                events.append(self.add_fragment(frag))
            if choice.get("finish_reason"):
                self.finish = choice["finish_reason"]
        return events

    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        index, call_id = frag.get("index"), frag.get("id")
        function = frag.get("function") or {}
        slot = self.by_index.get(index)
        if slot is None or (call_id and slot.id and call_id != slot.id):
            slot = _Slot(len(self.slots), call_id, function.get("name"))
            self.slots.append(slot)
            self.by_index[index] = slot
        slot.id = slot.id or call_id
        slot.name = slot.name or function.get("name")
        piece = function.get("arguments")
        if piece is not None:
            slot.arguments = (slot.arguments or []) + [piece]
        return ToolCallDelta(index=slot.index, id=call_id, name=function.get("name"),
                             arguments_delta=piece or "")

    def finish_events(self) -> list[Any]:
        events: list[Any] = []
        for slot in self.slots:
            raw = None if slot.arguments is None else "".join(slot.arguments)
            call = ToolCall.from_raw(id=slot.id, name=slot.name or "", arguments=raw)
            events.append(ToolCallComplete(call=call))
        events.append(StreamDone(finish_reason=self.adapter.parse_finish(self.finish),
                                 usage=self.usage))
        return events


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = OpenAIChatAdapter

"""The reference Ollama adapter: native ``POST {base_url}/api/chat``, NDJSON streams, on httpx.

What differs from OpenAI, and what this adapter does about it:

- ``arguments`` is a JSON **object** both ways: read it as it is (``json.loads`` of an object
  crashes) and send it back as an object (a JSON string is a 400 from Ollama);
- calls may come without ``id`` (older servers; ollama-python 0.6.x drops it): each such call
  gets a fresh unique id here, so results can still be paired with calls (litellm #11262);
- tool results carry ``tool_name`` (what Ollama's templates read) and ``tool_call_id``;
- ``done_reason`` is ``"stop"`` even when the model called tools: with calls, the canonical
  finish reason is ``tool_calls``;
- the stream is NDJSON: one JSON object per line, ``done: true`` on the last; an
  ``{"error": ...}`` line is an error, and a stream that ends without ``done: true`` is incomplete;
- no tool_choice and no parallel_tool_calls on this API (see ``PROFILE``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from typing import Any

import httpx

from pytest_toolcall.core.errors import ProviderError, StreamError
from pytest_toolcall.core.model import (AssistantMessage, ChatRequest, ChatResponse, StreamDone,
                                        SystemMessage, TextDelta, ToolCall, ToolCallComplete,
                                        ToolCallDelta, ToolMessage, ToolSpec, Usage, UserMessage)
from pytest_toolcall.reference._http import EndMarked, HttpxAdapter, finish_reason, retry_fields

__all__ = ["ADAPTER", "NdjsonAccumulator", "OllamaAdapter", "PROFILE"]

#: what Ollama supports: the model always chooses (no tool_choice), no parallel_tool_calls flag
PROFILE: dict[str, Any] = {"tool_choice": frozenset({"auto"}), "parallel_tool_calls": False}

_FINISH = {"stop": "stop", "length": "length"}


class OllamaAdapter(HttpxAdapter):
    """Canonical requests to Ollama's native chat API and back."""

    DEFAULT_MODEL = "llama3.2"

    def __init__(self, base_url: str, api_key: str | None = None, *,
                 model: str = DEFAULT_MODEL, client: httpx.Client | None = None,
                 async_client: httpx.AsyncClient | None = None) -> None:
        self.url = base_url.rstrip("/") + "/api/chat"
        # a local Ollama needs no key; one behind a proxy may want a bearer token
        self.headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self.model = model
        self._client, self._async_client = client, async_client  # built on first use

    # -- canonical -> wire --------------------------------------------------------------------
    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        names = {c.id: c.name for m in request.messages if isinstance(m, AssistantMessage)
                 for c in m.tool_calls if c.id}
        body: dict[str, Any] = {
            "model": request.model or self.model,
            "messages": [self.encode_message(m, names) for m in request.messages],
            # Ollama streams unless told not to: always say which
            "stream": stream,
        }
        if request.tools:
            body["tools"] = [self.encode_tool(t) for t in request.tools]
        return body

    def encode_tool(self, tool: ToolSpec) -> dict[str, Any]:
        function: dict[str, Any] = {"name": tool.name, "description": tool.description,
                                    "parameters": tool.parameters}
        if tool.strict is not None:
            function["strict"] = tool.strict  # ignored by Ollama, kept so nothing is lost
        return {"type": "function", "function": function}

    def encode_message(self, message: Any, names: dict[str, str] | None = None) -> dict[str, Any]:
        if isinstance(message, SystemMessage):
            # Ollama has no developer role and ignores a message that carries it (pi PR #140)
            return {"role": "system", "content": message.content}
        if isinstance(message, UserMessage):
            return {"role": message.role, "content": message.content}
        if isinstance(message, AssistantMessage):
            out: dict[str, Any] = {"role": "assistant", "content": message.content or ""}
            if message.tool_calls:
                out["tool_calls"] = [self.encode_call(c) for c in message.tool_calls]
            return out
        if isinstance(message, ToolMessage):
            return self.encode_result(message, names or {})
        raise TypeError(f"not a canonical message: {message!r}")

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        # an object, never a JSON string; a call whose arguments did not parse goes back as {}
        out: dict[str, Any] = {"function": {"name": call.name,
                                            "arguments": dict(call.arguments or {})}}
        if call.id:
            out["id"] = call.id
        return out

    def encode_result(self, message: ToolMessage, names: dict[str, str]) -> dict[str, Any]:
        out: dict[str, Any] = {"role": "tool", "content": message.content}
        name = message.name or names.get(message.tool_call_id or "")
        if name:
            out["tool_name"] = name
        if message.tool_call_id:
            out["tool_call_id"] = message.tool_call_id
        return out

    # -- wire -> canonical --------------------------------------------------------------------
    def parse_response(self, data: Any) -> ChatResponse:
        message = data.get("message") if isinstance(data, dict) else None
        if not isinstance(message, dict):
            raise ProviderError(f"malformed response, no message: {data!r:.200}", body=data)
        calls = tuple(self.parse_call(c) for c in message.get("tool_calls") or ())
        return ChatResponse(text=message.get("content") or None, tool_calls=calls,
                            finish_reason=self.parse_finish(data.get("done_reason"), bool(calls)),
                            usage=self.parse_usage(data), model=data.get("model"))

    def parse_call(self, raw: dict[str, Any]) -> ToolCall:
        function = raw.get("function") or {}
        # arguments is already an object: from_raw takes it as it is (text would be parsed)
        return ToolCall.from_raw(id=raw.get("id") or self.new_call_id(),
                                 name=function.get("name", ""),
                                 arguments=function.get("arguments"))

    @staticmethod
    def new_call_id() -> str:
        """A unique id for a call the server sent without one."""
        return f"call_{uuid.uuid4().hex[:12]}"

    @staticmethod
    def parse_finish(reason: str | None, has_calls: bool) -> Any:
        if has_calls:
            return "tool_calls"  # Ollama says "stop" here
        return finish_reason(_FINISH, reason)

    @staticmethod
    def parse_usage(data: dict[str, Any]) -> Usage | None:
        if "prompt_eval_count" not in data and "eval_count" not in data:
            return None
        prompt, output = data.get("prompt_eval_count") or 0, data.get("eval_count") or 0
        return Usage(input_tokens=prompt, output_tokens=output, total_tokens=prompt + output)

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        if response.status_code < 400:
            return
        try:
            data = json.loads(body)
        except ValueError:
            data = body.decode(errors="replace")
        error = data.get("error") if isinstance(data, dict) else None
        message = error if isinstance(error, str) else str(data)[:500]
        raise ProviderError(message, status=response.status_code, body=data,
                            **retry_fields(response, data))

    def new_accumulator(self) -> NdjsonAccumulator:
        return NdjsonAccumulator(self)


class NdjsonAccumulator(EndMarked):
    """Turns NDJSON lines into stream events. Each call arrives whole, so each is a call."""

    end_marker = 'a line with "done": true'

    def __init__(self, adapter: OllamaAdapter) -> None:
        self.adapter = adapter
        self.calls: list[ToolCall] = []
        self.done = False

    def feed_line(self, line: str) -> Iterable[Any]:
        if not line.strip() or self.done:
            return ()
        data = json.loads(line)
        if "error" in data:
            raise StreamError(str(data["error"]), body=data)
        return self.feed(data)

    def feed(self, data: dict[str, Any]) -> list[Any]:
        events: list[Any] = []
        message = data.get("message") or {}
        if message.get("content"):
            events.append(TextDelta(text=message["content"]))
        for raw in message.get("tool_calls") or ():
            call = self.adapter.parse_call(raw)
            events.append(ToolCallDelta(index=len(self.calls), id=call.id, name=call.name,
                                        arguments_delta=call.arguments_json()))
            self.calls.append(call)
        if data.get("done"):
            self.done = True
            events += self.finish_events(data)
        return events

    def finish_events(self, data: dict[str, Any]) -> list[Any]:
        events: list[Any] = [ToolCallComplete(call=c) for c in self.calls]
        events.append(StreamDone(
            finish_reason=self.adapter.parse_finish(data.get("done_reason"), bool(self.calls)),
            usage=self.adapter.parse_usage(data)))
        return events


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = OllamaAdapter

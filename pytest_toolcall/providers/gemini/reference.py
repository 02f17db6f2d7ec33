"""The reference Gemini adapter (generateContent), on httpx: sync and async, complete and stream.

What Gemini asks of an adapter that OpenAI does not:

- calls often come without an id (2.x): the adapter makes one up, unique per call (two calls of
  the same tool must not share it), and never sends a made-up id back; results are paired with
  their call by id, else by position, and carry the call's name;
- newer models send ids and expect them echoed on ``functionCall`` and ``functionResponse``, and
  sign the first call of a turn with a ``thoughtSignature`` that must be replayed (Gemini 3
  refuses the current turn's calls without it): the adapter remembers it by call id, and sends
  the signature an assistant message carries in its reasoning (a signed ``thinking`` entry,
  what the fake decodes a replayed signature to) when it remembers none;
- all results of a turn go back in ONE user turn, right after the model turn, one part per call;
- ``finishReason`` is ``STOP`` even with calls; streams end with no marker but the finish reason;
- a blocked prompt is a 200 with no candidates and ``promptFeedback.blockReason`` (a stream: that
  one chunk): an answer with finish ``content_filter``, no text, no calls, and the prompt's usage
  (as litellm and pydantic-ai read it; google-genai and langchain-google-genai hand it on as an
  answer too, the block in their ``prompt_feedback``).

Each step is a small method so that negative controls can break exactly one of them.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Sequence
from typing import Any

import httpx

from pytest_toolcall.core.errors import IncompleteStreamError, ProviderError, StreamError
from pytest_toolcall.core.model import (AssistantMessage, ChatRequest, ChatResponse,
                                        NamedToolChoice, StreamDone, SystemMessage, TextDelta,
                                        ToolCall, ToolCallComplete, ToolCallDelta, ToolMessage,
                                        ToolSpec, Usage, UserMessage)
from pytest_toolcall.reference._http import RETRYABLE_TYPES, HttpxAdapter, finish_reason, parsed_url

__all__ = ["ADAPTER", "PROFILE", "SYNTHETIC_ID_PREFIX", "GeminiAdapter", "StreamAccumulator"]

#: Gemini has no parallel_tool_calls switch
PROFILE = {"parallel_tool_calls": False}

#: ids the adapter made up for calls that came without one; they are never sent to Gemini
SYNTHETIC_ID_PREFIX = "tc_gemini_"

_FINISH = {"STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "content_filter",
           "RECITATION": "content_filter", "BLOCKLIST": "content_filter",
           "PROHIBITED_CONTENT": "content_filter", "SPII": "content_filter",
           "IMAGE_SAFETY": "content_filter", "MALFORMED_FUNCTION_CALL": "error",
           "UNEXPECTED_TOOL_CALL": "error", "TOO_MANY_TOOL_CALLS": "error"}
_MODES = {"auto": "AUTO", "none": "NONE", "required": "ANY"}


class GeminiAdapter(HttpxAdapter):
    """Canonical requests to ``POST {base_url}/models/{model}:generateContent`` and back."""

    DEFAULT_MODEL = "gemini-2.5-flash"
    #: Gemini's error object: {code (the HTTP status), message, status (its type)}
    error_keys = ("status", "code", None)
    quota_codes = False

    def __init__(self, base_url: str, api_key: str, *, model: str = DEFAULT_MODEL,
                 client: httpx.Client | None = None,
                 async_client: httpx.AsyncClient | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.headers = {"x-goog-api-key": api_key}
        self.model = model
        self._client, self._async_client = client, async_client  # built on first use
        #: call id -> the thoughtSignature of its part, to replay it (bounded by the history)
        self.signatures: dict[str, str] = {}

    def request_url(self, request: ChatRequest, *, stream: bool) -> httpx.URL:
        model = request.model or self.model
        if stream:
            return parsed_url(f"{self.base_url}/models/{model}:streamGenerateContent?alt=sse")
        return parsed_url(f"{self.base_url}/models/{model}:generateContent")

    # -- canonical -> wire --------------------------------------------------------------------
    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        system = [m.content for m in request.messages if isinstance(m, SystemMessage)]
        body: dict[str, Any] = {"contents": self.encode_contents(
            [m for m in request.messages if not isinstance(m, SystemMessage)])}
        if system:
            body["systemInstruction"] = {"parts": [{"text": "\n\n".join(system)}]}
        if request.tools:
            body["tools"] = [{"functionDeclarations": [self.encode_tool(t)
                                                       for t in request.tools]}]
            if request.tool_choice is not None:
                body["toolConfig"] = {"functionCallingConfig":
                                      self.encode_tool_choice(request.tool_choice)}
        return body

    def encode_tool(self, tool: ToolSpec) -> dict[str, Any]:
        # parametersJsonSchema takes the JSON Schema as it is; ``parameters`` is an OpenAPI
        # subset that refuses additionalProperties, $defs, const...
        return {"name": tool.name, "description": tool.description,
                "parametersJsonSchema": tool.parameters}

    def encode_tool_choice(self, choice: Any) -> dict[str, Any]:
        if isinstance(choice, NamedToolChoice):
            return {"mode": "ANY", "allowedFunctionNames": [choice.name]}
        return {"mode": _MODES[choice]}

    def encode_contents(self, messages: Sequence[Any]) -> list[dict[str, Any]]:
        """Messages to contents: the results of one model turn become ONE user turn."""
        contents: list[dict[str, Any]] = []
        calls: tuple[ToolCall, ...] = ()
        results: list[ToolMessage] = []
        for message in [*messages, None]:
            if isinstance(message, ToolMessage):
                results.append(message)
                continue
            if results:
                contents.append({"role": "user", "parts": self.encode_results(results, calls)})
                results = []
            if isinstance(message, AssistantMessage):
                contents.append(self.encode_assistant(message))
                calls = message.tool_calls
            elif isinstance(message, UserMessage):
                contents.append({"role": "user", "parts": [{"text": message.content}]})
            elif message is not None:
                raise TypeError(f"not a canonical message: {message!r}")
        return contents

    def encode_assistant(self, message: AssistantMessage) -> dict[str, Any]:
        parts: list[dict[str, Any]] = [{"text": message.content}] if message.content else []
        calls = [self.encode_call(c) for c in message.tool_calls]
        # a signature the message itself carries (a turn another adapter instance read, or a
        # stored history) goes on the first call when none is remembered for it: Gemini's shape,
        # a thinking entry with a signature and no text (an Anthropic block has its text, and
        # its signature means nothing to Gemini)
        carried = next((r.signature for r in message.reasoning
                        if r.type == "thinking" and r.signature and not r.text), None)
        if calls and carried and "thoughtSignature" not in calls[0]:
            calls[0]["thoughtSignature"] = carried
        parts += calls
        return {"role": "model", "parts": parts or [{"text": ""}]}

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        function: dict[str, Any] = {"name": call.name, "args": call.arguments or {}}
        if self.wire_id(call.id):
            function["id"] = call.id
        part: dict[str, Any] = {"functionCall": function}
        signature = getattr(self, "signatures", {}).get(call.id or "")
        if signature:
            part["thoughtSignature"] = signature
        return part

    def encode_results(self, results: list[ToolMessage],
                       calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
        by_id = {c.id: c for c in calls if c.id}
        parts = []
        for k, result in enumerate(results):
            # by id, else by position: stored results of id-less calls have no id either
            call = by_id.get(result.tool_call_id or "") or (calls[k] if k < len(calls) else None)
            name = result.name or (call.name if call else "")
            response = {"error" if result.is_error else "output": result.content}
            function: dict[str, Any] = {"name": name, "response": response}
            call_id = result.tool_call_id or (call.id if call else None)
            if self.wire_id(call_id):
                function["id"] = call_id
            parts.append({"functionResponse": function})
        return parts

    @staticmethod
    def wire_id(call_id: str | None) -> bool:
        """Whether ``call_id`` goes on the wire: ids Gemini sent do, made-up ones do not."""
        return bool(call_id) and not call_id.startswith(SYNTHETIC_ID_PREFIX)  # type: ignore[union-attr]

    # -- wire -> canonical --------------------------------------------------------------------
    def parse_response(self, data: Any) -> ChatResponse:
        try:
            candidate = data["candidates"][0]
        except (KeyError, IndexError, TypeError):
            feedback = data.get("promptFeedback") if isinstance(data, dict) else None
            if feedback and feedback.get("blockReason"):
                return ChatResponse(finish_reason="content_filter",
                                    usage=self.parse_usage(data.get("usageMetadata")))
            raise ProviderError(f"malformed response, no candidates[0]: {data!r:.200}") from None
        parts = (candidate.get("content") or {}).get("parts") or []
        text = "".join(p["text"] for p in parts if isinstance(p.get("text"), str)
                       and not p.get("thought"))
        calls = tuple(self.parse_call(p) for p in parts if "functionCall" in p)
        return ChatResponse(text=text or None, tool_calls=calls,
                            finish_reason=self.parse_finish(candidate.get("finishReason"),
                                                            bool(calls)),
                            usage=self.parse_usage(data.get("usageMetadata")),
                            model=data.get("modelVersion"))

    def parse_call(self, part: dict[str, Any]) -> ToolCall:
        function = part["functionCall"]
        call_id = function.get("id") or self.new_id()
        if part.get("thoughtSignature"):
            self.signatures[call_id] = part["thoughtSignature"]
        return ToolCall.from_raw(id=call_id, name=function.get("name", ""),
                                 arguments=function.get("args"))

    @staticmethod
    def new_id() -> str:
        return SYNTHETIC_ID_PREFIX + uuid.uuid4().hex[:16]

    @staticmethod
    def parse_finish(reason: str | None, has_calls: bool) -> Any:
        if reason == "STOP" and has_calls:
            return "tool_calls"  # Gemini says STOP even when the turn is tool calls
        return finish_reason(_FINISH, reason)

    @staticmethod
    def parse_usage(raw: dict[str, Any] | None) -> Usage | None:
        if not raw:
            return None
        return Usage(input_tokens=raw.get("promptTokenCount"),
                     output_tokens=raw.get("candidatesTokenCount"),
                     total_tokens=raw.get("totalTokenCount"))

    def new_accumulator(self) -> StreamAccumulator:
        return StreamAccumulator(self)


class StreamAccumulator:
    """SSE lines to stream events. An event is its ``data:`` lines up to a blank line (httpx's
    line reader already takes ``\\r\\n``); each event is a whole response chunk whose calls are
    complete, so they are emitted as they come, every part of every chunk."""

    def __init__(self, adapter: GeminiAdapter) -> None:
        self.adapter = adapter
        self.data: list[str] = []
        self.count = 0
        self.finish: str | None = None
        self.usage: Usage | None = None

    def feed_line(self, line: str) -> Iterable[Any]:
        if line.startswith("data:"):
            self.data.append(line[5:].removeprefix(" "))
            return ()
        if line.strip() or not self.data:
            return ()  # comments, other fields, repeated blank lines
        payload, self.data = "\n".join(self.data), []
        return self.feed(json.loads(payload))

    def feed(self, data: dict[str, Any]) -> list[Any]:
        if "error" in data:
            error = data["error"] or {}
            raise StreamError(str(error.get("message", error)), type=error.get("status"),
                              code=error.get("code"), body=data,
                              retryable=error.get("status") in RETRYABLE_TYPES)
        if data.get("usageMetadata"):
            self.usage = self.adapter.parse_usage(data["usageMetadata"])
        if (data.get("promptFeedback") or {}).get("blockReason"):
            # a blocked prompt: this one chunk, no candidates, no finishReason; what
            # parse_response answers, finish content_filter (SAFETY's)
            self.finish = "SAFETY"
        events: list[Any] = []
        for candidate in (data.get("candidates") or ())[:1]:
            for part in (candidate.get("content") or {}).get("parts") or ():
                if isinstance(part.get("text"), str) and part["text"] and not part.get("thought"):
                    events.append(TextDelta(text=part["text"]))
                if "functionCall" in part:
                    events += self.add_call(part)
            if candidate.get("finishReason"):
                self.finish = candidate["finishReason"]
        return events

    def add_call(self, part: dict[str, Any]) -> list[Any]:
        call = self.adapter.parse_call(part)
        index, self.count = self.count, self.count + 1
        return [ToolCallDelta(index=index, id=call.id, name=call.name,
                              arguments_delta=call.arguments_json()),
                ToolCallComplete(call=call)]

    def close(self) -> Iterable[Any]:
        if self.data:  # a last event without its blank line
            yield from self.feed_line("")
        if self.finish is None:
            raise IncompleteStreamError("the Gemini stream ended without a finishReason: the "
                                        "connection was cut before the last chunk")
        yield StreamDone(finish_reason=self.adapter.parse_finish(self.finish, self.count > 0),
                         usage=self.usage)


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = GeminiAdapter

"""The reference Anthropic Messages adapter, on httpx: sync and async, complete and stream.

Canonical -> wire: system messages go to the top-level ``system``; the results of one assistant
turn go back in ONE user message, ``tool_result`` blocks first (``is_error`` from
:class:`~pytest_toolcall.core.model.ToolMessage`); ``tool_choice`` "required" is ``any``;
``parallel_tool_calls=False`` is ``disable_parallel_tool_use: true``. Streams are read by their
``event:`` line (what the official SDK dispatches on), ``ping`` skipped, ``event: error`` raised.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from typing import Any

import httpx

from pytest_toolcall.core.errors import ProviderError, StreamError
from pytest_toolcall.core.model import (AssistantMessage, ChatRequest, ChatResponse,
                                        NamedToolChoice, Reasoning, ReasoningComplete, StreamDone,
                                        SystemMessage, TextDelta, ToolCall, ToolCallComplete,
                                        ToolCallDelta, ToolMessage, ToolSpec, Usage, UserMessage,
                                        parse_arguments)
from pytest_toolcall.reference._http import EndMarked, HttpxAdapter, RETRYABLE_TYPES, finish_reason

__all__ = ["ADAPTER", "AnthropicAdapter", "AnthropicStreamAccumulator", "PROFILE"]

API_VERSION = "2023-06-01"
_ID_OK = re.compile(r"^[a-zA-Z0-9_-]+$")


def wire_id(call_id: str | None) -> str | None:
    """A call id Anthropic accepts: as it is when it matches ``^[a-zA-Z0-9_-]+$``, else (an id
    from another provider, e.g. Codex's ``call_…|fc_…``: earendil-works/pi #9048) the allowed
    characters plus a hash of the original, the same on the tool_use and its tool_result."""
    if call_id is None or _ID_OK.match(call_id):
        return call_id
    digest = hashlib.sha256(call_id.encode()).hexdigest()[:12]
    return re.sub(r"[^a-zA-Z0-9_-]", "_", call_id)[:80] + "_" + digest
_FINISH = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls",
           "max_tokens": "length", "model_context_window_exceeded": "length",
           "refusal": "content_filter", "pause_turn": "other"}

#: Anthropic supports every tool_choice and parallel_tool_calls=False: the defaults hold
#: the reference reads both stream usage shapes, so it runs the legacy-shape case too
PROFILE: dict[str, Any] = {"anthropic_legacy_usage": True}


class AnthropicAdapter(HttpxAdapter):
    """Canonical requests to ``POST {base_url}/messages`` and back."""

    DEFAULT_MODEL = "claude-haiku-4-5"
    MAX_TOKENS = 1024
    #: with ``ChatRequest.reasoning``: Anthropic's minimum budget, and max_tokens above it
    #: (docs.claude.com, extended thinking: budget_tokens >= 1024 and < max_tokens)
    THINKING_BUDGET = 1024
    #: Anthropic's error object: {type, message}
    error_keys = ("type", None, None)

    def __init__(self, base_url: str, api_key: str, *, model: str = DEFAULT_MODEL,
                 client: httpx.Client | None = None,
                 async_client: httpx.AsyncClient | None = None) -> None:
        self.url = base_url.rstrip("/") + "/messages"
        self.headers = {"x-api-key": api_key, "anthropic-version": API_VERSION}
        self.model = model
        self._client, self._async_client = client, async_client  # built on first use

    # -- canonical -> wire --------------------------------------------------------------------
    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body: dict[str, Any] = {"model": request.model or self.model,
                                "max_tokens": self.MAX_TOKENS}
        system = [m.content for m in request.messages if isinstance(m, SystemMessage)]
        if system:
            body["system"] = "\n\n".join(system)
        body["messages"] = self.encode_messages(
            [m for m in request.messages if not isinstance(m, SystemMessage)])
        if request.tools:
            body["tools"] = [self.encode_tool(t) for t in request.tools]
            choice = self.encode_tool_choice(request.tool_choice, request.parallel_tool_calls)
            if choice is not None:
                body["tool_choice"] = choice
        if request.reasoning:
            body["thinking"] = {"type": "enabled", "budget_tokens": self.THINKING_BUDGET}
            body["max_tokens"] = max(self.MAX_TOKENS, self.THINKING_BUDGET * 2)
        if stream:
            body["stream"] = True
        return body

    def encode_tool(self, tool: ToolSpec) -> dict[str, Any]:
        out: dict[str, Any] = {"name": tool.name, "description": tool.description,
                               "input_schema": tool.parameters}
        if tool.strict is not None:
            out["strict"] = tool.strict
        return out

    def encode_tool_choice(self, choice: Any, parallel: bool | None) -> dict[str, Any] | None:
        if isinstance(choice, NamedToolChoice):
            out: dict[str, Any] = {"type": "tool", "name": choice.name}
        elif choice == "none":
            return {"type": "none"}  # disable_parallel_tool_use is not allowed on none
        elif choice == "required":
            out = {"type": "any"}
        elif choice == "auto" or parallel is False:
            out = {"type": "auto"}  # the flag needs a tool_choice to ride on
        else:
            return None
        if parallel is False:
            out["disable_parallel_tool_use"] = True
        return out

    def encode_messages(self, messages: list[Any]) -> list[dict[str, Any]]:
        """Wire messages; consecutive tool results (and a user text after them) form ONE user
        message with the ``tool_result`` blocks first."""
        out: list[dict[str, Any]] = []
        for message in messages:
            if isinstance(message, ToolMessage):
                block = self.encode_result(message)
                if out and out[-1]["role"] == "user" and _all_results(out[-1]["content"]):
                    out[-1]["content"].append(block)
                else:
                    out.append({"role": "user", "content": [block]})
            elif isinstance(message, UserMessage):
                text = {"type": "text", "text": message.content}
                if out and out[-1]["role"] == "user" and _all_results(out[-1]["content"]):
                    out[-1]["content"].append(text)  # after the results, never before
                else:
                    out.append({"role": "user", "content": message.content})
            elif isinstance(message, AssistantMessage):
                encoded = self.encode_assistant(message)
                if encoded["content"]:
                    out.append(encoded)
            else:
                raise TypeError(f"not a canonical message: {message!r}")
        return out

    def encode_assistant(self, message: AssistantMessage) -> dict[str, Any]:
        # thinking and redacted_thinking first, unchanged and in order: Anthropic checks their
        # signatures and wants them before the tool_use they precede
        content: list[dict[str, Any]] = [self.encode_reasoning(r) for r in message.reasoning
                                         if r.type in ("thinking", "redacted_thinking")]
        if message.content:  # an empty text block is a 400
            content.append({"type": "text", "text": message.content})
        content += [self.encode_call(c) for c in message.tool_calls]
        return {"role": "assistant", "content": content}

    @staticmethod
    def encode_reasoning(reasoning: Reasoning) -> dict[str, Any]:
        if reasoning.type == "redacted_thinking":
            return {"type": "redacted_thinking", "data": reasoning.signature or ""}
        return {"type": "thinking", "thinking": reasoning.text or "",
                "signature": reasoning.signature or ""}

    @staticmethod
    def parse_reasoning(block: dict[str, Any]) -> Reasoning | None:
        if block.get("type") == "thinking":
            return Reasoning(type="thinking", text=block.get("thinking"),
                             signature=block.get("signature"))
        if block.get("type") == "redacted_thinking":
            return Reasoning(type="redacted_thinking", signature=block.get("data"))
        return None

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        # input is an object: unparseable argument text cannot be replayed, {} stands in for it
        return {"type": "tool_use", "id": wire_id(call.id), "name": call.name,
                "input": call.arguments if call.arguments is not None else {}}

    def encode_result(self, message: ToolMessage) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "tool_result",
                                 "tool_use_id": wire_id(message.tool_call_id),
                                 "content": message.content}
        if message.is_error:
            block["is_error"] = True
        return block

    # -- wire -> canonical --------------------------------------------------------------------
    def parse_response(self, data: Any) -> ChatResponse:
        if not isinstance(data, dict) or not isinstance(data.get("content"), list):
            raise ProviderError(f"malformed response, no content list: {data!r:.200}")
        text = "".join(b.get("text", "") for b in data["content"] if b.get("type") == "text")
        calls = tuple(self.parse_call(b) for b in data["content"] if b.get("type") == "tool_use")
        reasoning = tuple(r for r in map(self.parse_reasoning, data["content"]) if r)
        return ChatResponse(text=text or None, tool_calls=calls,
                            finish_reason=self.parse_finish(data.get("stop_reason")),
                            usage=self.parse_usage(data.get("usage")), model=data.get("model"),
                            reasoning=reasoning)

    def parse_call(self, block: dict[str, Any]) -> ToolCall:
        return ToolCall.from_raw(id=block.get("id"), name=block.get("name", ""),
                                 arguments=block.get("input"))

    @staticmethod
    def parse_finish(reason: str | None) -> Any:
        return finish_reason(_FINISH, reason)

    @staticmethod
    def parse_usage(raw: dict[str, Any] | None, previous: Usage | None = None) -> Usage | None:
        """Usage from ``raw``; in a stream, fields it lacks keep their ``previous`` value
        (message_start has the input tokens, message_delta the final output tokens)."""
        if not raw:
            return previous
        base = previous or Usage()
        inp = raw.get("input_tokens", base.input_tokens)
        out = raw.get("output_tokens", base.output_tokens)
        total = (inp or 0) + (out or 0) if inp is not None or out is not None else None
        return Usage(input_tokens=inp, output_tokens=out, total_tokens=total)

    def new_accumulator(self) -> AnthropicStreamAccumulator:
        return AnthropicStreamAccumulator(self)


def _all_results(content: Any) -> bool:
    return isinstance(content, list) and all(b.get("type") == "tool_result" for b in content)


class _Block:
    __slots__ = ("call_index", "id", "kind", "name", "parts")

    def __init__(self, kind: str, call_index: int = -1, id: str | None = None,
                 name: str | None = None) -> None:
        self.kind, self.call_index, self.id, self.name = kind, call_index, id, name
        self.parts: list[str] = []


class AnthropicStreamAccumulator(EndMarked):
    """Turns SSE lines into stream events, dispatching on the ``event:`` line.

    Blocks are keyed on their ``index``; a tool_use block is complete at its
    ``content_block_stop``, its arguments the join of every ``partial_json`` (none, or only
    ``""``, means no arguments: ``{}``).
    """

    end_marker = "'event: message_stop'"
    finish_name = "stop_reason"

    def __init__(self, adapter: AnthropicAdapter) -> None:
        self.adapter = adapter
        self.event: str | None = None
        self.blocks: dict[int, _Block] = {}
        self.calls = 0
        self.finish: str | None = None
        self.usage: Usage | None = None
        self.done = False

    def feed_line(self, line: str) -> Iterable[Any]:
        if line == "":
            self.event = None  # a blank line ends the event
            return ()
        if line.startswith("event:"):
            self.event = line[6:].strip()
            return ()
        if not line.startswith("data:") or self.done:
            return ()
        data = json.loads(line[5:].strip())
        return self.feed(self.event or data.get("type"), data)

    def feed(self, event: str | None, data: dict[str, Any]) -> list[Any]:
        if event == "error":
            error = data.get("error") or {}
            raise StreamError(str(error.get("message", error)), type=error.get("type"),
                              body=data, retryable=error.get("type") in RETRYABLE_TYPES)
        if event == "message_start":
            self.usage = self.adapter.parse_usage((data.get("message") or {}).get("usage"))
        elif event == "content_block_start":
            return self.start_block(data["index"], data.get("content_block") or {})
        elif event == "content_block_delta":
            return self.add_delta(data["index"], data.get("delta") or {})
        elif event == "content_block_stop":
            return self.stop_block(data["index"])
        elif event == "message_delta":
            self.finish = (data.get("delta") or {}).get("stop_reason") or self.finish
            self.usage = self.adapter.parse_usage(data.get("usage"), self.usage)
        elif event == "message_stop":
            self.done = True
            return [StreamDone(finish_reason=self.adapter.parse_finish(self.finish),
                               usage=self.usage)]
        return []  # ping, and event types added after this was written

    def start_block(self, index: int, block: dict[str, Any]) -> list[Any]:
        if block.get("type") == "tool_use":
            self.blocks[index] = _Block("tool_use", self.calls, block.get("id"),
                                        block.get("name"))
            self.calls += 1
            return [ToolCallDelta(index=self.blocks[index].call_index, id=block.get("id"),
                                  name=block.get("name"))]
        self.blocks[index] = _Block(str(block.get("type")))
        if block.get("type") in ("thinking", "redacted_thinking"):
            # the thinking text and the signature come as deltas; a redacted block is whole
            self.blocks[index].id = block.get("signature") or block.get("data") or ""
            self.blocks[index].parts.append(block.get("thinking") or "")
            return []
        if block.get("type") == "text" and block.get("text"):
            return [TextDelta(text=block["text"])]
        return []

    def add_delta(self, index: int, delta: dict[str, Any]) -> list[Any]:
        kind = delta.get("type")
        if kind == "text_delta":
            return [TextDelta(text=delta.get("text", ""))]
        if kind == "thinking_delta":
            self.blocks[index].parts.append(delta.get("thinking") or "")
            return []
        if kind == "signature_delta":
            self.blocks[index].id = (self.blocks[index].id or "") + (delta.get("signature") or "")
            return []
        if kind == "input_json_delta":
            block = self.blocks[index]
            piece = delta.get("partial_json") or ""
            block.parts.append(piece)
            return [ToolCallDelta(index=block.call_index, arguments_delta=piece)]
        return []

    def stop_block(self, index: int) -> list[Any]:
        block = self.blocks.get(index)
        if block is not None and block.kind == "thinking":
            return [ReasoningComplete(reasoning=Reasoning(
                type="thinking", text="".join(block.parts), signature=block.id or ""))]
        if block is not None and block.kind == "redacted_thinking":
            return [ReasoningComplete(reasoning=Reasoning(type="redacted_thinking",
                                                          signature=block.id or ""))]
        if block is None or block.kind != "tool_use":
            return []
        text = "".join(block.parts)
        parsed, error = parse_arguments(text)
        # parsed: the same ToolCall complete() builds from the input object; else the raw text
        # with the parse error, so that the loop can ask the model again
        call = ToolCall.from_raw(id=block.id, name=block.name or "",
                                 arguments=text if error else parsed)
        return [ToolCallComplete(call=call)]


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = AnthropicAdapter

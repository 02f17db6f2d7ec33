"""The reference OpenAI Responses adapter, on httpx: sync and async, complete and stream.

Two ids per call. A ``function_call`` output item has an item id (``fc_…``) and a ``call_id``
(``call_…``). The canonical :class:`~pytest_toolcall.core.model.ToolCall` id is the ``call_id``: it
is what the ``function_call_output`` must name. The item id has no canonical field, so the adapter
keeps it in :attr:`OpenAIResponsesAdapter.item_ids` (call_id -> fc_ id) as it parses responses, and
replays a call with ``id`` when it knows it. A call it never saw (a history built elsewhere, or
:func:`~pytest_toolcall.reference.request_body`, which has no adapter state) is replayed without
``id``: the API accepts that (31 of the 72 function_call items the wire corpus replays carry no
``id``), while an ``id`` that is not an ``fc`` id is refused.

Stream fragments name their call by ``item_id`` (the fc_ id), not by call_id nor by position:
the accumulator keys on ``item_id``, falling back to ``output_index``. Usage and status come from
``response.completed``; a stream that ends without it is an :class:`IncompleteStreamError`.
Each step is a small method so that negative controls can break exactly one of them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import httpx

from pytest_toolcall.core.errors import ProviderError, StreamError
from pytest_toolcall.core.model import (AssistantMessage, ChatRequest, ChatResponse,
                                        NamedToolChoice, Reasoning, ReasoningComplete, StreamDone,
                                        SystemMessage, TextDelta, ToolCall, ToolCallComplete,
                                        ToolCallDelta, ToolMessage, ToolSpec, Usage, UserMessage)
from pytest_toolcall.reference._http import RETRYABLE_TYPES, EndMarked, HttpxAdapter, tool_fields

__all__ = ["ADAPTER", "OpenAIResponsesAdapter", "PROFILE", "ResponsesStreamAccumulator"]

#: everything the Responses API has: every tool_choice, parallel_tool_calls, usage; and the
#: quirks of Responses-wire bridges (compatible_with '*')
PROFILE: dict[str, Any] = {"compatible_with": frozenset({"*"})}

_INCOMPLETE = {"max_output_tokens": "length", "content_filter": "content_filter"}


class OpenAIResponsesAdapter(HttpxAdapter):
    """Canonical requests to ``POST {base_url}/responses`` and back."""

    DEFAULT_MODEL = "gpt-4.1-mini"

    def __init__(self, base_url: str, api_key: str, *, model: str = DEFAULT_MODEL,
                 client: httpx.Client | None = None,
                 async_client: httpx.AsyncClient | None = None) -> None:
        self.url = base_url.rstrip("/") + "/responses"
        self.headers = {"authorization": f"Bearer {api_key}"}
        self.model = model
        self._client, self._async_client = client, async_client  # built on first use
        #: call_id -> the fc_ item id the provider gave the call (replayed as ``id``)
        self.item_ids: dict[str, str] = {}

    # -- canonical -> wire --------------------------------------------------------------------
    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        messages = list(request.messages)
        instructions = []
        while messages and isinstance(messages[0], SystemMessage):  # the leading system turns
            instructions.append(messages.pop(0).content)
        body: dict[str, Any] = {"model": request.model or self.model,
                                "input": [item for m in messages for item in self.encode_message(m)]}
        if instructions:
            body["instructions"] = "\n\n".join(instructions)
        body.update(tool_fields(self, request))
        if stream:
            body["stream"] = True
        return body

    def encode_tool(self, tool: ToolSpec) -> dict[str, Any]:
        # Responses makes strict default to true, which rewrites or refuses a schema written for
        # the chat default; strict=None (unset) is therefore sent as false
        return {"type": "function", "name": tool.name, "description": tool.description,
                "parameters": tool.parameters, "strict": bool(tool.strict)}

    def encode_tool_choice(self, choice: Any) -> Any:
        if isinstance(choice, NamedToolChoice):
            return {"type": "function", "name": choice.name}
        return choice

    def encode_message(self, message: Any) -> list[dict[str, Any]]:
        """The input items of one canonical message (an assistant turn may be several)."""
        if isinstance(message, (SystemMessage, UserMessage)):
            return [{"role": message.role, "content": message.content}]
        if isinstance(message, AssistantMessage):
            # reasoning items first, as they came, each followed by the items it preceded:
            # OpenAI wants them with the function call they came before
            items: list[dict[str, Any]] = [self.encode_reasoning(r) for r in message.reasoning
                                           if r.type == "reasoning"]
            rest: list[dict[str, Any]] = []
            if message.content or not message.tool_calls:
                rest.append({"role": "assistant", "content": message.content or ""})
            rest += [self.encode_call(c) for c in message.tool_calls]
            if items and not (rest and rest[0].get("id")):
                # a reasoning item must be followed by an item with its id ("Item 'rs_…' of
                # type 'reasoning' was provided without its required following item", wire
                # corpus): without the fc_ ids of this adapter's own answer, the reasoning
                # cannot go back, and OpenAI accepts the calls without it
                items = []
            return items + rest
        if isinstance(message, ToolMessage):
            return [self.encode_result(message)]
        raise TypeError(f"not a canonical message: {message!r}")

    @staticmethod
    def encode_reasoning(reasoning: Reasoning) -> dict[str, Any]:
        item: dict[str, Any] = {"type": "reasoning", "id": reasoning.id,
                                "summary": [{"type": "summary_text", "text": reasoning.text}]
                                if reasoning.text else []}
        if reasoning.signature is not None:
            item["encrypted_content"] = reasoning.signature
        return item

    @staticmethod
    def parse_reasoning(item: dict[str, Any]) -> Reasoning:
        summary = "".join(p.get("text", "") for p in item.get("summary") or ()
                          if isinstance(p, dict))
        return Reasoning(type="reasoning", id=item.get("id"), text=summary or None,
                         signature=item.get("encrypted_content"))

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        # arguments_json: "" becomes "{}" and non-ASCII stays as it is (no \\u escapes)
        item: dict[str, Any] = {"type": "function_call", "call_id": call.id, "name": call.name,
                                "arguments": call.arguments_json()}
        known = getattr(self, "item_ids", {}).get(call.id or "")
        if known:
            item["id"] = known
        return item

    def encode_result(self, message: ToolMessage) -> dict[str, Any]:
        return {"type": "function_call_output", "call_id": message.tool_call_id,
                "output": message.content}

    # -- wire -> canonical --------------------------------------------------------------------
    def parse_response(self, data: Any) -> ChatResponse:
        if not isinstance(data, dict) or not isinstance(data.get("output"), list):
            raise ProviderError(f"malformed response, no output list: {data!r:.200}")
        if data.get("status") == "failed":
            error = data.get("error") or {}
            raise ProviderError(str(error.get("message", "the response failed")),
                                code=error.get("code"), body=data)
        text: list[str] = []
        calls: list[ToolCall] = []
        reasoning: list[Reasoning] = []
        for item in data["output"]:
            if not isinstance(item, dict):
                continue
            if item.get("type") == "reasoning":
                reasoning.append(self.parse_reasoning(item))
            elif item.get("type") == "message":
                text += [p.get("text", "") for p in item.get("content") or ()
                         if isinstance(p, dict) and p.get("type") == "output_text"]
            elif item.get("type") == "function_call":
                calls.append(self.parse_call(item))
        return ChatResponse(text="".join(text) or None, tool_calls=tuple(calls),
                            finish_reason=self.parse_finish(data, bool(calls)),
                            usage=self.parse_usage(data.get("usage")), model=data.get("model"),
                            reasoning=tuple(reasoning))

    def parse_call(self, item: dict[str, Any]) -> ToolCall:
        self.remember_item_id(item)
        return ToolCall.from_raw(id=item.get("call_id"), name=item.get("name", ""),
                                 arguments=item.get("arguments"))

    def remember_item_id(self, item: dict[str, Any]) -> None:
        if item.get("call_id") and item.get("id"):
            self.item_ids[item["call_id"]] = item["id"]

    @staticmethod
    def parse_finish(response: dict[str, Any], has_calls: bool) -> Any:
        """Responses has no finish_reason: incomplete_details says why it stopped early."""
        if response.get("status") == "incomplete":
            reason = (response.get("incomplete_details") or {}).get("reason")
            return _INCOMPLETE.get(reason, "other")
        return "tool_calls" if has_calls else "stop"

    @staticmethod
    def parse_usage(raw: dict[str, Any] | None) -> Usage | None:
        if not raw:
            return None
        return Usage(input_tokens=raw.get("input_tokens"), output_tokens=raw.get("output_tokens"),
                     total_tokens=raw.get("total_tokens"))

    def new_accumulator(self) -> ResponsesStreamAccumulator:
        return ResponsesStreamAccumulator(self)


class _Item:
    __slots__ = ("call_id", "final", "item_id", "name", "pieces", "position")

    def __init__(self, position: int, item: dict[str, Any]) -> None:
        self.position = position
        self.item_id: str | None = item.get("id")
        self.call_id: str | None = item.get("call_id")
        self.name: str | None = item.get("name")
        self.pieces: list[str] = []
        self.final: str | None = None  # the arguments of the done events, when they come


class ResponsesStreamAccumulator(EndMarked):
    """Turns the SSE lines of a Responses stream into stream events.

    Function calls are keyed on the fragments' ``item_id`` (the fc_ id), then on
    ``output_index``: proxies have sent every item at output_index 0 (litellm #21331), and the
    call_id is only on the items, never on the fragments (openai-agents #4553).
    """

    end_marker = "response.completed"

    def __init__(self, adapter: OpenAIResponsesAdapter) -> None:
        self.adapter = adapter
        self.calls: list[_Item] = []
        self.by_key: dict[Any, _Item] = {}
        self.done = False

    def feed_line(self, line: str) -> Iterable[Any]:
        # the type is in the JSON too, so the ``event:`` lines are not needed
        if not line.startswith("data:") or self.done:
            return ()
        return self.feed(json.loads(line[5:].strip()))

    def feed(self, event: dict[str, Any]) -> list[Any]:
        kind = event.get("type")
        if kind == "error":
            raise StreamError(str(event.get("message")), code=event.get("code"), body=event,
                              retryable=event.get("code") in RETRYABLE_TYPES)
        if kind == "response.failed":
            error = (event.get("response") or {}).get("error") or {}
            raise StreamError(str(error.get("message", "the response failed")),
                              code=error.get("code"), body=event,
                              retryable=error.get("code") in RETRYABLE_TYPES)
        if kind == "response.output_item.added":
            item = event.get("item") or {}
            if item.get("type") == "function_call":
                self.start(event, item)
            return []
        if kind == "response.output_text.delta":
            return [TextDelta(text=event.get("delta", ""))] if event.get("delta") else []
        if kind == "response.function_call_arguments.delta":
            call = self.find(event)
            call.pieces.append(event.get("delta", ""))
            return [ToolCallDelta(index=call.position, arguments_delta=event.get("delta", ""))]
        if kind == "response.function_call_arguments.done":
            self.find(event).final = event.get("arguments")
            return []
        if kind == "response.output_item.done":
            item = event.get("item") or {}
            if item.get("type") == "reasoning":
                return [ReasoningComplete(reasoning=self.adapter.parse_reasoning(item))]
            if item.get("type") == "function_call":
                call = self.find(dict(event, item_id=item.get("id")))
                call.final = item.get("arguments")
                call.call_id = call.call_id or item.get("call_id")
                call.name = call.name or item.get("name")
            return []
        if kind in ("response.completed", "response.incomplete"):
            self.done = True
            return self.finish_events(event.get("response") or {})
        return []  # created, in_progress, content parts, reasoning...

    def start(self, event: dict[str, Any], item: dict[str, Any]) -> _Item:
        call = _Item(len(self.calls), item)
        self.calls.append(call)
        if call.item_id:
            self.by_key[call.item_id] = call
        self.by_key[("index", event.get("output_index"))] = call
        return call

    def find(self, event: dict[str, Any]) -> _Item:
        call = self.by_key.get(event.get("item_id")) if event.get("item_id") else None
        if call is None:
            call = self.by_key.get(("index", event.get("output_index")))
        if call is None:
            raise StreamError(f"a fragment for an output item never announced: {event!r:.200}")
        return call

    def finish_events(self, response: dict[str, Any]) -> list[Any]:
        events: list[Any] = []
        for call in self.calls:
            raw = call.final if call.final is not None else (
                "".join(call.pieces) if call.pieces else None)
            self.adapter.remember_item_id({"id": call.item_id, "call_id": call.call_id})
            events.append(ToolCallComplete(call=ToolCall.from_raw(
                id=call.call_id, name=call.name or "", arguments=raw)))
        events.append(StreamDone(finish_reason=self.adapter.parse_finish(response,
                                                                         bool(self.calls)),
                                 usage=self.adapter.parse_usage(response.get("usage"))))
        return events


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = OpenAIResponsesAdapter

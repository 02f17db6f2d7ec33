"""Negative controls for the openai-responses dialect: the reference Responses adapter with ONE
method overridden (stream bugs hand out an accumulator with one broken method). Each docstring names
the bug and, where there is one, its public source (WIRE.md §6). Above each, ``@fails`` names the
case that must fail it and the clause; the tables at the end collect them for
``tests/providers/test_controls.py``. """

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from provider_kit import BrokenStream, collected, fails

from pytest_toolcall.core.model import (
    AssistantMessage,
    ChatRequest,
    ChatResponse,
    ToolCall,
    ToolMessage,
)
from pytest_toolcall.providers.openai_responses.reference import (
    OpenAIResponsesAdapter,
    ResponsesStreamAccumulator,
    _Item,
)

__all__ = [
    "AllSystemIntoInstructions",
    "FirstMessageItemOnly",
    "ArgumentsFromDeltasOnly",
    "DropsReasoningItems",
    "EditsReasoningSummary",
    "IgnoresReasoningItems",
    "ReasoningAfterCalls",
    "StreamSkipsReasoningItems",
    "DropsTextNextToCalls",
    "SystemAsUserItem",
    "CallIdFromFragments",
    "DropsFunctionCallOutputs",
    "EndsOnLastItemDone",
    "FirstResponseWins",
    "IgnoresFailedEvent",
    "IgnoresFailedStatus",
    "IgnoresIncompleteEvent",
    "IgnoresIncompleteStatus",
    "IncompleteEventAsCompleted",
    "ItemIdAsCallId",
    "KeysOnOutputIndexOnly",
    "OutputIndexAsCallPosition",
    "OutputKeyedByItemId",
    "ReplaysCallIdAsItemId",
    "ReplaysWrongItemId",
    "StreamItemIdAsCallId",
    "TextTurnDropsCalls",
]


# == complete ====================================================================================


@fails("wire.responses_call_id_not_item_id", "response.tool_calls.id")
class ItemIdAsCallId(OpenAIResponsesAdapter):
    """The call's id is read from the item ``id`` (fc_…) instead of ``call_id``: the outputs of the
    next turn cannot be paired (CLIProxyAPI #5692 took an output item id for the call id)."""

    def parse_call(self, item: dict[str, Any]) -> ToolCall:
        self.remember_item_id(item)
        return ToolCall.from_raw(id=item.get("id"), name=item.get("name", ""),
                                 arguments=item.get("arguments"))


@fails("wire.responses_call_id_not_item_id", "request.input.function_call.id_prefix")
# a call from another provider has no fc_ item id; its call id is not one
@fails("wire.foreign_history", "request.input.function_call.id_prefix", table="SHARED_CONTROLS")
class ReplaysCallIdAsItemId(OpenAIResponsesAdapter):
    """The replayed function_call carries its call_id as item ``id``: \"Expected an ID that begins
    with 'fc'\" (nodetool PR #4252, sub2api PR #1505)."""

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        return dict(super().encode_call(call), id=call.id)


@fails("wire.responses_call_id_not_item_id", "wire.responses.item_id")
@fails("stream.responses_call_id_from_item", "wire.responses.item_id")
class ReplaysWrongItemId(OpenAIResponsesAdapter):
    """The fc_ ids are kept in a list, not by call_id: every replayed call gets the last one."""

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        item = super().encode_call(call)
        if self.item_ids:
            item["id"] = list(self.item_ids.values())[-1]
        return item


@fails("wire.responses_call_id_not_item_id", "request.input.function_call_output.orphan")
@fails("wire.responses_every_call_answered", "request.input.function_call_output.orphan")
class OutputKeyedByItemId(OpenAIResponsesAdapter):
    """The function_call_output names the fc_ item id, not the call_id: 'No tool call found for
    function call output with call_id fc_…' (agentscope-ai/AgentTeams #299)."""

    def encode_result(self, message: ToolMessage) -> dict[str, Any]:
        out = super().encode_result(message)
        out["call_id"] = self.item_ids.get(message.tool_call_id or "", "fc_" + str(message.tool_call_id))
        return out


@fails("wire.responses_every_call_answered", "request.input.function_call.unanswered")
class DropsFunctionCallOutputs(OpenAIResponsesAdapter):
    """Tool results are not translated to function_call_output items: 'No tool output found for
    function call call_X.' (CLIProxyAPI #2368, Roo-Code #12248)."""

    def encode_message(self, message: Any) -> list[dict[str, Any]]:
        if isinstance(message, ToolMessage):
            return []
        return super().encode_message(message)


@fails("wire.responses_every_call_answered", "request.input.function_call_output.orphan")
class TextTurnDropsCalls(OpenAIResponsesAdapter):
    """An assistant turn with text is replayed as its message only; its calls are lost and their
    outputs become orphans."""

    def encode_message(self, message: Any) -> list[dict[str, Any]]:
        items = super().encode_message(message)
        if getattr(message, "content", None) and getattr(message, "tool_calls", ()):
            return items[:1]
        return items


@fails("wire.responses_incomplete", "response.finish_reason")
class IgnoresIncompleteStatus(OpenAIResponsesAdapter):
    """The finish reason is read from the output alone: a response cut short by
    max_output_tokens (status incomplete) comes back as a finished answer, 'stop' (omlx PR
    #2817: an agent settled on the truncated turn)."""

    @staticmethod
    def parse_finish(response: dict[str, Any], has_calls: bool) -> Any:
        return "tool_calls" if has_calls else "stop"


@fails("wire.responses_failed", "error.surfaced")
class IgnoresFailedStatus(OpenAIResponsesAdapter):
    """The status of a complete response is not read: a failed response (status failed, empty
    output, error set) comes back as an empty success."""

    def parse_response(self, data: Any) -> ChatResponse:
        if isinstance(data, dict) and data.get("status") == "failed":
            data = dict(data, status="completed", error=None)
        return super().parse_response(data)


# == stream ======================================================================================


class _Broken(OpenAIResponsesAdapter):
    accumulator: type[ResponsesStreamAccumulator] = ResponsesStreamAccumulator

    def new_accumulator(self) -> ResponsesStreamAccumulator:
        return self.accumulator(self)


class _CallIdFromFragments(ResponsesStreamAccumulator):
    def feed(self, event: dict[str, Any]) -> list[Any]:
        if event.get("type") == "response.output_item.done":
            return []  # the done item would repair the call_id
        out = super().feed(event)
        if event.get("type") == "response.function_call_arguments.delta":
            self.find(event).call_id = event.get("call_id", "")
        return out

    def start(self, event: dict[str, Any], item: dict[str, Any]) -> _Item:
        call = super().start(event, item)
        call.call_id = None
        return call


@fails("stream.responses_call_id_from_item", "response.tool_calls.id")
class CallIdFromFragments(_Broken):
    """The call_id is read from the argument fragments, which carry none: the call completes with
    an empty call_id (openai-agents #4553)."""

    accumulator = _CallIdFromFragments


class _ItemIdAsCallId(ResponsesStreamAccumulator):
    def start(self, event: dict[str, Any], item: dict[str, Any]) -> _Item:
        call = super().start(event, item)
        call.call_id = call.item_id
        return call


@fails("stream.responses_call_id_from_item", "response.tool_calls.id")
class StreamItemIdAsCallId(_Broken):
    """Streamed calls take the fragments' item_id (fc_…) as their id."""

    accumulator = _ItemIdAsCallId


class _OnOutputIndexOnly(ResponsesStreamAccumulator):
    def start(self, event: dict[str, Any], item: dict[str, Any]) -> _Item:
        key = ("index", event.get("output_index"))
        if key in self.by_key:  # "the same index: the same call"
            return self.by_key[key]
        return super().start(dict(event), dict(item, id=None))

    def find(self, event: dict[str, Any]) -> _Item:
        return super().find({"output_index": event.get("output_index")})


# WIRE.md §6 on shared cases: litellm #21331, every parallel call on output_index 0
@fails("stream.index_stuck_at_zero", "response.tool_calls.count", table="SHARED_CONTROLS")
class KeysOnOutputIndexOnly(_Broken):
    """Calls are keyed on output_index alone: a server that puts every call at index 0 gets them
    merged (litellm #21331: the Responses bridge put every parallel call on index 0)."""

    accumulator = _OnOutputIndexOnly


class _IndexAsPosition(ResponsesStreamAccumulator):
    def find(self, event: dict[str, Any]) -> _Item:
        return self.calls[event["output_index"]]


@fails("stream.responses_output_index", "adapter.raised")
class OutputIndexAsCallPosition(_Broken):
    """output_index is taken for the position in the list of calls (``calls[output_index]``), but
    it counts every output item: with a text item at 0, the first fragment is out of range."""

    accumulator = _IndexAsPosition


class _FirstResponseWins(ResponsesStreamAccumulator):
    first: dict[str, Any] | None = None

    def feed(self, event: dict[str, Any]) -> list[Any]:
        if self.first is None and isinstance(event.get("response"), dict):
            self.first = event["response"]
        if event.get("type") == "response.completed":
            event = dict(event, response=self.first)
        return super().feed(event)


@fails("stream.responses_usage_from_completed", "response.usage")
class FirstResponseWins(_Broken):
    """The first event with a ``response`` (response.created: usage null) is taken as the final
    response."""

    accumulator = _FirstResponseWins


class _EndsOnItemsDone(ResponsesStreamAccumulator):
    def close(self) -> Iterable[Any]:
        if not self.done and self.calls and all(c.final is not None for c in self.calls):
            self.done = True
            return self.finish_events({})
        return super().close()


@fails("stream.responses_no_completed", "error.surfaced")
class EndsOnLastItemDone(_Broken):
    """When every item is done the stream counts as finished, response.completed or not."""

    accumulator = _EndsOnItemsDone


class _IgnoresFailed(ResponsesStreamAccumulator):
    def feed(self, event: dict[str, Any]) -> list[Any]:
        if event.get("type") == "response.failed":
            self.done = True
            return self.finish_events(event.get("response") or {})
        return super().feed(event)


@fails("stream.responses_failed_event", "error.surfaced")
class IgnoresFailedEvent(_Broken):
    """response.failed is read as the end of the stream, like response.completed: the partial
    output comes back as a success."""

    accumulator = _IgnoresFailed


class _WaitsForCompleted(ResponsesStreamAccumulator):
    def feed(self, event: dict[str, Any]) -> list[Any]:
        if event.get("type") == "response.incomplete":
            return []  # "only response.completed ends a stream"
        return super().feed(event)


@fails("stream.responses_incomplete_event", "adapter.raised")
class IgnoresIncompleteEvent(_Broken):
    """Only response.completed ends the stream: one that ends with response.incomplete
    (max_output_tokens, a content filter) is reported as cut off (langchain #33840 ignored the
    event)."""

    accumulator = _WaitsForCompleted


class _IncompleteAsCompleted(ResponsesStreamAccumulator):
    def feed(self, event: dict[str, Any]) -> list[Any]:
        if event.get("type") == "response.incomplete":
            event = dict(event, type="response.completed",
                         response=dict(event.get("response") or {}, status="completed"))
        return super().feed(event)


@fails("stream.responses_incomplete_event", "response.finish_reason")
class IncompleteEventAsCompleted(_Broken):
    """response.incomplete is read as response.completed: the stream ends, but a truncated
    answer comes back with finish 'stop' (the reason lost, as langchain #33840)."""

    accumulator = _IncompleteAsCompleted


class _ArgumentsFromDeltasOnly(ResponsesStreamAccumulator):
    def feed(self, event: dict[str, Any]) -> list[Any]:
        out = super().feed(event)
        if event.get("type") in ("response.function_call_arguments.done",
                                 "response.output_item.done"):
            for call in self.calls:
                call.final = None  # only the deltas count
        return out


@fails("stream.responses_arguments_in_done_only", "response.tool_calls.arguments")
class ArgumentsFromDeltasOnly(_Broken):
    """Arguments rebuilt from function_call_arguments.delta only: a stream that sends them whole
    in .done (no deltas) yields {} (issue 14)."""

    accumulator = _ArgumentsFromDeltasOnly


# == reasoning items (issue 13) ====================================================================


# issue 13: reasoning items travel with the calls they preceded
@fails("wire.responses_reasoning_replayed", "request.input.function_call.reasoning")
@fails("stream.responses_reasoning_replayed", "request.input.function_call.reasoning")
class DropsReasoningItems(OpenAIResponsesAdapter):
    """The history keeps messages and calls only: a reasoning model's calls go back with their
    fc_ ids but without the reasoning item before them (cline #12242, mastra #8738)."""

    def encode_message(self, message: Any) -> list[dict[str, Any]]:
        if isinstance(message, AssistantMessage):
            message = message.model_copy(update={"reasoning": ()})
        return super().encode_message(message)


@fails("wire.responses_reasoning_replayed", "request.input.function_call.reasoning")
class ReasoningAfterCalls(OpenAIResponsesAdapter):
    """The reasoning item is replayed after the function calls it preceded."""

    def encode_message(self, message: Any) -> list[dict[str, Any]]:
        items = super().encode_message(message)
        reasoning = [i for i in items if i.get("type") == "reasoning"]
        return [i for i in items if i.get("type") != "reasoning"] + reasoning


@fails("wire.responses_reasoning_replayed", "wire.reasoning.replayed")
class EditsReasoningSummary(OpenAIResponsesAdapter):
    """The reasoning item is rebuilt from the summary text alone: encrypted_content is lost."""

    def encode_message(self, message: Any) -> list[dict[str, Any]]:
        items = super().encode_message(message)
        return [{k: v for k, v in i.items() if k != "encrypted_content"} for i in items]


@fails("wire.responses_reasoning_replayed", "response.reasoning")
class IgnoresReasoningItems(OpenAIResponsesAdapter):
    """parse_response reads messages and function calls only; reasoning items are dropped."""

    def parse_response(self, data: Any) -> ChatResponse:
        return super().parse_response(data).model_copy(update={"reasoning": ()})


class _SkipsReasoningAccumulator(ResponsesStreamAccumulator):
    def feed(self, event: dict[str, Any]) -> list[Any]:
        item = event.get("item") or {}
        if item.get("type") == "reasoning":
            return []  # "only messages and calls matter"
        return super().feed(event)


@fails("stream.responses_reasoning_replayed", "response.reasoning")
class StreamSkipsReasoningItems(BrokenStream, OpenAIResponsesAdapter):
    """The stream accumulator skips every output item but messages and function calls."""

    accumulator = _SkipsReasoningAccumulator


# == messages (issue 12) ===========================================================================


@fails("wire.system_prompt", "wire.messages.system", table="SHARED_CONTROLS")
@fails("wire.developer_message", "wire.messages.system", table="SHARED_CONTROLS")
class SystemAsUserItem(OpenAIResponsesAdapter):
    """System messages become user input items; ``instructions`` is never sent."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        instructions = body.pop("instructions", None)
        for item in body["input"]:
            if item.get("role") in ("system", "developer"):
                item["role"] = "user"
        if instructions:
            body["input"].insert(0, {"role": "user", "content": instructions})
        return body


@fails("wire.system_prompts_several", "wire.messages.system", table="SHARED_CONTROLS")
class AllSystemIntoInstructions(OpenAIResponsesAdapter):
    """Every system message is joined into ``instructions``, also one added later in the
    conversation: it moves to the start."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        later = [i["content"] for i in body["input"] if i.get("role") in ("system", "developer")]
        body["input"] = [i for i in body["input"] if i.get("role") not in ("system",
                                                                              "developer")]
        if later:
            body["instructions"] = "\n\n".join(filter(None, [body.get("instructions"), *later]))
        return body


@fails("wire.assistant_text_with_calls_replayed", "wire.history.messages", table="SHARED_CONTROLS")
class DropsTextNextToCalls(OpenAIResponsesAdapter):
    """An assistant turn with calls is replayed as function_call items only; the assistant
    message item with its text is left out (issue 12)."""

    def encode_message(self, message: Any) -> list[dict[str, Any]]:
        items = super().encode_message(message)
        if isinstance(message, AssistantMessage) and message.tool_calls:
            items = [i for i in items if i.get("type") == "function_call"]
        return items


@fails("wire.responses_text_in_messages", "response.text")
class FirstMessageItemOnly(OpenAIResponsesAdapter):
    """Only the first message item of an answer is read: the text of the others is lost
    (openai/openai-java #625: two message items came, 'i am getting only first object')."""

    def parse_response(self, data: Any) -> ChatResponse:
        response = super().parse_response(data)
        texts = ["".join(p.get("text", "") for p in item.get("content") or ())
                 for item in data["output"] if item.get("type") == "message"]
        return response.model_copy(update={"text": texts[0] if texts else None})


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "openai-responses"
#: the path of every request the reference adapter sends
PATH = "/v1/responses"

#: (case id, broken adapter, the clause the case must name): the openai-responses cases
CONTROLS = collected(__name__)

#: the shared cases, each with a bug of the openai-responses wire it must catch there
SHARED_CONTROLS = collected(__name__, "SHARED_CONTROLS")

"""Negative controls for the ``anthropic`` dialect: the reference AnthropicAdapter, one thing broken.

Each class overrides ONE method of :class:`AnthropicAdapter` (stream bugs override
``new_accumulator`` to hand out an accumulator with one broken method); the docstring names the bug
and, where there is one, its public report (WIRE.md §6). Above each, ``@fails`` names the case that
must fail it and the clause; the tables at the end collect them for
``tests/providers/test_controls.py``. """

from __future__ import annotations

import json
from typing import Any

import httpx
from provider_kit import BrokenStream, collected, fails

from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import ProviderError
from pytest_toolcall.core.model import (
    AssistantMessage,
    ChatRequest,
    ChatResponse,
    Reasoning,
    ReasoningComplete,
    StreamDone,
    SystemMessage,
    ToolCall,
    ToolCallComplete,
    ToolMessage,
)
from pytest_toolcall.providers.anthropic.reference import (
    AnthropicAdapter,
    AnthropicStreamAccumulator,
    _Block,
)

__all__ = [
    "BlockIndexAsCallIndex",
    "FirstTextBlockOnly",
    "MergesConsecutiveThinking",
    "DropsRedactedThinking",
    "DropsThinking",
    "EditsThinking",
    "IgnoresThinkingBlocks",
    "ReordersThinking",
    "StreamIgnoresThinking",
    "ThinkingAfterToolUse",
    "DropsTextNextToToolUse",
    "EveryErrorRetryable",
    "FiveHundredsListOnly",
    "ForeignIdsVerbatim",
    "KeepsFirstSystemOnly",
    "MapsIdOnToolUseOnly",
    "OverloadedEventFinal",
    "SystemAsUserTurn",
    "SystemRoleInMessages",
    "CompletesOnlyBlocksWithDeltas",
    "DropsIsError",
    "EveryResultIsError",
    "IgnoresErrorEvent",
    "IsErrorAsString",
    "NoMessageStopCheck",
    "OneUserMessagePerResult",
    "ParallelBlocksMergedAtIndexZero",
    "ParallelFlagOnNone",
    "ParallelFlagOnlyOnAuto",
    "PingEndsBlock",
    "ReplaysZeroArgsAsEmptyString",
    "RequiredSpelledRequired",
    "StreamUnguardedJsonLoads",
    "TextBeforeResults",
    "UsageFromMessageDeltaOnly",
    "UsageFromMessageStartOnly",
]


# == history replay ================================================================================


@fails("wire.anthropic_tool_results_first", "request.messages.tool_use.unanswered")
class TextBeforeResults(AnthropicAdapter):
    """A user text after tool results is put first in their user message (hermes-agent PR
    #65369, qwen-code #8161): Anthropic answers 400 '`tool_use` ids were found without
    `tool_result` blocks immediately after'."""

    def encode_messages(self, messages: list[Any]) -> list[dict[str, Any]]:
        out = super().encode_messages(messages)
        for msg in out:
            if msg["role"] == "user" and isinstance(msg["content"], list):
                msg["content"].sort(key=lambda b: b["type"] == "tool_result")
        return out


@fails("wire.anthropic_results_one_message", "wire.anthropic.results_one_message")
class OneUserMessagePerResult(AnthropicAdapter):
    """Every canonical tool message becomes its own user message (a 1:1 role mapping)."""

    def encode_messages(self, messages: list[Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for message in messages:
            if isinstance(message, ToolMessage):
                out.append({"role": "user", "content": [self.encode_result(message)]})
            else:
                out += super().encode_messages([message])
        return out


@fails("wire.anthropic_is_error", "wire.anthropic.is_error")
class DropsIsError(AnthropicAdapter):
    """is_error is never sent: the model reads a failure as a result."""

    def encode_result(self, message: ToolMessage) -> dict[str, Any]:
        block = super().encode_result(message)
        block.pop("is_error", None)
        return block


@fails("wire.anthropic_is_error", "wire.anthropic.is_error")
class EveryResultIsError(AnthropicAdapter):
    """``is_error`` is set on every result (``"is_error": message.is_error is not None``)."""

    def encode_result(self, message: ToolMessage) -> dict[str, Any]:
        return dict(super().encode_result(message), is_error=True)


@fails("wire.anthropic_is_error", "request.type")
class IsErrorAsString(AnthropicAdapter):
    """is_error sent as the string "true" (copied from a text protocol): a 400."""

    def encode_result(self, message: ToolMessage) -> dict[str, Any]:
        block = super().encode_result(message)
        if message.is_error:
            block["is_error"] = "true"
        return block


@fails("stream.anthropic_zero_args_blocks", "request.type")
@fails("stream.zero_args", "request.type", table="SHARED_CONTROLS")
class ReplaysZeroArgsAsEmptyString(AnthropicAdapter):
    """``input: call.arguments or ""``: a zero-argument call is replayed with input "" (litellm
    #5063: arguments "" replayed; Anthropic wants an object)."""

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        return dict(super().encode_call(call), input=call.arguments or "")


# == tool_choice ===================================================================================


@fails("wire.anthropic_tool_choice_parallel", "request.tool_choice.type")
@fails("wire.tool_choice_required", "request.tool_choice.type", table="SHARED_CONTROLS")
class RequiredSpelledRequired(AnthropicAdapter):
    """'required' passed through as {type: required} (OpenAI's word): a 400."""

    def encode_tool_choice(self, choice: Any, parallel: bool | None) -> dict[str, Any] | None:
        out = super().encode_tool_choice(choice, parallel)
        if choice == "required" and out is not None:
            out["type"] = "required"
        return out


@fails("wire.anthropic_tool_choice_parallel", "wire.anthropic.tool_choice")
class ParallelFlagOnlyOnAuto(AnthropicAdapter):
    """disable_parallel_tool_use is only added when tool_choice is auto or unset."""

    def encode_tool_choice(self, choice: Any, parallel: bool | None) -> dict[str, Any] | None:
        if choice in (None, "auto"):
            return super().encode_tool_choice(choice, parallel)
        return super().encode_tool_choice(choice, None)


@fails("wire.anthropic_tool_choice_parallel", "request.tool_choice.none.extra")
class ParallelFlagOnNone(AnthropicAdapter):
    """disable_parallel_tool_use is added to every tool_choice, none included: a 400."""

    def encode_tool_choice(self, choice: Any, parallel: bool | None) -> dict[str, Any] | None:
        out = super().encode_tool_choice(choice, parallel)
        if out is not None and parallel is False:
            out["disable_parallel_tool_use"] = True
        return out


# == streams =======================================================================================


class _PingEndsBlock(AnthropicStreamAccumulator):
    def feed(self, event: str | None, data: dict[str, Any]) -> list[Any]:
        if event == "ping":  # "any other event ends the current block"
            open_blocks = [i for i, b in self.blocks.items() if b.kind == "tool_use"]
            out = []
            for index in open_blocks:
                out += self.stop_block(index)
                del self.blocks[index]
            return out
        if event == "content_block_delta" and data["index"] not in self.blocks:
            return []  # deltas of a block it already closed are dropped
        if event == "content_block_stop" and data["index"] not in self.blocks:
            return []
        return super().feed(event, data)


@fails("stream.anthropic_pings_everywhere", "response.tool_calls.arguments")
class PingEndsBlock(BrokenStream, AnthropicAdapter):
    """A state machine that closes the current tool_use block on any event other than a delta:
    a ping in the middle of a block cuts its arguments."""

    accumulator = _PingEndsBlock


class _ZeroIndex(AnthropicStreamAccumulator):
    def start_block(self, index: int, block: dict[str, Any]) -> list[Any]:
        if block.get("type") == "tool_use":
            first = next((b for b in self.blocks.values() if b.kind == "tool_use"), None)
            if first is not None:
                self.blocks[index] = first  # "index 0" again: the same buffer
                return []
        return super().start_block(index, block)

    def stop_block(self, index: int) -> list[Any]:
        return []

    def feed(self, event: str | None, data: dict[str, Any]) -> list[Any]:
        if event == "message_stop":
            seen: list[_Block] = []
            for block in self.blocks.values():
                if block.kind == "tool_use" and all(block is not b for b in seen):
                    seen.append(block)
            out: list[Any] = [ToolCallComplete(call=ToolCall.from_raw(
                id=b.id, name=b.name or "", arguments="".join(b.parts))) for b in seen]
            return out + super().feed(event, data)
        return super().feed(event, data)


@fails("stream.anthropic_parallel_blocks", "response.tool_calls.count")
@fails("stream.parallel_sequential", "response.tool_calls.count", table="SHARED_CONTROLS")
class ParallelBlocksMergedAtIndexZero(BrokenStream, AnthropicAdapter):
    """litellm #5231: every tool_use block mapped to index 0, so parallel calls merge into one
    call with the arguments of all of them."""

    accumulator = _ZeroIndex


class _BlockIndexAsCallIndex(AnthropicStreamAccumulator):
    def __init__(self, adapter: AnthropicAdapter) -> None:
        super().__init__(adapter)
        self.call_list: list[_Block] = []

    def start_block(self, index: int, block: dict[str, Any]) -> list[Any]:
        out = super().start_block(index, block)
        if block.get("type") == "tool_use":
            self.call_list.append(self.blocks[index])
        return out

    def add_delta(self, index: int, delta: dict[str, Any]) -> list[Any]:
        if delta.get("type") == "input_json_delta":
            self.call_list[index].parts.append(delta.get("partial_json") or "")
            return []
        return super().add_delta(index, delta)


@fails("stream.anthropic_parallel_blocks", "adapter.raised")
class BlockIndexAsCallIndex(BrokenStream, AnthropicAdapter):
    """The content-block index is used as the position in the list of calls: wrong as soon as
    a text block comes first (IndexError, or arguments on the wrong call)."""

    accumulator = _BlockIndexAsCallIndex


class _OnlyWithDeltas(AnthropicStreamAccumulator):
    def stop_block(self, index: int) -> list[Any]:
        block = self.blocks.get(index)
        if block is not None and not "".join(block.parts):
            return []
        return super().stop_block(index)


@fails("stream.anthropic_zero_args_blocks", "response.tool_calls.count")
class CompletesOnlyBlocksWithDeltas(BrokenStream, AnthropicAdapter):
    """A tool_use block is completed only when input_json_delta text arrived: zero-argument
    calls vanish (pydantic-ai #1654, litellm #5063)."""

    accumulator = _OnlyWithDeltas


class _UnguardedJson(AnthropicStreamAccumulator):
    def stop_block(self, index: int) -> list[Any]:
        block = self.blocks.get(index)
        if block is None or block.kind != "tool_use":
            return []
        arguments = json.loads("".join(block.parts))  # "" and '{"city":' raise
        return [ToolCallComplete(call=ToolCall(id=block.id, name=block.name or "",
                                               arguments=arguments))]


@fails("stream.anthropic_zero_args_blocks", "adapter.raised")
@fails("stream.zero_args", "adapter.raised", table="SHARED_CONTROLS")
@fails("stream.malformed_arguments", "adapter.raised", table="SHARED_CONTROLS")
class StreamUnguardedJsonLoads(BrokenStream, AnthropicAdapter):
    """json.loads on the joined partial_json with no guard: "" (a zero-argument call) and
    malformed text crash the stream (litellm #5063)."""

    accumulator = _UnguardedJson


class _IgnoresError(AnthropicStreamAccumulator):
    def feed(self, event: str | None, data: dict[str, Any]) -> list[Any]:
        return [] if event == "error" else super().feed(event, data)


@fails("stream.mid_stream_error", "error.message", table="SHARED_CONTROLS")
class IgnoresErrorEvent(BrokenStream, AnthropicAdapter):
    """``event: error`` is skipped like an unknown event: the stream ends without message_stop
    and the error's own message (overloaded_error...) is lost."""

    accumulator = _IgnoresError


class _NoStopCheck(AnthropicStreamAccumulator):
    def close(self) -> list[Any]:
        if self.done:
            return []
        return [StreamDone(finish_reason=self.adapter.parse_finish(self.finish),
                           usage=self.usage)]


@fails("stream.truncated", "error.surfaced", table="SHARED_CONTROLS")
class NoMessageStopCheck(BrokenStream, AnthropicAdapter):
    """A stream that breaks off before message_stop ends as if it had finished."""

    accumulator = _NoStopCheck


class _StartUsage(AnthropicStreamAccumulator):
    def feed(self, event: str | None, data: dict[str, Any]) -> list[Any]:
        if event == "message_delta":
            data = {k: v for k, v in data.items() if k != "usage"}
        return super().feed(event, data)


@fails("stream.anthropic_usage_split", "response.usage")
class UsageFromMessageStartOnly(BrokenStream, AnthropicAdapter):
    """Usage read from message_start only: output_tokens is its placeholder (1)."""

    accumulator = _StartUsage


class _DeltaUsage(AnthropicStreamAccumulator):
    def feed(self, event: str | None, data: dict[str, Any]) -> list[Any]:
        if event == "message_delta" and data.get("usage"):
            self.usage = None  # replaced, not merged: input_tokens is lost
        return super().feed(event, data)


@fails("stream.anthropic_usage_legacy_delta", "response.usage")
class UsageFromMessageDeltaOnly(BrokenStream, AnthropicAdapter):
    """Usage taken from message_delta alone: without input_tokens there, they are lost."""

    accumulator = _DeltaUsage


# == reasoning with tools (issue 13) ===============================================================


@fails("wire.anthropic_thinking_replayed", "request.messages.thinking.missing")
@fails("stream.anthropic_thinking_replayed", "request.messages.thinking.missing")
class DropsThinking(AnthropicAdapter):
    """Thinking blocks are not kept in the history (llama_index #18834 before its fix, haystack
    #2146): with thinking on, Anthropic answers 400 "Expected `thinking` ... found `tool_use`"."""

    def encode_assistant(self, message: AssistantMessage) -> dict[str, Any]:
        return super().encode_assistant(message.model_copy(update={"reasoning": ()}))


@fails("wire.anthropic_thinking_replayed", "request.messages.thinking.signature")
class ReordersThinking(AnthropicAdapter):
    """Thinking blocks are replayed in another order (a store that groups blocks by type):
    the signature is bound to the block's place, so Anthropic rejects it."""

    def encode_assistant(self, message: AssistantMessage) -> dict[str, Any]:
        return super().encode_assistant(message.model_copy(
            update={"reasoning": tuple(reversed(message.reasoning))}))


@fails("wire.anthropic_thinking_replayed", "request.messages.thinking.signature")
class EditsThinking(AnthropicAdapter):
    """The thinking text is normalised (stripped) before it is stored: any edit breaks the
    signature (anthropic-sdk-python #1598, hermes-agent #17890)."""

    def encode_assistant(self, message: AssistantMessage) -> dict[str, Any]:
        edited = tuple(r.model_copy(update={"text": (r.text or "").strip()}) if r.text else r
                       for r in message.reasoning)
        return super().encode_assistant(message.model_copy(update={"reasoning": edited}))


@fails("wire.anthropic_thinking_replayed", "wire.reasoning.replayed")
class DropsRedactedThinking(AnthropicAdapter):
    """Only readable thinking is kept; redacted_thinking (opaque data) is dropped as useless."""

    def encode_assistant(self, message: AssistantMessage) -> dict[str, Any]:
        kept = tuple(r for r in message.reasoning if r.type != "redacted_thinking")
        return super().encode_assistant(message.model_copy(update={"reasoning": kept}))


@fails("wire.anthropic_thinking_replayed", "request.messages.thinking.missing")
class ThinkingAfterToolUse(AnthropicAdapter):
    """The thinking blocks are appended after the tool_use blocks, not before them."""

    def encode_assistant(self, message: AssistantMessage) -> dict[str, Any]:
        out = super().encode_assistant(message)
        thinking = [b for b in out["content"] if b["type"] in ("thinking", "redacted_thinking")]
        rest = [b for b in out["content"] if b not in thinking]
        return dict(out, content=rest + thinking)


@fails("wire.anthropic_thinking_replayed", "response.reasoning")
class IgnoresThinkingBlocks(AnthropicAdapter):
    """parse_response reads text and tool_use blocks only; the thinking never reaches the
    caller, who cannot send it back."""

    def parse_response(self, data: Any) -> ChatResponse:
        return super().parse_response(data).model_copy(update={"reasoning": ()})


class _NoThinkingAccumulator(AnthropicStreamAccumulator):
    def stop_block(self, index: int) -> list[Any]:
        block = self.blocks.get(index)
        if block is not None and block.kind in ("thinking", "redacted_thinking"):
            return []  # "only text and tool_use matter"
        return super().stop_block(index)


@fails("stream.anthropic_thinking_replayed", "response.reasoning")
class StreamIgnoresThinking(BrokenStream, AnthropicAdapter):
    """The stream accumulator knows text and input_json deltas only: streamed thinking is lost
    (braintrust-sdk-javascript #1857 is the same loss for Mistral's thinking chunks)."""

    accumulator = _NoThinkingAccumulator


class _MergingAccumulator(AnthropicStreamAccumulator):
    """Holds thinking back and joins consecutive blocks into one (the last signature wins)."""

    held: tuple[Reasoning, ...] = ()

    def stop_block(self, index: int) -> list[Any]:
        events = super().stop_block(index)
        thinking = [e for e in events if isinstance(e, ReasoningComplete)
                    and e.reasoning.type == "thinking"]
        if thinking:
            self.held = (*self.held, *(e.reasoning for e in thinking))
            return [e for e in events if e not in thinking]
        if not self.held:
            return events
        merged = Reasoning(type="thinking", text="".join(r.text or "" for r in self.held),
                           signature=self.held[-1].signature)
        self.held = ()
        return [ReasoningComplete(reasoning=merged), *events]


@fails("stream.anthropic_consecutive_thinking", "response.reasoning")
class MergesConsecutiveThinking(BrokenStream, AnthropicAdapter):
    """Merges consecutive streamed thinking blocks into one, keeping the last signature: the
    merge that broke the signatures in NousResearch/hermes-agent #6112."""

    accumulator = _MergingAccumulator


# == messages (issue 12) ===========================================================================


@fails("wire.system_prompt", "wire.messages.system", table="SHARED_CONTROLS")
class SystemAsUserTurn(AnthropicAdapter):
    """The system prompt is sent as the first user message instead of the top-level
    ``system`` (sglang #367's "workaround" of trying a user message; the model then reads the
    instructions as the user's words)."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        system = body.pop("system", None)
        if system:
            body["messages"].insert(0, {"role": "user", "content": system})
        return body


@fails("wire.system_prompt", "request.messages.role.system", table="SHARED_CONTROLS")
class SystemRoleInMessages(AnthropicAdapter):
    """System messages are left in ``messages`` with role system, as in OpenAI's format:
    Anthropic answers 400 'Unexpected role "system"' (sglang #367, ChainForge #271)."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        system = body.pop("system", None)
        if system:
            body["messages"].insert(0, {"role": "system", "content": system})
        return body


@fails("wire.system_prompts_several", "wire.messages.system", table="SHARED_CONTROLS")
@fails("wire.developer_message", "wire.messages.system", table="SHARED_CONTROLS")
class KeepsFirstSystemOnly(AnthropicAdapter):
    """Only the first system message becomes ``system``; later ones are dropped (a
    ``system = messages[0]`` translation)."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        first = next((m.content for m in request.messages if isinstance(m, SystemMessage)), None)
        if first is not None:
            body["system"] = first
        return body


@fails("wire.assistant_text_with_calls_replayed", "wire.history.messages", table="SHARED_CONTROLS")
class DropsTextNextToToolUse(AnthropicAdapter):
    """An assistant turn with tool_use blocks is replayed as the blocks alone; its text block
    is lost (issue 12)."""

    def encode_assistant(self, message: AssistantMessage) -> dict[str, Any]:
        out = super().encode_assistant(message)
        if message.tool_calls:
            out["content"] = [b for b in out["content"] if b["type"] != "text"]
        return out


@fails("wire.anthropic_foreign_id_pattern", "request.messages.tool_use.id_pattern")
class ForeignIdsVerbatim(AnthropicAdapter):
    """Call ids from another provider are replayed as they are, also ones with characters
    Anthropic refuses: 400 on every request after a switch (earendil-works/pi #9048)."""

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        return dict(super().encode_call(call), id=call.id)

    def encode_result(self, message: ToolMessage) -> dict[str, Any]:
        return dict(super().encode_result(message), tool_use_id=message.tool_call_id)


@fails("wire.anthropic_foreign_id_pattern", "request.messages.tool_use.unanswered")
class MapsIdOnToolUseOnly(AnthropicAdapter):
    """Refused ids are mapped on the tool_use blocks but not on the tool_result blocks that
    answer them (the half fix of opencodex #1767's report: every place that writes an id must
    map it)."""

    def encode_result(self, message: ToolMessage) -> dict[str, Any]:
        return dict(super().encode_result(message), tool_use_id=message.tool_call_id)


# == errors (issue 12) =============================================================================


def _with(error: ProviderError, **fields: Any) -> ProviderError:
    values = {"status": error.status, "type": error.type, "code": error.code,
              "param": error.param, "body": error.body, "retry_after": error.retry_after,
              "retryable": error.retryable}
    values.update(fields)
    return type(error)(error.message, **values)


@fails("errors.overloaded", "errors.retryable", table="SHARED_CONTROLS")
class FiveHundredsListOnly(AnthropicAdapter):
    """Retryable means 429, 500, 502, 503 or 504, the list many clients copy: Anthropic's 529
    overloaded_error is treated as final, so every busy hour is an outage."""

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        try:
            super().raise_for_error(response, body)
        except ProviderError as error:
            raise _with(error, retryable=error.status in (429, 500, 502, 503, 504)) from None


@fails("errors.request_too_large", "errors.retryable")
class EveryErrorRetryable(AnthropicAdapter):
    """Every error is retryable: a 413 request_too_large is sent again, byte for byte."""

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        try:
            super().raise_for_error(response, body)
        except ProviderError as error:
            raise _with(error, retryable=True) from None


@fails("errors.in_stream", "errors.retryable", table="SHARED_CONTROLS")
class OverloadedEventFinal(AnthropicAdapter):
    """An ``event: error`` with overloaded_error in the middle of a 200 stream is raised as a
    final error: the request that Anthropic asks to send again never is."""

    def new_accumulator(self) -> AnthropicStreamAccumulator:
        acc = super().new_accumulator()
        feed = acc.feed

        def final(event: str | None, data: dict[str, Any]) -> Any:
            try:
                return feed(event, data)
            except ProviderError as error:
                raise _with(error, retryable=False) from None

        acc.feed = final  # type: ignore[method-assign]
        return acc


@fails("wire.anthropic_text_in_blocks", "response.text")
class FirstTextBlockOnly(AnthropicAdapter):
    """Only the first text block of an answer is read: the rest of the answer is lost
    (odysseus-dev/odysseus PR #1255: 'Anthropic responses with multiple text blocks lose all
    but the first')."""

    def parse_response(self, data: Any) -> ChatResponse:
        response = super().parse_response(data)
        texts = [b["text"] for b in data["content"] if b.get("type") == "text"]
        return response.model_copy(update={"text": texts[0] if texts else None})


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "anthropic"
#: the path of every request the reference adapter sends
PATH = "/v1/messages"
#: it claims anthropic_legacy_usage, so the legacy-shape case runs
PROFILE = Profile(anthropic_legacy_usage=True)

#: (case id, broken adapter, the clause the case must name): the anthropic cases
CONTROLS = collected(__name__)

#: the shared cases, each with a bug of the anthropic wire it must catch there (litellm #5063 and
#: #5231, WIRE.md §6, among them)
SHARED_CONTROLS = collected(__name__, "SHARED_CONTROLS")

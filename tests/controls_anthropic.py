"""Negative controls for the ``anthropic`` dialect: the reference AnthropicAdapter, one thing broken.

Each class overrides ONE method of :class:`AnthropicAdapter` (stream bugs override
``new_accumulator`` to hand out an accumulator with one broken method); the docstring names the
bug and, where there is one, its public report (WIRE.md §6).
"""

from __future__ import annotations

import json
from typing import Any

from pytest_toolcall.model import StreamDone, ToolCall, ToolCallComplete, ToolMessage
from pytest_toolcall.reference.anthropic import (
    AnthropicAdapter,
    AnthropicStreamAccumulator,
    _Block,
)

__all__ = [
    "BlockIndexAsCallIndex",
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


class DropsIsError(AnthropicAdapter):
    """is_error is never sent: the model reads a failure as a result."""

    def encode_result(self, message: ToolMessage) -> dict[str, Any]:
        block = super().encode_result(message)
        block.pop("is_error", None)
        return block


class EveryResultIsError(AnthropicAdapter):
    """``is_error`` is set on every result (``"is_error": message.is_error is not None``)."""

    def encode_result(self, message: ToolMessage) -> dict[str, Any]:
        return dict(super().encode_result(message), is_error=True)


class IsErrorAsString(AnthropicAdapter):
    """is_error sent as the string "true" (copied from a text protocol): a 400."""

    def encode_result(self, message: ToolMessage) -> dict[str, Any]:
        block = super().encode_result(message)
        if message.is_error:
            block["is_error"] = "true"
        return block


class ReplaysZeroArgsAsEmptyString(AnthropicAdapter):
    """``input: call.arguments or ""``: a zero-argument call is replayed with input "" (litellm
    #5063: arguments "" replayed; Anthropic wants an object)."""

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        return dict(super().encode_call(call), input=call.arguments or "")


# == tool_choice ===================================================================================


class RequiredSpelledRequired(AnthropicAdapter):
    """'required' passed through as {type: required} (OpenAI's word): a 400."""

    def encode_tool_choice(self, choice: Any, parallel: bool | None) -> dict[str, Any] | None:
        out = super().encode_tool_choice(choice, parallel)
        if choice == "required" and out is not None:
            out["type"] = "required"
        return out


class ParallelFlagOnlyOnAuto(AnthropicAdapter):
    """disable_parallel_tool_use is only added when tool_choice is auto or unset."""

    def encode_tool_choice(self, choice: Any, parallel: bool | None) -> dict[str, Any] | None:
        if choice in (None, "auto"):
            return super().encode_tool_choice(choice, parallel)
        return super().encode_tool_choice(choice, None)


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


class PingEndsBlock(AnthropicAdapter):
    """A state machine that closes the current tool_use block on any event other than a delta:
    a ping in the middle of a block cuts its arguments."""

    def new_accumulator(self) -> AnthropicStreamAccumulator:
        return _PingEndsBlock(self)


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


class ParallelBlocksMergedAtIndexZero(AnthropicAdapter):
    """litellm #5231: every tool_use block mapped to index 0, so parallel calls merge into one
    call with the arguments of all of them."""

    def new_accumulator(self) -> AnthropicStreamAccumulator:
        return _ZeroIndex(self)


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


class BlockIndexAsCallIndex(AnthropicAdapter):
    """The content-block index is used as the position in the list of calls: wrong as soon as
    a text block comes first (IndexError, or arguments on the wrong call)."""

    def new_accumulator(self) -> AnthropicStreamAccumulator:
        return _BlockIndexAsCallIndex(self)


class _OnlyWithDeltas(AnthropicStreamAccumulator):
    def stop_block(self, index: int) -> list[Any]:
        block = self.blocks.get(index)
        if block is not None and not "".join(block.parts):
            return []
        return super().stop_block(index)


class CompletesOnlyBlocksWithDeltas(AnthropicAdapter):
    """A tool_use block is completed only when input_json_delta text arrived: zero-argument
    calls vanish (pydantic-ai #1654, litellm #5063)."""

    def new_accumulator(self) -> AnthropicStreamAccumulator:
        return _OnlyWithDeltas(self)


class _UnguardedJson(AnthropicStreamAccumulator):
    def stop_block(self, index: int) -> list[Any]:
        block = self.blocks.get(index)
        if block is None or block.kind != "tool_use":
            return []
        arguments = json.loads("".join(block.parts))  # "" and '{"city":' raise
        return [ToolCallComplete(call=ToolCall(id=block.id, name=block.name or "",
                                               arguments=arguments))]


class StreamUnguardedJsonLoads(AnthropicAdapter):
    """json.loads on the joined partial_json with no guard: "" (a zero-argument call) and
    malformed text crash the stream (litellm #5063)."""

    def new_accumulator(self) -> AnthropicStreamAccumulator:
        return _UnguardedJson(self)


class _IgnoresError(AnthropicStreamAccumulator):
    def feed(self, event: str | None, data: dict[str, Any]) -> list[Any]:
        return [] if event == "error" else super().feed(event, data)


class IgnoresErrorEvent(AnthropicAdapter):
    """``event: error`` is skipped like an unknown event: the stream ends without message_stop
    and the error's own message (overloaded_error...) is lost."""

    def new_accumulator(self) -> AnthropicStreamAccumulator:
        return _IgnoresError(self)


class _NoStopCheck(AnthropicStreamAccumulator):
    def close(self) -> list[Any]:
        if self.done:
            return []
        return [StreamDone(finish_reason=self.adapter.parse_finish(self.finish),
                           usage=self.usage)]


class NoMessageStopCheck(AnthropicAdapter):
    """A stream that breaks off before message_stop ends as if it had finished."""

    def new_accumulator(self) -> AnthropicStreamAccumulator:
        return _NoStopCheck(self)


class _StartUsage(AnthropicStreamAccumulator):
    def feed(self, event: str | None, data: dict[str, Any]) -> list[Any]:
        if event == "message_delta":
            data = {k: v for k, v in data.items() if k != "usage"}
        return super().feed(event, data)


class UsageFromMessageStartOnly(AnthropicAdapter):
    """Usage read from message_start only: output_tokens is its placeholder (1)."""

    def new_accumulator(self) -> AnthropicStreamAccumulator:
        return _StartUsage(self)


class _DeltaUsage(AnthropicStreamAccumulator):
    def feed(self, event: str | None, data: dict[str, Any]) -> list[Any]:
        if event == "message_delta" and data.get("usage"):
            self.usage = None  # replaced, not merged: input_tokens is lost
        return super().feed(event, data)


class UsageFromMessageDeltaOnly(AnthropicAdapter):
    """Usage taken from message_delta alone: without input_tokens there, they are lost."""

    def new_accumulator(self) -> AnthropicStreamAccumulator:
        return _DeltaUsage(self)

"""Negative controls for the vLLM cases: the reference :class:`VLLMAdapter` with ONE thing broken
each; the docstring names the bug and its public report. Above each, ``@fails`` names the case that
must fail it and the clause; the tables at the end collect them for
``tests/providers/test_controls.py``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import controls_openai as _generic  # tests/providers/controls_openai.py
from provider_kit import BrokenStream, DecodesAsOpenAI, EncodesAsOpenAI, collected, fails

from pytest_toolcall.core.model import ChatRequest, ChatResponse
from pytest_toolcall.providers.openai.reference import StreamAccumulator
from pytest_toolcall.providers.vllm.reference import VLLMAdapter, VLLMStreamAccumulator

__all__ = ["DropsReasoning", "SendsReasoningContent", "ReasoningNotDecoded",
           "StreamReadsReasoningContentOnly", "SkipsFinishChunkDelta",
           "CallsOnlyOnToolCallsFinish", "EmptyToolsArray", "AlwaysStreamOptions",
           "SkipsErrorEvents", "RetriesEverything", "SplitsLinesLikeStr"]


@fails("wire.vllm_reasoning_replayed", "wire.vllm.reasoning_replayed")
@fails("stream.vllm_reasoning_replayed", "wire.vllm.reasoning_replayed")
class DropsReasoning(EncodesAsOpenAI, VLLMAdapter):
    """The plain OpenAI encoder: the reasoning never goes back, and the chat template of an
    interleaved-thinking model renders an empty thought (litellm PR #41380: hosted_vllm lost
    43% of a prompt)."""


@fails("wire.vllm_reasoning_replayed", "wire.vllm.reasoning_replayed")
class SendsReasoningContent(VLLMAdapter):
    """Sends the reasoning back as DeepSeek's ``reasoning_content``, which vLLM drops on input
    (vllm #38488; the Vercel AI SDK's openai-compatible provider sends this name)."""

    def encode_message(self, message: Any) -> dict[str, Any]:
        out = super().encode_message(message)
        if "reasoning" in out:
            out["reasoning_content"] = out.pop("reasoning")
        return out


@fails("wire.vllm_reasoning_replayed", "response.reasoning")
class ReasoningNotDecoded(DecodesAsOpenAI, VLLMAdapter):
    """The OpenAI decoder: message.reasoning is ignored, nothing can be replayed."""


class _ReasoningContentOnly(VLLMStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        for choice in data.get("choices") or ():
            piece = (choice.get("delta") or {}).get("reasoning_content")
            if isinstance(piece, str):
                self.reasoning = (self.reasoning or []) + [piece]
        return StreamAccumulator.feed(self, data)  # the reasoning reader left out


@fails("stream.vllm_reasoning_replayed", "response.reasoning")
class StreamReadsReasoningContentOnly(BrokenStream, VLLMAdapter):
    """Reads only ``delta.reasoning_content``, the name vLLM removed (dify-official-plugins
    #2740 on 0.17.1, llama_index #21075): the streamed thought is lost."""

    accumulator = _ReasoningContentOnly


class _FinishFirst(VLLMStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        choices = data.get("choices") or ()
        if choices and choices[0].get("finish_reason"):
            self.finish = choices[0]["finish_reason"]
            return []  # the finishing chunk's delta is never read
        return super().feed(data)


@fails("stream.vllm_arguments_on_finish_chunk", "response.tool_calls.arguments")
class SkipsFinishChunkDelta(BrokenStream, VLLMAdapter):
    """Handles a chunk with a finish_reason as the end and skips its delta: the arguments vLLM
    sends on the finish chunk are lost, the JSON is cut."""

    accumulator = _FinishFirst


class _CallsOnToolCallsFinish(VLLMStreamAccumulator):
    def finish_events(self) -> list[Any]:
        if self.finish != "tool_calls":
            self.slots = []
        return super().finish_events()


@fails("wire.vllm_named_choice_finish_stop", "response.tool_calls.count")
class CallsOnlyOnToolCallsFinish(VLLMAdapter):
    """Keeps tool calls only when finish_reason is 'tool_calls': a named tool_choice's call,
    which vLLM finishes with 'stop', disappears."""

    def parse_response(self, data: Any) -> ChatResponse:
        response = super().parse_response(data)
        if data["choices"][0].get("finish_reason") != "tool_calls":
            return response.model_copy(update={"tool_calls": ()})
        return response

    def new_accumulator(self) -> VLLMStreamAccumulator:
        return _CallsOnToolCallsFinish(self)


@fails("wire.vllm_no_empty_tools", "request.tools.empty")
class EmptyToolsArray(VLLMAdapter):
    """Always sends ``tools``, an empty list when there are none: vLLM's 400 '`tools` must not
    be an empty array' (penguin-harness 2026-07-22)."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        body.setdefault("tools", [])
        return body


@fails("wire.vllm_stream_options_only_when_streaming", "request.stream_options.without_stream")
class AlwaysStreamOptions(VLLMAdapter):
    """Sends ``stream_options.include_usage`` on every request: vLLM's 400 'Stream options can
    only be defined when `stream=True`.' on the calls that do not stream."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        body["stream_options"] = {"include_usage": True}
        return body


class _SkipsErrors(VLLMStreamAccumulator):
    def feed_event(self, data: Any) -> Iterable[Any]:
        if "error" in data:
            return ()  # no choices: nothing to read
        return super().feed_event(data)


@fails("stream.vllm_error_then_done", "error.surfaced")
class SkipsErrorEvents(BrokenStream, VLLMAdapter):
    """Reads chunks for their choices only: vLLM's error event has none, the [DONE] after it
    looks like a clean end, and the cut text comes back as the answer."""

    accumulator = _SkipsErrors


@fails("errors.vllm_auto_tool_choice_unconfigured", "errors.retryable")
class RetriesEverything(_generic.EveryErrorRetryable, VLLMAdapter):
    """Marks every provider error retryable: a server without a tool-call parser is asked again
    and again."""


@fails("stream.unicode_line_separators", "adapter.raised", table="STREAM_CONTROLS")
class SplitsLinesLikeStr(_generic.SplitsLinesLikeStr, VLLMAdapter):
    """Reads vLLM's stream with httpx's iter_lines, which also cuts at the U+2028 and U+2029
    that pydantic's model_dump_json leaves raw in vLLM's chunks (httpx-sse #34)."""


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "vllm"
#: the path of every request the reference adapter sends
PATH = "/v1/chat/completions"
#: the error kinds vLLM has: each one's case runs on its bodies with the generic error bugs; no
#: rate limit, quota or 403 at vLLM
ERROR_KINDS = {"auth", "model_not_found", "context_length", "server_error"}
#: the kinds whose body names no type or code, so the kind controls drop none there: vLLM's 401 is
#: {"error": "Unauthorized"}
UNNAMED_ERRORS = {"auth"}

#: (case id, broken adapter, the clause the case must name)
CONTROLS = collected(__name__)


#: shared cases whose stream shape vLLM sends, each with the bug it must catch there
STREAM_CONTROLS = collected(__name__, "STREAM_CONTROLS")

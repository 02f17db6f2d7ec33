"""The official ``anthropic`` SDK: ``messages.create`` and the stream helper
(``messages.stream`` + ``get_final_message``).

``shims.anthropic(lambda ep: anthropic.Anthropic(base_url=ep.base_url.removesuffix("/v1"),
api_key=ep.api_key, http_client=ep.httpx2_client(), max_retries=0))``: the SDK adds ``/v1``
itself, and anthropic 2.x runs on httpx2 (``ep.client`` is for 0.x/1.x).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Any

from pytest_toolcall.core.model import (
    ChatRequest,
    ChatResponse,
    Reasoning,
    ReasoningComplete,
    StreamDone,
    TextDelta,
    ToolCall,
    ToolCallComplete,
    Usage,
)
from pytest_toolcall.core.errors import ProviderError
from pytest_toolcall.shims._base import Shim, encoder, maps_errors, require, stainless_error

_FINISH = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls",
           "max_tokens": "length", "model_context_window_exceeded": "length",
           "refusal": "content_filter", "pause_turn": "other"}


class AnthropicShim(Shim):
    expected = "an anthropic.Anthropic client"

    @property
    def name(self) -> str:
        return "anthropic"

    def load(self) -> Any:
        return require("anthropic", "anthropic", "anthropic")

    def check(self, client: Any) -> None:
        if isinstance(client, self.module.AsyncAnthropic):
            raise self.wrong_kind(client, " (a sync client: this shim calls the sync API; "
                                          "async clients are not supported yet)")
        if not isinstance(client, self.module.Anthropic):
            raise self.wrong_kind(client)

    def adapter(self, client: Any) -> AnthropicShimAdapter:
        return AnthropicShimAdapter(client)


class AnthropicShimAdapter:
    def __init__(self, client: Any) -> None:
        self.client = client
        self.encoder = encoder("anthropic")

    def provider_error(self, exc: Exception) -> ProviderError | None:
        return stainless_error(self.client, importlib.import_module("anthropic"), exc)

    def kwargs(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = self.encoder.build_body(request, stream=stream)
        body.pop("stream", None)
        return body

    @maps_errors
    def complete(self, request: ChatRequest) -> ChatResponse:
        return self.read(self.client.messages.create(**self.kwargs(request, stream=False)))

    @maps_errors
    def stream(self, request: ChatRequest) -> Iterator[Any]:
        with self.client.messages.stream(**self.kwargs(request, stream=True)) as s:
            for event in s:
                if event.type == "text" and event.text:
                    yield TextDelta(text=event.text)
            message = s.get_final_message()
        response = self.read(message)
        for reasoning in response.reasoning:
            yield ReasoningComplete(reasoning=reasoning)
        for call in response.tool_calls:
            yield ToolCallComplete(call=call)
        yield StreamDone(finish_reason=response.finish_reason, usage=response.usage)

    @staticmethod
    def read(message: Any) -> ChatResponse:
        # a body that is no Message (not validated by default) has content None: the SDK hands
        # it over as a success, and so does the shim (issue 28)
        content = message.content or ()
        text = "".join(b.text for b in content if b.type == "text")
        calls = tuple(ToolCall.from_raw(id=b.id, name=b.name, arguments=b.input)
                      for b in content if b.type == "tool_use")
        usage = message.usage
        total = None
        if usage is not None and usage.input_tokens is not None \
                and usage.output_tokens is not None:
            total = usage.input_tokens + usage.output_tokens
        reason = message.stop_reason
        # thinking blocks, as the SDK hands them over, to be replayed unchanged (the encoder
        # puts them back before the tool_use they preceded)
        reasoning = tuple(
            Reasoning(type="thinking", text=b.thinking, signature=b.signature)
            if b.type == "thinking" else Reasoning(type="redacted_thinking", signature=b.data)
            for b in content if b.type in ("thinking", "redacted_thinking"))
        return ChatResponse(
            text=text or None, tool_calls=calls,
            finish_reason=None if reason is None else _FINISH.get(reason, "other"),
            usage=None if usage is None else Usage(input_tokens=usage.input_tokens,
                                                   output_tokens=usage.output_tokens,
                                                   total_tokens=total),
            model=message.model, reasoning=reasoning)

"""The official ``anthropic`` SDK: ``messages.create`` and the stream helper
(``messages.stream`` + ``get_final_message``).

``shims.anthropic(lambda ep: anthropic.Anthropic(base_url=ep.base_url.removesuffix("/v1"),
api_key=ep.api_key, http_client=ep.httpx2_client(), max_retries=0))``: the SDK adds ``/v1``
itself, and anthropic 2.x runs on httpx2 (``ep.client`` is for 0.x/1.x).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pytest_toolcall.core.model import (
    ChatRequest,
    ChatResponse,
    Reasoning,
    ToolCall,
    Usage,
)
from pytest_toolcall.shims._base import (
    ANTHROPIC_FINISH,
    Shim,
    StainlessAdapter,
    maps_errors,
)


class AnthropicShimAdapter(StainlessAdapter):
    sdk = dialect = "anthropic"

    @maps_errors
    def complete(self, request: ChatRequest) -> ChatResponse:
        return self.read(self.client.messages.create(**self.kwargs(request, stream=False)))

    @maps_errors
    def stream(self, request: ChatRequest) -> Iterator[Any]:
        yield from self.helper_stream(
            self.client.messages.stream(**self.kwargs(request, stream=True)),
            ("text", "text"), "get_final_message")

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
            finish_reason=None if reason is None else ANTHROPIC_FINISH.get(reason, "other"),
            usage=None if usage is None else Usage(input_tokens=usage.input_tokens,
                                                   output_tokens=usage.output_tokens,
                                                   total_tokens=total),
            model=message.model, reasoning=reasoning)


class AnthropicShim(Shim):
    expected = "an anthropic.Anthropic client"
    shim, requires = "anthropic", ("anthropic", "anthropic")
    client_class, async_class = "Anthropic", "AsyncAnthropic"
    adapter_class = AnthropicShimAdapter

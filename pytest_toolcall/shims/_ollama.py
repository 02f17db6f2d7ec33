"""The official ``ollama`` Python library: ``Client.chat`` (``stream=False`` and ``True``).

``shims.ollama(lambda ep: ollama.Client(host=ep.base_url, transport=ep.transport))``
(the library passes extra keyword arguments to its ``httpx.Client``; ``base_url`` is the host,
Ollama's paths start with ``/api``).
"""

from __future__ import annotations

import importlib
import uuid
from collections.abc import Iterator
from typing import Any

from pytest_toolcall.core.model import (
    ChatRequest,
    ChatResponse,
    StreamDone,
    TextDelta,
    ToolCall,
    ToolCallComplete,
    Usage,
)
from pytest_toolcall.core.errors import ProviderError
from pytest_toolcall.shims._base import Shim, encoder, maps_errors

_FINISH = {"stop": "stop", "length": "length"}


class OllamaShimAdapter:
    def __init__(self, client: Any) -> None:
        self.client = client
        self.encoder = encoder("ollama")

    def provider_error(self, exc: Exception) -> ProviderError | None:
        """``ollama.ResponseError`` as a ProviderError with its ``status_code``. ollama-python
        has no retry policy of its own (0.6.3, read 2026-11-24): ``retryable`` is what
        ProviderError derives from the status for any adapter that gives only a status."""
        ollama = importlib.import_module("ollama")
        if not isinstance(exc, ollama.ResponseError):
            return None
        status = exc.status_code if isinstance(exc.status_code, int) and exc.status_code > 0 \
            else None
        return ProviderError(str(exc.error), status=status)

    def kwargs(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = self.encoder.build_body(request, stream=stream)
        kwargs = {"model": body["model"], "messages": body["messages"], "stream": stream}
        if "tools" in body:
            kwargs["tools"] = body["tools"]
        return kwargs

    @maps_errors
    def complete(self, request: ChatRequest) -> ChatResponse:
        response = self.client.chat(**self.kwargs(request, stream=False))
        text, calls = self.message(response.message)
        return ChatResponse(text=text or None, tool_calls=tuple(calls),
                            finish_reason=self.finish(response.done_reason, bool(calls)),
                            usage=self.usage(response), model=response.model)

    @maps_errors
    def stream(self, request: ChatRequest) -> Iterator[Any]:
        calls: list[ToolCall] = []
        last = None
        for chunk in self.client.chat(**self.kwargs(request, stream=True)):
            text, chunk_calls = self.message(chunk.message)
            if text:
                yield TextDelta(text=text)
            calls += chunk_calls
            last = chunk
        for call in calls:
            yield ToolCallComplete(call=call)
        if last is not None and last.done:
            yield StreamDone(finish_reason=self.finish(last.done_reason, bool(calls)),
                             usage=self.usage(last))

    @staticmethod
    def message(message: Any) -> tuple[str, list[ToolCall]]:
        calls = []
        for call in message.tool_calls or ():
            # the library's ToolCall carries no id (0.6): one is made up, never sent back
            call_id = getattr(call, "id", None) or f"call_{uuid.uuid4().hex[:12]}"
            calls.append(ToolCall.from_raw(id=call_id, name=call.function.name,
                                           arguments=call.function.arguments))
        return message.content or "", calls

    @staticmethod
    def finish(reason: str | None, has_calls: bool) -> Any:
        if has_calls:
            return "tool_calls"  # Ollama says "stop" for a turn of calls
        if reason is None:
            return None
        return _FINISH.get(reason, "other")

    @staticmethod
    def usage(response: Any) -> Usage | None:
        if response.prompt_eval_count is None and response.eval_count is None:
            return None
        prompt, output = response.prompt_eval_count or 0, response.eval_count or 0
        return Usage(input_tokens=prompt, output_tokens=output, total_tokens=prompt + output)


class OllamaShim(Shim):
    expected = "an ollama.Client"
    shim, requires = "ollama", ("ollama", "ollama")
    client_class, async_class = "Client", "AsyncClient"
    adapter_class = OllamaShimAdapter

"""The official ``openai`` SDK: Chat Completions (``create`` and the stream helper) and Responses.

``shims.openai(lambda ep: openai.OpenAI(base_url=ep.base_url, api_key=ep.api_key,
http_client=ep.client, max_retries=0))`` (``max_retries=0``: the kit counts requests).
The SDK takes the wire shapes as they are, so the canonical request is encoded with the
reference encoder; the answer is read from the SDK's own objects, never from the raw body.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pytest_toolcall.core.errors import ProviderError
from pytest_toolcall.core.model import (
    ChatRequest,
    ChatResponse,
    Reasoning,
    TextDelta,
    ToolCall,
    Usage,
)
from pytest_toolcall.shims._base import (
    OPENAI_FINISH,
    Shim,
    StainlessAdapter,
    final_events,
    maps_errors,
)

_INCOMPLETE = {"max_output_tokens": "length", "content_filter": "content_filter"}


def _usage(raw: Any, inp: str, out: str) -> Usage | None:
    if raw is None:
        return None
    return Usage(input_tokens=getattr(raw, inp), output_tokens=getattr(raw, out),
                 total_tokens=raw.total_tokens)


class OpenAIChatShimAdapter(StainlessAdapter):
    """Chat Completions: ``complete`` is ``chat.completions.create``, ``stream`` is the SDK's
    stream helper (``chat.completions.stream`` + ``get_final_completion``)."""

    sdk = dialect = "openai"

    @maps_errors
    def complete(self, request: ChatRequest) -> ChatResponse:
        completion = self.client.chat.completions.create(**self.kwargs(request, stream=False))
        return self.read(completion)

    @maps_errors
    def stream(self, request: ChatRequest) -> Iterator[Any]:
        yield from self.helper_stream(
            self.client.chat.completions.stream(**self.kwargs(request, stream=True)),
            ("content.delta", "delta"), "get_final_completion")

    @staticmethod
    def read(completion: Any) -> ChatResponse:
        # the SDK does not validate a body by default: an answer without choices (a gateway's
        # error in a 200) is a ChatCompletion with choices None, handed over as a success, and
        # passed on as one (an empty answer); a shim adds no failure of its own (issue 28)
        choice = (completion.choices or [None])[0]
        message = getattr(choice, "message", None)
        calls = tuple(ToolCall.from_raw(id=c.id, name=c.function.name,
                                        arguments=c.function.arguments)
                      for c in getattr(message, "tool_calls", None) or ())
        finish = getattr(choice, "finish_reason", None)
        return ChatResponse(text=getattr(message, "content", None) or None, tool_calls=calls,
                            finish_reason=None if finish is None
                            else OPENAI_FINISH.get(finish, "other"),
                            usage=_usage(completion.usage, "prompt_tokens", "completion_tokens"),
                            model=completion.model)


class OpenAIResponsesShimAdapter(StainlessAdapter):
    """Responses: ``complete`` is ``responses.create``, ``stream`` is the SDK's stream helper
    (``responses.stream`` + ``get_final_response``)."""

    sdk, dialect = "openai", "openai-responses"

    def __init__(self, client: Any) -> None:
        super().__init__(client)
        self.encoder.item_ids = {}  # call_id -> the function_call item's id, replayed with it

    @maps_errors
    def complete(self, request: ChatRequest) -> ChatResponse:
        return self.read(self.client.responses.create(**self.kwargs(request, stream=False)))

    @maps_errors
    def stream(self, request: ChatRequest) -> Iterator[Any]:
        with self.client.responses.stream(**self.kwargs(request, stream=True)) as s:
            final = None
            for event in s:
                if event.type == "response.output_text.delta" and event.delta:
                    yield TextDelta(text=event.delta)
                elif event.type == "error":  # the SDK hands errors over as events
                    raise ProviderError(event.message, code=event.code, param=event.param)
                elif event.type in ("response.failed", "response.incomplete"):
                    final = event.response  # read below: failed raises, incomplete is length
            if final is None:
                final = s.get_final_response()
        yield from final_events(self.read(final))

    def read(self, response: Any) -> ChatResponse:
        if response.status == "failed":  # a failed response is the provider's error: surface it
            error = response.error
            raise ProviderError(getattr(error, "message", None) or "the response failed",
                                code=getattr(error, "code", None))
        text: list[str] = []
        calls: list[ToolCall] = []
        reasoning: list[Reasoning] = []
        # a body that is no Response (not validated by default) has output None: the SDK hands
        # it over as a success, and so does the shim (issue 28)
        for item in response.output or ():
            if item.type == "reasoning":  # replayed unchanged with the calls it preceded
                summary = "".join(p.text for p in item.summary or ())
                reasoning.append(Reasoning(type="reasoning", id=item.id, text=summary or None,
                                           signature=getattr(item, "encrypted_content", None)))
            elif item.type == "message":
                text += [p.text for p in item.content if p.type == "output_text"]
            elif item.type == "function_call":
                if item.id:
                    self.encoder.item_ids[item.call_id] = item.id
                calls.append(ToolCall.from_raw(id=item.call_id, name=item.name,
                                               arguments=item.arguments))
        if response.status == "incomplete":
            reason = getattr(response.incomplete_details, "reason", None)
            finish: Any = _INCOMPLETE.get(reason, "other")
        else:
            finish = "tool_calls" if calls else "stop"
        return ChatResponse(text="".join(text) or None, tool_calls=tuple(calls),
                            finish_reason=finish,
                            usage=_usage(response.usage, "input_tokens", "output_tokens"),
                            model=response.model, reasoning=tuple(reasoning))


class OpenAIShim(Shim):
    expected = "an openai.OpenAI client"
    shim, requires = "openai", ("openai", "openai")
    client_class, async_class = "OpenAI", "AsyncOpenAI"
    adapter_class: Any = OpenAIChatShimAdapter


class OpenAIResponsesShim(OpenAIShim):
    shim = "openai_responses"
    adapter_class = OpenAIResponsesShimAdapter

"""``litellm``: ``litellm.completion`` on its OpenAI, Anthropic and Gemini routes.

litellm is called as functions, not through a client object, so the factory returns the keyword
arguments of ``litellm.completion`` that pick the route and wire it to the kit's endpoint::

    shims.litellm(lambda ep: {
        "model": "anthropic/claude-sonnet-4-5", "api_base": ep.base_url.removesuffix("/v1"),
        "api_key": ep.api_key, "client": HTTPHandler(client=ep.client)})

``api_base``: ``ep.base_url`` on the ``openai/`` and ``gemini/`` routes (litellm appends
``/chat/completions`` and ``/models/{model}:generateContent``), without ``/v1`` on the
``anthropic/`` route (litellm appends ``/v1/messages``). On the ``gemini/`` route litellm sends
call ids back only for Gemini 3 and newer model names
(``VertexGeminiConfig.forward_gemini_function_call_id``): name a Gemini 3 model.

``client`` is how litellm takes a caller's HTTP client (``litellm.completion(..., client=...)``):
an ``openai.OpenAI`` client on the ``openai/`` route (litellm calls the openai SDK there), a
``litellm.llms.custom_httpx.http_handler.HTTPHandler`` around the endpoint's ``httpx.Client`` on
the ``anthropic/`` and ``gemini/`` routes (litellm posts with it). litellm ignores a client of
the other kind and opens its own connection, so the shim refuses one.

The canonical request goes in as litellm's input, the OpenAI Chat shape (the reference "openai"
encoder's messages, tools, tool_choice, parallel_tool_calls; a streamed request asks for usage
with ``stream_options``), with ``num_retries=0`` (the kit counts requests). Two things the OpenAI
shape has no field for travel the way litellm documents (docs.litellm.ai "reasoning_content",
"Thinking / Reasoning Content", confirmed 2026-11-25): ``ChatRequest.reasoning`` becomes
``thinking={"type": "enabled", "budget_tokens": 1024}`` (with ``max_tokens`` 2048, as the
reference Anthropic adapter sends), and an assistant turn's thinking blocks go back as the
message's ``thinking_blocks``; a Gemini turn's thoughtSignature (a signed entry without text) goes
on its first tool call's ``provider_specific_fields["thought_signature"]``, where litellm puts it
when it reads a Gemini call and reads it back (prompt_templates/factory.py
``get_thought_signature_from_tool``, 1.110.2). The answer is read from litellm's own
``ModelResponse``; a stream is litellm's ``CustomStreamWrapper``, its chunks rebuilt with
``litellm.stream_chunk_builder`` (what litellm documents for a streamed response as a whole).
Nothing is repaired.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator, Mapping
from typing import Any

from pytest_toolcall.core.errors import ProviderError, UsageError
from pytest_toolcall.core.model import (
    AssistantMessage,
    ChatRequest,
    ChatResponse,
    Reasoning,
    StreamDone,
    TextDelta,
    ToolCall,
    Usage,
)
from pytest_toolcall.shims._base import (
    OPENAI_FINISH,
    Shim,
    _inner,
    _str,
    encoder,
    final_events,
    gemini_signature,
    maps_errors,
    reasoning_origin,
    require,
    thinking_block,
)

#: route (the model's prefix, or ``custom_llm_provider``) -> the dialect of the fake it speaks
ROUTES = {"openai": "openai", "anthropic": "anthropic", "gemini": "gemini"}
#: completion() arguments the shim sets from the case's request
_RESERVED = ("messages", "tools", "tool_choice", "parallel_tool_calls", "stream",
             "stream_options", "num_retries", "thinking")
#: as the reference Anthropic adapter sends with ChatRequest.reasoning
THINKING_BUDGET = 1024
_HANDLER = "litellm.llms.custom_httpx.http_handler"

_EXAMPLE = ("e.g. `lambda ep: {'model': 'openai/gpt-4o-mini', 'api_base': ep.base_url, "
            "'api_key': ep.api_key, 'client': openai.OpenAI(base_url=ep.base_url, "
            "api_key=ep.api_key, http_client=ep.client, max_retries=0)}`")


def route_of(kwargs: Mapping[str, Any]) -> str:
    """The litellm route of ``kwargs``: ``custom_llm_provider``, else the model's prefix."""
    provider = kwargs.get("custom_llm_provider")
    if isinstance(provider, str) and provider:
        return provider
    model = kwargs.get("model")
    return model.split("/", 1)[0] if isinstance(model, str) and "/" in model else ""


class LiteLLMShim(Shim):
    expected = ("a dict of litellm.completion keyword arguments (model, api_base, api_key, "
                "client)")

    shim, requires = "litellm", ("litellm", "litellm")

    def load(self) -> Any:
        if "litellm" not in sys.modules:
            # litellm fetches its model cost map from GitHub when it is imported unless this is
            # set (litellm_core_utils/get_model_cost_map.py): a test run stays off the network.
            # An explicit setting of the variable wins.
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        return super().load()

    def check(self, kwargs: Any) -> None:
        if not isinstance(kwargs, Mapping):
            raise self.wrong_kind(kwargs, f" ({_EXAMPLE})")
        model = kwargs.get("model")
        if not isinstance(model, str) or not model:
            raise UsageError(
                "shims.litellm: the factory's dict has no 'model' (a str naming litellm's "
                f"route and the model, 'openai/gpt-4o-mini'); {_EXAMPLE}")
        route = route_of(kwargs)
        if route not in ROUTES:
            raise UsageError(
                f"shims.litellm: model {model!r} is not on a route the kit plays: prefix it with "
                f"one of {', '.join(r + '/' for r in ROUTES)} (route {route!r}; the fake speaks "
                "the OpenAI, Anthropic and Gemini wire formats)")
        taken = [k for k in _RESERVED if k in kwargs]
        if taken:
            raise UsageError(
                f"shims.litellm: the factory's dict sets {', '.join(map(repr, taken))}, which "
                "the shim sets from each case's request (num_retries=0: the kit counts "
                "requests); leave them out")
        client = kwargs.get("client")
        if client is None:
            raise UsageError(
                "shims.litellm: the factory's dict has no 'client', so litellm would open its "
                "own connection instead of the kit's endpoint. Pass "
                + self.client_hint(route))
        if not self.client_fits(route, client):
            raise UsageError(
                f"shims.litellm: 'client' is a {type(client).__module__}."
                f"{type(client).__qualname__}, which litellm ignores on the {route}/ route (it "
                "would open its own connection). Pass " + self.client_hint(route))

    @staticmethod
    def client_hint(route: str) -> str:
        if route == "openai":
            return ("client=openai.OpenAI(base_url=ep.base_url, api_key=ep.api_key, "
                    "http_client=ep.client, max_retries=0) (a sync client)")
        return f"client={_HANDLER}.HTTPHandler(client=ep.client)"

    def client_fits(self, route: str, client: Any) -> bool:
        if route == "openai":
            openai = require("openai", "litellm", "litellm")
            return isinstance(client, openai.OpenAI)
        handler = importlib.import_module(_HANDLER)
        return isinstance(client, handler.HTTPHandler)

    def __call__(self, endpoint: Any) -> Any:
        kwargs = self.factory(endpoint)
        self.check(kwargs)
        dialect = ROUTES[route_of(kwargs)]
        self.check_served(endpoint, dialect,
                          f"model {kwargs['model']!r} is on litellm's {dialect}/ route",
                          f"use the {getattr(endpoint, 'provider', None)}/ route")
        return self.adapter(kwargs)

    def adapter(self, kwargs: Any) -> LiteLLMShimAdapter:
        return LiteLLMShimAdapter(self.module, dict(kwargs))


class LiteLLMShimAdapter:
    """``complete`` is ``litellm.completion(stream=False)``; ``stream`` is
    ``litellm.completion(stream=True)``, its chunks' text as it comes and the whole rebuilt by
    ``litellm.stream_chunk_builder``."""

    def __init__(self, litellm: Any, kwargs: dict[str, Any]) -> None:
        self.litellm = litellm
        self.base = kwargs
        self.route = route_of(kwargs)
        self.encoder = encoder("openai")

    # -- canonical -> litellm's input ---------------------------------------------------------
    def kwargs(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = self.encoder.build_body(request, stream=stream)
        body.pop("model", None)  # the factory's model names the route
        body.pop("stream", None)  # said by each call
        for message, encoded in zip(request.messages, body["messages"]):
            if isinstance(message, AssistantMessage) and message.reasoning:
                wire = ROUTES[self.route]
                blocks = [thinking_block(r) for r in message.reasoning
                          if reasoning_origin(r, wire) != "gemini"]
                if blocks:
                    encoded["thinking_blocks"] = blocks
                signature = gemini_signature(message, wire)
                if signature and encoded.get("tool_calls"):
                    # where litellm keeps a Gemini call's signature and reads it back
                    encoded["tool_calls"][0]["provider_specific_fields"] = {
                        "thought_signature": signature}
        if request.reasoning:
            body["thinking"] = {"type": "enabled", "budget_tokens": THINKING_BUDGET}
            body.setdefault("max_tokens", THINKING_BUDGET * 2)
        return {**self.base, **body, "num_retries": 0}

    # -- errors --------------------------------------------------------------------------------
    def provider_error(self, exc: Exception) -> ProviderError | None:
        """litellm's exceptions (``litellm.exceptions``: RateLimitError, APIError, ... each with
        ``status_code``) as a ProviderError. ``retryable`` is litellm's own status policy,
        ``litellm._should_retry(status_code)`` (utils.should_retry: 408, 409, 429, >= 500);
        ``retry_after`` is litellm's own reading of the response's ``Retry-After``
        (``litellm.utils._get_retry_after_from_exception_header``). An error without an
        answer (``APIConnectionError`` and ``Timeout``, to which litellm gives a status of its
        own, 500 and 408, though no response came) keeps litellm's exception."""
        import openai  # litellm's exceptions subclass the openai SDK's

        status = getattr(exc, "status_code", None)
        if not isinstance(exc, openai.APIError) or isinstance(exc, openai.APIConnectionError) \
                or not isinstance(status, int):
            return None
        response = getattr(exc, "response", None)
        body = getattr(exc, "body", None)
        inner = _inner(body)
        should_retry = getattr(self.litellm, "_should_retry", None)
        headers = getattr(response, "headers", None)
        return ProviderError(
            str(getattr(exc, "message", None) or exc), status=status,
            type=_str(getattr(exc, "type", None) or inner.get("type") or inner.get("status")),
            code=_str(getattr(exc, "code", None) or inner.get("code")),
            param=_str(getattr(exc, "param", None) or inner.get("param")), body=body,
            retry_after=_retry_after(headers),
            retryable=bool(should_retry(status)) if callable(should_retry) else None)

    # -- calls ---------------------------------------------------------------------------------
    @maps_errors
    def complete(self, request: ChatRequest) -> ChatResponse:
        response = self.litellm.completion(**self.kwargs(request, stream=False), stream=False)
        return self.read(response)

    @maps_errors
    def stream(self, request: ChatRequest) -> Iterator[Any]:
        kwargs = self.kwargs(request, stream=True)
        wrapper = self.litellm.completion(**kwargs, stream=True)
        chunks = []
        try:
            for chunk in wrapper:
                chunks.append(chunk)
                for choice in chunk.choices or ():
                    text = getattr(choice.delta, "content", None)
                    if text:
                        yield TextDelta(text=text)
        finally:
            close = getattr(wrapper, "close", None)
            if callable(close):
                close()
        built = self.litellm.stream_chunk_builder(chunks, messages=kwargs["messages"])
        if built is None:  # no chunk at all: nothing litellm could build
            yield StreamDone(finish_reason=None, usage=None)
            return
        yield from final_events(self.read(built))

    # -- litellm's ModelResponse -> canonical -------------------------------------------------
    @staticmethod
    def read(response: Any) -> ChatResponse:
        choice = response.choices[0]
        message = choice.message
        calls = tuple(ToolCall.from_raw(id=c.id, name=c.function.name,
                                        arguments=c.function.arguments)
                      for c in message.tool_calls or ())
        finish = choice.finish_reason
        usage = getattr(response, "usage", None)
        return ChatResponse(
            text=message.content or None, tool_calls=calls,
            finish_reason=None if finish is None else OPENAI_FINISH.get(finish, "other"),
            usage=None if usage is None else Usage(input_tokens=usage.prompt_tokens,
                                                   output_tokens=usage.completion_tokens,
                                                   total_tokens=usage.total_tokens),
            model=response.model,
            reasoning=tuple(_reasoning(b) for b in getattr(message, "thinking_blocks", None)
                            or ()))


def _retry_after(headers: Any) -> float | None:
    if headers is None:
        return None
    utils = importlib.import_module("litellm.utils")
    read = getattr(utils, "_get_retry_after_from_exception_header", None)
    if not callable(read):
        return None
    value = read(headers)
    return float(value) if isinstance(value, (int, float)) and value >= 0 else None


def _reasoning(block: Any) -> Reasoning:
    get = block.get if isinstance(block, Mapping) else (lambda k: getattr(block, k, None))
    if get("type") == "redacted_thinking":
        return Reasoning(type="redacted_thinking", signature=get("data"))
    return Reasoning(type="thinking", text=get("thinking"), signature=get("signature"))

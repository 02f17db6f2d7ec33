"""pydantic-ai's models used directly as chat models (``Model.request`` / ``request_stream``),
without an ``Agent``: ``OpenAIChatModel``, ``OpenAIResponsesModel``, ``AnthropicModel``,
``GoogleModel`` or any other ``pydantic_ai.models.Model``.

``shims.pydantic_ai(lambda ep: OpenAIChatModel("gpt-4o-mini", provider=OpenAIProvider(
base_url=ep.base_url, api_key=ep.api_key, http_client=ep.httpx2_async_client()),
settings=ModelSettings(max_retries=0)))`` (``max_retries=0``: the kit counts requests; pydantic-ai
forwards it to the provider SDK's client, https://ai.pydantic.dev/api/settings).

pydantic-ai's models are async, so the adapter is an async one (``acomplete`` / ``astream``, the
kit's ``AsyncChatAdapter``): the kit runs them on its own event loop. The canonical request
becomes pydantic-ai's own input -- ``ModelRequest`` / ``ModelResponse`` messages, a
``ModelRequestParameters`` with the tools as ``ToolDefinition`` (the JSON schema unchanged) and
``ModelSettings`` for ``tool_choice`` and ``parallel_tool_calls`` (pydantic-ai's spelling: a named
choice is ``[name]``) -- and the model turns that into the provider's wire body: that is where
its defects show. The answer is read from pydantic-ai's ``ModelResponse`` (parts,
``finish_reason``, ``usage``), never from the raw body. It maps shapes and never repairs what
pydantic-ai got wrong.

What the adapter keeps between calls, as a pydantic-ai user keeps the ``ModelResponse`` in the
message history: each tool call's ``ToolCallPart`` fields the model needs to replay it (the
Responses item ``id``, Gemini's ``thought_signature`` in ``provider_details``), keyed by call id.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from pytest_toolcall.core.errors import (
    IncompleteStreamError,
    ProviderError,
    status_is_retryable,
)
from pytest_toolcall.core.model import (
    AssistantMessage,
    ChatRequest,
    ChatResponse,
    Reasoning,
    SystemMessage,
    TextDelta,
    ToolCall,
    ToolMessage,
    Usage,
    UserMessage,
)
from pytest_toolcall.shims._base import (GEMINI_WIRES, Shim, final_events, gemini_signature,
                                         reasoning_origin)

#: pydantic-ai's FinishReason (OpenTelemetry values, pydantic_ai/messages.py) -> canonical
_FINISH = {"stop": "stop", "length": "length", "content_filter": "content_filter",
           "tool_call": "tool_calls", "error": "error"}

#: the provider's own finish reasons that say only that the turn completed: the Responses API's
#: status ``completed`` and Gemini's ``STOP`` (neither API has a tool-call reason). pydantic-ai
#: keeps the raw value in ``provider_details["finish_reason"]`` and normalises both to 'stop'
#: (RESPONSES_FINISH_REASON_MAP in pydantic_ai/models/openai/_response_fields.py,
#: _FINISH_REASON_MAP in pydantic_ai/models/google.py); a turn of calls is then 'tool_calls', as
#: shims.openai_responses and shims.google_genai read the same raw values
_COMPLETED = frozenset({"completed", "STOP"})

#: the states of a finished stream in which pydantic-ai says the model did not finish
#: (``ModelResponseState``: 'incomplete' is "stopped before completion", 'interrupted' "cut off")
_CUT_OFF = frozenset({"incomplete", "interrupted"})

#: Anthropic's redacted thinking, as pydantic-ai records it (a ThinkingPart with this id and the
#: block's ``data`` as its signature: pydantic_ai/models/anthropic/__init__.py)
_REDACTED = "redacted_thinking"


#: the dialects of GoogleModel (the Gemini API, Google Cloud)
_GOOGLE = GEMINI_WIRES

#: the origin of a signed reasoning entry (``shims._base.reasoning_origin``) -> the
#: ``provider_name`` pydantic-ai's model for that wire stamps on the parts it reads (its
#: providers' ``name``: anthropic, google, openai; pydantic-ai 2.68.0)
_PROVIDER_NAMES = {"anthropic": "anthropic", "gemini": "google", "openai-responses": "openai"}


class PydanticAIModelShim(Shim):
    """``shims.pydantic_ai(factory)``: ``factory(endpoint)`` returns a pydantic-ai ``Model``."""

    expected = ("a pydantic_ai.models.Model instance (OpenAIChatModel, OpenAIResponsesModel, "
                "AnthropicModel, GoogleModel...) built on the endpoint")

    shim, requires = "pydantic_ai", ("pydantic_ai.models", "pydantic-ai")

    def check(self, client: Any) -> None:
        if isinstance(client, self.module.Model):
            return
        if isinstance(client, str):
            raise self.wrong_kind(client, (
                f" (the model name {client!r} would make pydantic-ai build a client for the real "
                "provider: build the model on the endpoint, e.g. OpenAIChatModel('gpt-4o-mini', "
                "provider=OpenAIProvider(base_url=ep.base_url, api_key=ep.api_key, "
                "http_client=ep.httpx2_async_client())))"))
        if isinstance(client, type) and issubclass(client, self.module.Model):
            raise self.wrong_kind(client, f" (the class {client.__name__} itself: return an "
                                          "instance built on the endpoint)")
        if type(client).__module__.split(".")[0] == "pydantic_ai" and \
                type(client).__name__.endswith("Provider"):
            raise self.wrong_kind(client, " (a provider: wrap it in its model, e.g. "
                                          "OpenAIChatModel('gpt-4o-mini', provider=...))")
        if type(client).__name__ == "Agent":
            raise self.wrong_kind(client, " (an Agent: return its model, or run the Agent "
                                          "loop under shims.pydantic_ai_agent)")
        raise self.wrong_kind(client)

    def __call__(self, endpoint: Any) -> Any:
        model = self.factory(endpoint)
        self.check(model)
        dialect = dialect_of(model)
        provider = getattr(endpoint, "provider", None)
        self.check_served(endpoint, dialect,
                          f"{type(model).__name__} speaks the {dialect!r} dialect",
                          f"build the model that speaks {provider!r}")
        return self.adapter(model)

    def adapter(self, client: Any) -> PydanticAIModelAdapter:
        return PydanticAIModelAdapter(client)


def dialect_of(model: Any) -> str | None:
    """The kit dialect a pydantic-ai model speaks (``None``: a model class the kit does not
    know, such as a FunctionModel or a wrapper, which is run on whatever the endpoint serves).
    Subclasses speak their base's dialect: OpenAI-compatible providers' models are
    ``OpenAIChatModel`` subclasses."""
    import importlib

    for module, name, dialect in _DIALECTS:
        try:
            cls = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):  # its provider SDK is not installed
            continue
        if isinstance(model, cls):
            if dialect == "gemini" and getattr(getattr(model, "client", None), "vertexai",
                                               False):
                return "vertex"
            return dialect
    return None


#: (module, model class, dialect), most specific first
_DIALECTS = (
    ("pydantic_ai.models.openai", "OpenAIResponsesModel", "openai-responses"),
    ("pydantic_ai.models.openai", "OpenAIChatModel", "openai"),
    ("pydantic_ai.models.anthropic", "AnthropicModel", "anthropic"),
    ("pydantic_ai.models.google", "GoogleModel", "gemini"),
)


class PydanticAIModelAdapter:
    """An async chat adapter over one pydantic-ai ``Model``: ``acomplete`` is
    ``model.request``, ``astream`` is ``model.request_stream`` (its events for the text,
    ``StreamedResponse.get()`` for the rest)."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.dialect = dialect_of(model)
        #: call id -> the ToolCallPart fields pydantic-ai needs to replay the call
        self.calls: dict[str, dict[str, Any]] = {}

    # -- the request ---------------------------------------------------------------------------
    def messages(self, request: ChatRequest) -> list[Any]:
        from pydantic_ai.messages import (
            ModelRequest,
            ModelResponse,
            SystemPromptPart,
            TextPart,
            ThinkingPart,
            ToolCallPart,
            ToolReturnPart,
            UserPromptPart,
        )

        system = self.model.system
        names: dict[str, str] = {}  # call id -> tool name, for results without a name
        unnamed: list[str] = []  # the ids pydantic-ai made up for calls without one
        out: list[Any] = []
        pending: list[Any] = []  # the parts of the ModelRequest being built

        def flush() -> None:
            if pending:
                out.append(ModelRequest(parts=list(pending)))
                pending.clear()

        for message in request.messages:
            if isinstance(message, SystemMessage):
                pending.append(SystemPromptPart(content=message.content))
            elif isinstance(message, UserMessage):
                pending.append(UserPromptPart(content=message.content))
            elif isinstance(message, ToolMessage):
                # a result without an id answers the next call without one, in order
                call_id = message.tool_call_id or (unnamed.pop(0) if unnamed else "")
                pending.append(ToolReturnPart(
                    tool_name=message.name or names.get(call_id, ""), content=message.content,
                    tool_call_id=call_id, outcome="failed" if message.is_error else "success"))
            elif isinstance(message, AssistantMessage):
                flush()
                parts: list[Any] = []
                # a Gemini turn's signature goes on its first call, where GoogleModel keeps the
                # one it read (ToolCallPart.provider_details["thought_signature"])
                carried = gemini_signature(message, self.dialect) if message.tool_calls \
                    else None
                for reasoning in message.reasoning:
                    origin = reasoning_origin(reasoning, self.dialect)
                    if carried and origin == "gemini":
                        continue
                    parts.append(ThinkingPart(
                        content=reasoning.text or "",
                        id=_REDACTED if reasoning.type == "redacted_thinking" else reasoning.id,
                        signature=reasoning.signature, provider_name=self.provider_of(origin)))
                if message.content:
                    parts.append(TextPart(content=message.content))
                for k, call in enumerate(message.tool_calls):
                    # the arguments as pydantic-ai held them when it read the call (the text the
                    # provider sent, or its object); the parsed object for a history written by
                    # hand
                    args = call.raw_arguments if call.raw_arguments is not None else call.arguments
                    kept = self.calls.get(call.id, {}) if call.id else {}
                    if k == 0 and carried and "provider_details" not in kept:
                        kept = {**kept, "provider_name": system,
                                "provider_details": {"thought_signature": carried}}
                    if call.id:
                        part = ToolCallPart(tool_name=call.name, args=args, tool_call_id=call.id,
                                            **kept)
                    else:  # no id: pydantic-ai makes one up, as when it reads such a call
                        part = ToolCallPart(tool_name=call.name, args=args, **kept)
                        unnamed.append(part.tool_call_id)
                    names[part.tool_call_id] = call.name
                    parts.append(part)
                out.append(ModelResponse(parts=parts, provider_name=system))
        flush()
        return out

    def provider_of(self, origin: str | None) -> str:
        """The ``provider_name`` of a ThinkingPart whose reasoning has the shape of ``origin``
        (``shims._base.reasoning_origin``): the model's own ``system`` for reasoning of its
        own wire (or unsigned), else the name pydantic-ai's model for that wire stamps on what
        it reads; pydantic-ai sends a signature back only to the provider that gave it
        (``Model.accepts_stateless_artifacts``)."""
        own = "gemini" if self.dialect in _GOOGLE else self.dialect
        if origin is None or origin == own:
            return str(self.model.system)
        return _PROVIDER_NAMES[origin]

    def parameters(self, request: ChatRequest) -> Any:
        from pydantic_ai.models import ModelRequestParameters
        from pydantic_ai.tools import ToolDefinition

        tools = [ToolDefinition(name=spec.name, parameters_json_schema=spec.parameters,
                                description=spec.description or None, strict=spec.strict)
                 for spec in request.tools]
        return ModelRequestParameters(function_tools=tools, allow_text_output=True)

    @staticmethod
    def settings(request: ChatRequest) -> Any:
        """``ModelSettings``: pydantic-ai's ``tool_choice`` ('auto', 'none', 'required', or a
        list of names that forces a call to one of them), ``parallel_tool_calls`` and the
        unified ``thinking`` (https://ai.pydantic.dev/api/settings)."""
        settings: dict[str, Any] = {}
        choice = request.tool_choice
        if choice is not None:
            settings["tool_choice"] = choice if isinstance(choice, str) else [choice.name]
        if request.parallel_tool_calls is not None:
            settings["parallel_tool_calls"] = request.parallel_tool_calls
        if request.reasoning is not None:
            settings["thinking"] = request.reasoning
        return settings or None

    # -- the calls -----------------------------------------------------------------------------
    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        try:
            response = await self.model.request(self.messages(request), self.settings(request),
                                                self.parameters(request))
        except Exception as exc:
            error = self.provider_error(exc)
            if error is None:
                raise
            raise error from exc
        return self.read(response)

    async def astream(self, request: ChatRequest) -> AsyncIterator[Any]:
        from pydantic_ai.messages import PartDeltaEvent, PartStartEvent, TextPart, TextPartDelta

        try:
            async with self.model.request_stream(self.messages(request), self.settings(request),
                                                 self.parameters(request)) as streamed:
                async for event in streamed:
                    if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
                        text = event.part.content
                    elif isinstance(event, PartDeltaEvent) and \
                            isinstance(event.delta, TextPartDelta):
                        text = event.delta.content_delta
                    else:
                        continue
                    if text:
                        yield TextDelta(text=text)
                final = streamed.get()
            if final.state in _CUT_OFF:
                # pydantic-ai's own word that the stream stopped before the model finished
                # (ModelResponse.state, pydantic_ai/messages.py): it marks it, it does not raise
                raise IncompleteStreamError(
                    f"pydantic-ai read the streamed response as {final.state!r}: the stream "
                    "stopped before the model finished")
        except IncompleteStreamError:
            raise
        except Exception as exc:
            error = self.provider_error(exc)
            if error is None:
                raise
            raise error from exc
        for event in final_events(self.read(final)):  # an async generator: no yield from
            yield event

    # -- the answer ----------------------------------------------------------------------------
    def read(self, response: Any) -> ChatResponse:
        from pydantic_ai.messages import TextPart, ThinkingPart, ToolCallPart

        text: list[str] = []
        calls: list[ToolCall] = []
        reasoning: list[Reasoning] = []
        for part in response.parts:
            if isinstance(part, TextPart):
                text.append(part.content)
            elif isinstance(part, ToolCallPart):
                kept = {k: v for k, v in (("id", part.id), ("provider_name", part.provider_name),
                                          ("provider_details", part.provider_details))
                        if v is not None}
                if kept:
                    self.calls[part.tool_call_id] = kept
                calls.append(ToolCall.from_raw(id=part.tool_call_id, name=part.tool_name,
                                               arguments=part.args))
            elif isinstance(part, ThinkingPart):
                item = self.reasoning(part)
                last = reasoning[-1] if reasoning else None
                if item.type == "reasoning" and last is not None and last.id == item.id:
                    # one Responses reasoning item, one ThinkingPart per summary (the same id,
                    # the signature on the first: pydantic_ai/models/openai/_reasoning.py)
                    reasoning[-1] = last.model_copy(update={
                        "text": ((last.text or "") + (item.text or "")) or None,
                        "signature": last.signature or item.signature})
                else:
                    reasoning.append(item)
        usage = response.usage
        finish = None if response.finish_reason is None else _FINISH.get(response.finish_reason,
                                                                         "other")
        raw = (response.provider_details or {}).get("finish_reason")
        if finish == "stop" and calls and raw in _COMPLETED:
            finish = "tool_calls"
        elif finish is None and isinstance(raw, str) and raw:
            finish = "other"  # a reason outside pydantic-ai's vocabulary, kept raw
        return ChatResponse(
            text="".join(text) or None, tool_calls=tuple(calls), finish_reason=finish,
            usage=None if usage is None else Usage(
                input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                total_tokens=usage.total_tokens),
            model=response.model_name, reasoning=tuple(reasoning))

    def reasoning(self, part: Any) -> Reasoning:
        """A ThinkingPart as the canonical reasoning of the model's dialect: a Responses
        ``reasoning`` item (its ``rs_`` id, its encrypted content as the signature), else
        Anthropic's blocks (``thinking`` / ``redacted_thinking``)."""
        if self.dialect == "openai-responses":
            return Reasoning(type="reasoning", id=part.id, text=part.content or None,
                             signature=part.signature)
        if part.id == _REDACTED:
            return Reasoning(type="redacted_thinking", signature=part.signature)
        return Reasoning(type="thinking", text=part.content, signature=part.signature)

    # -- errors --------------------------------------------------------------------------------
    @staticmethod
    def provider_error(exc: Exception) -> ProviderError | None:
        """pydantic-ai's ``ModelAPIError`` as a ProviderError: the status (``ModelHTTPError``),
        the provider's error type and code, the delay pydantic-ai read (``retry-after-ms``,
        ``Retry-After``, Google's ``RetryInfo``), and ``retryable`` from pydantic-ai's own
        category classes (pydantic_ai/exceptions.py, 2.68.0: a rate limit, an unavailable or
        overloaded provider and a server error can be retried; exhausted quota and a rejected
        request cannot). A broken connection or a timeout (``ModelConnectionError``) keeps
        pydantic-ai's exception, as the other shims keep their library's: no provider answered."""
        from pydantic_ai import exceptions as e

        if not isinstance(exc, e.ModelAPIError) or isinstance(exc, e.ModelConnectionError):
            return None
        retryable: bool | None = None
        if isinstance(exc, (e.ModelQuotaExceededError, e.ModelRequestRejectedError)):
            retryable = False
        elif isinstance(exc, (e.ModelRateLimitError, e.ModelUnavailableError,
                              e.ModelServerError)):
            retryable = True
        status = getattr(exc, "status_code", None)
        if isinstance(exc, e.ModelHTTPError) and exc.in_stream:
            # the stream's own status was 200: pydantic-ai's status_code is that of the same
            # error before a stream opens, which still says whether it can be retried
            if retryable is None:
                retryable = status_is_retryable(status)
            status = None
        return ProviderError(
            exc.message, status=status if isinstance(status, int) else None,
            type=exc.provider_error_type, code=exc.provider_error_code, body=exc.body,
            retry_after=exc.retry_after, retryable=retryable)

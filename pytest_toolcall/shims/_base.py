"""What every shim shares: the lazy import of its library, the factory call, the wire encoder.

A shim maps shapes and never repairs what its library got wrong: what the library hands back is
what the kit judges. The canonical request is turned into the library's own input with the
reference encoder of the dialect (the same bodies the reference adapters send, which are the
provider's documented shapes); everything after that is the library's doing.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from pytest_toolcall.core.errors import ProviderError, UsageError
from pytest_toolcall.core.model import ReasoningComplete, StreamDone, TextDelta, ToolCallComplete

if TYPE_CHECKING:
    from pytest_toolcall.core.model import AssistantMessage, ChatRequest, ChatResponse, Reasoning

#: the openai wire's ``finish_reason`` (Chat Completions, as the openai SDK and litellm hand it
#: over) -> canonical
OPENAI_FINISH = {"stop": "stop", "tool_calls": "tool_calls", "function_call": "tool_calls",
                 "length": "length", "content_filter": "content_filter"}
#: the anthropic wire's ``stop_reason`` -> canonical
ANTHROPIC_FINISH = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls",
                    "max_tokens": "length", "model_context_window_exceeded": "length",
                    "refusal": "content_filter", "pause_turn": "other"}


def require(module: str, extra: str, shim: str) -> Any:
    """Import ``module`` or say which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise UsageError(
            f"shims.{shim} needs the {module.split('.')[0]!r} package, which is not installed "
            f"({exc}). Install it with: pip install 'pytest-toolcall[{extra}]'") from None


def encoder(provider: str) -> Any:
    """A reference adapter used only for its encoders (``build_body`` needs no client)."""
    from pytest_toolcall.reference import _adapter_class

    cls = _adapter_class(provider)
    enc = cls.__new__(cls)
    enc.model = getattr(cls, "DEFAULT_MODEL", "toolcall-reference")
    return enc



#: shim name -> the dialect it speaks; None: the dialect of the client the factory builds, which
#: the shim checks against the endpoint's (``shims.SHIMS`` pairs each with its shim; kept here so
#: that a shim can name its own wire without importing the package that imports it)
SHIM_WIRES: dict[str, str | None] = {
    "openai": "openai",
    "openai_responses": "openai-responses",
    "anthropic": "anthropic",
    "google_genai": "gemini",
    "ollama": "ollama",
    "langchain": None,
    "litellm": None,
    "pydantic_ai": None,
}

class Shim:
    """``shims.<library>(factory)``: call it with the kit's endpoint to get the adapter.

    ``factory(endpoint)`` builds the library's client (or model) wired to the fake provider.
    """

    library = ""  #: the library, as the error messages name it
    expected = ""  #: what the factory must return, as the error messages name it
    shim = ""  #: ``shims.<shim>``, the shim's name (default: the class's name in lower case)
    #: what ``load`` imports and the extra that installs it
    requires: tuple[str, str] = ("", "")
    #: the class of that module the factory must return (``check``), and its async twin, which
    #: ``check`` refuses by name (the shim calls the sync API)
    client_class = ""
    async_class = ""
    #: what ``adapter`` makes of the client
    adapter_class: Callable[[Any], Any] | None = None

    def __init__(self, factory: Callable[[Any], Any]) -> None:
        if not callable(factory):
            raise UsageError(
                f"shims.{self.name}(factory): factory must be a callable taking the kit's "
                f"endpoint and returning {self.expected}, e.g. `lambda ep: ...`; got "
                f"{type(factory).__name__} {factory!r:.80}")
        self.factory = factory
        self.module = self.load()

    @property
    def name(self) -> str:
        return self.shim or type(self).__name__.lower()

    def load(self) -> Any:
        module, extra = self.requires
        return require(module, extra, self.name)

    def __call__(self, endpoint: Any) -> Any:
        self.check_wire(endpoint)
        client = self.factory(endpoint)
        self.check(client)
        return self.adapter(client)

    def check(self, client: Any) -> None:
        if self.async_class and isinstance(client, getattr(self.module, self.async_class)):
            raise self.wrong_kind(client, " (a sync client: this shim calls the sync API; async "
                                          "clients are not supported yet)")
        if not isinstance(client, getattr(self.module, self.client_class)):
            raise self.wrong_kind(client)

    def adapter(self, client: Any) -> Any:
        assert self.adapter_class is not None, f"{type(self).__name__} names no adapter_class"
        return self.adapter_class(client)

    def check_wire(self, endpoint: Any) -> None:
        """A shim of one wire (shims.anthropic) run for a provider of another
        (``--toolcall-provider=openai``) is a usage error before the factory runs, not the
        adapter's ``request.route`` failure (issue 35); a provider of the same wire
        (``groq`` for shims.openai) is served."""
        from pytest_toolcall.providers import REGISTRY

        wire = SHIM_WIRES.get(self.name)
        provider = getattr(endpoint, "provider", None)
        served = getattr(REGISTRY.get(provider), "dialect", None) if provider else None
        if wire is not None and served is not None and served != wire:
            raise UsageError(
                f"shims.{self.name} speaks the {wire!r} dialect, but this suite item runs for "
                f"{provider!r} (the {served!r} dialect); run with --toolcall-provider={wire}, "
                "or use the shim of that provider's library")

    def check_served(self, endpoint: Any, dialect: str | None, speaks: str, fix: str) -> None:
        """The client speaks ``dialect`` (``speaks`` says so in the error; None: unknown, run
        on whatever the endpoint serves): a UsageError when the endpoint serves another one,
        naming the option that fixes it and ``fix``, the other way."""
        provider = getattr(endpoint, "provider", None)
        if dialect is not None and provider is not None and dialect != provider:
            raise UsageError(
                f"shims.{self.name}: {speaks}, but this endpoint serves {provider!r}; run with "
                f"--toolcall-provider={dialect}, or {fix}")

    def wrong_kind(self, client: Any, why: str = "") -> UsageError:
        return UsageError(
            f"shims.{self.name}: the factory returned {type(client).__module__}."
            f"{type(client).__qualname__}, expected {self.expected}{why}")

    def __repr__(self) -> str:
        return f"shims.{self.name}({self.factory!r})"


def final_events(response: ChatResponse) -> Iterator[Any]:
    """The stream events of an answer the library hands over whole at the end of its stream
    (a stream helper's final message, chunks built into one): its reasoning, its calls, the end.
    """
    for reasoning in response.reasoning:
        yield ReasoningComplete(reasoning=reasoning)
    for call in response.tool_calls:
        yield ToolCallComplete(call=call)
    yield StreamDone(finish_reason=response.finish_reason, usage=response.usage)


def thinking_block(reasoning: Reasoning) -> dict[str, Any]:
    """A piece of reasoning as Anthropic's content block (``thinking`` with its signature, or
    ``redacted_thinking``), the shape LangChain and litellm carry Claude's thinking in."""
    if reasoning.type == "redacted_thinking":
        return {"type": "redacted_thinking", "data": reasoning.signature or ""}
    return {"type": "thinking", "thinking": reasoning.text or "",
            "signature": reasoning.signature or ""}


def reasoning_origin(reasoning: Reasoning, wire: str | None) -> str | None:
    """The wire whose shape a canonical reasoning entry has, for a library that keeps each
    provider's reasoning apart, on its way to ``wire`` (the dialect the library speaks):
    ``openai-responses`` (a reasoning item); ``gemini`` (a signature and no text, on its way to
    Gemini: its thoughtSignature, as the fake and the reference Gemini adapter hold it);
    ``anthropic`` (a signed thinking block, a redacted block; on the Anthropic wire a block
    without text too: Anthropic's ``display: "omitted"`` thinking); None for reasoning without
    a signature (DeepSeek's reasoning_content, a thought summary), which carries nothing a
    provider checks. The canonical model does not say which provider signed an entry: a
    text-less signed entry in a history sent to Gemini is taken for Gemini's, as the reference
    Gemini adapter takes it."""
    if reasoning.type == "reasoning":
        return "openai-responses"
    if not reasoning.signature:
        return None
    if reasoning.type == "thinking" and not reasoning.text and wire in GEMINI_WIRES:
        return "gemini"
    return "anthropic"


#: the dialects that read a Gemini thoughtSignature
GEMINI_WIRES = ("gemini", "vertex")


def gemini_signature(message: AssistantMessage, wire: str | None) -> str | None:
    """The thoughtSignature a Gemini model turn carries on its way to ``wire``
    (:func:`reasoning_origin` ``gemini``): it goes on the turn's first call, where Gemini and
    the libraries keep it."""
    return next((r.signature for r in message.reasoning
                 if reasoning_origin(r, wire) == "gemini"), None)


# -- loop shims: the factory of the framework's model ---------------------------------------------
def system_prompt(request: Any) -> str:
    """The text of the loop request's system (or developer) messages, for a framework that
    takes its instructions apart from the conversation ("" when there are none)."""
    return "\n\n".join(m.content for m in request.messages
                         if getattr(m, "role", None) in ("system", "developer") and m.content)


def model_factory(shim: str, model: Any, returns: str, example: str) -> Any:
    """A loop shim's ``model=``: None (the shim's default model) or a callable taking the kit's
    endpoint; anything else is a UsageError showing ``example``."""
    if model is not None and not callable(model):
        raise UsageError(
            f"shims.{shim}(model=...): model must be a callable taking the kit's endpoint and "
            f"returning {returns}, e.g. `{example}`; got {type(model).__name__}")
    return model


def built_model(shim: str, factory: Callable[[Any], Any], endpoint: Any, kind: type,
                expected: str) -> Any:
    """``factory(endpoint)``, which must be a ``kind``; a UsageError naming what it returned."""
    model = factory(endpoint)
    if not isinstance(model, kind):
        raise UsageError(
            f"shims.{shim}: the model factory returned {type(model).__module__}."
            f"{type(model).__qualname__}, expected {expected}")
    return model


class AgentLoop:
    """What the loop shims over an agent framework share: ``model`` (None: the shim's default
    model on the kit's endpoint; or a callable taking the endpoint and returning the framework's
    model) and ``profile`` (the policy the agent is configured to keep; default: the shim's)."""

    shim = ""  #: ``shims.<shim>``
    requires: tuple[str, str] = ("", "")  #: the framework's module, the extra that installs it
    #: what ``model`` must return, and a ``model`` that works, as the errors name them
    model_returns = ""
    model_example = ""
    #: the framework's model class (``module:Name``) that ``model`` must return, and how the
    #: error names it
    model_class = ""
    model_expected = ""
    default_profile: Any = None

    def __init__(self, model: Callable[[Any], Any] | None = None, profile: Any = None) -> None:
        self.model = model_factory(self.shim, model, self.model_returns, self.model_example)
        module, extra = self.requires
        require(module, extra, self.shim)
        self.profile = self.default_profile if profile is None else profile

    def build_model(self, endpoint: Any) -> Any:
        """What ``model`` builds on the endpoint, which must be a :attr:`model_class`; without
        ``model``, the shim's :meth:`default_model`."""
        if self.model is None:
            return self.default_model(endpoint)
        module, name = self.model_class.split(":")
        kind = getattr(importlib.import_module(module), name)
        return built_model(self.shim, self.model, endpoint, kind, self.model_expected)

    def default_model(self, endpoint: Any) -> Any:
        """The framework's model the shim builds on the endpoint when no ``model`` is given."""
        raise NotImplementedError


# -- errors: the library's exception as the canonical ProviderError ------------------------------
def maps_errors(method: Callable[..., Any]) -> Callable[..., Any]:
    """Raise what ``self.provider_error(exc)`` makes of the library's exception (a
    :class:`ProviderError`, with the library's exception as its ``__cause__``); an exception it
    does not map (``None``) propagates unchanged. Works on plain methods and generators."""
    def mapped(self: Any, exc: Exception) -> Exception | None:
        return self.provider_error(exc)

    if inspect.isgeneratorfunction(method):
        @functools.wraps(method)
        def generator(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                yield from method(self, *args, **kwargs)
            except Exception as exc:
                error = mapped(self, exc)
                if error is None:
                    raise
                raise error from exc
        return generator

    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except Exception as exc:
            error = mapped(self, exc)
            if error is None:
                raise
            raise error from exc
    return call


def _inner(body: Any) -> dict[str, Any]:
    """The error object of a provider's error body (``{"error": {...}}`` or the object)."""
    if isinstance(body, dict):
        inner = body.get("error")
        return inner if isinstance(inner, dict) else body
    return {}


def stainless_error(client: Any, module: Any, exc: Exception) -> ProviderError | None:
    """The official ``openai`` and ``anthropic`` SDKs (both generated by Stainless): an
    ``APIStatusError`` as a ProviderError that carries the SDK's own retry decision
    (``client._should_retry(response)``: ``x-should-retry``, then 408/409/429/5xx) and its own
    reading of the delay (``client._parse_retry_after_header``: ``retry-after-ms``, then
    ``Retry-After``) -- what the SDK would act on with ``max_retries`` above 0. Errors without a
    response (a broken connection, an error event inside a stream) keep the SDK's exception:
    the SDK makes no retry decision for them that a shim could report."""
    if not isinstance(exc, module.APIStatusError):
        return None
    response = exc.response
    inner = _inner(exc.body)
    should_retry = getattr(client, "_should_retry", None)
    parse_delay = getattr(client, "_parse_retry_after_header", None)
    return ProviderError(
        str(getattr(exc, "message", None) or exc), status=exc.status_code,
        type=_str(getattr(exc, "type", None) or inner.get("type")),
        code=_str(getattr(exc, "code", None) or inner.get("code")),
        param=_str(getattr(exc, "param", None) or inner.get("param")), body=exc.body,
        retry_after=parse_delay(response.headers) if callable(parse_delay) else None,
        retryable=bool(should_retry(response)) if callable(should_retry) else None)


class StainlessAdapter:
    """What the adapters over the official ``openai`` and ``anthropic`` SDKs share: the SDK takes
    the wire shapes as they are, so the request is the reference encoder's body of
    :attr:`dialect` (the SDK's entry point says whether it streams); the SDK's errors are read by
    :func:`stainless_error`."""

    sdk = ""  #: the SDK's module
    dialect = ""  #: the wire whose reference encoder builds the SDK's arguments

    def __init__(self, client: Any) -> None:
        self.client = client
        self.encoder = encoder(self.dialect)

    def provider_error(self, exc: Exception) -> ProviderError | None:
        return stainless_error(self.client, importlib.import_module(self.sdk), exc)

    def kwargs(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = self.encoder.build_body(request, stream=stream)
        body.pop("stream", None)  # the SDK entry point says it
        return body

    def helper_stream(self, helper: Any, text: tuple[str, str], final: str) -> Iterator[Any]:
        """What the SDK's stream ``helper`` (a context manager) hands over: the text of each
        event of type ``text[0]`` (in its attribute ``text[1]``), then the answer its ``final``
        method builds, read whole (:meth:`read`)."""
        kind, field = text
        with helper as events:
            for event in events:
                if event.type == kind and getattr(event, field):
                    yield TextDelta(text=getattr(event, field))
            answer = getattr(events, final)()
        yield from final_events(self.read(answer))  # type: ignore[attr-defined]


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


# -- typed tools: the path users write -----------------------------------------------------------
_JSON_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float,
                               "boolean": bool, "array": list, "object": dict}


def _annotation(tool: str, name: str, schema: Any) -> Any:
    """The Python type a user writes for one JSON-schema property: the enum as a ``Literal``,
    a ``pattern`` or a ``description`` as pydantic ``Field`` metadata."""
    from typing import Annotated, Literal

    from pydantic import Field

    schema = schema if isinstance(schema, dict) else {}
    if "enum" in schema:
        kind: Any = Literal[tuple(schema["enum"])]  # type: ignore[valid-type]
    elif schema.get("type") in _JSON_TYPES:
        kind = _JSON_TYPES[schema["type"]]
    else:
        raise UsageError(f"tool {tool!r}: parameter {name!r} has the schema {schema!r}, which "
                         "the typed tool of a loop shim cannot write as a Python type (one of "
                         f"{', '.join(_JSON_TYPES)}, or an enum)")
    meta = {key: schema[key] for key in ("pattern", "description") if key in schema}
    return Annotated[kind, Field(**meta)] if meta else kind  # type: ignore[call-overload]


def typed_tool(spec: Any, call: Callable[..., Any], *,
               leading: tuple[inspect.Parameter, ...] = ()) -> Callable[..., Any]:
    """A function (async when ``call`` is) typed as a user types a tool (``def
    get_weather(city: str, unit: Literal['celsius', 'fahrenheit'] | None = None)``) from the
    case's ``ToolSpec``, so that an
    agent framework builds its own argument schema and validator from the signature, as it does
    for the tools its users write. ``call(*leading_values, **arguments)`` runs it; an optional
    parameter the model did not send is left out of ``arguments`` (never sent as None).
    ``leading``: the framework's context parameters before the tool's own (its run context)."""
    properties = dict(spec.parameters.get("properties") or {})
    required = set(spec.parameters.get("required") or ())
    params = list(leading)
    for name, schema in properties.items():
        if not name.isidentifier() or name in {p.name for p in leading}:
            raise UsageError(f"tool {spec.name!r}: parameter {name!r} cannot be a Python "
                             "parameter name, so the typed tool of a loop shim cannot take it")
        kind = _annotation(spec.name, name, schema)
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=kind)
                      if name in required else
                      inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                        annotation=kind | None, default=None))
    optional = {name for name in properties if name not in required}
    names = [p.name for p in leading]

    def split(context: tuple[Any, ...], arguments: dict[str, Any]) -> tuple[Any, ...]:
        """The context values (a framework may pass them by name) and the tool's arguments."""
        context += tuple(arguments.pop(n, None) for n in names[len(context):])
        for key in [k for k in arguments if k in optional and arguments[k] is None]:
            del arguments[key]
        return context

    if inspect.iscoroutinefunction(call):
        async def function(*context: Any, **arguments: Any) -> str:
            return await call(*split(context, arguments), **arguments)  # type: ignore
    else:
        def function(*context: Any, **arguments: Any) -> str:  # type: ignore[misc]
            return call(*split(context, arguments), **arguments)  # type: ignore[no-any-return]

    function.__name__ = function.__qualname__ = spec.name
    function.__doc__ = spec.description or None
    function.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore
    function.__annotations__ = {**{p.name: p.annotation for p in params}, "return": str}
    return function


def with_events(result: Any, events: list[Any]) -> Any:
    """``result`` (a ``LoopResult``) carrying the events a framework showed its client, then
    how the run ended, as the client learns it: an ``error`` event for a run that failed (the
    framework raised), and ``done`` with the stop reason."""
    from pytest_toolcall.core.loop import LoopEvent

    shown = list(events)
    if result.stop_reason == "error":
        shown.append(LoopEvent(type="error", content=result.text or "error"))
    shown.append(LoopEvent(type="done", content=result.stop_reason))
    return result.model_copy(update={"events": tuple(shown)})

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
from collections.abc import Callable
from typing import Any

from pytest_toolcall.core.errors import ProviderError, UsageError


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


class Shim:
    """``shims.<library>(factory)``: call it with the kit's endpoint to get the adapter.

    ``factory(endpoint)`` builds the library's client (or model) wired to the fake provider.
    """

    library = ""  #: the library, as the error messages name it
    expected = ""  #: what the factory must return, as the error messages name it

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
        return type(self).__name__.lower()

    def load(self) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def __call__(self, endpoint: Any) -> Any:
        client = self.factory(endpoint)
        self.check(client)
        return self.adapter(client)

    def check(self, client: Any) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def adapter(self, client: Any) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def wrong_kind(self, client: Any, why: str = "") -> UsageError:
        return UsageError(
            f"shims.{self.name}: the factory returned {type(client).__module__}."
            f"{type(client).__qualname__}, expected {self.expected}{why}")

    def __repr__(self) -> str:
        return f"shims.{self.name}({self.factory!r})"


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

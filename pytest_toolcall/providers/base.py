"""What every provider's dialect shares: the ``Dialect`` protocol, ``Rejection`` and the lookup.

A dialect is the class the fake plays one provider with: which routes it serves, how to decode a
request into the canonical model, which requests the real provider rejects (with its exact error
body), and how to encode a scripted turn as the provider's JSON or stream. A built-in provider's
dialect is ``DIALECT`` in ``providers/<folder>/dialect.py``; a service's dialect subclasses the
dialect of the wire it speaks (``providers/openai/dialect.py`` for the OpenAI-compatible ones).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

from pytest_toolcall.cases import ErrorReply, Turn
from pytest_toolcall.core.errors import UsageError
from pytest_toolcall.core._names import PROVIDERS
from pytest_toolcall.core.model import ChatRequest

__all__ = ["DIALECT_NAMES", "Dialect", "ReferenceRules", "Rejection", "get_dialect", "judged",
           "note_breach", "noting_breaches", "register_class"]


@dataclass(frozen=True)
class Rejection:
    """A request the real provider would refuse: status, the exact error body, and the rule."""

    status: int
    body: Mapping[str, Any]
    rule: str

    @property
    def message(self) -> str:
        # the error object under "error" (OpenAI's shape), else the body itself (the services
        # that put the fields at the top level: Mistral, Cerebras)
        error = self.body.get("error", self.body)
        if isinstance(error, Mapping):
            return str(error.get("message", ""))
        return str(error)


#: the breaches noted while a request is judged (:func:`noting_breaches`), else None
_BREACHES: ContextVar[list[Rejection] | None] = ContextVar("toolcall_breaches", default=None)


@contextmanager
def noting_breaches() -> Iterator[list[Rejection]]:
    """Collect, while the block runs, the rules a dialect's ``validate`` found broken but let
    pass (issue 30: one of OpenAI's rules a service is not shown to enforce): the fake takes
    the request, and the kit reports the breach as hardening (clause ``request.unconfirmed``).
    Each is the rejection OpenAI would have sent, in OpenAI's shape and words."""
    noted: list[Rejection] = []
    token = _BREACHES.set(noted)
    try:
        yield noted
    finally:
        _BREACHES.reset(token)


def note_breach(found: Rejection) -> None:
    """Note ``found``, a rule broken but not enforced, where :func:`noting_breaches` collects
    (nowhere otherwise: whether the request is taken never depends on who listens)."""
    noted = _BREACHES.get()
    if noted is not None:
        noted.append(found)


class ReferenceRules:
    """A wire's reference dialect (OpenAI's Chat Completions, OpenAI's Responses): every one of
    its rules is its own (``enforces_all_rules``), and never inherited. A subclass (a service,
    a plugin's provider) sets it False unless it says otherwise: it enforces only its
    ``confirmed_rules`` and the unavoidable ones, and takes a request that breaks another,
    noting the breach (:func:`judged`)."""

    enforces_all_rules = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "enforces_all_rules" not in cls.__dict__:
            cls.enforces_all_rules = False


def judged(dialect: Any, found: Rejection, unavoidable: bool) -> Rejection | None:
    """``found`` (a rule of the wire's reference, OpenAI's) when ``dialect`` refuses it
    (``unavoidable``, or ``dialect.refuses(rule)``); else None, and the breach is noted unless
    the service is shown to take it (``dialect.lenient_rules``, bar ``lenient_in_part``): the
    checks go on past it (issue 30)."""
    if unavoidable or dialect.refuses(found.rule):
        return found
    if (found.rule not in dialect.lenient_rules
            or found.rule in getattr(dialect, "lenient_in_part", ())):
        note_breach(found)
    return None


class Dialect(Protocol):
    name: str
    title: str
    base_path: str
    stream_content_type: str

    def route(self, method: str, path: str) -> bool:
        """Whether this dialect serves ``method path`` (path without query)."""

    def check_auth(self, headers: Mapping[str, str], query: Mapping[str, str], key: str) -> Rejection | None: ...

    def wants_stream(self, body: Mapping[str, Any], path: str) -> bool: ...

    def validate(self, body: Any) -> Rejection | None:
        """The provider's own rejection of this request body, or ``None`` when it is accepted.
        A dialect whose rules depend on the model named in the path (Gemini 3's thought
        signatures) may also define ``validate_route(path, body)``; the fake calls it after
        ``validate`` (not part of the protocol: most dialects have none)."""

    def decode_request(self, body: Mapping[str, Any]) -> ChatRequest: ...

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]: ...

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        """The stream as a list of events, each the exact bytes of one event."""

    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]: ...

    def call_ids(self, turn: Turn) -> list[str]:
        """The ids the fake gives the turn's calls (scripted ids, or generated ones)."""

    def not_found(self, method: str, path: str) -> Rejection: ...


def halves(text: str) -> list[str]:
    """``text`` in two pieces, cut after the space nearest the middle (the whole when it is
    shorter than two characters): an answer's text as a provider splits it over two parts or
    blocks (Gemini's ``text_in_parts``, Anthropic's ``text_in_blocks``)."""
    if len(text) < 2:
        return [text] if text else []
    cut = text.find(" ", len(text) // 2) + 1 or len(text) // 2
    return [text[:cut], text[cut:]]


def _module(name: str) -> str:
    """The module of a built-in provider's dialect."""
    return f"pytest_toolcall.providers.{name.replace('-', '_')}.dialect"


def _available() -> tuple[str, ...]:
    from importlib.util import find_spec

    return tuple(name for name in PROVIDERS if find_spec(_module(name)) is not None)


#: every provider the fake can play: each built-in provider whose folder has a dialect, in
#: ``core._names.PROVIDERS`` order, then a plugin's
DIALECT_NAMES: tuple[str, ...] = _available()


#: dialects of providers that plugins added (pytest_toolcall.providers.plugins): name -> class
_PLUGIN_CLASSES: dict[str, type] = {}


def register_class(name: str, cls: type) -> None:
    """Offer ``name`` as a provider played by ``cls`` (a plugin's provider)."""
    global DIALECT_NAMES
    _PLUGIN_CLASSES[name] = cls
    if name not in DIALECT_NAMES:
        DIALECT_NAMES = (*DIALECT_NAMES, name)


def unregister_class(name: str) -> None:
    global DIALECT_NAMES
    _PLUGIN_CLASSES.pop(name, None)
    DIALECT_NAMES = tuple(n for n in DIALECT_NAMES if n != name or n in PROVIDERS)


#: built-in dialect name -> its class, once imported (the checks ask for a dialect per step)
_CLASSES: dict[str, type] = {}


def get_dialect(name: str) -> Dialect:
    """The dialect called ``name``; a usage error lists the valid names otherwise."""
    if name in _PLUGIN_CLASSES:
        return _PLUGIN_CLASSES[name]()  # type: ignore[no-any-return]
    if name in DIALECT_NAMES:
        found = _CLASSES.get(name)
        if found is None:
            from importlib import import_module

            found = _CLASSES[name] = import_module(_module(name)).DIALECT
        return found()  # type: ignore[no-any-return]
    raise UsageError(
        f"unknown provider {name!r}: valid providers are {', '.join(DIALECT_NAMES)}"
        + (" (or 'all')" if len(DIALECT_NAMES) > 1 else "")
    )

"""What a provider's negative controls declare, and what the tests of the providers share.

A provider is one folder, ``pytest_toolcall/providers/<folder>/``; its negative controls are in
``tests/providers/controls_<folder>.py``, this folder mirroring that one. Such a module holds the
broken adapters (each the provider's reference adapter with ONE thing broken, its docstring
naming the bug, and above it what it must fail: ``@fails(case id, clause)`` a case, with
``table="SHARED_CONTROLS"`` for a row of another table than ``CONTROLS``), then the data
``tests/providers/test_controls.py`` runs for every provider:

``PROVIDER``
    the provider's name: the fake the controls and the reference adapter run against.
``PATH``
    the path of every request the reference adapter sends (a glob: ``*`` matches any rest).
``CONTROLS``, ``SHARED_CONTROLS``, any other ``..._CONTROLS`` list
    the tables: rows of (case id, broken adapter, the clause the case must name), the module's
    own collected from its classes (``CONTROLS = collected(__name__)``, ``SHARED_CONTROLS =
    collected(__name__, "SHARED_CONTROLS")``); a row naming another module's class is written
    out after them (``CONTROLS = [*collected(__name__), ("errors.x", _generic.StatusLost,
    "errors.status")]``). ``CONTROLS`` holds the rows of the provider's own cases (at least
    one each, and no other case); the other tables the rows of cases it shares (``SHARED_CONTROLS``: the bugs of its wire and its
    error bodies that shared cases catch; ``openai``'s ``GENERIC_CONTROLS``: the cases every
    provider runs). A control must fail on the sync interface, which runs first; a table whose
    name starts with ``ASYNC_`` holds bugs of the async path only: the sync interface passes it,
    the async one must fail. A row may name a generic bug of ``controls_openai.py`` (a mixin
    over the OpenAI adapter, e.g. ``_generic.StatusLost``): it runs on the provider's reference
    adapter.

and, where the provider needs them:

``PROFILE``
    the profile the controls and the reference run under (default:
    ``reference_profile(PROVIDER)``).
``ERROR_KINDS``
    the error kinds the provider has (``providers.errors.kinds_for``): each kind case that
    runs for it then runs on its bodies with the generic error bugs of ``controls_openai.py``,
    each to be caught: the retry decision inverted, the status lost, the type and code dropped.
``UNNAMED_ERRORS``
    the kinds whose body has no type or code (no name the last bug could drop).
``ROUTES``
    other ways to reach the fake, by name: a :class:`Route` each, with the reference cases run
    there and, where it has one, its own table of controls.
``PINNED``
    ``{case id: (clause, reason)}``: cases the reference adapter fails, a known gap of the kit.
``check_sent(body)``
    what the reference adapter must (not) send the provider, asserted on every request body.

The ``@fails`` rows and the tables of this layout are what the real-bug catalogue
(``pytest_toolcall/cases/bugs.py``) reads, without importing the module.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from pytest_toolcall.cases import default_registry
from pytest_toolcall.core.model import ChatResponse
from pytest_toolcall.providers import get
from pytest_toolcall.providers.deepseek.reference import DeepSeekStreamAccumulator
from pytest_toolcall.providers.errors import RETRYABLE_KINDS
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.providers.fake.provider import Endpoint
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter


@dataclasses.dataclass(frozen=True)
class Route:
    """Another way to reach a provider's fake than its reference adapter's default: another
    URL (a version prefix, a compatible API), another adapter or adapter argument."""

    #: the path of every request sent this way (a glob)
    path: str
    #: the reference cases run this way (globs over the chat cases of ``dialect``)
    cases: tuple[str, ...] = ("*",)
    #: the wire whose cases run this way (default: the provider's own)
    dialect: str | None = None
    #: the adapter sent this way (default: the provider's reference adapter) and its arguments
    adapter: type | None = None
    adapter_kwargs: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    #: the fake's base URL made this route's
    base_url: Callable[[str], str] | None = None
    #: the profile (default: the provider's)
    profile: Any = None
    #: where every answer is a stream: bytes its body carries (how the route frames a stream)
    stream_marker: bytes | None = None
    #: the table of the controls that run this way (a ``..._CONTROLS`` list of the module)
    controls: list[tuple[str, type, str]] | None = None


def fails(case_id: str, clause: str, *, table: str = "CONTROLS") -> Callable[[type], type]:
    """Declares on a negative control a case that must fail it and the clause the case must
    name: a row of the module's ``table`` (``CONTROLS`` unless said), which
    :func:`collected` gathers. Stacked, one a case; the rows keep their top-to-bottom order."""

    def declare(cls: type) -> type:
        rows = [(table, case_id, clause), *cls.__dict__.get("__fails__", ())]
        cls.__fails__ = rows  # type: ignore[attr-defined]
        return cls

    return declare


def collected(module: str, table: str = "CONTROLS") -> list[tuple[str, type, str]]:
    """The rows of ``table`` that the classes ``module`` has defined so far declare with
    :func:`fails`, in the order of the classes: (case id, broken adapter, clause)."""
    return [(case_id, cls, clause) for cls in list(vars(sys.modules[module]).values())
            if isinstance(cls, type) and cls.__module__ == module
            for name, case_id, clause in cls.__dict__.get("__fails__", ()) if name == table]


def declared_tables(cls: type) -> set[str]:
    """The tables ``cls`` declares rows of with :func:`fails` (itself, not its bases)."""
    return {table for table, _, _ in cls.__dict__.get("__fails__", ())}


class BrokenStream:
    """A negative control's stream reader is ``accumulator``, a broken accumulator class:
    ``class Control(BrokenStream, Adapter): accumulator = _Broken`` stands for overriding
    ``new_accumulator`` to return ``_Broken(self)``."""

    accumulator: type

    def new_accumulator(self) -> Any:
        return self.accumulator(self)


# -- the same broken method in several providers' controls: the control names the mixin ----------
# ``class ReasoningAsText(ReasoningInText, XAIAdapter): """what it breaks there"""``

class DecodesAsOpenAI:
    """Decodes the answer with the plain OpenAI decoder (the provider's own fields ignored)."""

    def parse_response(self, data: Any) -> ChatResponse:
        return OpenAIChatAdapter.parse_response(self, data)  # type: ignore[arg-type]


class EncodesAsOpenAI:
    """Encodes each message with the plain OpenAI encoder (the provider's own fields dropped)."""

    def encode_message(self, message: Any) -> dict[str, Any]:
        return OpenAIChatAdapter.encode_message(self, message)  # type: ignore[arg-type]


class ReasoningInText:
    """Folds the decoded chain of thought into the answer's text; :attr:`keeps_reasoning`
    False also drops it from ``reasoning``."""

    keeps_reasoning = True

    def parse_response(self, data: Any) -> ChatResponse:
        response = super().parse_response(data)  # type: ignore[misc]
        thought = "".join(r.text or "" for r in response.reasoning)
        update: dict[str, Any] = {"text": thought + (response.text or "")}
        if not self.keeps_reasoning:
            update["reasoning"] = ()
        return response.model_copy(update=update)


class ReasoningOnlyInText(ReasoningInText):
    """The chain of thought moves into the answer's text: ``reasoning`` is empty."""

    keeps_reasoning = False


class _UsageFromEmptyChoicesOnly:
    def feed(self, data: dict[str, Any]) -> list[Any]:
        if data.get("choices"):
            data = {k: v for k, v in data.items() if k != "usage"}
        return super().feed(data)  # type: ignore[misc]


class UsageFromEmptyChoicesOnly:
    """The provider's own stream reader with one change: usage is read only from OpenAI's
    separate ``choices: []`` chunk, never from a chunk with choices."""

    def new_accumulator(self) -> Any:
        own = type(super().new_accumulator())  # type: ignore[misc]
        return type(own.__name__, (_UsageFromEmptyChoicesOnly, own), {})(self)


class _SkipsReasoningDeltas(DeepSeekStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        return super(DeepSeekStreamAccumulator, self).feed(data)


class DropsReasoningDeltas(BrokenStream):
    """The stream reader of a service on DeepSeek's ``reasoning_content`` keeps content and
    tool_calls deltas only: the chain of thought of a streamed answer is lost."""

    accumulator = _SkipsReasoningDeltas


class RewritesIds:
    """Sends every call id rewritten by :meth:`rewrite_id`, on the calls and on the results
    alike (the pairing holds, the provider's own ids never come back)."""

    @staticmethod
    def rewrite_id(call_id: str) -> Any:
        raise NotImplementedError

    def encode_message(self, message: Any) -> dict[str, Any]:
        out = super().encode_message(message)  # type: ignore[misc]
        for call in out.get("tool_calls") or ():
            call["id"] = self.rewrite_id(call["id"])
        if "tool_call_id" in out:
            out["tool_call_id"] = self.rewrite_id(out["tool_call_id"])
        return out


class OpenAIPrefix(RewritesIds):
    """Adds OpenAI's ``call_`` to an id without it."""

    @staticmethod
    def rewrite_id(call_id: str) -> Any:
        if isinstance(call_id, str) and not call_id.startswith("call_"):
            return "call_" + call_id
        return call_id


def endpoint_fixture(provider: str) -> Any:
    """A module's ``endpoint`` fixture: the provider's fake, in process, one per test."""

    @pytest.fixture(name="endpoint")
    def endpoint() -> Iterator[Endpoint]:
        ep = in_process_endpoint(FakeProvider(provider))
        yield ep
        ep.close()

    return endpoint


def own_cases(provider: str) -> set[str]:
    """The chat cases that are ``provider``'s alone (each wants a negative control here; the
    loop cases of one provider have theirs with the loop controls, tests/loop_turns_controls.py)."""
    return {case.id for case in default_registry()
            if case.dialects == (provider,) and case.contract == "chat"}


def own_kind_cases(provider: str) -> set[str]:
    """The errors family's kind cases that run for ``provider`` (neither generic nor its own)."""
    return {case.id for case in default_registry().select(["errors.*"], provider)
            if case.dialects != ("*",) and case.dialects != (provider,)}


def error_kind(case_id: str) -> str | None:
    """The error kind a case of the errors family scripts (None for any other case)."""
    error = default_registry()[case_id].steps[0].reply.error
    return None if error is None else error.kind


def kind_controls(module: Any) -> list[tuple[str, type, str]]:
    """The generic error bugs of controls_openai.py that each kind case running for the provider
    must catch on its own bodies: the retry decision inverted, the status lost and, unless the
    provider's body for that kind has no type or code (``UNNAMED_ERRORS``), the name dropped."""
    import controls_openai as _generic  # tests/providers/controls_openai.py (imports this one)

    unnamed = getattr(module, "UNNAMED_ERRORS", set())
    rows = []
    for case_id in sorted(own_kind_cases(module.PROVIDER)):
        kind = error_kind(case_id)
        if kind is None:  # an error inside a 200 stream: the module's table holds its controls
            continue
        flip = _generic.NeverRetryable if kind in RETRYABLE_KINDS else _generic.EveryErrorRetryable
        rows += [(case_id, flip, "errors.retryable"),
                 (case_id, _generic.StatusLost, "errors.status")]
        if kind not in unnamed:
            rows.append((case_id, _generic.DropsErrorCode, "errors.type"))
    return rows


def chat_cases(dialect: str) -> list[str]:
    """The chat cases that apply to ``dialect``, sorted."""
    return sorted(case.id for case in default_registry().select(dialect=dialect)
                  if case.contract == "chat")


def reference_cases(provider: str, profile: Any) -> list[str]:
    """The chat cases for ``provider`` whose needs the profile claims, sorted."""
    registry = default_registry()
    return [case_id for case_id in chat_cases(provider)
            if all(profile.claims(n) for n in registry[case_id].needs)]


def assert_sourced_and_dated(provider: str, facts: str, *, unconfirmed: str = "",
                             quirks: bool = False, confirmed: str = "2026-11-25",
                             or_later: bool = False) -> Any:
    """``provider``, a service on the openai wire, declares at least ``facts`` (names, space
    separated); each of its facts that is confirmed (``quirks``: and each quirk, all of which are
    confirmed) names its source and the date, ``confirmed`` (``or_later``: that date or a later
    one); the ``unconfirmed`` facts are not confirmed. Returns the provider, for the checks that
    are its own."""
    p = get(provider)
    assert (p.dialect, p.family) == ("openai", "openai")
    assert set(facts.split()) <= set(p.facts)
    for name, fact in {**p.facts, **(p.quirks if quirks else {})}.items():
        if fact.confirmed:
            dated = fact.confirmed >= confirmed if or_later else fact.confirmed == confirmed
            assert fact.source and dated, name
    if quirks:
        assert all(q.is_confirmed for q in p.quirks.values()), "an unconfirmed quirk"
    for name in unconfirmed.split():
        assert not p.facts[name].is_confirmed, name
    return p


#: a function tool as the openai wire spells it, the one the request bodies of the tests offer
TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}


def chat_body(model: str, *messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A Chat Completions request body for ``model``: the user asks "weather?", then
    ``messages``; ``extra`` are the body's other keys (``tools=[TOOL]``, ``tool_choice``...)."""
    return {"model": model, "messages": [{"role": "user", "content": "weather?"}, *messages],
            **extra}


def assert_served_at(dialect: Any, base_path: str, elsewhere: str) -> None:
    """The dialect serves POST ``<base_path>/chat/completions`` and nothing at ``elsewhere``
    (another path a client might try) nor by GET."""
    path = f"{base_path}/chat/completions"
    assert dialect.base_path == base_path
    assert dialect.route("POST", path)
    assert not dialect.route("POST", elsewhere)
    assert not dialect.route("GET", path)


def bearer_refusals(dialect: Any, key: str) -> tuple[Any, Any]:
    """The dialect takes ``Authorization: Bearer <key>``: its refusals of a wrong key and of
    none, each asserted to be one under ``auth.invalid`` and ``auth.missing``, for the caller to
    check their status and body."""
    assert dialect.check_auth({"authorization": f"Bearer {key}"}, {}, key) is None
    wrong = dialect.check_auth({"authorization": "Bearer nope"}, {}, key)
    missing = dialect.check_auth({}, {}, key)
    assert wrong is not None and wrong.rule == "auth.invalid"
    assert missing is not None and missing.rule == "auth.missing"
    return wrong, missing

"""Providers that plugins add: the ``pytest_toolcall_providers`` hook (issue 13).

A provider is data (:class:`pytest_toolcall.providers.Provider`: its wire, family, facts and
quirks, each sourced) plus two optional classes: the dialect its fake plays (a subclass of its
wire's dialect class with the gateway's routes, auth, rules and error bodies) and the reference
adapter the suite runs against it when the project gives none. A user adds an in-house gateway
from a ``conftest.py`` or a plugin::

    from pytest_toolcall.providers.openai.dialect import OpenAIChat
    from pytest_toolcall.providers import Fact, Provider

    class AcmeGateway(OpenAIChat):
        name, title = "acme", "ACME's LLM gateway"

        def route(self, method, path):
            return method == "POST" and path == "/llm/v2/chat/completions"

    def pytest_toolcall_providers(config):
        return [Provider(name="acme", dialect="openai", family="openai", fake=AcmeGateway,
                         quirks={"sse_comments": Fact("keep-alive comments",
                                                      "gateway runbook, section 4", "2026-11-01")})]

Then ``pytest --toolcall-provider=acme`` runs the suite against it (``all`` includes it). A
malformed provider stops the run before any case, naming the hook, the provider and the field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from pytest_toolcall.core import _names
from pytest_toolcall.providers import base as dialects
from pytest_toolcall import providers, reference
from pytest_toolcall.cases import SERVICE_QUIRKS
from pytest_toolcall.core.errors import UsageError, raised_by_user

__all__ = ["register_providers", "unregister_providers"]

_NAME = re.compile(r"^[a-z][a-z0-9-]*$")
#: what a fake's dialect class must offer (pytest_toolcall.providers.base.Dialect)
_DIALECT_METHODS = ("route", "check_auth", "wants_stream", "validate", "decode_request",
                    "encode_response", "encode_stream", "encode_error", "call_ids", "not_found")


def register_providers(config: Any) -> list[str]:
    """Call every ``pytest_toolcall_providers`` hook and register what they return; the names
    added. A malformed provider is a usage error naming the hook's module and the field."""
    added: list[str] = []
    hook = config.pluginmanager.hook.pytest_toolcall_providers
    try:
        for impl in hook.get_hookimpls():
            where = getattr(impl.plugin, "__file__", None) or impl.plugin_name
            try:
                returned = impl.function(config=config)
            except (ValueError, TypeError) as exc:  # Provider(...) refused a field
                raise UsageError(f"the pytest_toolcall_providers hook in {where} could not "
                                 f"build its providers: {exc}") from None
            except Exception as exc:  # noqa: BLE001 - the hook's own bug: its frames
                raise UsageError(raised_by_user(
                    f"the pytest_toolcall_providers hook in {where}", exc)) from None
            for spec in _as_list(returned, where):
                added.append(_register(spec, where))
    except BaseException:  # the ones registered before the malformed one are forgotten too
        unregister_providers(added)
        raise
    return added


def _as_list(returned: Any, where: str) -> list[Any]:
    if returned is None:
        return []
    if isinstance(returned, providers.Provider):
        return [returned]
    if isinstance(returned, (str, bytes)) or not isinstance(returned, Iterable):
        raise UsageError(f"the pytest_toolcall_providers hook in {where} returned "
                         f"{type(returned).__name__}: return a list of "
                         "pytest_toolcall.providers.Provider")
    return list(returned)


def _register(spec: Any, where: str) -> str:
    def bad(field: str, problem: str) -> UsageError:
        name = getattr(spec, "name", "?")
        return UsageError(f"the pytest_toolcall_providers hook in {where}: provider {name!r}, "
                          f"field {field!r}: {problem}")

    if not isinstance(spec, providers.Provider):
        raise UsageError(f"the pytest_toolcall_providers hook in {where} returned a "
                         f"{type(spec).__name__}: each item must be a "
                         "pytest_toolcall.providers.Provider(name=..., dialect=..., family=...)")
    if not _NAME.match(spec.name):
        raise bad("name", "use lower-case letters, digits and '-', starting with a letter "
                          "(it is the --toolcall-provider value)")
    if spec.name in _names.PLUGIN_PROVIDERS:  # left by an earlier session in this process
        unregister_providers([spec.name])
    if spec.name in providers.REGISTRY or spec.name == "all":
        raise bad("name", "is already a provider; pick another name")
    for quirk, fact in spec.quirks.items():
        if quirk not in SERVICE_QUIRKS:
            raise bad(f"quirks[{quirk!r}]",
                      f"unknown quirk; known: {', '.join(sorted(SERVICE_QUIRKS))}")
        if not fact.is_confirmed:
            raise bad(f"quirks[{quirk!r}]", "give the Fact a source and the date it was "
                                            "confirmed: Fact(value, source, 'YYYY-MM-DD')")
    base = type(dialects.get_dialect(spec.dialect))
    fake = spec.fake
    if fake is None:
        fake = type(f"{base.__name__}As{spec.name.title().replace('-', '')}", (base,),
                    {"name": spec.name})
    elif not isinstance(fake, type) or any(not callable(getattr(fake, m, None))
                                          for m in _DIALECT_METHODS):
        missing = [m for m in _DIALECT_METHODS if not callable(getattr(fake, m, None))]
        raise bad("fake", f"{fake!r} is not a dialect class (missing {', '.join(missing)}): "
                          f"subclass {base.__module__}.{base.__name__}")
    adapter = spec.reference or reference._adapter_class(spec.dialect)
    if not callable(getattr(adapter, "from_endpoint", None)):
        raise bad("reference", f"{adapter!r} has no from_endpoint(endpoint): give an adapter "
                               "class like pytest_toolcall.providers.openai.reference."
                               "OpenAIChatAdapter")
    providers.REGISTRY[spec.name] = spec
    dialects.register_class(spec.name, fake)
    reference.register_class(spec.name, adapter)
    _names.PLUGIN_PROVIDERS.append(spec.name)
    return spec.name


def unregister_providers(names: Iterable[str]) -> None:
    """Forget providers a plugin added (at the end of a session)."""
    for name in names:
        if name in _names.PLUGIN_PROVIDERS:
            _names.PLUGIN_PROVIDERS.remove(name)
            providers.REGISTRY.pop(name, None)
            dialects.unregister_class(name)
            reference.unregister_class(name)

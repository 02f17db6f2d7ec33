"""The providers: one folder each, and the registry that reads them.

A provider is a service (or one of the five wire formats, played as a service). Its folder holds
its facts (``facts.json``, read by ``facts.py``: which wire it speaks, where it lives, how it
authenticates, and which facts about it are confirmed, with source and date; an unconfirmed fact
is marked so and inherits OpenAI's behaviour), the rules and shapes the fake plays (``dialect.py``, whose
``DIALECT`` is the class), its reference adapter (``reference.py``, whose ``ADAPTER`` is the
class) and its own cases (``cases.py``, where it has any). Adding a service is adding a folder
and its name to ``core/_names.PROVIDERS`` (docs/writing-a-provider.md).

The registry reads ``facts.py`` alone: it is data, below the case model, which reads it to check
the quirks a case names (tests/test_import_layers.py). The machinery the providers share is
beside the folders: ``base`` (the ``Dialect`` protocol, ``Rejection``, ``get_dialect``),
``errors`` (the providers' error bodies), ``_compat`` (what the OpenAI-compatible services
share) and ``fake/`` (the fake provider itself).
"""

from __future__ import annotations

from importlib import import_module

from pytest_toolcall.core._names import PROVIDERS as _BUILT_IN
from pytest_toolcall.providers._facts import DIALECTS, Fact, Provider

__all__ = ["DIALECTS", "REGISTRY", "Fact", "Provider", "folder", "get", "quirk_senders"]


def folder(name: str) -> str:
    """The folder (and module name) of the built-in provider ``name``: ``azure-openai`` is
    ``azure_openai``."""
    return name.replace("-", "_")


#: every provider by name, in the order ``--toolcall-provider=all`` runs them; a plugin's
#: providers are added at configure time (``providers.plugins``)
REGISTRY: dict[str, Provider] = {
    name: import_module(f"{__name__}.{folder(name)}.facts").PROVIDER for name in _BUILT_IN}


def quirk_senders(quirk: str) -> tuple[str, ...]:
    """The services whose ``quirks`` declare ``quirk``, in registry order."""
    return tuple(name for name, p in REGISTRY.items() if quirk in p.quirks)


def get(name: str) -> Provider:
    try:
        return REGISTRY[name]
    except KeyError:
        groups: dict[str, list[str]] = {}
        for p in REGISTRY.values():
            groups.setdefault(p.family, []).append(p.name)
        listing = "; ".join(f"{fam}: {', '.join(sorted(ns))}" for fam, ns in sorted(groups.items()))
        raise KeyError(f"unknown provider {name!r}; valid providers by family: {listing}") from None

"""What a provider's facts are made of: ``Provider`` and ``Fact`` (data, no kit imports).

A built-in provider's facts are data in its folder's ``facts.json``, which the folder's
``facts.py`` reads with :func:`load` (docs/writing-a-provider.md, "What a fact needs"); a
plugin's provider builds its ``Provider`` in Python (docs/providers.md, "A provider of your own").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: the five wire formats; every provider speaks one of them
DIALECTS = ("openai", "openai-responses", "anthropic", "gemini", "ollama")


@dataclass(frozen=True)
class Fact:
    value: object
    source: str | None = None  # docs page, SDK source, public issue, recorded traffic
    confirmed: str | None = None  # ISO date; None means unconfirmed (inherits OpenAI)

    @property
    def is_confirmed(self) -> bool:
        return bool(self.source and self.confirmed)


@dataclass(frozen=True)
class Provider:
    name: str
    dialect: str
    family: str
    facts: dict[str, Fact] = field(default_factory=dict)
    #: stream quirks this service sends on its OpenAI-compatible Chat Completions endpoint
    #: (names from ``pytest_toolcall.cases.QUIRKS``: ``index_missing``, ``sse_comments``, ...),
    #: each a Fact whose value says how, with its source and date. The quirk cases run for the
    #: services that send them, and under ``openai`` for a profile that declares one of them in
    #: ``compatible_with``; OpenAI itself sends none of them.
    quirks: dict[str, Fact] = field(default_factory=dict)
    #: a provider a plugin adds (the ``pytest_toolcall_providers`` hook): the dialect class
    #: its fake plays (a subclass of its wire's, e.g. ``pytest_toolcall.providers.openai.dialect.
    #: OpenAIChat``; default: the wire's own) and the reference adapter class the suite runs
    #: against it when no adapter is given (default: the wire's reference)
    fake: Any = field(default=None, compare=False)
    reference: Any = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not self.name or not isinstance(self.name, str):
            raise ValueError("Provider.name must be a non-empty string")
        if self.dialect not in DIALECTS:
            raise ValueError(
                f"Provider {self.name!r}: field 'dialect' is {self.dialect!r}; "
                f"expected one of {', '.join(DIALECTS)}"
            )
        for key, fact in self.facts.items():
            if not isinstance(fact, Fact):
                raise ValueError(f"Provider {self.name!r}: field 'facts[{key!r}]' must be a Fact")
        for key, fact in self.quirks.items():
            if not isinstance(fact, Fact):
                raise ValueError(f"Provider {self.name!r}: field 'quirks[{key!r}]' must be a Fact")


#: the keys of a facts.json: the Provider's fields, ``about`` (what the provider is, in a
#: sentence or two) and ``notes`` (remarks on the sources, for the reader)
_FILE_KEYS = frozenset({"name", "dialect", "family", "about", "notes", "facts", "quirks"})
_FACT_KEYS = frozenset({"value", "source", "confirmed"})
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def load(facts_py: str) -> Provider:
    """The ``Provider`` declared by the ``facts.json`` beside ``facts_py`` (a provider folder's
    ``facts.py``, which passes its ``__file__``). Each fact is ``{"value": ..., "source": ...,
    "confirmed": "YYYY-MM-DD"}``, source and date left out for a fact not confirmed; a file that
    is not so is a ValueError naming the file and the field."""
    path = Path(facts_py).with_name("facts.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object")
    unknown = sorted(set(data) - _FILE_KEYS)
    if unknown:
        raise ValueError(f"{path}: unknown key(s) {', '.join(unknown)}; expected "
                         f"{', '.join(sorted(_FILE_KEYS))}")
    for key in ("about",):
        if not isinstance(data.get(key, ""), str):
            raise ValueError(f"{path}: field {key!r} must be a string")
    if not all(isinstance(n, str) for n in data.get("notes", [])):
        raise ValueError(f"{path}: field 'notes' must be a list of strings")
    return Provider(name=data.get("name", ""), dialect=data.get("dialect", ""),
                    family=data.get("family", ""),
                    facts=_facts(path, "facts", data.get("facts", {})),
                    quirks=_facts(path, "quirks", data.get("quirks", {})))


def _facts(path: Path, where: str, table: Any) -> dict[str, Fact]:
    if not isinstance(table, dict):
        raise ValueError(f"{path}: field {where!r} must be an object of facts")
    out = {}
    for key, entry in table.items():
        name = f"{where}[{key!r}]"
        if not isinstance(entry, dict) or "value" not in entry:
            raise ValueError(f"{path}: field {name} must be an object with a 'value'")
        unknown = sorted(set(entry) - _FACT_KEYS)
        if unknown:
            raise ValueError(f"{path}: field {name} has unknown key(s) {', '.join(unknown)}; "
                             "expected value, source, confirmed")
        source, confirmed = entry.get("source"), entry.get("confirmed")
        if source is not None and not isinstance(source, str):
            raise ValueError(f"{path}: field {name}.source must be a string")
        if confirmed is not None and not (isinstance(confirmed, str) and _DATE.match(confirmed)):
            raise ValueError(f"{path}: field {name}.confirmed must be an ISO date (YYYY-MM-DD), "
                             f"got {confirmed!r}")
        out[key] = Fact(entry["value"], source, confirmed)
    return out

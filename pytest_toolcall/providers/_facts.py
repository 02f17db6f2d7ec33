"""What a provider's facts are made of: ``Provider`` and ``Fact`` (data, no kit imports).

Each provider folder's ``facts.py`` builds one ``Provider``; a plugin's provider builds one too
(docs/providers.md, "A provider of your own").
"""

from __future__ import annotations

from dataclasses import dataclass, field
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

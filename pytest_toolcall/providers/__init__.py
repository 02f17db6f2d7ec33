"""Provider registry (issue 13, foundation; ``vertex`` is its first provider beyond the five
dialects, served through the dialect registry under its own name).

A provider is data: which dialect it speaks, where it lives, how it authenticates,
and which facts about it are confirmed (with source and date). An unconfirmed fact
is marked so and inherits OpenAI's behaviour.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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


# Today's five dialect names stay valid providers and mean the same.
_BUILTIN = [Provider(name=d, dialect=d, family=d.split("-")[0]) for d in DIALECTS]

_CONFIRMED = "2026-11-23"

#: Gemini on Vertex AI: the gemini wire on Vertex's routes (issue 13). Served by the ``vertex``
#: dialect class (pytest_toolcall.dialects.gemini.Vertex) and the VertexAdapter reference.
VERTEX = Provider(name="vertex", dialect="gemini", family="gemini", facts={
    "routes": Fact("POST /v1/projects/{p}/locations/{l}/publishers/google/models/{m}:"
                   "generateContent and :streamGenerateContent?alt=sse",
                   "https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/"
                   "inference; neuron-ai #437, quarkus-langchain4j #825 (recorded URLs)",
                   _CONFIRMED),
    "auth": Fact("Authorization: Bearer <OAuth access token>; an API key is refused with 401 "
                 "'API keys are not supported by this API...'",
                 "GoogleCloudPlatform/generative-ai #454, a2a-samples #43, mscraftsman/"
                 "generative-ai #51", _CONFIRMED),
    "ids": Fact("no id on functionCall / functionResponse: 400 'Invalid JSON payload received. "
                "Unknown name \"id\" at ...: Cannot find field.'",
                "pydantic-ai #5081, vercel/ai #15664 and #15891, charmbracelet/fantasy #265, "
                "langchainjs #10266", _CONFIRMED),
    "error_shape": Fact("{error: {code, message, status}} as the Gemini API",
                        "pydantic-ai #5081 (a quoted 400 body)", _CONFIRMED),
})

REGISTRY: dict[str, Provider] = {p.name: p for p in (*_BUILTIN, VERTEX)}


def get(name: str) -> Provider:
    try:
        return REGISTRY[name]
    except KeyError:
        groups: dict[str, list[str]] = {}
        for p in REGISTRY.values():
            groups.setdefault(p.family, []).append(p.name)
        listing = "; ".join(f"{fam}: {', '.join(sorted(ns))}" for fam, ns in sorted(groups.items()))
        raise KeyError(f"unknown provider {name!r}; valid providers by family: {listing}") from None

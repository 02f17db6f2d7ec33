"""Ollama's native /api/chat (the ollama wire): the facts the fake plays, each with
its source and the date it was confirmed.

Data only (the provider registry, ``pytest_toolcall.providers``, reads ``PROVIDER``);
docs/providers.md lists them."""

from __future__ import annotations

from pytest_toolcall.providers._facts import Fact, Provider

_Q_CONFIRMED = "2026-11-25"

#: the stream quirks of this service's OpenAI-compatible endpoint: a profile that declares
#: compatible_with={'ollama'} gets them under the openai wire
QUIRKS: dict[str, Fact] = {
    "index_stuck_at_zero": Fact(
        "the OpenAI-compatible endpoint (/v1/chat/completions) streams every call of a "
        "parallel batch at index 0, each with its own id (Ollama 0.20.2 and 0.20.4; "
        "local servers keep old versions for long, so it is played though the issue is "
        "closed). Before 0.4.7 the index was missing altogether (ollama #7881: "
        "historical, not played)",
        "ollama/ollama #15457 (2026-04, a quoted stream); vercel/ai PR #14277 (verified "
        "with 0.20.2/0.20.4); LibreChat-AI/agents PR #260 (2026-06)", _Q_CONFIRMED),
}

PROVIDER = Provider(name="ollama", dialect="ollama", family="ollama", quirks=QUIRKS)

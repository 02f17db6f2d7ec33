"""Gemini generateContent (the gemini wire): the facts the fake plays, each with
its source and the date it was confirmed.

Data only (the provider registry, ``pytest_toolcall.providers``, reads ``PROVIDER``);
docs/providers.md lists them."""

from __future__ import annotations

from pytest_toolcall.providers._facts import Fact, Provider

_Q_CONFIRMED = "2026-11-25"

#: the stream quirks of this service's OpenAI-compatible endpoint: a profile that declares
#: compatible_with={'gemini'} gets them under the openai wire
QUIRKS: dict[str, Fact] = {
    "index_missing": Fact(
        "the OpenAI-compatible endpoint (generativelanguage.googleapis.com/v1beta/openai/) "
        "streams tool-call deltas without 'index'; the openai SDK's stream helper raises "
        "TypeError on them",
        "openai/openai-python #2806 (gemini-3-flash-preview, 2025-12) and PR #3246 "
        "(2026-05: 'matching Gemini OpenAI-compatible streaming responses'); "
        "AstrBotDevs/AstrBot #6661 / PR #6692 (2026-03)", _Q_CONFIRMED),
}

PROVIDER = Provider(name="gemini", dialect="gemini", family="gemini", quirks=QUIRKS)

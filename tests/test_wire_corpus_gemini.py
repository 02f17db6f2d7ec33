"""The Gemini part of the wire corpus: real responses decode with the reference adapter, real
accepted requests pass the fake's validation, and the fake's shapes match the real ones."""

from __future__ import annotations

import json
from typing import Any

import pytest
from corpus import Interaction, corpus_root, files, load

from pytest_toolcall.cases import ScriptedCall, Turn
from pytest_toolcall.providers.gemini.dialect import Gemini
from pytest_toolcall.core.model import StreamDone, ToolCallComplete
from pytest_toolcall.providers.gemini.reference import GeminiAdapter

FOLDER = corpus_root() / "pydantic-ai" / "gemini"
FILES = files("gemini")  # a missing corpus is an error (tests/corpus.py), never a skip


def _native() -> list[Interaction]:
    # two files of the folder call Gemini's OpenAI-compatible endpoint: not this dialect
    return [i for f in FILES for i in load(f) if ":" in i.path.rsplit("/", 1)[-1]]


def _parser() -> GeminiAdapter:
    adapter = GeminiAdapter.__new__(GeminiAdapter)
    adapter.signatures = {}
    return adapter


def test_corpus_counts() -> None:
    native = _native()
    assert len(native) == 69
    assert sum(1 for i in native if i.path.endswith(":streamGenerateContent")) == 7
    assert {i.status for i in native} == {200}


def test_every_accepted_request_passes_validation() -> None:
    dialect, rejected = Gemini(), []
    for interaction in _native():
        found = dialect.validate(interaction.request_body)
        if found is not None:
            rejected.append((interaction.where, found.rule, found.message))
    assert rejected == []  # 0 false rejections out of 69


def test_every_json_response_decodes() -> None:
    decoded = calls = 0
    for interaction in _native():
        if interaction.response_json is None:
            continue
        response = _parser().parse_response(interaction.response_json)
        decoded += 1
        parts = interaction.response_json["candidates"][0]["content"]["parts"]
        want = [p["functionCall"] for p in parts if "functionCall" in p]
        assert [c.name for c in response.tool_calls] == [w["name"] for w in want]
        assert [c.arguments for c in response.tool_calls] == [w.get("args", {}) for w in want]
        assert all(c.id for c in response.tool_calls), interaction.where
        if want:
            # STOP with calls is a tool-call turn
            assert response.finish_reason == "tool_calls", interaction.where
        assert response.usage is not None and response.usage.total_tokens
        calls += len(want)
    assert decoded == 62 and calls == 43


def test_every_stream_decodes() -> None:
    streams = 0
    for interaction in _native():
        if interaction.response_text is None:
            continue
        adapter = _parser()
        acc = adapter.new_accumulator()
        events: list[Any] = []
        for line in interaction.response_text.splitlines():
            events += list(acc.feed_line(line))
        events += list(acc.close())
        assert isinstance(events[-1], StreamDone), interaction.where
        chunks = [json.loads(d) for d in interaction.sse_data()]
        want = [p["functionCall"]["name"] for c in chunks for cand in c.get("candidates", [])
                for p in cand.get("content", {}).get("parts", []) if "functionCall" in p]
        got = [e.call.name for e in events if isinstance(e, ToolCallComplete)]
        assert got == want, interaction.where
        streams += 1
    assert streams == 7


def test_real_streams_end_events_with_crlf() -> None:
    texts = [i.response_text for i in _native() if i.response_text]
    assert texts and all(t.count("\r\n\r\n") == t.count("data: ") for t in texts)


def test_fake_shapes_match_real_ones() -> None:
    """The keys of the fake's response, candidate, part and usage are those real Gemini sends."""
    real = next(i.response_json for i in _native() if i.response_json and any(
        "functionCall" in p for p in i.response_json["candidates"][0]["content"]["parts"]))
    fake = Gemini().encode_response(
        Turn(tool_calls=(ScriptedCall(name="f", arguments={"a": 1}, id="x"),)), {})
    assert set(fake) == set(real)
    real_candidate, fake_candidate = real["candidates"][0], fake["candidates"][0]
    assert set(fake_candidate) <= set(real_candidate) | {"index"}
    assert set(fake_candidate["content"]) == set(real_candidate["content"]) == {"parts", "role"}
    real_part_keys = {k for i in _native() if i.response_json
                      for p in i.response_json["candidates"][0]["content"]["parts"] for k in p}
    assert {k for p in fake_candidate["content"]["parts"] for k in p} <= real_part_keys
    assert set(fake["usageMetadata"]) <= set(real["usageMetadata"]) | {"promptTokensDetails"}

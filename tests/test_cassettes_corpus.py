"""Real traffic drives the reference adapters: the pydantic-ai cassettes of tests/data/wire-corpus
are loaded by the kit's cassette loader and replayed, answer by answer, through a
ReplayTransport; the adapter must parse every accepted answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from corpus import files as corpus_files

from pytest_toolcall.output.cassettes import ReplayTransport, load_corpus_cassette
from pytest_toolcall.providers.base import DIALECT_NAMES, get_dialect
from pytest_toolcall.providers.fake import Endpoint, FakeProvider
from pytest_toolcall.core.model import ChatRequest, UserMessage
from pytest_toolcall.reference import reference_adapter

#: corpus folder -> (dialect, count of tool calls in a non-streamed answer)
FOLDERS: dict[str, tuple[str, Any]] = {
    "openai-chat": ("openai", lambda d: len(d["choices"][0]["message"].get("tool_calls") or [])),
    "openai-responses": ("openai-responses",
                         lambda d: sum(o.get("type") == "function_call" for o in d["output"])),
    "anthropic": ("anthropic", lambda d: sum(b.get("type") == "tool_use" for b in d["content"])),
    "gemini": ("gemini", lambda d: sum("functionCall" in p for p in
                                       d["candidates"][0]["content"].get("parts", []))),
}


def _files(folder: str) -> list[Path]:
    return corpus_files(folder)  # a missing corpus is an error (tests/corpus.py), never a skip


@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_reference_adapter_parses_every_recorded_answer(folder: str) -> None:
    dialect, count = FOLDERS[folder]
    if dialect not in DIALECT_NAMES:
        pytest.skip(f"the {dialect} dialect is not there")
    files = _files(folder)
    parsed = calls = 0
    for file in files:
        cassette = load_corpus_cassette(file)
        # a file may hold other APIs' traffic too (a test that used two providers)
        route = get_dialect(dialect).route
        cassette.interactions = [i for i in cassette.interactions
                                 if i.status == 200 and route(i.method, i.path)]
        transport = ReplayTransport(cassette, match="sequence", chunking="seeded", seed=7)
        endpoint = Endpoint(provider=dialect, base_url="https://replay.invalid/v1",
                            api_key="k", fake=FakeProvider(dialect), transport=transport,
                            async_transport=transport)
        adapter = reference_adapter(endpoint)
        request = ChatRequest(messages=(UserMessage(content="replayed"),))
        for item in cassette.interactions:
            streamed = b"data:" in item.response_body[:200] or item.header(
                "content-type").startswith("text/event-stream")
            where = f"{file.name} ({item.method} {item.path})"
            try:
                if streamed:
                    events = list(adapter.stream(request.model_copy(update={"stream": True})))
                    assert events, where
                else:
                    response = adapter.complete(request)
                    data = json.loads(item.response_body)
                    assert len(response.tool_calls) == count(data), where
                    calls += len(response.tool_calls)
            except (httpx.HTTPError, ValueError, KeyError) as exc:  # pragma: no cover - message
                raise AssertionError(f"{where}: {type(exc).__name__}: {exc}") from exc
            parsed += 1
        endpoint.close()
    assert parsed >= len(files) // 2 and calls > 0

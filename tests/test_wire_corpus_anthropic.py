"""Fidelity: the Anthropic dialect and reference adapter against real recorded traffic.

The corpus (``tests/data/wire-corpus/pydantic-ai/anthropic``, or ``$TOOLCALL_WIRE_CORPUS``) holds
cassettes recorded against api.anthropic.com (some also hold Gemini or Files API calls: only
``POST /v1/messages`` is checked here). Every request that got a 200 must pass the fake's
validation (zero false rejections) and decode; every JSON response must parse with the reference
adapter, every SSE body through its accumulator line by line, to the facts read from the raw body;
and the fake's answers use the keys of the real ones.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import pytest

from pytest_toolcall.cases import ScriptedCall, Turn
from pytest_toolcall.providers.anthropic.dialect import AnthropicMessages
from pytest_toolcall.core.model import StreamDone, ToolCallComplete, assemble_stream
from pytest_toolcall.providers.anthropic.reference import AnthropicAdapter

pytest.importorskip("yaml", reason="PyYAML is needed to read the wire corpus (it is in the 'dev' "
                    "extra: pip install -e '.[dev]')")

import corpus

FOLDER = corpus.corpus_root() / "pydantic-ai" / "anthropic"
FILES = corpus.files("anthropic")

DIALECT = AnthropicMessages()


def _messages(interaction: corpus.Interaction) -> bool:
    return (interaction.method == "POST"
            and urlsplit(interaction.uri).path.rstrip("/") == "/v1/messages")


INTERACTIONS = [i for f in FILES for i in corpus.load(f) if _messages(i)]
ACCEPTED = [i for i in INTERACTIONS if i.status == 200 and i.request_body is not None]
JSON = [i for i in ACCEPTED if i.response_json is not None]
SSE = [i for i in ACCEPTED if i.response_text is not None]


@pytest.fixture(scope="module")
def adapter() -> Any:
    reference = AnthropicAdapter("http://unused.invalid/v1", "unused")  # parsing only
    yield reference
    reference.client.close()


def test_corpus_counts() -> None:
    """What the corpus holds for /v1/messages (numbers in the report; a change is visible)."""
    assert len(INTERACTIONS) == 158
    assert (len(ACCEPTED), len(JSON), len(SSE)) == (158, 149, 9)


def test_zero_false_rejections() -> None:
    rejected = [(i.where, r.message) for i in ACCEPTED if (r := DIALECT.validate(i.request_body))]
    assert rejected == []
    for interaction in ACCEPTED:
        DIALECT.decode_request(interaction.request_body)


def test_pairing_rules_were_exercised_by_the_corpus() -> None:
    """The accepted requests really carry tool_use/tool_result pairs (the check above means
    something): most of them replay calls and results."""
    replays = [i for i in ACCEPTED if any(
        isinstance(m.get("content"), list) and any(b.get("type") == "tool_result"
                                                   for b in m["content"])
        for m in i.request_body["messages"])]
    assert len(replays) >= 50


def _facts(content: list[dict[str, Any]]) -> tuple[str | None, list[tuple[Any, Any, Any]]]:
    text = "".join(b["text"] for b in content if b.get("type") == "text") or None
    calls = [(b["id"], b["name"], b["input"]) for b in content if b.get("type") == "tool_use"]
    return text, calls


def test_every_json_response_parses(adapter: Any) -> None:
    finishes = set()
    for interaction in JSON:
        data = interaction.response_json
        got = adapter.parse_response(data)
        text, calls = _facts(data["content"])
        assert (got.text, [(c.id, c.name, c.arguments) for c in got.tool_calls]) == (
            text, calls), interaction.where
        assert got.usage and got.usage.input_tokens == data["usage"]["input_tokens"]
        finishes.add((data["stop_reason"], got.finish_reason))
    assert ("tool_use", "tool_calls") in finishes and ("end_turn", "stop") in finishes


def _stream_facts(body: str) -> tuple[str | None, list[tuple[Any, Any, Any]], str]:
    """Text, calls and stop_reason read from the raw SSE, independently of the adapter."""
    blocks: dict[int, dict[str, Any]] = {}
    stop = ""
    for line in body.splitlines():
        if not line.startswith("data:"):
            continue
        data = json.loads(line[5:])
        if data["type"] == "content_block_start":
            blocks[data["index"]] = dict(data["content_block"], _json="")
        elif data["type"] == "content_block_delta":
            delta = data["delta"]
            if delta["type"] == "text_delta":
                blocks[data["index"]]["text"] += delta["text"]
            elif delta["type"] == "input_json_delta":
                blocks[data["index"]]["_json"] += delta["partial_json"]
        elif data["type"] == "message_delta":
            stop = data["delta"]["stop_reason"]
    for block in blocks.values():
        if block["type"] == "tool_use":
            block["input"] = json.loads(block["_json"]) if block["_json"] else block["input"]
    return (*_facts([blocks[k] for k in sorted(blocks)]), stop)


def test_every_stream_decodes_line_by_line(adapter: Any) -> None:
    with_pings = 0
    for interaction in SSE:
        acc = adapter.new_accumulator()
        events = [e for line in interaction.response_text.splitlines()
                  for e in acc.feed_line(line)]
        events += list(acc.close())
        assert isinstance(events[-1], StreamDone), interaction.where
        got = assemble_stream(events)
        text, calls, stop = _stream_facts(interaction.response_text)
        assert got.text == text, interaction.where
        assert [(c.id, c.name, c.arguments) for c in got.tool_calls] == calls
        assert all(isinstance(e, ToolCallComplete) for e in events
                   if isinstance(e, ToolCallComplete))
        assert got.finish_reason == adapter.parse_finish(stop)
        with_pings += "event: ping" in interaction.response_text
    assert with_pings >= len(SSE) - 1  # real streams ping (8 of 9): the fake's ping is realistic


def _keys(data: Any) -> set[str]:
    return set(data) if isinstance(data, dict) else set()


def test_fake_answers_use_the_keys_of_real_ones() -> None:
    turn = Turn(text="Hi.", tool_calls=(ScriptedCall(name="f", arguments={"a": 1}),))
    fake = DIALECT.encode_response(turn, {"model": "claude-haiku-4-5"})
    real_message = set.intersection(*(_keys(i.response_json) for i in JSON))
    assert real_message - _keys(fake) == set()
    real_usage = set.intersection(*(_keys(i.response_json["usage"]) for i in JSON))
    # service_tier and the cache counters are in every real answer
    assert real_usage - _keys(fake["usage"]) <= {"cache_creation"}
    real_use = [b for i in JSON for b in i.response_json["content"] if b["type"] == "tool_use"]
    assert {k for b in real_use for k in b} >= _keys(fake["content"][1])
    names_real = {line.split(":", 1)[1].strip() for i in SSE
                  for line in i.response_text.splitlines() if line.startswith("event:")}
    names_fake = {e.split(b"\n")[0].decode()[7:] for e in DIALECT.encode_stream(turn, {})}
    assert names_fake <= names_real

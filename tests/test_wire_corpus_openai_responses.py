"""The openai-responses dialect against real traffic (``wire-corpus/pydantic-ai/openai-responses``).

- every request that got a 200 passes ``validate`` (0 false rejections) and decodes;
- the one real 400 (a reasoning item without its following item) is rejected with the same body;
- every response, JSON or stream, is read by the reference adapter's parsing: the calls it finds
  are the function_call items of the output, by call_id; streams end with response.completed;
- the fake's shapes use the keys real ones use (items, stream events, usage).
"""

from __future__ import annotations

import json
from typing import Any

import corpus
import pytest

from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.openai_responses.reference import OpenAIResponsesAdapter

D = get_dialect("openai-responses")
FOLDER = corpus.corpus_root() / "pydantic-ai" / "openai-responses"
FILES = corpus.files("openai-responses")  # a missing corpus is an error, never a skip


def _responses() -> list[corpus.Interaction]:
    return [it for f in FILES for it in corpus.load(f)
            if it.method == "POST" and D.route("POST", it.path)]


def _adapter() -> OpenAIResponsesAdapter:
    adapter = OpenAIResponsesAdapter.__new__(OpenAIResponsesAdapter)
    adapter.item_ids = {}
    return adapter


def _stream_events(it: corpus.Interaction) -> list[dict[str, Any]]:
    return [json.loads(d) for d in it.sse_data()]


def test_corpus_counts() -> None:
    found = _responses()
    assert len(FILES) == 136
    assert len([i for i in found if i.status == 200]) == 212
    assert len([i for i in found if i.status == 400]) == 1


def test_no_false_rejections() -> None:
    rejected = [(it.where, D.validate(it.request_body).message)  # type: ignore[union-attr]
                for it in _responses() if it.status == 200 and D.validate(it.request_body)]
    assert rejected == []


def test_accepted_requests_decode() -> None:
    for it in _responses():
        if it.status == 200:
            D.decode_request(it.request_body)


def test_the_real_400_is_rejected_with_the_same_body() -> None:
    (real,) = [it for it in _responses() if it.status == 400]
    rejection = D.validate(real.request_body)
    assert rejection is not None and rejection.rule == "input.reasoning.following_item"
    assert rejection.status == 400
    assert dict(rejection.body["error"]) == real.response_json["error"]


def test_every_json_response_parses() -> None:
    n = 0
    for it in _responses():
        data = it.response_json
        if it.status != 200 or not isinstance(data, dict) or data.get("object") != "response":
            continue
        n += 1
        adapter = _adapter()
        parsed = adapter.parse_response(data)
        items = [o for o in data["output"] if isinstance(o, dict)]
        want = [o["call_id"] for o in items if o.get("type") == "function_call"]
        assert [c.id for c in parsed.tool_calls] == want, it.where
        assert all(c.parse_error is None for c in parsed.tool_calls), it.where
        assert adapter.item_ids == {o["call_id"]: o["id"] for o in items
                                    if o.get("type") == "function_call"}
        if data.get("usage"):
            assert parsed.usage and parsed.usage.total_tokens == data["usage"]["total_tokens"]
        assert parsed.finish_reason == ("tool_calls" if want else "stop"), it.where
    assert n >= 150


def test_every_stream_parses() -> None:
    n = 0
    for it in _responses():
        if it.status != 200 or not it.response_text or "event:" not in it.response_text:
            continue
        events = _stream_events(it)
        if not events or events[-1]["type"] != "response.completed":
            continue  # background-mode fragments of one stream (resumed elsewhere)
        n += 1
        acc = _adapter().new_accumulator()
        out = [e for line in it.response_text.splitlines() for e in acc.feed_line(line)]
        out += list(acc.close())
        final = events[-1]["response"]
        want = [o["call_id"] for o in final["output"] if o.get("type") == "function_call"]
        calls = [e.call for e in out if e.type == "tool_call_complete"]
        assert [c.id for c in calls] == want, it.where
        text = "".join(e.text for e in out if e.type == "text_delta")
        full = "".join(p.get("text", "") for o in final["output"] if o.get("type") == "message"
                       for p in o.get("content") or () if p.get("type") == "output_text")
        assert text == full, it.where
        assert out[-1].type == "done" and out[-1].usage.total_tokens == final["usage"]["total_tokens"]
    assert n >= 15


def test_real_streams_have_the_shape_the_fake_sends() -> None:
    """Facts the fake relies on, checked on every real stream: response.created first, dense
    sequence numbers, fragments naming the fc_ item, output_index dense in order of addition."""
    for it in _responses():
        if it.status != 200 or not it.response_text or "event:" not in it.response_text:
            continue
        events = _stream_events(it)
        if events[0]["type"] != "response.created":
            continue  # resumed background streams start elsewhere
        seq = [e.get("sequence_number") for e in events]
        if seq != [None] * len(seq):  # one old recording predates sequence_number: none at all
            assert seq == list(range(seq[0], seq[0] + len(seq))), it.where
        added = [e["output_index"] for e in events if e["type"] == "response.output_item.added"]
        assert added == list(range(len(added))), it.where
        calls = {e["item"]["id"] for e in events if e["type"] == "response.output_item.added"
                 and e["item"]["type"] == "function_call"}
        for e in events:
            if e["type"] == "response.function_call_arguments.delta":
                assert e["item_id"] in calls and e["item_id"].startswith("fc_"), it.where
            if e["type"] == "response.output_item.added" and e["item"]["type"] == "function_call":
                assert e["item"]["arguments"] == "" and e["item"]["call_id"].startswith("call_")


def test_fake_keys_match_real_ones() -> None:
    from pytest_toolcall.cases import ScriptedCall, Turn

    real_calls = [o for it in _responses() if isinstance(it.response_json, dict)
                  for o in it.response_json.get("output") or ()
                  if isinstance(o, dict) and o.get("type") == "function_call"]
    real_usage = next(it.response_json["usage"] for it in _responses()
                      if isinstance(it.response_json, dict) and it.response_json.get("usage"))
    turn = Turn(tool_calls=(ScriptedCall(name="get_time"),))
    fake = D.encode_response(turn, {"model": "m"})
    fake_call = fake["output"][0]
    # real items carry 'namespace' for namespaced tools (tool search); the rest: the same keys
    assert frozenset(fake_call) in {frozenset(o) for o in real_calls}
    assert {frozenset(o) - {"namespace"} for o in real_calls} == {frozenset(fake_call)}
    assert set(fake["usage"]) == set(real_usage)
    assert set(fake) <= {k for it in _responses() if isinstance(it.response_json, dict)
                         for k in it.response_json}

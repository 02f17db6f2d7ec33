"""Fidelity: the OpenAI Chat dialect and reference adapter against real recorded traffic.

The corpus (``tests/data/wire-corpus/pydantic-ai/openai-chat``, or ``$TOOLCALL_WIRE_CORPUS``) holds
cassettes recorded against api.openai.com. Some of them also hold calls to other hosts (Gemini,
an MCP server): interactions are routed by their request ``uri`` and only ``POST
/v1/chat/completions`` is checked here; the others are counted.

- requests that got a 200 must pass the fake's validation (zero false rejections) and decode;
- JSON responses must decode with the reference adapter's ``parse_response``, SSE bodies through
  its ``StreamAccumulator`` line by line, each to the facts read independently from the raw body;
- realism: the fake's answers use the keys and shapes of the real ones (allowed differences
  are listed in :data:`ALLOWED_MISSING`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

import pytest

from pytest_toolcall.cases import ScriptedCall, Turn
from pytest_toolcall.providers.openai.dialect import OpenAIChat
from pytest_toolcall.providers.fake import FakeProvider
from pytest_toolcall.core.model import (
    AssistantMessage,
    StreamDone,
    TextDelta,
    ToolCallComplete,
    ToolCallDelta,
    ToolMessage,
    assemble_stream,
)
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter

pytest.importorskip("yaml", reason="PyYAML is needed to read the wire corpus (it is in the 'dev' "
                    "extra: pip install -e '.[dev]')")

import corpus  # noqa: E402 - tests/corpus.py, after the PyYAML check

FILES = corpus.openai_chat_files()

DIALECT = OpenAIChat()
FINISH = {"stop": "stop", "tool_calls": "tool_calls", "length": "length",
          "content_filter": "content_filter"}

#: Keys real traffic has and the fake leaves out, on purpose:
#: ``obfuscation`` is random padding OpenAI adds to each chunk (against length side channels);
#: clients ignore it, and a fake that sends random bytes would make recordings unstable.
ALLOWED_MISSING = {"chunk": {"obfuscation"}}


def _openai(path: Any) -> list[corpus.Interaction]:
    return [i for i in corpus.load(path) if i.is_openai_chat]


def _files(kind: str) -> list[Any]:
    """Files (as params named by file) holding at least one interaction of ``kind``."""
    want = {"request": lambda i: i.status == 200 and i.request_body is not None,
            "json": lambda i: i.status == 200 and i.response_json is not None,
            "sse": lambda i: i.status == 200 and i.response_text is not None}[kind]
    return [pytest.param(p, id=p.stem) for p in FILES if any(want(i) for i in _openai(p))]


@pytest.fixture(scope="module")
def adapter() -> Any:
    reference = OpenAIChatAdapter("http://unused.invalid/v1", "unused")  # parsing only
    yield reference
    reference.client.close()


# -- the corpus itself ------------------------------------------------------------------------
def test_corpus_counts_match_the_manifest() -> None:
    """The loader reads every interaction the manifest lists, and routes them by host."""
    manifest = json.loads((corpus.corpus_root() / "pydantic-ai" / "manifest.json").read_text())
    statuses = {e["file"].split("/", 1)[1]: e["statuses"] for e in manifest
                if e["file"].startswith("openai-chat/")}
    counts: Counter[str] = Counter()
    for path in FILES:
        interactions = corpus.load(path)
        assert [i.status for i in interactions] == statuses[path.name], path.name
        for i in interactions:
            if not i.is_openai_chat:
                counts["other:" + i.host] += 1
                assert i.host != "api.openai.com", i.where
                continue
            counts["openai"] += 1
            counts["json" if i.response_json is not None else "sse"] += 1
            if i.response_text is not None:
                assert i.request_body.get("stream") is True, i.where
    counts["files"], counts["read"] = len(FILES), sum(len(corpus.load(p)) for p in FILES)
    print(f"\nwire corpus {corpus.openai_chat_dir()}: {dict(counts)}")
    assert len(FILES) == len(statuses)
    assert counts["openai"] == counts["json"] + counts["sse"]
    assert counts["read"] == counts["openai"] + sum(
        v for k, v in counts.items() if k.startswith("other:"))


# -- (a) requests ------------------------------------------------------------------------------
@pytest.mark.parametrize("path", _files("request"))
def test_accepted_requests_pass_validation_and_decode(path: Any) -> None:
    checked = 0
    for i in _openai(path):
        if i.status != 200:
            continue
        body = i.request_body
        rejection = DIALECT.validate(body)
        assert rejection is None, (
            f"false rejection of {i.where}: rule {rejection.rule!r} fired: "
            f"{rejection.body['error']['message']}")
        decoded = DIALECT.decode_request(body)
        checked += 1
        # the decoded request holds what the raw body holds, read independently
        assert len(decoded.messages) == len(body["messages"]), i.where
        assert [t.name for t in decoded.tools] == [
            t["function"]["name"] for t in body.get("tools") or ()]
        raw_calls = [c for m in body["messages"] if m["role"] == "assistant"
                     for c in m.get("tool_calls") or ()]
        calls = [c for m in decoded.messages if isinstance(m, AssistantMessage)
                 for c in m.tool_calls]
        assert [(c.id, c.name, c.raw_arguments) for c in calls] == [
            (c["id"], c["function"]["name"], c["function"]["arguments"]) for c in raw_calls]
        assert all(c.parse_error is None for c in calls), i.where
        results = [m.tool_call_id for m in decoded.messages if isinstance(m, ToolMessage)]
        assert results == [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
        assert decoded.stream is bool(body.get("stream"))
        if isinstance(body.get("tool_choice"), str):
            assert decoded.tool_choice == body["tool_choice"]
    assert checked


# -- (b) responses -----------------------------------------------------------------------------
@pytest.mark.parametrize("path", _files("json"))
def test_json_responses_decode(path: Any, adapter: OpenAIChatAdapter) -> None:
    decoded_any = 0
    for i in _openai(path):
        if i.status != 200 or i.response_json is None:
            continue
        raw = i.response_json
        choice = raw["choices"][0]
        message = choice["message"]
        response = adapter.parse_response(raw)
        raw_calls = message.get("tool_calls") or []
        assert len(response.tool_calls) == len(raw_calls), i.where
        for call, wire in zip(response.tool_calls, raw_calls):
            assert call.id == wire["id"] and call.id.startswith("call_"), i.where
            assert call.name == wire["function"]["name"]
            assert call.raw_arguments == wire["function"]["arguments"]
            assert call.parse_error is None and call.arguments == json.loads(
                wire["function"]["arguments"])
        assert response.text == (message["content"] or None)
        assert response.finish_reason == FINISH[choice["finish_reason"]]
        assert (response.finish_reason == "tool_calls") is bool(raw_calls), i.where
        usage = raw["usage"]
        assert response.usage is not None
        assert (response.usage.input_tokens, response.usage.output_tokens,
                response.usage.total_tokens) == (usage["prompt_tokens"],
                                                 usage["completion_tokens"], usage["total_tokens"])
        assert response.model == raw["model"]
        decoded_any += 1
    assert decoded_any


def _raw_stream_facts(chunks: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """What a stream says, read from the raw chunks without the kit's code."""
    text, calls, finish, usage = [], {}, None, None
    for chunk in chunks:
        usage = chunk.get("usage") or usage
        for choice in chunk["choices"]:
            text.append(choice["delta"].get("content") or "")
            for frag in choice["delta"].get("tool_calls") or ():
                slot = calls.setdefault(frag["index"], {"id": None, "name": None, "args": ""})
                if "id" in frag:
                    assert slot["id"] is None, "OpenAI sends a call's id once"
                    slot["id"], slot["name"] = frag["id"], frag["function"]["name"]
                slot["args"] += frag["function"].get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    return {"text": "".join(text) or None, "finish": finish, "usage": usage,
            "calls": [(c["id"], c["name"], c["args"]) for _, c in sorted(calls.items())]}


@pytest.mark.parametrize("path", _files("sse"))
def test_sse_streams_decode_line_by_line(path: Any, adapter: OpenAIChatAdapter) -> None:
    decoded_any = 0
    for i in _openai(path):
        if i.status != 200 or i.response_text is None:
            continue
        acc = adapter.new_accumulator()
        events: list[Any] = []
        for line in i.response_text.splitlines():
            events.extend(acc.feed_line(line))
        events.extend(acc.close())
        facts = _raw_stream_facts(i.sse_chunks())
        assert isinstance(events[-1], StreamDone), i.where
        assert sum(isinstance(e, StreamDone) for e in events) == 1
        completed = [e.call for e in events if isinstance(e, ToolCallComplete)]
        assert len(completed) == len(facts["calls"]), i.where
        assert sum(isinstance(e, ToolCallDelta) for e in events) == sum(
            len(c["choices"][0]["delta"].get("tool_calls") or ()) for c in i.sse_chunks()
            if c["choices"])
        for call, (cid, name, args) in zip(completed, facts["calls"]):
            assert call.id == cid and cid.startswith("call_"), i.where
            assert call.name == name and call.raw_arguments == args
            assert call.parse_error is None and call.arguments == json.loads(args)
        assert "".join(e.text for e in events if isinstance(e, TextDelta)) == (facts["text"] or "")
        # the same kind of result as parse_response gives
        response = assemble_stream(events)
        assert response.tool_calls == tuple(completed)
        assert response.text == facts["text"]
        assert response.finish_reason == FINISH[facts["finish"]]
        assert facts["usage"] is not None, "every recorded stream asked for include_usage"
        assert response.usage is not None and (
            response.usage.input_tokens, response.usage.output_tokens,
            response.usage.total_tokens) == (facts["usage"]["prompt_tokens"],
                                             facts["usage"]["completion_tokens"],
                                             facts["usage"]["total_tokens"])
        decoded_any += 1
    assert decoded_any


# -- (c) realism: the fake's answers have the shapes of the real ones --------------------------
def _keys(d: dict[str, Any]) -> frozenset[str]:
    return frozenset(d)


@pytest.fixture(scope="module")
def real() -> dict[str, set[frozenset[str]]]:
    """Every key set seen in real traffic, by place."""
    seen: dict[str, set[frozenset[str]]] = {}

    def add(place: str, d: dict[str, Any]) -> None:
        seen.setdefault(place, set()).add(_keys(d))

    for path in FILES:
        for i in _openai(path):
            if i.response_json is not None:
                raw = i.response_json
                add("completion", raw)
                add("choice", raw["choices"][0])
                message = raw["choices"][0]["message"]
                add("message+calls" if message.get("tool_calls") else "message", message)
                for call in message.get("tool_calls") or ():
                    add("call", call)
                    add("call.function", call["function"])
                add("usage", raw["usage"])
                for key in ("prompt_tokens_details", "completion_tokens_details"):
                    add(f"usage.{key}", raw["usage"][key])
            for chunk in i.sse_chunks():
                add("chunk", {k: v for k, v in chunk.items()
                              if k not in ALLOWED_MISSING["chunk"]})
                for choice in chunk["choices"]:
                    add("chunk.choice", choice)
                    delta = choice["delta"]
                    if "role" in delta:
                        add("delta.role", {k: v for k, v in delta.items() if k != "tool_calls"})
                    elif choice["finish_reason"]:
                        add("delta.finish", delta)
                    for frag in delta.get("tool_calls") or ():
                        place = "fragment.first" if "id" in frag else "fragment.next"
                        add(place, frag)
                        add(place + ".function", frag["function"])
                if not chunk["choices"]:
                    add("usage", chunk["usage"])
    return seen


TURNS = {
    "calls": Turn(tool_calls=(ScriptedCall(id="call_A1", name="get_weather",
                                           arguments={"city": "Paris"}),
                              ScriptedCall(id="call_B2", name="get_time", arguments="{}"))),
    "text": Turn(text="It is sunny."),
    "text_and_calls": Turn(text="Checking.", tool_calls=(
        ScriptedCall(id="call_C3", name="get_weather", arguments={"city": "Zürich"}),)),
}


@pytest.mark.parametrize("name", sorted(TURNS))
def test_fake_completion_has_the_real_shape(name: str, real: dict[str, Any]) -> None:
    turn = TURNS[name]
    data = DIALECT.encode_response(turn, {"model": "gpt-4o"})
    assert _keys(data) in real["completion"]
    assert _keys(data["choices"][0]) in real["choice"]
    message = data["choices"][0]["message"]
    assert _keys(message) in real["message+calls" if turn.tool_calls else "message"]
    for call in message.get("tool_calls") or ():
        assert _keys(call) in real["call"] and _keys(call["function"]) in real["call.function"]
        assert isinstance(call["function"]["arguments"], str) and call["id"].startswith("call_")
    assert _keys(data["usage"]) in real["usage"]
    for key in ("prompt_tokens_details", "completion_tokens_details"):
        assert _keys(data["usage"][key]) in real[f"usage.{key}"]
    assert data["object"] == "chat.completion" and data["id"].startswith("chatcmpl-")
    assert data["system_fingerprint"].startswith("fp_") and isinstance(data["created"], int)


@pytest.mark.parametrize("name", sorted(TURNS))
def test_fake_stream_has_the_real_shape(name: str, real: dict[str, Any]) -> None:
    turn = TURNS[name]
    events = DIALECT.encode_stream(turn, {"model": "gpt-4o", "stream": True,
                                          "stream_options": {"include_usage": True}})
    assert all(e.startswith(b"data: ") and e.endswith(b"\n\n") for e in events)
    assert events[-1] == b"data: [DONE]\n\n"
    chunks = [json.loads(e[6:]) for e in events[:-1]]
    for chunk in chunks:
        assert _keys(chunk) in real["chunk"], sorted(chunk)
        for choice in chunk["choices"]:
            assert _keys(choice) in real["chunk.choice"]
    first = chunks[0]["choices"][0]["delta"]
    assert _keys(first) in real["delta.role"] and first["role"] == "assistant"
    frags = [f for c in chunks for ch in c["choices"] for f in ch["delta"].get("tool_calls") or ()]
    for frag in frags:
        place = "fragment.first" if "id" in frag else "fragment.next"
        assert _keys(frag) in real[place] and _keys(frag["function"]) in real[place + ".function"]
    finish = [c for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
    assert len(finish) == 1 and _keys(finish[0]["choices"][0]["delta"]) in real["delta.finish"]
    assert chunks[-1]["choices"] == [] and _keys(chunks[-1]["usage"]) in real["usage"]
    # and the raw reading of it gives back the turn, as it does for the real streams
    facts = _raw_stream_facts(chunks)
    assert facts["calls"] == [(c.id, c.name, c.arguments_text()) for c in turn.tool_calls]
    assert facts["text"] == turn.text and facts["finish"] == turn.expected_finish()


def test_fake_content_types_are_the_real_ones() -> None:
    real = Counter((i.response_text is not None, i.response_headers.get("content-type"))
                   for p in FILES for i in _openai(p) if i.status == 200)
    fake = FakeProvider("openai", turns=[TURNS["calls"], TURNS["calls"]])
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}]}
    auth = {"authorization": f"Bearer {fake.api_key}"}
    for streamed in (False, True):
        status, headers, _ = fake.respond("POST", "/v1/chat/completions", auth,
                                          json.dumps(dict(body, stream=streamed)).encode())
        assert status == 200
        assert (streamed, headers["content-type"]) in real, (streamed, dict(real))

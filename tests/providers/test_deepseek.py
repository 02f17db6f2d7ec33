"""The ``deepseek`` provider (issue 13): DeepSeek's Chat Completions on the openai wire.

Its rules with their exact texts, its error bodies, its stream shape, and the official openai SDK
(strict validation) reading every response and stream the fake sends. The DeepSeek cases with
their negative controls (``controls_deepseek.py``) and the reference adapter on every case that
applies to deepseek run in ``test_controls.py``.
"""

from __future__ import annotations

import json
from typing import Any

import openai_wire_sdk as w
import pytest

from pytest_toolcall.cases import ScriptedCall, Turn, default_registry
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.deepseek.dialect import (
    ORPHAN_TOOL,
    REASONING_MISSING,
    UNANSWERED,
    DeepSeek,
)
from pytest_toolcall.providers.fake import FakeProvider
from pytest_toolcall.core.model import Reasoning
from pytest_toolcall.providers import get
from pytest_toolcall.providers.deepseek.reference import DeepSeekAdapter


def test_deepseek_errors_in_its_own_words() -> None:
    from pytest_toolcall.providers.errors import error_reply

    status, headers, body = error_reply("deepseek", "rate_limit", 7)
    assert (status, headers) == (429, {}), "DeepSeek sends no rate-limit headers, no delay"
    assert body["error"]["type"] == "rate_limit_error"
    assert body["error"]["message"].startswith("Too many requests. Your current concurrency")
    assert error_reply("deepseek", "quota")[:2] == (402, {})
    assert error_reply("deepseek", "model_not_found")[2]["error"]["message"] == "Model Not Exist"
    for kind in ("rate_limit", "quota", "auth", "model_not_found", "context_length"):
        assert error_reply("deepseek", kind)[2]["error"]["code"] == "invalid_request_error"
    with pytest.raises(KeyError):
        error_reply("deepseek", "permission")


# -- the provider's rules, with their texts -----------------------------------------------------

def test_routes_and_auth() -> None:
    d = get_dialect("deepseek")
    for path in ("/chat/completions", "/v1/chat/completions", "/beta/chat/completions"):
        assert d.route("POST", path)
    assert not d.route("POST", "/v1/responses") and not d.route("GET", "/chat/completions")
    assert d.check_auth({"authorization": "Bearer k-1234"}, {}, "k-1234") is None
    wrong = d.check_auth({"authorization": "Bearer sk-nope9f2c"}, {}, "k-1234")
    assert wrong is not None and (wrong.status, wrong.rule) == (401, "auth.invalid")
    assert dict(wrong.body) == {"error": {
        "message": "Authentication Fails, Your api key: ****9f2c is invalid",
        "type": "authentication_error", "param": None, "code": "invalid_request_error"}}
    missing = d.check_auth({}, {}, "k-1234")
    assert missing is not None and (missing.status, missing.rule) == (401, "auth.missing")


def _body(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "deepseek-v4-flash", "messages": [
        {"role": "user", "content": "weather?"}, *messages], **extra}


_CALL = {"role": "assistant", "content": "", "tool_calls": [
    {"id": "call_00_A", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
_RESULT = {"role": "tool", "tool_call_id": "call_00_A", "content": "ok"}


def test_pairing_errors_in_deepseeks_words() -> None:
    d = DeepSeek()
    unanswered = d.validate(_body(_CALL))
    assert unanswered is not None and unanswered.message == UNANSWERED
    assert dict(unanswered.body)["error"]["code"] == "invalid_request_error"
    orphan = d.validate(_body(_RESULT))
    assert orphan is not None and (orphan.status, orphan.message) == (400, ORPHAN_TOOL)
    assert d.validate(_body(_CALL, _RESULT)) is None


def test_reasoning_content_must_come_back_with_the_calls_the_fake_sent_with_it() -> None:
    d = DeepSeek()
    thought = Turn(reasoning=(Reasoning(type="thinking", text="hm"),),
                   tool_calls=(ScriptedCall(id="call_00_A", name="f"),))
    message = d.encode_response(thought, {})["choices"][0]["message"]
    assert message["reasoning_content"] == "hm" and message["content"] == ""
    dropped = d.validate(_body(_CALL, _RESULT))
    assert dropped is not None and dropped.rule == "messages.reasoning_content.missing"
    assert dict(dropped.body) == {"error": {"message": REASONING_MISSING,
                                            "type": "invalid_request_error", "param": None,
                                            "code": "invalid_request_error"}}
    null = dict(_CALL, reasoning_content=None)
    assert d.validate(_body(null, _RESULT)) is not None
    for kept in ("hm", ""):  # the key must be there; DeepSeek accepts "" (Raven #297)
        assert d.validate(_body(dict(_CALL, reasoning_content=kept), _RESULT)) is None
    # thinking disabled: the rule does not apply; turns without reasoning never need it
    assert d.validate(_body(_CALL, _RESULT, thinking={"type": "disabled"})) is None
    assert DeepSeek().validate(_body(_CALL, _RESULT)) is None


def test_stream_shape() -> None:
    turn = Turn(reasoning=(Reasoning(type="thinking", text="abcdef"),),
                tool_calls=(ScriptedCall(name="get_time", arguments='{"tz": "UTC"}'),))
    events = DeepSeek().encode_stream(turn, {"model": "deepseek-v4-flash"})
    assert events[-1] == b"data: [DONE]\n\n"
    chunks = [json.loads(e[len(b"data: "):]) for e in events[:-1]]
    deltas = [ch["choices"][0]["delta"] for ch in chunks]
    assert deltas[0] == {"role": "assistant", "content": None, "reasoning_content": ""}
    assert "".join(d.get("reasoning_content") or "" for d in deltas) == "abcdef"
    frags = [f for d in deltas for f in d.get("tool_calls") or ()]
    assert frags[0]["id"].startswith("call_00_") and len(frags[0]["id"]) == 32
    assert frags[0]["function"] == {"name": "get_time", "arguments": ""}
    assert all(set(f) == {"index", "function"} and set(f["function"]) == {"arguments"}
               for f in frags[1:]), "id and name come once"
    last = chunks[-1]
    assert last["choices"][0]["finish_reason"] == "tool_calls" and last["usage"]
    assert {"prompt_cache_hit_tokens", "prompt_cache_miss_tokens"} <= set(last["usage"])
    assert all("usage" not in ch for ch in chunks[:-1]), "no usage key without include_usage"
    comments = DeepSeek().encode_stream(turn.model_copy(update={"stream": turn.stream.model_copy(
        update={"quirks": frozenset({"sse_comments"})})}), {})
    assert comments[0] == b": keep-alive\n\n"


def test_provider_facts_are_sourced_and_dated() -> None:
    ds = get("deepseek")
    assert (ds.dialect, ds.family) == ("openai", "openai")
    assert {"routes", "auth", "error_shape", "reasoning_content", "stream_usage",
            "stream_fragments"} <= set(ds.facts)
    for name, fact in ds.facts.items():
        if fact.confirmed:
            assert fact.source and fact.confirmed >= "2026-11-25", name


# -- fidelity: the official openai SDK reads everything the deepseek fake sends ----------------

openai = pytest.importorskip("openai")


sdk = w.sdk_fixture("deepseek")


@pytest.mark.parametrize("mode", w.MODES)
@pytest.mark.parametrize("step", w.sdk_steps("deepseek"))
def test_openai_sdk_reads_every_deepseek_answer(sdk: tuple[Any, FakeProvider], step: Any,
                                                mode: str) -> None:
    client, fake = sdk
    fake.dialect.thinking_calls.clear()  # type: ignore[attr-defined]  # one case at a time
    w.assert_sdk_reads_reasoning_field(client, fake, step, mode, adapter=DeepSeekAdapter,
                                       call_ids=DeepSeek.call_ids)


def test_openai_sdk_reads_an_answer_behind_keep_alive_lines(sdk: tuple[Any, FakeProvider]
                                                            ) -> None:
    """The Rate Limit page: the empty lines 'do not affect the parsing of the JSON body by the
    OpenAI SDK' (openai 3.57.0, strict validation, confirmed 2026-11-25)."""
    client, fake = sdk
    step = default_registry()["wire.deepseek_keep_alive_lines"].steps[0]
    assert step.reply.error is not None and step.reply.error.raw_body.startswith("\n\n")
    fake.expect(step.reply)
    body = w.request_body(DeepSeekAdapter, step)
    message = client.chat.completions.create(**body).choices[0].message
    assert [x.function.name for x in message.tool_calls or ()] == ["get_weather", "get_weather"]
    assert message.content == "Checking both cities."

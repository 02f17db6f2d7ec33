"""The ``deepseek`` provider (issue 13): DeepSeek's Chat Completions on the openai wire.

Its rules with their exact texts, its stream shape, the DeepSeek cases with their negative
controls, the reference adapter on every case that applies to deepseek, and the official openai
SDK (strict validation) reading every response and stream the fake sends.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import controls_deepseek as c  # tests/ is on sys.path
import pytest

from pytest_toolcall.cases import ScriptedCall, Turn, default_registry
from pytest_toolcall.dialects import get_dialect
from pytest_toolcall.dialects.deepseek import (
    ORPHAN_TOOL,
    REASONING_MISSING,
    UNANSWERED,
    DeepSeek,
)
from pytest_toolcall.errors import ConformanceFailure
from pytest_toolcall.fake import FakeProvider, in_process_endpoint, serve
from pytest_toolcall.fake.provider import Endpoint
from pytest_toolcall.model import Reasoning
from pytest_toolcall.providers import get
from pytest_toolcall.reference import reference_profile
from pytest_toolcall.reference.deepseek import DeepSeekAdapter
from pytest_toolcall.runner import run_case

PROFILE = reference_profile("deepseek")

#: (case id, broken adapter, the clause the case must name)
CONTROLS = [
    ("wire.deepseek_reasoning_replayed", c.DropsReasoning,
     "request.messages.reasoning_content.missing"),
    ("wire.deepseek_reasoning_replayed", c.EditsReasoning, "wire.deepseek.reasoning_replayed"),
    ("wire.deepseek_reasoning_replayed", c.ReasoningAsText, "response.text"),
    ("wire.deepseek_reasoning_replayed", c.ReasoningNotDecoded, "response.reasoning"),
    ("stream.deepseek_reasoning_replayed", c.StreamDropsReasoning, "response.reasoning"),
    ("stream.deepseek_reasoning_replayed", c.DropsReasoning,
     "request.messages.reasoning_content.missing"),
    ("wire.deepseek_empty_reasoning_replayed", c.NonEmptyReasoningOnly,
     "request.messages.reasoning_content.missing"),
    ("stream.deepseek_usage_on_finish_chunk", c.UsageChunkOnly, "response.usage"),
    ("errors.deepseek_insufficient_balance", c.RetriesEverything, "errors.retryable"),
    ("wire.deepseek_keep_alive_lines", c.FirstLineOnly, "adapter.raised"),
]

#: the shared cases that run on DeepSeek's own bodies (the errors family's kinds, the keep-alive
#: comments), each with the bug it must catch there
SHARED_CONTROLS = [
    ("errors.rate_limited", c.NeverRetryable, "errors.retryable"),
    ("errors.rate_limited", c.StatusLost, "errors.status"),
    ("errors.rate_limited", c.DropsErrorCode, "errors.type"),
    ("errors.rate_limited_stream", c.NeverRetryable, "errors.retryable"),
    ("errors.quota_exhausted", c.EveryErrorRetryable, "errors.retryable"),
    ("errors.auth_invalid", c.EveryErrorRetryable, "errors.retryable"),
    ("errors.model_not_found", c.EveryErrorRetryable, "errors.retryable"),
    ("errors.model_not_found", c.StatusLost, "errors.status"),
    ("errors.context_length", c.DropsErrorCode, "errors.type"),
    ("errors.context_length", c.EveryErrorRetryable, "errors.retryable"),
    ("errors.server_error", c.NeverRetryable, "errors.retryable"),
    ("errors.server_error", c.StatusLost, "errors.status"),
    ("errors.overloaded", c.NeverRetryable, "errors.retryable"),
    ("stream.sse_comment_lines", c.BreaksOnKeepAlive, "adapter.raised"),
]


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    ep = in_process_endpoint(FakeProvider("deepseek"))
    yield ep
    ep.close()


@pytest.mark.parametrize(("case_id", "broken", "clause"), CONTROLS,
                         ids=[f"{cid}-{b.__name__}" for cid, b, _ in CONTROLS])
def test_case_fails_its_negative_control(case_id: str, broken: type, clause: str,
                                         endpoint: Endpoint) -> None:
    with pytest.raises(ConformanceFailure) as exc:
        run_case(default_registry()[case_id], broken.from_endpoint(endpoint), PROFILE, endpoint)
    assert exc.value.clause == clause, exc.value.render()


def test_every_deepseek_case_has_a_negative_control() -> None:
    own = {case.id for case in default_registry() if case.dialects == ("deepseek",)}
    assert own == {row[0] for row in CONTROLS}


@pytest.mark.parametrize(("case_id", "broken", "clause"), SHARED_CONTROLS,
                         ids=[f"{cid}-{b.__name__}" for cid, b, _ in SHARED_CONTROLS])
def test_shared_case_fails_its_negative_control_on_deepseek(case_id: str, broken: type,
                                                            clause: str,
                                                            endpoint: Endpoint) -> None:
    case = default_registry()[case_id]
    assert case.applies_to("deepseek")
    with pytest.raises(ConformanceFailure) as exc:
        run_case(case, broken.from_endpoint(endpoint), PROFILE, endpoint)
    assert exc.value.clause == clause, exc.value.render()


def test_every_error_kind_deepseek_has_runs_with_a_control() -> None:
    from pytest_toolcall.dialects.provider_errors import kinds_for

    assert set(kinds_for("deepseek")) == {"rate_limit", "quota", "auth", "model_not_found",
                                          "context_length", "server_error", "overloaded"}
    kind_cases = {case.id for case in default_registry().select(["errors.*"], "deepseek")
                  if case.dialects != ("*",) and case.dialects != ("deepseek",)}
    assert kind_cases == {row[0] for row in SHARED_CONTROLS if row[0].startswith("errors.")}


def test_deepseek_errors_in_its_own_words() -> None:
    from pytest_toolcall.dialects.provider_errors import error_reply

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


DEEPSEEK_CASES = sorted(case.id for case in default_registry().select(dialect="deepseek")
                        if case.contract == "chat" and all(PROFILE.claims(n) for n in case.needs))


@pytest.mark.parametrize("case_id", DEEPSEEK_CASES)
def test_reference_adapter_passes(case_id: str, endpoint: Endpoint) -> None:
    run_case(default_registry()[case_id], DeepSeekAdapter.from_endpoint(endpoint), PROFILE,
             endpoint)
    assert all(e.path == "/chat/completions" for e in endpoint.exchanges)


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
            assert fact.source and fact.confirmed == "2026-11-25", name


# -- fidelity: the official openai SDK reads everything the deepseek fake sends ----------------

openai = pytest.importorskip("openai")


def _steps() -> list[Any]:
    out = []
    for case in default_registry().select(dialect="deepseek"):
        for n, step in enumerate(case.steps):
            turn, plan = step.reply, step.reply.stream
            if (step.expect == "error" or turn.error or plan.error_after is not None
                    or plan.truncate_after is not None or plan.quirks
                    or any(x.arguments is None for x in turn.tool_calls)
                    or turn.expected_finish() not in ("stop", "tool_calls", "length")):
                continue
            out.append(pytest.param(step, id=f"{case.id}/step{n + 1}"))
    return out


@pytest.fixture(scope="module")
def sdk() -> Iterator[tuple[Any, FakeProvider]]:
    fake = FakeProvider("deepseek")
    with serve(fake) as ep:
        client = openai.OpenAI(base_url=ep.base_url, api_key=ep.api_key, max_retries=0,
                               timeout=10, _strict_response_validation=True,
                               http_client=openai.DefaultHttpxClient(trust_env=False))
        yield client, fake
        client.close()


@pytest.mark.parametrize("mode", ["create", "create_stream", "stream_helper"])
@pytest.mark.parametrize("step", _steps())
def test_openai_sdk_reads_every_deepseek_answer(sdk: tuple[Any, FakeProvider], step: Any,
                                                mode: str) -> None:
    client, fake = sdk
    turn = step.reply
    fake.dialect.thinking_calls.clear()  # type: ignore[attr-defined]  # one case at a time
    fake.expect(turn)
    body = DeepSeekAdapter("http://unused.invalid", "k").build_body(step.request, stream=False)
    ids = DeepSeek.call_ids(turn)
    want_calls = [(i, x.name, x.arguments_text()) for i, x in zip(ids, turn.tool_calls)]
    want_reasoning = "".join(r.text or "" for r in turn.reasoning) if turn.reasoning else None
    if mode == "create":
        done = client.chat.completions.create(**body)
        message = done.choices[0].message
        got_calls = [(x.id, x.function.name, x.function.arguments)
                     for x in message.tool_calls or ()]
        reasoning = (message.model_extra or {}).get("reasoning_content")
        usage = done.usage
    elif mode == "create_stream":
        chunks = list(client.chat.completions.create(**body, stream=True))
        slots: dict[int, list[Any]] = {}
        pieces: list[str] = []
        for ch in chunks:
            for choice in ch.choices:
                extra = (choice.delta.model_extra or {}).get("reasoning_content")
                if isinstance(extra, str):
                    pieces.append(extra)
                for f in choice.delta.tool_calls or ():
                    slot = slots.setdefault(f.index, [f.id, f.function.name, []])
                    slot[2].append(f.function.arguments or "")
        got_calls = [(s[0], s[1], "".join(s[2])) for _, s in sorted(slots.items())]
        reasoning = "".join(pieces) if turn.reasoning else None
        usage = chunks[-1].usage
        assert chunks[-1].choices[0].finish_reason == turn.expected_finish()
    else:
        with client.chat.completions.stream(**body) as s:
            done = s.get_final_completion()
        message = done.choices[0].message
        got_calls = [(x.id, x.function.name, x.function.arguments)
                     for x in message.tool_calls or ()]
        reasoning = want_reasoning  # the helper keeps only OpenAI's fields
        usage = done.usage
    assert got_calls == want_calls
    assert reasoning == want_reasoning
    if turn.usage is not None:
        assert usage is not None and usage.total_tokens == turn.usage.total_tokens


def test_openai_sdk_reads_an_answer_behind_keep_alive_lines(sdk: tuple[Any, FakeProvider]
                                                            ) -> None:
    """The Rate Limit page: the empty lines 'do not affect the parsing of the JSON body by the
    OpenAI SDK' (openai 3.57.0, strict validation, confirmed 2026-11-25)."""
    client, fake = sdk
    step = default_registry()["wire.deepseek_keep_alive_lines"].steps[0]
    assert step.reply.error is not None and step.reply.error.raw_body.startswith("\n\n")
    fake.expect(step.reply)
    body = DeepSeekAdapter("http://unused.invalid", "k").build_body(step.request, stream=False)
    message = client.chat.completions.create(**body).choices[0].message
    assert [x.function.name for x in message.tool_calls or ()] == ["get_weather", "get_weather"]
    assert message.content == "Checking both cities."

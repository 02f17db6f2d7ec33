"""The ``zhipu`` provider (issue 13): Zhipu AI / Z.ai GLM's Chat Completions on the openai wire.

Its rules with their exact texts (each with a request it accepts and one it refuses), its error
bodies, its stream shape, what its reference profile claims, and the official openai SDK (strict
validation) reading every response and stream the fake sends. The GLM cases with their negative
controls (``controls_zhipu.py``) and the reference adapter on every case that applies to zhipu run
in ``test_controls.py``.
"""

from __future__ import annotations

from typing import Any

import openai_wire_sdk as w
import pytest
from provider_kit import TOOL, assert_sourced_and_dated, bearer_refusals, chat_body

from pytest_toolcall.cases import ScriptedCall, Turn, Usage, default_registry
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.zhipu.dialect import (
    AUTH_INVALID,
    AUTH_MISSING,
    REQUEST_ID,
    TOOL_CHOICE_AUTO,
    Zhipu,
)
from pytest_toolcall.providers.fake import FakeProvider
from pytest_toolcall.core.model import Reasoning
from pytest_toolcall.providers.zhipu.reference import ZhipuAdapter
from pytest_toolcall.reference import reference_profile

PROFILE = reference_profile("zhipu")


def test_zhipu_errors_in_its_own_words() -> None:
    from pytest_toolcall.providers.errors import error_reply

    status, headers, body = error_reply("zhipu", "rate_limit", 7)
    assert (status, headers) == (429, {}), "GLM sends no rate-limit headers and no delay"
    assert body == {"error": {"code": "1302", "message": "您当前使用该API的并发数过高，请降低并发，"
                                                         "或联系客服增加限额。"}}
    assert error_reply("zhipu", "quota")[:2] == (429, {})
    assert error_reply("zhipu", "quota")[2]["error"]["code"] == "1113"
    assert error_reply("zhipu", "overloaded")[2]["error"]["code"] == "1305"
    assert error_reply("zhipu", "model_not_found")[:1] == (400,)
    assert error_reply("zhipu", "context_length")[2] == {"error": {
        "code": "1261", "message": "Prompt exceeds max length"}}
    for kind in ("rate_limit", "quota", "auth", "model_not_found", "context_length"):
        error = error_reply("zhipu", kind)[2]["error"]
        assert set(error) == {"code", "message"} and isinstance(error["code"], str)
    with pytest.raises(KeyError):
        error_reply("zhipu", "permission")


def test_reference_profile_claims_tool_choice_auto_only() -> None:
    assert PROFILE.tool_choice == frozenset({"auto"})
    skipped = {case.id for case in default_registry().select(dialect="zhipu")
               if any(n.startswith("tool_choice.") and not PROFILE.claims(n) for n in case.needs)}
    assert {"wire.tool_choice_none", "wire.tool_choice_required",
            "wire.tool_choice_named"} <= skipped


# -- the provider's rules, with their texts -----------------------------------------------------

def test_routes_and_auth() -> None:
    d = get_dialect("zhipu")
    assert d.base_path == "/api/paas/v4"
    for path in ("/api/paas/v4/chat/completions", "/api/coding/paas/v4/chat/completions"):
        assert d.route("POST", path)
    assert not d.route("POST", "/v1/chat/completions")
    assert not d.route("GET", "/api/paas/v4/chat/completions")
    wrong, missing = bearer_refusals(d, "k.1234")
    assert wrong.status == missing.status == 401
    assert dict(wrong.body) == {"error": {"code": "1000", "message": AUTH_INVALID}}
    assert dict(missing.body) == {"error": {"code": "1001", "message": AUTH_MISSING}}


def _body(**extra: Any) -> dict[str, Any]:
    return chat_body("glm-4.7", **{"tools": [TOOL], **extra})


def test_tool_choice_auto_only() -> None:
    d = Zhipu()
    assert d.validate(_body(tool_choice="auto")) is None
    assert d.validate(_body()) is None
    for choice in ("required", "none", {"type": "function", "function": {"name": "f"}}):
        refused = d.validate(_body(tool_choice=choice))
        assert refused is not None and (refused.status, refused.rule) == (400, "tool_choice.value")
        assert dict(refused.body) == {"error": {"code": "1214", "message": TOOL_CHOICE_AUTO}}


def test_glm_tool_types() -> None:
    d = Zhipu()
    web = {"type": "web_search", "web_search": {"enable": True, "search_engine": "search_pro"}}
    retrieval = {"type": "retrieval", "retrieval": {"knowledge_id": "kb-1"}}
    assert d.validate(_body(tools=[TOOL, web, retrieval])) is None
    refused = d.validate(_body(tools=[TOOL, {"type": "custom", "custom": {"name": "x"}}]))
    assert refused is not None and refused.status == 400
    assert dict(refused.body) == {"error": {"code": "1214",
                                            "message": "tools[1].type:type is illegal"}}
    # GLM's own tools never become canonical tools
    assert [t.name for t in d.decode_request(_body(tools=[TOOL, web])).tools] == ["f"]


def test_reasoning_content_decoded_and_not_enforced() -> None:
    d = Zhipu()
    call = {"role": "assistant", "content": "", "reasoning_content": "hm", "tool_calls": [
        {"id": "call_-1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    result = {"role": "tool", "tool_call_id": "call_-1", "content": "ok"}
    body = _body(messages=[{"role": "user", "content": "q"}, call, result],
                 thinking={"type": "enabled", "clear_thinking": False})
    assert d.validate(body) is None
    request = d.decode_request(body)
    assert request.reasoning is True
    assert request.messages[1].reasoning == (Reasoning(type="thinking", text="hm"),)
    dropped = dict(call)
    del dropped["reasoning_content"]
    # no error is documented or reported when it is left out: accepted
    assert d.validate(_body(messages=[{"role": "user", "content": "q"}, dropped, result])) is None


def test_response_shape() -> None:
    turn = Turn(text="Checking.", reasoning=(Reasoning(type="thinking", text="hm"),),
                tool_calls=(ScriptedCall(name="get_time"), ScriptedCall(name="get_weather")),
                usage=Usage(input_tokens=3, output_tokens=2, total_tokens=5))
    data = Zhipu().encode_response(turn, {"model": "glm-5.2"})
    assert data["id"] == data["request_id"] == REQUEST_ID and data["object"] == "chat.completion"
    message = data["choices"][0]["message"]
    assert message["reasoning_content"] == "hm" and message["content"] == "Checking."
    ids = [x["id"] for x in message["tool_calls"]]
    assert all(i.startswith("call_-") and len(i) == len("call_-") + 19 for i in ids)
    assert int(ids[1][5:]) == int(ids[0][5:]) + 1, "consecutive, as recorded"
    assert [x["index"] for x in message["tool_calls"]] == [0, 1]
    assert set(data["usage"]) == {"completion_tokens", "completion_tokens_details",
                                  "prompt_tokens", "prompt_tokens_details", "total_tokens"}


def test_stream_shape() -> None:
    turn = Turn(reasoning=(Reasoning(type="thinking", text="abcdef"),), text="ok",
                tool_calls=(ScriptedCall(name="get_time", arguments='{"tz": "UTC"}'),),
                usage=Usage(input_tokens=3, output_tokens=2, total_tokens=5))
    chunks = w.sse_chunks(Zhipu().encode_stream(turn, {"model": "glm-4.7"}))
    deltas = [ch["choices"][0]["delta"] for ch in chunks]
    assert all(d["role"] == "assistant" for d in deltas), "role on every delta"
    assert all("finish_reason" not in ch["choices"][0] for ch in chunks[:-1])
    assert "".join(d.get("reasoning_content") or "" for d in deltas) == "abcdef"
    last = chunks[-1]
    assert last["choices"][0]["finish_reason"] == "tool_calls" and last["usage"]
    (call,) = last["choices"][0]["delta"]["tool_calls"]
    assert call["function"] == {"arguments": '{"tz": "UTC"}', "name": "get_time"}
    assert call["index"] == 0 and call["type"] == "function" and call["id"].startswith("call_-")
    assert all("tool_calls" not in d for d in deltas[:-1]), "the call comes whole, once"
    # include_usage: a choices: [] chunk of its own after the finish chunk
    asked = w.sse_chunks(Zhipu().encode_stream(turn, {"stream_options": {"include_usage": True}}))
    assert "usage" not in asked[-2] and asked[-1]["choices"] == [] and asked[-1]["usage"]
    # tool_stream: the arguments in fragments, not on the finish chunk
    frags = w.sse_chunks(Zhipu().encode_stream(turn, {"tool_stream": True}))
    pieces = [f for ch in frags for f in ch["choices"][0]["delta"].get("tool_calls") or ()]
    assert len(pieces) > 1 and "tool_calls" not in frags[-1]["choices"][0]["delta"]


def test_provider_facts_are_sourced_and_dated() -> None:
    assert_sourced_and_dated(
        "zhipu", "routes auth error_shape error_codes tool_choice tool_types reasoning_content "
        "stream_shape stream_usage ids",
        unconfirmed="tool_choice_wording server_error_wording")


# -- fidelity: the official openai SDK reads everything the zhipu fake sends ---------------------

openai = pytest.importorskip("openai")


def _auto_only(step: Any) -> bool:
    """GLM refuses any tool_choice but 'auto' (the reference profile claims 'auto' only)."""
    return step.request.tool_choice in (None, "auto")


sdk = w.sdk_fixture("zhipu")


@w.each_answer("zhipu", keep=_auto_only)
def test_openai_sdk_reads_every_zhipu_answer(sdk: tuple[Any, FakeProvider], step: Any,
                                             mode: str) -> None:
    client, fake = sdk
    w.assert_sdk_reads_reasoning_field(client, fake, step, mode, adapter=ZhipuAdapter,
                                       call_ids=Zhipu.call_ids)


def test_openai_sdk_raises_glm_errors_with_the_business_code(sdk: tuple[Any, FakeProvider]
                                                             ) -> None:
    from pytest_toolcall.cases import ErrorReply

    client, fake = sdk
    fake.expect(Turn(error=ErrorReply(kind="quota")))
    with pytest.raises(openai.RateLimitError) as exc:
        client.chat.completions.create(model="glm-4.7", messages=[{"role": "user",
                                                                   "content": "hi"}])
    assert exc.value.status_code == 429 and exc.value.code == "1113"

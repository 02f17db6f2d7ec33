"""The ``azure-openai`` provider (issue 13): Azure OpenAI's Chat Completions on the openai wire.

Its routes and auth (each with a request it accepts and one it refuses, with Azure's body), its
error bodies, its stream shape, the reference adapter's token and arguments, and the official openai
SDK's ``AzureOpenAI`` client (and ``OpenAI`` on the v1 route) reading every response and stream the
fake sends. The Azure cases with their negative controls (``controls_azure_openai.py``) and the
reference adapter on every case that applies to azure-openai, on both routes, run in
``test_controls.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from provider_kit import assert_sourced_and_dated, endpoint_fixture

from pytest_toolcall.cases import ErrorReply, ScriptedCall, Turn, Usage, default_registry
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.azure_openai.dialect import (
    AUTH_DENIED,
    PROMPT_FILTER_CHUNK,
    RESOURCE_NOT_FOUND,
    VERSION_NOT_SUPPORTED,
    AzureOpenAI,
)
from pytest_toolcall.core.errors import UsageError
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.providers.fake.provider import Endpoint
from pytest_toolcall.providers.azure_openai.reference import AzureOpenAIAdapter
from pytest_toolcall.reference import reference_profile
from pytest_toolcall.run.runner import run_case

PROFILE = reference_profile("azure-openai")

endpoint = endpoint_fixture("azure-openai")


def test_azure_errors_in_its_own_words() -> None:
    from pytest_toolcall.providers.errors import error_reply

    status, headers, body = error_reply("azure-openai", "rate_limit", 7)
    assert status == 429 and headers["retry-after"] == "7"
    assert headers["retry-after-ms"] == "7000"
    assert body["error"]["code"] == "429" and "ChatCompletions_Create" in body["error"]["message"]
    assert "Please retry after 7 seconds" in body["error"]["message"]
    assert error_reply("azure-openai", "auth")[2] == {"error": {"code": "401",
                                                               "message": AUTH_DENIED}}
    assert error_reply("azure-openai", "model_not_found")[:1] == (404,)
    assert error_reply("azure-openai", "model_not_found")[2]["error"]["code"] == \
        "DeploymentNotFound"
    assert error_reply("azure-openai", "context_length")[2]["error"]["code"] == \
        "context_length_exceeded"
    for kind in ("quota", "permission"):
        with pytest.raises(KeyError):
            error_reply("azure-openai", kind)


def test_reference_adapter_with_an_entra_token(endpoint: Endpoint) -> None:
    adapter = AzureOpenAIAdapter(endpoint.base_url, azure_ad_token=endpoint.api_key,
                                 client=endpoint.client, async_client=endpoint.async_client)
    assert adapter.headers == {"authorization": f"Bearer {endpoint.api_key}"}
    run_case(default_registry()["stream.azure_prompt_filter_chunk"], adapter, PROFILE, endpoint)


def test_reference_adapter_bad_input_names_the_fix() -> None:
    with pytest.raises(UsageError, match="route must be 'deployments' or 'v1'"):
        AzureOpenAIAdapter("http://x", "k", route="openai")
    with pytest.raises(UsageError, match="exactly one of api_key"):
        AzureOpenAIAdapter("http://x", "k", azure_ad_token="t")
    with pytest.raises(UsageError, match="exactly one of api_key"):
        AzureOpenAIAdapter("http://x")


# -- the provider's rules, with their texts -----------------------------------------------------

def _check(d: AzureOpenAI, path: str, query: dict[str, str], headers: dict[str, str]) -> Any:
    assert d.route("POST", path)
    return d.check_auth(headers, query, "k-123")


def test_routes_api_version_and_auth() -> None:
    d = get_dialect("azure-openai")
    assert d.base_path == ""
    dated = "/openai/deployments/my-gpt4o/chat/completions"
    key = {"api-key": "k-123"}
    assert _check(d, dated, {"api-version": "2024-10-21"}, key) is None
    assert _check(d, dated, {"api-version": "2025-04-01-preview"}, key) is None
    assert _check(d, "/openai/v1/chat/completions", {}, key) is None
    assert _check(d, "/openai/v1/chat/completions", {}, {"authorization": "Bearer k-123"}) is None
    assert _check(d, dated, {"api-version": "2024-10-21"},
                  {"authorization": "Bearer k-123"}) is None  # the Entra token's stand-in
    missing = _check(d, dated, {}, key)
    assert (missing.status, missing.rule) == (404, "api_version.missing")
    assert dict(missing.body) == {"error": {"code": "404", "message": RESOURCE_NOT_FOUND}}
    unknown = _check(d, dated, {"api-version": "latest"}, key)
    assert (unknown.status, unknown.rule) == (400, "api_version.unsupported")
    assert dict(unknown.body) == {"error": {"code": "BadRequest",
                                            "message": VERSION_NOT_SUPPORTED}}
    for headers, rule in (({}, "auth.missing"), ({"api-key": "nope"}, "auth.invalid"),
                          ({"authorization": "Bearer nope"}, "auth.invalid")):
        denied = _check(d, dated, {"api-version": "2024-10-21"}, headers)
        assert (denied.status, denied.rule) == (401, rule)
        assert dict(denied.body) == {"error": {"code": "401", "message": AUTH_DENIED}}
    for path in ("/chat/completions", "/v1/chat/completions", "/openai/chat/completions",
                 "/openai/deployments/x/completions"):
        assert not d.route("POST", path)
    assert dict(d.not_found("POST", "/chat/completions").body) == {
        "error": {"code": "404", "message": RESOURCE_NOT_FOUND}}
    assert not d.route("GET", dated)


def test_deployment_route_needs_no_model_in_the_body() -> None:
    body = {"messages": [{"role": "user", "content": "hi"}]}
    assert AzureOpenAI().validate(body) is None
    assert AzureOpenAI().validate({"messages": []}).rule == "messages.empty"


def test_prompt_filtered_error_body() -> None:
    status, body = AzureOpenAI().encode_error(ErrorReply(status=400, code="content_filter"))
    error = body["error"]
    assert status == 400 and error["code"] == "content_filter" and error["param"] == "prompt"
    assert error["type"] is None and error["status"] == 400
    assert error["innererror"]["code"] == "ResponsibleAIPolicyViolation"
    assert error["innererror"]["content_filter_result"]["violence"]["filtered"] is True


def _chunks(events: list[bytes]) -> list[dict[str, Any]]:
    assert events[-1] == b"data: [DONE]\n\n"
    return [json.loads(e[len(b"data: "):]) for e in events[:-1]]


def test_stream_shape() -> None:
    turn = Turn(text="ok", tool_calls=(ScriptedCall(name="get_time", arguments='{"tz": "UTC"}'),),
                usage=Usage(input_tokens=3, output_tokens=2, total_tokens=5))
    chunks = _chunks(AzureOpenAI().encode_stream(turn, {"stream_options": {"include_usage":
                                                                            True}}))
    assert chunks[0] == PROMPT_FILTER_CHUNK, "the prompt-filter chunk opens the stream"
    assert chunks[0]["choices"] == [] and chunks[0]["object"] == ""
    body = chunks[1:]
    assert all("content_filter_results" in ch["choices"][0] for ch in body[:-1])
    text = [ch for ch in body[:-1] if ch["choices"][0]["delta"].get("content")]
    assert text and all(ch["choices"][0]["content_filter_results"]["hate"]["severity"] == "safe"
                        for ch in text)
    assert all(ch["choices"][0]["content_filter_results"] == {} for ch in body[:-1]
               if ch not in text)
    assert body[-1]["choices"] == [] and body[-1]["usage"]["total_tokens"] == 5
    assert all(list(ch) == sorted(ch) for ch in body), "Azure's keys come sorted"
    # the plan's cut counts the chunks after the role chunk, as for OpenAI
    cut = Turn(text="abcdefghij", stream={"truncate_after": 1, "fragment_size": 2})
    events = AzureOpenAI().encode_stream(cut, {})
    assert len(events) == 3 and b"[DONE]" not in b"".join(events)


def test_response_shape() -> None:
    turn = Turn(text=None, tool_calls=(ScriptedCall(name="get_time"),))
    data = AzureOpenAI().encode_response(turn, {"model": "my-deployment"})
    assert data["prompt_filter_results"][0]["prompt_index"] == 0
    assert data["choices"][0]["content_filter_results"] == {}
    assert list(data) == sorted(data)
    filtered = AzureOpenAI().encode_response(Turn(text="cut", finish_reason="content_filter"), {})
    choice = filtered["choices"][0]
    assert choice["finish_reason"] == "content_filter"
    assert choice["content_filter_results"]["violence"]["filtered"] is True


def test_provider_facts_are_sourced_and_dated() -> None:
    assert_sourced_and_dated(
        "azure-openai", "routes api_version auth error_shape deployment_not_found rate_limit "
        "content_filter stream_shape ids tool_pairing",
        unconfirmed="auth_missing_key overloaded request_errors midstream_error", or_later=True)


# -- fidelity: the official openai SDK reads everything the azure fake sends ---------------------

openai = pytest.importorskip("openai")


def _steps() -> list[Any]:
    out = []
    for case in default_registry().select(dialect="azure-openai"):
        for n, step in enumerate(case.steps):
            turn, plan = step.reply, step.reply.stream
            if (step.expect == "error" or turn.error or plan.error_after is not None
                    or plan.truncate_after is not None or plan.quirks or plan.reset
                    or plan.stall or any(x.arguments is None for x in turn.tool_calls)):
                continue
            out.append(pytest.param(step, id=f"{case.id}/step{n + 1}"))
    return out


@pytest.fixture(scope="module")
def sdk() -> Iterator[tuple[Any, Any, FakeProvider]]:
    fake = FakeProvider("azure-openai")
    ep = in_process_endpoint(fake)
    azure = openai.AzureOpenAI(azure_endpoint=ep.base_url, api_version="2024-10-21",
                               api_key=ep.api_key, max_retries=0, timeout=10,
                               http_client=ep.httpx2_client(), _strict_response_validation=True)
    v1 = openai.OpenAI(base_url=ep.base_url + "/openai/v1", api_key=ep.api_key, max_retries=0,
                       timeout=10, http_client=ep.httpx2_client(),
                       _strict_response_validation=True)
    yield azure, v1, fake
    azure.close()
    v1.close()


#: AzureOpenAI in the three ways of reading; OpenAI(base_url=.../openai/v1) on the JSON answers
#: (its streams are the same bytes on the same parser)
SDK_RUNS = [pytest.param(p.values[0], mode, "AzureOpenAI", id=f"{p.id}-{mode}")
            for p in _steps() for mode in ("create", "create_stream", "stream_helper")] + [
    pytest.param(p.values[0], "create", "OpenAI-v1", id=f"{p.id}-create-v1")
    for p in _steps()]


@pytest.mark.parametrize(("step", "mode", "client_kind"), SDK_RUNS)
def test_openai_sdk_reads_every_azure_answer(sdk: tuple[Any, Any, FakeProvider], step: Any,
                                             mode: str, client_kind: str) -> None:
    azure, v1, fake = sdk
    client = azure if client_kind == "AzureOpenAI" else v1
    turn = step.reply
    fake.expect(turn)
    body = AzureOpenAIAdapter("http://unused.invalid", "k").build_body(step.request,
                                                                       stream=False)
    ids = AzureOpenAI.call_ids(turn)
    want_calls = [(i, x.name, x.arguments_text()) for i, x in zip(ids, turn.tool_calls)]
    if mode == "create":  # strict validation of the JSON answer
        done = client.chat.completions.create(**body)
        message = done.choices[0].message
        got_calls = [(x.id, x.function.name, x.function.arguments)
                     for x in message.tool_calls or ()]
        assert done.choices[0].finish_reason == turn.expected_finish()
        assert (done.model_extra or {}).get("prompt_filter_results")
    elif mode == "create_stream":
        # strict validation refuses Azure's first chunk (object "" is not the SDK's Literal
        # "chat.completion.chunk": see test_strict_sdk_refuses_the_prompt_filter_chunk); the
        # SDK's default, lenient, reads it
        lenient = client.with_options(max_retries=0)
        lenient._strict_response_validation = False
        chunks = list(lenient.chat.completions.create(**body, stream=True))
        assert chunks[0].choices == [] and chunks[0].model_extra["prompt_filter_results"]
        slots: dict[int, list[Any]] = {}
        for ch in chunks:
            for choice in ch.choices:
                for f in choice.delta.tool_calls or ():
                    slot = slots.setdefault(f.index, [f.id, f.function.name, []])
                    slot[2].append(f.function.arguments or "")
        got_calls = [(s[0], s[1], "".join(s[2])) for _, s in sorted(slots.items())]
        finishes = [ch.choices[0].finish_reason for ch in chunks if ch.choices]
        assert finishes[-1] == turn.expected_finish()
    else:
        lenient = client.with_options(max_retries=0)
        lenient._strict_response_validation = False
        if turn.expected_finish() == "content_filter":
            # the helper's documented refusal (openai/lib/_parsing/_completions.py)
            with pytest.raises(openai.ContentFilterFinishReasonError):
                with lenient.chat.completions.stream(**body) as s:
                    s.get_final_completion()
            return
        with lenient.chat.completions.stream(**body) as s:
            done = s.get_final_completion()
        message = done.choices[0].message
        got_calls = [(x.id, x.function.name, x.function.arguments)
                     for x in message.tool_calls or ()]
    assert got_calls == want_calls


def test_strict_sdk_refuses_the_prompt_filter_chunk(sdk: tuple[Any, Any, FakeProvider]) -> None:
    """A documented interaction, not a fake defect: Azure's first chunk has object "" (recorded
    streams, InternLM/MindSearch #310), which the SDK's strict (private, off by default)
    validation refuses; the fake sends what Azure sends."""
    azure, _, fake = sdk
    fake.expect(Turn(text="hi"))
    with pytest.raises(openai.APIResponseValidationError):
        list(azure.chat.completions.create(model="gpt-4o", stream=True, messages=[
            {"role": "user", "content": "hi"}]))


def test_openai_sdk_raises_azure_errors(sdk: tuple[Any, Any, FakeProvider]) -> None:
    azure, _, fake = sdk
    fake.expect(Turn(error=ErrorReply(kind="rate_limit", retry_after=3)))
    with pytest.raises(openai.RateLimitError) as exc:
        azure.chat.completions.create(model="gpt-4o", messages=[{"role": "user",
                                                                 "content": "hi"}])
    assert exc.value.status_code == 429 and exc.value.code == "429"
    assert exc.value.response.headers["retry-after-ms"] == "3000"
    fake.expect(Turn(error=ErrorReply(status=400, code="content_filter")))
    with pytest.raises(openai.BadRequestError) as bad:
        azure.chat.completions.create(model="gpt-4o", messages=[{"role": "user",
                                                                 "content": "hi"}])
    assert bad.value.code == "content_filter"
    fake.expect(Turn(error=ErrorReply(kind="model_not_found")))
    with pytest.raises(openai.NotFoundError) as missing:
        azure.chat.completions.create(model="nope", messages=[{"role": "user",
                                                               "content": "hi"}])
    assert missing.value.code == "DeploymentNotFound"


def test_openai_sdk_paths_and_headers(sdk: tuple[Any, Any, FakeProvider]) -> None:
    azure, v1, fake = sdk
    fake.expect(Turn(text="hi"))
    before = len(fake.exchanges)
    azure.chat.completions.create(model="my-dep", messages=[{"role": "user", "content": "hi"}])
    v1.chat.completions.create(model="my-dep", messages=[{"role": "user", "content": "hi"}])
    dated, latest = fake.exchanges[before:]
    assert dated.path == "/openai/deployments/my-dep/chat/completions" and dated.status == 200
    assert "api-key" in dated.headers and "authorization" not in dated.headers
    assert latest.path == "/openai/v1/chat/completions" and latest.status == 200

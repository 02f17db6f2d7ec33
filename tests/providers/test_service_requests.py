"""Issue 30: each OpenAI-compatible service's fake takes what the service takes, and refuses
only in the service's own error shape.

- Requests built with each service's own SDK (mistralai, groq, cerebras-cloud-sdk, zai-sdk)
  across its documented tool features are accepted and decoded by its fake.
- Requests the service takes and OpenAI refuses (Mistral's type-less tools and ``tool_calls:
  []``, OpenRouter's server tools), sent with the openai SDK pointed at the fake, and the docs'
  examples, are accepted; the negative controls: what stays refused still is.
- The routes the services serve on another wire (DeepSeek's and OpenRouter's ``/responses``).
- Every rejection any service fake makes (OpenAI's rules, a wrong key, an unknown path) is in
  that service's error shape.
- Groq's answers as recorded: usage at the top level of the finish chunk, 9-character call ids,
  a mid-stream ``event: error`` with ``failed_generation``; OpenRouter's comment lines.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from pytest_toolcall.cases import ErrorReply, ScriptedCall, StreamPlan, Turn, Usage
from pytest_toolcall.core._names import PROVIDERS
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.fake import Endpoint, FakeProvider, in_process_endpoint
from pytest_toolcall.providers.openai.dialect import OPENAI_RULES, OpenAIChat

_PARAMS = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
_TOOL = {"type": "function", "function": {"name": "get_weather", "description": "Weather.",
                                           "parameters": _PARAMS}}
_OK = Turn(text="ok", usage=Usage(input_tokens=3, output_tokens=2, total_tokens=5))


def _endpoint(name: str) -> Endpoint:
    return in_process_endpoint(FakeProvider(name))


def _accepted(ep: Endpoint) -> Any:
    """The fake's last exchange was taken and decoded, breaking none of OpenAI's rules (no
    ``request.unconfirmed`` finding); its decoded request."""
    ex = ep.exchanges[-1]
    assert ex.rejection is None, (ex.path, ex.rejection)
    assert ex.decode_error is None, ex.decode_error
    assert ex.breaches == (), [b.rule for b in ex.breaches]
    return ex.decoded


def _post(ep: Endpoint, body: Any, path: str = "/chat/completions",
          key: str | None = None) -> httpx.Response:
    key = ep.api_key if key is None else key
    headers = {"authorization": f"Bearer {key}"} if key else {}
    return ep.client.post(ep.base_url + path, json=body, headers=headers)


def _history(call_id: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": call_id, "type": "function",
                 "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
            {"role": "tool", "tool_call_id": call_id, "content": "sunny"}]


# -- the services' own SDKs --------------------------------------------------------------------

@pytest.fixture()
def mistral_sdk() -> Iterator[tuple[Any, Endpoint]]:
    client_mod = pytest.importorskip("mistralai.client")
    ep = _endpoint("mistral")
    yield client_mod.Mistral(api_key=ep.api_key, server_url=ep.base_url.removesuffix("/v1"),
                             client=ep.httpx2_client(), timeout_ms=10_000), ep
    ep.close()


def _mistral_requests() -> list[Any]:
    """The SDK's documented tool features (docs.mistral.ai function calling; mistralai 3.7.0
    models): typed tools, every tool_choice, parallel_tool_calls, a history with calls and
    results, and the sampling keys of its request model."""
    pytest.importorskip("mistralai.client")
    from mistralai.client import models as m

    tool = m.Tool(function=m.Function(name="get_weather", description="Weather.",
                                      parameters=_PARAMS))
    history = [m.SystemMessage(content="Be brief."), m.UserMessage(content="Weather in Paris?"),
               m.AssistantMessage(content="", tool_calls=[m.ToolCall(
                   id="D681PevKs", function=m.FunctionCall(
                       name="get_weather", arguments='{"city": "Paris"}'))]),
               m.ToolMessage(tool_call_id="D681PevKs", name="get_weather", content="sunny")]
    user = [m.UserMessage(content="Weather in Paris?")]
    named = m.ToolChoice(type="function", function=m.FunctionName(name="get_weather"))
    return [
        *({"messages": user, "tools": [tool], "tool_choice": c}
          for c in ("auto", "none", "any", "required", named)),
        {"messages": user, "tools": [tool], "parallel_tool_calls": False},
        {"messages": history, "tools": [tool]},
        {"messages": user, "tools": [tool], "temperature": 0.2, "top_p": 0.9, "max_tokens": 64,
         "random_seed": 7, "min_tokens": 1, "stop": ["\n\n"], "safe_prompt": False,
         "response_format": m.ResponseFormat(type="text")},
    ]


@pytest.mark.parametrize("stream", [False, True], ids=["complete", "stream"])
def test_mistralai_requests_are_accepted(mistral_sdk: tuple[Any, Endpoint], stream: bool) -> None:
    client, ep = mistral_sdk
    for kwargs in _mistral_requests():
        ep.fake.expect(_OK)
        if stream:
            list(client.chat.stream(model="mistral-small-latest", **kwargs))
        else:
            client.chat.complete(model="mistral-small-latest", **kwargs)
        decoded = _accepted(ep)
        assert [t.name for t in decoded.tools] == ["get_weather"]


def test_mistral_takes_every_key_of_the_sdk_request_model() -> None:
    """The closed schema's keys are the SDK's (mistralai 3.7.0 ChatCompletionRequest and its
    stream twin): a key the SDK sends is never refused as extra."""
    pytest.importorskip("mistralai.client")
    from mistralai.client import models as m

    from pytest_toolcall.providers.mistral.dialect import _REQUEST_KEYS

    for model in (m.ChatCompletionRequest, m.ChatCompletionStreamRequest):
        assert {f.alias or k for k, f in model.model_fields.items()} <= _REQUEST_KEYS, model


def _groq_client(ep: Endpoint) -> Any:
    groq = pytest.importorskip("groq")
    return groq.Groq(base_url=ep.base_url.removesuffix("/openai/v1"), api_key=ep.api_key,
                     max_retries=0, timeout=10,
                     http_client=httpx.Client(transport=ep.transport, trust_env=False))


def _openai_requests(call_id: str) -> list[dict[str, Any]]:
    """The tool features the OpenAI-shaped SDKs (groq, cerebras, zai) document: tools, every
    tool_choice mode and a named one, parallel_tool_calls, a history with calls and results."""
    user = [{"role": "user", "content": "Weather in Paris?"}]
    named = {"type": "function", "function": {"name": "get_weather"}}
    return [
        *({"messages": user, "tools": [_TOOL], "tool_choice": c}
          for c in ("auto", "none", "required", named)),
        {"messages": user, "tools": [_TOOL], "parallel_tool_calls": True},
        {"messages": _history(call_id), "tools": [_TOOL]},
    ]


def _cerebras_client(ep: Endpoint) -> Any:
    sdk = pytest.importorskip("cerebras.cloud.sdk")
    return sdk.Cerebras(base_url=ep.base_url.removesuffix("/v1"), api_key=ep.api_key,
                        max_retries=0, warm_tcp_connection=False,
                        http_client=httpx.Client(transport=ep.transport, trust_env=False))


#: service -> (its SDK's client on the fake, a model, a call id of its shape); both SDKs
#: document tool_choice none/auto/required and a named function, and parallel_tool_calls
_OPENAI_SHAPED_SDKS = {"groq": (_groq_client, "llama-3.3-70b-versatile", "48f5r72yf"),
                       "cerebras": (_cerebras_client, "gpt-oss-120b", "call_5fd2c0a1")}


@pytest.mark.parametrize("stream", [False, True], ids=["create", "stream"])
@pytest.mark.parametrize("name", sorted(_OPENAI_SHAPED_SDKS))
def test_groq_and_cerebras_sdk_requests_are_accepted(name: str, stream: bool) -> None:
    build, model, call_id = _OPENAI_SHAPED_SDKS[name]
    ep = _endpoint(name)
    client = build(ep)
    for kwargs in _openai_requests(call_id):
        ep.fake.expect(_OK)
        answer = client.chat.completions.create(model=model, stream=stream, **kwargs)
        if stream:
            list(answer)
        assert _accepted(ep).tools[0].name == "get_weather"


#: the tool_choice values a service is shown to refuse (Zhipu: auto only, fact tool_choice)
_REFUSED_CHOICES = {"zhipu": ("none", "required", "named")}


@pytest.mark.parametrize("name", [n for n in PROVIDERS if n not in ("openai", "azure-openai")
                                  and isinstance(get_dialect(n), OpenAIChat)])
def test_openai_sdk_requests_are_accepted_by_every_service(name: str) -> None:
    """The openai SDK pointed at each service's fake, with the documented tool features (every
    tool_choice the service takes, parallel_tool_calls, a history with a call and its result):
    taken, decoded, and no finding. (Azure's routes: tests/providers/test_azure_openai.py.)"""
    ep = _endpoint(name)
    client = _openai_sdk(ep)
    call_id = "D681PevKs"  # 9 letters and digits: Mistral's id rule takes it, the others too
    for kwargs in _openai_requests(call_id):
        choice = kwargs.get("tool_choice")
        label = "named" if isinstance(choice, dict) else choice
        if label in _REFUSED_CHOICES.get(name, ()):
            continue
        ep.fake.expect(_OK)
        for stream in (False, True):
            answer = client.chat.completions.create(model="m", stream=stream, **kwargs)
            if stream:
                list(answer)
            assert _accepted(ep).tools[0].name == "get_weather", (name, kwargs)
    ep.close()


@pytest.mark.parametrize("stream", [False, True], ids=["create", "stream"])
def test_zai_sdk_requests_are_accepted(stream: bool) -> None:
    zai = pytest.importorskip("zai")
    ep = _endpoint("zhipu")
    client = zai.ZhipuAiClient(api_key=ep.api_key, base_url=ep.base_url, http_client=ep.client,
                               max_retries=0, timeout=10)
    user = [{"role": "user", "content": "Weather in Paris?"}]
    # GLM documents tool_choice 'auto' only ('当前仅支持auto'), and its own web_search tool
    web = {"type": "web_search", "web_search": {"enable": True, "search_result": True}}
    for kwargs in [{"messages": user, "tools": [_TOOL]},
                   {"messages": user, "tools": [_TOOL], "tool_choice": "auto"},
                   {"messages": user, "tools": [_TOOL, web]},
                   {"messages": _history("call_-8079469379447435218"), "tools": [_TOOL]}]:
        ep.fake.expect(_OK)
        answer = client.chat.completions.create(model="glm-4.7", stream=stream, **kwargs)
        if stream:
            list(answer)
        assert _accepted(ep).tools[0].name == "get_weather"


# -- what the service takes and OpenAI refuses (the openai SDK pointed at the fake) -----------

def _openai_sdk(ep: Endpoint) -> Any:
    openai = pytest.importorskip("openai")
    return openai.OpenAI(base_url=ep.base_url, api_key=ep.api_key, max_retries=0, timeout=10,
                         http_client=httpx.Client(transport=ep.transport, trust_env=False))


def test_mistral_takes_type_less_tools_and_empty_tool_calls() -> None:
    """Fact tool_type_default, empty_tool_calls: taken, and the tool is decoded."""
    ep = _endpoint("mistral")
    client = _openai_sdk(ep)
    untyped = {"function": _TOOL["function"]}
    messages = [{"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello.", "tool_calls": []},
                {"role": "user", "content": "Weather in Paris?"}]
    for stream in (False, True):
        ep.fake.expect(_OK)
        answer = client.chat.completions.create(model="mistral-small-latest", messages=messages,
                                                tools=[untyped], tool_choice="any", stream=stream)
        if stream:
            list(answer)
        decoded = _accepted(ep)
        assert [t.name for t in decoded.tools] == ["get_weather"], "the type-less tool decoded"
        assert decoded.tools[0].parameters == _PARAMS
        assert decoded.tool_choice == "required"


def test_mistral_docs_example_is_accepted() -> None:
    """docs.mistral.ai/capabilities/function_calling: tools, tool_choice 'any',
    parallel_tool_calls false."""
    ep = _endpoint("mistral")
    ep.fake.expect(_OK)
    r = _post(ep, {"model": "mistral-large-latest", "messages": [
        {"role": "user", "content": "What's the status of my transaction T1001?"}],
        "tools": [{"type": "function", "function": {
            "name": "retrieve_payment_status", "description": "Get payment status of a "
            "transaction", "parameters": {"type": "object", "properties": {"transaction_id": {
                "type": "string", "description": "The transaction id."}},
                "required": ["transaction_id"]}}}],
        "tool_choice": "any", "parallel_tool_calls": False})
    assert r.status_code == 200 and _accepted(ep).tools[0].name == "retrieve_payment_status"


def test_mistral_negative_controls_still_refused_in_its_shape() -> None:
    """A type-less tool is still checked as a function tool: its bad name is OpenAI's breach,
    not confirmed for Mistral (taken, noted; issue 30); a tool result answering no call stays
    refused (fact message_order), in Mistral's top-level shape."""
    from pytest_toolcall.providers.base import noting_breaches

    ep = _endpoint("mistral")
    user = [{"role": "user", "content": "hi"}]
    with noting_breaches() as breaches:
        assert get_dialect("mistral").validate(
            {"model": "m", "messages": user, "tools": [{"function": {"name": "bad name"}}]}) \
            is None
    assert [b.rule for b in breaches] == ["tools.name.pattern"]
    r = _post(ep, {"model": "m", "messages": [*user, {"role": "tool", "tool_call_id": "D681PevKs",
                                                      "content": "x"}]})
    assert r.status_code == 400 and ep.exchanges[-1].rejection.rule == "messages.tool.orphan"
    body = r.json()
    assert body["object"] == "error" and "error" not in body and body["message"]


def test_openrouter_takes_its_server_tools() -> None:
    """openrouter.ai/docs/guides/features/server-tools: server tools beside function tools."""
    ep = _endpoint("openrouter")
    client = _openai_sdk(ep)
    for server in ({"type": "openrouter:web_search"}, {"type": "openrouter:advisor"},
                   {"type": "openrouter:web_search", "parameters": {"max_results": 3}}):
        ep.fake.expect(_OK)
        client.chat.completions.create(model="openai/gpt-5.2", tools=[_TOOL, server],
                                       messages=[{"role": "user", "content": "Weather?"}])
        assert [t.name for t in _accepted(ep).tools] == ["get_weather"]
    ep.fake.expect(_OK)  # server tools alone
    r = _post(ep, {"model": "openai/gpt-5.2", "messages": [{"role": "user", "content": "x"}],
                   "tools": [{"type": "openrouter:web_search"}]})
    assert r.status_code == 200 and _accepted(ep).tools == ()


def test_openrouter_negative_control_and_integer_code() -> None:
    """A type that is no server tool is OpenAI's breach, not confirmed for OpenRouter: taken
    and noted (issue 30); a request without a model is taken (fact model_optional); what it
    refuses (no messages) carries OpenRouter's integer code."""
    ep = _endpoint("openrouter")
    ep.fake.expect(_OK)
    r = _post(ep, {"model": "m", "messages": [{"role": "user", "content": "x"}],
                   "tools": [{"type": "web_search"}]})
    assert r.status_code == 200 and [b.rule for b in ep.exchanges[-1].breaches] == ["tools.type"]
    r = _post(ep, {"messages": [{"role": "user", "content": "x"}]})
    assert r.status_code == 200 and ep.exchanges[-1].breaches == ()
    r = _post(ep, {"model": "m", "messages": []})
    assert r.status_code == 400 and r.json()["error"]["code"] == 400
    assert ep.exchanges[-1].rejection.rule == "messages.empty"


# -- the routes on another wire ------------------------------------------------------------------

#: a body breaking a Responses rule the service's route is shown to enforce
_CONFIRMED_BREACH = {
    "deepseek": {"model": "m", "input": [{"type": "function_call_output", "call_id": "c",
                                          "output": "x"}]},
    "openrouter": {"model": "m", "input": [{"type": "function_call", "call_id": "c",
                                            "arguments": "{}"}]},
}


@pytest.mark.parametrize("name,path", [("deepseek", "/responses"), ("deepseek", "/v1/responses"),
                                       ("openrouter", "/responses")])
def test_responses_route_is_served(name: str, path: str) -> None:
    openai = pytest.importorskip("openai")
    ep = _endpoint(name)
    base = ep.base_url + path.removesuffix("/responses")
    client = openai.OpenAI(base_url=base, api_key=ep.api_key, max_retries=0, timeout=10,
                           http_client=httpx.Client(transport=ep.transport, trust_env=False))
    ep.fake.expect(Turn(tool_calls=(ScriptedCall(name="get_weather",
                                                 arguments={"city": "Paris"}),)))
    answer = client.responses.create(model="deepseek-v4-flash", input="Weather in Paris?",
                                     tools=[{"type": "function", "name": "get_weather",
                                             "parameters": _PARAMS}])
    assert answer.output[-1].name == "get_weather"
    assert _accepted(ep).tools[0].name == "get_weather"
    # its key check and its error shape, not OpenAI's
    # a rule the route is shown to enforce (facts responses_tool_pairing and
    # responses_request_schema); OpenAI's others are taken there (issue 30)
    bad = _post(ep, _CONFIRMED_BREACH[name], path)
    own = get_dialect(name).encode_error(ErrorReply(status=400, message="m"))[1]
    # (OpenRouter's error may carry metadata: its documented shape, fact error_shape)
    assert bad.status_code == 400
    assert set(bad.json()["error"]) - {"metadata"} == set(own["error"])
    assert _post(ep, {"model": "m", "input": "x"}, path, key="wrong").status_code == 401
    assert set(_post(ep, {"model": "m", "input": "x"}, path, key="wrong").json()["error"]) == \
        set(get_dialect(name).auth_rejection("Bearer wrong").body["error"])


# -- every rejection in the service's shape ---------------------------------------------------

_BAD_BODIES = [
    {"model": "m"},
    {"model": "m", "messages": []},
    {"model": "m", "messages": [{"role": "user", "content": "x"}], "tools": [{"type": "x"}]},
    {"model": "m", "messages": [{"role": "wizard", "content": "x"}]},
    {"model": "m", "messages": [{"role": "user", "content": "x"}], "tool_choice": "auto"},
    {"model": "m", "messages": [{"role": "user", "content": "x"}],
     "tools": [_TOOL], "tool_choice": {"type": "function", "function": {"name": "nope"}}},
    {"model": "m", "messages": [{"role": "user", "content": "x"},
                                {"role": "tool", "tool_call_id": "x", "content": "y"}]},
]
_SERVICES = [n for n in PROVIDERS
             if n != "openai" and isinstance(get_dialect(n), OpenAIChat)]


#: the chat route of a service whose base URL alone does not make it (Azure's v1 route)
_ROUTES = {"azure-openai": "/openai/v1/chat/completions"}


def _post_route(ep: Endpoint, name: str, body: Any) -> httpx.Response:
    if name not in _ROUTES:
        return _post(ep, body)
    host = ep.base_url.split("://", 1)[0] + "://" + ep.base_url.split("://", 1)[1].split("/")[0]
    return ep.client.post(host + _ROUTES[name], json=body, headers={
        "authorization": f"Bearer {ep.api_key}", "api-key": ep.api_key})


def _shape(body: Any) -> Any:
    """The keys of an error body, nested one level (what 'the same shape' compares)."""
    if not isinstance(body, dict):
        return type(body).__name__
    return {k: sorted(v) if isinstance(v, dict) else type(v).__name__ for k, v in body.items()
            if k not in ("param", "code", "raw_status_code", "metadata")}


@pytest.mark.parametrize("name", _SERVICES)
def test_every_rejection_is_in_the_service_shape(name: str) -> None:
    dialect = get_dialect(name)
    own = _shape(dialect.encode_error(ErrorReply(status=400, message="m", code="c",
                                                 param="p"))[1])
    ep = _endpoint(name)
    seen = 0
    for body in _BAD_BODIES:
        r = _post_route(ep, name, body)
        rejection = ep.exchanges[-1].rejection
        if rejection is None or r.status_code != 400:
            continue  # the service takes it (lenient) or refuses it otherwise
        seen += 1
        if rejection.rule.startswith("body."):  # a closed schema's own 422-style body
            continue
        got = _shape(r.json())
        assert set(got) == set(own), (name, rejection.rule, r.json())
        for key, keys in got.items():  # the error object's fields: the service's own
            if isinstance(keys, list) and isinstance(own[key], list):
                assert set(keys) <= set(own[key]), (name, rejection.rule, r.json())
    assert seen >= 2, name  # no messages, an empty array: refused on every service
    path_404 = ep.client.post(ep.base_url + "/nowhere", json={},
                              headers={"authorization": f"Bearer {ep.api_key}"})
    # (LM Studio answers an unknown endpoint with a 200 and an error: its own way)
    assert ep.exchanges[-1].rejection.rule == "route", path_404.text
    if "error" in own:
        assert "error" in path_404.json() or "detail" in path_404.json(), path_404.json()
    else:
        assert "error" not in path_404.json() or isinstance(path_404.json()["error"], str)


def test_openai_rules_stated_per_service() -> None:
    """Every rule a service states (confirmed or lenient) is one of OpenAI's, and a confirmed
    rule names a fact with a source and a date (tests/providers/test_unconfirmed_rules.py: what
    the fake does with the others)."""
    from pytest_toolcall.providers import get

    for name in _SERVICES:
        dialect = get_dialect(name)
        assert set(dialect.lenient_rules) <= set(OPENAI_RULES), name
        assert set(dialect.confirmed_rules) <= set(OPENAI_RULES), name
        assert not set(dialect.lenient_rules) & set(dialect.confirmed_rules), name
        for rule, fact in dialect.confirmed_rules.items():
            assert get(name).facts[fact].is_confirmed, (name, rule, fact)


def test_openai_refuses_tool_choice_any_and_its_decoder_says_why() -> None:
    ep = _endpoint("openai")
    r = _post(ep, {"model": "m", "messages": [{"role": "user", "content": "x"}],
                   "tools": [_TOOL], "tool_choice": "any"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_value"
    with pytest.raises(ValueError, match=r"tool_choice\.value.*'any'"):
        get_dialect("openai").decode_request(
            {"model": "m", "messages": [{"role": "user", "content": "x"}], "tools": [_TOOL],
             "tool_choice": "any"})


# -- the answers as recorded -----------------------------------------------------------------

def test_groq_usage_at_the_top_level_reaches_an_openai_reader() -> None:
    """The openai SDK reads usage from the finish chunk's top-level field (fact stream_usage)."""
    ep = _endpoint("groq")
    client = _openai_sdk(ep)
    ep.fake.expect(Turn(text="ok", tool_calls=(ScriptedCall(name="get_weather",
                                                            arguments={"city": "Paris"}),),
                        usage=Usage(input_tokens=3, output_tokens=2, total_tokens=5)))
    chunks = list(client.chat.completions.create(
        model="llama-3.3-70b-versatile", messages=[{"role": "user", "content": "x"}],
        tools=[_TOOL], stream=True))
    assert [c.usage.total_tokens for c in chunks if c.usage] == [5]
    ids = [t.id for c in chunks for ch in c.choices for t in ch.delta.tool_calls or ()]
    assert len(ids) == 1 and len(ids[0]) == 9 and ids[0].isalnum()


def test_groq_midstream_error_is_an_error_event_with_failed_generation() -> None:
    """Fact midstream_error: ``event: error``, ``status_code``, ``failed_generation``; both
    SDKs raise it."""
    openai = pytest.importorskip("openai")
    groq = pytest.importorskip("groq")
    error = ErrorReply(status=400, message="Tool call validation failed: parameters for tool "
                       "get_weather did not match schema", code="tool_use_failed",
                       fields={"failed_generation": '{"name": "get_weather"}'})
    turn = Turn(text="Checking the weather now.", stream=StreamPlan(error_after=1, error=error))
    events = get_dialect("groq").encode_stream(turn, {})
    last = events[-1].decode()
    assert last.startswith("event: error\ndata: ")
    data = json.loads(last.split("data: ", 1)[1])
    assert data["error"]["status_code"] == 400
    assert data["error"]["failed_generation"] == '{"name": "get_weather"}'
    ep = _endpoint("groq")
    for client, module in [(_openai_sdk(ep), openai), (_groq_client(ep), groq)]:
        ep.fake.expect(turn)
        with pytest.raises(module.APIError, match="Tool call validation failed"):
            list(client.chat.completions.create(
                model="llama-3.3-70b-versatile", messages=[{"role": "user", "content": "x"}],
                stream=True))


def test_openrouter_streams_open_with_comment_lines() -> None:
    """Fact sse_comments: every stream, not only the quirk's."""
    events = get_dialect("openrouter").encode_stream(_OK, {})
    assert events[:5] == [b": OPENROUTER PROCESSING\n\n"] * 5
    assert events[5].startswith(b"data: ")
    quirk = _OK.model_copy(update={"stream": StreamPlan(quirks=frozenset({"sse_comments"}))})
    between = get_dialect("openrouter").encode_stream(quirk, {})
    assert between.count(b": OPENROUTER PROCESSING\n\n") > 5


def test_ollama_cloud_compat_route_under_the_ollama_reference() -> None:
    """Ollama cloud's OpenAI-compatible route (``https://ollama.com/v1``, a bearer key) is
    spoken by the ollama folder's OllamaCompatAdapter and served by the ollama fake."""
    from pytest_toolcall.core.model import ChatRequest, ToolSpec, UserMessage
    from pytest_toolcall.providers.ollama.reference import OllamaCompatAdapter

    ep = _endpoint("ollama")
    adapter = OllamaCompatAdapter(ep.base_url, "cloud-key", client=ep.client)
    request = ChatRequest(messages=(UserMessage(content="Weather in Paris?"),),
                          tools=(ToolSpec(name="get_weather", parameters=_PARAMS),))
    call = Turn(tool_calls=(ScriptedCall(name="get_weather", arguments={"city": "Paris"}),))
    ep.fake.expect(call)
    answer = adapter.complete(request)
    assert [c.name for c in answer.tool_calls] == ["get_weather"]
    assert ep.exchanges[-1].path == "/v1/chat/completions"
    assert ep.exchanges[-1].headers["authorization"] == "<redacted>"
    assert _accepted(ep).tools[0].name == "get_weather"
    ep.fake.expect(call)
    events = list(adapter.stream(request))
    assert ep.exchanges[-1].streamed and events

"""pydantic-ai's models used directly as chat models (issues 10 and 14): ``OpenAIChatModel``,
``OpenAIResponsesModel``, ``AnthropicModel`` and ``GoogleModel`` run the chat families (wire,
stream, errors) on the fake through ``PydanticAIModelShim`` (``shims.pydantic_ai``), each on its
own dialect, and the cases each fails are PINNED here with the reason: a real defect of
pydantic-ai (with its public issue where one was found), a documented limitation, or a kit
defect ("KIT:"). A case that starts failing or passing changes the pin deliberately.

Confirmed 2026-11-25 against pydantic-ai-slim 2.68.0 (with openai 3.57.0, anthropic 2.14.0,
google-genai 3.6.1, httpx2 2.16.2: the versions in this environment); issues were searched on
GitHub on that date. Every model is wired in-process: pydantic-ai's providers take an
``httpx2.AsyncClient`` (``ep.httpx2_async_client()``), and ``ModelSettings(max_retries=0)``
turns off the provider SDK's own retries (the kit counts requests).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest

from pytest_toolcall.core.errors import UsageError

pytest.importorskip("pydantic_ai")

from pytest_toolcall.shims._pydantic_ai_models import (  # noqa: E402
    PydanticAIModelShim,
    dialect_of,
)
from tests.shim_matrix import (  # noqa: E402
    assert_pinned,
    installed,
    libraries_imported_by,
    run_matrix,
)


# -- the factories a user writes (the ones in the docs section) -------------------------------
def _openai_chat(ep: Any, **profile: Any) -> Any:
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.profiles.openai import OpenAIModelProfile
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.settings import ModelSettings

    return OpenAIChatModel(
        "gpt-4o-mini", provider=OpenAIProvider(base_url=ep.base_url, api_key=ep.api_key,
                                               http_client=ep.httpx2_async_client()),
        settings=ModelSettings(max_retries=0),
        profile=OpenAIModelProfile(**profile) if profile else None)


def _openai_chat_finish_required(ep: Any) -> Any:
    return _openai_chat(ep, openai_chat_streaming_requires_finish_reason=True)


def _openai_responses(ep: Any) -> Any:
    from pydantic_ai.models.openai import OpenAIResponsesModel
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.settings import ModelSettings

    # a reasoning model: pydantic-ai decides by the model name whether reasoning items are
    # replayed (profile openai_supports_encrypted_reasoning_content); under gpt-4o-mini they
    # go back as '<think>' text, and wire/stream.responses_reasoning_replayed fail
    return OpenAIResponsesModel(
        "gpt-5-mini", provider=OpenAIProvider(base_url=ep.base_url, api_key=ep.api_key,
                                              http_client=ep.httpx2_async_client()),
        settings=ModelSettings(max_retries=0))


def _anthropic(ep: Any) -> Any:
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider
    from pydantic_ai.settings import ModelSettings

    # the SDK adds /v1 itself; anthropic 2.x runs on httpx2
    return AnthropicModel(
        "claude-sonnet-4-6",
        provider=AnthropicProvider(base_url=ep.base_url.removesuffix("/v1"), api_key=ep.api_key,
                                   http_client=ep.httpx2_async_client()),
        settings=ModelSettings(max_retries=0))


def _google(ep: Any) -> Any:
    from pydantic_ai.models.google import GoogleModel
    from pydantic_ai.providers.google import GoogleProvider
    from pydantic_ai.settings import ModelSettings

    # base URL without the version: google-genai adds its default api_version, v1beta
    return GoogleModel(
        "gemini-2.5-flash",
        provider=GoogleProvider(base_url=ep.base_url.rsplit("/", 1)[0], api_key=ep.api_key,
                                http_client=ep.httpx2_async_client()),
        settings=ModelSettings(max_retries=0))


#: configuration -> (the module its provider SDK needs, dialect, factory)
MODELS: dict[str, tuple[str, str, Callable[[Any], Any]]] = {
    "OpenAIChatModel": ("openai", "openai", _openai_chat),
    "OpenAIChatModel (finish_reason required)": ("openai", "openai",
                                                 _openai_chat_finish_required),
    "OpenAIResponsesModel": ("openai", "openai-responses", _openai_responses),
    "AnthropicModel": ("anthropic", "anthropic", _anthropic),
    "GoogleModel": ("google.genai", "gemini", _google),
}

_SCHEMA = (
    "pydantic-ai's OpenAIJsonSchemaTransformer adds 'additionalProperties': false to every "
    "object schema that does not say (profiles/openai.py _transform_object, strict unset too): "
    "get_time's {'type': 'object', 'properties': {}} reaches OpenAI forbidding what it allowed. "
    "Deliberate, decided in https://github.com/pydantic/pydantic-ai/pull/2419 (to let more "
    "schemas use strict mode); a real change of meaning for hand-written and MCP schemas")
_TRUNCATED = (
    "a stream that ends without its end marker ({marker}) is returned by request_stream as a "
    "complete response (ModelResponse.state 'complete'), the cut-off arguments included. Real "
    "defect; {issue}")
_ID_NAME_REPEATED = (
    "pydantic-ai's parts manager appends every name fragment of a streamed call "
    "(ToolCallPartDelta._apply_to_part: 'Append incremental text to the existing tool_name'); "
    "servers that repeat the name in every chunk (llama.cpp, MiniMax, Fireworks) get "
    "'get_weatherget_weather...'. Real defect with those servers, reported against "
    "pydantic-ai's concatenation at https://github.com/ggml-org/llama.cpp/issues/13774; no "
    "pydantic-ai issue found")
_INDEX_STUCK = (
    "OpenAIChatModel's stream keys call fragments on the chunk's index alone "
    "(_chat_streaming.py: vendor_part_id=dtc.index), so calls that all arrive at index 0 with "
    "distinct ids (ollama #15457 shape) merge into one call with the names and arguments "
    "concatenated. Real defect with such servers; no pydantic-ai issue found (related: "
    "https://github.com/pydantic/pydantic-ai/issues/6759, parallel streamed calls cross-wired)")
_ZERO_ARGS_NULL = (
    "OpenAIChatModel validates the completion (LenientChatCompletion) with the SDK's "
    "'arguments: str', so a call with 'arguments': null, as OpenRouter and other compatible "
    "servers send for a tool without arguments, raises UnexpectedModelBehavior (in "
    "pydantic_ai.models.openai._chat_model). Real defect: "
    "fixed for OpenRouterModel only (https://github.com/pydantic/pydantic-ai/pull/3571, "
    "models/openrouter.py types arguments as str or None); the same error on OpenAIChatModel in "
    "https://github.com/pydantic/pydantic-ai/issues/822")

#: configuration -> {case id: (clause, why)}
PINNED: dict[str, dict[str, tuple[str, str]]] = {
    "OpenAIChatModel": {
        "stream.id_name_repeated": ("response.tool_calls.name", _ID_NAME_REPEATED),
        "stream.index_stuck_at_zero": ("response.tool_calls.count", _INDEX_STUCK),
        "stream.truncated": ("error.surfaced", _TRUNCATED.format(
            marker="[DONE] or a finish_reason",
            issue="https://github.com/pydantic/pydantic-ai/issues/6610, closed by an opt-in "
                  "profile flag (https://github.com/pydantic/pydantic-ai/pull/7096, see the "
                  "'finish_reason required' pin); off by default because OpenAI-compatible "
                  "servers do not all send one")),
        "wire.tool_definitions_intact": ("wire.tools.intact", _SCHEMA),
        "wire.zero_args_null": ("adapter.raised", _ZERO_ARGS_NULL),
    },
    # OpenAIChatModel(..., profile=OpenAIModelProfile(
    #     openai_chat_streaming_requires_finish_reason=True)): the truncated stream raises
    "OpenAIChatModel (finish_reason required)": {
        "stream.id_name_repeated": ("response.tool_calls.name", _ID_NAME_REPEATED),
        "stream.index_stuck_at_zero": ("response.tool_calls.count", _INDEX_STUCK),
        "wire.tool_definitions_intact": ("wire.tools.intact", _SCHEMA),
        "wire.zero_args_null": ("adapter.raised", _ZERO_ARGS_NULL),
    },
    "OpenAIResponsesModel": {
        "wire.tool_definitions_intact": ("wire.tools.intact", _SCHEMA),
        "wire.malformed_success": (
            "error.typed",
            "OpenAIResponsesModel does not validate the Response the openai SDK builds without "
            "validation (OpenAIChatModel does): a 200 body that is not a Response (a gateway's "
            "JSON error) has output None, and _process_response crashes with a TypeError "
            "('NoneType' object is not iterable, in pydantic_ai.models.openai._tool_search, "
            "tool_search_call_ids_by_output). Real defect; no pydantic-ai issue found"),
    },
    "AnthropicModel": {
        "stream.truncated": ("error.surfaced", _TRUNCATED.format(
            marker="message_stop",
            issue="no pydantic-ai issue found (the OpenAI Chat twin: "
                  "https://github.com/pydantic/pydantic-ai/issues/6610)")),
        "wire.anthropic_foreign_id_pattern": (
            "request.messages.tool_use.id_pattern",
            "AnthropicModel replays a history's tool call ids unchanged, so an id another "
            "provider issued that Anthropic's ^[a-zA-Z0-9_-]+$ refuses (Codex's 'call_...' and 'fc_...'"
            " joined by a pipe) makes every later request a 400. Real defect for cross-provider histories, which "
            "pydantic-ai supports; no pydantic-ai issue found (the same defect in another "
            "client: https://github.com/earendil-works/pi/issues/9048)"),

    },
    "GoogleModel": {
        "stream.truncated": ("error.surfaced", _TRUNCATED.format(
            marker="a chunk with finishReason",
            issue="no pydantic-ai issue found (the OpenAI Chat twin: "
                  "https://github.com/pydantic/pydantic-ai/issues/6610)")),
        "wire.malformed_success": (
            "error.surfaced",
            "GoogleModel reads a 200 answer without candidates as an empty ModelResponse "
            "(models/google.py _process_response: no candidate, no parts) and raises nothing; "
            "called directly, model.request returns it as the answer. Library behaviour "
            "(google-genai accepts any JSON object as a GenerateContentResponse, see the "
            "google-genai pin in tests/test_shims.py); related: "
            "https://github.com/pydantic/pydantic-ai/issues/4102"),
        "wire.gemini_success_not_object": (
            "error.surfaced",
            "google-genai reads a 200 JSON array as an empty GenerateContentResponse (as for "
            "shims.google_genai), and GoogleModel turns it into an empty ModelResponse "
            "(models/google.py _process_response: no candidate, no parts) and raises nothing. The "
            "same behaviour as for wire.malformed_success; no pydantic-ai issue found"),
        "wire.gemini_calls_without_signature": (
            "wire.history.tool_calls",
            "a call Gemini sent without an id gets a pyd_ai_ id from pydantic-ai, and "
            "GoogleModel sends every call's tool_call_id back as functionCall.id "
            "(models/google.py: FunctionCallDict(..., id=item.tool_call_id)), made-up ids "
            "included, so the history does not go back as it came. The Gemini API takes the "
            "field; Vertex refuses it: https://github.com/pydantic/pydantic-ai/issues/5081 "
            "(open; also https://github.com/pydantic/pydantic-ai/issues/4645)"),
    },
}


@pytest.mark.parametrize("configuration", list(PINNED))
@pytest.mark.usefixtures("one_ca_certificate")  # google-genai: tests/conftest.py
def test_each_model_fails_exactly_its_pinned_cases(configuration: str) -> None:
    module, dialect, factory = MODELS[configuration]
    if not installed(module):
        pytest.skip(f"{module} is not installed (pydantic-ai's model for it needs it)")
    failed, passed, _ = run_matrix(PydanticAIModelShim(factory), dialect)
    assert_pinned(configuration, failed, passed, PINNED[configuration], at_least=50)


def test_the_pins_cover_every_configuration() -> None:
    assert set(PINNED) == set(MODELS)


def test_each_model_speaks_its_dialect() -> None:
    from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint

    for configuration, (module, dialect, factory) in MODELS.items():
        if not installed(module):
            continue
        endpoint = in_process_endpoint(FakeProvider(dialect))
        assert dialect_of(factory(endpoint)) == dialect, configuration


# -- the shim's own bad input -------------------------------------------------------------------
def _endpoint(dialect: str = "openai") -> Any:
    from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint

    return in_process_endpoint(FakeProvider(dialect))


def test_a_factory_that_is_not_callable_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match=r"shims.pydantic_ai\(factory\): factory must be a "
                                         r"callable"):
        PydanticAIModelShim("openai:gpt-4o-mini")


@pytest.mark.parametrize(("made", "message"), [
    (lambda ep: "openai:gpt-4o-mini",
     r"returned builtins.str, expected a pydantic_ai.models.Model instance .*the model name "
     r"'openai:gpt-4o-mini' would make pydantic-ai build a client for the real provider"),
    (lambda ep: __import__("pydantic_ai.models.openai", fromlist=["x"]).OpenAIChatModel,
     r"the class OpenAIChatModel itself: return an instance built on the endpoint"),
    (lambda ep: __import__("pydantic_ai.providers.openai", fromlist=["x"]).OpenAIProvider(
        base_url=ep.base_url, api_key=ep.api_key, http_client=ep.httpx2_async_client()),
     r"returned pydantic_ai.providers.openai.OpenAIProvider, .*a provider: wrap it in its "
     r"model"),
    (lambda ep: __import__("pydantic_ai").Agent(_openai_chat(ep)),
     r"an Agent: return its model, or run the Agent loop under shims.pydantic_ai_agent"),
    (lambda ep: {}, r"returned builtins.dict, expected a pydantic_ai.models.Model instance"),
])
def test_a_factory_that_returns_the_wrong_kind_is_named(made: Callable[[Any], Any],
                                                        message: str) -> None:
    with pytest.raises(UsageError, match=message):
        PydanticAIModelShim(made)(_endpoint())


def test_a_model_on_another_dialect_is_a_usage_error() -> None:
    pytest.importorskip("anthropic")
    with pytest.raises(UsageError, match=r"OpenAIChatModel speaks the 'openai' dialect, but this "
                                         r"endpoint serves 'anthropic'; run with "
                                         r"--toolcall-provider=openai"):
        PydanticAIModelShim(_openai_chat)(_endpoint("anthropic"))


def test_a_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pydantic_ai.models", None)  # its import raises
    with pytest.raises(UsageError, match=r"shims.pydantic_ai needs the 'pydantic_ai' package.*"
                                         r"pip install 'pytest-toolcall\[pydantic-ai\]'"):
        PydanticAIModelShim(lambda ep: None)


def test_importing_the_shim_imports_no_library() -> None:
    assert libraries_imported_by("pytest_toolcall.shims._pydantic_ai_models", (
        "pydantic_ai", "openai", "anthropic", "google.genai")) == []


def test_the_adapter_is_async_and_streams() -> None:
    """pydantic-ai's models are async: the adapter is the kit's AsyncChatAdapter."""
    adapter = PydanticAIModelShim(_openai_chat)(_endpoint())
    assert callable(adapter.acomplete) and callable(adapter.astream)
    assert not hasattr(adapter, "complete") and not hasattr(adapter, "stream")

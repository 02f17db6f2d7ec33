"""shims.litellm (issues 10 and 14): ``litellm.completion`` on its openai/, anthropic/ and
gemini/ routes runs the chat families (wire, stream, errors) on the fake through the shim, and
the cases each route fails are PINNED here with the reason: a real defect of litellm (with its
public issue where one was found), a documented limitation, or "KIT:" (a kit defect: see the
report of issue 14).

Confirmed 2026-11-25 against litellm 1.110.2 (openai 3.57.0 underneath), the version in this
environment; issues searched on GitHub that day. Source references are to litellm 1.110.2.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from typing import Any

import pytest

from pytest_toolcall.core.errors import UsageError

# litellm fetches its model cost map from GitHub on import unless told otherwise (the shim sets
# this too, before it imports litellm; the factories below import litellm themselves)
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

pytestmark = pytest.mark.skipif(importlib.util.find_spec("litellm") is None,
                                reason="litellm is not installed (the 'litellm' extra)")


# -- the factories a user writes (the ones in the docs section) ---------------------------------
def _openai(ep: Any) -> dict[str, Any]:
    import openai

    return {"model": "openai/gpt-4o-mini", "api_base": ep.base_url, "api_key": ep.api_key,
            "client": openai.OpenAI(base_url=ep.base_url, api_key=ep.api_key,
                                    http_client=ep.client, max_retries=0)}


def _anthropic(ep: Any) -> dict[str, Any]:
    from litellm.llms.custom_httpx.http_handler import HTTPHandler

    return {"model": "anthropic/claude-sonnet-4-5", "api_key": ep.api_key,
            "api_base": ep.base_url.removesuffix("/v1"), "client": HTTPHandler(client=ep.client)}


def _gemini(ep: Any) -> dict[str, Any]:
    from litellm.llms.custom_httpx.http_handler import HTTPHandler

    return {"model": "gemini/gemini-3-flash-preview", "api_base": ep.base_url,
            "api_key": ep.api_key, "client": HTTPHandler(client=ep.client)}


#: route -> (dialect of the fake, factory)
ROUTES: dict[str, tuple[str, Callable[[Any], dict[str, Any]]]] = {
    "openai": ("openai", _openai),
    "anthropic": ("anthropic", _anthropic),
    "gemini": ("gemini", _gemini),
}

_TYPE = (
    "litellm replaces the provider's error type with its own taxonomy (a 429 becomes "
    "RateLimitError with type 'throttling_error' and code '429'); the provider's "
    "{provider_type} survives only inside the message text, with body=None and a synthetic "
    "response without the provider's headers. Library behaviour "
    "(litellm_core_utils/exception_mapping_utils.py); no litellm issue found")
_MALFORMED_FINISH = (
    "litellm's map_finish_reason maps {what} to 'stop' (core_helpers._FINISH_REASON_MAP, since "
    "https://github.com/BerriAI/litellm/pull/22138), so {consequence}. Real defect: "
    "{issue}")
_NO_RESULT_ID = (
    "litellm's input is the OpenAI Chat shape, which pairs a tool result with its call by "
    "tool_call_id: a history whose calls and results carry no ids (as Gemini sends them) is "
    "refused before any request ('Missing corresponding tool call for tool response message', "
    "raised as APIConnectionError, in litellm.litellm_core_utils.exception_mapping_utils). "
    "Documented limitation of the input format; the same "
    "pairing gap as https://github.com/BerriAI/litellm/issues/11262")
#: route -> {case id: (clause, why)}
PINNED: dict[str, dict[str, tuple[str, str]]] = {
    "openai": {
        "errors.quota_exhausted": (
            "errors.retryable",
            "litellm's own retry policy, litellm._should_retry (utils.should_retry, 'a "
            "reimplementation of openai's should retry logic'), retries every 429, "
            "insufficient_quota included, so the shim reports retryable=True. The same policy "
            "as openai-python (see the openai pin in tests/test_shims.py)"),
        "stream.index_missing": (
            "response.tool_calls.count",
            "litellm.stream_chunk_builder keys tool-call fragments on 'index': fragments "
            "without one (Gemini's and Ollama's OpenAI-compatible streams) all land on one call "
            "and three calls become one. Real defect; related: "
            "https://github.com/BerriAI/litellm/issues/7621 (parallel calls squeezed into one by "
            "stream_chunk_builder)"),
        "stream.index_stuck_at_zero": (
            "response.tool_calls.count",
            "litellm.stream_chunk_builder keys fragments on index alone, so calls that all "
            "arrive at index 0 with distinct ids merge into one: "
            "https://github.com/BerriAI/litellm/issues/7621 (the same merge, Groq), "
            "https://github.com/BerriAI/litellm/issues/33678 (Ollama)"),
        "wire.unknown_finish_reason": (
            "response.finish_reason",
            _MALFORMED_FINISH.format(
                what="every finish reason it does not know ('insufficient_system_resource')",
                consequence="a cut-short answer reads as a complete one",
                issue="https://github.com/BerriAI/litellm/pull/23800 (restore pass-through, "
                      "closed unmerged), https://github.com/BerriAI/litellm/issues/33968")),
    },
    "anthropic": {
        **{case: ("errors.type", _TYPE.format(provider_type="error.type ('rate_limit_error')"))
           for case in ("errors.auth_invalid", "errors.context_length",
                        "errors.model_not_found", "errors.overloaded",
                        "errors.permission_denied", "errors.rate_limited",
                        "errors.rate_limited_stream", "errors.request_too_large",
                        "errors.server_error", "errors.in_stream")},
        "wire.anthropic_is_error": (
            "wire.anthropic.is_error",
            "litellm's input (an OpenAI tool message) has no error flag, and "
            "convert_to_anthropic_tool_result never sets is_error (it is commented out in "
            "prompt_templates/factory.py): a failed call reaches Claude as a success. "
            "Documented limitation of the input format; no litellm issue found"),
        # wire.malformed_success passes since 2026-11-28: a 200 body without 'content' is
        # raised as litellm.APIConnectionError (typed, not returned as a success); the case no
        # longer judges an error's words (it failed error.message on "'content'")
        "wire.strict_tool_intact": (
            "wire.tools.intact",
            "strict: true on an OpenAI-format tool never reaches Anthropic "
            "(AnthropicConfig._map_tool_helper does not read function.strict): "
            "https://github.com/BerriAI/litellm/issues/35695 (closed; still dropped in 1.110.2)"),
        "wire.system_prompts_several": (
            "wire.messages.system",
            "litellm keeps only the leading system messages in 'system' and turns a later one "
            "into a user turn prefixed 'Operator note (not from the user): ...' for models "
            "without supports_mid_conversation_system, so as not to rewrite the cached prefix "
            "(prompt_templates/mid_conversation_system.py, "
            "https://github.com/BerriAI/litellm/issues/36559). Documented litellm policy"),
    },
    "gemini": {
        **{case: ("errors.type", _TYPE.format(provider_type="error.status "
                                                            "('RESOURCE_EXHAUSTED')"))
           for case in ("errors.auth_invalid", "errors.context_length",
                        "errors.model_not_found", "errors.overloaded",
                        "errors.permission_denied", "errors.rate_limited",
                        "errors.rate_limited_stream", "errors.server_error",
                        "errors.in_stream")},
        "errors.gateway_html": (
            "errors.retryable",
            "a 502 with an HTML body is raised as litellm.APIConnectionError (status_code 500 of "
            "litellm's own, no response), as if no answer had come; the shim keeps litellm's "
            "exception for errors without a response, so nothing says whether to retry. Real "
            "defect; the same on litellm's Ollama route: "
            "https://github.com/BerriAI/litellm/issues/9121"),
        "stream.truncated": (
            "error.surfaced",
            "a stream that stops before a finishReason ends quietly: CustomStreamWrapper "
            "synthesises finish_reason 'stop' (streaming_handler.finish_reason_handler) and the "
            "partial answer reads as complete. Real defect: "
            "https://github.com/BerriAI/litellm/issues/42085 (opt-in fix proposed in "
            "https://github.com/BerriAI/litellm/pull/42140, open), "
            "https://github.com/BerriAI/litellm/issues/40260"),
        "wire.gemini_calls_without_signature": ("adapter.raised", _NO_RESULT_ID),
        "wire.gemini_id_less_results_paired": ("adapter.raised", _NO_RESULT_ID),
        "wire.gemini_failed_result": (
            "wire.gemini.failed_result",
            "litellm takes OpenAI-shaped messages, whose role: tool message has no failure "
            "flag, and its Gemini transformation (prompt_templates/factory.py "
            "convert_to_gemini_tool_call_result) sends every result as {'content': ...}, the "
            "successful template ('error call result so default to the successful result "
            "template'): a failed result reads as data. Limitation of its input format; no "
            "litellm issue found"),
        "wire.gemini_stop_with_calls": (
            "response.finish_reason",
            _MALFORMED_FINISH.format(
                what="Gemini's MALFORMED_FUNCTION_CALL",
                consequence="a broken call turn reads as a normal end of turn",
                issue="https://github.com/BerriAI/litellm/issues/16651 (closed)")),
        "wire.tool_definitions_intact": (
            "wire.tools.intact",
            "litellm sends tool schemas as Gemini's OpenAPI-subset 'parameters' and removes "
            "'additionalProperties' from them (vertex_ai/common_utils.py), instead of sending "
            "the schema whole as 'parametersJsonSchema': additionalProperties: false is lost "
            "and the model may add arguments. Documented limitation; related: "
            "https://github.com/BerriAI/litellm/issues/14330, "
            "https://github.com/BerriAI/litellm/issues/6136"),
    },
}


def _shim(factory: Callable[[Any], Any]) -> Any:
    from pytest_toolcall.shims._litellm import LiteLLMShim

    return LiteLLMShim(factory)


@pytest.mark.parametrize("route", list(ROUTES))
def test_each_route_fails_exactly_its_pinned_cases(route: str) -> None:
    from tests.shim_matrix import assert_pinned, run_matrix

    dialect, factory = ROUTES[route]
    failed, passed, _skipped = run_matrix(_shim(factory), dialect)
    assert_pinned(f"litellm {route}/", failed, passed, PINNED[route], at_least=30)


# -- the shim's own bad input ------------------------------------------------------------------
def _endpoint(dialect: str = "openai") -> Any:
    from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint

    return in_process_endpoint(FakeProvider(dialect))


def test_a_factory_that_is_not_callable_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match=r"shims.litellm\(factory\): factory must be a callable"):
        _shim({"model": "openai/gpt-4o-mini"})


@pytest.mark.parametrize(("kwargs", "message"), [
    (lambda ep: "openai/gpt-4o-mini",
     r"returned builtins.str, expected a dict of litellm.completion keyword arguments"),
    (lambda ep: {"api_base": ep.base_url}, r"has no 'model'"),
    (lambda ep: {"model": "gpt-4o-mini", "client": None},
     r"model 'gpt-4o-mini' is not on a route the kit plays: prefix it with one of openai/, "
     r"anthropic/, gemini/"),
    (lambda ep: {"model": "bedrock/claude", "client": None}, r"route 'bedrock'"),
    (lambda ep: {"model": "openai/gpt-4o-mini", "num_retries": 2, "stream": True},
     r"sets 'stream', 'num_retries', which the shim sets from each case's request"),
    (lambda ep: {"model": "openai/gpt-4o-mini", "api_base": ep.base_url},
     r"has no 'client', so litellm would open its own connection.*openai.OpenAI\("),
    (lambda ep: {"model": "anthropic/claude-sonnet-4-5", "client": ep.client},
     r"'client' is a httpx.Client, which litellm ignores on the anthropic/ route.*"
     r"HTTPHandler\(client=ep.client\)"),
])
def test_a_bad_factory_dict_is_a_usage_error(kwargs: Callable[[Any], Any], message: str) -> None:
    ep = _endpoint()
    try:
        with pytest.raises(UsageError, match=message):
            _shim(kwargs)(ep)
    finally:
        ep.close()


def test_an_async_openai_client_is_refused() -> None:
    import openai

    ep = _endpoint()
    client = openai.AsyncOpenAI(base_url=ep.base_url, api_key=ep.api_key)
    with pytest.raises(UsageError, match=r"'client' is a openai.AsyncOpenAI, which litellm "
                                         r"ignores on the openai/ route"):
        _shim(lambda ep: {"model": "openai/gpt-4o-mini", "client": client})(ep)


def test_the_shim_passes_num_retries_0_and_the_factory_kwargs() -> None:
    from pytest_toolcall.core.model import ChatRequest, UserMessage

    ep = _endpoint()
    adapter = _shim(_openai)(ep)
    sent = adapter.kwargs(ChatRequest(messages=(UserMessage(content="hi"),)), stream=True)
    assert sent["num_retries"] == 0 and sent["model"] == "openai/gpt-4o-mini"
    assert sent["stream_options"] == {"include_usage": True} and "stream" not in sent
    assert sent["messages"] == [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(("model", "fields", "blocks"), [
    # on the gemini/ route a signed entry without text is Gemini's signature: litellm reads it
    # from the first tool call's provider_specific_fields (get_thought_signature_from_tool)
    ("gemini/gemini-3-flash-preview", {"thought_signature": "c2ln"}, None),
    # on the anthropic/ route it is Claude's thinking block with its text omitted
    # (thinking.display "omitted"): it goes back as a thinking block
    ("anthropic/claude-sonnet-4-5", None,
     [{"type": "thinking", "thinking": "", "signature": "c2ln"}]),
])
def test_a_text_less_signed_entry_goes_where_the_route_reads_it(
        model: str, fields: Any, blocks: Any) -> None:
    from pytest_toolcall.core.model import (
        AssistantMessage,
        ChatRequest,
        Reasoning,
        ToolCall,
        ToolMessage,
        UserMessage,
    )
    from pytest_toolcall.shims._litellm import LiteLLMShimAdapter

    call = ToolCall.from_raw(id="call_1", name="get_time", arguments={})
    request = ChatRequest(messages=(
        UserMessage(content="What time is it?"),
        AssistantMessage(tool_calls=(call,),
                         reasoning=(Reasoning(type="thinking", signature="c2ln"),)),
        ToolMessage(tool_call_id="call_1", content="21:04")))
    sent = LiteLLMShimAdapter(None, {"model": model}).kwargs(request, stream=False)
    assistant = sent["messages"][1]
    assert assistant["tool_calls"][0].get("provider_specific_fields") == fields
    assert assistant.get("thinking_blocks") == blocks

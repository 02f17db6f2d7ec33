"""The LangChain shim (issues 10 and 14): ``ChatOpenAI`` on the "openai" dialect,
``ChatAnthropic`` on the "anthropic" dialect and ``ChatGoogleGenerativeAI`` on the "gemini"
dialect run the chat families (wire, stream, errors) on the fake through ``LangChainShim``, and
the cases each fails are PINNED here with the reason: a real defect (with its public issue where
one was found), a documented limitation, or "KIT:".

Confirmed 2026-11-25 against langchain-core 1.8.3, langchain-openai 1.7.4 (openai 3.57.0),
langchain-anthropic 1.7.10 (anthropic 2.14.0) and langchain-google-genai 4.4.3 (google-genai
3.6.1), the versions in this environment; the sources named below are those installed packages.
Issues were searched on GitHub on that date. The Gemini decoder no longer crashes on the
upper-case OpenAPI schema types langchain-google-genai sends ("OBJECT", "STRING"; issue 14 item
2). The shim reads Gemini's finish reasons and google-genai's errors as shims.google_genai does,
keeps and replays the thoughtSignatures where the library keeps them, and gives an id-less call
of the history and its result one uuid, as the library does: what is left pinned for
langchain-google-genai is the library's (and its SDK's) own.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from pytest_toolcall.core.errors import UsageError
from tests.shim_matrix import assert_pinned, libraries_imported_by, run_matrix

# the model name the brief's factory uses; the anthropic SDK warns on every answer about it
pytestmark = pytest.mark.filterwarnings(
    "ignore:The model 'claude-sonnet-4-5' is deprecated:DeprecationWarning")


# -- the factories a user writes (the ones in the docs section) ----------------------------------
def chat_openai(ep: Any) -> Any:
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model="gpt-4o-mini", base_url=ep.base_url, api_key=ep.api_key,
                      http_client=ep.client, max_retries=0)


def chat_anthropic(ep: Any) -> Any:
    """ChatAnthropic takes no http_client (langchain-anthropic 1.7.10: its ``_client`` is a
    cached_property that builds ``anthropic.Client`` on a default httpx2 client of its own,
    ``_client_utils._get_default_httpx_client``;
    https://github.com/langchain-ai/langchain/issues/36056, open). To stay in-process, the
    factory seeds that cached property with the client LangChain would build, from LangChain's
    own ``_client_params``, on the fake's httpx2 client."""
    import anthropic
    from langchain_anthropic import ChatAnthropic

    model = ChatAnthropic(model="claude-sonnet-4-5", base_url=ep.base_url.removesuffix("/v1"),
                          api_key=ep.api_key, max_retries=0)
    model.__dict__["_client"] = anthropic.Anthropic(**model._client_params,
                                                    http_client=ep.httpx2_client())
    return model


def chat_google_genai(ep: Any) -> Any:
    """ChatGoogleGenerativeAI builds its own ``google.genai.Client`` (langchain-google-genai
    4.4.3, chat_models.py ``validate_environment``: ``HttpOptions(base_url=..., api_version=...,
    client_args=self.client_args, async_client_args=self.client_args)``) and takes no httpx
    client, but its documented ``client_args`` go to that client's ``httpx.Client(**...)``: the
    fake's transport keeps it in-process (google-genai 3.6.1 picks its httpx backend from the
    transport, ``_api_client._detect_http_backend``; ``trust_env=False`` as ``ep.client``).
    ``max_retries=1`` turns retries off: the field documents that 0 means the SDK default."""
    from langchain_google_genai import ChatGoogleGenerativeAI

    root, version = ep.base_url.rsplit("/", 1)
    return ChatGoogleGenerativeAI(model="gemini-2.5-flash", base_url=root, api_version=version,
                                  api_key=ep.api_key, max_retries=1,
                                  client_args={"transport": ep.transport, "trust_env": False})


#: library -> (module, factory, dialect)
LIBRARIES = {
    "langchain-openai": ("langchain_openai", chat_openai, "openai"),
    "langchain-anthropic": ("langchain_anthropic", chat_anthropic, "anthropic"),
    "langchain-google-genai": ("langchain_google_genai", chat_google_genai, "gemini"),
}
#: passes each library must reach (the shim really ran the families); 40 unless named here
AT_LEAST: dict[str, int] = {}

# -- why each case fails ---------------------------------------------------------------------
_PARTIAL = (
    "langchain-core's AIMessageChunk.init_tool_calls parses every tool_call_chunk's args with "
    "parse_partial_json, on the last chunk too: the cut-off '{\"city\":' becomes {} in "
    "tool_calls, invalid_tool_calls stays empty, and the tool runs with no arguments. Real "
    "defect: https://github.com/langchain-ai/langchain/issues/39275 (closed; its fix PRs "
    "#39274 and #39276 closed unmerged; langchain-core 1.8.3 still parses partially)")
_TRUNCATED = (
    "a stream that ends before its finish (no finish_reason and [DONE]; no stop_reason and "
    "message_stop) is returned by stream() as complete, and parse_partial_json completes the "
    "cut-off arguments into a valid-looking call. Real defect; no issue found for the missing "
    "end; the arguments half: https://github.com/langchain-ai/langchain/issues/39275")
_TIMEOUT = (
    "{field} defaults to None and is passed to the SDK client as timeout=None, which turns off "
    "the SDK's own 600 s default: a stalled stream waits forever. Real defect: "
    "https://github.com/langchain-ai/langchain/issues/35597 (open; fix PR "
    "https://github.com/langchain-ai/langchain/pull/35616 open). Pass timeout=... in the "
    "factory")
_OPENAI_IN_STREAM = (
    "the openai SDK raises an error chunk inside a 200 stream as openai.APIError without a "
    "status, and langchain-openai passes it on (_handle_openai_api_error): the SDK makes no "
    "retry decision for it, so the shim has no retryable to report. Limitation of the SDK "
    "underneath, as for shims.openai")
_QUOTA = (
    "langchain-openai raises the openai SDK's RateLimitError, and the SDK's own retry policy "
    "(_base_client._should_retry) retries every 429 unless the server sends x-should-retry: "
    "false, insufficient_quota included, so the shim reports retryable=True (with max_retries "
    "above 0 the SDK would retry it). Real behaviour of the SDK underneath, as for shims.openai: "
    "https://github.com/techwithtim/PythonAgentAI/issues/5")
_ANTHROPIC_IN_STREAM = (
    "the anthropic SDK raises an error event inside the 200 stream (overloaded_error) as an "
    "APIStatusError carrying the 200 response; langchain-anthropic passes it on "
    "(_handle_anthropic_api_error re-raises what it does not classify) and the SDK's own policy "
    "(_should_retry) says no to a 200, though Anthropic documents overloaded_error as "
    "transient. Behaviour of the SDK underneath, as for shims.anthropic")
_NO_NONE = (
    "ChatAnthropic.bind_tools documents tool_choice as a tool name, 'auto' or 'any' (or an "
    "Anthropic dict); any other string is read as a tool name, so 'none' is sent as "
    "{type: tool, name: 'none'} (Anthropic: 400 \"Tool 'none' not found\"), where "
    "ChatOpenAI.bind_tools takes 'none'. Real defect; no langchain (Python) issue found; the "
    "same defect was fixed in langchainjs: https://github.com/langchain-ai/langchainjs/pull/8928. "
    "Workaround: tool_choice={'type': 'none'}")

_GEMINI_RETRY_DELAY = (
    "google-genai never reads the RetryInfo detail's retryDelay (its retries wait with "
    "exponential jitter), and langchain-google-genai passes its error on without it: "
    "ChatGoogleGenerativeAI's max_retries doc (_common.py, 4.4.3) says so and tells users to "
    "parse 'retry_delay' out of the message themselves. Real defect of the SDK underneath, as "
    "for shims.google_genai: https://github.com/googleapis/python-genai/issues/1875")
_GEMINI_IDS = (
    "langchain-google-genai reads functionCall.id into tool_calls but never sends it back: "
    "_parse_chat_history builds FunctionCall(name, args) and _convert_tool_message_to_parts "
    "FunctionResponse(name, response), both without id, so results pair with calls by position "
    "only. Gemini documents FunctionCall.id / FunctionResponse.id for exactly that pairing "
    "(Gemini 3 returns an id with every call). Real defect; no langchain-google issue found; "
    "the same defect elsewhere: https://github.com/earendil-works/pi/issues/7047")
_GEMINI_SIGNATURE = (
    _GEMINI_IDS + ". The thoughtSignature half passes: the library keeps it in the AIMessage's "
    "additional_kwargs['__gemini_function_call_thought_signatures__'] and puts it back on the "
    "replayed call (test_thought_signatures_are_replayed_where_the_library_keeps_them)")

#: library -> {case id: (clause, why)}
PINNED: dict[str, dict[str, tuple[str, str]]] = {
    "langchain-openai": {
        "stream.id_name_repeated": (
            "response.tool_calls.name",
            "langchain-core's merge_dicts concatenates the tool_call_chunks' name when a server "
            "repeats it on every fragment (Fireworks, DeepSeek, Qwen): 'get_weatherget_weather"
            "...'. Real defect: https://github.com/langchain-ai/langchain/issues/40041 (closed; "
            "still in langchain-core 1.8.3)"),
        "stream.index_missing": (
            "response.tool_calls.count",
            "langchain-core's merge_lists joins tool_call_chunks only on an int index: fragments "
            "without one (Gemini's and Ollama's OpenAI-compatible streams) are never joined and "
            "each becomes a call of its own (18 calls for 3). Real defect with those servers; no "
            "langchain issue found"),
        "stream.index_stuck_at_zero": (
            "response.tool_calls.arguments",
            "merge_lists keys tool_call_chunks on index: a chunk with a new id stays apart (the "
            "fix of https://github.com/langchain-ai/langchain/issues/34807, PR #35281), but the "
            "id-less argument fragments that follow at index 0 are appended to the FIRST call "
            "('{..Paris}{..Tokyo..}{}'), which parse_partial_json reads as its first object: "
            "the later calls get {} and no error. Real defect with those servers; maintainers "
            "hold that each call needs its own index "
            "(https://github.com/langchain-ai/langchain/pull/34811)"),
        "stream.malformed_arguments": ("response.tool_calls.parse_error", _PARTIAL),
        "stream.truncated": ("error.surfaced", _TRUNCATED),
        "wire.malformed_arguments": (
            "adapter.raised",
            "langchain-core's parse_tool_call (langchain-openai's Chat Completions reader) "
            "accepts arguments that are valid JSON but not an object ('[1, 2]'); AIMessage then "
            "refuses them (pydantic ValidationError raised in pydantic.main, tool_calls.0.args "
            "must be a dict) and the "
            "whole answer is lost, its valid calls included. Real defect: "
            "https://github.com/langchain-ai/langchain/issues/35990 (reported for the Responses "
            "path; its fix PRs closed unmerged)"),
        "wire.malformed_success": (
            "error.typed",
            "the openai SDK underneath does not validate response bodies (as for shims.openai); "
            "langchain-openai sees 'choices' null and raises a TypeError ('Received response "
            "with null value for choices'), not a provider error. Library behaviour, read in "
            "langchain_openai/chat_models/base.py (_create_chat_result)"),
        "errors.in_stream": ("errors.retryable", _OPENAI_IN_STREAM),
        "errors.quota_exhausted": ("errors.retryable", _QUOTA),
        "errors.stream_stalled": (
            "adapter.timeout", _TIMEOUT.format(field="ChatOpenAI's request_timeout")),
    },
    "langchain-anthropic": {
        "stream.malformed_arguments": ("response.tool_calls.parse_error", _PARTIAL),
        "stream.truncated": ("error.surfaced", _TRUNCATED),
        "stream.anthropic_usage_legacy_delta": (
            "response.usage",
            "langchain-anthropic reads stream usage from message_delta only (message_start's "
            "usage is skipped on purpose since https://github.com/langchain-ai/langchain/pull/"
            "32591): a server or proxy that sends input_tokens in message_start only (the "
            "older shape, claimed by the reference profile: anthropic_legacy_usage) gets "
            "input_tokens 0. Real defect with those servers: "
            "https://github.com/langchain-ai/langchain-aws/issues/916 (fix PR "
            "https://github.com/langchain-ai/langchain/pull/35510 closed unmerged)"),
        "wire.tool_choice_none": ("wire.tool_choice", _NO_NONE),
        "wire.anthropic_tool_choice_parallel": ("wire.anthropic.tool_choice", _NO_NONE),
        "wire.system_prompts_several": (
            "adapter.raised",
            "ChatAnthropic refuses a system message after the conversation started "
            "(_format_messages in langchain_anthropic.chat_models: ValueError 'Received multiple "
            "non-consecutive system messages') "
            "unless the model's profile has mid_conversation_system_messages (claude-sonnet-5, "
            "claude-opus-4-8 and newer; not claude-sonnet-4-5); it never joins them into the "
            "system slot. Documented limitation: "
            "https://github.com/langchain-ai/langchain/issues/20835, "
            "https://github.com/langchain-ai/langchain/pull/38849 (closed unmerged)"),
        "wire.malformed_success": (
            "error.typed",
            "the anthropic SDK underneath does not validate response bodies (as for "
            "shims.anthropic); langchain-anthropic's _format_output "
            "(langchain_anthropic.chat_models) then iterates content None and raises a "
            "TypeError, not a provider error. Library behaviour"),
        "errors.in_stream": ("errors.retryable", _ANTHROPIC_IN_STREAM),
        "errors.stream_stalled": (
            "adapter.timeout", _TIMEOUT.format(field="ChatAnthropic's default_request_timeout")),
    },
    "langchain-google-genai": {
        "errors.rate_limited": ("errors.retry_after", _GEMINI_RETRY_DELAY),
        "errors.rate_limited_stream": ("errors.retry_after", _GEMINI_RETRY_DELAY),
        "errors.stream_cancelled": (
            "stream.closed",
            "google-genai's generate_content_stream generator (_api_client.request_streamed, "
            "HttpResponse.segments) iterates the HTTP response without a `with` or `finally`, "
            "and langchain-google-genai's _classified_stream adds none: a caller that stops "
            "early leaves the response open. Real defect of the SDK underneath, as for "
            "shims.google_genai; no python-genai issue found"),
        "errors.stream_stalled": (
            "adapter.timeout",
            "ChatGoogleGenerativeAI's timeout (request_timeout) defaults to None, and then no "
            "HttpOptions.timeout is sent: google-genai waits with no timeout, so a stalled "
            "stream waits forever. Library default (as google-genai's own); pass "
            "request_timeout=... in the factory"),
        "stream.truncated": (
            "error.surfaced",
            "a stream that stops before any finishReason is returned by stream() as complete: "
            "google-genai's generate_content_stream ends quietly (as for shims.google_genai) and "
            "langchain-google-genai checks no finish either. Real defect; no langchain-google "
            "or python-genai issue found"),
        "wire.malformed_success": (
            "error.surfaced",
            "a 200 answer without candidates (here a gateway's JSON error body) becomes an empty "
            "AIMessage: langchain-google-genai logs 'Gemini produced an empty response. "
            "Continuing with empty message' and returns it as a success. Deliberate library "
            "behaviour: https://github.com/langchain-ai/langchain-google/pull/188 (treat no "
            "candidates as empty message), reported: "
            "https://github.com/langchain-ai/langchain-google/issues/936 (open)"),
        "wire.tool_definitions_intact": (
            "wire.tools.intact",
            "langchain-google-genai converts tool schemas to Gemini's OpenAPI-subset "
            "'parameters' (upper-case types) and drops what that subset lacks, logging \"Key "
            "'additionalProperties' is not supported in schema, ignoring\", instead of sending "
            "the JSON Schema whole as 'parametersJsonSchema' (google-genai 3.6.1 "
            "FunctionDeclaration.parameters_json_schema, which takes additionalProperties): "
            "additionalProperties: false is lost and the model may add arguments. Documented "
            "limitation: https://github.com/langchain-ai/langchain-google/issues/1038 (open)"),
        "stream.gemini_signature_echoed": ("wire.gemini.ids_echoed", _GEMINI_SIGNATURE),
        "wire.gemini_ids_and_signature_echoed": ("wire.gemini.ids_echoed", _GEMINI_SIGNATURE),
        "wire.assistant_text_with_calls_replayed": ("wire.history.tool_calls", _GEMINI_IDS),
        "wire.gemini_one_response_turn": ("wire.history.tool_calls", _GEMINI_IDS),
        "wire.second_turn_passthrough": ("wire.history.tool_calls", _GEMINI_IDS),
        "wire.non_ascii_arguments": ("wire.history.tool_calls", _GEMINI_IDS),
        "wire.gemini_failed_result": (
            "wire.gemini.failed_result",
            "langchain-google-genai 4.4.3 (chat_models.py _convert_tool_message_to_parts) sends "
            "every ToolMessage as FunctionResponse(response={'output': ...}) (or its dict as "
            "it is) and never reads ToolMessage.status, LangChain's own failure flag ('error'): "
            "a failed tool call reads as data to the model, where Gemini documents an 'error' "
            "key for it. Real defect; no langchain-google issue found"),
        "wire.gemini_prompt_blocked": (
            "response.usage",
            "langchain-google-genai 4.4.3 (chat_models.py _response_to_result) answers a "
            "response without candidates with an empty message and logs 'Gemini produced an "
            "empty response. Continuing with empty message'; the streamed chunk carries the "
            "usage_metadata, the message of invoke() none: the blocked prompt's tokens, which "
            "are billed, are lost. Real defect of the complete path; no langchain-google issue "
            "found for the usage (the empty answer itself, in a LangGraph agent: "
            "https://github.com/langchain-ai/langchain-google/issues/936). The finish passes: "
            "the block is kept in response_metadata['prompt_feedback'], which the shim reads"),
        "wire.gemini_success_not_object": (
            "error.surfaced",
            "google-genai reads a 200 JSON array as an empty GenerateContentResponse (as for "
            "shims.google_genai), and langchain-google-genai logs 'Gemini produced an empty "
            "response. Continuing with empty message' and returns an empty AIMessage as a "
            "success. The same behaviour as for wire.malformed_success: "
            "https://github.com/langchain-ai/langchain-google/pull/188 (treat no candidates as "
            "empty message)"),
    },
}


def _shim(factory: Any) -> Any:
    from pytest_toolcall.shims._langchain import LangChainShim

    return LangChainShim(factory)


@pytest.mark.parametrize("library", list(PINNED))
@pytest.mark.usefixtures("one_ca_certificate")  # google-genai: tests/conftest.py
def test_each_library_fails_exactly_its_pinned_cases(library: str) -> None:
    module, factory, dialect = LIBRARIES[library]
    pytest.importorskip(module)
    failed, passed, _skipped = run_matrix(_shim(factory), dialect)
    assert_pinned(library, failed, passed, PINNED[library], at_least=AT_LEAST.get(library, 40))


# -- what the shim reads: an invalid call is a failed call, never dropped or repaired ------------
def test_an_invalid_tool_call_is_a_call_with_a_parse_error() -> None:
    messages = pytest.importorskip("langchain_core.messages")
    from pytest_toolcall.shims._langchain import read

    message = messages.AIMessage(
        content="", tool_calls=[{"name": "get_time", "args": {}, "id": "call_1"}],
        invalid_tool_calls=[{"name": "get_weather", "args": '{"city": "Par', "id": "call_2",
                             "error": None}],
        response_metadata={"finish_reason": "tool_calls", "model_name": "m"})
    response = read(message)
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("call_1", "get_time", {}), ("call_2", "get_weather", None)]
    bad = response.tool_calls[1]
    assert bad.raw_arguments == '{"city": "Par' and bad.parse_error
    assert response.finish_reason == "tool_calls" and response.model == "m"


def test_aggregated_chunks_are_read_as_langchain_aggregates_them() -> None:
    messages = pytest.importorskip("langchain_core.messages")
    from pytest_toolcall.shims._langchain import read

    chunks = [messages.AIMessageChunk(content="", tool_call_chunks=[
                  {"name": "get_weather", "args": "[1, ", "id": "call_1", "index": 0}]),
              messages.AIMessageChunk(content="", tool_call_chunks=[
                  {"name": None, "args": "2]", "id": None, "index": 0}],
                  response_metadata={"stop_reason": "tool_use"},
                  usage_metadata={"input_tokens": 3, "output_tokens": 4, "total_tokens": 7})]
    total = chunks[0] + chunks[1]
    assert total.invalid_tool_calls  # LangChain's own reading: not an object
    response = read(total)
    (call,) = response.tool_calls
    assert call.arguments is None and call.raw_arguments == "[1, 2]" and call.parse_error
    assert response.finish_reason == "tool_calls"
    assert response.usage is not None and response.usage.total_tokens == 7


# -- Gemini through langchain-google-genai: what the shim maps -----------------------------------
def test_gemini_finish_reasons_are_read_as_shims_google_genai_reads_them() -> None:
    messages = pytest.importorskip("langchain_core.messages")
    from pytest_toolcall.shims._langchain import read

    call = {"name": "get_time", "args": {}, "id": "c1"}
    for metadata, calls, want in (({"finish_reason": "STOP"}, [call], "tool_calls"),
                                  ({"finish_reason": "STOP"}, [], "stop"),
                                  ({"finish_reason": "MAX_TOKENS"}, [], "length"),
                                  ({"finish_reason": "SAFETY"}, [], "content_filter"),
                                  ({"finish_reason": "MALFORMED_FUNCTION_CALL"}, [], "error"),
                                  ({"finish_reason": "UNKNOWN_99"}, [], "other"),
                                  ({"finish_reason": "stop"}, [], "stop")):
        message = messages.AIMessage(content="", tool_calls=calls, response_metadata=metadata)
        assert read(message).finish_reason == want, metadata


def test_an_id_less_call_and_its_result_get_one_id() -> None:
    pytest.importorskip("langchain_core.messages")
    from pytest_toolcall.core.model import (
        AssistantMessage,
        ChatRequest,
        ToolCall,
        ToolMessage,
        UserMessage,
    )
    from pytest_toolcall.shims._langchain import LangChainShimAdapter

    calls = tuple(ToolCall(id=None, name="get_weather", arguments={"city": c})
                  for c in ("Paris", "Tokyo"))
    request = ChatRequest(messages=(UserMessage(content="?"), AssistantMessage(tool_calls=calls),
                                    ToolMessage(tool_call_id=None, content="1"),
                                    ToolMessage(tool_call_id=None, content="2")))
    _ask, ai, first, second = LangChainShimAdapter(None).messages(request)
    ids = [c["id"] for c in ai.tool_calls]
    assert all(ids) and len(set(ids)) == 2
    assert [first.tool_call_id, second.tool_call_id] == ids


def test_thought_signatures_are_replayed_where_the_library_keeps_them() -> None:
    """The signature check alone (the full case fails first on the ids, a library defect)."""
    pytest.importorskip("langchain_google_genai")
    from pytest_toolcall.cases import default_registry
    from pytest_toolcall.providers.gemini.cases import signature_replayed
    from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
    from pytest_toolcall.reference import provider_profile
    from pytest_toolcall.run.runner import run_case

    for case_id in ("wire.gemini_ids_and_signature_echoed", "stream.gemini_signature_echoed"):
        case = default_registry()[case_id].model_copy(update={"checks": (signature_replayed,)})
        endpoint = in_process_endpoint(FakeProvider("gemini"))
        try:
            run_case(case, _shim(chat_google_genai)(endpoint), provider_profile("gemini"),
                     endpoint)
        finally:
            endpoint.close()


def test_google_genai_errors_are_read_through_langchains_wrapping() -> None:
    pytest.importorskip("langchain_google_genai")
    from google.genai import errors
    from langchain_google_genai.chat_models import _handle_client_error

    from pytest_toolcall.shims._langchain import LangChainShimAdapter

    body = {"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}}
    try:
        _handle_client_error(errors.ClientError(429, body), {"model": "gemini-2.5-flash"})
    except Exception as exc:  # GoogleRateLimitError, raised from the ClientError
        raised = exc
    assert type(raised).__name__ == "GoogleRateLimitError"
    error = LangChainShimAdapter(None).provider_error(raised)
    assert error is not None
    assert (error.status, error.type, error.retryable) == (429, "RESOURCE_EXHAUSTED", True)
    assert LangChainShimAdapter(None).provider_error(ValueError("x")) is None


# -- the shim's own bad input --------------------------------------------------------------------
def test_a_factory_that_is_not_callable_is_a_usage_error() -> None:
    pytest.importorskip("langchain_core")
    with pytest.raises(UsageError, match=r"shims.langchain\(factory\): factory must be a "
                                         r"callable .* returning a LangChain chat model"):
        _shim("my_app.models:make_model")


def test_a_model_of_the_wrong_kind_is_named() -> None:
    openai = pytest.importorskip("openai")
    pytest.importorskip("langchain_core")
    from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint

    ep = in_process_endpoint(FakeProvider("openai"))
    client = openai.OpenAI(base_url=ep.base_url, api_key=ep.api_key, http_client=ep.client)
    with pytest.raises(UsageError, match=r"shims.langchain: the factory returned "
                                         r"openai.*OpenAI, expected a LangChain chat model"):
        _shim(lambda ep: client)(ep)
    with pytest.raises(UsageError, match=r"returned builtins.NoneType, expected a LangChain"):
        _shim(lambda ep: None)(ep)


def test_a_model_with_tools_already_bound_is_refused() -> None:
    pytest.importorskip("langchain_openai")
    from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint

    ep = in_process_endpoint(FakeProvider("openai"))
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    with pytest.raises(UsageError, match=r"return the chat model itself, not a bound one"):
        _shim(lambda ep: chat_openai(ep).bind_tools([tool]))(ep)


def test_a_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain_core.language_models", None)
    with pytest.raises(UsageError, match=r"needs the 'langchain_core' package.*"
                                         r"pip install 'pytest-toolcall\[langchain\]'"):
        _shim(lambda ep: None)


def test_importing_the_shim_imports_no_library() -> None:
    assert libraries_imported_by("pytest_toolcall.shims._langchain", (
        "langchain_core", "langchain_openai", "langchain_anthropic", "langchain_google_genai",
        "openai", "anthropic", "google.genai")) == []

"""Ready-made shims over real client libraries (issues 10 and 14): each library runs the chat
families (wire, stream) on the fake through its shim, and the cases it fails are PINNED here,
each with the reason: a real defect of the library (with its public issue where one was found)
or a documented limitation. A case that starts failing or passing changes the pin deliberately.

Confirmed 2026-11-25 against openai 3.57.0, anthropic 2.14.0, google-genai 3.6.1, ollama 0.6.3
(constraints.txt). Issues were searched on GitHub on that date.
"""

from __future__ import annotations

import sys
import textwrap
from typing import Any

import pytest

from pytest_toolcall import shims
from pytest_toolcall.core.errors import UsageError
from tests.shim_matrix import LIBRARIES, assert_pinned, installed, libraries_imported_by, verdicts

_NO_VALIDATION = (
    "{lib} does not validate response bodies by default: a 200 answer that is not a {obj} (here a "
    "gateway's JSON error body) becomes a {obj} with the required fields None, handed over as a "
    "success; the shim passes it on as one (an empty answer). Documented limitation of the "
    "library (its `_strict_response_validation` option turns validation on; see the 'openai "
    "(strict)' pin). Until 2026-11-28 this pin said error.typed: the TypeError was the kit's own "
    "shim reading the None fields, not the library's")

_QUOTA = (
    "the SDK's own retry policy (_base_client._should_retry) retries every 429 unless the "
    "server sends x-should-retry: false, insufficient_quota included, so the shim reports "
    "retryable=True. Real behaviour, seen in public logs of openai-python retrying "
    "insufficient_quota: https://github.com/techwithtim/PythonAgentAI/issues/5 (the same defect "
    "in langchainjs: https://github.com/langchain-ai/langchainjs/issues/1929)")
_OPENAI_IN_STREAM = (
    "an error chunk inside a 200 stream is raised as openai.APIError without a status; the SDK "
    "makes no retry decision for it (it never retries once the stream began), so the shim has "
    "no retryable to report. Library limitation, read in _streaming.py")

#: library -> {case id: (clause, why)}
PINNED: dict[str, dict[str, tuple[str, str]]] = {
    "openai": {
        "stream.id_name_repeated": (
            "response.tool_calls.id",
            "the stream helper appends every id and name fragment of a call (OpenAI sends them "
            "once); servers that repeat them in every chunk (Fireworks, DeepSeek, Qwen: "
            "https://github.com/BerriAI/litellm/issues/8990, "
            "https://github.com/langchain4j/langchain4j/pull/4544) get 'call_001call_001...'. "
            "Real defect with those servers; no openai-python issue found"),
        "stream.index_missing": (
            "adapter.raised",
            "the stream helper crashes (TypeError in _accumulate_chunk, raised in "
            "openai.lib.streaming.chat._completions) on a tool-call fragment "
            "without 'index', as Gemini's and Ollama's OpenAI-compatible streams send: "
            "https://github.com/openai/openai-python/issues/2806"),
        "stream.index_stuck_at_zero": (
            "response.tool_calls.count",
            "the stream helper keys fragments on index alone, so calls that all arrive at index "
            "0 with distinct ids (ollama #15457) merge into one; related: "
            "https://github.com/openai/openai-python/issues/3201"),
        "stream.truncated": (
            "error.surfaced",
            "a stream that ends without [DONE] or finish_reason is returned by "
            "get_final_completion as complete, the cut-off arguments included. Real defect; no "
            "openai-python issue found (the same defect in another library: "
            "https://github.com/pydantic/pydantic-ai/issues/6610)"),
        "wire.malformed_success": (
            "error.surfaced", _NO_VALIDATION.format(lib="the openai SDK", obj="ChatCompletion")),
        "errors.quota_exhausted": ("errors.retryable", _QUOTA),
        "errors.in_stream": ("errors.retryable", _OPENAI_IN_STREAM),
    },
    "openai (strict)": {  # openai.OpenAI(..., _strict_response_validation=True)
        **{case: (clause, "the same defect as without strict validation, see 'openai'")
           for case, clause in (("stream.id_name_repeated", "response.tool_calls.id"),
                                ("stream.index_stuck_at_zero", "response.tool_calls.count"),
                                ("stream.truncated", "error.surfaced"))},
        "stream.index_missing": (
            "adapter.raised",
            "the defect of 'openai' (a fragment without 'index'), met earlier: strict "
            "validation refuses the chunk (raised in openai._base_client)"),
        "wire.unknown_finish_reason": (
            "adapter.raised",
            "strict validation refuses a finish_reason outside the SDK's enum, which "
            "OpenAI-compatible servers send (documented limitation of strict mode; raised in "
            "openai._base_client)"),
        "wire.zero_args_null": (
            "adapter.raised",
            "strict validation refuses 'arguments': null, which OpenAI-compatible servers send "
            "for a call without arguments (documented limitation of strict mode; raised in "
            "openai._base_client)"),
        "errors.quota_exhausted": ("errors.retryable", _QUOTA),
        "errors.in_stream": ("errors.retryable", _OPENAI_IN_STREAM),
    },
    "openai-responses": {
        "stream.index_missing": (
            "adapter.raised",
            "the Responses stream helper (openai.lib.streaming.responses._responses) raises "
            "RuntimeError('Duplicate response output index None') on events without "
            "output_index (ollama #7881 shape). Real defect for "
            "servers that leave it out; no openai-python issue found"),
        "stream.index_stuck_at_zero": (
            "adapter.raised",
            "the Responses stream helper (openai.lib.streaming.responses._responses) raises "
            "RuntimeError('Duplicate response output index 0') when a bridge puts every call at "
            "output_index 0 "
            "(https://github.com/BerriAI/litellm/issues/21331); no openai-python issue found"),
        "wire.malformed_success": (
            "error.surfaced", _NO_VALIDATION.format(lib="the openai SDK", obj="Response")),
        "errors.quota_exhausted": ("errors.retryable", _QUOTA),
        "errors.in_stream": (
            "errors.retryable",
            "the Responses stream's 'error' event carries no status and the SDK makes no retry "
            "decision for it (it never retries once the stream began); the shim raises it as a "
            "ProviderError with the event's code and nothing more. Library limitation"),
    },
    "anthropic": {
        "stream.malformed_arguments": (
            "response.tool_calls.parse_error",
            "the stream helper reads input_json_delta with a partial-JSON parser: an unparseable "
            "input ('{\"city\":') becomes {} with no error, so the tool runs with no arguments. "
            "Real defect; related: https://github.com/anthropics/anthropic-sdk-python/issues/1265 "
            "(fixed for invalid JSON in 0.122.0; a cut-off object still parses as partial)"),
        "stream.truncated": (
            "error.surfaced",
            "a stream that ends without message_stop is returned by get_final_message as a "
            "complete message. Real defect; no anthropic-sdk-python issue found"),
        "wire.malformed_success": (
            "error.surfaced", _NO_VALIDATION.format(lib="the anthropic SDK", obj="Message")),
        "errors.in_stream": (
            "errors.retryable",
            "an error event inside the 200 stream (overloaded_error) is raised as an "
            "APIStatusError carrying the 200 response, and the SDK's own policy "
            "(_base_client._should_retry) says no to a 200: with max_retries above 0 the SDK "
            "would not retry it, though Anthropic documents overloaded_error as transient. "
            "Library behaviour, read in _streaming.py and _base_client.py"),
    },
    "google-genai": {
        "stream.truncated": (
            "error.surfaced",
            "generate_content_stream ends quietly when the stream stops before a finishReason; "
            "the partial answer reads as complete. Real defect; no python-genai issue found"),
        "wire.gemini_success_not_object": (
            "error.surfaced",
            "a 200 body that is a JSON array (one answer inside [...], the shape "
            "streamGenerateContent sends without alt=sse) reads as an empty "
            "GenerateContentResponse: the SDK's field reader (_common.get_value_by_path, behind "
            "models._GenerateContentResponse_from_mldev) finds no field in a list and nothing "
            "checks the body's type, so it is handed over as an empty answer, not an error. The "
            "same behaviour as for wire.malformed_success; no python-genai issue found"),
        "wire.malformed_success": (
            "error.surfaced",
            "the SDK accepts any JSON object as a GenerateContentResponse (unknown keys "
            "ignored): a 200 answer without candidates reads as an empty answer, not an error. "
            "Documented behaviour (responses are not validated); no python-genai issue found"),
        **{case: ("errors.retry_after",
                  "the SDK never reads the RetryInfo detail's retryDelay (its retries wait with "
                  "exponential jitter): https://github.com/googleapis/python-genai/issues/1875 "
                  "(fix proposed in https://github.com/googleapis/python-genai/pull/2114, open)")
           for case in ("errors.rate_limited", "errors.rate_limited_stream")},
        "errors.stream_cancelled": (
            "stream.closed",
            "generate_content_stream's generator (_api_client.request_streamed and "
            "HttpResponse.segments) iterates the HTTP response without a `with` or `finally`: a "
            "caller that stops early leaves the response open. Real defect, read in "
            "google/genai/_api_client.py; no python-genai issue found"),
        "errors.stream_stalled": (
            "adapter.timeout",
            "with HttpOptions.timeout unset (the default) the SDK sends its requests with no "
            "timeout, the client's own included, so a stalled stream waits forever. Library "
            "default; set http_options=HttpOptions(timeout=...) in the factory"),
    },
}

#: ollama-python 0.6.3 has no 'id' on Message.ToolCall (and no tool_call_id on Message): the
#: call ids Ollama sends (since server 0.12.10) are dropped on the way in and on the way back
_OLLAMA_IDS = ("ollama-python drops the call ids Ollama sends, reading and replaying: "
               "https://github.com/ollama/ollama-python/issues/667 (fix approved in "
               "https://github.com/ollama/ollama-python/pull/698, unmerged); the shim gives "
               "each call a local id, never sent")
PINNED["ollama"] = {
    **{case: ("response.tool_calls.id", _OLLAMA_IDS) for case in (
        "stream.any_chunking", "stream.bytewise", "stream.ollama_index_stuck_at_zero",
        "stream.ollama_ndjson_split", "stream.oversized_line", "stream.parallel_sequential",
        "stream.single_call_fragmented", "wire.non_ascii_arguments",
        "wire.ollama_done_reason_stop_with_calls", "wire.ollama_object_arguments",
        "stream.ollama_payload_on_done_line", "wire.parallel_calls", "wire.single_call",
        "wire.text_and_calls", "wire.zero_args_empty_object")},
    "wire.system_prompt": ("response.tool_calls.id", _OLLAMA_IDS),
    "wire.developer_message": ("response.tool_calls.id", _OLLAMA_IDS),
    "wire.assistant_text_with_calls_replayed": ("wire.history.tool_calls", _OLLAMA_IDS),
    "wire.second_turn_passthrough": ("wire.history.tool_calls", _OLLAMA_IDS),
    "wire.ollama_tool_name_on_results": ("wire.history.tool_calls", _OLLAMA_IDS),
    "wire.ollama_calls_only_turn_replayed": ("wire.history.tool_calls", _OLLAMA_IDS),
    "stream.same_as_complete": (
        "stream.same_as_complete", "derived from the dropped ids: " + _OLLAMA_IDS),
    "stream.truncated": (
        "error.surfaced",
        "the chat iterator ends quietly when the NDJSON stream stops before 'done': true; the "
        "shim then has no done chunk to report. Real defect; no ollama-python issue found"),
    "wire.malformed_success": (
        "error.typed",
        "a 200 body that is not a chat response raises pydantic's ValidationError (a "
        "ValueError, raised in pydantic.main) from the library's ChatResponse model, not "
        "ollama.ResponseError. Library "
        "limitation; no ollama-python issue found"),
    "wire.tool_definitions_intact": (
        "wire.tools.intact",
        "the library's Tool.Function.Parameters model keeps only type, $defs, items, required "
        "and properties: 'additionalProperties' and any other schema keyword are dropped "
        "before sending. Real defect: https://github.com/ollama/ollama-python/pull/542 "
        "(closed unmerged)"),
    "errors.stream_stalled": (
        "adapter.timeout",
        "ollama.Client's default timeout is None (no read timeout): a stalled stream waits "
        "forever. Library default; pass Client(timeout=...) in the factory"),
}


_MODULES = {"openai": "openai", "openai (strict)": "openai", "openai-responses": "openai",
            "anthropic": "anthropic", "google-genai": "google.genai", "ollama": "ollama"}


def _strict_openai(ep: Any) -> Any:
    import openai

    return openai.OpenAI(base_url=ep.base_url, api_key=ep.api_key, http_client=ep.client,
                         max_retries=0, _strict_response_validation=True)


@pytest.mark.parametrize("library", list(PINNED))
@pytest.mark.usefixtures("one_ca_certificate")  # google-genai: tests/conftest.py
def test_each_library_fails_exactly_its_pinned_cases(library: str) -> None:
    if not installed(_MODULES[library]):
        pytest.skip(f"{_MODULES[library]} is not installed (the 'dev' extra installs it)")
    if library == "openai (strict)":
        failed, passed, _ = verdicts("openai", _strict_openai)
    else:
        failed, passed, _ = verdicts(library)
    assert_pinned(library, failed, passed, PINNED[library], at_least=10)


def test_the_openai_sdk_fails_a_quirk_only_for_the_services_that_send_it() -> None:
    """Issue 13: under ``openai`` the SDK fails no quirk case (OpenAI never sends them, the
    first pass of run_matrix asserts it); a profile that targets one service gets exactly the
    pinned quirk failures whose quirk that service sends, with the pinned clause."""
    if not installed("openai"):
        pytest.skip("openai is not installed (the 'dev' extra installs it)")
    from pytest_toolcall.cases import default_registry
    from pytest_toolcall.reference import provider_profile
    from tests.shim_matrix import _openai, run_matrix

    registry = default_registry()
    services = sorted({s for c in registry if c.quirk for s in c.senders()})
    assert {"gemini", "ollama"} <= set(services)
    pinned_quirks = {case: clause for case, (clause, _why) in PINNED["openai"].items()
                     if registry[case].quirk}
    assert pinned_quirks, "the SDK breaks on some services' quirks (its pins say which)"
    for service in services:
        profile = provider_profile("openai").model_copy(
            update={"compatible_with": frozenset({service})})
        failed, _passed, _ = run_matrix(shims.openai(_openai), "openai", profile,
                                        only=lambda c: c.quirk is not None)
        expected = {case: clause for case, clause in pinned_quirks.items()
                    if service in registry[case].senders()}
        assert failed == expected, service


#: shims whose dialect is the client's, each pinned in its own module (name -> module, and the
#: docs/shims.md heading of each of its PINNED keys)
MULTI_DIALECT = {
    "langchain": ("tests.test_shim_langchain", "{}"),
    "litellm": ("tests.test_shim_litellm", "litellm {}/"),
    "pydantic_ai": ("tests.test_shim_pydantic_ai_models", "{}"),
}


def test_the_pins_cover_every_shim() -> None:
    assert set(LIBRARIES) <= set(PINNED)
    assert {name for name, _dialect, _f in LIBRARIES.values()} | set(MULTI_DIALECT) \
        == set(shims.SHIMS)
    assert all(shims.SHIMS[name][1] is None for name in MULTI_DIALECT)


# -- the shims' own bad input -------------------------------------------------------------------
def test_a_factory_that_is_not_callable_is_a_usage_error() -> None:
    pytest.importorskip("openai")
    with pytest.raises(UsageError, match=r"shims.openai\(factory\): factory must be a callable"):
        shims.openai("my_app.models:make_client")


def test_a_client_of_the_wrong_kind_is_named() -> None:
    openai = pytest.importorskip("openai")
    from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint

    ep = in_process_endpoint(FakeProvider("openai"))
    async_client = openai.AsyncOpenAI(base_url=ep.base_url, api_key=ep.api_key)
    with pytest.raises(UsageError, match=r"returned openai.*AsyncOpenAI, expected an "
                                         r"openai.OpenAI client \(a sync client"):
        shims.openai(lambda ep: async_client)(ep)
    with pytest.raises(UsageError, match=r"returned builtins.dict, expected an ollama.Client"):
        shims.ollama(lambda ep: {})(in_process_endpoint(FakeProvider("ollama")))


def test_a_missing_library_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ollama", None)  # import ollama raises ImportError
    with pytest.raises(UsageError, match=r"pip install 'pytest-toolcall\[ollama\]'"):
        shims.ollama(lambda ep: None)


def test_importing_the_shims_imports_no_library() -> None:
    assert libraries_imported_by("pytest_toolcall.shims", (
        "openai", "anthropic", "google.genai", "ollama", "langchain_core", "litellm",
        "pydantic_ai", "agents", "smolagents", "langgraph")) == []


# -- the config-only path ------------------------------------------------------------------------
_FACTORY = """
    import openai

    def make_client(ep):
        return openai.OpenAI(base_url=ep.base_url, api_key=ep.api_key, http_client=ep.client,
                             max_retries=0)

    not_callable = 42
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytest.importorskip("openai")
    pytester.makepyfile(my_models=textwrap.dedent(_FACTORY))
    pytester.syspathinsert()
    return pytester


def test_the_adapter_option_runs_the_library_through_its_shim(project: pytest.Pytester) -> None:
    result = project.runpytest_inprocess(
        "--toolcall-provider=openai", "--toolcall-adapter=shims.openai:my_models:make_client",
        "--toolcall-cases=wire.single_call,stream.truncated", "-p", "no:randomly")
    # the SDK's own defect shows: the shim, not the reference adapter, ran
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*stream.truncated*error.surfaced*"])


def test_the_adapter_option_claims_no_quirk(project: pytest.Pytester) -> None:
    """A shim set with the option is the user's adapter: the default profile claims no quirk
    of another server for it (issue 28), so a quirk case OpenAI never sends skips."""
    result = project.runpytest_inprocess(
        "--toolcall-provider=openai", "--toolcall-adapter=shims.openai:my_models:make_client",
        "--toolcall-cases=stream.id_name_repeated", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*does not send*it runs for fireworks*"])


def test_the_ini_twin(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\ntoolcall_adapter = shims.openai:my_models:make_client\n")
    result = project.runpytest_inprocess("--toolcall-provider=openai",
                                         "--toolcall-cases=stream.truncated")
    result.assert_outcomes(failed=1)


@pytest.mark.parametrize(("spec", "message"), [
    ("shims.openai:my_models", "expected shims.<library>:<module>:<factory>"),
    ("shims.opnai:my_models:make_client", "unknown shim 'shims.opnai'. Known: shims.openai"),
])
def test_a_bad_spec_fails_at_startup(project: pytest.Pytester, spec: str, message: str) -> None:
    result = project.runpytest_inprocess("--toolcall-provider=openai",
                                         f"--toolcall-adapter={spec}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


@pytest.mark.parametrize(("spec", "message"), [
    ("shims.openai:no_such_module:make_client", "could not import module 'no_such_module'"),
    ("shims.openai:my_models:make_clint", "module 'my_models' has no attribute 'make_clint'"),
    ("shims.openai:my_models:not_callable", "my_models:not_callable is a int, not a callable"),
    ("shims.anthropic:my_models:make_client", "shims.anthropic speaks the 'anthropic' dialect, "
                                              "but this suite item runs for 'openai'"),
])
def test_a_factory_that_cannot_be_used_is_a_setup_error(project: pytest.Pytester, spec: str,
                                                        message: str) -> None:
    if "anthropic" in spec:
        pytest.importorskip("anthropic")
    result = project.runpytest_inprocess("--toolcall-provider=openai", f"--toolcall-adapter={spec}",
                                         "--toolcall-cases=wire.single_call")
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert message in out
    assert "Traceback" not in out and "_config.py" not in out  # one message, not a traceback


def test_docs_shims_md_lists_every_pinned_failure() -> None:
    import importlib
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "shims.md").read_text(encoding="utf-8")
    sections = dict(PINNED)
    for module, heading in MULTI_DIALECT.values():
        sections.update({heading.format(key): pins for key, pins in
                         importlib.import_module(module).PINNED.items()})
    for library, pins in sections.items():
        assert f"#### {library}\n" in text, f"docs/shims.md has no section '#### {library}'"
        section = text.split(f"#### {library}\n", 1)[1].split("\n#### ", 1)[0].split("\n## ")[0]
        rows = {line.split("|")[1].strip(" `"): line.split("|")[2].strip(" `")
                for line in section.splitlines() if line.startswith("| `")}
        assert rows == {case: clause for case, (clause, _why) in pins.items()}, library

"""Issue 12: system and developer messages, provider errors a retrying caller can act on, and
transport faults. The negative controls are rows in the per-dialect control tests; here are the
positive controls (legitimate variants that must pass), the controls that need a short
per-case timeout, the loopback runs, and the units behind the ``errors`` family."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from pytest_toolcall.cases import ErrorReply, Turn, default_registry
from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.providers.errors import ERROR_KINDS, error_reply, kinds_for
from pytest_toolcall.core.errors import (
    CaseDefinitionError,
    ConformanceFailure,
    ProviderError,
    retry_after_seconds,
)
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint, serve
from pytest_toolcall.providers.fake.provider import Endpoint
from pytest_toolcall.core.model import ChatRequest, SystemMessage
from pytest_toolcall.reference import reference_adapter, reference_profile
from pytest_toolcall.providers.anthropic.reference import wire_id
from pytest_toolcall.providers.ollama.reference import OllamaAdapter
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter
from pytest_toolcall.run.runner import run_case

REGISTRY = default_registry()


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    ep = in_process_endpoint(FakeProvider("openai"))
    yield ep
    ep.close()


# -- positive controls: what the message checks must accept ---------------------------------------


class DeveloperAsSystem(OpenAIChatAdapter):
    """Sends developer messages with role system: OpenAI converts one into the other per model
    (OpenAI staff, community forum), so this is correct."""

    def encode_message(self, message: Any) -> dict[str, Any]:
        out = super().encode_message(message)
        if out["role"] == "developer":
            out["role"] = "system"
        return out


class JoinsLeadingSystemMessages(OpenAIChatAdapter):
    """Joins consecutive system messages into one (the same text in the same place) and leaves
    a later one where it is."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        out: list[dict[str, Any]] = []
        for message in body["messages"]:
            if (out and message["role"] in ("system", "developer")
                    and out[-1]["role"] in ("system", "developer")):
                out[-1] = {"role": "system",
                           "content": out[-1]["content"] + "\n\n" + message["content"]}
            else:
                out.append(dict(message))
        body["messages"] = out
        return body


class HoistsSystemMessages(OllamaAdapter):
    """Ollama: all system messages joined into one at the top, for chat templates that take a
    system message only first (litellm docs, 'Developer Role'): accepted on Ollama."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        system = [m["content"] for m in body["messages"] if m["role"] == "system"]
        rest = [m for m in body["messages"] if m["role"] != "system"]
        body["messages"] = [{"role": "system", "content": "\n\n".join(system)}] + rest
        return body


@pytest.mark.parametrize(("case_id", "adapter"), [
    ("wire.developer_message", DeveloperAsSystem),
    ("wire.system_prompt", DeveloperAsSystem),
    ("wire.system_prompts_several", JoinsLeadingSystemMessages),
    ("wire.developer_message", JoinsLeadingSystemMessages),
])
def test_legitimate_variants_pass_on_openai(case_id: str, adapter: type,
                                            endpoint: Endpoint) -> None:
    run_case(REGISTRY[case_id], adapter.from_endpoint(endpoint), Profile(), endpoint)


def test_ollama_may_hoist_later_system_messages() -> None:
    ep = in_process_endpoint(FakeProvider("ollama"))
    run_case(REGISTRY["wire.system_prompts_several"], HoistsSystemMessages.from_endpoint(ep),
             reference_profile("ollama"), ep)


def test_anthropic_ids_are_mapped_the_same_way_and_only_when_refused() -> None:
    assert wire_id("toolu_01FupCqh9WiFLKTeXddq4ZXH") == "toolu_01FupCqh9WiFLKTeXddq4ZXH"
    assert wire_id(None) is None
    codex = "call_Q1Ju|fc_0f0d"
    mapped = wire_id(codex)
    assert mapped == wire_id(codex) and mapped is not None
    assert mapped.replace("_", "").replace("-", "").isalnum()
    # two ids that differ only in refused characters stay apart
    assert wire_id("a|b") != wire_id("a.b")


# -- errors: ProviderError and the provider table --------------------------------------------------


def test_provider_error_says_whether_retrying_can_help() -> None:
    assert ProviderError("x", status=429).retryable is True
    assert ProviderError("x", status=529).retryable is True
    assert ProviderError("x", status=400).retryable is False
    assert ProviderError("x", status=429, code="insufficient_quota").retryable is False
    assert ProviderError("x", status=400, retryable=True).retryable is True
    assert ProviderError("x").retryable is None and ProviderError("x").retry_after is None


def test_retry_after_is_read_from_every_place_providers_put_it() -> None:
    assert retry_after_seconds(httpx.Headers({"retry-after": "7"})) == 7.0
    assert retry_after_seconds(httpx.Headers({"retry-after-ms": "1500",
                                              "retry-after": "9"})) == 1.5
    later = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 30))
    assert 25 <= (retry_after_seconds(httpx.Headers({"retry-after": later})) or 0) <= 31
    _, headers, body = error_reply("gemini", "rate_limit", 13)
    assert headers == {} and retry_after_seconds(httpx.Headers(headers), body) == 13.0
    assert retry_after_seconds(httpx.Headers({})) is None


@pytest.mark.parametrize("dialect", ["openai", "openai-responses", "anthropic", "gemini",
                                     "ollama"])
def test_every_kind_has_a_status_and_the_providers_shape(dialect: str) -> None:
    for kind in kinds_for(dialect):
        status, _, body = error_reply(dialect, kind, 3)
        assert 400 <= status < 600
        assert isinstance(body, dict) and "error" in body
    expected = {"anthropic": {"overloaded": 529, "request_too_large": 413},
                "gemini": {"auth": 400, "rate_limit": 429}}.get(dialect, {})
    for kind, status in expected.items():
        assert error_reply(dialect, kind)[0] == status


def test_a_kind_a_provider_lacks_and_an_unknown_kind_are_named() -> None:
    assert "rate_limit" not in kinds_for("ollama")
    with pytest.raises(KeyError, match="ollama has no 'rate_limit' error"):
        error_reply("ollama", "rate_limit")
    assert set(kinds_for("openai")) < set(ERROR_KINDS)
    from pytest_toolcall.cases import make_case

    with pytest.raises(CaseDefinitionError, match="unknown error kind 'nope'"):
        make_case(id="mine.bad_kind", title="t", why="w", steps=({
            "request": {"messages": [{"role": "user", "content": "x"}]},
            "reply": {"error": {"kind": "nope"}}},))


def test_the_fake_sends_the_providers_headers(endpoint: Endpoint) -> None:
    endpoint.fake.expect(Turn(error=ErrorReply(kind="rate_limit", retry_after=7)))
    reply = endpoint.client.post(endpoint.base_url + "/chat/completions",
                                 headers={"authorization": f"Bearer {endpoint.api_key}"},
                                 json={"model": "m", "messages": [{"role": "user",
                                                                   "content": "hi"}]})
    assert reply.status_code == 429 and reply.headers["retry-after"] == "7"
    assert reply.headers["x-ratelimit-remaining-tokens"] == "0"
    assert reply.json()["error"]["code"] == "rate_limit_exceeded"


# -- transport faults ------------------------------------------------------------------------------


class NoReadTimeout(OpenAIChatAdapter):
    """Built with timeout=None, so a stalled stream is waited on forever."""

    @classmethod
    def from_endpoint(cls, endpoint: Any, **kwargs: Any) -> NoReadTimeout:
        return cls(endpoint.base_url, endpoint.api_key,
                   client=httpx.Client(transport=endpoint.transport, timeout=None),
                   async_client=httpx.AsyncClient(transport=endpoint.async_transport,
                                                  timeout=None))


def test_a_stalled_stream_without_read_timeout_fails_on_the_case_timeout(
        endpoint: Endpoint) -> None:
    """The per-case timeout holds: the session does not hang on a stall. The adapter is the
    broken one (it waits forever) and the clause is the same wherever the deadline strikes, so
    the deadline is short."""
    with pytest.raises(ConformanceFailure) as exc:
        run_case(REGISTRY["errors.stream_stalled"], NoReadTimeout.from_endpoint(endpoint),
                 Profile(timeout=0.3), endpoint)
    assert exc.value.clause == "adapter.timeout", exc.value.render()


#: the read timeout of the endpoint's clients in the stalled-stream runs below. A stall on a
#: loopback port lasts until the client's read times out: with the kit's own
#: LOOPBACK_READ_TIMEOUT (2 s) each of the four stalled runs (two dialects, two interfaces)
#: waited 2 s. The timeout also bounds the wait for the answer's headers and first chunks, which
#: the fake sends at once (about 1 ms): 1 s leaves that a wide margin (a shorter one, 0.5 ms,
#: turned the verdict into "the adapter raised before sending any request"). That the kit's own
#: timeout is under the case's deadline is asserted in tests/test_foreign_faults.py
#: (test_the_kits_own_clients_of_a_loopback_fake_time_out_before_the_case).
STALL_READ_TIMEOUT = 1.0


@pytest.mark.parametrize("dialect", ["openai", "anthropic"])
@pytest.mark.parametrize("case_id", ["errors.connection_reset", "errors.stream_stalled",
                                     "errors.rate_limited", "errors.connection_refused"])
def test_faults_play_on_a_loopback_port(dialect: str, case_id: str,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_toolcall.providers.fake import server

    if case_id == "errors.stream_stalled":
        monkeypatch.setattr(server, "LOOPBACK_READ_TIMEOUT", STALL_READ_TIMEOUT)
    with serve(FakeProvider(dialect)) as ep:
        runs = run_case(REGISTRY[case_id], reference_adapter(ep), reference_profile(dialect), ep)
        assert all(record.error is not None for run in runs for record in run.steps)


def test_take_is_for_stream_steps_only() -> None:
    from pytest_toolcall.cases import make_case

    with pytest.raises(CaseDefinitionError, match="take .* needs via='stream'"):
        make_case(id="mine.take", title="t", why="w", steps=({
            "request": {"messages": [{"role": "user", "content": "x"}]},
            "reply": {"text": "hi"}, "take": 1},))

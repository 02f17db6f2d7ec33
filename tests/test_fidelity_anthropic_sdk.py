"""Fidelity: the official ``anthropic`` SDK must read what the fake Anthropic provider sends.

The fake is served on a loopback port and the SDK is created with
``_strict_response_validation=True`` (it validates response objects against its types only then).
Every step of the built-in cases for ``anthropic`` whose reply Anthropic itself could send is
replayed through ``messages.create()`` and ``messages.stream()`` (+ ``get_final_message()``).
Excluded, with the reason: error replies and broken-off streams (the SDK error path has its own
test below), and argument text that is not a JSON object (a stream of it is real, but the SDK
parses partial JSON as it comes and a JSON answer cannot carry it at all).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from sdk_fidelity import error_or_cut, realistic_steps, served_fake

from pytest_toolcall.cases import ErrorReply, Step, StreamPlan, Turn
from pytest_toolcall.core.model import parse_arguments
from pytest_toolcall.providers.anthropic.dialect import AnthropicMessages
from pytest_toolcall.providers.anthropic.reference import AnthropicAdapter
from pytest_toolcall.providers.fake import FakeProvider, serve

anthropic = pytest.importorskip(
    "anthropic", reason="the official anthropic SDK is not installed (it is in the 'dev' extra: "
    "pip install -e '.[dev]'); the SDK fidelity tests need it")

_STOP = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens",
         "content_filter": "refusal"}


def unrealistic(step: Step) -> str | None:
    turn = step.reply
    why = error_or_cut(step)
    if why:
        return why
    for call in turn.tool_calls:
        _, error = parse_arguments(call.arguments)
        if error:
            return f"arguments {call.arguments!r} are not a JSON object"
    if turn.expected_finish() not in _STOP:
        return f"finish_reason {turn.expected_finish()!r} has no stop_reason"
    return None


REALISTIC, EXCLUDED = realistic_steps("anthropic", unrealistic)
fake, endpoint = served_fake("anthropic")


def _client(endpoint: Any) -> Any:
    # the SDK appends /v1/messages itself; trust_env=False keeps proxies off loopback traffic
    return anthropic.Anthropic(base_url=endpoint.base_url.removesuffix("/v1"),
                               api_key=endpoint.api_key, _strict_response_validation=True,
                               max_retries=0, timeout=10,
                               http_client=anthropic.DefaultHttpxClient(trust_env=False))


@pytest.fixture(scope="module")
def client(endpoint: Any) -> Iterator[Any]:
    sdk = _client(endpoint)
    yield sdk
    sdk.close()


def _body(step: Step) -> dict[str, Any]:
    encoder = AnthropicAdapter.__new__(AnthropicAdapter)
    encoder.model = AnthropicAdapter.DEFAULT_MODEL
    body = encoder.build_body(step.request, stream=False)
    assert AnthropicMessages().validate(body) is None
    return body


def _facts(message: Any) -> dict[str, Any]:
    assert message.type == "message" and message.role == "assistant"
    text = "".join(b.text for b in message.content if b.type == "text") or None
    calls = [(b.id, b.name, b.input) for b in message.content if b.type == "tool_use"]
    return {"text": text, "calls": calls, "stop": message.stop_reason,
            "usage": (message.usage.input_tokens, message.usage.output_tokens)}


def _expected(turn: Turn) -> dict[str, Any]:
    ids = AnthropicMessages.call_ids(turn)
    u = turn.usage
    return {"text": turn.text or None,
            "calls": [(cid, c.name, parse_arguments(c.arguments)[0])
                      for cid, c in zip(ids, turn.tool_calls)],
            "stop": _STOP[turn.expected_finish()],
            "usage": (u.input_tokens or 0, u.output_tokens or 0) if u else (0, 0)}


def test_most_steps_are_replayed() -> None:
    assert len(REALISTIC) >= 30, EXCLUDED
    assert all(why for _, why in EXCLUDED)


@pytest.mark.parametrize("step", REALISTIC)
def test_sdk_reads_the_answer(step: Step, client: Any, fake: FakeProvider) -> None:
    fake.expect(step.reply)
    body = _body(step)
    want = _expected(step.reply)
    assert _facts(client.messages.create(**body)) == want
    with client.messages.stream(**body) as stream:
        events = list(stream)
        final = stream.get_final_message()
    assert _facts(final) == want
    assert sum(e.type == "content_block_stop" for e in events) == len(final.content)


def _data_only(events: list[bytes]) -> list[bytes]:
    return [b"\n".join(line for line in e.split(b"\n") if not line.startswith(b"event:"))
            for e in events]


class DataOnly(AnthropicMessages):
    """The same stream without ``event:`` lines (what an OpenAI-style SSE writer sends)."""

    def encode_stream(self, turn: Turn, body: Any) -> list[bytes]:
        return _data_only(super().encode_stream(turn, body))


def test_data_only_sse_gives_the_sdk_zero_events() -> None:
    """WIRE.md §0: the SDK dispatches on the event line; data-only SSE is silently empty. This
    is why the fake always sends ``event:`` lines (and why the reference reads them)."""
    fake = FakeProvider(DataOnly())
    fake.expect(Turn(text="Hello there.", stream=StreamPlan(quirks=frozenset(
        {"ping_everywhere"}))))
    with serve(fake) as ep:
        sdk = _client(ep)
        body = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
        raw = list(sdk.messages.create(**body, stream=True))
        sdk.close()
    assert raw == []
    assert b"event:" not in fake.exchanges[-1].response_body
    assert b'"type":"message_stop"' in fake.exchanges[-1].response_body


def test_sdk_raises_on_the_error_event_and_on_4xx(client: Any, fake: FakeProvider) -> None:
    body = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    fake.expect(Turn(text="Hello there, this is long.", stream=StreamPlan(
        error_after=3, error=ErrorReply(status=200, type="server_error", message="Overloaded"))))
    with pytest.raises(anthropic.APIStatusError, match="Overloaded") as exc:
        list(client.messages.create(**body, stream=True))
    assert exc.value.body["error"]["type"] == "overloaded_error"  # type: ignore[index]
    fake.expect(Turn(error=ErrorReply(status=400, message="prompt is too long")))
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long"):
        client.messages.create(**body)
    fake.expect(Turn(text="x"))
    bad = dict(body, messages=[{"role": "user", "content": "hi"},
                               {"role": "assistant", "content": [
                                   {"type": "tool_use", "id": "toolu_A", "name": "f",
                                    "input": {}}]},
                               {"role": "user", "content": "go on"}])
    with pytest.raises(anthropic.BadRequestError, match="toolu_A") as rejected:
        client.messages.create(**bad)
    assert rejected.value.status_code == 400
    assert json.loads(fake.exchanges[-1].response_body)["type"] == "error"


def test_sdk_auth_headers_are_what_the_fake_checks(endpoint: Any) -> None:
    sdk = anthropic.Anthropic(base_url=endpoint.base_url.removesuffix("/v1"), api_key="wrong",
                              max_retries=0, timeout=10,
                              http_client=anthropic.DefaultHttpxClient(trust_env=False))
    with pytest.raises(anthropic.AuthenticationError, match="invalid x-api-key"):
        sdk.messages.create(model="m", max_tokens=1, messages=[{"role": "user", "content": "x"}])
    sdk.close()

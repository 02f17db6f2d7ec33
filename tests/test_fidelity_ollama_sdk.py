"""Fidelity: the official ollama SDK (0.6.x, its own httpx client and pydantic models) parses
every realistic answer of the ``ollama`` fake, served on loopback: JSON and NDJSON streams,
quirks included, and raises its ResponseError on the fake's error bodies and error lines.

The SDK validates what it reads: ``arguments`` must be a mapping (a JSON string fails), and every
NDJSON line goes through ``json.loads`` (a blank line would raise). Its models drop
``tool_calls[].id``, which is why calls without ids are part of the suite.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

ollama = pytest.importorskip("ollama")

from pytest_toolcall.cases import ErrorReply, ScriptedCall, StreamPlan, Turn
from pytest_toolcall.providers.fake import FakeProvider, serve
from pytest_toolcall.providers.fake.provider import Endpoint

CALLS = (ScriptedCall(name="get_weather", arguments={"city": "Zürich", "unit": "celsius"},
                      id="call_a1b2c3d4"),
         ScriptedCall(name="get_weather", arguments='{"city": "東京 🚀"}'),
         ScriptedCall(name="get_time", arguments=None))
TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
MESSAGES = [{"role": "user", "content": "Weather?"}]
WANT = [("get_weather", {"city": "Zürich", "unit": "celsius"}),
        ("get_weather", {"city": "東京 🚀"}), ("get_time", {})]

PLANS = [
    pytest.param(StreamPlan(), id="realistic"),
    pytest.param(StreamPlan(chunking="bytewise"), id="bytewise"),
    pytest.param(StreamPlan(chunking="seeded", seed=3,
                            quirks=frozenset({"ndjson_no_final_newline"})), id="no-final-newline"),
    pytest.param(StreamPlan(quirks=frozenset({"no_ids", "index_stuck_at_zero"})), id="old-server"),
]


@pytest.fixture
def served() -> Iterator[tuple[FakeProvider, Endpoint]]:
    fake = FakeProvider("ollama")
    with serve(fake) as endpoint:
        yield fake, endpoint


def _client(endpoint: Endpoint) -> object:
    return ollama.Client(host=endpoint.base_url)


@pytest.mark.parametrize("plan", PLANS)
def test_sdk_reads_complete_answer(served: tuple[FakeProvider, Endpoint],
                                   plan: StreamPlan) -> None:
    fake, endpoint = served
    fake.expect(Turn(text="Checking.", tool_calls=CALLS, stream=plan))
    response = _client(endpoint).chat(model="llama3.2", messages=MESSAGES, tools=TOOLS,
                                      stream=False)
    assert response.done is True and response.done_reason == "stop"
    assert response.message.content == "Checking."
    assert [(c.function.name, dict(c.function.arguments)) for c in response.message.tool_calls] \
        == WANT
    assert (response.prompt_eval_count, response.eval_count) == (11, 7)
    assert fake.exchanges[-1].status == 200 and fake.exchanges[-1].streamed is False


@pytest.mark.parametrize("plan", PLANS)
def test_sdk_reads_stream(served: tuple[FakeProvider, Endpoint], plan: StreamPlan) -> None:
    fake, endpoint = served
    fake.expect(Turn(text="Checking.", tool_calls=CALLS, stream=plan))
    parts = list(_client(endpoint).chat(model="llama3.2", messages=MESSAGES, tools=TOOLS,
                                        stream=True))
    assert fake.exchanges[-1].streamed is True
    assert "".join(p.message.content or "" for p in parts) == "Checking."
    got = [(c.function.name, dict(c.function.arguments)) for p in parts
           for c in p.message.tool_calls or ()]
    assert got == WANT
    assert [p.done for p in parts] == [False] * (len(parts) - 1) + [True]
    assert parts[-1].done_reason == "stop" and parts[-1].eval_count == 7


def test_sdk_raises_on_error_body(served: tuple[FakeProvider, Endpoint]) -> None:
    fake, endpoint = served
    fake.expect(Turn(error=ErrorReply(status=404, message="model 'nope' not found")))
    with pytest.raises(ollama.ResponseError) as info:
        _client(endpoint).chat(model="nope", messages=MESSAGES, stream=False)
    assert info.value.status_code == 404 and info.value.error == "model 'nope' not found"


def test_sdk_raises_on_error_line(served: tuple[FakeProvider, Endpoint]) -> None:
    fake, endpoint = served
    message = "an error was encountered while running the model: unexpected EOF"
    fake.expect(Turn(tool_calls=CALLS, stream=StreamPlan(
        error_after=1, error=ErrorReply(status=200, message=message))))
    stream = _client(endpoint).chat(model="llama3.2", messages=MESSAGES, stream=True)
    assert next(stream).message.tool_calls and next(stream).message.tool_calls
    with pytest.raises(ollama.ResponseError) as info:
        next(stream)
    assert info.value.error == message


def test_sdk_replay_is_accepted(served: tuple[FakeProvider, Endpoint]) -> None:
    """The SDK sends calls back as objects with tool_name results: the fake accepts that."""
    fake, endpoint = served
    fake.expect(Turn(tool_calls=CALLS[:1]))
    first = _client(endpoint).chat(model="llama3.2", messages=MESSAGES, tools=TOOLS,
                                   stream=False)
    fake.expect(Turn(text="Sunny."))
    history = [*MESSAGES, first.message,
               {"role": "tool", "tool_name": "get_weather", "content": "21°C"}]
    second = _client(endpoint).chat(model="llama3.2", messages=history, tools=TOOLS,
                                    stream=False)
    assert second.message.content == "Sunny." and fake.exchanges[-1].rejection is None
    sent = fake.exchanges[-1].json["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert sent == {"city": "Zürich", "unit": "celsius"}


def test_sdk_rejects_string_arguments() -> None:
    """Why the fake never sends string arguments on the native route: the SDK refuses them."""
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        ollama.ChatResponse(model="m", message={"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "f", "arguments": '{"a": 1}'}}]})

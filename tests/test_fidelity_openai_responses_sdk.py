"""Fidelity: the official ``openai`` SDK (``client.responses``) reads what the fake Responses
provider sends, with ``_strict_response_validation=True`` (WIRE.md §0), over loopback.

Replayed: every step of an openai-responses case whose reply the real API could send (no error
reply, no truncation or mid-stream error, no quirk of other servers, no null arguments), three
ways: ``responses.create()``, ``responses.create(stream=True)`` (raw events) and the stream
helper ``responses.stream()`` + ``get_final_response()``, which raises unless the first event is
response.created and indexes ``output[output_index]``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sdk_fidelity import error_or_cut, other_servers, realistic_steps

from pytest_toolcall.cases import Step, Turn
from pytest_toolcall.providers.fake import FakeProvider, serve
from pytest_toolcall.reference import request_body

openai = pytest.importorskip("openai", reason="the official openai SDK is not installed (it is "
                             "in the 'dev' extra: pip install -e '.[dev]')")

DIALECT = "openai-responses"
MODES = ("create", "create_stream", "stream_helper")


def unrealistic(step: Step) -> str | None:
    return error_or_cut(step) or other_servers(step)


REALISTIC, _ = realistic_steps(DIALECT, unrealistic, chat_only=True)


@pytest.fixture(scope="module")
def fake() -> FakeProvider:
    return FakeProvider(DIALECT)


@pytest.fixture(scope="module")
def client(fake: FakeProvider) -> Iterator[Any]:
    with serve(fake) as ep:
        sdk = openai.OpenAI(base_url=ep.base_url, api_key=ep.api_key, max_retries=0, timeout=10,
                            _strict_response_validation=True,
                            http_client=openai.DefaultHttpxClient(trust_env=False))
        yield sdk
        sdk.close()


def _expected(turn: Turn) -> list[tuple[str, str, str | None]]:
    return [(c.id or f"call_{i + 1:03d}", c.name, c.arguments_text())
            for i, c in enumerate(turn.tool_calls)]


def _read(response: Any) -> dict[str, Any]:
    calls = [(o.call_id, o.name, o.arguments) for o in response.output
             if o.type == "function_call"]
    u = response.usage
    return {"calls": calls, "text": response.output_text or None,
            "usage": None if u is None else (u.input_tokens, u.output_tokens, u.total_tokens),
            "ids": [o.id for o in response.output if o.type == "function_call"]}


def _run(client: Any, body: dict[str, Any], mode: str) -> dict[str, Any]:
    if mode == "create":
        return _read(client.responses.create(**body))
    if mode == "create_stream":
        events = list(client.responses.create(**body, stream=True))
        # the stream ends with the event of the response's status: response.incomplete for a
        # cut answer (openai-python 3.57.0, types/responses/response_incomplete_event.py)
        last = ("response.incomplete" if events[-1].response.status == "incomplete"
                else "response.completed")
        assert events[0].type == "response.created" and events[-1].type == last
        fragments: dict[str, list[str]] = {}
        for event in events:
            if event.type == "response.function_call_arguments.delta":
                fragments.setdefault(event.item_id, []).append(event.delta)
        got = _read(events[-1].response)
        # the fragments of each call, joined, are its arguments (keyed by the fc_ item id)
        for fid, (_, _, arguments) in zip(got["ids"], got["calls"]):
            assert "".join(fragments.get(fid, [])) == arguments
        return got
    with client.responses.stream(**body) as stream:
        event = None
        for event in stream:
            pass
        if event is not None and event.type == "response.incomplete":
            # the helper's get_final_response() wants response.completed (openai-python 3.57.0
            # raises "Didn't receive a `response.completed` event."): a cut answer's response
            # is the one its response.incomplete event carries
            return _read(event.response)
        return _read(stream.get_final_response())


def test_realistic_steps_are_many() -> None:
    ids = {p.id for p in REALISTIC}
    assert len(ids) >= 20
    assert {"wire.responses_call_id_not_item_id/step2", "stream.responses_output_index/step1",
            "wire.zero_args_empty_string/step1"} <= ids


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("step", REALISTIC)
def test_sdk_reads_what_the_turn_scripted(client: Any, fake: FakeProvider, step: Step,
                                          mode: str) -> None:
    turn = step.reply
    fake.expect(turn)
    before = len(fake.exchanges)
    body = request_body(DIALECT, step.request)
    got = _run(client, body, mode)
    (exchange,) = fake.exchanges[before:]
    assert exchange.accepted, exchange.rejection
    assert exchange.streamed is (mode != "create")
    assert got["calls"] == _expected(turn)
    assert got["text"] == turn.text
    assert all(i.startswith("fc_") for i in got["ids"])
    u = turn.usage
    assert got["usage"] == (None if u is None else (u.input_tokens, u.output_tokens,
                                                    u.total_tokens))


def test_sdk_surfaces_the_fakes_400(client: Any, fake: FakeProvider) -> None:
    fake.expect(Turn(text="unused"))
    body = {"model": "gpt-4.1-mini", "input": [
        {"role": "user", "content": "hi"},
        {"type": "function_call_output", "call_id": "call_X", "output": "stray"}]}
    with pytest.raises(openai.BadRequestError) as exc:
        client.responses.create(**body)
    assert exc.value.status_code == 400
    assert exc.value.body["message"] == ("No tool call found for function call output with "
                                         "call_id call_X.")
    assert exc.value.body["param"] == "input"

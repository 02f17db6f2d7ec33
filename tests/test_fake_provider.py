"""The fake provider: routes, auth, bodies, recording, sync/async parity, the loopback server."""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any

import httpx
import pytest

from pytest_toolcall.cases import ScriptedCall, StreamPlan, Turn
from pytest_toolcall.core.errors import KitError
from pytest_toolcall.providers.fake import DEFAULT_KEY, FakeProvider, in_process_endpoint, serve
from pytest_toolcall.providers.openai.dialect import OpenAIChat

URL = "http://toolcall.fake/v1/chat/completions"
AUTH = {"authorization": f"Bearer {DEFAULT_KEY}"}
BODY = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}
STREAM_BODY = {**BODY, "stream": True, "stream_options": {"include_usage": True}}
CALLS = Turn(tool_calls=(ScriptedCall(name="get_weather", arguments={"city": "Zürich"}),
                         ScriptedCall(name="now", arguments="")),
             stream=StreamPlan(chunking="seeded", seed=5))


def client(fake: FakeProvider) -> httpx.Client:
    return httpx.Client(transport=fake.transport(), trust_env=False)


def error(message: str, param: Any = None, code: Any = None,
          type: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": type, "param": param, "code": code}}


def test_unknown_route_is_a_404_and_recorded() -> None:
    fake = FakeProvider("openai", [Turn(text="never sent")])
    with client(fake) as c:
        response = c.get("http://toolcall.fake/v1/models", headers=AUTH)
    assert response.status_code == 404
    assert response.json() == error("Invalid URL (GET /v1/models)")
    [exchange] = fake.exchanges
    assert (exchange.method, exchange.path, exchange.status) == ("GET", "/v1/models", 404)
    assert exchange.rejection is not None and exchange.rejection.rule == "route"
    assert not exchange.accepted and exchange.turn is None


def test_missing_key_is_a_401() -> None:
    fake = FakeProvider(turns=[Turn(text="x")])
    with client(fake) as c:
        response = c.post(URL, json=BODY)
    assert response.status_code == 401
    assert response.json() == error(
        "You didn't provide an API key. You need to provide your API key in an Authorization "
        "header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).")
    assert fake.exchanges[0].rejection.rule == "auth.missing"  # type: ignore[union-attr]


def test_wrong_key_is_a_401_and_never_recorded() -> None:
    fake = FakeProvider(turns=[Turn(text="x")], api_key="sk-right-key-0000")
    wrong = "sk-wrong-key-1234"
    with client(fake) as c:
        response = c.post(URL, json=BODY, headers={"Authorization": f"Bearer {wrong}",
                                                    "X-Api-Key": wrong, "Cookie": f"k={wrong}"})
    assert response.status_code == 401
    assert response.json() == error("Incorrect API key provided: sk-****1234.",
                                    code="invalid_api_key")
    [exchange] = fake.exchanges
    assert exchange.headers["authorization"] == "<redacted>"
    assert exchange.headers["x-api-key"] == "<redacted>"
    assert exchange.headers["cookie"] == "<redacted>"
    assert wrong not in json.dumps(exchange.headers)
    assert exchange.rejection.rule == "auth.invalid"  # type: ignore[union-attr]


def test_right_key_is_redacted_too() -> None:
    fake = FakeProvider(turns=[Turn(text="x")])
    with client(fake) as c:
        assert c.post(URL, json=BODY, headers=AUTH).status_code == 200
    assert fake.exchanges[0].headers["authorization"] == "<redacted>"
    assert DEFAULT_KEY not in repr(fake.exchanges[0])


@pytest.mark.parametrize("raw", [b"{not json", b"", b"\xff\xfe"])
def test_invalid_json_body_is_the_providers_400(raw: bytes) -> None:
    fake = FakeProvider(turns=[Turn(text="x")])
    with client(fake) as c:
        response = c.post(URL, content=raw, headers={**AUTH, "content-type": "application/json"})
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith(
        "We could not parse the JSON body of your request.")
    [exchange] = fake.exchanges
    assert exchange.body == raw and exchange.json is None
    assert exchange.rejection.rule == "body.json"  # type: ignore[union-attr]


def test_validation_rejection_is_recorded_and_the_turn_is_not_used() -> None:
    fake = FakeProvider(turns=[Turn(text="kept")])
    orphan = {**BODY, "messages": [{"role": "tool", "tool_call_id": "x", "content": "r"}]}
    with client(fake) as c:
        rejected = c.post(URL, json=orphan, headers=AUTH)
        accepted = c.post(URL, json=BODY, headers=AUTH)
    assert rejected.status_code == 400
    assert rejected.json()["error"]["param"] == "messages.[0].role"
    assert accepted.json()["choices"][0]["message"]["content"] == "kept"
    assert [e.status for e in fake.exchanges] == [400, 200]
    assert fake.exchanges[1].decoded is not None
    assert fake.exchanges[1].decoded.messages[0].content == "hi"  # type: ignore[union-attr]


def test_no_scripted_turn_is_a_500_saying_so() -> None:
    fake = FakeProvider()
    with client(fake) as c:
        response = c.post(URL, json=BODY, headers=AUTH)
    assert response.status_code == 500
    assert "no turn is scripted" in response.json()["error"]["message"]


def test_scripted_error_reply() -> None:
    from pytest_toolcall.cases import ErrorReply

    fake = FakeProvider(turns=[Turn(error=ErrorReply(status=429, message="Rate limit reached",
                                                     type="requests", code="rate_limit_exceeded"))])
    with client(fake) as c:
        response = c.post(URL, json=STREAM_BODY, headers=AUTH)
    assert response.status_code == 429
    assert response.json() == error("Rate limit reached", code="rate_limit_exceeded",
                                    type="requests")
    assert fake.exchanges[0].streamed is False


def test_turn_queue_then_expect() -> None:
    fake = FakeProvider(turns=[Turn(text="one"), Turn(text="two")])
    with client(fake) as c:
        bodies = [c.post(URL, json=BODY, headers=AUTH).json() for _ in range(3)]
        assert [b["choices"][0]["message"]["content"] for b in bodies[:2]] == ["one", "two"]
        assert "no turn is scripted" in bodies[2]["error"]["message"]  # the queue ran dry
        fake.expect(Turn(text="again"), step=4)
        texts = [c.post(URL, json=BODY, headers=AUTH).json()["choices"][0]["message"]["content"]
                 for _ in range(2)]
    assert texts == ["again", "again"]
    assert [e.index for e in fake.exchanges] == [0, 1, 2, 3, 4]
    assert [e.step for e in fake.exchanges] == [None, None, None, 4, 4]
    assert fake.exchanges[2].status == 500


def test_every_exchange_recorded_with_its_step() -> None:
    fake = FakeProvider()
    with client(fake) as c:
        for step in range(3):
            fake.expect(Turn(text=f"s{step}"), step=step)
            c.post(URL, json=BODY, headers=AUTH)
            if step == 1:
                c.post(URL, json=BODY)  # unauthenticated retry, still recorded
    assert [(e.index, e.step, e.status) for e in fake.exchanges] == [
        (0, 0, 200), (1, 1, 200), (2, 1, 401), (3, 2, 200)]
    assert [e.turn.text for e in fake.exchanges if e.turn] == ["s0", "s1", "s2"]
    assert fake.exchanges[0].response_json["choices"][0]["message"]["content"] == "s0"


def test_stream_is_cut_by_the_plan_and_recorded() -> None:
    fake = FakeProvider(turns=[CALLS])
    with client(fake) as c, c.stream("POST", URL, json=STREAM_BODY, headers=AUTH) as response:
        received = list(response.iter_raw())
        assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    [exchange] = fake.exchanges
    assert exchange.streamed and exchange.status == 200
    assert received == exchange.chunks
    assert len(exchange.chunks) > 10  # seeded: cut far more often than once per event
    assert exchange.response_body.endswith(b"data: [DONE]\n\n")
    assert b"\\u00fc" not in exchange.response_body  # non-ASCII is sent as UTF-8, unescaped
    assert "ü".encode() in exchange.response_body


def test_expect_boundaries_override_the_plan() -> None:
    fake = FakeProvider()
    fake.expect(CALLS, step=0, boundaries=[10, 20])
    with client(fake) as c, c.stream("POST", URL, json=STREAM_BODY, headers=AUTH) as response:
        received = list(response.iter_raw())
    assert [len(p) for p in received[:2]] == [10, 10]
    assert len(received) == 3


def test_async_handler_streams_the_same_bytes_as_sync() -> None:
    sync_fake, async_fake = FakeProvider(turns=[CALLS]), FakeProvider(turns=[CALLS])
    with client(sync_fake) as c, c.stream("POST", URL, json=STREAM_BODY, headers=AUTH) as r:
        sync_chunks = list(r.iter_raw())

    async def fetch() -> list[bytes]:
        async with httpx.AsyncClient(transport=async_fake.async_transport(),
                                     trust_env=False) as ac:
            async with ac.stream("POST", URL, json=STREAM_BODY, headers=AUTH) as r:
                return [piece async for piece in r.aiter_raw()]

    async_chunks = asyncio.run(fetch())
    assert async_chunks == sync_chunks
    assert async_fake.exchanges[0].chunks == sync_fake.exchanges[0].chunks
    assert async_fake.exchanges[0].json == sync_fake.exchanges[0].json == STREAM_BODY


def test_in_process_endpoint() -> None:
    fake = FakeProvider(turns=[Turn(text="hello")])
    endpoint = in_process_endpoint(fake)
    assert endpoint.base_url == "http://toolcall.fake/v1"
    assert (endpoint.provider, endpoint.api_key) == ("openai", DEFAULT_KEY)
    response = endpoint.client.post(endpoint.base_url + "/chat/completions", json=BODY,
                                    headers=AUTH)
    assert response.json()["choices"][0]["message"]["content"] == "hello"
    assert endpoint.exchanges is fake.exchanges and len(endpoint.exchanges) == 1
    assert endpoint.client is endpoint.client  # one client, reused
    endpoint.close()


# -- the loopback server --------------------------------------------------------------------------
def _sse_payloads(lines: list[str]) -> list[str]:
    return [line[len("data: "):] for line in lines if line.startswith("data: ")]


def test_serve_streams_sse_over_real_loopback() -> None:
    fake = FakeProvider(turns=[CALLS])
    with serve(fake) as endpoint:
        assert endpoint.base_url.startswith("http://127.0.0.1:")
        assert endpoint.base_url.endswith("/v1")
        with httpx.Client(trust_env=False) as c, c.stream(
            "POST", endpoint.base_url + "/chat/completions", json=STREAM_BODY,
            headers={"Authorization": f"Bearer {endpoint.api_key}"},
        ) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            payloads = _sse_payloads(list(response.iter_lines()))
    assert payloads[-1] == "[DONE]"
    frags = [f for p in payloads[:-1] for c in json.loads(p)["choices"]
             for f in c["delta"].get("tool_calls", [])]
    assert frags[0]["function"]["name"] == "get_weather"
    args = "".join(f["function"]["arguments"] for f in frags if f["index"] == 0)
    assert json.loads(args) == {"city": "Zürich"}
    [exchange] = fake.exchanges
    assert exchange.path == "/v1/chat/completions" and exchange.streamed
    assert exchange.headers["authorization"] == "<redacted>"


def test_serve_answers_json_and_errors_and_stops() -> None:
    fake = FakeProvider(turns=[Turn(text="hello")])
    with serve(fake) as endpoint:
        url = endpoint.base_url + "/chat/completions"
        with httpx.Client(trust_env=False) as c:
            ok = c.post(url, json=BODY, headers={"Authorization": f"Bearer {endpoint.api_key}"})
            denied = c.post(url, json=BODY)
        assert ok.json()["choices"][0]["message"]["content"] == "hello"
        assert denied.status_code == 401
        port = int(endpoint.base_url.split(":")[2].split("/")[0])
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        pass


def test_serve_endpoint_clients_use_real_sockets() -> None:
    fake = FakeProvider(turns=[Turn(text="via endpoint")])
    with serve(fake) as endpoint:
        response = endpoint.client.post(endpoint.base_url + "/chat/completions", json=BODY,
                                        headers={"Authorization": f"Bearer {endpoint.api_key}"})
    assert response.json()["choices"][0]["message"]["content"] == "via endpoint"


def test_serve_on_ipv6_loopback() -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6 in this Python build")
    fake = FakeProvider(turns=[Turn(text="six")])
    try:
        context = serve(fake, host="::1")
        endpoint = context.__enter__()
    except OSError as exc:  # IPv6 disabled on this machine
        pytest.skip(f"cannot bind ::1: {exc}")
    try:
        assert endpoint.base_url.startswith("http://[::1]:")
        with httpx.Client(trust_env=False) as c:
            response = c.post(endpoint.base_url + "/chat/completions", json=BODY,
                              headers={"Authorization": f"Bearer {endpoint.api_key}"})
        assert response.json()["choices"][0]["message"]["content"] == "six"
    finally:
        context.__exit__(None, None, None)


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.com", "::"])
def test_serve_refuses_non_loopback_hosts(host: str) -> None:
    with pytest.raises(ValueError) as info, serve(FakeProvider(), host=host):
        pass
    assert str(info.value) == (f"the fake provider serves on loopback only, not on {host!r}: "
                               "use host='127.0.0.1' (the default), '::1' or 'localhost'")


class _CrashingDialect(OpenAIChat):
    """OpenAI's dialect whose validate crashes on a request with tools (a kit bug)."""

    def validate(self, body: Any) -> Any:
        if isinstance(body, dict) and "tools" in body:
            raise TypeError("'int' object is not iterable")
        return super().validate(body)


def test_a_dialect_that_crashes_is_a_500_saying_the_kit_could_not_run() -> None:
    """A dialect's validate that raises reaches no client as a traceback (nor, through an SDK
    that retries, as a connection error): the fake answers 500 naming the kit's failure and
    keeps it on the exchange; a body it can judge is answered as ever."""
    fake = FakeProvider(_CrashingDialect(), [Turn(text="hi")])
    with client(fake) as c:
        crashed = c.post(URL, headers=AUTH, json={**BODY, "tools": 5})
        fine = c.post(URL, headers=AUTH, json=BODY)
    assert crashed.status_code == 500
    message = crashed.json()["error"]["message"]
    assert message.startswith("pytest-toolcall fake provider: the kit could not run: ")
    assert "TypeError: 'int' object is not iterable" in message
    assert fake.exchanges[0].kit_error == ("the fake openai provider crashed judging the "
                                           "request: TypeError: 'int' object is not iterable")
    assert fine.status_code == 200 and fake.exchanges[1].kit_error is None


def test_a_dialect_crash_is_a_kit_error_of_the_case_and_of_a_loop() -> None:
    """The runner reads the crash back as a KitError (the kit could not run, no verdict): a
    step's checks and a loop's record of its model calls."""
    from pytest_toolcall.cases import default_registry
    from pytest_toolcall.reference import _adapter_class, reference_profile
    from pytest_toolcall.run.looprun import _read_back
    from pytest_toolcall.run.runner import run_case

    case = default_registry()["wire.tool_definitions_intact"]
    fake = FakeProvider(_CrashingDialect())
    endpoint = in_process_endpoint(fake)
    try:
        with pytest.raises(KitError, match=r"^the kit could not run step 1: the fake openai "
                           r"provider crashed judging the request: TypeError: "):
            run_case(case, _adapter_class("openai").from_endpoint(endpoint),
                     reference_profile("openai"), endpoint, interfaces=["sync"])
    finally:
        endpoint.close()
    with pytest.raises(KitError, match=r"^the kit could not run model call 1: the fake openai"):
        _read_back(None, fake)  # type: ignore[arg-type]


def test_a_stall_without_read_timeout_ends_when_the_fake_is_released() -> None:
    """A client with no read timeout waits in a stalled in-process body (up to STALL_LIMIT,
    120 s). A framework that calls the model on a worker thread left that thread waiting after
    the run's deadline, and the session waited for it at exit: the run releases the fake
    (run/looprun.py), and the waiting read fails at once."""
    import threading

    fake = FakeProvider("openai", [Turn(text="Hello there", stream=StreamPlan(stall=True))])
    client = httpx.Client(transport=fake.transport(), base_url="http://toolcall.fake/v1",
                          timeout=httpx.Timeout(None))
    errors: list[BaseException] = []
    started = threading.Event()

    def read() -> None:
        try:
            with client.stream("POST", "/chat/completions", headers={
                    "authorization": f"Bearer {DEFAULT_KEY}"}, json={
                    "model": "gpt-4o-mini", "stream": True,
                    "messages": [{"role": "user", "content": "hi"}]}) as response:
                started.set()
                for _ in response.iter_bytes():
                    pass
        except BaseException as exc:  # noqa: BLE001 - what the waiting read raised
            errors.append(exc)

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    assert started.wait(10), "the fake never answered the request"
    worker.join(0.2)
    assert worker.is_alive(), "the stall did not hold a client without a read timeout"
    fake.release()
    worker.join(10)
    assert not worker.is_alive(), "the released stall kept its reader waiting"
    assert len(errors) == 1 and isinstance(errors[0], httpx.ReadTimeout), errors

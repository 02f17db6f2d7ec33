"""Cassettes: record through a loopback stand-in for the provider, replay offline, redaction,
matching, re-chunking, bad cassettes. Never the internet: every server here is on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from pytest_toolcall.output.cassettes import (
    CassetteError,
    Redactor,
    ReplayTransport,
    UnmatchedRequest,
    body_digest,
    cassette_path,
    load_cassette,
    rechunk,
    vcr_context,
)
from pytest_toolcall.providers.base import DIALECT_NAMES
from pytest_toolcall.providers.fake import serve
from pytest_toolcall.run.live import LIVE_CASES, StandInProvider, access
from pytest_toolcall.core.model import ChatRequest, UserMessage

SECRET = "sk-planted-SECRET-0123456789abcdef"


# -- redaction --------------------------------------------------------------------------------
class _Echo(BaseHTTPRequestHandler):
    """Answers with the request's body and headers inside its own body, and secret cookies."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        payload = json.dumps({"echo": body.decode(), "headers": dict(self.headers.items()),
                              "path": self.path, "note": f"your key is {SECRET}"}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("set-cookie", f"session={SECRET}; Path=/")
        self.send_header("openai-organization", f"org-{SECRET}")
        self.send_header("x-echo", SECRET)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def echo_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_planted_secret_reaches_no_written_file(tmp_path: Path, echo_url: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLCALL_TEST_API_KEY", SECRET)  # found by name: *KEY*
    path = tmp_path / "openai" / "case.yaml"
    headers = {"authorization": f"Bearer {SECRET}", "x-api-key": SECRET,
               "x-goog-api-key": SECRET, "api-key": SECRET, "cookie": f"a={SECRET}",
               "openai-organization": f"org-{SECRET}", "openai-project": f"proj-{SECRET}",
               "x-custom": f"prefix {SECRET} suffix"}
    body = json.dumps({"messages": [{"role": "user", "content": f"my key is {SECRET}"}]})
    with vcr_context(path, "once", Redactor()), httpx.Client() as client:
        answer = client.post(f"{echo_url}/v1/chat/completions?key={SECRET}&alt=sse",
                             headers=headers, content=body)
    assert SECRET in answer.text  # the client saw the real answer; only the file is clean
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written == [path]
    text = path.read_text()
    assert "interactions" in text and "<redacted>" in text and "alt=sse" in text
    for file in written:
        assert SECRET not in file.read_text(), f"secret written to {file}"
        assert "0123456789abcdef" not in file.read_text()
    assert "set-cookie" not in text.lower()


def test_redaction_keeps_credential_names_for_matching() -> None:
    redactor = Redactor(environ={})
    headers = redactor.headers({"Authorization": "Bearer sk-abcdefgh12345", "accept": "x"})
    assert headers == {"Authorization": "<redacted>", "accept": "x"}
    assert redactor.scrub_text("echo sk-abcdefgh12345!") == "echo <redacted>!"
    assert redactor.uri("https://h/v1beta/m:gen?key=AIzaSECRET99&alt=sse") == \
        "https://h/v1beta/m:gen?key=<redacted>&alt=sse"


def test_short_and_unrelated_environment_values_are_not_secrets() -> None:
    from pytest_toolcall.output.cassettes import env_secrets

    assert env_secrets({"OPENAI_API_KEY": "sk-123456789", "HOME": "/root/very/long/path",
                        "MY_TOKEN": "short"}) == ["sk-123456789"]


# -- matching and replay ----------------------------------------------------------------------
def _recorded(tmp_path: Path, provider: str = "openai") -> tuple[Path, str]:
    """One live.round_trip recording through the stand-in; returns the cassette and request body."""
    from pytest_toolcall.reference import request_body

    fake = StandInProvider(provider)
    path = cassette_path(tmp_path, provider, "live.round_trip")
    body = json.dumps(request_body(provider, LIVE_CASES[0].steps[0].request))
    with serve(fake) as ep, vcr_context(path, "once", Redactor()):
        url = f"{ep.base_url}/chat/completions"
        response = ep.client.post(url, content=body,
                                  headers={"authorization": f"Bearer {ep.api_key}",
                                           "content-type": "application/json"})
        assert response.status_code == 200
    return path, body


def test_replay_answers_a_matching_request_without_a_server(tmp_path: Path) -> None:
    path, body = _recorded(tmp_path)
    transport = ReplayTransport(load_cassette(path, "openai"))
    with httpx.Client(transport=transport) as client:  # the stand-in is gone: no network
        got = client.post("https://api.openai.com/v1/chat/completions", content=body,
                          headers={"authorization": "Bearer other-key-123"})
    assert got.status_code == 200
    assert got.json()["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == \
        "get_weather"


def test_a_changed_request_is_a_detected_change(tmp_path: Path) -> None:
    path, body = _recorded(tmp_path)
    changed = body.replace("Paris", "Lyon")
    transport = ReplayTransport(load_cassette(path), record_hint="pytest --toolcall-live ...")
    with httpx.Client(transport=transport) as client, pytest.raises(UnmatchedRequest) as info:
        client.post("https://x/v1/chat/completions", content=changed,
                    headers={"authorization": "Bearer k-12345678"})
    message = str(info.value)
    assert f"POST /v1/chat/completions (body sha256:{body_digest(changed)})" in message
    assert "-" in message and "Lyon" in message and "Paris" in message  # the body diff
    assert "record it again: pytest --toolcall-live" in message


def test_key_order_and_whitespace_do_not_count_but_values_do() -> None:
    assert body_digest('{"a": 1, "b": [1, 2]}') == body_digest('{"b":[1,2],"a":1}')
    assert body_digest('{"a": 1}') != body_digest('{"a": 2}')
    assert body_digest('{"a": 1, "user": "x"}', ignore=("user",)) == body_digest('{"a": 1}')


def test_a_request_without_credentials_does_not_match(tmp_path: Path) -> None:
    path, body = _recorded(tmp_path)
    with httpx.Client(transport=ReplayTransport(load_cassette(path))) as client, \
            pytest.raises(UnmatchedRequest, match="Only the credentials differ: recorded with "
                                                  r"\['authorization'\], sent with none"):
        client.post("https://x/v1/chat/completions", content=body)


def test_recorded_streams_are_replayed_rechunked() -> None:
    body = b"data: {\"a\": 1}\n\ndata: {\"b\": \"\xc3\xa9\"}\n\ndata: [DONE]\n\n"
    assert rechunk(body, "text/event-stream", "recorded") == [body]
    assert rechunk(body, "text/event-stream", "realistic") == [
        b"data: {\"a\": 1}\n\n", b"data: {\"b\": \"\xc3\xa9\"}\n\n", b"data: [DONE]\n\n"]
    assert rechunk(body, "text/event-stream", "bytewise") == [bytes([b]) for b in body]
    seeded = rechunk(body, "text/event-stream", "seeded", seed=3)
    assert b"".join(seeded) == body and len(seeded) > 3
    assert seeded == rechunk(body, "text/event-stream", "seeded", seed=3)
    assert rechunk(b'{"x": 1}', "application/json", "bytewise") == [b'{"x": 1}']


# -- bad cassettes ------------------------------------------------------------------------------
def test_a_corrupt_cassette_names_the_file_and_the_problem(tmp_path: Path) -> None:
    bad = tmp_path / "broken.yaml"
    bad.write_text("interactions:\n- request: {method: POST\n  uri: [\n")
    with pytest.raises(CassetteError, match=r"broken.yaml: not valid YAML at line \d+"):
        load_cassette(bad)
    bad.write_text("interactions:\n- request: {uri: http://x/v1/chat/completions}\n"
                   "  response: {status: {code: 200}}\n")
    with pytest.raises(CassetteError, match=r"broken.yaml, interaction #0: missing or malformed "
                                            r"field 'method'"):
        load_cassette(bad)
    bad.write_text("just a string\n")
    with pytest.raises(CassetteError, match="expected a mapping with an 'interactions' list"):
        load_cassette(bad)


@pytest.mark.skipif("anthropic" not in DIALECT_NAMES, reason="needs the anthropic dialect")
def test_a_cassette_of_another_provider_is_a_clear_error(tmp_path: Path) -> None:
    other = tmp_path / "openai" / "live.round_trip.yaml"
    other.parent.mkdir()
    other.write_text("interactions:\n- request: {method: POST, uri: "
                     "'https://api.anthropic.com/v1/messages', body: '{}'}\n"
                     "  response: {status: {code: 200}, body: {string: '{}'}}\nversion: 1\n")
    with pytest.raises(CassetteError, match=r"holds traffic of anthropic \(interaction #0: POST "
                                            r"/v1/messages\), not openai's"):
        load_cassette(other, "openai")


# -- live access ----------------------------------------------------------------------------------
def test_access_names_the_variable_to_set() -> None:
    assert "set OPENAI_API_KEY" in str(access("openai", {}, {}))
    assert access("openai", {"OPENAI_API_KEY": "k"}, {}) == ("https://api.openai.com/v1", "k")
    assert "--toolcall-base-url=ollama=URL" in str(access("ollama", {}, {}))
    assert access("ollama", {}, {"ollama": "http://127.0.0.1:11434/"})[0] == \
        "http://127.0.0.1:11434"
    assert "GEMINI_API_KEY or GOOGLE_API_KEY" in str(access("gemini", {}, {}))
    assert access("gemini", {"GOOGLE_API_KEY": "g"}, {})[1] == "g"


@pytest.mark.parametrize("provider", DIALECT_NAMES)
def test_live_cases_are_valid_scripted_cases(provider: str) -> None:
    """Each live case runs against the fake like any case (and scripts the stand-in)."""
    from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
    from pytest_toolcall.reference import reference_adapter, reference_profile
    from pytest_toolcall.run.runner import CaseSkipped, run_case

    ran = 0
    for case in LIVE_CASES:
        assert case.live and case.id.startswith("live.")
        endpoint = in_process_endpoint(FakeProvider(provider))
        try:
            run_case(case, reference_adapter(endpoint), reference_profile(provider), endpoint)
            ran += 1
        except CaseSkipped:
            pass
    assert ran >= 4


def test_the_stand_in_answers_by_prompt_and_turn() -> None:
    fake = StandInProvider("openai")
    first = json.dumps({"model": "m", "messages": [
        {"role": "user", "content": LIVE_CASES[0].steps[0].request.messages[1].content}],
        "tools": [{"type": "function", "function": {"name": "get_weather",
                                                    "parameters": {"type": "object"}}}]})
    status, _, chunks = fake.respond("POST", "/v1/chat/completions",
                                     {"authorization": f"Bearer {fake.api_key}"}, first.encode())
    assert status == 200
    assert json.loads(b"".join(chunks))["choices"][0]["message"]["tool_calls"][0]["function"][
        "name"] == "get_weather"
    assert ChatRequest(messages=(UserMessage(content="x"),))  # the model is importable here

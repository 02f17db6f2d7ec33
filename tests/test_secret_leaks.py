"""Issue 35, items 2-4, through the real code path: a credential in the request body (stored
redacted, replayed as redacted, never printed in a diff), a body field whose name says it holds
a secret (``metadata.user_token``), and failure text cut inside a secret (masked first, then
cut). Each pytester session is grepped: terminal, junit.xml, the JSON report and the Markdown
summary hold nothing of the planted values, not even their first eight characters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import vcr  # noqa: F401 - imported here, outside the in-process runs (tests/test_cassettes_plugin)
import yaml  # noqa: F401

from pytest_toolcall.core import redact
from pytest_toolcall.output.cassettes import (
    REDACTED,
    Cassette,
    Interaction,
    Redactor,
    ReplayTransport,
    UnmatchedRequest,
    redacted_match,
    request_snapshot,
)
from pytest_toolcall.providers.fake import serve
from pytest_toolcall.providers.fake.provider import Exchange
from pytest_toolcall.run.live import StandInProvider

KEY = "sk-standin-SECRET-2468013579"
CASES = "--toolcall-cases=live.round_trip,live.stream_round_trip"

BODY_CREDENTIALS = '''
import os
import pytest
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter


class BodyCredentials(OpenAIChatAdapter):
    """Sends a gateway token in the body, under a name that says so, twice."""

    def build_body(self, request, *, stream):
        body = super().build_body(request, stream=stream)
        token = os.environ["TC_BODY_VALUE"]  # a name that says nothing: not masked by name
        body["metadata"] = {"user_token": token, "tier": "free"}
        return body


@pytest.fixture
def toolcall_adapter(toolcall_endpoint):
    return BodyCredentials.from_endpoint(toolcall_endpoint)
'''


def _leaks(text: str, value: str) -> bool:
    """Whether ``text`` holds ``value`` or any run of eight or more of its first characters."""
    return value[:8] in text


def _artifacts(pytester: pytest.Pytester, result: pytest.RunResult) -> dict[str, str]:
    files = {p.name: p.read_text("utf-8") for p in (pytester.path / "out").iterdir()}
    files["junit.xml"] = (pytester.path / "junit.xml").read_text("utf-8")
    files["terminal"] = result.stdout.str() + result.stderr.str()
    return files


def _live(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "--toolcall-provider=openai", "--toolcall-live", CASES,
        "--toolcall-report=out", "--junitxml=junit.xml", "-o", "junit_logging=all", "-rA",
        *args)


def test_a_body_credential_is_stored_redacted_and_replays_with_any_value(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makeconftest(BODY_CREDENTIALS)
    recorded, replayed, changed = ("ut-recorded-0a1b2c3d4e5f6a7b", "ut-replayed-9f8e7d6c5b4a",
                                   "ut-changed-13579bdf02468ace")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # the provider's stand-in accepts only this key
    with redact.isolated(), serve(StandInProvider("openai", api_key=KEY)) as provider:
        monkeypatch.setenv("TC_BODY_VALUE", recorded)
        _live(pytester, f"--toolcall-base-url=openai={provider.base_url}",
              "--toolcall-record-mode=once").assert_outcomes(passed=2)
    cassettes = list((pytester.path / "cassettes").rglob("*.yaml"))
    assert len(cassettes) == 2
    for file in cassettes:
        text = file.read_text()
        assert not _leaks(text, recorded) and not _leaks(text, KEY), file
        assert REDACTED in text and '"tier":"free"' in text, file  # the rest is kept
    # replay, offline, with another token in the same place: a stored "<redacted>" matches it
    with redact.isolated():
        monkeypatch.setenv("TC_BODY_VALUE", replayed)
        result = _live(pytester)
    result.assert_outcomes(passed=2)
    for name, text in _artifacts(pytester, result).items():
        assert not _leaks(text, replayed), name
    # a real change: the diff is shown, the token in it is masked, re-recording is suggested
    cassette = pytester.path / "cassettes" / "openai" / "live.round_trip.yaml"
    cassette.write_text(cassette.read_text().replace("city Paris", "city Lyon"))
    with redact.isolated():
        monkeypatch.setenv("TC_BODY_VALUE", changed)
        result = _live(pytester)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*The request body changed since it was recorded*",
                                 "*record it again: OPENAI_API_KEY=... pytest*"])
    artifacts = _artifacts(pytester, result)
    assert set(artifacts) >= {"toolcall-report.json", "toolcall-summary.md", "junit.xml"}
    for name, text in artifacts.items():
        for value in (changed, replayed, recorded, KEY):
            assert not _leaks(text, value), f"{value} in {name}"


def _interaction(body: dict[str, object]) -> Interaction:
    return Interaction(method="POST", uri="https://api.example/v1/chat/completions",
                       request_headers={}, request_body=json.dumps(body).encode(), status=200,
                       response_headers={"content-type": ["application/json"]},
                       response_body=b"{}")


def _send(transport: ReplayTransport, body: dict[str, object]) -> object:
    import httpx

    with httpx.Client(transport=transport) as client:
        return client.post("https://api.example/v1/chat/completions", json=body)


def test_secrets_only_differences_never_suggest_recording_again() -> None:
    """An old cassette holds a value in clear that is a secret now; the request sends another
    secret there: after masking, both sides read the same, so recording again cannot help and
    the error says so instead of giving the command."""
    old, new = "old-secret-value-1234567", "new-secret-value-7654321"
    cassette = Cassette(Path("c.yaml"), [_interaction({"model": "m", "note": old})])
    transport = ReplayTransport(cassette, redactor=Redactor([old, new], environ={}),
                                record_hint="pytest --toolcall-record-mode=new_episodes")
    with redact.isolated():
        redact.register(old, "old key")
        redact.register(new, "new key")
        with pytest.raises(UnmatchedRequest) as caught:
            _send(transport, {"model": "m", "note": new})
    text = str(caught.value)
    assert "recording again cannot help" in text and "new_episodes" not in text
    assert old[:8] not in text and new[:8] not in text
    # negative control: a real change keeps the command
    with redact.isolated(), pytest.raises(UnmatchedRequest, match="new_episodes"):
        _send(transport, {"model": "other", "note": old})


def test_a_redacted_field_matches_any_value_in_its_place_and_nothing_else() -> None:
    recorded = {"model": "m", "api_key": REDACTED, "note": f"key {REDACTED} end"}
    raw = json.dumps(recorded)
    assert redacted_match(raw, json.dumps({"model": "m", "api_key": "anything-at-all",
                                           "note": "key xyz-123 end"}))
    assert redacted_match(raw, json.dumps({"model": "m", "api_key": 42, "note": "key a end"}))
    for other in ({"model": "n", "api_key": "k", "note": "key a end"},
                  {"model": "m", "api_key": "k", "note": "key a END"},
                  {"model": "m", "api_key": "k", "note": "key  end"[:4]},
                  {"model": "m", "api_key": "k"},
                  {"model": "m", "api_key": "k", "note": 5}):
        assert not redacted_match(raw, json.dumps(other)), other
    assert redacted_match(raw, json.dumps({**recorded, "stamp": 1}), ignore=["stamp"])
    assert redacted_match(b"", b"") and not redacted_match(b"", b"{}")
    assert redacted_match(b"plain <redacted> text", b"plain s3cr3t text")
    assert not redacted_match(json.dumps([1, True]), json.dumps([1, 1]))


def test_body_fields_named_as_secrets_leave_snapshots_and_cassettes() -> None:
    """One rule for every name (redact.secret_name): ``metadata.user_token`` was stored in
    clear, since only a fixed list of body keys was matched."""
    token, nested = "ut-snapshot-0a1b2c3d4e5f", "cs-nested-99887766aa"
    body = json.dumps({"model": "m", "metadata": {"user_token": token, "user": "u1"},
                       "extra": [{"clientSecret": nested, "keyword": "weather in paris"}]})
    with redact.isolated():
        text = request_snapshot([Exchange(index=0, step=0, method="POST",
                                          path="/v1/chat/completions", headers={},
                                          body=body.encode())],
                                Redactor(environ={}))
        assert token not in text and nested not in text and '"user": "u1"' in text
        assert '"keyword": "weather in paris"' in text  # not a secret's name
        from vcr.request import Request

        clean = Redactor(environ={}).vcr_request(Request(
            "POST", "https://api.example/v1/chat/completions", body.encode(),
            {"X-Session-Id": "sess-0123456789", "Content-Type": "application/json"}))
        stored = clean.body.decode() + json.dumps(dict(clean.headers))
        assert token not in stored and nested not in stored and "sess-0123456789" not in stored


CUT_LOOP = '''
import pytest
from pytest_toolcall.reference.loop import ReferenceToolLoop, _Outcome
from pytest_toolcall.cases.tools import SECRET


class LeaksPastTheCut(ReferenceToolLoop):
    """Leaks the planted secret where every fixed-width cut of the failure text falls inside
    it (the kit cuts tool text at 30, 60, 80, 120 and 200 characters)."""

    @staticmethod
    def failed(call, exc):
        return _Outcome(call, "x" * 185 + " " + SECRET + " " + str(exc), ok=False,
                        permanent=False)


@pytest.fixture
def toolcall_loop():
    return LeaksPastTheCut()
'''


def test_failure_text_cut_inside_a_secret_shows_none_of_it(pytester: pytest.Pytester) -> None:
    from pytest_toolcall.cases.tools import SECRET

    pytester.makeconftest(CUT_LOOP)
    result = pytester.runpytest_inprocess(
        "--toolcall-provider=openai", "--toolcall-report=out", "--junitxml=junit.xml",
        "-o", "junit_logging=all", "-rA", "--toolcall-cases=loop.sanitised_failures")
    result.assert_outcomes(failed=1)
    artifacts = _artifacts(pytester, result)
    assert set(artifacts) >= {"toolcall-report.json", "toolcall-summary.md", "junit.xml"}
    for name, text in artifacts.items():
        assert not _leaks(text, SECRET), name
    for name in ("toolcall-report.json", "toolcall-summary.md", "terminal", "junit.xml"):
        assert "[redacted: planted" in artifacts[name], name

"""Live runs that go wrong before any verdict: the documented rehearsal, error answers that must
not become cassettes, and a service the kit cannot reach. No network: a loopback stand-in, a
closed loopback port, and httpx transports that raise."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx
import pytest
import vcr  # noqa: F401 - imported outside the in-process runs (see test_cassettes_plugin.py)
import yaml  # noqa: F401
from background import Job, ahead
from doc_runs import ProjectSession, ScriptRun, doc_env, script_in_empty_project

from pytest_toolcall.core.errors import ConformanceFailure, ProviderError, ToolcallError
from pytest_toolcall.providers.fake import Endpoint, serve
from pytest_toolcall.run.live import (
    LIVE_CASES,
    ServiceError,
    StandInProvider,
    run_live,
    service_error,
)

ROOT = Path(__file__).resolve().parent.parent
CASE = "--toolcall-cases=live.round_trip"
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)


def _live(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("-p", "no:cacheprovider", "-p", "no:randomly",
                              "--toolcall-provider=openai", "--toolcall-live", *args)


def _cassette(pytester: pytest.Pytester) -> Path:
    return pytester.path / "cassettes" / "openai" / "live.round_trip.yaml"


# -- the rehearsal of docs/cassettes.md, as written -------------------------------------------------
def rehearsal_script() -> str:
    text = (ROOT / "docs" / "cassettes.md").read_text(encoding="utf-8")
    section = text.split("## Rehearsing with no service at all", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert len(blocks) == 1, "the rehearsal section should hold one python block"
    return blocks[0]


def _rehearsal(where: Path, env: Mapping[str, str]) -> ScriptRun:
    # as the page says: `env -u OPENAI_API_KEY python rehearse.py` in a project; its run is
    # shared with tests/test_doc_blocks.py, which runs the page's blocks (tests/doc_runs.py)
    session = ProjectSession(where / "project", doc_env(env))
    session.project.mkdir()
    try:
        return script_in_empty_project(rehearsal_script(), "rehearse.py", session, where)
    finally:
        session.close()


REHEARSAL = Job("docs/cassettes.md's rehearsal", _rehearsal)


@ahead(lambda: REHEARSAL)
def test_documented_rehearsal_records_then_replays(ahead_run: tuple[ScriptRun, Path]) -> None:
    run, _ = ahead_run
    assert run.code == 0, run.output
    recorded = sorted(p.name for p in (run.files / "cassettes" / "openai").glob("*.yaml"))
    assert recorded == sorted(f"{c.id}.yaml" for c in LIVE_CASES)
    # the second run replayed them: both runs passed every live case
    finals = re.findall(r"^=+ (\d+) passed in ", run.output, re.MULTILINE)
    assert finals == [str(len(LIVE_CASES))] * 2, run.output


# -- error answers are never kept -------------------------------------------------------------------
@pytest.fixture
def wrong_key() -> Iterator[Endpoint]:
    """A stand-in that wants another key than the placeholder the kit sends: every answer 401."""
    with serve(StandInProvider("openai", api_key="tc-some-other-key")) as endpoint:
        yield endpoint


def test_a_401_recording_is_not_kept_and_is_no_verdict(pytester: pytest.Pytester,
                                                       wrong_key: Endpoint) -> None:
    result = _live(pytester, CASE, "--toolcall-record-mode=once", "--toolcall-report=out",
                   f"--toolcall-base-url=openai={wrong_key.base_url}")
    result.assert_outcomes(errors=1)  # the kit could not run it: no verdict
    assert len(wrong_key.exchanges) == 1  # the service was asked, and refused
    assert not _cassette(pytester).exists()
    out = result.stdout.str()
    result.stdout.fnmatch_lines([
        "pytest-toolcall could not run this case (fix the setup):",
        "  the service refused the credentials (HTTP 401): *This is not a verdict on your "
        "implementation: check the key variable*",
        "  (the recording was not kept as a cassette: an answer was an error (HTTP 401)*"
        "Record again once it works: *--toolcall-record-mode=once*",
        "could not run (setup or kit errors, not verdicts on the implementation):",
        "  live.round_trip[[]openai[]]"])
    assert "broken clauses" not in out and "live.accepted" not in out
    document = json.loads((pytester.path / "out" / "toolcall-report.json").read_text("utf-8"))
    (case,) = document["cases"]
    assert case["outcome"] == "error" and case["clause"] is None


def test_a_failed_rerecording_leaves_the_earlier_cassette(pytester: pytest.Pytester,
                                                          wrong_key: Endpoint) -> None:
    with serve(StandInProvider("openai")) as good:
        _live(pytester, CASE, "--toolcall-record-mode=once",
              f"--toolcall-base-url=openai={good.base_url}").assert_outcomes(passed=1)
    before = _cassette(pytester).read_bytes()
    # the recorded answer was the good one (its ids and timestamps may hold any digits, so
    # look at the status line itself)
    assert b"code: 200" in before and b"code: 401" not in before
    result = _live(pytester, CASE, "--toolcall-record-mode=all",
                   f"--toolcall-base-url=openai={wrong_key.base_url}")
    result.assert_outcomes(errors=1)
    assert _cassette(pytester).read_bytes() == before
    _live(pytester, CASE).assert_outcomes(passed=1)  # and it still replays


# -- a service out of reach -------------------------------------------------------------------------
def test_unreachable_service_reads_as_the_kit_could_not_reach_it(
        pytester: pytest.Pytester) -> None:
    # port 9 (discard) on loopback: nothing listens, the connection is refused at once
    result = _live(pytester, CASE, "--toolcall-record-mode=once",
                   "--toolcall-base-url=openai=http://127.0.0.1:9/v1")
    result.assert_outcomes(errors=1)  # pytest says error, as the kit does
    result.stdout.fnmatch_lines([
        "pytest-toolcall could not run this case (fix the setup):",
        "  the kit could not reach the service: *Error: *This is not a verdict on your "
        "implementation*",
        "  (the recording was not kept as a cassette: the service could not be reached*",
        "could not run (setup or kit errors, not verdicts on the implementation):"])
    assert "broken clauses" not in result.stdout.str()
    assert not _cassette(pytester).exists()


class _Raising(httpx.BaseTransport):
    def __init__(self, error: Exception) -> None:
        self.error = error

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        raise self.error


def _reference_adapter(transport: httpx.BaseTransport) -> object:
    from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter

    return OpenAIChatAdapter("https://api.example.invalid/v1", "tc-x",
                             client=httpx.Client(transport=transport))


@pytest.mark.parametrize("error", [
    httpx.ConnectError("[Errno -2] Name or service not known"),  # DNS
    httpx.ConnectError("[Errno 111] Connection refused"),
    httpx.ConnectTimeout("timed out"),
])
def test_run_live_turns_a_network_error_into_a_service_error(error: Exception) -> None:
    from pytest_toolcall.core.contracts import Profile

    adapter = _reference_adapter(_Raising(error))
    with pytest.raises(ServiceError, match="the kit could not reach the service") as info:
        run_live(LIVE_CASES[0], adapter, Profile(), ["sync"])
    assert isinstance(info.value, ToolcallError)
    assert not isinstance(info.value, ConformanceFailure)


class APIConnectionError(Exception):
    """Named like the openai and anthropic SDKs' connection error."""


class _SDKStatusError(Exception):
    def __init__(self, status_code: int) -> None:
        super().__init__(f"Error code: {status_code}")
        self.status_code = status_code


@pytest.mark.parametrize(("error", "kind"), [
    (ProviderError("Incorrect API key provided", status=401), "refused the credentials"),
    (_SDKStatusError(403), "refused the credentials"),
    (ProviderError("Rate limit reached", status=429), "rate-limiting"),
    (_SDKStatusError(503), "server error"),
    (APIConnectionError("Connection error."), "could not reach"),
    (ConnectionRefusedError(111, "Connection refused"), "could not reach"),
])
def test_service_errors_are_recognised_in_the_chain(error: Exception, kind: str) -> None:
    try:
        try:
            raise error
        except Exception as inner:
            raise RuntimeError("adapter: the request failed") from inner
    except RuntimeError as outer:
        found = service_error(outer)
    assert found is not None and kind in str(found)


@pytest.mark.parametrize("error", [
    ProviderError("Invalid 'messages[2].tool_call_id'", status=400),  # the adapter's request
    ProviderError("model not found", status=404),
    ValueError("the adapter could not parse the answer"),
])
def test_a_rejected_request_stays_a_verdict(error: Exception) -> None:
    assert service_error(error) is None

"""Cassettes through pytest (pytester): record -> replay with a loopback stand-in for the
provider, missing cassettes, live skips, request snapshots, pytest-xdist."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import vcr  # noqa: F401 - imported here, outside the in-process runs: pytester drops modules
import yaml  # noqa: F401   first imported inside a run, and yaml's C extension cannot reload

from pytest_toolcall.providers.fake import Endpoint, serve
from pytest_toolcall.run.live import StandInProvider

KEY = "sk-standin-SECRET-9876543210"
CASES = "--toolcall-cases=live.round_trip,live.stream_round_trip"


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> Iterator[Endpoint]:
    """The provider's stand-in on 127.0.0.1, accepting only KEY (set as OPENAI_API_KEY)."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with serve(StandInProvider("openai", api_key=KEY)) as endpoint:
        yield endpoint


def _live(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("-p", "no:cacheprovider", "--toolcall-provider=openai",
                              "--toolcall-live", CASES, "-rs", *args)


def test_record_then_replay_offline(pytester: pytest.Pytester, stand_in: Endpoint) -> None:
    url = f"--toolcall-base-url=openai={stand_in.base_url}"
    _live(pytester, url, "--toolcall-record-mode=once").assert_outcomes(passed=2)
    files = sorted(p.relative_to(pytester.path).as_posix()
                   for p in (pytester.path / "cassettes").rglob("*.yaml"))
    assert files == ["cassettes/openai/live.round_trip.yaml",
                     "cassettes/openai/live.stream_round_trip.yaml"]
    recorded = len(stand_in.exchanges)
    assert recorded == 4  # two steps per case: the second-turn request reached the provider
    for file in (pytester.path / "cassettes").rglob("*"):
        if file.is_file():
            assert KEY not in file.read_text()
    # replay: default mode 'none', no base URL; the stand-in sees nothing more
    for chunking in ("seeded", "bytewise", "recorded"):
        _live(pytester, f"--toolcall-replay-chunking={chunking}").assert_outcomes(passed=2)
    assert len(stand_in.exchanges) == recorded


def test_replay_fails_on_a_changed_request_with_the_command(pytester: pytest.Pytester,
                                                            stand_in: Endpoint) -> None:
    url = f"--toolcall-base-url=openai={stand_in.base_url}"
    _live(pytester, url, "--toolcall-record-mode=once").assert_outcomes(passed=2)
    cassette = pytester.path / "cassettes" / "openai" / "live.round_trip.yaml"
    cassette.write_text(cassette.read_text().replace("city Paris", "city Lyon"))
    result = _live(pytester)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines([
        ("*no recorded interaction in *live.round_trip.yaml matches POST /v1/chat/completions "
        "(body sha256:*"),
        ("*record it again: OPENAI_API_KEY=... pytest --toolcall-provider=openai --toolcall-live "
        "--toolcall-cases='live.round_trip' --toolcall-record-mode=new_episodes*")])


def test_missing_cassette_fails_or_skips_with_the_command(pytester: pytest.Pytester) -> None:
    result = _live(pytester)
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines([("*no cassette for live.round_trip (openai) at *live.round_trip"
                                 ".yaml*Record it with: OPENAI_API_KEY=... pytest "
                                 "--toolcall-provider=openai --toolcall-live "
                                 "--toolcall-cases='live.round_trip' --toolcall-record-mode=once*")])
    _live(pytester, "--toolcall-missing-cassette=skip", "-rs").assert_outcomes(skipped=2)


@pytest.mark.parametrize(("provider", "variable"), [("openai", "OPENAI_API_KEY"),
                                                    ("anthropic", "ANTHROPIC_API_KEY"),
                                                    ("gemini", "GEMINI_API_KEY or GOOGLE_API_KEY")])
def test_live_cases_skip_without_a_key_naming_the_variable(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, provider: str,
        variable: str) -> None:
    from pytest_toolcall.providers.base import DIALECT_NAMES

    if provider not in DIALECT_NAMES:
        pytest.skip(f"the {provider} dialect is not there")
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    result = pytester.runpytest("-p", "no:cacheprovider", f"--toolcall-provider={provider}",
                                "--toolcall-live", "--toolcall-cases=live.round_trip",
                                "--toolcall-record-mode=once", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines([f"*no key for {provider}: set {variable}*"])
    assert not (pytester.path / "cassettes").exists()


def test_a_corrupt_cassette_is_named_in_the_error(pytester: pytest.Pytester) -> None:
    bad = pytester.path / "cassettes" / "openai" / "live.round_trip.yaml"
    bad.parent.mkdir(parents=True)
    bad.write_text("interactions: [\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "--toolcall-provider=openai",
                                "--toolcall-live", "--toolcall-cases=live.round_trip")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*cassette *live.round_trip.yaml: not valid YAML at line*"])


def test_bad_base_url_option_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--toolcall-base-url=nosuch=http://127.0.0.1:1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([("*--toolcall-base-url: expected NAME=VALUE with NAME one of "
                                 "openai*got 'nosuch=http://127.0.0.1:1'*")])


def test_cassette_dir_fixture_override_wins(pytester: pytest.Pytester, stand_in: Endpoint) -> None:
    pytester.makeconftest("""
        import pytest
        @pytest.fixture
        def toolcall_cassette_dir(tmp_path_factory):
            return tmp_path_factory.getbasetemp().parent / "elsewhere"
    """)
    _live(pytester, f"--toolcall-base-url=openai={stand_in.base_url}",
          "--toolcall-record-mode=once", "--toolcall-cassette-dir=ignored").assert_outcomes(passed=2)
    assert not (pytester.path / "ignored").exists()
    assert not (pytester.path / "cassettes").exists()


# -- request snapshots ----------------------------------------------------------------------------
def test_request_snapshots_update_check_and_diff(pytester: pytest.Pytester) -> None:
    args = ("-p", "no:cacheprovider", "--toolcall-provider=openai",
            "--toolcall-cases=wire.single_call,wire.parallel_calls")
    pytester.runpytest(*args).assert_outcomes(passed=2)
    assert not (pytester.path / "cassettes").exists()  # never created silently
    pytester.runpytest(*args, "--toolcall-snapshot-update").assert_outcomes(passed=2)
    snapshot = pytester.path / "cassettes" / "requests" / "openai" / "wire.single_call.json"
    text = snapshot.read_text()
    assert '"authorization": "<redacted>"' in text and '"path": "/v1/chat/completions"' in text
    pytester.runpytest(*args).assert_outcomes(passed=2)
    snapshot.write_text(text.replace('"role": "user"', '"role": "system"', 1))
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([("*request.snapshot* what the adapter sends for "
                                 "wire.single_call changed*"),
                                 '*-*"role": "system"*', '*+*"role": "user"*',
                                 "*--toolcall-snapshot-update*",
                                 "*wire.single_call[[]openai[]]: request.snapshot (must)"])


def test_repository_snapshots_exist_for_every_dialect() -> None:
    from pytest_toolcall.providers.base import DIALECT_NAMES

    root = Path(__file__).resolve().parent.parent / "cassettes" / "requests"
    for provider in DIALECT_NAMES:
        assert (root / provider / "wire.single_call.json").is_file(), provider


# -- pytest-xdist ---------------------------------------------------------------------------------
def test_cassettes_written_under_xdist_equal_the_serial_ones(pytester: pytest.Pytester,
                                                             stand_in: Endpoint) -> None:
    url = f"--toolcall-base-url=openai={stand_in.base_url}"
    cases = "--toolcall-cases=live.*"
    common = ("-p", "no:cacheprovider", "--toolcall-provider=openai", "--toolcall-live", cases,
              url, "--toolcall-record-mode=once")
    pytester.runpytest(*common, "--toolcall-cassette-dir=serial").assert_outcomes(passed=7)
    result = pytester.runpytest_subprocess(*common, "-n", "2", "--toolcall-cassette-dir=xdist")
    result.assert_outcomes(passed=7)

    def files(name: str) -> dict[str, str]:
        root = pytester.path / name
        # the stand-in's Date header is the only thing that may differ between two runs
        return {p.relative_to(root).as_posix(): re.sub(r"(?m)^(\s+date:\n\s+- ).*$", r"\1X",
                                                       p.read_text())
                for p in sorted(root.rglob("*")) if p.is_file()}

    serial, parallel = files("serial"), files("xdist")
    assert len(serial) == 7
    assert serial == parallel

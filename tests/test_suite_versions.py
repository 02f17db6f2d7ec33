"""The versioned suite (issue 28): each built-in case knows the version that added it, a project
pins a version, and the cases added after the pin run only as previews.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

# Imported before any pytester run, for speed (see tests/test_plugin.py).
import hypothesis.strategies
import pytest

import pytest_toolcall
import pytest_toolcall.plugins.suite
import pytest_toolcall.providers.openai.reference
from pytest_toolcall.cases import default_registry, make_case
from pytest_toolcall.cases.levels import CLAUSES, IN_CASE
from pytest_toolcall.cases.versions import (
    ADDED,
    RELEASES,
    SUITE_VERSION,
    added_in,
    check_version,
    parse_version,
)
from pytest_toolcall.core.errors import CaseDefinitionError
from pytest_toolcall.run.live import live_cases
from tests.test_levels import SHOULD_CONFTEST

ROOT = Path(__file__).resolve().parents[1]
CHANGELOG = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
PROVIDER = "--toolcall-provider=openai"


def _builtin_ids() -> set[str]:
    return {c.id for c in default_registry()} | {c.id for c in live_cases()}


def test_every_builtin_case_knows_its_version() -> None:
    cases = [*default_registry(), *live_cases()]
    assert all(c.since in RELEASES for c in cases)
    listed = [i for ids in ADDED.values() for i in ids]
    assert len(listed) == len(set(listed)), "a case is listed under two versions"
    assert set(listed) == _builtin_ids(), (
        "pytest_toolcall/cases/versions.py ADDED and the built-in cases differ: "
        f"not listed {sorted(_builtin_ids() - set(listed))}, "
        f"no such case {sorted(set(listed) - _builtin_ids())}")


def test_versions_from_git_history() -> None:
    # spot checks against `git log -S'"<id>"'`: the walking skeleton, the errors family
    # (f4383c1, 2026-11-24), a service's case and the U+2028 case (4ffde57, 2026-11-25)
    assert added_in("wire.single_call") == "0.1.0"
    assert added_in("errors.in_stream") == "0.2.0"
    assert added_in("wire.deepseek_reasoning_replayed") == "0.3.0"
    assert added_in("stream.unicode_line_separators") == "0.3.0"
    counts = {v: len(ids) for v, ids in ADDED.items() if RELEASES[v][0] != "unreleased"}
    assert counts == {"0.1.0": 118, "0.2.0": 44, "0.3.0": 73}  # released: never change


def test_a_case_not_yet_listed_is_new_in_the_version_under_way() -> None:
    assert added_in("wire.not_listed_yet") == SUITE_VERSION


def test_since_is_a_version() -> None:
    with pytest.raises(CaseDefinitionError, match="since must be a suite version like '0.3.0'"):
        make_case(id="mine.x", title="t", why="w", since="latest",
                  steps=default_registry()["wire.single_call"].steps)
    assert make_case(id="mine.x", title="t", why="w",
                     steps=default_registry()["wire.single_call"].steps).since is None


def test_the_package_version_follows_the_suite() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^version = "([^"]+)"', pyproject, re.M).group(1) == SUITE_VERSION
    assert pytest_toolcall.__version__ == SUITE_VERSION
    assert list(RELEASES)[-1] == SUITE_VERSION
    assert list(RELEASES) == sorted(RELEASES, key=parse_version)


def test_version_command_prints_package_and_suite() -> None:
    done = subprocess.run([sys.executable, "-m", "pytest_toolcall", "--version"],
                          capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == f"pytest-toolcall {pytest_toolcall.__version__} (suite " \
                                  f"{SUITE_VERSION})"


def test_an_unknown_version_is_refused_with_the_known_ones() -> None:
    assert check_version(" 0.2.0 ") == "0.2.0"
    with pytest.raises(ValueError, match=r"unknown suite version 'latest' \(a version looks "
                                         r"like 0.3.0\); the suite versions are 0.1.0, 0.2.0"):
        check_version("latest")


# -- the changelog ------------------------------------------------------------------------------
def _section(version: str) -> str:
    match = re.search(rf"^## {re.escape(version)} \((.*?)\)\n(.*?)(?=^## |\Z)", CHANGELOG,
                      re.M | re.S)
    assert match, f"CHANGELOG.md has no section for {version}"
    return match.group(2)


def _sub(text: str, title: str) -> str:
    match = re.search(rf"^### {re.escape(title)}[^\n]*\n(.*?)(?=^### |\Z)", text, re.M | re.S)
    assert match, f"no '### {title}' in the section"
    return match.group(1)


def test_changelog_lists_the_cases_each_version_added() -> None:
    for version, ids in ADDED.items():
        listed = set(re.findall(r"`([a-z0-9_.]+)`", _sub(_section(version), "Cases added")))
        assert listed == set(ids), (
            f"CHANGELOG.md {version}: cases added differ from cases/versions.py: "
            f"missing {sorted(set(ids) - listed)}, extra {sorted(listed - set(ids))}")


def test_changelog_lists_the_should_clauses_of_the_version_that_levelled_them() -> None:
    levels = " ".join(_sub(_section("0.4.0"), "Levels").split())
    named = set(re.findall(r"`([a-z0-9_.]+)`", levels))
    should = {c for c, e in CLAUSES.items() if e.level == "should"}
    assert should <= named
    assert all(f"`{clause}` in `{case}`" in levels for case, clause in IN_CASE)


# -- a pinned project ---------------------------------------------------------------------------
# Correct everywhere, but it reads the stream with httpx's iter_lines, which cuts lines at
# U+2028: it fails stream.unicode_line_separators, a case added in 0.3.0 (4ffde57).
SPLITS_LINES = '''
import pytest
from tests.providers.controls_openai import SplitsLinesLikeStr


@pytest.fixture
def toolcall_adapter(toolcall_endpoint):
    return SplitsLinesLikeStr.from_endpoint(toolcall_endpoint)
'''
STREAM = "--toolcall-cases=stream.*"


@pytest.fixture
def old_project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(SPLITS_LINES)
    return pytester


def test_a_project_green_at_its_pin_stays_green_when_cases_are_added(
        old_project: pytest.Pytester) -> None:
    # pinned at 0.2.0: the 0.3.0 cases are previews, skipped with how to run them
    result = old_project.runpytest_inprocess(PROVIDER, STREAM, "--toolcall-suite=0.2.0",
                                             "--toolcall-report=out", "-rs",
                                             "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    added = [c for c in default_registry().select(["stream.*"], "openai")
             if parse_version(c.since or "0") > parse_version("0.2.0")]
    assert "stream.unicode_line_separators" in {c.id for c in added}
    outcomes = result.parseoutcomes()
    assert outcomes["skipped"] >= len(added) and "failed" not in outcomes
    result.stdout.fnmatch_lines([
        f"suite 0.2.0 (pinned) (this kit has {SUITE_VERSION}); {len(added)} preview case runs "
        "skipped (added after the pin: --toolcall-preview runs them)",
        "*preview: stream.unicode_line_separators was added in suite 0.3.0, after the pinned "
        "0.2.0; run it with --toolcall-preview*"])
    document = json.loads((old_project.path / "out" / "toolcall-report.json").read_text())
    assert document["run"]["suite"] == {"version": "0.2.0", "pinned": True, "preview": False,
                                        "strict": False}
    case = next(c for c in document["cases"] if c["id"] == "stream.unicode_line_separators")
    assert (case["outcome"], case["since"]) == ("skipped", "0.3.0")


def test_the_same_project_fails_when_the_pin_moves(old_project: pytest.Pytester) -> None:
    for args in (("--toolcall-suite=0.3.0",), ("--toolcall-suite=0.2.0", "--toolcall-preview"),
                 ()):
        result = old_project.runpytest_inprocess(PROVIDER, STREAM, *args, "-p", "no:cacheprovider")
        assert result.ret == pytest.ExitCode.TESTS_FAILED, args
        result.stdout.fnmatch_lines(["  stream.unicode_line_separators[[]openai[]]: "
                                     "adapter.raised (must)"])


def test_unpinned_the_newest_suite_runs_and_the_summary_says_so(
        old_project: pytest.Pytester) -> None:
    result = old_project.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.single_call",
                                             "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines([
        f"suite {SUITE_VERSION}, the newest (pin it: toolcall_suite = {SUITE_VERSION})"])


def test_the_ini_setting_pins_too(old_project: pytest.Pytester) -> None:
    old_project.makeini("[pytest]\ntoolcall_suite = 0.2.0\n")
    result = old_project.runpytest_inprocess(PROVIDER, STREAM, "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    old_project.makeini("[pytest]\ntoolcall_suite = 0.2.0\ntoolcall_preview = true\n")
    result = old_project.runpytest_inprocess(PROVIDER, STREAM, "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_an_unknown_pin_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-suite=9.9", "-p",
                                          "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--toolcall-suite / toolcall_suite: unknown suite version "
                                 "'9.9' (a version looks like 0.3.0); the suite versions are*"])


def test_a_projects_own_case_runs_whatever_the_pin(pytester: pytest.Pytester) -> None:
    pytester.makeconftest('''
from pytest_toolcall.cases import default_registry, make_case


def pytest_toolcall_cases():
    base = default_registry()["wire.single_call"]
    return [make_case(id="mine.single_call", title="mine", why="mine", steps=base.steps,
                      checks=base.checks)]
''')
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=mine.*",
                                          "--toolcall-suite=0.1.0", "-p", "no:cacheprovider")
    assert result.parseoutcomes() == {"passed": 1}


# A clause re-levelled in the version under way: should until SUITE_VERSION, must since.
RELEVELLED = '''
from pytest_toolcall.cases import levels

_OLD = levels.CLAUSES["errors.retryable"]
levels.CLAUSES["errors.retryable"] = levels.Level(
    "must", "re-levelled for this test", history=(("{version}", "should"),))


def pytest_unconfigure(config):
    levels.CLAUSES["errors.retryable"] = _OLD  # the in-process runs share the module
''' + SHOULD_CONFTEST.replace("{async_lies}", "False")


def test_a_relevelled_clause_keeps_its_level_as_of_the_pin(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(RELEVELLED.format(version=SUITE_VERSION))
    cases = "--toolcall-cases=errors.server_error"
    pinned = pytester.runpytest_inprocess(PROVIDER, cases, "--toolcall-suite=0.3.0",
                                          "-p", "no:cacheprovider")
    assert pinned.parseoutcomes() == {"hardening": 1}  # should, as it was at 0.3.0
    newest = pytester.runpytest_inprocess(PROVIDER, cases, "-p", "no:cacheprovider")
    assert newest.parseoutcomes() == {"failed": 1}  # must now
    newest.stdout.fnmatch_lines(["  level:    must (a defect: it fails the run)"])

"""docs/ci.md's GitHub Actions recipe works when copied into a user's repository, and the plugin
appends its Markdown summary to ``$GITHUB_STEP_SUMMARY``.

The recipe is read from the page itself (the ```yaml block), so the page cannot drift from what
is checked here: what it installs covers every option its pytest command uses, it installs the
kit from the package index (not the kit's own ``.[dev]`` extra, which does not exist in a user's
repository), and its pytest command, run as written in a user project, passes and writes what the
upload step uploads.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml", reason="pyyaml (the dev extra) reads the recipe")

ROOT = Path(__file__).resolve().parent.parent
CI_PAGE = ROOT / "docs" / "ci.md"
PROVIDER = "--toolcall-provider=openai"
HEADING = "## pytest-toolcall conformance"

#: which distribution provides each command-line option the recipe may use
OPTION_OWNERS = {
    "--toolcall-": "pytest-toolcall",
    "-n": "pytest-xdist", "--numprocesses": "pytest-xdist", "--dist": "pytest-xdist",
    "--cov": "pytest-cov", "--timeout": "pytest-timeout", "--reruns": "pytest-rerunfailures",
    "--junitxml": "pytest", "-q": "pytest", "-v": "pytest", "-x": "pytest", "-p": "pytest",
}


def recipe() -> dict:
    blocks = re.findall(r"```yaml\n(.*?)```", CI_PAGE.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 1, "docs/ci.md should hold exactly one ```yaml workflow"
    return yaml.safe_load(blocks[0])


def steps() -> list[dict]:
    return recipe()["jobs"]["toolcall"]["steps"]


def commands(prefix: str) -> list[list[str]]:
    """The shell commands of the suite job that start with ``prefix``, split into words."""
    found = []
    for step in steps():
        for line in str(step.get("run", "")).replace("\\\n", " ").splitlines():
            words = shlex.split(line)
            if words[:len(prefix.split())] == prefix.split():
                found.append(words)
    return found


def pytest_command() -> list[str]:
    runs = commands("python -m pytest")
    assert len(runs) == 1, runs
    return runs[0][3:]


def installed() -> set[str]:
    (install,) = commands("python -m pip install")
    return {w.split("[")[0].lower() for w in install[4:] if not w.startswith("-") and w != "."}


def test_recipe_installs_the_kit_not_the_kits_own_extra() -> None:
    (install,) = commands("python -m pip install")
    assert ".[dev]" not in " ".join(install), "a user's repository has no pytest-toolcall dev extra"
    assert "pytest-toolcall" in installed()


def test_what_the_recipe_installs_covers_the_options_it_uses() -> None:
    needed = {}
    for word in pytest_command():
        if not word.startswith("-"):
            continue
        name = word.split("=")[0]
        owner = next((d for o, d in OPTION_OWNERS.items()
                      if name == o or (o.endswith("-") and name.startswith(o))), None)
        assert owner is not None, f"docs/ci.md uses {name}: say which package provides it"
        needed[name] = owner
    missing = {name: owner for name, owner in needed.items()
               if owner != "pytest" and owner not in installed()}
    assert not missing, f"docs/ci.md uses options whose plugin it does not install: {missing}"


def test_recipe_uploads_what_the_run_writes_and_adds_no_second_summary() -> None:
    command = pytest_command()
    report = next(w.split("=", 1)[1] for w in command if w.startswith("--toolcall-report="))
    upload = next(s for s in steps() if "upload-artifact" in str(s.get("uses", "")))
    assert upload["with"]["path"].rstrip("/") == report
    # the plugin appends the summary itself: a step that cats the file too would show it twice
    assert not [s for s in steps() if "GITHUB_STEP_SUMMARY" in str(s.get("run", ""))]


def test_recipe_command_runs_as_written_in_a_user_project(pytester: pytest.Pytester,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # the recipe's pytest command, word for word, in a project with a test of its own; one case
    # per dialect is added only to keep this quick (the whole suite is the main job's business)
    summary = pytester.path / "step-summary.md"
    summary.write_text("earlier output of the same step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    pytester.makepyfile(test_mine="def test_mine(): pass")
    result = pytester.runpytest_subprocess(*pytest_command(), "--toolcall-cases=wire.single_call",
                                           "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    report = next(w.split("=", 1)[1] for w in pytest_command()
                  if w.startswith("--toolcall-report="))
    for name in ("toolcall-report.json", "toolcall-summary.md", "toolcall-badge.json",
                 "junit.xml"):
        assert (pytester.path / report / name).is_file(), name
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier output of the same step\n")
    assert text.count(HEADING) == 1
    assert "gate passed" in text


# -- $GITHUB_STEP_SUMMARY ---------------------------------------------------------------------------
def test_summary_is_appended_to_the_step_summary(pytester: pytest.Pytester,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    summary = pytester.path / "summary.md"
    summary.write_text("# written by an earlier tool\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    for _ in range(2):
        result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.single_call")
        result.assert_outcomes(passed=1)
        result.stdout.fnmatch_lines([f"summary appended to $GITHUB_STEP_SUMMARY ({summary})"])
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("# written by an earlier tool\n")  # appended, never overwritten
    assert text.count(HEADING) == 2
    assert "wire.single_call" not in text or "Failures" not in text
    # no --toolcall-report: the summary is the only file written
    assert not list(pytester.path.glob("**/toolcall-report.json"))


def test_summary_carries_failures(pytester: pytest.Pytester,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makeconftest("""
        import pytest

        class Broken:
            def complete(self, request):
                raise RuntimeError("adapter exploded")

        @pytest.fixture
        def toolcall_adapter():
            return Broken()
    """)
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.single_call")
    result.assert_outcomes(failed=1)
    text = summary.read_text(encoding="utf-8")
    assert "### Failures (1)" in text and "`wire.single_call` (openai)" in text


def test_own_tests_without_the_suite_append_nothing(pytester: pytest.Pytester,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    pytester.makepyfile(test_mine="def test_mine(): pass")
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(passed=1)
    assert not summary.exists()
    assert "GITHUB_STEP_SUMMARY" not in result.stdout.str()


def test_no_step_summary_while_mutmut_runs_a_mutant(pytester: pytest.Pytester,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("MUTANT_UNDER_TEST", "pytest_toolcall.x__mutmut_1")
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.single_call")
    result.assert_outcomes(passed=1)
    assert not summary.exists()


def test_unwritable_step_summary_is_said_and_keeps_the_verdict(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    target = pytester.mkdir("a-directory")  # opening a directory for append fails
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(target))
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.single_call")
    assert result.ret == 0
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["could not append the summary to $GITHUB_STEP_SUMMARY (*a-directory): *"])

"""The mutation driver (``pytest-toolcall mutate``) against a tiny adapter, end to end with mutmut.

One real mutmut run (module-scoped, ~10 s) over a four-function adapter: a dead branch no case
reaches must be reported as survivors, a mutation the suite sees must be reported killed, a
function no case calls must be an escape with no cases. The rest are fast unit tests of the
honesty checks (ids that do not collect in mutmut's copy are refused), the gate and bad input.
That run starts the command as a user does (``python -m pytest_toolcall mutate``); the other
commands run through ``cli.main`` in this process (their pytest and mutmut processes are the
driver's, as always).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
from background import Job, ahead

from pytest_toolcall.cli import main, mutation
from pytest_toolcall.cli.mutation import MutationError, MutationResult, evaluate_gate, parse_rate
from pytest_toolcall.cli.mutation.driver import _profile_selects
from pytest_toolcall.core.errors import UsageError

ADAPTER = '''\
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter


class TinyAdapter(OpenAIChatAdapter):
    @staticmethod
    def parse_finish(reason):
        if reason is None:
            return None
        if reason == "function_call":
            return "tool_calls"
        return {"stop": "stop", "tool_calls": "tool_calls"}.get(reason, "other")

    def describe(self):
        return 1
'''

CONFTEST = '''\
import pytest
from tinyadapter import TinyAdapter


@pytest.fixture
def toolcall_adapter(toolcall_endpoint):
    return TinyAdapter.from_endpoint(toolcall_endpoint)
'''

#: the plugins tests/conftest.py keeps out of the sessions the kit's tests start, which a
#: project's own addopts must keep out here: the driver runs pytest without PYTEST_ADDOPTS
UNRELATED = ["-p", "no:langsmith_plugin", "-p", "no:anyio", "-p", "no:hypothesispytest"]

# the user's own mutmut settings: they must neither be edited nor get in the way (their addopts
# also keep out the unrelated plugins)
PYPROJECT = '[tool.mutmut]\nsource_paths = ["nowhere"]\n\n[tool.pytest.ini_options]\n' \
            f'addopts = {json.dumps(["--strict-markers", *UNRELATED])}\n'
SETUP_CFG = "[mutmut]\nsource_paths = elsewhere\n"


def _project(root: Path, adapter: str = ADAPTER) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "tinyadapter.py").write_text(adapter)
    (root / "tests" / "conftest.py").write_text(CONFTEST)  # the override lives in tests/
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "setup.cfg").write_text(SETUP_CFG)
    return root


def _cli(cwd: Path, *args: str,
         env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m pytest_toolcall mutate ARGS`` in ``cwd``, as a user runs it, with ``env``
    (this process's by default; a job run ahead passes the test's: tests/background.py)."""
    env = {k: v for k, v in (os.environ if env is None else env).items()
           if k != "MUTANT_UNDER_TEST"}
    return subprocess.run([sys.executable, "-m", "pytest_toolcall", "mutate", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=240, env=env, check=False)


def _main(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The same command through ``cli.main`` in this process, in ``cwd``: its exit code, stdout
    and stderr. The driver starts its pytest and mutmut processes as under _cli; only the
    command's own process (0.45 s of CPU, most of it imports this process has) is saved."""
    out, err = io.StringIO(), io.StringIO()
    previous, mutant = Path.cwd(), os.environ.pop("MUTANT_UNDER_TEST", None)
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["mutate", *args])
    finally:
        os.chdir(previous)
        if mutant is not None:
            os.environ["MUTANT_UNDER_TEST"] = mutant
    return subprocess.CompletedProcess(["mutate", *args], code, out.getvalue(), err.getvalue())


def _tiny_run(where: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    return _cli(_project(where / "tiny"), "tinyadapter.py", "--cases",
                "wire.single_call,wire.provider_error", "--report", "rep", "--max-escapes", "0",
                "--jobs", "2", env=env)


#: the end-to-end mutmut run two tests read, run once, ahead of them (tests/background.py)
TINY_RUN = Job("the mutation driver on the tiny adapter", _tiny_run)


@pytest.fixture
def tiny_run(ahead_run: tuple[subprocess.CompletedProcess[str], Path],
             ) -> tuple[Path, subprocess.CompletedProcess[str]]:
    done, where = ahead_run
    return where / "tiny", done


def _changed(diff: str) -> list[str]:
    return [line for line in diff.splitlines()
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


@ahead(lambda: TINY_RUN)
def test_survivors_in_a_dead_branch_are_escapes_and_a_seen_mutation_is_killed(tiny_run):
    root, done = tiny_run
    assert done.returncode == 1, done.stdout + done.stderr  # --max-escapes 0 is exceeded
    report = json.loads((root / "rep" / "mutation-report.json").read_text())
    assert report["schema"] == "pytest-toolcall/mutation"
    assert report["cases"] == ["wire.provider_error[openai]", "wire.single_call[openai]"]
    escapes = report["escapes"]
    by_change = {tuple(_changed(e["diff"])): e for e in escapes}

    # the dead branch: no OpenAI case sends finish_reason "function_call"
    dead = by_change[('-        if reason == "function_call":',
                      '+        if reason == "XXfunction_callXX":')]
    assert dead["status"] == "survived" and dead["line"] == 9
    assert dead["file"] == "tinyadapter.py" and dead["function"] == "TinyAdapter.parse_finish"
    assert dead["cases"] == ["wire.single_call[openai]"]  # the case that ran the function
    # a function no case calls: an escape with no case
    unused = [e for e in escapes if e["function"] == "TinyAdapter.describe"]
    assert [e["status"] for e in unused] == ["no_tests"] and unused[0]["cases"] == []
    assert _changed(unused[0]["diff"]) == ["-        return 1", "+        return 2"]

    # the mapping of "tool_calls" is what wire.single_call checks: that mutant is killed
    killed_change = ('-        return {"stop": "stop", "tool_calls": "tool_calls"}.get(reason, '
                     '"other")')
    assert not any(killed_change in _changed(e["diff"]) and '"XXtool_callsXX"}' in e["diff"]
                   for e in escapes)
    assert report["counts"]["killed"] >= 1
    assert report["mutants"] == report["caught"] + report["escaped"]
    assert report["escaped"] == len(escapes)
    assert report["counts"]["survived"] + report["counts"]["no_tests"] == len(escapes)

    out = done.stdout
    assert f"MUTATION_ESCAPES: {len(escapes)}/{report['mutants']}" in out.splitlines()[0]
    assert "at tinyadapter.py:9, in TinyAdapter.parse_finish" in out
    assert f"MUTATION GATE FAILED: {len(escapes)} escapes, more than --max-escapes 0" in out
    assert report["gate"]["passed"] is False


@ahead(lambda: TINY_RUN)
def test_the_users_files_are_untouched_and_nothing_is_left_behind(tiny_run):
    root, _ = tiny_run
    assert (root / "pyproject.toml").read_text() == PYPROJECT
    assert (root / "setup.cfg").read_text() == SETUP_CFG
    assert (root / "tinyadapter.py").read_text() == ADAPTER
    assert not (root / "mutants").exists()
    assert not (root / "tests" / mutation.GENERATED_MODULE).exists()
    # the report directory holds the driver's files only (no report written by a mutant run)
    assert sorted(p.name for p in (root / "rep").iterdir()) == [
        "mutation-report.json", "mutation-summary.md", "mutmut.log"]
    summary = (root / "rep" / "mutation-summary.md").read_text()
    assert "**MUTATION_ESCAPES:" in summary and "MUTATION GATE FAILED" in summary


def test_recorded_ids_that_do_not_collect_in_the_copy_are_refused(tmp_path):
    (tmp_path / "pytest.ini").write_text(f"[pytest]\naddopts = {' '.join(UNRELATED)}\n")
    (tmp_path / "test_real.py").write_text(f"def {mutation.GENERATED_TEST}():\n    pass\n")
    real = f"test_real.py::{mutation.GENERATED_TEST}"
    mutation.verify_recorded_ids(tmp_path, {real})  # collects: accepted
    gone = f"test_gone.py::{mutation.GENERATED_TEST}"  # a module mutmut's copy does not have
    with pytest.raises(MutationError, match="refusing to report: .* of the 2 test ids") as info:
        mutation.verify_recorded_ids(tmp_path, {real, gone})
    assert gone in str(info.value)
    with pytest.raises(MutationError, match="recorded no test"):
        mutation.verify_recorded_ids(tmp_path, set())


def test_a_red_suite_is_an_error_that_names_the_failing_case(tmp_path):
    broken = ADAPTER.replace('"tool_calls": "tool_calls"}', '"tool_calls": "stop"}')
    root = _project(tmp_path, broken)
    done = _main(root, "tinyadapter.py", "--cases", "wire.single_call", "--report", "rep")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "the conformance suite is red before mutation" in done.stderr
    assert "wire.single_call[openai]: failed" in done.stderr
    assert not (root / "rep" / "mutation-report.json").exists()


def test_bad_input_is_a_usage_error(tmp_path):
    _project(tmp_path)
    done = _main(tmp_path, "no_such_adapter.py")
    assert done.returncode == 2
    assert "'no_such_adapter.py' does not exist" in done.stderr
    done = _main(tmp_path, "tinyadapter.py", "--min-kill-rate", "high")
    assert done.returncode == 2 and "'high' is not a kill rate" in done.stderr
    done = _main(tmp_path, "tinyadapter.py", "--provider", "nope")
    assert done.returncode == 2 and "unknown provider 'nope'" in done.stderr


def test_sources_outside_mutmuts_import_roots_are_refused(tmp_path):
    (tmp_path / "lib" / "pkg").mkdir(parents=True)
    (tmp_path / "lib" / "pkg" / "__init__.py").write_text("")
    (tmp_path / "lib" / "pkg" / "a.py").write_text("X = 1\n")
    (tmp_path / "src" / "pkg2" / "sub").mkdir(parents=True)
    for d in ("src/pkg2", "src/pkg2/sub"):
        (tmp_path / d / "__init__.py").write_text("")
    (tmp_path / "src" / "pkg2" / "sub" / "b.py").write_text("Y = 1\n")
    (tmp_path / "notes.txt").write_text("")
    with pytest.raises(UsageError, match="mutmut only puts the project root, src/ and source/"):
        mutation.plan_sources(tmp_path, [str(tmp_path / "lib" / "pkg" / "a.py")])
    with pytest.raises(UsageError, match="not a Python file"):
        mutation.plan_sources(tmp_path, [str(tmp_path / "notes.txt")])
    files, roots = mutation.plan_sources(tmp_path, [str(tmp_path / "src/pkg2/sub/b.py")])
    assert files == ["src/pkg2/sub/b.py"] and roots == ["src/pkg2"]  # the whole package copied


def _result(escapes: int, killed: int) -> MutationResult:
    escape = mutation.Escape(mutant="m.x_f__mutmut_1", status="survived", file="m.py", line=1,
                             function="f", diff="")
    return MutationResult(sources=["m.py"], providers=["openai"], cases=[],
                          counts={"killed": killed, "survived": escapes}, escapes=[escape] * escapes,
                          errors=[], seconds=1.0, mutmut_seconds=1.0, mutants_per_second=None,
                          mutmut_version="3")


def test_the_gate_has_distinct_messages_per_threshold():
    result = _result(escapes=2, killed=8)
    assert result.kill_rate == 0.8 and result.headline() == "MUTATION_ESCAPES: 2/10"
    assert evaluate_gate(result, 2, 0.8)["passed"] is True
    gate = evaluate_gate(result, 1, 0.9)
    assert gate["failures"] == [
        "MUTATION GATE FAILED: 2 escapes, more than --max-escapes 1",
        "MUTATION GATE FAILED: kill rate 80.0%, below --min-kill-rate 90.0%"]
    assert parse_rate("90%") == 0.9 and parse_rate("0.75") == 0.75
    with pytest.raises(UsageError):
        parse_rate("1.5")


def test_exit_codes_are_classified_without_false_kills():
    assert mutation.classify(1) == "killed"
    assert mutation.classify(0) == "survived"
    assert mutation.classify(33) == "no_tests"
    assert mutation.classify(36) == "timeout"
    assert mutation.classify(3) == "error"  # pytest's internal error: not a kill
    assert mutation.classify(4) == "error"  # usage error (an id that did not collect)
    assert mutation.classify(None) == "not_checked"


def test_no_report_is_written_inside_a_mutant_run(tmp_path, monkeypatch):
    monkeypatch.setenv("MUTANT_UNDER_TEST", "tinyadapter.x_f__mutmut_1")
    gate = evaluate_gate(_result(1, 1), None, None)
    assert mutation.write_reports(tmp_path / "rep", _result(1, 1), gate) == []
    assert not (tmp_path / "rep").exists()


def test_the_copy_gets_its_own_config_and_the_users_mutmut_table_is_set_aside(tmp_path):
    _project(tmp_path)
    mutation.write_mutmut_config(tmp_path, source_paths=["tinyadapter.py"],
                                 files=["tinyadapter.py"], test_module="tests/t.py")
    text = (tmp_path / "pyproject.toml").read_text()
    assert "[tool.mutmut]" not in text and "[tool.pytest.ini_options]" in text
    import configparser

    cfg = configparser.RawConfigParser()
    cfg.read(tmp_path / "setup.cfg")
    assert cfg.get("mutmut", "source_paths") == "tinyadapter.py"
    assert cfg.get("mutmut", "pytest_add_cli_args_test_selection") == "tests/t.py"
    also = cfg.get("mutmut", "also_copy").split()
    assert "tests" in also and "tinyadapter.py" not in also
    assert "toolcall_provider=" in cfg.get("mutmut", "pytest_add_cli_args").split()


# -- --profiles: the cases run once per declared profile ------------------------------------------
HISTORY = '''\
from pytest_toolcall.reference.history import ReferenceHistoryBuilder


class TinyHistory(ReferenceHistoryBuilder):
    def build(self, stored):
        if self.failed_calls == "keep":
            return self.keep(stored)
        return super().build(stored)

    def keep(self, stored):
        builder = ReferenceHistoryBuilder(failed_calls="keep")
        return builder.build(stored)
'''

HISTORY_CONFTEST = '''\
import pytest
from pytest_toolcall.core.contracts import make_profile
from tinyhistory import TinyHistory


@pytest.fixture
def toolcall_history(toolcall_profile):
    return TinyHistory(failed_calls=make_profile(toolcall_profile).history_failed_calls)
'''

#: a history builder that ignores the profile (it always keeps failed calls, as its base profile
#: says): it cannot be what a "drop" profile declares
DEAF_CONFTEST = HISTORY_CONFTEST.replace(
    "make_profile(toolcall_profile).history_failed_calls", '"keep"') + \
    '\n\n@pytest.fixture\ndef toolcall_profile():\n    return {"history_failed_calls": "keep"}\n'
TWO_PROFILES = '{"default": {}, "keep": {"history_failed_calls": "keep"}}'


def _history_project(root: Path, conftest: str = HISTORY_CONFTEST) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "tinyhistory.py").write_text(HISTORY)
    (root / "tests" / "conftest.py").write_text(conftest)
    (root / "pytest.ini").write_text(f"[pytest]\naddopts = {' '.join(UNRELATED)}\n")
    return root


def _two_profiles(where: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    return _cli(_history_project(where), "tinyhistory.py", "--cases",
                "history.dedupe,history.orphan_results", "--profiles", TWO_PROFILES,
                "--report", "rep", "--jobs", "1", env=env)


@ahead(lambda: Job("the mutation driver under two profiles", _two_profiles))
def test_profiles_run_each_policy_branch_under_the_profile_that_declares_it(ahead_run):
    done, root = ahead_run
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((root / "rep" / "mutation-report.json").read_text())
    assert report["profiles"] == ["default", "keep"]
    assert report["cases"] == [f"history.{c}[openai, {p}]" for c in ("dedupe", "orphan_results")
                               for p in ("default", "keep")]
    # `keep` runs only under the keep profile: reached there, its crash mutant is caught
    keep = [e for e in report["escapes"] if e["function"] == "TinyHistory.keep"]
    assert all(e["status"] == "survived" for e in keep), keep
    assert not any("+        builder = None" in _changed(e["diff"]) for e in keep)
    assert all(set(e["cases"]) <= {"history.dedupe[openai, keep]",
                                   "history.orphan_results[openai, keep]"} for e in keep)
    assert report["counts"]["killed"] >= 2
    assert "cases ran under 2 declared profiles: default, keep" in done.stdout
    assert not (root / "tests" / mutation.GENERATED_MODULE).exists()


def _deaf_profile(where: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    # history.all_calls_failed needs history_failed_calls="drop": skipped under the base
    # profile, it runs under the declared one, and fails
    return _cli(_history_project(where, DEAF_CONFTEST), "tinyhistory.py", "--cases",
                "history.all_calls_failed,history.dedupe",
                "--profiles", '{"default": {}, "drop": {"history_failed_calls": "drop"}}', env=env)


@ahead(lambda: Job("the mutation driver under a profile the adapter lacks", _deaf_profile))
def test_a_profile_the_implementation_does_not_have_is_a_red_suite(ahead_run):
    done, _ = ahead_run
    assert done.returncode == 3, done.stdout + done.stderr
    assert "red under a declared profile" in done.stderr
    assert "history.all_calls_failed[openai] under profile 'drop': failed" in done.stderr


def test_profiles_are_parsed_and_validated(tmp_path):
    builtin = mutation.parse_profiles("reference")
    assert builtin["default"] == {"fields": {}, "cases": []}
    assert builtin["langgraph"]["fields"]["duplicate_call_ids"] == "refuse"
    assert mutation.parse_profiles('{"a": {"closing_call": true}}') == {
        "a": {"fields": {"closing_call": True}, "cases": []}}
    (tmp_path / "p.json").write_text('{"b": {"fields": {}, "cases": "loop.*,!loop.events"}}')
    assert mutation.parse_profiles(str(tmp_path / "p.json")) == {
        "b": {"fields": {}, "cases": ["loop.*", "!loop.events"]}}
    with pytest.raises(UsageError, match="profile 'x' is not a valid Profile: no_such_field"):
        mutation.parse_profiles('{"x": {"no_such_field": 1}}')
    with pytest.raises(UsageError, match="neither a built-in matrix"):
        mutation.parse_profiles("nowhere.json")
    with pytest.raises(UsageError, match="profile name 'a b'"):
        mutation.parse_profiles('{"a b": {}}')
    assert _profile_selects(["loop.*", "!loop.events"], "loop.usage_summed")
    assert not _profile_selects(["loop.*", "!loop.events"], "loop.events")
    assert not _profile_selects(["loop.*"], "history.dedupe")
    assert _profile_selects([], "history.dedupe")
    # every profile of the built-in matrix is a valid Profile laid over the reference one
    from pytest_toolcall.reference import reference_profile

    for spec in builtin.values():
        mutation.apply_profile(reference_profile("openai"), spec["fields"])


def test_bad_profiles_on_the_command_line_are_usage_errors(tmp_path):
    _project(tmp_path)
    done = _main(tmp_path, "tinyadapter.py", "--profiles", '{"x": {"max_iterations": 0}}')
    assert done.returncode == 2 and "profile 'x' is not a valid Profile" in done.stderr

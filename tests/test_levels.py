"""Levels (issue 28): every clause is ``must`` or ``should``; a broken ``should`` clause is
reported apart ("hardening") and fails the run only in strict mode, the same way in pytest's
line, the summary, JUnit, the report files, the gate and under xdist.
"""

from __future__ import annotations

import ast
import functools
import json
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path

# Imported before any pytester run, for speed (see tests/test_plugin.py).
import hypothesis.strategies
import jsonschema
import pytest
from background import Job, ahead, run_pytest

import pytest_toolcall.plugins.suite
import pytest_toolcall.providers.openai.reference
from pytest_toolcall.cases import default_registry, levels
from pytest_toolcall.cases.levels import CLAUSES, IN_CASE, Level, entry, level_of
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.output import report
from pytest_toolcall.run.live import live_cases

ROOT = Path(__file__).resolve().parents[1]
PROVIDER = "--toolcall-provider=openai"

# -- the table and the clauses the suite uses agree ----------------------------------------------
#: the calls whose first argument (or ``clause=``) is a clause
_RAISERS = {"ConformanceFailure", "check", "_Fault"}
#: calls that name a clause by keyword
_KEYWORD = {"call_with_deadline", "coerce"}
#: places that pass a clause computed elsewhere, and what they can be: a new computed clause is
#: an error until it is listed here
_DYNAMIC = {
    # wire_field / no_tool_message / unrun_call_answered / reasoning_content_check /
    # message_is_the_text: factories whose clause comes from the case's checks (read at run time)
    ("conformance/_common.py", "clause"): (),
    ("conformance/history.py", "clause"): (),
    ("conformance/loop/checks.py", "clause"): (),
    ("pytest_toolcall/providers/deepseek/cases.py", "clause"): (),
    ("pytest_toolcall/providers/lmstudio/cases.py", "clause"): (),
    # call_with_deadline's and coerce's clause=... (listed by keyword below)
    ("pytest_toolcall/run/runbase.py", "clause"): (),
    ("pytest_toolcall/run/runbase.py", "f'{prefix}.exit'"): ("adapter.exit", "loop.exit",
                                                             "history.exit", "fallback.exit"),
    ("conformance/wire.py", "'wire.history.tool_results' if isinstance(mine, ToolMessage) "
                            "else 'wire.history.tool_calls'"): ("wire.history.tool_results",
                                                                 "wire.history.tool_calls"),
    # checks.raised: a failure about an exception the implementation raised, with the clause
    # its callers give (step_basics, error_surfaced)
    ("pytest_toolcall/run/checks.py", "clause"): ("adapter.raised", "error.typed",
                                                  "error.message"),
    # a provider's validation rule: request.<rule> (PREFIXES), in checks.rejection_failure
    # (the chat, loop and fallback runners raise its failure)
    ("pytest_toolcall/run/checks.py", "f'request.{rejection.rule}'"): ("request.<rule>",),
    # the run's deadline: loop.timeout, or a BoundedScript's own clause (conformance/loop/
    # model_calls.py)
    ("pytest_toolcall/run/looprun.py", "clause"): ("loop.timeout", "loop.model_deadline",
                                                   "loop.retry_cap"),
    # a _Fault's clause, raised again (its constants are read above)
    ("pytest_toolcall/run/foreign.py", "fault.clause"): (),
    # fastjsonschema's validator, named check: no clause
    ("pytest_toolcall/run/foreign.py", "value"): (),
}


def _sources() -> list[Path]:
    return sorted([*ROOT.glob("pytest_toolcall/**/*.py"), *ROOT.glob("conformance/**/*.py")])


@functools.lru_cache(maxsize=1)  # both tests below read it: the sources are parsed once
def used_clauses() -> tuple[frozenset[str], tuple[str, ...]]:
    """The clauses the built-in suite raises or names, and the computed clause sites this test
    does not know (``path:line: expression``)."""
    found: set[str] = set()
    unknown: list[str] = []
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("pytest_toolcall/shims/"):
            continue  # the shims raise no verdicts (their check() calls are other functions)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            args = []
            if name in _RAISERS and node.args:
                args.append(node.args[0])
            if name in _KEYWORD or name in _RAISERS:
                args += [k.value for k in node.keywords if k.arg == "clause"]
            for arg in args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.add(arg.value)
                elif (rel, ast.unparse(arg)) in _DYNAMIC:
                    found.update(_DYNAMIC[(rel, ast.unparse(arg))])
                else:
                    unknown.append(f"{rel}:{node.lineno}: {ast.unparse(arg)}")
    cases = [*default_registry(), *live_cases()]
    found.update(c.clause for case in cases for c in case.checks)
    return frozenset(found), tuple(unknown)


def disagreements(table: dict[str, Level], used: frozenset[str]) -> list[str]:
    """What is wrong between ``table`` and ``used``, one sentence each (empty: they agree)."""
    problems = []
    for clause in sorted(used):
        if clause == "request.<rule>":
            if entry("request.x") is None:
                problems.append("the request.<rule> clauses have no level (PREFIXES)")
        elif clause not in table:
            problems.append(f"clause {clause!r} has no level: add it to "
                            "pytest_toolcall/cases/levels.py (must or should, and why)")
    for clause in sorted(set(table) - used):
        problems.append(f"clause {clause!r} has a level but no case uses it: remove it")
    return problems


def test_every_clause_the_suite_uses_has_a_level_and_every_level_a_clause() -> None:
    used, unknown = used_clauses()
    assert not unknown, ("clauses computed where this test cannot read them; list what they can "
                         f"be in _DYNAMIC: {unknown}")
    assert len(used) > 120
    assert disagreements(CLAUSES, used) == []
    case_ids = {c.id for c in default_registry()}
    for case_id, clause in IN_CASE:
        assert case_id in case_ids and clause in used, (case_id, clause)


def test_the_agreement_check_names_what_is_missing_and_what_is_stale() -> None:
    # control: a table missing a used clause, and one with a clause no case uses
    used, _ = used_clauses()
    missing = {k: v for k, v in CLAUSES.items() if k != "errors.retryable"}
    assert disagreements(missing, used) == [
        "clause 'errors.retryable' has no level: add it to pytest_toolcall/cases/levels.py "
        "(must or should, and why)"]
    stale = {**CLAUSES, "wire.gone": Level("must", "x")}
    assert disagreements(stale, used) == [
        "clause 'wire.gone' has a level but no case uses it: remove it"]


def test_every_level_says_what_breaks_and_where_it_comes_from() -> None:
    for clause, found in [*CLAUSES.items(), *levels.PREFIXES.items(),
                          *((f"{c}@{k}", v) for (k, c), v in IN_CASE.items())]:
        assert found.level in levels.LEVELS, clause
        assert len(found.why) > 20 and found.source, clause


def test_levels_of_the_issue_examples() -> None:
    # issue 28's examples of hardening, and defects beside them
    assert level_of("errors.type") == "should"  # litellm's OpenAI exception types
    assert level_of("errors.retryable", "errors.in_stream") == "should"
    assert level_of("adapter.timeout", "errors.stream_stalled") == "should"
    assert level_of("loop.timeout", "loop.tool_timeout") == "should"
    assert level_of("adapter.timeout", "wire.single_call") == "must"  # a hang on a valid answer
    assert level_of("error.surfaced") == "must"  # a cut stream returned as a success
    assert level_of("stream.closed") == "must"  # a leak
    assert level_of("request.messages.tool_call_id") == "must"  # a refused request
    assert level_of("mine.my_own_clause") == "must"  # a project's own clause: must


def test_a_relevelled_clause_keeps_its_level_as_of_the_pin() -> None:
    relevelled = Level("must", "became a defect", history=(("0.4.0", "should"),))
    assert relevelled.at(None) == "must"
    assert relevelled.at("0.4.0") == "must"
    assert relevelled.at("0.3.0") == "should"
    twice = Level("should", "x", history=(("0.4.0", "must"), ("0.3.0", "should")))
    assert [twice.at(v) for v in ("0.2.0", "0.3.0", "0.4.0")] == ["should", "must", "should"]


def test_the_failure_block_names_its_level() -> None:
    failure = ConformanceFailure("errors.retryable", "wrong flag", expected=True, got=False)
    assert "level:" not in failure.render()  # not set: outside the runner, no claim
    failure.level = "should"
    assert "  level:    should (hardening, not a defect: it fails the run only with " \
           "--toolcall-strict)" in failure.render().splitlines()
    failure.level = "must"
    assert "  level:    must (a defect: it fails the run)" in failure.render().splitlines()


# -- the plugin ---------------------------------------------------------------------------------
# retryable=False on every provider error: errors.retryable (should) on the retryable kinds.
# ASYNC_LIES: acomplete() also returns an answer when the provider failed (error.surfaced, must)
SHOULD_CONFTEST = '''
import pytest
from pytest_toolcall import ChatResponse, ProviderError
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter

ASYNC_LIES = {async_lies}


class NeverRetryable(OpenAIChatAdapter):
    def complete(self, request):
        try:
            return super().complete(request)
        except ProviderError as error:
            error.retryable = False
            raise

    async def acomplete(self, request):
        try:
            return await super().acomplete(request)
        except ProviderError as error:
            if ASYNC_LIES:
                return ChatResponse(text="")
            error.retryable = False
            raise


@pytest.fixture
def toolcall_adapter(toolcall_endpoint):
    return NeverRetryable.from_endpoint(toolcall_endpoint)
'''
#: two retryable kinds (should failures) and a final one (passes)
CASES = "--toolcall-cases=errors.server_error,errors.overloaded,errors.auth_invalid"


@pytest.fixture
def should_project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(SHOULD_CONFTEST.format(async_lies=False))
    return pytester


def _reports(path: Path) -> tuple[dict, str, dict]:
    document = json.loads((path / report.REPORT_FILE).read_text("utf-8"))
    jsonschema.validate(document, report.load_schema(), cls=jsonschema.Draft202012Validator)
    return (document, (path / report.SUMMARY_FILE).read_text("utf-8"),
            json.loads((path / report.BADGE_FILE).read_text("utf-8")))


def test_a_should_failure_is_hardening_and_does_not_fail_the_run(
        should_project: pytest.Pytester) -> None:
    result = should_project.runpytest_inprocess(
        PROVIDER, CASES, "--toolcall-report=out", "--toolcall-min-pass-rate=1",
        "--junitxml=junit.xml", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    assert result.parseoutcomes() == {"passed": 1, "hardening": 2}
    out = result.stdout.str()
    # the failure text, in a section of its own, with its level
    result.stdout.fnmatch_lines([
        "*hardening (should): toolcall::errors.*[[]openai[]]*",
        "[[]errors.retryable[]] step 1: the error says retrying cannot help; for this error it can",
        "  level:    should (hardening, not a defect: it fails the run only with "
        "--toolcall-strict)",
        "*pytest-toolcall conformance summary*",
        "family*provider*passed*failed*hardening*error*skipped*xfailed*xpassed",
        "errors*openai*1*0*2*0*0*0*0",
        "3 case runs: 1 passed, 2 hardening",
        "hardening (should clauses: not defects*--toolcall-strict makes it):",
        "  errors.*[[]openai[]]: errors.retryable (should)",
        "pytest-toolcall gate passed: pass rate 100.0% (3/3 over all families)*",
    ])
    assert "broken clauses" not in out and "FAILED" not in out
    document, markdown, badge = _reports(should_project.path / "out")
    cases = {c["id"]: c for c in document["cases"]}
    assert cases["errors.server_error"]["outcome"] == "hardening"
    assert cases["errors.server_error"]["clause"] == "errors.retryable"
    assert cases["errors.server_error"]["level"] == "should"
    assert cases["errors.server_error"]["message"].startswith("[errors.retryable] step 1")
    assert cases["errors.auth_invalid"]["outcome"] == "passed"
    assert cases["errors.auth_invalid"]["level"] is None
    assert document["totals"]["hardening"] == 2 and document["totals"]["failed"] == 0
    assert document["gate"]["counted"]["hardening"] == 2 and document["gate"]["passed"]
    assert document["run"]["suite"]["strict"] is False
    assert "### Hardening (2, should clauses" in markdown
    assert "broke clause `errors.retryable` (should)" in markdown
    assert badge["message"] == "3/3 passing, 2 should" and badge["color"] == "green"
    # JUnit: no failure element, the level and the hardening in the properties
    tree = ET.parse(should_project.path / "junit.xml")
    case = next(c for c in tree.iter("testcase") if "errors.server_error" in c.get("name", ""))
    assert case.find("failure") is None
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["toolcall_level"] == "should" and props["toolcall_clause"] == "errors.retryable"
    assert props["toolcall_hardening"].startswith("[errors.retryable]")


def test_strict_mode_fails_the_run_on_a_should_failure(should_project: pytest.Pytester) -> None:
    result = should_project.runpytest_inprocess(
        PROVIDER, CASES, "--toolcall-strict", "--toolcall-report=out",
        "--toolcall-min-pass-rate=1", "--junitxml=junit.xml", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert result.parseoutcomes() == {"passed": 1, "failed": 2}
    result.stdout.fnmatch_lines(["broken clauses (your implementation):",
                                 "  errors.*[[]openai[]]: errors.retryable (should)"])
    document, _markdown, badge = _reports(should_project.path / "out")
    case = next(c for c in document["cases"] if c["id"] == "errors.server_error")
    assert (case["outcome"], case["level"]) == ("failed", "should")
    assert document["run"]["suite"]["strict"] is True
    assert not document["gate"]["passed"] and badge["color"] == "red"
    tree = ET.parse(should_project.path / "junit.xml")
    failed = [c for c in tree.iter("testcase") if c.find("failure") is not None]
    assert len(failed) == 2


def test_the_ini_setting_is_strict_too(should_project: pytest.Pytester) -> None:
    should_project.makeini("[pytest]\ntoolcall_strict = true\n")
    result = should_project.runpytest_inprocess(PROVIDER, CASES, "-p", "no:cacheprovider")
    assert result.parseoutcomes() == {"passed": 1, "failed": 2}


def _xdist_should(where: Path, env: Mapping[str, str]) -> pytest.RunResult:
    # a session of three processes that waits on them: it may run ahead (tests/background.py)
    project = where / "project"
    project.mkdir()
    (project / "conftest.py").write_text(
        textwrap.dedent(SHOULD_CONFTEST.format(async_lies=False)), encoding="utf-8")
    return run_pytest(project, env, PROVIDER, CASES, "-n", "2", "--toolcall-report=out", "-p",
                      "no:cacheprovider")


@ahead(lambda: Job("hardening counted under xdist", _xdist_should))
def test_xdist_counts_hardening_as_a_serial_run_does(
        ahead_run: tuple[pytest.RunResult, Path]) -> None:
    pytest.importorskip("xdist")
    result, where = ahead_run
    assert result.ret == pytest.ExitCode.OK
    assert result.parseoutcomes() == {"passed": 1, "hardening": 2}
    result.stdout.fnmatch_lines(["3 case runs: 1 passed, 2 hardening",
                                 "  errors.*[[]openai[]]: errors.retryable (should)"])
    document, _markdown, _badge = _reports(where / "project" / "out")
    assert document["totals"]["hardening"] == 2


def test_a_should_failure_never_hides_a_must_failure(pytester: pytest.Pytester) -> None:
    # sync: errors.retryable (should); async: an answer where the provider failed
    # (error.surfaced, must). The must failure is the verdict, and it fails the run.
    pytester.makeconftest(SHOULD_CONFTEST.format(async_lies=True))
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=errors.server_error",
                                          "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "[[]error.surfaced[]] step 1: the provider failed, but the adapter returned a result*",
        "  conformance failure in case errors.server_error (openai, async interface)",
        "  level:    must (a defect: it fails the run)",
        "  errors.server_error[[]openai[]]: error.surfaced (must)"])


def test_a_must_failure_fails_the_run_whatever_the_mode(pytester: pytest.Pytester) -> None:
    # control for the hardening test: the same project, but its failure is a defect
    pytester.makeconftest(SHOULD_CONFTEST.format(async_lies=True).replace(
        "error.retryable = False\n            raise\n\n    async", "raise\n\n    async"))
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=errors.server_error",
                                          "-p", "no:cacheprovider")
    assert result.parseoutcomes() == {"failed": 1}


def test_the_kit_could_not_run_stays_an_error(pytester: pytest.Pytester) -> None:
    # a setup problem is neither level: an error, never hardening, in strict mode or not
    pytester.makeconftest("import pytest\n@pytest.fixture\ndef toolcall_adapter():\n"
                          "    return object()\n")
    for strict in ((), ("--toolcall-strict",)):
        result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=errors.server_error",
                                              "--toolcall-report=out", "-p", "no:cacheprovider",
                                              *strict)
        assert result.parseoutcomes() == {"errors": 1}
        document, _markdown, _badge = _reports(pytester.path / "out")
        assert [(c["outcome"], c["level"]) for c in document["cases"]] == [("error", None)]

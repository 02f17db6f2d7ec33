"""CI reports and the gate: ``--toolcall-report``, ``--toolcall-min-pass-rate``,
``--toolcall-gate-families``. Plugin behaviour through pytester, reports through their parsed
files; the report logic (merging, gate, badge, redaction) unit-tested on plain data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# Imported before any pytester run, for speed (see tests/test_plugin.py).
import hypothesis.strategies  # noqa: F401
import jsonschema
import pytest

import pytest_toolcall.plugins.suite
import pytest_toolcall.reference.history
import pytest_toolcall.reference.loop
import pytest_toolcall.providers.openai.reference  # noqa: F401
from pytest_toolcall.output import report
from pytest_toolcall.cases import default_registry
from pytest_toolcall.output.report import CaseRecord, Phase

default_registry()

PROVIDER = "--toolcall-provider=openai"
SECRET = "sk-demo-0123456789abcdef"

# An adapter that keeps only the first tool call of a response (so every multi-call case fails on
# response.tool_calls.count), and whose error message for tool_choice="none" leaks its API key.
# The history builder is not one (a setup error); usage is not claimed (a skip); the
# parallel-calls case is a declared known gap.
RICH_CONFTEST = '''
import os
import pytest
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter


class OneCallAdapter(OpenAIChatAdapter):
    def parse_response(self, data):
        response = super().parse_response(data)
        return response.model_copy(update={"tool_calls": response.tool_calls[:1]})

    def complete(self, request):
        if request.tool_choice == "none":
            raise RuntimeError("login refused for key " + os.environ["DEMO_SERVICE_API_KEY"])
        return super().complete(request)


class NotAHistoryBuilder:
    pass


@pytest.fixture
def toolcall_adapter(toolcall_endpoint):
    return OneCallAdapter.from_endpoint(toolcall_endpoint)


@pytest.fixture
def toolcall_history():
    return NotAHistoryBuilder()


@pytest.fixture
def toolcall_profile():
    return {"name": "one-call", "usage": False,
            "known_gaps": {"wire.parallel_calls": "keeps only the first call (issue 12)"}}
'''
RICH_CASES = "--toolcall-cases=wire.*,history.dedupe"
WRITER_SPY = '''
import os
import pytest_toolcall.output.report

_write = pytest_toolcall.output.report.write_reports


def spy(directory, document):
    with open("writers.log", "a") as log:
        role = os.environ.get("PYTEST_XDIST_WORKER", "controller")
        log.write(f"{role}:{directory.name}\\n")
    return _write(directory, document)


pytest_toolcall.output.report.write_reports = spy


def pytest_unconfigure(config):
    pytest_toolcall.output.report.write_reports = _write  # the in-process run shares the module
'''


def read_reports(directory: Path) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """The three files, parsed; the JSON document checked against the shipped JSON Schema."""
    document = json.loads((directory / report.REPORT_FILE).read_text("utf-8"))
    jsonschema.validate(document, report.load_schema(), cls=jsonschema.Draft202012Validator)
    markdown = (directory / report.SUMMARY_FILE).read_text("utf-8")
    badge = json.loads((directory / report.BADGE_FILE).read_text("utf-8"))
    return document, markdown, badge


def by_id(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {case["id"]: case for case in document["cases"]}


def without_timings(document: dict[str, Any]) -> dict[str, Any]:
    document = json.loads(json.dumps(document))
    for key in ("start", "end", "duration"):
        document["run"].pop(key)
    for case in document["cases"]:
        case.pop("duration")
    return document


@pytest.fixture
def rich(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("DEMO_SERVICE_API_KEY", SECRET)
    pytester.makeconftest(RICH_CONFTEST)
    pytester.makepyfile(test_mine="def test_mine(): pass")
    return pytester


# -- 1. the three files ----------------------------------------------------------------------------
def test_reports_of_a_run_with_every_outcome(rich: pytest.Pytester) -> None:
    result = rich.runpytest_inprocess(PROVIDER, RICH_CASES, "--toolcall-report=ci-out")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    document, markdown, badge = read_reports(rich.path / "ci-out")

    assert document["schema"] == "pytest-toolcall/report" and document["version"] == 2
    assert document["run"]["providers"] == ["openai"]
    assert document["run"]["selection"]["cases"] == ["wire.*", "history.dedupe"]
    assert document["run"]["versions"]["pytest"] == pytest.__version__
    assert document["gate"] is None
    cases = by_id(document)
    assert "test_mine" not in json.dumps(document)  # only suite items are reported
    wire_ids = {c.id for c in default_registry().select(["wire.*"], "openai")}
    assert set(cases) == wire_ids | {"history.dedupe"}

    # the totals are pytest's own counts of the suite items (test_mine is the one extra pass)
    outcomes = result.parseoutcomes()
    totals = document["totals"]
    assert totals["passed"] + 1 == outcomes["passed"]
    assert (totals["failed"], totals["error"]) == (outcomes["failed"], outcomes["errors"])
    assert (totals["skipped"], totals["xfailed"]) == (outcomes["skipped"], outcomes["xfailed"])
    assert totals["cases"] == len(cases)

    failed = cases["wire.text_and_calls"]
    assert failed["outcome"] == "failed"
    assert failed["clause"] == "response.tool_calls.count"
    assert failed["message"].startswith("[response.tool_calls.count] step 1: the model made 2")
    assert "trace (where" not in failed["message"] and "hint:" not in failed["message"]
    assert failed["hint"] and "parallel calls" in failed["hint"]
    assert failed["subject"] == {"kind": "adapter", "name": "conftest.OneCallAdapter",
                                 "reference": False}
    assert failed["contract"] == "chat" and failed["family"] == "wire"

    gap = cases["wire.parallel_calls"]
    assert (gap["outcome"], gap["known_gap"]) == ("xfailed", "keeps only the first call (issue 12)")
    assert gap["clause"] == "response.tool_calls.count"
    assert document["known_gaps"] == [{"id": "wire.parallel_calls", "provider": "openai",
                                       "outcome": "xfailed",
                                       "reason": "keeps only the first call (issue 12)"}]

    skipped = cases["wire.usage"]
    assert skipped["outcome"] == "skipped" and "does not claim 'usage'" in skipped["message"]

    error = cases["history.dedupe"]
    assert error["outcome"] == "error" and error["clause"] is None
    assert "not a HistoryBuilder" in error["message"] and "Traceback" not in error["message"]
    assert error["subject"]["name"] == "conftest.NotAHistoryBuilder"

    passed = cases["wire.text_only"]
    assert passed["outcome"] == "passed" and passed["message"] is None and passed["hint"] is None

    # the badge: known gaps count as not passing, any failure makes it red
    run = totals["passed"] + totals["failed"] + totals["error"] + totals["xfailed"]
    assert badge == {"schemaVersion": 1, "label": "tool calling",
                     "message": f"{totals['passed']}/{run} passing", "color": "red"}

    # the Markdown: matrix, failures with clause and fix line, known gaps, collapsed skips
    wire_run = totals["passed"] + totals["failed"] + totals["xfailed"]
    # skipped: wire.usage (usage not claimed), wire.zero_args_null (arguments: null) and
    # wire.unknown_finish_reason (DeepSeek's insufficient_system_resource): shapes OpenAI never
    # sends run only for a profile with compatible_with
    for quirk in ("wire.zero_args_null", "wire.unknown_finish_reason"):
        assert cases[quirk]["outcome"] == "skipped"
        assert "compatible_with" in cases[quirk]["message"]
    assert (f"| wire | ❌ {totals['passed']}/{wire_run} · 1 known gap · 3 skipped |"
            in markdown.splitlines())
    assert "| history | ❌ 0/1 |" in markdown.splitlines()
    assert "- ❌ `wire.text_and_calls` (openai): broke clause `response.tool_calls.count`" \
        in markdown
    assert f"  - fix: {failed['hint']}" in markdown
    assert "- ❌ `history.dedupe` (openai): could not run (setup or kit error" in markdown
    assert ("- `wire.parallel_calls` (openai): keeps only the first call (issue 12)"
            in markdown)
    assert markdown.index("### Failures") < markdown.index("### Known gaps") \
        < markdown.index("<details><summary>3 skipped cases</summary>")

    # known gaps are listed in the terminal too, and where the files went
    result.stdout.fnmatch_lines([
        "*pytest-toolcall gate and reports*",
        "known gaps (1, declared; they do not fail the gate):",
        "  wire.parallel_calls [[]openai[]]: keeps only the first call (issue 12)",
        "reports written: *toolcall-report.json, *toolcall-summary.md, *toolcall-badge.json",
    ])


def test_api_keys_never_reach_a_report(rich: pytest.Pytester) -> None:
    result = rich.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.tool_choice_none",
                                      "--toolcall-report=out")
    result.assert_outcomes(failed=1, passed=1)  # test_mine passes
    # the failure pytest prints for a suite item is masked too (issue 18: one redactor for
    # everything the kit writes or prints)
    assert SECRET not in result.stdout.str()
    assert "[redacted $DEMO_SERVICE_API_KEY]" in result.stdout.str()
    for path in (rich.path / "out").iterdir():
        assert SECRET not in path.read_text("utf-8"), path.name
    case = by_id(read_reports(rich.path / "out")[0])["wire.tool_choice_none"]
    assert case["clause"] == "adapter.raised"
    assert "login refused for key [redacted $DEMO_SERVICE_API_KEY]" in case["message"]


# -- 2. xdist: the controller writes, and writes the same document --------------------------------
def test_xdist_report_equals_the_serial_one(rich: pytest.Pytester,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # which process writes the files: a spy around write_reports, loaded in every process. When
    # this test itself runs under xdist its worker's PYTEST_XDIST_WORKER would be inherited by
    # the inner runs and mislabel them; only the inner xdist sets it for its own workers.
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    rich.makeconftest(RICH_CONFTEST + WRITER_SPY)
    args = (PROVIDER, RICH_CASES, "--toolcall-min-pass-rate=0.5", "-p", "no:cacheprovider")
    serial = rich.runpytest_inprocess(*args, "--toolcall-report=serial")
    parallel = rich.runpytest_subprocess("-n", "2", *args, "--toolcall-report=xdist")
    assert serial.ret == parallel.ret == pytest.ExitCode.TESTS_FAILED
    serial_doc, serial_md, serial_badge = read_reports(rich.path / "serial")
    xdist_doc, xdist_md, xdist_badge = read_reports(rich.path / "xdist")
    assert len(xdist_doc["cases"]) == len(serial_doc["cases"]) > 10
    a, b = without_timings(xdist_doc), without_timings(serial_doc)
    differing = [(x.get("id"), x.get("provider"), k, x.get(k), y.get(k))
                 for x, y in zip(a["cases"], b["cases"]) for k in set(x) | set(y)
                 if x.get(k) != y.get(k)]
    assert not differing, f"per-case differences (xdist, serial): {differing[:5]}"
    assert a == b
    assert xdist_md == serial_md and xdist_badge == serial_badge
    # workers wrote nothing: the serial run and the xdist controller are the only writers
    writers = (rich.path / "writers.log").read_text().split()
    assert writers == ["controller:serial", "controller:xdist"]
    parallel.stdout.fnmatch_lines(["pytest-toolcall gate passed: pass rate *"])


# -- 3. the gate ----------------------------------------------------------------------------------
def test_gate_passes_on_the_reference_adapter(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.*",
                                          "--toolcall-min-pass-rate=95%", "--toolcall-report=r")
    n = len(default_registry().select(["wire.*"], "openai"))
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([
        (f"pytest-toolcall gate passed: pass rate 100.0% ({n}/{n} over all families) meets "
        "--toolcall-min-pass-rate=0.95 (95.0%)")])
    document, _, badge = read_reports(pytester.path / "r")
    assert document["gate"]["passed"] is True and document["gate"]["rate"] == 1.0
    assert {c["subject"]["reference"] for c in document["cases"]} == {True}
    assert badge["message"] == f"{n}/{n} passing" and badge["color"] == "brightgreen"


def test_gate_below_the_threshold_names_the_rate_and_the_threshold(rich: pytest.Pytester) -> None:
    result = rich.runpytest_inprocess(PROVIDER, RICH_CASES, "--toolcall-min-pass-rate=0.95",
                                      "--toolcall-report=r")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    gate = read_reports(rich.path / "r")[0]["gate"]
    counted = gate["counted"]
    # the known gap is not counted, the setup error is
    assert counted["judged"] == counted["passing"] + counted["failed"] + counted["error"]
    assert counted["error"] == 1 and gate["passed"] is False
    assert gate["rate"] == pytest.approx(counted["passing"] / counted["judged"], abs=1e-6)
    result.stdout.fnmatch_lines([
        (f"pytest-toolcall gate FAILED: pass rate *% ({counted['passing']}/{counted['judged']} "
        "over all families) is below --toolcall-min-pass-rate=0.95 (95.0%)")])


def test_gate_families_choose_what_counts_but_failures_still_fail(rich: pytest.Pytester) -> None:
    # these stream cases pass (the bug is in parse_response, which streaming does not use); the
    # failing wire case is outside the gate: the gate passes, pytest still fails the run
    streams = "stream.parallel_interleaved,stream.truncated,stream.bytewise"
    result = rich.runpytest_inprocess(PROVIDER, f"--toolcall-cases={streams},wire.text_and_calls",
                                      "--toolcall-min-pass-rate=1",
                                      "--toolcall-gate-families=stream", "--toolcall-report=r")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    document = read_reports(rich.path / "r")[0]
    assert by_id(document)["wire.text_and_calls"]["outcome"] == "failed"
    n = len(default_registry().select(streams.split(","), "openai"))
    assert n == 3
    assert document["gate"]["families"] == ["stream"]
    assert document["gate"]["counted"] == {"passing": n, "hardening": 0, "failed": 0, "error": 0,
                                         "judged": n}
    assert document["gate"]["passed"] is True
    result.stdout.fnmatch_lines([(f"pytest-toolcall gate passed: pass rate 100.0% ({n}/{n} in "
                                 "families stream) meets --toolcall-min-pass-rate=1 (100.0%)")])


def test_a_gate_that_checks_nothing_fails_an_otherwise_green_run(
        pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.text_only",
                                          "--toolcall-min-pass-rate=0.9",
                                          "--toolcall-gate-families=stream,wrie")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        ("pytest-toolcall gate FAILED: --toolcall-gate-families names stream, wrie, but no case "
        "of this run is in those families (families run: wire)*")])


def test_ini_twins_and_a_bad_rate(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntoolcall_report = reports/ci\ntoolcall_min_pass_rate = 90%\n")
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.text_only")
    assert result.ret == pytest.ExitCode.OK
    gate = read_reports(pytester.path / "reports" / "ci")[0]["gate"]
    assert gate["min_pass_rate"] == 0.9 and gate["passed"] is True

    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-min-pass-rate=1.5")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([("*--toolcall-min-pass-rate / toolcall_min_pass_rate: '1.5' is "
                                 "not a pass rate. Give a number from 0 to 1 (0.95) or a "
                                 "percentage (95%).*")])


def test_options_are_in_the_toolcall_group(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess("--help")
    text = result.stdout.str()
    # the CI options have a group of their own (issue 32: the first group holds the three a
    # newcomer needs), after it and before the next group
    group = text.index("pytest-toolcall: reports and the pass-rate gate for CI")
    end = text.index("pytest-toolcall: live runs", group)
    for option in ("--toolcall-report=DIR", "--toolcall-min-pass-rate=RATE",
                   "--toolcall-gate-families=FAMILY[,FAMILY]"):
        assert group < text.index(option) < end
    for ini in ("toolcall_report (string)", "toolcall_min_pass_rate (string)",
                "toolcall_gate_families (string)"):
        assert ini in text


# -- 4. mutmut ------------------------------------------------------------------------------------
def test_no_files_while_mutmut_runs_a_mutant(pytester: pytest.Pytester,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MUTANT_UNDER_TEST", "pytest_toolcall.x__mutmut_1")
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.text_only",
                                          "--toolcall-report=out")
    result.assert_outcomes(passed=1)
    assert not (pytester.path / "out").exists()
    result.stdout.fnmatch_lines(["no report files written: MUTANT_UNDER_TEST is set*"])


def test_collect_only_neither_gates_nor_writes(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess(PROVIDER, "--collect-only", "-q",
                                          "--toolcall-min-pass-rate=1", "--toolcall-report=out")
    assert result.ret == pytest.ExitCode.OK
    assert not (pytester.path / "out").exists()


# -- the logic on plain data ----------------------------------------------------------------------
def phase(when: str, outcome: str, **kw: Any) -> Phase:
    props = {"toolcall_case": "wire.x", "toolcall_family": "wire", "toolcall_provider": "openai",
             "toolcall_contract": "chat", **kw.pop("props", {})}
    return Phase(nodeid="toolcall::wire.x[openai]", when=when, outcome=outcome, properties=props,
                 duration=0.5, **kw)


def test_merge_phases_outcomes() -> None:
    ok = [phase("setup", "passed"), phase("call", "passed"), phase("teardown", "passed")]
    assert report.merge_phases(ok)[0].outcome == "passed"
    assert report.merge_phases(ok)[0].duration == 1.5
    broken_teardown = [*ok[:2], phase("teardown", "failed", text="boom in teardown")]
    record = report.merge_phases(broken_teardown)[0]
    assert (record.outcome, record.message) == ("error", "boom in teardown")
    strict = [ok[0], phase("call", "failed", text="[XPASS(strict)] known gap: one call only")]
    record = report.merge_phases(strict)[0]
    assert (record.outcome, record.known_gap) == ("xpassed", "one call only")
    assert "remove the declaration" in (record.message or "")
    xfail = [ok[0], phase("call", "skipped", wasxfail="known gap: slow",
                          text="[c.d] broke", props={"toolcall_clause": "c.d"})]
    record = report.merge_phases(xfail)[0]
    assert (record.outcome, record.known_gap, record.clause) == ("xfailed", "slow", "c.d")
    assert report.merge_phases([phase("setup", "skipped", text="no streaming")])[0].message \
        == "no streaming"


def test_failure_lines_drop_trace_hint_and_traceback() -> None:
    text = ("[a.b] wrong\n  expected: 1\n  got:      2\n  hint:     fix it\n"
            "  trace (where each tool call went):\n    call_1 ...")
    assert report.failure_lines(text) == "[a.b] wrong\n  expected: 1\n  got:      2"
    assert report.failure_lines("x\nTraceback (most recent call last):\n  File") == "x"
    assert report.failure_lines("\n".join(str(i) for i in range(20))) == "0\n1\n2\n3\n4\n5"


def test_redact_replaces_key_and_token_values_only() -> None:
    env = {"OPENAI_API_KEY": "sk-abcdef123456", "GH_TOKEN": "ghp_zzzzzzzz", "SHORT_KEY": "ab",
           "HOME": "/home/someone-long"}
    text = "key sk-abcdef123456 token ghp_zzzzzzzz ab in /home/someone-long"
    assert report.redact(text, env) == ("key [redacted $OPENAI_API_KEY] token "
                                        "[redacted $GH_TOKEN] ab in /home/someone-long")


def record(outcome: str, family: str = "wire") -> CaseRecord:
    return CaseRecord(id=f"{family}.x", nodeid="n", contract="chat", family=family,
                      provider="openai", outcome=outcome)


def test_gate_rate_ignores_known_gaps_and_skips() -> None:
    records = [record("passed")] * 19 + [record("failed"), record("xfailed"), record("skipped"),
                                         record("failed", "stream")]
    gate = report.evaluate_gate(records, 0.95, ["wire"])
    assert gate.rate == pytest.approx(19 / 20) and gate.passed
    gate = report.evaluate_gate(records, 0.95)
    assert gate.rate == pytest.approx(19 / 21) and not gate.passed
    assert "is below --toolcall-min-pass-rate=0.95 (95.0%)" in gate.line()


@pytest.mark.parametrize(("outcomes", "message", "color"), [
    (["passed"] * 20, "20/20 passing", "brightgreen"),
    (["passed"] * 19 + ["xfailed"], "19/20 passing", "green"),
    (["passed"] * 3 + ["xfailed"], "3/4 passing", "yellow"),
    (["passed"] * 59 + ["failed"], "59/60 passing", "red"),
    (["passed"] * 5 + ["error", "skipped"], "5/6 passing", "red"),
    (["skipped"], "no cases run", "lightgrey"),
])
def test_badge(outcomes: list[str], message: str, color: str) -> None:
    assert report.badge([record(o) for o in outcomes]) == {
        "schemaVersion": 1, "label": "tool calling", "message": message, "color": color}

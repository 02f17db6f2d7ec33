"""Declared risks (issue 28, part 2): a profile declaration that lowers safety is named as such in
the skip reason of every case it turns off, in the terminal summary, the JSON report (and its
schema), the Markdown summary and docs/compat.md; never a silent skip."""

from __future__ import annotations

import json

import pytest

from pytest_toolcall import shims
from pytest_toolcall.cases import default_registry
from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.risks import (
    RISKS,
    declared_risks,
    risk_for_capability,
    risk_named,
    turned_off,
)
from pytest_toolcall.output.report import (
    CaseRecord,
    RunInfo,
    build_document,
    load_schema,
    render_markdown,
)
from pytest_toolcall.reference import provider_profile, reference_profile
from pytest_toolcall.reference.loop import ReferenceToolLoop
from pytest_toolcall.run.runner import CaseSkipped, run_case

#: risk id -> a profile that declares it (and nothing else that is a risk)
DECLARING = {
    "no_tool_timeout": {"tool_timeout": None},
    "no_argument_validation": {"argument_validation": "none"},
    "no_loop_events": {"loop_events": False},
    "events_without_errors": {"event_errors": False},
    "undeclared_arguments_dropped": {"undeclared_arguments": "drop"},
    "unknown_tool_aborts": {"unknown_tool_policy": "abort"},
    "crash_aborts": {"crash_policy": "abort"},
    "permanent_failure_goes_on": {"permanent_failure_stops": False},
    "no_failure_cap": {"max_failure_rounds": None, "iteration_counts": "rounds"},
    "no_streaming": {"streaming": False},
    "no_usage": {"usage": False},
}


def test_every_risk_has_a_declaring_profile_here() -> None:
    assert set(DECLARING) == {risk.id for risk in RISKS}


@pytest.mark.parametrize("risk_id", sorted(DECLARING))
def test_a_profile_that_declares_a_risk_has_exactly_it(risk_id: str) -> None:
    risks = declared_risks(Profile(**DECLARING[risk_id]))
    assert [r.id for r in risks] == [risk_id]
    risk = risk_named(risk_id)
    assert risk.risk and risk.declaration and risk.contracts
    # every risk turns a case off or has one judged by it, and names real cases
    ids = {c.id for c in default_registry()}
    off = turned_off(risk, default_registry())
    assert off or risk.judged, risk_id
    assert set(off) | set(risk.judged) <= ids


def test_the_defaults_and_the_reference_declare_no_risk() -> None:
    assert declared_risks(Profile()) == ()
    for provider in ("openai", "anthropic", "gemini", "ollama"):
        assert declared_risks(reference_profile(provider)) == (), provider
        assert declared_risks(provider_profile(provider)) == (), provider


def test_a_chat_adapter_without_stream_methods_declares_no_streaming() -> None:
    class CompleteOnly:
        def complete(self, request: object) -> object:
            raise NotImplementedError

    assert [r.id for r in declared_risks(Profile(), CompleteOnly(), "chat")] == ["no_streaming"]
    assert declared_risks(Profile(), CompleteOnly(), "loop") == ()  # a chat matter only
    assert declared_risks(Profile(), None, "chat") == ()  # no adapter: nothing to infer


def test_a_failure_cap_of_one_is_no_risk() -> None:
    """loop.failure_rounds_2 is unclaimed by a cap of 1 too; that skip is no declared risk."""
    profile = Profile(max_failure_rounds=1)
    assert not profile.claims("loop.failure_rounds_2")
    assert risk_for_capability(profile, "loop.failure_rounds_2") is None


def test_a_case_skipped_by_a_declared_risk_says_so() -> None:
    case = default_registry()["loop.tool_timeout"]
    profile = Profile(tool_timeout=None)
    with pytest.raises(CaseSkipped) as skipped:
        run_case(case, ReferenceToolLoop.from_profile(profile), profile)
    assert skipped.value.risk == "no_tool_timeout"
    assert "declared risk no_tool_timeout (tool_timeout=None: a tool that hangs" in str(
        skipped.value)
    # negative control: a capability no risk leaves unclaimed skips without naming one
    case = default_registry()["loop.cancelled"]
    with pytest.raises(CaseSkipped) as skipped:
        run_case(case, ReferenceToolLoop.from_profile(Profile()), Profile())
    assert skipped.value.risk is None and "declared risk" not in str(skipped.value)


def _record(case_id: str, outcome: str, risks: list[str], risk: str | None = None,
            message: str | None = None) -> CaseRecord:
    return CaseRecord(id=case_id, nodeid=f"toolcall::{case_id}[openai]", contract="loop",
                      family="loop", provider="openai", outcome=outcome, message=message,
                      subject={"kind": "tool loop", "name": "my.Loop", "reference": False},
                      declared_risks=risks, declared_risk=risk)


def test_the_report_lists_the_declared_risks_with_the_cases_they_turned_off() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    records = [
        _record("loop.tool_timeout", "skipped", ["no_tool_timeout", "unknown_tool_aborts"],
                "no_tool_timeout", "... declared risk no_tool_timeout ..."),
        _record("loop.unknown_tool", "passed", ["no_tool_timeout", "unknown_tool_aborts"]),
        _record("loop.mixed_batch", "passed", ["no_tool_timeout", "unknown_tool_aborts"]),
    ]
    run = RunInfo(providers=["openai"], selection={"cases": [], "keyword": None,
                                                   "markers": None},
                  settings={"transport": "inprocess", "loop_model": "inprocess"},
                  versions={"pytest": "9", "pytest_toolcall": "0", "python": "3"},
                  start="", end="", duration=0.0,
                  suite={"version": "0.4.0", "pinned": False, "preview": False,
                         "strict": False})
    document = json.loads(json.dumps(build_document(run, records, None)))
    jsonschema.validate(document, load_schema(), cls=jsonschema.Draft202012Validator)
    section = {r["id"]: r for r in document["declared_risks"]}
    assert list(section) == ["no_tool_timeout", "unknown_tool_aborts"]
    assert section["no_tool_timeout"]["skipped"] == ["loop.tool_timeout"]
    assert section["no_tool_timeout"]["subjects"] == ["my.Loop"]
    assert section["unknown_tool_aborts"]["judged"] == ["loop.unknown_tool"]
    assert section["unknown_tool_aborts"]["skipped"] == []
    markdown = render_markdown(document)
    assert "### Declared risks (2" in markdown
    assert "`tool_timeout=None` (`my.Loop`): a tool that hangs" in markdown
    assert "  - skipped: `loop.tool_timeout`" in markdown
    # negative control: no risk, no section
    plain = [_record("loop.mixed_batch", "passed", [])]
    document = build_document(run, plain, None)
    assert document["declared_risks"] == []
    assert "Declared risks" not in render_markdown(document)


_CONFTEST = """
import pytest
from pytest_toolcall import Profile

@pytest.fixture
def toolcall_profile():
    return Profile(tool_timeout={timeout})
"""


@pytest.mark.parametrize("timeout", ["None", "0.1"])
def test_the_summary_and_the_reports_show_a_declared_risk(pytester: pytest.Pytester,
                                                          timeout: str) -> None:
    pytester.makeconftest(_CONFTEST.format(timeout=timeout))
    result = pytester.runpytest_inprocess(
        "--toolcall-provider=openai", "--toolcall-cases=loop.tool_timeout,loop.mixed_batch",
        "--toolcall-report=out", "-rs", "-p", "no:randomly")
    document = json.loads((pytester.path / "out" / "toolcall-report.json").read_text("utf-8"))
    out = result.stdout.str()
    if timeout == "0.1":  # negative control: no risk declared, none shown
        result.assert_outcomes(passed=2)
        assert "declared risk" not in out and document["declared_risks"] == []
        return
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines([
        "declared risks (the profile turns these checks off; no verdict covers them):",
        "  tool_timeout=None: a tool that hangs*; 1 case run skipped",
        "SKIPPED*declared risk no_tool_timeout (tool_timeout=None*"], consecutive=False)
    [risk] = document["declared_risks"]
    assert risk["id"] == "no_tool_timeout" and risk["skipped"] == ["loop.tool_timeout"]
    cases = {c["id"]: c for c in document["cases"]}
    assert cases["loop.tool_timeout"]["declared_risk"] == "no_tool_timeout"
    assert cases["loop.mixed_batch"]["declared_risks"] == ["no_tool_timeout"]
    summary = (pytester.path / "out" / "toolcall-summary.md").read_text("utf-8")
    assert "### Declared risks (1" in summary


@pytest.mark.parametrize("name", sorted(shims.LOOPS))
def test_the_shipped_framework_shims_validate_arguments_and_report_events(name: str) -> None:
    """Every framework shim takes the paths users write (issue 28): the framework's own
    argument validation (typed tools) and its events; what is left declared is its policy."""
    profile = shims.loop_profile(name)
    risks = {r.id for r in declared_risks(profile, contract="loop")}
    assert not risks & {"no_argument_validation", "no_loop_events"}, (name, risks)


@pytest.mark.parametrize("risk_id", sorted(DECLARING))
def test_a_risk_with_a_capability_is_exactly_that_capability_unclaimed(risk_id: str) -> None:
    """A risk's own test of the profile and Profile.claims agree: declared, its capability is
    unclaimed; under the defaults it is claimed."""
    risk = risk_named(risk_id)
    if risk.capability is None or risk.capability == "stream":
        return
    assert not Profile(**DECLARING[risk_id]).claims(risk.capability)
    assert Profile().claims(risk.capability)

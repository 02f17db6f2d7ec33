"""The census (issue 29): the data is well formed, every class is covered by cases that exist,
and bad data is refused with a message naming the record and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_toolcall.cases import bugs, census
from pytest_toolcall.core.errors import UsageError


@pytest.fixture(scope="module")
def reports() -> list[census.Report]:
    return census.load()


@pytest.fixture(scope="module")
def case_ids() -> list[str]:
    return [case.id for case in bugs.builtin_cases()]


def test_the_census_holds_at_least_150_reports_in_every_class(reports) -> None:
    assert len(reports) >= 150
    counts = {name: sum(r.klass == name for r in reports) for name in census.CLASSES}
    assert all(counts.values()), f"classes with no report: {counts}"
    assert len({r.library.lower() for r in reports}) >= 50


def test_every_class_names_cases_that_exist_or_says_why_it_cannot(case_ids) -> None:
    for name, klass in census.CLASSES.items():
        assert census.cases_of(klass, case_ids) or klass.untestable, f"{name}: no case"
        for glob in klass.cases:  # a glob that matches no case is a stale claim of coverage
            assert census.cases_of(census.ReportClass("", "", (glob,)), case_ids), (
                f"{name}: {glob!r} matches no built-in case")


def test_a_citation_names_a_report_by_repository_or_owner_and_repository(reports) -> None:
    report = census.Report.model_validate({
        "url": "https://github.com/BerriAI/litellm/issues/5063", "library": "BerriAI/litellm",
        "language": "python", "kind": "gateway", "date": "2024-08-06", "title": "t",
        "class": "stream_assembly", "failure": "f"})
    assert report.cited_by("litellm", 5063) and report.cited_by("berriai/litellm", 5063)
    assert not report.cited_by("litellm", 5064) and not report.cited_by("langchain", 5063)
    assert report.label == "BerriAI/litellm #5063"


@pytest.mark.parametrize(("record", "says"), [
    ({"url": "https://example.com/x"}, "url"),
    ({"class": "vibes"}, "class"),
    ({"date": "last spring"}, "date"),
    ({"surprise": 1}, "surprise"),
])
def test_a_bad_record_is_refused_naming_it_and_the_field(tmp_path: Path, record, says) -> None:
    good = {"url": "https://github.com/o/r/issues/1", "library": "o/r", "language": "python",
            "kind": "app", "date": "2026-01-02", "title": "t", "class": "secrets",
            "failure": "f"}
    path = tmp_path / "census.json"
    path.write_text(json.dumps([good, {**good, "url": "https://github.com/o/r/issues/2",
                                       **record}]), encoding="utf-8")
    with pytest.raises(UsageError, match=rf"report 1 .*{says}"):
        census.load(path)


def test_a_repeated_report_and_a_broken_file_are_refused(tmp_path: Path) -> None:
    good = {"url": "https://github.com/o/r/issues/1", "library": "o/r", "language": "python",
            "kind": "app", "date": "", "title": "t", "class": "secrets", "failure": "f"}
    path = tmp_path / "census.json"
    path.write_text(json.dumps([good, good]), encoding="utf-8")
    with pytest.raises(UsageError, match="report 1 repeats report 0"):
        census.load(path)
    path.write_text("[{", encoding="utf-8")
    with pytest.raises(UsageError, match="not valid JSON"):
        census.load(path)
    with pytest.raises(UsageError, match="no census file"):
        census.load(tmp_path / "absent.json")


def test_a_class_without_cases_shows_as_a_gap() -> None:
    fake = census.Report.model_validate({
        "url": "https://github.com/o/r/issues/9", "library": "o/r", "language": "python",
        "kind": "app", "date": "", "title": "t", "class": "secrets", "failure": "leaked"})
    lines = census.render_section([fake], case_ids=[], controls=[])
    secrets = next(line for line in lines if line.startswith("| Secrets"))
    assert secrets.endswith("| **gap** |") and "| 1 | 0 | 0 |" in secrets

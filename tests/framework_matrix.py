"""What the tests of real agent frameworks' loops share: one loop case run the way a user's CI
runs it (the framework's own client on the fake provider), and the verdict judged against the
framework's pins: skipped by its declared policy, failing with the pinned clause (a real defect
of the framework), or passing."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.run.runner import CaseSkipped, run_case


def outcome(case: Any, loop: Any, profile: Any) -> Any:
    """The case's recordings, or the CaseSkipped / ConformanceFailure it ended with."""
    try:
        return run_case(case, loop, profile, loop_model="fake")
    except (CaseSkipped, ConformanceFailure) as ended:
        return ended


def judge(case_id: str, run: Any, skips: Mapping[str, Any], gaps: Mapping[str, Any]) -> None:
    """``run`` is what the pins say: a skip, a pinned gap (``(clause, why)``, or ``why`` alone:
    any clause), or a pass."""
    if case_id in skips:
        assert isinstance(run, CaseSkipped), f"{case_id} ran: {run!r}"
    elif case_id in gaps:
        assert isinstance(run, ConformanceFailure), f"{case_id} now passes: unpin it"
        pinned = gaps[case_id]
        if isinstance(pinned, tuple):
            assert run.clause == pinned[0], run.render()
    else:
        assert not isinstance(run, BaseException), (
            run.render() if isinstance(run, ConformanceFailure) else run)


def record_outcomes(monkeypatch: Any) -> dict[str, tuple[Any, Any, Any]]:
    """Case id -> (outcome as :func:`outcome` has it, the loop, the profile) of each case the
    plugin runs while patched: an in-process pytester run of the suite keeps this process's
    plugin modules, so the run of docs/frameworks.md's fixture gives each case's own verdict too,
    read by the framework's pins without running the same cross product a second time."""
    from pytest_toolcall.plugins import suite

    seen: dict[str, tuple[Any, Any, Any]] = {}
    real = suite.run_case

    def recorded(case: Any, subject: Any, profile: Any, **kwargs: Any) -> Any:
        assert case.id not in seen, f"{case.id} ran twice"
        try:
            runs = real(case, subject, profile, **kwargs)
        except (CaseSkipped, ConformanceFailure) as ended:
            seen[case.id] = (ended, subject, profile)
            raise
        seen[case.id] = (runs, subject, profile)
        return runs

    monkeypatch.setattr(suite, "run_case", recorded)
    return seen


FRAMEWORKS_MD = Path(__file__).parent.parent / "docs" / "frameworks.md"
#: the case deadline ending a hang the frameworks.md run declares a known gap (below)
HANG = 0.5

#: appended to each frameworks.md conftest (whose toolcall_profile is renamed
#: _docs_toolcall_profile, nothing else changed): a framework whose declared known gaps name
#: loop.model_timeout hangs there until the case deadline, the 10 s default (LangChain and
#: LangGraph: 20 s per run, asleep); HANG ends the same hang with the same verdict
#: (loop.timeout), and smolagents' pinned rate-limit sleeps of 120 s and more with the same
#: clauses. Every other case runs under the doc's profile untouched
_SHORT_HANG = f"""

@pytest.fixture(name="toolcall_profile")
def _short_hang(_docs_toolcall_profile, request):
    profile = _docs_toolcall_profile
    if (request.node.name.startswith(("loop.model_timeout[", "loop.rate_limit_retries_bounded[",
                                      "loop.retry_after_capped["))
            and request.node.name.partition("[")[0] in profile.known_gaps):
        return profile.model_copy(update={{"timeout": {HANG}}})
    return profile
"""


def run_frameworks_md(pytester: Any, monkeypatch: Any, section: str,
                      cases: int) -> dict[str, tuple[Any, Any, Any]]:
    """The one fixture docs/frameworks.md tells a user to write for ``section`` runs every
    loop case (``cases`` of them) with no failure but the known gaps it lists (none counted as
    passes); returns each case's recorded outcome, loop and profile (:func:`record_outcomes`)."""
    text = FRAMEWORKS_MD.read_text(encoding="utf-8")
    body = re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", text,
                     re.MULTILINE | re.DOTALL)
    assert body, section
    blocks = re.findall(r"^```python\n(# conftest.py\n.*?)^```", body.group(1),
                        re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1, f"frameworks.md '{section}': expected one conftest block"
    assert blocks[0].count("\ndef toolcall_profile(") == 1, section
    pytester.makeconftest(blocks[0].replace("\ndef toolcall_profile(",
                                            "\ndef _docs_toolcall_profile(") + _SHORT_HANG)
    seen = record_outcomes(monkeypatch)
    result = pytester.runpytest("--toolcall-provider=openai", "--toolcall-cases=loop.*",
                                "--toolcall-loop-model=fake", "-p", "no:cacheprovider",
                                "-p", "no:randomly")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= cases // 2, result.stdout.str()
    assert "failed" not in outcomes and "errors" not in outcomes and "error" not in outcomes, \
        result.stdout.str()
    return seen


def judge_all(outcomes: Mapping[str, Any], case_ids: Any, skips: Mapping[str, Any],
              gaps: Mapping[str, Any]) -> None:
    """:func:`judge` on every case of ``case_ids``, each recorded once
    (:func:`record_outcomes`); every mismatch named."""
    assert sorted(outcomes) == sorted(case_ids), sorted(set(case_ids) ^ set(outcomes))
    wrong = []
    for case_id in sorted(case_ids):
        try:
            judge(case_id, outcomes[case_id][0], skips, gaps)
        except AssertionError as mismatch:
            wrong.append(f"{case_id}: {mismatch}")
    assert not wrong, "\n".join(wrong)

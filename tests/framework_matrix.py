"""What the tests of real agent frameworks' loops share: one loop case run the way a user's CI
runs it (the framework's own client on the fake provider), and the verdict judged against the
framework's pins: skipped by its declared policy, failing with the pinned clause (a real defect
of the framework), or passing."""

from __future__ import annotations

from collections.abc import Mapping
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

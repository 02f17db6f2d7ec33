"""Real agent frameworks' own loops under the loop cases, each with the profile of its documented
policy (issue 15, item 5). A case a framework fails under its honest profile is a known gap of
the framework, pinned here with its reason; every other case passes or skips by capability.

Runs when the framework is installed (the ``dev`` extra); skips, naming it, otherwise.
"""

from __future__ import annotations

from typing import Any

import pytest

import pytest_toolcall.conformance.loop as loop_cases
from pytest_toolcall.errors import ConformanceFailure
from pytest_toolcall.runner import CaseSkipped, run_case

LOOP = {case.id: case for case in loop_cases.CASES}

#: case id -> why pydantic-ai's own loop fails it under its honest profile (none today: every
#: policy it differs on is declared; the cases it cannot take skip by capability)
PYDANTIC_AI_GAPS: dict[str, str] = {}
#: the cases pydantic-ai's declared policy makes inapplicable
PYDANTIC_AI_SKIPS = {
    "loop.failure_rounds_reset": "no failure-round cap (a per-tool retry budget instead)",
    "loop.failure_rounds_not_iterations": "no failure-round cap; request_limit counts requests",
    "loop.permanent_failure": "a tool cannot fail permanently: ModelRetry, or an exception "
                              "that ends the run",
    "loop.missing_required_argument": "Tool.from_schema skips schema validation",
    "loop.argument_types": "Tool.from_schema skips schema validation",
    "loop.events": "no client events in the shim",
}


@pytest.mark.parametrize("case_id", sorted(LOOP))
def test_pydantic_ai_agent_under_its_own_policy(case_id: str) -> None:
    pytest.importorskip("pydantic_ai", reason="needs pydantic-ai-slim[openai] (dev extra)")
    from framework_loops import PYDANTIC_AI_PROFILE, PydanticAILoop

    profile = PYDANTIC_AI_PROFILE
    if case_id == "loop.tool_timeout":  # the hung tool waits out the timeout: keep it short
        profile = profile.model_copy(update={"tool_timeout": 0.1})
    run = _run(LOOP[case_id], PydanticAILoop(profile), profile)
    if case_id in PYDANTIC_AI_SKIPS:
        assert isinstance(run, CaseSkipped), f"{case_id} ran: {run!r}"
    elif case_id in PYDANTIC_AI_GAPS:
        assert isinstance(run, ConformanceFailure), f"{case_id} now passes: unpin it"
    else:
        assert not isinstance(run, BaseException), (
            run.render() if isinstance(run, ConformanceFailure) else run)


def test_pydantic_ai_fails_the_default_policy_where_it_differs() -> None:
    """Without its profile, the kit would blame pydantic-ai for its documented policy: the
    reason the profile fields exist (issue 15)."""
    pytest.importorskip("pydantic_ai", reason="needs pydantic-ai-slim[openai] (dev extra)")
    from framework_loops import PYDANTIC_AI_PROFILE, PydanticAILoop

    from pytest_toolcall import Profile

    default = Profile(sync=False, loop_events=False, permanent_failure_stops=False,
                      argument_validation="none")
    run = _run(LOOP["loop.model_error"], PydanticAILoop(PYDANTIC_AI_PROFILE), default)
    assert isinstance(run, ConformanceFailure) and run.clause == "loop.model_calls"


def _run(case: Any, loop: Any, profile: Any) -> Any:
    try:
        return run_case(case, loop, profile, loop_model="fake")
    except (CaseSkipped, ConformanceFailure) as outcome:
        return outcome

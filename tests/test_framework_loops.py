"""Real agent frameworks' own loops under the loop cases, each with the profile of its documented
policy (issue 15, item 5). A case a framework fails under its honest profile is a known gap of
the framework, pinned here with its reason; every other case passes or skips by capability.

Runs when the framework is installed (the ``dev`` extra); skips, naming it, otherwise.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import pytest_toolcall.conformance.loop as loop_cases
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.core.errors import UsageError
from pytest_toolcall.run.runner import run_case
from pytest_toolcall.shims._pydantic_ai_agent import PROFILE as PYDANTIC_AI_PROFILE
from pytest_toolcall.shims._pydantic_ai_agent import PydanticAIAgentLoop
from tests.framework_matrix import FRAMEWORKS_MD, judge_all, outcome, run_frameworks_md
from tests.kit_imports import libraries_fixture

LOOP = {case.id: case for case in loop_cases.CASES}

#: the SDKs' backoff between their own retries is sleep no check reads (tests/conftest.py); the
#: frameworks.md runs are in-process pytester runs, which keep the patched module
pytestmark = pytest.mark.usefixtures("_libraries_imported", "short_client_backoff")

#: the SDKs short_client_backoff patches, and what pydantic-ai's Agent loop imports when it
#: builds and runs (pytest_toolcall/shims/_pydantic_ai_agent.py), once for the module, before
#: pytester's snapshot (tests/kit_imports.py)
_libraries_imported = libraries_fixture(
    "openai._base_client", "anthropic._base_client", "pydantic_ai", "pydantic_ai.exceptions",
    "pydantic_ai.messages", "pydantic_ai.models.openai", "pydantic_ai.providers.openai",
    "pydantic_ai.usage", "genai_prices.decompose", "genai_prices.validation",
    "openai.resources.chat.chat", "openai.resources.chat.completions.messages",
    "openai.lib.streaming.chat")

#: case id -> why pydantic-ai's own loop fails it under its honest profile: none since
#: 2026-11-28 (loop.model_timeout passes; loop.sanitised_failures too, since loop.events takes
#: the run's 'error' event for a crash that ends the run under crash_policy='abort')
PYDANTIC_AI_GAPS: dict[str, str] = {}
#: the cases pydantic-ai's declared policy makes inapplicable
PYDANTIC_AI_SKIPS = {
    "loop.failure_rounds_reset": "no failure-round cap (a per-tool retry budget instead)",
    "loop.failure_rounds_not_iterations": "no failure-round cap; request_limit counts requests",
    "loop.permanent_failure": "a tool cannot fail permanently: ModelRetry, or an exception "
                              "that ends the run",
    "loop.cancelled": "no cancel hook in the shim (cancellation=False)",
    "loop.cancelled_tools_stopped": "no cancel hook in the shim (cancellation=False)",
    "loop.model_deadline": "the loop's own model-call deadline is not mapped (model_timeout="
                           "None): ModelSettings.timeout goes to the client (loop.model_timeout)",
    "loop.handed_off": "no handoff tools in the shim (handoff_tools=())",
}


def test_pydantic_ai_agent_under_its_own_policy(pytester: pytest.Pytester,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/frameworks.md's fixture for pydantic-ai, run as a user's suite (no failure:
    tests/framework_matrix.py run_frameworks_md), is the Agent under its shipped profile: each
    case's verdict in that run is the one the pins say (skipped, the pinned gap, or passed).
    One run for both: the same cases with the same profile ran twice before. loop.tool_timeout
    and the cases of another dialect run here as before (the hung tool waits out 0.1 s)."""
    pytest.importorskip("pydantic_ai", reason="needs pydantic-ai-slim[openai] (dev extra)")
    seen = run_frameworks_md(pytester, monkeypatch, "pydantic-ai `Agent`", len(LOOP))
    for case_id, (_outcome, loop, profile) in seen.items():
        assert type(loop) is PydanticAIAgentLoop and loop.profile == profile, case_id
        assert profile == PYDANTIC_AI_PROFILE, case_id
    short = PYDANTIC_AI_PROFILE.model_copy(update={"tool_timeout": 0.1})
    seen["loop.tool_timeout"] = (
        _run(LOOP["loop.tool_timeout"], PydanticAIAgentLoop(profile=short), short), None, short)
    for case_id in set(LOOP) - set(seen):
        assert "openai" not in LOOP[case_id].dialects, case_id
        seen[case_id] = (_run(LOOP[case_id], PydanticAIAgentLoop(profile=PYDANTIC_AI_PROFILE),
                              PYDANTIC_AI_PROFILE), None, PYDANTIC_AI_PROFILE)
    judge_all(seen, LOOP, PYDANTIC_AI_SKIPS, PYDANTIC_AI_GAPS)


def test_pydantic_ai_fails_the_default_policy_where_it_differs() -> None:
    """Without its profile, the kit would blame pydantic-ai for its documented policy: the
    reason the profile fields exist (issue 15)."""
    pytest.importorskip("pydantic_ai", reason="needs pydantic-ai-slim[openai] (dev extra)")
    from pytest_toolcall import Profile

    default = Profile(sync=False, loop_events=False, permanent_failure_stops=False,
                      argument_validation="none")
    run = _run(LOOP["loop.model_error"], PydanticAIAgentLoop(), default)
    assert isinstance(run, ConformanceFailure) and run.clause == "loop.model_calls"


def test_pydantic_ai_agent_without_the_fake_endpoint_is_a_usage_error() -> None:
    """In-process, the loop has no endpoint for pydantic-ai's own client: the kit could not
    run the case, which is not a verdict (loop.raised) on pydantic-ai."""
    pytest.importorskip("pydantic_ai", reason="needs pydantic-ai-slim[openai] (dev extra)")
    with pytest.raises(UsageError, match="--toolcall-loop-model=fake"):
        run_case(LOOP["loop.mixed_batch"], PydanticAIAgentLoop(), PYDANTIC_AI_PROFILE,
                 loop_model="inprocess")


def test_pydantic_ai_agent_model_factories_are_checked() -> None:
    pytest.importorskip("pydantic_ai", reason="needs pydantic-ai-slim[openai] (dev extra)")
    with pytest.raises(UsageError, match="must be a callable taking the kit's endpoint"):
        PydanticAIAgentLoop(model="gpt-4o-mini")  # type: ignore[arg-type]
    run = PydanticAIAgentLoop(model=lambda ep: ep.async_client)
    with pytest.raises(UsageError, match="expected a pydantic_ai.models.Model"):
        run_case(LOOP["loop.mixed_batch"], run, PYDANTIC_AI_PROFILE, loop_model="fake")


_run = outcome  # the case run as a user's CI runs it (tests/framework_matrix.py)


#: frameworks.md section -> the test that runs its conftest as a user's suite
#: (tests/framework_matrix.py run_frameworks_md) and judges each case's verdict in that run
#: against the framework's pins: that run is the framework's own-policy run too, one cross
#: product instead of two
FRAMEWORK_SECTIONS = {"pydantic-ai `Agent`": "tests/test_framework_loops.py",
                      "openai-agents `Runner`": "tests/test_loop_shim_openai_agents.py",
                      "LangChain `create_agent`": "tests/test_loop_shim_langgraph.py",
                      "LangGraph `create_react_agent`": "tests/test_loop_shim_langgraph.py",
                      "smolagents `ToolCallingAgent`": "tests/test_loop_shim_smolagents.py"}


def test_every_frameworks_md_section_is_run() -> None:
    text = FRAMEWORKS_MD.read_text(encoding="utf-8")
    assert re.findall(r"^## (.+)$", text, re.MULTILINE) == list(FRAMEWORK_SECTIONS)
    for section, path in FRAMEWORK_SECTIONS.items():
        test = (Path(__file__).parent.parent / path).read_text(encoding="utf-8")
        assert f'"{section}"' in test and "run_frameworks_md(" in test, (section, path)

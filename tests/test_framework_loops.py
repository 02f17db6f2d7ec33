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
from tests.framework_matrix import judge, outcome

LOOP = {case.id: case for case in loop_cases.CASES}

#: the SDKs' backoff between their own retries is sleep no check reads (tests/conftest.py); the
#: frameworks.md runs are in-process pytester runs, which keep the patched module
pytestmark = pytest.mark.usefixtures("short_client_backoff")

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


@pytest.mark.parametrize("case_id", sorted(LOOP))
def test_pydantic_ai_agent_under_its_own_policy(case_id: str) -> None:
    pytest.importorskip("pydantic_ai", reason="needs pydantic-ai-slim[openai] (dev extra)")
    profile = PYDANTIC_AI_PROFILE
    if case_id == "loop.tool_timeout":  # the hung tool waits out the timeout: keep it short
        profile = profile.model_copy(update={"tool_timeout": 0.1})
    judge(case_id, _run(LOOP[case_id], PydanticAIAgentLoop(profile=profile), profile),
          PYDANTIC_AI_SKIPS, PYDANTIC_AI_GAPS)


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


FRAMEWORKS_MD = Path(__file__).parent.parent / "docs" / "frameworks.md"
#: frameworks.md section -> the module its conftest needs
FRAMEWORK_SECTIONS = {"pydantic-ai `Agent`": "pydantic_ai", "openai-agents `Runner`": "agents",
                      "LangChain `create_agent`": "langchain.agents",
                      "LangGraph `create_react_agent`": "langgraph.prebuilt",
                      "smolagents `ToolCallingAgent`": "smolagents"}


def test_every_frameworks_md_section_is_run() -> None:
    text = FRAMEWORKS_MD.read_text(encoding="utf-8")
    assert re.findall(r"^## (.+)$", text, re.M) == list(FRAMEWORK_SECTIONS)


#: appended to each frameworks.md conftest (whose toolcall_profile is renamed
#: _docs_toolcall_profile, nothing else changed): a framework whose declared known gaps name
#: loop.model_timeout hangs there until the case deadline, the 10 s default (LangChain and
#: LangGraph: 20 of this test's 55 s, asleep); 0.5 s ends the same hang with the same verdict, as
#: in tests/test_loop_shim_langgraph.py (and smolagents' rate-limit sleeps, pinned on the two
#: rate-limit cases). Every other case runs under the doc's profile untouched
_SHORT_HANG = """

@pytest.fixture(name="toolcall_profile")
def _short_hang(_docs_toolcall_profile, request):
    profile = _docs_toolcall_profile
    if (request.node.name.startswith(("loop.model_timeout[", "loop.rate_limit_retries_bounded[",
                                      "loop.retry_after_capped["))
            and request.node.name.partition("[")[0] in profile.known_gaps):
        return profile.model_copy(update={"timeout": 0.5})
    return profile
"""


@pytest.mark.parametrize("section", list(FRAMEWORK_SECTIONS))
def test_frameworks_md_fixtures_run_the_loop_family(pytester: pytest.Pytester,
                                                   section: str) -> None:
    """The one fixture docs/frameworks.md tells a user to write runs every loop case with no
    failure but the known gaps it lists (none counted as passes)."""
    pytest.importorskip(FRAMEWORK_SECTIONS[section], reason="needs the framework (dev extra)")
    text = FRAMEWORKS_MD.read_text(encoding="utf-8")
    body = re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert body, section
    blocks = re.findall(r"^```python\n(# conftest.py\n.*?)^```", body.group(1), re.M | re.S)
    assert len(blocks) == 1, f"frameworks.md '{section}': expected one conftest block"
    assert blocks[0].count("\ndef toolcall_profile(") == 1, section
    pytester.makeconftest(blocks[0].replace("\ndef toolcall_profile(",
                                            "\ndef _docs_toolcall_profile(") + _SHORT_HANG)
    result = pytester.runpytest("--toolcall-provider=openai", "--toolcall-cases=loop.*",
                                "--toolcall-loop-model=fake", "-p", "no:cacheprovider",
                                "-p", "no:randomly")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= len(LOOP) // 2, result.stdout.str()
    assert "failed" not in outcomes and "errors" not in outcomes and "error" not in outcomes, \
        result.stdout.str()

"""The OpenAI Agents SDK's own ``Runner`` loop under the loop cases, with the profile of its
documented policy (issue 15). A case it fails under its honest profile is pinned here with its
reason and the clause it fails on; every other case passes or skips by capability.

Runs when openai-agents is installed; skips, naming it, otherwise.
"""

from __future__ import annotations

from typing import Any

import pytest

import pytest_toolcall.conformance.loop as loop_cases
from pytest_toolcall.core.errors import ConformanceFailure, UsageError
from pytest_toolcall.run.runner import run_case
from pytest_toolcall.shims._openai_agents import PROFILE, OpenAIAgentsLoop
from tests.framework_matrix import judge_all, outcome, run_frameworks_md
from tests.kit_imports import libraries_fixture

NEEDS = "needs openai-agents (the `agents` package)"
LOOP = {case.id: case for case in loop_cases.CASES}
#: the openai SDK's backoff between its own retries is sleep no check reads (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("_libraries_imported", "short_client_backoff")

#: the SDKs short_client_backoff patches, and what openai-agents' Runner imports when the shim
#: builds and runs it (pytest_toolcall/shims/_openai_agents.py), once for the module, before
#: pytester's snapshot (tests/kit_imports.py)
_libraries_imported = libraries_fixture(
    "openai._base_client", "anthropic._base_client", "agents", "agents.tool_context", "httpcore2",
    "openai.resources.chat.chat", "openai.resources.chat.completions.messages",
    "openai.lib.streaming.chat")

#: case id -> (clause, why openai-agents 0.24.0 fails it under its honest profile)
OPENAI_AGENTS_GAPS: dict[str, tuple[str, str]] = {
    "loop.truncated_answer": (
        "loop.stop_reason",
        "framework gap: OpenAIChatCompletionsModel drops finish_reason='length' for an answer "
        "with text (ModelResponse has no finish_reason; the output message is always "
        "status 'completed'), so a cut answer is a normal final_output "
        "(https://github.com/openai/openai-agents-python/issues/1406)"),
    # since the shim streams and types its tools (issue 28)
}
#: the cases openai-agents' declared policy makes inapplicable -> the capability they need
OPENAI_AGENTS_SKIPS = {
    "loop.failure_rounds_reset": "loop.failure_rounds_2",  # no failure-round cap
    "loop.failure_rounds_not_iterations": "loop.failure_rounds_2",  # max_turns counts calls
    "loop.permanent_failure": "loop.permanent_stop",  # a tool error is just output
    # RunResultStreaming.cancel() exists; the shim does not wire LoopRequest.cancel to it
    "loop.cancelled": "loop.cancellation",
    "loop.cancelled_tools_stopped": "loop.cancellation",
    # no deadline of the Runner's own on a model call: the openai client's read timeout
    "loop.model_deadline": "loop.model_deadline",
    # the shim's agent has no handoffs (transfer_to_<agent> tools)
    "loop.handed_off": "loop.handoff",
}


_run = outcome  # the case run as a user's CI runs it (tests/framework_matrix.py)


def test_openai_agents_runner_under_its_own_policy(pytester: pytest.Pytester,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/frameworks.md's fixture for openai-agents, run as a user's suite (no failure but
    the known gaps it lists: tests/framework_matrix.py run_frameworks_md), is the Runner under
    its shipped profile: each case's verdict in that run is the one the pins say (skipped for
    the pinned capability, the pinned clause, or passed). One run for both: the same cases with
    the same profile ran twice before. loop.tool_timeout and the cases of another dialect run
    here as before (the hung tool waits out a 0.1 s timeout)."""
    pytest.importorskip("agents", reason=NEEDS)
    seen = run_frameworks_md(pytester, monkeypatch, "openai-agents `Runner`", len(LOOP))
    for case_id, (_outcome, loop, profile) in seen.items():
        assert type(loop) is OpenAIAgentsLoop and loop.profile == profile, case_id
        assert profile.model_copy(update={"known_gaps": {}}) == PROFILE, case_id
        assert set(profile.known_gaps) == set(OPENAI_AGENTS_GAPS), case_id
    short = PROFILE.model_copy(update={"tool_timeout": 0.1})
    seen["loop.tool_timeout"] = (
        _run(LOOP["loop.tool_timeout"], OpenAIAgentsLoop(profile=short), short), None, short)
    for case_id in set(LOOP) - set(seen):
        assert "openai" not in LOOP[case_id].dialects, case_id
        seen[case_id] = (_run(LOOP[case_id], OpenAIAgentsLoop(profile=PROFILE), PROFILE), None,
                         PROFILE)
    judge_all(seen, LOOP, OPENAI_AGENTS_SKIPS, OPENAI_AGENTS_GAPS)
    for case_id, capability in OPENAI_AGENTS_SKIPS.items():
        assert repr(capability) in str(seen[case_id][0]), str(seen[case_id][0])


def test_the_pins_and_skips_name_real_cases() -> None:
    assert set(OPENAI_AGENTS_GAPS) <= set(LOOP) and set(OPENAI_AGENTS_SKIPS) <= set(LOOP)
    assert not set(OPENAI_AGENTS_GAPS) & set(OPENAI_AGENTS_SKIPS)
    assert all(reason for _, reason in OPENAI_AGENTS_GAPS.values())


def test_openai_agents_fails_the_default_policy_where_it_differs() -> None:
    """Without its profile, the kit would blame openai-agents for its documented policy: the
    openai client's own two retries of a 500 (model_retries) read as a retry storm."""
    pytest.importorskip("agents", reason=NEEDS)
    from pytest_toolcall import Profile

    default = Profile(sync=False, loop_events=False, permanent_failure_stops=False,
                      argument_validation="none")
    run = _run(LOOP["loop.model_error"], OpenAIAgentsLoop(), default)
    assert isinstance(run, ConformanceFailure) and run.clause == "loop.model_calls", run
    # and the default iteration policy (successful rounds, 5) is not max_turns (model calls)
    run = _run(LOOP["loop.iteration_cap"], OpenAIAgentsLoop(), default)
    assert isinstance(run, ConformanceFailure) and run.clause in (
        "loop.stop_reason", "loop.model_calls"), run


def test_the_profile_configures_the_run() -> None:
    """max_iterations is max_turns, crash_policy decides what a crash does: the shim and the
    profile state the same policy, so a copied profile still passes."""
    pytest.importorskip("agents", reason=NEEDS)
    for update, case_id in (({"max_iterations": 2}, "loop.iteration_cap"),
                            ({"max_iterations": 3}, "loop.all_failure_rounds"),
                            ({"crash_policy": "abort"}, "loop.sanitised_failures")):
        profile = PROFILE.model_copy(update=update)
        run = _run(LOOP[case_id], OpenAIAgentsLoop(profile=profile), profile)
        assert not isinstance(run, BaseException), (
            f"{update}: " + (run.render() if isinstance(run, ConformanceFailure) else str(run)))


def test_a_false_claim_fails() -> None:
    """Negative check: a profile that claims what openai-agents does not do is caught. Its
    stream items carry no failure flag (a failed call's output is a tool_output item like any
    other), and it runs one of two calls sharing an id (it coalesces them, it does not refuse
    them)."""
    pytest.importorskip("agents", reason=NEEDS)
    claims = PROFILE.model_copy(update={"event_errors": True})
    run = _run(LOOP["loop.events"], OpenAIAgentsLoop(profile=claims), claims)
    assert isinstance(run, ConformanceFailure) and run.clause == "loop.events", run
    refuses = PROFILE.model_copy(update={"duplicate_call_ids": "refuse"})
    run = _run(LOOP["loop.duplicate_call_id"], OpenAIAgentsLoop(profile=refuses), refuses)
    assert isinstance(run, ConformanceFailure) and run.clause == "loop.executed_once", run


def test_openai_agents_without_the_fake_endpoint_is_a_usage_error() -> None:
    """In-process, the loop has no endpoint for the SDK's own client: the kit could not run the
    case, which is not a verdict (loop.raised) on openai-agents."""
    pytest.importorskip("agents", reason=NEEDS)
    with pytest.raises(UsageError, match="--toolcall-loop-model=fake"):
        run_case(LOOP["loop.mixed_batch"], OpenAIAgentsLoop(), PROFILE, loop_model="inprocess")


def test_openai_agents_model_factories_are_checked() -> None:
    pytest.importorskip("agents", reason=NEEDS)
    with pytest.raises(UsageError, match="must be a callable taking the kit's endpoint"):
        OpenAIAgentsLoop(model="gpt-4o-mini")  # type: ignore[arg-type]
    bad = OpenAIAgentsLoop(model=lambda ep: ep.async_client)
    with pytest.raises(UsageError, match="expected an agents.Model"):
        run_case(LOOP["loop.mixed_batch"], bad, PROFILE, loop_model="fake")


def test_a_model_factory_is_used() -> None:
    pytest.importorskip("agents", reason=NEEDS)
    import openai
    from agents import OpenAIChatCompletionsModel

    built = []

    def factory(ep: Any) -> Any:
        built.append(ep)
        return OpenAIChatCompletionsModel("gpt-4.1-mini", openai_client=openai.AsyncOpenAI(
            base_url=ep.base_url, api_key=ep.api_key, http_client=ep.async_client))

    run = _run(LOOP["loop.mixed_batch"], OpenAIAgentsLoop(model=factory), PROFILE)
    assert not isinstance(run, BaseException), run
    assert built

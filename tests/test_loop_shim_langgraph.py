"""LangChain's ``create_agent`` and LangGraph's ``create_react_agent`` own loops under the loop
cases, each with the profile of its documented policy (issue 15; shims in
``pytest_toolcall/shims/_langgraph.py``, where every profile field is sourced). A case a
framework fails under its honest profile is a known gap of the framework, pinned here with its
reason and clause; every other case passes or skips by capability.

Runs when the frameworks are installed (the ``dev`` extra); skips, naming them, otherwise.
"""

from __future__ import annotations

from typing import Any

import pytest

import pytest_toolcall.conformance.loop as loop_cases
from pytest_toolcall import Profile
from pytest_toolcall.core.errors import ConformanceFailure, UsageError
from pytest_toolcall.run.runner import run_case
from tests.framework_matrix import HANG, judge_all, outcome, run_frameworks_md

LOOP = {case.id: case for case in loop_cases.CASES}

#: both frameworks need these (langchain-openai: the shims' default chat model)
NEEDS = ("langgraph", "langchain", "langchain_openai")

#: the frameworks' own step limits (recursion_limit 9_999 and 10_007) let a run whose tools keep
#: failing make some 5000 model calls; the cases run under the same policy with a cap a
#: production agent would set (recursion_limit 9), as frameworks.md's conftest does
CAP = 4

#: the SDK's backoff between its own retries is sleep no check reads (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("short_client_backoff", "_frameworks_imported")

#: what the shims import when they build and run an agent (pytest_toolcall/shims/_langgraph.py;
#: ChatOpenAI's client loads its chat resource and stream helpers on first use)
BUILT_WITH = ("langchain.agents", "langchain.tools", "langchain_core.language_models",
              "langchain_core.messages", "langchain_core.tools", "langgraph.errors",
              "langgraph.prebuilt", "langchain_openai", "openai.resources.chat",
              "openai.lib.streaming.chat", "pytest_toolcall.shims._langgraph",
              "pytest_toolcall.reference")


@pytest.fixture(scope="module")
def _frameworks_imported() -> None:
    """The frameworks imported once for the module, before any test's pytester takes its
    snapshot of sys.modules: imported after it, they were dropped at each pytester test's end
    and imported again by the next test (3 to 10 s of its setup under load, 2026-11-28), and
    the dropped copies stayed in memory, slowing every later garbage collection. Where they
    are not installed, the tests skip in :func:`_loops` as before."""
    import importlib

    for name in BUILT_WITH:
        try:
            importlib.import_module(name)
        except ImportError:
            return

#: case id -> (clause, why the framework fails it under its honest profile); both frameworks
#: share ToolNode, the Send-per-call routing and ChatOpenAI, and fail the same cases
GAPS: dict[str, tuple[str, str]] = {
    "loop.malformed_arguments": (
        "loop.tool_not_run",
        "streamed (as the agent runs under stream_mode='messages'), a call whose arguments were "
        "cut ('{\"city\": \"Par') is parsed by AIMessageChunk.init_tool_calls with "
        "parse_partial_json, on the last chunk too (langchain_core/messages/ai.py, "
        "langchain-core 1.8.3), into a valid-looking call {'city': 'Par'}: the tool runs with "
        "the truncated argument and the model is never told (framework defect: "
        "https://github.com/langchain-ai/langchain/issues/39275, its fix "
        "https://github.com/langchain-ai/langchain/pull/39276 closed unmerged; not streamed, "
        "the call lands in invalid_tool_calls, which the router ignores: "
        "https://github.com/langchain-ai/langchain/issues/33504)"),
    "loop.duplicate_call_id": (
        "loop.executed_once",
        "two calls of one answer sharing an id are both sent to ToolNode (one Send per call) "
        "and the tool runs twice, two results with that id go back (framework defect; no "
        "public issue found: https://github.com/langchain-ai/langchain/issues/38708 asks for "
        "deduplicating identical parallel calls)"),
    "loop.model_timeout": (
        "loop.timeout",
        "ChatOpenAI's request_timeout defaults to None and is passed to the openai SDK as "
        "timeout=None, which disables the SDK's 600 s default: a provider that never answers "
        "hangs the run (framework defect, open: "
        "https://github.com/langchain-ai/langchain/issues/35597)"),
}
#: the cases the frameworks' declared policy makes inapplicable (both frameworks)
SKIPS = {
    "loop.failure_rounds_reset": "no failure-round cap",
    "loop.failure_rounds_not_iterations": "no failure-round cap; recursion_limit counts every "
                                          "round",
    "loop.permanent_failure": "a ToolException is fed back; no tool failure stops the run",
    "loop.tool_timeout": "ToolNode has no tool timeout",
    "loop.cancelled": "no cancel hook in the shim (cancellation=False)",
    "loop.cancelled_tools_stopped": "no cancel hook in the shim (cancellation=False)",
    "loop.model_deadline": "no model-call deadline of the loop's own (model_timeout=None): "
                           "the client's read timeout is loop.model_timeout's",
    "loop.handed_off": "no handoff tools: create_react_agent / create_agent have none of "
                       "their own (langgraph-swarm's are a separate package)",
}


def _loops() -> dict[str, tuple[Any, Profile]]:
    for module in NEEDS:
        pytest.importorskip(module, reason="needs langchain, langgraph and langchain-openai "
                                           "(dev extra)")
    from pytest_toolcall.shims._langgraph import (
        LANGCHAIN_AGENT_PROFILE,
        LANGGRAPH_REACT_PROFILE,
        LangChainAgentLoop,
        LangGraphReactLoop,
    )

    return {"langchain_agent": (LangChainAgentLoop, LANGCHAIN_AGENT_PROFILE),
            "langgraph_react": (LangGraphReactLoop, LANGGRAPH_REACT_PROFILE)}


_run = outcome  # the case run as a user's CI runs it (tests/framework_matrix.py)


#: framework -> its docs/frameworks.md section, whose fixture is the profile below
SECTIONS = {"langchain_agent": "LangChain `create_agent`",
            "langgraph_react": "LangGraph `create_react_agent`"}


@pytest.mark.parametrize("framework", ["langchain_agent", "langgraph_react"])
def test_framework_under_its_own_policy(pytester: pytest.Pytester,
                                        monkeypatch: pytest.MonkeyPatch, framework: str) -> None:
    """docs/frameworks.md's fixture for the framework, run as a user's suite (no failure but
    the known gaps it lists: tests/framework_matrix.py run_frameworks_md), is the framework's
    shim under its shipped profile capped at CAP, the hang of loop.model_timeout ended at HANG:
    each case's verdict in that run is the one the pins say (skipped, the pinned clause, or
    passed). One run for both: the same cases with the same profile ran twice before."""
    shim, shipped = _loops()[framework]
    seen = run_frameworks_md(pytester, monkeypatch, SECTIONS[framework], len(LOOP))
    for case_id, (_outcome, loop, profile) in seen.items():
        expected = shipped.model_copy(update={"max_iterations": CAP})
        if case_id == "loop.model_timeout":  # the pinned hang waits out the run's deadline
            expected = expected.model_copy(update={"timeout": HANG})
        assert type(loop) is shim and loop.profile == profile, case_id
        assert profile.model_copy(update={"known_gaps": {}}) == expected, case_id
        assert set(profile.known_gaps) == set(GAPS), case_id
    # the cases of another dialect, which the docs' openai run does not select, run here
    profile = shipped.model_copy(update={"max_iterations": CAP})
    for case_id in set(LOOP) - set(seen):
        assert "openai" not in LOOP[case_id].dialects, case_id
        seen[case_id] = (_run(LOOP[case_id], shim(profile=profile), profile), None, profile)
    judge_all(seen, LOOP, SKIPS, GAPS)


def test_pins_name_real_cases() -> None:
    assert set(GAPS) <= set(LOOP) and set(SKIPS) <= set(LOOP)
    assert not set(GAPS) & set(SKIPS)


@pytest.mark.parametrize("framework", ["langchain_agent", "langgraph_react"])
def test_the_shipped_profiles_state_the_frameworks_default_step_limits(framework: str) -> None:
    """Each profile's max_iterations is the framework's own default recursion_limit read back
    (2 * max_iterations + 1 graph steps): an upgrade that changes the default breaks here."""
    shim, shipped = _loops()[framework]
    loop = shim()
    assert loop.profile is shipped and loop.recursion_limit == 2 * shipped.max_iterations + 1
    if framework == "langchain_agent":
        from langchain.agents import create_agent
        from langchain_core.language_models.fake_chat_models import FakeListChatModel

        graph = create_agent(FakeListChatModel(responses=["ok"]), tools=[])
        assert graph.config["recursion_limit"] == loop.recursion_limit  # factory.py: 9_999
    else:
        from langgraph._internal._config import DEFAULT_RECURSION_LIMIT

        assert int(DEFAULT_RECURSION_LIMIT) == loop.recursion_limit  # 10007 in langgraph 1.2


@pytest.mark.parametrize("framework", ["langchain_agent", "langgraph_react"])
def test_the_default_profile_blames_the_framework_for_its_policy(framework: str) -> None:
    """Without its profile, the kit would blame the framework for its documented policy: the
    openai SDK under ChatOpenAI retries a 500 twice (model_retries), and a crashing tool ends
    the run (crash_policy='abort'). The reason those profile fields exist (issue 15)."""
    shim, shipped = _loops()[framework]
    loop = shim(profile=shipped.model_copy(update={"max_iterations": CAP}))
    default = Profile(loop_events=False, permanent_failure_stops=False,
                      argument_validation="none", tool_timeout=None)
    retried = _run(LOOP["loop.model_error"], loop, default)
    assert isinstance(retried, ConformanceFailure) and retried.clause == "loop.model_calls"
    crashed = _run(LOOP["loop.sanitised_failures"], loop, default)
    assert isinstance(crashed, ConformanceFailure) and crashed.clause == "loop.stop_reason"


def test_create_agent_can_cap_model_calls() -> None:
    """An even recursion_limit (2k) lets create_agent run the calls of its k-th answer and stop
    before another model call: the profile's iteration_counts='model_calls'."""
    shim, shipped = _loops()["langchain_agent"]
    profile = shipped.model_copy(update={"iteration_counts": "model_calls",
                                         "max_iterations": CAP})
    loop = shim(profile=profile)
    assert loop.recursion_limit == 2 * CAP
    assert not isinstance(_run(LOOP["loop.iteration_cap"], loop, profile), BaseException)


def test_create_react_agent_out_of_steps_message_is_max_iterations() -> None:
    """With an even recursion_limit create_react_agent does not raise: it replaces the answer
    that asked for tools by its documented 'Sorry, need more steps' message
    (chat_agent_executor.py). The same cap, read as max_iterations."""
    shim, shipped = _loops()["langgraph_react"]

    class EvenLimit(shim):  # type: ignore[misc, valid-type]
        def limit_for(self, profile: Profile) -> int:
            return 2 * profile.max_iterations + 2

    # the usage its state reports misses the capping call (pinned below): read the cap alone
    profile = shipped.model_copy(update={"max_iterations": CAP, "usage": False})
    run = _run(LOOP["loop.iteration_cap"], EvenLimit(profile=profile), profile)
    assert not isinstance(run, BaseException), run
    from pytest_toolcall.shims._langgraph import NEED_MORE_STEPS

    assert all(r.result.text == NEED_MORE_STEPS for r in run)
    # framework gap (langgraph-prebuilt 1.1.3, chat_agent_executor.py call_model): out of
    # steps, the model's answer is replaced by AIMessage(id=response.id, content="Sorry, need
    # more steps...") without its usage_metadata, so the state's messages under-count the run
    # by the last model call (no public issue found, 2026-11-25)
    profile = shipped.model_copy(update={"max_iterations": CAP})
    run = _run(LOOP["loop.iteration_cap"], EvenLimit(profile=profile), profile)
    assert isinstance(run, ConformanceFailure) and run.clause == "loop.usage", run


@pytest.mark.parametrize("framework", ["langchain_agent", "langgraph_react"])
def test_without_the_fake_endpoint_is_a_usage_error(framework: str) -> None:
    """In-process, the loop has no endpoint for the framework's own client: the kit could not
    run the case, which is not a verdict (loop.raised) on the framework."""
    shim, shipped = _loops()[framework]
    with pytest.raises(UsageError, match="--toolcall-loop-model=fake"):
        run_case(LOOP["loop.mixed_batch"], shim(), shipped, loop_model="inprocess")


@pytest.mark.parametrize("framework", ["langchain_agent", "langgraph_react"])
def test_model_factories_and_caps_are_checked(framework: str) -> None:
    shim, shipped = _loops()[framework]
    with pytest.raises(UsageError, match="must be a callable taking the kit's endpoint"):
        shim(model="gpt-4o-mini")
    loop = shim(model=lambda ep: ep.async_client)
    with pytest.raises(UsageError, match="expected a langchain_core BaseChatModel"):
        run_case(LOOP["loop.mixed_batch"], loop, shipped, loop_model="fake")
    counts = "successful_rounds" if framework == "langchain_agent" else "model_calls"
    with pytest.raises(UsageError, match="recursion_limit"):
        shim(profile=Profile(iteration_counts=counts))


@pytest.mark.parametrize("framework", ["langchain_agent", "langgraph_react"])
def test_a_model_factory_builds_the_chat_model(framework: str) -> None:
    """``model=lambda ep: ...``: another chat model on the endpoint (here ChatOpenAI with its
    retries off, which the profile then declares: model_retries=0)."""
    from langchain_openai import ChatOpenAI

    shim, shipped = _loops()[framework]
    profile = shipped.model_copy(update={"max_iterations": CAP, "model_retries": 0})
    loop = shim(model=lambda ep: ChatOpenAI(
        model="gpt-4o-mini", base_url=ep.base_url, api_key=ep.api_key, max_retries=0,
        http_client=ep.client, http_async_client=ep.async_client), profile=profile)
    assert not isinstance(_run(LOOP["loop.model_error"], loop, profile), BaseException)

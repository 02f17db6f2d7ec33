"""smolagents' own ``ToolCallingAgent`` loop under the loop cases, with the profile of its
documented policy (issue 15; ``pytest_toolcall/shims/_smolagents.py``). Every loop case runs
with the fake provider as smolagents' OpenAI endpoint; a case it fails under its honest
profile is pinned with its clause and reason (a smolagents defect or limitation, or "KIT:" a
defect of the kit, with evidence below); every other case passes or skips by capability.

Runs when smolagents is installed; skips, naming it, otherwise.
"""

from __future__ import annotations

from typing import Any

import pytest

import pytest_toolcall.conformance.loop as loop_cases
from pytest_toolcall.cases import ScriptedCall, Turn
from pytest_toolcall.core.errors import ConformanceFailure, UsageError
from pytest_toolcall.run.runner import run_case
from tests.framework_matrix import HANG, judge_all, outcome, run_frameworks_md
from tests.kit_imports import libraries_fixture

LOOP = {case.id: case for case in loop_cases.CASES}
NEEDS = "needs smolagents (with the openai SDK)"

#: the cases smolagents' declared policy makes inapplicable
SMOLAGENTS_SKIPS = {
    "loop.failure_rounds_reset": "no failure-round cap (max_failure_rounds=None)",
    "loop.failure_rounds_not_iterations": "no failure-round cap; max_steps counts model calls",
    "loop.permanent_failure": "a tool failure cannot be permanent: every error is fed back",
    "loop.tool_timeout": "a tool call has no timeout",
    "loop.cancelled": "no cancel hook mapped: MultiStepAgent.interrupt() raises AgentError "
                      "('Agent interrupted.') at the next step, which the shim reports as an "
                      "error (cancellation=False)",
    "loop.handed_off": "no handoff tools in the shim (handoff_tools=())",
    "loop.cancelled_tools_stopped": "no cancel hook mapped (cancellation=False), as for "
                                    "loop.cancelled",
    "loop.model_deadline": "no model-call deadline of the agent's own (model_timeout=None): "
                           "the openai client's read timeout is loop.model_timeout's",
}

#: case id -> (clause, why smolagents' own loop fails it under its honest profile)
SMOLAGENTS_GAPS: dict[str, tuple[str, str]] = {
    "loop.sanitised_failures": (
        "loop.sanitised",
        "smolagents defect: execute_tool_call (agents.py, 1.26.0) feeds "
        "f'{type(e).__name__}: {e}' of any exception a tool raises to the model, a crash's "
        "traceback and secrets included; no public issue found"),
    "loop.malformed_arguments": (
        "loop.tool_not_run",
        "smolagents defect: parse_json_if_needed (models.py) keeps arguments that are not "
        "valid JSON as the raw string and validate_tool_arguments (tools.py) accepts a string "
        "for a tool whose first input is a string, so the tool runs with the truncated JSON "
        "text as its argument; no public issue found"),
    "loop.truncated_answer": (
        "loop.stop_reason",
        "smolagents limitation: OpenAIModel.generate (models.py) drops finish_reason; an "
        "answer without a tool call is an AgentParsingError retried until max_steps "
        "(max_iterations after 21 calls), and a final_answer call cut at the limit ends "
        "'completed' with the raw cut JSON as the answer "
        "(test_a_final_answer_cut_at_the_token_limit_completes); no public issue found"),
    "loop.content_filtered": (
        "loop.stop_reason",
        "smolagents limitation: OpenAIModel.generate drops finish_reason; a withheld answer "
        "(no content, no call) fails parse_tool_calls and is retried until max_steps "
        "(max_iterations after 21 calls), never 'content_filter'; no public issue found"),
    "loop.mixed_batch": (
        "loop.results_fed_back",
        "smolagents defect: when a sibling call fails, the successful call's observation never "
        "reaches the model (https://github.com/huggingface/smolagents/issues/2457)"),
    # issue 29: smolagents' own rate-limit retries, nested around the openai SDK's
    "loop.rate_limit_retries_bounded": (
        "loop.timeout",
        "smolagents defect: ApiModel's own Retrying (RETRY_MAX_ATTEMPTS=3, RETRY_WAIT=60, "
        "models.py and utils.py, 1.26.0) retries any error whose text says '429' after the "
        "openai SDK's two retries, sleeping 120-240 s and then 240-960 s whatever Retry-After "
        "says: a 429 that keeps coming holds the run 6 to 20 minutes (nested retries hanging "
        "an agent: NousResearch/hermes-agent #26293); no public issue found"),
    "loop.retry_after_capped": (
        "loop.retry_cap",
        "smolagents defect: the openai SDK refuses to wait a Retry-After of an hour and raises; "
        "smolagents' own Retrying then sleeps 120-240 s and tries again, twice (models.py "
        "RETRY_WAIT, 1.26.0): minutes of a hung run the provider said would not pass "
        "(NousResearch/hermes-agent #26293); no public issue found"),
    # loop.model_timeout passes since 2026-11-28: a streamed call that stalls after its
    # headers is retried by no client, and the case no longer counts model_retries for it
}

#: the pinned rate-limit waits last minutes: the case deadline that ends them is HANG (0.5 s:
#: smolagents sleeps 120 s or more there, so any deadline ends the same wait with the same clause)
_SLEEPERS = ("loop.rate_limit_retries_bounded", "loop.retry_after_capped")
#: the openai SDK's backoff between its own retries is sleep no check reads (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("_libraries_imported", "short_client_backoff")

#: the SDKs short_client_backoff patches, and what smolagents' loop imports when it builds and
#: runs (pytest_toolcall/shims/_smolagents.py), once for the module, before pytester's snapshot
#: (tests/kit_imports.py)
_libraries_imported = libraries_fixture(
    "openai._base_client", "anthropic._base_client", "smolagents", "smolagents.agents",
    "smolagents.memory", "smolagents.monitoring", "smolagents.prompts", "smolagents.utils",
    "rich.console",
    "openai.resources.chat.chat", "openai.resources.chat.completions.messages",
    "openai.lib.streaming.chat")


def _shim() -> tuple[Any, Any]:
    pytest.importorskip("smolagents", reason=NEEDS)
    pytest.importorskip("openai", reason=NEEDS)
    from pytest_toolcall.shims._smolagents import PROFILE, SmolagentsLoop

    return PROFILE, SmolagentsLoop


_run = outcome  # the case run as a user's CI runs it (tests/framework_matrix.py)


def test_smolagents_under_its_own_policy(pytester: pytest.Pytester,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/frameworks.md's fixture for smolagents, run as a user's suite (no failure but the
    known gaps it lists: tests/framework_matrix.py run_frameworks_md), is the shim under its
    shipped profile, the pinned rate-limit sleeps ended at HANG: each case's verdict in that run
    is the one the pins say (skipped, the pinned clause, or passed). One run for both: the same
    cases with the same profile ran twice before."""
    shipped, loop_class = _shim()
    seen = run_frameworks_md(pytester, monkeypatch, "smolagents `ToolCallingAgent`", len(LOOP))
    for case_id, (_outcome, loop, profile) in seen.items():
        expected = shipped
        if case_id in _SLEEPERS:
            expected = expected.model_copy(update={"timeout": HANG})
        assert type(loop) is loop_class and loop.profile == profile, case_id
        assert profile.model_copy(update={"known_gaps": {}}) == expected, case_id
        assert set(profile.known_gaps) == set(SMOLAGENTS_GAPS), case_id
    # the cases of another dialect, which the docs' openai run does not select, run here
    for case_id in set(LOOP) - set(seen):
        assert "openai" not in LOOP[case_id].dialects, case_id
        seen[case_id] = (_run(LOOP[case_id], loop_class(profile=shipped), shipped), None,
                         shipped)
    judge_all(seen, LOOP, SMOLAGENTS_SKIPS, SMOLAGENTS_GAPS)


def test_the_pins_name_loop_cases() -> None:
    assert set(SMOLAGENTS_SKIPS) <= set(LOOP) and set(SMOLAGENTS_GAPS) <= set(LOOP)
    assert not set(SMOLAGENTS_SKIPS) & set(SMOLAGENTS_GAPS)


@pytest.mark.parametrize(("case_id", "clause"), [("loop.all_failure_rounds", "loop.stop_reason"),
                                                 ("loop.model_error", "loop.model_calls")])
def test_smolagents_fails_the_default_policy_where_it_differs(case_id: str, clause: str) -> None:
    """Without its profile the kit would blame smolagents for its documented policy: no
    failure-round cap (20 steps, then a closing call), the openai SDK's two retries."""
    _, loop = _shim()
    from pytest_toolcall import Profile

    default = Profile(sync=True, async_=False, loop_events=False)
    run = _run(LOOP[case_id], loop(), default)
    assert isinstance(run, ConformanceFailure) and run.clause == clause, run


def test_smolagents_without_the_fake_endpoint_is_a_usage_error() -> None:
    """In-process the loop has no endpoint for smolagents' own client: the kit could not run
    the case, which is not a verdict (loop.raised) on smolagents."""
    profile, loop = _shim()
    with pytest.raises(UsageError, match="--toolcall-loop-model=fake"):
        run_case(LOOP["loop.usage_summed"], loop(), profile, loop_model="inprocess")


def test_smolagents_model_factories_are_checked() -> None:
    profile, loop = _shim()
    with pytest.raises(UsageError, match="must be a callable taking the kit's endpoint"):
        loop(model="gpt-4o-mini")
    with pytest.raises(UsageError, match="expected a smolagents.models.Model"):
        run_case(LOOP["loop.usage_summed"], loop(model=lambda ep: ep.client), profile,
                 loop_model="fake")


def test_the_default_model_needs_the_openai_dialect() -> None:
    profile, loop = _shim()
    with pytest.raises(UsageError, match="--toolcall-provider=openai"):
        run_case(LOOP["loop.usage_summed"], loop(), profile, dialect="anthropic",
                 loop_model="fake")


def test_a_model_factory_runs_the_agent_on_its_model() -> None:
    profile, loop = _shim()
    from smolagents import OpenAIServerModel

    built = []

    def factory(ep: Any) -> Any:
        built.append(OpenAIServerModel("gpt-4o-mini", api_base=ep.base_url, api_key=ep.api_key,
                                       client_kwargs={"http_client": ep.client}))
        return built[-1]

    run_case(LOOP["loop.usage_summed"], loop(model=factory), profile, loop_model="fake")
    assert len(built) == 1


def test_smolagents_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    """verbosity_level=LogLevel.OFF: no rich panels in the test log, failures included."""
    profile, loop = _shim()
    _run(LOOP["loop.mixed_batch"], loop(profile=profile), profile)
    out, err = capsys.readouterr()
    assert out == "" and err == ""


# -- evidence for the pins ----------------------------------------------------------------------
def _unchecked(case_id: str, **update: Any) -> Any:
    """The case with no checks: its recordings, to read what smolagents sent."""
    return LOOP[case_id].model_copy(update={"checks": (), **update})


def test_a_final_answer_cut_at_the_token_limit_completes() -> None:
    """smolagents evidence (loop.truncated_answer): a final_answer call cut at the token limit
    ends the run 'completed' with the cut arguments' raw text as the answer."""
    profile, loop = _shim()
    case = LOOP["loop.truncated_answer"]

    def script(p: Any) -> Any:
        s = case.loop(p) if callable(case.loop) else case.loop
        cut = Turn(tool_calls=(ScriptedCall(name="final_answer", id="call_final",
                                            arguments='{"answer": "In Paris it is 18'),),
                   finish_reason="length")
        return s.model_copy(update={"turns": (s.turns[0], cut)})

    run = run_case(_unchecked(case.id, loop=script), loop(profile=profile), profile,
                   loop_model="fake")[0]
    assert run.result.stop_reason == "completed" and run.model_calls == 2
    assert run.result.text == '{"answer": "In Paris it is 18'

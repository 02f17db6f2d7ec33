"""Negative and positive controls for the ``anthropic`` dialect.

Each row of :data:`CONTROLS` is a broken adapter (``tests/controls_anthropic.py``), the case that
must catch it, and the exact clause it must name. Every anthropic-only case has a row; the rows
on shared cases reproduce the WIRE.md §6 bugs of this wire (litellm #5063, #5231). The reference
adapter passes every case that applies to the dialect.
"""

from __future__ import annotations

from collections.abc import Iterator

import controls_anthropic as c  # tests/controls_anthropic.py
import pytest

from pytest_toolcall.cases import default_registry
from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.providers.fake.provider import Endpoint
from pytest_toolcall.providers.anthropic.reference import AnthropicAdapter
from pytest_toolcall.run.runner import run_case

REGISTRY = default_registry()

#: (case id, broken adapter, the clause the case must name)
CONTROLS: list[tuple[str, type[AnthropicAdapter], str]] = [
    # -- history replay ----------------------------------------------------------------------
    ("wire.anthropic_tool_results_first", c.TextBeforeResults,
     "request.messages.tool_use.unanswered"),
    ("wire.anthropic_results_one_message", c.OneUserMessagePerResult,
     "wire.anthropic.results_one_message"),
    ("wire.anthropic_is_error", c.DropsIsError, "wire.anthropic.is_error"),
    ("wire.anthropic_is_error", c.EveryResultIsError, "wire.anthropic.is_error"),
    ("wire.anthropic_is_error", c.IsErrorAsString, "request.type"),
    # -- tool_choice -------------------------------------------------------------------------
    ("wire.anthropic_tool_choice_parallel", c.RequiredSpelledRequired, "request.tool_choice.type"),
    ("wire.anthropic_tool_choice_parallel", c.ParallelFlagOnlyOnAuto,
     "wire.anthropic.tool_choice"),
    ("wire.anthropic_tool_choice_parallel", c.ParallelFlagOnNone,
     "request.tool_choice.none.extra"),
    ("wire.tool_choice_required", c.RequiredSpelledRequired, "request.tool_choice.type"),
    # -- reasoning with tools (issue 13): the fake's 400s, and the kit's own check ----------
    ("wire.anthropic_thinking_replayed", c.DropsThinking, "request.messages.thinking.missing"),
    ("wire.anthropic_thinking_replayed", c.ReordersThinking,
     "request.messages.thinking.signature"),
    ("wire.anthropic_thinking_replayed", c.EditsThinking, "request.messages.thinking.signature"),
    ("wire.anthropic_thinking_replayed", c.DropsRedactedThinking, "wire.reasoning.replayed"),
    ("wire.anthropic_thinking_replayed", c.ThinkingAfterToolUse,
     "request.messages.thinking.missing"),
    ("wire.anthropic_thinking_replayed", c.IgnoresThinkingBlocks, "response.reasoning"),
    ("stream.anthropic_thinking_replayed", c.StreamIgnoresThinking, "response.reasoning"),
    ("stream.anthropic_thinking_replayed", c.DropsThinking, "request.messages.thinking.missing"),
    # -- streams -----------------------------------------------------------------------------
    ("stream.anthropic_pings_everywhere", c.PingEndsBlock, "response.tool_calls.arguments"),
    ("stream.anthropic_parallel_blocks", c.ParallelBlocksMergedAtIndexZero,
     "response.tool_calls.count"),
    ("stream.anthropic_parallel_blocks", c.BlockIndexAsCallIndex, "adapter.raised"),
    ("stream.parallel_sequential", c.ParallelBlocksMergedAtIndexZero,
     "response.tool_calls.count"),
    ("stream.anthropic_zero_args_blocks", c.CompletesOnlyBlocksWithDeltas,
     "response.tool_calls.count"),
    ("stream.anthropic_zero_args_blocks", c.StreamUnguardedJsonLoads, "adapter.raised"),
    ("stream.anthropic_zero_args_blocks", c.ReplaysZeroArgsAsEmptyString, "request.type"),
    ("stream.zero_args", c.StreamUnguardedJsonLoads, "adapter.raised"),
    ("stream.zero_args", c.ReplaysZeroArgsAsEmptyString, "request.type"),
    ("stream.malformed_arguments", c.StreamUnguardedJsonLoads, "adapter.raised"),
    ("stream.anthropic_usage_split", c.UsageFromMessageStartOnly, "response.usage"),
    ("stream.anthropic_usage_legacy_delta", c.UsageFromMessageDeltaOnly, "response.usage"),
    ("stream.mid_stream_error", c.IgnoresErrorEvent, "error.message"),
    ("stream.truncated", c.NoMessageStopCheck, "error.surfaced"),
    # -- messages (issue 12) -----------------------------------------------------------------
    ("wire.system_prompt", c.SystemAsUserTurn, "wire.messages.system"),
    ("wire.system_prompt", c.SystemRoleInMessages, "request.messages.role.system"),
    ("wire.system_prompts_several", c.KeepsFirstSystemOnly, "wire.messages.system"),
    ("wire.developer_message", c.KeepsFirstSystemOnly, "wire.messages.system"),
    ("wire.assistant_text_with_calls_replayed", c.DropsTextNextToToolUse,
     "wire.history.messages"),
    # -- errors (issue 12) -------------------------------------------------------------------
    ("errors.overloaded", c.FiveHundredsListOnly, "errors.retryable"),
    ("errors.request_too_large", c.EveryErrorRetryable, "errors.retryable"),
    ("errors.in_stream", c.OverloadedEventFinal, "errors.retryable"),
    ("wire.anthropic_foreign_id_pattern", c.ForeignIdsVerbatim,
     "request.messages.tool_use.id_pattern"),
    ("wire.anthropic_foreign_id_pattern", c.MapsIdOnToolUseOnly,
     "request.messages.tool_use.unanswered"),
]

ANTHROPIC_CASES = sorted(case.id for case in REGISTRY
                         if case.applies_to("anthropic") and case.contract == "chat")
OWN_CASES = sorted(case.id for case in REGISTRY if case.dialects == ("anthropic",))


#: the reference profile: it claims anthropic_legacy_usage, so the legacy-shape case runs
PROFILE = Profile(anthropic_legacy_usage=True)

def _id(row: tuple[str, type, str]) -> str:
    return f"{row[0]}-{row[1].__name__}"


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    ep = in_process_endpoint(FakeProvider("anthropic"))
    yield ep
    ep.close()


@pytest.mark.parametrize(("case_id", "broken", "clause"), CONTROLS, ids=map(_id, CONTROLS))
def test_case_fails_its_negative_control(case_id: str, broken: type[AnthropicAdapter],
                                         clause: str, endpoint: Endpoint) -> None:
    with pytest.raises(ConformanceFailure) as exc:
        run_case(REGISTRY[case_id], broken.from_endpoint(endpoint), PROFILE, endpoint)
    assert exc.value.clause == clause, exc.value.render()
    assert exc.value.case_id == case_id
    assert exc.value.interface == "sync"


@pytest.mark.parametrize("case_id", ANTHROPIC_CASES)
def test_reference_adapter_passes(case_id: str, endpoint: Endpoint) -> None:
    case = REGISTRY[case_id]
    runs = run_case(case, AnthropicAdapter.from_endpoint(endpoint), PROFILE, endpoint)
    assert [run.interface for run in runs] == ["sync", "async"]
    for run in runs:
        assert len(run.steps) == len(case.steps)
        for record in run.steps:
            # the provider accepted the request; an error reply is the scripted answer to it
            exchange = record.exchanges[0]
            assert len(record.exchanges) == 1 and exchange.rejection is None
            error = record.step.reply.error
            if error is not None and error.kind is not None:  # the provider's own status
                from pytest_toolcall.providers.errors import error_reply

                error = error.model_copy(update={"status": error_reply(
                    "anthropic", error.kind, error.retry_after)[0]})
            if error is not None and error.refuse:  # no answer: the connection was refused
                error = error.model_copy(update={"status": 0})
            assert exchange.status == (error.status if error else 200)
            if record.step.expect == "error":
                assert record.error is not None and record.response is None
            else:
                assert record.error is None and record.response is not None


def test_every_anthropic_case_has_a_negative_control() -> None:
    assert len(OWN_CASES) == 13  # + the two thinking cases of issue 13, two of issue 12
    covered = {case_id for case_id, _, _ in CONTROLS}
    assert sorted(set(OWN_CASES) - covered) == []


def test_every_control_is_used_and_documented() -> None:
    used = {broken.__name__ for _, broken, _ in CONTROLS}
    assert sorted(set(c.__all__) - used) == []
    for name in c.__all__:
        broken = getattr(c, name)
        assert issubclass(broken, AnthropicAdapter)
        assert (broken.__doc__ or "").strip(), f"{name} has no docstring naming its bug"
        own = {m for m in ("complete", "acomplete", "stream", "astream") if m in vars(broken)}
        assert not own, f"{name} overrides an entry point; break one small method instead"


def test_real_bugs_are_reproduced() -> None:
    """litellm #5063 and #5231 (WIRE.md §6) each have a control that the suite catches."""
    sources = {name: getattr(c, name).__doc__ for name in c.__all__}
    assert any("litellm #5063" in doc for doc in sources.values())
    assert any("litellm #5231" in doc for doc in sources.values())


def test_event_dispatch_on_json_type_works_too(endpoint: Endpoint) -> None:
    """An adapter that ignores the ``event:`` line and dispatches on the JSON ``type`` passes the
    ping case as well: both ways of reading the stream are correct."""
    from pytest_toolcall.providers.anthropic.reference import AnthropicStreamAccumulator

    class ByType(AnthropicStreamAccumulator):
        def feed_line(self, line: str):  # type: ignore[no-untyped-def]
            if line.startswith("data:") and not self.done:
                import json

                data = json.loads(line[5:])
                return self.feed(data.get("type"), data)
            return ()

    class TypeDispatch(AnthropicAdapter):
        def new_accumulator(self) -> AnthropicStreamAccumulator:
            return ByType(self)

    case = REGISTRY["stream.anthropic_pings_everywhere"]
    runs = run_case(case, TypeDispatch.from_endpoint(endpoint), Profile(), endpoint)
    assert [len(r.steps[0].response.tool_calls) for r in runs] == [3, 3]  # type: ignore[union-attr]
    pings = endpoint.exchanges[-1].response_body.count(b"event: ping\n")
    assert pings > 20  # the quirk really put pings between the events

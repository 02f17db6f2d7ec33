"""Issue 16: kit bugs found by independent implementations, with regression tests.

- ``loop.malformed_arguments`` on a dialect whose wire carries arguments as a JSON object
  (anthropic, gemini, ollama) skips, naming why, in both model modes, instead of failing every
  loop (the fake raised a usage error inside ``model.complete``, which a correct loop turned into
  stop reason ``error``, and the case blamed the loop);
- the hints of ``loop.model_calls``, ``loop.raised``, ``loop.stop_reason``, ``loop.unknown_tool``
  and ``fallback.channel`` point at the fix for the cause the run shows.
"""

from __future__ import annotations

from typing import Any

import fallback_controls as fc  # tests/fallback_controls.py (tests/ is on sys.path)
import loop_controls as c  # tests/loop_controls.py
import pytest

import pytest_toolcall.conformance.fallback as fallback_cases
import pytest_toolcall.conformance.loop as loop_cases
from pytest_toolcall.cases import ScriptedCall, Turn
from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.run.looprun import LoopScript, TEXT_ARGUMENT_DIALECTS, inexpressible
from pytest_toolcall.core.loop import LoopResult
from pytest_toolcall.reference.loop import ReferenceToolLoop, _State
from pytest_toolcall.run.runner import CaseSkipped, run_case
from pytest_toolcall.cases.tools import ScriptedTool, ok

LOOP = {case.id: case for case in loop_cases.CASES}
FALLBACK = {case.id: case for case in fallback_cases.CASES}
SYNC = Profile(async_=False)


# -- the malformed-arguments skip -----------------------------------------------------------------
@pytest.mark.parametrize("mode", ["inprocess", "fake"])
@pytest.mark.parametrize("dialect", ["anthropic", "gemini", "ollama"])
def test_malformed_arguments_skips_where_the_wire_has_no_argument_text(dialect: str,
                                                                       mode: str) -> None:
    loop = ReferenceToolLoop.from_profile(SYNC)
    with pytest.raises(CaseSkipped) as skipped:
        run_case(LOOP["loop.malformed_arguments"], loop, SYNC, dialect=dialect, loop_model=mode)
    reason = str(skipped.value)
    assert reason.startswith(f"loop.malformed_arguments cannot run on {dialect}: ")
    assert f"the {dialect} wire carries arguments as a JSON object, never as text" in reason


@pytest.mark.parametrize("mode", ["inprocess", "fake"])
@pytest.mark.parametrize("dialect", TEXT_ARGUMENT_DIALECTS)
def test_malformed_arguments_still_runs_where_arguments_are_text(dialect: str, mode: str) -> None:
    [run] = run_case(LOOP["loop.malformed_arguments"], ReferenceToolLoop.from_profile(SYNC), SYNC,
                     dialect=dialect, loop_model=mode)
    assert run.result.stop_reason == "completed" and run.executor.executions == []
    # and a broken loop is still caught there
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP["loop.malformed_arguments"], c.EmptyResultForUnrunCalls.from_profile(SYNC),
                 SYNC, dialect=dialect, loop_model=mode)
    assert exc.value.clause == "loop.malformed_arguments"


def test_only_argument_text_that_is_no_json_object_is_inexpressible() -> None:
    tool = ScriptedTool(spec=loop_cases.WEATHER, behaviours=(ok("18°C"),))

    def script(arguments: object) -> LoopScript:
        return LoopScript(tools=(tool,), turns=(Turn(tool_calls=(
            ScriptedCall(name="get_weather", arguments=arguments),)),))

    for fine in ({"city": "Paris"}, '{"city": "Paris"}', "", None):
        assert inexpressible(script(fine), "anthropic") is None, fine
    for bad in ('{"city": "Par', "[1, 2]", "null"):
        assert "not a JSON object" in (inexpressible(script(bad), "gemini") or ""), bad
        assert inexpressible(script(bad), "openai") is None


def test_the_plugin_reports_the_skip_reason(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--toolcall-provider=anthropic", "--toolcall-loop-model=fake",
                                "--toolcall-cases=loop.malformed_arguments", "-rs",
                                "-p", "no:cacheprovider")
    result.assert_outcomes(skipped=1)
    assert "the anthropic wire carries arguments as a JSON object" in result.stdout.str()


# -- hints that point at the fix -------------------------------------------------------------------
def _failure(case_id: str, loop: type[ReferenceToolLoop], **fields: object) -> ConformanceFailure:
    profile = Profile(async_=False, **fields)  # type: ignore[arg-type]
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP[case_id], loop.from_profile(profile), profile)
    return exc.value


def test_a_counter_that_never_resets_is_named() -> None:
    failure = _failure("loop.failure_rounds_reset", c.NeverResetsFailureRounds)
    assert failure.clause == "loop.model_calls"
    assert "the failure-round counter never resets" in failure.hint
    assert "Set it back to 0 after any round in which a call succeeded" in failure.hint


def test_failure_rounds_counted_as_iterations_is_named() -> None:
    failure = _failure("loop.failure_rounds_not_iterations", c.FailureRoundsCountAsIterations)
    assert failure.clause == "loop.model_calls"
    assert "rounds in which every call failed were counted as iterations" in failure.hint


@pytest.mark.parametrize(("case_id", "loop"), [
    ("loop.unknown_tool", c.KeyErrorOnUnknownTool),
    ("loop.sanitised_failures", c.CrashPropagates),
    ("loop.malformed_arguments", c.UnguardedJsonParse),
])
def test_a_loop_raising_on_a_tool_call_is_told_to_answer_it_and_go_on(
        case_id: str, loop: type[ReferenceToolLoop]) -> None:
    failure = _failure(case_id, loop)
    assert failure.clause == "loop.raised"
    assert "the loop raised while running the model's tool calls" in failure.hint
    assert "is answered with an error result (is_error=True)" in failure.hint
    assert "stop_reason='error' is for a failed model call only" in failure.hint
    assert failure.expected == "an error result for the call that failed, and the loop going on"


def test_a_loop_raising_on_a_failed_model_call_is_told_to_stop_with_error() -> None:
    failure = _failure("loop.model_error", c.ModelErrorRaises)
    assert failure.clause == "loop.raised"
    assert "the model call failed: catch its exception and stop with stop_reason='error'" \
        in failure.hint


def test_a_loop_stopping_on_an_unknown_tool_is_told_to_go_on() -> None:
    failure = _failure("loop.unknown_tool", c.UnknownToolStopsTheLoop)
    assert failure.clause == "loop.stop_reason"  # unknown_tool_policy="feed_back", the default
    assert failure.hint.startswith("a tool call that cannot run (an unknown tool")
    assert "unknown_tool_policy" in failure.hint


class _GivesUpState(_State):
    def on_outcomes(self, outcomes: Any, loop: Any) -> LoopResult | None:
        decision = super().on_outcomes(outcomes, loop)
        if decision is None and not any(o.ok for o in outcomes):
            return self.stop("error", "A tool failed.")  # a failed batch ends the run
        return decision


class GivesUpOnAFailedBatch(ReferenceToolLoop):
    """Stops with 'error' when every call of a round failed (answered, then given up)."""

    def new_state(self, request: Any) -> _State:
        return _GivesUpState(request)


def test_a_loop_giving_up_on_a_failed_batch_is_told_to_go_on() -> None:
    failure = _failure("loop.retryable_failure_continues", GivesUpOnAFailedBatch)
    assert failure.clause == "loop.stop_reason" and failure.got.startswith("error")
    assert failure.hint.startswith("a tool call that cannot run")
    assert "and the loop calls the model again" in failure.hint


def test_text_with_calls_is_named() -> None:
    failure = _failure("loop.text_with_calls", c.IgnoresCallsWithText)
    assert failure.clause == "loop.calls_run"
    assert "text does not make a turn final" in failure.hint


def test_calls_under_stop_name_the_finish_reason() -> None:
    failure = _failure("loop.stop_with_calls", c.TrustsFinishReason)
    assert "never on the finish reason (Gemini and Ollama say STOP with calls" in failure.hint


def test_required_keys_only_is_told_to_use_the_whole_schema() -> None:
    failure = _failure("loop.argument_types", c.RequiredKeysOnly)
    assert failure.clause == "loop.tool_not_run"
    assert "against the WHOLE schema (types, patterns, additionalProperties: false)" \
        in failure.hint


def _fallback_failure(case_id: str, broken: type) -> ConformanceFailure:
    with pytest.raises(ConformanceFailure) as exc:
        run_case(FALLBACK[case_id], broken(), SYNC)
    return exc.value


def test_a_stream_read_twice_is_named_not_json_parsing() -> None:
    failure = _fallback_failure("fallback.malformed_arguments", fc.TwoPassesOverOneStream)
    assert failure.clause == "fallback.channel"
    assert "A stream read twice" in failure.hint and "ONE pass" in failure.hint
    assert "parse JSON from the text" not in failure.hint


def test_a_mislabelled_channel_is_named_not_json_parsing() -> None:
    failure = _fallback_failure("fallback.json_in_text", fc.ReportsToolForEveryValue)
    assert failure.clause == "fallback.channel"
    assert "the channel is mislabelled; report 'json'" in failure.hint


def test_other_channel_failures_keep_the_channel_hint() -> None:
    failure = _fallback_failure("fallback.other_tool_ignored", fc.AnyToolName)
    assert failure.hint == fallback_cases._CHANNEL_HINTS["json"]
    failure = _fallback_failure("fallback.fence_other_language", fc.FirstFenceOnly)
    assert failure.hint == fallback_cases._CHANNEL_HINTS["json"]


# -- legitimate variants pass (positive controls) ------------------------------------------------
class ClarifiesAnySchemaError(ReferenceToolLoop):
    """Declaring argument_validation="clarify", asks the user about ANY argument that does not
    fit (not only a missing one): a stricter policy, and an honest one."""

    def precheck(self, call: Any, state: _State) -> Any:
        outcome = super().precheck(call, state)
        if outcome is not None and "invalid arguments" in outcome.text \
                and self.argument_validation == "clarify":
            outcome.clarify = True
        return outcome


@pytest.mark.parametrize(("validation", "stop"), [("clarify", "needs_clarification"),
                                                  ("feed_back", "completed")])
def test_argument_types_accepts_asking_the_user_under_clarify(validation: str, stop: str) -> None:
    profile = Profile(argument_validation=validation, async_=False)  # type: ignore[arg-type]
    for loop in (ClarifiesAnySchemaError, ReferenceToolLoop):
        [run] = run_case(LOOP["loop.argument_types"], loop.from_profile(profile), profile)
        assert run.executor.executions == []
        expected = stop if loop is ClarifiesAnySchemaError else "completed"
        assert run.result.stop_reason == expected


def test_stop_reasons_match_the_literal_and_the_new_ones_are_there() -> None:
    from typing import get_args

    from pytest_toolcall.core.loop import STOP_REASONS, StopReason

    assert tuple(get_args(StopReason)) == STOP_REASONS
    assert {"length", "content_filter", "cancelled", "handed_off"} <= set(STOP_REASONS)
    for reason in STOP_REASONS:  # each one is a valid LoopResult
        assert LoopResult(stop_reason=reason).stop_reason == reason


# -- the planted secret never reaches a failure, even outside pytest -------------------------------
@pytest.mark.parametrize("control", [c.RawExceptionText, c.ExceptionRepr, c.AsyncLeaksCrashText])
def test_a_leaked_crash_text_is_masked_in_the_failure_run_case_raises(control: type) -> None:
    """``run_case`` is public: the ``loop.sanitised`` failure it raises for a loop that feeds the
    crash text back must not quote the secret the kit planted there, in ``str()``, ``got`` or
    ``render()``; it says that it masked it."""
    from pytest_toolcall.cases.tools import SECRET

    profile = Profile(async_=control is c.AsyncLeaksCrashText)
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP["loop.sanitised_failures"], control.from_profile(profile), profile)
    failure = exc.value
    assert failure.clause == "loop.sanitised"
    texts = [str(failure), repr(failure.got), repr(failure.expected), failure.render()]
    assert not [t for t in texts if SECRET in t]
    assert "[redacted: planted secret]" in failure.render()


def test_a_failure_masks_secrets_in_nested_values() -> None:
    from pytest_toolcall.cases.tools import SECRET

    failure = ConformanceFailure("x.y", f"saw {SECRET}", expected=[{"k": SECRET}],
                                 got=(f"a {SECRET}", 3), hint=f"drop {SECRET}")
    failure.trace = f"call_1 -> {SECRET}"
    assert SECRET not in str(failure) + repr(failure.expected) + repr(failure.got)
    assert failure.got[1] == 3 and SECRET not in failure.render()
    assert failure.render().count("[redacted: planted secret]") == 5


# -- cancelled and handed_off: reachable stop reasons ----------------------------------------------
CANCEL = Profile(cancellation=True)
HANDOFF = Profile(handoff_tools=("transfer_to_human",))


@pytest.mark.parametrize(("case_id", "field"), [("loop.cancelled", "loop.cancellation"),
                                                ("loop.handed_off", "loop.handoff")])
def test_the_new_cases_skip_unless_declared_naming_the_claim(case_id: str, field: str) -> None:
    from pytest_toolcall.core.contracts import CAPABILITIES

    with pytest.raises(CaseSkipped) as skipped:
        run_case(LOOP[case_id], ReferenceToolLoop.from_profile(SYNC), SYNC)
    assert str(skipped.value) == f"the profile does not claim {field!r}, which {case_id} needs"
    assert ("cancellation=True" if case_id == "loop.cancelled" else "handoff_tools") \
        in CAPABILITIES[field]


@pytest.mark.parametrize("mode", ["inprocess", "fake"])
def test_the_reference_loop_stops_when_the_user_presses_stop(mode: str) -> None:
    runs = run_case(LOOP["loop.cancelled"], ReferenceToolLoop.from_profile(CANCEL), CANCEL,
                    loop_model=mode)
    assert [run.interface for run in runs] == ["sync", "async"]
    for run in runs:
        assert run.result.stop_reason == "cancelled" and run.model_calls == 1
        assert [e.name for e in run.executor.executions] == ["get_weather"]
        assert run.executor.cancel.is_set()  # pressed while get_weather ran
        assert run.result.events[-1].type == "done"
        assert run.result.events[-1].content == "cancelled"
        # the round it stopped after is answered: the conversation can be sent again
        assert [m.role for m in run.result.messages][-2:] == ["assistant", "tool"]


class _RecordsTheSignal(ReferenceToolLoop):
    seen: list[Any] = []

    def run(self, request: Any) -> LoopResult:
        self.seen.append(request.cancel)
        return super().run(request)


def test_every_request_carries_a_signal_set_only_by_a_cancel_case() -> None:
    import threading

    _RecordsTheSignal.seen = []
    run_case(LOOP["loop.text_with_calls"], _RecordsTheSignal.from_profile(SYNC), SYNC)
    [signal] = _RecordsTheSignal.seen
    assert isinstance(signal, threading.Event) and not signal.is_set()


def test_a_loop_in_another_process_cannot_be_held_to_cancellation() -> None:
    """The subprocess protocol has no cancel message: a foreign loop that declares
    cancellation=True skips, saying why, instead of failing for a signal it never got."""
    from pytest_toolcall.run.looprun import FOREIGN_CANCEL

    class Foreign:
        toolcall_loop_model = "loopback"

        def run(self, request: Any) -> LoopResult:  # pragma: no cover - never reached
            raise AssertionError("a cancel case must not run over the protocol")

    profile = Profile(cancellation=True, async_=False)
    with pytest.raises(CaseSkipped) as skipped:
        run_case(LOOP["loop.cancelled"], Foreign(), profile)
    assert str(skipped.value) == ("loop.cancelled cannot run on a loop in another process: "
                                  + FOREIGN_CANCEL)
    assert "does not carry LoopRequest.cancel" in FOREIGN_CANCEL


@pytest.mark.parametrize("mode", ["inprocess", "fake"])
def test_the_reference_loop_hands_off_on_a_declared_tool(mode: str) -> None:
    for run in run_case(LOOP["loop.handed_off"], ReferenceToolLoop.from_profile(HANDOFF),
                        HANDOFF, loop_model=mode):
        assert run.result.stop_reason == "handed_off" and run.model_calls == 1
        assert run.executor.executions == []  # the handoff is the loop's, not a case tool
        assert run.result.text == "Let me pass you to a colleague."
        *_, call, answer = run.result.messages  # answered with a transfer note
        assert [c.name for c in call.tool_calls] == ["transfer_to_human"]
        assert answer.tool_call_id == "call_handoff" and not answer.is_error


def test_cancel_and_handoff_failures_point_at_the_fix() -> None:
    failure = _failure("loop.cancelled", c.IgnoresCancel, cancellation=True)
    assert failure.clause == "loop.stop_reason" and failure.got.startswith("completed after 2")
    assert "request.cancel.is_set()" in failure.hint
    failure = _failure("loop.cancelled", c.CancelReportedAsError, cancellation=True)
    assert failure.got.startswith("error") and "not 'error'" in failure.hint
    assert "a tool call that cannot run" not in failure.hint  # not the go-on hint
    failure = _failure("loop.handed_off", c.HandoffRunAsATool,
                       handoff_tools=("transfer_to_human",))
    assert failure.got.startswith("completed after 2") and "handoff_tools" in failure.hint
    failure = _failure("loop.handed_off", c.HandoffReportedAsCompleted,
                       handoff_tools=("transfer_to_human",))
    assert failure.got == "completed after 1 model call(s)"


def test_a_loop_without_events_is_not_asked_for_the_done_event() -> None:
    profile = Profile(cancellation=True, loop_events=False, async_=False)
    [run] = run_case(LOOP["loop.cancelled"], c.NoClientEvents.from_profile(profile), profile)
    assert run.result.stop_reason == "cancelled"
    with pytest.raises(ConformanceFailure) as exc:  # claimed, the stop must be reported
        run_case(LOOP["loop.cancelled"], c.NoClientEvents.from_profile(CANCEL), CANCEL)
    assert exc.value.clause == "loop.events"


def test_handoff_and_cancel_profile_fields_are_checked() -> None:
    from pytest_toolcall.core.contracts import make_profile
    from pytest_toolcall.core.errors import UsageError

    with pytest.raises(UsageError, match="handoff_tools holds an empty name"):
        make_profile({"handoff_tools": [" "]})
    with pytest.raises(UsageError, match="both the final_answer_tool and a handoff tool"):
        make_profile({"final_answer_tool": "done", "handoff_tools": ["done"]})
    with pytest.raises(UsageError, match="cancellation"):
        make_profile({"cancellation": "sometimes"})
    assert make_profile({"handoff_tools": ["transfer_to_billing"]}).claims("loop.handoff")


def test_a_cancel_script_names_one_of_its_tools() -> None:
    from pydantic import ValidationError

    from pytest_toolcall.run.looprun import CancelScript

    tool = ScriptedTool(spec=loop_cases.WEATHER, behaviours=(ok("18°C"),))
    with pytest.raises(ValidationError, match="names no tool of the script"):
        CancelScript(tools=(tool,), turns=(Turn(text="hi"),), cancel_during="get_stock")


def test_the_plugin_runs_both_cases_when_the_profile_declares_them(
        pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        "import pytest\n"
        "from pytest_toolcall import Profile\n\n"
        "@pytest.fixture\n"
        "def toolcall_profile():\n"
        "    return Profile(cancellation=True, handoff_tools=('transfer_to_human',))\n")
    for mode in ("inprocess", "fake"):  # the reference loop, configured from that profile
        result = pytester.runpytest("--toolcall-provider=openai", f"--toolcall-loop-model={mode}",
                                    "--toolcall-cases=loop.cancelled,loop.handed_off", "-rs",
                                    "-p", "no:cacheprovider")
        result.assert_outcomes(passed=2)


def test_services_on_a_text_argument_wire_can_send_malformed_arguments() -> None:
    """A service speaks its base wire: DeepSeek, Mistral, OpenRouter, Zhipu and Azure carry
    arguments as text like OpenAI, so loop.malformed_arguments runs for them; Vertex carries
    Gemini's objects, so it skips there, naming why."""
    from pytest_toolcall.run.looprun import wire_of

    script = LOOP["loop.malformed_arguments"].loop
    script = script(SYNC) if callable(script) else script
    for service in ("deepseek", "mistral", "openrouter", "zhipu", "azure-openai",
                    "vllm", "lmstudio"):
        assert wire_of(service) == "openai"
        assert inexpressible(script, service) is None, service
    assert wire_of("vertex") == "gemini"
    assert "never as text" in (inexpressible(script, "vertex") or "")

"""Unit tests of the loop machinery: scripted tools and their executor, the scripted model, the
loop/history drivers, the reference loop and history builder, and the public strategies."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_toolcall.cases import strategies as tcst
from pytest_toolcall.cases import ScriptedCall, Turn, check, make_case
from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import (
    CaseDefinitionError,
    ConformanceFailure,
    ProviderError,
    UsageError,
)
from pytest_toolcall.core.loop import LoopRequest, LoopResult, ToolError
from pytest_toolcall.run.looprun import (
    HistoryScript,
    LoopScript,
    loop_interfaces,
    run_history,
    run_loop,
)
from pytest_toolcall.core.model import (
    AssistantMessage,
    ChatRequest,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolSpec,
    UserMessage,
)
from pytest_toolcall.reference.history import ReferenceHistoryBuilder
from pytest_toolcall.reference.loop import ReferenceToolLoop
from pytest_toolcall.run.scripted import EXHAUSTED_TEXT, ScriptedModel, turn_response
from pytest_toolcall.cases.tools import (
    SECRET,
    Executor,
    ScriptedTool,
    crash,
    fail,
    hang,
    ok,
    permanent,
    sleep,
)

WEATHER = ToolSpec(name="get_weather", description="Weather in a city.",
                   parameters={"type": "object", "properties": {"city": {"type": "string"}},
                               "required": ["city"]})


def _tool(*behaviours: Any, spec: ToolSpec = WEATHER) -> ScriptedTool:
    return ScriptedTool(spec=spec, behaviours=tuple(behaviours))


def _call(call_id: str, city: str = "Paris", name: str = "get_weather") -> ScriptedCall:
    return ScriptedCall(name=name, arguments={"city": city}, id=call_id)


# == tools ========================================================================================
def test_behaviours_advance_per_call_and_the_last_repeats() -> None:
    ex = Executor([_tool(ok("18°C"), fail("busy"), permanent("gone"))])
    assert ex.run("get_weather", {"city": "Paris"}, call_id="c1") == "18°C"
    with pytest.raises(ToolError) as retry:
        ex.run("get_weather", {}, call_id="c2")
    assert (retry.value.retryable, retry.value.kind, retry.value.message) == (True, "execution",
                                                                              "busy")
    for call_id in ("c3", "c4"):  # the last behaviour repeats
        with pytest.raises(ToolError) as gone:
            ex.run("get_weather", {}, call_id=call_id)
        assert gone.value.retryable is False
    assert [(e.call_id, e.outcome) for e in ex.executions] == [
        ("c1", "ok"), ("c2", "failed"), ("c3", "permanent"), ("c4", "permanent")]
    assert ex.executions[0].result == "18°C" and ex.executions[1].error == "busy"
    assert all(e.started <= e.ended for e in ex.executions)
    assert ex.by_name("get_weather") == ex.executions and ex.by_name("other") == []
    assert ex.specs == [WEATHER]


def test_crash_raises_a_plain_exception_holding_the_planted_secret() -> None:
    ex = Executor([_tool(crash())])
    with pytest.raises(RuntimeError) as exc:
        ex.run("get_weather", {"city": "Paris"})
    assert not isinstance(exc.value, ToolError)
    assert SECRET in str(exc.value) and "Traceback" in str(exc.value)
    assert ex.executions[0].outcome == "crashed"


def test_unknown_tool_is_a_tool_error_naming_the_available_tools() -> None:
    ex = Executor([_tool(ok())])
    with pytest.raises(ToolError) as exc:
        ex.run("get_wether", {})
    assert exc.value.kind == "unknown_tool"
    assert "get_wether" in exc.value.message and "get_weather" in exc.value.message
    assert ex.executions[0].outcome == "unknown_tool"


def test_hang_blocks_until_released_then_reports_a_timeout() -> None:
    ex = Executor([_tool(hang(5.0))])
    errors: list[BaseException] = []

    def go() -> None:
        try:
            ex.run("get_weather", {}, call_id="c1")
        except ToolError as exc:
            errors.append(exc)

    thread = threading.Thread(target=go)
    thread.start()
    time.sleep(0.05)
    assert thread.is_alive() and ex.executions[0].outcome == "running"
    started = time.perf_counter()
    ex.release()
    thread.join(2)
    assert not thread.is_alive() and time.perf_counter() - started < 1.0
    assert isinstance(errors[0], ToolError) and errors[0].kind == "timeout"
    assert ex.executions[0].outcome == "timeout"


def test_sleep_takes_its_time_sync_and_async() -> None:
    ex = Executor([_tool(sleep(0.05, "late"))])
    started = time.perf_counter()
    assert ex.run("get_weather", {}) == "late"
    assert asyncio.run(ex.arun("get_weather", {})) == "late"
    assert time.perf_counter() - started >= 0.1
    assert [e.ended - e.started >= 0.05 for e in ex.executions] == [True, True]


def test_behaviour_for_a_call_id_wins_whatever_the_start_order() -> None:
    ex = Executor([_tool(ok("for b", ).model_copy(update={"call_id": "b"}), ok("anyone"))])
    assert ex.run("get_weather", {}, call_id="x") == "anyone"
    assert ex.run("get_weather", {}, call_id="b") == "for b"
    assert ex.run("get_weather", {}, call_id="y") == "anyone"


@pytest.mark.parametrize("interface", ["sync", "async"])
def test_after_orders_the_completion_of_concurrent_calls(interface: str) -> None:
    ex = Executor([_tool(sleep(2.0, "a", call_id="a", after=["b"]),
                         sleep(0.03, "b", call_id="b"))])

    async def both() -> None:
        await asyncio.gather(ex.arun("get_weather", {}, call_id="a"),
                             ex.arun("get_weather", {}, call_id="b"))

    if interface == "sync":
        threads = [threading.Thread(target=ex.run, args=("get_weather", {}),
                                    kwargs={"call_id": i}) for i in ("a", "b")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(3)
    else:
        asyncio.run(both())
    a, b = sorted(ex.executions, key=lambda e: e.call_id or "")
    assert a.ended >= b.ended  # a waited for b ...
    assert a.ended - a.started < 1.0  # ... not for its 2 s fallback


def test_after_gives_up_at_its_fallback_when_the_call_never_runs() -> None:
    ex = Executor([_tool(sleep(0.05, "a", call_id="a", after=["never"]))])
    started = time.perf_counter()
    assert ex.run("get_weather", {}, call_id="a") == "a"
    assert 0.05 <= time.perf_counter() - started < 1.0


# == scripted model ===============================================================================
def test_scripted_ids_on_first_use_then_fresh_ids_for_repeats() -> None:
    model = ScriptedModel([Turn(tool_calls=(_call("call_x"), ScriptedCall(name="get_weather")))])
    assert model.turn_for(0)[1] == ["call_x", "call_1_2"]
    assert model.turn_for(1)[1] == ["call_2_1", "call_2_2"]


def test_scripted_model_answers_then_runs_out() -> None:
    model = ScriptedModel([Turn(text="hi")], max_calls=2)
    request = ChatRequest(messages=(UserMessage(content="hello"),))
    assert model.complete(request).text == "hi"
    assert asyncio.run(model.acomplete(request)).text == "hi"
    assert model.complete(request).text == EXHAUSTED_TEXT
    assert len(model.requests) == 3 and model.rejections == []


def test_scripted_model_rejects_an_orphan_tool_message_like_openai() -> None:
    request = ChatRequest(messages=(UserMessage(content="q"),
                                    ToolMessage(tool_call_id="call_zz", content="stray")))
    model = ScriptedModel([Turn(text="hi")])
    with pytest.raises(ProviderError) as exc:
        model.complete(request)
    assert exc.value.status == 400 and "preceeding message with 'tool_calls'" in str(exc.value)
    [(index, rejection)] = model.rejections
    assert index == 0 and rejection.rule == "messages.tool.orphan"
    assert ScriptedModel([Turn(text="hi")], validate=False).complete(request).text == "hi"
    with pytest.raises(ValueError, match="at least one turn"):
        ScriptedModel([])


def test_turn_response_keeps_malformed_arguments_as_a_parse_error() -> None:
    turn = Turn(tool_calls=(ScriptedCall(name="get_weather", arguments='{"city": "Par'),))
    [call] = turn_response(turn, ["c1"]).tool_calls
    assert call.id == "c1" and call.arguments is None and call.parse_error
    assert call.raw_arguments == '{"city": "Par'


# == drivers ======================================================================================
def _case(checks: tuple[Any, ...] = (), **script: Any) -> Any:
    script = {"tools": (_tool(ok("18°C")),), "turns": (Turn(text="done"),), **script}
    return make_case(id="loop.unit_probe", title="probe", why="unit test", contract="loop",
                     loop=LoopScript(**script), checks=checks)


class _Returns:
    def __init__(self, value: Any, *, sleep_for: float = 0.0) -> None:
        self.value, self.sleep_for = value, sleep_for

    def run(self, request: LoopRequest) -> Any:
        request.model.complete(ChatRequest(messages=tuple(request.messages)))
        time.sleep(self.sleep_for)
        if isinstance(self.value, BaseException):
            raise self.value
        return self.value


def test_loop_interfaces_follow_methods_and_profile() -> None:
    assert loop_interfaces(ReferenceToolLoop(), Profile()) == ["sync", "async"]
    assert loop_interfaces(ReferenceToolLoop(), Profile(async_=False)) == ["sync"]
    assert loop_interfaces(_Returns(None), Profile()) == ["sync"]
    with pytest.raises(UsageError, match="not a ToolLoop"):
        loop_interfaces(object(), Profile())


def test_a_dict_result_is_accepted_and_checks_see_the_recording() -> None:
    seen: list[Any] = []

    @check("probe.seen")
    def record(run: Any) -> None:
        seen.append((run.interface, run.model_calls, run.result.stop_reason))

    [run] = run_loop(_case((record,)), _Returns({"stop_reason": "completed"}), Profile())
    assert isinstance(run.result, LoopResult) and seen == [("sync", 1, "completed")]


@pytest.mark.parametrize(("value", "clause"), [
    ("not a result", "loop.result"),
    (RuntimeError("boom"), "loop.raised"),
    ({"stop_reason": "completed",
      "messages": (UserMessage(content="q"), ToolMessage(tool_call_id="x", content="r"))},
     "loop.result_messages"),
    ({"stop_reason": "completed", "messages": ("not a message",)}, "loop.result_messages"),
])
def test_driver_clauses(value: Any, clause: str) -> None:
    with pytest.raises(ConformanceFailure) as exc:
        run_loop(_case(), _Returns(value), Profile())
    assert exc.value.clause == clause, exc.value.render()
    assert (exc.value.case_id, exc.value.interface) == ("loop.unit_probe", "sync")


def test_a_loop_past_the_deadline_fails_loop_timeout_naming_case_and_interface() -> None:
    with pytest.raises(ConformanceFailure) as exc:
        run_loop(_case(), _Returns({"stop_reason": "completed"}, sleep_for=1.0),
                 Profile(timeout=0.1))
    assert exc.value.clause == "loop.timeout"
    assert (exc.value.case_id, exc.value.interface) == ("loop.unit_probe", "sync")


def test_a_rejected_request_names_the_provider_rule() -> None:
    class SendsOrphan:
        def run(self, request: LoopRequest) -> LoopResult:
            try:
                request.model.complete(ChatRequest(messages=(
                    UserMessage(content="q"), ToolMessage(tool_call_id="x", content="r"))))
            except ProviderError:
                pass
            return LoopResult(stop_reason="error")

    with pytest.raises(ConformanceFailure) as exc:
        run_loop(_case(), SendsOrphan(), Profile())
    assert exc.value.clause == "request.messages.tool.orphan"


def test_a_script_factory_must_return_a_loop_script() -> None:
    case = make_case(id="loop.bad_factory", title="t", why="w", contract="loop",
                     loop=lambda profile: "nope")
    with pytest.raises(CaseDefinitionError, match="not a LoopScript"):
        run_loop(case, ReferenceToolLoop(), Profile())


def test_run_history_builds_twice_and_names_misuse() -> None:
    stored = (UserMessage(content="q"),)
    case = make_case(id="history.unit_probe", title="t", why="w", contract="history",
                     history=HistoryScript(stored=stored))
    run = run_history(case, ReferenceHistoryBuilder(), Profile())
    assert run.built == run.rebuilt == list(stored)
    with pytest.raises(UsageError, match="not a HistoryBuilder"):
        run_history(case, object(), Profile())

    class Raises:
        def build(self, stored: Any) -> Any:
            raise KeyError("tool_call_id")

    with pytest.raises(ConformanceFailure) as exc:
        run_history(case, Raises(), Profile())
    assert exc.value.clause == "history.raised" and "KeyError" in str(exc.value.got)


# == reference loop ===============================================================================
def _request(turns: list[Turn], *tools: ScriptedTool) -> tuple[LoopRequest, ScriptedModel,
                                                               Executor]:
    model, executor = ScriptedModel(turns), Executor(tools)
    request = LoopRequest(messages=(UserMessage(content="Weather?"),),
                          tools=[t.spec for t in tools], model=model, executor=executor)
    return request, model, executor


def test_from_profile_takes_the_declared_policy() -> None:
    loop = ReferenceToolLoop.from_profile(Profile(max_iterations=2, max_failure_rounds=4,
                                                  permanent_failure_stops=False,
                                                  argument_validation="clarify",
                                                  parallel_dispatch=False, tool_timeout=0.3))
    assert (loop.max_iterations, loop.max_failure_rounds, loop.permanent_failure_stops,
            loop.argument_validation, loop.parallel, loop.tool_timeout) == (
        2, 4, False, "clarify", False, 0.3)


@pytest.mark.parametrize("interface", ["sync", "async"])
def test_reference_loop_round_trip(interface: str) -> None:
    request, model, executor = _request(
        [Turn(tool_calls=(_call("c1"), _call("c2", "Lyon"))), Turn(text="Sunny.")],
        _tool(ok("18°C"), ok("20°C")))
    loop = ReferenceToolLoop()
    result = loop.run(request) if interface == "sync" else asyncio.run(loop.arun(request))
    assert (result.stop_reason, result.text) == ("completed", "Sunny.")
    assert result.usage is not None and result.usage.total_tokens == 36
    second = model.requests[1].messages
    assert [m.role for m in second] == ["user", "assistant", "tool", "tool"]
    assert [(m.tool_call_id, m.content) for m in second[2:]] == [("c1", "18°C"), ("c2", "20°C")]
    assert [(e.type, e.call_id) for e in result.events or ()] == [
        ("tool_call", "c1"), ("tool_call", "c2"), ("tool_result", "c1"), ("tool_result", "c2"),
        ("text", None), ("done", None)]
    assert result.events[-1].content == "completed"  # type: ignore[index]
    assert result.messages[-1].role == "tool" and len(executor.executions) == 2


def test_reference_loop_clarifies_a_missing_required_argument() -> None:
    request, model, executor = _request(
        [Turn(tool_calls=(ScriptedCall(name="get_weather", arguments={}, id="c1"),))],
        _tool(ok()))
    result = ReferenceToolLoop(argument_validation="clarify").run(request)
    assert result.stop_reason == "needs_clarification" and executor.executions == []
    assert "city" in (result.text or "")
    assert [e.type for e in result.events or ()][-2:] == ["clarification", "done"]
    assert len(model.requests) == 1


def test_reference_loop_stops_with_error_on_a_model_failure_without_its_text() -> None:
    class Broken:
        def complete(self, request: ChatRequest) -> Any:
            raise ProviderError(f"HTTP 500 with key {SECRET}", status=500)

    request = LoopRequest(messages=(UserMessage(content="q"),), tools=[WEATHER],
                          model=Broken(), executor=Executor([_tool(ok())]))
    result = ReferenceToolLoop().run(request)
    assert result.stop_reason == "error" and "ProviderError" in (result.text or "")
    assert SECRET not in (result.text or "")


def test_sequential_reference_times_out_each_call() -> None:
    request, model, executor = _request(
        [Turn(tool_calls=(_call("c1"), _call("c2"))), Turn(text="ok")], _tool(hang(5.0), ok()))
    started = time.perf_counter()
    result = ReferenceToolLoop(parallel=False, tool_timeout=0.05).run(request)
    executor.release()
    assert result.stop_reason == "completed" and time.perf_counter() - started < 1.0
    answers = [m for m in model.requests[1].messages if isinstance(m, ToolMessage)]
    assert [(m.tool_call_id, m.is_error) for m in answers] == [("c1", True), ("c2", False)]
    assert "did not answer in time" in answers[0].content


# == reference history builder ====================================================================
def _tc(call_id: str) -> ToolCall:
    return ToolCall(id=call_id, name="get_weather", arguments={"city": "Paris"})


def test_history_rules_in_one_history() -> None:
    q1, q2 = UserMessage(content="q1"), UserMessage(content="q2")
    stored = [
        SystemMessage(content="sys"), q1,
        AssistantMessage(content="Checking.", tool_calls=(_tc("a"), _tc("b"), _tc("c"))),
        ToolMessage(tool_call_id="a", content="ok a"),
        ToolMessage(tool_call_id="a", content="ok a again"),        # rule 2: first wins
        ToolMessage(tool_call_id=None, content="no id"),            # rule 1: dropped
        ToolMessage(tool_call_id="b", content="boom", is_error=True),  # rule 3: b dropped
        ToolMessage(tool_call_id="zz", content="orphan"),           # rule 5: dropped
        q2,
        ToolMessage(tool_call_id="c", content="ok c"),              # rule 6: moved up
    ]
    built = ReferenceHistoryBuilder().build(stored)
    assert built == [
        SystemMessage(content="sys"), q1,
        AssistantMessage(content="Checking.", tool_calls=(_tc("a"), _tc("c"))),
        ToolMessage(tool_call_id="a", content="ok a"),
        ToolMessage(tool_call_id="c", content="ok c"), q2]
    assert ReferenceHistoryBuilder().build(built) == built
    kept = ReferenceHistoryBuilder(failed_calls="keep").build(stored)
    assert [m.tool_call_id for m in kept if isinstance(m, ToolMessage)] == ["a", "b", "c"]


def test_history_drops_an_assistant_message_left_empty() -> None:
    stored = [UserMessage(content="q"), AssistantMessage(tool_calls=(_tc("a"),))]
    assert ReferenceHistoryBuilder().build(stored) == [UserMessage(content="q")]


# == strategies ===================================================================================
@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(tcst.stored_histories())
def test_stored_histories_have_unique_calls_and_ordered_questions(stored: list[Any]) -> None:
    ids = [c.id for m in stored if isinstance(m, AssistantMessage) for c in m.tool_calls]
    assert len(ids) == len(set(ids))
    questions = [m.content for m in stored if isinstance(m, UserMessage)]
    assert questions == [f"question {i}" for i in range(len(questions))]
    assert all(m.tool_call_id is None or m.tool_call_id in ids
               or m.tool_call_id.startswith("orphan_")
               for m in stored if isinstance(m, ToolMessage))
    built = ReferenceHistoryBuilder().build(stored)
    assert ReferenceHistoryBuilder().build(built) == built


@settings(max_examples=20, deadline=None, database=None, derandomize=True)
@given(st.data())
def test_tool_specs_arguments_and_calls_fit_together(data: st.DataObject) -> None:
    spec = data.draw(tcst.tool_specs())
    jsonschema.Draft202012Validator.check_schema(spec.parameters)
    arguments = data.draw(tcst.arguments_for(spec.parameters))
    jsonschema.validate(arguments, spec.parameters)
    call = data.draw(tcst.tool_calls(spec))
    assert call.name == spec.name and call.id and call.id.startswith("call_")
    assert json.loads(call.raw_arguments or "") == call.arguments
    cuts = data.draw(tcst.chunkings(max_cuts=5, max_offset=10))
    assert len(cuts) <= 5 and all(1 <= c <= 10 for c in cuts)


def _draw(strategy: st.SearchStrategy[Any]) -> None:
    @settings(max_examples=1, database=None)
    @given(strategy)
    def draw_once(value: Any) -> None:
        del value

    draw_once()


@pytest.mark.parametrize(("make", "message"), [
    (lambda: _draw(tcst.stored_histories(max_turns=0)), "max_turns must be >= 1"),
    (lambda: tcst.chunkings(max_cuts=-1), "max_cuts must be >= 0"),
    (lambda: tcst.chunkings(max_offset=0), "max_offset >= 1"),
    (lambda: _draw(tcst.tool_specs(max_properties=-1)), "max_properties must be >= 0"),
    (lambda: _draw(tcst.arguments_for({"type": "array"})), "needs an object schema"),
])
def test_strategies_reject_bad_parameters(make: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()


def test_a_propagated_crash_does_not_repeat_the_planted_secret() -> None:
    """The failure of a loop that lets a tool crash escape names the crash, not its secret."""
    import loop_controls

    import pytest_toolcall.conformance.loop as loop_cases
    from pytest_toolcall.core.contracts import Profile
    from pytest_toolcall.core.errors import ConformanceFailure
    from pytest_toolcall.run.runner import run_case
    from pytest_toolcall.cases.tools import SECRET

    case = next(c for c in loop_cases.CASES if c.id == "loop.sanitised_failures")
    profile = Profile(async_=False)
    with pytest.raises(ConformanceFailure) as exc:
        run_case(case, loop_controls.CrashPropagates.from_profile(profile), profile)
    rendered = exc.value.render()
    assert exc.value.clause == "loop.raised"
    assert "RuntimeError" in rendered and "[redacted: planted secret]" in rendered
    assert SECRET not in rendered


@pytest.mark.parametrize(("mode", "transport", "host"), [
    ("inprocess", "inprocess", None), ("fake", "inprocess", "http://toolcall.fake/v1"),
    ("fake", "loopback", "http://127.0.0.1:")])
def test_a_loop_case_hands_the_loop_the_fake_providers_endpoint(mode: str, transport: str,
                                                                  host: str | None) -> None:
    """request.endpoint: the fake provider serving the case's script (issue 15, item 4)."""
    import pytest_toolcall.conformance.loop as loop_cases
    from pytest_toolcall.run.runner import run_case

    seen: list[Any] = []

    class Recording(ReferenceToolLoop):
        def run(self, request: LoopRequest) -> Any:
            seen.append(request.endpoint)
            return super().run(request)

    case = next(c for c in loop_cases.CASES if c.id == "loop.iteration_cap")
    profile = Profile(async_=False)
    [run] = run_case(case, Recording.from_profile(profile), profile, loop_model=mode,
                     transport=transport)
    if host is None:
        assert seen == [None]
        return
    [endpoint] = seen
    assert endpoint.base_url.startswith(host) and endpoint.api_key
    # the endpoint's fake is the one the case read its requests back from
    assert len(endpoint.fake.exchanges) == run.model_calls

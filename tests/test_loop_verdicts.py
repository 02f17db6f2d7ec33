"""Loop verdicts that were false on real libraries (issue 28, part 5), each with the real library
where it installs and a control the case must fail, with the clause asserted.

- ``loop.model_timeout`` on a loop that streams: the fake stalls after its 200 headers, and no
  client retries a stream once it has the headers (openai 3.57.0 ``_base_client.py``
  ``SyncAPIClient.request`` retries a timeout raised by ``_send_request``, which returns at the
  headers for a stream; ``_streaming.py`` ``Stream._iter_events`` raises APITimeoutError later,
  outside the retry loop). The case expected ``2 + model_retries`` calls; a streamed call that
  stalls now counts once (``policy.stalled_call``).
- ``loop.unknown_tool`` / ``loop.malformed_arguments`` judge what reaches the model by its
  structure, never its words: every shipped framework's text passes, and agno's, which failed.
- ``loop.parallel_dispatch``: a rendezvous proves the calls were in flight at once; a thread
  that starts 200 ms late passes (it failed the old check of overlapping spans).
- ``loop.argument_types``: dropping undeclared keys is a declared policy
  (``undeclared_arguments="drop"``, with langchain-core's StructuredTool as the evidence); a
  loop that retries a failed tool inside the round (``tool_retries``) and one that makes its
  closing call only after a permanent failure (``closing_call_after``) can declare it.
"""

from __future__ import annotations

from typing import Any

import loop_controls as c  # tests/loop_controls.py (tests/ is on sys.path)
import pytest
import pytest_toolcall.conformance.loop as loop_cases

from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.core.loop import LoopRequest
from pytest_toolcall.core.model import ChatRequest, ChatResponse, ToolCall, assemble_stream
from pytest_toolcall.reference.loop import ReferenceToolLoop, _Outcome, _State
from pytest_toolcall.run.runner import run_case

LOOP = {case.id: case for case in loop_cases.CASES}


# -- loop.model_timeout: a loop over the openai SDK, streaming or not ----------------------------

class _SdkModel:
    """The loop's model: the kit's openai shim over a real ``openai.OpenAI`` (the SDK's own
    retries: ``max_retries=2``), asking for a stream or for the whole answer. ``own_retries``:
    a loop that retries a failed call itself (the control)."""

    def __init__(self, endpoint: Any, stream: bool, own_retries: int = 0) -> None:
        import openai

        from pytest_toolcall import shims

        client = openai.OpenAI(base_url=endpoint.base_url, api_key=endpoint.api_key,
                               http_client=endpoint.client, max_retries=2)
        self.adapter = shims.openai(lambda _ep: client)(endpoint)
        self.streamed, self.own_retries = stream, own_retries

    def complete(self, request: ChatRequest) -> ChatResponse:
        for attempt in range(self.own_retries + 1):
            try:
                if self.streamed:
                    return assemble_stream(self.adapter.stream(request))
                return self.adapter.complete(request)
            except Exception:
                if attempt == self.own_retries:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover


class SdkLoop(ReferenceToolLoop):
    """The reference loop, its model calls made through the openai SDK on the fake."""

    def __init__(self, stream: bool, own_retries: int = 0, **kw: Any) -> None:
        super().__init__(**kw)
        self.streamed, self.own_retries = stream, own_retries

    def new_state(self, request: LoopRequest) -> _State:
        request.model = _SdkModel(request.endpoint, self.streamed, self.own_retries)
        return super().new_state(request)


#: the openai SDK retries twice by default: the profile declares it (docs/loops.md)
SDK_PROFILE = Profile(model_retries=2, timeout=20.0)


def _timeout_run(loop: SdkLoop) -> Any:
    pytest.importorskip("openai")
    profile = SDK_PROFILE.model_copy(update={"sync": True, "async_": False})
    try:
        return run_case(LOOP["loop.model_timeout"], loop, profile, loop_model="fake")
    except ConformanceFailure as failure:
        return failure


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_model_timeout_counts_the_sdks_retries_only_where_it_makes_them(stream: bool) -> None:
    runs = _timeout_run(SdkLoop(stream))
    assert not isinstance(runs, ConformanceFailure), runs.render()
    (run,) = runs
    assert run.result.stop_reason == "error"
    # the SDK retried the whole-answer call twice, and no stream
    assert run.model_calls == (2 if stream else 4)
    assert all(r.stream == stream for r in run.requests)


def test_control_a_streaming_loop_that_retries_the_stall_itself_fails() -> None:
    failure = _timeout_run(SdkLoop(stream=True, own_retries=2))
    assert isinstance(failure, ConformanceFailure) and failure.clause == "loop.model_calls", \
        failure


def test_control_a_whole_answer_loop_that_does_not_retry_fails() -> None:
    """The SDK's retries are declared (model_retries=2): a client built with max_retries=0
    under that profile makes 2 calls, not 4."""

    class NoRetries(_SdkModel):
        def __init__(self, endpoint: Any, stream: bool, own_retries: int = 0) -> None:
            super().__init__(endpoint, stream, own_retries)
            self.adapter.client = self.adapter.client.with_options(max_retries=0)

    class NoRetryLoop(SdkLoop):
        def new_state(self, request: LoopRequest) -> _State:
            request.model = NoRetries(request.endpoint, self.streamed)
            return ReferenceToolLoop.new_state(self, request)

    failure = _timeout_run(NoRetryLoop(stream=False))
    assert isinstance(failure, ConformanceFailure) and failure.clause == "loop.model_calls", \
        failure


# -- loop.unknown_tool / loop.malformed_arguments: judged by structure, never by words -----------

UNRUN_CASES = ("loop.unknown_tool", "loop.malformed_arguments")
SYNC = Profile(async_=False)


class FixedTextForUnrunCalls(ReferenceToolLoop):
    """A call that could not run is answered with a fixed text: the texts real frameworks send
    (``UNRUN_TEXTS``) must all pass, whatever their words (behind the fake on the openai wire
    the text is all that reaches the model: it has no error flag)."""

    text = ""

    def precheck(self, call: ToolCall, state: _State) -> _Outcome | None:
        outcome = super().precheck(call, state)
        if outcome is not None and not outcome.clarify:
            outcome.text = self.text
        return outcome


#: what real frameworks feed back for a call to a tool they do not have, or whose arguments do
#: not parse (read in their installed sources, 2026-11-28: langgraph 1.2.24 prebuilt/tool_node.py
#: INVALID_TOOL_NAME_ERROR_TEMPLATE; pydantic-ai tool_manager.py _UnknownTool; openai-agents
#: 0.24.0 run_internal/turn_resolution.py _default_tool_not_found_message and tool.py
#: default_tool_error_function; smolagents 1.26.0 agents.py execute_tool_call; agno's from the
#: report in issue 28)
UNRUN_TEXTS = {
    "agno": "The requested tool does not exist or is not available.",
    "langgraph": "Error: get_wether is not a valid tool, try one of [get_weather].",
    "pydantic-ai": "Unknown tool name: 'get_wether'. Available tools: 'get_weather'",
    "openai-agents (not found)": "Tool 'get_wether' not found.",
    "openai-agents (any failure)": "An error occurred while running the tool. Please try "
                                   "again.",
    "smolagents": "Unknown tool get_wether, should be one of: get_weather, final_answer.",
    "pydantic-ai (bad JSON)": "1 validation error: Invalid JSON: EOF while parsing a string at "
                              "line 1 column 13\n\nFix the errors and try again.",
}


class MalformedAsEmptyObject(ReferenceToolLoop):
    """Unparseable arguments become ``{}``: the model is told its arguments were invalid (a
    required argument is missing), not that its JSON was broken. A negative control until
    issue 28; now a correct loop written another way: the kit judges that the call failed and
    the model was told so, not the words of why."""

    def precheck(self, call: ToolCall, state: _State) -> _Outcome | None:
        if call.parse_error:
            call = call.model_copy(update={"arguments": {}, "parse_error": None})
        return super().precheck(call, state)


def _unrun(case_id: str, loop: ReferenceToolLoop, mode: str, dialect: str = "openai") -> Any:
    try:
        return run_case(LOOP[case_id], loop, SYNC, loop_model=mode, dialect=dialect)
    except ConformanceFailure as failure:
        return failure


@pytest.mark.parametrize("mode", ["inprocess", "fake"])
@pytest.mark.parametrize("case_id", UNRUN_CASES)
@pytest.mark.parametrize("framework", sorted(UNRUN_TEXTS))
def test_every_frameworks_wording_passes(framework: str, case_id: str, mode: str) -> None:
    """Each real framework's text passes, on the openai wire (behind the fake: the text is all
    that reaches the model) and in-process: agno's included, which failed the word list."""
    loop = type("Worded", (FixedTextForUnrunCalls,), {"text": UNRUN_TEXTS[framework]})
    run = _unrun(case_id, loop.from_profile(SYNC), mode)
    assert not isinstance(run, ConformanceFailure), run.render()


@pytest.mark.parametrize("mode", ["inprocess", "fake"])
@pytest.mark.parametrize("case_id", UNRUN_CASES)
def test_a_loop_written_another_way_passes(case_id: str, mode: str) -> None:
    """Malformed arguments read as {} and answered 'invalid arguments: city is required' tell
    the model its call failed: the words of why are not the kit's to judge."""
    run = _unrun(case_id, MalformedAsEmptyObject.from_profile(SYNC), mode)
    assert not isinstance(run, ConformanceFailure), run.render()


@pytest.mark.parametrize("mode", ["inprocess", "fake"])
@pytest.mark.parametrize("case_id", UNRUN_CASES)
def test_control_an_empty_result_fails_where_no_flag_reaches_the_model(case_id: str,
                                                                       mode: str) -> None:
    failure = _unrun(case_id, c.EmptyResultForUnrunCalls.from_profile(SYNC), mode)
    assert isinstance(failure, ConformanceFailure) and failure.clause == case_id, failure
    assert "tells the model nothing" in failure.message


@pytest.mark.parametrize("mode", ["inprocess", "fake"])
def test_an_empty_result_flagged_on_a_wire_with_the_flag_passes(mode: str) -> None:
    """Anthropic's tool_result.is_error reaches the model: the flag alone says it failed."""
    run = _unrun("loop.unknown_tool", c.EmptyResultForUnrunCalls.from_profile(SYNC), mode,
                 dialect="anthropic")
    assert not isinstance(run, ConformanceFailure), run.render()


@pytest.mark.parametrize("mode", ["inprocess", "fake"])
def test_control_a_loop_that_runs_the_closest_tool_fails(mode: str) -> None:
    failure = _unrun("loop.unknown_tool", c.RunsTheClosestTool.from_profile(SYNC), mode)
    assert isinstance(failure, ConformanceFailure), failure
    assert failure.clause == "loop.unknown_tool", failure.render()
    assert "a tool's output ('18°C')" in failure.message


# -- loop.parallel_dispatch: a rendezvous, not a race --------------------------------------------

class _LateThread(ReferenceToolLoop):
    """Concurrent dispatch whose last call's thread starts 200 ms late (a loaded machine)."""

    def dispatch(self, state: _State, request: LoopRequest) -> list[Any]:
        import time

        executor = request.executor
        original = executor.run

        def run(name: str, arguments: Any = None, *, call_id: str | None = None) -> str:
            if call_id == "call_c":
                time.sleep(0.2)
            return original(name, arguments, call_id=call_id)

        request.executor = type("Late", (), {"run": staticmethod(run)})()
        try:
            return super().dispatch(state, request)
        finally:
            request.executor = executor


class _PoolOfTwo(ReferenceToolLoop):
    """Runs a turn's calls two at a time: never all three in flight."""

    def dispatch(self, state: _State, request: LoopRequest) -> list[Any]:
        calls, out = state.calls, []
        try:
            for k in range(0, len(calls), 2):
                state.calls = calls[k:k + 2]
                out += super().dispatch(state, request)
        finally:
            state.calls = calls
        return out


PARALLEL = Profile(async_=False, tool_timeout=1.0)


def test_a_thread_that_starts_late_still_proves_the_overlap() -> None:
    runs = run_case(LOOP["loop.parallel_dispatch"], _LateThread.from_profile(PARALLEL), PARALLEL)
    (run,) = runs
    late = next(e for e in run.executor.executions if e.call_id == "call_c")
    first = min(e.started for e in run.executor.executions)
    assert late.started - first >= 0.2  # the old span check failed this: 60 ms calls


@pytest.mark.parametrize("loop", [_PoolOfTwo], ids=["pool_of_two"])
def test_control_calls_never_all_in_flight_fail(loop: type[ReferenceToolLoop]) -> None:
    quick = Profile(async_=False, tool_timeout=0.25)
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP["loop.parallel_dispatch"], loop.from_profile(quick), quick)
    assert exc.value.clause == "loop.parallel"
    assert "never all in flight at once" in exc.value.message


#: how long the process stops in the pause tests below (longer than the 0.3 s wait used before)
PAUSE = 0.5


def _hold_every_thread(seconds: float) -> None:
    """Keep the GIL for ``seconds``, as a garbage collection does: no other thread of the
    process runs, and an event loop runs no other task."""
    import sys
    import time

    previous = sys.getswitchinterval()
    sys.setswitchinterval(seconds + 10)
    try:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass
    finally:
        sys.setswitchinterval(previous)


def _started(executor: Any, *call_ids: str) -> bool:
    return set(call_ids) <= {e.call_id for e in executor.executions}


class _PausedBeforeCallA(ReferenceToolLoop):
    """Concurrent dispatch in a process that stops for PAUSE s once calls b and c have
    started, before call a reaches its tool, whose path then takes a moment more while the
    other two poll: what LangChain's create_agent met on a loaded machine (call_a started
    0.79 s after the other two, 2026-11-28)."""

    def run_tool(self, executor: Any, call: ToolCall) -> str:
        import time

        if call.id == "call_a":
            end = time.perf_counter() + 5
            while not _started(executor, "call_b", "call_c") and time.perf_counter() < end:
                time.sleep(0.001)
            _hold_every_thread(PAUSE)
            time.sleep(0.05)
        return super().run_tool(executor, call)

    async def arun_tool(self, executor: Any, call: ToolCall) -> str:
        import asyncio
        import time

        if call.id == "call_a":
            end = time.perf_counter() + 5
            while not _started(executor, "call_b", "call_c") and time.perf_counter() < end:
                await asyncio.sleep(0.001)
            _hold_every_thread(PAUSE)
            await asyncio.sleep(0.05)
        return await super().arun_tool(executor, call)


@pytest.mark.parametrize("wall_clock", [False, True], ids=["polls", "wall_clock_control"])
def test_a_pause_of_the_process_spends_none_of_the_rendezvous(
        monkeypatch: pytest.MonkeyPatch, wall_clock: bool) -> None:
    """Without a declared tool timeout, a pause of the whole process spends none of the
    rendezvous: the calls started before it still wait for the one it held up, and the
    correct loop passes. The control: the same wait on the wall clock (as before 2026-11-28,
    POLL_STEP unbounded) is spent by the pause, and the calls give up before call_a starts."""
    from pytest_toolcall.cases import tools

    profile = Profile(tool_timeout=None, timeout=1.5)  # the wait: max(0.3, 0.2 x 1.5) = 0.3 s
    loop = _PausedBeforeCallA.from_profile(profile)
    if wall_clock:
        monkeypatch.setattr(tools, "POLL_STEP", float("inf"))
        with pytest.raises(ConformanceFailure) as exc:
            run_case(LOOP["loop.parallel_dispatch"], loop, profile)
        assert exc.value.clause == "loop.parallel", exc.value.render()
        assert "never all in flight at once" in exc.value.message
        return
    runs = run_case(LOOP["loop.parallel_dispatch"], loop, profile)
    assert [run.interface for run in runs] == ["sync", "async"]
    for run in runs:
        starts = {e.call_id: e.started for e in run.executor.executions}
        assert starts["call_a"] - min(starts.values()) >= PAUSE, (run.interface, starts)


# -- loop.argument_types: a typed tool that drops undeclared keys is a declared policy -----------

def test_langchain_typed_tools_drop_undeclared_keys() -> None:
    """The evidence: langchain-core's StructuredTool with a pydantic args_schema (pydantic's
    default extra='ignore') runs the function with the declared keys and drops the rest
    silently (langchain_core/tools/base.py ``_parse_input``: only the schema's fields are
    kept). It is the validator's documented default, not a crash nor a wrong answer of the
    framework's own: a policy, which a profile declares (undeclared_arguments="drop")."""
    pytest.importorskip("langchain_core")
    from langchain_core.tools import StructuredTool
    from pydantic import BaseModel

    class Alarm(BaseModel):
        time: str

    got: list[dict[str, Any]] = []

    def set_alarm(**kwargs: Any) -> str:
        got.append(kwargs)
        return "alarm set"

    tool = StructuredTool.from_function(set_alarm, name="set_alarm", description="Set an alarm.",
                                        args_schema=Alarm)
    assert tool.invoke({"time": "07:00", "snooze": True}) == "alarm set"
    assert got == [{"time": "07:00"}]


DROP = Profile(async_=False, undeclared_arguments="drop")


def test_a_loop_that_drops_undeclared_keys_passes_when_it_declares_it() -> None:
    [run] = run_case(LOOP["loop.argument_types"], ReferenceToolLoop.from_profile(DROP), DROP)
    assert [e.arguments for e in run.executor.by_name("set_alarm")] == [{"time": "07:00"}]
    assert run.executor.by_name("fetch_record") == []


def test_control_dropping_undeclared_keys_undeclared_fails() -> None:
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP["loop.argument_types"], ReferenceToolLoop.from_profile(DROP), SYNC)
    assert exc.value.clause == "loop.tool_not_run"


def test_control_passing_undeclared_keys_on_fails_even_under_drop() -> None:
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP["loop.argument_types"], c.IgnoresUndeclaredKeys.from_profile(DROP), DROP)
    assert exc.value.clause == "loop.tool_not_run"
    assert "snooze" in str(exc.value.got)


# -- tool_retries: a loop that retries a failed tool once inside the round ------------------------

RETRY_CASES = ("loop.failure_rounds_reset", "loop.failure_rounds_not_iterations",
               "loop.retryable_failure_continues", "loop.all_failure_rounds", "loop.mixed_batch")


@pytest.mark.parametrize("case_id", RETRY_CASES)
def test_a_loop_that_retries_once_passes_when_it_declares_it(case_id: str) -> None:
    declared = Profile(async_=False, tool_retries=1)
    for run in run_case(LOOP[case_id], ReferenceToolLoop.from_profile(declared), declared):
        failed = [e for e in run.executor.executions if e.outcome == "failed"]
        assert len(failed) >= 2 and len(failed) % 2 == 0 or case_id == "loop.mixed_batch"


def test_control_a_retrying_loop_undeclared_fails() -> None:
    loop = ReferenceToolLoop.from_profile(Profile(async_=False, tool_retries=1))
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP["loop.failure_rounds_reset"], loop, SYNC)
    assert exc.value.clause == "loop.model_calls"


def test_control_a_loop_declaring_retries_it_does_not_make_fails() -> None:
    declared = Profile(async_=False, tool_retries=1)
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP["loop.failure_rounds_reset"], ReferenceToolLoop.from_profile(SYNC),
                 declared)
    assert exc.value.clause in ("loop.model_calls", "loop.stop_reason")


# -- closing_call_after: a closing model call only after a permanent failure ---------------------

ONLY_PERMANENT = Profile(async_=False, closing_call=True,
                         closing_call_after=frozenset({"permanent_failure"}))


@pytest.mark.parametrize("case_id", ["loop.permanent_failure", "loop.iteration_cap",
                                     "loop.all_failure_rounds"])
def test_a_loop_closing_only_after_a_permanent_failure_passes_when_declared(
        case_id: str) -> None:
    [run] = run_case(LOOP[case_id], ReferenceToolLoop.from_profile(ONLY_PERMANENT),
                     ONLY_PERMANENT)
    closed = run.model_calls > 0 and not run.requests[-1].tools
    assert closed == (run.result.stop_reason == "permanent_failure")


@pytest.mark.parametrize("case_id", ["loop.iteration_cap", "loop.all_failure_rounds"])
def test_control_a_loop_closing_after_every_stop_fails_that_declaration(case_id: str) -> None:
    everywhere = ReferenceToolLoop.from_profile(ONLY_PERMANENT.model_copy(
        update={"closing_call_after": Profile().closing_call_after}))
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP[case_id], everywhere, ONLY_PERMANENT)
    assert exc.value.clause in ("loop.model_calls", "loop.conversation_kept"), exc.value.render()


def test_control_closing_only_after_a_permanent_failure_fails_the_default_declaration() -> None:
    closes_all = Profile(async_=False, closing_call=True)
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP["loop.iteration_cap"], ReferenceToolLoop.from_profile(ONLY_PERMANENT),
                 closes_all)
    assert exc.value.clause == "loop.model_calls", exc.value.render()


# -- loop.events under crash_policy="abort": the run's 'error' event reports the crash --------

#: a loop whose tool crash ends the run (pydantic-ai, LangGraph, openai-agents set to abort)
ABORT = Profile(crash_policy="abort", loop_events=True, sync=True, tool_timeout=0.1)


class _CrashEndsTheStream(ReferenceToolLoop):
    """Shows the call and then only how the run ended, as a framework that raises out of its
    tool node does: no per-call 'tool_error' for the crash. ``drop_error``: the control, whose
    client is never told of the failure at all (no 'error' event either)."""

    drop_error = False

    def _events(self, result: Any) -> Any:
        gone = {"tool_error", "error"} if self.drop_error else {"tool_error"}
        return result.model_copy(update={
            "events": tuple(e for e in result.events if e.type not in gone)})

    def run(self, request: LoopRequest) -> Any:
        return self._events(super().run(request))

    async def arun(self, request: LoopRequest) -> Any:
        return self._events(await super().arun(request))


class _CrashNeverReported(_CrashEndsTheStream):
    drop_error = True


def test_a_crash_that_ends_the_run_is_reported_by_the_runs_error_event() -> None:
    runs = run_case(LOOP["loop.sanitised_failures"], _CrashEndsTheStream.from_profile(ABORT),
                    ABORT)
    assert runs  # sync and async
    for run in runs:
        assert run.result.stop_reason == "error"
        assert not [e for e in run.result.events if e.type == "tool_error"]


def test_control_a_crash_the_client_is_never_told_of_fails_loop_events() -> None:
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP["loop.sanitised_failures"], _CrashNeverReported.from_profile(ABORT), ABORT)
    assert exc.value.clause == "loop.events"


def test_control_without_abort_a_crash_needs_its_own_tool_error() -> None:
    feed_back = ABORT.model_copy(update={"crash_policy": "feed_back"})
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP["loop.sanitised_failures"], _CrashEndsTheStream.from_profile(feed_back),
                 feed_back)
    assert exc.value.clause == "loop.events" and "was not shown call" in exc.value.message

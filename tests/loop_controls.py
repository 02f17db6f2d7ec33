"""Negative controls of the loop and history contracts: small broken loops and history builders.

Every loop control is the reference :class:`ReferenceToolLoop` with ONE method overridden; bugs
in the loop's bookkeeping override ``new_state`` to hand out a :class:`_State` with one broken
method. Every history control is the reference :class:`ReferenceHistoryBuilder` with ``build``
(or ``__init__``) overridden. Docstrings name the bug and where it comes from (seed 002's
adversarial gate AC1-AC10 and its mutation-escape analysis, seed 004's tool loop).

Names starting with ``Async`` break only the async path (``arun`` / ``adispatch``); controls that
override only ``dispatch`` break only the sync path. ``tests/test_loop_negative_controls.py``
pairs each control with the case that must fail it and the exact clause.

:data:`ESCAPES` are mutants of the reference loop that no loop case kills (known gaps).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from collections.abc import Sequence
from typing import Any

from pytest_toolcall.core.loop import LoopRequest, LoopResult, ToolError
from pytest_toolcall.core.model import (
    AssistantMessage,
    ChatRequest,
    ChatResponse,
    ToolCall,
    ToolMessage,
    Usage,
    UserMessage,
)
from pytest_toolcall.reference.history import ReferenceHistoryBuilder
from pytest_toolcall.reference.loop import ReferenceToolLoop, _Outcome, _State

# == loop bookkeeping (_State) ====================================================================


class _Mutant(ReferenceToolLoop):
    """The reference loop keeping its books with ``state``: a ``_State`` with one thing broken,
    the bug of the control (the classes below)."""

    state: type[_State] = _State

    def new_state(self, request: LoopRequest) -> _State:
        return self.state(request)


def _answer(state: _State, outcomes: Sequence[_Outcome]) -> None:
    """Append results and events as the reference does (the part of on_outcomes mutants keep)."""
    for outcome in outcomes:
        state.messages.append(ToolMessage(tool_call_id=outcome.call.id, name=outcome.call.name,
                                          content=outcome.text, is_error=not outcome.ok))


class _NeverResetState(_State):
    def on_outcomes(self, outcomes: Sequence[_Outcome], loop: Any) -> LoopResult | None:
        before = self.failure_rounds
        decision = super().on_outcomes(outcomes, loop)
        if decision is None and any(o.ok for o in outcomes):
            self.failure_rounds = before  # the reset is missing
        return decision


class NeverResetsFailureRounds(_Mutant):
    """The failure-round counter is never reset by a successful round: scattered failures over
    a long healthy run stop it (seed 002 AC1 counts *consecutive* all-failure rounds)."""

    state = _NeverResetState


class _FailuresAsIterationsState(_State):
    def on_outcomes(self, outcomes: Sequence[_Outcome], loop: Any) -> LoopResult | None:
        decision = super().on_outcomes(outcomes, loop)
        if decision is None and not any(o.ok for o in outcomes):
            self.iterations += 1
        return decision


class FailureRoundsCountAsIterations(_Mutant):
    """Every round counts toward the iteration cap, failed ones too (seed 002 AC1: tool_iterations
    is only incremented after a round with a success)."""

    state = _FailuresAsIterationsState


class _RoundsState(_State):
    """The reference's failure-round books in short (the results answered, a permanent failure
    stops), with the two decisions the mutants below change: whether a round succeeded (it
    resets the count and is an iteration) and when the failure rounds are too many."""

    @staticmethod
    def succeeded(outcomes: Sequence[_Outcome]) -> bool:
        return any(o.ok for o in outcomes)

    @staticmethod
    def too_many(failure_rounds: int, limit: int) -> bool:
        return failure_rounds >= limit

    def on_outcomes(self, outcomes: Sequence[_Outcome], loop: Any) -> LoopResult | None:
        _answer(self, outcomes)
        if loop.permanent_failure_stops and any(o.permanent for o in outcomes):
            return self.stop("permanent_failure", "A tool failed permanently; stopping.")
        if self.succeeded(outcomes):
            self.failure_rounds = 0
            self.iterations += 1
            return None
        self.failure_rounds += 1
        if self.too_many(self.failure_rounds, loop.max_failure_rounds):
            return self.stop("failure_rounds", "The tools kept failing; stopping.")
        return None


class _FlippedState(_RoundsState):
    @staticmethod
    def succeeded(outcomes: Sequence[_Outcome]) -> bool:
        return not any(o.ok for o in outcomes)  # flipped: was `if any(o.ok ...)`


class SuccessConditionFlipped(_Mutant):
    """Seed 002's mutation: ``not successful_tool_calls`` flipped to ``successful_tool_calls`` in
    the all-failure-round check; all-failure rounds become iterations and never stop the loop."""

    state = _FlippedState


class _AnyFailureState(_RoundsState):
    @staticmethod
    def succeeded(outcomes: Sequence[_Outcome]) -> bool:
        return all(o.ok for o in outcomes)  # was any(): a mixed round is now a failure round


class AnyFailureIsFailureRound(_Mutant):
    """A round with ANY failed call counts as a failure round (``all`` for ``any``): repeated
    mixed batches stop a loop that is making progress. The mixed-batch reading of seed 002's
    escaped mutant."""

    state = _AnyFailureState


class _OffByOneFailuresState(_RoundsState):
    @staticmethod
    def too_many(failure_rounds: int, limit: int) -> bool:
        return failure_rounds > limit  # was >=


class FailureRoundsOffByOne(_Mutant):
    """``>`` for ``>=``: one failure round more than declared, one model call too many."""

    state = _OffByOneFailuresState


class _NoFailureLimitState(_State):
    def on_outcomes(self, outcomes: Sequence[_Outcome], loop: Any) -> LoopResult | None:
        decision = super().on_outcomes(outcomes, loop)
        if decision is not None and decision.stop_reason == "failure_rounds":
            self.failure_rounds = 0
            self.messages = list(decision.messages)
            self.events = [e for e in self.events if e.type != "done"]
            return None
        return decision


class NoFailureRoundLimit(_Mutant):
    """Failure rounds are never counted: a loop whose tools all fail spins until something else
    stops it (seed 002 AC1's original bug)."""

    state = _NoFailureLimitState


class _DropsFailedCallsState(_State):
    def on_outcomes(self, outcomes: Sequence[_Outcome], loop: Any) -> LoopResult | None:
        if any(o.ok for o in outcomes):
            outcomes = [o for o in outcomes if o.ok]
            last = self.messages[-1]
            kept = tuple(o.call for o in outcomes)
            self.messages[-1] = AssistantMessage(content=last.content, tool_calls=kept)
        return super().on_outcomes(outcomes, loop)


class DropsFailedCallsFromMixedBatch(_Mutant):
    """Seed 002 AC5, the gate's LOW finding: in a batch with a success, the failed call and its
    result are silently dropped (only successful calls persisted); the model never learns."""

    state = _DropsFailedCallsState


class _DropsFailedResultsState(_State):
    def on_outcomes(self, outcomes: Sequence[_Outcome], loop: Any) -> LoopResult | None:
        if any(o.ok for o in outcomes):
            outcomes = [o for o in outcomes if o.ok]
        return super().on_outcomes(outcomes, loop)


class DropsFailedResultsFromMixedBatch(_Mutant):
    """In a batch with a success only successful results are appended; the assistant message
    still carries the failed call, so the provider answers 400 (unanswered tool_call_id)."""

    state = _DropsFailedResultsState


class _DropsTextWithCallsState(_State):
    def chat_request(self) -> Any:
        request = super().chat_request()
        return request.model_copy(update={"messages": tuple(
            m.model_copy(update={"content": None})
            if isinstance(m, AssistantMessage) and m.tool_calls else m
            for m in request.messages)})


class LoopDropsTextWithCalls(_Mutant):
    """Replays an assistant turn's calls without the text said alongside them ('Let me check
    the weather first.'): the model loses what it said it was doing (issue 12's adapter
    defect, in a loop that rebuilds the turn)."""

    state = _DropsTextWithCallsState


class _DropsSuccessfulObservationsState(_State):
    def chat_request(self) -> Any:
        out: list[Any] = []
        failed = {m.tool_call_id for m in self.messages
                  if isinstance(m, ToolMessage) and m.is_error}
        for m in self.messages:
            if isinstance(m, AssistantMessage) and m.tool_calls:
                out.append(AssistantMessage(content="Calling tools: " + ", ".join(
                    f"{c.name}({c.raw_arguments}) as {c.id}" for c in m.tool_calls)))
            elif isinstance(m, ToolMessage):
                if m.tool_call_id in failed:
                    out.append(UserMessage(content=f"Error in {m.tool_call_id}: {m.content}"))
            else:
                out.append(m)
        return ChatRequest(messages=tuple(out), tools=self.tool_specs)


class DropsSuccessfulObservations(_Mutant):
    """Feeds results back as user-role observations (feedback_role="user") and keeps only the
    errors: the model never sees what a successful sibling returned (smolagents
    ToolCallingAgent, huggingface/smolagents #2457)."""

    state = _DropsSuccessfulObservationsState


class _StopsUnansweredState(_State):
    def on_outcomes(self, outcomes: Sequence[_Outcome], loop: Any) -> LoopResult | None:
        if loop.permanent_failure_stops and any(o.permanent for o in outcomes):
            return self.stop("permanent_failure", "A tool failed permanently; stopping.")
        return super().on_outcomes(outcomes, loop)


class PermanentStopLeavesCallsUnanswered(_Mutant):
    """A permanent failure returns at once, before the round's results are appended: the
    conversation it hands back ends with unanswered calls (a 400 when the app sends it again)."""

    state = _StopsUnansweredState


class _LatePermanentState(_State):
    permanent_seen = False

    def on_response(self, response: ChatResponse, max_iterations: int) -> LoopResult | None:
        if self.permanent_seen:
            self.add_usage(response.usage)
            return self.stop("permanent_failure", "A tool failed permanently; stopping.")
        return super().on_response(response, max_iterations)

    def on_outcomes(self, outcomes: Sequence[_Outcome], loop: Any) -> LoopResult | None:
        self.permanent_seen = any(o.permanent for o in outcomes)
        for o in outcomes:
            o.permanent = False
        return super().on_outcomes(outcomes, loop)


class PermanentCheckedNextRound(_Mutant):
    """The permanent failure is noticed only when the model answers again: one model call too
    many (and whatever the model does with it)."""

    state = _LatePermanentState


class _CapState(_State):
    shift = 0

    def on_response(self, response: ChatResponse, max_iterations: int) -> LoopResult | None:
        return super().on_response(response, max_iterations + self.shift)


class _CapOffByOneState(_CapState):
    shift = 1


class IterationCapOffByOne(_Mutant):
    """``iterations > max_iterations`` for ``>=``: one round and one model call too many
    (seed 004's max_tool_iterations)."""

    state = _CapOffByOneState


class _CapOneShortState(_CapState):
    shift = -1


class IterationCapOneShort(_Mutant):
    """The first model call is counted as an iteration: the loop stops one round early."""

    state = _CapOneShortState


class _NoCapState(_CapState):
    shift = 10_000


class NoIterationCap(_Mutant):
    """No iteration cap at all: a model that keeps asking for tools keeps the loop running
    (EpicenterHQ/epicenter #2169: a client loop with no step cap; crewAIInc/crewAI #3847: the
    max-iterations answer prepared, the loop going on past it)."""

    state = _NoCapState


class _LastUsageState(_State):
    def add_usage(self, usage: Usage | None) -> None:
        if usage is not None:
            self.usage = [usage.input_tokens or 0, usage.output_tokens or 0,
                          usage.total_tokens or 0]


class LastCallUsageOnly(_Mutant):
    """Usage is the last response's, not the sum (seed 004: tokens accumulate across
    iterations); every multi-turn run is under-billed."""

    state = _LastUsageState


class _TotalOnlyState(_State):
    def stop(self, reason: Any, text: str | None) -> LoopResult:
        result = super().stop(reason, text)
        usage = Usage(total_tokens=self.usage[2])
        return result.model_copy(update={"usage": usage})


class SumsTotalTokensOnly(_Mutant):
    """Only total_tokens is summed; input/output tokens (what pricing needs) are lost."""

    state = _TotalOnlyState


class _NoDedupeState(_State):
    def on_response(self, response: ChatResponse, max_iterations: int) -> LoopResult | None:
        self.add_usage(response.usage)
        if not response.tool_calls:
            return self.stop("completed", response.text)
        if self.iterations >= max_iterations:
            return self.stop("max_iterations", response.text)
        self.calls = list(response.tool_calls)  # no dedupe by id
        self.messages.append(AssistantMessage(content=response.text,
                                              tool_calls=tuple(self.calls)))
        return None


class NoDedupeOfCallIds(_Mutant):
    """A call id repeated in one turn is run twice: a side-effecting tool acts twice."""

    state = _NoDedupeState


class _ByNameState(_State):
    def on_response(self, response: ChatResponse, max_iterations: int) -> LoopResult | None:
        by_name = {c.name: c for c in response.tool_calls}
        response = response.model_copy(update={"tool_calls": tuple(by_name.values())})
        return super().on_response(response, max_iterations)


class DedupesCallsByName(_Mutant):
    """Calls are keyed by tool name: several calls of one tool in a turn collapse into one
    (the chat side's KeysCallsByName, one layer up)."""

    state = _ByNameState


class _UnknownStopsState(_State):
    def on_response(self, response: ChatResponse, max_iterations: int) -> LoopResult | None:
        if any(c.name not in self.tools for c in response.tool_calls):
            self.add_usage(response.usage)
            return self.stop("error", "The model asked for a tool that does not exist.")
        return super().on_response(response, max_iterations)


class UnknownToolStopsTheLoop(_Mutant):
    """An unknown tool name ends the run with an error instead of letting the model correct
    its spelling."""

    state = _UnknownStopsState


# == failures (ReferenceToolLoop.failed) ==========================================================


class PermanentTreatedAsRetryable(ReferenceToolLoop):
    """``retryable`` is ignored: a permanent failure burns every remaining failure round
    (seed 002 AC2)."""

    @staticmethod
    def failed(call: ToolCall, exc: BaseException) -> _Outcome:
        outcome = ReferenceToolLoop.failed(call, exc)
        outcome.permanent = False
        return outcome


class RetryableTreatedAsPermanent(ReferenceToolLoop):
    """Every tool failure is fatal: a passing glitch ends the run (seed 002 AC10)."""

    @staticmethod
    def failed(call: ToolCall, exc: BaseException) -> _Outcome:
        outcome = ReferenceToolLoop.failed(call, exc)
        outcome.permanent = True
        return outcome


class RetriesPermanentFailures(ReferenceToolLoop):
    """With ``tool_retries`` declared, every ToolError is run again, ``retryable=False`` too:
    the failing call acts twice for nothing (Agenta-AI/agenta #5733: ``retryable`` computed and
    never read, so non-retryable errors still consume every retry)."""

    def run_tool(self, executor: Any, call: ToolCall) -> str:
        for attempt in range(self.tool_retries + 1):
            try:
                return executor.run(call.name, call.arguments, call_id=call.id)
            except ToolError:
                if attempt == self.tool_retries:
                    raise
        raise AssertionError("unreachable")

    async def arun_tool(self, executor: Any, call: ToolCall) -> str:
        for attempt in range(self.tool_retries + 1):
            try:
                return await executor.arun(call.name, call.arguments, call_id=call.id)
            except ToolError:
                if attempt == self.tool_retries:
                    raise
        raise AssertionError("unreachable")


class RawExceptionText(ReferenceToolLoop):
    """``str(exc)`` of any exception is fed back: a crash's traceback, DSN and token reach the
    model (seed 002 AC4)."""

    @staticmethod
    def failed(call: ToolCall, exc: BaseException) -> _Outcome:
        return _Outcome(call, f"Error: {exc}", ok=False,
                        permanent=isinstance(exc, ToolError) and not exc.retryable)


class ExceptionRepr(ReferenceToolLoop):
    """``repr(exc)`` is fed back (``f"{exc!r}"``): the exception class and its text leak."""

    @staticmethod
    def failed(call: ToolCall, exc: BaseException) -> _Outcome:
        return _Outcome(call, f"Error: {exc!r}", ok=False,
                        permanent=isinstance(exc, ToolError) and not exc.retryable)


class CrashPropagates(ReferenceToolLoop):
    """Only ToolError is handled; any other exception from a tool escapes the loop."""

    @staticmethod
    def failed(call: ToolCall, exc: BaseException) -> _Outcome:
        if not isinstance(exc, ToolError):
            raise exc
        return ReferenceToolLoop.failed(call, exc)


class TimeoutIsFatal(ReferenceToolLoop):
    """A tool timeout stops the run as a permanent failure; the model never hears of it."""

    @staticmethod
    def failed(call: ToolCall, exc: BaseException) -> _Outcome:
        outcome = ReferenceToolLoop.failed(call, exc)
        outcome.permanent = isinstance(exc, ToolError) and exc.kind == "timeout"
        return outcome


# == arguments (ReferenceToolLoop.precheck) =======================================================


class NoArgumentValidation(ReferenceToolLoop):
    """Arguments are not checked against the tool's schema: a call missing a required argument
    runs the tool (seed 002 AC3)."""

    def precheck(self, call: ToolCall, state: _State) -> _Outcome | None:
        if call.name not in state.tools:
            return super().precheck(call, state)
        if call.parse_error or call.arguments is None:
            return super().precheck(call, state)
        return None


class NeverClarifies(ReferenceToolLoop):
    """``argument_validation="clarify"`` is ignored: a missing required argument goes back to
    the model instead of asking the user."""

    def precheck(self, call: ToolCall, state: _State) -> _Outcome | None:
        outcome = super().precheck(call, state)
        if outcome is not None and outcome.clarify:
            return _Outcome(call, f"Error: invalid arguments for {call.name}. Fix them and call "
                            "the tool again.", ok=False)
        return outcome


class KeyErrorOnUnknownTool(ReferenceToolLoop):
    """``state.tools[call.name]``: an unknown tool name raises KeyError out of the loop."""

    def precheck(self, call: ToolCall, state: _State) -> _Outcome | None:
        state.tools[call.name]
        return super().precheck(call, state)


class UnguardedJsonParse(ReferenceToolLoop):
    """``json.loads(raw_arguments)`` without a guard: truncated JSON raises out of the loop."""

    def precheck(self, call: ToolCall, state: _State) -> _Outcome | None:
        if call.raw_arguments:
            json.loads(call.raw_arguments)
        return super().precheck(call, state)


class SkipsArgumentChecks(ReferenceToolLoop):
    """Only the tool name is checked: malformed arguments reach the tool as ``None``."""

    def precheck(self, call: ToolCall, state: _State) -> _Outcome | None:
        if call.name not in state.tools:
            return super().precheck(call, state)
        return None


# == dispatch =====================================================================================


class SequentialDispatch(ReferenceToolLoop):
    """The calls of a turn run one after the other (seed 004 dispatches them concurrently)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**{**kwargs, "parallel": False})


class NoToolTimeout(ReferenceToolLoop):
    """Tool calls run without a timeout: one hung tool hangs the whole loop."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**{**kwargs, "tool_timeout": None})


def _split(loop: ReferenceToolLoop, state: _State) -> tuple[list[_Outcome], list[ToolCall]]:
    """The reference's precheck: answers given without running, and the calls to run."""
    early, runnable = [], []
    for call in state.calls:
        outcome = loop.precheck(call, state)
        if outcome is None:
            runnable.append(call)
        else:
            early.append(outcome)
    return early, runnable


class CompletionOrder(ReferenceToolLoop):
    """Results are appended as the calls finish (``as_completed``), not in call order; sync
    path only."""

    def dispatch(self, state: _State, request: LoopRequest) -> list[_Outcome]:
        outcomes, runnable = _split(self, state)
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(runnable)))
        futures = {pool.submit(request.executor.run, c.name, c.arguments, call_id=c.id): c
                   for c in runnable}
        try:
            for future in concurrent.futures.as_completed(futures, timeout=self.tool_timeout):
                outcomes.append(self.settled(futures[future], future))
        except concurrent.futures.TimeoutError:
            outcomes += [self.failed(c, ToolError("timed out", kind="timeout"))
                         for f, c in futures.items() if not f.done()]
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        return outcomes


class PoolWaitsForHungTools(ReferenceToolLoop):
    """``with ThreadPoolExecutor() as pool``: the timeout fires, but leaving the block waits for
    the hung thread anyway; sync path only."""

    def dispatch(self, state: _State, request: LoopRequest) -> list[_Outcome]:
        early, runnable = _split(self, state)
        done: dict[str | None, _Outcome] = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(runnable))) as pool:
            futures = [(c, pool.submit(request.executor.run, c.name, c.arguments, call_id=c.id))
                       for c in runnable]
            concurrent.futures.wait([f for _, f in futures], timeout=self.tool_timeout)
            for call, future in futures:
                done[call.id] = self.settled(call, future)
        by_id = {o.call.id: o for o in early} | done
        return [by_id[c.id] for c in state.calls]


class AsyncSequential(ReferenceToolLoop):
    """``for call in calls: await one(call)``: arun dispatches one call at a time; run is
    right."""

    async def adispatch(self, state: _State, request: LoopRequest) -> list[_Outcome]:
        parallel, self.parallel = self.parallel, False  # the reference's own sequential path
        try:
            return await super().adispatch(state, request)
        finally:
            self.parallel = parallel


class AsyncCompletionOrder(ReferenceToolLoop):
    """arun appends results in completion order (``asyncio.as_completed``); run is right."""

    async def adispatch(self, state: _State, request: LoopRequest) -> list[_Outcome]:
        outcomes, runnable = _split(self, state)

        async def one(call: ToolCall) -> _Outcome:
            try:
                text = await asyncio.wait_for(
                    request.executor.arun(call.name, call.arguments, call_id=call.id),
                    self.tool_timeout)
                return _Outcome(call, text, ok=True)
            except asyncio.TimeoutError:
                return self.failed(call, ToolError("timed out", kind="timeout"))
            except Exception as exc:  # noqa: BLE001 - a tool may raise anything
                return self.failed(call, exc)

        return outcomes + [await f for f in asyncio.as_completed([one(c) for c in runnable])]


class AsyncNoToolTimeout(ReferenceToolLoop):
    """arun awaits each tool without ``wait_for``: a hung tool hangs it; run is right."""

    async def adispatch(self, state: _State, request: LoopRequest) -> list[_Outcome]:
        async def one(call: ToolCall) -> _Outcome:
            early = self.precheck(call, state)
            if early is not None:
                return early
            try:
                text = await request.executor.arun(call.name, call.arguments, call_id=call.id)
                return _Outcome(call, text, ok=True)
            except Exception as exc:  # noqa: BLE001 - a tool may raise anything
                return self.failed(call, exc)

        return list(await asyncio.gather(*(one(c) for c in state.calls)))


class AsyncLeaksCrashText(ReferenceToolLoop):
    """arun's own error handling feeds ``str(exc)`` back (two code paths drift); run is
    right."""

    async def adispatch(self, state: _State, request: LoopRequest) -> list[_Outcome]:
        async def one(call: ToolCall) -> _Outcome:
            early = self.precheck(call, state)
            if early is not None:
                return early
            try:
                text = await asyncio.wait_for(
                    request.executor.arun(call.name, call.arguments, call_id=call.id),
                    self.tool_timeout)
                return _Outcome(call, text, ok=True)
            except Exception as exc:  # noqa: BLE001 - a tool may raise anything
                return _Outcome(call, f"Error: {call.name} failed: {exc}", ok=False,
                                permanent=isinstance(exc, ToolError) and not exc.retryable)

        return list(await asyncio.gather(*(one(c) for c in state.calls)))


# == the first scoreboard's escapes, now killed (see ESCAPES) ======================================


class ModelErrorRaises(ReferenceToolLoop):
    """A failed model call (HTTP error, timeout) raises out of run instead of stopping with
    stop_reason='error'. No loop case makes the model fail."""

    def run(self, request: LoopRequest) -> LoopResult:
        state = self.new_state(request)
        while True:
            response = request.model.complete(state.chat_request())  # unguarded
            decision = state.on_response(response, self.max_iterations)
            if decision is not None:
                return decision
            decision = state.on_outcomes(self.dispatch(state, request), self)
            if decision is not None:
                return decision


class _NoEventsState(_State):
    def stop(self, reason: Any, text: str | None) -> LoopResult:
        return super().stop(reason, text).model_copy(update={"events": ()})


class NoClientEvents(_Mutant):
    """The loop shows its client nothing (events empty although it claims to report them).
    No case checks which events a loop emits."""

    state = _NoEventsState


class _ForgetsState(_State):
    def on_response(self, response: ChatResponse, max_iterations: int) -> LoopResult | None:
        decision = super().on_response(response, max_iterations)
        if decision is None:  # keep the original conversation and this round only
            start = next(i for i, m in enumerate(self.messages) if isinstance(m, AssistantMessage)
                         and (m.tool_calls or m.content))
            self.messages = self.messages[:start] + self.messages[-1:]
        return decision


class ForgetsEarlierRounds(_Mutant):
    """Each model call sees the original messages and the latest round only: earlier tool
    results are lost. Every request is valid, so no case notices."""

    state = _ForgetsState


class _ToolsOnceState(_State):
    asked = False

    def chat_request(self) -> Any:
        request = super().chat_request()
        if self.asked:
            request = request.model_copy(update={"tools": ()})
        self.asked = True
        return request


class ToolsOnlyOnFirstCall(_Mutant):
    """Tools are sent with the first model call only; later calls cannot use them. The scripted
    model answers from its script whatever the request says, so no case notices."""

    state = _ToolsOnceState


class _SuccessEventsState(_State):
    def stop(self, reason: Any, text: str | None) -> LoopResult:
        result = super().stop(reason, text)
        events = tuple(e for e in result.events or () if e.type != "tool_error")
        return result.model_copy(update={"events": events})


class ReportsSuccessesOnly(_Mutant):
    """The client is shown the calls that worked; failed calls vanish from its view (seed 002
    AC4's "not emitted as tool_result" taken too far: nothing at all is shown)."""

    state = _SuccessEventsState



# == declared policies not kept (issue 15): the profile says one thing, the loop does another ======


class IgnoresToolFailureBudget(ReferenceToolLoop):
    """Declares a per-tool failure budget (pydantic-ai's ``retries``) but never counts failures:
    a tool that keeps failing runs until the iteration cap."""

    def __init__(self, **policy: Any) -> None:
        super().__init__(**policy)
        self.tool_failure_budget = None


class CapCountsRoundsNotModelCalls(ReferenceToolLoop):
    """Declares ``iteration_counts="model_calls"`` (openai-agents ``max_turns``) but counts
    successful rounds: one model call more than the declared cap."""

    def __init__(self, **policy: Any) -> None:
        super().__init__(**policy)
        self.iteration_counts = "successful_rounds"


class NoClosingCall(ReferenceToolLoop):
    """Declares a closing model call after the cap (smolagents after ``max_steps``) but stops
    without it."""

    def __init__(self, **policy: Any) -> None:
        super().__init__(**policy)
        self.closing_call = False


class NoFinalAnswerTool(ReferenceToolLoop):
    """Declares that the run ends through its final-answer tool but does not know it: the call
    goes to the executor as an unknown tool and the run never completes."""

    def __init__(self, **policy: Any) -> None:
        super().__init__(**policy)
        self.final_answer_tool = None


class AbortLeaksCrashText(ReferenceToolLoop):
    """Aborts on a crashing tool, as declared (``crash_policy="abort"``), but puts the
    exception's text, traceback and secret included, in the stop text and the tool result
    (the framework that sends a tool's traceback back, issue 15)."""

    @staticmethod
    def failed(call: ToolCall, exc: BaseException) -> _Outcome:
        if isinstance(exc, ToolError):
            return ReferenceToolLoop.failed(call, exc)
        return _Outcome(call, f"Error: {exc}", ok=False, crashed=f"{type(exc).__name__}: {exc}")


class DropsToolErrorMessage(ReferenceToolLoop):
    """Answers a failed call with a bare "Error: <tool> failed." flagged is_error: the model
    learns that it failed, never why (the ToolError's message is written for it)."""

    @staticmethod
    def failed(call: ToolCall, exc: BaseException) -> _Outcome:
        outcome = ReferenceToolLoop.failed(call, exc)
        if isinstance(exc, ToolError) and exc.kind != "timeout":
            outcome.text = f"Error: {call.name} failed."
        return outcome


class RefusalRunsTheCall(ReferenceToolLoop):
    """Declares that repeated call ids are refused (``duplicate_call_ids="refuse"``) but runs
    the call once anyway: a refusing loop runs none of them."""

    def __init__(self, **policy: Any) -> None:
        super().__init__(**policy)
        self.duplicate_call_ids = "dedupe"


class _RetryingModel:
    """The model behind a loop that retries a failed model call itself."""

    def __init__(self, model: Any, retries: int) -> None:
        self.model, self.retries = model, retries

    def complete(self, request: Any) -> Any:
        for attempt in range(self.retries + 1):
            try:
                return self.model.complete(request)
            except Exception:
                if attempt == self.retries:
                    raise
        raise AssertionError("unreachable")

    async def acomplete(self, request: Any) -> Any:
        for attempt in range(self.retries + 1):
            try:
                return await self.model.acomplete(request)
            except Exception:
                if attempt == self.retries:
                    raise
        raise AssertionError("unreachable")


class RetriesServerErrors(ReferenceToolLoop):
    """Retries a failed model call twice by itself (a retry storm the profile does not
    declare); with ``model_retries=2`` declared, it is the provider client's retries and
    passes."""

    def new_state(self, request: LoopRequest) -> _State:
        request.model = _RetryingModel(request.model, 2)
        return super().new_state(request)


# == issue 16: bugs independent implementations had that passed every case then ==================


class _IgnoresCallsWithTextState(_State):
    def on_response(self, response: ChatResponse, max_iterations: int) -> LoopResult | None:
        if response.text:  # "the model answered": text is taken as the final answer
            self.add_usage(response.usage)
            return self.stop("completed", response.text)
        return super().on_response(response, max_iterations)


class IgnoresCallsWithText(_Mutant):
    """A turn with text is the final answer, calls or not: "Let me check..." plus a call ends
    the run with the call unrun (issue 16)."""

    state = _IgnoresCallsWithTextState


class _TrustsFinishReasonState(_State):
    def on_response(self, response: ChatResponse, max_iterations: int) -> LoopResult | None:
        if response.finish_reason != "tool_calls":  # the calls themselves are not looked at
            self.add_usage(response.usage)
            return self.stop("completed", response.text)
        return super().on_response(response, max_iterations)


class TrustsFinishReason(_Mutant):
    """``if finish_reason == "tool_calls"`` decides whether to run tools: Gemini's STOP with
    calls (and OpenAI's 'stop' for a forced tool_choice) ends the run (issue 16;
    Mirascope/mirascope #256, Future-House/aviary #60)."""

    state = _TrustsFinishReasonState


class ContentsInCompletionOrder(ReferenceToolLoop):
    """The outputs are collected as the calls finish and zipped with the calls in call order:
    ids and order right, contents swapped between calls; sync path only (issue 16)."""

    def dispatch(self, state: _State, request: LoopRequest) -> list[_Outcome]:
        early, runnable = _split(self, state)
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(runnable)))
        futures = [pool.submit(request.executor.run, c.name, c.arguments, call_id=c.id)
                   for c in runnable]
        texts = []
        try:
            for future in concurrent.futures.as_completed(futures, timeout=self.tool_timeout):
                texts.append(future.result())
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        return early + [_Outcome(call, text, ok=True) for call, text in zip(runnable, texts)]


class RequiredKeysOnly(ReferenceToolLoop):
    """Argument validation checks the schema's required keys only: a string reaches an integer
    parameter, and an undeclared key reaches a tool whose schema forbids it (issue 16)."""

    def precheck(self, call: ToolCall, state: _State) -> _Outcome | None:
        spec = state.tools.get(call.name)
        if spec is None or call.parse_error or call.arguments is None:
            return super().precheck(call, state)
        missing = [k for k in spec.parameters.get("required", []) if k not in call.arguments]
        if missing:
            return _Outcome(call, f"Error: {call.name} needs {', '.join(missing)}.", ok=False)
        return None


class _OpenSchemasState(_State):
    def __init__(self, request: LoopRequest) -> None:
        super().__init__(request)
        # what the loop validates against: each schema without additionalProperties (the specs
        # offered to the model, self.tool_specs, are untouched)
        self.tools = {name: spec.model_copy(update={"parameters": {
            k: v for k, v in spec.parameters.items() if k != "additionalProperties"}})
            for name, spec in self.tools.items()}


class IgnoresUndeclaredKeys(_Mutant):
    """Validates types, patterns and required keys but not ``additionalProperties: false``: an
    undeclared key (``snooze`` on set_alarm) reaches a tool whose schema forbids it, as with a
    validator built from the declared parameters alone (issue 16)."""

    state = _OpenSchemasState


class _CompletedAlwaysState(_State):
    def on_response(self, response: ChatResponse, max_iterations: int) -> LoopResult | None:
        if not response.tool_calls:
            self.add_usage(response.usage)
            return self.stop("completed", response.text)  # finish_reason never looked at
        return super().on_response(response, max_iterations)


class CompletedWhateverTheFinish(_Mutant):
    """Any answer without calls is 'completed': an answer cut at the token limit, or withheld
    by the provider's filter, is reported as a whole one (issue 16; the reference did this)."""

    state = _CompletedAlwaysState


# == issue 12: what the mutation self-check found unchecked =========================================


class CrashAnsweredAsSuccess(ReferenceToolLoop):
    """A crashing tool is answered with its sanitised text but as a success: no is_error on the
    tool message (Anthropic and Gemini show the model a result, not a failure) and a
    'tool_result' event."""

    @staticmethod
    def failed(call: ToolCall, exc: BaseException) -> _Outcome:
        outcome = ReferenceToolLoop.failed(call, exc)
        if not isinstance(exc, ToolError):
            outcome.ok = True
        return outcome


class TimeoutAnsweredAsSuccess(ReferenceToolLoop):
    """A tool that timed out is answered 'did not answer in time' but flagged as a success."""

    @staticmethod
    def failed(call: ToolCall, exc: BaseException) -> _Outcome:
        outcome = ReferenceToolLoop.failed(call, exc)
        if isinstance(exc, ToolError) and exc.kind == "timeout":
            outcome.ok = True
        return outcome


class UnrunCallsAnsweredAsSuccess(ReferenceToolLoop):
    """A call that could not run (an unknown tool, arguments that do not parse or fit) is
    answered with the error text but not flagged is_error, and shown as a 'tool_result'."""

    def precheck(self, call: ToolCall, state: _State) -> _Outcome | None:
        outcome = super().precheck(call, state)
        if outcome is not None and not outcome.clarify:
            outcome.ok = True
        return outcome


class EmptyResultForUnrunCalls(ReferenceToolLoop):
    """A call that could not run (an unknown tool, arguments that do not parse) is answered
    with an empty result flagged is_error: on a wire with the flag (Anthropic, Gemini) the
    model learns the call failed; on the openai wire it reads a tool that returned nothing."""

    def precheck(self, call: ToolCall, state: _State) -> _Outcome | None:
        outcome = super().precheck(call, state)
        if outcome is not None and not outcome.clarify:
            outcome.text = ""
        return outcome


class _RunsTheClosestToolState(_State):
    def on_response(self, response: ChatResponse, max_iterations: int) -> LoopResult | None:
        import difflib

        decision = super().on_response(response, max_iterations)
        self.calls = [
            c if c.name in self.tools else c.model_copy(update={"name": (
                difflib.get_close_matches(c.name or "", list(self.tools), n=1) or [c.name])[0]})
            for c in self.calls]
        return decision


class RunsTheClosestTool(ReferenceToolLoop):
    """A call to a tool it does not have runs the tool whose name is closest (difflib): the
    misspelt call is answered with another tool's output, and the model never learns that the
    tool it named does not exist."""

    def new_state(self, request: LoopRequest) -> _State:
        return _RunsTheClosestToolState(request)


class _FailuresShownAsResultsState(_State):
    def stop(self, reason: Any, text: str | None) -> LoopResult:
        result = super().stop(reason, text)
        return result.model_copy(update={"events": tuple(
            e.model_copy(update={"type": "tool_result"}) if e.type == "tool_error" else e
            for e in result.events or ())})


class FailuresShownAsResults(_Mutant):
    """The model is told a call failed (is_error), the client is shown a 'tool_result' for it:
    the user sees a failed call as one that worked."""

    state = _FailuresShownAsResultsState


class _UnnamedEventsState(_State):
    def stop(self, reason: Any, text: str | None) -> LoopResult:
        result = super().stop(reason, text)
        return result.model_copy(update={"events": tuple(
            e.model_copy(update={"name": None}) for e in result.events or ())})


class EventsWithoutToolNames(_Mutant):
    """The client's call events carry the call id only: it cannot say which tool ran."""

    state = _UnnamedEventsState


class _StopTextNotShownState(_State):
    def stop(self, reason: Any, text: str | None) -> LoopResult:
        result = super().stop(reason, text)
        return result.model_copy(update={"events": tuple(
            e for e in result.events or () if e.type not in ("text", "clarification", "error"))})


class StopTextNotShown(_Mutant):
    """The run's answer, question or failure is in LoopResult.text but never shown to the
    client as an event: a streaming UI ends on 'done' with nothing said."""

    state = _StopTextNotShownState


class _AnswerDroppedState(_State):
    def stop(self, reason: Any, text: str | None) -> LoopResult:
        result = super().stop(reason, text)
        if reason in ("completed", "needs_clarification"):
            return result.model_copy(update={"text": None})
        return result


class AnswerTextDropped(_Mutant):
    """LoopResult.text is empty when the run completes (or asks the user): the client gets a
    stop reason and no answer, no question."""

    state = _AnswerDroppedState


class FinalAnswerArgumentIgnored(ReferenceToolLoop):
    """Ends the run through its final-answer tool, as declared, but takes the turn's text for
    the answer instead of the call's 'answer' argument (the turn has none)."""

    def on_response(self, state: _State, response: ChatResponse) -> LoopResult | None:
        if self.final_answer_tool and any(c.name == self.final_answer_tool
                                          for c in response.tool_calls):
            state.add_usage(response.usage)
            return state.stop("completed", response.text)
        return super().on_response(state, response)


class _ClosingAnswerIgnoredState(_State):
    def closed(self, decision: LoopResult, response: ChatResponse) -> LoopResult:
        return super().closed(decision, response).model_copy(update={"text": decision.text})


class ClosingAnswerIgnored(_Mutant):
    """Makes the declared closing call, then reports its own stop text instead of the model's
    summing-up (smolagents' provide_final_answer is the run's answer)."""

    state = _ClosingAnswerIgnoredState


class _ClosingUsageLostState(_State):
    def closed(self, decision: LoopResult, response: ChatResponse) -> LoopResult:
        return decision.model_copy(update={"text": response.text or decision.text})


class ClosingUsageNotSummed(_Mutant):
    """The closing call's answer is the run's text, but its tokens are left out of the usage."""

    state = _ClosingUsageLostState


class RefusedTurnUsageNotSummed(ReferenceToolLoop):
    """Refuses a turn that repeats a call id, as declared, without counting that turn's
    tokens."""

    def on_response(self, state: _State, response: ChatResponse) -> LoopResult | None:
        if self.duplicate_call_ids == "refuse" and response.tool_calls:
            ids = [c.id for c in response.tool_calls if c.id is not None]
            if len(ids) != len(set(ids)):
                return state.stop("error", "The model repeated a tool call id.")
        return super().on_response(state, response)


# -- issue 12: the loop mutation gaps closed last (docs/mutation.md) ---------------------------
class _ArgumentlessExecutor:
    """Hands every tool call to the kit's executor without its arguments."""

    def __init__(self, executor: Any) -> None:
        self.executor = executor

    def run(self, name: str, arguments: Any = None, *, call_id: str | None = None) -> str:
        return self.executor.run(name, None, call_id=call_id)

    async def arun(self, name: str, arguments: Any = None, *, call_id: str | None = None) -> str:
        return await self.executor.arun(name, None, call_id=call_id)


class ToolArgumentsDropped(ReferenceToolLoop):
    """Checks each call's arguments against the schema, then runs the tool without them: every
    answer is the tool's answer to nothing (``dispatch`` 23, 27; ``adispatch`` 13, 16)."""

    def new_state(self, request: LoopRequest) -> _State:
        request.executor = _ArgumentlessExecutor(request.executor)
        return super().new_state(request)


class HungCallEndsTheBatch(ReferenceToolLoop):
    """Gives up on the rest of a batch at its first timed-out call: the results of the calls
    after it in the turn are lost, and those calls go unanswered (``dispatch`` 47)."""

    def dispatch(self, state: _State, request: LoopRequest) -> list[_Outcome]:
        outcomes: list[_Outcome | None] = []
        runnable: list[tuple[int, ToolCall]] = []
        for call in state.calls:
            early = self.precheck(call, state)
            outcomes.append(early)
            if early is None:
                runnable.append((len(outcomes) - 1, call))
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(runnable)))
        try:
            futures = [(i, call, pool.submit(request.executor.run, call.name, call.arguments,
                                             call_id=call.id)) for i, call in runnable]
            concurrent.futures.wait([f for _, _, f in futures], timeout=self.tool_timeout)
            for i, call, future in futures:
                hung = not future.done()
                outcomes[i] = self.settled(call, future)
                if hung:
                    break  # the bug: the reference goes on to the next call
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        return [o for o in outcomes if o is not None]


class _RepeatEndsTurnState(_State):
    def on_response(self, response: ChatResponse, max_iterations: int) -> LoopResult | None:
        if response.tool_calls and self.iterations < max_iterations:
            kept: list[ToolCall] = []
            for call in response.tool_calls:
                if call.id is not None and call.id in {c.id for c in kept}:
                    break  # the bug: was `continue` (skip the repeat, keep the rest)
                kept.append(call)
            response = response.model_copy(update={"tool_calls": tuple(kept)})
        return super().on_response(response, max_iterations)


class RepeatedIdDropsTheRest(_Mutant):
    """Deduplicates a turn's calls by id, but stops reading the turn at the first repeat: the
    calls after it never run (``_State.on_response`` 30)."""

    state = _RepeatEndsTurnState


class _NoToolsState(_State):
    def chat_request(self) -> ChatRequest:
        return ChatRequest(messages=tuple(self.messages))


class NoToolsOffered(_Mutant):
    """Never sends the tools: every request alike, so comparing each with the first cannot
    tell (``_State.chat_request`` 4)."""

    state = _NoToolsState


class NoClosingCallAtRoundCap(ReferenceToolLoop):
    """Makes its declared closing call after a failed round and at a model-call cap, but not
    when the model asks for tools past a cap that counts rounds (``run``/``arun`` 34, 35: the
    closing call there fails inside ``close`` and the failure is swallowed)."""

    def close(self, state: _State, request: LoopRequest, decision: LoopResult) -> LoopResult:
        if decision.stop_reason == "max_iterations" and self.iteration_counts != "model_calls":
            return decision
        return super().close(state, request, decision)

    async def aclose(self, state: _State, request: LoopRequest,
                     decision: LoopResult) -> LoopResult:
        if decision.stop_reason == "max_iterations" and self.iteration_counts != "model_calls":
            return decision
        return await super().aclose(state, request, decision)


class _PartialAnswerDroppedState(_State):
    def stop(self, reason: Any, text: str | None) -> LoopResult:
        return super().stop(reason, None if reason == "length" else text)


class PartialAnswerDropped(_Mutant):
    """Stops with 'length' when the answer is cut, but without the partial answer: the client
    has nothing to show as incomplete (``_State.on_response`` 9)."""

    state = _PartialAnswerDroppedState


#: mutants of the reference loop that pass every loop case (with the default profile). The four
#: found by the first scoreboard (ModelErrorRaises, NoClientEvents, ForgetsEarlierRounds,
#: ToolsOnlyOnFirstCall) are now killed by loop.model_error, loop.events and
#: loop.conversation_kept; none escapes at present.
ESCAPES: tuple[type[ReferenceToolLoop], ...] = ()


# == history builders =============================================================================


class KeepsEverything(ReferenceHistoryBuilder):
    """The stored history is sent as it is: orphan calls and results, duplicates, id-less
    results (seed 002 AC6-AC8 before the fix)."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        return list(stored)


class DropsAllToolTraffic(ReferenceHistoryBuilder):
    """Every call and result is dropped on reload: valid, and the model forgets what its tools
    told it."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        out = []
        for m in stored:
            if isinstance(m, ToolMessage):
                continue
            if isinstance(m, AssistantMessage) and m.tool_calls:
                if m.content:
                    out.append(AssistantMessage(content=m.content))
                continue
            out.append(m)
        return out


class KeepsFailedCalls(ReferenceHistoryBuilder):
    """Failed calls and their error results are kept although the profile declares
    ``history_failed_calls="drop"`` (seed 002 AC6)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(failed_calls="keep")


class DropsTextWithFailedCalls(ReferenceHistoryBuilder):
    """An assistant message whose calls all failed is dropped whole, its text with it."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        good = {m.tool_call_id for m in stored if isinstance(m, ToolMessage) and not m.is_error}
        kept = [m for m in stored if not (isinstance(m, AssistantMessage) and m.tool_calls
                                          and not any(c.id in good for c in m.tool_calls))]
        return super().build(kept)


class NoDedupeOfResults(ReferenceHistoryBuilder):
    """Every stored result of a call is sent (seed 002 AC7's double accumulation on reload)."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        built = super().build(stored)
        out: list[Any] = []
        for m in built:
            if isinstance(m, ToolMessage):
                out += [s for s in stored if isinstance(s, ToolMessage)
                        and s.tool_call_id == m.tool_call_id]
            else:
                out.append(m)
        return out


class MergesIdlessResults(ReferenceHistoryBuilder):
    """A result without a tool_call_id is merged into the result stored before it (seed 002
    AC8): the call's answer becomes one it never gave."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        merged: list[Any] = []
        for m in stored:
            if isinstance(m, ToolMessage) and not m.tool_call_id:
                for i in range(len(merged) - 1, -1, -1):
                    if isinstance(merged[i], ToolMessage):
                        merged[i] = merged[i].model_copy(
                            update={"content": merged[i].content + "\n" + m.content})
                        break
                continue
            merged.append(m)
        return super().build(merged)


class KeepsOrphanResults(ReferenceHistoryBuilder):
    """Results whose call is in no assistant message are sent where they were stored."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        called = {c.id for m in stored if isinstance(m, AssistantMessage) for c in m.tool_calls}
        built = super().build(stored)
        for i, m in enumerate(stored):
            if isinstance(m, ToolMessage) and m.tool_call_id and m.tool_call_id not in called:
                anchor = stored[i - 1] if i else None
                at = next((j + 1 for j, b in enumerate(built) if b is anchor), len(built))
                while at < len(built) and isinstance(built[at], ToolMessage):
                    at += 1
                built.insert(at, m)
        return built


def _build(stored: Sequence[Any], *, in_place: bool = False) -> list[Any]:
    """The reference algorithm (failed calls dropped), results sent in place when asked."""
    results: dict[str, ToolMessage] = {}
    for m in stored:
        if isinstance(m, ToolMessage) and m.tool_call_id and not m.is_error:
            results.setdefault(m.tool_call_id, m)
    built: list[Any] = []
    kept: set[str] = set()
    for m in stored:
        if isinstance(m, ToolMessage):
            if in_place and m.tool_call_id in kept and results[m.tool_call_id] is m:
                built.append(m)  # where it was stored
            continue
        if not isinstance(m, AssistantMessage) or not m.tool_calls:
            built.append(m)
            continue
        calls = [c for c in m.tool_calls if c.id in results and c.id not in kept]
        if not calls and not m.content:
            continue
        built.append(AssistantMessage(content=m.content, tool_calls=tuple(calls)))
        for call in calls:
            kept.add(call.id)  # type: ignore[arg-type]
            if not in_place:
                built.append(results[call.id])  # type: ignore[index]
    return built


class KeepsStoredOrder(ReferenceHistoryBuilder):
    """Pairs and filters like the reference but sends each result where it was stored: a result
    stored after the next user message no longer follows its call."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        return _build(stored, in_place=True)


class AnswersOrphanCallsWithErrors(ReferenceHistoryBuilder):
    """Unanswered calls get a synthetic error result, added after the failed-call filter: the
    first build sends it, a rebuild drops it as a failed call (not idempotent)."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        answered = {m.tool_call_id for m in stored if isinstance(m, ToolMessage)}
        patched: list[Any] = []
        synthetic: set[str] = set()
        for m in stored:
            patched.append(m)
            if isinstance(m, AssistantMessage):
                for c in m.tool_calls:
                    if c.id and c.id not in answered:
                        synthetic.add(c.id)
                        patched.append(ToolMessage(tool_call_id=c.id, content="(interrupted)"))
        return [m.model_copy(update={"is_error": True})
                if isinstance(m, ToolMessage) and m.tool_call_id in synthetic else m
                for m in super().build(patched)]


def answer_interrupted_calls(stored: Sequence[Any], content: str, is_error: bool) -> list[Any]:
    """``stored`` with a synthesized result right after each call no result was stored for."""
    answered = {m.tool_call_id for m in stored if isinstance(m, ToolMessage)}
    patched: list[Any] = []
    for m in stored:
        patched.append(m)
        if isinstance(m, AssistantMessage):
            patched.extend(ToolMessage(tool_call_id=c.id, content=content, is_error=is_error)
                           for c in m.tool_calls if c.id and c.id not in answered)
    return patched


class AnswersInterruptedCallsAsSuccess(ReferenceHistoryBuilder):
    """Answers each interrupted call with an invented result that reads like a success
    (is_error unset), idempotently: the model is told a tool ran that never did."""

    def __init__(self) -> None:
        super().__init__(failed_calls="keep")

    def build(self, stored: Sequence[Any]) -> list[Any]:
        return super().build(answer_interrupted_calls(stored, "done", is_error=False))


class OnlyLastTurnRepaired(ReferenceHistoryBuilder):
    """Only the last turn with tool calls is repaired ("an interrupted turn is always the last
    one"); earlier turns are sent as stored. Every fixed history case has one such turn: only
    random histories catch it."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        stored = list(stored)
        last = max((i for i, m in enumerate(stored)
                    if isinstance(m, AssistantMessage) and m.tool_calls), default=0)
        return stored[:last] + super().build(stored[last:])


class ResultsInStoredOrder(ReferenceHistoryBuilder):
    """Each result is moved up to its call's assistant message, but the siblings keep the
    order they were stored in (finish order), not call order (issue 16)."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        built = super().build(stored)
        rank = {id(m): n for n, m in enumerate(stored)}
        out: list[Any] = []
        run: list[Any] = []
        for m in [*built, None]:
            if isinstance(m, ToolMessage):
                run.append(m)
                continue
            out += sorted(run, key=lambda r: rank.get(id(r), 0))
            run = []
            if m is not None:
                out.append(m)
        return out


class AnswersReusedIdTwice(ReferenceHistoryBuilder):
    """Pairs each stored turn with the next result stored for its call id: a call id reused in
    a later turn is sent on two calls, with two results (issue 16)."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        pending = [m for m in stored if isinstance(m, ToolMessage) and m.tool_call_id
                   and not m.is_error]
        built: list[Any] = []
        for m in stored:
            if isinstance(m, ToolMessage):
                continue
            if not isinstance(m, AssistantMessage) or not m.tool_calls:
                if not isinstance(m, AssistantMessage) or m.content:
                    built.append(m)
                continue
            calls, answers = [], []
            for call in m.tool_calls:
                found = next((r for r in pending if r.tool_call_id == call.id), None)
                if found is not None:
                    pending.remove(found)
                    calls.append(call)
                    answers.append(found)
            if calls or m.content:
                built.append(AssistantMessage(content=m.content, tool_calls=tuple(calls)))
                built += answers
        return built


class KeepsEmptyAssistant(ReferenceHistoryBuilder):
    """Messages without calls are kept as stored: an empty assistant message (an interrupted
    turn stored empty) is sent (issue 16; the reference did this before it)."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        built = super().build(stored)
        empty = [m for m in stored if isinstance(m, AssistantMessage) and not m.tool_calls
                 and not (m.content or "").strip()]
        for m in empty:  # back where it was stored: after the message stored before it
            i = list(stored).index(m)
            anchor = stored[i - 1] if i else None
            at = next((j + 1 for j, b in enumerate(built) if b is anchor), 0)
            while at < len(built) and isinstance(built[at], ToolMessage):
                at += 1
            built.insert(at, m)
        return built


# -- cancelled and handed_off (issue 16) -----------------------------------------------------------
class IgnoresCancel(ReferenceToolLoop):
    """Never looks at LoopRequest.cancel: the user presses stop while a tool runs and the loop
    calls the model again and completes (a stop button that does nothing)."""

    @staticmethod
    def cancelled(request: LoopRequest) -> bool:
        return False


class _CancelAsErrorState(_State):
    def stop(self, reason: Any, text: str | None) -> LoopResult:
        if reason == "cancelled":  # the user's own stop shown as a failure
            return super().stop("error", "The run was interrupted.")
        return super().stop(reason, text)


class CancelReportedAsError(_Mutant):
    """Stops when the user presses stop, but reports 'error' (the Agent Client Protocol: a
    cancel MUST end with Cancelled, even if aborting makes operations below it raise)."""

    state = _CancelAsErrorState


class HandoffRunAsATool(ReferenceToolLoop):
    """Knows no handoff tools: a call to the declared one goes through dispatch like any call
    (its tool unknown to the executor, an error result fed back) and the loop goes on to
    'completed', answering for the agent it should have handed the conversation to."""

    def __init__(self, **policy: Any) -> None:
        super().__init__(**policy)
        self.handoff_tools = ()


class _HandoffCompletedState(_State):
    def hand_off(self, response: ChatResponse, calls: Sequence[ToolCall]) -> LoopResult:
        result = super().hand_off(response, calls)
        return result.model_copy(update={"stop_reason": "completed"})


class HandoffReportedAsCompleted(_Mutant):
    """Stops on the handoff call but reports 'completed': the application takes the transfer
    note for the model's answer and never routes the conversation to the agent or human."""

    state = _HandoffCompletedState


class _HandoffUsageDroppedState(_State):
    def hand_off(self, response: ChatResponse, calls: Sequence[ToolCall]) -> LoopResult:
        return super().hand_off(response.model_copy(update={"usage": None}), calls)


class HandoffTurnUsageDropped(_Mutant):
    """Stops on the handoff call but leaves the handing-off turn's tokens out of the run's usage
    (the reference's hand_off 1: add_usage(None)): the application bills the run short."""

    state = _HandoffUsageDroppedState


LOOP_MUTANTS = sorted(
    (v for v in dict(globals()).values()
     if isinstance(v, type) and issubclass(v, ReferenceToolLoop)
     and v not in (ReferenceToolLoop, _Mutant)),
    key=lambda v: v.__name__)
HISTORY_MUTANTS = sorted(
    (v for v in dict(globals()).values()
     if isinstance(v, type) and issubclass(v, ReferenceHistoryBuilder)
     and v is not ReferenceHistoryBuilder),
    key=lambda v: v.__name__)


class KeepsCallRepeatedInTurn(ReferenceHistoryBuilder):
    """Dedupes results but not calls: a call stored twice in one turn is sent twice (Anthropic
    answers 400 '`tool_use` ids must be unique')."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        built = super().build(stored)
        turns = [m for m in stored if isinstance(m, AssistantMessage) and m.tool_calls]
        out: list[Any] = []
        for m in built:
            if isinstance(m, AssistantMessage) and m.tool_calls:
                kept = {c.id for c in m.tool_calls}
                origin = next(t for t in turns if kept <= {c.id for c in t.tool_calls})
                m = AssistantMessage(content=m.content, tool_calls=tuple(
                    c for c in origin.tool_calls if c.id in kept))
            out.append(m)
        return out

"""The reference tool loop: small, correct, and the worked example of ``docs/loops.md``.

Policy, all of it declared in its profile:
- an *iteration* is a round of tool calls in which at least one call succeeded; when the model
  asks for tools after ``max_iterations`` of them, the loop stops with ``max_iterations``
  without running them and without calling the model again;
- a round in which every call failed is a *failure round*; ``max_failure_rounds`` of them in a
  row stop the loop with ``failure_rounds``; they do not count as iterations; a success resets
  the count;
- a permanent failure (``ToolError(retryable=False)``) stops the loop after its round, with every
  call of the round answered;
- arguments are checked against the tool's JSON Schema before the tool runs: per
  ``argument_validation``, a missing required argument asks the user (``clarify``) or the
  error goes back to the model (``feed_back``);
- every call is answered exactly once, in call order, failures with ``is_error`` and a
  sanitised message (never a traceback, an exception repr or a secret);
- the calls of one turn run concurrently (``parallel=True``), each with ``tool_timeout``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Sequence
from typing import Any, Literal

from ..loop import LoopEvent, LoopRequest, LoopResult, ToolError
from ..model import AssistantMessage, ChatRequest, ChatResponse, ToolCall, ToolMessage, Usage

__all__ = ["ReferenceToolLoop"]


class _Outcome:
    __slots__ = ("call", "text", "ok", "permanent", "clarify")

    def __init__(self, call: ToolCall, text: str, *, ok: bool, permanent: bool = False,
                 clarify: bool = False) -> None:
        self.call, self.text, self.ok = call, text, ok
        self.permanent, self.clarify = permanent, clarify


class ReferenceToolLoop:
    """A tool loop that passes every loop case. Construct it with the profile's policy."""

    def __init__(self, *, max_iterations: int = 5, max_failure_rounds: int = 3,
                 permanent_failure_stops: bool = True,
                 argument_validation: Literal["clarify", "feed_back", "none"] = "feed_back",
                 parallel: bool = True, tool_timeout: float = 1.0) -> None:
        self.max_iterations = max_iterations
        self.max_failure_rounds = max_failure_rounds
        self.permanent_failure_stops = permanent_failure_stops
        self.argument_validation = argument_validation
        self.parallel = parallel
        self.tool_timeout = tool_timeout

    @classmethod
    def from_profile(cls, profile: Any) -> ReferenceToolLoop:
        return cls(max_iterations=profile.max_iterations,
                   max_failure_rounds=profile.max_failure_rounds,
                   permanent_failure_stops=profile.permanent_failure_stops,
                   argument_validation=profile.argument_validation,
                   parallel=profile.parallel_dispatch, tool_timeout=profile.tool_timeout)

    def new_state(self, request: LoopRequest) -> _State:
        """The conversation and counters of one run (override to change the policy's
        bookkeeping; the kit's negative controls do)."""
        return _State(request)

    # -- the loop -----------------------------------------------------------------------------
    def run(self, request: LoopRequest) -> LoopResult:
        state = self.new_state(request)
        while True:
            try:
                response = request.model.complete(state.chat_request())
            except Exception as exc:  # the model failed: stop, say so without its internals
                return state.stop("error", f"the model call failed ({type(exc).__name__})")
            decision = state.on_response(response, self.max_iterations)
            if decision is not None:
                return decision
            outcomes = self.dispatch(state, request)
            decision = state.on_outcomes(outcomes, self)
            if decision is not None:
                return decision

    async def arun(self, request: LoopRequest) -> LoopResult:
        state = self.new_state(request)
        while True:
            try:
                response = await request.model.acomplete(state.chat_request())
            except Exception as exc:
                return state.stop("error", f"the model call failed ({type(exc).__name__})")
            decision = state.on_response(response, self.max_iterations)
            if decision is not None:
                return decision
            outcomes = await self.adispatch(state, request)
            decision = state.on_outcomes(outcomes, self)
            if decision is not None:
                return decision

    # -- dispatch -----------------------------------------------------------------------------
    def dispatch(self, state: _State, request: LoopRequest) -> list[_Outcome]:
        outcomes: list[_Outcome | None] = []
        runnable: list[tuple[int, ToolCall]] = []
        for call in state.calls:
            early = self.precheck(call, state)
            outcomes.append(early)
            if early is None:
                runnable.append((len(outcomes) - 1, call))
        if not runnable:
            return [o for o in outcomes if o is not None]
        # parallel: all calls at once under one deadline; sequential: one deadline per call
        batches = [runnable] if self.parallel else [[item] for item in runnable]
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=len(runnable))
        try:
            for batch in batches:
                futures = [(i, call, pool.submit(request.executor.run, call.name,
                                                 call.arguments, call_id=call.id))
                           for i, call in batch]
                concurrent.futures.wait([f for _, _, f in futures], timeout=self.tool_timeout)
                for i, call, future in futures:
                    if not future.done():
                        outcomes[i] = self.failed(call, ToolError("timed out", kind="timeout"))
                        continue
                    try:
                        outcomes[i] = _Outcome(call, future.result(), ok=True)
                    except Exception as exc:
                        outcomes[i] = self.failed(call, exc)
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        return [o for o in outcomes if o is not None]

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
            except asyncio.TimeoutError:
                return self.failed(call, ToolError("timed out", kind="timeout"))
            except Exception as exc:
                return self.failed(call, exc)

        if self.parallel:
            return list(await asyncio.gather(*(one(c) for c in state.calls)))
        return [await one(c) for c in state.calls]

    def precheck(self, call: ToolCall, state: _State) -> _Outcome | None:
        """An answer without running the tool: unknown tool, bad JSON, arguments off-schema."""
        spec = state.tools.get(call.name)
        if spec is None:
            return _Outcome(call, f"Error: there is no tool named {call.name!r}. Available "
                            f"tools: {', '.join(sorted(state.tools))}.", ok=False)
        if call.parse_error or call.arguments is None:
            return _Outcome(call, f"Error: the arguments for {call.name} are not valid JSON "
                            "({}). Call the tool again with a valid JSON object.".format(
                                call.parse_error or "no object"), ok=False)
        if self.argument_validation == "none":
            return None
        from jsonschema import Draft202012Validator

        errors = sorted(Draft202012Validator(spec.parameters).iter_errors(call.arguments),
                        key=lambda e: list(e.path))
        if not errors:
            return None
        missing = [e.message for e in errors if e.validator == "required"]
        if missing and self.argument_validation == "clarify":
            return _Outcome(call, f"To use {call.name} I need more information: "
                            f"{'; '.join(missing)}. Could you tell me?", ok=False, clarify=True)
        detail = "; ".join(e.message for e in errors[:3])
        return _Outcome(call, f"Error: invalid arguments for {call.name}: {detail}. Fix them "
                        "and call the tool again.", ok=False)

    @staticmethod
    def failed(call: ToolCall, exc: BaseException) -> _Outcome:
        # Sanitised: a ToolError's own message is meant for the model; anything else is a crash
        # whose text may hold a traceback or a secret, so only its kind is said.
        if isinstance(exc, ToolError):
            if exc.kind == "timeout":
                return _Outcome(call, f"Error: {call.name} did not answer in time.", ok=False)
            return _Outcome(call, f"Error: {call.name} failed: {exc.message}", ok=False,
                            permanent=not exc.retryable)
        return _Outcome(call, f"Error: {call.name} failed unexpectedly. Try something else.",
                        ok=False)


class _State:
    """The conversation and counters of one run."""

    def __init__(self, request: LoopRequest) -> None:
        self.messages: list[Any] = list(request.messages)
        self.tools = {t.name: t for t in request.tools}
        self.tool_specs = tuple(request.tools)
        self.usage = [0, 0, 0]
        self.iterations = 0
        self.failure_rounds = 0
        self.events: list[LoopEvent] = []
        self.calls: list[ToolCall] = []
        self.text: str | None = None

    def chat_request(self) -> ChatRequest:
        return ChatRequest(messages=tuple(self.messages), tools=self.tool_specs)

    def add_usage(self, usage: Usage | None) -> None:
        if usage is not None:
            for i, value in enumerate((usage.input_tokens, usage.output_tokens,
                                       usage.total_tokens)):
                self.usage[i] += value or 0

    def stop(self, reason: Any, text: str | None) -> LoopResult:
        if text:
            kind = "clarification" if reason == "needs_clarification" else (
                "error" if reason == "error" else "text")
            self.events.append(LoopEvent(type=kind, content=text))
        self.events.append(LoopEvent(type="done", content=reason))
        return LoopResult(stop_reason=reason, text=text, events=tuple(self.events),
                          usage=Usage(input_tokens=self.usage[0], output_tokens=self.usage[1],
                                      total_tokens=self.usage[2]),
                          messages=tuple(self.messages))

    def on_response(self, response: ChatResponse, max_iterations: int) -> LoopResult | None:
        self.add_usage(response.usage)
        if not response.tool_calls:
            return self.stop("completed", response.text)
        if self.iterations >= max_iterations:
            return self.stop("max_iterations", response.text)
        seen: set[str] = set()
        calls = []
        for call in response.tool_calls:  # a repeated id is one call: run and answer it once
            if call.id is not None and call.id in seen:
                continue
            if call.id is not None:
                seen.add(call.id)
            calls.append(call)
        self.calls = calls
        self.messages.append(AssistantMessage(content=response.text, tool_calls=tuple(calls)))
        for call in calls:
            self.events.append(LoopEvent(type="tool_call", call_id=call.id, name=call.name))
        return None

    def on_outcomes(self, outcomes: Sequence[_Outcome], loop: ReferenceToolLoop) -> LoopResult | None:
        clarify = next((o for o in outcomes if o.clarify), None)
        for outcome in outcomes:
            self.messages.append(ToolMessage(tool_call_id=outcome.call.id, name=outcome.call.name,
                                             content=outcome.text, is_error=not outcome.ok))
            self.events.append(LoopEvent(type="tool_result" if outcome.ok else "tool_error",
                                         call_id=outcome.call.id, name=outcome.call.name,
                                         content=outcome.text))
        if clarify is not None:
            return self.stop("needs_clarification", clarify.text)
        if loop.permanent_failure_stops and any(o.permanent for o in outcomes):
            return self.stop("permanent_failure", "A tool failed permanently; stopping.")
        if any(o.ok for o in outcomes):
            self.failure_rounds = 0
            self.iterations += 1
            return None
        self.failure_rounds += 1
        if self.failure_rounds >= loop.max_failure_rounds:
            return self.stop("failure_rounds", "The tools kept failing; stopping.")
        return None

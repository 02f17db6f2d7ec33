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
- each model turn goes back as it came: its text, its calls and the reasoning before them
  (``AssistantMessage.reasoning``, unchanged), after the conversation the loop was given (its
  system prompt first, once, every call);
- the calls of one turn run concurrently (``parallel=True``), each with ``tool_timeout``;
- an answer without calls ends the run with ``completed``, unless the model was cut at its token
  limit (``length``) or the provider withheld the answer (``content_filter``): the loop says so;
- once the application sets ``LoopRequest.cancel`` (its stop button), the loop makes no further
  model call and stops with ``cancelled`` (checked after each round, before each model call);
  a sequential round starts no further call (each is answered as not run), and the calls
  already running are waited for (a thread cannot be stopped; they see the stop themselves);
- a call to one of ``handoff_tools`` (its own tools, not the case's) hands the conversation off:
  the call is answered with a transfer note (as the OpenAI Agents SDK and LangGraph do), the
  turn's other calls are not run, and the run stops with ``handed_off``.

The policies real frameworks differ on are options too, each defaulting to the above (see
docs/loops.md, "Profile fields"): ``iteration_counts`` (what the cap counts),
``max_failure_rounds=None`` and ``tool_failure_budget``, ``crash_policy="abort"``,
``duplicate_call_ids="refuse"``, ``closing_call`` (and ``closing_call_after``),
``tool_timeout=None``, ``final_answer_tool``, ``tool_retries`` and
``undeclared_arguments="drop"``; ``model_timeout`` (none by default: the client's read timeout
is the deadline) puts a deadline of the loop's own on each model call.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Sequence
from typing import Any, Literal

from pytest_toolcall.core.loop import LoopEvent, LoopRequest, LoopResult, ToolError
from pytest_toolcall.core.model import (
    AssistantMessage,
    ChatRequest,
    ChatResponse,
    ToolCall,
    ToolMessage,
    Usage,
)

__all__ = ["ReferenceToolLoop"]


#: the answer to a call a sequential round did not start because the user had pressed stop
_NOT_RUN = ToolError("the user stopped the run before this call ran")


class _Outcome:
    __slots__ = ("call", "text", "ok", "permanent", "clarify", "crashed")

    def __init__(self, call: ToolCall, text: str, *, ok: bool, permanent: bool = False,
                 clarify: bool = False, crashed: str | None = None) -> None:
        self.call, self.text, self.ok = call, text, ok
        self.permanent, self.clarify = permanent, clarify
        self.crashed = crashed  # the exception's type name, when the tool crashed


class ReferenceToolLoop:
    """A tool loop that passes every loop case. Construct it with the profile's policy."""

    def __init__(self, *, max_iterations: int = 5, max_failure_rounds: int = 3,
                 permanent_failure_stops: bool = True,
                 argument_validation: Literal["clarify", "feed_back", "none"] = "feed_back",
                 parallel: bool = True, tool_timeout: float | None = 1.0,
                 iteration_counts: Literal["successful_rounds", "rounds",
                                           "model_calls"] = "successful_rounds",
                 tool_failure_budget: int | None = None,
                 crash_policy: Literal["feed_back", "abort"] = "feed_back",
                 duplicate_call_ids: Literal["dedupe", "refuse"] = "dedupe",
                 closing_call: bool = False, final_answer_tool: str | None = None,
                 handoff_tools: Sequence[str] = (),
                 closing_call_after: Sequence[str] = ("max_iterations", "failure_rounds",
                                                      "permanent_failure"),
                 tool_retries: int = 0,
                 undeclared_arguments: Literal["refuse", "drop"] = "refuse",
                 model_timeout: float | None = None) -> None:
        self.max_iterations = max_iterations
        self.max_failure_rounds = max_failure_rounds
        self.permanent_failure_stops = permanent_failure_stops
        self.argument_validation = argument_validation
        self.parallel = parallel
        self.tool_timeout = tool_timeout
        self.iteration_counts = iteration_counts
        self.tool_failure_budget = tool_failure_budget
        self.crash_policy = crash_policy
        self.duplicate_call_ids = duplicate_call_ids
        self.closing_call = closing_call
        self.final_answer_tool = final_answer_tool
        self.handoff_tools = tuple(handoff_tools)
        self.closing_call_after = frozenset(closing_call_after)
        self.tool_retries = tool_retries
        self.undeclared_arguments = undeclared_arguments
        self.model_timeout = model_timeout

    @classmethod
    def from_profile(cls, profile: Any) -> ReferenceToolLoop:
        return cls(max_iterations=profile.max_iterations,
                   max_failure_rounds=profile.max_failure_rounds,
                   permanent_failure_stops=profile.permanent_failure_stops,
                   argument_validation=profile.argument_validation,
                   parallel=profile.parallel_dispatch, tool_timeout=profile.tool_timeout,
                   iteration_counts=profile.iteration_counts,
                   tool_failure_budget=profile.tool_failure_budget,
                   crash_policy=profile.crash_policy,
                   duplicate_call_ids=profile.duplicate_call_ids,
                   closing_call=profile.closing_call,
                   final_answer_tool=profile.final_answer_tool,
                   handoff_tools=getattr(profile, "handoff_tools", ()),
                   closing_call_after=profile.closing_call_after,
                   tool_retries=profile.tool_retries,
                   undeclared_arguments=profile.undeclared_arguments,
                   model_timeout=getattr(profile, "model_timeout", None))

    def new_state(self, request: LoopRequest) -> _State:
        """The conversation and counters of one run (override to change the policy's
        bookkeeping; the kit's negative controls do)."""
        return _State(request)

    # -- the loop -----------------------------------------------------------------------------
    def run(self, request: LoopRequest) -> LoopResult:
        state = self.new_state(request)
        while True:
            if self.cancelled(request):  # after each round, before each model call
                return state.stop("cancelled", None)
            if self.out_of_model_calls(state):
                return self.close(state, request, state.stop("max_iterations", None))
            try:
                state.model_calls += 1
                response = self.complete(request.model, state.chat_request())
            except Exception as exc:  # the model failed: stop, say so without its internals
                return state.stop("error", f"the model call failed ({type(exc).__name__})")
            decision = self.on_response(state, response)
            if decision is not None:
                return self.close(state, request, decision)
            outcomes = self.dispatch(state, request)
            decision = state.on_outcomes(outcomes, self)
            if decision is not None:
                return self.close(state, request, decision)

    async def arun(self, request: LoopRequest) -> LoopResult:
        state = self.new_state(request)
        while True:
            if self.cancelled(request):
                return state.stop("cancelled", None)
            if self.out_of_model_calls(state):
                return await self.aclose(state, request, state.stop("max_iterations", None))
            try:
                state.model_calls += 1
                response = await self.acomplete(request.model, state.chat_request())
            except Exception as exc:
                return state.stop("error", f"the model call failed ({type(exc).__name__})")
            decision = self.on_response(state, response)
            if decision is not None:
                return await self.aclose(state, request, decision)
            outcomes = await self.adispatch(state, request)
            decision = state.on_outcomes(outcomes, self)
            if decision is not None:
                return await self.aclose(state, request, decision)

    def complete(self, model: Any, chat: ChatRequest) -> ChatResponse:
        """One model call, under ``model_timeout`` when the profile declares one: a worker
        thread's result is waited for that long, then abandoned (it raises TimeoutError)."""
        if self.model_timeout is None:
            return model.complete(chat)
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        try:
            return pool.submit(model.complete, chat).result(timeout=self.model_timeout)
        finally:
            pool.shutdown(wait=False)

    async def acomplete(self, model: Any, chat: ChatRequest) -> ChatResponse:
        """One model call, cancelled after ``model_timeout`` when the profile declares one."""
        return await asyncio.wait_for(model.acomplete(chat), self.model_timeout)

    # -- the declared policies around a round -----------------------------------------------
    @staticmethod
    def cancelled(request: LoopRequest) -> bool:
        """The application pressed stop: ``LoopRequest.cancel`` is set (``is_set()`` never
        blocks, so the async path asks it too)."""
        signal = getattr(request, "cancel", None)
        return signal is not None and bool(signal.is_set())

    def out_of_model_calls(self, state: _State) -> bool:
        """``iteration_counts="model_calls"``: the cap counts model calls, checked before each."""
        return self.iteration_counts == "model_calls" and state.model_calls >= self.max_iterations

    def on_response(self, state: _State, response: ChatResponse) -> LoopResult | None:
        if self.final_answer_tool:
            final = next((c for c in response.tool_calls if c.name == self.final_answer_tool),
                         None)
            if final is not None:  # the loop's own tool ends the run with its answer
                state.add_usage(response.usage)
                answer = (final.arguments or {}).get("answer") \
                    if isinstance(final.arguments, dict) else None
                return state.stop("completed", str(answer) if answer is not None else None)
        if self.handoff_tools:
            handoff = [c for c in response.tool_calls if c.name in self.handoff_tools]
            if handoff:  # the conversation goes to another agent or a human: stop here
                return state.hand_off(response, handoff)
        if self.duplicate_call_ids == "refuse" and response.tool_calls:
            ids = [c.id for c in response.tool_calls if c.id is not None]
            if len(ids) != len(set(ids)):  # fail closed: run none of them, send nothing on
                state.add_usage(response.usage)
                return state.stop("error", "The model repeated a tool call id; refusing to "
                                           "run those calls.")
        cap = self.max_iterations if self.iteration_counts != "model_calls" else 10**9
        return state.on_response(response, cap)

    def close(self, state: _State, request: LoopRequest, decision: LoopResult) -> LoopResult:
        """``closing_call``: after a cap or a permanent failure, one more model call, without
        tools, whose answer is the run's text."""
        if not self.closing_call or decision.stop_reason not in self.closing_call_after:
            return decision
        try:
            response = request.model.complete(state.closing_request())
        except Exception:
            return decision
        return state.closed(decision, response)

    async def aclose(self, state: _State, request: LoopRequest,
                     decision: LoopResult) -> LoopResult:
        if not self.closing_call or decision.stop_reason not in self.closing_call_after:
            return decision
        try:
            response = await request.model.acomplete(state.closing_request())
        except Exception:
            return decision
        return state.closed(decision, response)

    # -- dispatch -----------------------------------------------------------------------------
    def dispatch(self, state: _State, request: LoopRequest) -> list[_Outcome]:
        outcomes: list[_Outcome | None] = []
        runnable: list[tuple[int, ToolCall]] = []
        for call in state.calls:
            call = self.declared_only(call, state)
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
                if not self.parallel and self.cancelled(request):  # stopped: no further call
                    for i, call in batch:
                        outcomes[i] = self.failed(call, _NOT_RUN)
                    continue
                futures = [(i, call, pool.submit(self.run_tool, request.executor, call))
                           for i, call in batch]
                concurrent.futures.wait([f for _, _, f in futures], timeout=self.tool_timeout)
                for i, call, future in futures:
                    outcomes[i] = self.settled(call, future)
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        return [o for o in outcomes if o is not None]

    async def adispatch(self, state: _State, request: LoopRequest) -> list[_Outcome]:
        async def one(call: ToolCall) -> _Outcome:
            call = self.declared_only(call, state)
            early = self.precheck(call, state)
            if early is not None:
                return early
            try:
                text = await asyncio.wait_for(self.arun_tool(request.executor, call),
                                              self.tool_timeout)
                return _Outcome(call, text, ok=True)
            except asyncio.TimeoutError:
                return self.failed(call, ToolError("timed out", kind="timeout"))
            except Exception as exc:
                return self.failed(call, exc)

        if self.parallel:
            return list(await asyncio.gather(*(one(c) for c in state.calls)))
        return [self.failed(c, _NOT_RUN) if self.cancelled(request) else await one(c)
                for c in state.calls]

    def run_tool(self, executor: Any, call: ToolCall) -> str:
        """The call run, and run again up to ``tool_retries`` times after a retryable
        ToolError (the model is told the last attempt's outcome)."""
        for attempt in range(self.tool_retries + 1):
            try:
                return executor.run(call.name, call.arguments, call_id=call.id)
            except ToolError as exc:
                if attempt == self.tool_retries or not _retry(exc):
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    async def arun_tool(self, executor: Any, call: ToolCall) -> str:
        for attempt in range(self.tool_retries + 1):
            try:
                return await executor.arun(call.name, call.arguments, call_id=call.id)
            except ToolError as exc:
                if attempt == self.tool_retries or not _retry(exc):
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def declared_only(self, call: ToolCall, state: _State) -> ToolCall:
        """Under ``undeclared_arguments="drop"``, the call without the keys its tool's schema
        does not declare (where the schema forbids others); the call itself otherwise."""
        spec = state.tools.get(call.name)
        if (self.undeclared_arguments != "drop" or spec is None
                or not isinstance(call.arguments, dict)
                or spec.parameters.get("additionalProperties") is not False):
            return call
        declared = spec.parameters.get("properties") or {}
        return call.model_copy(update={"arguments": {
            k: v for k, v in call.arguments.items() if k in declared}})

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

    def settled(self, call: ToolCall, future: concurrent.futures.Future[str]) -> _Outcome:
        """The outcome of a call whose deadline has passed: its result, its failure, or a
        timeout if it is still running."""
        if not future.done():
            return self.failed(call, ToolError("timed out", kind="timeout"))
        try:
            return _Outcome(call, future.result(), ok=True)
        except Exception as exc:
            return self.failed(call, exc)

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
                        ok=False, crashed=type(exc).__name__)


def _retry(exc: ToolError) -> bool:
    """A failure worth running again: a retryable error of the tool's own (not a timeout)."""
    return exc.retryable and exc.kind == "execution"


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
        self.model_calls = 0
        self.tool_failures: dict[str, int] = {}

    def closing_request(self) -> ChatRequest:
        return ChatRequest(messages=tuple(self.messages))

    def closed(self, decision: LoopResult, response: ChatResponse) -> LoopResult:
        self.add_usage(response.usage)
        return decision.model_copy(update={
            "text": response.text or decision.text,
            "usage": Usage(input_tokens=self.usage[0], output_tokens=self.usage[1],
                           total_tokens=self.usage[2])})

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

    def hand_off(self, response: ChatResponse, calls: Sequence[ToolCall]) -> LoopResult:
        """Stop with ``handed_off``: the handoff calls are kept and answered with a transfer note
        (so the stored conversation is valid to send again); the turn's other calls never ran
        and are left out."""
        self.add_usage(response.usage)
        self.messages.append(AssistantMessage(content=response.text, tool_calls=tuple(calls),
                                              reasoning=response.reasoning))
        for call in calls:
            note = f"Transferred: {call.name} took over the conversation."
            self.messages.append(ToolMessage(tool_call_id=call.id, name=call.name, content=note))
            self.events.append(LoopEvent(type="tool_call", call_id=call.id, name=call.name))
            self.events.append(LoopEvent(type="tool_result", call_id=call.id, name=call.name,
                                         content=note))
        return self.stop("handed_off", response.text)

    def on_response(self, response: ChatResponse, max_iterations: int) -> LoopResult | None:
        self.add_usage(response.usage)
        if not response.tool_calls:
            # an answer cut at the token limit, or withheld by the provider, is no completion
            if response.finish_reason in ("length", "content_filter"):
                return self.stop(response.finish_reason, response.text)
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
        # the reasoning that came before the calls goes back with them, unchanged (Anthropic's
        # signed thinking blocks, Responses reasoning items, DeepSeek's reasoning_content)
        self.messages.append(AssistantMessage(content=response.text, tool_calls=tuple(calls),
                                              reasoning=response.reasoning))
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
        crashed = next((o for o in outcomes if o.crashed), None)
        if crashed is not None and getattr(loop, "crash_policy", "feed_back") == "abort":
            # every call of the round is answered above; the stop names the type only
            return self.stop("error", f"{crashed.call.name} crashed ({crashed.crashed}); "
                                      "stopping.")
        if loop.permanent_failure_stops and any(o.permanent for o in outcomes):
            return self.stop("permanent_failure", "A tool failed permanently; stopping.")
        budget = getattr(loop, "tool_failure_budget", None)
        over_budget = False
        for outcome in outcomes:
            if not outcome.ok:
                n = self.tool_failures.get(outcome.call.name, 0) + 1
                self.tool_failures[outcome.call.name] = n
                over_budget = over_budget or (budget is not None and n > budget)
        if any(o.ok for o in outcomes) or getattr(loop, "iteration_counts", "") == "rounds":
            self.iterations += 1
        if any(o.ok for o in outcomes):
            self.failure_rounds = 0
        else:
            self.failure_rounds += 1
            if loop.max_failure_rounds is not None \
                    and self.failure_rounds >= loop.max_failure_rounds:
                return self.stop("failure_rounds", "The tools kept failing; stopping.")
        if over_budget:
            return self.stop("failure_rounds", "A tool failed more often than its budget "
                                               "allows; stopping.")
        return None

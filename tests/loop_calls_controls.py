"""Negative controls of the model-call and cancellation loop cases (issue 29, families 2 and 6),
and a correct loop of another shape that passes them.

Each control is the reference :class:`ReferenceToolLoop` with one bug modelled on a public
report of the census (conformance/census.json), cited in its docstring. :data:`LOOP_CONTROLS`
pairs each with the case that must catch it, the clause, the profile fields it runs with and the
dialects it is run on; ``tests/test_loop_calls_controls.py`` runs them.

:class:`TaskLoop` is the correct loop: async first (the sync path drives the same coroutine), an
explicit retry policy around the model call (retryable errors only, model_retries at most, a
delay capped at max_retry_wait or given up on) and tool calls as tasks it cancels and awaits
when the user presses stop. It shares no code with the reference loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from collections.abc import Sequence
from typing import Any

from pytest_toolcall.core.errors import ProviderError
from pytest_toolcall.core.loop import LoopEvent, LoopRequest, LoopResult, ToolError
from pytest_toolcall.core.model import (
    AssistantMessage,
    ChatRequest,
    ChatResponse,
    ToolCall,
    ToolMessage,
    Usage,
)
from pytest_toolcall.reference.loop import ReferenceToolLoop, _Outcome, _State

# == model calls retried wrongly =================================================================


class _RetryingModel:
    """The model behind a loop whose own retry policy is ``should_retry(exc, attempt)`` and
    ``delay(exc)`` (seconds before the retry)."""

    def __init__(self, model: Any, loop: _RetryPolicy) -> None:
        self.model, self.loop = model, loop

    def complete(self, request: Any) -> Any:
        attempt = 0
        while True:
            try:
                return self.model.complete(request)
            except Exception as exc:
                if not self.loop.should_retry(exc, attempt):
                    raise
                time.sleep(self.loop.delay(exc))
                attempt += 1

    async def acomplete(self, request: Any) -> Any:
        attempt = 0
        while True:
            try:
                return await self.model.acomplete(request)
            except Exception as exc:
                if not self.loop.should_retry(exc, attempt):
                    raise
                await asyncio.sleep(self.loop.delay(exc))
                attempt += 1


class _RetryPolicy(ReferenceToolLoop):
    """The reference loop with a retry policy of its own around the model call (declared
    ``model_retries``): subclasses break one part of it."""

    retries = 2

    @classmethod
    def from_profile(cls, profile: Any) -> Any:
        loop = super().from_profile(profile)
        loop.retries = profile.model_retries
        return loop

    def should_retry(self, exc: BaseException, attempt: int) -> bool:
        return isinstance(exc, ProviderError) and exc.retryable and attempt < self.retries

    def delay(self, exc: BaseException) -> float:
        return min(getattr(exc, "retry_after", None) or 0.0, 0.05)

    def new_state(self, request: LoopRequest) -> _State:
        request.model = _RetryingModel(request.model, self)
        return super().new_state(request)


class RetriesEveryModelError(_RetryPolicy):
    """Retries every failed model call, a 400 too: the retry loop never asks whether the error
    can pass (BerriAI/litellm #19216: the Router retried BadRequestError and other 4xx;
    freelabz/secator #1251: context-length 400s retried three times with backoff)."""

    def should_retry(self, exc: BaseException, attempt: int) -> bool:
        return attempt < self.retries


#: the retryable statuses of agentscope-ai/QwenPaw's retrying chat model before its fix
_STATUSES_WITHOUT_529 = frozenset({408, 409, 429, 500, 502, 503, 504})


class OverloadedNotRetried(_RetryPolicy):
    """Retries by status code from a list without Anthropic's 529: an overloaded API kills the
    run at once (agentscope-ai/QwenPaw #1891: RETRYABLE_STATUS_CODES omitted 529)."""

    def should_retry(self, exc: BaseException, attempt: int) -> bool:
        return (isinstance(exc, ProviderError) and exc.status in _STATUSES_WITHOUT_529
                and attempt < self.retries)


class RetriesRateLimitsOnly(_RetryPolicy):
    """Retries a 429 and nothing else: an overloaded provider (Anthropic's 529, a 503) ends the
    run at once (vercel/ai #7546: overloaded errors, in streams too, not retried)."""

    def should_retry(self, exc: BaseException, attempt: int) -> bool:
        return isinstance(exc, ProviderError) and exc.status == 429 and attempt < self.retries


class RetriesRateLimitsForever(_RetryPolicy):
    """Counts its retry budget for server errors only: a 429 is retried for as long as it
    comes (builderz-labs/marketing-dashboard #11: a 429 retry storm in which no request
    succeeds)."""

    def should_retry(self, exc: BaseException, attempt: int) -> bool:
        if isinstance(exc, ProviderError) and exc.status == 429:
            return True
        return super().should_retry(exc, attempt)


class SleepsOutRetryAfter(_RetryPolicy):
    """Waits whatever delay the 429 names before its retry, uncapped: asked for an hour, the
    run sleeps an hour (NousResearch/hermes-agent #26293: the Retry-After wait hung
    rate-limited accounts)."""

    def delay(self, exc: BaseException) -> float:
        return float(getattr(exc, "retry_after", None) or 0.0)


class NoModelDeadline(ReferenceToolLoop):
    """Declares a deadline on the model call (model_timeout) and never puts it on the call: a
    provider that takes the request and never answers hangs the run (openonion/connectonion
    #1116: no read timeout, the agent froze and its iteration cap never triggered;
    agent0ai/agent-zero #1882: a stalled stream hung the turn for hours)."""

    def complete(self, model: Any, chat: ChatRequest) -> ChatResponse:
        return model.complete(chat)

    async def acomplete(self, model: Any, chat: ChatRequest) -> ChatResponse:
        return await model.acomplete(chat)


# == a cancelled run that leaves its tools running ================================================


def _stopped(call: ToolCall) -> _Outcome:
    return ReferenceToolLoop.failed(call, ToolError("the user stopped the run", kind="execution"))


class ReturnsWhileToolsRun(ReferenceToolLoop):
    """Watches the stop button while the round's tools run and returns as soon as it is
    pressed, leaving the calls still running in their threads (pydantic/pydantic-ai #3960:
    tool tasks stay alive after Agent.run is cancelled)."""

    def dispatch(self, state: _State, request: LoopRequest) -> list[_Outcome]:
        calls = list(state.calls)
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=len(calls))
        futures = [pool.submit(request.executor.run, c.name, c.arguments, call_id=c.id)
                   for c in calls]
        try:
            while not all(f.done() for f in futures) and not self.cancelled(request):
                concurrent.futures.wait(futures, timeout=0.005,
                                        return_when=concurrent.futures.FIRST_COMPLETED)
        finally:
            pool.shutdown(wait=False)
        return [_done(call, future) for call, future in zip(calls, futures)]


def _done(call: ToolCall, future: Any) -> _Outcome:
    if not future.done() or future.cancelled():
        return _stopped(call)
    try:
        return _Outcome(call, future.result(), ok=True)
    except Exception as exc:  # noqa: BLE001 - any tool failure is fed back
        return ReferenceToolLoop.failed(call, exc)


class AsyncReturnsWhileToolsRun(ReferenceToolLoop):
    """The async path of the same bug: the round's tool tasks are left running when the user
    presses stop (openai/openai-agents-python #574: the agent keeps calling tools in the
    background after the consumer stops)."""

    cancel_tasks = False

    async def adispatch(self, state: _State, request: LoopRequest) -> list[_Outcome]:
        calls = list(state.calls)
        tasks = [asyncio.ensure_future(request.executor.arun(c.name, c.arguments, call_id=c.id))
                 for c in calls]
        while not all(t.done() for t in tasks) and not self.cancelled(request):
            await asyncio.wait(tasks, timeout=0.005, return_when=asyncio.FIRST_COMPLETED)
        if self.cancel_tasks:
            for task in tasks:
                task.cancel()  # ... and never awaited: they end after the run has returned
        return [_done(call, task) for call, task in zip(calls, tasks)]


class AsyncCancelsWithoutAwaiting(AsyncReturnsWhileToolsRun):
    """Cancels the round's tool tasks on a stop but returns without awaiting them: they are
    still running when the run returns (pydantic/pydantic-ai #5132: cancellation cleanup
    returns before internal tasks finish)."""

    cancel_tasks = True


class StartsNextCallAfterStop(ReferenceToolLoop):
    """Runs a round's calls one after the other and never looks at the stop button between
    them: the next tool starts after the user pressed stop (microsoft/agent-framework-go
    #1076: with sequential tool execution the second tool still ran after cancellation)."""

    def dispatch(self, state: _State, request: LoopRequest) -> list[_Outcome]:
        outcomes = []
        for call in state.calls:
            try:
                text = request.executor.run(call.name, call.arguments, call_id=call.id)
                outcomes.append(_Outcome(call, text, ok=True))
            except Exception as exc:  # noqa: BLE001 - any tool failure is fed back
                outcomes.append(ReferenceToolLoop.failed(call, exc))
        return outcomes


class AsyncStartsNextCallAfterStop(ReferenceToolLoop):
    """The async path of the same bug: awaits a round's calls one by one without looking at
    the stop button between them (micro/go-micro #3096: tool calls ran after the context was
    cancelled)."""

    async def adispatch(self, state: _State, request: LoopRequest) -> list[_Outcome]:
        outcomes = []
        for call in state.calls:
            try:
                text = await request.executor.arun(call.name, call.arguments, call_id=call.id)
                outcomes.append(_Outcome(call, text, ok=True))
            except Exception as exc:  # noqa: BLE001 - any tool failure is fed back
                outcomes.append(ReferenceToolLoop.failed(call, exc))
        return outcomes


# == a correct loop of another shape ===============================================================


class TaskLoop:
    """A tool loop written apart from the reference: one coroutine drives the run (``run``
    drives it with ``asyncio.run`` and sends sync calls to threads), the retry policy is a
    function of its own, a round's calls are tasks that a stop cancels and awaits.

    Policy: retryable model errors (``ProviderError.retryable``) are retried ``model_retries``
    times, after the delay the provider names or a short backoff, and never after a delay
    longer than ``max_retry_wait`` (the loop gives up instead); other errors stop the run with
    'error'; a pressed stop cancels the round's tools, waits for them and stops with
    'cancelled'."""

    def __init__(self, *, model_retries: int = 2, max_retry_wait: float = 0.2,
                 tool_timeout: float = 1.0, max_rounds: int = 5,
                 model_timeout: float = 30.0) -> None:
        self.model_retries, self.max_retry_wait = model_retries, max_retry_wait
        self.tool_timeout, self.max_rounds = tool_timeout, max_rounds
        self.model_timeout = model_timeout

    @classmethod
    def from_profile(cls, profile: Any) -> TaskLoop:
        return cls(model_retries=profile.model_retries, max_retry_wait=profile.max_retry_wait,
                   tool_timeout=profile.tool_timeout or 1.0, max_rounds=profile.max_iterations,
                   model_timeout=profile.model_timeout or 30.0)

    def run(self, request: LoopRequest) -> LoopResult:
        return asyncio.run(self._drive(request, threaded=True))

    async def arun(self, request: LoopRequest) -> LoopResult:
        return await self._drive(request, threaded=False)

    # -- the run --------------------------------------------------------------------------------
    async def _drive(self, request: LoopRequest, *, threaded: bool) -> LoopResult:
        messages: list[Any] = list(request.messages)
        totals = [0, 0, 0]

        def end(reason: Any, text: str | None = None) -> LoopResult:
            return LoopResult(stop_reason=reason, text=text, messages=tuple(messages),
                              events=(LoopEvent(type="done", content=reason),),
                              usage=Usage(input_tokens=totals[0], output_tokens=totals[1],
                                          total_tokens=totals[2]))

        for _ in range(self.max_rounds + 1):
            if _pressed(request):
                return end("cancelled")
            chat = ChatRequest(messages=tuple(messages), tools=tuple(request.tools))
            try:
                response = await self._model_call(request, chat, threaded)
            except Exception as exc:  # noqa: BLE001 - a failed model call stops the run
                return end("error", f"the model call failed ({type(exc).__name__})")
            if response.usage is not None:
                for i, n in enumerate((response.usage.input_tokens, response.usage.output_tokens,
                                       response.usage.total_tokens)):
                    totals[i] += n or 0
            if not response.tool_calls:
                reason = response.finish_reason if response.finish_reason in (
                    "length", "content_filter") else "completed"
                return end(reason, response.text)
            messages.append(AssistantMessage(content=response.text,
                                             tool_calls=response.tool_calls))
            messages.extend(await self._round(request, response.tool_calls, threaded))
        return end("max_iterations")

    async def _model_call(self, request: LoopRequest, chat: ChatRequest,
                          threaded: bool) -> ChatResponse:
        for attempt in range(self.model_retries + 1):
            try:
                return await asyncio.wait_for(self._one_call(request, chat, threaded),
                                              self.model_timeout)
            except asyncio.TimeoutError:  # the call never answered: as a read timeout
                if attempt >= self.model_retries:
                    raise
            except ProviderError as exc:
                wait = _retry_wait(exc, attempt, self.model_retries, self.max_retry_wait)
                if wait is None:
                    raise
                await asyncio.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    async def _one_call(request: LoopRequest, chat: ChatRequest,
                        threaded: bool) -> ChatResponse:
        if not threaded:
            return await request.model.acomplete(chat)
        # a thread of its own, not asyncio.to_thread: asyncio.run joins the default executor's
        # threads, and a call that never answers must not hold the run past its deadline
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        try:
            return await asyncio.wrap_future(pool.submit(request.model.complete, chat))
        finally:
            pool.shutdown(wait=False)

    async def _round(self, request: LoopRequest, calls: Sequence[ToolCall],
                     threaded: bool) -> list[ToolMessage]:
        tasks = [asyncio.ensure_future(self._tool(request, call, threaded)) for call in calls]
        pending = set(tasks)
        while pending:
            _, pending = await asyncio.wait(pending, timeout=0.005)
            if pending and _pressed(request):
                if not threaded:  # a thread cannot be cancelled: wait for it to see the stop
                    for task in pending:
                        task.cancel()
                await asyncio.gather(*pending, return_exceptions=True)
                break
        return [_answer(call, task) for call, task in zip(calls, tasks)]

    async def _tool(self, request: LoopRequest, call: ToolCall, threaded: bool) -> str:
        if threaded:
            work = asyncio.to_thread(request.executor.run, call.name, call.arguments,
                                     call_id=call.id)
        else:
            work = request.executor.arun(call.name, call.arguments, call_id=call.id)
        return await asyncio.wait_for(work, self.tool_timeout)


def _retry_wait(exc: ProviderError, attempt: int, retries: int, cap: float) -> float | None:
    """Seconds to wait before retrying, or None: not retryable, out of retries, or the provider
    asks for longer than the loop will wait."""
    if not exc.retryable or attempt >= retries:
        return None
    wait = exc.retry_after if exc.retry_after is not None else 0.02 * 2 ** attempt
    return None if wait > cap else wait


def _pressed(request: LoopRequest) -> bool:
    return request.cancel is not None and bool(request.cancel.is_set())


def _answer(call: ToolCall, task: asyncio.Future[str]) -> ToolMessage:
    def message(text: str, failed: bool) -> ToolMessage:
        return ToolMessage(tool_call_id=call.id, name=call.name, content=text, is_error=failed)

    if task.cancelled():
        return message("Error: the user stopped the run before this call finished.", True)
    error = task.exception()
    if isinstance(error, asyncio.TimeoutError):
        return message(f"Error: {call.name} timed out.", True)
    if isinstance(error, ToolError):
        return message(f"Error: {error.message}", True)
    if error is not None:
        return message(f"Error: {call.name} failed ({type(error).__name__}).", True)
    return message(task.result(), False)


#: (case id, control, clause, profile fields, dialects): the rows
#: tests/test_loop_calls_controls.py runs, each through both interfaces and both model modes
RETRIES = {"model_retries": 2}
#: a loop that sleeps out the hour is stopped at the case's deadline: keep it short
SLEEPER = {"model_retries": 1, "max_retry_wait": 0.05, "timeout": 0.25}
ALL = ("openai", "openai-responses", "anthropic", "gemini")
#: a loop that declares it runs a round's calls one after the other
SEQUENTIAL = {"parallel_dispatch": False}
#: a declared deadline the control does not keep: the case's deadline ends the hang, whatever
#: it is (the case's clause is loop.model_deadline); 0.15 s, three times the declared 0.05 s
#: (0.3 s before: 12 runs waiting 1.8 s more, in-process, where no wire adds time)
DEADLINE = {"model_timeout": 0.05, "timeout": 0.15}
#: controls that can fail in-process only: through the fake the hang is a stall, which the
#: reference adapter's read timeout ends at once (the client's deadline: loop.model_timeout)
INPROCESS_ONLY = {"NoModelDeadline"}
LOOP_CONTROLS: list[tuple[str, type[ReferenceToolLoop], str, dict[str, Any], tuple[str, ...]]] = [
    ("loop.model_error_not_retried", RetriesEveryModelError, "loop.model_calls", RETRIES, ALL),
    # 503 on the other wires is in the list: only Anthropic's 529 shows the bug
    ("loop.overloaded_retried", OverloadedNotRetried, "loop.stop_reason", RETRIES,
     ("anthropic",)),
    ("loop.overloaded_retried", RetriesRateLimitsOnly, "loop.stop_reason", RETRIES,
     (*ALL, "ollama")),
    ("loop.rate_limit_retries_bounded", RetriesRateLimitsForever, "loop.stop_reason", RETRIES,
     ALL),
    ("loop.retry_after_capped", SleepsOutRetryAfter, "loop.retry_cap", SLEEPER, ALL),
    ("loop.model_deadline", NoModelDeadline, "loop.model_deadline", DEADLINE, (*ALL, "ollama")),
    ("loop.cancelled_tools_stopped", ReturnsWhileToolsRun, "loop.tools_stopped", {},
     (*ALL, "ollama")),
    ("loop.cancelled_tools_stopped", AsyncReturnsWhileToolsRun, "loop.tools_stopped", {},
     (*ALL, "ollama")),
    ("loop.cancelled_tools_stopped", AsyncCancelsWithoutAwaiting, "loop.tools_stopped", {},
     ("openai",)),
    ("loop.cancelled_tools_stopped", StartsNextCallAfterStop, "loop.tools_stopped", SEQUENTIAL,
     ("openai", "anthropic")),
    ("loop.cancelled_tools_stopped", AsyncStartsNextCallAfterStop, "loop.tools_stopped",
     SEQUENTIAL, ("openai", "anthropic")),
]

#: (case id, dialect): the fake plays no such error there (Ollama documents no 429 and no
#: context-length error): the case skips (looprun.inexpressible)
INEXPRESSIBLE = {(case_id, "ollama") for case_id in (
    "loop.model_error_not_retried", "loop.rate_limit_retries_bounded", "loop.retry_after_capped")}

#: profile fields the cases need claimed (the default profile skips the cancel case)
CASE_PROFILE: dict[str, dict[str, Any]] = {"loop.cancelled_tools_stopped": {"cancellation": True},
                                           "loop.model_deadline": {"model_timeout": 0.1}}

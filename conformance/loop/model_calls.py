"""The ``loop`` family's cases on the model call itself failing inside a run, and on a run the
user cancels while its tools work (issue 29, families 2 and 6).

What a correct loop does, decided from the census (conformance/census.json, classes
``model_call_errors`` and ``cancellation``) where implementations differ:

- it retries only what may succeed later (429, 5xx, Anthropic's 529 overloaded, a timeout), and
  at most ``Profile.model_retries`` times; a 400 is the request's own fault and fails the same
  way every time, so it is never retried;
- it never sleeps out a delay it will not honour: asked for an hour, it gives up at once or waits
  ``Profile.max_retry_wait`` at most;
- a run it returns from after the user pressed stop leaves no tool of its running.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_toolcall.conformance.loop.checks import _constant
from pytest_toolcall.conformance.loop.policy import (
    ASK,
    _call,
    _final,
    _tools,
    _turn,
    by_policy,
    model_calls,
    stop_reason,
)

from pytest_toolcall.cases import Case, ErrorReply, Turn, check, make_case
from pytest_toolcall.cases.tools import ok
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.run.looprun import BoundedScript, CancelScript, LoopRun, LoopScript

__all__ = ["CASES"]

#: the delay the provider asks for in loop.retry_after_capped: an hour (no case waits it)
HOUR = 3600
#: what a loop may take beyond its declared waits in loop.retry_after_capped (its own work and
#: the fake's HTTP round trips)
SLACK = 1.0

_ROUND = _turn(_call("get_weather", {"city": "Paris"}, "call_1"))


def _round_then(*turns: Turn) -> Callable[[Any], LoopScript]:
    def script(profile: Any) -> LoopScript:
        return LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C")]),
                          turns=(_ROUND, *[_final(profile) if t is None else t for t in turns]))
    return script


# -- checks -------------------------------------------------------------------------------------
@check("loop.model_calls")
def _not_retried(run: LoopRun) -> None:
    """The failing call was made once: no retry by the loop or its client."""
    if run.model_calls != 2:
        raise ConformanceFailure(
            "loop.model_calls", f"the loop called the model {run.model_calls} time(s)",
            expected="2 (the round, then the call that failed with a 400; no retry)",
            got=run.model_calls,
            hint="a 400 says the request itself is wrong (here: longer than the context "
                 "window): sent again, it fails the same way. Retry only what may succeed "
                 "later (ProviderError.retryable: 408, 409, 429, 5xx, Anthropic's 529, a "
                 "timeout or a refused connection), and stop with 'error' on the rest")


def _capped_calls(profile: Any) -> tuple[str, ...]:
    return ("completed", "error") if profile.model_retries else ("error",)


@check("loop.model_calls")
def _gave_up_or_retried_once(run: LoopRun) -> None:
    reason = run.result.stop_reason if run.result else None
    want = 3 if reason == "completed" else 2
    if run.model_calls != want:
        raise ConformanceFailure(
            "loop.model_calls", f"the loop called the model {run.model_calls} time(s) and "
            f"stopped with {reason!r}",
            expected=f"{want} (the round, the throttled call"
                     + (", and one retry that got the answer)" if want == 3 else "; no retry)"),
            got=run.model_calls,
            hint="asked for a delay it will not wait, a loop gives up at once with 'error', or "
                 "waits its declared max_retry_wait and retries once")


@check("loop.retry_cap")
def _retry_capped(run: LoopRun) -> None:
    """The retry of the throttled call came within ``max_retry_wait`` of it."""
    times, cap = run.request_times, run.profile.max_retry_wait
    if len(times) < 3:
        return
    waited = times[2] - times[1]
    if waited > cap + SLACK:
        raise ConformanceFailure(
            "loop.retry_cap", f"the loop waited {waited:.2f} s before retrying the throttled "
            f"call; its profile declares max_retry_wait={cap:g} s",
            expected=f"at most {cap:g} s", got=f"{waited:.2f} s",
            hint="cap the delay a 429 asks for (Retry-After, RetryInfo) at a wait the run can "
                 "afford, or give up at once when it asks for more; declare the cap as "
                 "Profile(max_retry_wait=...)")


_CAP_HINT = ("the provider asked for a delay of an hour (Retry-After: 3600) and the loop, or its "
             "client, is sleeping it out: cap the wait (the openai SDK gives up on a Retry-After "
             "over 120 s and otherwise backs off at most 8 s) or stop at once with 'error'; "
             "declare the cap as Profile(max_retry_wait=...)")


@check("loop.tools_stopped")
def tools_stopped(run: LoopRun) -> None:
    """When the loop returned, no tool it started was still running, and none started after;
    a loop that runs a round's calls one after the other started none after the stop."""
    executor = run.executor
    running = [f"{e.name} ({e.call_id})" for e in getattr(executor, "running_at_return", ())]
    if running:
        raise ConformanceFailure(
            "loop.tools_stopped", "the loop returned from a cancelled run while its tools were "
            f"still running: {', '.join(running)}",
            expected="every tool the run started ended before the loop returned",
            got=f"still running at the return: {', '.join(running)}",
            hint="on a stop, cancel the tool tasks still running and wait for them to end "
                 "(asyncio: task.cancel(), then await them; threads: wait for them, the tools "
                 "see the stop), then return 'cancelled'; a tool left running keeps acting for "
                 "a run the user has stopped")
    pressed = getattr(executor, "pressed_at", None)
    if not run.profile.parallel_dispatch and pressed is not None:
        after = [f"{e.name} ({e.call_id})" for e in executor.executions
                 if e.started > pressed and e.name != executor.during]
        if after:
            raise ConformanceFailure(
                "loop.tools_stopped", "a loop that runs a round's calls one after the other "
                f"started {', '.join(after)} after the user pressed stop",
                expected="no call started once the stop is pressed (each answered as not run)",
                got=after, hint="check the stop signal before starting each call of a round, "
                "and answer the calls it did not start with an error result ('stopped before "
                "it ran') so the conversation stays valid")
    returned = getattr(executor, "returned_at", None)
    late = [f"{e.name} ({e.call_id})" for e in executor.executions
            if returned is not None and e.started > returned]
    if late:
        raise ConformanceFailure(
            "loop.tools_stopped", f"a tool started after the loop returned: {', '.join(late)}",
            expected="no tool starts once the run has returned", got=late,
            hint="a task or thread the loop left behind went on to run the next call: stop "
                 "them before returning")


# -- cases --------------------------------------------------------------------------------------
def _loop_case(**fields: Any) -> Case:
    return make_case(contract="loop", **fields)


def _error_after_retries(failing: str) -> tuple[Callable[[LoopRun], None], ...]:
    """A stop with 'error' after the round, ``failing`` and its declared retries, no more."""
    return by_policy(_constant(["ok", "error"]),
                     f"the round, {failing} and its declared retries; no more")


def _capped(profile: Any) -> LoopScript:
    base = _round_then(Turn(error=ErrorReply(kind="rate_limit", retry_after=HOUR)), None)(profile)
    return BoundedScript(messages=base.messages, tools=base.tools, turns=base.turns,
                         deadline=profile.model_retries * profile.max_retry_wait + SLACK,
                         clause="loop.retry_cap", hint=_CAP_HINT)


_DEADLINE_HINT = ("the model call never answered and the loop is still waiting: put its declared "
                  "deadline on each model call (asyncio.wait_for(model.acomplete(...), "
                  "model_timeout); in sync code a worker thread's future.result(timeout)), "
                  "then retry or stop with 'error'; a client's read timeout alone does not "
                  "bound a call that streams slowly or a proxy that holds the connection")


def _hung(profile: Any) -> LoopScript:
    base = _round_then(Turn(error=ErrorReply(hang=True)))(profile)
    return BoundedScript(messages=base.messages, tools=base.tools, turns=base.turns,
                         deadline=(1 + profile.model_retries) * profile.model_timeout + SLACK,
                         clause="loop.model_deadline", hint=_DEADLINE_HINT)


def _pressed_stop_while_working(profile: Any) -> LoopScript:
    # the user presses stop while get_weather runs (with parallel dispatch: once slow_lookup
    # has started too); slow_lookup, of the same round, is still working then and ends once
    # it sees the stop (within grace) or its task is cancelled
    grace = 0.15 if profile.tool_timeout is None else min(0.15, profile.tool_timeout / 2)
    return CancelScript(messages=ASK, tools=_tools(get_weather=[ok("18°C, sunny")],
                                                   slow_lookup=[ok("found")]),
                        turns=(_turn(_call("get_weather", {"city": "Paris"}, "call_1"),
                                     _call("slow_lookup", {"key": "paris"}, "call_2")),
                               _final(profile)),
                        cancel_during="get_weather", stoppable="slow_lookup", grace=grace,
                        together=profile.parallel_dispatch)


CASES: list[Case] = [
    _loop_case(
        id="loop.model_error_not_retried",
        title="A 400 from the model call is not retried: the loop stops with 'error' at once",
        why="A 400 (here the prompt is longer than the context window) says the request itself "
            "is wrong; sent again it fails the same way, so a retry only spends time and quota. "
            "The openai and anthropic SDKs retry 408, 409, 429 and 5xx only (_should_retry, "
            "read 2026-11-28 on openai 3.57.0); BerriAI/litellm #19216 (the Router retried "
            "every 400 and 401), freelabz/secator #1251 (context-length 400s retried three "
            "times with backoff) and agno-agi/agno #4090 (Groq 400s answered with many extra "
            "model calls) are the production reports. Not retried whatever model_retries "
            "declares: the client's retries are for retryable errors only.",
        loop=_round_then(Turn(error=ErrorReply(kind="context_length"))),
        checks=(stop_reason("error"), _not_retried),
    ),
    _loop_case(
        id="loop.overloaded_retried",
        title="An overloaded provider (Anthropic 529, others 503) is retried like a 429 by a "
              "loop that declares retries",
        why="Overload is transient: Anthropic answers 529 overloaded_error with "
            "x-should-retry: true (docs.anthropic.com/en/api/errors), the others 503. A retry "
            "set that lists 429 and 5xx but not 529 kills the run on Anthropic's busiest hours: "
            "agentscope-ai/QwenPaw #1891 (RETRYABLE_STATUS_CODES without 529), vercel/ai #7546 "
            "(529 not retried), NousResearch/hermes-agent #11314. Retried once the loop (or its "
            "client) declares model_retries; without, the loop stops with 'error'.",
        loop=_round_then(Turn(error=ErrorReply(kind="overloaded")), None),
        checks=by_policy(_constant(["ok", "throttled", "final"]),
                         "the round, the overloaded call, and its retry when the profile "
                         "declares model_retries; a stop with 'error' otherwise"),
    ),
    _loop_case(
        id="loop.rate_limit_retries_bounded",
        title="A 429 that keeps coming is retried model_retries times at most, then the loop "
              "stops with 'error'",
        why="A loop that retries a 429 until it passes never ends while the limit lasts, and "
            "its retries keep the limit hit: builderz-labs/marketing-dashboard #11 (a 429 "
            "retry storm in which no request succeeds), earendil-works/pi #9595. The official "
            "SDKs retry twice (max_retries=2) and raise; the loop then stops with 'error'.",
        loop=_round_then(Turn(error=ErrorReply(kind="rate_limit"))),
        checks=_error_after_retries("the throttled call"),
    ),
    _loop_case(
        id="loop.retry_after_capped",
        title="A 429 that asks for an hour's wait: the loop gives up at once or waits its "
              "declared cap, never the hour",
        why="A Retry-After obeyed without a cap hangs the run for as long as the provider "
            "says: NousResearch/hermes-agent #26293 (an agent whose Retry-After cap was 120 s, "
            "with the SDK's retries nested inside it, hung rate-limited accounts). The openai "
            "SDK refuses to wait a Retry-After over 120 s and raises (MAX_RETRY_AFTER_DELAY, "
            "_base_client._should_retry, read 2026-11-28 on openai 3.57.0). The case asks for "
            "3600 s and gives the run model_retries x max_retry_wait + 1 s: a loop that sleeps "
            "the hour is stopped there (loop.retry_cap), never waited for.",
        loop=_capped,
        checks=(stop_reason(_capped_calls), _gave_up_or_retried_once, _retry_capped),
    ),
    _loop_case(
        id="loop.model_deadline",
        title="A model call that never answers is abandoned at the loop's declared deadline; "
              "the run stops with 'error'",
        why="A model call with no deadline hangs the run for as long as the connection stays "
            "open: agent0ai/agent-zero #1882 (a stalled stream hangs the turn for hours; the "
            "retry loop only reacts to exceptions), openonion/connectonion #1116 (no read "
            "timeout; the iteration cap never triggers because no iteration completes), "
            "anthropics/claude-code #91154 and earendil-works/pi #8331 (sessions frozen for "
            "25-109 minutes). loop.model_timeout checks a client's read timeout through the "
            "fake; in-process the kit's model answers a stall at once, so only here does a "
            "loop that declares its own deadline (model_timeout) show it keeps it: the call "
            "blocks until the case ends, and the run must stop within (1 + model_retries) x "
            "model_timeout + 1 s (clause loop.model_deadline). Through the fake the hang is a "
            "stall.",
        needs={"loop.model_deadline"},
        loop=_hung,
        checks=_error_after_retries("the call that never answered"),
    ),
    _loop_case(
        id="loop.cancelled_tools_stopped",
        title="A run cancelled while its tools work returns only once they have stopped, and "
              "starts none after",
        why="A loop that returns 'cancelled' while its tool tasks still run leaves them acting "
            "for a run the user stopped: pydantic/pydantic-ai #3960 (tool tasks alive after "
            "Agent.run is cancelled), openai/openai-agents-python #574 (the agent keeps "
            "calling tools in the background), vercel/ai #19966 and nicobailon/pi-mcp-adapter "
            "#149 (in-flight tools never told of the abort). The user presses stop while "
            "get_weather runs; slow_lookup, of the same round, ends when its task is cancelled "
            "or once it sees the stop (within a grace of 0.15 s, as a tool that checks its "
            "abort signal between steps). The kit notes what still runs the moment the loop "
            "returns, before anything else can run. A loop that declares parallel_dispatch=False "
            "must not start slow_lookup once the stop is pressed (microsoft/agent-framework-go "
            "#1076: the next tool still ran after the request was cancelled); it answers the "
            "call as not run.",
        needs={"loop.cancellation"},
        loop=_pressed_stop_while_working,
        checks=(stop_reason("cancelled"),
                model_calls(lambda p: 1, "the round in which the user pressed stop; no model "
                                         "call after it"),
                tools_stopped),
    ),
]

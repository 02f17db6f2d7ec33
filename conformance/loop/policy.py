"""The ``loop`` family's policy model: what a loop with a given profile must do.

``expected_stop`` plays the profile's declared policy (caps, failure rounds, permanent failures,
retries) over a script's rounds and gives the stop reason and the number of model calls a loop
with that policy reaches; ``by_policy`` turns that into the two checks (``stop_reason``,
``model_calls``). The tools and turns the scripts are made of are here too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from pytest_toolcall.cases import ScriptedCall, Turn, check
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.run.looprun import LoopRun
from pytest_toolcall.core.model import ToolSpec, UserMessage
from pytest_toolcall.cases.tools import (
    ScriptedTool,
)
from pytest_toolcall.conformance._common import WEATHER


STOCK = ToolSpec(name="get_stock", description="Stock level of a product.",
                 parameters={"type": "object", "properties": {"sku": {"type": "string"}},
                             "required": ["sku"]})


RECORD = ToolSpec(name="fetch_record", description="Fetch a customer record by id.",
                  parameters={"type": "object", "properties": {"id": {"type": "integer"}},
                              "required": ["id"]})


QUERY = ToolSpec(name="query_db", description="Run a read-only SQL query.",
                 parameters={"type": "object", "properties": {"sql": {"type": "string"}},
                             "required": ["sql"]})


SLOW = ToolSpec(name="slow_lookup", description="A slow remote lookup.",
                parameters={"type": "object", "properties": {"key": {"type": "string"}},
                            "required": ["key"]})


ASK = (UserMessage(content="Check the weather in Paris and the stock of SKU-1."),)


FINAL = Turn(text="Here is what I found.")


def _final(profile: Any) -> Turn:
    """The model's last answer: plain text, or a call to the loop's own final-answer tool when
    the profile declares one (a loop that ends only through it can never end on text)."""
    if profile.final_answer_tool:
        return Turn(tool_calls=(ScriptedCall(name=profile.final_answer_tool,
                                             arguments={"answer": FINAL.text},
                                             id="call_final"),))
    return FINAL


def _call(name: str, arguments: Any, call_id: str | None = None) -> ScriptedCall:
    return ScriptedCall(name=name, arguments=arguments, id=call_id)


def _turn(*calls: ScriptedCall, text: str | None = None) -> Turn:
    return Turn(text=text, tool_calls=calls)


def _tools(**behaviours: Sequence[Any]) -> tuple[ScriptedTool, ...]:
    specs = {"get_weather": WEATHER, "get_stock": STOCK, "fetch_record": RECORD,
             "query_db": QUERY, "slow_lookup": SLOW}
    return tuple(ScriptedTool(spec=specs[name], behaviours=tuple(b))
                 for name, b in behaviours.items())


# -- the declared policy ------------------------------------------------------------------------
#: what one model answer leads to: every call succeeds (``ok``), every call fails retryably
#: (``fail``), one call succeeds and one tool fails (``mixed``), a permanent failure, a crash,
#: the model call itself fails (``error``), the provider throttles it, a 429 that asks for a
#: delay (``throttled``: the provider's client retries it when the profile declares
#: ``model_retries``, and the retry gets the next answer), a streamed model call that stalls
#: after its 200 headers (``stalled_stream``: no client retries it, see :func:`stalled_call`),
#: or the model ends the run (``final``)
ROUND_KINDS = ("ok", "fail", "mixed", "permanent", "crash", "unknown", "error", "throttled",
               "stalled_stream", "final")


def expected_stop(profile: Any, rounds: Sequence[str]) -> tuple[str, int]:
    """``(stop reason, model calls)`` of a run under the profile's declared policy, when the
    model's *n*-th answer leads to ``rounds[n]`` (the last one repeats).

    This is the policy every loop case computes its expectations from (docs/loops.md, "Profile
    fields"): what counts toward ``max_iterations`` (``iteration_counts``), the failure-round cap
    and the per-tool failure budget (either may be None), a closing model call after a stop,
    the crash policy and the provider client's own retries. Rounds with failures are scripted so
    that one tool fails per round."""
    unknown = set(rounds) - set(ROUND_KINDS)
    if unknown:
        raise ValueError(f"unknown round kinds {sorted(unknown)}; known: {ROUND_KINDS}")
    calls = iterations = failure_rounds = tool_failures = retried = 0

    def close(reason: str) -> tuple[str, int]:
        return reason, calls + (1 if profile.closes(reason) else 0)

    for n in range(10_000):
        kind = rounds[min(n, len(rounds) - 1)]
        # the client's retries are its own model calls, not the loop's
        if profile.iteration_counts == "model_calls" and calls - retried >= profile.max_iterations:
            return close("max_iterations")
        calls += 1
        if kind == "error":  # the client's own retries come on top of the loop's call
            return "error", calls + profile.model_retries
        if kind == "stalled_stream":  # the client retries no stream after its headers
            return "error", calls
        if kind == "throttled":
            if not profile.model_retries:
                return "error", calls
            retried += 1  # the client's retry is the next model call
            continue
        if kind == "final":
            return "completed", calls
        if profile.iteration_counts != "model_calls" and iterations >= profile.max_iterations:
            return close("max_iterations")
        if kind == "crash" and profile.crash_policy == "abort":
            return "error", calls
        if kind == "unknown" and profile.unknown_tool_policy == "abort":
            return "error", calls
        if kind == "permanent" and profile.permanent_failure_stops:
            return close("permanent_failure")
        kind = "fail" if kind == "unknown" else kind  # fed back: a failed call
        success = kind in ("ok", "mixed")
        tool_failures += kind != "ok"
        if success or profile.iteration_counts == "rounds":
            iterations += 1
        failure_rounds = 0 if success else failure_rounds + 1
        if profile.max_failure_rounds is not None and failure_rounds >= profile.max_failure_rounds:
            return close("failure_rounds")
        if profile.tool_failure_budget is not None and tool_failures > profile.tool_failure_budget:
            return close("failure_rounds")
    raise ValueError("the declared policy never stops this run")  # pragma: no cover


def by_policy(rounds: Callable[[Any], Sequence[str]], why: str,
              accept: Sequence[str] = ()) -> tuple[Callable[[LoopRun], None], ...]:
    """The stop reason and model-call count the declared policy gives for ``rounds``.
    ``accept``: other stop reasons that are also right (the model-call count is then not
    checked for them)."""
    def reason(profile: Any) -> str | tuple[str, ...]:
        want = expected_stop(profile, rounds(profile))[0]
        return (want, *accept) if accept else want

    return (stop_reason(reason),
            model_calls(lambda p: expected_stop(p, rounds(p))[1], why,
                        unless=lambda run: bool(accept) and run.result is not None
                        and run.result.stop_reason in accept))


def stalled_call(run: LoopRun, at: int) -> str:
    """The round kind of model call ``at`` (0-based), which is taken and never answered: the
    fake sends its 200 headers, then nothing. A call the loop made as a stream is
    ``stalled_stream``: the client had its response when the headers came, and reads the body
    outside its retry loop, so no client retries it (openai 3.57.0 ``_base_client.py``
    ``SyncAPIClient.request`` retries a timeout raised by ``_send_request``, which returns at
    the headers for a stream, and ``_streaming.py`` ``Stream._iter_events`` turns a later
    ReadTimeout into APITimeoutError with no retry; anthropic 2.14.0 ``_base_client.py``
    retries what ``_attempt_request`` raises (``_should_retry_exception``), and ``_streaming.py``
    reads the stream's body after it; read 2026-11-28). A call that asked for the whole answer
    reads its body inside the send, so its timeout is retried: ``error``, with the profile's
    ``model_retries``."""
    requests = run.requests
    streamed = at < len(requests) and requests[at].stream
    return "stalled_stream" if streamed else "error"


def by_policy_of_run(rounds: Callable[[LoopRun], Sequence[str]],
                     why: str) -> tuple[Callable[[LoopRun], None], ...]:
    """:func:`by_policy` for rounds that depend on how the loop made its calls (``rounds``
    reads the run, e.g. :func:`stalled_call`)."""
    @check("loop.stop_reason")
    def stop_reason_of_run(run: LoopRun) -> None:
        stop_reason(lambda p: expected_stop(p, rounds(run))[0])(run)

    @check("loop.model_calls")
    def model_calls_of_run(run: LoopRun) -> None:
        model_calls(lambda p: expected_stop(p, rounds(run))[1], why)(run)

    return stop_reason_of_run, model_calls_of_run


# -- checks -------------------------------------------------------------------------------------
def stop_reason(
        expected: str | Callable[[Any], str | tuple[str, ...]]) -> Callable[[LoopRun], None]:
    @check("loop.stop_reason")
    def stop_reason_check(run: LoopRun) -> None:
        want = expected(run.profile) if callable(expected) else expected
        wants = (want,) if isinstance(want, str) else tuple(want)
        got = run.result.stop_reason if run.result else None
        if got not in wants:
            raise ConformanceFailure(
                "loop.stop_reason", "the loop stopped for the wrong reason",
                expected=wants[0] if len(wants) == 1 else f"one of {list(wants)}",
                got=f"{got} after {run.model_calls} model call(s)",
                hint=_stop_hint(wants[0], got))
    return stop_reason_check


_STOP_HINTS = {
    "failure_rounds": "count rounds in which every call failed; stop at the declared maximum; "
                      "such rounds must not count toward the iteration cap. "
                      "A loop with another policy declares it (max_failure_rounds, "
                      "tool_failure_budget, iteration_counts)",
    "permanent_failure": "a ToolError with retryable=False stops the loop after its round",
    "max_iterations": "stop when the model asks for tools after max_iterations rounds (or "
                      "what the profile's iteration_counts says an iteration is)",
    "completed": "the loop must go on after a failed call and finish when the model answers",
    "needs_clarification": "a missing required argument asks the user instead of running "
                           "the tool",
    "error": "a failed model call (or, with crash_policy='abort', a crashing tool) ends the "
             "run with stop_reason='error'",
    "length": "the model's answer was cut at its token limit (finish_reason 'length'): stop with "
              "'length' so the application can say the answer is incomplete (or raise the "
              "limit), not 'completed'",
    "content_filter": "the provider withheld or refused the answer (finish_reason "
                      "'content_filter': OpenAI content_filter, Anthropic refusal, Gemini "
                      "SAFETY): stop with 'content_filter', not 'completed'",
    "cancelled": "the application set LoopRequest.cancel (its stop button) while a tool ran: "
                 "check request.cancel.is_set() after each round and before each model call, "
                 "and stop with 'cancelled' (not 'error', not going on to 'completed'); or "
                 "declare Profile(cancellation=False) if the loop has no cancel hook",
    "handed_off": "the model called a handoff tool the profile declares (handoff_tools): stop "
                  "with 'handed_off' without calling the model again; the conversation now "
                  "belongs to another agent or a human, so it is neither 'completed' nor a "
                  "tool round to go on from",
}


#: the fix for a tool call that failed, wherever a loop stopped or raised on one instead
_GO_ON = ("a tool call that cannot run (an unknown tool, arguments that do not parse or fit, a "
          "tool that raises or times out) is answered with an error result (is_error=True) that "
          "says what to fix, and the loop calls the model again; stop_reason='error' is for a "
          "failed MODEL call only, or for what the profile declares ends the run "
          "(crash_policy or unknown_tool_policy 'abort')")


def _stop_hint(want: str, got: str | None) -> str | None:
    """The hint for a wrong stop reason: what the expected reason means, or, when the loop
    gave up on a failed tool call, that it should have answered it and gone on."""
    if got == "error" and want not in ("error", "cancelled"):
        return _GO_ON
    return _STOP_HINTS.get(want)


def _model_calls_hint(run: LoopRun, want: int) -> str:
    """The likely cause of a wrong number of model calls, read from how the run ended."""
    reason = run.result.stop_reason if run.result else None
    outcomes = [e.outcome for e in run.executor.executions]
    if run.model_calls < want and reason == "failure_rounds" and "ok" in outcomes:
        return ("the loop stopped on failure rounds although a round in between succeeded: the "
                "failure-round counter never resets. Set it back to 0 after any round in which "
                "a call succeeded (count CONSECUTIVE all-failure rounds)")
    if run.model_calls < want and reason == "max_iterations" \
            and any(o != "ok" for o in outcomes):
        return ("the loop hit the iteration cap early: rounds in which every call failed were "
                "counted as iterations; count only rounds with a success")
    if run.model_calls > want and reason in ("failure_rounds", "max_iterations"):
        return (f"the loop stopped with {reason} one or more rounds late: compare the count "
                "with the declared maximum right after the round (>=, not >)")
    return ("an extra call after deciding to stop costs tokens and can act on the model's "
            "answer; a missing one stops early. Declare the policy your loop has "
            "(iteration_counts, max_failure_rounds, closing_call, model_retries)")


def model_calls(expected: Callable[[Any], int], why: str,
                unless: Callable[[LoopRun], bool] | None = None) -> Callable[[LoopRun], None]:
    @check("loop.model_calls")
    def model_calls_check(run: LoopRun) -> None:
        if unless is not None and unless(run):
            return
        want = expected(run.profile)
        if run.model_calls != want:
            raise ConformanceFailure(
                "loop.model_calls", f"the loop called the model {run.model_calls} time(s)",
                expected=f"{want} ({why}, under the profile's declared policy)",
                got=run.model_calls, hint=_model_calls_hint(run, want))
    return model_calls_check

"""The ``loop`` family: orchestration under failure. Generalised from the adversarial gate of a
chat tool loop (seed 002, AC1-AC10) and a tool loop with an iteration cap, parallel dispatch and
errors fed back as text (seed 004).

The scripts adapt to the profile (``max_failure_rounds``, ``max_iterations``), so the same case
checks a loop whatever caps it declares.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from pytest_toolcall.cases import Case, ErrorReply, ScriptedCall, Turn, check, make_case
from pytest_toolcall.errors import ConformanceFailure
from pytest_toolcall.looprun import LoopRun, LoopScript
from pytest_toolcall.model import AssistantMessage, ToolMessage, ToolSpec, UserMessage
from pytest_toolcall.tools import SECRET, ScriptedTool, crash, fail, hang, ok, permanent, sleep

from ._common import WEATHER

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


def _call(name: str, arguments: Any, call_id: str | None = None) -> ScriptedCall:
    return ScriptedCall(name=name, arguments=arguments, id=call_id)


def _turn(*calls: ScriptedCall, text: str | None = None) -> Turn:
    return Turn(text=text, tool_calls=calls)


def _tools(**behaviours: Sequence[Any]) -> tuple[ScriptedTool, ...]:
    specs = {"get_weather": WEATHER, "get_stock": STOCK, "fetch_record": RECORD,
             "query_db": QUERY, "slow_lookup": SLOW}
    return tuple(ScriptedTool(spec=specs[name], behaviours=tuple(b))
                 for name, b in behaviours.items())


# -- checks -------------------------------------------------------------------------------------
def stop_reason(expected: str | Callable[[Any], str]) -> Callable[[LoopRun], None]:
    @check("loop.stop_reason")
    def stop_reason_check(run: LoopRun) -> None:
        want = expected(run.profile) if callable(expected) else expected
        got = run.result.stop_reason if run.result else None
        if got != want:
            raise ConformanceFailure(
                "loop.stop_reason", "the loop stopped for the wrong reason", expected=want,
                got=f"{got} after {run.model_calls} model call(s)",
                hint=_STOP_HINTS.get(want))
    return stop_reason_check


_STOP_HINTS = {
    "failure_rounds": "count rounds in which every call failed; stop at the declared maximum; "
                      "such rounds must not count toward the iteration cap (seed 002 AC1)",
    "permanent_failure": "a ToolError with retryable=False stops the loop after its round "
                         "(seed 002 AC2)",
    "max_iterations": "stop when the model asks for tools after max_iterations rounds",
    "completed": "the loop must go on after a failed call and finish when the model answers",
    "needs_clarification": "a missing required argument asks the user instead of running "
                           "the tool (seed 002 AC3)",
}


def model_calls(expected: Callable[[Any], int], why: str) -> Callable[[LoopRun], None]:
    @check("loop.model_calls")
    def model_calls_check(run: LoopRun) -> None:
        want = expected(run.profile)
        if run.model_calls != want:
            raise ConformanceFailure(
                "loop.model_calls", f"the loop called the model {run.model_calls} time(s)",
                expected=f"{want} ({why})", got=run.model_calls,
                hint="an extra call after deciding to stop costs tokens and can act on the "
                     "model's answer; a missing one stops early")
    return model_calls_check


def _results_after(run: LoopRun, request_index: int) -> list[ToolMessage]:
    if request_index >= len(run.requests):
        return []
    return [m for m in run.requests[request_index].messages if isinstance(m, ToolMessage)]


def never_ran(tool: str) -> Callable[[LoopRun], None]:
    @check("loop.tool_not_run")
    def never_ran_check(run: LoopRun) -> None:
        ran = run.executor.by_name(tool)
        if ran:
            raise ConformanceFailure(
                "loop.tool_not_run", f"{tool} ran although its call could not be valid",
                expected="no execution", got=[(e.call_id, e.arguments) for e in ran],
                hint="check the arguments (valid JSON, the schema's required keys) before "
                     "running the tool")
    return never_ran_check


@check("loop.failure_fed_back")
def failure_fed_back(run: LoopRun) -> None:
    """Every call of the first round is answered in the second request; failures say so."""
    first = run.case.loop(run.profile).turns[0] if callable(run.case.loop) else run.case.loop.turns[0]
    ids = [c.id for c in first.tool_calls]
    results = {m.tool_call_id: m for m in _results_after(run, 1)}
    missing = [i for i in ids if i not in results]
    if missing:
        raise ConformanceFailure(
            "loop.failure_fed_back", "a call of the first round has no result in the next "
            "request: the model never learns what happened to it", expected=ids,
            got=sorted(i or "" for i in results),
            hint="a failed call must be answered too, with the (sanitised) error; dropping it "
                 "is the 'silently dropped failed call' of seed 002 AC5")
    for execution in run.executor.executions:
        if execution.outcome in ("failed", "permanent", "crashed", "timeout"):
            message = results.get(execution.call_id)
            if message is not None and not (message.is_error or "error" in message.content.lower()
                                            or "fail" in message.content.lower()):
                raise ConformanceFailure(
                    "loop.failure_fed_back", f"call {execution.call_id} failed but its result "
                    "reads like a success", expected="is_error=True or an error message",
                    got=message.content)


@check("loop.answered_once_in_order")
def answered_once_in_order(run: LoopRun) -> None:
    """After each assistant message with calls, exactly one result per call, in call order."""
    for n, request in enumerate(run.requests):
        messages = list(request.messages)
        for i, message in enumerate(messages):
            if not isinstance(message, AssistantMessage) or not message.tool_calls:
                continue
            ids = [c.id for c in message.tool_calls]
            following = []
            for later in messages[i + 1:]:
                if not isinstance(later, ToolMessage):
                    break
                following.append(later.tool_call_id)
            if following != ids:
                raise ConformanceFailure(
                    "loop.answered_once_in_order", f"model call {n + 1}: the tool results after "
                    "an assistant message do not answer its calls once each, in order",
                    expected=ids, got=following,
                    hint="append one tool message per call, in the order of the calls, even "
                         "when they finish in another order")


@check("loop.sanitised")
def sanitised(run: LoopRun) -> None:
    """No traceback, exception repr or secret reaches the model or the loop's client."""
    seen: list[tuple[str, str]] = []
    for n, request in enumerate(run.requests):
        for message in request.messages:
            text = getattr(message, "content", None) or ""
            seen.append((f"model call {n + 1}, {message.role} message", text))
    if run.result is not None:
        seen.append(("the result text", run.result.text or ""))
        for event in run.result.events or ():
            seen.append((f"client event {event.type}", event.content))
    for where, text in seen:
        for marker in (SECRET, "Traceback (most recent call last)", "RuntimeError",
                       "db.internal"):
            if marker in text:
                raise ConformanceFailure(
                    "loop.sanitised", f"{where} leaks a tool's internals ({marker!r})",
                    expected="a short, sanitised error such as 'query_db failed'",
                    got=text[:200], hint="never pass str(exc) or repr(exc) of an unexpected "
                    "exception to the model or the client (seed 002 AC4)")


@check("loop.executed_once")
def executed_once(run: LoopRun) -> None:
    counts: dict[str | None, int] = {}
    for execution in run.executor.executions:
        counts[execution.call_id] = counts.get(execution.call_id, 0) + 1
    twice = {k: v for k, v in counts.items() if v > 1}
    if twice:
        raise ConformanceFailure(
            "loop.executed_once", "a tool call id was executed more than once",
            expected="one execution per call id", got=twice,
            hint="deduplicate the calls of a turn by id before dispatching")


@check("loop.parallel")
def ran_in_parallel(run: LoopRun) -> None:
    """Each slow call overlaps another in time. Sequential dispatch never overlaps, whatever the
    machine's load; concurrent dispatch overlaps unless a thread starts later than the longest
    call lasts. No wall-clock threshold, so a loaded machine cannot make it flake."""
    runs = sorted((e for e in run.executor.executions if e.name == "slow_lookup"),
                  key=lambda e: e.started)
    if len(runs) < 3:
        raise ConformanceFailure("loop.parallel", "the slow calls did not all run",
                                 expected=3, got=len(runs),
                                 hint="run every call of the turn (distinct ids are distinct "
                                      "calls, even of the same tool)")
    now = time.perf_counter()
    spans = [(e.started, e.ended or now) for e in runs]  # ended 0.0: still running
    alone = [e.call_id for e, (s, t) in zip(runs, spans)
             if not any(s2 < t and s < t2 for (s2, t2) in spans if (s2, t2) != (s, t))]
    if alone:
        base = spans[0][0]
        raise ConformanceFailure(
            "loop.parallel", "the calls of one turn ran one after the other",
            expected="every call's execution overlapping another's",
            got="; ".join(f"{e.call_id} {s - base:.2f}s-{t - base:.2f}s"
                          for e, (s, t) in zip(runs, spans)) + f" (alone: {alone})",
            hint="dispatch the calls of a turn concurrently, or declare "
                 "Profile(parallel_dispatch=False)")


@check("loop.usage")
def usage_summed(run: LoopRun) -> None:
    """Each scripted response reports 11 input + 7 output = 18 tokens: every field is summed."""
    usage = run.result.usage if run.result else None
    n = run.model_calls
    want = {"input_tokens": 11 * n, "output_tokens": 7 * n, "total_tokens": 18 * n}
    got = usage.model_dump() if usage else None
    if got != want:
        raise ConformanceFailure(
            "loop.usage", "usage is not the sum over every model call",
            expected=f"{want} ({n} calls x 11/7/18)", got=got,
            hint="add each response's usage, field by field, to a running total")


def result_mentions(words: Sequence[str], clause: str) -> Callable[[LoopRun], None]:
    @check(clause)
    def result_mentions_check(run: LoopRun) -> None:
        results = _results_after(run, 1)
        text = " ".join(m.content for m in results)
        if not results or not any(w.lower() in text.lower() for w in words):
            raise ConformanceFailure(
                clause, "the error fed back to the model does not say what to fix",
                expected=f"a tool result mentioning one of {list(words)}", got=text[:200] or None)
    return result_mentions_check


# -- cases --------------------------------------------------------------------------------------
def _loop_case(**fields: Any) -> Case:
    return make_case(contract="loop", **fields)


def _all_failures(profile: Any) -> LoopScript:
    return LoopScript(messages=ASK, tools=_tools(get_stock=[fail()]),
                      turns=(_turn(_call("get_stock", {"sku": "SKU-1"})),))


def _reset(profile: Any) -> LoopScript:
    r = profile.max_failure_rounds
    return LoopScript(messages=ASK, tools=_tools(get_stock=[fail()] * (r - 1) + [ok("12")] +
                                                 [fail()]),
                      turns=(_turn(_call("get_stock", {"sku": "SKU-1"})),))


def _not_iterations(profile: Any) -> LoopScript:
    r = profile.max_failure_rounds
    return LoopScript(messages=ASK, tools=_tools(get_stock=[fail()] * (r - 1) + [ok("12")]),
                      turns=(_turn(_call("get_stock", {"sku": "SKU-1"})),))


_MIXED_ONCE = LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C, sunny")],
                                                   get_stock=[fail()]),
                        turns=(_turn(_call("get_weather", {"city": "Paris"}, "call_w"),
                                     _call("get_stock", {"sku": "SKU-1"}, "call_s")), FINAL))


def _mixed_once(profile: Any) -> LoopScript:
    return _MIXED_ONCE


def _mixed(profile: Any) -> LoopScript:
    # as many mixed rounds as count toward a failure-round stop (within the iteration cap): a
    # loop that counts a round with any failure as a failure round stops early (seed 002's
    # escaped mutant, read the other way)
    n = max(1, min(profile.max_failure_rounds, profile.max_iterations))
    rounds = tuple(_turn(_call("get_weather", {"city": "Paris"}, f"call_w{i}"),
                         _call("get_stock", {"sku": "SKU-1"}, f"call_s{i}"))
                   for i in range(1, n + 1))
    return LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C, sunny")],
                                                 get_stock=[fail()]),
                      turns=(*rounds, FINAL))


def _finish_out_of_order(profile: Any) -> LoopScript:
    # run concurrently, the calls finish b, c, a whatever the load (each waits for the others
    # it names); run one by one, a and c wait in vain, briefly, and finish in call order
    wait = min(0.2, 0.4 * profile.tool_timeout)
    return LoopScript(messages=ASK, tools=_tools(slow_lookup=[
        sleep(wait, "a", call_id="call_a", after=["call_b", "call_c"]),
        sleep(0.0, "b", call_id="call_b"),
        sleep(wait, "c", call_id="call_c", after=["call_b"])]),
        turns=(_turn(_call("slow_lookup", {"key": "a"}, "call_a"),
                     _call("slow_lookup", {"key": "b"}, "call_b"),
                     _call("slow_lookup", {"key": "c"}, "call_c")), FINAL))


def _parallel(profile: Any) -> LoopScript:
    # the longest call stays well inside the declared tool timeout
    longest = min(0.25, 0.6 * profile.tool_timeout)
    return LoopScript(messages=ASK, tools=_tools(slow_lookup=[
        sleep(longest, "a", call_id="call_a"), sleep(longest / 5, "b", call_id="call_b"),
        sleep(longest * 3 / 5, "c", call_id="call_c")]),
                      turns=(_turn(_call("slow_lookup", {"key": "a"}, "call_a"),
                                   _call("slow_lookup", {"key": "b"}, "call_b"),
                                   _call("slow_lookup", {"key": "c"}, "call_c")), FINAL))


@check("loop.conversation_kept")
def conversation_kept(run: LoopRun) -> None:
    """Each model call re-sends the whole conversation so far, and the tools, every time."""
    for n in range(1, len(run.requests)):
        before, now = run.requests[n - 1], run.requests[n]
        if list(now.messages[:len(before.messages)]) != list(before.messages):
            raise ConformanceFailure(
                "loop.conversation_kept", f"model call {n + 1} does not carry the conversation "
                f"of call {n}: earlier messages were dropped or changed",
                expected=f"the {len(before.messages)} earlier messages, then the new round",
                got=[getattr(m, "role", "?") for m in now.messages],
                hint="append each round to one message list; the model forgets tool results "
                     "it is not shown again")
        if [t.name for t in now.tools] != [t.name for t in run.requests[0].tools]:
            raise ConformanceFailure(
                "loop.conversation_kept", f"model call {n + 1} does not offer the same tools",
                expected=[t.name for t in run.requests[0].tools], got=[t.name for t in now.tools],
                hint="send the tools with every model call, not only the first")


@check("loop.events")
def events_reported(run: LoopRun) -> None:
    """The client is shown each call, each call's result or error, and the stop, last."""
    events = list(run.result.events or ()) if run.result else []
    if not events or events[-1].type != "done" or events[-1].content != run.result.stop_reason:
        raise ConformanceFailure(
            "loop.events", "the loop's events do not end with one 'done' event carrying the stop "
            "reason", expected=f"... LoopEvent(type='done', content={run.result.stop_reason!r})"
            if run.result else "a LoopResult", got=[(e.type, e.content[:30]) for e in events][-4:],
            hint="emit LoopEvent(type='done', content=stop_reason) last, or declare "
                 "Profile(loop_events=False)")
    for execution in run.executor.executions:
        shown = {e.type for e in events if e.call_id == execution.call_id}
        want = "tool_result" if execution.outcome == "ok" else "tool_error"
        if "tool_call" not in shown or want not in shown:
            raise ConformanceFailure(
                "loop.events", f"the client was not shown call {execution.call_id} "
                f"({execution.name}, {execution.outcome})",
                expected=f"a 'tool_call' and a '{want}' event with call_id="
                         f"{execution.call_id!r}", got=sorted(shown) or "no event for it",
                hint="report every call and its outcome to the client; failures as sanitised "
                     "'tool_error' events")


CASES: list[Case] = [
    _loop_case(
        id="loop.all_failure_rounds",
        title="Rounds in which every call fails stop the loop after the declared count",
        why="Seed 002 AC1: a loop whose tools all fail must stop with failure_rounds after "
            "max_failure_rounds model calls, not spin until the iteration cap.",
        loop=_all_failures,
        checks=(stop_reason("failure_rounds"),
                model_calls(lambda p: p.max_failure_rounds, "one per failure round")),
    ),
    _loop_case(
        id="loop.failure_rounds_reset",
        title="A successful round resets the failure-round count",
        why="A counter that never resets stops a healthy loop after scattered failures.",
        needs={"loop.failure_rounds_2"},
        loop=_reset,
        # with max_iterations=1 the success round reaches the cap: no failure round can follow
        checks=(stop_reason(lambda p: "failure_rounds" if p.max_iterations >= 2
                            else "max_iterations"),
                model_calls(lambda p: 2 * p.max_failure_rounds if p.max_iterations >= 2
                            else p.max_failure_rounds + 1,
                            "r-1 failures, a success, then r failures (or the cap, at "
                            "max_iterations=1)")),
    ),
    _loop_case(
        id="loop.failure_rounds_not_iterations",
        title="Failure rounds do not count toward the iteration cap",
        why="Seed 002 AC1: tool_iterations is only incremented after a round with a success; "
            "counting failures too stops the loop at the cap early.",
        needs={"loop.failure_rounds_2"},
        loop=_not_iterations,
        checks=(stop_reason("max_iterations"),
                model_calls(lambda p: p.max_failure_rounds - 1 + p.max_iterations + 1,
                            "r-1 failure rounds, max_iterations rounds, one more ask")),
    ),
    _loop_case(
        id="loop.permanent_failure",
        title="A permanent failure stops the loop in one round",
        why="Seed 002 AC2: a failure that retrying cannot fix (retryable=False) must stop at "
            "once instead of burning the remaining rounds.",
        needs={"loop.permanent_stop"},
        loop=LoopScript(messages=ASK, tools=_tools(fetch_record=[permanent()]),
                        turns=(_turn(_call("fetch_record", {"id": 7})),)),
        checks=(stop_reason("permanent_failure"), model_calls(lambda p: 1, "one round")),
    ),
    _loop_case(
        id="loop.retryable_failure_continues",
        title="A retryable failure is fed back and the loop goes on",
        why="Seed 002 AC10: retryable vs permanent must drive the decision; a loop that treats "
            "every failure as fatal gives up on a passing glitch.",
        loop=LoopScript(messages=ASK, tools=_tools(get_stock=[fail(), ok("12")]),
                        turns=(_turn(_call("get_stock", {"sku": "SKU-1"}, "call_1")),
                               _turn(_call("get_stock", {"sku": "SKU-1"}, "call_2")), FINAL)),
        checks=(stop_reason("completed"), model_calls(lambda p: 3, "fail, retry, answer"),
                failure_fed_back),
    ),
    _loop_case(
        id="loop.missing_required_argument",
        title="A missing required argument is never run: clarify or feed back, per profile",
        why="Seed 002 AC3: a call without a required parameter must lead to a clarifying "
            "question or a validation error for the model, and the tool must not run.",
        needs={"loop.argument_validation"},
        loop=LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C")]),
                        turns=(_turn(_call("get_weather", {}, "call_1")), FINAL)),
        checks=(never_ran("get_weather"),
                stop_reason(lambda p: "needs_clarification" if p.argument_validation == "clarify"
                            else "completed")),
    ),
    _loop_case(
        id="loop.sanitised_failures",
        title="A crashing tool's traceback and secrets reach neither the model nor the client",
        why="Seed 002 AC4: execution failures must be sanitised; raw exception text carries "
            "stack traces, DSNs and tokens.",
        loop=LoopScript(messages=ASK, tools=_tools(query_db=[crash()]),
                        turns=(_turn(_call("query_db", {"sql": "select 1"}, "call_1")), FINAL)),
        checks=(sanitised, failure_fed_back, stop_reason("completed")),
    ),
    _loop_case(
        id="loop.mixed_batch",
        title="In a mixed batch the failed call is fed back and does not cancel its sibling",
        why="Seed 002 AC5, the gate's LOW finding: when one call succeeds and its sibling fails, "
            "the failure was silently dropped and the model never learned of it. A round with a "
            "success is an iteration, not a failure round: repeated mixed rounds must not stop "
            "the loop with failure_rounds.",
        loop=_mixed,
        checks=(failure_fed_back, answered_once_in_order, stop_reason("completed")),
    ),
    _loop_case(
        id="loop.answered_once_in_order",
        title="Every call of a turn is answered exactly once, in call order",
        why="Providers reject unanswered or orphan tool messages with a 400 (OpenAI, Anthropic, "
            "Gemini); results appended in completion order break pairing for Gemini.",
        loop=_finish_out_of_order,
        checks=(answered_once_in_order, stop_reason("completed")),
    ),
    _loop_case(
        id="loop.iteration_cap",
        title="The iteration cap stops the loop with max_iterations and no extra model call",
        why="Seed 004: re-prompting until the model stops, capped by max_tool_iterations; a loop "
            "without a cap (or with an off-by-one) never stops or calls once too often.",
        loop=LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C")]),
                        turns=(_turn(_call("get_weather", {"city": "Paris"})),)),
        checks=(stop_reason("max_iterations"),
                model_calls(lambda p: p.max_iterations + 1,
                            "max_iterations rounds, then the ask that hits the cap"),
                conversation_kept),
    ),
    _loop_case(
        id="loop.usage_summed",
        title="Usage is summed over every model call",
        why="Seed 004: tokens accumulate across iterations; reporting the last call's usage "
            "under-bills every multi-turn run.",
        needs={"usage"},
        loop=LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C")]),
                        turns=(_turn(_call("get_weather", {"city": "Paris"})),
                               _turn(_call("get_weather", {"city": "Lyon"})), FINAL)),
        checks=(usage_summed, stop_reason(lambda p: "completed" if p.max_iterations >= 2
                                          else "max_iterations"), conversation_kept),
    ),
    _loop_case(
        id="loop.model_error",
        title="A failed model call stops the loop with 'error'; it does not raise",
        why="A provider 500 or timeout in the middle of a run must end it with a stop reason "
            "the application can show, not an exception out of the loop (and not a retry "
            "storm).",
        loop=LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C")]),
                        turns=(_turn(_call("get_weather", {"city": "Paris"}, "call_1")),
                               Turn(error=ErrorReply(
                                   status=500, type="server_error",
                                   message="The server had an error while processing your "
                                           "request.")))),
        checks=(stop_reason("error"), model_calls(lambda p: 2, "the round, then the failing "
                                                  "call; no retry of a 500 by the loop")),
    ),
    _loop_case(
        id="loop.events",
        title="The loop shows its client each call, each result or error, and the stop",
        why="Seed 002 AC4 streams tool events to the frontend; a loop that reports nothing (or "
            "only successes) leaves the user staring at a spinner while tools fail.",
        needs={"loop.events"},
        loop=_mixed_once,
        checks=(events_reported, stop_reason("completed")),
    ),
    _loop_case(
        id="loop.unknown_tool",
        title="An unknown tool name gets an error result and the loop goes on",
        why="Models misspell tool names; a KeyError in dispatch ends the run instead of letting "
            "the model correct itself.",
        loop=LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C")]),
                        turns=(_turn(_call("get_wether", {"city": "Paris"}, "call_1")), FINAL)),
        checks=(result_mentions(["get_wether", "unknown", "no tool"], "loop.unknown_tool"),
                stop_reason("completed")),
    ),
    _loop_case(
        id="loop.malformed_arguments",
        title="Malformed JSON arguments get an error asking for valid JSON; the tool never runs",
        why="Truncated JSON from the model must not crash the loop nor reach the tool.",
        loop=LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C")]),
                        turns=(_turn(_call("get_weather", '{"city": "Par', "call_1")), FINAL)),
        checks=(never_ran("get_weather"),
                result_mentions(["JSON"], "loop.malformed_arguments"), stop_reason("completed")),
    ),
    _loop_case(
        id="loop.duplicate_call_id",
        title="A tool call id repeated within one turn is executed once",
        why="Streams that repeat a call (or servers that echo it) make naive loops run a "
            "side-effecting tool twice.",
        loop=LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C")]),
                        turns=(_turn(_call("get_weather", {"city": "Paris"}, "call_dup"),
                                     _call("get_weather", {"city": "Paris"}, "call_dup")), FINAL)),
        checks=(executed_once, answered_once_in_order, stop_reason("completed")),
    ),
    _loop_case(
        id="loop.parallel_dispatch",
        title="The calls of one turn run concurrently, results in call order",
        why="Seed 004: parallel calls dispatched concurrently; sequential dispatch multiplies "
            "latency by the number of calls.",
        needs={"loop.parallel"},
        loop=_parallel,
        checks=(ran_in_parallel, answered_once_in_order, stop_reason("completed")),
    ),
    _loop_case(
        id="loop.tool_timeout",
        title="A hung tool times out, is reported to the model, and the loop goes on",
        why="A tool that never answers must not hang the loop; its call still needs a result.",
        loop=LoopScript(messages=ASK, tools=_tools(slow_lookup=[hang()]),
                        turns=(_turn(_call("slow_lookup", {"key": "x"}, "call_1")), FINAL)),
        checks=(failure_fed_back, stop_reason("completed")),
    ),
]

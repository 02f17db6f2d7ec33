"""The ``loop`` family's checks: each a clause (``@check``) over a recorded ``LoopRun``, or a
function that builds one (``never_ran``, ``calls_run``, ``unrun_call_answered``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any
from pytest_toolcall.cases import Turn, check
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.core.redact import clip
from pytest_toolcall.run.looprun import LoopRun
from pytest_toolcall.core.model import AssistantMessage, ToolMessage, UserMessage
from pytest_toolcall.cases.tools import (
    SECRET,
)
from pytest_toolcall.conformance.loop.policy import (
    FINAL,
    _GO_ON,
    _stop_hint,
    expected_stop,
)


def retry_waited(delay: float, retry_index: int) -> Callable[[LoopRun], None]:
    """Model call ``retry_index + 1`` (a retry of the throttled call before it) came at least
    ``delay`` seconds after it, as the provider asked."""
    @check("loop.retry_delay")
    def retry_waited_check(run: LoopRun) -> None:
        times = run.request_times
        if len(times) <= retry_index:
            return  # no retry: loop.model_calls judges whether one was due
        waited = times[retry_index] - times[retry_index - 1]
        if waited < delay * 0.95:
            raise ConformanceFailure(
                "loop.retry_delay", f"model call {retry_index + 1} retried the throttled call "
                f"after {waited:.2f} s; the provider asked for {delay:g} s (retry-after)",
                expected=f"at least {delay:g} s before the retry", got=f"{waited:.2f} s",
                hint="wait the delay the 429 names (ProviderError.retry_after; the openai and "
                     "anthropic SDKs read retry-after themselves) before sending the request "
                     "again")
    return retry_waited_check


def _fed_back(run: LoopRun, request_index: int) -> list[Any] | None:
    """The messages the loop added for the model after round ``request_index``: those of the
    next request beyond the previous one's, or, when the loop stopped before sending one, those
    of ``LoopResult.messages`` (what it would send next). None: nothing to read."""
    if request_index < len(run.requests):
        before = run.requests[request_index - 1].messages
        now = run.requests[request_index].messages
        return _appended_to_user(run, before, now) + list(now)[len(before):]
    stored = list(run.result.messages) if run.result is not None else []
    if not stored or request_index - 1 >= len(run.requests):
        return None
    before = run.requests[request_index - 1].messages
    return _appended_to_user(run, before, stored) + stored[len(before):]


def _appended_to_user(run: LoopRun, before: Sequence[Any], now: Sequence[Any]) -> list[Any]:
    """Under ``feedback_role="user"``, text a loop appended to a user message it had already
    sent: a loop that merges consecutive user messages feeds results back that way (smolagents'
    ``get_clean_message_list``, models.py, read 2026-11-25 on smolagents 1.26.0), with no new
    message to read."""
    if run.profile.feedback_role != "user":
        return []
    out = []
    for old, new in zip(before, now):
        if getattr(old, "role", None) == getattr(new, "role", None) == "user":
            was, is_ = old.content or "", new.content or ""
            if is_ != was and is_.startswith(was):
                out.append(UserMessage(content=is_[len(was):]))
    return out


def _stopped_before(run: LoopRun, request_index: int) -> bool:
    """The loop ended the run (not by completing it) before model call ``request_index + 1``;
    whether its declared policy says so is loop.stop_reason's and loop.model_calls' to check."""
    return run.result is not None and run.model_calls <= request_index \
        and run.result.stop_reason != "completed"


def _feedback_texts(run: LoopRun, messages: Sequence[Any]) -> list[tuple[str | None, str]]:
    """``(tool_call_id, text)`` of what reached the model: tool messages, and user-role text
    where the profile says results go back that way (``feedback_role="user"``)."""
    out = []
    for m in messages:
        if isinstance(m, ToolMessage):
            out.append((m.tool_call_id, m.content or ""))
        elif run.profile.feedback_role == "user" and getattr(m, "role", None) == "user":
            out.append((None, getattr(m, "content", None) or ""))
    return out


def _results_after(run: LoopRun, request_index: int) -> list[ToolMessage]:
    if request_index >= len(run.requests):
        return []
    return [m for m in run.requests[request_index].messages if isinstance(m, ToolMessage)]


def never_ran(tool: str, hint: str | None = None) -> Callable[[LoopRun], None]:
    @check("loop.tool_not_run")
    def never_ran_check(run: LoopRun) -> None:
        ran = run.executor.by_name(tool)
        if ran:
            raise ConformanceFailure(
                "loop.tool_not_run", f"{tool} ran although its call could not be valid",
                expected="no execution", got=[(e.call_id, e.arguments) for e in ran],
                hint=hint or "check the arguments (valid JSON, the schema's required keys) "
                             "before running the tool")
    return never_ran_check


@check("loop.arguments_passed")
def arguments_passed(run: LoopRun) -> None:
    """Each tool ran with the arguments its call carried: every key the model sent, with its
    value (docs/loops.md, "The ToolLoop contract": ``executor.run(name, arguments,
    call_id=...)``). Keys the model did not send are not checked: a framework may fill in a
    schema's defaults. Read for the calls the script gives an id and a JSON object."""
    sent = {c.id: c.arguments for t in run.script.turns for c in t.tool_calls
            if c.id is not None and isinstance(c.arguments, dict)}
    for execution in run.executor.executions:
        want = sent.get(execution.call_id)
        if want is None:
            continue
        got = execution.arguments if isinstance(execution.arguments, dict) else None
        if got is None or any(k not in got or got[k] != v for k, v in want.items()):
            raise ConformanceFailure(
                "loop.arguments_passed", f"{execution.name} ran for call {execution.call_id} "
                "without the arguments the model sent", expected=want,
                got=execution.arguments,
                hint="pass the call's parsed arguments to the tool: "
                     "executor.run(call.name, call.arguments, call_id=call.id)")


@check("loop.calls_run")
def _runs_the_call_after_a_repeat(run: LoopRun) -> None:
    """Under ``duplicate_call_ids="dedupe"``, the call after a repeated id runs too: dropping
    the repeat must not drop the rest of the turn (``refuse`` runs none of the turn's calls)."""
    if run.profile.duplicate_call_ids == "dedupe":
        calls_run("get_weather", "get_stock")(run)


#: words a sanitised statement of a crash or a timeout uses (its own text must not be shown)
_FAILURE_WORDS = ("error", "fail", "exception", "crash", "unexpected", "could not", "unable",
                  "time", "did not answer", "not respond")


def _states_failure(execution: Any, text: str, is_error: bool) -> bool:
    """Whether ``text`` tells the model that ``execution`` failed: for a ToolError, its own
    message (written for the model) reaches it; for a crash or a timeout, whose text is not
    shown, ``is_error`` or a statement of the failure (the exception's type name is fine)."""
    lowered = text.lower()
    if execution.outcome in ("failed", "permanent"):
        return (execution.error or "").lower() in lowered
    return is_error or any(w in lowered for w in _FAILURE_WORDS) or "runtimeerror" in lowered


def _last_executions(run: LoopRun) -> list[Any]:
    """Each call id's last execution (a loop may retry a failed call itself before it answers
    the model: what it answers is the last attempt's outcome); calls without an id each."""
    last: dict[Any, Any] = {}
    for n, execution in enumerate(run.executor.executions):
        last[execution.call_id if execution.call_id is not None else ("#", n)] = execution
    return list(last.values())


@check("loop.failure_fed_back")
def failure_fed_back(run: LoopRun) -> None:
    """Every call of the first round is answered in the next request, and each failure reaches
    the model: a ToolError's own message, or a sanitised statement of a crash or a timeout.
    Read from what was actually sent (tool messages, or user-role text under
    ``feedback_role="user"``); when the declared policy stops the loop after that round, from
    ``LoopResult.messages``."""
    first = run.script.turns[0]
    ids = run.sent_ids(first)
    added = _fed_back(run, 1)
    if added is None:
        if _stopped_before(run, 1):
            return  # the policy ended the run there (checked by loop.stop_reason/model_calls)
        raise ConformanceFailure(
            "loop.failure_fed_back", "the loop never sent the model the first round's results",
            expected="a second model call carrying them", got=f"{run.model_calls} model call(s)")
    texts = _feedback_texts(run, added)
    by_id = {i: t for i, t in texts if i is not None}
    flags = {m.tool_call_id: m.is_error for m in added if isinstance(m, ToolMessage)}
    if run.profile.feedback_role == "tool":
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise ConformanceFailure(
                "loop.failure_fed_back", "a call of the first round has no result in the next "
                "request: the model never learns what happened to it", expected=ids,
                got=sorted(i or "" for i in by_id),
                hint="a failed call must be answered too, with the (sanitised) error; "
                     "dropping it hides the failure from the model")
    for execution in _last_executions(run):  # a loop may retry a call before answering it
        if execution.call_id not in ids or execution.outcome not in (
                "failed", "permanent", "crashed", "timeout"):
            continue
        if execution.call_id in by_id:
            candidates = [(by_id[execution.call_id], bool(flags.get(execution.call_id)))]
        else:
            candidates = [(t, False) for i, t in texts if i is None]
        if not any(_states_failure(execution, t, flag) for t, flag in candidates):
            want = (f"the tool's error message {execution.error!r}"
                    if execution.outcome in ("failed", "permanent")
                    else "is_error=True or a sanitised statement that the call failed")
            raise ConformanceFailure(
                "loop.failure_fed_back", f"call {execution.call_id} failed "
                f"({execution.outcome}) but what the model was sent does not say so",
                expected=want, got=[clip(t, 120) for t, _ in candidates] or "nothing for it",
                hint="send a ToolError's message to the model (it is written for it); for a "
                     "crash or a timeout say that the call failed, without its text")


@check("loop.results_fed_back")
def results_fed_back(run: LoopRun) -> None:
    """Each call of the first round that succeeded has its result in the next request: its
    tool message, or, under ``feedback_role="user"``, user-role text carrying it. (With tool
    messages, a missing one also breaks loop.answered_once_in_order; with user-role text only
    this check sees it.)"""
    added = _fed_back(run, 1)
    if added is None:
        return  # nothing sent after the round: loop.failure_fed_back and the stop checks say so
    texts = _feedback_texts(run, added)
    by_id = {i: t for i, t in texts if i is not None}
    free = [t for i, t in texts if i is None]
    ids = run.sent_ids(run.script.turns[0])
    for execution in _last_executions(run):
        if execution.call_id not in ids or execution.outcome != "ok":
            continue
        result = str(execution.result)
        candidates = [by_id[execution.call_id]] if execution.call_id in by_id else free
        if not any(result in t for t in candidates):
            raise ConformanceFailure(
                "loop.results_fed_back", f"call {execution.call_id} succeeded but its result "
                "never reached the model", expected=f"{execution.call_id}: {result!r}",
                got=[clip(t, 120) for t in candidates] or "nothing for it",
                hint="send every call's result back, the successes beside the failures; a "
                     "model not shown a result calls the tool again or makes the answer up "
                     "(huggingface/smolagents#2457)")


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
    """No traceback, exception message text or secret reaches the model or the loop's client.
    The exception's type name alone (``RuntimeError``) is not a leak: some frameworks name it
    in their stop text by design."""
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
        for marker in (SECRET, "Traceback (most recent call last)", "db.internal",
                       "could not connect to postgres", "/srv/app/tools/db.py"):
            if marker in text:
                raise ConformanceFailure(
                    "loop.sanitised", f"{where} leaks a tool's internals ({marker!r})",
                    expected="a short, sanitised error such as 'query_db failed'",
                    got=clip(text, 200), hint="never pass str(exc) or repr(exc) of an unexpected "
                    "exception to the model or the client")


@check("loop.executed_once")
def executed_once(run: LoopRun) -> None:
    """A call id repeated within a turn runs once (``duplicate_call_ids="dedupe"``), or not at
    all (``refuse``: none of the duplicates runs, the loop fails closed)."""
    counts: dict[str | None, int] = {}
    for execution in run.executor.executions:
        counts[execution.call_id] = counts.get(execution.call_id, 0) + 1
    if run.profile.duplicate_call_ids == "refuse":
        repeated = {c.id for t in run.script.turns for c in t.tool_calls
                    if c.id and sum(d.id == c.id for d in t.tool_calls) > 1}
        ran = {k: v for k, v in counts.items() if k in repeated}
        if ran:
            raise ConformanceFailure(
                "loop.executed_once", "a repeated tool call id was executed although the "
                "profile declares duplicate_call_ids='refuse'",
                expected="no execution of a repeated id", got=ran,
                hint="refusing means running none of the calls that share an id")
        return
    twice = {k: v for k, v in counts.items() if v > 1}
    if twice:
        raise ConformanceFailure(
            "loop.executed_once", "a tool call id was executed more than once",
            expected="one execution per call id", got=twice,
            hint="deduplicate the calls of a turn by id before dispatching")


@check("loop.executed_once")
def permanent_ran_once(run: LoopRun) -> None:
    """A tool that failed permanently (``ToolError(retryable=False)``) is not run again: with
    ``tool_retries`` declared, a retry is for a retryable failure only (docs/loops.md)."""
    runs: dict[str, int] = {}
    for execution in run.executor.executions:
        if execution.outcome == "permanent":
            key = f"{execution.name} ({execution.call_id})"
            runs[key] = runs.get(key, 0) + 1
    again = {key: n for key, n in runs.items() if n > 1}
    if again:
        raise ConformanceFailure(
            "loop.executed_once", "a tool that failed permanently (retryable=False) was run "
            "again for the same call", expected="one execution of a call that failed "
            "permanently", got=again,
            hint="retry a tool (tool_retries) only after a ToolError with retryable=True; "
                 "retryable=False says running it again cannot help")


@check("loop.parallel")
def ran_in_parallel(run: LoopRun) -> None:
    """The slow calls of the turn were all in flight at one moment: each ended after the last
    of them started. Each call waits (a rendezvous) until all three have started, so a
    concurrent dispatch meets this however late a thread starts, and a sequential one never
    does. No wall-clock window: the machine's load cannot make it flake (issue 28)."""
    runs = sorted((e for e in run.executor.executions if e.name == "slow_lookup"),
                  key=lambda e: e.started)
    if len(runs) < 3:
        raise ConformanceFailure("loop.parallel", "the slow calls did not all run",
                                 expected=3, got=len(runs),
                                 hint="run every call of the turn (distinct ids are distinct "
                                      "calls, even of the same tool)")
    now = time.perf_counter()
    last_start = runs[-1].started
    alone = [e.call_id for e in runs if (e.ended or now) < last_start]  # ended 0.0: running
    if alone:
        base = runs[0].started
        raise ConformanceFailure(
            "loop.parallel", "the calls of one turn were never all in flight at once",
            expected=f"every call still running when the last one started ({runs[-1].call_id} "
                     "at " f"{last_start - base:.2f}s): each waits for the others to start",
            got="; ".join(f"{e.call_id} {e.started - base:.2f}s-{(e.ended or now) - base:.2f}s"
                          for e in runs) + f" (ended before the last started: {alone})",
            hint="dispatch the calls of a turn concurrently (all of them, not a pool smaller "
                 "than the turn), or declare Profile(parallel_dispatch=False)")


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


#: dialects whose wire carries a tool result's error flag to the model (Anthropic
#: ``tool_result.is_error``, Gemini ``functionResponse.response.error``); on the others only the
#: text reaches it
_FLAG_WIRES = ("anthropic", "gemini", "vertex")
#: results that tell the model nothing
_NOTHING = ("", "null", "none", "{}", "[]", '""', "''")


def unrun_call_answered(clause: str) -> Callable[[LoopRun], None]:
    """The first round's call, which cannot run (an unknown tool, arguments that do not parse),
    is answered so that the model can tell it failed. Judged by what reaches the model, never by
    its words (issue 28): the call has a result of its own (its tool message; user-role text
    under ``feedback_role="user"``), the result is no tool's output (a loop that runs the
    closest tool instead answers with that tool's result), and it says something: text that is
    not empty, or ``is_error=True`` on a wire that carries the flag to the model. Any wording
    passes: "Error: get_wether is not a valid tool, try one of [get_weather]." (langgraph),
    "Unknown tool name: 'get_wether'. ..." (pydantic-ai), "Tool 'get_wether' not found."
    (openai-agents), "Unknown tool get_wether, should be one of: ..." (smolagents), "The
    requested tool does not exist or is not available." (agno), "An error occurred while
    running the tool. Please try again." (openai-agents' default for any tool failure).
    Whether the result is flagged is_error where the flag is visible is loop.failure_flagged's
    to judge."""
    @check(clause)
    def unrun_call_answered_check(run: LoopRun) -> None:
        added = _fed_back(run, 1)
        texts = _feedback_texts(run, added or [])
        if not texts and _stopped_before(run, 1):
            return  # the loop ended the run there (loop.stop_reason checks the policy allows it)
        by_id = {i: t for i, t in texts if i is not None}
        flags = {m.tool_call_id: bool(m.is_error) for m in added or []
                 if isinstance(m, ToolMessage)}
        outputs = [str(e.result) for e in run.executor.executions
                   if e.outcome == "ok" and str(e.result)]
        first = run.script.turns[0]
        for call, call_id in zip(first.tool_calls, run.sent_ids(first)):
            if call_id in by_id:
                text, flag = by_id[call_id], flags.get(call_id, False)
            elif run.profile.feedback_role == "user" and texts:
                text, flag = " ".join(t for i, t in texts if i is None), False
            else:
                raise ConformanceFailure(
                    clause, f"call {call_id} ({call.name}) could not run, and the model was "
                    "never told: no result of its own reached it",
                    expected=f"a result for {call_id} saying the call failed",
                    got=[clip(t, 80) for _, t in texts] or f"{run.model_calls} model call(s), "
                    "nothing for it", hint=_GO_ON)
            shown = [o for o in outputs if o in text]
            if shown:
                raise ConformanceFailure(
                    clause, f"call {call_id} ({call.name}) could not run, but the model was "
                    f"answered with a tool's output ({shown[0]!r}) as if it had",
                    expected="an error result for the call as sent", got=clip(text, 200),
                    hint="never run another tool in place of the one the model named (nor "
                         "with arguments it did not send): answer the call with an error that "
                         "says what to fix, and let the model call again")
            if text.strip().lower() in _NOTHING and not (flag and run.dialect in _FLAG_WIRES):
                raise ConformanceFailure(
                    clause, f"call {call.id} ({call.name}) could not run, and its result "
                    "tells the model nothing", expected="a result that says the call failed "
                    "(what to fix), or is_error=True on a wire that carries the flag",
                    got=f"{text!r} (is_error={flag}, on the {run.dialect} wire)",
                    hint="put the reason in the result's text: the openai wire has no error "
                         "flag, so an empty result reads as a tool that returned nothing")
    return unrun_call_answered_check


def _reset_rounds(profile: Any) -> list[str]:
    return ["fail"] * (profile.max_failure_rounds - 1) + ["ok", "fail"]


def _not_iterations_rounds(profile: Any) -> list[str]:
    return ["fail"] * (profile.max_failure_rounds - 1) + ["ok"]


def _mixed_count(profile: Any) -> int:
    """As many mixed rounds as count toward a failure-round stop (seed 002's escaped mutant, read
    the other way: a loop that counts a round with any failure as a failure round stops early),
    as long as the declared policy still lets the run complete."""
    n = max(1, min(profile.max_failure_rounds or 3, profile.max_iterations))
    while n > 1 and expected_stop(profile, ["mixed"] * n + ["final"])[0] != "completed":
        n -= 1
    return n


def _mixed_rounds(profile: Any) -> list[str]:
    return ["mixed"] * _mixed_count(profile) + ["final"]


def _tool_timeout(profile: Any) -> float:
    """The declared tool timeout, or a bound for sleeps when the loop declares none."""
    return profile.tool_timeout if profile.tool_timeout is not None else 0.5


def _constant(rounds: Sequence[str]) -> Callable[[Any], Sequence[str]]:
    return lambda profile: rounds


def _kept(run: LoopRun, old: Any, new: Any, closing: bool) -> bool:
    """``new`` carries ``old``: the same message; under ``feedback_role="user"`` a user message
    with results appended (see ``_appended_to_user``); in a declared closing call, a system
    prompt of the loop's own (smolagents' ``provide_final_answer`` sends the conversation under
    its final-answer prompt by design: huggingface/smolagents#825, read 2026-11-25)."""
    if old == new:
        return True
    role = getattr(old, "role", None)
    if role != getattr(new, "role", None):
        return False
    if role == "user" and run.profile.feedback_role == "user":
        return (new.content or "").startswith(old.content or "")
    return closing and role in ("system", "developer")


@check("loop.conversation_kept")
def conversation_kept(run: LoopRun) -> None:
    """Each model call re-sends the whole conversation so far, and the tools, every time: the
    first call offers every tool of the ``LoopRequest`` (a loop may add its own, such as
    smolagents' ``final_answer``), the later ones the same tools as the first."""
    offered = {t.name for t in run.requests[0].tools} if run.requests else set()
    unoffered = [t.spec.name for t in run.script.tools if t.spec.name not in offered]
    if run.requests and unoffered:
        raise ConformanceFailure(
            "loop.conversation_kept", "model call 1 does not offer the tools the loop was given",
            expected=[t.spec.name for t in run.script.tools], got=sorted(offered),
            hint="send LoopRequest.tools (their names, descriptions and schemas) with every "
                 "model call: a model not offered a tool cannot call it")
    for n in range(1, len(run.requests)):
        before, now = run.requests[n - 1], run.requests[n]
        closing = run.profile.closing_call and n == len(run.requests) - 1 and not now.tools
        if not all(_kept(run, old, new, closing) for old, new in
                   zip(before.messages, now.messages)) or len(now.messages) < len(before.messages):
            raise ConformanceFailure(
                "loop.conversation_kept", f"model call {n + 1} does not carry the conversation "
                f"of call {n}: earlier messages were dropped or changed",
                expected=f"the {len(before.messages)} earlier messages, then the new round",
                got=[getattr(m, "role", "?") for m in now.messages],
                hint="append each round to one message list; the model forgets tool results "
                     "it is not shown again")
        if not closing and [t.name for t in now.tools] != [t.name for t in run.requests[0].tools]:
            raise ConformanceFailure(
                "loop.conversation_kept", f"model call {n + 1} does not offer the same tools",
                expected=[t.name for t in run.requests[0].tools], got=[t.name for t in now.tools],
                hint="send the tools with every model call, not only the first")


def _answered_calls(run: LoopRun) -> list[tuple[str, str | None, bool]]:
    """``(call id, tool name, failed)`` of every call the loop answered (in a request it sent,
    or in ``LoopResult.messages``), in order: failed when its last execution did not succeed,
    or when it never ran (an unknown tool, arguments that do not parse or fit)."""
    names: dict[str, str | None] = {}
    seen: list[str] = []
    stored = list(run.result.messages) if run.result is not None else []
    for messages in [r.messages for r in run.requests] + [stored]:
        for m in messages:
            if isinstance(m, AssistantMessage):
                for call in m.tool_calls:
                    if call.id is not None:
                        names.setdefault(call.id, call.name)
            elif isinstance(m, ToolMessage) and m.tool_call_id and m.tool_call_id not in seen:
                seen.append(m.tool_call_id)
    last = {e.call_id: e for e in _last_executions(run)}
    return [(i, names.get(i), i not in last or last[i].outcome != "ok") for i in seen]


#: the result text a stop shows its client as: a question, a failure, or the answer
_STOP_EVENT = {"needs_clarification": "clarification", "error": "error", "completed": "text",
               "length": "text"}


def _events_ending_in_done(run: LoopRun) -> list[Any] | None:
    """The loop's events, the last of them ``done`` with the stop reason (else a ``loop.events``
    failure); None where the profile does not claim ``loop.events`` or the loop gave no result."""
    if not run.profile.loop_events or run.result is None:
        return None
    events = list(run.result.events or ())
    if not events or events[-1].type != "done" or events[-1].content != run.result.stop_reason:
        raise ConformanceFailure(
            "loop.events", "the loop's events do not end with one 'done' event carrying the stop "
            "reason", expected=f"... LoopEvent(type='done', content={run.result.stop_reason!r})",
            got=[(e.type, clip(e.content, 30)) for e in events][-4:],
            hint="emit LoopEvent(type='done', content=stop_reason) last, or declare "
                 "Profile(loop_events=False)")
    return events


def _crash_ended_the_run(run: LoopRun, execution: Any) -> bool:
    """Under ``crash_policy="abort"`` a crashing tool ends the run with ``error``: the run's
    'error' event is how the client learns of that call's failure, and no per-call
    'tool_error' follows it (a framework that raises out of its tool node, issue 28)."""
    return (run.profile.crash_policy == "abort" and execution is not None
            and execution.outcome == "crashed" and run.result is not None
            and run.result.stop_reason == "error")


@check("loop.events")
def events_reported(run: LoopRun) -> None:
    """The client is shown each call (its id and tool name), each call's result (its text) or
    error, the run's text as the event its stop calls for, and the stop, last. Calls that never
    ran (an unknown tool, bad arguments) are shown too, as errors. Checked where the profile
    claims ``loop.events``; a no-op otherwise (cases that are not about events carry it)."""
    events = _events_ending_in_done(run)
    if events is None:
        return
    executions = {e.call_id: e for e in _last_executions(run)}
    calls = {i: (name, failed) for i, name, failed in _answered_calls(run)}
    for call_id, execution in executions.items():  # a call the loop ran and never answered
        calls.setdefault(call_id, (execution.name, execution.outcome != "ok"))
    for call_id, (name, failed) in calls.items():
        mine = [e for e in events if e.call_id == call_id]
        shown = {e.type for e in mine}
        want = "tool_error" if failed else "tool_result"
        if not run.profile.event_errors:  # its events carry no per-call failure flag
            want = "tool_result" if "tool_result" in shown else "tool_error"
        execution = executions.get(call_id)
        if ("tool_call" in shown and want not in shown and _crash_ended_the_run(run, execution)
                and any(e.type == "error" for e in events)):
            continue  # crash_policy="abort": the run's own 'error' event reports this crash
        if "tool_call" not in shown or want not in shown:
            outcome = executions[call_id].outcome if call_id in executions else "never ran"
            raise ConformanceFailure(
                "loop.events", f"the client was not shown call {call_id} ({name}, {outcome})",
                expected=f"a 'tool_call' and a '{want}' event with call_id={call_id!r}",
                got=sorted(shown) or "no event for it",
                hint="report every call and its outcome to the client; failures (a call that "
                     "could not even run included) as sanitised 'tool_error' events")
        unnamed = [e.type for e in mine if e.type in ("tool_call", want) and e.name != name]
        if unnamed:
            raise ConformanceFailure(
                "loop.events", f"the client's events for call {call_id} do not name its tool",
                expected=f"name={name!r} on its {sorted(set(unnamed))} event(s)",
                got=[(e.type, e.name) for e in mine],
                hint="set LoopEvent.name to the tool's name: the client shows what ran")
        if not failed and execution is not None and execution.result is not None and not any(
                str(execution.result) in e.content for e in mine if e.type == "tool_result"):
            raise ConformanceFailure(
                "loop.events", f"the 'tool_result' event of call {call_id} does not carry what "
                "its tool returned", expected=f"content holding {execution.result!r}",
                got=[clip(e.content, 60) for e in mine if e.type == "tool_result"],
                hint="put the result text in the tool_result event's content")
    kind = _STOP_EVENT.get(run.result.stop_reason)
    text = run.result.text
    if kind is None or not text:
        return
    # the events after the last call's: a streaming loop may show its answer in pieces
    tail = events[:-1]
    for n in range(len(tail) - 1, -1, -1):
        if tail[n].type.startswith("tool_"):
            tail = tail[n + 1:]
            break
    pieces = [e.content for e in tail if e.type == kind]
    ok = bool(pieces) if kind == "error" else "".join(pieces) == text
    if not ok:
        raise ConformanceFailure(
            "loop.events", f"the run stopped with {run.result.stop_reason!r} and its text, but "
            f"the client was not shown it as a '{kind}' event",
            expected=f"'{kind}' event(s) before 'done'" + ("" if kind == "error" else
                                                         f" whose content is {clip(text, 60)!r}"),
            got=[(e.type, clip(e.content, 30)) for e in tail],
            hint="show the client what the run ends with: the answer as 'text', a question "
                 "to the user as 'clarification', a failure as 'error', then 'done'")


def _flag_visible(run: LoopRun) -> bool:
    """Whether the requests read back carry a tool message's ``is_error`` as the loop set it:
    in-process (the loop's own messages), or behind the fake on a wire with an error flag
    (Anthropic ``tool_result.is_error``, Gemini ``functionResponse.response.error``)."""
    return run.model_mode == "inprocess" or run.dialect in ("anthropic", "gemini", "vertex")


@check("loop.failure_flagged")
def failure_flagged(run: LoopRun) -> None:
    """A failed call (an unknown tool, arguments that do not parse or fit, a crash, a timeout,
    a ToolError) is answered with ``is_error=True``, a successful one without it (docs/loops.md,
    "Stop reasons": "a failure is answered with is_error=True"). Read where the flag is visible
    (see ``_flag_visible``) and the results go back as tool messages."""
    if run.profile.feedback_role != "tool" or not _flag_visible(run):
        return
    failed = {i: f for i, _, f in _answered_calls(run)}
    stored = list(run.result.messages) if run.result is not None else []
    for n, messages in enumerate([r.messages for r in run.requests] + [stored]):
        where = f"model call {n + 1}" if n < len(run.requests) else "LoopResult.messages"
        for m in messages:
            if not isinstance(m, ToolMessage) or m.tool_call_id not in failed:
                continue
            if bool(m.is_error) != failed[m.tool_call_id]:
                want = failed[m.tool_call_id]
                raise ConformanceFailure(
                    "loop.failure_flagged", f"{where}: the result of call {m.tool_call_id} "
                    f"{'failed' if want else 'succeeded'} but is flagged is_error="
                    f"{bool(m.is_error)}", expected=f"is_error={want}",
                    got=f"is_error={m.is_error}: {clip((m.content or ''), 80)!r}",
                    hint="answer a call that failed (unknown tool, bad arguments, a crash, a "
                         "timeout, a ToolError) with ToolMessage(is_error=True): Anthropic's "
                         "tool_result.is_error and Gemini's response.error carry it to the "
                         "model; a result that worked is not an error")


@check("loop.result_text")
def final_answer_text(run: LoopRun) -> None:
    """A run that completed tells its client the model's last answer: ``LoopResult.text`` is
    the final answer's text, or, with ``final_answer_tool``, the call's ``answer`` argument. A
    run that stopped to ask the user (``needs_clarification``) has the question as its text; one
    cut at the token limit (``length``) the partial answer (pydantic-ai 2.68.0 returns cut plain
    text as the run's output, OutputTokenLimitExceeded's docstring; LangChain keeps it as the
    last AIMessage; read 2026-11-25)."""
    if run.result is not None and run.result.stop_reason == "needs_clarification" \
            and not (run.result.text or "").strip():
        raise ConformanceFailure(
            "loop.result_text", "the run stopped to ask the user, but LoopResult.text is empty",
            expected="the question to the user", got=repr(run.result.text),
            hint="with needs_clarification, LoopResult.text is the question: it names what "
                 "is missing")
    if run.result is not None and run.result.stop_reason == "length" and run.model_calls:
        turns = run.script.turns
        cut = turns[min(run.model_calls, len(turns)) - 1].text
        if cut and (run.result.text or "").strip() != cut.strip():
            raise ConformanceFailure(
                "loop.result_text", "the run stopped with 'length' but LoopResult.text is not "
                "the partial answer", expected=repr(cut), got=repr(run.result.text),
                hint="with length, LoopResult.text is what the model said before it was cut "
                     "(docs/loops.md, 'Stop reasons'): the application shows it as incomplete")
    if run.result is None or run.result.stop_reason != "completed":
        return
    got = run.result.text
    if (got or "").strip() != FINAL.text:
        tool = run.profile.final_answer_tool
        raise ConformanceFailure(
            "loop.result_text", "the run completed but LoopResult.text is not the model's "
            "final answer", expected=repr(FINAL.text), got=repr(got),
            hint=(f"the run ends through {tool}: its 'answer' argument is the run's text"
                  if tool else "return the text of the model's last answer as "
                               "LoopResult.text"))


#: the answer to a declared closing call (the model sums up after a stop at a cap)
CLOSING = "I had to stop before finishing; here is what I found so far."


def _closing(profile: Any, rounds: Sequence[str], turn: Turn) -> tuple[Turn, ...]:
    """The turns of a run that ends at a cap: ``turn`` again and again, and under a declared
    ``closing_call`` the closing call's answer (text, no calls) where the policy makes it."""
    reason, calls = expected_stop(profile, rounds)
    if profile.closes(reason):
        return (turn,) * (calls - 1) + (Turn(text=CLOSING),)
    return (turn,)


@check("loop.closing_call")
def closing_answer(run: LoopRun) -> None:
    """Under a declared ``closing_call``, the closing call's answer is the run's text (and its
    usage is summed: ``loop.usage``)."""
    if run.result is None or not run.profile.closes(run.result.stop_reason):
        return
    if (run.result.text or "").strip() != CLOSING:
        raise ConformanceFailure(
            "loop.closing_call", f"the run stopped with {run.result.stop_reason!r} after its "
            "closing call, but LoopResult.text is not that call's answer",
            expected=repr(CLOSING), got=repr(run.result.text),
            hint="the closing call is made to have the model sum up: its answer is what the "
                 "run tells its client")


@check("loop.usage")
def usage_if_given(run: LoopRun) -> None:
    """``loop.usage`` where the loop reports usage at all (this case is not about usage): every
    model call's usage summed, a closing call's and a refused turn's included."""
    if run.profile.usage and run.result is not None and run.result.usage is not None:
        usage_summed(run)


@check("loop.text_replayed")
def text_replayed(run: LoopRun) -> None:
    """The text the model said alongside its calls goes back with them in the next request:
    the assistant message that carries the calls carries the text too (every dialect's wire
    has both; dropping it loses what the model said it was doing: issue 12's adapter defect,
    in the loop that rebuilds the turn)."""
    said = run.script.turns[0].text
    if not said or len(run.requests) < 2:
        return
    sent = [getattr(m, "content", None) or "" for m in run.requests[1].messages
            if getattr(m, "role", None) == "assistant"]
    if not any(said in text for text in sent):
        raise ConformanceFailure(
            "loop.text_replayed", "the text the model said with its calls was not sent back",
            expected=f"an assistant message with {said!r} (and its calls)",
            got=[clip(t, 80) for t in sent] or "no assistant message",
            hint="keep the assistant's text when you append its tool calls to the conversation")


def calls_run(*tools: str) -> Callable[[LoopRun], None]:
    """Each named tool ran (at least once): the loop did not drop the turn's calls."""

    @check("loop.calls_run")
    def calls_run_check(run: LoopRun) -> None:
        ran = {e.name for e in run.executor.executions}
        missing = [t for t in tools if t not in ran]
        if missing:
            raise ConformanceFailure(
                "loop.calls_run", f"the model asked for {', '.join(missing)} and the loop never "
                "ran it", expected=f"{list(tools)} executed",
                got=f"executed {sorted(ran) or 'nothing'}; stop reason "
                    f"{run.result.stop_reason if run.result else None!r} after "
                    f"{run.model_calls} model call(s)",
                hint=_calls_run_hint(run.script.turns[0]))
    return calls_run_check


def _calls_run_hint(turn: Turn) -> str:
    if turn.finish_reason == "stop":
        return ("the turn had tool calls but finish_reason 'stop': decide on "
                "response.tool_calls, never on the finish reason (Gemini and Ollama say STOP "
                "with calls; OpenAI says 'stop' for a forced tool_choice)")
    if turn.text:
        return ("the turn had text AND tool calls ('Let me check...' plus a call): text does "
                "not make a turn final; run the calls whenever there are any")
    return "run every call the model asks for"


@check("loop.results_match_calls")
def results_match_calls(run: LoopRun) -> None:
    """Each result carries what ITS call's tool returned: ids and order right is not enough."""
    for execution in run.executor.executions:
        if execution.outcome != "ok" or execution.result is None:
            continue
        for n, request in enumerate(run.requests):
            sent = [m for m in request.messages if isinstance(m, ToolMessage)
                    and m.tool_call_id == execution.call_id]
            if sent and execution.result not in sent[0].content:
                others = {e.call_id: e.result for e in run.executor.executions
                          if e.result and e.result in sent[0].content}
                raise ConformanceFailure(
                    "loop.results_match_calls", f"model call {n + 1}: the result sent for "
                    f"{execution.call_id} is not what its tool returned",
                    expected=f"{execution.call_id}: {execution.result!r}",
                    got=f"{execution.call_id}: {sent[0].content!r}"
                        + (f" (the output of {', '.join(map(str, others))})" if others else ""),
                    hint="pair each output with the call that produced it (by call id, or by "
                         "the future of that call), not by position in completion order")


@check("loop.tool_not_run")
def _undeclared_keys_not_run(run: LoopRun) -> None:
    """set_alarm never runs with its undeclared key (``snooze``): not at all by default; under
    ``undeclared_arguments="drop"`` it may run with the declared keys only."""
    if run.profile.undeclared_arguments == "refuse":
        never_ran("set_alarm", _WHOLE_SCHEMA)(run)
        return
    declared = {"time"}
    sent_extra = [(e.call_id, e.arguments) for e in run.executor.by_name("set_alarm")
                  if not isinstance(e.arguments, dict) or set(e.arguments) - declared]
    if sent_extra:
        raise ConformanceFailure(
            "loop.tool_not_run", "set_alarm ran with a key its schema does not declare",
            expected="no execution, or one with the declared keys only (undeclared_arguments="
                     "'drop')", got=sent_extra, hint=_WHOLE_SCHEMA)


@check("loop.stop_reason")
def _argument_types_stop(run: LoopRun) -> None:
    """Fed back, the model fixes its call and the run completes; a loop declaring
    argument_validation="clarify" may ask the user instead (both are honest policies)."""
    # one round in which both calls fail, then the final answer: what the declared policy
    # makes of that round (completed, or failure_rounds under max_failure_rounds=1, ...);
    # under undeclared_arguments="drop" set_alarm may succeed with its declared key
    rounds = [["fail", "final"]] + (
        [["mixed", "final"]] if run.profile.undeclared_arguments == "drop" else [])
    allowed = list(dict.fromkeys(expected_stop(run.profile, r)[0] for r in rounds)) + (
        ["needs_clarification"] if run.profile.argument_validation == "clarify" else [])
    got = run.result.stop_reason if run.result else None
    if got not in allowed:
        raise ConformanceFailure(
            "loop.stop_reason", "the loop stopped for the wrong reason",
            expected=" or ".join(allowed), got=f"{got} after {run.model_calls} model call(s)",
            hint=_stop_hint(allowed[0], got))


@check("loop.failure_fed_back")
def _fed_back_unless_clarified(run: LoopRun) -> None:
    """failure_fed_back, unless the loop (declaring clarify) asked the user instead: then there
    is no next model call to carry the errors."""
    if run.result is not None and run.result.stop_reason == "needs_clarification" \
            and run.profile.argument_validation == "clarify":
        return
    failure_fed_back(run)


_WHOLE_SCHEMA = ("validate the arguments against the WHOLE schema (types, patterns, "
                 "additionalProperties: false), not only its required keys: e.g. "
                 "jsonschema.Draft202012Validator(spec.parameters).iter_errors(arguments)")


@check("loop.events")
def stop_reported(run: LoopRun) -> None:
    """Where the profile claims ``loop.events``, the client is told how the run ended: the
    last event is ``done`` with the stop reason (a cancel or a handoff the user never sees
    looks like a hang). Nothing more is asked of the events of these two stops."""
    _events_ending_in_done(run)

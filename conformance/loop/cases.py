"""The ``loop`` family's cases: the scripts (built from the profile, so the same case checks a
loop whatever caps it declares) and ``CASES``, in catalogue order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from pytest_toolcall.cases import Case, ErrorReply, Turn, make_case
from pytest_toolcall.run.looprun import LoopScript
from pytest_toolcall.core.model import ToolSpec, UserMessage
from pytest_toolcall.cases.tools import (
    ScriptedTool,
    crash,
    fail,
    hang,
    ok,
    permanent,
    sleep,
)
from pytest_toolcall.conformance.loop.policy import (
    ASK,
    _call,
    _final,
    _tools,
    _turn,
    by_policy,
    by_policy_of_run,
    expected_stop,
    model_calls,
    stalled_call,
    stop_reason,
)
from pytest_toolcall.conformance.loop.model_calls import CASES as _MODEL_CALL_CASES
from pytest_toolcall.conformance.loop.turns import CASES as _TURN_CASES
from pytest_toolcall.conformance.loop.checks import (
    _WHOLE_SCHEMA,
    _argument_types_stop,
    _undeclared_keys_not_run,
    _closing,
    _constant,
    _fed_back_unless_clarified,
    _mixed_count,
    _mixed_rounds,
    _not_iterations_rounds,
    _reset_rounds,
    _runs_the_call_after_a_repeat,
    _tool_timeout,
    answered_once_in_order,
    arguments_passed,
    calls_run,
    closing_answer,
    conversation_kept,
    events_reported,
    executed_once,
    failure_fed_back,
    failure_flagged,
    final_answer_text,
    never_ran,
    permanent_ran_once,
    ran_in_parallel,
    results_fed_back,
    results_match_calls,
    retry_waited,
    sanitised,
    stop_reported,
    text_replayed,
    unrun_call_answered,
    usage_if_given,
    usage_summed,
)


# -- cases --------------------------------------------------------------------------------------
def _loop_case(**fields: Any) -> Case:
    return make_case(contract="loop", **fields)


def _failed_rounds(profile: Any, rounds: int = 1) -> list[Any]:
    """The tool's behaviours for ``rounds`` rounds in which its call fails: one failure a round,
    and one more for each retry the loop makes inside the round (``Profile.tool_retries``), so
    that the round the model sees still failed."""
    return [fail()] * (rounds * (1 + profile.tool_retries))


def _all_failures(profile: Any) -> LoopScript:
    return LoopScript(messages=ASK, tools=_tools(get_stock=[fail()]),
                      turns=_closing(profile, ["fail"],
                                     _turn(_call("get_stock", {"sku": "SKU-1"}))))


def _reset(profile: Any) -> LoopScript:
    r = profile.max_failure_rounds
    return LoopScript(messages=ASK, tools=_tools(get_stock=_failed_rounds(profile, r - 1)
                                                 + [ok("12")] + [fail()]),
                      turns=(_turn(_call("get_stock", {"sku": "SKU-1"})),))


def _not_iterations(profile: Any) -> LoopScript:
    r = profile.max_failure_rounds
    return LoopScript(messages=ASK, tools=_tools(get_stock=_failed_rounds(profile, r - 1)
                                                 + [ok("12")]),
                      turns=(_turn(_call("get_stock", {"sku": "SKU-1"})),))


def _mixed_once(profile: Any) -> LoopScript:
    return LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C, sunny")],
                                                 get_stock=[fail()]),
                      turns=(_turn(_call("get_weather", {"city": "Paris"}, "call_w"),
                                   _call("get_stock", {"sku": "SKU-1"}, "call_s")),
                             _final(profile)))


def _mixed(profile: Any) -> LoopScript:
    rounds = tuple(_turn(_call("get_weather", {"city": "Paris"}, f"call_w{i}"),
                         _call("get_stock", {"sku": "SKU-1"}, f"call_s{i}"))
                   for i in range(1, _mixed_count(profile) + 1))
    return LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C, sunny")],
                                                 get_stock=[fail()]),
                      turns=(*rounds, _final(profile)))


def _finish_out_of_order(profile: Any) -> LoopScript:
    # run concurrently, the calls finish b, c, a whatever the load (each waits for the others
    # it names); run one by one, a and c wait in vain, briefly, and finish in call order
    wait = min(0.2, 0.4 * _tool_timeout(profile))
    return LoopScript(messages=ASK, tools=_tools(slow_lookup=[
        sleep(wait, "a", call_id="call_a", after=["call_b", "call_c"]),
        sleep(0.0, "b", call_id="call_b"),
        sleep(wait, "c", call_id="call_c", after=["call_b"])]),
        turns=(_turn(_call("slow_lookup", {"key": "a"}, "call_a"),
                     _call("slow_lookup", {"key": "b"}, "call_b"),
                     _call("slow_lookup", {"key": "c"}, "call_c")), _final(profile)))


def _parallel(profile: Any) -> LoopScript:
    # a rendezvous, not a race (issue 28: a thread that started 200 ms late under load failed
    # a check of overlapping spans): each call waits until all three have started, then
    # returns. Calls dispatched concurrently are then all in flight at one moment however late
    # a thread starts, within the wait; calls run one after the other each wait it out alone.
    # A declared tool timeout bounds the wait on the wall clock (0.6 of it: the loop's own
    # timeout never ends a call first). Without one, nothing but the case's deadline ends a
    # call: the wait is a fifth of that deadline (three waits in a row still end inside it),
    # and a pause of the whole process does not count toward it (2026-11-28: LangChain's
    # create_agent, which declares no tool timeout, failed when its first call started 0.79 s
    # after the other two, which had given up at the 0.3 s then used; a garbage collection of
    # that test's process holds every thread for 0.4 s to 1.7 s there)
    declared = profile.tool_timeout
    wait = 0.6 * declared if declared is not None else max(0.3, 0.2 * profile.timeout)
    ids = ("call_a", "call_b", "call_c")
    return LoopScript(messages=ASK, tools=_tools(slow_lookup=[
        sleep(wait, key, call_id=f"call_{key}", together=ids,
              counts_pauses=declared is not None) for key in "abc"]),
                      turns=(_turn(*(_call("slow_lookup", {"key": key}, f"call_{key}")
                                     for key in "abc")),
                             _final(profile)))


def _one_call_then_final(tool: str, behaviours: Sequence[Any], name: str, arguments: Any,
                         call_id: str = "call_1") -> Callable[[Any], LoopScript]:
    """A script factory: one call of ``name``, then the model's last answer."""
    def script(profile: Any) -> LoopScript:
        return LoopScript(messages=ASK, tools=_tools(**{tool: behaviours}),
                          turns=(_turn(_call(name, arguments, call_id)), _final(profile)))
    return script


_POLICY_CASES: list[Case] = [
    _loop_case(
        id="loop.all_failure_rounds",
        title="Rounds in which every call fails stop the loop after the declared count",
        why="Seed 002 AC1: a loop whose tools all fail must stop with failure_rounds after "
            "max_failure_rounds model calls, not spin until the iteration cap.",
        loop=_all_failures,
        # the default policy: max_failure_rounds model calls, then failure_rounds; a loop
        # without that cap stops where its budget or iteration cap says
        checks=(*by_policy(_constant(["fail"]), "one per failure round until the declared cap"),
                closing_answer, usage_if_given),
    ),
    _loop_case(
        id="loop.failure_rounds_reset",
        title="A successful round resets the failure-round count",
        why="A counter that never resets stops a healthy loop after scattered failures.",
        needs={"loop.failure_rounds_2"},
        loop=_reset,
        # r-1 failures, a success, then r failures: 2r calls with the default caps (with
        # max_iterations=1 the success round reaches the cap: no failure round can follow)
        checks=by_policy(_reset_rounds, "r-1 failure rounds, a success, then failure rounds"),
    ),
    _loop_case(
        id="loop.failure_rounds_not_iterations",
        title="Failure rounds do not count toward the iteration cap",
        why="Seed 002 AC1: tool_iterations is only incremented after a round with a success; "
            "counting failures too stops the loop at the cap early.",
        needs={"loop.failure_rounds_2", "loop.successful_rounds"},
        loop=_not_iterations,
        # r-1 failure rounds, max_iterations rounds, one more ask (plus a closing call if any)
        checks=by_policy(_not_iterations_rounds,
                         "r-1 failure rounds, max_iterations rounds, one more ask"),
    ),
    _loop_case(
        id="loop.permanent_failure",
        title="A permanent failure stops the loop in one round",
        why="Seed 002 AC2: a failure that retrying cannot fix (retryable=False) must stop at "
            "once instead of burning the remaining rounds.",
        needs={"loop.permanent_stop"},
        loop=lambda p: LoopScript(messages=ASK, tools=_tools(fetch_record=[permanent()]),
                                  turns=_closing(p, ["permanent"],
                                                 _turn(_call("fetch_record", {"id": 7})))),
        checks=(*by_policy(_constant(["permanent"]), "one round (and a closing call, if any)"),
                closing_answer, usage_if_given, permanent_ran_once),
    ),
    _loop_case(
        id="loop.retryable_failure_continues",
        title="A retryable failure is fed back and the loop goes on",
        why="Seed 002 AC10: retryable vs permanent must drive the decision; a loop that treats "
            "every failure as fatal gives up on a passing glitch.",
        loop=lambda p: LoopScript(
            messages=ASK, tools=_tools(get_stock=[*_failed_rounds(p), ok("12")]),
            turns=(_turn(_call("get_stock", {"sku": "SKU-1"}, "call_1")),
                   _turn(_call("get_stock", {"sku": "SKU-1"}, "call_2")), _final(p))),
        checks=(*by_policy(_constant(["fail", "ok", "final"]), "fail, retry, answer"),
                failure_fed_back, final_answer_text),
    ),
    _loop_case(
        id="loop.missing_required_argument",
        title="A missing required argument is never run: clarify or feed back, per profile",
        why="Seed 002 AC3: a call without a required parameter must lead to a clarifying "
            "question or a validation error for the model, and the tool must not run.",
        needs={"loop.argument_validation"},
        loop=_one_call_then_final("get_weather", [ok("18°C")], "get_weather", {}),
        checks=(never_ran("get_weather"),
                stop_reason(lambda p: "needs_clarification" if p.argument_validation == "clarify"
                            else expected_stop(p, ["fail", "final"])[0]),
                final_answer_text, failure_flagged, events_reported),
    ),
    _loop_case(
        id="loop.sanitised_failures",
        title="A crashing tool's traceback and secrets reach neither the model nor the client",
        why="Seed 002 AC4: execution failures must be sanitised; raw exception text carries "
            "stack traces, DSNs and tokens.",
        loop=_one_call_then_final("query_db", [crash()], "query_db", {"sql": "select 1"}),
        # crash_policy="abort": the run stops with 'error' (its text sanitised too)
        checks=(sanitised, failure_fed_back,
                stop_reason(lambda p: expected_stop(p, ["crash", "final"])[0]),
                failure_flagged, events_reported),
    ),
    _loop_case(
        id="loop.mixed_batch",
        title="In a mixed batch the failed call is fed back and does not cancel its sibling",
        why="Seed 002 AC5, the gate's LOW finding: when one call succeeds and its sibling fails, "
            "the failure was silently dropped and the model never learned of it. A round with a "
            "success is an iteration, not a failure round: repeated mixed rounds must not stop "
            "the loop with failure_rounds.",
        loop=_mixed,
        checks=(failure_fed_back, results_fed_back, answered_once_in_order,
                stop_reason(lambda p: expected_stop(p, _mixed_rounds(p))[0]),
                final_answer_text, arguments_passed),
    ),
    _loop_case(
        id="loop.answered_once_in_order",
        title="Every call of a turn is answered exactly once, in call order",
        why="Providers reject unanswered or orphan tool messages with a 400 (OpenAI, Anthropic, "
            "Gemini); results appended in completion order break pairing for Gemini.",
        loop=_finish_out_of_order,
        checks=(answered_once_in_order,
                stop_reason(lambda p: expected_stop(p, ["ok", "final"])[0])),
    ),
    _loop_case(
        id="loop.iteration_cap",
        title="The iteration cap stops the loop with max_iterations and no extra model call",
        why="Seed 004: re-prompting until the model stops, capped by max_tool_iterations; a loop "
            "without a cap (or with an off-by-one) never stops or calls once too often.",
        loop=lambda p: LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C")]),
                                  turns=_closing(p, ["ok"],
                                                 _turn(_call("get_weather", {"city": "Paris"})))),
        checks=(*by_policy(_constant(["ok"]),
                           "max_iterations rounds, then the ask that hits the cap"),
                conversation_kept, closing_answer, usage_if_given),
    ),
    _loop_case(
        id="loop.usage_summed",
        title="Usage is summed over every model call",
        why="Seed 004: tokens accumulate across iterations; reporting the last call's usage "
            "under-bills every multi-turn run.",
        needs={"usage"},
        loop=lambda p: LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C")]),
                                  turns=(_turn(_call("get_weather", {"city": "Paris"})),
                                         _turn(_call("get_weather", {"city": "Lyon"})),
                                         _final(p))),
        checks=(usage_summed, stop_reason(lambda p: expected_stop(p, ["ok", "ok", "final"])[0]),
                conversation_kept, final_answer_text),
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
        # the provider's client may retry the 500 itself (Profile.model_retries): those calls
        # are the client's, declared, not the loop's
        checks=(*by_policy(_constant(["ok", "error"]), "the round, then the failing call and "
                           "the client's declared retries; no retry of a 500 by the loop"),
                events_reported),
    ),
    _loop_case(
        id="loop.model_timeout",
        title="A model call that never answers times out and stops the loop with 'error'",
        why="A provider that takes a request and never answers (an overloaded region, a proxy "
            "holding the connection) must not hang the run: the client's read timeout ends the "
            "call and the loop stops with 'error'. The openai SDK waits 600 s by default "
            "(openai-python DEFAULT_TIMEOUT, read 2026-11-24 on openai 3.57.0); google-genai "
            "sets no timeout at all (tests/test_shims.py pin). The stall is played in virtual "
            "time: a client with any read timeout gets it at once.",
        loop=LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C")]),
                        turns=(_turn(_call("get_weather", {"city": "Paris"}, "call_1")),
                               Turn(error=ErrorReply(stall=True)))),
        # the provider's client retries a timeout itself (Profile.model_retries), each retry
        # times out again; a streamed call stalls after its headers, which no client retries
        checks=by_policy_of_run(lambda run: ["ok", stalled_call(run, 1)],
                                "the round, then the call that timed out and, unless it was a "
                                "stream (no client retries a stream after its headers), the "
                                "client's declared retries"),
    ),
    _loop_case(
        id="loop.rate_limited",
        title="A 429 that asks for a delay: retried after the delay by a client that retries, "
              "else the loop stops with 'error'",
        why="Rate limits are the most common provider error in production. OpenAI and Anthropic "
            "answer 429 with a retry-after header (platform.openai.com/docs/guides/rate-limits, "
            "docs.anthropic.com/en/api/rate-limits), Gemini with RetryInfo.retryDelay; the "
            "official SDKs retry it after that delay (openai-python "
            "_base_client._calculate_retry_timeout, read 2026-11-24 on openai 3.57.0). A retry "
            "before the delay is spent is throttled again; a loop that raises, or retries a "
            "429 in a tight loop of its own, fails the run it could have finished.",
        loop=lambda p: LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C")]),
                                  turns=(_turn(_call("get_weather", {"city": "Paris"}, "call_1")),
                                         Turn(error=ErrorReply(kind="rate_limit", retry_after=1)),
                                         _final(p))),
        # model_retries declares the provider client's own retries (the openai SDK: 2)
        checks=(*by_policy(_constant(["ok", "throttled", "final"]),
                           "the round, the throttled call, and the client's retry when the "
                           "profile declares model_retries; no retry by the loop otherwise"),
                retry_waited(1, 2)),
    ),
    _loop_case(
        id="loop.events",
        title="The loop shows its client each call, each result or error, and the stop",
        why="Seed 002 AC4 streams tool events to the frontend; a loop that reports nothing (or "
            "only successes) leaves the user staring at a spinner while tools fail.",
        needs={"loop.events"},
        loop=_mixed_once,
        checks=(events_reported, stop_reason(lambda p: expected_stop(p, ["mixed", "final"])[0]),
                final_answer_text),
    ),
    _loop_case(
        id="loop.unknown_tool",
        title="An unknown tool name gets an error result and the loop goes on",
        why="Models misspell tool names; a KeyError in dispatch ends the run instead of letting "
            "the model correct itself.",
        loop=_one_call_then_final("get_weather", [ok("18°C")], "get_wether", {"city": "Paris"}),
        # unknown_tool_policy="abort": the run stops with 'error' (openai-agents' default)
        checks=(unrun_call_answered("loop.unknown_tool"),
                stop_reason(lambda p: expected_stop(p, ["unknown", "final"])[0]),
                failure_flagged, events_reported),
    ),
    _loop_case(
        id="loop.malformed_arguments",
        title="Malformed JSON arguments get an error result; the tool never runs",
        why="Truncated JSON from the model must not crash the loop nor reach the tool.",
        loop=_one_call_then_final("get_weather", [ok("18°C")], "get_weather", '{"city": "Par'),
        checks=(never_ran("get_weather"),
                unrun_call_answered("loop.malformed_arguments"),
                stop_reason(lambda p: expected_stop(p, ["fail", "final"])[0]),
                failure_flagged, events_reported),
    ),
    _loop_case(
        id="loop.duplicate_call_id",
        title="A tool call id repeated within one turn is executed once",
        why="Streams that repeat a call (or servers that echo it) make naive loops run a "
            "side-effecting tool twice.",
        loop=lambda p: LoopScript(
            messages=ASK, tools=_tools(get_weather=[ok("18°C")], get_stock=[ok("12")]),
            turns=(_turn(_call("get_weather", {"city": "Paris"}, "call_dup"),
                         _call("get_weather", {"city": "Paris"}, "call_dup"),
                         _call("get_stock", {"sku": "SKU-1"}, "call_2")), _final(p))),
        # duplicate_call_ids="refuse": nothing runs; the loop may stop with 'error' or feed
        # the refusal back (a failure round, under the declared caps)
        checks=(executed_once, answered_once_in_order,
                stop_reason(lambda p: expected_stop(p, ["ok", "final"])[0]
                            if p.duplicate_call_ids == "dedupe"
                            else ("error", expected_stop(p, ["fail", "final"])[0])),
                usage_if_given, _runs_the_call_after_a_repeat),
    ),
    _loop_case(
        id="loop.parallel_dispatch",
        title="The calls of one turn run concurrently, results in call order",
        why="Seed 004: parallel calls dispatched concurrently; sequential dispatch multiplies "
            "latency by the number of calls.",
        needs={"loop.parallel"},
        loop=_parallel,
        checks=(ran_in_parallel, answered_once_in_order,
                stop_reason(lambda p: expected_stop(p, ["ok", "final"])[0])),
    ),
    _loop_case(
        id="loop.tool_timeout",
        title="A hung tool times out, is reported to the model, and the loop goes on",
        why="A tool that never answers must not hang the loop; its call still needs a result, "
            "and the call beside it in the same turn keeps its own (a dispatch that gives up "
            "on the batch at the first timeout loses the results after it).",
        needs={"loop.tool_timeout"},
        # the hung call first: the sibling's result comes after the timeout in call order
        loop=lambda p: LoopScript(
            messages=ASK, tools=_tools(slow_lookup=[hang()], get_weather=[ok("18°C, sunny")]),
            turns=(_turn(_call("slow_lookup", {"key": "x"}, "call_1"),
                         _call("get_weather", {"city": "Paris"}, "call_2")), _final(p))),
        checks=(failure_fed_back, stop_reason(lambda p: expected_stop(p, ["mixed", "final"])[0]),
                failure_flagged, events_reported, results_fed_back, answered_once_in_order),
    ),
]


# == issue 16: gaps found by independent implementations ========================================
#: a tool whose schema forbids undeclared keys (``additionalProperties: false``) and types its
#: one argument: a loop that checks only the required keys runs it with anything
ALARM = ToolSpec(name="set_alarm", description="Set an alarm at a time of day (HH:MM).",
                 parameters={"type": "object",
                             "properties": {"time": {"type": "string",
                                                     "pattern": "^[0-2][0-9]:[0-5][0-9]$"}},
                             "required": ["time"], "additionalProperties": False})


def _finish_out_of_order_distinct(profile: Any) -> LoopScript:
    # as _finish_out_of_order (b, c, a when run concurrently), each call with its own output
    wait = min(0.2, 0.4 * _tool_timeout(profile))
    return LoopScript(messages=ASK, tools=_tools(slow_lookup=[
        sleep(wait, "alpha: 1 record", call_id="call_a", after=["call_b", "call_c"]),
        sleep(0.0, "bravo: 2 records", call_id="call_b"),
        sleep(wait, "charlie: 3 records", call_id="call_c", after=["call_b"])]),
        turns=(_turn(_call("slow_lookup", {"key": "a"}, "call_a"),
                     _call("slow_lookup", {"key": "b"}, "call_b"),
                     _call("slow_lookup", {"key": "c"}, "call_c")), _final(profile)))


_ISSUE16: list[Case] = [
    _loop_case(
        id="loop.text_with_calls",
        title="A turn with text AND tool calls runs the calls",
        why="Models often say what they are about to do ('Let me check the weather first.') in "
            "the same turn as the call; every dialect's wire carries both (OpenAI content plus "
            "tool_calls, Anthropic text plus tool_use blocks, Gemini text plus functionCall "
            "parts, Responses message plus function_call items, Ollama content plus "
            "tool_calls). A loop that treats any text as the final answer drops the calls.",
        loop=lambda p: LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C, sunny")]),
                                  turns=(_turn(_call("get_weather", {"city": "Paris"}, "call_1"),
                                               text="Let me check the weather first."),
                                         _final(p))),
        checks=(calls_run("get_weather"), stop_reason("completed"),
                model_calls(lambda p: 2, "the round, then the answer"), final_answer_text,
                text_replayed, arguments_passed),
    ),
    _loop_case(
        id="loop.stop_with_calls",
        title="Tool calls under finish_reason 'stop' are still run",
        why="Gemini ends a turn of function calls with finishReason STOP (recorded: "
            "wire-corpus/pydantic-ai/gemini/test_google__test_google_text_output_function.yaml, "
            "gemini-2.5-pro, confirmed 2026-11-23); Ollama's done_reason is 'stop' with calls "
            "(WIRE.md section 5); OpenAI answers a forced tool_choice ('required' or a named "
            "function) with finish_reason 'stop' and tool_calls (Mirascope/mirascope #256, "
            "Future-House/aviary PR #60 quoting OpenAI's function-calling guide, "
            "ENTERPILOT/GoModel PR #124 checked against the API, vllm PR #49496 matching it; "
            "confirmed 2026-11-23). A loop that checks finish_reason == "
            "'tool_calls' instead of the calls ends the run with the calls unrun. In-process, "
            "the model reports the wire's 'stop' as it is; the reference adapters of gemini and "
            "ollama report 'tool_calls' for it, so behind the fake those two check that path.",
        dialects=("openai", "gemini", "ollama"),
        loop=lambda p: LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C, sunny")]),
                                  turns=(Turn(tool_calls=(_call("get_weather", {"city": "Paris"},
                                                                "call_1"),),
                                              finish_reason="stop"),
                                         _final(p))),
        checks=(calls_run("get_weather"), stop_reason("completed"),
                model_calls(lambda p: 2, "the round, then the answer"), final_answer_text),
    ),
    _loop_case(
        id="loop.result_contents_match",
        title="Each result carries its own call's output, not a sibling's",
        why="Results zipped with the calls in completion order have the right ids in the right "
            "order and the wrong contents: every pairing rule passes and the model reads one "
            "lookup's answer as another's.",
        loop=_finish_out_of_order_distinct,
        checks=(results_match_calls, answered_once_in_order, stop_reason("completed")),
    ),
    _loop_case(
        id="loop.argument_types",
        title="Arguments of the wrong type, or with undeclared keys, never reach the tool",
        why="Checking only the schema's required keys lets a string reach an integer parameter "
            "and an undeclared key reach a tool whose schema says additionalProperties: false "
            "(JSON Schema 2020-12, which every dialect's tool schema is). The tool must not run; "
            "the validation error goes back to the model.",
        needs={"loop.argument_validation"},
        loop=lambda p: LoopScript(
            messages=ASK, tools=(*_tools(fetch_record=[ok("Ada Lovelace")]),
                                 ScriptedTool(spec=ALARM, behaviours=(ok("alarm set"),))),
            turns=(_turn(_call("fetch_record", {"id": "seven"}, "call_1"),
                         _call("set_alarm", {"time": "07:00", "snooze": True}, "call_2")),
                   _final(p))),
        # undeclared_arguments="drop" (a declared risk): set_alarm may run, with `time` alone
        checks=(never_ran("fetch_record", _WHOLE_SCHEMA), _undeclared_keys_not_run,
                _fed_back_unless_clarified, _argument_types_stop, failure_flagged,
                events_reported),
    ),
]


_STOP_REASON_CASES: list[Case] = [
    _loop_case(
        id="loop.truncated_answer",
        title="An answer cut at the token limit stops with 'length', not 'completed'",
        why="Every dialect says when the model hit its token limit (OpenAI finish_reason "
            "length, Responses status incomplete with max_output_tokens, Anthropic max_tokens, "
            "Gemini MAX_TOKENS, Ollama done_reason length); a loop reporting 'completed' hands "
            "half an answer on as a whole one. Frameworks end with it: the AI SDK's finishReason "
            "'length', Strands' 'maxTokens', the Agent Client Protocol's MaxTokens (confirmed "
            "2026-11-23).",
        loop=LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C, sunny")]),
                        turns=(_turn(_call("get_weather", {"city": "Paris"}, "call_1")),
                               Turn(text="In Paris it is 18°C and the stock of SKU-1 is",
                                    finish_reason="length"))),
        checks=(stop_reason("length"), model_calls(lambda p: 2, "the round, then the cut "
                                                   "answer; no retry by the loop"),
                final_answer_text),
    ),
    _loop_case(
        id="loop.content_filtered",
        title="An answer the provider withheld stops with 'content_filter', not 'completed'",
        why="OpenAI (finish_reason content_filter), the Responses API (incomplete: "
            "content_filter), Anthropic (stop_reason refusal) and Gemini (finishReason SAFETY) "
            "say when they withheld an answer; reported as 'completed', an empty or partial "
            "answer looks like the model's. The AI SDK maps them to 'content-filter' "
            "(@ai-sdk/anthropic map-anthropic-stop-reason.ts), Strands to 'contentFiltered' "
            "(confirmed 2026-11-23). Ollama has no such signal.",
        dialects=("openai", "openai-responses", "anthropic", "gemini"),
        loop=LoopScript(messages=ASK, tools=_tools(get_weather=[ok("18°C, sunny")]),
                        turns=(_turn(_call("get_weather", {"city": "Paris"}, "call_1")),
                               Turn(text=None, finish_reason="content_filter"))),
        checks=(stop_reason("content_filter"), model_calls(lambda p: 2, "the round, then the "
                                                           "withheld answer")),
    ),
]


def _pressed_stop(profile: Any) -> LoopScript:
    from pytest_toolcall.run.looprun import CancelScript

    # the user presses stop while get_weather runs; a loop that ignores it gets the answer
    return CancelScript(messages=ASK, tools=_tools(get_weather=[ok("18°C, sunny")]),
                        turns=(_turn(_call("get_weather", {"city": "Paris"}, "call_1")),
                               _final(profile)),
                        cancel_during="get_weather")


#: the conversation of the handoff case: a user asking for a person
HANDOFF_ASK = (UserMessage(content="I want to talk to a person about my order, please."),)


def _handing_off(profile: Any) -> LoopScript:
    # the handoff tool is the loop's own (declared in handoff_tools), not one of the case's: a
    # framework builds it from its handoff configuration (transfer_to_<agent>)
    name = profile.handoff_tools[0] if profile.handoff_tools else "transfer_to_human"
    return LoopScript(messages=HANDOFF_ASK, tools=_tools(get_weather=[ok("18°C, sunny")]),
                      turns=(_turn(_call(name, {}, "call_handoff"),
                                   text="Let me pass you to a colleague."),
                             _final(profile)))


_CANCEL_AND_HANDOFF_CASES: list[Case] = [
    _loop_case(
        id="loop.cancelled",
        title="A run the user stops while a tool runs ends with 'cancelled', no model call after",
        why="Applications give the user a stop button. The Agent Client Protocol's session/cancel "
            "says the agent SHOULD stop all model requests and tool calls as soon as possible "
            "and MUST answer the prompt with the Cancelled stop reason, even if cancelling "
            "makes operations below it raise (agentclientprotocol.com/protocol/prompt-turn, "
            "docs.rs agent-client-protocol-schema StopReason::Cancelled); Strands' "
            "agent.cancel() ends the invocation with stopReason 'cancelled' (strandsagents.com "
            "API reference, CancelOptions) (confirmed 2026-11-25). A loop that ignores the "
            "signal spends another model call on a run nobody waits for; one that reports "
            "'error' shows the user a failure for their own stop. The kit sets "
            "LoopRequest.cancel while the first round's tool runs. Over the subprocess protocol "
            "the signal is not carried: the case skips there.",
        needs={"loop.cancellation"},
        loop=_pressed_stop,
        checks=(calls_run("get_weather"), stop_reason("cancelled"),
                model_calls(lambda p: 1, "the round in which the user pressed stop; no model "
                                         "call after it"),
                stop_reported, usage_if_given, events_reported),
    ),
    _loop_case(
        id="loop.handed_off",
        title="A call to a declared handoff tool ends the run with 'handed_off', no model call "
              "after",
        why="Multi-agent frameworks hand a conversation to another agent or a human through a "
            "tool the model calls: the OpenAI Agents SDK shows each handoff to the model as a "
            "tool named transfer_to_<agent> (openai.github.io/openai-agents-js/guides/handoffs; "
            "Handoff.default_tool_name in openai-agents 0.24.0); AutoGen's AssistantAgent "
            "handoffs=['user'] makes transfer_to_user and HandoffTermination(target) ends the "
            "team run on it (microsoft.github.io/autogen, autogen_agentchat.conditions) "
            "(confirmed 2026-11-25). A loop that runs it as an ordinary tool and goes on "
            "answers for the agent it handed to; one that reports 'completed' tells the "
            "application the model answered. What happens to the handoff call is not asserted "
            "beyond loop.result_messages: the OpenAI Agents SDK answers it with a transfer "
            "message and LangGraph's handoff tools with a ToolMessage, Strands' handoff_to_user "
            "leaves it pending until the human answers; a returned conversation must answer "
            "it or leave it out.",
        needs={"loop.handoff"},
        loop=_handing_off,
        checks=(stop_reason("handed_off"),
                model_calls(lambda p: 1, "the turn that hands off; no model call after it"),
                stop_reported, usage_if_given),
    ),
]



#: the loop family's cases, in catalogue order (issue 29's in conformance/loop/turns.py and
#: conformance/loop/model_calls.py)
CASES: list[Case] = [*_POLICY_CASES, *_ISSUE16, *_STOP_REASON_CASES, *_CANCEL_AND_HANDOFF_CASES,
                     *_TURN_CASES, *_MODEL_CALL_CASES]

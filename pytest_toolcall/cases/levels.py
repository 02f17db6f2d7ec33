"""The level of every clause: ``must`` (a defect) or ``should`` (hardening).

A clause is ``must`` when breaking it returns a wrong result as a success, loses data, crashes,
leaks (a connection, a secret, a process) or sends a request the provider refuses; it is
``should`` when what breaks is the hardening production needs around a correct result: timeouts,
retry hints, typed errors, the words of an error (issue 28). A ``should`` failure is reported
apart from the defects and does not fail the run unless ``--toolcall-strict`` (or the ini setting
``toolcall_strict``) is given.

Each entry says what breaks in production and where the decision comes from. A clause the table
does not know (a user's own case's clause) is ``must``: the kit cannot tell, and a defect
reported as one is the safe side. ``tests/test_levels.py`` checks that this table and the
clauses the built-in suite raises agree both ways.

A level is part of the suite's version (:mod:`pytest_toolcall.cases.versions`): a clause
re-levelled in a later suite version keeps, for a project pinned to an earlier one, the level it
had then (``Level.history``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["CLAUSES", "IN_CASE", "LEVELS", "PREFIXES", "Level", "describe", "entry", "level_of"]

LevelName = Literal["must", "should"]
#: the two levels, strongest first
LEVELS: tuple[LevelName, ...] = ("must", "should")


@dataclass(frozen=True)
class Level:
    """A clause's level, what breaks in production when it is broken, and the source."""

    level: LevelName
    why: str
    source: str = "issue 28 (2026-11-28)"
    #: the levels before a re-levelling, newest first: ``(suite version that changed it, the
    #: level before that version)``
    history: tuple[tuple[str, LevelName], ...] = ()

    def at(self, suite: str | None) -> LevelName:
        """The level as of suite version ``suite`` (``None``: the newest)."""
        if suite is None:
            return self.level
        from pytest_toolcall.cases.versions import parse_version

        level = self.level
        for changed_in, before in self.history:  # newest first
            if parse_version(suite) < parse_version(changed_in):
                level = before
        return level


def _must(why: str, source: str = "issue 28 (2026-11-28)") -> Level:
    return Level("must", why, source)


def _should(why: str, source: str = "issue 28 (2026-11-28)") -> Level:
    return Level("should", why, source)


_CRASH = "the caller's code crashes on an answer the provider really sends"
_REFUSED = "the provider refuses the next request (a 400): the conversation cannot go on"
_LOST = "what the model or the provider sent is lost, and the caller never knows"
_WRONG = "the caller acts on a wrong result that looks like a success"
_TYPED = ("a caller's retry and error handling reads the error's fields; without them it "
          "guesses, but the request failed visibly either way")

#: every clause the built-in suite raises or names (a check's ``.clause``), with its level
CLAUSES: dict[str, Level] = {
    # -- the adapter as a whole ---------------------------------------------------------------
    "adapter.raised": _must(f"{_CRASH} (a valid answer, or a request it could not build)"),
    "adapter.result": _must("complete() returns something that is not a response: every "
                            "caller that reads it crashes or reads nothing"),
    "adapter.timeout": _must("the call never returns on an answer the provider completed: the "
                             "caller hangs (a stalled provider is judged apart: see the "
                             "per-case levels)"),
    "adapter.exit": _must("the adapter ends the process (SystemExit): the application dies"),
    "profile.claims.stream": _must("streaming is claimed but there is no stream method: a "
                                   "caller that streams crashes"),
    "subprocess.protocol": _must("the implementation in another language answers outside the "
                                 "protocol: its callers get nothing they can read"),
    "subprocess.exited": _must("the implementation's process died during a call: a crash"),
    # -- the request ----------------------------------------------------------------------------
    "request.sent": _must("the adapter answers without asking the provider: an invented "
                          "result returned as a success"),
    "request.count": _must("more than one request for one call: each is billed and each can "
                           "act, and the caller's own retries multiply (retrying belongs to "
                           "the caller)"),
    "request.snapshot": _must("what the adapter sends changed since the project's own "
                              "snapshot: the regression the project asked to be told about",
                              "docs/cassettes.md (request snapshots)"),
    "request.unconfirmed": _should(
        "the request breaks one of OpenAI's request rules that the service is not shown to "
        "enforce: its fake takes it, OpenAI refuses it, and the service may too (a 400 on "
        "every request of this shape) or may not", "issue 30 (2026-11-28)"),
    # -- responses -------------------------------------------------------------------------------
    "response.matches_script": _must(_WRONG + " (the calls, text and finish reason the model "
                                     "sent; a failure names the finer clause)"),
    "response.text": _must(_LOST + " (the answer's text)"),
    "response.finish_reason": _must("a cut or filtered answer reads as complete, or a tool "
                                    "turn as a final answer: " + _WRONG),
    "response.tool_calls.count": _must("calls dropped or invented: the caller runs other tools "
                                       "than the model asked for"),
    "response.tool_calls.id": _must("the call's id is lost or changed: its result cannot be "
                                    "paired and " + _REFUSED),
    "response.tool_calls.name": _must("the caller runs another tool than the model named"),
    "response.tool_calls.arguments": _must("the tool runs with other arguments than the model "
                                           "sent"),
    "response.tool_calls.parse_error": _must("malformed arguments read as valid (often {}) or "
                                             "a crash: the tool runs with arguments nobody "
                                             "sent"),
    "response.tool_calls.raw_arguments": _must(_LOST + " (the raw text of malformed arguments, "
                                               "the only thing a caller can repair or show)"),
    "response.tool_calls.id_unique": _must("two calls share an id: results pair with the wrong "
                                           "call or " + _REFUSED),
    "response.tool_calls.ids_unique": _must("two calls share an id: results pair with the "
                                            "wrong call or " + _REFUSED),
    "response.usage": _must(_LOST + " (token usage: budgets, billing and limits read zero or "
                            "a wrong count)"),
    "response.reasoning": _must(_LOST + " (the reasoning; replayed without it, Anthropic and "
                                "DeepSeek refuse the next request)"),
    "response.keep_alive_body": _must(f"{_CRASH} (DeepSeek's keep-alive lines before the "
                                      "JSON)"),
    # -- streams ---------------------------------------------------------------------------------
    "stream.done_last": _must("the caller never learns that the stream ended, nor its finish "
                              "reason and usage"),
    "stream.events.type": _must("stream() yields something that is not an event: every "
                                "consumer crashes"),
    "stream.deltas": _must("the deltas show one call and the completed call is another: the "
                           "user sees one thing and the tool runs another"),
    "stream.same_as_complete": _must("stream() and complete() read the same answer differently: "
                                     "one of them is wrong"),
    "stream.closed": _must("a stream the caller stopped leaves its connection open: the pool "
                           "runs dry (a leak)"),
    "stream.requested": _should("stream() does not ask the provider to stream: the answer is "
                                "right but arrives at once at the end (no progress, long "
                                "answers hit read timeouts)"),
    # -- errors ----------------------------------------------------------------------------------
    "error.surfaced": _must("the provider failed and the adapter returns a result as if it "
                            "had succeeded: " + _WRONG),
    "error.typed": _should("the adapter's own code raises (a KeyError, a TypeError) on an "
                           "error answer: the request failed visibly, but a caller that "
                           "catches the adapter's error types misses it"),
    "error.message": _should("the error does not carry the provider's words: the failure is "
                             "visible, the reason is not"),
    "errors.provider_error": _should(_TYPED + " (the status, type or code, delay and "
                                     "retryable of a provider error; a failure names which)"),
    "errors.status": _should(_TYPED + " (the HTTP status)"),
    "errors.type": _should(_TYPED + " (the provider's own error type or code: a context "
                           "overflow told from a bad request, a quota from a rate limit)"),
    "errors.retry_after": _should(_TYPED + " (the delay the provider asked for: a caller "
                                  "retries too early and is throttled again)"),
    "errors.retryable": _should(_TYPED + " (whether retrying can help: a caller retries a "
                                "final error or gives up on a transient one)"),
    "errors.no_api_key": _must("an error the adapter raises carries its API key: every log "
                               "line, trace or error page that shows the exception leaks the "
                               "secret", "issue 29; census class secrets (BerriAI/litellm "
                               "#24902, 2026-11-28)"),
    "errors.transport": _should(_TYPED + " (a broken connection marked final)"),
    "errors.groq.failed_generation": _should("the error loses what the model wrote "
                                             "(failed_generation): the call failed visibly, "
                                             "but it cannot be repaired or shown"),
    "errors.lmstudio.message": _should("the error says the repr of LM Studio's body instead of "
                                       "its words: visible, but unreadable"),
    "wire.lmstudio.error_message": _should("the error says the repr of LM Studio's body "
                                           "instead of its words: visible, but unreadable"),
    # -- what the adapter sends ------------------------------------------------------------------
    "wire.tools.intact": _must("the model sees other tool definitions than the caller gave: it "
                               "calls with arguments the tools reject or misread"),
    "wire.tool_choice": _must("the provider answers under another tool_choice than the caller "
                              "asked for (a forced call answered in text, 'none' answered with "
                              "calls): " + _WRONG),
    "wire.anthropic.tool_choice": _must("the provider answers under another tool_choice than "
                                        "the caller asked for, or refuses it"),
    "wire.parallel_tool_calls": _must("parallel_tool_calls=False does not reach the provider: "
                                      "a caller built for one call per turn gets several"),
    "wire.messages.system": _must(_LOST + " (the system or developer instructions)"),
    "wire.history.messages": _must(_LOST + " (earlier turns of the conversation)"),
    "wire.history.pairing": _must("calls and results go back unpaired: " + _REFUSED),
    "wire.history.passthrough": _must("the conversation goes back changed: " + _REFUSED
                                      + ", or the model reads another history"),
    "wire.history.tool_calls": _must("earlier calls go back changed or missing: " + _REFUSED),
    "wire.history.tool_results": _must("results go back changed or missing: " + _REFUSED),
    "wire.replay.arguments_json": _must("a call's arguments go back as text that is not JSON: "
                                        + _REFUSED),
    "wire.replay.non_ascii": _should("replayed arguments carry \\u escapes: the same JSON, but "
                                     "more tokens and a model that reads escapes back",
                                     "langchain PR #32222"),
    "wire.reasoning.replayed": _must("the turn's reasoning does not go back with its calls: "
                                     + _REFUSED + " (Anthropic, Responses)"),
    "wire.anthropic.is_error": _must("a failed result goes without is_error (or a good one "
                                     "with it): the model reads an error as a result"),
    "wire.anthropic.results_one_message": _should(
        "results go back one user message each: the API merges them, but it teaches the model "
        "to stop calling in parallel", "Anthropic's parallel tool use docs"),
    "wire.gemini.ids_echoed": _must("the ids Gemini gave do not go back: results pair by "
                                    "guesswork"),
    "wire.gemini.thought_signature": _must("the thoughtSignature does not go back: "
                                           + _REFUSED),
    "wire.gemini.failed_result": _should(
        "a failed tool result goes back as output (or a good one as error): the model may read "
        "a failure as data. Gemini documents the error key; pydantic-ai uses it, "
        "langchain-google-genai and litellm's OpenAI-shaped input do not",
        "issue 29 (2026-11-28)"),
    "wire.gemini.results_paired": _must("results go back unpaired with their calls: "
                                        + _REFUSED),
    "wire.responses.item_id": _must("the item id is sent where the call id belongs: "
                                    + _REFUSED),
    "wire.mistral.id_mapping": _must("a foreign call id goes to Mistral unmapped, or call and "
                                     "result are mapped apart: " + _REFUSED),
    "wire.mistral.thinking_replayed": _must("the thinking chunks do not go back: "
                                            + _LOST),
    "wire.ollama.tool_name": _must("results go back without tool_name: Ollama cannot tell "
                                   "whose result it is"),
    "wire.llamacpp.call_ids": _must("llama-server's call ids go back changed: results pair "
                                    "with no call"),
    "wire.lmstudio.call_ids": _must("LM Studio's call ids go back changed: results pair with "
                                    "no call"),
    "wire.zhipu.call_ids": _must("Z.ai's call ids go back changed: results pair with no call"),
    "wire.deepseek.reasoning_replayed": _must("reasoning_content does not go back with the "
                                              "calls: " + _REFUSED + " (DeepSeek's 400)"),
    "wire.fireworks.reasoning_replayed": _must("reasoning_content does not go back with the "
                                               "calls: " + _LOST),
    "wire.llamacpp.reasoning_replayed": _must("reasoning_content does not go back with the "
                                              "calls: " + _LOST),
    "wire.vllm.reasoning_replayed": _must("the reasoning does not go back with the calls: "
                                          + _LOST),
    "wire.zhipu.reasoning_replayed": _must("reasoning_content does not go back with the calls: "
                                           + _LOST),
    # -- tool loops ------------------------------------------------------------------------------
    "loop.raised": _must("the loop raises instead of returning: the run crashes"),
    "loop.result": _must("the loop returns something that is not a LoopResult: its caller "
                         "crashes"),
    "loop.result_messages": _must("the conversation the loop returns is refused when sent "
                                  "again: the application cannot continue it"),
    "loop.timeout": _must("the loop never returns on a script that ends (a stalled model or a "
                          "hung tool is judged apart: see the per-case levels)"),
    "loop.exit": _must("the loop ends the process (SystemExit): the application dies"),
    "loop.stop_reason": _must("the run ends for another reason than it says (a cut answer as "
                              "'completed', a failure as success): " + _WRONG),
    "loop.model_calls": _must("the loop calls the model more or fewer times than its declared "
                              "policy: an extra call acts on an answer it decided to ignore, a "
                              "missing one gives up a run that would have finished"),
    "loop.result_text": _must(_LOST + " (the model's last answer)"),
    "loop.closing_call": _must("the closing call's answer is not the run's text: " + _LOST),
    "loop.conversation_kept": _must("a model call is sent without the conversation so far: "
                                    "the model answers without its context"),
    "loop.calls_run": _must("calls of the turn are dropped: tools the model asked for never "
                            "run"),
    "loop.executed_once": _must("a repeated call id runs twice: side effects happen twice"),
    "loop.arguments_passed": _must("a tool runs with other arguments than its call carried"),
    "loop.tool_not_run": _must("a tool runs on arguments that do not fit it: an action nobody "
                               "asked for"),
    "loop.answered_once_in_order": _must("calls answered twice, out of order or not at all: "
                                         + _REFUSED),
    "loop.results_fed_back": _must(_LOST + " (a tool's result never reaches the model)"),
    "loop.results_match_calls": _must("a result goes back under another call's id: the model "
                                      "reads one tool's answer as another's"),
    "loop.failure_fed_back": _must("a failed call goes back unanswered or as if it had "
                                   "succeeded: the model acts on a result that does not exist"),
    "loop.text_replayed": _must(_LOST + " (the text the model said with its calls)"),
    "loop.usage": _must(_LOST + " (the run's token usage: budgets and billing read a wrong "
                        "count)"),
    "loop.sanitised": _must("a traceback, an exception's text or a secret reaches the model "
                            "or the loop's client (a leak)"),
    "loop.failure_flagged": _should("a failed call's result is not flagged is_error: its text "
                                    "says the failure (loop.failure_fed_back), the flag the "
                                    "provider reads is missing"),
    "loop.malformed_arguments": _should("the error fed back does not say what to fix: the "
                                        "model retries blindly until a cap, visibly"),
    "loop.unknown_tool": _should("the error fed back does not name the tools that exist: the "
                                 "model retries blindly until a cap, visibly"),
    "loop.retry_delay": _should("a throttled call is retried before the delay the provider "
                                "asked for: throttled again (a retry hint)"),
    "loop.parallel": _should("calls the profile declares parallel run one after the other: "
                             "right results, later"),
    "loop.events": _should("the client is not shown a call, a result or how the run ended: "
                           "the LoopResult is right, the progress the user sees is not"),
    # issue 29 (2026-11-28): the model call failing, a cancelled run
    "loop.tools_stopped": _must("a tool the run started keeps running, or starts, after the "
                                "loop returned from the user's stop: it acts for a run nobody "
                                "waits for (a leak, side effects after the stop)",
                                "issue 29 (2026-11-28)"),
    "loop.retry_cap": _should("a loop sleeps out a delay it should have capped or refused (an "
                              "hour's Retry-After): no wrong result, a run hung for that long",
                              "issue 29 (2026-11-28)"),
    "loop.model_deadline": _should("a model call that never answers outlives the loop's own "
                                   "declared deadline: no wrong result, an unbounded wait",
                                   "issue 29 (2026-11-28)"),
    "loop.reasoning_replayed": _must(
        "a tool round's reasoning does not go back with its calls: Anthropic, DeepSeek and "
        "Gemini 3 (its thought signatures) refuse the next request with a 400, Responses "
        "loses the reasoning the model built",
        "issue 29; census class reasoning_replay (2026-11-28)"),
    "loop.system_prompt": _must(
        "the system prompt is dropped after the first call, or repeated every turn: the model "
        "answers without its instructions, or with them many times",
        "issue 29; census class system_prompt (2026-11-28)"),
    # -- history builders ------------------------------------------------------------------------
    "history.raised": _must("build() raises on a stored history: the conversation cannot go "
                            "on"),
    "history.result": _must("build() returns something that is not a list of messages: its "
                            "caller crashes"),
    "history.reasoning_kept": _must(
        "the rebuilt turn in progress loses or alters its reasoning: the provider refuses the "
        "continued conversation, or the model loses what it reasoned",
        "issue 29; census class reasoning_replay (2026-11-28)"),
    "history.assistant_text_kept": _must(
        "the assistant's text beside calls that are kept is dropped: the model loses what it "
        "said before calling",
        "issue 29; census class history_validity (agno-agi/agno #8990, 2026-11-28)"),
    "history.timeout": _must("build() never returns on a stored history"),
    "history.exit": _must("build() ends the process (SystemExit): the application dies"),
    "history.valid": _must("the built history is refused by the provider: " + _REFUSED),
    "history.idempotent": _must("building a built history changes it: each turn rewrites the "
                                "conversation"),
    "history.kept": _must(_LOST + " (stored messages dropped from the built history)"),
    "history.results_intact": _must("a stored result goes back changed or merged into "
                                    "another: the model reads what no tool returned"),
    "history.failed_calls_dropped": _must("the failed calls are kept or dropped against the "
                                          "declared policy: " + _REFUSED + ", or the model "
                                          "loses what it was told"),
    "history.no_empty_assistant": _must("an empty assistant message goes out: " + _REFUSED),
    "history.call_ids_unique": _must("two calls share an id in the built history: "
                                     + _REFUSED),
    "history.results_deduped": _must("a result goes back twice: " + _REFUSED),
    "history.results_in_call_order": _must("results go back out of call order: " + _REFUSED
                                           + " (or pair by position with the wrong call)"),
    "history.no_id_dropped": _must("a result without an id goes back merged or invented: the "
                                   "model reads what no tool returned"),
    "history.orphan_dropped": _must("a result with no call goes back: " + _REFUSED),
    # -- structured output -----------------------------------------------------------------------
    "fallback.raised": _must("extract() raises on an answer that carries the value: a crash"),
    "fallback.result": _must("extract() returns something that is not a FallbackResult"),
    "fallback.timeout": _must("extract() never returns"),
    "fallback.exit": _must("extract() ends the process (SystemExit): the application dies"),
    "fallback.value": _must("the value extracted is not the one the model sent: " + _WRONG),
    "fallback.channel": _must("the value is taken from another channel than the one that "
                              "carried it: " + _WRONG),
    "fallback.text": _must(_LOST + " (the text the model wrote besides the value)"),
    "fallback.one_stream": _must("the answer is requested twice: billed twice, and the two "
                                 "answers may differ"),
    "fallback.stream_drained": _must("the stream is left half read: its connection leaks"),
    # -- live runs (against the real service) ----------------------------------------------------
    "live.accepted": _must("the real provider refuses the adapter's request, or the adapter "
                           "cannot read its answer"),
    "live.arguments": _must("the adapter cannot parse the arguments the real model sent"),
    "live.non_ascii": _must("non-ASCII arguments come back mangled: " + _LOST),
    "live.tool_called": _must("the real model never sees the tools (they did not reach it): "
                              "it answers in text what the caller wanted a call for"),
    "live.tool_choice.none": _must("tool_choice 'none' does not reach the real provider: the "
                                   "model calls tools the caller forbade"),
}

#: clause families whose members are data (a provider's validation rules): a clause under one of
#: these prefixes has its level
PREFIXES: dict[str, Level] = {
    "request.": _must("the provider refuses the request (a 400 or 422 naming the rule): the "
                      "call fails, in production, on every request of this shape"),
}

#: a clause whose level differs in one case: ``(case id, clause) -> Level``. The same clause
#: names a defect elsewhere; in these cases what it catches is missing hardening
IN_CASE: dict[tuple[str, str], Level] = {
    ("errors.stream_stalled", "adapter.timeout"): _should(
        "a provider that stalls mid-stream hangs a client without a read timeout (the "
        "libraries' documented default: openai-python waits 600 s, google-genai forever); the "
        "answer is never wrong, the wait is unbounded"),
    ("loop.model_timeout", "loop.timeout"): _should(
        "a model call that never answers hangs a loop whose client has no read timeout; no "
        "wrong result, an unbounded wait"),
    ("loop.tool_timeout", "loop.timeout"): _should(
        "a hung tool hangs a loop without a tool timeout; no wrong result, an unbounded wait"),
    ("wire.gemini_prompt_blocked", "response.finish_reason"): _should(
        "a blocked prompt comes back as an empty answer without the content_filter mark: the "
        "caller sees no text and no calls, but not why. litellm 1.110.2 and pydantic-ai 2.68.0 "
        "say content_filter; google-genai 3.6.1 and langchain-google-genai 4.4.3 return the "
        "answer with the block in their own prompt_feedback field and no finish reason",
        "issue 29 (2026-11-28)"),
    ("wire.gemini_prompt_blocked", "adapter.raised"): _should(
        "an adapter that raises on a blocked prompt gives the caller an error where four "
        "libraries give an empty answer (google-genai 3.6.1, langchain-google-genai 4.4.3, "
        "litellm 1.110.2, pydantic-ai 2.68.0), but others raise on purpose (0xPlaygrounds/rig "
        "PR #2475, simonw/llm-gemini PR #144, langchain-ai/langchainjs PR #10188): reasonable "
        "implementations differ, so a raise here, deliberate or a crash on candidates[0], is "
        "hardening; the answer path's checks stay defects", "issue 29 (2026-11-28)"),
    ("loop.permanent_failure", "loop.executed_once"): _should(
        "a tool that failed with retryable=False is run again: a wasted call and a second "
        "attempt at whatever it did before failing; the run's answer and stop are right, and "
        "loops that retry every tool error on purpose exist (a retry decorator around the tool)"
        ", so this is hardening (Agenta-AI/agenta #5733)", "issue 29 (2026-11-28)"),
    ("loop.rate_limit_retries_bounded", "loop.timeout"): _should(
        "a 429 that keeps coming is waited on for longer than the run's deadline (minutes of "
        "backoff); the run ends in 'error' at last, an unbounded wait", "issue 29 (2026-11-28)"),
}


def entry(clause: str, case_id: str | None = None) -> Level | None:
    """The table's entry for ``clause`` (in case ``case_id``), or ``None`` when it has none."""
    if case_id is not None and (case_id, clause) in IN_CASE:
        return IN_CASE[(case_id, clause)]
    found = CLAUSES.get(clause)
    if found is not None:
        return found
    for prefix, level in PREFIXES.items():
        if clause.startswith(prefix):
            return level
    return None


def level_of(clause: str, case_id: str | None = None, suite: str | None = None) -> LevelName:
    """The level of ``clause`` (in case ``case_id``) as of suite version ``suite`` (``None``:
    the newest). A clause the table does not know is ``must`` (a user's own case's clause)."""
    found = entry(clause, case_id)
    return found.at(suite) if found is not None else "must"


def describe(level: str) -> str:
    """How a failure of ``level`` is shown: what kind of thing it is (the failure block's
    ``level:`` line)."""
    from pytest_toolcall.core.errors import _LEVEL_LINES

    return _LEVEL_LINES.get(level, level)

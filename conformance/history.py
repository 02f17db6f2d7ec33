"""The ``history`` family: rebuilding provider-ready messages from what an application stored.

Generalised from seed 002 AC6-AC8 (orphan tool_call filtering on reload, dedupe by
tool_call_id, results without an id).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_toolcall.cases import Case, check, make_case
from pytest_toolcall.providers.base import DIALECT_NAMES, get_dialect
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.run.looprun import HistoryRun, HistoryScript
from pytest_toolcall.core.model import (
    AssistantMessage,
    Reasoning,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)


def _call(call_id: str, city: str = "Paris") -> ToolCall:
    return ToolCall(id=call_id, name="get_weather", arguments={"city": city},
                    raw_arguments=f'{{"city": "{city}"}}')


def _result(call_id: str | None, content: str = "18°C", *, is_error: bool = False) -> ToolMessage:
    return ToolMessage(tool_call_id=call_id, content=content, is_error=is_error)


Q1 = UserMessage(content="Weather in Paris and Lyon?")
Q2 = UserMessage(content="And tomorrow?")


def _wire(dialect: str, messages: list[Any]) -> Any:
    from pytest_toolcall.core.model import ChatRequest
    from pytest_toolcall.reference import request_body

    return request_body(dialect, ChatRequest(messages=tuple(messages)))


_MODELS = (SystemMessage, UserMessage, AssistantMessage, ToolMessage, ToolCall, Reasoning)
_SCALARS = (str, int, bool, type(None))


def _key(value: Any) -> Any:
    """A hashable key that determines ``value`` exactly (its types included), for the kit's own
    message types over JSON-like plain data; ``None`` for anything else (a subclass, a custom
    object, a non-finite float), which is then not memoized."""
    kind = type(value)
    if kind in _SCALARS:
        return (kind, value)
    if kind is float:
        return (float, repr(value)) if value - value == 0 else None  # not inf, not nan
    if kind in _MODELS:
        fields = value.__dict__
        items = tuple((k, _key(v)) for k, v in fields.items())
        return None if any(v is None for _, v in items) else (kind, items)
    if kind is dict:
        if any(type(k) is not str for k in value):
            return None
        items = tuple((k, _key(v)) for k, v in value.items())
        return None if any(v is None for _, v in items) else (dict, items)
    if kind in (list, tuple):
        items = tuple(_key(v) for v in value)
        return None if any(v is None for v in items) else (kind, items)
    return None


#: (dialect, messages' key) -> that dialect's rejection of the reference body, or None. The
#: built-in dialects' request bodies and validators read the messages alone; hypothesis'
#: derandomized histories repeat across every provider of the matrix (issue 13: speed)
_ACCEPTS: dict[tuple[str, Any], Any] = {}


def _rejection(name: str, messages: list[Any], key: Any) -> Any:
    from pytest_toolcall.providers.base import _PLUGIN_CLASSES

    if key is None or name in _PLUGIN_CLASSES:  # a plugin's dialect: asked every time
        return get_dialect(name).validate(_wire(name, messages))
    try:
        return _ACCEPTS[name, key]
    except KeyError:
        pass
    rejection = get_dialect(name).validate(_wire(name, messages))
    if len(_ACCEPTS) >= 4096:
        _ACCEPTS.clear()
    _ACCEPTS[name, key] = rejection
    return rejection


@check("history.valid")
def provider_accepts(run: HistoryRun) -> None:
    """Every dialect's validator accepts the built messages."""
    messages = run.built or []
    key = _key(messages) if type(messages) is list else None
    for name in DIALECT_NAMES:
        rejection = _rejection(name, messages, key)
        if rejection is not None:
            raise ConformanceFailure(
                "history.valid", f"{name} would reject the built history (HTTP "
                f"{rejection.status}): {rejection.message}",
                expected="messages the provider accepts",
                got=[_describe(m) for m in run.built or []],
                hint="filter or answer orphan calls, drop orphan results, keep each result "
                     "right after its call")


@check("history.idempotent")
def idempotent(run: HistoryRun) -> None:
    if run.rebuilt != run.built:
        raise ConformanceFailure(
            "history.idempotent", "building a built history changed it",
            expected=[_describe(m) for m in run.built or []],
            got=[_describe(m) for m in run.rebuilt or []],
            hint="a reload of a reload must not drop or add messages")


@check("history.kept")
def kept(run: HistoryRun) -> None:
    """Nothing valid is lost: user/system turns in order, and every answered, successful call."""
    built = run.built or []
    want_turns = [m.content for m in run.stored if isinstance(m, (UserMessage, SystemMessage))]
    got_turns = [m.content for m in built if isinstance(m, (UserMessage, SystemMessage))]
    if want_turns != got_turns:
        raise ConformanceFailure("history.kept", "user or system messages were lost or reordered",
                                 expected=want_turns, got=got_turns)
    called = {c.id for m in run.stored if isinstance(m, AssistantMessage) for c in m.tool_calls}
    good = {m.tool_call_id for m in run.stored
            if isinstance(m, ToolMessage) and m.tool_call_id in called and not m.is_error}
    sent = {c.id for m in built if isinstance(m, AssistantMessage) for c in m.tool_calls}
    lost = sorted(i for i in good if i not in sent)  # type: ignore[type-var]
    if lost:
        raise ConformanceFailure(
            "history.kept", "calls with a successful result were dropped", expected=sorted(good),
            got=sorted(i for i in sent if i), hint="only drop what cannot be sent")


@check("history.results_intact")
def results_intact(run: HistoryRun) -> None:
    """Every result sent is one the application stored for that call, unchanged (never merged
    with another, never rewritten, never invented), or, for a call of an interrupted turn (no
    result stored for it), a synthesized error answer: ``history.orphan_calls`` allows such
    calls to be "filtered or answered", and an answer must say the call failed
    (``is_error=True``), never pass for a real result."""
    stored: dict[str, list[ToolMessage]] = {}
    for m in run.stored:
        if isinstance(m, ToolMessage) and m.tool_call_id:
            stored.setdefault(m.tool_call_id, []).append(m)
    called = {c.id for m in run.stored if isinstance(m, AssistantMessage) for c in m.tool_calls
              if c.id}
    for m in run.built or []:
        interrupted = m.tool_call_id in called and m.tool_call_id not in stored \
            if isinstance(m, ToolMessage) else False
        if interrupted and m.is_error:
            continue  # an interrupted call answered with an error: "filtered or answered"
        if isinstance(m, ToolMessage) and m not in stored.get(m.tool_call_id or "", []):
            raise ConformanceFailure(
                "history.results_intact", f"the result sent for {m.tool_call_id!r} is not one "
                "that was stored for it", expected=[x.content for x in
                                                    stored.get(m.tool_call_id or "", [])],
                got=m.content, hint="send stored results as they are: a result without an id "
                "is dropped, not merged into another; an interrupted call may "
                "be answered only with an error (is_error=True)")


def no_tool_message(pred: Callable[[ToolMessage], bool], clause: str, what: str,
                    hint: str) -> Callable[[HistoryRun], None]:
    @check(clause)
    def no_tool_message_check(run: HistoryRun) -> None:
        bad = [m for m in run.built or [] if isinstance(m, ToolMessage) and pred(m)]
        if bad:
            raise ConformanceFailure(clause, what, expected="none",
                                     got=[_describe(m) for m in bad], hint=hint)
    return no_tool_message_check


@check("history.results_deduped")
def deduped(run: HistoryRun) -> None:
    ids = [m.tool_call_id for m in run.built or [] if isinstance(m, ToolMessage)]
    twice = sorted({i for i in ids if ids.count(i) > 1 and i})
    if twice:
        raise ConformanceFailure("history.results_deduped", "a result is sent twice for one call",
                                 expected="one result per tool_call_id", got=twice,
                                 hint="deduplicate results by tool_call_id")


@check("history.failed_calls_dropped")
def failed_calls_dropped(run: HistoryRun) -> None:
    for message in run.built or []:
        if isinstance(message, AssistantMessage) and message.content == "Let me check both." \
                and message.tool_calls:
            raise ConformanceFailure(
                "history.failed_calls_dropped", "an assistant message whose calls all failed "
                "still carries them", expected="the message with its text and no tool_calls",
                got=_describe(message), hint="filter the calls to those with a valid result; "
                "send no tool_calls field when none is left")
    if not any(isinstance(m, AssistantMessage) and m.content == "Let me check both."
               for m in run.built or []):
        raise ConformanceFailure("history.failed_calls_dropped", "the assistant's text was lost "
                                 "with its failed calls", expected="'Let me check both.'",
                                 got=[_describe(m) for m in run.built or []])


def _describe(message: Any) -> str:
    if isinstance(message, AssistantMessage):
        calls = ",".join(c.id or "?" for c in message.tool_calls)
        return f"assistant({message.content!r}{', calls=' + calls if calls else ''})"
    if isinstance(message, ToolMessage):
        return f"tool({message.tool_call_id!r}{', error' if message.is_error else ''})"
    return f"{message.role}({message.content!r:.30})"


_BASE = (provider_accepts, kept, idempotent, results_intact)


def _history_case(**fields: Any) -> Case:
    # the case's own checks first: they name the precise flaw (an orphan result sent) where the
    # base checks would only say that the provider rejects the history
    checks = fields.pop("checks", ())
    return make_case(contract="history", checks=tuple(checks) + _BASE, **fields)


CASES: list[Case] = [
    _history_case(
        id="history.orphan_calls",
        title="Calls left without a result (an interrupted turn) are filtered or answered",
        why="Seed 002 AC6: on reload, an assistant message whose call has no stored result is "
            "an unanswered call: OpenAI answers 400 'tool_call_ids did not have response "
            "messages'.",
        history=HistoryScript(stored=(Q1, AssistantMessage(tool_calls=(_call("call_a"),
                                                                       _call("call_b", "Lyon"))),
                                      _result("call_a"), Q2)),
    ),
    _history_case(
        id="history.orphan_results",
        title="A result whose call is not in the history is dropped",
        why="An orphan tool message is rejected: 'messages with role tool must be a response "
            "to a preceeding message with tool_calls' (OpenAI).",
        history=HistoryScript(stored=(Q1, AssistantMessage(tool_calls=(_call("call_a"),)),
                                      _result("call_a"), _result("call_zz", "stray"), Q2)),
        checks=(no_tool_message(lambda m: m.tool_call_id == "call_zz", "history.orphan_dropped",
                                "an orphan result was sent",
                                "drop results whose tool_call_id no assistant call has"),),
    ),
    _history_case(
        id="history.all_calls_failed",
        title="An assistant message whose calls all failed goes out without tool_calls",
        why="Seed 002 AC6: if every tool_call of a message failed, the message is sent with its "
            "text only, so no orphan references remain.",
        needs={"history.drop_failed"},
        history=HistoryScript(stored=(
            Q1, AssistantMessage(content="Let me check both.",
                                 tool_calls=(_call("call_a"), _call("call_b", "Lyon"))),
            _result("call_a", "timeout", is_error=True),
            _result("call_b", "timeout", is_error=True), Q2)),
        checks=(failed_calls_dropped,),
    ),
    _history_case(
        id="history.dedupe",
        title="Results stored twice for one call are sent once",
        why="Seed 002 AC7: double accumulation on reload sends two results for one call.",
        history=HistoryScript(stored=(Q1, AssistantMessage(tool_calls=(_call("call_a"),)),
                                      _result("call_a"), _result("call_a", "18°C (again)"),
                                      Q2)),
        checks=(deduped,),
    ),
    _history_case(
        id="history.results_without_id",
        title="Results without a tool_call_id are never merged nor sent as orphans",
        why="Seed 002 AC8: results with a null id were all appended without dedupe; sent, they "
            "are orphans; merged, they become one wrong answer.",
        history=HistoryScript(stored=(Q1, AssistantMessage(tool_calls=(_call("call_a"),)),
                                      _result("call_a"), _result(None, "x"), _result(None, "y"),
                                      Q2)),
        checks=(no_tool_message(lambda m: m.tool_call_id is None, "history.no_id_dropped",
                                "a result without an id was sent",
                                "a result without an id cannot be paired: drop it"),),
    ),
    _history_case(
        id="history.result_stored_late",
        title="A result stored after the next user message still pairs with its call",
        why="Slow tools finish after the user writes again; stored in arrival order, the result "
            "no longer follows its call.",
        history=HistoryScript(stored=(Q1, AssistantMessage(tool_calls=(_call("call_a"),)), Q2,
                                      _result("call_a"))),
    ),
    _history_case(
        id="history.random_histories",
        title="Random messy histories always build into valid, idempotent messages (hypothesis)",
        why="Every combination of interrupted turns, duplicates, failures, missing ids, late and "
            "orphan results must build into a history each provider accepts.",
        history=HistoryScript(stored=(), property_examples=60),
    ),
]


# == issue 16: gaps found by independent implementations ========================================
@check("history.results_in_call_order")
def results_in_call_order(run: HistoryRun) -> None:
    """After an assistant message, its results come in the order of its calls (the order the
    provider asked in), whatever order they were stored in."""
    built = run.built or []
    for i, message in enumerate(built):
        if not isinstance(message, AssistantMessage) or not message.tool_calls:
            continue
        ids = [c.id for c in message.tool_calls]
        following = []
        for later in built[i + 1:]:
            if not isinstance(later, ToolMessage):
                break
            following.append(later.tool_call_id)
        if following != ids:
            raise ConformanceFailure(
                "history.results_in_call_order", "the results after an assistant message are "
                "not in the order of its calls", expected=ids, got=following,
                hint="emit each assistant message's results in the order of its tool_calls, "
                     "looked up by id, not in the order they were stored (tools finish in any "
                     "order; Gemini pairs function responses with calls by position)")


@check("history.call_ids_unique")
def call_ids_unique(run: HistoryRun) -> None:
    """A call id appears on one call and one result of the built history, even when the
    application stored it on calls in two turns (per-turn id counters such as 'call_0')."""
    calls = [c.id for m in run.built or [] if isinstance(m, AssistantMessage)
             for c in m.tool_calls]
    results = [m.tool_call_id for m in run.built or [] if isinstance(m, ToolMessage)]
    twice = sorted({i for i in calls if i and calls.count(i) > 1}
                   | {i for i in results if i and results.count(i) > 1})
    if twice:
        raise ConformanceFailure(
            "history.call_ids_unique", "a call id reused in two turns is sent (and answered) "
            "twice", expected="each call id on one call and one result", got=twice,
            hint="the Responses API rejects a call_id that appears twice ('Duplicate "
                 "function_call_output for call_id ...'); keep the first turn's call and its "
                 "result and drop the later reuse (dedupe by id across the whole history, not "
                 "per turn)")


@check("history.no_empty_assistant")
def no_empty_assistant(run: HistoryRun) -> None:
    empty = [n for n, m in enumerate(run.built or []) if isinstance(m, AssistantMessage)
             and not m.tool_calls and not (m.content or "").strip()]
    if empty:
        raise ConformanceFailure(
            "history.no_empty_assistant", "an assistant message with neither text nor calls is "
            "sent", expected="no empty assistant message",
            got=f"empty assistant message(s) at {empty}: "
                + " ".join(_describe(m) for m in run.built or []),
            hint="drop assistant messages left with no text and no calls (an interrupted turn "
                 "stored empty); Anthropic answers 400 'all messages must have non-empty "
                 "content except for the optional final assistant message'")


Q3 = UserMessage(content="Thanks. Set it for Lyon too?")

CASES += [
    _history_case(
        id="history.results_in_call_order",
        title="Sibling results stored out of order are sent in call order",
        why="Parallel tools finish in any order and are often stored as they finish; sent in "
            "stored order the results no longer follow the calls' order, which Gemini matches "
            "function responses against, and which every correct loop produces.",
        history=HistoryScript(stored=(Q1, AssistantMessage(tool_calls=(
            _call("call_a"), _call("call_b", "Lyon"))), _result("call_b", "21°C"),
            _result("call_a", "18°C"), Q2)),
        checks=(results_in_call_order,),
    ),
    _history_case(
        id="history.call_id_reused",
        title="A call id reused in a later turn is sent once, with one result",
        why="Per-turn id counters ('call_0', 'terminal:0') repeat across turns; a builder that "
            "pairs each stored turn sends the id twice and the Responses API answers 400 "
            "'Duplicate function_call_output for call_id ...' (NousResearch/hermes-agent issue "
            "#102629 and PR #111443, confirmed 2026-11-23).",
        history=HistoryScript(stored=(
            Q1, AssistantMessage(tool_calls=(_call("call_0"),)), _result("call_0", "18°C"), Q2,
            AssistantMessage(tool_calls=(_call("call_0", "Lyon"),)), _result("call_0", "21°C"),
            Q3)),
        checks=(call_ids_unique,),
    ),
    _history_case(
        id="history.call_repeated_in_one_turn",
        title="A call stored twice in one assistant turn is sent once",
        why="A stream assembled twice, or a completed call appended again, stores one call "
            "twice in the same turn; a builder that dedupes results but not calls sends it "
            "twice, and Anthropic answers 400 'messages.1.content.1: `tool_use` ids must be "
            "unique' (WIRE.md, recorded validation error, confirmed 2026-11-24). Found by "
            "mutation: the reference builder's per-turn dedupe was never exercised.",
        history=HistoryScript(stored=(
            Q1, AssistantMessage(tool_calls=(_call("call_a"), _call("call_a"))),
            _result("call_a"), Q2)),
        checks=(call_ids_unique,),
    ),
    _history_case(
        id="history.empty_assistant_dropped",
        title="An assistant message with no text and no calls is dropped",
        why="An interrupted or cancelled turn is often stored as an empty assistant message; "
            "sent, Anthropic rejects it ('all messages must have non-empty content except for "
            "the optional final assistant message') and it tells no provider anything.",
        history=HistoryScript(stored=(Q1, AssistantMessage(content=""), Q2,
                                      AssistantMessage(tool_calls=(_call("call_a"),)),
                                      _result("call_a"), Q3)),
        checks=(no_empty_assistant,),
    ),
]

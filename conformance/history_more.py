"""More history cases (issue 29, family 5): call ids that do not sort in call order, and the
assistant's text beside calls that survive filtering.

``history.results_in_call_order`` stores ``call_a`` and ``call_b``: their ids sort the same as
the calls, so a builder that sorts results by id passed it. Real ids are random
(``toolu_01...``, ``call_...``); here the first call's id sorts last. No case stored an
assistant text beside calls of which some are filtered (``history.all_calls_failed`` filters
them all), so a builder that rebuilds a filtered message from its calls alone passed.
"""

from __future__ import annotations

from pytest_toolcall.conformance.history import (
    Q1,
    Q2,
    _call,
    _describe,
    _history_case,
    _result,
    results_in_call_order,
)

from pytest_toolcall.cases import Case, check
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.core.model import AssistantMessage
from pytest_toolcall.run.looprun import HistoryRun, HistoryScript

__all__ = ["CASES", "assistant_text_kept"]

#: two calls whose ids sort the other way round (as random ids do half the time)
FIRST_ID, SECOND_ID = "toolu_01Zq7", "toolu_01Bc4"
TEXT = "Let me check both cities."


@check("history.assistant_text_kept")
def assistant_text_kept(run: HistoryRun) -> None:
    """Every stored assistant text whose message is sent (its calls, or some of them, survive
    the filtering) is sent too, unchanged, on an assistant message."""
    built = run.built or []
    sent = {c.id for m in built if isinstance(m, AssistantMessage) for c in m.tool_calls}
    texts = [m.content or "" for m in built if isinstance(m, AssistantMessage)]
    for stored in run.stored:
        if not isinstance(stored, AssistantMessage) or not (stored.content or "").strip():
            continue
        if stored.tool_calls and not any(c.id in sent for c in stored.tool_calls):
            continue  # every call filtered: history.failed_calls_dropped judges that message
        if not any(stored.content in text for text in texts):
            raise ConformanceFailure(
                "history.assistant_text_kept", "the assistant's text beside its calls was lost "
                "when its calls were filtered", expected=stored.content,
                got=[_describe(m) for m in built],
                hint="rebuild a filtered assistant message from the stored one (content, "
                     "reasoning, the calls that are kept), not from its calls alone")


CASES: list[Case] = [
    _history_case(
        id="history.results_in_call_order_random_ids",
        title="Results are sent in call order when the call ids sort the other way",
        why="Random call ids (toolu_01..., call_...) sort in call order only by chance: a "
            "builder that sorts results by id sends them out of call order, which Gemini "
            "pairs by position and a model reads as answers to the wrong calls "
            "(allenhutchison/obsidian-gemini #1499, 2026-09-11: a sort reordered the results "
            "against the replayed calls; martin98-afk/DriFox #82, 2026-05-18).",
        history=HistoryScript(stored=(
            Q1, AssistantMessage(tool_calls=(_call(FIRST_ID), _call(SECOND_ID, "Lyon"))),
            _result(SECOND_ID, "21°C"), _result(FIRST_ID, "18°C"), Q2)),
        checks=(results_in_call_order,),
    ),
    _history_case(
        id="history.text_beside_kept_calls",
        title="The assistant's text is kept when some of its calls are filtered",
        why="An assistant turn says something and calls tools; when one call is filtered (no "
            "result: the turn was interrupted), the message goes out with the calls that are "
            "left and its text. Rebuilt from the calls alone, the text is lost "
            "(agno-agi/agno #8990, 2026-07-16; langchain-ai/langchain-google #1706, "
            "2026-04-17: assistant text dropped beside tool calls on replay).",
        history=HistoryScript(stored=(
            Q1, AssistantMessage(content=TEXT, tool_calls=(_call("call_a"),
                                                            _call("call_b", "Lyon"))),
            _result("call_a"), Q2)),
        checks=(assistant_text_kept,),
    ),
]

"""History cases over a turn with reasoning (issue 29, family 1): a stored history that stops
in the middle of a tool round (an agent run resumed after a restart, or a human approval) must
be rebuilt with the reasoning the model gave before its calls, unchanged, and with its system
prompt. No other history case stores reasoning (0 blocks in 280 generated histories), so a
builder that rebuilds assistant messages from their text and calls alone passed them all.
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.conformance.history import _call, _history_case, _result

from pytest_toolcall.cases import Case, check
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.core.model import AssistantMessage, Reasoning, SystemMessage, UserMessage
from pytest_toolcall.providers.anthropic.dialect import thinking_signature
from pytest_toolcall.run.looprun import HistoryRun, HistoryScript

__all__ = ["CASES", "reasoning_kept"]


def _thinking(text: str, position: int) -> Reasoning:
    return Reasoning(type="thinking", text=text, signature=thinking_signature(text, position))


_EARLIER = AssistantMessage(
    reasoning=(_thinking("One lookup for Paris.", 0),), tool_calls=(_call("call_h1", "Paris"),))
#: the turn the run stopped in: two consecutive thinking blocks, then two calls, answered
_LAST = AssistantMessage(
    reasoning=(_thinking("The user now asks for Lyon and Nice.", 0),
               _thinking("Two independent lookups: both at once.", 1)),
    tool_calls=(_call("call_h2", "Lyon"), _call("call_h3", "Nice")))
_STORED = (
    SystemMessage(content="You are a weather assistant. Answer in one sentence."),
    UserMessage(content="Weather in Paris?"), _EARLIER,
    _result("call_h1", "18°C"),
    AssistantMessage(content="18°C and sunny in Paris."),
    UserMessage(content="And Lyon and Nice?"), _LAST,
    _result("call_h2", "21°C"),
    _result("call_h3", "24°C"))


def _show(reasoning: Any) -> list[str]:
    return [f"{r.type}(text={(r.text or '')[:40]!r}, signature={(r.signature or '')[:16]!r})"
            for r in reasoning]


@check("history.reasoning_kept")
def reasoning_kept(run: HistoryRun) -> None:
    """The built history's assistant message with the calls of the turn in progress (after the
    last user message) carries the reasoning stored with them, unchanged: every block, in
    order, none merged or edited. An earlier, finished turn's reasoning may be dropped
    (Anthropic ignores it, DeepSeek does not need it), never altered."""
    built = [m for m in run.built or [] if isinstance(m, AssistantMessage)]
    for stored in (m for m in run.stored if isinstance(m, AssistantMessage) and m.reasoning):
        ids = {c.id for c in stored.tool_calls}
        found = next((m for m in built if {c.id for c in m.tool_calls} & ids), None)
        if found is None or found.reasoning == stored.reasoning:
            continue  # the history.kept checks judge a turn that was dropped
        if stored is not _in_progress(run) and not found.reasoning:
            continue
        raise ConformanceFailure(
            "history.reasoning_kept", f"the assistant message with the calls {sorted(ids)} "
            "does not carry the reasoning stored with them, unchanged",
            expected=_show(stored.reasoning), got=_show(found.reasoning) or "no reasoning",
            hint="copy AssistantMessage.reasoning over when you rebuild the message (every "
                 "block, in order, with its signature): the turn in progress goes back to the "
                 "provider, which wants it (Anthropic: 'Expected `thinking` or "
                 "`redacted_thinking`, but found `tool_use`'; the Responses API: the "
                 "reasoning item before its function_call; DeepSeek: reasoning_content)")


def _in_progress(run: HistoryRun) -> Any:
    """The stored assistant message with calls after the last user message, if any."""
    last_user = max((n for n, m in enumerate(run.stored) if isinstance(m, UserMessage)),
                    default=-1)
    return next((m for m in run.stored[last_user + 1:]
                 if isinstance(m, AssistantMessage) and m.tool_calls), None)


CASES: list[Case] = [
    _history_case(
        id="history.reasoning_kept",
        title="The reasoning of the turn in progress is rebuilt with its calls, unchanged",
        why="A run stored between a tool round and the next model call (resumed after a "
            "restart, or after a human approved the calls) goes back to a reasoning model with "
            "that turn's reasoning or not at all: Anthropic answers 400 'Expected `thinking` "
            "or `redacted_thinking`, but found `tool_use`' without the thinking blocks "
            "(openai/openai-agents-python #1704 dropped them converting the stored history) "
            "and 'Invalid `signature` in `thinking` block' when two were merged "
            "(NousResearch/hermes-agent #6112); the Responses API wants each call's reasoning "
            "item, DeepSeek the reasoning_content of the turn. Confirmed 2026-11-28.",
        history=HistoryScript(stored=_STORED),
        checks=(reasoning_kept,),
    ),
]

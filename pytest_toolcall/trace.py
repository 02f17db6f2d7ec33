"""The trace ladder: where did each tool call get lost?

For every call the fake model emitted, the ladder shows each stage it reached::

    call_001 get_weather (step 1)
      ✓ emitted    by the model: {"city": "Paris"}
      ✓ parsed     by the adapter: get_weather(id='call_001', arguments={'city': 'Paris'})
      ✗ sent back  step 2's request has no assistant tool call with id 'call_001'
      · answered   not reached

A failing case prints it under the failure, so the stage where a call vanished is in plain view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .runner import CaseRun

__all__ = ["ladder"]

OK, BAD, NOT_REACHED = "✓", "✗", "·"


def ladder(run: CaseRun) -> str:
    """The ladder for every tool call the model emitted in ``run`` (empty when there were none)."""
    from .checks import describe_error, expected_calls
    from .model import AssistantMessage, ToolMessage

    lines: list[str] = []
    for record in run.steps:
        turn = record.step.reply
        if not turn.tool_calls or turn.error is not None:
            continue
        emitted = record.exchanges and record.exchanges[0].accepted
        got_calls = list(record.response.tool_calls) if record.response else []
        for k, want in enumerate(expected_calls(run, turn)):
            label = want.id or f"call #{k}"
            lines.append(f"{label} {want.name} (step {record.index + 1})")
            raw = turn.tool_calls[k].arguments_text()
            if not emitted:
                lines.append(f"  {BAD} emitted    the provider never answered: the request was "
                             "rejected or not sent")
                continue
            truncated = turn.stream.truncate_after is not None or turn.stream.error_after is not None
            lines.append(f"  {OK} emitted    by the model: {raw!r}"
                         + (" (stream cut short)" if truncated and record.step.via == "stream" else ""))
            others = {w.id for w in expected_calls(run, turn)} - {want.id, None}
            parsed = _find(got_calls, want, k, others)
            if parsed is None:
                why = (f"the adapter raised {describe_error(record.error)}" if record.error
                       else f"not among the {len(got_calls)} call(s) the adapter returned")
                lines.append(f"  {BAD} parsed     {why}")
                lines.append(f"  {NOT_REACHED} sent back  not reached")
                continue
            same = (parsed.name == want.name and parsed.arguments == want.arguments
                    and (want.id is None or parsed.id == want.id))
            mark = OK if same or want.parse_error else BAD
            lines.append(f"  {mark} parsed     by the adapter: {parsed.name}(id={parsed.id!r}, "
                         f"arguments={parsed.arguments!r}"
                         + (f", parse_error={parsed.parse_error!r}" if parsed.parse_error else "")
                         + ")")
            later = [r for r in run.steps[record.index + 1:]
                     if any(isinstance(m, AssistantMessage) and any(c.id == want.id for c in m.tool_calls)
                            for m in r.step.request.messages)]
            if not later:
                continue
            nxt = later[0]
            decoded = nxt.exchanges[0].decoded if nxt.exchanges else None
            if decoded is None:
                lines.append(f"  {BAD} sent back  step {nxt.index + 1}'s request was not accepted")
                continue
            sent = [c for m in decoded.messages if isinstance(m, AssistantMessage)
                    for c in m.tool_calls if c.id == want.id]
            if not sent:
                lines.append(f"  {BAD} sent back  step {nxt.index + 1}'s request has no assistant "
                             f"tool call with id {want.id!r}")
                continue
            lines.append(f"  {OK} sent back  in step {nxt.index + 1}: {sent[0].raw_arguments!r}")
            answered = [m for m in decoded.messages
                        if isinstance(m, ToolMessage) and m.tool_call_id == want.id]
            mark = OK if answered else BAD
            lines.append(f"  {mark} answered   " + (f"tool result {answered[0].content!r:.60}"
                                                    if answered else "no tool result with this id"))
    return "\n".join(lines)


def _find(calls: list[Any], want: Any, k: int, others: Any = frozenset()) -> Any:
    if want.id is not None:
        for call in calls:
            if call.id == want.id:
                return call
    # by position, unless the call there is another expected call (it has that call's id)
    if k < len(calls) and calls[k].id not in others:
        return calls[k]
    return None

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

from typing import Any

from pytest_toolcall.run.checks import describe_error, expected_calls
from pytest_toolcall.core.model import AssistantMessage, ToolMessage
from pytest_toolcall.run.runbase import CaseRun
from pytest_toolcall.run.scripted import ScriptedModel

__all__ = ["ladder"]

OK, BAD, NOT_REACHED = "✓", "✗", "·"


def ladder(run: CaseRun) -> str:
    """The ladder for every tool call the model emitted in ``run`` (empty when there were none)."""
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


def loop_ladder(run: Any) -> str:
    """The ladder of a loop case: emitted → routed → executed → returned, per call."""
    model = ScriptedModel(run.script.turns, max_calls=run.script.max_model_calls, validate=False)
    lines: list[str] = []
    for index in range(min(run.model_calls, run.script.max_model_calls)):
        turn, ids = model.turn_for(index)
        nxt = run.requests[index + 1] if index + 1 < len(run.requests) else None
        for call, call_id in zip(turn.tool_calls, ids):
            lines.append(f"{call_id} {call.name} (model call {index + 1})")
            lines.append(f"  {OK} emitted    by the model: {call.arguments_text()!r}")
            executions = [e for e in run.executor.executions if e.call_id == call_id]
            if executions:
                e = executions[0]
                mark = OK if e.outcome == "ok" else BAD
                extra = f" x{len(executions)}" if len(executions) > 1 else ""
                lines.append(f"  {mark} executed   {e.outcome}{extra}"
                             + (f": {e.result!r:.50}" if e.result else ""))
            else:
                lines.append(f"  {NOT_REACHED} executed   not run by the loop")
            if nxt is None:
                lines.append(f"  {NOT_REACHED} returned   no later model call "
                             f"(the loop stopped: {run.result.stop_reason if run.result else '?'})")
                continue
            routed = any(isinstance(m, AssistantMessage) and any(c.id == call_id
                                                                 for c in m.tool_calls)
                         for m in nxt.messages)
            answers = [m for m in nxt.messages
                       if isinstance(m, ToolMessage) and m.tool_call_id == call_id]
            if not routed:
                lines.append(f"  {BAD} routed     model call {index + 2} does not replay the call")
            if answers:
                a = answers[0]
                lines.append(f"  {OK} returned   in model call {index + 2}"
                             f"{' as an error' if a.is_error else ''}: {a.content!r:.60}"
                             + (f" (answered {len(answers)} times)" if len(answers) > 1 else ""))
            else:
                lines.append(f"  {BAD} returned   model call {index + 2} has no result for it")
    return "\n".join(lines)

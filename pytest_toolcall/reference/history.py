"""The reference history builder: stored messages in, messages every provider accepts out.

Stored histories are messy: turns interrupted between a call and its result, results stored
twice, results stored without the id of their call, failed calls. The rules, in order:

1. A tool result without a ``tool_call_id`` cannot be paired: it is dropped (never merged with
   another, never sent as an orphan).
2. Results are deduplicated by ``tool_call_id``; the first stored one wins.
3. With ``failed_calls="drop"`` (the default) a failed result and its call are both dropped: the
   model is not shown a call whose answer is an error it can no longer act on.
4. A call with no result left (interrupted, or dropped by 3) is removed from its assistant
   message; an assistant message with neither calls nor text (left so, or stored empty) is
   dropped.
5. A result whose call is in no assistant message is an orphan: dropped.
6. Results follow the assistant message of their call at once, in the order of its calls (a
   result stored later, after other messages, is moved up to its call).
7. An assistant message keeps the reasoning stored with it, unchanged (a turn in progress goes
   back to a reasoning model, which wants it: docs/reasoning.md); system messages stay as stored.

``build`` is idempotent: building a built history changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pytest_toolcall.core.model import AssistantMessage, ToolMessage

__all__ = ["ReferenceHistoryBuilder"]


class ReferenceHistoryBuilder:
    """Builds provider-ready messages from a stored history."""

    def __init__(self, *, failed_calls: Literal["drop", "keep"] = "drop") -> None:
        self.failed_calls = failed_calls

    def build(self, stored: Sequence[Any]) -> list[Any]:
        results: dict[str, ToolMessage] = {}
        for message in stored:
            if isinstance(message, ToolMessage) and message.tool_call_id:
                results.setdefault(message.tool_call_id, message)
        if self.failed_calls == "drop":
            results = {k: v for k, v in results.items() if not v.is_error}

        built: list[Any] = []
        used: set[str] = set()
        for message in stored:
            if isinstance(message, ToolMessage):
                continue  # re-emitted right after their assistant message below
            if not isinstance(message, AssistantMessage):
                built.append(message)
                continue
            if not message.tool_calls:
                if (message.content or "").strip():  # an empty one tells the model nothing
                    built.append(message)
                continue
            calls = []
            seen: set[str] = set()
            for call in message.tool_calls:
                if call.id and call.id in results and call.id not in used and call.id not in seen:
                    calls.append(call)
                    seen.add(call.id)
            if not calls and not message.content:
                continue
            built.append(AssistantMessage(content=message.content, tool_calls=tuple(calls),
                                          reasoning=message.reasoning))
            for call in calls:
                used.add(call.id)  # type: ignore[arg-type]
                built.append(results[call.id])  # type: ignore[index]
        return built

"""The orchestration contracts: a tool loop and a history builder, and what the kit records.

A **tool loop** calls a model, dispatches the tool calls it makes through an executor, feeds the
results back, and stops for a canonical reason::

    run(LoopRequest) -> LoopResult            sync
    async arun(LoopRequest) -> LoopResult     async

A **history builder** turns what an application stored into messages a provider accepts::

    build(stored: Sequence[Message]) -> Sequence[Message]

Tools report failure by raising :class:`ToolError` (``retryable`` says whether trying again can
help); anything else a tool raises is a crash, whose text a loop must never show the model or
its client verbatim.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from pytest_toolcall.core.model import Message, ToolSpec, Usage

__all__ = [
    "STOP_REASONS",
    "AsyncToolLoop",
    "Execution",
    "HistoryBuilder",
    "LoopEvent",
    "LoopRequest",
    "LoopResult",
    "StopReason",
    "ToolError",
    "ToolLoop",
]

StopReason = Literal[
    "completed", "max_iterations", "failure_rounds", "permanent_failure",
    "needs_clarification", "error", "length", "content_filter", "cancelled", "handed_off",
]
#: how a loop can end. The first six are the seed loops' own; ``length`` (the model's answer
#: was cut at its token limit), ``content_filter`` (the provider withheld or refused it),
#: ``cancelled`` (the application or user stopped the run) and ``handed_off`` (the run passed
#: the conversation to another agent or a human) are what real frameworks end with too
#: (docs/loops.md, "Stop reasons"; issue 16)
STOP_REASONS: tuple[str, ...] = (
    "completed", "max_iterations", "failure_rounds", "permanent_failure",
    "needs_clarification", "error", "length", "content_filter", "cancelled", "handed_off",
)


class ToolError(Exception):
    """A tool call failed. ``retryable=False``: calling again with the same input cannot help.

    ``kind`` is ``execution`` (the tool ran and failed), ``validation`` (the arguments do not fit
    the tool's schema), ``unknown_tool`` or ``timeout``.
    """

    def __init__(self, message: str, *, retryable: bool = True, kind: str = "execution") -> None:
        self.message = message
        self.retryable = retryable
        self.kind = kind
        super().__init__(message)


@dataclass
class Execution:
    """One tool execution as the kit's executor saw it."""

    call_id: str | None
    name: str
    arguments: Any
    started: float
    ended: float = 0.0
    outcome: Literal["ok", "failed", "permanent", "crashed", "timeout", "unknown_tool",
                     "running"] = "running"
    result: str | None = None
    error: str | None = None


class LoopEvent(BaseModel):
    """Something the loop showed its client (the ``loop.events`` capability)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal["text", "tool_call", "tool_result", "tool_error", "clarification", "error",
                  "done"]
    content: str = ""
    call_id: str | None = None
    name: str | None = None


@dataclass
class LoopRequest:
    """What a loop is asked to do: the conversation so far, the tools, the model, the executor.

    ``model`` is a chat adapter (``complete``/``acomplete``): scripted in-process, or a real
    adapter wired to the fake provider. ``executor.run(name, arguments, call_id=...)`` (or
    ``await executor.arun(...)``) runs a tool and returns its text, or raises :class:`ToolError`
    or any other exception.

    ``endpoint`` (with ``--toolcall-loop-model=fake``): the fake provider serving the case's
    script, for a loop that brings its own client (``base_url``, ``api_key``, and httpx
    clients/transports; on 127.0.0.1 with ``--toolcall-transport=loopback``). Every request
    either way reaches the same script and is checked by the same rules. ``None`` in-process.

    ``cancel``: the application's stop button, an object with ``is_set()`` (the kit passes a
    ``threading.Event``). Once it is set, a loop that honours it (``Profile(cancellation=True)``)
    makes no further model call and stops with ``cancelled``; poll ``is_set()`` (it never
    blocks, so an async loop may call it too) after each round and before each model call.
    ``None``: no signal (a loop built by hand, a request over the subprocess protocol).
    """

    messages: Sequence[Message]
    tools: Sequence[ToolSpec]
    model: Any
    executor: Any
    metadata: dict[str, Any] = field(default_factory=dict)
    endpoint: Any = None
    cancel: Any = None


class LoopResult(BaseModel):
    """How a loop ended."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    stop_reason: StopReason
    text: str | None = None
    events: tuple[LoopEvent, ...] | None = None
    usage: Usage | None = None
    messages: tuple[Any, ...] = ()


@runtime_checkable
class ToolLoop(Protocol):
    def run(self, request: LoopRequest) -> LoopResult: ...


@runtime_checkable
class AsyncToolLoop(Protocol):
    async def arun(self, request: LoopRequest) -> LoopResult: ...


@runtime_checkable
class HistoryBuilder(Protocol):
    def build(self, stored: Sequence[Message]) -> Sequence[Message]: ...

"""The structured-output contract: ask for a tool call, fall back to JSON in the text, then text.

An implementation asks a model for structured output through one tool (``emit_plan``, say),
streams the answer ONCE, and reports which channel the value came from::

    extract(FallbackRequest) -> FallbackResult            sync
    async aextract(FallbackRequest) -> FallbackResult     async

The channels, in order of preference:

1. ``tool``: a call of ``tool_name`` whose arguments parse and fit ``schema``;
2. ``json``: otherwise a JSON object in the text that fits ``schema`` (the whole text, a fenced
   ```` ```json ```` block, or the first ``{...}`` object in prose);
3. ``text``: otherwise the plain text (``value`` is ``None``).

Malformed arguments, arguments failing the schema and calls of another tool fall through to the
next channel. The stream is opened once and read to its end: collecting the tool call first and
then reading the text from the same (now exhausted) stream loses the text (seed 003's "stream
exhaustion"), and opening a second stream asks the model again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from pytest_toolcall.core.model import ChatRequest

__all__ = [
    "CHANNELS",
    "AsyncStructuredOutput",
    "Channel",
    "FallbackRequest",
    "FallbackResult",
    "StructuredOutput",
]

Channel = Literal["tool", "json", "text"]
CHANNELS: tuple[str, ...] = ("tool", "json", "text")


@dataclass
class FallbackRequest:
    """What to ask and how to read the answer.

    ``request`` offers the tool ``tool_name`` (among others, maybe); ``schema`` is what a value
    must fit on every channel (the tool's parameters); ``model`` is a chat adapter with
    ``stream(request)`` / ``astream(request)`` yielding canonical stream events.
    """

    request: ChatRequest
    tool_name: str
    schema: dict[str, Any]
    model: Any
    metadata: dict[str, Any] = field(default_factory=dict)


class FallbackResult(BaseModel):
    """The value and the channel it came from. ``text`` is the model's text (``None`` when it
    said nothing); on the ``text`` channel it is the answer itself and ``value`` is ``None``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    channel: Channel
    value: dict[str, Any] | None = None
    text: str | None = None


@runtime_checkable
class StructuredOutput(Protocol):
    def extract(self, request: FallbackRequest) -> FallbackResult: ...


@runtime_checkable
class AsyncStructuredOutput(Protocol):
    async def aextract(self, request: FallbackRequest) -> FallbackResult: ...

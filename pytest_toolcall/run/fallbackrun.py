"""Running fallback cases: the script, a streaming model that records how it was read, the driver.

A fallback case gives the implementation under test a request offering a tool, the tool's name
and schema, and a :class:`StreamingModel` that streams one scripted :class:`~.cases.Turn` as
canonical events. The model records every stream it opens and how far each was read, so the
checks can tell "read once, to the end" from "read twice" (seed 003's stream exhaustion) and
from "stopped after the tool call".
"""

from __future__ import annotations

import copy

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from pytest_toolcall.cases import FallbackScript, Turn
from pytest_toolcall.run.checks import breach_failure, describe_error, rejection_failure
from pytest_toolcall.core.contracts import Interface
from pytest_toolcall.core.errors import ConformanceFailure, ProviderError
from pytest_toolcall.core.fallback import FallbackRequest, FallbackResult
from pytest_toolcall.core.model import (
    ChatRequest,
    Message,
    StreamDone,
    TextDelta,
    ToolCall,
    ToolCallComplete,
    ToolCallDelta,
    ToolSpec,
    UserMessage,
)
from pytest_toolcall.run.looprun import inexpressible, wire_of
from pytest_toolcall.run.runbase import (
    CaseSkipped,
    Held,
    call_with_deadline,
    coerce,
    interfaces,
    run_checks,
)

__all__ = [
    "REASKED_TEXT",
    "FallbackRun",
    "FallbackScript",
    "StreamOpen",
    "StreamingModel",
    "fallback_interfaces",
    "run_fallback",
    "turn_events",
]

#: what the model streams when it is asked again (a second stream is a second model call)
REASKED_TEXT = "(pytest-toolcall: asked a second time, the model answers with plain text)"


def turn_events(turn: Turn, *, calls_first: bool = False, cut: bool = False) -> list[Any]:
    """The canonical events of ``turn``: text in fragments, each call as deltas then its
    :class:`ToolCallComplete`, and :class:`StreamDone` last. With ``cut`` the events end with
    the last call's argument fragments (no ToolCallComplete for it, no StreamDone)."""
    size = turn.stream.fragment_size
    text = turn.text or ""
    texts: list[Any] = [TextDelta(text=text[i:i + size]) for i in range(0, len(text), size)]
    calls: list[Any] = []
    for index, scripted in enumerate(turn.tool_calls):
        call_id = scripted.id or f"call_{index + 1}"
        raw = scripted.arguments_text() or ""
        calls.append(ToolCallDelta(index=index, id=call_id, name=scripted.name))
        calls += [ToolCallDelta(index=index, arguments_delta=raw[i:i + size])
                  for i in range(0, len(raw), size)]
        calls.append(ToolCallComplete(call=ToolCall.from_raw(id=call_id, name=scripted.name,
                                                             arguments=scripted.arguments)))
    if cut:
        if calls_first or not turn.tool_calls:
            raise ValueError("a cut stream ends inside its last call: the calls stream last")
        return texts + calls[:-1]
    body = calls + texts if calls_first else texts + calls
    return [*body, StreamDone(finish_reason=turn.expected_finish(), usage=turn.usage)]


@dataclass
class StreamOpen:
    """One stream the model opened: what was asked, how many events it holds, how far it was
    read, and whether its :class:`StreamDone` was handed out."""

    index: int
    request: ChatRequest
    interface: str
    events: int
    read: int = 0
    done: bool = False


class _Stream:
    """An event stream that counts what is read from it (sync and async iteration)."""

    def __init__(self, record: StreamOpen, events: Sequence[Any]) -> None:
        self._record = record
        self._events = iter(events)

    def __iter__(self) -> _Stream:
        return self

    def __next__(self) -> Any:
        try:
            event = next(self._events)
        except StopIteration:
            self._record.done = True  # read to its end (a cut stream has no StreamDone)
            raise
        self._record.read += 1
        if isinstance(event, StreamDone):
            self._record.done = True
        return event

    def __aiter__(self) -> _Stream:
        return self

    async def __anext__(self) -> Any:
        try:
            return self.__next__()
        except StopIteration:
            raise StopAsyncIteration from None

    def close(self) -> None:
        self._events = iter(())

    async def aclose(self) -> None:
        self.close()


class StreamingModel:
    """A chat adapter with ``stream`` / ``astream`` only, answering from one scripted turn.

    The first stream carries ``turn``; a stream opened after it is a new model call and
    answers with :data:`REASKED_TEXT`. ``opens`` records every stream; requests the provider
    of ``dialect`` would refuse raise its :class:`~.errors.ProviderError` (and are kept in
    ``rejections``).
    """

    def __init__(self, turn: Turn, *, calls_first: bool = False, dialect: str = "openai",
                 validate: bool = True, cut: bool = False) -> None:
        self.turn = turn
        self.calls_first = calls_first
        self.cut = cut
        self.dialect = dialect
        self.validate = validate
        self.opens: list[StreamOpen] = []
        self.rejections: list[tuple[int, Any]] = []
        #: the rules a request broke that the provider's fake lets pass (issue 30)
        self.breaches: list[tuple[int, Any]] = []
        self._lock = threading.Lock()

    def _open(self, request: ChatRequest, interface: str) -> _Stream:
        if not isinstance(request, ChatRequest):
            raise TypeError(f"stream() takes a pytest_toolcall.ChatRequest, got "
                            f"{type(request).__name__}")
        with self._lock:
            index = len(self.opens)
        if self.validate:
            from pytest_toolcall.run.scripted import wire_verdict

            rejection, breaches = wire_verdict(request, self.dialect)
            self.breaches += [(index, b) for b in breaches]
            if rejection is not None:
                self.rejections.append((index, rejection))
                raise ProviderError(rejection.message, status=rejection.status,
                                    body=dict(rejection.body))
        turn = self.turn if index == 0 else Turn(text=REASKED_TEXT)
        events = turn_events(turn, calls_first=self.calls_first, cut=self.cut and index == 0)
        record = StreamOpen(index=index, request=request, interface=interface,
                            events=len(events))
        with self._lock:
            self.opens.append(record)
        return _Stream(record, events)

    def stream(self, request: ChatRequest) -> _Stream:
        return self._open(request, "stream")

    def astream(self, request: ChatRequest) -> _Stream:
        return self._open(request, "astream")


@dataclass
class FallbackRun:
    """What a fallback case's checks read."""

    case: Any
    profile: Any
    interface: Interface
    subject: Any
    script: FallbackScript
    model: StreamingModel
    request: FallbackRequest
    result: FallbackResult | None = None
    error: BaseException | None = None
    seconds: float = 0.0
    dialect: str = "openai"
    opens: list[StreamOpen] = field(default_factory=list)


def fallback_interfaces(subject: Any, profile: Any) -> list[Interface]:
    """The implementation's interfaces (``extract`` / ``aextract``); a usage error names what
    is missing."""
    return interfaces(subject, profile, fixture="toolcall_structured", kind="StructuredOutput",
                      sync="extract", async_="aextract")


@dataclass(frozen=True)
class _Turns:
    """The one turn of a fallback script, as :func:`~.looprun.inexpressible` reads a script."""

    turns: tuple[Turn, ...]


def run_fallback(case: Any, subject: Any, profile: Any, *,
                 dialect: str = "openai") -> list[FallbackRun]:
    """Drive a fallback case through every interface of ``subject``; checks run on each."""
    script = case.fallback
    # a streamed call whose arguments are no JSON object exists only where the stream carries
    # them as text (OpenAI's deltas, Anthropic's partial_json): Gemini and Ollama stream each
    # call's arguments as one JSON object, so no adapter of theirs could hand it over (issue 16)
    reason = (inexpressible(_Turns((script.turn,)), dialect)
              if wire_of(dialect) in ("gemini", "ollama") else None)
    if reason is not None:
        raise CaseSkipped(f"{case.id} cannot run on {dialect}: {reason}")
    runs = []
    held = Held(case.id)
    for interface in fallback_interfaces(subject, profile):
        model = StreamingModel(script.turn, calls_first=script.calls_first, dialect=dialect,
                               cut=script.cut)
        request = FallbackRequest(request=script.chat_request().model_copy(deep=True),
                                  tool_name=script.tool_name,
                                  schema=copy.deepcopy(script.schema_), model=model)
        run = FallbackRun(case=case, profile=profile, interface=interface, subject=subject,
                          script=script, model=model, request=request, dialect=dialect)
        started = time.perf_counter()
        try:
            try:
                outcome = call_with_deadline(
                    lambda: subject.extract(request), lambda: subject.aextract(request),
                    interface, profile.timeout, clause="fallback.timeout", what="extract",
                    hint="a read that waits for more events than the stream holds; raise "
                         "Profile(timeout=...) if it is just slow")
            finally:
                run.seconds = time.perf_counter() - started
                run.opens = list(model.opens)
            if isinstance(outcome, BaseException):
                run.error = outcome
            else:
                run.result = outcome
            _verify(run)
        except ConformanceFailure as failure:
            failure.case_id, failure.provider, failure.interface = case.id, dialect, interface
            failure.trace = failure.trace or fallback_trace(run)
            held.hold(failure)  # a should failure must not hide a must of the next interface
        runs.append(run)
    held.release()
    return runs


def _verify(run: FallbackRun) -> None:
    if run.error is not None:
        failure = ConformanceFailure(
            "fallback.raised", "extract raised instead of falling back",
            expected="a FallbackResult (channel 'text' when nothing structured came back)",
            got=describe_error(run.error),
            hint="malformed arguments or text that is not JSON are normal answers: catch the "
                 "parse error and try the next channel")
        failure.crash = run.error
        raise failure
    run.result = coerce(run.result, FallbackResult, clause="fallback.result", what="extract",
                        expected="pytest_toolcall.core.fallback.FallbackResult(channel=..., "
                                 "value=..., text=...)")
    for index, rejection in run.model.rejections:
        raise rejection_failure(
            rejection, f"stream {index + 1}: the provider rejected the request", run.dialect,
            hint="send FallbackRequest.request as given")
    held = Held(run.case.id)
    for index, breach in run.model.breaches[:1]:
        held.hold(breach_failure(breach, f"stream {index + 1}: the request", run.dialect))
    try:
        run_checks(run.case, run)
    except ConformanceFailure as failure:
        held.hold(failure)
    held.release()


def fallback_trace(run: FallbackRun) -> str:
    """What was streamed, how it was read, and what came back."""
    turn = run.script.turn
    calls = ", ".join(f"{c.name}({c.arguments_text() or ''})" for c in turn.tool_calls) or "none"
    first = " (calls first)" if run.script.calls_first else ""
    lines = [f"turn: text={turn.text!r:.120} calls={calls:.160}{first}"]
    for record in run.opens:
        end = ""
        if record.done:
            end = (", its end reached (cut: no StreamDone)" if run.script.cut and record.index == 0
                   else ", StreamDone reached")
        lines.append(f"stream {record.index + 1} ({record.interface}): read {record.read} of "
                     f"{record.events} events{end}")
    if not run.opens:
        lines.append("no stream opened")
    if run.result is not None and not isinstance(run.result, FallbackResult):
        lines.append(f"result: {run.result!r:.200}")
    elif run.result is not None:
        lines.append(f"result: channel={run.result.channel} value={run.result.value!r:.160} "
                     f"text={run.result.text!r:.80}")
    return "\n".join(lines)

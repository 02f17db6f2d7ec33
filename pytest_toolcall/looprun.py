"""Running loop and history cases: scripts, recordings, and the drivers.

A loop case gives the loop under test a conversation, scripted tools (an
:class:`~pytest_toolcall.tools.Executor`) and a model that answers from the script: in-process
(:class:`~pytest_toolcall.scripted.ScriptedModel`) or the reference adapter of the dialect wired
to the fake provider. A history case hands a stored history to the builder under test.
"""

from __future__ import annotations

import contextlib

import time
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .cases import HistoryScript, LoopScript, Turn
from .contracts import Interface
from .errors import ConformanceFailure, UsageError
from .loop import LoopRequest, LoopResult
from .model import ChatRequest, Message, UserMessage
from .runner import call_with_deadline, coerce, run_checks
from .tools import Executor, ScriptedTool

__all__ = [
    "HistoryRun",
    "HistoryScript",
    "LoopRun",
    "LoopScript",
    "loop_interfaces",
    "run_history",
    "run_loop",
]

LoopModel = Literal["inprocess", "fake"]


@dataclass
class LoopRun:
    """What a loop case's checks read."""

    case: Any
    profile: Any
    interface: Interface
    loop: Any
    executor: Executor
    model: Any
    script: LoopScript
    requests: list[ChatRequest] = field(default_factory=list)
    rejections: list[Any] = field(default_factory=list)
    result: LoopResult | None = None
    error: BaseException | None = None
    seconds: float = 0.0
    model_mode: LoopModel = "inprocess"
    dialect: str = "openai"

    @property
    def model_calls(self) -> int:
        return len(self.requests)


@dataclass
class HistoryRun:
    """What a history case's checks read: the stored history and what the builder made of it."""

    case: Any
    profile: Any
    builder: Any
    stored: tuple[Any, ...]
    built: list[Any] | None = None
    rebuilt: list[Any] | None = None
    error: BaseException | None = None


def loop_interfaces(loop: Any, profile: Any) -> list[Interface]:
    """The loop's interfaces (``run`` / ``arun``); a usage error names what is missing."""
    found: list[Interface] = []
    if callable(getattr(loop, "run", None)) and profile.sync is not False:
        found.append("sync")
    if callable(getattr(loop, "arun", None)) and profile.async_ is not False:
        found.append("async")
    if not found:
        raise UsageError(f"the toolcall_loop fixture returned a {type(loop).__name__}, which is "
                         "not a ToolLoop: it needs run(request) or async arun(request)")
    return found


def _model(script: LoopScript, dialect: str, mode: LoopModel,
           serve_on: Any = None) -> tuple[Any, Any]:
    """``(model, recorder)``: the chat adapter the loop gets, and where requests are read back.

    ``serve_on`` (an ExitStack): serve the fake provider on loopback, for loops in another
    process (``pytest_toolcall.foreign``), and keep it up until the stack closes."""
    from .scripted import EXHAUSTED_TEXT, ScriptedModel

    scripted = ScriptedModel(script.turns, dialect=dialect, max_calls=script.max_model_calls)
    if mode == "inprocess":
        return scripted, scripted
    from .cases import ScriptedCall
    from .fake import FakeProvider, in_process_endpoint
    from .reference import reference_adapter

    turns = []
    for index in range(script.max_model_calls):
        turn, ids = scripted.turn_for(index)
        turns.append(turn.model_copy(update={"tool_calls": tuple(
            ScriptedCall(name=c.name, arguments=c.arguments, id=cid)
            for c, cid in zip(turn.tool_calls, ids))}))
    fake = FakeProvider(dialect, turns)
    fake.expect_after(Turn(text=EXHAUSTED_TEXT))
    if serve_on is not None:
        from .foreign import served

        endpoint = serve_on.enter_context(served(fake))
        serve_on.endpoint = endpoint
    else:
        endpoint = in_process_endpoint(fake)
    return reference_adapter(endpoint), fake


def run_loop(case: Any, loop: Any, profile: Any, *, dialect: str = "openai",
             model_mode: LoopModel = "inprocess") -> list[LoopRun]:
    """Drive a loop case through every interface of ``loop``; checks run on each recording."""
    script = resolve_script(case, profile)
    runs = []
    # a loop in another process calls the fake provider over HTTP on 127.0.0.1
    loopback = getattr(loop, "toolcall_loop_model", None) == "loopback"
    if loopback:
        model_mode = "fake"
    for interface in loop_interfaces(loop, profile):
        stack = contextlib.ExitStack()
        model, recorder = _model(script, dialect, model_mode, stack if loopback else None)
        executor = Executor(script.tools)
        run = LoopRun(case=case, profile=profile, interface=interface, loop=loop,
                      executor=executor, model=model, model_mode=model_mode, script=script,
                      dialect=dialect)
        request = LoopRequest(messages=script.messages, tools=[t.spec for t in script.tools],
                              model=model, executor=executor)
        if loopback:
            served = stack.endpoint  # type: ignore[attr-defined]
            request.metadata["endpoint"] = {"provider": dialect, "base_url": served.base_url,
                                            "api_key": served.api_key}
        started = time.perf_counter()
        try:
            try:
                outcome = call_with_deadline(
                    lambda: loop.run(request), lambda: loop.arun(request), interface,
                    profile.timeout, clause="loop.timeout", what="the loop",
                    hint="a loop that never stops, or a tool call without a timeout (a hung "
                         "tool must not hang the loop); raise Profile(timeout=...) if it is "
                         "just slow")
            finally:
                run.seconds = time.perf_counter() - started
                executor.release()
                stack.close()
                _read_back(run, recorder)
            if isinstance(outcome, BaseException):
                run.error = outcome
            else:
                run.result = outcome
            _verify_loop(run)
        except ConformanceFailure as failure:  # name the case and interface (timeouts too)
            from .trace import loop_ladder

            failure.case_id, failure.provider, failure.interface = case.id, dialect, interface
            failure.trace = failure.trace or loop_ladder(run)
            raise
        runs.append(run)
    return runs


def _read_back(run: LoopRun, recorder: Any) -> None:
    if hasattr(recorder, "requests"):
        run.requests = list(recorder.requests)
        run.rejections = list(recorder.rejections)
        return
    for exchange in recorder.exchanges:  # the fake provider
        if exchange.decoded is not None:
            run.requests.append(exchange.decoded)
        if exchange.rejection is not None:
            run.rejections.append((exchange.index, exchange.rejection))


def resolve_script(case: Any, profile: Any) -> LoopScript:
    """The case's loop script; a factory is called with the profile (caps vary by profile)."""
    script = case.loop(profile) if callable(case.loop) else case.loop
    if not isinstance(script, LoopScript):
        from .errors import CaseDefinitionError

        raise CaseDefinitionError(case.id, f"its loop script factory returned "
                                  f"{type(script).__name__}, not a LoopScript")
    return script


def _verify_loop(run: LoopRun) -> None:

    if run.error is not None:
        from .checks import describe_error

        raise ConformanceFailure(
            "loop.raised", "the loop raised instead of returning a LoopResult",
            expected="a LoopResult with a stop reason (use 'error' for failures)",
            got=describe_error(run.error),
            hint="catch failures inside the loop and stop with stop_reason='error'")
    run.result = coerce(run.result, LoopResult, clause="loop.result", what="the loop",
                        expected="pytest_toolcall.loop.LoopResult")
    for index, rejection in run.rejections:
        raise ConformanceFailure(
            f"request.{rejection.rule}",
            f"model call {index + 1}: the provider rejected the loop's request "
            f"(HTTP {rejection.status}): {rejection.message}",
            hint="every tool call must be answered, once, right after the assistant message "
                 "that made it; no tool message without its call")
    run_checks(run.case, run)
    _result_messages_valid(run)


def _result_messages_valid(run: LoopRun) -> None:
    """The conversation a loop returns is what its application stores and sends next time: the
    provider must accept it (a loop that stops mid-round must still answer every call)."""
    messages = run.result.messages if run.result is not None else ()
    if not messages:
        return
    from pydantic import ValidationError

    from .scripted import wire_rejection

    try:
        request = ChatRequest(messages=tuple(messages),
                              tools=tuple(t.spec for t in run.script.tools))
    except ValidationError as exc:
        raise ConformanceFailure(
            "loop.result_messages", "LoopResult.messages holds something that is not a "
            "message", expected="pytest_toolcall messages (UserMessage, AssistantMessage, "
            "ToolMessage...)", got=f"{exc.error_count()} validation error(s): "
            f"{exc.errors()[0]['msg']}") from None
    rejection = wire_rejection(request, run.dialect)
    if rejection is not None:
        raise ConformanceFailure(
            "loop.result_messages", "the conversation the loop returned would be rejected when "
            f"sent again (HTTP {rejection.status}): {rejection.message}",
            expected="LoopResult.messages the provider accepts",
            got=[getattr(m, "role", type(m).__name__) for m in messages],
            hint="when the loop stops after running tools, answer every call of the round "
                 "before returning; when it stops without running them, leave their "
                 "assistant message out")


def run_history(case: Any, builder: Any, profile: Any) -> HistoryRun:
    """Hand the stored history to ``builder`` (twice: ``build`` must be idempotent); check it."""
    if not callable(getattr(builder, "build", None)):
        raise UsageError(f"the toolcall_history fixture returned a {type(builder).__name__}, "
                         "which is not a HistoryBuilder: it needs build(stored)")

    script: HistoryScript = case.history
    if script.property_examples:
        return _history_property(case, builder, profile, script.property_examples)
    return _history_once(case, builder, profile, tuple(script.stored))


def _history_property(case: Any, builder: Any, profile: Any, examples: int) -> HistoryRun:
    from hypothesis import HealthCheck, given, settings

    from .strategies import stored_histories

    last: list[HistoryRun] = []

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
    @given(stored_histories())
    def explore(stored: list[Any]) -> None:
        last[:] = [_history_once(case, builder, profile, tuple(stored))]

    explore()
    return last[0]


def _history_once(case: Any, builder: Any, profile: Any, stored: tuple[Any, ...]) -> HistoryRun:
    from .checks import describe_error
    from .errors import KitError, ToolcallError

    run = HistoryRun(case=case, profile=profile, builder=builder, stored=stored)
    try:
        run.built = list(builder.build(list(stored)))
        run.rebuilt = list(builder.build(list(run.built)))
    except Exception as exc:
        run.error = exc
        raise ConformanceFailure("history.raised", "build() raised on a stored history",
                                 got=describe_error(exc),
                                 hint="a messy history is normal input: filter, never raise")
    for item in case.checks:
        try:
            item(run)
        except ConformanceFailure as failure:
            failure.case_id = case.id
            failure.trace = failure.trace or _history_trace(run)
            raise
        except ToolcallError:
            raise
        except Exception as exc:
            clause = getattr(item, "clause", getattr(item, "__name__", "?"))
            raise KitError(f"check {clause!r} of case {case.id} crashed: "
                           f"{type(exc).__name__}: {exc}") from exc
    return run


def _history_trace(run: HistoryRun) -> str:
    def show(messages: Any) -> str:
        out = []
        for m in messages or ():
            calls = getattr(m, "tool_calls", ())
            label = m.role
            if calls:
                label += "[" + ",".join(c.id or "?" for c in calls) + "]"
            if m.role == "tool":
                label += f"({m.tool_call_id}{', error' if m.is_error else ''})"
            out.append(label)
        return " ".join(out) or "(empty)"

    return f"stored: {show(run.stored)}\nbuilt:  {show(run.built)}"

"""Checks: functions over a :class:`~pytest_toolcall.run.runner.CaseRun` that name a broken clause.

:func:`step_basics` runs for every step of every case. The others are building blocks that cases
list in their ``checks``; user cases use them the same way.
"""

from __future__ import annotations

import json
import re
import traceback
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pytest_toolcall.cases import Turn, check
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.core.errors import ConformanceFailure, KitError
from pytest_toolcall.core.model import (
    ChatResponse,
    StreamDone,
    ToolCall,
    ToolCallComplete,
    ToolCallDelta,
    extends_id,
    parse_arguments,
)
from pytest_toolcall.core.redact import clip, mask
from pytest_toolcall.run.runbase import CaseRun, StepRecord

__all__ = [
    "CRASH_TYPES",
    "breach_failure",
    "describe_error",
    "error_surfaced",
    "expected_calls",
    "matches_script",
    "request_breaches",
    "same_result_both_ways",
    "step_basics",
    "wire_request",
]

#: Exceptions that mean the adapter crashed on the input instead of reporting it.
CRASH_TYPES: tuple[type[BaseException], ...] = (
    KeyError, IndexError, TypeError, AttributeError, ValueError, StopIteration,
    UnicodeDecodeError, AssertionError, RecursionError,
)


def describe_error(error: BaseException) -> str:
    """``Type: message (at file:line)`` for an adapter's exception."""
    where = ""
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        last = _innermost_own_frame(frames)
        where = f" (at {last.filename.rsplit('/', 1)[-1]}:{last.lineno} in {last.name})"
    # a crashing scripted tool's text carries a planted secret; a failure must not repeat it
    text = mask(str(error))
    return f"{type(error).__name__}: {text}{where}"


def _innermost_own_frame(frames: list[traceback.FrameSummary]) -> traceback.FrameSummary:
    """The innermost frame outside the standard library: a crash in ``json.loads`` is located
    at the implementation's line that called it (issue 14). Installed packages count as the
    implementation: a library under test lives there."""
    import sysconfig

    paths = sysconfig.get_paths()
    stdlib = {paths["stdlib"], paths["platstdlib"]}
    packages = {paths["purelib"], paths["platlib"]}
    for frame in reversed(frames):
        name = frame.filename
        in_packages = any(name.startswith(p + "/") for p in packages)
        if name.startswith("<frozen") or (not in_packages
                                          and any(name.startswith(p + "/") for p in stdlib)):
            continue
        return frame
    return frames[-1]


def failing_frame(error: BaseException) -> str | None:
    """The module of the frame an exception was raised in: the innermost frame outside the
    standard library (as :func:`describe_error` locates it), so a verdict names whose code
    failed, the library's or the adapter's (issue 28: a shim never adds a failure of its own)."""
    walked = list(traceback.walk_tb(error.__traceback__))
    frames = traceback.extract_tb(error.__traceback__)
    if not walked or len(walked) != len(frames):
        return None
    own = _innermost_own_frame(frames)
    index = next(i for i, f in enumerate(frames) if f is own)
    return walked[index][0].f_globals.get("__name__")


def raised(clause: str, message: str, error: BaseException, **fields: Any) -> ConformanceFailure:
    """A failure about an exception the implementation raised: described, and its frame
    recorded (:func:`failing_frame`)."""
    failure = ConformanceFailure(clause, message, got=describe_error(error), **fields)
    failure.frame = failing_frame(error)
    failure.crash = error
    return failure


def _chain(error: BaseException) -> Iterable[BaseException]:
    seen = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def step_basics(run: CaseRun, record: StepRecord) -> None:
    """Clauses every step must keep: one accepted request, the right mode, no crash."""
    n = record.index + 1
    step = record.step
    for exchange in record.exchanges:
        if exchange.kit_error:
            raise KitError(f"the kit could not run step {n}: {exchange.kit_error}")
        if exchange.rejection is not None:
            raise rejection_failure(
                exchange.rejection, f"the provider rejected the adapter's request in step {n}",
                run.dialect, body=exchange.json, expected="a request the real provider accepts")
        if exchange.decode_error:
            raise KitError(f"the fake provider accepted but could not decode the request of step "
                           f"{n}: {exchange.decode_error}")
    if not record.exchanges:
        if record.error is not None:
            raise raised(
                "adapter.raised", f"the adapter raised before sending any request in step {n}",
                record.error, hint="the adapter's traceback is below")
        raise ConformanceFailure(
            "request.sent", f"the adapter returned in step {n} without sending a request",
            expected="one HTTP request to the provider", got="none")
    if len(record.exchanges) > 1:
        raise ConformanceFailure(
            "request.count", f"the adapter sent {len(record.exchanges)} requests in step {n}",
            expected="exactly one request per call", got=len(record.exchanges),
            hint="no retries on a 4xx, no duplicate sends")
    exchange = record.exchanges[0]
    # read the request, not the answer: an error reply is never streamed, but the request for
    # it must still have asked for a stream
    wants_stream = get_dialect(run.dialect).wants_stream(exchange.json or {}, exchange.path)
    if step.via == "stream" and not wants_stream:
        raise ConformanceFailure(
            "stream.requested", f"stream() was called in step {n}, but the request did not ask "
            "the provider to stream", expected="stream: true in the request body",
            got=_body_excerpt(exchange.json, ("stream",)))
    # complete() MAY stream and assemble the answer: no provider rejects it, and Anthropic
    # recommends streaming long requests (anthropic-sdk-python raises "Streaming is strongly
    # recommended for operations that may take longer than 10 minutes" for a large max_tokens
    # without stream; pydantic-ai's Anthropic model then streams under request(); docs
    # "Streaming Messages" and SDK _base_client.py, confirmed 2026-11-22). What matters is the
    # response it returns, which the case's checks compare; a complete() that asks for a stream
    # and cannot read it fails on adapter.raised. (issue 14, defect 3: was complete.not_streamed)
    if step.expect == "error":
        return
    if record.error is not None:
        raise raised(
            "adapter.raised", f"the adapter raised in step {n} on a valid provider answer",
            record.error, expected="a ChatResponse",
            hint="the adapter could not parse what the provider sent; see the trace")
    if record.events is not None and step.take is None:  # a stream the caller stopped early
        dones = [i for i, e in enumerate(record.events) if isinstance(e, StreamDone)]
        if dones != [len(record.events) - 1]:
            raise ConformanceFailure(
                "stream.done_last", f"the stream of step {n} must end with exactly one "
                "StreamDone event", expected="one StreamDone, last",
                got=f"StreamDone at positions {dones} of {len(record.events)} events")


def deltas_match_calls(record: StepRecord) -> None:
    """ToolCallDelta events (optional) describe the calls completed: index, id, name, arguments.

    A client that renders calls as they stream reads the deltas, not the completed calls; deltas
    that disagree with them show the user one call and run another.
    """
    events = record.events or []
    calls = [e.call for e in events if isinstance(e, ToolCallComplete)]
    pieces: dict[int, list[ToolCallDelta]] = {}
    for event in events:
        if isinstance(event, ToolCallDelta):
            pieces.setdefault(event.index, []).append(event)
    n = record.index + 1
    for index, deltas in sorted(pieces.items()):
        if not 0 <= index < len(calls):
            raise ConformanceFailure(
                "stream.deltas", f"step {n}: a ToolCallDelta has index {index}, but the stream "
                f"completed {len(calls)} call(s)", expected=f"indices 0..{len(calls) - 1}",
                got=index, hint="index is the call's position among the response's tool calls, "
                "not the provider's raw index")
        call = calls[index]
        ids = {d.id for d in deltas if d.id} - {call.id}
        names = {d.name for d in deltas if d.name} - {call.name}
        text = "".join(d.arguments_delta for d in deltas)
        same_args = (text == (call.raw_arguments or "")
                     or (call.parse_error is None and parse_arguments(text)[0] == call.arguments))
        if ids or names or not same_args:
            raise ConformanceFailure(
                "stream.deltas", f"step {n}: the deltas of call {index} do not describe the call "
                "completed at that position",
                expected=f"id {call.id!r}, name {call.name!r}, arguments {call.raw_arguments!r}",
                got=f"ids {sorted(ids)}, names {sorted(names)}, joined arguments {text!r}",
                hint="emit each fragment under its call's final position, with that call's id "
                     "and name, and its own argument piece")


_REJECTION_HINTS = {
    "messages": "check how the history is encoded; the provider's message above names the "
                "field it refused",
    "tools": "check how tool definitions are encoded",
    "tool_choice": "send tool_choice only with tools, in the provider's shape",
    "parallel_tool_calls": "send parallel_tool_calls only with tools",
    "auth": "send the endpoint's api_key the way the provider expects",
    "route": "post to the endpoint's base_url plus the provider's path",
    "type": "a field has the wrong JSON type: e.g. tool-call arguments must be a JSON string "
            "('{}' for none), never null or an object",
    "model": "send the model name",
    "body": "the provider refused the request body: its message names what it did not take",
}


#: Hints for one rule (or a rule prefix), more specific than the family hint: the hint follows
#: the rule the provider enforced (issue 14). ``{tool_choice}`` is filled per dialect.
_PAIRING = ("every tool result must answer a tool call of the assistant turn right before it, "
            "and every call must be answered")
_RULE_HINTS = {
    "messages.text.empty": "do not send empty text blocks/parts: leave the text out when the "
                           "assistant said nothing",
    "messages.content.empty": "send content only when there is some; an assistant turn with "
                              "tool calls and no text leaves it out (or null where allowed)",
    "messages.parts.empty": "every Gemini content needs at least one part",
    "messages.struct": "functionResponse.response must be a JSON object: wrap a text result, "
                       "e.g. {\"result\": text} or {\"output\": text}",
    "messages.function_response": "answer all function calls of one model turn in ONE user "
                                  "turn, one functionResponse per call, named like the call",
    "messages.assistant.content_null": "an assistant message without tool calls needs content",
    "messages.tool_use.id_pattern": "tool_use ids must match ^[a-zA-Z0-9_-]+$: replay the ids "
                                    "the provider gave, and map an id from another provider "
                                    "that has other characters (the same way on the tool_use "
                                    "and on its tool_result)",
    "messages.role.system": "send the system prompt as the top-level system parameter",
    "messages.tool_calls.arguments": "tool-call arguments must be a JSON string ('{}' for none)",
    "messages.tool_calls.function.arguments": "tool-call arguments must be a JSON string "
                                              "('{}' for none)",
    "messages.role": "use the dialect's roles (Gemini: user/model; tool results go in a user "
                     "turn)",
    "tool_choice": "send tool_choice only with tools, in the provider's shape: {tool_choice}",
    "messages.tool": _PAIRING,
    "messages.tool_calls.unanswered": _PAIRING,
    "messages.tool_use.unanswered": _PAIRING,
    "messages.tool_result": _PAIRING,
    "messages.function_call.position": _PAIRING,
    "input.function_call": _PAIRING,
    "input.function_call_output": _PAIRING,
    "tools.name": "tool names must match the provider's pattern (letters, digits, _ and -, "
                  "64 characters at most)",
    "body.json": "send the request body as JSON (an object, content-type application/json)",
    # Mistral's request models forbid extra keys (pydantic extra_forbidden, HTTP 422)
    "body.extra_forbidden": "leave the field out: the provider refuses every key its API does "
                            "not define, keys other APIs take (OpenAI's) included",
    "messages.extra_forbidden": "leave the field out of the message: the provider refuses every "
                                "key its message types do not define (another provider's "
                                "message fields included)",
    "messages.union_tag_invalid": "send only the roles the provider takes (system, user, "
                                  "assistant, tool): a developer message goes as system",
}

_TOOL_CHOICE_SHAPES = {
    "openai": "'auto'/'none'/'required' or {type: function, function: {name}}",
    "openai-responses": "'auto'/'none'/'required' or {type: function, name}",
    "anthropic": "{type: auto|any|none} or {type: tool, name}",
    "gemini": "toolConfig.functionCallingConfig {mode: AUTO|ANY|NONE, allowedFunctionNames}",
    "ollama": "Ollama's native API has no tool_choice: leave it out",
}


def rejection_hint(rule: str, dialect: str, field: str | None = None) -> str | None:
    """The hint for a provider rejection: the most specific rule hint, else the family's;
    led by the field the provider refused, when its answer names one (issue 28: the same
    family hint for every rejection said nothing about this one)."""
    parts = rule.split(".")
    hint = None
    for k in range(len(parts), 0, -1):
        hint = _RULE_HINTS.get(".".join(parts[:k]))
        if hint:
            hint = hint.replace("{tool_choice}", _TOOL_CHOICE_SHAPES.get(dialect, "see the "
                                                                         "provider's docs"))
            break
    hint = hint or _REJECTION_HINTS.get(parts[0])
    if field and hint:
        return f"the provider refused {field}: {hint}"
    return hint


def rejected_field(rejection: Any) -> str | None:
    """The field of the request a provider's rejection names: OpenAI's ``error.param``
    (``messages.[1].role``), a top-level ``param``, or the location of pydantic's first
    error (Mistral's 422 ``detail[0].loc``, without its leading ``body``)."""
    body = rejection.body if isinstance(rejection.body, Mapping) else {}
    error = body.get("error")
    for param in ((error or {}).get("param") if isinstance(error, Mapping) else None,
                  body.get("param")):
        if isinstance(param, str) and param:
            return param
    detail = body.get("detail")
    if isinstance(detail, list) and detail and isinstance(detail[0], Mapping):
        loc = list(detail[0].get("loc") or ())
        if loc[:1] == ["body"]:
            loc = loc[1:]
        if loc:
            return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
    return None


def _field_excerpt(body: Any, field: str) -> str | None:
    """``field: value`` of the request body, the value found by the field's path (a long body
    shown whole is cut before the field it is about); None when the path is not in it."""
    value = body
    for token in re.findall(r"[^.\[\]]+", field):
        if isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        elif isinstance(value, Mapping) and token in value:
            value = value[token]
        else:
            return None
    return f"{field}: {_body_excerpt(value)}"


def breach_failure(breach: Any, what: str, dialect: str, *, body: Any = None
                   ) -> ConformanceFailure:
    """A ``request.unconfirmed`` failure (``should``: hardening) for one of OpenAI's rules the
    request broke and ``dialect``'s fake let pass: the service is not shown to enforce it, so
    its fake takes the request (issue 30); OpenAI refuses it, and the service may too."""
    from pytest_toolcall.providers.openai.dialect import OPENAI_RULES
    from pytest_toolcall.providers.openai_responses.dialect import RESPONSES_RULES

    # a rule id names the same rule on both wires where they share it (type, tools.name...)
    what_rule = OPENAI_RULES.get(breach.rule) or RESPONSES_RULES.get(breach.rule, breach.rule)
    field = rejected_field(breach)
    fields: dict[str, Any] = {}
    if body is not None:
        fields["got"] = (field and _field_excerpt(body, field)) or _body_excerpt(body)
    return ConformanceFailure(
        "request.unconfirmed",
        f"{what} breaks OpenAI's rule {breach.rule} ({what_rule}), not confirmed for "
        f"{dialect}: its fake took it. OpenAI refuses it (HTTP {breach.status}): "
        f"{breach.message}",
        expected="a request every service on OpenAI's wire takes",
        hint=_breach_hint(breach.rule, field), **fields)


def _breach_hint(rule: str, field: str | None) -> str:
    """The hint for a breach the fake took: OpenAI's rule hint, said of OpenAI (the service
    itself refused nothing)."""
    hint = rejection_hint(rule, "openai") or ("send what OpenAI takes: a service that enforces "
                                              "the rule refuses the request")
    return f"OpenAI refuses {field}: {hint}" if field else hint


def request_breaches(run: CaseRun, record: StepRecord) -> None:
    """The first rule the step's request broke that the provider's fake let pass (issue 30)."""
    for exchange in record.exchanges:
        for breach in exchange.breaches:
            raise breach_failure(breach, f"the adapter's request in step {record.index + 1}",
                                 run.dialect, body=exchange.json)


def rejection_failure(rejection: Any, what: str, dialect: str, *, body: Any = None,
                      hint: str | None = None, **fields: Any) -> ConformanceFailure:
    """A ``request.<rule>`` failure for a provider's rejection: its status and message, the
    field it names (and that field's value in the request, when the body is at hand), and the
    hint for its rule (``hint``: when the rule has none)."""
    field = rejected_field(rejection)
    message = rejection.message
    named = f" (field: {field})" if field and field not in message else ""
    if body is not None:
        fields["got"] = (field and _field_excerpt(body, field)) or _body_excerpt(body)
    return ConformanceFailure(
        f"request.{rejection.rule}", f"{what} (HTTP {rejection.status}): {message}{named}",
        hint=rejection_hint(rejection.rule, dialect, field) or hint, **fields)


#: Where each dialect carries usage (for the response.usage hint).
_USAGE_WHERE = {
    "openai": "the response's usage, or the stream's last chunk (choices: [], needs "
              "stream_options.include_usage)",
    "openai-responses": "response.usage, or the response.completed event's response.usage",
    "anthropic": "usage; in a stream, input_tokens from message_start and the final counts "
                 "from message_delta",
    "gemini": "usageMetadata (promptTokenCount, candidatesTokenCount, totalTokenCount), in a "
              "stream from the last chunk",
    "ollama": "prompt_eval_count and eval_count of the (final, done: true) message",
}


def _body_excerpt(body: Any, keys: tuple[str, ...] | None = None) -> str:
    if isinstance(body, dict) and keys:
        body = {k: body.get(k) for k in keys}
    return clip(json.dumps(body, ensure_ascii=False), 300, "…")


def expected_calls(run: CaseRun, turn: Turn) -> list[ToolCall]:
    """The tool calls a correct adapter parses from ``turn`` as this dialect sends it."""
    dialect = get_dialect(run.dialect)
    ids: list[str | None] = list(dialect.call_ids(turn))
    if "no_ids" in turn.stream.quirks:
        ids = [None] * len(ids)
    return [ToolCall.from_raw(id=cid, name=c.name, arguments=c.arguments)
            for cid, c in zip(ids, turn.tool_calls)]


def wire_request(run: CaseRun, step: int = 0) -> Any:
    """The decoded canonical request the provider received in ``step``."""
    exchange = run.steps[step].exchanges[0]
    if exchange.decoded is None:
        raise KitError(f"no decoded request for step {step + 1}")
    return exchange.decoded


def _fmt_call(call: ToolCall) -> str:
    return f"{call.name}(id={call.id!r}, arguments={call.arguments!r})"


@check("response.matches_script")
def matches_script(run: CaseRun) -> None:
    """Every response equals what the model said: calls (id, name, arguments), text, finish."""
    for record in run.steps:
        if record.step.expect != "response" or record.response is None:
            continue
        compare_response(run, record, record.response)


def compare_response(run: CaseRun, record: StepRecord, got: ChatResponse) -> None:
    turn, n = record.step.reply, record.index + 1
    want = expected_calls(run, turn)
    if len(got.tool_calls) != len(want):
        raise ConformanceFailure(
            "response.tool_calls.count",
            f"step {n}: the model made {len(want)} tool call(s), the adapter returned "
            f"{len(got.tool_calls)}",
            expected=[_fmt_call(c) for c in want], got=[_fmt_call(c) for c in got.tool_calls],
            hint="parallel calls merged or dropped? key stream fragments on index (and id)"
            if len(got.tool_calls) < len(want) else "one call split in two?")
    for k, (w, g) in enumerate(zip(want, got.tool_calls)):
        if w.id is not None and g.id != w.id and not extends_id(g.id, w.id):
            raise ConformanceFailure(
                "response.tool_calls.id", f"step {n}, call {k}: wrong id",
                expected=w.id, got=g.id,
                hint="take the id from the call's first fragment and never concatenate it")
        if g.name != w.name:
            raise ConformanceFailure(
                "response.tool_calls.name", f"step {n}, call {k}: wrong tool name",
                expected=w.name, got=g.name,
                hint="take the name from the call's first fragment and never concatenate it")
        if w.parse_error is None and (g.arguments != w.arguments or g.parse_error):
            raise ConformanceFailure(
                "response.tool_calls.arguments", f"step {n}, call {k} ({w.name}): wrong arguments",
                expected=w.arguments, got=g.arguments if not g.parse_error else
                f"parse error: {g.parse_error}",
                hint="join every arguments fragment of the call, then parse once; "
                     "'' and null mean {}")
        if w.parse_error is not None:
            if g.parse_error is None or g.arguments is not None:
                raise ConformanceFailure(
                    "response.tool_calls.parse_error",
                    f"step {n}, call {k} ({w.name}): the arguments are not valid JSON, but the "
                    "tool call does not say so",
                    expected=f"arguments=None, parse_error set, raw_arguments={w.raw_arguments!r}",
                    got=f"arguments={g.arguments!r}, parse_error={g.parse_error!r}",
                    hint="use ToolCall.from_raw(...) or set parse_error when json.loads fails")
            if g.raw_arguments != w.raw_arguments:
                raise ConformanceFailure(
                    "response.tool_calls.raw_arguments",
                    f"step {n}, call {k}: the raw argument text was not kept",
                    expected=w.raw_arguments, got=g.raw_arguments)
    if (got.text or None) != (turn.text or None):
        raise ConformanceFailure("response.text", f"step {n}: wrong text",
                                 expected=turn.text, got=got.text)
    if got.finish_reason != turn.expected_finish():
        raise ConformanceFailure(
            "response.finish_reason", f"step {n}: wrong finish reason",
            expected=turn.expected_finish(), got=got.finish_reason)


@check("response.usage")
def usage_reported(run: CaseRun) -> None:
    """Token usage is read from the provider's answer (the usage chunk, when streaming)."""
    for record in run.steps:
        turn = record.step.reply
        if record.response is None or turn.usage is None:
            continue
        got = record.response.usage
        want = turn.usage
        if got is None or (got.input_tokens, got.output_tokens, got.total_tokens) != (
                want.input_tokens, want.output_tokens, want.total_tokens):
            raise ConformanceFailure(
                "response.usage", f"step {record.index + 1}: usage not reported as sent",
                expected=want.model_dump(), got=got.model_dump() if got else None,
                hint="read usage from " + _USAGE_WHERE.get(run.dialect, "the response"))


def error_surfaced(*, must_contain: str | None = None) -> Callable[[CaseRun], None]:
    """The step that expects an error raised one, typed, carrying the provider's own words."""

    @check("error.surfaced")
    def error_surfaced_check(run: CaseRun) -> None:
        for record in run.steps:
            if record.step.expect != "error":
                continue
            n = record.index + 1
            if record.error is None:
                got = record.response.model_dump(exclude_none=True) if record.response else None
                raise ConformanceFailure(
                    "error.surfaced", f"step {n}: the provider failed, but the adapter returned a "
                    "result as if it had succeeded", expected="an exception", got=got,
                    hint="raise when the provider answers with an error or a stream breaks off")
            if isinstance(record.error, CRASH_TYPES) and not isinstance(
                    record.error, ConformanceFailure):
                raise raised(
                    "error.typed", f"step {n}: the adapter crashed instead of reporting the "
                    "provider's error", record.error, expected="an error type of the "
                    "adapter's (or pytest_toolcall.ProviderError)",
                    hint="catch the provider's error and raise a typed exception")
            words = must_contain
            if words and not any(words in str(e) for e in _chain(record.error)):
                raise raised(
                    "error.message", f"step {n}: the error does not carry the provider's message",
                    record.error, expected=f"a message containing {words!r}",
                    hint="put the provider's error message in your exception")

    return error_surfaced_check


@check("stream.same_as_complete")
def same_result_both_ways(run: CaseRun) -> None:
    """A complete step and a stream step of the same turn give the same response."""
    complete = [r for r in run.steps if r.step.via == "complete" and r.response]
    streamed = [r for r in run.steps if r.step.via == "stream" and r.response]
    for a, b in zip(complete, streamed):
        left, right = _meaning(a.response), _meaning(b.response)  # type: ignore[arg-type]
        if not any(cid for cid in get_dialect(run.dialect).call_ids(a.step.reply)):
            # the provider sent no ids (Vertex): each read makes its own, they cannot match
            for side in (left, right):
                side["tool_calls"] = [(None, *call[1:]) for call in side["tool_calls"]]
        if left != right:
            differs = [k for k in left if left[k] != right[k]]
            raise ConformanceFailure(
                "stream.same_as_complete", "stream() and complete() gave different results for "
                f"the same answer ({', '.join(differs)} differ)",
                expected={k: left[k] for k in differs}, got={k: right[k] for k in differs},
                hint="stream() and complete() must read the same answer the same way")


def _meaning(response: ChatResponse) -> dict[str, Any]:
    """What a response says: calls as (id, name, parsed arguments), text, finish, usage. The raw
    argument text is left out: '{"a":1}' and '{"a": 1}' are the same call (issue 14, defect 5);
    text that does not parse is compared as text."""
    calls = [(c.id, c.name, c.arguments if c.parse_error is None else ("unparsed",
                                                                        c.raw_arguments))
             for c in response.tool_calls]
    usage = response.usage.model_dump() if response.usage else None
    return {"tool_calls": calls, "text": response.text or None,
            "finish_reason": response.finish_reason, "usage": usage}



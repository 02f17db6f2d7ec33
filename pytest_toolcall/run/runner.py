"""The runner: drives one case against one adapter through the fake provider, then checks it.

Outcomes are exceptions with distinct meanings: :class:`CaseSkipped` (a capability is not claimed),
:class:`~pytest_toolcall.core.errors.ConformanceFailure` (the implementation broke a clause),
:class:`~pytest_toolcall.core.errors.ToolcallError` (the kit could not run). Anything else escaping
from here is a kit bug.
"""

from __future__ import annotations

import copy
import inspect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from pytest_toolcall.run import checks
from pytest_toolcall.cases import SERVICE_QUIRKS, Case
from pytest_toolcall.cases.levels import level_of
from pytest_toolcall.core.contracts import Interface, Profile, check_adapter
from pytest_toolcall.core.errors import ConformanceFailure, UsageError
from pytest_toolcall.core.risks import risk_for_capability
from pytest_toolcall.providers.fake.provider import Endpoint
from pytest_toolcall.run.fallbackrun import run_fallback
from pytest_toolcall.run.looprun import run_history, run_loop
from pytest_toolcall.core.model import (
    AssistantMessage,
    ChatResponse,
    ReasoningComplete,
    StreamDone,
    StreamEvent,
    TextDelta,
    ToolCallComplete,
    ToolCallDelta,
    ToolMessage,
    assemble_stream,
    extends_id,
)
# what the runners share lives below them (runbase); these names stay importable from here
from pytest_toolcall.run.runbase import (
    CaseRun,
    CaseSkipped,
    Held,
    hypothesis_home,
    StepRecord,
    SubjectFault,
    _Raised,
    _Timeout,
    _with_timeout,
    call_with_deadline,
    coerce,
    exited,
    release_loop_threads,
    run_async,
    run_checks,
)
from pytest_toolcall.run.trace import ladder

__all__ = ["CaseRun", "CaseSkipped", "StepRecord", "run_case"]

_EVENT = TypeAdapter(StreamEvent)
_EVENT_TYPES = (TextDelta, ToolCallDelta, ToolCallComplete, ReasoningComplete, StreamDone)


def _quirk_gate(case: Case, profile: Profile, provider: str) -> None:
    """A quirk case under a bare wire runs only for a profile that targets a service sending
    the quirk: OpenAI never sends it, so an adapter written for OpenAI alone is not failed."""
    if case.quirk is None:
        return
    senders = case.senders()
    if provider in senders:
        return
    # the registry's quirks are those of the services' Chat Completions endpoints: under
    # another wire (openai-responses) only '*' claims them
    if provider != "openai":
        senders = ()
    wanted = profile.compatible_with
    if "*" in wanted or wanted & set(senders):
        return
    if senders:
        how = (f"it runs for {', '.join(senders)}. Declare the services your adapter targets "
               f"to run it here: Profile(compatible_with={{{', '.join(map(repr, senders))}}}), "
               "or {'*'} for any OpenAI-compatible server")
    else:
        how = ("no service in the registry sends it (gateways were reported to); it runs for "
               "Profile(compatible_with={'*'}), an adapter meant for any OpenAI-compatible "
               "server")
    raise CaseSkipped(f"{case.id} plays a quirk {provider} does not send "
                      f"({SERVICE_QUIRKS[case.quirk]}); {how}")


def _claims_gate(case: Case, profile: Profile, adapter: Any) -> None:
    """Skip a case that needs a capability the profile does not claim; when a declared risk
    (``core.risks``) is what leaves it unclaimed, the reason says so: never a silent skip."""
    for capability in sorted(case.required_capabilities()):
        if not profile.claims(capability, adapter):
            reason = f"the profile does not claim {capability!r}, which {case.id} needs"
            risk = risk_for_capability(profile, capability, adapter)
            if risk is None:
                raise CaseSkipped(reason)
            raise CaseSkipped(f"{reason}: declared risk {risk.id} ({risk.line()})",
                              risk=risk.id)


def _name_senders(failure: ConformanceFailure, case: Case, profile: Profile,
                  provider: str) -> None:
    """A failed quirk case names the services that send its quirk, and why it ran: the
    provider sends it, or the profile's ``compatible_with`` targets them."""
    if case.quirk is None:
        return
    senders = case.senders()
    who = (f"sent by {', '.join(senders)}" if senders
           else "sent by no service in the registry (reported of gateways)")
    if provider in senders:
        why = f"{provider} sends it"
    else:
        wanted = ", ".join(sorted(profile.compatible_with))
        why = (f"the profile targets {{{wanted}}} (compatible_with); OpenAI never sends it, "
               "and an adapter for OpenAI alone leaves compatible_with empty, the default")
    note = f"this case plays the quirk {case.quirk!r}, {who}: it ran because {why}"
    failure.hint = f"{failure.hint} ({note})" if failure.hint else note


def run_case(case: Case, adapter: Any, profile: Profile, endpoint: Endpoint | None = None, *,
             interfaces: Sequence[Interface] | None = None, dialect: str | None = None,
             loop_model: str = "inprocess", transport: str = "inprocess",
             suite: str | None = None) -> list[Any]:
    """Run ``case`` through every interface its subject offers; returns the recordings.

    The subject is what the case's contract tests: a chat adapter (which needs the ``endpoint``
    it is wired to), a tool loop, or a history builder. Raises :class:`CaseSkipped`,
    :class:`ConformanceFailure` or a kit error; see module doc. A failure carries its clause's
    ``level`` as of suite version ``suite`` (``None``: the newest;
    :mod:`pytest_toolcall.cases.levels`), and a ``should`` failure is raised only when no
    ``must`` failure came in the same case.
    """
    try:
        return _run_case(case, adapter, profile, endpoint, interfaces=interfaces,
                         dialect=dialect, loop_model=loop_model, transport=transport)
    except ConformanceFailure as failure:
        failure.level = level_of(failure.clause, case.id, suite)
        raise


def _run_case(case: Case, adapter: Any, profile: Profile, endpoint: Endpoint | None, *,
              interfaces: Sequence[Interface] | None, dialect: str | None,
              loop_model: str, transport: str) -> list[Any]:
    if case.contract != "chat":
        _claims_gate(case, profile, adapter)
        name = dialect or (endpoint.provider if endpoint is not None else "openai")
        if case.contract == "loop":
            return run_loop(case, adapter, profile, dialect=name,  # type: ignore[arg-type]
                            model_mode=loop_model, transport=transport)  # type: ignore[arg-type]
        if case.contract == "fallback":
            return run_fallback(case, adapter, profile, dialect=name)
        return [run_history(case, adapter, profile)]
    if endpoint is None:
        raise UsageError(f"case {case.id} tests a chat adapter: pass the endpoint it is wired to")
    if interfaces is None:
        interfaces = check_adapter(adapter, profile)
    _claims_gate(case, profile, adapter)
    _quirk_gate(case, profile, endpoint.provider)
    if "stream" in case.required_capabilities():
        try:
            _check_stream_methods(case, adapter, interfaces)
        except ConformanceFailure as failure:  # name the case like every other failure does
            failure.case_id, failure.provider = case.id, endpoint.provider
            raise
    runs = []
    held = Held(case.id)  # a should failure of one interface must not hide a must of the next
    for interface in interfaces:
        run = CaseRun(case=case, dialect=endpoint.provider, profile=profile, interface=interface,
                      adapter=adapter, api_key=endpoint.api_key)
        try:
            _drive(run, endpoint)
            _verify(run)
        except ConformanceFailure as failure:
            failure.case_id, failure.provider = case.id, endpoint.provider
            failure.interface = interface
            _name_senders(failure, case, profile, endpoint.provider)
            failure.trace = failure.trace or ladder(run)
            held.hold(failure)
        runs.append(run)
    held.release()
    return runs


def _check_stream_methods(case: Case, adapter: Any, interfaces: Sequence[Interface]) -> None:
    for interface in interfaces:
        name = "stream" if interface == "sync" else "astream"
        if not callable(getattr(adapter, name, None)):
            raise ConformanceFailure(
                "profile.claims.stream",
                f"the profile claims streaming, but the adapter has no {name}() method for its "
                f"{interface} interface",
                expected=f"{type(adapter).__name__}.{name}(request) -> stream events",
                got="no such method",
                hint="implement it, or declare Profile(streaming=False) to skip streaming cases",
            )


def _drive(run: CaseRun, endpoint: Endpoint) -> None:
    boundaries_needed = any(s.reply.stream.chunking == "hypothesis" and s.via == "stream"
                            for s in run.case.steps)
    if not boundaries_needed:
        _drive_once(run, endpoint, None)
        return
    _drive_with_hypothesis(run, endpoint)


def _drive_once(run: CaseRun, endpoint: Endpoint, boundaries: Sequence[int] | None) -> None:
    fake = endpoint.fake
    fake.exchanges.clear()
    run.steps = []
    for index, step in enumerate(run.case.steps):
        record = StepRecord(index=index, step=step)
        run.steps.append(record)
        use = boundaries if step.reply.stream.chunking == "hypothesis" else None
        fake.expect(step.reply, step=index, boundaries=use)
        started = time.perf_counter()
        try:
            _call(run, record)
        finally:
            record.seconds = time.perf_counter() - started
            record.exchanges = [e for e in fake.exchanges if e.step == index]


#: examples -> the cut points hypothesis drew for a passing run, in order. The search is
#: derandomized (the seed is the digest of ``explore`` below, the same for every case; no
#: database), so every run with that many examples draws these same cut points: a later run
#: (the other interface, the next case or provider) replays them without hypothesis' engine,
#: and only a failure hands the search back to hypothesis, which draws them again and shrinks
#: the failing one (the history property does the same: ``looprun._DRAWN``)
_CUTS: dict[int, tuple[tuple[int, ...], ...]] = {}


def _drive_with_hypothesis(run: CaseRun, endpoint: Endpoint) -> None:
    examples = max(s.reply.stream.hypothesis_examples for s in run.case.steps)
    drawn = _CUTS.get(examples)
    if drawn:
        try:
            for boundaries in drawn:
                _drive_once(run, endpoint, boundaries)
                _verify(run)
            return
        except SubjectFault:  # the child process broke: no cut to search for
            raise
        except Exception:  # noqa: BLE001 - hypothesis searches again, shrinks and reports
            pass
    _search_cuts(run, endpoint, examples)


def _search_cuts(run: CaseRun, endpoint: Endpoint, examples: int) -> None:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st
    from hypothesis.errors import Flaky

    seen: list[tuple[int, ...]] = []
    #: the first failure, with the offsets its stream was really cut at
    first: list[tuple[ConformanceFailure, list[int]]] = []
    broke: list[SubjectFault] = []  # the child process broke: its fault is the verdict

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              phases=(Phase.explicit, Phase.generate, Phase.shrink),
              suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
    @given(st.lists(st.integers(min_value=1, max_value=4096), max_size=48))
    def explore(boundaries: list[int]) -> None:
        if broke:
            return  # no more runs: the search ends (as Flaky), and the fault is raised below
        seen.append(tuple(boundaries))
        try:
            _drive_once(run, endpoint, boundaries)
            _verify(run)
        except SubjectFault as fault:
            broke.append(fault)
            raise
        except ConformanceFailure as failure:
            if not first:
                first.append((failure, _cut_offsets(run)))
            raise

    _seed_once(explore)
    try:
        with hypothesis_home():
            explore()
        _CUTS[examples] = tuple(seen)
    except (ConformanceFailure, Flaky) as error:
        if broke:
            raise broke[0] from None
        if isinstance(error, ConformanceFailure):
            # the offsets where the failing stream was really cut (hypothesis may draw
            # offsets past its end, which cut nothing), after shrinking: usually one or two
            _note_cuts(error, _cut_offsets(run))
            raise
        if not first:
            raise
        # the failing cuts did not fail again when hypothesis replayed them: over a real
        # socket (an implementation behind --toolcall-command) TCP may merge the pieces the
        # fake sends, so a cut does not always reach the client. The verdict stands on the
        # first failure, under its own clause (issue 35: was a raw FlakyFailure)
        failure, cuts = first[0]
        _note_cuts(failure, cuts, "; they did not fail again when replayed: over a real "
                   "socket TCP may merge the pieces of a cut stream")
        raise failure from None


def _note_cuts(failure: ConformanceFailure, cuts: list[int], more: str = "") -> None:
    failure.message += f" (stream cut at byte offsets {cuts}{more})"
    failure.args = (f"[{failure.clause}] {failure.message}",)


#: code object of the test -> hypothesis's digest of it (see :func:`_seed_once`)
_DIGESTS: dict[Any, bytes] = {}


def _seed_once(wrapped: Any) -> None:
    """Give ``wrapped`` (a ``@given`` test) the seed and database key hypothesis derives from
    its source under ``derandomize=True``, worked out once per process instead of on every
    run: hypothesis reads the test's source (``inspect.getsource``, tokenizing) twice per run
    to hash it, and the hash of the same source is the same. The examples drawn are identical:
    ``Random(seed)`` is what ``derandomize`` builds from that hash."""
    from hypothesis import seed

    try:  # hypothesis' own internals (hypothesis>=6.100 has them); without them, it hashes
        from hypothesis.internal.compat import int_from_bytes
        from hypothesis.internal.reflection import function_digest
    except ImportError:  # pragma: no cover - a hypothesis that moved them
        return
    inner = getattr(getattr(wrapped, "hypothesis", None), "inner_test", None)
    if inner is None:  # pragma: no cover - a hypothesis without the handle: let it hash
        return
    digest = _DIGESTS.get(inner.__code__)
    if digest is None:
        digest = _DIGESTS[inner.__code__] = function_digest(inner)
    seed(int_from_bytes(digest))(wrapped)
    wrapped._hypothesis_internal_database_key = digest


def _cut_offsets(run: CaseRun) -> list[int]:
    offsets: list[int] = []
    for record in run.steps:
        if record.step.via != "stream" or record.step.reply.stream.chunking != "hypothesis":
            continue
        for exchange in record.exchanges:
            position = 0
            for piece in exchange.chunks[:-1]:
                position += len(piece)
                offsets.append(position)
    return offsets


def _with_ids_handed_back(run: CaseRun, request: Any) -> Any:
    """The step's history with each call id as the implementation handed it back in an
    earlier step, where it extended the provider's id (``model.extends_id``: litellm encodes
    Gemini's thought signature in the id and strips it on the way out): a library is given back
    what it returned, as its users' histories do, and what reaches the provider is judged on
    the wire (issue 14, defect 8). Every other history is sent as scripted."""
    handed: dict[str, str] = {}
    for record in run.steps[:-1]:
        if record.response is None:
            continue
        for want, got in zip(record.step.reply.tool_calls, record.response.tool_calls):
            if want.id and extends_id(got.id, want.id):
                handed[want.id] = got.id  # type: ignore[assignment]
    if not handed:
        return request
    messages = []
    for m in request.messages:
        if isinstance(m, AssistantMessage) and m.tool_calls:
            m = m.model_copy(update={"tool_calls": tuple(
                c.model_copy(update={"id": handed.get(c.id, c.id)}) for c in m.tool_calls)})
        elif isinstance(m, ToolMessage) and m.tool_call_id in handed:
            m = m.model_copy(update={"tool_call_id": handed[m.tool_call_id]})
        messages.append(m)
    return request.model_copy(update={"messages": tuple(messages)})


_ATOMIC = frozenset({str, int, float, bool, type(None), bytes})


def _copied(value: Any, memo: dict[int, Any]) -> Any:
    """``copy.deepcopy(value, memo)`` for what a canonical request holds (frozen models, JSON
    dicts and lists, tuples, scalars), without deepcopy's generic dispatch: the same result,
    shared objects shared once (``memo``), anything else handed to ``copy.deepcopy``."""
    kind = type(value)
    if kind in _ATOMIC:
        return value
    found = memo.get(id(value), memo)
    if found is not memo:
        return found
    if kind is dict:
        out: Any = {}
        memo[id(value)] = out
        for key, item in value.items():  # (atomic keys and items inline: most of them)
            out[key if type(key) in _ATOMIC else _copied(key, memo)] = (
                item if type(item) in _ATOMIC else _copied(item, memo))
        return out
    if kind is list:
        out = []
        memo[id(value)] = out
        out.extend([item if type(item) in _ATOMIC else _copied(item, memo) for item in value])
        return out
    if kind is tuple:
        items = [item if type(item) in _ATOMIC else _copied(item, memo) for item in value]
        # deepcopy keeps a tuple whose items all copy to themselves
        out = value if all(a is b for a, b in zip(items, value)) else tuple(items)
        memo[id(value)] = out
        return out
    if (isinstance(value, BaseModel) and kind.__deepcopy__ is BaseModel.__deepcopy__
            and getattr(value, "__pydantic_private__", None) is None
            and value.__pydantic_extra__ is None):
        # BaseModel.__deepcopy__, step for step
        model = kind.__new__(kind)
        object.__setattr__(model, "__dict__", _copied(value.__dict__, memo))
        object.__setattr__(model, "__pydantic_extra__", None)
        object.__setattr__(model, "__pydantic_fields_set__", set(value.__pydantic_fields_set__))
        object.__setattr__(model, "__pydantic_private__", None)
        memo[id(value)] = model
        return model
    return copy.deepcopy(value, memo)


def _handed_copy(request: Any, stream: bool) -> Any:
    """``request.model_copy(deep=True, update={"stream": stream})``: the copy an adapter is
    handed, and may edit in place without touching the case (deepcopy's dispatch was a sixth
    of a simple case's time)."""
    if not isinstance(request, BaseModel) or request.model_config.get("extra") == "allow":
        return request.model_copy(deep=True, update={"stream": stream})
    memo: dict[int, Any] = {}
    copied = _copied(request, memo)
    if copied is request:  # pragma: no cover - a model is always copied
        copied = request.model_copy()
    copied.__dict__.update({"stream": stream})
    copied.__pydantic_fields_set__.update(("stream",))
    return copied


def _call(run: CaseRun, record: StepRecord) -> None:
    adapter, step = run.adapter, record.step
    request = _with_ids_handed_back(run, _handed_copy(step.request, step.via == "stream"))
    record.handed = request
    if run.interface == "sync":
        method: Callable[[], Any]
        if step.via == "complete":
            def method() -> Any:
                return adapter.complete(request)
        else:
            def method() -> Any:
                return _listed(adapter.stream(request), step.take)
    else:
        if step.via == "complete":
            def method() -> Any:
                return run_async(_await(adapter.acomplete(request)))
        else:
            def method() -> Any:
                return run_async(_collect(adapter.astream(request), step.take))
    outcome = _with_timeout(method, run.profile.timeout)
    if isinstance(outcome, _Timeout):
        raise ConformanceFailure(
            "adapter.timeout",
            f"the adapter did not return within {run.profile.timeout:g}s "
            f"({'complete' if step.via == 'complete' else 'stream'}, {run.interface})"
            + outcome.note(),
            hint="a loop that never ends, or a read that waits for more data than was sent; "
                 "raise Profile(timeout=...) if the adapter is just slow",
        )
    if isinstance(outcome, _NotIterable):
        name = "stream" if run.interface == "sync" else "astream"
        raise ConformanceFailure(
            "stream.events.type", f"{name}() returned {type(outcome.value).__name__}, not an "
            f"{'' if run.interface == 'sync' else 'async '}iterable of stream events",
            expected="a generator (or list) of TextDelta, ToolCallDelta, ToolCallComplete and "
                     "StreamDone", got=f"{outcome.value!r:.200}",
            hint=f"yield the events from {name}() (a missing `yield` or `return` gives None)")
    if isinstance(outcome, _Raised):
        if isinstance(outcome.error, SubjectFault):  # a child process broke: its own clause
            raise outcome.error
        exited(outcome.error, "adapter", "the adapter")
        record.error = outcome.error
        return
    if step.via == "complete":
        record.response = _as_response(outcome, run)
    else:
        record.events = _as_events(outcome)
        record.response = assemble_stream(record.events)


async def _await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


async def _collect(stream: Any, take: int | None = None) -> Any:
    if inspect.isawaitable(stream):
        stream = await stream
    if take is not None and hasattr(stream, "__aiter__"):  # the caller stops, then closes
        events = []
        async for event in stream:
            events.append(event)
            if len(events) >= take:
                break
        if hasattr(stream, "aclose"):
            await stream.aclose()
        return events
    if hasattr(stream, "__aiter__"):
        return [event async for event in stream]
    return _listed(stream, take)


@dataclass
class _NotIterable:
    """stream()/astream() returned something that is no stream of events (None, a number)."""

    value: Any


def _listed(stream: Any, take: int | None = None) -> Any:
    if stream is None or isinstance(stream, (str, bytes)) or not hasattr(stream, "__iter__"):
        return _NotIterable(stream)
    return _take(stream, take)


def _take(stream: Any, take: int | None) -> list[Any]:
    """All events, or (``Step.take``) the first ``take`` and then the stream is closed."""
    if take is None:
        return list(stream)
    events = []
    for event in stream:
        events.append(event)
        if len(events) >= take:
            break
    close = getattr(stream, "close", None)
    if callable(close):
        close()
    return events


def _as_response(value: Any, run: CaseRun) -> ChatResponse:
    if isinstance(value, ChatResponse):
        return value
    try:
        if isinstance(value, dict):
            return ChatResponse.model_validate(value)
        if isinstance(value, BaseModel):
            return ChatResponse.model_validate(value.model_dump())
    except ValidationError as exc:
        raise ConformanceFailure(
            "adapter.result", "complete() returned something that is not a ChatResponse",
            expected="pytest_toolcall.ChatResponse", got=f"{value!r:.300} ({exc.error_count()} "
            "validation errors)", hint="convert your adapter's result with ChatResponse(...)",
        ) from None
    raise ConformanceFailure(
        "adapter.result", "complete() returned something that is not a ChatResponse",
        expected="pytest_toolcall.ChatResponse", got=f"{type(value).__name__}: {value!r:.300}",
        hint="return pytest_toolcall.ChatResponse(text=..., tool_calls=..., finish_reason=...)",
    )


def _as_events(values: list[Any]) -> list[Any]:
    events = []
    for position, value in enumerate(values):
        try:
            if isinstance(value, _EVENT_TYPES):
                events.append(value)
            else:  # a dict, or the adapter's own model with the same fields
                raw = value.model_dump() if isinstance(value, BaseModel) else value
                events.append(_EVENT.validate_python(raw))
        except ValidationError:
            raise ConformanceFailure(
                "stream.events.type", f"stream event #{position} is not a StreamEvent",
                expected="TextDelta, ToolCallDelta, ToolCallComplete, ReasoningComplete or "
                         "StreamDone",
                got=f"{type(value).__name__}: {value!r:.200}",
                hint="yield pytest_toolcall stream events from stream()/astream()",
            ) from None
    return events


def _verify(run: CaseRun) -> None:
    held = Held(run.case.id)
    for record in run.steps:
        try:
            checks.step_basics(run, record)
        except ConformanceFailure as failure:
            held.hold(failure)
        try:
            checks.request_breaches(run, record)
        except ConformanceFailure as failure:
            held.hold(failure)
    run_checks(run.case, run)
    # last: a bug that breaks the completed calls is named by the case's own clause first
    for record in run.steps:
        if (record.events is not None and record.step.expect == "response"
                and record.step.take is None):
            checks.deltas_match_calls(record)
    held.release()


def is_done_last(events: list[Any]) -> bool:
    dones = [i for i, e in enumerate(events) if isinstance(e, StreamDone)]
    return dones == [len(events) - 1]

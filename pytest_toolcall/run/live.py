"""The live subset: cases that run against a real provider (or a local Ollama / vLLM), recorded as
cassettes and replayed offline afterwards.

A live case is an ordinary :class:`~pytest_toolcall.cases.Case` with ``live=True``: its scripted
steps run against the fake provider like any case (and script :class:`StandInProvider`). Against
a real service the model's answer is not scripted, so :func:`run_live` builds each follow-up
request from the previous answer (the real call ids, names and arguments) and the oracle is the
provider *accepting* that follow-up request, plus what the provider guarantees (tool_choice
'required' gives a call, 'none' gives none).

No pytest here: the plugin side is ``cassettes_plugin.py``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_toolcall.cases import Case, ScriptedCall, Step, Turn, make_case
from pytest_toolcall.run.checks import matches_script
from pytest_toolcall.core.errors import ConformanceFailure, ToolcallError
from pytest_toolcall.core.redact import clip
from pytest_toolcall.providers.fake.provider import FakeProvider
from pytest_toolcall.core.model import (
    AssistantMessage,
    ChatRequest,
    ChatResponse,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolSpec,
    UserMessage,
)

__all__ = ["LIVE_CASES", "Access", "ServiceError", "StandInProvider", "access", "live_cases",
           "run_live", "service_error"]


@dataclass(frozen=True)
class Access:
    """How to reach one provider for real: its default base URL and the key variables."""

    base_url: str | None
    key_vars: tuple[str, ...]
    key_required: bool = True


#: provider -> how to reach it; a provider missing here needs --toolcall-base-url
ACCESS: dict[str, Access] = {
    "openai": Access("https://api.openai.com/v1", ("OPENAI_API_KEY",)),
    "openai-responses": Access("https://api.openai.com/v1", ("OPENAI_API_KEY",)),
    "anthropic": Access("https://api.anthropic.com/v1", ("ANTHROPIC_API_KEY",)),
    "gemini": Access("https://generativelanguage.googleapis.com/v1beta",
                     ("GEMINI_API_KEY", "GOOGLE_API_KEY")),
    "ollama": Access(None, ("OLLAMA_API_KEY",), key_required=False),
}
#: the key sent when a local server needs none, and in replay (its presence is checked)
PLACEHOLDER_KEY = "toolcall-placeholder-key"


def access(provider: str, environ: Mapping[str, str], base_urls: Mapping[str, str]
           ) -> tuple[str, str] | str:
    """``(base_url, key)`` to reach ``provider`` for real, or the reason it cannot be reached
    (naming the variable or option to set)."""
    info = ACCESS.get(provider, Access(None, ()))
    key = next((environ[v] for v in info.key_vars if environ.get(v)), None)
    url = base_urls.get(provider)
    if url is not None:
        return url.rstrip("/"), key or PLACEHOLDER_KEY
    if info.base_url is None:
        return (f"{provider} has no public endpoint: point it at your server with "
                f"--toolcall-base-url={provider}=URL (e.g. http://localhost:11434 for Ollama)")
    if key is None and info.key_required:
        names = " or ".join(info.key_vars)
        return (f"no key for {provider}: set {names} to run the live case against "
                f"{info.base_url}, or --toolcall-base-url={provider}=URL for a local server")
    return info.base_url, key or PLACEHOLDER_KEY


# -- the cases ----------------------------------------------------------------------------------
WEATHER = ToolSpec(
    name="get_weather", description="Get the current weather for one city.",
    parameters={"type": "object", "properties": {"city": {"type": "string",
                                                          "description": "The city name"}},
                "required": ["city"]})
TIME = ToolSpec(name="get_time", description="Get the current UTC time. Takes no arguments.")
NOTE = ToolSpec(
    name="save_note", description="Save a note exactly as given, character for character.",
    parameters={"type": "object", "properties": {"text": {"type": "string"}},
                "required": ["text"]})
NON_ASCII = "Grüße aus Zürich — 東京 🌸"
_SYSTEM = SystemMessage(content="You are a test harness. Follow the instructions exactly. When "
                                "asked to use a tool, call it instead of answering in text.")
_RESULTS = {"get_weather": '{"temperature_c": 18, "sky": "sunny"}',
            "get_time": '{"utc": "2025-01-01T12:00:00Z"}', "save_note": '{"saved": true}'}


def _calls(*calls: tuple[str, dict[str, Any]]) -> tuple[ScriptedCall, ...]:
    return tuple(ScriptedCall(name=n, arguments=a, id=f"call_{i + 1}")
                 for i, (n, a) in enumerate(calls))


def _follow_up(first: ChatRequest, calls: tuple[ScriptedCall, ...]) -> ChatRequest:
    """The second-turn request: the model's calls and one result per call."""
    made = tuple(ToolCall(id=c.id, name=c.name, arguments=c.arguments)  # type: ignore[arg-type]
                 for c in calls)
    results = tuple(ToolMessage(tool_call_id=c.id, name=c.name, content=_RESULTS[c.name])
                    for c in calls)
    return first.model_copy(update={
        "messages": (*first.messages, AssistantMessage(tool_calls=made), *results),
        "tool_choice": "auto" if first.tool_choice == "required" else first.tool_choice})


def _round_trip(case_id: str, title: str, prompt: str, tools: tuple[ToolSpec, ...],
                calls: tuple[ScriptedCall, ...], *, tool_choice: Any = None,
                via: str = "complete", needs: frozenset[str] = frozenset()) -> Case:
    first = ChatRequest(messages=(_SYSTEM, UserMessage(content=prompt)), tools=tools,
                        tool_choice=tool_choice)
    return make_case(
        id=case_id, title=title, live=True, needs=needs,
        why="Live: a real provider must accept the adapter's follow-up request (call ids, "
            "arguments and results echoed the way it wants them); fakes can be wrong about that.",
        steps=(Step(request=first, reply=Turn(tool_calls=calls), via=via),
               Step(request=_follow_up(first, calls), reply=Turn(text="Done."), via=via)),
        checks=(matches_script,))


LIVE_CASES: tuple[Case, ...] = (
    _round_trip("live.round_trip", "a tool call and its result, accepted by the provider",
                "What is the weather in Paris right now? Call get_weather with city Paris.",
                (WEATHER,), _calls(("get_weather", {"city": "Paris"}))),
    _round_trip("live.stream_round_trip", "the round trip, streamed",
                "What is the weather in Paris right now? Call get_weather with city Paris.",
                (WEATHER,), _calls(("get_weather", {"city": "Paris"})), via="stream"),
    _round_trip("live.parallel_calls", "two calls in one turn, both results sent back",
                "Get the weather for Paris and for Tokyo. Call get_weather twice in this one "
                "turn, once per city, in parallel, before answering.",
                (WEATHER,), _calls(("get_weather", {"city": "Paris"}),
                                   ("get_weather", {"city": "Tokyo"}))),
    _round_trip("live.tool_choice_required", "tool_choice 'required' forces a call",
                "Say hello.", (WEATHER, TIME), _calls(("get_time", {})),
                tool_choice="required", needs=frozenset({"tool_choice.required"})),
    _round_trip("live.zero_args", "a tool without arguments",
                "What time is it? Call get_time (it takes no arguments).", (TIME,),
                _calls(("get_time", {}))),
    _round_trip("live.non_ascii_args", "non-ASCII arguments survive both ways",
                f"Call save_note with text exactly: {NON_ASCII}", (NOTE,),
                _calls(("save_note", {"text": NON_ASCII}))),
    make_case(
        id="live.tool_choice_none", title="tool_choice 'none' forbids calls", live=True,
        why="Live: with tool_choice 'none' the provider answers in text; an adapter that drops "
            "the setting gets a call back.", needs=frozenset({"tool_choice.none"}),
        steps=(Step(request=ChatRequest(
            messages=(_SYSTEM, UserMessage(content="What is the weather in Paris? Answer in one "
                                                   "short sentence.")),
            tools=(WEATHER,), tool_choice="none"), reply=Turn(text="I cannot check now.")),),
        checks=(matches_script,)),
)

#: what each live case demands of the *real* first answer (beyond the provider accepting)
_MIN_CALLS = {"live.round_trip": 1, "live.stream_round_trip": 1, "live.parallel_calls": 2,
              "live.tool_choice_required": 1, "live.zero_args": 1, "live.non_ascii_args": 1}


def live_cases() -> list[Case]:
    """The live cases, each knowing the suite version that added it (``Case.since``)."""
    from pytest_toolcall.cases.versions import added_in

    return [c.model_copy(update={"since": added_in(c.id)}) for c in LIVE_CASES]


# -- running against a real service -------------------------------------------------------------
class LiveSkip(Exception):
    """The live run could not exercise the clause (the model chose otherwise); not a pass."""


def real_follow_up(template: ChatRequest, response: ChatResponse) -> ChatRequest:
    """The scripted follow-up rewritten with the calls the real model made."""
    base = [m for m in template.messages if not isinstance(m, (AssistantMessage, ToolMessage))]
    results = [ToolMessage(tool_call_id=c.id, name=c.name,
                           content=_RESULTS.get(c.name, '{"ok": true}'))
               for c in response.tool_calls]
    return template.model_copy(update={
        "messages": (*base, AssistantMessage(content=response.text,
                                             tool_calls=response.tool_calls), *results)})


def _first_answer(case: Case, response: ChatResponse) -> None:
    calls = response.tool_calls
    if case.id == "live.tool_choice_none":
        if calls:
            raise ConformanceFailure(
                "live.tool_choice.none", "the provider made a tool call although the adapter "
                "was asked for tool_choice 'none'", expected="no tool calls",
                got=", ".join(c.name for c in calls),
                hint="the adapter did not send tool_choice (providers default to 'auto')")
        return
    wanted = _MIN_CALLS.get(case.id, 0)
    for call in calls:
        if call.parse_error:
            raise ConformanceFailure("live.arguments", f"the adapter could not parse the "
                                     f"arguments of {call.name}: {call.parse_error}",
                                     expected="a JSON object", got=repr(call.raw_arguments))
    if case.id == "live.non_ascii_args" and calls:
        text = str((calls[0].arguments or {}).get("text", ""))
        if "Zürich" not in text and "東京" not in text:
            raise ConformanceFailure(
                "live.non_ascii", "the non-ASCII argument came back mangled",
                expected=f"text containing 'Zürich' or '東京' ({NON_ASCII!r})", got=repr(text),
                hint="decode the body as UTF-8 and do not re-escape the arguments")
    if len(calls) >= wanted:
        return
    if _tool_choice_required(case) or not calls:
        raise ConformanceFailure(
            "live.tool_called", f"the model's answer carries {len(calls)} tool call(s)",
            expected=f"at least {wanted} (the prompt asks for it"
                     f"{'; tool_choice=required guarantees it' if _tool_choice_required(case) else ''})",
            got=clip(repr(response.text), 200) if response.text else "no text either",
            hint="the adapter may drop tool calls from the answer, or not send the tools")
    raise LiveSkip(f"the model made {len(calls)} call(s) where {case.id} needs {wanted}; the "
                   "clause was not exercised (re-record, or use a model that calls in parallel)")


def _tool_choice_required(case: Case) -> bool:
    return bool(case.steps) and case.steps[0].request.tool_choice == "required"



class ServiceError(ToolcallError):
    """The kit could not reach the real service, or the service refused to serve at all (bad
    key, rate limit, outage): the run could not happen, which is not a verdict on the adapter."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


#: class names, in other HTTP libraries and SDKs, of "the connection could not be made"
_UNREACHABLE_NAMES = frozenset({
    "APIConnectionError", "APITimeoutError",  # openai, anthropic
    "ClientConnectorError", "ServerDisconnectedError", "ServerTimeoutError",  # aiohttp
    "NameResolutionError", "NewConnectionError", "ConnectTimeoutError",  # urllib3
    "ConnectTimeout", "ReadTimeout",  # requests
})
#: HTTP statuses that say the service will not serve this client now (not a rejected request)
_REFUSALS = {401: "refused the credentials", 403: "refused the credentials",
             429: "is rate-limiting this key"}


def _status(error: BaseException) -> int | None:
    for name in ("status", "status_code", "code"):
        value = getattr(error, name, None)
        if isinstance(value, int) and not isinstance(value, bool) and 100 <= value < 600:
            return value
    response = getattr(error, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) and 100 <= value < 600 else None


def _unreachable(error: BaseException) -> bool:
    import socket

    import httpx

    if isinstance(error, (httpx.NetworkError, httpx.TimeoutException, httpx.ProxyError,
                          ConnectionError, socket.gaierror, TimeoutError)):
        return True
    return any(kind.__name__ in _UNREACHABLE_NAMES for kind in type(error).__mro__)


def service_error(error: BaseException) -> ServiceError | None:
    """The :class:`ServiceError` that ``error`` (or an error in its chain) amounts to, or
    ``None`` when the service answered and the answer is the adapter's business."""
    chain = _errors(error)
    for item in chain:
        if _unreachable(item):
            return ServiceError(
                f"the kit could not reach the service: {type(item).__name__}: "
                f"{str(item).rstrip('.')}. This is "
                "not a verdict on your implementation: check the network, the base URL "
                "(--toolcall-base-url) and any proxy, then run again")
    for item in chain:
        status = _status(item)
        if status is not None and (status in _REFUSALS or status >= 500):
            what = _REFUSALS.get(status, "is failing (a server error)")
            fix = ("check the key variable (or --toolcall-base-url for a local server)"
                   if status in (401, 403) else "wait and run again")
            return ServiceError(
                f"the service {what} (HTTP {status}): {str(item).rstrip('.')}. This is not a "
                f"verdict on your "
                f"implementation: {fix}", status=status)
    return None


def _errors(error: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def run_live(case: Case, adapter: Any, profile: Any, interfaces: Sequence[str], *,
             model: str | None = None,
             on_error: Callable[[BaseException], BaseException | None] | None = None
             ) -> list[Any]:
    """Run a live case against whatever the adapter is wired to (real service or replay).

    Raises :class:`ConformanceFailure` when the provider rejects a request or the answer breaks
    a guarantee, :class:`LiveSkip` when the model chose not to exercise the clause,
    :class:`ServiceError` when the service could not be reached or refused to serve (a network
    error, 401, 403, 429, 5xx: the kit could not run, no verdict), and any cassette error found
    in the adapter's error chain (``on_error`` may translate others).
    """
    from pytest_toolcall.run.runner import CaseRun, StepRecord, _call

    # real models take seconds, not the fake's milliseconds
    profile = profile.model_copy(update={"timeout": max(profile.timeout, 120.0)})
    runs = []
    for interface in interfaces:
        run = CaseRun(case=case, dialect="live", profile=profile, interface=interface,  # type: ignore[arg-type]
                      adapter=adapter)
        previous: ChatResponse | None = None
        for index, step in enumerate(case.steps):
            request = step.request if previous is None else real_follow_up(step.request, previous)
            if model:
                request = request.model_copy(update={"model": model})
            record = StepRecord(index=index, step=step.model_copy(update={"request": request}))
            run.steps.append(record)
            _call(run, record)
            if record.error is not None:
                for item in _errors(record.error):
                    if isinstance(item, ToolcallError):
                        raise item
                    translated = on_error(item) if on_error else None
                    if translated is not None:
                        raise translated from None
                unavailable = service_error(record.error)
                if unavailable is not None:
                    raise unavailable from record.error
                what = "the second-turn request (tool results)" if index else "the request"
                raise ConformanceFailure(
                    "live.accepted", f"step {index + 1}: the adapter raised on {what}: "
                    f"{type(record.error).__name__}: {record.error}",
                    expected="the provider accepts the request and the adapter parses the answer",
                    got=f"{type(record.error).__name__}",
                    hint="a rejected follow-up usually means call ids, arguments or tool results "
                         "are echoed in a shape the provider does not accept")
            previous = record.response
            if index == 0 and previous is not None:
                _first_answer(case, previous)
                if not previous.tool_calls and len(case.steps) > 1:
                    break
        runs.append(run)
    return runs


# -- a stand-in for the real provider, for rehearsals and the kit's own tests -------------------
class StandInProvider(FakeProvider):
    """A fake provider that answers live cases by their prompt and turn: serve it on loopback
    and point ``--toolcall-base-url`` at it to rehearse a live run (record, then replay).

    It accepts the key the kit sends to a base URL when no key variable is set
    (:data:`PLACEHOLDER_KEY`); pass ``api_key=`` to demand another one."""

    def __init__(self, dialect: str, cases: Sequence[Case] = LIVE_CASES, *,
                 api_key: str = PLACEHOLDER_KEY) -> None:
        super().__init__(dialect, api_key=api_key)
        self._script: dict[str, list[Turn]] = {}
        for case in cases:
            prompt = _prompt(case.steps[0].request)
            self._script[prompt] = [s.reply for s in case.steps]
        self._serial = threading.Lock()

    def respond(self, method: str, raw_path: str, headers: Any,
                body: bytes) -> tuple[int, dict[str, str], list[bytes]]:
        with self._serial:  # the turn chosen and the answer given as one
            turn = None
            try:
                request = self.dialect.decode_request(json.loads(body))
                turns = self._script.get(_prompt(request))
                answered = sum(isinstance(m, AssistantMessage) for m in request.messages)
                if turns:
                    turn = turns[min(answered, len(turns) - 1)]
            except Exception:  # noqa: BLE001 - the fake's own validation answers bad requests
                turn = None
            self._current = turn
            return super().respond(method, raw_path, headers, body)


def _prompt(request: ChatRequest) -> str:
    return next((str(m.content) for m in request.messages if isinstance(m, UserMessage)), "")

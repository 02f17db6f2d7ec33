"""The loop and history cases over several turns (issue 29, families 1 and 3): reasoning
replayed through the loop, the system prompt on every model call, the reasoning of a resumed
turn in the history builder.

``tests/test_loop_negative_controls.py`` runs their controls (``tests/loop_turns_controls.py``)
with the other loop controls: on openai in both model modes, on the four other wires behind the
fake. Here: every control in-process on every wire its case runs on, DeepSeek (a service, not
one of those wires) in both modes; the reference and a loop of another shape pass every case
everywhere; the agent frameworks' own loops pass them too, each behind its own client.
"""

from __future__ import annotations

import warnings
from collections.abc import Generator
from typing import Any

import loop_turns_controls as t  # tests/loop_turns_controls.py (tests/ is on sys.path)
import pytest
import pytest_toolcall.conformance.loop as loop_cases
from pytest_toolcall.conformance import history_turns
from pytest_toolcall.conformance.loop import turns

from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.core.loop import LoopRequest, LoopResult, ToolError
from pytest_toolcall.core.model import AssistantMessage, ChatRequest, ChatResponse, ToolMessage
from pytest_toolcall.reference.history import ReferenceHistoryBuilder
from pytest_toolcall.reference.loop import ReferenceToolLoop
from pytest_toolcall.run.runner import run_case

LOOP = {case.id: case for case in loop_cases.CASES}
TURNS = [case.id for case in turns.CASES]
#: the five wires and a service with a reasoning rule of its own; gemini's service (vertex) and
#: an openai-wire service without one (mistral) for the system prompt
DIALECTS = ("openai", "openai-responses", "anthropic", "gemini", "ollama", "deepseek")
EVERYWHERE = (*DIALECTS, "vertex", "mistral")
MODES = ("inprocess", "fake")


def _where(case_id: str, dialects: tuple[str, ...] = DIALECTS) -> list[str]:
    return [d for d in dialects if LOOP[case_id].applies_to(d)]


def test_the_cases_are_registered_with_the_loop_and_history_families() -> None:
    assert set(TURNS) <= set(LOOP)
    from pytest_toolcall import conformance

    ids = {case.id for case in conformance.builtin_cases()}
    assert {case.id for case in history_turns.CASES} <= ids
    # each reasoning case runs where its provider's rule is, the system prompt everywhere
    assert {i: LOOP[i].dialects for i in TURNS if i.endswith("_replayed")} == {
        f"loop.{name}_replayed": (dialect,) for name, dialect in (
            ("anthropic_thinking", "anthropic"), ("responses_reasoning", "openai-responses"),
            ("deepseek_reasoning", "deepseek"))} | {
        "loop.gemini_thought_signature_replayed": ("gemini", "vertex")}
    assert LOOP["loop.system_prompt_every_turn"].dialects == ("*",)


# -- negative controls ---------------------------------------------------------------------------
def _expected(case_id: str, control: type, clause: str, dialect: str, mode: str) -> str:
    if mode == "fake":
        return t.FAKE_CLAUSES.get((case_id, control.__name__, dialect), clause)
    return clause


CONTROL_RUNS = [
    pytest.param(case_id, control, clause, fields, dialect, mode,
                 id=f"{case_id}-{control.__name__}-{dialect}-{mode}")
    for case_id, control, clause, fields in t.LOOP_TURNS_CONTROLS
    for dialect in _where(case_id) for mode in MODES
    # the other wires behind the fake, and openai in both modes, run in
    # test_loop_negative_controls.py
    if (mode == "inprocess" and dialect != "openai") or dialect == "deepseek"
    if (case_id, control.__name__, dialect, mode) not in t.EXCLUDED]


@pytest.mark.parametrize(("case_id", "control", "clause", "fields", "dialect", "mode"),
                         CONTROL_RUNS)
@pytest.mark.parametrize("interface", ["sync", "async"])
def test_each_control_fails_its_case(case_id: str, control: type[ReferenceToolLoop],
                                     clause: str, fields: dict[str, Any], dialect: str,
                                     mode: str, interface: str) -> None:
    only = {"async_": False} if interface == "sync" else {"sync": False}
    profile = Profile(**fields, **only)
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP[case_id], control.from_profile(profile), profile, dialect=dialect,
                 loop_model=mode)
    assert exc.value.clause == _expected(case_id, control, clause, dialect, mode), \
        exc.value.render()
    assert (exc.value.case_id, exc.value.interface, exc.value.provider) == (
        case_id, interface, dialect)


@pytest.mark.parametrize("key", sorted(t.EXCLUDED), ids="-".join)
def test_excluded_pairs_fail_in_process(key: tuple[str, str, str, str]) -> None:
    """Where the wire itself puts the system prompt (or the reference adapter the Gemini
    signature) back in its place, the loop's request in-process still shows the breach."""
    case_id, name, dialect, _ = key
    control = getattr(t, name)
    with pytest.raises(ConformanceFailure) as exc:
        run_case(LOOP[case_id], control.from_profile(Profile()), Profile(), dialect=dialect)
    assert exc.value.clause == next(r[2] for r in t.LOOP_TURNS_CONTROLS
                                    if r[0] == case_id and r[1].__name__ == name)


def test_every_control_cites_a_census_report_of_its_class() -> None:
    from pytest_toolcall.cases import bugs, census

    reports = census.load()
    classes = {"loop.system_prompt": "system_prompt"}
    rows = [(r[0], r[1], r[2]) for r in t.LOOP_TURNS_CONTROLS] + list(t.HISTORY_TURNS_CONTROLS)
    for case_id, control, clause in rows:
        klass = classes.get(clause, "reasoning_replay")
        if control is t.HistoryDropsSystem:
            klass = "system_prompt"
        refs = bugs.parse_refs(control.__doc__ or "")
        cited = [r for r in reports if r.klass == klass
                 and any(r.cited_by(ref.project, ref.number) for ref in refs)]
        assert cited, f"{control.__name__} cites no {klass} report of the census"


# -- positive controls ----------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case_id", TURNS)
def test_the_reference_loop_passes_everywhere(case_id: str, mode: str) -> None:
    profile = Profile()
    for dialect in _where(case_id, EVERYWHERE):
        runs = run_case(LOOP[case_id], ReferenceToolLoop.from_profile(profile), profile,
                        dialect=dialect, loop_model=mode)
        assert [run.interface for run in runs] == ["sync", "async"]


def test_the_reasoning_checks_read_real_reasoning() -> None:
    """Not vacuous: behind the fake, the requests the checks read carry the blocks the model
    sent (the fake decodes them from each wire)."""
    for case_id in [i for i in TURNS if i.endswith("_replayed")]:
        dialect = LOOP[case_id].dialects[0]
        for mode in MODES:
            run = run_case(LOOP[case_id], ReferenceToolLoop(), Profile(), dialect=dialect,
                           loop_model=mode)[0]
            last = [m for m in run.requests[-1].messages if isinstance(m, AssistantMessage)]
            assert [len(m.reasoning) for m in last] == [
                len(turn.reasoning) for turn in run.script.turns[:2]], (case_id, mode)


class EventLogLoop:
    """A correct loop of another shape than the reference: it keeps no running message list
    (each model call rebuilds the conversation from the request and a log of rounds), runs the
    calls of a turn one after the other, and drives both interfaces from one generator that
    yields what it needs done (a model call or a tool call)."""

    def __init__(self, max_rounds: int = 5) -> None:
        self.max_rounds = max_rounds

    def _steps(self, request: LoopRequest) -> Generator[Any, Any, LoopResult]:
        log: list[tuple[ChatResponse, list[ToolMessage]]] = []
        while True:
            messages = list(request.messages)
            for said, answers in log:
                messages.append(said.to_message())  # text, calls and reasoning, as said
                messages += answers
            try:
                said = yield ChatRequest(messages=tuple(messages), tools=tuple(request.tools))
            except Exception:  # noqa: BLE001 - any failed model call ends the run
                return LoopResult(stop_reason="error", text="the model call failed")
            if not said.tool_calls:
                return LoopResult(stop_reason="completed", text=said.text,
                                  messages=(*messages, said.to_message()))
            if len(log) >= self.max_rounds:  # the calls of this turn are not run
                return LoopResult(stop_reason="max_iterations", text=said.text,
                                  messages=tuple(messages))
            answers = []
            for call in said.tool_calls:
                try:
                    text, failed = (yield call), False
                except ToolError as exc:
                    text, failed = f"Error: {exc.message}", True
                except Exception:  # noqa: BLE001 - a crash: said, never shown
                    text, failed = f"Error: {call.name} failed.", True
                answers.append(ToolMessage(tool_call_id=call.id, name=call.name,
                                           content=str(text), is_error=failed))
            log.append((said, answers))

    @staticmethod
    def _hand_back(steps: Generator[Any, Any, LoopResult], value: Any,
                   error: BaseException | None) -> tuple[bool, Any]:
        """Give the loop what it asked for (or the exception): ``(done, its next need or its
        result)``."""
        try:
            return False, steps.throw(error) if error is not None else steps.send(value)
        except StopIteration as stop:
            return True, stop.value

    def run(self, request: LoopRequest) -> LoopResult:
        steps = self._steps(request)
        done, want = False, next(steps)
        while not done:
            value, error = None, None
            try:
                value = (request.model.complete(want) if isinstance(want, ChatRequest) else
                         request.executor.run(want.name, want.arguments, call_id=want.id))
            except Exception as exc:  # noqa: BLE001 - the loop's own logic decides
                error = exc
            done, want = self._hand_back(steps, value, error)
        return want

    async def arun(self, request: LoopRequest) -> LoopResult:
        steps = self._steps(request)
        done, want = False, next(steps)
        while not done:
            value, error = None, None
            try:
                value = await (request.model.acomplete(want) if isinstance(want, ChatRequest)
                               else request.executor.arun(want.name, want.arguments,
                                                          call_id=want.id))
            except Exception as exc:  # noqa: BLE001 - the loop's own logic decides
                error = exc
            done, want = self._hand_back(steps, value, error)
        return want


#: what the event-log loop declares: calls one by one, every round counts toward the cap, no
#: failure-round cap, no events
EVENT_LOG_PROFILE = Profile(parallel_dispatch=False, max_failure_rounds=None, loop_events=False,
                            iteration_counts="rounds",
                            argument_validation="none", tool_timeout=None)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case_id", TURNS)
def test_a_loop_of_another_shape_passes_everywhere(case_id: str, mode: str) -> None:
    for dialect in _where(case_id, EVERYWHERE):
        runs = run_case(LOOP[case_id], EventLogLoop(), EVENT_LOG_PROFILE, dialect=dialect,
                        loop_model=mode)
        assert [run.interface for run in runs] == ["sync", "async"]


def test_the_history_case_takes_the_reference_and_a_builder_that_drops_old_reasoning() -> None:
    """What the history case asks is what providers need: the reasoning of the turn in
    progress. A builder that drops the reasoning of finished turns (as Anthropic's API itself
    does) passes; one that drops it from the turn in progress fails."""
    [case] = history_turns.CASES

    class DropsFinishedTurnsReasoning(ReferenceHistoryBuilder):
        def build(self, stored: Any) -> list[Any]:
            built = super().build(stored)
            last_user = max(n for n, m in enumerate(built) if m.role == "user")
            return [m.model_copy(update={"reasoning": ()})
                    if n < last_user and isinstance(m, AssistantMessage) else m
                    for n, m in enumerate(built)]

    for builder in (ReferenceHistoryBuilder(), DropsFinishedTurnsReasoning()):
        [run] = run_case(case, builder, Profile())
        assert run.built is not None and run.built[0].role == "system"
    with pytest.raises(ConformanceFailure) as exc:
        run_case(case, t.HistoryDropsReasoning(), Profile())
    assert exc.value.clause == "history.reasoning_kept"


# -- the agent frameworks' own loops, each behind its own client ----------------------------------
def _langchain_anthropic(endpoint: Any) -> Any:
    from langchain_anthropic import ChatAnthropic

    return ChatAnthropic(model="claude-opus-4-8", base_url=endpoint.base_url,
                         api_key=endpoint.api_key, max_retries=0)


def _langchain_responses(endpoint: Any) -> Any:
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model="gpt-5", base_url=endpoint.base_url, api_key=endpoint.api_key,
                      http_client=endpoint.client, http_async_client=endpoint.async_client,
                      use_responses_api=True)


def _pydantic_ai_anthropic(endpoint: Any) -> Any:
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    return AnthropicModel("claude-opus-4-8", provider=AnthropicProvider(
        base_url=endpoint.base_url, api_key=endpoint.api_key))


def _pydantic_ai_deepseek(endpoint: Any) -> Any:
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.profiles.deepseek import deepseek_model_profile
    from pydantic_ai.providers.openai import OpenAIProvider

    with warnings.catch_warnings():  # httpx.AsyncClient: deprecated for v3, works in v2
        warnings.simplefilter("ignore")
        provider = OpenAIProvider(base_url=endpoint.base_url, api_key=endpoint.api_key,
                                  http_client=endpoint.async_client)
    return OpenAIChatModel("deepseek-reasoner", provider=provider,
                           profile=deepseek_model_profile("deepseek-reasoner"))


#: a model that checks thought signatures (Gemini 3): the fake refuses an unsigned replay
GEMINI_3 = "gemini-3-pro-preview"


def _pydantic_ai_gemini(endpoint: Any) -> Any:
    from google.genai import Client
    from google.genai.types import HttpOptions
    from pydantic_ai.models.google import GoogleModel
    from pydantic_ai.providers.google import GoogleProvider

    client = Client(api_key=endpoint.api_key, http_options=HttpOptions(
        base_url=endpoint.base_url.removesuffix("/v1beta"), api_version="v1beta"))
    return GoogleModel(GEMINI_3, provider=GoogleProvider(client=client))


def _langchain_gemini(endpoint: Any) -> Any:
    from langchain_google_genai import ChatGoogleGenerativeAI

    return ChatGoogleGenerativeAI(model=GEMINI_3, api_key=endpoint.api_key,
                                  base_url=endpoint.base_url.removesuffix("/v1beta"),
                                  max_retries=0)


def _agents_responses(endpoint: Any) -> Any:
    import openai
    from agents import OpenAIResponsesModel

    return OpenAIResponsesModel("gpt-5", openai_client=openai.AsyncOpenAI(
        base_url=endpoint.base_url, api_key=endpoint.api_key,
        http_client=endpoint.async_client))


#: (framework shim, its model factory, the modules it needs, case, provider, transport)
FRAMEWORK_RUNS = [
    ("langgraph_react", _langchain_anthropic, "langgraph.prebuilt langchain_anthropic",
     "loop.anthropic_thinking_replayed", "anthropic", "loopback"),
    ("langgraph_react", _langchain_anthropic, "langgraph.prebuilt langchain_anthropic",
     "loop.system_prompt_every_turn", "anthropic", "loopback"),
    ("langgraph_react", _langchain_responses, "langgraph.prebuilt langchain_openai",
     "loop.responses_reasoning_replayed", "openai-responses", "inprocess"),
    ("pydantic_ai_agent", _pydantic_ai_anthropic, "pydantic_ai anthropic",
     "loop.anthropic_thinking_replayed", "anthropic", "loopback"),
    ("pydantic_ai_agent", _pydantic_ai_deepseek, "pydantic_ai openai",
     "loop.deepseek_reasoning_replayed", "deepseek", "inprocess"),
    ("openai_agents", _agents_responses, "agents openai",
     "loop.responses_reasoning_replayed", "openai-responses", "inprocess"),
    ("pydantic_ai_agent", _pydantic_ai_gemini, "pydantic_ai google.genai",
     "loop.gemini_thought_signature_replayed", "gemini", "loopback"),
    ("langgraph_react", _langchain_gemini, "langgraph.prebuilt langchain_google_genai",
     "loop.gemini_thought_signature_replayed", "gemini", "loopback"),
    ("openai_agents", _agents_responses, "agents openai",
     "loop.system_prompt_every_turn", "openai-responses", "inprocess"),
]


@pytest.mark.parametrize(("shim", "model", "modules", "case_id", "provider", "transport"),
                         FRAMEWORK_RUNS, ids=[f"{r[0]}-{r[3]}-{r[4]}" for r in FRAMEWORK_RUNS])
def test_the_frameworks_own_loops_pass_behind_their_own_clients(
        shim: str, model: Any, modules: str, case_id: str, provider: str,
        transport: str) -> None:
    """A correct loop written another way: each framework keeps the reasoning and the system
    prompt through its own message types (langchain's AIMessage content blocks, pydantic-ai's
    ThinkingPart, the Agents SDK's reasoning items), through its own provider client.
    (docs/frameworks.md runs every loop case on the openai wire, where no reasoning travels.)"""
    for module in modules.split():
        pytest.importorskip(module, reason="needs the framework (dev extra)")
    from pytest_toolcall import shims

    loop = getattr(shims, shim)(model=model)
    run_case(LOOP[case_id], loop, loop.profile, dialect=provider, loop_model="fake",
             transport=transport)

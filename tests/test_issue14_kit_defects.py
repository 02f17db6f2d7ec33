"""Issue 14: kit defects found by running real client libraries. Each fix has a positive control
(a legitimate variant the kit wrongly failed, now passing) and a negative control (the broken
behaviour the check exists for, still failing on the same clause)."""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from pytest_toolcall.cases import Registry, default_registry
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.providers.fake.provider import Endpoint
from pytest_toolcall.core.model import ToolCall, ToolMessage, ToolSpec
from pytest_toolcall.reference import reference_profile
from pytest_toolcall.providers.gemini.reference import GeminiAdapter
from pytest_toolcall.run.runner import run_case

REGISTRY = Registry()
REGISTRY.extend(case for case in default_registry() if case.contract == "chat")


def _endpoint(dialect: str) -> Iterator[Endpoint]:
    ep = in_process_endpoint(FakeProvider(dialect))
    yield ep
    ep.close()


@pytest.fixture
def gemini() -> Iterator[Endpoint]:
    yield from _endpoint("gemini")


def _run(case_id: str, adapter_cls: Any, dialect: str, ep: Endpoint) -> None:
    run_case(REGISTRY[case_id], adapter_cls.from_endpoint(ep), reference_profile(dialect), ep)


def _fails(case_id: str, adapter_cls: Any, dialect: str, ep: Endpoint) -> ConformanceFailure:
    with pytest.raises(ConformanceFailure) as exc:
        _run(case_id, adapter_cls, dialect, ep)
    return exc.value


# -- (1) Gemini functionResponse.response is any object ---------------------------------------

def _results_under(key: str, value: Any = None) -> type[GeminiAdapter]:
    class Wrapped(GeminiAdapter):
        def encode_results(self, results: list[ToolMessage],
                           calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
            parts = super().encode_results(results, calls)
            for part, result in zip(parts, results):
                if not result.is_error:
                    part["functionResponse"]["response"] = {
                        key: result.content if value is None else value}
            return parts
    Wrapped.__name__ = f"ResultsUnder_{key}"
    return Wrapped


@pytest.mark.parametrize("key", ["result", "return_value", "output"])
def test_gemini_result_wrapper_key_is_free(key: str, gemini: Endpoint) -> None:
    """Google's guide sends {"result": ...}, pydantic-ai {"return_value": ...} (wire corpus)."""
    _run("wire.second_turn_passthrough", _results_under(key), "gemini", gemini)


def test_gemini_wrong_result_still_fails(gemini: Endpoint) -> None:
    failure = _fails("wire.second_turn_passthrough", _results_under("result", "no data"),
                     "gemini", gemini)
    assert failure.clause == "wire.history.tool_results", failure.render()


# -- (2) Gemini's upper-case OpenAPI schema types ----------------------------------------------

def _upper(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_upper(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    return {k: (v.upper() if k == "type" and isinstance(v, str) else
                {n: _upper(s) for n, s in v.items()} if k == "properties" else _upper(v))
            for k, v in schema.items()}


class UpperCaseParameters(GeminiAdapter):
    """Sends ``parameters`` (OpenAPI subset) with ``OBJECT``/``STRING`` types, as google-genai
    and langchain-google-genai do."""

    def encode_tool(self, tool: ToolSpec) -> dict[str, Any]:
        params = copy.deepcopy(tool.parameters)
        params.pop("additionalProperties", None)
        return {"name": tool.name, "description": tool.description, "parameters": _upper(params)}


class UpperCaseDropsEnum(UpperCaseParameters):
    """Upper-case types, but the enum keyword lost: the schema's meaning changed."""

    def encode_tool(self, tool: ToolSpec) -> dict[str, Any]:
        out = super().encode_tool(tool)
        for prop in (out["parameters"].get("properties") or {}).values():
            prop.pop("enum", None)
        return out


def test_gemini_upper_case_types_decode(gemini: Endpoint) -> None:
    from pytest_toolcall.providers.base import get_dialect

    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
            "tools": [{"functionDeclarations": [{"name": "w", "description": "d", "parameters": {
                "type": "OBJECT", "properties": {"city": {"type": "STRING"},
                                                 "days": {"type": "ARRAY",
                                                          "items": {"type": "INTEGER"}}}}}]}]}
    dialect = get_dialect("gemini")
    assert dialect.validate(body) is None
    tool = dialect.decode_request(body).tools[0]
    assert tool.parameters == {"type": "object", "properties": {
        "city": {"type": "string"}, "days": {"type": "array", "items": {"type": "integer"}}}}


def _openapi_tools_case() -> Any:
    """wire.tool_definitions_intact's check over a tool ``parameters`` can carry ($defs and
    additionalProperties are outside Gemini's OpenAPI subset)."""
    from pytest_toolcall.conformance._common import case, one_step, request
    from pytest_toolcall.conformance.wire import _TEXT, tools_intact

    tool = ToolSpec(name="get_weather", description="Current weather for a city.", parameters={
        "type": "object", "properties": {"city": {"type": "string"},
                                         "unit": {"type": "string",
                                                  "enum": ["celsius", "fahrenheit"]}},
        "required": ["city"]})
    return case(id="issue14.openapi_tools", title="t", why="w", dialects=("gemini",),
                steps=one_step(_TEXT, request(tools=(tool,))), checks=(tools_intact,))


def test_gemini_upper_case_types_pass_tools_intact(gemini: Endpoint) -> None:
    run_case(_openapi_tools_case(), UpperCaseParameters.from_endpoint(gemini),
             reference_profile("gemini"), gemini)


def test_gemini_upper_case_types_lost_enum_still_fails(gemini: Endpoint) -> None:
    with pytest.raises(ConformanceFailure) as exc:
        run_case(_openapi_tools_case(), UpperCaseDropsEnum.from_endpoint(gemini),
                 reference_profile("gemini"), gemini)
    assert exc.value.clause == "wire.tools.intact", exc.value.render()


# -- (3) complete() may stream and assemble the answer (no provider forbids it) ----------------

def _streams_complete(base: Any) -> Any:
    from pytest_toolcall.core.model import ChatRequest, assemble_stream

    class StreamsUnderComplete(base):  # type: ignore[misc,valid-type]
        """complete() streams and folds the events, as pydantic-ai's Anthropic model does for
        a large max_tokens."""

        def complete(self, request: ChatRequest) -> Any:
            return assemble_stream(self.stream(request))

        async def acomplete(self, request: ChatRequest) -> Any:
            return assemble_stream([e async for e in self.astream(request)])

    return StreamsUnderComplete


@pytest.mark.parametrize("dialect", ["anthropic", "openai"])
@pytest.mark.parametrize("case_id", ["wire.single_call", "wire.parallel_calls",
                                     "wire.second_turn_passthrough"])
def test_complete_may_stream(dialect: str, case_id: str) -> None:
    from pytest_toolcall.reference import _adapter_class

    for ep in _endpoint(dialect):
        _run(case_id, _streams_complete(_adapter_class(dialect)), dialect, ep)


# -- (4) tool schemas compared by meaning; omitted strict: false is false -----------------------

from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter  # noqa: E402


class OmitsStrictFalse(OpenAIChatAdapter):
    """Sends no strict key for a strict=False tool (the provider default)."""

    def encode_tool(self, tool: ToolSpec) -> dict[str, Any]:
        out = super().encode_tool(tool)
        if out["function"].get("strict") is False:
            del out["function"]["strict"]
        return out


class AnyOfConstsAsEnum(OpenAIChatAdapter):
    """Rewrites ``anyOf: [{const: a}, {const: b}]`` into ``type: string, enum: [a, b]``."""

    def encode_tool(self, tool: ToolSpec) -> dict[str, Any]:
        out = copy.deepcopy(super().encode_tool(tool))
        props = out["function"]["parameters"].get("properties") or {}
        for name, prop in props.items():
            if "anyOf" in prop and all("const" in o for o in prop["anyOf"]):
                props[name] = {"type": "string", "enum": [o["const"] for o in prop["anyOf"]]}
        return out


class AnyOfConstsLosesOne(AnyOfConstsAsEnum):
    """The same rewrite, dropping a value: the meaning changed."""

    def encode_tool(self, tool: ToolSpec) -> dict[str, Any]:
        out = super().encode_tool(tool)
        for prop in (out["function"]["parameters"].get("properties") or {}).values():
            if "enum" in prop and len(prop["enum"]) > 1:
                prop["enum"] = prop["enum"][:1]
        return out


@pytest.fixture
def openai_ep() -> Iterator[Endpoint]:
    yield from _endpoint("openai")


@pytest.mark.parametrize("adapter", [OmitsStrictFalse, AnyOfConstsAsEnum])
def test_equivalent_tool_definitions_pass(adapter: Any, openai_ep: Endpoint) -> None:
    _run("wire.tool_definitions_intact", adapter, "openai", openai_ep)


def test_changed_schema_still_fails_and_says_where(openai_ep: Endpoint) -> None:
    failure = _fails("wire.tool_definitions_intact", AnyOfConstsLosesOne, "openai", openai_ep)
    assert failure.clause == "wire.tools.intact"
    text = failure.render()
    assert "/properties/" in failure.message and "got:" in text, text


def test_dropped_strict_true_still_fails(openai_ep: Endpoint) -> None:
    import controls_openai as c

    failure = _fails("wire.strict_tool_intact", c.DropsStrict, "openai", openai_ep)
    assert failure.clause == "wire.tools.intact"
    assert "got:      None" in failure.render()


def test_got_none_is_printed() -> None:
    text = ConformanceFailure("x.y", "m", expected="call_001", got=None).render()
    assert "got:      None" in text


# -- (5) stream.same_as_complete compares parsed calls, not raw argument text -------------------

class StreamReserializesArguments(OpenAIChatAdapter):
    """stream() hands back calls whose raw argument text is re-serialized (compact JSON), as
    libraries that parse the joined fragments and dump them again do; ids, names, parsed
    arguments, text, finish and usage are the same."""

    def stream(self, request: Any) -> Iterator[Any]:
        import json

        from pytest_toolcall.core.model import ToolCallComplete

        for event in super().stream(request):
            if isinstance(event, ToolCallComplete) and event.call.parse_error is None:
                call = event.call
                event = ToolCallComplete(call=ToolCall.from_raw(
                    id=call.id, name=call.name,
                    arguments=json.dumps(call.arguments, separators=(",", ":"))))
            yield event


def test_same_as_complete_ignores_raw_argument_text(openai_ep: Endpoint) -> None:
    _run("stream.same_as_complete", StreamReserializesArguments, "openai", openai_ep)


def test_same_as_complete_still_fails_on_other_arguments(openai_ep: Endpoint) -> None:
    from pytest_toolcall.run.checks import _meaning
    from pytest_toolcall.core.model import ChatResponse

    a = ChatResponse(tool_calls=(ToolCall.from_raw(id="c", name="f", arguments='{"a": 1}'),))
    b = ChatResponse(tool_calls=(ToolCall.from_raw(id="c", name="f", arguments='{"a":1}'),))
    c = ChatResponse(tool_calls=(ToolCall.from_raw(id="c", name="f", arguments='{"a": 2}'),))
    assert _meaning(a) == _meaning(b) and _meaning(a) != _meaning(c)


# -- (9) Ollama tool_name judged against the call the result answers, ids or not ---------------

from pytest_toolcall.providers.ollama.reference import OllamaAdapter  # noqa: E402


class ResultsByNameOnly(OllamaAdapter):
    """Tool results carry tool_name but no tool_call_id (ollama-python's Message has none)."""

    def encode_result(self, message: ToolMessage, names: dict[str, str]) -> dict[str, Any]:
        out = super().encode_result(message, names)
        out.pop("tool_call_id", None)
        return out


class ResultsByNameOnlyWrongName(ResultsByNameOnly):
    """The same, with every result named after the first tool: results are misattributed."""

    def encode_result(self, message: ToolMessage, names: dict[str, str]) -> dict[str, Any]:
        out = super().encode_result(message, names)
        out["tool_name"] = "get_weather"
        return out


@pytest.fixture
def ollama_ep() -> Iterator[Endpoint]:
    yield from _endpoint("ollama")


def test_ollama_tool_name_without_ids_passes(ollama_ep: Endpoint) -> None:
    from pytest_toolcall.providers.ollama.cases import results_carry_tool_name

    case = REGISTRY["wire.ollama_tool_name_on_results"]
    only = case.model_copy(update={"checks": (results_carry_tool_name,)})
    run_case(only, ResultsByNameOnly.from_endpoint(ollama_ep), reference_profile("ollama"),
             ollama_ep)


def test_ollama_wrong_tool_name_still_fails(ollama_ep: Endpoint) -> None:
    failure = _fails("wire.ollama_tool_name_on_results", ResultsByNameOnlyWrongName, "ollama",
                     ollama_ep)
    assert failure.clause == "wire.ollama.tool_name", failure.render()
    assert "None" not in str(failure.expected)


# -- (7) wire.malformed_success: a typed error that says the answer was malformed --------------

def _malformed_raising(message: str) -> Any:
    from pytest_toolcall.core.errors import ProviderError

    class Says(OpenAIChatAdapter):
        def parse_response(self, data: Any) -> Any:
            if not isinstance(data, dict) or not data.get("choices"):
                raise ProviderError(message)
            return super().parse_response(data)
    return Says


@pytest.mark.parametrize("message", [
    "malformed response",  # terse but says what happened
    "Invalid response from OpenAI chat completions endpoint",  # pydantic-ai's wording
    "Received empty model response",  # pydantic-ai UnexpectedModelBehavior
    # since issue 28 the words are not judged: a typed error is what the case asks for
    "answer without choices", "request failed", "oops",
])
def test_descriptive_typed_errors_pass(message: str, openai_ep: Endpoint) -> None:
    _run("wire.malformed_success", _malformed_raising(message), "openai", openai_ep)


# -- (6) Anthropic usage: today's shape by default, the old one on request ---------------------

def test_today_usage_shape_passes_an_adapter_reading_message_delta() -> None:
    """An adapter that reads both counts from the final message_delta (today's API) passes the
    default usage case, and the legacy case is skipped unless the profile asks for it."""
    import controls_anthropic as ca

    from pytest_toolcall.core.contracts import Profile
    from pytest_toolcall.run.runner import CaseSkipped

    for ep in _endpoint("anthropic"):
        run_case(REGISTRY["stream.anthropic_usage_split"],
                 ca.UsageFromMessageDeltaOnly.from_endpoint(ep), Profile(), ep)
        with pytest.raises(CaseSkipped, match="anthropic.legacy_usage"):
            run_case(REGISTRY["stream.anthropic_usage_legacy_delta"],
                     ca.UsageFromMessageDeltaOnly.from_endpoint(ep), Profile(), ep)


# -- messages: a crash is located at the implementation's own line, not the stdlib's -----------

def test_crash_location_is_the_callers_line() -> None:
    import json

    from pytest_toolcall.run.checks import describe_error

    def parse() -> Any:
        return json.loads("{not json")  # the adapter's own line

    try:
        parse()
    except ValueError as error:
        text = describe_error(error)
    assert "test_issue14_kit_defects.py" in text and "in parse" in text, text


# -- messages: hints follow the dialect and the rule that rejected ------------------------------

def test_rejection_hints_follow_the_rule() -> None:
    from pytest_toolcall.run.checks import rejection_hint

    assert "empty text" in rejection_hint("messages.text.empty", "anthropic")
    assert "JSON object" in rejection_hint("messages.struct", "gemini")
    assert "answer a tool call" in rejection_hint("messages.tool.orphan", "openai")
    assert "answer a tool call" not in rejection_hint("messages.empty", "openai")
    gemini = rejection_hint("tool_choice.mode", "gemini")
    assert "functionCallingConfig" in gemini and "function: {name}" not in gemini


def test_usage_hint_is_the_dialects() -> None:
    from pytest_toolcall.run.checks import _USAGE_WHERE

    assert "choices: []" in _USAGE_WHERE["openai"]
    assert all("choices" not in _USAGE_WHERE[d] for d in ("anthropic", "openai-responses",
                                                           "gemini", "ollama"))


# -- kit errors are reported apart from verdicts --------------------------------------------------

def test_kit_error_is_not_a_verdict_in_the_report() -> None:
    from pytest_toolcall.output import report
    from pytest_toolcall.output.report import Phase

    def phases(case: str, outcome: str, **props: Any) -> list[Phase]:
        base = {"toolcall_case": case, "toolcall_family": "wire", "toolcall_provider": "gemini",
                "toolcall_contract": "chat", **props}
        node = f"toolcall::{case}[gemini]"
        return [Phase(nodeid=node, when="setup", outcome="passed", properties=base),
                Phase(nodeid=node, when="call", outcome=outcome, properties=base,
                      text="pytest-toolcall could not run this case"),
                Phase(nodeid=node, when="teardown", outcome="passed", properties=base)]

    records = report.merge_phases(phases("wire.a", "passed") + phases("wire.b", "failed")
                                  + phases("wire.c", "failed", toolcall_kit_error=True))
    assert [r.outcome for r in records] == ["passed", "failed", "kit_error"]
    totals = report.totals(records)
    assert totals["kit_error"] == 1 and totals["failed"] == 1 and totals["pass_rate"] == 0.5
    gate = report.evaluate_gate(records, 0.5)
    assert gate.counted["judged"] == 2 and gate.passed
    badge = report.badge(records)
    assert badge["message"] == "1/2 passing (1 kit error)"


def test_kit_error_in_the_terminal_summary(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        import pytest
        import pytest_toolcall.plugins.suite as suite
        from pytest_toolcall.core.errors import KitError

        def broken_run_case(*args, **kwargs):
            raise KitError("the fake could not decode the request")

        _real = suite.run_case

        # restored at the end: the in-process run must not leak into the other tests
        def pytest_sessionstart(session):
            suite.run_case = broken_run_case

        def pytest_sessionfinish(session):
            suite.run_case = _real
    """)
    result = pytester.runpytest_inprocess("--toolcall-provider=openai",
                                          "--toolcall-cases=wire.single_call",
                                          "--toolcall-report=out")
    out = result.stdout.str()
    assert "1 case run: 1 kit error" in out, out
    assert "kit errors (the kit could not run these" in out
    assert "broken clauses" not in out
    import json

    doc = json.loads((pytester.path / "out" / "toolcall-report.json").read_text())
    assert doc["totals"]["kit_error"] == 1 and doc["totals"]["pass_rate"] is None
    assert doc["cases"][0]["outcome"] == "kit_error"


# -- (10) anthropic 2.x runs on httpx2: the endpoint hands out an httpx2 client ------------------

def test_anthropic_2x_runs_on_the_endpoints_httpx2_client() -> None:
    anthropic = pytest.importorskip("anthropic", reason="anthropic is in the 'dev' extra")
    pytest.importorskip("httpx2", reason="httpx2 comes with anthropic 2.x")
    from pytest_toolcall.cases import ScriptedCall, Turn

    fake = FakeProvider("anthropic")
    ep = in_process_endpoint(fake)
    fake.expect(Turn(tool_calls=(ScriptedCall(id="toolu_1", name="get_time", arguments="{}"),)))
    sdk = anthropic.Anthropic(base_url=ep.base_url.removesuffix("/v1"), api_key=ep.api_key,
                              http_client=ep.httpx2_client())
    message = sdk.messages.create(model="claude-sonnet-4-5", max_tokens=64, messages=[
        {"role": "user", "content": "time?"}], tools=[{
            "name": "get_time", "description": "t", "input_schema": {"type": "object"}}])
    assert [b.name for b in message.content if b.type == "tool_use"] == ["get_time"]
    with sdk.messages.stream(model="claude-sonnet-4-5", max_tokens=64, messages=[
            {"role": "user", "content": "time?"}]) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "tool_use"


def test_httpx2_missing_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from pytest_toolcall.core.errors import UsageError

    monkeypatch.setitem(sys.modules, "httpx2", None)
    for ep in _endpoint("anthropic"):
        with pytest.raises(UsageError, match="pip install httpx2"):
            ep.httpx2_client()


# -- (8) ids handed back may encode more; what reaches the provider is what counts ---------------

class EncodesSignatureInIds(OpenAIChatAdapter):
    """Hands back ``<id>__thought__sig`` (as litellm's Gemini route does) and strips the suffix
    before the id goes back to the provider."""

    def parse_call(self, raw: dict[str, Any]) -> ToolCall:
        call = super().parse_call(raw)
        return call.model_copy(update={"id": f"{call.id}__thought__c2ln"}) if call.id else call

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        return super().encode_call(call.model_copy(
            update={"id": (call.id or "").split("__thought__")[0] or call.id}))

    def encode_message(self, message: Any) -> dict[str, Any]:
        if isinstance(message, ToolMessage) and message.tool_call_id:
            message = message.model_copy(
                update={"tool_call_id": message.tool_call_id.split("__thought__")[0]})
        return super().encode_message(message)


class SendsExtendedIdsBack(EncodesSignatureInIds):
    """The same, but the extended id reaches the provider on replay."""

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        return OpenAIChatAdapter.encode_call(self, call.model_copy(update={"id": call.id}))

    def encode_message(self, message: Any) -> dict[str, Any]:
        return OpenAIChatAdapter.encode_message(self, message)


class MadeUpIds(OpenAIChatAdapter):
    """Ignores the provider's id and makes one up."""

    def parse_call(self, raw: dict[str, Any]) -> ToolCall:
        return super().parse_call(raw).model_copy(update={"id": "my_own_id"})


def test_ids_that_encode_more_pass(openai_ep: Endpoint) -> None:
    _run("wire.parallel_calls", EncodesSignatureInIds, "openai", openai_ep)
    _run("wire.second_turn_passthrough", EncodesSignatureInIds, "openai", openai_ep)


def test_a_later_step_is_handed_back_the_ids_the_adapter_returned(openai_ep: Endpoint) -> None:
    """The history of step 2 carries the ids as the adapter handed them back in step 1 (what
    its users' histories hold), so a library that decodes what it encoded in them can."""
    [run] = run_case(REGISTRY["wire.second_turn_passthrough"],
                     EncodesSignatureInIds.from_endpoint(openai_ep), reference_profile("openai"),
                     openai_ep, interfaces=["sync"])[:1]
    sent = [c.id for m in run.steps[1].handed.messages
            for c in getattr(m, "tool_calls", None) or ()]
    assert sent and all(i.endswith("__thought__c2ln") for i in sent), sent


def test_made_up_or_leaked_ids_still_fail(openai_ep: Endpoint) -> None:
    assert _fails("wire.parallel_calls", MadeUpIds, "openai",
                  openai_ep).clause == "response.tool_calls.id"
    failure = _fails("wire.second_turn_passthrough", SendsExtendedIdsBack, "openai", openai_ep)
    assert failure.clause.startswith(("wire.history", "request.")), failure.render()

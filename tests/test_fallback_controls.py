"""Every fallback case has a negative control: a broken structured output it must fail, on the
exact clause, through the interface the bug is in. The reference passes every case (positive
control) for every dialect, and the suite runs the family through the plugin.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import fallback_controls as c  # tests/fallback_controls.py (tests/ is on sys.path)
import pytest

import pytest_toolcall.conformance.fallback as fallback_cases
import pytest_toolcall.conformance.fallback_more as fallback_more
from pytest_toolcall.cases import Turn, make_case
from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import CaseDefinitionError, ConformanceFailure, UsageError
from pytest_toolcall.core.fallback import FallbackResult
from pytest_toolcall.run.fallbackrun import (
    REASKED_TEXT,
    FallbackScript,
    StreamingModel,
    fallback_interfaces,
    turn_events,
)
from pytest_toolcall.core.model import (
    ChatRequest,
    StreamDone,
    TextDelta,
    ToolCallComplete,
    ToolCallDelta,
    UserMessage,
)
from pytest_toolcall.reference.fallback import ReferenceStructuredOutput
from pytest_toolcall.run.runner import CaseSkipped, run_case

ROOT = Path(__file__).resolve().parents[1]
FALLBACK_MD = ROOT / "docs" / "fallback.md"
CASES = {case.id: case for case in fallback_cases.CASES}
#: every case the suite runs for fallback.* (fallback_more's controls: tests/test_more_controls.py)
EVERY_CASE = len(CASES) + len(fallback_more.CASES)
INTERFACES = ("sync", "async")
DIALECTS = ("openai", "openai-responses", "anthropic", "gemini", "ollama")

#: (case id, broken implementation, the clause the case must name)
CONTROLS: list[tuple[str, type[ReferenceStructuredOutput], str]] = [
    ("fallback.tool_first", c.JsonBeforeTool, "fallback.channel"),
    ("fallback.json_in_text", c.NoJsonChannel, "fallback.channel"),
    ("fallback.json_in_text", c.ReportsToolForEveryValue, "fallback.channel"),
    ("fallback.json_in_text", c.DropsTextWhenStructured, "fallback.text"),
    ("fallback.fenced_json", c.WholeTextOnly, "fallback.channel"),
    ("fallback.fenced_json", c.NoJsonChannel, "fallback.channel"),
    ("fallback.json_in_prose", c.WholeTextOnly, "fallback.channel"),
    ("fallback.plain_text", c.UnguardedJsonParse, "fallback.raised"),
    ("fallback.plain_text", c.TextChannelDropsText, "fallback.text"),
    ("fallback.plain_text", c.EmptyObjectOnText, "fallback.value"),
    ("fallback.json_failing_schema", c.JsonWithoutSchema, "fallback.channel"),
    ("fallback.malformed_arguments", c.SecondStreamForFallback, "fallback.one_stream"),
    ("fallback.malformed_arguments", c.AsyncSecondStreamForFallback, "fallback.one_stream"),
    ("fallback.malformed_arguments", c.StopsAfterToolCall, "fallback.stream_drained"),
    ("fallback.malformed_arguments", c.TwoPassesOverOneStream, "fallback.channel"),
    ("fallback.malformed_arguments", c.AsyncTwoPassesOverOneStream, "fallback.channel"),
    ("fallback.malformed_arguments", c.UnguardedArgumentsParse, "fallback.raised"),
    ("fallback.arguments_fail_schema", c.NoSchemaOnArguments, "fallback.channel"),
    ("fallback.arguments_fail_schema", c.StaleValue, "fallback.value"),
    ("fallback.other_tool_ignored", c.AnyToolName, "fallback.channel"),
    # -- issue 16 ------------------------------------------------------------------------------
    ("fallback.fence_other_language", c.FirstFenceOnly, "fallback.channel"),
    ("fallback.two_objects_in_prose", c.GreedyBraces, "fallback.channel"),
    ("fallback.text_kept_when_tool_wins", c.TextLostAfterToolCall, "fallback.text"),
    ("fallback.text_kept_when_tool_wins", c.DropsTextWhenStructured, "fallback.text"),
    # -- issue 12 (the mutation self-check of the reference) -----------------------------------
    ("fallback.tool_after_other_call", c.FirstCallOnly, "fallback.channel"),
    ("fallback.fence_wins_over_prose", c.ProseBeforeFences, "fallback.value"),
    ("fallback.braces_around_json", c.GivesUpAtBadBrace, "fallback.channel"),
    ("fallback.braces_around_json", c.GreedyBraces, "fallback.channel"),
]


def breaks(cls: type[ReferenceStructuredOutput]) -> tuple[str, ...]:
    """The interfaces a control's bug is in: its own methods say which path it touches."""
    own = set(vars(cls))
    if "aextract" in own:
        return ("async",)
    if "extract" in own:
        return ("sync",)
    return INTERFACES


def only(interface: str) -> Profile:
    return Profile(async_=False) if interface == "sync" else Profile(sync=False)


# every control on every dialect its case runs on (each wire streams text and tool calls, the
# channels these controls break); the interface a control's bug is not in passes, checked on
# openai (the path, not the wire, is what differs)
#: (case, dialect) pairs whose script that dialect's stream cannot carry: the case skips there,
#: naming why (truncated arguments exist only where a stream carries them as text; Gemini and
#: Ollama stream each call's arguments as one JSON object)
INEXPRESSIBLE = {("fallback.malformed_arguments", "gemini"),
                 ("fallback.malformed_arguments", "ollama")}


def _expressible(case_id: str, dialect: str) -> bool:
    return (case_id, dialect) not in INEXPRESSIBLE


RUNS = [pytest.param(case_id, broken, clause, dialect, interface,
                     id=f"{case_id}-{broken.__name__}-{dialect}-{interface}")
        for case_id, broken, clause in CONTROLS for dialect in DIALECTS
        for interface in INTERFACES
        if CASES[case_id].applies_to(dialect) and _expressible(case_id, dialect)
        and (interface in breaks(broken) or dialect == "openai")]


@pytest.mark.parametrize(("case_id", "broken", "clause", "dialect", "interface"), RUNS)
def test_fallback_case_fails_its_negative_control(case_id: str,
                                                  broken: type[ReferenceStructuredOutput],
                                                  clause: str, dialect: str,
                                                  interface: str) -> None:
    profile = only(interface)
    if interface not in breaks(broken):
        # the bug is in the other interface's path: this one is the reference's and passes
        [run] = run_case(CASES[case_id], broken(), profile, dialect=dialect)
        assert run.interface == interface and run.result is not None
        return
    with pytest.raises(ConformanceFailure) as exc:
        run_case(CASES[case_id], broken(), profile, dialect=dialect)
    assert exc.value.clause == clause, exc.value.render()
    assert exc.value.case_id == case_id
    assert exc.value.interface == interface
    assert exc.value.provider == dialect
    assert "stream 1 (" in exc.value.trace  # the trace shows how the stream was read


def test_every_control_runs_on_every_dialect() -> None:
    """No fallback case is limited to some dialects today, so every control runs on all five;
    a case that gains dialects=(...) narrows its controls with it."""
    ran = {(p.values[0], p.values[1], p.values[3]) for p in RUNS}
    assert ran == {(row[0], row[1], d) for row in CONTROLS for d in DIALECTS
                   if CASES[row[0]].applies_to(d) and _expressible(row[0], d)}
    assert all(case.applies_to(d) for case in CASES.values() for d in DIALECTS)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("case_id", sorted(CASES))
def test_a_script_a_stream_cannot_carry_skips_naming_why(case_id: str, dialect: str) -> None:
    """The inexpressible pairs skip (issue 16's rule, now for structured output too), and only
    those: a case that starts or stops skipping somewhere is noticed."""
    try:
        run_case(CASES[case_id], ReferenceStructuredOutput(), Profile(), dialect=dialect)
    except CaseSkipped as skip:
        assert (case_id, dialect) in INEXPRESSIBLE, str(skip)
        assert "never as text" in str(skip) and dialect in str(skip)
    else:
        assert (case_id, dialect) not in INEXPRESSIBLE


def test_stream_failures_name_how_the_stream_was_read() -> None:
    case = CASES["fallback.malformed_arguments"]
    with pytest.raises(ConformanceFailure) as twice:
        run_case(case, c.SecondStreamForFallback(), only("sync"))
    assert twice.value.message == "the model was streamed 2 time(s)"
    assert "stream 2 (stream)" in twice.value.trace
    with pytest.raises(ConformanceFailure) as stopped:
        run_case(case, c.StopsAfterToolCall(), only("sync"))
    # the truncated call streams first: id+name delta, argument fragments, the complete event
    assert re.search(r"stream 1 \(stream\): read \d+ of \d+ events\n", stopped.value.trace)
    assert "StreamDone reached" not in stopped.value.trace
    with pytest.raises(ConformanceFailure) as exhausted:
        run_case(case, c.TwoPassesOverOneStream(), only("sync"))
    assert exhausted.value.expected == "json" and exhausted.value.got.startswith("text")


# -- positive controls ------------------------------------------------------------------------
# the inexpressible pairs skip instead (test_a_script_a_stream_cannot_carry_skips_naming_why)
@pytest.mark.parametrize(("case_id", "dialect"), [
    (case_id, dialect) for case_id in sorted(CASES) for dialect in DIALECTS
    if _expressible(case_id, dialect)])
def test_reference_passes(case_id: str, dialect: str) -> None:
    runs = run_case(CASES[case_id], ReferenceStructuredOutput(), Profile(), dialect=dialect)
    assert [run.interface for run in runs] == ["sync", "async"]
    for run in runs:
        assert isinstance(run.result, FallbackResult) and run.error is None
        assert [(o.read, o.done) for o in run.opens] == [(run.opens[0].events, True)]
        assert run.model.rejections == []


def test_reference_channels_and_values() -> None:
    """What each case expects, read from the results (not from the checks)."""
    got = {}
    for case_id, case in CASES.items():
        [run] = run_case(case, ReferenceStructuredOutput(), only("sync"))
        got[case_id] = (run.result.channel, run.result.value)
    plan = fallback_cases.TEXT_PLAN
    assert got == {
        "fallback.tool_first": ("tool", fallback_cases.TOOL_PLAN),
        "fallback.json_in_text": ("json", plan),
        "fallback.fenced_json": ("json", plan),
        "fallback.json_in_prose": ("json", plan),
        "fallback.plain_text": ("text", None),
        "fallback.json_failing_schema": ("text", None),
        "fallback.malformed_arguments": ("json", plan),
        "fallback.arguments_fail_schema": ("json", plan),
        "fallback.other_tool_ignored": ("json", plan),
        "fallback.fence_other_language": ("json", plan),
        "fallback.two_objects_in_prose": ("json", plan),
        "fallback.text_kept_when_tool_wins": ("tool", fallback_cases.TOOL_PLAN),
        "fallback.tool_after_other_call": ("tool", fallback_cases.TOOL_PLAN),
        "fallback.fence_wins_over_prose": ("json", plan),
        "fallback.braces_around_json": ("json", plan),
    }


# -- the tables are complete and honest ------------------------------------------------------
def test_every_fallback_case_has_a_negative_control() -> None:
    assert sorted(set(CASES) - {row[0] for row in CONTROLS}) == []
    assert {row[0] for row in CONTROLS} <= set(CASES)


def test_every_control_is_used_and_documented() -> None:
    assert sorted(m.__name__ for m in set(c.MUTANTS) - {row[1] for row in CONTROLS}) == []
    for mutant in c.MUTANTS:
        assert (mutant.__doc__ or "").strip(), mutant.__name__
        if mutant.__name__.startswith("Async"):
            assert breaks(mutant) == ("async",), mutant.__name__


def test_every_clause_of_the_family_is_killed_by_some_control() -> None:
    from pytest_toolcall.cli.catalogue import clauses_of

    clauses = {cl for case in CASES.values() for cl in clauses_of(case)}
    assert clauses - {row[2] for row in CONTROLS} == set()


# -- the model and the script -------------------------------------------------------------------
def test_turn_events_order_and_fragments() -> None:
    turn = Turn(text="abcdefgh", tool_calls=(fallback_cases._plan_call('{"a":1}'),))
    events = turn_events(turn)
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["TextDelta", "TextDelta", "ToolCallDelta", "ToolCallDelta", "ToolCallDelta",
                     "ToolCallComplete", "StreamDone"]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "abcdefgh"
    assert "".join(e.arguments_delta for e in events if isinstance(e, ToolCallDelta)) == '{"a":1}'
    first = turn_events(turn, calls_first=True)
    assert isinstance(first[0], ToolCallDelta) and isinstance(first[-2], TextDelta)
    assert isinstance(first[-1], StreamDone) and first[-1].finish_reason == "tool_calls"
    [complete] = [e for e in first if isinstance(e, ToolCallComplete)]
    assert complete.call.arguments == {"a": 1} and complete.call.id == "call_plan"


def test_streaming_model_records_opens_and_reasks_with_text() -> None:
    model = StreamingModel(Turn(text="hello"))
    request = ChatRequest(messages=(UserMessage(content="hi"),))
    first = model.stream(request)
    assert next(iter(first)) == TextDelta(text="hell")
    second = list(model.stream(request))
    assert "".join(e.text for e in second if isinstance(e, TextDelta)) == REASKED_TEXT
    assert [(o.read, o.done) for o in model.opens] == [(1, False), (len(second), True)]


def test_structured_output_fixture_shape_is_checked() -> None:
    with pytest.raises(UsageError, match="needs extract\\(request\\) or async aextract"):
        fallback_interfaces(object(), Profile())
    assert fallback_interfaces(ReferenceStructuredOutput(), Profile(sync=False)) == ["async"]


def test_a_fallback_case_needs_a_fallback_script() -> None:
    with pytest.raises(CaseDefinitionError, match="a fallback case needs fallback="
                                                  "FallbackScript"):
        make_case(id="fallback.nothing", title="t", why="w", contract="fallback")
    script = FallbackScript(tool=fallback_cases.EMIT_PLAN, turn=Turn(text="x"))
    case = make_case(id="fallback.mine", title="t", why="w", contract="fallback",
                     fallback=script)
    assert case.family == "fallback" and script.tool_name == "emit_plan"
    assert script.schema_["required"] == ["goal", "steps"]


def test_a_result_that_is_not_a_fallback_result_is_named() -> None:
    class ReturnsDict(ReferenceStructuredOutput):
        def extract(self, request: Any) -> Any:
            return {"channel": "structured", "value": None}

    with pytest.raises(ConformanceFailure) as exc:
        run_case(CASES["fallback.plain_text"], ReturnsDict(), only("sync"))
    assert exc.value.clause == "fallback.result"
    assert "structured" in str(exc.value.got)


# -- through the plugin ---------------------------------------------------------------------------
def _doc_block(title: str) -> str:
    text = FALLBACK_MD.read_text(encoding="utf-8")
    section = text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]
    [block] = re.findall(r"^```python\n(# conftest\.py\n.*?)^```", section, re.MULTILINE | re.DOTALL)
    return block


def test_suite_runs_the_fallback_family_against_the_reference(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--toolcall-provider=openai", "--toolcall-cases=fallback.*",
                                "-p", "no:cacheprovider")
    result.assert_outcomes(passed=EVERY_CASE)


def test_fallback_md_shim_passes_and_its_bug_fails(pytester: pytest.Pytester) -> None:
    code = _doc_block("A shim for your implementation")
    pytester.makeconftest(code)
    result = pytester.runpytest("--toolcall-provider=openai", "--toolcall-cases=fallback.*",
                                "-p", "no:cacheprovider")
    result.assert_outcomes(passed=EVERY_CASE)
    assert "structured output under test: conftest.MyStructured" in result.stdout.str()
    good, broken = "for event in stream:", "for event in stream:\n            break"
    assert code.count(good) == 1, "the fallback.md shim changed; update this test"
    pytester.makeconftest(code.replace(good, broken))
    result = pytester.runpytest("--toolcall-provider=openai",
                                "--toolcall-cases=fallback.malformed_arguments",
                                "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    assert "fallback.stream_drained" in result.stdout.str()


def test_a_wrong_fixture_is_a_setup_error(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("import pytest\n\n@pytest.fixture\ndef toolcall_structured():\n"
                          "    return object()\n")
    result = pytester.runpytest("--toolcall-provider=openai",
                                "--toolcall-cases=fallback.plain_text", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)  # the kit could not run: never a verdict
    assert "which is not a StructuredOutput: it needs extract(request)" in result.stdout.str()

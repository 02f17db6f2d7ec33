"""Cases as data: make_case errors, the registry, capabilities a case needs."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolcall.cases import (
    QUIRKS,
    Case,
    Registry,
    ScriptedCall,
    Step,
    StreamPlan,
    Turn,
    check,
    default_registry,
    make_case,
)
from pytest_toolcall.core.contracts import CAPABILITIES
from pytest_toolcall.core.errors import CaseDefinitionError
from pytest_toolcall.core.model import ChatRequest, UserMessage

REQUEST = ChatRequest(messages=(UserMessage(content="hi"),))


def fields(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"id": "mine.case", "title": "a case", "why": "a bug",
                            "steps": [Step(request=REQUEST, reply=Turn(text="ok"))]}
    return {**base, **over}


def definition_error(**over: Any) -> CaseDefinitionError:
    with pytest.raises(CaseDefinitionError) as info:
        make_case(**fields(**over))
    return info.value


def test_make_case_builds_a_valid_case() -> None:
    case = make_case(**fields())
    assert isinstance(case, Case)
    assert case.family == "mine" and case.dialects == ("*",) and case.contract == "chat"


@pytest.mark.parametrize("bad_id", ["Mine.case", "nodots", "mine.", ".case", "mine..case",
                                    "mine.Case", "1mine.case", "mine case.x"])
def test_bad_id_names_the_id_and_the_shape(bad_id: str) -> None:
    error = definition_error(id=bad_id)
    assert error.case_id == bad_id
    assert error.problem.startswith("id: id must be '<family>.<name>' in lower case")
    assert f"got {bad_id!r}" in error.problem
    assert str(error).startswith(f"case {bad_id!r} is malformed: id: ")


def test_missing_id_and_fields_are_all_listed() -> None:
    with pytest.raises(CaseDefinitionError) as info:
        make_case(title="t")
    assert info.value.case_id == "<no id>"
    # steps is optional at field level (loop and history cases carry scripts instead), so only
    # the fields every case needs are listed
    assert info.value.problem == "id: Field required; why: Field required"


def test_unknown_capability_lists_the_known_ones() -> None:
    error = definition_error(needs={"telepathy", "stream"})
    assert error.case_id == "mine.case"
    assert error.problem == (f"needs: unknown capabilities ['telepathy']; "
                             f"known: {sorted(CAPABILITIES)}")


def test_unknown_quirk_names_the_step_path() -> None:
    step = {"request": REQUEST, "reply": {"stream": {"quirks": ["wobble"]}}, "via": "stream"}
    error = definition_error(steps=[step])
    assert error.case_id == "mine.case"
    assert error.problem == (f"steps.0.reply.stream.quirks: unknown quirk(s) ['wobble']; "
                             f"known: {sorted(QUIRKS)}")


def test_bad_step_is_reported_once_without_a_spurious_length_error() -> None:
    error = definition_error(steps=[{"request": REQUEST, "reply": {}, "via": "fly"}])
    assert error.problem.startswith("steps.0.via: Input should be 'complete' or 'stream'")
    assert "at least" not in error.problem


def test_empty_steps() -> None:
    error = definition_error(steps=[])
    assert error.problem == ("steps: a case needs at least one step (a request and the turn "
                             "answering it)")


def test_non_callable_check_names_its_position() -> None:
    error = definition_error(checks=[lambda run: None, "not a function"])
    assert error.case_id == "mine.case"
    assert error.problem.startswith("checks: check #1 is not callable: 'not a function'")


def test_typo_in_a_case_field_is_an_error() -> None:
    error = definition_error(dialect=("openai",))
    assert error.problem == "dialect: Extra inputs are not permitted"


def test_stream_plan_rejects_unknown_quirk_directly() -> None:
    with pytest.raises(ValueError, match=r"unknown quirk\(s\) \['wobble'\]"):
        StreamPlan(quirks=frozenset({"wobble"}))


def test_scripted_call_arguments_text_keeps_non_ascii() -> None:
    assert ScriptedCall(name="w", arguments={"city": "Zürich"}).arguments_text() == \
        '{"city": "Zürich"}'
    assert ScriptedCall(name="w", arguments="").arguments_text() == ""
    assert ScriptedCall(name="w", arguments=None).arguments_text() is None


def test_turn_expected_finish() -> None:
    assert Turn(text="x").expected_finish() == "stop"
    assert Turn(tool_calls=(ScriptedCall(name="f"),)).expected_finish() == "tool_calls"
    assert Turn(text="x", finish_reason="length").expected_finish() == "length"


# -- required capabilities --------------------------------------------------------------------
def test_required_capabilities_adds_stream_for_streamed_steps() -> None:
    steps = [Step(request=REQUEST, reply=Turn(text="a")),
             Step(request=REQUEST, reply=Turn(text="b"), via="stream")]
    case = make_case(**fields(steps=steps, needs={"usage"}))
    assert case.required_capabilities() == frozenset({"usage", "stream"})
    plain = make_case(**fields(needs={"tool_choice.named"}))
    assert plain.required_capabilities() == frozenset({"tool_choice.named"})


# -- check decorator --------------------------------------------------------------------------
def test_check_decorator_sets_the_clause_and_returns_the_function() -> None:
    @check("mine.clause")
    def my_check(run: Any) -> None:
        raise AssertionError("unused")

    assert my_check.clause == "mine.clause"  # type: ignore[attr-defined]
    assert my_check.__name__ == "my_check"


# -- registry ---------------------------------------------------------------------------------
def _case(case_id: str, dialects: tuple[str, ...] = ("*",)) -> Case:
    return make_case(**fields(id=case_id, dialects=dialects))


def test_registry_rejects_a_second_case_with_the_same_id() -> None:
    registry = Registry()
    first = registry.add(_case("mine.dup"))
    registry.add(first)  # the same object again is harmless
    with pytest.raises(CaseDefinitionError) as info:
        registry.add(_case("mine.dup"))
    assert info.value.case_id == "mine.dup"
    assert info.value.problem == "another case is already registered with this id"
    assert len(registry) == 1 and registry["mine.dup"] is first


def test_registry_rejects_non_cases() -> None:
    with pytest.raises(CaseDefinitionError, match="expected a Case, got dict"):
        Registry().add({"id": "mine.dict"})  # type: ignore[arg-type]


def test_registry_lookup_of_unknown_id_lists_the_known_ones() -> None:
    registry = Registry()
    registry.extend([_case("b.one"), _case("a.two")])
    with pytest.raises(KeyError, match=r"no case 'c\.x'; known: a\.two, b\.one"):
        registry["c.x"]


def test_registry_iterates_sorted_by_id() -> None:
    registry = Registry()
    registry.extend([_case("stream.b"), _case("wire.a"), _case("stream.a")])
    assert [c.id for c in registry] == ["stream.a", "stream.b", "wire.a"]


def test_select_by_globs_and_dialect() -> None:
    registry = Registry()
    registry.extend([_case("stream.basic"), _case("stream.quirky", ("anthropic",)),
                     _case("wire.zero_args_empty"), _case("wire.zero_args_null"),
                     _case("wire.single", ("openai", "ollama"))])
    ids = lambda cases: [c.id for c in cases]  # noqa: E731
    assert ids(registry.select()) == ids(registry)
    assert ids(registry.select(["stream.*"])) == ["stream.basic", "stream.quirky"]
    assert ids(registry.select(["wire.zero_args_*", "stream.basic"])) == [
        "stream.basic", "wire.zero_args_empty", "wire.zero_args_null"]
    assert ids(registry.select(dialect="openai")) == [
        "stream.basic", "wire.single", "wire.zero_args_empty", "wire.zero_args_null"]
    assert ids(registry.select(["stream.*"], dialect="anthropic")) == [
        "stream.basic", "stream.quirky"]
    assert registry.select(["STREAM.*"]) == []  # globs are case-sensitive, like the ids
    assert registry.select(["nothing.*"]) == []


def test_default_registry_holds_the_builtin_suite() -> None:
    registry = default_registry()
    assert len(registry) >= 36  # other families join later; the built-in 36 stay
    assert {c.family for c in registry} >= {"wire", "stream"}
    assert all(c.why and c.title for c in registry)
    assert "wire.single_call" in [c.id for c in registry]
    assert default_registry() is registry

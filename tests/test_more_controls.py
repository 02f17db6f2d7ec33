"""Issue 29, families 4 and 5: each new case fails its negative control on the clause it asserts,
the references pass, and so do correct implementations built another way (a stream reader that
assembles calls from their deltas and reads fences line by line; a history builder that indexes
first), on every case of their contract, old and new.
"""

from __future__ import annotations

import re
from pathlib import Path

import more_controls as m  # tests/more_controls.py (tests/ is on sys.path)
import pytest
from pytest_toolcall.conformance import fallback_more, history_more

from pytest_toolcall.cases import default_registry
from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.reference.fallback import ReferenceStructuredOutput
from pytest_toolcall.reference.history import ReferenceHistoryBuilder
from pytest_toolcall.run.runner import CaseSkipped, run_case

ROOT = Path(__file__).resolve().parents[1]
FALLBACK = {c.id: c for c in fallback_more.CASES}
HISTORY = {c.id: c for c in history_more.CASES}
DIALECTS = ("openai", "openai-responses", "anthropic", "gemini", "ollama")


def _run(case, subject, dialect: str = "openai"):
    try:
        return run_case(case, subject, Profile(), dialect=dialect)
    except CaseSkipped:
        return None


@pytest.mark.parametrize(("case_id", "broken", "clause"), m.FALLBACK_MORE_CONTROLS,
                         ids=[f"{r[0]}-{r[1].__name__}" for r in m.FALLBACK_MORE_CONTROLS])
def test_a_fallback_case_fails_its_control(case_id, broken, clause) -> None:
    for dialect in ("openai", "anthropic"):
        with pytest.raises(ConformanceFailure) as exc:
            run_case(FALLBACK[case_id], broken(), Profile(), dialect=dialect)
        assert exc.value.clause == clause, exc.value.render()


@pytest.mark.parametrize(("case_id", "broken", "clause"), m.HISTORY_MORE_CONTROLS,
                         ids=[f"{r[0]}-{r[1].__name__}" for r in m.HISTORY_MORE_CONTROLS])
def test_a_history_case_fails_its_control(case_id, broken, clause) -> None:
    with pytest.raises(ConformanceFailure) as exc:
        run_case(HISTORY[case_id], broken(), Profile())
    assert exc.value.clause == clause, exc.value.render()


def test_the_controls_pass_the_cases_they_are_not_about() -> None:
    """Each control breaks one thing: the other new cases of its contract pass it."""
    for case_id, broken, _ in m.FALLBACK_MORE_CONTROLS:
        for other in FALLBACK.values():
            if other.id != case_id and (other.id, broken) not in {
                    (r[0], r[1]) for r in m.FALLBACK_MORE_CONTROLS}:
                assert run_case(other, broken(), Profile())


@pytest.mark.parametrize("dialect", DIALECTS)
def test_references_and_another_shape_pass_every_fallback_case(dialect: str) -> None:
    cases = [c for c in default_registry() if c.contract == "fallback"]
    assert {c.id for c in fallback_more.CASES} <= {c.id for c in cases}
    for case in cases:
        for subject in (ReferenceStructuredOutput(), m.LineFenceStructured()):
            runs = _run(case, subject, dialect)
            assert runs is None or [r.interface for r in runs] == ["sync", "async"], case.id


def test_references_and_another_shape_pass_every_history_case() -> None:
    cases = [c for c in default_registry() if c.contract == "history"
             and c.id != "history.random_histories"]
    for case in cases:
        for subject in (ReferenceHistoryBuilder(), m.IndexFirstHistory()):
            assert run_case(case, subject, Profile()), case.id


def test_the_cut_case_skips_where_arguments_come_whole() -> None:
    case = FALLBACK["fallback.cut_call_not_repaired"]
    for dialect in ("gemini", "ollama"):
        with pytest.raises(CaseSkipped, match="never as text"):
            run_case(case, ReferenceStructuredOutput(), Profile(), dialect=dialect)
    [run, _] = run_case(case, ReferenceStructuredOutput(), Profile())
    # read to its end, which is no StreamDone: the trace says so
    assert run.opens[0].done and run.opens[0].read == run.opens[0].events


def test_the_docs_example_finds_the_json_fence_after_another_language() -> None:
    """docs/fallback.md's shim consumes the language tag of each fence (its old pattern is the
    DocsFenceRegex control) and passes the new case."""
    text = (ROOT / "docs" / "fallback.md").read_text(encoding="utf-8")
    source = re.search(r"```python\n(# conftest\.py.*?)```\n", text, re.DOTALL).group(1)
    namespace: dict[str, object] = {"__name__": "docs_conftest"}
    code = compile(source.replace("@pytest.fixture\n", ""), "fallback.md", "exec")
    exec(code, namespace)  # noqa: S102 -- the docs' own example, run as written
    for case in [*fallback_more.CASES,
                 *(c for c in default_registry() if c.id.startswith("fallback.fence"))]:
        [run] = run_case(case, namespace["MyStructured"](), Profile(async_=False))
        assert run.result is not None, case.id


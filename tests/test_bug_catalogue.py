"""The real-bug catalogue stays true: every WIRE.md §6 bug has a negative control that runs and a
case that cites it, and the committed docs/bugs.md is what ``pytest_toolcall.cases.bugs`` renders."""

from __future__ import annotations

import functools
import importlib
import os
import textwrap
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from page_commands import assert_write_and_check

from pytest_toolcall.cases import bugs
from pytest_toolcall.cases import ScriptedCall, Step, Turn, make_case
from pytest_toolcall.providers.base import DIALECT_NAMES
from pytest_toolcall.core.model import ChatRequest, UserMessage

ROOT = Path(__file__).resolve().parents[1]
BUGS_MD = ROOT / "docs" / "bugs.md"
#: WIRE.md, the project's notes on provider wire formats, is kept beside the repository
#: (../shared/WIRE.md, shared with the sessions that write the kit), not in it: a clone has no copy.
#: bugs.BUGS (pytest_toolcall/cases/bugs.py) is the committed copy of its §6 table, each row with its
#: public source. $TOOLCALL_WIRE_MD points at another copy.
WIRE_MD_ENV = "TOOLCALL_WIRE_MD"
WIRE_MD = Path(os.environ.get(WIRE_MD_ENV) or ROOT.parent / "shared" / "WIRE.md")

#: §6 reports with a control and a citing case, but no control that is run against a case citing
#: the same report. Reported to the lead; the test below fails when one gets joined, so the entry
#: is removed then.
#: controls citing a report that are not run against a case citing it (none at present)
KNOWN_UNJOINED: set[bugs.Ref] = set()


@pytest.fixture(scope="module", autouse=True)
def _read_the_repository_once() -> Iterator[None]:
    """The tests here read the same, unchanged tests/ of the repository: it is parsed once
    (each read parses every test file, ~1 s), and the catalogue of the repository's own cases
    and controls rendered once (~0.3 s; four renders here: the committed page's test and
    ``--check``, ``--write``, ``--check``); what each test does with it is what is tested.
    Any other tree, or other cases, is read and rendered every time."""
    read, render = bugs.read_controls, bugs.render
    once = functools.cache(lambda: read(ROOT))
    rendered = functools.cache(lambda: render(ROOT))
    patch = pytest.MonkeyPatch()
    patch.setattr(bugs, "read_controls",
                  lambda root=ROOT: once() if Path(root).resolve() == ROOT else read(root))
    patch.setattr(bugs, "render", lambda root=ROOT, cases=None: (
        rendered() if cases is None and Path(root).resolve() == ROOT else render(root, cases)))
    yield
    patch.undo()


@pytest.fixture(scope="module")
def controls() -> dict[tuple[str, str], bugs.Control]:
    return bugs.read_controls(ROOT)


@pytest.fixture(scope="module")
def cases() -> list:
    return bugs.builtin_cases()


def _section6_refs() -> list[bugs.Ref]:
    return [ref for source, _ in bugs.BUGS for ref in bugs.parse_refs(source)]


# -- (a) the committed file is fresh -----------------------------------------------------------
def test_committed_bug_catalogue_equals_a_fresh_render() -> None:
    committed = BUGS_MD.read_text(encoding="utf-8") if BUGS_MD.exists() else ""
    assert committed == bugs.render(ROOT), (
        "docs/bugs.md is out of date with the cases and the controls. Regenerate it from "
        f"the repository root with:  {bugs.COMMAND}")


def test_write_and_check_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the renders read tests/ once (_read_the_repository_once)
    assert_write_and_check(bugs.main, tmp_path, "bugs.md", BUGS_MD)


# -- (b) every §6 bug: the list matches WIRE.md, and each has a control and a case -------------
def test_bug_list_matches_wire_md() -> None:
    if not WIRE_MD.exists():
        if os.environ.get(WIRE_MD_ENV):
            pytest.fail(f"${WIRE_MD_ENV} points at {WIRE_MD}, which does not exist")
        reason = (f"not checked: {WIRE_MD} is absent. WIRE.md (the project's notes on provider "
                  "wire formats) lives beside the repository, not in it, so a clone has no copy; "
                  "bugs.BUGS in pytest_toolcall/cases/bugs.py is the committed copy of its §6 table and "
                  "the other tests here check that copy against the controls, the cases and "
                  f"docs/bugs.md. Set ${WIRE_MD_ENV} to a copy of WIRE.md to run this check.")
        warnings.warn(pytest.PytestWarning(reason), stacklevel=1)  # in the warnings summary
        pytest.skip(reason)
    table = bugs.parse_wire_table(WIRE_MD.read_text(encoding="utf-8"))
    assert len(table) >= 17, "the §6 table of WIRE.md was not found or not parsed"
    assert [source for source, _ in table] == [source for source, _ in bugs.BUGS], (
        "WIRE.md §6 changed: update bugs.BUGS in pytest_toolcall/cases/bugs.py, then run "
        f"{bugs.COMMAND}")
    assert list(bugs.BUGS) == table


def test_every_section6_report_has_a_control_and_a_case(controls: dict, cases: list) -> None:
    refs = _section6_refs()
    assert len(refs) >= 20  # multi-report rows ("ollama #15457 / #7881") count each report
    no_control = [str(r) for r in refs if not bugs.controls_citing(r, controls.values())]
    no_case = [str(r) for r in refs if not bugs.cases_citing(r, cases)]
    assert not no_control, (f"WIRE.md §6 reports no control in the controls modules cites: "
                            f"{no_control}")
    assert not no_case, f"WIRE.md §6 reports no built-in case's `why` cites: {no_case}"


def test_controls_run_against_a_case_citing_the_same_report(controls: dict, cases: list) -> None:
    unjoined = set()
    for ref in _section6_refs():
        citing = {case.id for case in bugs.cases_citing(ref, cases)}
        if not any(case_id in citing for control in bugs.controls_citing(ref, controls.values())
                   for _, _, case_id, _ in control.runs):
            unjoined.add(ref)
    assert unjoined == KNOWN_UNJOINED, (
        "a control citing a §6 report should be run against a case whose why cites it; "
        f"unjoined now: {sorted(map(str, unjoined))} (update KNOWN_UNJOINED when one is fixed)")


# -- (c) every control cited for a bug is run ----------------------------------------------------
def test_every_control_cited_for_a_bug_is_in_a_control_table(controls: dict) -> None:
    section6 = set(_section6_refs())
    cited = [c for c in controls.values() if section6 & set(c.refs)]
    assert len(cited) >= 20
    never_run = [f"{c.path}::{c.name}" for c in cited if not c.runs]
    assert not never_run, (f"controls citing a WIRE.md §6 bug are in no CONTROLS table, so "
                           f"nothing runs them: {never_run}")
    for control in cited:
        for _, _, case_id, dialect in control.runs:
            assert dialect in DIALECT_NAMES, (control.name, dialect)


#: the modules with control tables: each provider's controls module (its tables name its own
#: classes bare, other modules' through an import)
TABLE_MODULES = sorted(p.stem for p in (ROOT / "tests" / "providers").glob("controls_*.py"))


@pytest.mark.parametrize("table_module", TABLE_MODULES)
def test_ast_reader_agrees_with_the_imported_tables(controls: dict, table_module: str) -> None:
    """What ``read_controls`` finds without importing equals the tables the tests really run,
    and the dialect it files them under is the module's provider."""
    module = importlib.import_module(table_module)
    imported = set()
    for name, value in vars(module).items():
        if name.isupper() and isinstance(value, list):
            imported |= {(name, row[0], row[1].__name__) for row in value
                         if isinstance(row, tuple) and isinstance(row[1], type)}
    found = {(table, case_id, c.name) for c in controls.values()
             for file, table, case_id, _ in c.runs if file == f"{table_module}.py"}
    assert imported and found == imported
    dialects = {dialect for c in controls.values() for file, _, _, dialect in c.runs
                if file == f"{table_module}.py"}
    assert dialects == {getattr(module, "PROVIDER", "openai")}


def test_read_controls_dialects_and_compat_route(controls: dict) -> None:
    keys = controls[("controls_openai", "KeysOnIndexOnly")]
    assert bugs.Ref("ollama", 15457) in keys.refs and bugs.Ref("litellm", 5231) in keys.refs
    # the same OpenAI control runs on the openai fake and on ollama's OpenAI-compatible route
    assert ("controls_ollama.py", "COMPAT_CONTROLS", "stream.index_stuck_at_zero",
            "ollama") in keys.runs
    assert keys.dialects == ["ollama", "openai"]
    assert controls[("controls_openai_responses", "CallIdFromFragments")].dialects == [
        "openai-responses"]
    assert ("controls_anthropic", "_ZeroIndex") not in controls  # helpers are not controls


# -- the pieces ----------------------------------------------------------------------------------
def test_parse_refs() -> None:
    R = bugs.Ref
    assert bugs.parse_refs("ollama #15457 / #7881") == [R("ollama", 15457), R("ollama", 7881)]
    assert bugs.parse_refs("(ollama #15457, litellm #33678, #5231)") == [
        R("ollama", 15457), R("litellm", 33678), R("litellm", 5231)]
    assert bugs.parse_refs("vercel/ai #15891, litellm PR #34603") == [
        R("vercel/ai", 15891), R("litellm", 34603)]
    assert bugs.parse_refs("TanStack/ai #199: id = function name") == [R("tanstack/ai", 199)]
    assert bugs.parse_refs("langchainjs #10196") == [R("langchainjs", 10196)]  # not langchain
    assert bugs.parse_refs("openclaw #46679 and #50713") == [R("openclaw", 46679),
                                                               R("openclaw", 50713)]
    assert bugs.parse_refs("index 0 for 3 calls, no report") == []
    assert bugs.parse_refs("litellm #5063; litellm PR #5063 and #5063") == [R("litellm", 5063)]


def test_parse_wire_table_reads_only_section_6() -> None:
    text = textwrap.dedent("""\
        ## 5. Other
        | source | bug |
        |---|---|
        | not me #1 | no |
        ## 6. Real adapter bugs
        | source | bug |
        |---|---|
        | a #1 | first |
        | b PR #2, c #3 | second `x` |
        ## 7. Later
        | d #4 | no |
        """)
    assert bugs.parse_wire_table(text) == [("a #1", "first"), ("b PR #2, c #3", "second `x`")]
    assert bugs.parse_wire_table("# nothing here\n") == []


def test_render_from_a_small_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "controls_x.py").write_text(textwrap.dedent('''\
        class Broken:
            """Merges calls (litellm #5231)."""
        class Unrun:
            """Never in a table (litellm #5231)."""
        class _Helper:
            """Not a control (litellm #5231)."""
        '''), encoding="utf-8")
    (tests / "test_controls_x.py").write_text(textwrap.dedent('''\
        import controls_x as c
        DIALECT = "gemini"
        CONTROLS: list = [("stream.demo", c.Broken, "response.tool_calls.count")]
        '''), encoding="utf-8")
    demo = make_case(
        id="stream.demo", title="A demo", why="litellm #5231: merged.", dialects=("gemini",),
        steps=(Step(request=ChatRequest(messages=(UserMessage(content="hi"),)),
                    reply=Turn(tool_calls=(ScriptedCall(name="f"),)), via="stream"),))
    monkeypatch.setattr(bugs, "BUGS", (("litellm #5231", "index 0"), ("nobody #9", "gap")))
    text = bugs.render(tmp_path, [demo])
    assert "| litellm #5231 | index 0 | 1 | 2 |" in text
    assert "| nobody #9 | gap | 0 | 0 |" in text
    assert "  - `stream.demo` (gemini): A demo" in text
    assert ("  - `Broken` ([tests/controls_x.py](../tests/controls_x.py)) — fails gemini: "
            "`stream.demo`") in text
    assert "`Unrun` ([tests/controls_x.py](../tests/controls_x.py)) — **not in any control " \
           "table: never run**" in text
    assert "_Helper" not in text
    section = text.split("## nobody #9", 1)[1]
    assert "- cases: **none**" in section and "- controls: **none**" in section
    assert bugs.render(tmp_path, [demo]) == text  # deterministic


def test_render_without_tests_dir_names_the_fix(tmp_path: Path) -> None:
    from pytest_toolcall.core.errors import UsageError

    with pytest.raises(UsageError, match="source checkout"):
        bugs.render(tmp_path, [])


# -- docs/dialects.md names what the code has ------------------------------------------------------
DIALECTS_MD = ROOT / "docs" / "dialects.md"


def _rule_names(path: Path) -> set[str]:
    """The constant ``rule="..."`` keywords of a dialect module: the names of its rejections
    (both strings of ``rule="auth.invalid" if auth else "auth.missing"`` too)."""
    import ast

    def strings(value: ast.expr) -> list[str]:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return [value.value]
        if isinstance(value, ast.IfExp):
            return strings(value.body) + strings(value.orelse)
        return []

    return {name for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Call) for kw in node.keywords if kw.arg == "rule"
            for name in strings(kw.value)}


def _dialect_section(name: str) -> str:
    text = DIALECTS_MD.read_text(encoding="utf-8")
    parts = text.split(f"\n## {name}\n", 1)
    assert len(parts) == 2, f"docs/dialects.md has no '## {name}' section"
    return parts[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("dialect", DIALECT_NAMES)
def test_dialects_md_names_each_dialects_rules_and_cases(dialect: str, cases: list) -> None:
    section = _dialect_section(dialect)
    from pytest_toolcall.providers import folder

    module = ROOT / "pytest_toolcall" / "providers" / folder(dialect) / "dialect.py"
    rules = _rule_names(module) - {"route"}  # the 404 is described in prose
    if dialect == "vertex":  # Vertex plays the gemini wire's rules on its own routes and auth
        rules |= _rule_names(module.parents[1] / "gemini" / "dialect.py") - {"route"}
    # a service on another dialect's wire (deepseek) adds a few rules of its own
    from pytest_toolcall.providers import DIALECTS

    assert len(rules) >= (4 if dialect in (*DIALECTS, "vertex") else 1)
    missing = sorted(r for r in rules if f"`{r}`" not in section)
    assert not missing, f"docs/dialects.md '## {dialect}' does not name the rules {missing}"
    own = [c.id for c in cases if c.contract == "chat" and c.dialects == (dialect,)]
    assert own, dialect
    missing = [case_id for case_id in own if f"`{case_id}`" not in section]
    assert not missing, f"docs/dialects.md '## {dialect}' does not list its cases {missing}"
    from pytest_toolcall.reference import reference_profile

    profile = reference_profile(dialect)
    assert "**Reference profile:**" in section
    if not profile.parallel_tool_calls:
        assert '"parallel_tool_calls": False' in section


def test_dialects_md_lists_every_quirk() -> None:
    from pytest_toolcall.cases import QUIRKS

    table = _dialect_section("Quirks")
    for quirk in QUIRKS:
        assert f"\n| `{quirk}` |" in table, f"docs/dialects.md: quirk {quirk} is not in the table"

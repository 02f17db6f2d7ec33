"""The real-bug catalogue: ``docs/bugs.md``, built from the cases, the negative controls and
the census of public reports (:mod:`pytest_toolcall.cases.census`).

WIRE.md §6 lists real adapter bugs the suite must catch. Each one is reproduced by at least one
negative control (a broken adapter in a ``*controls*.py`` module of ``tests/`` or
``tests/providers/`` whose docstring cites the public report) and caught by at least one built-in
case (whose ``why`` cites it). This module joins the two, by the citation, into one table per
bug: source -> bug -> cases -> controls (dialects).

The control docstrings and the tables that run them (``CONTROLS``-style lists of (case id,
control, clause) rows, in a controls module itself, e.g. ``tests/providers/controls_groq.py``,
or in a ``test_*.py`` module of those folders; a control of ``tests/providers/`` declares its
own rows with ``@fails(case id, clause)`` above its class) are read with :mod:`ast`; no test
module is imported. Regenerate the committed catalogue from the repository root with::

    python -m pytest_toolcall.cases.bugs --write

``tests/test_bug_catalogue.py`` fails when the committed file and a fresh render differ.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pytest_toolcall.cases import Case
from pytest_toolcall.core.errors import UsageError

#: what the short source names in the cases' *why* texts stand for (cases.md, bugs.md)
SOURCES_NOTE = (
    "Short source names in the *why* texts: **seed 001** to **seed 004** are the four systems "
    "the kit grew from (001: a chat assistant that runs tools while streaming; 002: a chat tool "
    "loop whose adversarial review checked acceptance criteria AC1 to AC10, see "
    "[loops.md](loops.md); 003: a streamed tool-arguments collector with JSON and text "
    "fallbacks, see [fallback.md](fallback.md); 004: a pull request adding native tool calling "
    "to four providers). **WIRE.md §N** is section N of the project's notes on provider wire "
    "formats: their facts, with the public sources, are in [dialects.md](dialects.md), and §6, "
    "the list of real bugs, is [bugs.md](bugs.md). **issue N** is an issue of this project "
    "(issue 14 ran 17 real client libraries through the kit).")

__all__ = [
    "BUGS",
    "COMMAND",
    "DEFAULT_PATH",
    "Control",
    "Ref",
    "builtin_cases",
    "cases_citing",
    "controls_citing",
    "main",
    "parse_refs",
    "parse_wire_table",
    "read_controls",
    "render",
]

#: The command that regenerates the committed catalogue (quoted in failure messages).
COMMAND = "python -m pytest_toolcall.cases.bugs --write"
#: Where ``--write`` puts the catalogue, relative to the current directory.
DEFAULT_PATH = Path("docs") / "bugs.md"
#: The repository this module belongs to (``tests/`` lives there in a source checkout).
ROOT = Path(__file__).resolve().parents[2]

#: WIRE.md §6, "Real adapter bugs a conformance suite must catch": (source, bug), in its order.
#: ``tests/test_bug_catalogue.py`` compares this list with the table in WIRE.md when that file
#: is present, so the two cannot drift apart silently.
BUGS: tuple[tuple[str, str], ...] = (
    ("litellm #5063",
     "streamed zero-argument Anthropic tool left `arguments:\"\"`; replay failed to parse"),
    ("litellm #5231", "parallel tool_use blocks all mapped to index 0"),
    ("litellm #21331", "Responses stream bridge put every parallel call on index 0"),
    ("litellm #33678", "Ollama stream, index 0 for every call: `{\"path\":\"a\"}{\"path\":\"b\"}`"),
    ("litellm #11262", "Ollama calls without ids could not be paired with results"),
    ("ollama #15457 / #7881", "OpenAI-compatible stream: index stuck at 0 / missing"),
    ("langchain #34807, #40041", "parallel calls merged by index; repeated `name` concatenated"),
    ("langchain PR #32222", "non-ASCII arguments replayed as `\\uXXXX` escapes"),
    ("langchain #27799", "Gemini: function response turn not right after the call turn"),
    ("langchainjs #10196", "Gemini: only the first functionCall part of a chunk read"),
    ("TanStack/ai #199", "id = function name: same-name parallel calls collapsed"),
    ("vercel/ai #15891, litellm PR #34603", "Gemini call ids dropped or sent where rejected"),
    ("pydantic-ai #1654", "zero-argument tool in a stream never completed (`arguments` null)"),
    ("openai-python PR #3502",
     "`arguments:\"\"` for a strict no-argument tool; `json.loads(\"\")` crashed"),
    ("openai-agents #4553", "streamed function call with an empty `call_id`"),
    ("adk-python #1038", "parallel streamed calls: `{\"project_id\": 3}{\"project_id\": 9}`"),
    ("litellm #11407", "adapter expected the id on every chunk (it only comes on the first)"),
)


@dataclass(frozen=True, order=True)
class Ref:
    """One public report: project and number (issue and PR numbers share one sequence on
    GitHub, so a ``PR`` label does not change which report it is)."""

    project: str
    number: int

    def __str__(self) -> str:
        return f"{self.project} #{self.number}"


# "<project> [PR ]#N", then any bare "[PR ]#N" joined to it by ",", "/", "and" or ";"
_PROJECT_REF = re.compile(r"(?<![\w/.-])([A-Za-z][\w.-]*(?:/[\w.-]+)?)\s+(?:PR\s+)?#(\d+)")
_CONNECTORS = {"and", "or", "pr", "see", "also"}
_MORE_REF = re.compile(r"\s*(?:,|/|;|\band\b)\s*(?:and\s+)?(?:PR\s+)?#(\d+)")


def parse_refs(text: str) -> list[Ref]:
    """Every report ``text`` cites, in order, without repeats: ``litellm #5063``,
    ``litellm PR #34603``, and bare numbers that continue a list (``ollama #15457 / #7881``,
    ``litellm #33678, #5231``) take the project before them."""
    found: list[Ref] = []
    position = 0
    while (match := _PROJECT_REF.search(text, position)) is not None:
        project = match.group(1).lower()
        numbers = [match.group(2)]
        position = match.end()
        while (more := _MORE_REF.match(text, position)) is not None:
            numbers.append(more.group(1))
            position = more.end()
        if project in _CONNECTORS:  # "... and #12" that no project reference came before
            continue
        for number in numbers:
            ref = Ref(project, int(number))
            if ref not in found:
                found.append(ref)
    return found


def parse_wire_table(text: str) -> list[tuple[str, str]]:
    """The ``| source | bug |`` rows of WIRE.md §6 (the section whose heading starts with
    ``## 6.``), in order. An empty list when there is no such section."""
    section = re.search(r"^## 6\..*?$(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    if section is None:
        return []
    rows = []
    for line in section.group(1).splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) != 2 or cells[0] == "source" or set(cells[0]) <= set("-: "):
            continue
        rows.append((cells[0], cells[1]))
    return rows


# -- the controls, read from the test files ----------------------------------------------------
@dataclass
class Control:
    """A negative control: a public class of a ``*controls*.py`` module of :data:`TEST_DIRS`."""

    name: str
    module: str  # e.g. "controls_gemini"
    path: str  # relative to the repository root, e.g. "tests/providers/controls_gemini.py"
    doc: str
    refs: list[Ref]
    #: where it runs: (file, table, case id, dialect), from the tables of the controls modules
    #: and of the test modules
    runs: list[tuple[str, str, str, str]] = field(default_factory=list)

    @property
    def dialects(self) -> list[str]:
        return sorted({dialect for _, _, _, dialect in self.runs})


#: where the controls and their tables are, relative to the repository root: the kit's own
#: (``tests/``) and the providers' (``tests/providers/``, which mirrors ``providers/``)
TEST_DIRS = ("tests", "tests/providers")


def _control_modules(root: Path) -> list[Path]:
    return sorted(p for folder in TEST_DIRS for p in (root / folder).glob("*controls*.py")
                  if not p.name.startswith("test_"))


def _test_modules(root: Path) -> list[Path]:
    return sorted(p for folder in TEST_DIRS for p in (root / folder).glob("test_*.py"))


def _file_dialect(tree: ast.Module) -> str:
    """The dialect a module runs its controls against: its module-level ``PROVIDER`` or
    ``DIALECT``, else the one literal given to ``FakeProvider(...)``; ``"openai"`` (the default
    fake) otherwise."""
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in ("PROVIDER", "DIALECT")
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            return node.value.value
    literals = {node.args[0].value for node in ast.walk(tree)
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "FakeProvider" and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)}
    return literals.pop() if len(literals) == 1 else "openai"


def _tables(tree: ast.Module) -> Iterable[tuple[str, ast.expr]]:
    """Module-level UPPER_CASE list assignments (annotated or not): the control tables."""
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            name, value = node.target.id, node.value
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1
              and isinstance(node.targets[0], ast.Name)):
            name, value = node.targets[0].id, node.value
        else:
            continue
        if name.isupper() and isinstance(value, ast.List):
            yield name, value


def _declared(tree: ast.Module) -> Iterable[tuple[str, str, str]]:
    """The rows the module's classes declare on themselves, ``@fails(case id, clause)`` or
    ``@fails(case id, clause, table="SHARED_CONTROLS")`` (``tests/providers/provider_kit.py``):
    (class name, case id, table), a table being ``CONTROLS`` unless said."""
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for decorator in node.decorator_list:
            if not (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Name)
                    and decorator.func.id == "fails" and decorator.args
                    and isinstance(decorator.args[0], ast.Constant)):
                continue
            table = next((k.value.value for k in decorator.keywords if k.arg == "table"
                          and isinstance(k.value, ast.Constant)), "CONTROLS")
            yield node.name, str(decorator.args[0].value), str(table)


def _control_named(item: ast.expr, module: str, modules: dict[str, str],
                   names: dict[str, tuple[str, str]],
                   controls: dict[tuple[str, str], Control]) -> Control | None:
    """The control a table row names: ``alias.Class`` (an imported controls module), a bare
    ``Class`` imported from one, or a bare ``Class`` of the controls module the table is in."""
    if isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name):
        key = (modules.get(item.value.id, ""), item.attr)
    elif isinstance(item, ast.Name):
        key = names.get(item.id, (module, item.id))
    else:
        return None
    return controls.get(key)


def read_controls(root: Path = ROOT) -> dict[tuple[str, str], Control]:
    """The controls of ``root``'s :data:`TEST_DIRS`, keyed by (module, class name), each with the
    reports its docstring cites and the table rows that run it: the tables of the controls
    modules themselves and of the ``test_*.py`` modules beside them."""
    tests = root / "tests"
    if not tests.is_dir():
        raise UsageError(f"no tests/ directory under {root}: the bug catalogue is built from a "
                         "source checkout of pytest-toolcall; run it from the repository root")
    controls: dict[tuple[str, str], Control] = {}
    for path in _control_modules(root):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                doc = ast.get_docstring(node) or ""
                controls[(path.stem, node.name)] = Control(
                    node.name, path.stem, path.relative_to(root).as_posix(), doc, parse_refs(doc))
    for path in [*_control_modules(root), *_test_modules(root)]:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        modules: dict[str, str] = {}  # local name -> module (import controls_x as c)
        names: dict[str, tuple[str, str]] = {}  # local name -> (module, name) (from ... import)
        for node in tree.body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    modules[alias.asname or alias.name] = alias.name
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    names[alias.asname or alias.name] = (node.module, alias.name)
        dialect = _file_dialect(tree)
        for name, case_id, table in _declared(tree):
            control = controls.get((path.stem, name))
            run = (path.name, table, case_id, dialect)
            if control is not None and run not in control.runs:
                control.runs.append(run)
        for table, value in _tables(tree):
            for row in value.elts:
                if not isinstance(row, ast.Tuple) or not row.elts:
                    continue
                first = row.elts[0]
                case_id = first.value if isinstance(first, ast.Constant) else "?"
                for item in row.elts[1:]:
                    control = _control_named(item, path.stem, modules, names, controls)
                    run = (path.name, table, str(case_id), dialect)
                    if control is not None and run not in control.runs:
                        control.runs.append(run)
    return controls


# -- the cases -------------------------------------------------------------------------------
def builtin_cases() -> list[Case]:
    """The built-in cases (never user cases added with ``register``), sorted by id."""
    import pytest_toolcall.conformance as conformance

    return sorted(conformance.builtin_cases(), key=lambda c: c.id)


def cases_citing(ref: Ref, cases: Iterable[Case]) -> list[Case]:
    """The cases whose ``why`` cites ``ref``."""
    return [case for case in cases if ref in parse_refs(case.why)]


def controls_citing(ref: Ref, controls: Iterable[Control]) -> list[Control]:
    """The controls whose docstring cites ``ref``, sorted by module and name."""
    return sorted((c for c in controls if ref in c.refs), key=lambda c: (c.module, c.name))


# -- rendering ---------------------------------------------------------------------------------
def _dialects(case: Case) -> str:
    return "all dialects" if "*" in case.dialects else ", ".join(case.dialects)


def _control_line(control: Control) -> str:
    by_dialect: dict[str, list[str]] = {}
    for _, _, case_id, dialect in control.runs:
        by_dialect.setdefault(dialect, [])
        if case_id not in by_dialect[dialect]:
            by_dialect[dialect].append(case_id)
    where = "; ".join(f"{d}: " + ", ".join(f"`{k}`" for k in sorted(ids))
                      for d, ids in sorted(by_dialect.items()))
    return (f"  - `{control.name}` ([{control.path}](../{control.path})) — "
            + (f"fails {where}" if where else "**not in any control table: never run**"))


def render(root: Path = ROOT, cases: Sequence[Case] | None = None) -> str:
    """The catalogue as Markdown. Deterministic: same cases and test files, same text."""
    cases = builtin_cases() if cases is None else sorted(cases, key=lambda c: c.id)
    controls = list(read_controls(root).values())
    out = [
        "# Real-bug catalogue",
        "",
        ("<!-- Generated from the cases and the controls of tests/ and tests/providers/. Do not "
         f"edit by hand; run `{COMMAND}`. -->"),
        "",
        (f"{len(BUGS)} real tool-calling bugs from public issue trackers (the list in section 6 "
        "of the project's notes on provider wire formats, WIRE.md §6), each with "
        "the built-in cases whose *why* cites it and the negative controls that reproduce it. A "
        "negative control is a copy of a reference adapter with one method broken the way the "
        "report describes; the test file named under it runs the control against the case and "
        "asserts that the case fails on the clause it should. See [cases.md](cases.md) for each "
        "case and [dialects.md](dialects.md) for the wire formats."),
        "",
        SOURCES_NOTE,
        "",
        "| source | bug | cases | controls |",
        "|---|---|---:|---:|",
    ]
    sections: list[str] = []
    for source, bug in BUGS:
        refs = parse_refs(source)
        row_cases = [c for c in cases if set(refs) & set(parse_refs(c.why))]
        row_controls = sorted({(c.module, c.name): c for ref in refs
                               for c in controls_citing(ref, controls)}.values(),
                              key=lambda c: (c.module, c.name))
        out.append(f"| {source} | {bug} | {len(row_cases)} | {len(row_controls)} |")
        sections += [f"## {source}", "", bug, ""]
        for ref in refs:
            label = f" ({ref})" if len(refs) > 1 else ""
            ref_cases = cases_citing(ref, cases)
            ref_controls = controls_citing(ref, controls)
            sections.append(f"- cases{label}:" + ("" if ref_cases else " **none**"))
            sections += [f"  - `{c.id}` ({_dialects(c)}): {c.title}" for c in ref_cases]
            sections.append(f"- controls{label}:" + ("" if ref_controls else " **none**"))
            sections += [_control_line(c) for c in ref_controls]
        sections.append("")
    out += ["", *sections]
    from pytest_toolcall.cases import census

    out += census.render_section(census.load(), [c.id for c in cases], controls)
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_toolcall.cases.bugs",
        description="Print the real-bug catalogue (docs/bugs.md): WIRE.md §6 bugs, the cases "
                    "that cite them and the negative controls that reproduce them.")
    parser.add_argument("--write", action="store_true",
                        help=f"write it to {DEFAULT_PATH.as_posix()} (run from the repository "
                             "root) instead of printing it")
    parser.add_argument("--check", action="store_true",
                        help=f"exit 1 when {DEFAULT_PATH.as_posix()} differs from a fresh render")
    args = parser.parse_args(argv)
    if (args.write or args.check) and not DEFAULT_PATH.parent.is_dir():
        print(f"error: no {DEFAULT_PATH.parent}/ directory in {Path.cwd()}; run this from the "
              "repository root", file=sys.stderr)
        return 2
    try:
        text = render()
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.check:
        current = DEFAULT_PATH.read_text(encoding="utf-8") if DEFAULT_PATH.exists() else ""
        if current != text:
            print(f"{DEFAULT_PATH.as_posix()} is out of date; run: {COMMAND}", file=sys.stderr)
            return 1
        return 0
    if args.write:
        DEFAULT_PATH.write_bytes(text.encode("utf-8"))
        print(f"wrote {DEFAULT_PATH.as_posix()} ({len(BUGS)} bugs)", file=sys.stderr)
        return 0
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

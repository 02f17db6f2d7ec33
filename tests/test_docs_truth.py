"""The docs say what is true: each option and its ini twin, the pass-rate formula, the list of
pages in the README, and no internal shorthand a user cannot follow."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_toolcall.cases.bugs import SOURCES_NOTE

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = sorted((ROOT / "docs").glob("*.md"))
#: options that deliberately have no ini twin, and why (the README says so too)
NO_INI_TWIN = {"toolcall_snapshot_update": "rewriting snapshots is a one-off action"}
#: the one way the pass rate is written, everywhere it is written
PASS_RATE = "(passed + xpassed + hardening) / (passed + xpassed + hardening + failed + error)"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _section(title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README, re.M | re.S)
    assert match, f"README.md has no '## {title}' section"
    return match.group(1)


@pytest.fixture
def toolcall_options(pytestconfig: pytest.Config) -> dict[str, object]:
    parser = pytestconfig._parser  # the parser pytest built, with every plugin's options
    options = {o.dest: o for g in parser._groups if g.name.startswith("toolcall")
               for o in g.options}
    assert len(options) >= 10, "the toolcall option group was not found"
    return options


@pytest.fixture
def toolcall_inis(pytestconfig: pytest.Config) -> set[str]:
    return {name for name in pytestconfig._parser._inidict if name.startswith("toolcall_")}


def test_every_option_has_an_ini_twin_but_the_documented_exception(
        toolcall_options: dict, toolcall_inis: set[str]) -> None:
    missing = sorted(set(toolcall_options) - toolcall_inis - set(NO_INI_TWIN))
    assert not missing, f"options without an ini setting of the same name: {missing}"
    for dest in NO_INI_TWIN:
        assert dest in toolcall_options and dest not in toolcall_inis, dest
    for dest, option in toolcall_options.items():
        if dest in toolcall_inis:
            assert f"(ini: {dest}" in _flat(option.attrs()["help"]), (
                f"--{dest.replace('_', '-')}: its --help text should name its ini twin")


def test_readme_options_table_matches_the_parser(toolcall_options: dict,
                                                 toolcall_inis: set[str]) -> None:
    section = _section("Options")
    rows: dict[str | None, str | None] = {}
    inis: set[str] = set()  # every row's ini (the ini-only rows all have no option)
    for line in section.splitlines():
        if not line.startswith("|") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        option = re.match(r"`(--toolcall-[a-z-]+)", cells[0])
        ini = re.match(r"`(toolcall_[a-z_]+)`", cells[1])
        if option or ini:
            rows[option.group(1) if option else None] = ini.group(1) if ini else None
            inis.update([ini.group(1)] if ini else [])
    for dest in toolcall_options:
        flag = "--" + dest.replace("_", "-")
        assert flag in rows, f"README's options table has no row for {flag}"
        expected = dest if dest in toolcall_inis else None
        assert rows[flag] == expected, f"README: {flag} has ini {rows[flag]!r}, not {expected!r}"
    ini_only = sorted(toolcall_inis - set(toolcall_options))
    assert set(ini_only) <= inis, (
        f"README: the ini-only settings {ini_only} need a row")
    text = _flat(section)
    for dest in NO_INI_TWIN:
        flag = "--" + dest.replace("_", "-")
        assert f"Every option but `{flag}` has an ini twin" in text


def test_one_pass_rate_formula_everywhere(toolcall_options: dict) -> None:
    from pytest_toolcall.output import report

    places = {
        "--toolcall-min-pass-rate --help": toolcall_options["toolcall_min_pass_rate"].attrs()["help"],
        "README.md": README,
        "docs/ci.md": (ROOT / "docs" / "ci.md").read_text(encoding="utf-8"),
        "report.evaluate_gate": report.evaluate_gate.__doc__ or "",
    }
    wrong = [name for name, text in places.items() if PASS_RATE not in _flat(text)]
    assert not wrong, f"these do not give the pass rate as {PASS_RATE}: {wrong}"
    # and no other spelling of a pass-rate fraction is left anywhere in them
    for name, text in places.items():
        others = [m for m in re.findall(r"\(?passed[^.;\n]*?/[^.;\n]*?\)", _flat(text))
                  if _flat(m).strip("()") not in PASS_RATE]
        assert not others, f"{name} also writes the pass rate as {others}"


def test_readme_documentation_section_lists_every_page() -> None:
    section = _section("Documentation")
    missing = [p.name for p in DOCS if f"(docs/{p.name})" not in section]
    assert not missing, f"README's Documentation section does not list: {missing}"


# -- internal shorthand ------------------------------------------------------------------------------
#: a short name users cannot look up, and the explanation that makes a page using it followable
SHORTHAND = {
    r"\bseed 00\d": SOURCES_NOTE,
    r"\bAC\d+\b": "acceptance criteria AC1 to AC10",
    r"WIRE\.md|§\s?\d": SOURCES_NOTE,
    r"DESIGN\.md|STYLE\.md|\.\./shared": None,  # never explained: never used
    r"\b[Ii]ssue \d+\b": SOURCES_NOTE,
}


@pytest.mark.parametrize("path", [ROOT / "README.md", *DOCS],
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_internal_shorthand_a_user_cannot_follow(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    flat = _flat(text)
    unexplained = sorted({m.group(0) for pattern, key in SHORTHAND.items()
                          for m in re.finditer(pattern, text)
                          if key is None or _flat(key) not in flat})
    assert not unexplained, (
        f"{path.relative_to(ROOT)} uses {unexplained} without saying what they are")


def test_help_texts_use_no_shorthand(toolcall_options: dict) -> None:
    for dest, option in toolcall_options.items():
        help_text = option.attrs()["help"]
        for pattern in SHORTHAND:
            assert not re.search(pattern, help_text), (dest, pattern)

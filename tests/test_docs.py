"""The docs stay true: the committed catalogue is the registry's, and every doc link resolves."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_toolcall import catalogue
from pytest_toolcall.cases import Registry, make_case

ROOT = Path(__file__).resolve().parents[1]
CASES_MD = ROOT / "docs" / "cases.md"
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# [text](target) and [text]: target; targets with a scheme or a bare #anchor are not files
_INLINE = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)", re.MULTILINE)
_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def test_committed_catalogue_equals_a_fresh_render() -> None:
    fresh = catalogue.render(catalogue.builtin_registry())
    committed = CASES_MD.read_text(encoding="utf-8") if CASES_MD.exists() else ""
    assert committed == fresh, (
        f"docs/cases.md is out of date with the case registry. Regenerate it from the repository "
        f"root with:  {catalogue.COMMAND}")


def test_every_builtin_case_is_in_the_catalogue_with_its_clauses() -> None:
    text = CASES_MD.read_text(encoding="utf-8")
    registry = catalogue.builtin_registry()
    assert len(registry) >= 30  # the built-in suite, not an empty registry
    for case in registry:
        heading = f"\n### {case.id}\n"
        assert heading in text, f"{case.id} is missing from docs/cases.md"
        entry = text.split(heading, 1)[1].split("\n### ", 1)[0]
        assert case.title in entry and case.why in entry
        for clause in catalogue.clauses_of(case):
            assert f"`{clause}`" in entry, f"{case.id}: clause {clause} not listed"
    assert text.count("\n### ") == len(registry)


def test_render_lists_needs_dialects_steps_and_each_checks_clause() -> None:
    from pytest_toolcall.cases import ScriptedCall, Step, Turn, check
    from pytest_toolcall.model import ChatRequest, UserMessage

    @check("demo.first")
    def first(run: object) -> None: ...

    @check("demo.second")
    def second(run: object) -> None: ...

    registry = Registry()
    registry.add(make_case(
        id="demo.streamed", title="A demo title", why="A demo reason.", dialects=("openai",),
        needs={"usage"}, checks=(first, second, first),
        steps=(Step(request=ChatRequest(messages=(UserMessage(content="hi"),)),
                    reply=Turn(tool_calls=(ScriptedCall(name="f"),)), via="stream",
                    expect="error"),)))
    text = catalogue.render(registry)
    assert "\n1 case in 1 family." in text
    assert "## demo (1 case)" in text
    assert "| `demo.streamed` | A demo title |" in text
    assert "- needs: `stream`, `usage`" in text  # the streaming step adds `stream`
    assert "- dialects: `openai`" in text
    assert "- steps: stream (expects an error)" in text
    assert "- clauses: `demo.first`, `demo.second`" in text  # in order, no repeats
    assert catalogue.render(registry) == text  # deterministic


def test_module_command_prints_the_committed_catalogue() -> None:
    # the exact command the failure message and the docs give, run for real
    done = subprocess.run([sys.executable, "-m", "pytest_toolcall.catalogue"], cwd=ROOT,
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode("utf-8") == catalogue.render(catalogue.builtin_registry())


def test_write_and_check_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert catalogue.main(["--write"]) == 2  # no docs/ here: refuses, names the fix
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "cases.md").write_text("stale\n", encoding="utf-8")
    assert catalogue.main(["--check"]) == 1
    assert catalogue.main(["--write"]) == 0
    assert (tmp_path / "docs" / "cases.md").read_bytes() == CASES_MD.read_bytes()
    assert catalogue.main(["--check"]) == 0


def _links(path: Path) -> list[str]:
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))  # code blocks are not links
    return _INLINE.findall(text) + _REFERENCE.findall(text)


def test_doc_files_are_found() -> None:
    names = {p.name for p in DOC_FILES}
    assert {"README.md", "quickstart.md", "writing-an-adapter-shim.md", "architecture.md",
            "writing-cases.md", "cases.md"} <= names


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_doc_link_points_to_an_existing_file(path: Path) -> None:
    broken = []
    for target in _links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a URL, or an anchor in the same page
        file_part = target.split("#", 1)[0]
        if not (path.parent / file_part).exists():
            broken.append(target)
    assert not broken, f"{path.relative_to(ROOT)} links to files that do not exist: {broken}"


def test_link_finder_sees_links() -> None:
    # guards the parametrized test above against a regex that finds nothing
    readme_links = _links(ROOT / "README.md")
    assert "docs/writing-an-adapter-shim.md" in readme_links
    assert "docs/cases.md" in readme_links

"""Every runnable block of README.md and docs/*.md runs as written (issue 32).

The blocks of one page run in one fresh project, in the page's order, so a later block sees the
files an earlier one wrote:

- a ```python block whose first line is ``# NAME.py`` (or that follows the marker
  ``<!-- doc-blocks: file NAME.py -->``) is written as that file; the next pytest command of the
  page collects it. A ```python block with no file name is a script: it runs with ``python``.
- a ```bash block runs line by line (``\\`` continues a line; comments skipped): ``pytest ...``
  and ``python ...`` commands, each must exit 0 unless the page says it fails (the marker
  ``<!-- doc-blocks: fails -->``: exit 1).
- ``<!-- doc-blocks: skip (WHY) -->`` before a block leaves it out, saying why (a key, the
  network, a service, a placeholder path). Every skipped block is listed in the test's output.

Blocks in other languages (text, ini, yaml, json) are output, configuration or data, not run
here: docs/ci.md's yaml workflow runs in tests/test_ci_recipe.py, README's failure output is
compared in tests/test_readme.py; the ini examples are not run. A page's pytest commands and
python scripts run, in the page's order, out of this process in one child of their own per page
(tests/doc_runs.py: ``pytest.main`` for a command, ``runpy`` for a script, the kit and its
libraries imported once, the project's own modules -- conftest.py, my_cases.py -- dropped before
each command so that it imports the files as they are then). That saves the ~1 s of imports every
further process of a page paid (issue 34). A script that runs in the page's still empty project
depends on its text alone: its run is kept for the session, and docs/cassettes.md's rehearsal,
which tests/test_cassettes_errors.py asserts on too, runs once. A page's commands run as written,
so a page whose commands run the whole suite costs what that suite costs.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from background import Job, ahead
from doc_runs import ProjectSession, doc_env, script_in_empty_project

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_MARKER = re.compile(r"<!-- doc-blocks: (skip \((?P<why>.+?)\)|file (?P<file>\S+)|fails) -->")


@dataclass
class Block:
    page: str
    line: int
    lang: str
    text: str
    skip: str | None = None
    file: str | None = None
    fails: bool = False


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    found = []
    for match in _FENCE.finditer(text):
        lang = match.group(1)
        if lang not in ("python", "bash"):
            continue
        before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        block = Block(page.name, text[:match.start()].count("\n") + 1, lang, match.group(2))
        marker = _MARKER.search(before)
        if marker:
            block.skip = marker.group("why")
            block.file = marker.group("file")
            block.fails = marker.group(0) == "<!-- doc-blocks: fails -->"
        first = block.text.split("\n", 1)[0]
        if block.file is None and lang == "python" and re.fullmatch(r"# [\w/]+\.py", first):
            block.file = first[2:]
        found.append(block)
    return found


def commands(block: Block) -> list[str]:
    lines = block.text.replace("\\\n", " ").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]


def run_page(page: Path, project: Path, keep: Path,
             env: Mapping[str, str] | None = None) -> list[str]:
    """Run the page's blocks in ``project``, with ``env`` (this process's by default) made a
    documented command's (doc_env); return the skipped blocks, each with its reason. ``keep``:
    a folder that lasts the session."""
    skipped = []
    session = ProjectSession(project, doc_env(env))
    try:
        for block in blocks(page):
            where = f"{block.page}:{block.line}"
            if block.skip:
                skipped.append(f"{where}: {block.skip}")
                continue
            if block.lang == "python" and block.file:
                target = project / block.file
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(block.text, encoding="utf-8")
                continue
            if block.lang == "python":
                script = f"doc_block_{block.line}.py"
                if not any(project.iterdir()):  # its run may be another test's already
                    done = script_in_empty_project(block.text, script, session, keep)
                    _assert_exit(where, f"python {script}", block, done.code, done.output)
                    continue
                (project / script).write_text(block.text, encoding="utf-8")
                todo = [f"python {script}"]
            else:
                todo = commands(block)
            for command in todo:
                words = shlex.split(command, comments=True)
                assert words[0] in ("pytest", "python"), (
                    f"{where}: `{command}` is not a pytest or python command; mark the block "
                    "<!-- doc-blocks: skip (why) --> if it cannot run here")
                code, output = session.run(words[0], words[1:])
                _assert_exit(where, command, block, code, output)
    finally:
        session.close()
    return skipped


def _assert_exit(where: str, command: str, block: Block, code: int, output: str) -> None:
    wanted = 1 if block.fails else 0
    assert code == wanted, (
        f"{where}: `{command}` exited {code}, the page implies {wanted}\n" + output[-9000:])


def _page_run(page: Path, where: Path, env: Mapping[str, str]) -> list[str]:
    (where / "project").mkdir()
    return run_page(page, where / "project", where, env)


#: each page's run, a job that may run ahead, beside other tests (tests/background.py): what it
#: runs is the page's commands in a fresh project of its own, which nothing else touches
PAGE_RUNS = {page: Job(f"the blocks of {page.name}", functools.partial(_page_run, page))
             for page in PAGES}


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p)],
                         ids=lambda p: p.relative_to(ROOT).as_posix())
@ahead(lambda page: PAGE_RUNS[page])
def test_the_pages_blocks_run_as_written(page: Path, ahead_run: tuple[list[str], Path]) -> None:
    skipped, _ = ahead_run
    for line in skipped:
        print("skipped:", line)


def test_the_extractor_sees_files_scripts_commands_and_markers(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```python\n# conftest.py\nX = 1\n```\n\n<!-- doc-blocks: skip (needs a "
                    "key) -->\n```bash\nexport KEY=1\n```\n\n```bash\npytest -q \\\n  -x\n```\n",
                    encoding="utf-8")
    found = blocks(page)
    assert [(b.lang, b.file, b.skip) for b in found] == [
        ("python", "conftest.py", None), ("bash", None, "needs a key"), ("bash", None, None)]
    assert commands(found[2]) == ["pytest -q    -x"]


def test_a_script_runs_as_python_would_and_its_run_in_an_empty_project_is_kept(
        tmp_path: Path) -> None:
    # the control of tests/doc_runs.py: a script's exit code, its traceback and its children's
    # output reach the test; a second run of the same text in an empty project is the first one
    first, again, runs = tmp_path / "first", tmp_path / "again", tmp_path / "runs.txt"
    first.mkdir()
    again.mkdir()
    text = (f"import pathlib, subprocess, sys\nopen({str(runs)!r}, 'a').write('ran\\n')\n"
            "pathlib.Path('left.txt').write_text('a file it left')\n"
            "subprocess.run([sys.executable, '-c', 'print(\"from its child\")'], check=True)\n"
            "sys.exit(3)\n")
    session = ProjectSession(first, doc_env())
    try:
        done = script_in_empty_project(text, "script.py", session, tmp_path)
        assert done.code == 3, done.output
        assert "from its child" in done.output
        (first / "broken.py").write_text("raise ValueError('the page is wrong')\n")
        code, output = session.run("python", ["broken.py"])
        assert code == 1 and "ValueError: the page is wrong" in output, output
    finally:
        session.close()
    kept = script_in_empty_project(text, "script.py", ProjectSession(again, doc_env()),
                                   tmp_path)
    assert kept is done, "the same text in an empty project ran again"
    assert runs.read_text() == "ran\n"
    assert (again / "left.txt").read_text() == "a file it left"

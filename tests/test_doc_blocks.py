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
compared in tests/test_readme.py; the ini examples are not run. The runs are subprocesses (the
docs use ``Profile`` and the kit's classes, which an in-process pytester run would import
twice). A page's commands run as written, so a page whose commands run the whole suite costs
what that suite costs (about 3 min for all pages together on this 2-core machine under load,
2026-11-28; README.md, cassettes.md and loops.md take most of it).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
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


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "TOOLCALL_", "GITHUB_")) and not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = str(ROOT)  # the kit of this checkout
    return env


def run_page(page: Path, project: Path) -> list[str]:
    """Run the page's blocks in ``project``; return the skipped blocks, each with its reason."""
    skipped, env = [], _env()
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
            script = project / f"doc_block_{block.line}.py"
            script.write_text(block.text, encoding="utf-8")
            todo = [f"python {script.name}"]
        else:
            todo = commands(block)
        for command in todo:
            words = shlex.split(command, comments=True)
            assert words[0] in ("pytest", "python"), (
                f"{where}: `{command}` is not a pytest or python command; mark the block "
                "<!-- doc-blocks: skip (why) --> if it cannot run here")
            # the dev extra's plugins no page is about stay off, as in every session the kit's
            # tests start (tests/conftest.py: about 0.5 s of CPU a session, 20 sessions here)
            argv = ([sys.executable, "-m", "pytest", "-p", "no:randomly",
                     "-p", "no:langsmith_plugin", "-p", "no:anyio", "-p", "no:hypothesispytest",
                     "-p", "no:recording", *words[1:]] if words[0] == "pytest"
                    else [sys.executable, *words[1:]])
            done = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True,
                                  timeout=600)
            wanted = 1 if block.fails else 0
            assert done.returncode == wanted, (
                f"{where}: `{command}` exited {done.returncode}, the page implies {wanted}\n"
                + done.stdout[-6000:] + done.stderr[-3000:])
    return skipped


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p)],
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_pages_blocks_run_as_written(page: Path, tmp_path: Path) -> None:
    skipped = run_page(page, tmp_path)
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

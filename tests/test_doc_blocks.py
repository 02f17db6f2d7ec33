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
compared in tests/test_readme.py; the ini examples are not run. The runs are out of this
process (the docs use ``Profile`` and the kit's classes, which an in-process pytester run would
import twice): a script is a ``python`` subprocess; a page's pytest commands run, in the page's
order, in one child process of their own per page (``_DRIVER``: ``pytest.main`` for each, the
kit and its libraries imported once, the project's own modules -- conftest.py, my_cases.py --
dropped between commands so that each command imports the files as they are then). That saves
the ~1 s of imports every further pytest process of a page paid (issue 34). A page's commands
run as written, so a page whose commands run the whole suite costs what that suite costs.
"""

from __future__ import annotations

import json
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


#: the dev extra's plugins no page is about stay off, as in every session the kit's tests start
#: (tests/conftest.py: about 0.5 s of CPU a session)
_PLUGINS_OFF = ["-p", "no:randomly", "-p", "no:langsmith_plugin", "-p", "no:anyio",
                "-p", "no:hypothesispytest", "-p", "no:recording"]

#: the child that runs a page's pytest commands: one JSON line in (argv, output file), one line
#: out (the exit code). Between commands it drops the modules imported from the project (the
#: page's conftest.py and the modules next to it), as a new process would not have them
_DRIVER = """\
import contextlib, json, os, sys
import pytest

project = os.path.realpath(os.getcwd())
for line in sys.stdin:
    argv, out = json.loads(line)
    for name, module in list(sys.modules.items()):
        where = os.path.realpath(getattr(module, "__file__", None) or "/")
        if where.startswith(project + os.sep):
            del sys.modules[name]
    with open(out, "w", encoding="utf-8") as sink, contextlib.redirect_stdout(sink), \\
            contextlib.redirect_stderr(sink):
        code = int(pytest.main(argv))
    print(code, flush=True)
"""


class _PageSession:
    """The page's pytest child, started at its first pytest command."""

    def __init__(self, project: Path, env: dict[str, str]) -> None:
        self.project, self.env, self.child = project, env, None
        self.count = 0

    def run(self, args: list[str]) -> tuple[int, str]:
        if self.child is None:
            self.child = subprocess.Popen([sys.executable, "-c", _DRIVER], cwd=self.project,
                                          env=self.env, stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, text=True)
        self.count += 1
        out = self.project.parent / f"{self.project.name}-pytest-{self.count}.txt"
        assert self.child.stdin is not None and self.child.stdout is not None
        self.child.stdin.write(json.dumps([[*_PLUGINS_OFF, *args], str(out)]) + "\n")
        self.child.stdin.flush()
        code = self.child.stdout.readline()
        text = out.read_text(encoding="utf-8") if out.exists() else ""
        assert code.strip(), f"the pytest child died: {text[-6000:]}"
        return int(code), text

    def close(self) -> None:
        if self.child is not None:
            assert self.child.stdin is not None
            self.child.stdin.close()
            self.child.wait(timeout=60)


def run_page(page: Path, project: Path) -> list[str]:
    """Run the page's blocks in ``project``; return the skipped blocks, each with its reason."""
    skipped, env = [], _env()
    session = _PageSession(project, env)
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
                if words[0] == "pytest":
                    code, output = session.run(words[1:])
                else:
                    done = subprocess.run([sys.executable, *words[1:]], cwd=project, env=env,
                                          capture_output=True, text=True, timeout=600,
                                          check=False)
                    code, output = done.returncode, done.stdout[-6000:] + done.stderr[-3000:]
                wanted = 1 if block.fails else 0
                assert code == wanted, (
                    f"{where}: `{command}` exited {code}, the page implies {wanted}\n"
                    + output[-9000:])
    finally:
        session.close()
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

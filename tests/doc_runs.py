"""How the kit's tests run the docs' commands and scripts (tests/test_doc_blocks.py,
tests/test_cassettes_errors.py): in a fresh project, out of the test process, one child per
project that runs each ``pytest`` command with ``pytest.main`` and each ``python`` script with
``runpy``, and the run of a script in an empty project kept for the session (issue 34).

Out of the test process because the docs use ``Profile`` and the kit's classes, which an
in-process pytester run would import twice; the scripts too, though they are not about
processes: run in the test process, docs/shims.md's imported litellm, langchain-openai and
pydantic-ai early in a session, and every later test paid for the bigger heap
(tests/test_plugin.py cost 1.5-3 s more CPU after those imports than without them, 2026-11-28,
this project's 2-core machine; tests/test_shim_litellm.py reported 140 more warnings).

One child for all the commands of a page: the kit and its libraries (openai's SDK, say, which
three of docs/shims.md's scripts import) are imported once, not once a command. Before each
command the child drops the modules imported from the project (the page's conftest.py,
my_cases.py), so that each command imports the files as they are then, as a new process would.
A script's output, and that of the processes it starts, is its file descriptors 1 and 2
(redirected for the run). What a new ``python`` process would do and a script run in this child
does not: run the script's ``atexit`` handlers at its end (no documented script registers one).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: the dev extra's plugins no page is about stay off, as in every session the kit's tests start
#: (tests/conftest.py: about 0.5 s of CPU a session), the sessions a documented script starts
#: (docs/cassettes.md's rehearsal) included: PYTEST_ADDOPTS
PLUGINS_OFF = ("-p no:randomly -p no:langsmith_plugin -p no:anyio -p no:hypothesispytest "
               "-p no:recording")


def doc_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a documented command: this checkout's kit, no key, no CI, no option of
    the session running the kit's tests. ``base``: the environment it is made from, this
    process's by default (a job run ahead passes the test's: tests/background.py)."""
    env = {k: v for k, v in (os.environ if base is None else base).items()
           if not k.startswith(("PYTEST_", "TOOLCALL_", "GITHUB_")) and not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = str(ROOT)  # the kit of this checkout
    env["PYTEST_ADDOPTS"] = PLUGINS_OFF
    # importing litellm fetches its model cost map from GitHub, and retries for 7 s where there
    # is no network, unless this is set (docs/shims.md: the shim sets it, a script that imports
    # litellm first does not). No network in tests; tests/test_shim_litellm.py sets it too, so
    # a whole run of the kit's tests had it already
    env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    return env


#: the child that runs a project's commands: one JSON line in (kind, argv, output file), one
#: line out (the exit code). Before each command it drops the modules imported from the project
_DRIVER = """\
import json, os, runpy, sys, traceback
import pytest

project = os.path.realpath(os.getcwd())


def script(argv):
    module = argv[1] if argv[0] == "-m" else None
    sys.argv = list(argv[1:] if module else argv)
    try:
        if module:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


for line in sys.stdin:
    kind, argv, out = json.loads(line)
    for name, module in list(sys.modules.items()):
        where = os.path.realpath(getattr(module, "__file__", None) or "/")
        if where.startswith(project + os.sep):
            del sys.modules[name]
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    with open(out, "wb") as sink:
        for fd in (1, 2):
            os.dup2(sink.fileno(), fd)
        try:
            code = int(pytest.main(argv)) if kind == "pytest" else script(argv)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            for fd, copy in zip((1, 2), saved):
                os.dup2(copy, fd)
                os.close(copy)
    print(code, flush=True)
"""


#: how long one documented command may run (a script ran with a 600 s bound as a subprocess)
COMMAND_LIMIT_S = 600


class ProjectSession:
    """The project's child, started at its first command."""

    def __init__(self, project: Path, env: dict[str, str]) -> None:
        self.project, self.env, self.child = project, env, None
        self.count = 0

    def run(self, kind: str, args: list[str]) -> tuple[int, str]:
        """Run ``pytest ARGS`` (kind "pytest") or ``python ARGS`` (kind "python": a script and
        its arguments, or ``-m MODULE`` and its arguments)."""
        assert kind == "pytest" or args[0] == "-m" or not args[0].startswith("-"), (
            f"`python {' '.join(args)}`: only a script or -m MODULE runs in the project's child")
        if self.child is None:
            self.child = subprocess.Popen([sys.executable, "-c", _DRIVER], cwd=self.project,
                                          env=self.env, stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, text=True)
        self.count += 1
        out = self.project.parent / f"{self.project.name}-{kind}-{self.count}.txt"
        assert self.child.stdin is not None and self.child.stdout is not None
        self.child.stdin.write(json.dumps([kind, args, str(out)]) + "\n")
        self.child.stdin.flush()
        # the child answers with one flushed line; a command that hangs is stopped at the bound
        ended = select.select([self.child.stdout], [], [], COMMAND_LIMIT_S)[0]
        if not ended:
            self.child.kill()
            self.child.wait()
        code = self.child.stdout.readline() if ended else ""
        text = out.read_text(encoding="utf-8", errors="replace") if out.exists() else ""
        assert ended, f"`{kind} {' '.join(args)}` ran over {COMMAND_LIMIT_S} s: {text[-6000:]}"
        assert code.strip(), f"the child running the project's commands died: {text[-6000:]}"
        return int(code), text

    def close(self) -> None:
        if self.child is not None:
            assert self.child.stdin is not None
            self.child.stdin.close()
            self.child.wait(timeout=60)


@dataclass(frozen=True)
class ScriptRun:
    """A script's run in an empty project: its exit code, its output (stdout and stderr, its
    children's included) and a copy of the files it left there."""

    code: int
    output: str
    files: Path

    def copy_files_to(self, project: Path) -> None:
        shutil.copytree(self.files, project, dirs_exist_ok=True)


#: the runs of scripts in an empty project this session, by the script's text: such a run
#: depends on the text alone (the environment is doc_env()'s), so a second test that runs the
#: same text in an empty project asserts on the first run instead of running it again (docs/
#: cassettes.md's rehearsal: tests/test_cassettes_errors.py and tests/test_doc_blocks.py)
_SCRIPT_RUNS: dict[str, ScriptRun] = {}
#: a lock for each text, held while it runs: a doc page run ahead (tests/background.py) and a
#: test may ask for the same text at once, and it runs once
_SCRIPT_LOCKS: dict[str, threading.Lock] = {}
_SCRIPT_LOCKS_LOCK = threading.Lock()


def script_in_empty_project(text: str, name: str, session: ProjectSession,
                            keep: Path) -> ScriptRun:
    """Run ``text`` as ``python NAME`` in ``session``'s project, which must be empty, once a
    pytest session; a later call with the same text copies the files the first run left into
    the project and returns that run. The copies go in a new folder in ``keep``, a folder that
    lasts the session."""
    assert not any(session.project.iterdir()), f"{session.project} is not empty"
    (session.project / name).write_text(text, encoding="utf-8")
    with _SCRIPT_LOCKS_LOCK:
        lock = _SCRIPT_LOCKS.setdefault(text, threading.Lock())
    with lock:
        if text in _SCRIPT_RUNS:
            done = _SCRIPT_RUNS[text]
            done.copy_files_to(session.project)
            return done
        code, output = session.run("python", [name])
        files = Path(tempfile.mkdtemp(prefix="script-run-", dir=keep)) / "files"
        # what the script left: the script itself is the caller's
        shutil.copytree(session.project, files,
                        ignore=shutil.ignore_patterns("__pycache__", name))
        done = _SCRIPT_RUNS[text] = ScriptRun(code, output, files)
        return done

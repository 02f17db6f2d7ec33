"""Tests whose work is a child process run that child ahead, in a lane of its own (issue 34).

A serial run of the kit's tests (``python -m pytest``, as CI runs it) keeps one of the machine's
two cores busy most of the time. A few tests spend nearly all their time waiting on one child
process that depends on nothing the session does before it (the benchmark's quick mode, each
doc page's commands, the mutation driver's end-to-end runs): while such a test waits, the
test process does nothing. Those children are started at the beginning of the session instead,
one at a time, in a daemon thread of this process, and their tests move to the end of the run
(``pytest_collection_modifyitems`` in tests/conftest.py); when a test comes, it takes what its
child did and asserts on it exactly as before. The children are the same commands in the same
environment; only when they start changes.

The lane runs only where the session runs every test itself: not in an xdist worker (each
worker runs a share of the tests, and ``-n`` already uses the cores), and not for a test that
is not selected. A test that comes before its job started (a run of that file alone) runs the
job itself, in its own ``tmp_path``.

A job is a function of the folder it works in and of the environment the test would have
(``env``: tests/conftest.py's ``_kit_order`` applied to the session's environment). It must not
touch what the tests running meanwhile use: no ``os.chdir``, no ``os.environ``, no ``sys``
state, no in-process pytest session, no module-level cache without a lock; it starts its
processes with ``env`` and an absolute ``cwd``. What it returns or raises is handed to the test.
"""

from __future__ import annotations

import collections
import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

#: how much lower the lane's priority is than the test process's (os.setpriority's scale)
LANE_NICENESS = 10

#: the item's job, set at collection (tests/conftest.py)
JOB = pytest.StashKey["Job"]()


@dataclass(eq=False)
class Job:
    """``run(where, env)`` for one test: its result or its exception, once."""

    name: str
    run: Callable[[Path, Mapping[str, str]], Any]
    where: Path | None = None
    env: Mapping[str, str] | None = None
    state: str = "pending"  # pending, running, done
    value: Any = None
    error: BaseException | None = None
    done: threading.Event = field(default_factory=threading.Event)

    def execute(self) -> None:
        assert self.where is not None and self.env is not None
        try:
            self.value = self.run(self.where, self.env)
        except BaseException as exc:  # noqa: BLE001 - the test it belongs to raises it
            self.error = exc
        finally:
            self.state = "done"
            self.done.set()


def ahead(make: Callable[..., Job]) -> pytest.MarkDecorator:
    """Mark a test whose job may run ahead: ``make`` takes the test's parameters by name (none
    for a test without) and returns the test's Job."""
    return pytest.mark.ahead(make)


class Lane:
    """The jobs of the selected tests, run one at a time in the order of their tests."""

    def __init__(self) -> None:
        self.queue: collections.deque[Job] = collections.deque()
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def start(self, jobs: list[Job]) -> None:
        self.queue.extend(jobs)
        if jobs:
            self.thread = threading.Thread(target=self._work, name="tests-ahead", daemon=True)
            self.thread.start()

    def _work(self) -> None:
        # the lane yields to the tests: on Linux a thread's nice value is its own, and the
        # processes it starts inherit it, so the jobs' children run at a lower priority than
        # the test process and whatever it starts. A lane job is never timed against the tests:
        # each waits on its own child, up to the same bounds as when its test runs it
        with contextlib.suppress(OSError, AttributeError):
            os.setpriority(os.PRIO_PROCESS, 0, LANE_NICENESS)
        while True:
            with self.lock:
                if not self.queue:
                    return
                job = self.queue.popleft()
                job.state = "running"
            job.execute()

    def take(self, job: Job, where: Path, env: Mapping[str, str]) -> tuple[Any, Path]:
        """The job's result and the folder it worked in: the lane's run, waited for if it is
        under way, or a run here, in ``where``, if the lane has not started it."""
        with self.lock:
            if job.state == "pending":
                if job in self.queue:
                    self.queue.remove(job)
                job.where, job.env, job.state = where, env, "running"
                inline = True
            else:
                inline = False
        if inline:
            job.execute()
        job.done.wait()
        if job.error is not None:
            raise job.error
        assert job.where is not None
        return job.value, job.where

    def stop(self) -> None:
        """Drop the jobs not started; wait for the one under way (its processes end with it)."""
        with self.lock:
            self.queue.clear()
        if self.thread is not None:
            self.thread.join()


def run_pytest(project: Path, env: Mapping[str, str], *args: str,
               timeout: float = 600) -> pytest.RunResult:
    """``pytester.runpytest_subprocess(*args)`` as a job can run it: ``python -m pytest`` in
    ``project`` with a ``--basetemp`` of its own, and the environment pytester gives its runs
    (a HOME of their own, no colour, no TOX_ENV_DIR, pytest-randomly off as tests/conftest.py's
    ``_kit_order`` turns it off for a pytester test), from ``env``, the test's environment."""
    home = project.parent / f"{project.name}-home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in env.items() if k != "TOX_ENV_DIR"}
    env.update(HOME=str(home), USERPROFILE=str(home), PY_COLORS="0")
    if "-p no:randomly" not in env.get("PYTEST_ADDOPTS", ""):
        env["PYTEST_ADDOPTS"] = f"-p no:randomly {env.get('PYTEST_ADDOPTS', '')}".strip()
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", f"--basetemp={project.parent / f'{project.name}-tmp'}",
         *args], cwd=project, env=env, capture_output=True, text=True, timeout=timeout,
        check=False)
    return pytest.RunResult(done.returncode, done.stdout.splitlines(),
                            done.stderr.splitlines(), time.monotonic() - started)

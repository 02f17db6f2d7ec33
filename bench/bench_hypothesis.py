"""What hypothesis costs a project with the kit installed. Prints figures; asserts nothing.

Run from anywhere::

    python bench/bench_hypothesis.py            # medians of 10 runs each
    python bench/bench_hypothesis.py --runs 3   # quicker, noisier

hypothesis is a dependency of the kit (the ``stream.any_chunking`` case and the history cases
search their inputs with it, and ``pytest_toolcall.cases.strategies`` is public), so it is
installed wherever the kit is, and its pytest plugin (``hypothesispytest``) loads in every
session. Measured in a generated project with one trivial test, as
``python -m pytest -q -p no:cacheprovider`` in a subprocess (runs alternated as in
``bench_plugin_load.py``): each session's wall time and CPU time (user + system, from the
child's rusage), with hypothesis' plugin as installed, without it (``-p no:hypothesispytest``),
and both again under ``-v`` (hypothesis' report header imports hypothesis itself when verbose).
Last, ``import hypothesis`` alone against an empty interpreter: what a session pays once the
kit runs a case that uses it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_plugin_load import _ENV, _alternated, _project  # noqa: E402

VARIANTS = {
    "with": [],
    "without": ["-p", "no:hypothesispytest"],
    "with -v": ["-v"],
    "without -v": ["-v", "-p", "no:hypothesispytest"],
}


def _timed(command: list[str], cwd: Path, cpu: list[float]) -> float:
    """Wall seconds of ``command``; its CPU seconds are appended to ``cpu``."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=_ENV, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - start
    if process.returncode not in (0, 5):
        raise SystemExit(f"{' '.join(command)} failed in {cwd} ({process.returncode})")
    cpu.append(usage.ru_utime + usage.ru_stime)
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="runs of each variant (median)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be >= 1")
    cpu: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        project = _project(tmp)

        def session(name: str) -> float:
            command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                       *VARIANTS[name]]
            return _timed(command, project, cpu.setdefault(name, []))

        wall = _alternated({name: name for name in VARIANTS}, args.runs, session)
        imports = _alternated({"hypothesis": "import hypothesis", "nothing": "pass"}, args.runs,
                              lambda code: _timed([sys.executable, "-c", code], project,
                                                  cpu.setdefault(code, [])))
        left = sorted(p.name for p in project.iterdir() if p.name != "test_one.py")
    ms = {name: statistics.median(values) * 1000 for name, values in {**wall, **imports}.items()}
    # the first round warms caches and is dropped from the wall times: drop its CPU time too
    cpu_ms = {name: statistics.median(values[-args.runs:]) * 1000 for name, values in cpu.items()}
    print(f"one-test session, medians of {args.runs} (wall ms / CPU ms):")
    for name in VARIANTS:
        print(f"  {name:<11} {ms[name]:8.1f} / {cpu_ms[name]:8.1f}"
              + ("" if name.startswith("with") else "   (-p no:hypothesispytest)"))
    for verbose in ("", " -v"):
        print(f"hypothesis' plugin{verbose or ' (no -v)'}: "
              f"{ms['with' + verbose] - ms['without' + verbose]:+.1f} ms wall, "
              f"{cpu_ms['with' + verbose] - cpu_ms['without' + verbose]:+.1f} ms CPU")
    print(f"import hypothesis: {ms['hypothesis'] - ms['nothing']:+.1f} ms wall, "
          f"{cpu_ms['import hypothesis'] - cpu_ms['pass']:+.1f} ms CPU (what a session pays "
          "once a case that uses it runs)")
    print(f"left in the project by these sessions: {left or 'nothing'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

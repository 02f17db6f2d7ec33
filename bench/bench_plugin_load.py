"""What the installed plugin costs a project that does not use it. Prints figures; asserts nothing.

Run from anywhere::

    python bench/bench_plugin_load.py            # medians of 10 runs each
    python bench/bench_plugin_load.py --runs 3   # quicker, noisier
    python bench/bench_plugin_load.py --quick --runs 1 --no-warm-up   # the smoke test

What is measured: a generated project with one trivial test, run as
``python -m pytest -q -p no:cacheprovider`` in a subprocess, with the plugin (as installed) and
with ``-p no:toolcall``; the runs alternate, in an order reversed every other round, so load on
a shared machine and the caches one session warms for the next hit both alike. The
figure is the difference of the medians, in ms, and their ratio. Target (issue 9): the plugin adds
at most 15 ms. Printed for information: the same pair in a bare pytest (no plugin autoloaded,
the kit's handed to ``pytest.main``), where sessions vary by a few ms instead of tens. A last
figure shows what the kit costs once it is asked for (``--toolcall-cases`` naming no case loads
the kit and collects nothing).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

TARGET_MS = 15.0


#: the sessions keep bytecode caches, as a project's sessions do: with PYTHONDONTWRITEBYTECODE
#: set (some containers set it) every session compiles and assertion-rewrites every module it
#: imports, the plugin's own four among them, and the warm-up below warms nothing (2026-11-26,
#: this machine: +30 to +45 ms with it set, +8 ms without)
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _run(project: Path, extra: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra],
                          cwd=project, capture_output=True, text=True, check=False, env=_ENV)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 5):
        raise SystemExit(f"pytest failed in the benchmark project:\n{done.stdout}{done.stderr}")
    return elapsed


def _alternated(variants: dict[str, Any], runs: int,
                run: Callable[[Any], float], warm_up: bool = True) -> dict[str, list[float]]:
    """Each variant's times: a first round that warms the file system and bytecode caches
    (dropped), then ``runs`` rounds, each variant first as often as last. The session run right
    after another is a few ms faster (caches warmed), which favoured whichever came second."""
    order = list(variants.items())
    times: dict[str, list[float]] = {name: [] for name in variants}
    first = 0 if warm_up else 1  # without the warm-up round, every round is kept
    for n in range(first, runs + 1):
        for name, spec in (order if n % 2 == 0 else order[::-1]):
            elapsed = run(spec)
            if n:
                times[name].append(elapsed)
    return times


def _project(tmp: str) -> Path:
    project = Path(tmp)
    (project / "test_one.py").write_text("def test_one():\n    pass\n")
    return project


def _medians(times: dict[str, list[float]]) -> dict[str, float]:
    return {name: statistics.median(values) * 1000 for name, values in times.items()}


def measure(runs: int, warm_up: bool = True) -> tuple[dict[str, float], tuple[float, float]]:
    """Medians (ms) of the three variants, and the range of the with/without sessions."""
    variants = {"with": [], "without": ["-p", "no:toolcall"],
                "asked": ["--toolcall-cases=no-such-case"]}
    with tempfile.TemporaryDirectory() as tmp:
        project = _project(tmp)
        times = _alternated(variants, runs, lambda extra: _run(project, extra), warm_up)
    sessions = [t * 1000 for name in ("with", "without") for t in times[name]]
    return _medians(times), (min(sessions), max(sessions))


#: the same pair of sessions in a bare pytest: no plugin autoloaded (so none of the other
#: installed plugins' imports and their +-40 ms from session to session), and the kit's plugin
#: handed to ``pytest.main`` directly (``-p`` or ``pytest_plugins`` would first scan every
#: installed distribution's entry points, some 17 ms here, which autoloading does anyway)
_BARE = {
    "with": "import importlib, sys, pytest\n"
            "plugin = importlib.import_module('pytest_toolcall.plugin')\n"
            "sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider'], plugins=[plugin]))\n",
    "without": "import sys, pytest\n"
               "sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider'], plugins=[]))\n",
}


def measure_bare(runs: int, warm_up: bool = True) -> dict[str, float]:
    """Medians (ms) of the one-test session in a bare pytest, with and without the plugin."""
    env = dict(_ENV, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")

    def run(code: str) -> float:
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True,
                              text=True, check=False, env=env)
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(f"the bare-pytest session failed:\n{done.stdout}{done.stderr}")
        return elapsed

    with tempfile.TemporaryDirectory() as tmp:
        project = _project(tmp)
        return _medians(_alternated(_BARE, runs, run, warm_up))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=None,
                        help="runs of each variant (median; default 10, 2 with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help="2 runs (--runs sets fewer), bare pytest included: for the smoke "
                             "test")
    parser.add_argument("--no-warm-up", dest="warm_up", action="store_false",
                        help="keep every round (by default a first round warms the caches and "
                             "is dropped): for the smoke test, whose figures are noise anyway")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    runs = args.runs or (2 if args.quick else 10)
    if runs < 1:
        parser.error("--runs must be >= 1")
    bare_runs = runs if args.quick else 12
    ms, spread = measure(runs, args.warm_up)
    bare = measure_bare(bare_runs, args.warm_up)
    added = ms["with"] - ms["without"]
    verdict = "PASS" if added <= TARGET_MS else "MISS"
    print(f"one-test session without the plugin (-p no:toolcall): {ms['without']:8.1f} ms")
    print(f"one-test session with the plugin installed, unused:   {ms['with']:8.1f} ms")
    print(f"plugin cost when unused: {added:+.1f} ms, ratio {ms['with'] / ms['without']:.3f} "
          f"(target <= {TARGET_MS:.0f} ms: {verdict}; medians of {runs})")
    print(f"  (the {2 * runs} sessions above took {spread[0]:.0f} to {spread[1]:.0f} ms; "
          "bench/README.md says how much the difference moves from run to run)")
    bare_added = bare["with"] - bare["without"]
    print(f"for information, in a bare pytest (no plugin autoloaded, the kit's handed to "
          f"pytest.main; medians of {bare_runs}): {bare['without']:.1f} ms without, "
          f"{bare['with']:.1f} ms with: {bare_added:+.1f} ms, the plugin's imports, "
          "registration, options, markers and hooks")
    print(f"the kit asked for (--toolcall-cases naming no case):  {ms['asked']:8.1f} ms "
          f"({ms['asked'] - ms['without']:+.1f} ms)")
    if "PYTHONDONTWRITEBYTECODE" in os.environ:
        print("(PYTHONDONTWRITEBYTECODE is set here; the sessions ran without it, with bytecode "
              "caches as in a project)")
    if args.json:
        args.json.write_text(json.dumps({"runs": runs, "ms": ms, "added_ms": added,
                                         "target_ms": TARGET_MS, "quick": args.quick,
                                         "warm_up": args.warm_up,
                                         "session_ms_range": spread, "bare_ms": bare,
                                         "bare_added_ms": bare_added}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

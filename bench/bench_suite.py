"""Benchmark of the pytest-toolcall OpenAI suite against its floor. Prints figures; asserts nothing.

Run from anywhere (the script finds the repo root itself)::

    python bench/bench_suite.py              # 3 runs of every subprocess measurement
    python bench/bench_suite.py --runs 5 --json /tmp/bench.json
    python bench/bench_suite.py --quick      # tiny mode (the smoke test uses it); figures are noisy
    python bench/bench_suite.py --quick --full-cases 'wire.single_call'   # the smoke test's

What is measured, all in this one run on this machine (see bench/README.md):

* ``suite``: wall time of ``python -m pytest --toolcall-provider=openai -q -p no:cacheprovider``
  in a subprocess from the repo root, and ``empty``: the same command with zero items. Both get an
  explicit empty directory as their only path, so tests under ``tests/`` are not collected.
* ``trivial``: the same command over ``K`` generated ``def test_n(): pass`` items; the cost of one
  trivial pytest item is ``(trivial - empty) / K``.
* ``bare round trip``: one ``httpx.Client.post`` through ``httpx.MockTransport`` to a handler that
  returns a small JSON body.
* ``in-process``: ``run_case`` for every selected case against the reference adapter (sync and
  async interfaces), median of ``--repeats``; HTTP round trips counted from ``fake.exchanges``.

* ``floor``: a session of one trivial item per case, item *i* doing the round trips case *i*
  made, bare, through ``httpx.MockTransport``. The floor per case is ``(floor - empty) / n``,
  measured exactly like the per-case cost ``(suite - empty) / n``: both sessions import httpx
  once, as any session that tests an httpx adapter must.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TARGET_RATIO = 2.0
HYPOTHESIS_CASE = "stream.any_chunking"
CHAT_FAMILIES = ("wire.*", "stream.*")
#: issue 13: the full matrix, every provider (19 today), under 30 s cold. The 20 s this page
#: first set was for five dialects (351 case runs)
MATRIX_TARGET_S = 30.0


def _dialects() -> tuple[str, ...]:
    from pytest_toolcall.providers.base import DIALECT_NAMES

    return DIALECT_NAMES
_PASSED = re.compile(r"(\d+) passed")


class _CountingList(list):  # type: ignore[type-arg]
    """A list that remembers how many items were ever appended (the runner clears it per run)."""

    total = 0

    def append(self, item: Any) -> None:
        self.total += 1
        super().append(item)


# -- in-process ---------------------------------------------------------------------------------
def _fresh(provider: str) -> tuple[Any, Any, Any]:
    """What the plugin's fixtures build for one item: endpoint, adapter, profile."""
    from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
    from pytest_toolcall.reference import reference_adapter, reference_profile

    endpoint = in_process_endpoint(FakeProvider(provider))
    endpoint.fake.exchanges = _CountingList()
    # the profile the plugin gives the reference adapter (compatible_with={'*'} among others):
    # a bare Profile() skips the OpenAI-compatible quirk cases the suite run passes
    return endpoint, reference_adapter(endpoint), reference_profile(provider)


def measure_in_process(patterns: Sequence[str], repeats: int,
                       provider: str = "openai") -> list[dict[str, Any]]:
    """Per case: median ``run_case`` seconds over ``repeats``, setup seconds, round trips."""
    from pytest_toolcall.cases import default_registry
    from pytest_toolcall.run.runner import CaseSkipped, run_case

    rows = []
    for case in default_registry().select(patterns, provider):
        times, setups, trips, outcome = [], [], 0, "passed"
        for attempt in range(repeats):
            started = time.perf_counter()
            endpoint, adapter, profile = _fresh(provider)
            setups.append(time.perf_counter() - started)
            started = time.perf_counter()
            try:
                runs = run_case(case, adapter, profile, endpoint)
            except CaseSkipped:
                outcome, runs = "skipped", []
            times.append(time.perf_counter() - started)
            endpoint.close()
            if attempt == 0:
                trips = endpoint.fake.exchanges.total
                interfaces = [r.interface for r in runs]
        rows.append({"case": case.id, "seconds": statistics.median(times),
                     "setup_seconds": statistics.median(setups), "round_trips": trips,
                     "steps": len(case.steps), "interfaces": interfaces, "outcome": outcome})
    return rows


def measure_bare_round_trip(count: int) -> dict[str, float]:
    """Seconds per bare sync (and async, for information) MockTransport round trip."""
    import asyncio

    import httpx

    payload = json.dumps({"id": "x", "choices": [{"message": {"content": "ok"}}]}).encode()

    def handler(request: httpx.Request) -> httpx.Response:
        request.read()
        return httpx.Response(200, headers={"content-type": "application/json"}, content=payload)

    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    with httpx.Client(transport=httpx.MockTransport(handler), trust_env=False) as client:
        for _ in range(min(count, 50)):  # warm up
            client.post("http://bench.fake/v1/chat/completions", json=body).json()
        started = time.perf_counter()
        for _ in range(count):
            client.post("http://bench.fake/v1/chat/completions", json=body).json()
        sync = (time.perf_counter() - started) / count

    async def ahandler(request: httpx.Request) -> httpx.Response:
        await request.aread()
        return httpx.Response(200, headers={"content-type": "application/json"}, content=payload)

    async def aloop() -> float:
        async with httpx.AsyncClient(transport=httpx.MockTransport(ahandler),
                                     trust_env=False) as client:
            for _ in range(min(count, 50)):
                (await client.post("http://bench.fake/v1/chat/completions", json=body)).json()
            started = time.perf_counter()
            for _ in range(count):
                (await client.post("http://bench.fake/v1/chat/completions", json=body)).json()
            return (time.perf_counter() - started) / count

    return {"sync": sync, "async": asyncio.run(aloop())}


# -- subprocess pytest --------------------------------------------------------------------------
def _pytest(path: Path, extra: Sequence[str]) -> tuple[float, int, str]:
    cmd = [sys.executable, "-m", "pytest", *extra, "-q", "-p", "no:cacheprovider",
           "-c", str(REPO / "pyproject.toml"), "--rootdir", str(REPO), str(path)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, env=env, check=False)
    return time.perf_counter() - started, done.returncode, done.stdout + done.stderr


_FLOOR_MODULE = """\
import httpx

_BODY = b'{"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}]}'
_CLIENT = httpx.Client(transport=httpx.MockTransport(
    lambda request: httpx.Response(200, content=_BODY,
                                   headers={"content-type": "application/json"})),
    trust_env=False)


def _trips(n):
    for _ in range(n):
        _CLIENT.post("http://floor.test/v1/chat/completions", json={"model": "m"}).json()

"""


def floor_module(trips_per_case: Sequence[int]) -> str:
    """A test module whose item i is trivial but for the round trips case i made, done bare."""
    return _FLOOR_MODULE + "".join(f"\ndef test_floor_{i}():\n    _trips({n})\n"
                                   for i, n in enumerate(trips_per_case))


def measure_subprocess(runs: int, trivial_items: int, patterns: Sequence[str],
                       trips_per_case: Sequence[int],
                       full_patterns: Sequence[str] = ()) -> dict[str, Any]:
    """Median wall seconds of the empty session, the suite, K trivial items and the floor
    session (one trivial item per case doing that case's round trips), interleaved; then the
    full suite and the full matrix (every case, or ``full_patterns`` only)."""
    work = Path(tempfile.mkdtemp(prefix="toolcall-bench-"))
    try:
        empty_dir, trivial_dir, floor_dir = work / "empty", work / "trivial", work / "floor"
        empty_dir.mkdir()
        trivial_dir.mkdir()
        floor_dir.mkdir()
        (trivial_dir / "test_trivial.py").write_text(
            "".join(f"def test_{n}():\n    pass\n\n" for n in range(trivial_items)))
        (floor_dir / "test_floor.py").write_text(floor_module(trips_per_case))
        suite_args = ["--toolcall-provider=openai"]
        if patterns:
            suite_args.append("--toolcall-cases=" + ",".join(patterns))
        full_args = ["--toolcall-cases=" + ",".join(full_patterns)] if full_patterns else []
        plan = {"empty": (empty_dir, [], 5), "suite": (empty_dir, suite_args, 0),
                "trivial": (trivial_dir, [], 0), "floor": (floor_dir, [], 0),
                "full": (empty_dir, ["--toolcall-provider=openai", *full_args], 0),
                "matrix": (empty_dir, ["--toolcall-provider=all", *full_args], 0)}
        walls: dict[str, list[float]] = {name: [] for name in plan}
        passed: dict[str, int] = {}
        for _ in range(runs):
            for name, (path, extra, expected_rc) in plan.items():
                wall, rc, out = _pytest(path, extra)
                if rc != expected_rc:
                    raise SystemExit(f"bench: the {name} pytest run exited {rc} (expected "
                                     f"{expected_rc}); its output:\n{out[-3000:]}")
                found = _PASSED.search(out)
                passed[name] = int(found.group(1)) if found else 0
                walls[name].append(wall)
        return {"walls": walls, "median": {k: statistics.median(v) for k, v in walls.items()},
                "min": {k: min(v) for k, v in walls.items()},
                "passed": passed,
                "suite_command": "python -m pytest " + " ".join(suite_args)
                                 + " -q -p no:cacheprovider"}
    finally:
        shutil.rmtree(work, ignore_errors=True)


_DRIVER = """\
import json, sys, time, contextlib, io
import pytest

plan = json.loads(sys.argv[1])
rounds = int(sys.argv[2])
walls = {name: [] for name in plan}
codes = {}
for _ in range(rounds + 1):  # the first round warms imports and caches and is dropped
    for name, args in plan.items():
        with contextlib.redirect_stdout(io.StringIO()):
            started = time.perf_counter()
            codes[name] = int(pytest.main(args))
            walls[name].append(time.perf_counter() - started)
print(json.dumps({"walls": {k: v[1:] for k, v in walls.items()}, "codes": codes}))
"""


def measure_steady(rounds: int, patterns: Sequence[str],
                   trips_per_case: Sequence[int]) -> dict[str, Any]:
    """Steady-state seconds of the empty, suite and floor sessions, run with ``pytest.main``
    over and over in one process (interleaved), so the ~2 s of imports every cold session pays
    does not swamp differences of a few milliseconds per case."""
    work = Path(tempfile.mkdtemp(prefix="toolcall-steady-"))
    try:
        empty_dir, floor_dir = work / "empty", work / "floor"
        empty_dir.mkdir()
        floor_dir.mkdir()
        (floor_dir / "test_floor.py").write_text(floor_module(trips_per_case))
        # -p no:unraisableexception in all three sessions: that plugin's five gc.collect()
        # calls at the end of each session scale with the warm process's heap and added more
        # noise (+-100 ms) than the differences measured here (a few ms per case)
        common = ["-q", "-p", "no:cacheprovider", "-p", "no:unraisableexception",
                  "-c", str(REPO / "pyproject.toml"), "--rootdir", str(REPO)]
        suite = ["--toolcall-provider=openai"] + (
            ["--toolcall-cases=" + ",".join(patterns)] if patterns else [])
        plan = {"empty": common + [str(empty_dir)], "suite": common + suite + [str(empty_dir)],
                "floor": common + [str(floor_dir)]}
        (work / "driver.py").write_text(_DRIVER)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
        done = subprocess.run([sys.executable, str(work / "driver.py"), json.dumps(plan),
                               str(rounds)], cwd=REPO, capture_output=True, text=True, env=env,
                              check=False)
        if done.returncode != 0:
            raise SystemExit(f"bench: the steady-state driver failed:\n{done.stderr[-3000:]}")
        data = json.loads(done.stdout.strip().splitlines()[-1])
        if data["codes"] != {"empty": 5, "suite": 0, "floor": 0}:
            raise SystemExit(f"bench: unexpected exit codes in the steady-state runs: "
                             f"{data['codes']}")
        walls = data["walls"]
        return {"walls": walls, "median": {k: statistics.median(v) for k, v in walls.items()},
                "min": {k: min(v) for k, v in walls.items()}, "rounds": rounds}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):  # not on every platform
        return None


# -- report -------------------------------------------------------------------------------------
def compute(sub: dict[str, Any], rows: list[dict[str, Any]], bare: dict[str, float],
            trivial_items: int, steady: dict[str, Any],
            full_patterns: Sequence[str] = ()) -> dict[str, Any]:
    med, low = sub["median"], sub["min"]
    n_cases = sub["passed"]["suite"]
    if n_cases != len([r for r in rows if r["outcome"] == "passed"]):
        raise SystemExit(f"bench: the suite run passed {n_cases} items but {len(rows)} cases "
                         "were selected in-process; the two measurements do not match")
    if n_cases == 0:
        raise SystemExit("bench: the selection holds no case; check --cases")
    trivial_item = (med["trivial"] - med["empty"]) / trivial_items
    trips = sum(r["round_trips"] for r in rows)
    # The floor is a session like the suite's: one trivial item per case doing that case's round
    # trips through a bare MockTransport, so importing httpx (once per session, as the suite
    # must) is on both sides. The composite (trivial item + in-process round trips, httpx
    # already imported) is printed beside it for information.
    cold_floor = (med["floor"] - med["empty"]) / n_cases
    composite_floor = trivial_item + trips / n_cases * bare["sync"]
    cold_per_case = (med["suite"] - med["empty"]) / n_cases
    sm = steady["median"]
    floor = (sm["floor"] - sm["empty"]) / n_cases
    per_case = (sm["suite"] - sm["empty"]) / n_cases
    in_process = sum(r["seconds"] for r in rows)
    # the same ratio from the fastest run of each command: less sensitive to a busy machine
    sl = steady["min"]
    low_floor = (sl["floor"] - sl["empty"]) / n_cases
    low_ratio = ((sl["suite"] - sl["empty"]) / n_cases) / low_floor if low_floor > 0 else None
    hyp = next((r["seconds"] for r in rows if r["case"] == HYPOTHESIS_CASE), None)
    return {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "platform": platform.platform(), "loadavg_1min": _load()},
        "runs": len(sub["walls"]["suite"]),
        "suite_command": sub["suite_command"],
        "cases": n_cases,
        "suite_wall_s": med["suite"], "empty_session_wall_s": med["empty"],
        "trivial_items": trivial_items, "trivial_wall_s": med["trivial"],
        "walls": sub["walls"], "min_walls": low,
        "ratio_from_minimums": low_ratio,
        "suite_cost_s": med["suite"] - med["empty"],
        "full_wall_s": med["full"], "full_cases": sub["passed"]["full"],
        "full_selection": list(full_patterns) or None,
        "matrix_wall_s": med["matrix"], "matrix_cases": sub["passed"]["matrix"],
        "dialects": list(_dialects()),
        "per_case_ms": per_case * 1e3,
        "cold_per_case_ms": cold_per_case * 1e3,
        "cold_floor_per_case_ms": cold_floor * 1e3,
        "steady_rounds": steady["rounds"],
        "steady_walls": steady["walls"],
        "steady_median_s": sm,
        "trivial_item_ms": trivial_item * 1e3,
        "round_trips": trips,
        "bare_round_trip_us": bare["sync"] * 1e6,
        "bare_async_round_trip_us": bare["async"] * 1e6,
        "floor_per_case_ms": floor * 1e3,
        "floor_wall_s": med["floor"],
        "composite_floor_per_case_ms": composite_floor * 1e3,
        "ratio_to_composite_floor": per_case / composite_floor if composite_floor > 0 else None,
        # a floor <= 0 means the trivial run was not slower than the empty one: noise, no verdict
        "ratio": per_case / floor if floor > 0 else None,
        "target_ratio": TARGET_RATIO,
        "verdict": ("UNMEASURED" if floor <= 0 else
                    "PASS" if per_case / floor <= TARGET_RATIO else "MISS"),
        "in_process_total_ms": in_process * 1e3,
        "in_process_mean_ms": in_process / len(rows) * 1e3,
        "in_process_setup_mean_ms": sum(r["setup_seconds"] for r in rows) / len(rows) * 1e3,
        "hypothesis_case_ms": None if hyp is None else hyp * 1e3,
        "hypothesis_share": None if hyp is None else hyp / in_process,
        "per_case": [{**r, "ms": r["seconds"] * 1e3} for r in rows],
    }


def _full_what(fig: dict[str, Any]) -> str:
    """What the full suite and matrix ran: every family, or the --full-cases selection."""
    selection = fig.get("full_selection")
    return "every family" if selection is None else "--full-cases " + ",".join(selection)


def render(fig: dict[str, Any]) -> str:
    n = fig["cases"]
    lines = [
        (f"pytest-toolcall benchmark: Python {fig['machine']['python']}, "
        f"{fig['machine']['cpus']} CPUs, load average {fig['machine']['loadavg_1min']}, "
        f"medians of {fig['runs']} run(s)"),
        "",
        "cold sessions, one subprocess each (what a user waits for; noisy: +-0.2 s of startup)",
        (f"  suite ({fig['suite_command']}, {n} cases): {fig['suite_wall_s']:.3f} s"
        f" (min {fig['min_walls']['suite']:.3f})"),
        (f"  empty session (same command, zero items):        {fig['empty_session_wall_s']:.3f} s"
        f" (min {fig['min_walls']['empty']:.3f})"),
        f"  suite cost (suite - empty):                       {fig['suite_cost_s']:.3f} s",
        (f"  full suite, {_full_what(fig)} ({fig['full_cases']} cases, loop and history "
         f"included): {fig['full_wall_s']:.3f} s"),
        (f"  full matrix, --toolcall-provider=all ({fig['matrix_cases']} case runs over "
         f"{len(fig['dialects'])} providers): {fig['matrix_wall_s']:.3f} s   target <= "
         f"{MATRIX_TARGET_S:g} s   "
         + ("PASS" if fig["matrix_wall_s"] <= MATRIX_TARGET_S else "MISS")
         + ("" if fig.get("full_selection") is None else " (of the selection only)")),
        f"  per case ((suite - empty) / {n}):                  {fig['cold_per_case_ms']:.2f} ms",
        "",
        "floor (same run)",
        (f"  {fig['trivial_items']} trivial items: {fig['trivial_wall_s']:.3f} s -> "
        f"one trivial item: {fig['trivial_item_ms']:.3f} ms"),
        (f"  bare MockTransport round trip (httpx.Client): {fig['bare_round_trip_us']:.1f} us "
        f"(AsyncClient, for information: {fig['bare_async_round_trip_us']:.1f} us)"),
        (f"  round trips the suite made: {fig['round_trips']} "
        f"({fig['round_trips'] / n:.1f} per case)"),
        (f"  floor session ({n} trivial items, each doing its case's bare round trips): "
        f"{fig['floor_wall_s']:.3f} s"),
        (f"  floor per case, cold ((floor session - empty) / {n}): "
        f"{fig['cold_floor_per_case_ms']:.3f} ms"),
        (f"  for information, composite floor (trivial item + {fig['round_trips'] / n:.1f} "
        f"in-process round trips, httpx import not counted): "
        f"{fig['composite_floor_per_case_ms']:.3f} ms -> ratio "
        + ("n/a" if fig["ratio_to_composite_floor"] is None
           else f"{fig['ratio_to_composite_floor']:.2f}x")),
        "",
        (f"steady state: pytest.main in one warm process, {fig['steady_rounds']} interleaved "
         "rounds (median)"),
        (f"  empty {fig['steady_median_s']['empty'] * 1e3:.1f} ms, suite "
         f"{fig['steady_median_s']['suite'] * 1e3:.1f} ms, floor "
         f"{fig['steady_median_s']['floor'] * 1e3:.1f} ms"),
        f"  per case ((suite - empty) / {n}): {fig['per_case_ms']:.3f} ms",
        f"  floor per case ((floor - empty) / {n}): {fig['floor_per_case_ms']:.3f} ms",
        "",
        "ratio per case / floor (steady state): "
        + ("n/a (floor <= 0: noise; raise --trivial-items or --runs)" if fig["ratio"] is None
           else f"{fig['ratio']:.2f}x")
        + f"   target <= {fig['target_ratio']:g}x   {fig['verdict']}",
        "  (from the fastest run of each command instead of the medians: "
        + ("n/a" if fig["ratio_from_minimums"] is None else f"{fig['ratio_from_minimums']:.2f}x")
        + ")",
        "",
        "in-process breakdown (run_case, sync + async interfaces)",
        (f"  total {fig['in_process_total_ms']:.1f} ms, mean {fig['in_process_mean_ms']:.2f} ms "
        f"per case, fixture-equivalent setup {fig['in_process_setup_mean_ms']:.3f} ms per case"),
    ]
    if fig["hypothesis_case_ms"] is None:
        lines.append(f"  {HYPOTHESIS_CASE}: not selected")
    else:
        lines.append(f"  {HYPOTHESIS_CASE}: {fig['hypothesis_case_ms']:.1f} ms = "
                     f"{fig['hypothesis_share']:.1%} of the in-process total")
    lines.append("  slowest 5 cases:")
    for row in sorted(fig["per_case"], key=lambda r: -r["ms"])[:5]:
        lines.append(f"    {row['ms']:8.2f} ms  {row['round_trips']:4d} round trips  "
                     f"{row['case']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=None,
                        help="subprocess runs of each pytest command; the median is used "
                             "(default 3, 1 with --quick)")
    parser.add_argument("--repeats", type=int, default=None,
                        help="in-process repeats per case (default 3, 1 with --quick)")
    parser.add_argument("--trivial-items", type=int, default=None,
                        help="generated trivial items for the floor (default 500, 20 with --quick)")
    parser.add_argument("--round-trips", type=int, default=None,
                        help="bare round trips timed (default 2000, 50 with --quick)")
    parser.add_argument("--steady-rounds", type=int, default=None,
                        help="warm pytest.main rounds of each session for the verdict "
                             "(default 15, 2 with --quick)")
    parser.add_argument("--cases", default="",
                        help="comma list of case-id globs (default: every case)")
    parser.add_argument("--full-cases", default="",
                        help="comma list of case-id globs for the full-suite and full-matrix "
                             "sessions (default: every case); the smoke test narrows them")
    parser.add_argument("--quick", action="store_true",
                        help="tiny mode: one run, few items; checks the script works, figures noisy")
    parser.add_argument("--json", type=Path, default=None, metavar="PATH",
                        help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    quick = args.quick
    runs = args.runs or (1 if quick else 3)
    repeats = args.repeats or (1 if quick else 3)
    trivial = args.trivial_items or (20 if quick else 500)
    bare_n = args.round_trips or (50 if quick else 2000)
    if min(runs, repeats, trivial, bare_n) < 1:
        parser.error("--runs, --repeats, --trivial-items and --round-trips must be >= 1")
    # The floor compares HTTP round trips, so the default selection is the chat families (the
    # cases that make them); loop and history cases make none and wait on purpose (a hung tool,
    # slow parallel tools), so they are timed apart, as the full suite below.
    patterns = [p.strip() for p in args.cases.split(",") if p.strip()] or list(CHAT_FAMILIES)
    full_patterns = [p.strip() for p in args.full_cases.split(",") if p.strip()]

    rows = measure_in_process(patterns, repeats)
    if not rows:
        raise SystemExit(f"bench: --cases {args.cases!r} selects no built-in openai case; case ids "
                         "look like 'wire.single_call' or 'stream.*'")
    bare = measure_bare_round_trip(bare_n)
    sub = measure_subprocess(runs, trivial, patterns,
                             [r["round_trips"] for r in rows if r["outcome"] == "passed"],
                             full_patterns)
    steady = measure_steady(args.steady_rounds or (2 if quick else 15), patterns,
                            [r["round_trips"] for r in rows if r["outcome"] == "passed"])
    figures = compute(sub, rows, bare, trivial, steady, full_patterns)
    figures["quick"] = quick
    print(render(figures))
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2))
        print(f"\nfigures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    raise SystemExit(main())

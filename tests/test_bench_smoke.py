"""The benchmark script runs in its tiny mode and prints its labelled figures.

Only that it works is checked here: figures on a shared machine are noise, so no timing is asserted.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from background import Job, ahead

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "bench" / "bench_suite.py"


def _quick_bench(where: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    # --full-cases: the full-suite and full-matrix sessions run one case (on every provider)
    # instead of all of them (the matrix alone took 21 of this test's 38 s): what they print is
    # checked, not how long every case takes. --steady-rounds 1: the warm driver runs its three
    # sessions twice (the first round dropped) instead of three times; its figures are printed
    # and checked, their medians are not. Its figures are not asserted, so it may run ahead,
    # beside other tests (tests/background.py)
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--cases", "wire.single_call,wire.zero_args_*",
         "--full-cases", "wire.single_call", "--steady-rounds", "1",
         "--json", str(where / "figures.json")],
        cwd=where, env=dict(env), capture_output=True, text=True, timeout=300, check=False)


QUICK_BENCH = Job("the benchmark's quick mode", _quick_bench)


@ahead(lambda: QUICK_BENCH)
def test_bench_quick_mode_prints_every_figure(ahead_run: tuple[Any, Path]) -> None:
    done, where = ahead_run
    out_json = where / "figures.json"
    assert done.returncode == 0, done.stdout + done.stderr
    text = done.stdout
    for label in ("suite (python -m pytest --toolcall-provider=openai",
                  "empty session (same command, zero items):", "suite cost (suite - empty):",
                  "per case ((suite - empty) /", "20 trivial items:", "one trivial item:",
                  "bare MockTransport round trip (httpx.Client):", "round trips the suite made:",
                  "floor per case", "ratio per case / floor (steady state):", "target <= 2x",
                  "in-process breakdown", "stream.any_chunking: not selected", "slowest 5 cases:"):
        assert label in text, f"missing {label!r} in:\n{text}"
    assert any(v in text for v in ("PASS", "MISS", "UNMEASURED"))

    figures = json.loads(out_json.read_text())
    # the selection: wire.single_call plus the wire.zero_args_* family, each passed in pytest
    ids = [row["case"] for row in figures["per_case"]]
    assert "wire.single_call" in ids and len(ids) >= 2
    assert all(i == "wire.single_call" or i.startswith("wire.zero_args_") for i in ids)
    assert figures["cases"] == len(ids)
    assert figures["trivial_items"] == 20 and figures["runs"] == 1 and figures["quick"] is True
    # every case does at least one HTTP round trip per interface; the totals add up
    for row in figures["per_case"]:
        assert row["round_trips"] >= len(row["interfaces"]) >= 1, row
        assert row["outcome"] == "passed"
    assert figures["round_trips"] == sum(r["round_trips"] for r in figures["per_case"])
    assert figures["verdict"] in {"PASS", "MISS", "UNMEASURED"}
    assert figures["hypothesis_case_ms"] is None
    # the full suite and the matrix ran the --full-cases selection, the matrix on every provider
    assert figures["full_selection"] == ["wire.single_call"] and figures["full_cases"] == 1
    assert figures["matrix_cases"] == len(figures["dialects"]) > 1


def test_bench_rejects_a_selection_with_no_case() -> None:
    # in process: the selection is refused before the script measures anything, and a script
    # process would spend its 2 s importing the kit (the test above runs it as a script)
    spec = importlib.util.spec_from_file_location("bench_suite", SCRIPT)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--quick", "--cases", "no.such_case"])
    # a message as the exit code: the script exits 1 and prints it on stderr
    assert isinstance(exit_info.value.code, str), exit_info.value.code
    assert "no.such_case" in exit_info.value.code

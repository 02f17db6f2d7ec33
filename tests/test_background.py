"""The lane that runs tests' child processes ahead (tests/background.py): a test gets what its
job did, whether the lane ran it, is running it, or never started it."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path

import pytest
from background import JOB, Job, Lane


def _recording(runs: list[tuple[Path, str]], value: str = "done") -> Job:
    def run(where: Path, env: Mapping[str, str]) -> str:
        runs.append((where, env["WHO"]))
        return value
    return Job("recording", run)


def test_a_job_its_test_takes_before_the_lane_starts_it_runs_there(tmp_path: Path) -> None:
    runs: list[tuple[Path, str]] = []
    job = _recording(runs)
    lane = Lane()
    lane.queue.append(job)  # queued, not started
    assert lane.take(job, tmp_path, {"WHO": "test"}) == ("done", tmp_path)
    assert runs == [(tmp_path, "test")]
    assert not lane.queue, "the lane would have run it a second time"


def test_the_lane_runs_each_job_once_in_its_own_folder(tmp_path: Path) -> None:
    runs: list[tuple[Path, str]] = []
    first, second = _recording(runs, "one"), _recording(runs, "two")
    for name, job in (("a", first), ("b", second)):
        job.where, job.env = tmp_path / name, {"WHO": f"lane {name}"}
    lane = Lane()
    lane.start([first, second])
    assert lane.take(second, tmp_path / "unused", {"WHO": "test"}) == ("two", tmp_path / "b")
    assert lane.take(first, tmp_path / "unused", {"WHO": "test"}) == ("one", tmp_path / "a")
    assert lane.take(first, tmp_path / "unused", {"WHO": "test"}) == ("one", tmp_path / "a")
    lane.stop()
    assert runs == [(tmp_path / "a", "lane a"), (tmp_path / "b", "lane b")]


def test_a_test_waits_for_the_run_under_way(tmp_path: Path) -> None:
    started, release = threading.Event(), threading.Event()

    def run(where: Path, env: Mapping[str, str]) -> str:
        started.set()
        release.wait(30)
        return "finished"

    job = Job("slow", run, where=tmp_path / "lane", env={})
    lane = Lane()
    lane.start([job])
    assert started.wait(30)
    taken: list[object] = []
    taker = threading.Thread(target=lambda: taken.append(lane.take(job, tmp_path, {})))
    taker.start()
    assert not job.done.is_set() and not taken  # the job holds: the test has nothing yet
    release.set()
    taker.join(30)
    lane.stop()
    assert taken == [("finished", tmp_path / "lane")]


def test_what_a_job_raises_is_raised_in_its_test(tmp_path: Path) -> None:
    def run(where: Path, env: Mapping[str, str]) -> None:
        raise AssertionError("the page's command exited 1")

    job = Job("failing", run, where=tmp_path, env={})
    lane = Lane()
    lane.start([job])
    with pytest.raises(AssertionError, match="the page's command exited 1"):
        lane.take(job, tmp_path, {})
    lane.stop()


def test_tests_with_a_job_run_last_in_a_serial_session(request: pytest.FixtureRequest) -> None:
    """In this very session: every test whose job may run ahead comes after every other test
    (an xdist worker keeps the collected order: its share is not all the tests)."""
    if hasattr(request.config, "workerinput"):
        pytest.skip("an xdist worker keeps the order (tests/conftest.py)")
    items = request.session.items
    marked = [i for i, item in enumerate(items) if JOB in item.stash]
    if not marked:
        pytest.skip("no test with a job is selected in this session")
    assert marked == list(range(len(items) - len(marked), len(items))), \
        [items[i].nodeid for i in marked[:3]]

"""The kit's hypothesis searches write nothing into the user's project (issue 32): hypothesis'
files (its example database, the constants it caches from the project's modules) go under
pytest's cache, or where ``HYPOTHESIS_STORAGE_DIRECTORY`` says when the user asks."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from background import Job, ahead, run_pytest

from pytest_toolcall.run import runbase

#: a case that runs a hypothesis search (each run in a fresh process: the process caches the
#: cuts of a passing search, and a second search in-process would not start hypothesis)
CASE = "--toolcall-cases=stream.any_chunking"


def _fresh_project(where: Path, env: Mapping[str, str]) -> pytest.RunResult:
    # the kit's own tests share one storage folder (tests/conftest.py): a user has none set.
    # A session in a fresh process, waited on: it may run ahead (tests/background.py)
    (where / "project").mkdir()
    env = {k: v for k, v in env.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    return run_pytest(where / "project", env, "--toolcall-provider=openai", CASE)


@ahead(lambda: Job("a hypothesis search in a fresh project", _fresh_project))
def test_a_run_in_a_fresh_project_writes_no_hypothesis_folder(
        ahead_run: tuple[pytest.RunResult, Path]) -> None:
    result, where = ahead_run
    result.assert_outcomes(passed=1)
    assert not (where / "project" / ".hypothesis").exists()
    moved = where / "project" / ".pytest_cache" / "d" / "toolcall-hypothesis"
    assert any(moved.rglob("*")), "hypothesis wrote nothing: did the search run?"


def _users_folder(where: Path, env: Mapping[str, str]) -> pytest.RunResult:
    (where / "project").mkdir()
    env = {**env, "HYPOTHESIS_STORAGE_DIRECTORY": str(where / "mine")}
    return run_pytest(where / "project", env, "--toolcall-provider=openai", CASE)


@ahead(lambda: Job("a hypothesis search with the user's folder", _users_folder))
def test_hypothesis_storage_directory_set_by_the_user_wins(
        ahead_run: tuple[pytest.RunResult, Path]) -> None:
    result, where = ahead_run
    result.assert_outcomes(passed=1)
    assert any((where / "mine").rglob("*"))
    assert not any((where / "project" / ".pytest_cache").rglob("constants"))
    assert not (where / "project" / ".hypothesis").exists()


def test_the_users_own_hypothesis_home_is_put_back(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from hypothesis import configuration

    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    monkeypatch.setattr(runbase, "HYPOTHESIS_HOME", tmp_path / "kit")
    before = vars(configuration).get("__hypothesis_home_directory")
    try:
        configuration.set_hypothesis_home_dir(tmp_path / "users")
        with runbase.hypothesis_home():
            assert configuration.storage_directory("x").path == tmp_path / "kit" / "x"
        assert configuration.storage_directory("x").path == tmp_path / "users" / "x"
    finally:
        configuration.set_hypothesis_home_dir(before)

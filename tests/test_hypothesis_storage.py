"""The kit's hypothesis searches write nothing into the user's project (issue 32): hypothesis'
files (its example database, the constants it caches from the project's modules) go under
pytest's cache, or where ``HYPOTHESIS_STORAGE_DIRECTORY`` says when the user asks."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_toolcall.run import runbase

#: a case that runs a hypothesis search (each run in a fresh process: the process caches the
#: cuts of a passing search, and a second search in-process would not start hypothesis)
CASE = "--toolcall-cases=stream.any_chunking"


def test_a_run_in_a_fresh_project_writes_no_hypothesis_folder(pytester: pytest.Pytester,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    # the kit's own tests share one storage folder (tests/conftest.py): a user has none set
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    result = pytester.runpytest_subprocess("--toolcall-provider=openai", CASE)
    result.assert_outcomes(passed=1)
    assert not (pytester.path / ".hypothesis").exists()
    moved = pytester.path / ".pytest_cache" / "d" / "toolcall-hypothesis"
    assert any(moved.rglob("*")), "hypothesis wrote nothing: did the search run?"


def test_hypothesis_storage_directory_set_by_the_user_wins(pytester: pytest.Pytester,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    asked = tmp_path / "mine"
    monkeypatch.setenv("HYPOTHESIS_STORAGE_DIRECTORY", str(asked))
    result = pytester.runpytest_subprocess("--toolcall-provider=openai", CASE)
    result.assert_outcomes(passed=1)
    assert any(asked.rglob("*"))
    assert not any((pytester.path / ".pytest_cache").rglob("constants"))
    assert not (pytester.path / ".hypothesis").exists()


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

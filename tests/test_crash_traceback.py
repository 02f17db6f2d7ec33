"""A crash inside the implementation shows its traceback as pytest's ``--tb`` asks (issue 32):
the user's frames and their libraries' (here the standard library's json, as an SDK would be),
the kit's own hidden unless ``--full-trace``; none under ``--tb=line`` / ``--tb=no``; masked."""

from __future__ import annotations

import pytest

CONFTEST = """
import json
import os

import pytest


def parse(text):
    key = os.environ["CRASH_TEST_API_KEY"]  # a secret in a local: -l must not show it
    return json.loads(text)


class Crashing:
    def complete(self, request):
        return parse("{not json")


class CrashingLoop:
    def run(self, request):
        raise RuntimeError("the loop broke")


@pytest.fixture
def toolcall_adapter():
    return Crashing()


@pytest.fixture
def toolcall_loop():
    return CrashingLoop()
"""
SECRET = "sk-crash-test-0123456789"
HEADING = "the implementation's traceback"
KIT_FRAME = "pytest_toolcall/run/"


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("CRASH_TEST_API_KEY", SECRET)
    pytester.makeconftest(CONFTEST)
    return pytester


def run(project: pytest.Pytester, *args: str) -> str:
    result = project.runpytest_inprocess("--toolcall-provider=openai",
                                         "--toolcall-cases=wire.single_call", "-p",
                                         "no:cacheprovider", *args)
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert SECRET not in output
    return output


@pytest.mark.parametrize("style", ["auto", "short", "long", "native"])
def test_the_traceback_follows_tb_through_the_users_and_the_librarys_frames(
        project: pytest.Pytester, style: str) -> None:
    output = run(project, f"--tb={style}", "-l")
    assert f"{HEADING} (--tb={style}" in output
    shown = output.split(HEADING, 1)[1]
    assert "in parse" in shown or "def parse(text):" in shown  # the user's frames
    assert "json/decoder.py" in shown  # the library's
    assert "JSONDecodeError" in shown
    assert KIT_FRAME not in shown  # the runner that called complete() is the kit's
    assert "got:      JSONDecodeError" in output  # the block is unchanged above it
    if style == "long":  # -l shows each frame's locals, masked like the rest
        assert "key        = '[redacted $CRASH_TEST_API_KEY]'" in output


def test_full_trace_shows_the_kits_frames_too(project: pytest.Pytester) -> None:
    output = run(project, "--full-trace")
    shown = output.split(f"{HEADING} (--full-trace", 1)[1]
    assert KIT_FRAME in shown and "json/decoder.py" in shown


@pytest.mark.parametrize("style", ["line", "no"])
def test_line_and_no_show_no_traceback(project: pytest.Pytester, style: str) -> None:
    assert HEADING not in run(project, f"--tb={style}")


def test_a_loop_that_raises_shows_its_traceback(project: pytest.Pytester) -> None:
    result = project.runpytest_inprocess("--toolcall-provider=openai",
                                         "--toolcall-cases=loop.answered_once_in_order", "-p",
                                         "no:cacheprovider", "--tb=short")
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    assert "[loop.raised]" in output and f"{HEADING} (--tb=short" in output
    assert "in run" in output.split(HEADING, 1)[1]

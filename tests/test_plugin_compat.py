"""The suite inside a real project, beside the plugins such projects use (issue 17).

Each run is a ``pytest`` session in a fresh project (``pytester``), where every plugin loads
from its entry point as it does for a user: pytest-recording, pytest-asyncio, anyio,
pytest-randomly, pytest-xdist, pytest-timeout, pytest-rerunfailures, pytest-cov, pytest-mock,
syrupy and pytest-env (all in the ``dev`` extra). The sessions run in this process (a session's
plugins load from their entry points all the same), except the one with pytest-xdist and
pytest-cov, whose workers and coverage are processes of their own. The project has a ``conftest.py`` with fixtures
of every scope, autouse and not, and a ``tests/`` folder with tests of its own that use those
plugins. A few cases of each family run; a failing adapter shows that verdicts and reruns count
each case once, that ``--lf``, ``--ff``, ``--sw`` and the printed node id and re-run command
re-run what failed (a user's test and a case failing together included), and that
pytest-randomly shuffles the suite's items with the user's (with ``-p no:randomly`` the kit's
own order stays).
"""

from __future__ import annotations

import importlib
import importlib.util
import textwrap
from collections.abc import Mapping
from pathlib import Path

import pytest
from background import Job, ahead, run_pytest

PLUGINS = ("pytest_recording", "pytest_asyncio", "anyio", "pytest_randomly", "xdist",
           "pytest_timeout", "pytest_rerunfailures", "pytest_cov", "pytest_mock", "syrupy",
           "pytest_env")
MISSING = [name for name in PLUGINS if importlib.util.find_spec(name) is None]
pytestmark = pytest.mark.skipif(
    bool(MISSING), reason=f"needs {', '.join(MISSING)} (the 'dev' extra installs them)")

# Imported here, before any in-process run, for speed (as in tests/test_plugin.py): an in-process
# run drops the modules it imported itself, so each run would import (and assertion-rewrite) the
# plugins and what they load (vcrpy, numpy, trio) all over again
for _name in ("pytest_recording.plugin", "vcr", "pytest_randomly", "anyio.pytest_plugin",
              "pytest_asyncio.plugin", "pytest_rerunfailures", "pytest_mock", "syrupy",
              "pytest_env.plugin", "pytest_timeout", "_hypothesis_pytestplugin", "hypothesis"):
    if not MISSING:
        importlib.import_module(_name)
import tests.kit_imports  # noqa: F401 - the kit itself, for the same reason: tests/kit_imports.py

#: a few cases of each family (loop and history cases run against the reference implementations)
CASES = ("--toolcall-cases=wire.single_call,wire.parallel_calls,stream.truncated,"
         "errors.rate_limited,loop.unknown_tool,history.orphan_calls,fallback.tool_first")
N_CASES = 7

CONFTEST = '''
import os

import pytest

from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter

SEEN = []


@pytest.fixture(scope="session", autouse=True)
def session_setup():
    SEEN.append("session")
    yield


@pytest.fixture(scope="package", autouse=True)
def package_setup():
    yield


@pytest.fixture(scope="module", autouse=True)
def database():
    """A module-scoped autouse fixture, as projects use for database setup (issue 17)."""
    yield


@pytest.fixture(scope="class", autouse=True)
def class_setup():
    yield


@pytest.fixture(autouse=True)
def env_patch(monkeypatch):
    monkeypatch.setenv("APP_MODE", "test")


@pytest.fixture(scope="module")
def settings():
    return {"mode": os.environ.get("APP_ENV")}


class DropsSecondCall(OpenAIChatAdapter):
    """A broken adapter: keeps only the first tool call (fails wire.parallel_calls)."""

    def complete(self, request):
        response = super().complete(request)
        return response.model_copy(update={"tool_calls": response.tool_calls[:1]})

    async def acomplete(self, request):
        response = await super().acomplete(request)
        return response.model_copy(update={"tool_calls": response.tool_calls[:1]})


@pytest.fixture
def toolcall_adapter(toolcall_endpoint, settings):
    cls = DropsSecondCall if os.environ.get("BROKEN") else OpenAIChatAdapter
    return cls(toolcall_endpoint.base_url, toolcall_endpoint.api_key,
               client=toolcall_endpoint.client, async_client=toolcall_endpoint.async_client)
'''

USER_TESTS = '''
import asyncio
import os

import pytest


def test_env_from_ini():
    assert os.environ["APP_ENV"] == "ci"  # pytest-env


def test_mocker(mocker):  # pytest-mock
    fake = mocker.Mock(return_value=3)
    assert fake() == 3


async def test_asyncio_auto():  # pytest-asyncio, auto mode
    await asyncio.sleep(0)


@pytest.mark.anyio
async def test_anyio():
    await asyncio.sleep(0)


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.vcr  # pytest-recording, beside the kit's own cassettes; makes no request
def test_recorded(settings):
    assert settings["mode"] == "ci"


class TestGrouped:
    def test_in_a_class(self):
        assert True
'''

INI = """[pytest]
asyncio_mode = auto
asyncio_default_fixture_loop_scope = function
env =
    APP_ENV=ci
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.mkdir("tests")
    (pytester.path / "tests" / "test_app.py").write_text(USER_TESTS, encoding="utf-8")
    pytester.makeini(INI)
    monkeypatch.delenv("BROKEN", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    # pytest-env sets APP_ENV in the process it runs in: set here first, it is undone after
    monkeypatch.setenv("APP_ENV", "")
    monkeypatch.delenv("APP_ENV")
    return pytester


def _run(project: pytest.Pytester, *args: str, subprocess: bool = False) -> pytest.RunResult:
    run = project.runpytest_subprocess if subprocess else project.runpytest_inprocess
    return run("--toolcall-provider=openai", CASES, "-q", *args)


def _ok(result: pytest.RunResult, suite: int = N_CASES, user: int = 6) -> None:
    out = result.stdout.str()
    assert result.ret == 0, out + result.stderr.str()
    assert "INTERNALERROR" not in out and "Could not obtain a node" not in out, out
    assert f"{suite} case runs: {suite} passed" in out, out
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed") == suite + user, outcomes
    assert "failed" not in outcomes and "errors" not in outcomes, outcomes


def test_every_fixture_scope_and_the_common_plugins(project: pytest.Pytester) -> None:
    """Autouse fixtures of every scope, pytest-asyncio (auto), anyio, pytest-env, pytest-mock,
    pytest-recording's vcr marker, pytest-randomly shuffling the user's tests and the suite's
    items (on by default), syrupy loaded."""
    _ok(_run(project, "--randomly-seed=1234"))


def test_asyncio_strict_mode(project: pytest.Pytester) -> None:
    project.makeini(INI.replace("asyncio_mode = auto", "asyncio_mode = strict"))
    result = _run(project, "-k", "not asyncio_auto")
    _ok(result, user=5)


def test_pytest_recording_block_network(project: pytest.Pytester) -> None:
    """--block-network blocks every socket: the kit's loopback fake stays reachable for the
    suite (issue 17: no false verdict), other hosts stay blocked."""
    _ok(_run(project, "--block-network", "--toolcall-transport=loopback",
             "--toolcall-loop-model=fake"))


def _xdist_timeout_cov(where: Path, env: Mapping[str, str]) -> pytest.RunResult:
    # the project of the ``project`` fixture, and its session in a process of its own (three,
    # under -n 2), waited on: it may run ahead, beside other tests (tests/background.py)
    root = where / "project"
    (root / "tests").mkdir(parents=True)
    (root / "conftest.py").write_text(textwrap.dedent(CONFTEST), encoding="utf-8")
    (root / "tests" / "test_app.py").write_text(USER_TESTS, encoding="utf-8")
    (root / "tox.ini").write_text(textwrap.dedent(INI), encoding="utf-8")
    env = {k: v for k, v in env.items() if k not in ("BROKEN", "GITHUB_STEP_SUMMARY", "APP_ENV")}
    return run_pytest(root, env, "--toolcall-provider=openai", CASES, "-q", "-n", "2",
                      "--timeout=120", "--cov=tests", "-p", "no:randomly")


@ahead(lambda: Job("a user's project under xdist, pytest-timeout and pytest-cov",
                   _xdist_timeout_cov))
def test_xdist_timeout_cov(ahead_run: tuple[pytest.RunResult, Path]) -> None:
    _ok(ahead_run[0])


@pytest.mark.parametrize("paths", [("tests",), ("tests/test_app.py",)])
def test_path_arguments(project: pytest.Pytester, paths: tuple[str, ...]) -> None:
    _ok(_run(project, *paths))


def test_k_and_x(project: pytest.Pytester) -> None:
    result = _run(project, "-k", "single_call or orphan", "-x")
    out = result.stdout.str()
    assert result.ret == 0, out
    assert "2 case runs: 2 passed" in out, out


def test_reruns_count_each_case_once_and_lf_reruns_only_failures(
        project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BROKEN", "1")
    first = _run(project, "--reruns", "1", "-p", "no:randomly")
    out = first.stdout.str()
    assert first.ret == 1, out
    # the failing case ran twice (pytest-rerunfailures) but is one case run, one failure
    assert f"{N_CASES} case runs: {N_CASES - 1} passed, 1 failed" in out, out
    assert "wire.parallel_calls[openai]: response.tool_calls.count" in out, out
    # the re-run hint is a command that runs as printed
    assert ("re-run one case: pytest 'toolcall::wire.parallel_calls[openai]'   (all that failed: "
            f"pytest --toolcall-provider=openai {CASES} --lf)") in out, out
    assert "<name>" not in out and "<case id>" not in out

    again = _run(project, "--lf", "-p", "no:randomly")
    outcomes = again.parseoutcomes()
    assert outcomes.get("failed") == 1 and "passed" not in outcomes, again.stdout.str()

    by_id = project.runpytest_inprocess("toolcall::wire.parallel_calls[openai]", "-q",
                                        "-p", "no:randomly")
    assert by_id.parseoutcomes() == {"failed": 1}, by_id.stdout.str()

    stepwise = _run(project, "--sw", "-p", "no:randomly")
    assert stepwise.parseoutcomes().get("failed") == 1, stepwise.stdout.str()

    # --ff runs the failed case first: with -x it is the only one that runs
    first_failed = _run(project, "--ff", "-x", "-p", "no:randomly")
    assert first_failed.parseoutcomes() == {"failed": 1}, first_failed.stdout.str()


def test_a_vcr_marker_on_suite_items_is_a_setup_error_not_a_verdict(
        project: pytest.Pytester) -> None:
    """A project that marks every item with pytest-recording's vcr marker: the suite's items
    error (the kit could not run) and say why, instead of failing every case."""
    project.makeconftest(CONFTEST + '''

def pytest_collection_modifyitems(items):
    for item in items:
        item.add_marker(pytest.mark.vcr)
''')
    result = project.runpytest_inprocess("--toolcall-provider=openai",
                                         "--toolcall-cases=wire.single_call", "-q",
                                         "-p", "no:randomly", "tests/test_app.py::test_recorded")
    out = result.stdout.str()
    assert result.parseoutcomes() == {"passed": 1, "errors": 1}, out
    assert "could not run" in out and "a `vcr` marker (pytest-recording)" in out, out
    assert "Traceback" not in out and "CannotOverwriteExistingCassette" not in out, out


def test_lf_and_ff_rerun_a_user_failure_and_a_case_failure_together(
        project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """A user's own test and a suite case fail in the same run: `--lf` re-runs both (pytest's
    cacheprovider used to empty the suite's collection, whose file has no recorded failure, and
    re-ran the user's test alone: "skipped 3 files"), `--ff` runs both first (issue 17)."""
    (project.path / "tests" / "test_more.py").write_text(
        "import os\n\n\ndef test_fails_when_broken():\n"
        "    assert not os.environ.get('BROKEN')\n", encoding="utf-8")
    monkeypatch.setenv("BROKEN", "1")
    first = _run(project)
    assert first.parseoutcomes().get("failed") == 2, first.stdout.str()

    again = _run(project, "--lf")
    out = again.stdout.str()
    assert again.parseoutcomes() == {"failed": 2, "deselected": N_CASES - 1}, out
    assert "FAILED tests/test_more.py::test_fails_when_broken" in out, out
    assert "FAILED toolcall::wire.parallel_calls[openai]" in out, out
    assert "1 case run: 1 failed" in out, out

    first_failed = _run(project, "--ff", "-vv")  # -q -vv: verbose
    out = first_failed.stdout.str()
    assert "rerun previous 2 failures first" in out, out
    assert first_failed.parseoutcomes() == {"failed": 2, "passed": N_CASES - 1 + 6}, out
    ran = [line.split()[0] for line in first_failed.stdout.lines
           if line.endswith("]") and (" PASSED " in line or " FAILED " in line)]
    assert set(ran[:2]) == {"tests/test_more.py::test_fails_when_broken",
                            "toolcall::wire.parallel_calls[openai]"}, out


def test_pytest_randomly_shuffles_the_suite_items(project: pytest.Pytester) -> None:
    """pytest-randomly shuffles in its hook wrapper before the kit adds the suite's items, which
    then ran in the kit's order whatever the seed (issue 17). They take part in its shuffle now:
    the order follows the seed (the same seed, the same order) and the user's items keep the
    order pytest-randomly gave them; with -p no:randomly the kit's own order stays."""
    def order(*args: str) -> tuple[list[str], list[str]]:
        result = project.runpytest_inprocess("--toolcall-provider=openai",
                                             "--toolcall-cases=wire.*,stream.*",
                                             "--collect-only", "-q", *args)
        assert result.ret == 0, result.stdout.str() + result.stderr.str()
        ids = [line for line in result.outlines if "::" in line and " " not in line]
        return ([i for i in ids if i.startswith("toolcall::")],
                [i for i in ids if not i.startswith("toolcall::")])

    kit_order, _ = order("-p", "no:randomly")
    one, user_one = order("-p", "randomly", "--randomly-seed=1")
    two, user_two = order("-p", "randomly", "--randomly-seed=2")
    assert len(kit_order) > 20 and sorted(one) == sorted(two) == sorted(kit_order)
    assert one != two and one != kit_order and two != kit_order
    assert order("-p", "randomly", "--randomly-seed=1") == (one, user_one)
    assert user_one != user_two or len(user_one) < 3  # the user's own tests shuffled as before

"""Shared setup of the kit's own tests."""

from __future__ import annotations

import faulthandler
import os
import sys
from pathlib import Path

# Imported before any in-process pytester run: pytester drops the modules such a run imported
# first, and httpx builds its httpcore -> httpx exception map lazily, on first use. A run that was
# first to import httpcore left that map holding classes no later import would raise, so a later
# test in the same process saw httpcore.RemoteProtocolError where httpx.RemoteProtocolError was
# due (tests/test_foreign.py after tests/test_cassettes_errors.py)
import httpcore  # noqa: F401
import httpx  # noqa: F401
import pytest

TESTS_DIR = Path(__file__).resolve().parent

# The helper modules of the providers' tests (tests/providers/: controls_<folder>.py,
# provider_kit.py, openai_wire_sdk.py) import each other, and tests elsewhere in tests/ import
# them, by bare name, like tests/corpus.py: pytest puts a test module's own folder on sys.path
# when it imports it, but ``python -m pytest tests/test_bug_catalogue.py`` alone must find them too
if str(TESTS_DIR / "providers") not in sys.path:
    sys.path.insert(0, str(TESTS_DIR / "providers"))
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

# tests/background.py (found through the line above): jobs that run ahead of their tests
import background

#: how long a session of the kit's own tests (or one xdist worker) may run before it is stopped
#: with every thread's traceback on stderr: a hang ends well inside CI's 90 minutes and says
#: where it hung. One watchdog for the session, instead of pytest-timeout's thread started and
#: joined around each of the 8,700 tests (1.7 ms of wall time a test, about 15 s a serial run,
#: measured 2026-11-28 on tests/providers/test_controls.py with and without the plugin). The
#: kit's own deadlines (SIGALRM) stay in use: faulthandler's watchdog installs no signal handler.
SESSION_LIMIT_S = 40 * 60


_watchdog_fd: list[int] = []

#: PYTHONDONTWRITEBYTECODE as this session found it (below), to put back at its end
_bytecode_env: list[str | None] = []


def _write_bytecode() -> None:
    """The Python processes the kit's tests start (pytester sessions, foreign children, mutation
    runs: a few hundred a run) write and share the bytecode of the modules they compile.

    Where PYTHONDONTWRITEBYTECODE is set (it is on this project's machines, and so in CI), each
    such process compiled the kit's modules from source again: about 0.9 s of CPU for a process
    that imports the whole package (192 modules, 2026-11-28, this project's 2-core machine),
    pytest's assertion rewriting of the conformance modules besides. With writing allowed, the
    first process writes ``__pycache__`` as Python does by default (ignored by git) and the next
    ones read it, this process's in-process pytester runs included. What runs is the same source.
    """
    _bytecode_env.append(os.environ.pop("PYTHONDONTWRITEBYTECODE", None))
    sys.dont_write_bytecode = False


#: HYPOTHESIS_STORAGE_DIRECTORY as this session found it, and the folder it made instead
_hypothesis_env: list[tuple[str | None, str]] = []


def _shared_hypothesis_home() -> None:
    """The processes the kit's tests start share one hypothesis storage folder for the session.

    Hypothesis (6.155) reads the constants of every module it counts as the project's own and
    caches them in its storage folder; the kit, installed editable from this checkout, is such a
    module to it. The kit keeps that folder under the project's pytest cache, so each test child,
    started in a fresh project, parsed the kit's modules again: 0.4 to 1 s of CPU a child that
    draws (``--toolcall-cases='stream.*'``, 2026-11-28, this project's 2-core machine). The
    kit's searches use no example database (``database=None``), so the cache is all they share,
    keyed by each source file's hash: the draws are the ones a cold folder gives. A user's own
    ``HYPOTHESIS_STORAGE_DIRECTORY`` is left as it is; tests/test_hypothesis_storage.py unsets it
    to check the kit's own choice of folder.
    """
    found = os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY")
    if found:
        return
    import tempfile

    made = tempfile.mkdtemp(prefix="pytest-toolcall-tests-hypothesis-")
    os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = made
    _hypothesis_env.append((found, made))


def pytest_configure(config: pytest.Config) -> None:
    # pytest's capture is suspended while plugins configure: fd 2 is the terminal's stderr here,
    # where the tracebacks must go (during a test it is pytest's capture file)
    config.addinivalue_line(
        "markers", "ahead(make): the test's child process may run ahead, at the session's "
        "start (tests/background.py); make(**params) returns its Job")
    _watchdog_fd.append(os.dup(2))
    faulthandler.dump_traceback_later(SESSION_LIMIT_S, exit=True, file=_watchdog_fd[-1])
    _write_bytecode()
    _shared_hypothesis_home()


def pytest_unconfigure(config: pytest.Config) -> None:
    faulthandler.cancel_dump_traceback_later()
    while _watchdog_fd:
        os.close(_watchdog_fd.pop())
    while _bytecode_env:
        previous = _bytecode_env.pop()
        if previous is not None:
            os.environ["PYTHONDONTWRITEBYTECODE"] = previous
            sys.dont_write_bytecode = True
    while _hypothesis_env:
        import shutil

        previous_home, made = _hypothesis_env.pop()
        os.environ.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
        if previous_home is not None:
            os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = previous_home
        shutil.rmtree(made, ignore_errors=True)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_collection(session: pytest.Session) -> object:
    """Collect without the cyclic garbage collector, then collect once and freeze what is left.

    Collection imports the client libraries the fidelity and shim tests drive (anthropic,
    google-genai, pydantic-ai, ollama, openai: thousands of pydantic classes), about 560,000
    objects that live until the session ends. With the collector on, each of its full passes
    walked all of them again: 10 full passes while collecting, 4 to 5 s of the 12 s collection,
    and then every full pass while the tests ran (about 8 s of GC in a run of ~1,900 tests over
    the whole collection). One pass at the end frees (and reports, as pytest's unraisable hook
    would) whatever collecting left as garbage; ``gc.freeze()`` then moves the survivors out of
    the collector's view, so the passes during the run walk only what the tests allocate. No
    object a test creates is frozen: a test that calls ``gc.collect()`` collects its garbage as
    before. Measured 2026-11-28 on this project's 2-core machine: ``--collect-only`` 10.7 s of
    CPU before, 6.7 s after; peak memory unchanged (273 MB).
    """
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        return (yield)
    finally:
        if enabled:
            gc.enable()
        gc.collect()
        gc.freeze()


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Skip the kit's own tests when the conformance suite is asked for.

    ``pytest --toolcall-provider=openai`` in this repository is the demo (and the CI main job):
    it must run the conformance suite against the reference adapters and nothing else. Without
    this, ``testpaths = ["tests"]`` would also collect every unit and pytester test of the kit,
    mixing "the kit's tests failed" with "an implementation broke a clause" in one run. Plain
    ``pytest`` still runs the kit's tests. ``None`` leaves the decision to other hooks.
    """
    provider = config.getoption("toolcall_provider", default=None) or config.getini(
        "toolcall_provider"
    )
    if not provider:
        return None
    path = collection_path.resolve()
    if path == TESTS_DIR or TESTS_DIR in path.parents:
        return True
    return None


#: the modules whose pytester runs check pytest-randomly's shuffle, and the other installed
#: plugins (anyio's, hypothesis'), on purpose
_RANDOMLY_ON_PURPOSE = ("test_plugin_compat",)

#: langsmith's pytest plugin, which the dev extra installs only because langchain depends on
#: langsmith: its imports cost each pytest session about 0.9 s of CPU (2026-11-28, this
#: project's 2-core machine; a session without it, 1.1 s), and no test here is about it. The
#: sessions the kit's tests start go without it; every plugin the tests name still loads
_UNRELATED_PLUGINS = "-p no:langsmith_plugin"

#: two more plugins the dev extra installs that a session the kit's tests start does not use,
#: off there except in the modules that are about them (above): anyio's (its import pulls in
#: trio) and hypothesis' (its terminal summary imports all of hypothesis, even in a session that
#: never used it; the kit uses hypothesis as a library, which needs no plugin). Together about
#: 0.45 s of the 1.1 s of CPU a bare pytest session costs here (2026-11-28, this project's 2-core
#: machine, pytest 9.2, hypothesis 6.155, anyio 4.16)
_UNUSED_PLUGINS = "-p no:anyio -p no:hypothesispytest"


def _child_addopts(module: str, uses_pytester: bool) -> str:
    """PYTEST_ADDOPTS for the pytest sessions a test of ``module`` starts (_kit_order)."""
    on_purpose = module.rpartition(".")[2] in _RANDOMLY_ON_PURPOSE
    addopts = _UNRELATED_PLUGINS if on_purpose else f"{_UNRELATED_PLUGINS} {_UNUSED_PLUGINS}"
    if uses_pytester and not on_purpose:
        addopts = "-p no:randomly " + addopts
    return addopts


def _test_env(item: pytest.Item, base: dict[str, str]) -> dict[str, str]:
    """``base`` as _kit_order leaves it for ``item``'s test (a job run ahead gets this)."""
    env = {k: v for k, v in base.items() if k != "GITHUB_STEP_SUMMARY"}
    env["PYTEST_ADDOPTS"] = _child_addopts(item.module.__name__,  # type: ignore[attr-defined]
                                           "pytester" in item.fixturenames)
    return env


@pytest.fixture(autouse=True)
def _kit_order(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The suite runs the kit's tests start check the suite's own order, which pytest-randomly
    shuffles like any other items (issue 17; tests/test_plugin_compat.py runs the suite under it).
    A pytester project loads pytest-randomly from its entry point (the repository's addopts do
    not reach it, and pytester clears PYTEST_ADDOPTS when it is created), so it is turned off
    again after that: -p no:randomly. Every pytest the tests start, with pytester or as a
    subprocess, goes without the unrelated plugins (above).

    And the suite runs the kit's tests start never append to the job summary of a GitHub
    Actions run of the kit itself; tests of that feature set GITHUB_STEP_SUMMARY themselves.
    (One autouse fixture for both: each costs its setup on every one of the 8,600 tests.)

    A fixture that imports libraries for the test (``_BEFORE_PYTESTER``) is set up before
    pytester, whose snapshot of sys.modules drops at teardown every module imported after it:
    requested after it, the openai and anthropic SDKs were imported again by each test of a
    framework file (3 to 6 s a test, 2026-11-28), and every dropped copy stayed alive (held by
    the SDKs' own caches), so the session's garbage collections slowed as copies piled up."""
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    uses_pytester = "pytester" in request.fixturenames
    if uses_pytester:
        for name in _BEFORE_PYTESTER:
            if name in request.fixturenames:
                request.getfixturevalue(name)
        request.getfixturevalue("pytester")
    monkeypatch.setenv("PYTEST_ADDOPTS", _child_addopts(request.module.__name__, uses_pytester))


# -- jobs run ahead (tests/background.py) --------------------------------------------------------
_LANE = pytest.StashKey[background.Lane]()


def _lane_runs(config: pytest.Config) -> bool:
    """Whether this process runs jobs ahead: it runs every selected test itself (not an xdist
    worker: each runs a share, and -n already uses the cores)."""
    return not hasattr(config, "workerinput")


def _skipped(item: pytest.Item) -> bool:
    """Whether a skip mark skips ``item`` for sure (its job need not run: the Go example's
    without Go)."""
    return any(m.name == "skip" or (m.name == "skipif" and m.args and all(
        isinstance(a, bool) and a for a in m.args)) for m in item.iter_markers())


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give each test marked ``ahead`` its job, and move those tests to the end of the run, in
    their order, so that their jobs have run (in the lane, from the session's start) by then."""
    import inspect

    config.stash[_LANE] = background.Lane()
    marked = []
    for item in items:
        mark = item.get_closest_marker("ahead")
        if mark is None or _skipped(item):
            continue
        make = mark.args[0]
        params = getattr(item, "callspec", None)
        names = inspect.signature(make).parameters
        item.stash[background.JOB] = make(**{n: params.params[n] for n in names} if params
                                          else {})
        marked.append(item)
    if marked and _lane_runs(config):
        chosen = set(marked)
        items[:] = [i for i in items if i not in chosen] + marked


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session: pytest.Session) -> object:
    """Start the lane on the selected tests' jobs, one folder each; stop it at the end."""
    import shutil
    import tempfile

    lane = session.config.stash.get(_LANE, None)
    base: Path | None = None
    if lane is not None and _lane_runs(session.config) and not session.config.option.collectonly:
        jobs: list[background.Job] = []
        for item in session.items:
            job = item.stash.get(background.JOB, None)
            if job is not None and job not in jobs:
                if base is None:
                    base = Path(tempfile.mkdtemp(prefix="pytest-toolcall-ahead-"))
                job.where = base / f"job{len(jobs)}"
                job.where.mkdir()
                job.env = _test_env(item, dict(os.environ))
                jobs.append(job)
        lane.start(jobs)
    try:
        return (yield)
    finally:
        if lane is not None:
            lane.stop()
        if base is not None:
            shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def ahead_run(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[object, Path]:
    """What the test's job (its ``ahead`` mark) returned, and the folder it worked in: run
    ahead in the lane, or here, in tmp_path, with the test's environment."""
    job = request.node.stash.get(background.JOB, None)
    assert job is not None, f"{request.node.nodeid} uses ahead_run but has no ahead mark"
    lane = request.config.stash.get(_LANE, None) or background.Lane()
    return lane.take(job, tmp_path, dict(os.environ))


@pytest.fixture(scope="session")
def _one_certificate_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import certifi

    bundle = Path(certifi.where()).read_text(encoding="ascii")
    end = "-----END CERTIFICATE-----"
    first = bundle[bundle.index("-----BEGIN CERTIFICATE-----"):bundle.index(end) + len(end)]
    path = tmp_path_factory.mktemp("ca") / "one-certificate.pem"
    path.write_text(first + "\n", encoding="ascii")
    return path


@pytest.fixture
def one_ca_certificate(_one_certificate_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SSL_CERT_FILE names a bundle of one certificate (certifi's first). Each google-genai
    Client builds three SSL contexts, each loading certifi's whole bundle unless SSL_CERT_FILE
    names another (google/genai/_api_client.py, read 2026-11-28 on google-genai 3.6.1): about
    400 loads, 13 s of CPU, in the shim tests that build one client per case. No test does TLS
    (every endpoint is in-process or plain http on loopback), so what they check is the same."""
    monkeypatch.setenv("SSL_CERT_FILE", str(_one_certificate_file))


#: the SDK clients whose own retries the framework tests run (their _base_client backoff)
_BACKOFF_SDKS = ("openai", "anthropic")

#: fixtures that import libraries, set up before pytester's snapshot of sys.modules (_kit_order)
_BEFORE_PYTESTER = ("short_client_backoff",)


@pytest.fixture
def short_client_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """The openai and anthropic SDKs' own backoff between the retries they make without a
    Retry-After (INITIAL_RETRY_DELAY 0.5 s doubled per retry, jittered: _base_client.py
    _calculate_retry_timeout, read 2026-11-28 on openai 3.57.0 and anthropic 2.14.0) cut to
    10 ms. A framework test's loop.model_error, loop.overloaded_retried and
    loop.rate_limit_retries_bounded slept about 1.5 s per interface in it, and no check reads
    it: the loop checks bound waits from above (loop.retry_cap, the case deadlines), and the
    one lower bound (loop.retry_delay) is the Retry-After the SDK honours before any backoff,
    which stays as the fake sends it. The retries themselves (how many, of what) are unchanged.
    Imported here, before an in-process pytester run, so that the run keeps the patched module."""
    import importlib

    for sdk in _BACKOFF_SDKS:
        try:
            base = importlib.import_module(f"{sdk}._base_client")
        except ImportError:  # the SDK is not installed: its tests skip
            continue
        monkeypatch.setattr(base, "INITIAL_RETRY_DELAY", 0.01)

"""A child process behind --toolcall-command that misbehaves (issue 35, items 1, 5-8): each fault
fails its case under its own clause, on the protocol's deadline, with the child's stderr tail;
no process the kit started outlives the fault (its whole group is stopped and reaped); the next
case runs normally. Real child processes: small Python harnesses written to tmp_path (Node only
where Node matters). Process checks read /proc (a zombie counts as ended), never the clock."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from background import Job, ahead, run_pytest

from pytest_toolcall import ChatRequest, UserMessage
from pytest_toolcall.cases import default_registry
from pytest_toolcall.core.contracts import make_profile
from pytest_toolcall.core.errors import ConformanceFailure, UsageError
from pytest_toolcall.providers.fake import FakeProvider
from pytest_toolcall.run import foreign, runner
from pytest_toolcall.run.foreign import Child, ForeignAdapter, served
from pytest_toolcall.run.runbase import SubjectFault
from pytest_toolcall.run.runner import run_case

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups and /proc: POSIX")

ROOT = Path(__file__).resolve().parent.parent
FAULTY_NODE = ROOT / "tests" / "node" / "faulty.mjs"

#: a harness in Python. QUICK=1 answers complete() with "ok" without HTTP (no kit import: a
#: fast start); otherwise it is the kit's reference OpenAI adapter over the fake on loopback.
#: A request misbehaves when its user message is "FAULT:<kind>" or when it is the n-th request
#: of the run (FAULTS="2:busy,4:exit", counted across restarts in $FAULT_STATE). Every process
#: it starts records its pid in $FAULT_PIDS.
HARNESS = r'''
import json, os, signal, subprocess, sys, time

PIDS = os.environ.get("FAULT_PIDS")


def record(pid):
    if PIDS:
        open(os.path.join(PIDS, str(pid)), "w").close()


record(os.getpid())
if os.environ.get("FAULT_IGNORE_TERM"):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def grandchild():
    # inherits stdout and stderr, and sleeps: it holds the pipes open after the child exits
    record(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"]).pid)


HELLO = os.environ.get("FAULT_HELLO", "")
if HELLO == "exit":
    print("harness: cannot start with token " + os.environ.get("HARNESS_TOKEN", "")
          + " and key " + os.environ.get("OPENAI_API_KEY", ""), file=sys.stderr, flush=True)
    sys.exit(2)
if HELLO == "grandchild_exit":
    grandchild()
    print("harness: exiting, my grandchild stays", file=sys.stderr, flush=True)
    os._exit(2)
if HELLO == "silent":
    print("harness: starting, slowly", file=sys.stderr, flush=True)
    time.sleep(600)
if HELLO == "print":
    print("harness starting")


def write(message):
    sys.stdout.write(json.dumps({"v": 1, **message}) + "\n")
    sys.stdout.flush()


def count():
    path = os.environ.get("FAULT_STATE")
    if not path:
        return 0
    n = int(open(path).read() or 0) + 1 if os.path.exists(path) else 1
    open(path, "w").write(str(n))
    return n


FAULTS = dict(item.split(":") for item in os.environ.get("FAULTS", "").split(",") if item)


def fault(kind):
    print(f"harness: fault {kind}", file=sys.stderr, flush=True)
    if kind == "exit":
        sys.exit(3)
    if kind == "silent":
        time.sleep(600)
    if kind == "busy":
        while True:
            pass
    if kind == "ignore_term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(600)
    if kind == "flood":  # 300 MB without a newline
        piece = b"x" * (1 << 20)
        for _ in range(300):
            sys.stdout.buffer.write(piece)
            sys.stdout.buffer.flush()
        time.sleep(600)
    if kind == "grandchild":
        grandchild()
        os._exit(4)
    if kind == "garbage":
        print("debug: got a request", flush=True)
        time.sleep(600)
    if kind == "json_log":  # a log line that happens to be JSON
        print(json.dumps({"debug": "got a request"}), flush=True)
        time.sleep(600)


if not os.environ.get("QUICK"):  # imported before the hello: no request pays for it
    import httpx

    from pytest_toolcall.core.errors import IncompleteStreamError, ProviderError, StreamError
    from pytest_toolcall.core.model import ChatRequest
    from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter


    READ = os.environ.get("READ_TIMEOUT", "5")
    CLIENT = httpx.Client(timeout=None if READ == "none" else float(READ))  # built once


def adapter(endpoint):
    return OpenAIChatAdapter(endpoint["base_url"], endpoint["api_key"], client=CLIENT)


def error(rid, exc):
    if not isinstance(exc, ProviderError):
        return {"id": rid, "type": "error", "error": {"kind": "error", "message": str(exc),
                                                      "name": type(exc).__name__}}
    kind = ("incomplete" if isinstance(exc, IncompleteStreamError) else
            "stream" if isinstance(exc, StreamError) else "provider")
    return {"id": rid, "type": "error", "error": {
        "kind": kind, "message": str(exc), "status": exc.status, "retryable": exc.retryable,
        "provider_type": exc.type, "code": exc.code, "retry_after": exc.retry_after}}


streams = 0
for line in sys.stdin:
    msg = json.loads(line)
    rid = msg["id"]
    if msg["type"] == "hello":
        write({"id": rid, "type": "hello", "protocol": 1, "name": "py", "contracts": ["chat"],
               "profile": {"streaming": True,
                           "timeout": float(os.environ.get("PROFILE_TIMEOUT", "1.5"))}})
        continue
    users = [m for m in msg["request"]["messages"] if m["role"] == "user"]
    text = users[0]["content"] if users else ""
    kind = FAULTS.get(str(count())) or (text[6:] if text.startswith("FAULT:") else "")
    if kind:
        fault(kind)
    if os.environ.get("LOG_EACH"):  # a log line a passing request writes
        print(f"harness: answering {text!r} with token {os.environ.get('HARNESS_TOKEN', '')}",
              file=sys.stderr, flush=True)
    if os.environ.get("QUICK"):
        write({"id": rid, "type": "result", "response": {
            "text": "ok", "tool_calls": [], "finish_reason": "stop"}})
        continue
    request = ChatRequest.model_validate(msg["request"])
    try:
        if msg["type"] == "complete":
            answer = adapter(msg["endpoint"]).complete(request)
            write({"id": rid, "type": "result",
                   "response": answer.model_dump(mode="json", by_alias=True)})
            continue
        streams += 1
        for event in adapter(msg["endpoint"]).stream(request):
            event = event.model_dump(mode="json", by_alias=True)
            if streams == int(os.environ.get("FLAKY_STREAM", 0)) and "text" in event:
                event["text"] = "x"  # this one stream only: the same cuts pass when replayed
            write({"id": rid, "type": "event", "event": event})
        write({"id": rid, "type": "result"})
    except Exception as exc:
        write(error(rid, exc))
'''


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie has ended: only its exit status is left)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return text[text.rfind(b")") + 2:].split()[0] != b"Z"


def _recorded(pids: Path) -> list[int]:
    return sorted(int(p.name) for p in pids.iterdir())


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[dict]:
    """The harness script and its environment: ``argv``, ``env``, ``pids`` (a folder)."""
    script = tmp_path / "harness.py"
    script.write_text(HARNESS)
    pids = tmp_path / "pids"
    pids.mkdir()
    yield {"argv": [sys.executable, str(script)], "pids": pids, "script": script,
           "env": {"FAULT_PIDS": str(pids), "QUICK": "1"}}
    # whatever the test did: once its children are closed, none of their processes runs
    assert not [pid for pid in _recorded(pids) if _alive(pid)]


def _child(harness: dict, **env: str) -> Child:
    return Child(harness["argv"], env={**harness["env"], **env})


def _ask(child: Child, text: str, timeout: float = 5.0):
    with served(FakeProvider("openai")) as endpoint:
        return ForeignAdapter(child, endpoint, timeout=timeout).complete(
            ChatRequest(messages=(UserMessage(content=text),)))


def _run(child: Child, case_id: str) -> None:
    """Run a case of the suite through the child's adapter, over the loopback hub."""
    with served(FakeProvider("openai")) as endpoint:
        run_case(_case(case_id), ForeignAdapter(child, endpoint),
                 make_profile(child.hello["profile"]), endpoint=endpoint)


def _settle(child: Child) -> None:
    """Wait until every process the child stopped is reaped (bounded by the kill's graces)."""
    for process in child.stopped:
        assert process.settle(foreign.SHUTDOWN_GRACE + foreign.KILL_GRACE + 5)


def _case(case_id: str):
    return next(c for c in default_registry() if c.id == case_id)


# -- 5: no leftover process; the case ends on the protocol's deadline, with the stderr tail ----
@pytest.mark.parametrize("fault,clause", [
    ("silent", "adapter.timeout"),
    ("busy", "adapter.timeout"),
    ("ignore_term", "adapter.timeout"),  # ignores SIGTERM and its stdin's end: SIGKILL
    ("flood", "subprocess.protocol"),  # 300 MB without a newline: read up to MAX_LINE only
    ("grandchild", "subprocess.exited"),  # exits, a grandchild holds the pipes open
    ("garbage", "subprocess.protocol"),
    ("exit", "subprocess.exited"),
])
def test_a_fault_leaves_no_process_and_the_next_call_runs(harness, fault, clause):
    child = _child(harness)
    child.start()
    first = child.proc.pid
    try:
        with pytest.raises(SubjectFault) as info:
            # a child that never answers is cut off at any deadline: 0.5 s leaves it time to
            # write its stderr line; the others must be seen for what they are first (a flood's
            # 16 MB read, an exit), within 0.8 s
            _ask(child, f"FAULT:{fault}", timeout=0.5 if clause == "adapter.timeout" else 0.8)
        assert info.value.clause == clause
        assert f"harness: fault {fault}" in info.value.message  # the stderr tail
        _settle(child)
        recorded = _recorded(harness["pids"])
        assert first in recorded and len(recorded) == (2 if fault == "grandchild" else 1)
        assert not [pid for pid in recorded if _alive(pid)]
        assert _ask(child, "hello").text == "ok" and child.starts == 2  # restarted
    finally:
        child.close()
    assert not [pid for pid in _recorded(harness["pids"]) if _alive(pid)]


def test_an_sh_wrapper_and_its_command_are_stopped_together(harness, tmp_path):
    # sh stays the parent (the '; exit' keeps it from exec-ing the command): killing sh alone
    # left the harness running
    sh_pid = tmp_path / "sh.pid"
    command = (f"sh -c 'echo $$ > {sh_pid}; {shlex.join(harness['argv'])}; exit'")
    child = Child(command, env=harness["env"])
    child.start()
    try:
        with pytest.raises(SubjectFault) as info:
            _ask(child, "FAULT:ignore_term", timeout=0.5)  # it never answers
        assert info.value.clause == "adapter.timeout"
        _settle(child)
        pids = [int(sh_pid.read_text()), *_recorded(harness["pids"])]
        assert len(pids) == 2 and not [pid for pid in pids if _alive(pid)]
        assert _ask(child, "hello").text == "ok"
    finally:
        child.close()


def test_close_stops_a_child_that_ignores_its_stdin_and_sigterm(harness):
    child = _child(harness, FAULT_IGNORE_TERM="1")
    child.start()
    pid = child.proc.pid
    assert _alive(pid)
    child.close()  # stdin closed (ignored: it reads on), SIGTERM (ignored), SIGKILL
    assert not _alive(pid) and child.proc is None and not child.stopped


def test_stop_all_stops_every_child_still_running(harness, monkeypatch):
    # what atexit runs: children a session never closed (a conftest's own Child) end too
    child = _child(harness, FAULT_IGNORE_TERM="1")
    child.start()
    pid = child.proc.pid
    # only this test's child: a child another test module keeps for later is left alone
    monkeypatch.setattr(foreign, "_RUNNING", {pid: foreign._RUNNING[pid]})
    foreign.stop_all()
    assert not _alive(pid) and pid not in foreign._RUNNING
    child.close()  # closing it afterwards is harmless


def test_the_runners_deadline_never_cuts_the_kill_short(harness):
    # the runner's own deadline (SIGALRM) strikes while the child is waited on: the child is
    # stopped in a thread of its own, so it still ends, and the next call runs
    from pytest_toolcall.run.runbase import _Timeout, _with_timeout

    child = _child(harness, FAULT_IGNORE_TERM="1")
    child.start()
    pid = child.proc.pid
    try:
        outcome = _with_timeout(lambda: _ask(child, "FAULT:silent", timeout=30), 0.3)
        assert isinstance(outcome, _Timeout)
        _settle(child)
        assert not _alive(pid)
        assert _ask(child, "hello").text == "ok"
    finally:
        child.close()


def _faulty_session(where: Path, env: Mapping[str, str]) -> tuple[pytest.RunResult, Path]:
    """A real pytest session: the 2nd request busy-loops, the 4th floods stdout, the 6th exits
    leaving a grandchild on the pipes; every child ignores SIGTERM (the last one is stopped at
    session end). Nearly all of it waits on the session and its children, up to their
    deadlines: it may run ahead, beside other tests (tests/background.py)."""
    script, pids, project = where / "harness.py", where / "pids", where / "project"
    script.write_text(HARNESS)
    pids.mkdir()
    project.mkdir()
    (project / "tox.ini").write_text("[pytest]\ntoolcall_hello_timeout = 20\n")
    env = {**env, "FAULT_PIDS": str(pids), "FAULT_STATE": str(where / "count"),
           "FAULT_IGNORE_TERM": "1", "FAULTS": "2:busy,4:flood,6:grandchild", "QUICK": "",
           "PROFILE_TIMEOUT": "5"}
    return run_pytest(
        project, env, "--toolcall-provider=openai", f"--toolcall-cases={','.join(FAULTY_CASES)}",
        "-p", "no:cacheprovider", "-p", "no:randomly",
        f"--toolcall-command={shlex.join([sys.executable, str(script)])}"), pids


FAULTY_CASES = ["wire.single_call", "wire.text_and_calls", "wire.parallel_calls",
                "wire.text_only", "wire.system_prompt", "wire.malformed_arguments",
                "wire.tool_definitions_intact"]


@ahead(lambda: Job("a session with faulty children", _faulty_session))
def test_a_session_with_faulty_children_runs_the_next_cases_and_leaves_no_process(ahead_run):
    # the other cases pass; after pytest exits no recorded process is alive
    registry = {c.id for c in default_registry().select(["wire.*"], "openai")}
    assert set(FAULTY_CASES) <= registry
    (result, pids), _ = ahead_run
    result.assert_outcomes(passed=4, failed=3)
    out = result.stdout.str()
    for clause in ("adapter.timeout", "subprocess.protocol", "subprocess.exited"):
        assert f"[{clause}]" in out
    assert "adapter.raised" not in out
    recorded = _recorded(pids)
    assert len(recorded) == 5  # four children, one grandchild
    assert not [pid for pid in recorded if _alive(pid)]


# -- 1: a child that fails its hello has its stderr masked ------------------------------------
def test_the_stderr_of_a_failed_hello_is_masked(harness, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-hello-leak-0123456789")
    token = "harness-token-only-in-the-childs-env-42"
    with pytest.raises(UsageError) as info:
        _child(harness, FAULT_HELLO="exit", HARNESS_TOKEN=token).start()
    message = str(info.value)
    assert "failed its hello" in message and "harness: cannot start" in message
    assert "sk-test-hello-leak-0123456789" not in message and token not in message
    assert "[redacted $OPENAI_API_KEY]" in message and "[redacted $HARNESS_TOKEN]" in message
    assert not [pid for pid in _recorded(harness["pids"]) if _alive(pid)]


def test_the_stderr_of_a_fault_in_a_case_is_masked_the_same(harness, monkeypatch):
    token = "harness-token-only-in-the-childs-env-42"
    child = _child(harness, HARNESS_TOKEN=token)
    child.start()
    try:
        child.stderr.append(f"harness: my token is {token}\n")  # as if the child wrote it
        with pytest.raises(SubjectFault) as info:
            _ask(child, "FAULT:exit")
        assert token not in info.value.render() and "[redacted $HARNESS_TOKEN]" in \
            info.value.render()
    finally:
        child.close()


# -- 6: faults under their own clause, hints, a prompt hello ----------------------------------
@pytest.mark.parametrize("fault,clause", [("exit", "subprocess.exited"),
                                         ("garbage", "subprocess.protocol")])
def test_a_child_fault_in_a_case_is_its_own_clause_not_adapter_raised(harness, fault, clause):
    child = _child(harness, FAULTS=f"1:{fault}", FAULT_STATE=str(harness["pids"].parent / "n"))
    child.start()
    try:
        with pytest.raises(ConformanceFailure) as info:
            _run(child, "wire.single_call")
        assert info.value.clause == clause
        assert info.value.case_id == "wire.single_call"
        assert "see the adapter's traceback" not in info.value.render()
        if fault == "garbage":  # a Python command: the Python hint
            assert "print(..., file=sys.stderr)" in info.value.hint
    finally:
        child.close()


@pytest.mark.skipif(shutil.which("node") is None,
                    reason="needs the 'node' program (Node 18+) on PATH")
def test_console_log_on_stdout_gets_the_javascript_hint():
    child = Child(["node", str(FAULTY_NODE)])
    child.start()
    pids = [child.proc.pid]
    try:
        with pytest.raises(SubjectFault) as info:
            _ask(child, "FAULT:garbage")
        assert info.value.clause == "subprocess.protocol"
        assert "console.log" in info.value.hint and "console.error" in info.value.hint
        assert _ask(child, "hello", timeout=5).text == "ok"
        pids.append(child.proc.pid)
        # a message with the protocol's "v" that is wrong is no log line: the docs hint
        with pytest.raises(SubjectFault) as info:
            _ask(child, "FAULT:bad_message")
        assert info.value.clause == "subprocess.protocol"
        assert "docs/protocol.md" in info.value.hint and "stderr" not in info.value.hint
        assert _ask(child, "hello", timeout=5).text == "ok"
        pids.append(child.proc.pid)
    finally:
        child.close()
    assert not [pid for pid in pids if _alive(pid)]


@pytest.mark.parametrize("mode", ["exit", "grandchild_exit"])
def test_a_child_that_exits_before_its_hello_is_reported_at_once(harness, mode):
    # at once: the exit is seen (a pidfd, or a poll), not the hello timeout, even while a
    # grandchild holds the pipes open. The bound here is a third of the default 15 s
    started = time.monotonic()
    with pytest.raises(UsageError, match="failed its hello(.|\n)*exited \\(code 2\\)"):
        _child(harness, FAULT_HELLO=mode).start()
    assert time.monotonic() - started < foreign.HELLO_TIMEOUT / 3
    assert not [pid for pid in _recorded(harness["pids"]) if _alive(pid)]


def test_a_silent_child_fails_its_hello_on_the_configured_bound(harness):
    child = Child(harness["argv"], env={**harness["env"], "FAULT_HELLO": "silent"},
                  hello_timeout=0.3)
    with pytest.raises(UsageError) as info:
        child.start()
    message = str(info.value)
    assert "did not answer hello #1 within 0.3s" in message
    assert "toolcall_hello_timeout (now 0.3 s)" in message and "starting, slowly" in message
    assert not [pid for pid in _recorded(harness["pids"]) if _alive(pid)]


def test_text_on_stdout_before_the_hello_gets_the_hint(harness):
    with pytest.raises(UsageError) as info:
        _child(harness, FAULT_HELLO="print").start()
    assert "'harness starting" in str(info.value) and "file=sys.stderr" in str(info.value)


def test_toolcall_hello_timeout_through_pytest(pytester, harness, monkeypatch):
    for name, value in {**harness["env"], "FAULT_HELLO": "silent"}.items():
        monkeypatch.setenv(name, value)
    command = f"--toolcall-command={shlex.join(harness['argv'])}"
    pytester.makeini("[pytest]\ntoolcall_hello_timeout = 0.3\n")
    result = pytester.runpytest_inprocess("--toolcall-provider=openai", "-p", "no:cacheprovider",
                                          "--toolcall-cases=wire.single_call", command)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([("*did not answer hello #1 within 0.3s*"
                                  "toolcall_hello_timeout (now 0.3 s)*")])
    pytester.makeini("[pytest]\ntoolcall_hello_timeout = soon\n")
    result = pytester.runpytest_inprocess("--toolcall-provider=openai", "-p", "no:cacheprovider",
                                          "--toolcall-cases=wire.single_call", command)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*toolcall_hello_timeout = 'soon' is not a number of seconds*"])
    assert not [pid for pid in _recorded(harness["pids"]) if _alive(pid)]


def test_reading_is_bounded_for_stderr_too(harness, tmp_path):
    # 50 MB on stderr without a newline: kept as one line cut to _STDERR_WIDTH characters
    script = tmp_path / "loud.py"
    script.write_text("import sys\nsys.stderr.write('e' * 50_000_000)\nsys.exit(5)\n")
    with pytest.raises(UsageError) as info:
        Child([sys.executable, str(script)]).start()
    assert "exited (code 5)" in str(info.value)
    assert "e" * foreign._STDERR_WIDTH in str(info.value)
    assert "e" * (foreign._STDERR_WIDTH + 1) not in str(info.value)


# -- 7: a stalled stream is held until the case's deadline over loopback ----------------------
@pytest.mark.parametrize("read_timeout,clause", [("none", "adapter.timeout"), ("0.3", None)])
def test_a_client_without_a_read_timeout_fails_a_stall_over_loopback(harness, read_timeout,
                                                                     clause):
    # the fake used to drop a stalled connection after 0.5 s, so a client with no read timeout
    # got an error and passed; now the stall is held until the case ends. The child without one
    # is broken on purpose (it waits forever) and fails on the protocol's deadline wherever it
    # strikes: a short case deadline (0.8 s for the protocol) is enough; the correct child's
    # read timeout (0.3 s) keeps the 3 s one
    deadline = "3" if clause is None else "1.2"
    child = _child(harness, QUICK="", READ_TIMEOUT=read_timeout, PROFILE_TIMEOUT=deadline)
    child.start()
    try:
        if clause is None:
            _run(child, "errors.stream_stalled")
        else:
            with pytest.raises(ConformanceFailure) as info:
                _run(child, "errors.stream_stalled")
            assert info.value.clause == clause
            assert "did not answer stream" in info.value.message
            assert info.value.level == "should"
        _settle(child)
        assert [pid for pid in _recorded(harness["pids"]) if _alive(pid)] == (
            [] if clause else [child.proc.pid])
    finally:
        child.close()


def test_the_kits_own_clients_of_a_loopback_fake_time_out_before_the_case():
    from pytest_toolcall.providers.fake import serve
    from pytest_toolcall.providers.fake.server import LOOPBACK_READ_TIMEOUT
    from pytest_toolcall.reference import reference_profile

    # the reference adapters use the endpoint's client: its read timeout on a loopback port is
    # under the case's deadline, so they pass a held stall (tests/test_issue12.py runs them:
    # test_faults_play_on_a_loopback_port), as in-process
    assert LOOPBACK_READ_TIMEOUT < reference_profile("openai").timeout
    with serve(FakeProvider("openai")) as endpoint:
        assert endpoint.client.timeout.read == LOOPBACK_READ_TIMEOUT
        assert endpoint.async_client.timeout.read == LOOPBACK_READ_TIMEOUT
    with served(FakeProvider("openai")) as endpoint:
        assert endpoint.client.timeout.read == LOOPBACK_READ_TIMEOUT
    from pytest_toolcall.providers.fake.provider import in_process_endpoint

    # in-process a stall is virtual time: the fake honours the client's read timeout at once
    assert in_process_endpoint(FakeProvider("openai")).client.timeout.read == 30


# -- 8: stream.any_chunking over the protocol: a clean clause, never a FlakyFailure -----------
def test_any_chunking_that_does_not_fail_again_reports_the_first_failures_clause(
        harness, monkeypatch):
    # the child breaks its 3rd stream only: hypothesis's replay of the failing cuts passes (as
    # when TCP merges the cuts), which hypothesis reports as a FlakyFailure group
    monkeypatch.setattr(runner, "_CUTS", {})  # no cached cuts: the search runs from the start
    child = _child(harness, QUICK="", FLAKY_STREAM="3", PROFILE_TIMEOUT="5")
    child.start()
    try:
        with pytest.raises(ConformanceFailure) as info:
            _run(child, "stream.any_chunking")
        assert type(info.value) is ConformanceFailure  # not an exception group
        assert info.value.clause.startswith("response.")
        assert "did not fail again when replayed" in info.value.message
        assert child.starts == 1
    finally:
        child.close()


def test_any_chunking_over_the_protocol_passes_with_a_correct_child(harness, monkeypatch):
    monkeypatch.setattr(runner, "_CUTS", {})
    child = _child(harness, QUICK="", PROFILE_TIMEOUT="5")
    child.start()
    try:
        _run(child, "stream.any_chunking")
    finally:
        child.close()


def test_a_child_that_breaks_during_the_search_ends_it_under_its_clause(harness, monkeypatch):
    monkeypatch.setattr(runner, "_CUTS", {})
    state = harness["pids"].parent / "n"
    child = _child(harness, QUICK="", FAULTS="2:exit", FAULT_STATE=str(state),
                   PROFILE_TIMEOUT="5")
    child.start()
    try:
        with pytest.raises(SubjectFault) as info:
            _run(child, "stream.any_chunking")
        assert info.value.clause == "subprocess.exited"
        assert child.starts == 1  # no restart per example: the search stopped at the fault
    finally:
        child.close()
    assert int(state.read_text()) == 2


def test_the_harness_speaks_valid_protocol(harness):
    # the harness itself is a correct implementation: the faults above are the only ones
    child = _child(harness)
    child.start()
    try:
        assert child.hello["contracts"] == ["chat"]
        assert _ask(child, "hello").text == "ok" and child.starts == 1
        assert json.loads(json.dumps(child.hello))["protocol"] == 1
    finally:
        child.close()


def test_a_json_log_line_on_stdout_gets_the_stderr_hint(harness):
    # JSON with neither "v" nor "type" is no attempt at a protocol message: a log line, so the
    # hint says where logs go; a message with the protocol's "v" that is wrong keeps the
    # docs hint (its control)
    child = _child(harness)
    child.start()
    try:
        with pytest.raises(SubjectFault) as info:
            _ask(child, "FAULT:json_log", timeout=0.8)
        assert info.value.clause == "subprocess.protocol"
        assert "logs go to stderr" in info.value.hint
        assert "print(..., file=sys.stderr)" in info.value.hint
    finally:
        child.close()


def test_the_child_log_keeps_the_stderr_of_passing_requests_masked(harness, tmp_path):
    log = tmp_path / "child.log"
    token = "hx-" + "Q7wT2pLk9ZrV4nB8sD3fG6jH1mX5cY0a"
    child = Child(harness["argv"], log=str(log),
                  env={**harness["env"], "LOG_EACH": "1", "HARNESS_TOKEN": token})
    child.start()
    try:
        assert _ask(child, "first").text == "ok" and _ask(child, "second").text == "ok"
        with pytest.raises(SubjectFault):
            _ask(child, "FAULT:exit")
        assert _ask(child, "third").text == "ok"  # restarted: the same log, a new start line
    finally:
        child.close()
    text = log.read_text()
    assert "harness: answering 'first'" in text and "harness: answering 'second'" in text
    assert "harness: fault exit" in text and "harness: answering 'third'" in text
    assert text.count(f"--- {child.command} (start ") == 2
    assert token not in text and "redacted" in text


def test_a_child_log_that_cannot_be_opened_is_a_usage_error(harness, tmp_path):
    child = Child(harness["argv"], env=harness["env"],
                  log=str(tmp_path / "no-such-dir" / "child.log"))
    with pytest.raises(UsageError, match="toolcall_child_log: cannot append to"):
        child.start()
    assert child.proc is None  # nothing started

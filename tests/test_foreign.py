"""Implementations in another process: the protocol, faults, and the Node examples through the
suite (positive and negative controls). Tests that need Node skip, naming it, without it."""

from __future__ import annotations

import os
import shutil
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from pytest_toolcall import ChatRequest, UserMessage
from pytest_toolcall.cases import default_registry
from pytest_toolcall.core.contracts import make_profile
from pytest_toolcall.core.errors import ConformanceFailure, ProviderError, UsageError
from pytest_toolcall.providers.fake import FakeProvider, serve
from pytest_toolcall.run.foreign import (
    Child,
    ForeignAdapter,
    ForeignError,
    ForeignLoop,
    ForeignStructured,
    validate_message,
)
from pytest_toolcall.run.runner import run_case

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples" / "node"
FAULTY = ROOT / "tests" / "node" / "faulty.mjs"

needs_node = pytest.mark.skipif(shutil.which("node") is None,
                                reason="needs the 'node' program (Node 18+) on PATH")


def _case(case_id: str):
    return next(c for c in default_registry() if c.id == case_id)


@pytest.fixture(scope="module")
def node_adapter():
    child = Child(["node", str(EXAMPLES / "openai_adapter.mjs")])
    child.start()
    yield child
    child.close()


@contextmanager
def _example(script, bug=""):
    """An example of examples/node/ started with ``TOOLCALL_EXAMPLE_BUG=bug``, closed after."""
    child = Child(["node", str(EXAMPLES / script)], env={"TOOLCALL_EXAMPLE_BUG": bug})
    child.start()
    try:
        yield child
    finally:
        child.close()


def _fails_or_passes(run, clause):
    """``run()`` passes where ``clause`` is None, else fails on ``clause``."""
    if clause is None:
        run()
        return
    with pytest.raises(ConformanceFailure) as info:
        run()
    assert info.value.clause == clause


def _chat(child, case_id):
    profile = make_profile(child.hello["profile"])
    with serve(FakeProvider("openai")) as endpoint:
        run_case(_case(case_id), ForeignAdapter(child, endpoint), profile, endpoint=endpoint)


# -- the protocol -------------------------------------------------------------------------------
def test_schema_validates_messages():
    assert validate_message({"v": 1, "id": 1, "type": "hello", "provider": "openai"},
                            "to_child") is None
    assert validate_message({"v": 1, "id": 1, "type": "result", "response": {}},
                            "from_child") is None
    assert "unknown message type" in validate_message({"v": 1, "id": 1, "type": "nope"},
                                                      "from_child")
    assert "extra" in validate_message({"v": 1, "id": 1, "type": "result", "extra": 1},
                                       "from_child")
    assert validate_message({"v": 2, "id": 1, "type": "result"}, "from_child") is not None
    assert validate_message([1], "from_child") is not None


# -- the Node examples through the suite --------------------------------------------------------
@needs_node
@pytest.mark.parametrize("case_id", ["wire.text_and_calls", "wire.zero_args_empty_string",
                                     "stream.parallel_interleaved", "stream.truncated", "stream.mid_stream_error",
                                     "wire.provider_error", "wire.error_not_json",
                                     "wire.malformed_success"])
def test_node_adapter_passes(node_adapter, case_id):
    _chat(node_adapter, case_id)


@needs_node
@pytest.mark.parametrize("case_id", ["loop.iteration_cap", "loop.parallel_dispatch",
                                     "loop.sanitised_failures", "loop.tool_timeout",
                                     "loop.permanent_failure"])
def test_node_loop_passes(node_adapter, case_id):
    run_case(_case(case_id), ForeignLoop(node_adapter),
             make_profile(node_adapter.hello["profile"]), dialect="openai")


@needs_node
@pytest.mark.parametrize("bug,case_id,clause", [
    ("merge_calls", "wire.text_and_calls", "response.tool_calls.count"),
    ("drop_text", "stream.text_fragmented", "response.text"),
])
def test_node_adapter_negative_controls(bug, case_id, clause):
    with _example("openai_adapter.mjs", bug) as child:
        _fails_or_passes(lambda: _chat(child, case_id), clause)


@needs_node
def test_node_loop_negative_control():
    with _example("openai_adapter.mjs", "loop_forever") as child:
        _fails_or_passes(lambda: run_case(_case("loop.iteration_cap"), ForeignLoop(child),
                                          make_profile(child.hello["profile"]), dialect="openai"),
                         "loop.stop_reason")


@needs_node
@pytest.mark.parametrize("bug,case_id,clause", [
    ("", "history.orphan_results", None), ("", "history.result_stored_late", None),
    ("", "history.random_histories", None),
    ("keep_orphans", "history.orphan_results", "history.orphan_dropped"),
    ("keep_orphans", "history.results_without_id", "history.no_id_dropped"),
])
def test_node_history(bug, case_id, clause):
    from pytest_toolcall.run.foreign import ForeignHistory

    with _example("openai_adapter.mjs", bug) as child:
        _fails_or_passes(lambda: run_case(_case(case_id), ForeignHistory(child),
                                          make_profile(child.hello["profile"])), clause)


@needs_node
@pytest.mark.parametrize("bug,case_id,clause", [
    ("", "fallback.tool_first", None), ("", "fallback.json_in_prose", None),
    ("", "fallback.fenced_json", None), ("", "fallback.plain_text", None),
    ("two_pass", "fallback.tool_first", "fallback.one_stream"),
    ("no_schema", "fallback.arguments_fail_schema", "fallback.channel"),
])
def test_node_collector(bug, case_id, clause):
    with _example("collector.mjs", bug) as child:
        _fails_or_passes(lambda: run_case(_case(case_id), ForeignStructured(child),
                                          make_profile(child.hello["profile"]), dialect="openai"),
                         clause)


# -- faults are the implementation's ------------------------------------------------------------
@pytest.fixture
def faulty():
    child = Child(["node", str(FAULTY)])
    child.start()
    yield child
    child.close()


def _ask(child, text, timeout=1.0):
    with serve(FakeProvider("openai")) as endpoint:
        return ForeignAdapter(child, endpoint, timeout=timeout).complete(
            ChatRequest(messages=(UserMessage(content=text),)))


@needs_node
@pytest.mark.parametrize("fault,clause,stderr", [
    ("FAULT:exit", "subprocess.exited", "boom, exiting"),
    ("FAULT:hang", "adapter.timeout", "hanging"),
    ("FAULT:garbage", "subprocess.protocol", "logging to stdout"),
    ("FAULT:bad_message", "subprocess.protocol", None),
    # a line that is not UTF-8 is a protocol fault, not an exit (the reader reads the pipe itself)
    ("FAULT:bad_utf8", "subprocess.protocol", "a stray byte"),
    ("FAULT:late", "adapter.timeout", None),
])
def test_fault_fails_the_case_and_the_child_restarts(faulty, fault, clause, stderr):
    started = time.monotonic()
    with pytest.raises(ConformanceFailure) as info:
        # a late answer (2.5 s) is cut off at any deadline: a short one; the others keep 1 s, in
        # which the child writes its stderr line or breaks the protocol
        _ask(faulty, fault, timeout=0.4 if fault == "FAULT:late" else 1.0)
    assert info.value.clause == clause
    assert "stderr of the child" in info.value.message or "wrote nothing" in info.value.message
    if stderr:
        assert stderr in info.value.message
    assert time.monotonic() - started < 5
    assert _ask(faulty, "hello", timeout=5).text == "ok"  # restarted for the next case
    assert faulty.starts == 2


@needs_node
def test_answer_in_the_wrong_shape_is_a_protocol_fault(faulty):
    with pytest.raises(ConformanceFailure) as info:
        _ask(faulty, "FAULT:bad_shape")
    assert info.value.clause == "subprocess.protocol" and "text" in info.value.message


@needs_node
def test_thrown_error_is_the_adapters_exception(faulty):
    with pytest.raises(ForeignError, match="TypeError: cannot read"):
        _ask(faulty, "FAULT:throw")
    assert _ask(faulty, "hello").text == "ok" and faulty.starts == 1


def test_command_not_found_is_a_usage_error():
    with pytest.raises(UsageError, match="no-such-harness-xyz.*not found"):
        Child("no-such-harness-xyz --flag").start()


@needs_node
def test_failed_hello_is_a_usage_error_with_stderr():
    with pytest.raises(UsageError, match="failed its hello(.|\n)*missing config FOO_API_BASE"):
        Child(["node", str(FAULTY)], env={"FAULTY_HELLO": "exit"}).start()
    with pytest.raises(UsageError, match="protocol 99"):
        Child(["node", str(FAULTY)], env={"FAULTY_HELLO": "version"}).start()


def test_provider_error_maps():
    from pytest_toolcall.run.foreign import _raise_error

    with pytest.raises(ProviderError) as info:
        _raise_error({"error": {"kind": "provider", "message": "bad key", "status": 401}})
    assert info.value.status == 401


# -- through pytest: --toolcall-command and toolcall_subprocess ----------------------------------
_SOME = "wire.text_and_calls,stream.parallel_interleaved,loop.iteration_cap,fallback.tool_first"


@needs_node
def test_command_option_runs_the_families(pytester):
    result = pytester.runpytest(
        "--toolcall-provider=openai", f"--toolcall-cases={_SOME}", "-p", "no:cacheprovider",
        f"--toolcall-command=node {EXAMPLES / 'openai_adapter.mjs'}")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["adapter under test: pytest_toolcall.run.foreign.ForeignAdapter",
                                 "*tool loop under test: pytest_toolcall.run.foreign.ForeignLoop"])


@needs_node
def test_child_log_option_keeps_the_stderr_of_a_passing_run(pytester):
    # the child writes a line to stderr at start (a preloaded module): the run passes, and the
    # line is in the log all the same (without the option it is shown only with a failure)
    log = pytester.path / "child.log"
    result = pytester.runpytest(
        "--toolcall-provider=openai", "--toolcall-cases=wire.text_only", "-p", "no:cacheprovider",
        f"--toolcall-child-log={log}", "--toolcall-command=node --import=data:text/javascript,"
        f"console.error(4242*2) {EXAMPLES / 'openai_adapter.mjs'}")
    result.assert_outcomes(passed=1)
    assert "8484" in log.read_text()


@needs_node
def test_ini_command_and_negative_control(pytester, monkeypatch):
    monkeypatch.setenv("TOOLCALL_EXAMPLE_BUG", "merge_calls")
    pytester.makeini(f"[pytest]\ntoolcall_command = node {EXAMPLES / 'openai_adapter.mjs'}\n")
    result = pytester.runpytest("--toolcall-provider=openai", "-p", "no:cacheprovider",
                                "--toolcall-cases=wire.text_and_calls")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*wire.text_and_calls*response.tool_calls.count*"])


@needs_node
def test_subprocess_fixture_in_conftest(pytester):
    pytester.makeconftest(f"""
import pytest

@pytest.fixture
def toolcall_structured(toolcall_subprocess):
    return toolcall_subprocess({'node ' + str(EXAMPLES / 'collector.mjs')!r}).structured()
""")
    result = pytester.runpytest("--toolcall-provider=openai", "-p", "no:cacheprovider",
                                "--toolcall-cases=fallback.*")
    from pytest_toolcall.cases import default_registry

    # every fallback case (conformance/fallback.py and fallback_more.py) passes: the example
    # collector takes a fence's language tag with it (fallback.fence_other_language_json)
    result.assert_outcomes(passed=len(default_registry().select(["fallback.*"], "openai")))
    result.stdout.fnmatch_lines(["*structured output under test: pytest_toolcall.run.foreign."
                                 "ForeignStructured"])


# -- the session's profile: the child's claims, the reference's only where the reference runs ----
def test_every_profile_field_belongs_to_a_contract_or_to_the_run():
    from pytest_toolcall.core.contracts import Profile
    from pytest_toolcall.plugins.foreign import _CLAIMS, _GENERAL

    names = [field.alias or name for name, field in Profile.model_fields.items()]
    groups = [*_CLAIMS.values(), _GENERAL]
    assert sorted(names) == sorted(n for group in groups for n in group)  # each exactly once


def test_a_child_is_not_judged_on_the_reference_claims_of_what_it_implements():
    from pytest_toolcall.plugins.foreign import merged_profile
    from pytest_toolcall.reference import reference_profile

    reference = reference_profile("openai").model_dump(by_alias=True, exclude_defaults=True)
    assert reference["handoff_tools"] and reference["compatible_with"]  # the premise
    child = {"name": "node", "streaming": True, "max_iterations": 4}
    # a child with its own loop and adapter: no handoff tool, no compatible_with it never made
    profile = make_profile(merged_profile(reference, child, ["chat", "loop"]))
    assert not profile.claims("loop.handoff") and not profile.cancellation
    assert profile.compatible_with == frozenset() and profile.max_iterations == 4
    assert profile.tool_timeout == make_profile({}).tool_timeout
    # a child with an adapter only: the reference loop that runs keeps the reference's policy
    profile = make_profile(merged_profile(reference, child, ["chat"]))
    assert profile.handoff_tools == reference_profile("openai").handoff_tools
    assert profile.compatible_with == frozenset()


@needs_node
def test_the_node_example_is_not_failed_on_a_handoff_it_never_claimed(pytester):
    result = pytester.runpytest(
        "--toolcall-provider=openai", "--toolcall-cases=loop.handed_off", "-p", "no:cacheprovider",
        "-rs", f"--toolcall-command=node {EXAMPLES / 'openai_adapter.mjs'}")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*does not claim 'loop.handoff'*"])


@needs_node
def test_a_closed_child_leaves_no_pipe_to_the_garbage_collector():
    # the child's stdout and stderr were left open: when a child was restarted mid-session (a
    # call abandoned), the garbage collector's ResourceWarning ("unclosed file"), an error under
    # -W error, failed a run whose every case had passed
    child = Child(["node", str(EXAMPLES / "openai_adapter.mjs")])
    child.start()
    proc = child.proc
    child.close()
    assert proc.stdin.closed and proc.stdout.closed and proc.stderr.closed


def test_missing_command_is_a_usage_error_before_any_case(pytester):
    result = pytester.runpytest("--toolcall-provider=openai", "-p", "no:cacheprovider",
                                "--toolcall-command=no-such-harness-xyz run",
                                "--toolcall-cases=wire.single_call")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*no-such-harness-xyz*not found*"])
    assert "passed" not in result.stdout.str() and "failed" not in result.stdout.str()


@needs_node
def test_bench_foreign_runs_and_prints_its_figures(tmp_path, monkeypatch, capsys):
    import json
    import runpy
    import sys

    # run as a script, in this process: the script imports the kit as any test here does (a
    # Python of its own cost 0.7 s of imports); its children are processes all the same
    out = tmp_path / "bench.json"
    script = ROOT / "bench" / "bench_foreign.py"
    monkeypatch.setattr(sys, "argv", [str(script), "--quick", "--json", str(out)])
    monkeypatch.setattr(sys, "path", list(sys.path))  # the script puts the repository first
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(script), run_name="__main__")
    stdout, stderr = capsys.readouterr()
    assert done.value.code == 0, stderr
    assert "protocol / in-process:" in stdout
    figures = json.loads(out.read_text())
    assert figures["cases"] == 2 and figures["per_case_ms"]["protocol"] > 0


# -- the loopback hub plays the fake's transport faults (a kit defect until 2026-11-24: it wrote
#    the markers as empty chunks, so a reset or a stall ended the body cleanly) ---------------
def _hub_request(turn: object, timeout: float = 5) -> list[bytes]:
    import httpx

    from pytest_toolcall.cases import Turn
    from pytest_toolcall.run.foreign import served

    assert isinstance(turn, Turn)
    fake = FakeProvider("openai", [turn])
    with served(fake) as endpoint, httpx.Client(timeout=timeout) as client:
        with client.stream("POST", endpoint.base_url + "/chat/completions",
                           headers={"authorization": f"Bearer {endpoint.api_key}"},
                           json={"model": "gpt-4o-mini", "stream": True,
                                 "messages": [{"role": "user", "content": "hi"}]}) as response:
            return list(response.iter_bytes())


@pytest.mark.parametrize("fault", ["reset", "stall"])
def test_the_loopback_hub_drops_the_connection_on_a_reset_and_holds_a_stall(fault: str) -> None:
    import httpx

    from pytest_toolcall.cases import StreamPlan, Turn

    plan = StreamPlan(reset=True) if fault == "reset" else StreamPlan(stall=True)
    # a stall holds the connection until the case ends (issue 35): the client's own read
    # timeout ends it, as in-process (it was dropped after 0.5 s: a client with no read
    # timeout passed); tests/test_foreign_faults.py holds a client with none
    with pytest.raises(httpx.RemoteProtocolError if fault == "reset" else httpx.ReadTimeout):
        _hub_request(Turn(text="Hello there", stream=plan), timeout=0.3)
    assert b"data: [DONE]" in b"".join(_hub_request(Turn(text="Hello there")))  # clean control


def test_the_loopback_hub_answers_a_refusal_with_nothing() -> None:
    import httpx

    from pytest_toolcall.cases import ErrorReply, Turn

    with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
        _hub_request(Turn(error=ErrorReply(refuse=True)))


# -- the hub reads requests without http.client's header parser, and sends an answer in one
#    piece as one send (bench_foreign's per-case cost, issue 31) ---------------------------------
def _raw_exchange(request: bytes) -> bytes:
    import socket

    from pytest_toolcall.cases import Turn
    from pytest_toolcall.run.foreign import served

    fake = FakeProvider("openai", [Turn(text="Hello there")])
    with served(fake) as endpoint:
        host_port, _, path = endpoint.base_url.removeprefix("http://").partition("/")
        host, port = host_port.split(":")
        data = request.replace(b"PATH", b"/" + path.encode() + b"/chat/completions").replace(
            b"KEY", endpoint.api_key.encode())
        with socket.create_connection((host, int(port)), timeout=5) as sock:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
            chunks = []
            while True:
                piece = sock.recv(65536)
                if not piece:
                    break
                chunks.append(piece)
    return b"".join(chunks)


_BODY = b'{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}'


def test_the_hub_reads_headers_in_any_case_and_folded_and_answers_in_one_piece() -> None:
    request = (b"POST PATH HTTP/1.1\r\nHost: x\r\nAUTHORIZATION: Bearer\r\n KEY\r\n"
               b"Content-Type: application/json\r\ncOnTeNt-LeNgTh: %d\r\n\r\n%s"
               % (len(_BODY), _BODY))
    answer = _raw_exchange(request)
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n"), answer[:200]
    head, _, body = answer.partition(b"\r\n\r\n")
    assert b"transfer-encoding: chunked" in head.lower()
    assert b"Hello there" in body and body.endswith(b"0\r\n\r\n")


def test_the_hub_refuses_a_header_line_without_a_colon_and_reads_http_1_0() -> None:
    bad = b"POST PATH HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n"
    assert _raw_exchange(bad).startswith(b"HTTP/1.1 400 "), "a bad header line is answered 400"
    old = (b"POST PATH HTTP/1.0\r\nAuthorization: Bearer KEY\r\nContent-Length: %d\r\n\r\n%s"
           % (len(_BODY), _BODY))  # the standard parser: the same answer
    assert b"Hello there" in _raw_exchange(old)
    unauthorised = (b"POST PATH HTTP/1.1\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
                    % (len(_BODY), _BODY))
    assert _raw_exchange(unauthorised).startswith(b"HTTP/1.1 401 ")


@needs_node
@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"),
                    reason="the kit widens its pipes to a child on Linux only")
def test_a_large_stream_reaches_the_kit_in_few_reads(node_adapter, monkeypatch):
    # stream.oversized_line's events are 1.2 MB: through a 64 KiB pipe they were 19 reads (each
    # a hand-off between the child and the kit); the kit widens the pipe to 1 MiB
    from pytest_toolcall.run import foreign

    reads = []
    original = foreign._Lines._read
    monkeypatch.setattr(foreign._Lines, "_read", lambda self: reads.append(1) or original(self))
    _chat(node_adapter, "stream.oversized_line")
    assert 0 < len(reads) <= 4, f"{len(reads)} reads"


@needs_node
def test_a_small_answer_is_read_without_a_1_mib_buffer(node_adapter, monkeypatch):
    # os.read allocates the size it asks for: 1 MiB is an mmap and munmap of its own (~15 us,
    # ten times a 64 KiB read), so the kit asks for 1 MiB only while more is waiting; the large
    # stream above still comes in few reads
    from pytest_toolcall.run import foreign

    sizes: list[int] = []
    real_read = os.read

    def read(fd: int, size: int) -> bytes:
        sizes.append(size)
        return real_read(fd, size)

    monkeypatch.setattr(foreign.os, "read", read)
    _chat(node_adapter, "wire.single_call")
    assert sizes and max(sizes) <= 1 << 16, sizes

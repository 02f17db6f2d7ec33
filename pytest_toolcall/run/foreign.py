"""Implementations in another language: a child process spoken to over JSON lines.

The kit starts a command (``--toolcall-command="node my-harness.mjs"``), sends ``hello`` and
reads the profile back, then drives each case through protocol messages on the child's stdin and
stdout (one JSON object per line, every message validated against
``protocol.schema.json``). The objects here implement the kit's four contracts by talking to the
child: :class:`ForeignAdapter`, :class:`ForeignLoop`, :class:`ForeignHistory`,
:class:`ForeignStructured`. The protocol is described in ``docs/protocol.md``.

Faults are the implementation's: a child that exits, hangs, or writes something that is not a
protocol message fails the case (``subprocess.exited``, ``subprocess.protocol``,
``adapter.timeout``, raised as :class:`~pytest_toolcall.run.runbase.SubjectFault` so the runners
report that clause as it is) with its stderr tail, and is restarted for the next case. The child
leads a process group of its own; a faulted child's group is stopped (SIGTERM, then SIGKILL) and
reaped in a thread of its own, and every child still running is stopped at session end and at
interpreter exit (:func:`stop_all`).
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import json
import os
import queue
import select
import shlex
import shutil
import signal
import subprocess
import threading
import time
from functools import lru_cache
from importlib import resources
from typing import Any

from pytest_toolcall.core.errors import (
    ConformanceFailure,
    IncompleteStreamError,
    ProviderError,
    StreamError,
    UsageError,
)
from pytest_toolcall.core.redact import mask
from pytest_toolcall.run.runbase import SubjectFault

__all__ = [
    "PROTOCOL_VERSION",
    "Child",
    "ForeignAdapter",
    "ForeignHistory",
    "ForeignLoop",
    "ForeignStructured",
    "stop_all",
    "validate_message",
]

PROTOCOL_VERSION = 1
#: how long a child may take to answer hello (startup included); ini toolcall_hello_timeout.
#: A child that exits before its hello is reported at once
HELLO_TIMEOUT = 15.0
#: seconds a child has to exit once its stdin is closed (session end), then after SIGTERM to
#: its process group; SIGKILL ends whatever is left
SHUTDOWN_GRACE = 0.5
KILL_GRACE = 0.5
#: the longest line read from a child's stdout: more bytes without a newline are a protocol
#: fault (the reading is bounded; a child flooding stdout costs no more memory than this)
MAX_LINE = 16 * 1024 * 1024
#: how much of the time before the runner's own deadline the protocol keeps for itself: the
#: child's fault, with its stderr tail, is what the case reports
DEADLINE_MARGIN = 0.4
_STDERR_LINES = 40
_STDERR_WIDTH = 2000  # characters kept of one stderr line
_LOG_LINE = 1 << 20  # bytes of one stderr line the child log keeps together (masked whole)
_TAIL_WAIT = 0.25  # seconds a faulted child's stderr is read on for its last lines
_EXIT_POLL = 0.05  # where no pidfd says a child exited: how often to look


@lru_cache(maxsize=1)
def _validators() -> dict[str, Any]:
    import jsonschema

    text = resources.files(__package__).joinpath("protocol.schema.json").read_text("utf-8")
    schema = json.loads(text)
    jsonschema.Draft202012Validator.check_schema(schema)
    defs = schema["$defs"]

    def inline(node: Any) -> Any:
        # the $refs resolved once, here: resolving them on every message costs ~10x the check
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/") and len(node) == 1:
                return inline(defs[ref[len("#/$defs/"):]])
            return {k: inline(v) for k, v in node.items()}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    return {name: jsonschema.Draft202012Validator(inline(defs[name])) for name in defs}


# -- a compiled check for the common case ------------------------------------------------------
# jsonschema walks the schema on every message (~40-100 us a message, most of a stream case's
# validation cost). fastjsonschema compiles each message's schema once into Python code (a few
# us a message). It only says "valid": a message it rejects goes through jsonschema, which names
# the problem and has the last word, so the messages, and what is refused, are jsonschema's.
@lru_cache(maxsize=1)
def _compiled() -> dict[str, Any]:
    """message schema name -> a function ``value -> bool`` (True: valid)."""
    import fastjsonschema

    def fast(schema: Any) -> Any:
        # use_default=False: a check must never fill defaults into the child's message; the
        # protocol's keywords (type, const, enum, required, properties, additionalProperties,
        # items, uniqueItems, oneOf, minimum) mean the same in draft 7 and draft 2020-12
        check = fastjsonschema.compile({k: v for k, v in schema.items() if k != "$schema"},
                                       use_default=False)

        def valid(value: Any) -> bool:
            try:
                check(value)
            except fastjsonschema.JsonSchemaException:
                return False
            return True

        return valid

    return {name: fast(validator.schema) for name, validator in _validators().items()}


#: message type -> its $defs entry, per direction
_TO_CHILD = {"hello": "hello", "complete": "complete", "stream": "stream", "loop": "loop",
             "history": "history", "extract": "extract", "tool_result": "tool_result",
             "stream_opened": "stream_opened", "stream_event": "stream_event"}
_FROM_CHILD = {"hello": "hello_reply", "result": "result", "event": "event", "error": "error",
               "tool_call": "tool_call", "stream_open": "stream_open",
               "stream_next": "stream_next"}


def validate_message(message: Any, direction: str) -> str | None:
    """``None`` when ``message`` is a valid protocol message going ``direction``
    (``to_child`` / ``from_child``), else what is wrong with it."""
    if not isinstance(message, dict):
        return f"a message is a JSON object, got {type(message).__name__}"
    table = _TO_CHILD if direction == "to_child" else _FROM_CHILD
    kind = message.get("type")
    if kind not in table:
        return f"unknown message type {kind!r} (expected one of: {', '.join(table)})"
    if _compiled()[table[kind]](message):
        return None
    validator = _validators()[table[kind]]
    if validator.is_valid(message):
        return None
    errors = sorted(validator.iter_errors(message), key=lambda e: e.path)
    if errors:
        err = errors[0]
        where = "/".join(str(p) for p in err.absolute_path) or "message"
        return f"{kind} message: {where}: {err.message}"
    return None


class _Fault(Exception):
    """The child broke: exited, hung, or spoke outside the protocol."""

    def __init__(self, clause: str, message: str, hint: str) -> None:
        self.clause, self.message, self.hint = clause, message, hint
        super().__init__(message)


# -- the child's process and its group --------------------------------------------------------
_POSIX = os.name == "posix"
_RUNNING: dict[int, _Process] = {}  # pid -> every child process started and not yet reaped
_RUNNING_LOCK = threading.Lock()


def _group_alive(pgid: int) -> bool | None:
    """Whether a process of group ``pgid`` is alive, zombies aside (Linux's ``/proc``); None
    where there is no ``/proc`` to read."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return None
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                text = stat.read()
        except OSError:
            continue
        # "pid (comm) state ppid pgrp ...": the command name may hold spaces and parentheses
        fields = text[text.rfind(b")") + 2:].split()
        if len(fields) > 2 and fields[0] != b"Z" and fields[2] == str(pgid).encode():
            return True
    return False


class _Process:
    """One started child and its process group (on POSIX the child leads a session of its
    own, so everything it starts, a shell's command or a grandchild, is in its group).

    Stopped exactly once, in a thread of its own (the runner's timeout signal interrupts the
    main thread, never this one): stdin closed and :data:`SHUTDOWN_GRACE` to exit (a graceful
    stop), then SIGTERM to the group and :data:`KILL_GRACE`, then SIGKILL to whatever is left,
    then the child is reaped. Until then the exited child is never reaped (``waitid`` with
    ``WNOWAIT``), so its process id, the group's, cannot be reused by another process."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self.popen, self.pid = popen, popen.pid
        self.reaped = threading.Event()
        self.pump: threading.Thread | None = None  # the stderr reader, which closes stderr
        self._stopper: threading.Thread | None = None
        self._stopping = threading.Lock()
        self.pidfd: int | None = None  # readable once the child exits (Linux 5.3+)
        if hasattr(os, "pidfd_open"):
            with contextlib.suppress(OSError):
                self.pidfd = os.pidfd_open(self.pid)
        with _RUNNING_LOCK:
            _RUNNING[self.pid] = self

    def exit_code(self) -> int | None:
        """The exit code once the child has exited (negative: the signal that ended it), None
        while it runs; the child is left unreaped."""
        if self.popen.returncode is not None:
            return self.popen.returncode
        if not _POSIX or not hasattr(os, "waitid"):
            return self.popen.poll()
        try:
            info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:  # reaped already
            return self.popen.poll() if self.popen.returncode is None else self.popen.returncode
        if info is None:
            return None
        return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status

    def wait_exit(self, timeout: float) -> int | None:
        """The exit code, waiting up to ``timeout`` seconds for the child to exit."""
        end = time.monotonic() + timeout
        while True:
            code = self.exit_code()
            left = end - time.monotonic()
            if code is not None or left <= 0:
                return code
            if self.pidfd is not None:
                _ready(self.pidfd, left)
            else:
                time.sleep(min(left, 0.01))

    def _alive(self) -> bool:
        return self.exit_code() is None or bool(_POSIX and _group_alive(self.pid))

    def _signal(self, sig: int) -> None:
        with contextlib.suppress(OSError):  # ProcessLookupError: nobody left in the group
            if _POSIX:
                os.killpg(self.pid, sig)
            elif self.popen.returncode is None:
                self.popen.kill()

    def _stop(self, graceful: bool) -> None:
        try:
            if graceful:
                with contextlib.suppress(OSError, ValueError):
                    if self.popen.stdin is not None:
                        self.popen.stdin.close()
                self.wait_exit(SHUTDOWN_GRACE)
            if self._alive():
                self._signal(signal.SIGTERM)
                end = time.monotonic() + KILL_GRACE
                while self._alive() and time.monotonic() < end:
                    self.wait_exit(min(0.02, max(0.0, end - time.monotonic())))
                    if self.exit_code() is not None:
                        time.sleep(0.01)  # the leader is gone: its group, polled
            # whatever is left (a child or grandchild that ignores SIGTERM); the unreaped
            # leader keeps the group's id reserved, so the signal reaches no other process
            self._signal(getattr(signal, "SIGKILL", signal.SIGTERM))
            # a signal is delivered, not awaited: wait until the group is gone (bounded; a
            # process in uninterruptible sleep dies when it wakes), then reap the leader
            end = time.monotonic() + 5
            while _POSIX and _group_alive(self.pid) and time.monotonic() < end:
                time.sleep(0.005)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(timeout=5)
        finally:
            for stream in (self.popen.stdin, self.popen.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError, ValueError):
                        stream.close()
            if self.pidfd is not None:
                with contextlib.suppress(OSError):
                    os.close(self.pidfd)
                self.pidfd = None
            with _RUNNING_LOCK:
                _RUNNING.pop(self.pid, None)
            self.reaped.set()

    def stop(self, graceful: bool, *, thread: bool = True) -> None:
        """Stop the child and its group, once; in a thread of its own unless ``thread`` is
        False (at interpreter exit, where no thread may start)."""
        with self._stopping:
            if self._stopper is not None:
                return
            self._stopper = threading.current_thread()
            if thread:
                self._stopper = threading.Thread(target=self._stop, args=(graceful,),
                                                 daemon=True, name="toolcall-child-stop")
                self._stopper.start()
        if not thread:
            self._stop(graceful)

    def settle(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until the child is reaped and its stderr read to the
        end; True when it is."""
        end = time.monotonic() + timeout
        done = self.reaped.wait(timeout)
        if self.pump is not None:
            self.pump.join(max(0.0, end - time.monotonic()))
        return done


def stop_all(graceful: bool = False) -> None:
    """Stop and reap every child process the kit started that is still running, with its
    group (at interpreter exit; a pytest session stops its own children when it ends)."""
    with _RUNNING_LOCK:
        running = list(_RUNNING.values())
    for process in running:
        process.stop(graceful, thread=False)
        process.reaped.wait(SHUTDOWN_GRACE + KILL_GRACE + 5)


atexit.register(stop_all)


def _language_hint(argv: list[str]) -> str:
    """How to log on stderr, for the language the command runs."""
    program = os.path.basename(argv[0]).lower() if argv else ""
    js = ("console.log prints to stdout: use console.error (or process.stderr.write) for logs")
    py = ("print() writes to stdout: use print(..., file=sys.stderr) or logging (stderr by "
          "default) for logs")
    if program.startswith(("node", "deno", "bun", "npx", "npm", "tsx", "ts-node", "yarn",
                           "pnpm")):
        return js
    if program.startswith(("python", "py", "uv", "poetry", "pipenv")):
        return py
    return f"in JavaScript, {js}; in Python, {py}"


class Child:
    """One child process: started lazily, restarted after a fault, closed at session end."""

    def __init__(self, command: str | list[str], *, provider: str = "openai",
                 cwd: str | None = None, env: dict[str, str] | None = None,
                 hello_timeout: float | None = None, log: str | None = None) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise UsageError("--toolcall-command / toolcall_command is empty: give the command "
                             "that starts your harness, e.g. 'node my-harness.mjs'")
        self.command = command if isinstance(command, str) else shlex.join(command)
        self.provider, self.cwd = provider, cwd
        self.env = {**os.environ, **(env or {})}
        #: seconds the child has to answer hello (ini toolcall_hello_timeout)
        self.hello_timeout = HELLO_TIMEOUT if hello_timeout is None else float(hello_timeout)
        #: a file every line the child writes to stderr is appended to, masked (ini
        #: toolcall_child_log, --toolcall-child-log): the logs of a passing run, which a
        #: failure alone shows
        self.log = log
        self._log_file: Any = None  # opened at the first start, closed by close()
        #: whole stderr lines (bytes) the pumps read for the log; the thread that waits on the
        #: child masks and writes them (_flush_log): one mask a request, not one a line in a
        #: thread of its own
        self._log_lines: collections.deque[bytes] = collections.deque()
        self.proc: subprocess.Popen[bytes] | None = None
        self.process: _Process | None = None
        self.lines: Any = None  # _Lines: the child's stdout, one line at a time
        self.stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self.hello: dict[str, Any] = {}
        self.next_id = 0
        self.dirty = False  # a call was abandoned: restart before the next
        self.lock = threading.Lock()
        self.send_lock = threading.Lock()
        self.starts = 0
        self.stopped: list[_Process] = []  # processes stopped, perhaps not reaped yet
        self._deadline = 0.0  # the request in flight's

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> dict[str, Any]:
        """Start the child and read its hello; a usage error when it cannot start."""
        if shutil.which(self.argv[0]) is None and not os.path.exists(self.argv[0]):
            raise UsageError(f"--toolcall-command: {self.argv[0]!r} was not found (command: "
                             f"{self.command!r}); install it or fix the command"
                             + (" (Node 18+: https://nodejs.org/en/download)"
                                if self.argv[0] == "node" else ""))
        # its own session (POSIX) or process group (Windows): the whole group is stopped
        group: dict[str, Any] = ({"start_new_session": True} if _POSIX else
                                 {"creationflags": getattr(subprocess,
                                                           "CREATE_NEW_PROCESS_GROUP", 0)})
        self._open_log()
        try:
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, cwd=self.cwd, env=self.env, **group)
        except OSError as exc:
            raise UsageError(f"--toolcall-command: could not start {self.command!r}: "
                             f"{exc}") from None
        self.starts += 1
        if self._log_file is not None:  # each start (a restart too) under a line of its own
            self._flush_log()  # what the previous child wrote first
            self._log_lines.append(f"--- {self.command} (start {self.starts}, pid "
                                   f"{self.proc.pid}, {time.strftime('%Y-%m-%d %H:%M:%S')})\n"
                                   .encode())
        self.process = process = _Process(self.proc)
        # a deque of its own: a late line of the previous child never lands in this one's
        self.stderr = collections.deque(maxlen=_STDERR_LINES)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if _POSIX:  # writes wait for the request's deadline, never forever (_write_all)
            os.set_blocking(self.proc.stdin.fileno(), False)
        self.lines = _Lines(self.proc.stdout, process)
        _widen_pipe(self.proc.stdout.fileno())
        _widen_pipe(self.proc.stdin.fileno())
        process.pump = threading.Thread(target=_pump_stderr,
                                        args=(self.proc.stderr, self.stderr,
                                              None if self._log_file is None
                                              else self._log_lines.append),
                                        daemon=True, name="toolcall-child-err")
        process.pump.start()
        try:
            reply = self._exchange({"type": "hello", "provider": self.provider},
                                   self.hello_timeout, on_message=None)
        except _Fault as fault:
            hint = fault.hint
            if fault.clause == "adapter.timeout":
                hint = (f"a harness answers hello as soon as it starts; raise "
                        f"toolcall_hello_timeout (now {self.hello_timeout:g} s) if it starts "
                        "slowly")
            tail = self._abandon()
            self.close()
            raise UsageError(mask(f"--toolcall-command {self.command!r} failed its hello: "
                                  f"{fault.message} ({hint}){tail}", environ=self.env)) from None
        if reply.get("protocol") != PROTOCOL_VERSION:
            self.close()
            raise UsageError(f"--toolcall-command {self.command!r} speaks protocol "
                             f"{reply.get('protocol')!r}; this kit speaks {PROTOCOL_VERSION}")
        self.hello = reply
        self.dirty = False
        return reply

    def _open_log(self) -> None:
        """Open the child log (:attr:`log`) for appending, once; a log that cannot be opened
        is a usage error, before the child starts."""
        if not self.log or self._log_file is not None:
            return
        try:
            self._log_file = open(self.log, "a", encoding="utf-8", errors="replace")  # noqa: SIM115
        except OSError as exc:
            raise UsageError(f"--toolcall-child-log / toolcall_child_log: cannot append to "
                             f"{self.log!r}: {exc}") from None

    def _flush_log(self) -> None:
        """Write the stderr lines read since the last time to the log, masked together."""
        if self._log_file is None or not self._log_lines:
            return
        lines = []
        while self._log_lines:
            lines.append(self._log_lines.popleft())
        text = b"".join(lines).decode("utf-8", "replace")
        with contextlib.suppress(OSError, ValueError):  # a convenience: never a fault
            self._log_file.write(mask(text, environ=self.env))
            self._log_file.flush()

    def ensure(self) -> None:
        if self.process is not None and (self.dirty or self.process.exit_code() is not None):
            self._abandon(tail=False)
        if self.proc is None:
            self.start()

    def _abandon(self, tail: bool = True) -> str:
        """Stop the current child after a fault, in the background (SIGTERM to its group now,
        SIGKILL after :data:`KILL_GRACE`); its stderr tail, once it ended or
        :data:`_TAIL_WAIT` passed."""
        process = self.process
        if process is not None:  # first: nothing may come between the fault and the stop
            process.stop(graceful=False)
            self.stopped.append(process)
        self.process = self.proc = None
        self.dirty = False
        if self.lines is not None:
            self.lines.close()
            self.lines = None
        if process is None:
            return self.stderr_tail() if tail else ""
        if tail and process.pump is not None:
            process.pump.join(_TAIL_WAIT)  # its last words: the pump ends at stderr's end
        return self.stderr_tail() if tail else ""

    def close(self) -> None:
        """Stop the child (stdin closed, then SIGTERM and SIGKILL to its group, each after a
        grace) and every child this object stopped before, and wait until they are reaped."""
        process, self.process, self.proc = self.process, None, None
        if self.lines is not None:
            self.lines.close()
            self.lines = None
        if process is not None:
            process.stop(graceful=True)
            self.stopped.append(process)
        end = time.monotonic() + SHUTDOWN_GRACE + KILL_GRACE + 5
        for stopped in self.stopped:
            stopped.settle(max(0.0, end - time.monotonic()))
        if self._log_file is not None:  # the children's last lines, then the log is closed
            for stopped in self.stopped:
                if stopped.pump is not None:
                    stopped.pump.join(_TAIL_WAIT)
            self._flush_log()
            with contextlib.suppress(OSError, ValueError):
                self._log_file.close()
            self._log_file = None
        self.stopped = [p for p in self.stopped if not p.reaped.is_set()]

    def stderr_tail(self) -> str:
        tail = list(self.stderr)[-15:]
        text = ("\n  stderr of the child (last lines):\n    " + "\n    ".join(
            line.rstrip("\n") for line in tail)) if tail else "\n  (the child wrote nothing " \
                                                              "to stderr)"
        return mask(text, environ=self.env)  # the child's environment's secrets too

    # -- one request ----------------------------------------------------------------------
    def call(self, message: dict[str, Any], timeout: float, on_message: Any = None) -> Any:
        """Send one request and return the child's final ``result`` message.

        ``on_message(msg)`` handles the messages in between (events, tool calls, stream reads)
        and returns a reply to send, or ``None``. A fault fails the case with its clause.
        """
        with self.lock:
            self.ensure()
            try:
                return self._exchange(message, timeout, on_message)
            except _Fault as fault:
                tail = self._abandon()
                raise SubjectFault(
                    fault.clause, f"{fault.message} (command: {self.command}){tail}",
                    hint=fault.hint) from None
            except BaseException:
                # the runner's deadline struck first, or the session stops: the child is left
                # in the middle of a request, so it is stopped now, not at the next case
                self._abandon(tail=False)
                raise
            finally:
                self._flush_log()

    def _exchange(self, message: dict[str, Any], timeout: float, on_message: Any) -> Any:
        assert self.proc is not None and self.process is not None
        self.next_id += 1
        rid = self.next_id
        message = {"v": PROTOCOL_VERSION, "id": rid, **message}
        problem = validate_message(message, "to_child")
        if problem:  # the kit built a bad message: a kit bug, not the child's
            from pytest_toolcall.core.errors import KitError

            raise KitError(f"the kit built an invalid protocol message: {problem}")
        self.dirty = True
        deadline = self._deadline = time.monotonic() + timeout
        self._send(message)
        while True:
            line = self.lines.get(deadline - time.monotonic())
            if line is None or line == _EOF:
                if line == _EOF:
                    code = self.process.wait_exit(0.5)
                    what = (f"the child exited (code {code})" if code is not None else
                            "the child closed its stdout (it still runs)")
                    raise _Fault("subprocess.exited",
                                 f"{what} while answering {message['type']} #{rid}",
                                 "a crash in the harness or the implementation: see its "
                                 "stderr; the kit restarts it for the next case")
                raise _Fault("adapter.timeout",
                             f"the child did not answer {message['type']} #{rid} within "
                             f"{timeout:g}s",
                             "a hung request, or a harness that never writes its result line; "
                             "raise Profile(timeout=...) (the hello's profile) if it is slow")
            try:
                reply = json.loads(line)
            except json.JSONDecodeError:
                raise _Fault("subprocess.protocol",
                             f"the child wrote a line that is not JSON to stdout: "
                             f"{line.rstrip()[:200]!r}",
                             "stdout is the protocol channel, so logs go to stderr: "
                             + _language_hint(self.argv)) from None
            problem = validate_message(reply, "from_child")
            if problem:
                # JSON with neither the protocol's "v" nor a "type" is no attempt at a message:
                # most likely a log line (console.log(JSON.stringify(x)), print(json.dumps(x)))
                logged = not (isinstance(reply, dict) and ("v" in reply or "type" in reply))
                raise _Fault("subprocess.protocol", f"the child wrote a non-protocol message: "
                             f"{problem}: {line.rstrip()[:200]}",
                             ("it is JSON but no protocol message, like a log line: stdout is "
                              "the protocol channel, so logs go to stderr: "
                              + _language_hint(self.argv)) if logged else
                             "see docs/protocol.md for the message shapes")
            if reply.get("id") != rid:
                if isinstance(reply.get("id"), int) and reply["id"] < rid:
                    continue  # a late answer to an abandoned request
                raise _Fault("subprocess.protocol",
                             f"the child answered request #{reply.get('id')} while #{rid} was "
                             "the one in flight", "echo the id of the request you answer")
            kind = reply["type"]
            if kind == "result" or kind == "hello" or kind == "error":
                self.dirty = False
                return reply
            if on_message is None:
                raise _Fault("subprocess.protocol",
                             f"the child sent {kind!r} during {message['type']}, which takes "
                             "none", "see docs/protocol.md for which messages go with which")
            answer = on_message(reply)
            if answer is not None:
                self._send({"v": PROTOCOL_VERSION, "id": rid, **answer})

    def _send(self, message: dict[str, Any], proc: Any = None) -> None:
        """Write one message to the child (``proc``: the process it is meant for, when it is
        sent from another thread), waiting no longer than the request's deadline."""
        proc = proc or self.proc
        data = (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")
        try:
            if proc is None or proc.stdin is None:
                raise ValueError("no child")
            with self.send_lock:
                _write_all(proc.stdin, data, self._deadline)
        except (OSError, ValueError):
            raise _Fault("subprocess.exited", "the child closed its stdin (it exited?)",
                         "a crash in the harness: see its stderr") from None


_PIPE_SIZE = 1 << 20  # bytes: the pipes to a child, where Linux lets them be that wide
_F_SETPIPE_SZ = 1031  # fcntl.F_SETPIPE_SZ (Python 3.10+ names it; Linux only)
_SMALL_READ = 1 << 16  # bytes: the least a read of the child's stdout asks for


def _widen_pipe(fd: int) -> None:
    """Widen a pipe to the child (its stdin, its stdout) to :data:`_PIPE_SIZE` (Linux;
    /proc/sys/fs/pipe-max-size is 1 MiB by default): a child writing a large message (a
    stream's 600 KB argument, twice) fills a 64 KiB pipe every 64 KiB, and each time it waits
    for the kit and wakes it (18 hand-offs for stream.oversized_line, 2026-11-28). Elsewhere,
    or refused: the default."""
    if not hasattr(os, "sched_getaffinity"):  # not Linux
        return
    import fcntl

    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", _F_SETPIPE_SZ), _PIPE_SIZE)


def _ready(fd: int, timeout: float, write: bool = False) -> bool:
    """Whether ``fd`` is ready to read (or write) within ``timeout`` seconds (``poll``: any
    descriptor number, where ``select`` stops at 1024)."""
    poller = select.poll()
    poller.register(fd, select.POLLOUT if write else select.POLLIN)
    return bool(poller.poll(max(0, int(timeout * 1000 + 0.999))))


def _write_all(stream: Any, data: bytes, deadline: float) -> None:
    """Write ``data`` to the child's stdin (non-blocking on POSIX) by ``deadline``: a child
    that never reads its stdin fails on the protocol's deadline, not by blocking the kit."""
    if not _POSIX:
        stream.write(data)
        stream.flush()
        return
    fd, view = stream.fileno(), memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
            continue
        except BlockingIOError:
            pass
        left = deadline - time.monotonic()
        if left <= 0 or not _ready(fd, left, write=True):
            raise _Fault("adapter.timeout", "the child did not read its stdin before the "
                         "request's deadline", "read stdin line by line, all the time")


_EOF = "\x00eof"


class _Lines:
    """The child's stdout, line by line, read in the thread that waits for the answer.

    A reader thread with a queue (what Windows, whose pipes ``select`` cannot wait on, still
    uses) costs a thread switch and a queue hand-off for every read; here the waiting thread
    waits on the pipe itself (a selector, with the request's deadline as its timeout) and
    splits what it reads into lines. ``get`` returns a line, ``_EOF`` once the child closed
    its stdout or exited (after any last unterminated line), or ``None`` when ``timeout``
    passed. The selector also waits on the child's exit (a pidfd; else it looks every
    :data:`_EXIT_POLL` seconds), so a child that exits while a grandchild holds its stdout
    open is seen at once. A line longer than :data:`MAX_LINE` bytes is a protocol fault."""

    def __init__(self, stream: Any, process: _Process | None = None) -> None:
        self.pending: collections.deque[bytes] = collections.deque()
        self.eof = False
        self.selector: Any = None
        self.process = process
        if os.name == "nt":
            self.queue: queue.Queue[Any] = queue.Queue()
            threading.Thread(target=_pump, args=(stream, self.queue.put, True), daemon=True,
                             name="toolcall-child-out").start()
            return
        import array
        import fcntl
        import functools
        import selectors
        import termios

        self.fd = stream.fileno()
        self.partial: list[bytes] = []  # the unfinished line, in the pieces read
        self.size = 0  # its length
        self.waiting = array.array("i", [0])  # FIONREAD's answer: the bytes in the pipe
        self.ask = functools.partial(fcntl.ioctl, self.fd, termios.FIONREAD, self.waiting, True)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.fd, selectors.EVENT_READ, "out")
        self.pidfd = process.pidfd if process is not None else None
        if self.pidfd is not None:
            self.selector.register(self.pidfd, selectors.EVENT_READ, "exit")

    def get(self, timeout: float) -> str | None:
        if timeout <= 0:
            return None
        if self.selector is None:
            try:
                item = self.queue.get(timeout=timeout)
            except queue.Empty:
                return None
            return item if isinstance(item, str) else self._decode(item)
        deadline = time.monotonic() + timeout
        while not self.pending:
            if self.eof:
                return _EOF
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            polled = self.process is not None and self.pidfd is None
            ready = self.selector.select(min(left, _EXIT_POLL) if polled else left)
            if any(key.data == "out" for key, _ in ready):
                self._read()
            elif ready or (polled and self.process.exit_code() is not None):  # type: ignore
                self._drain()  # exited: what it wrote before is in the pipe; then the end
        return self._decode(self.pending.popleft())

    def _decode(self, line: bytes) -> str:
        try:
            return line.decode("utf-8")
        except UnicodeDecodeError:
            raise _Fault("subprocess.protocol", f"the child wrote a line that is not UTF-8 to "
                         f"stdout: {line.rstrip()[:200]!r}",
                         "the protocol is JSON lines in UTF-8") from None

    def _read(self) -> bool:
        """One read of the pipe; False at its end. It asks for what the pipe holds
        (``FIONREAD``), at least :data:`_SMALL_READ` and at most :data:`_PIPE_SIZE` bytes:
        os.read allocates the size it asks for, and a 1 MiB buffer is an mmap and munmap of its
        own (~20 us, where a line of a few hundred bytes in a 64 KiB read costs 1.7 us and
        FIONREAD 1.4 us more, 2026-11-28), while a large message still comes in as few reads."""
        size = _SMALL_READ
        with contextlib.suppress(OSError):
            self.ask()
            size = min(max(self.waiting[0], _SMALL_READ), _PIPE_SIZE)
        try:
            data = os.read(self.fd, size)
        except OSError:
            data = b""
        if not data:
            self._end()
            return False
        if b"\n" not in data:  # a long line comes in many reads: joined once, at its end
            self.partial.append(data)
            self.size += len(data)
            if self.size > MAX_LINE:
                self.partial, self.size = [], 0
                raise _Fault("subprocess.protocol", f"the child wrote more than {MAX_LINE} "
                             "bytes to stdout without a newline",
                             "one protocol message per line, each ending in a newline")
            return True
        *lines, rest = data.split(b"\n")
        if self.partial:
            lines[0] = b"".join(self.partial) + lines[0]
        self.partial = [rest] if rest else []
        self.size = len(rest)
        self.pending.extend(line + b"\n" for line in lines)
        return True

    def _drain(self) -> None:
        """The child exited: read what it wrote before (bounded in time: a grandchild may
        still be writing), then end the stream."""
        end = time.monotonic() + 0.2
        while (not self.eof and time.monotonic() < end
               and _ready(self.fd, 0) and self._read()):
            pass
        self._end()

    def _end(self) -> None:
        self.eof = True
        if self.partial:
            self.pending.append(b"".join(self.partial))
            self.partial, self.size = [], 0

    def close(self) -> None:
        if self.selector is not None:
            self.selector.close()


def _pump(stream: Any, put: Any, end: bool = False) -> None:
    try:
        for line in stream:
            put(line)
    except (OSError, ValueError):
        pass
    if end:
        put(_EOF)


def _pump_stderr(stream: Any, lines: collections.deque[str], log: Any = None) -> None:
    """Read the child's stderr to its end into ``lines`` (the last :data:`_STDERR_LINES`, each
    cut to :data:`_STDERR_WIDTH` characters: a flood without newlines costs no memory), then
    close it. ``log(line)``: each whole line (bytes, a line longer than :data:`_LOG_LINE` cut
    in pieces) for the child log, which the waiting thread masks and writes."""
    rest = b""
    whole: list[bytes] = []  # the unfinished line, for the log (which keeps lines whole)
    try:
        fd = stream.fileno()
        while True:
            data = os.read(fd, 65536)
            if not data:
                break
            *complete, cut = (rest + data).split(b"\n")
            if log is not None:
                *done, unfinished = data.split(b"\n")
                if done:
                    log(b"".join(whole) + done[0] + b"\n")
                    whole = []
                    for line in done[1:]:
                        log(line + b"\n")
                whole.append(unfinished)
                if sum(map(len, whole)) > _LOG_LINE:  # a flood without newlines: cut it
                    log(b"".join(whole) + b"\n")
                    whole = []
            for line in complete[-_STDERR_LINES:]:
                lines.append(line[:_STDERR_WIDTH].decode("utf-8", "replace") + "\n")
            rest = cut[:_STDERR_WIDTH]
    except (OSError, ValueError):
        pass
    finally:
        if rest:
            lines.append(rest.decode("utf-8", "replace"))
        if log is not None and b"".join(whole):
            log(b"".join(whole) + b"\n")
        with contextlib.suppress(OSError, ValueError):
            stream.close()


# -- mapping errors ---------------------------------------------------------------------------
def _raise_error(reply: dict[str, Any]) -> None:
    err = reply["error"]
    kind, message = err.get("kind", "error"), err.get("message", "")
    status = err.get("status")
    # what a retrying caller reads (issue 12): passed on as the child gave them
    fields = {"type": err.get("provider_type"), "code": err.get("code"),
              "retry_after": err.get("retry_after"), "retryable": err.get("retryable")}
    if kind == "provider":
        raise ProviderError(message, status=status, **fields)
    if kind == "incomplete":
        raise IncompleteStreamError(message, **fields)
    if kind == "stream":
        raise StreamError(message, **fields)
    raise ForeignError(f"{err.get('name') or 'Error'}: {message}")


class ForeignError(Exception):
    """Something the child's implementation threw that is not a provider error."""


def _endpoint_json(endpoint: Any) -> dict[str, Any]:
    return {"provider": endpoint.provider, "base_url": endpoint.base_url,
            "api_key": endpoint.api_key}


def _call(raw: Any) -> Any:
    """A tool call from the child: ``{id, name, arguments}`` with the arguments as the provider
    sent them (text, object or null) goes through ToolCall.from_raw; a full canonical call (with
    raw_arguments / parse_error) is taken as it is."""
    from pytest_toolcall.core.model import ToolCall

    if isinstance(raw, dict) and not {"raw_arguments", "parse_error"} & raw.keys():
        return ToolCall.from_raw(id=raw.get("id"), name=raw.get("name", ""),
                                 arguments=raw.get("arguments"))
    return ToolCall.model_validate(raw)


def _with_calls(data: Any, key: str = "tool_calls") -> Any:
    if isinstance(data, dict) and isinstance(data.get(key), list):
        return {**data, key: [_call(c) for c in data[key]]}
    return data


def _event(raw: dict[str, Any]) -> Any:
    if raw.get("type") == "tool_call_complete" and "call" in raw:
        return {**raw, "call": _call(raw["call"])}
    return raw


@lru_cache(maxsize=None)
def _type_adapter(name: str) -> Any:
    """A pydantic TypeAdapter built once (building one costs ~1 ms, more than a stream case's
    events take to read)."""
    from pydantic import TypeAdapter

    from pytest_toolcall.core.model import Message, StreamEvent

    return TypeAdapter({"StreamEvent": StreamEvent, "list[Message]": list[Message]}[name])


def _dump(obj: Any) -> Any:
    return obj.model_dump(mode="json", by_alias=True)


# -- the four contracts -----------------------------------------------------------------------
def _shape_checked(method: Any) -> Any:
    """A result the kit cannot read as its canonical model is a protocol fault of the child."""
    import functools
    import inspect

    from pydantic import ValidationError

    def fail(exc: ValidationError, self: Any) -> ConformanceFailure:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'value'}: {e['msg']}"
                             for e in exc.errors()[:3])
        return SubjectFault(
            "subprocess.protocol", f"the child's answer to {method.__name__} is not a "
            f"canonical value: {problems} (command: {self.child.command})",
            hint="see docs/protocol.md for the shapes (pytest_toolcall/core/model.py's models as "
                 "JSON)")

    if inspect.isgeneratorfunction(method):
        @functools.wraps(method)
        def gen(self: Any, *args: Any) -> Any:
            try:
                yield from method(self, *args)
            except ValidationError as exc:
                raise fail(exc, self) from None
        return gen

    @functools.wraps(method)
    def plain(self: Any, *args: Any) -> Any:
        try:
            return method(self, *args)
        except ValidationError as exc:
            raise fail(exc, self) from None
    return plain


class _Subject:
    def __init__(self, child: Child, timeout: float | None = None) -> None:
        self.child = child
        self.timeout = timeout

    def _timeout(self) -> float:
        if self.timeout is not None:
            return self.timeout
        # a little under the runner's own deadline (0.9 of it, and DEADLINE_MARGIN seconds
        # under it), so the child's fault, with its stderr tail, is what the case reports
        limit = float((self.child.hello.get("profile") or {}).get("timeout", 10.0))
        return max(0.05, min(0.9 * limit, limit - DEADLINE_MARGIN))


class ForeignAdapter(_Subject):
    """A ChatAdapter in the child: ``complete`` and, when the hello says so, ``stream``."""

    def __init__(self, child: Child, endpoint: Any, timeout: float | None = None) -> None:
        super().__init__(child, timeout)
        self.endpoint = endpoint

    @_shape_checked
    def complete(self, request: Any) -> Any:
        from pytest_toolcall.core.model import ChatResponse

        reply = self.child.call({"type": "complete", "request": _dump(request),
                                 "endpoint": _endpoint_json(self.endpoint)}, self._timeout())
        if reply["type"] == "error":
            _raise_error(reply)
        return ChatResponse.model_validate(_with_calls(reply.get("response") or {}))

    @_shape_checked
    def stream(self, request: Any) -> Any:
        reader = _type_adapter("StreamEvent")
        events: list[Any] = []
        reply = self.child.call({"type": "stream", "request": _dump(request),
                                 "endpoint": _endpoint_json(self.endpoint)}, self._timeout(),
                                on_message=lambda m: events.append(
                                    reader.validate_python(_event(m["event"]))))
        yield from events
        if reply["type"] == "error":
            _raise_error(reply)


class ForeignLoop(_Subject):
    """A ToolLoop in the child: it calls the fake provider over HTTP and asks the kit to run
    each tool call (``tool_call`` → ``tool_result``)."""

    toolcall_loop_model = "loopback"  # run_loop serves the fake provider on 127.0.0.1

    @_shape_checked
    def run(self, request: Any) -> Any:
        from pytest_toolcall.core.loop import LoopResult, ToolError

        endpoint = request.metadata.get("endpoint")
        pool: list[threading.Thread] = []

        def run_tool(msg: dict[str, Any], proc: Any) -> None:
            try:
                text = request.executor.run(msg["name"], msg.get("arguments"),
                                            call_id=msg.get("call_id"))
                answer = {"type": "tool_result", "seq": msg["seq"], "ok": True,
                          "content": str(text)}
            except ToolError as exc:
                answer = {"type": "tool_result", "seq": msg["seq"], "ok": False,
                          "error": exc.message, "retryable": exc.retryable, "kind": exc.kind}
            except Exception as exc:  # a crash: the child gets its text, as a Python loop would
                answer = {"type": "tool_result", "seq": msg["seq"], "ok": False,
                          "error": f"{type(exc).__name__}: {exc}", "retryable": True,
                          "kind": "crash"}
            try:
                # to the process that asked, never to the one a restart put in its place
                self.child._send({"v": PROTOCOL_VERSION, "id": msg["id"], **answer}, proc)
            except _Fault:
                pass  # the child is gone; the main exchange reports it

        def on_message(msg: dict[str, Any]) -> None:
            if msg["type"] != "tool_call":
                raise _Fault("subprocess.protocol", f"the child sent {msg['type']!r} during a "
                             "loop run, which takes tool_call only", "see docs/protocol.md")
            thread = threading.Thread(target=run_tool, args=(msg, self.child.proc),
                                      daemon=True)
            pool.append(thread)
            thread.start()

        reply = self.child.call({"type": "loop", "messages": [_dump(m) for m in
                                                              request.messages],
                                 "tools": [_dump(t) for t in request.tools],
                                 "endpoint": endpoint}, self._timeout(), on_message)
        if reply["type"] == "error":
            _raise_error(reply)
        result = dict(reply.get("result") or {})
        if isinstance(result.get("messages"), list):
            result["messages"] = tuple(_type_adapter("list[Message]").validate_python(
                [_with_calls(m) for m in result["messages"]]))
        return LoopResult.model_validate(result)


class ForeignHistory(_Subject):
    """A HistoryBuilder in the child."""

    @_shape_checked
    def build(self, stored: Any) -> Any:
        reply = self.child.call({"type": "history", "stored": [_dump(m) for m in stored]},
                                self._timeout())
        if reply["type"] == "error":
            _raise_error(reply)
        return _type_adapter("list[Message]").validate_python(
            [_with_calls(m) for m in reply.get("messages") or []])


class ForeignStructured(_Subject):
    """A StructuredOutput in the child: it opens model streams through the kit
    (``stream_open``) and pulls their events one by one (``stream_next``), so the kit sees how
    many streams were opened and how far each was read."""

    @_shape_checked
    def extract(self, request: Any) -> Any:
        from pytest_toolcall.core.fallback import FallbackResult
        from pytest_toolcall.core.model import ChatRequest

        streams: list[Any] = []

        def on_message(msg: dict[str, Any]) -> dict[str, Any]:
            if msg["type"] == "stream_open":
                asked = ChatRequest.model_validate(msg["request"])
                streams.append(iter(request.model.stream(asked)))
                return {"type": "stream_opened", "seq": msg["seq"], "stream": len(streams) - 1}
            if msg["type"] == "stream_next":
                index = msg["stream"]
                if not 0 <= index < len(streams):
                    raise _Fault("subprocess.protocol", f"stream_next for stream {index}, "
                                 f"which was never opened", "open it with stream_open first")
                event = next(streams[index], None)
                return {"type": "stream_event", "seq": msg["seq"],
                        "event": None if event is None else _dump(event)}
            raise _Fault("subprocess.protocol", f"the child sent {msg['type']!r} during "
                         "extract, which takes stream_open / stream_next only",
                         "see docs/protocol.md")

        reply = self.child.call({"type": "extract", "request": _dump(request.request),
                                 "tool_name": request.tool_name, "schema": request.schema},
                                self._timeout(), on_message)
        if reply["type"] == "error":
            _raise_error(reply)
        return FallbackResult.model_validate(reply.get("result") or {})


def child_profile(child: Child) -> dict[str, Any]:
    """The profile the child declared in its hello (a dict for make_profile)."""
    profile = dict(child.hello.get("profile") or {})
    profile.setdefault("name", child.command)
    return profile


# -- one loopback server per process, one fake provider per case ------------------------------
class _Hub:
    """A loopback HTTP server started once per process; each case gets its own path prefix
    (``/c<n>``) routed to its own fake provider, so a case costs no server start (starting one
    per case, with httpx's transports, costs ~100 ms) and a late request from an earlier case
    can never reach the next case's fake (it gets a 410)."""

    def __init__(self) -> None:
        from pytest_toolcall.providers.fake.server import QuietServer, _Handler

        hub = self

        class Handler(_Handler):
            def setup(self) -> None:
                super().setup()
                # the fake writes a stream in many small pieces: without TCP_NODELAY, Nagle's
                # algorithm and the client's delayed ACK stall each piece by up to 40 ms
                import socket

                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def _answer(self) -> None:
                prefix, _, rest = self.path[1:].partition("/")
                fake = hub.fakes.get(prefix)
                if fake is None:
                    self.send_response(410)
                    self.send_header("content-length", "0")
                    self.end_headers()
                    return
                self.path = "/" + rest
                self.released = hub.released.get(prefix)
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                status, headers, chunks = fake.respond(self.command, self.path,
                                                       dict(self.headers.items()), body)
                if self.refused(chunks):
                    return
                # unlike serve(), connections are kept alive: a child's HTTP client reuses
                # them across requests and cases (a new connection and server thread per
                # request is most of the cost of a loopback round trip); a reset or a stall
                # drops this one (play). The status line and headers are written here, in
                # the first piece's send (send_response's date and server headers and its
                # buffer cost ~40 us a request)
                reason = self.responses.get(status, ("",))[0]
                head = [f"HTTP/1.1 {status} {reason}\r\n"]
                head.extend(f"{key}: {value}\r\n" for key, value in headers.items())
                head.append("transfer-encoding: chunked\r\n\r\n")
                self.play(chunks, "".join(head).encode("latin-1"))

            def parse_request(self) -> bool:
                """The request line and headers, read without ``http.client``'s header
                parser (the email package: ~60 us a request, a fifth of the hub's time on a
                wire case, 2026-11-28). A request line it does not expect goes to the
                standard parser, which words the error."""
                words = self.raw_requestline.decode("iso-8859-1").split()
                if len(words) != 3 or words[2] != "HTTP/1.1":
                    return bool(super().parse_request())
                self.command, self.path, self.request_version = words
                self.requestline = " ".join(words)
                headers = _Headers()
                for _ in range(_MAX_HEADERS + 1):
                    line = self.rfile.readline(65537)
                    if len(line) > 65536:
                        self.send_error(431, "Line too long")
                        return False
                    if line in (b"\r\n", b"\n", b""):
                        break
                    text = line.decode("iso-8859-1")
                    if text[0] in " \t" and headers.pairs:  # an obsolete folded line
                        name, value = headers.pairs.pop()
                        headers.add(name, f"{value} {text.strip()}")
                        continue
                    name, colon, value = text.partition(":")
                    if not colon:
                        self.send_error(400, f"Bad header line {text.strip()!r}")
                        return False
                    headers.add(name, value.strip())
                else:
                    self.send_error(431, "Too many headers")
                    return False
                self.headers = headers  # type: ignore[assignment]
                self.close_connection = headers.get("connection", "").lower() == "close"
                expect = headers.get("expect", "").lower() == "100-continue"
                return not expect or bool(self.handle_expect_100())

            do_POST = do_GET = _answer

        self.fakes: dict[str, Any] = {}
        self.released: dict[str, threading.Event] = {}  # per prefix: set when its case ends
        self.count = 0
        self.server = QuietServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                         daemon=True, name="toolcall-hub").start()
        self.port = self.server.server_address[1]
        from pytest_toolcall.core.netguard import add_kit_port

        add_kit_port(self.port)  # reachable while replay blocks the network


_MAX_HEADERS = 100  # as http.client's


class _Headers:
    """A request's headers as the hub reads them: ``get`` by any case (the last of a repeated
    name, as ``dict(message.items())`` keeps it), ``items`` in the order sent."""

    def __init__(self) -> None:
        self.pairs: list[tuple[str, str]] = []
        self.lower: dict[str, str] = {}

    def add(self, name: str, value: str) -> None:
        self.pairs.append((name, value))
        self.lower[name.lower()] = value

    def get(self, name: str, default: Any = None) -> Any:
        return self.lower.get(name.lower(), default)

    def items(self) -> list[tuple[str, str]]:
        return list(self.pairs)


_HUB: _Hub | None = None
_HUB_LOCK = threading.Lock()


def served(fake: Any) -> Any:
    """A context manager: ``fake`` reachable on 127.0.0.1 for one case; yields an Endpoint
    (``base_url``, ``api_key``, ``fake``; its httpx clients use real sockets)."""
    from pytest_toolcall.providers.fake import Endpoint
    from pytest_toolcall.providers.fake.server import LOOPBACK_READ_TIMEOUT

    @contextlib.contextmanager
    def scope() -> Any:
        global _HUB
        with _HUB_LOCK:
            if _HUB is None:
                _HUB = _Hub()
            hub = _HUB
            hub.count += 1
            prefix = f"c{hub.count}"
            hub.fakes[prefix] = fake
            released = hub.released[prefix] = threading.Event()
        endpoint = Endpoint(provider=fake.dialect.name,
                            base_url=f"http://127.0.0.1:{hub.port}/{prefix}"
                                     f"{fake.dialect.base_path}",
                            api_key=fake.api_key, fake=fake,
                            read_timeout=LOOPBACK_READ_TIMEOUT)
        try:
            yield endpoint
        finally:
            released.set()  # a stalled connection of this case lets go
            endpoint.close()
            hub.fakes.pop(prefix, None)
            hub.released.pop(prefix, None)

    return scope()

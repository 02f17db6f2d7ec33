"""Implementations in another language: a child process spoken to over JSON lines.

The kit starts a command (``--toolcall-command="node my-harness.mjs"``), sends ``hello`` and
reads the profile back, then drives each case through protocol messages on the child's stdin and
stdout (one JSON object per line, every message validated against
``protocol.schema.json``). The objects here implement the kit's four contracts by talking to the
child: :class:`ForeignAdapter`, :class:`ForeignLoop`, :class:`ForeignHistory`,
:class:`ForeignStructured`. The protocol is described in ``docs/protocol.md``.

Faults are the implementation's: a child that exits, hangs, or writes something that is not a
protocol message fails the case (``subprocess.exited``, ``subprocess.protocol``,
``adapter.timeout``) with its stderr tail, and is restarted for the next case.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import queue
import shlex
import shutil
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

__all__ = [
    "PROTOCOL_VERSION",
    "Child",
    "ForeignAdapter",
    "ForeignHistory",
    "ForeignLoop",
    "ForeignStructured",
    "validate_message",
]

PROTOCOL_VERSION = 1
#: how long a child may take to answer hello (startup included)
HELLO_TIMEOUT = 15.0
_STDERR_LINES = 40


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


class Child:
    """One child process: started lazily, restarted after a fault, closed at session end."""

    def __init__(self, command: str | list[str], *, provider: str = "openai",
                 cwd: str | None = None, env: dict[str, str] | None = None) -> None:
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise UsageError("--toolcall-command / toolcall_command is empty: give the command "
                             "that starts your harness, e.g. 'node my-harness.mjs'")
        self.command = command if isinstance(command, str) else shlex.join(command)
        self.provider, self.cwd = provider, cwd
        self.env = {**os.environ, **(env or {})}
        self.proc: subprocess.Popen[str] | None = None
        self.lines: Any = None  # _Lines: the child's stdout, one line at a time
        self.stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self.hello: dict[str, Any] = {}
        self.next_id = 0
        self.dirty = False  # a call was abandoned: restart before the next
        self.lock = threading.Lock()
        self.starts = 0

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> dict[str, Any]:
        """Start the child and read its hello; a usage error when it cannot start."""
        if shutil.which(self.argv[0]) is None and not os.path.exists(self.argv[0]):
            raise UsageError(f"--toolcall-command: {self.argv[0]!r} was not found (command: "
                             f"{self.command!r}); install it or fix the command"
                             + (" (Node 18+: https://nodejs.org/en/download)"
                                if self.argv[0] == "node" else ""))
        try:
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1, cwd=self.cwd,
                env=self.env)
        except OSError as exc:
            raise UsageError(f"--toolcall-command: could not start {self.command!r}: "
                             f"{exc}") from None
        self.starts += 1
        self.stderr.clear()
        proc, err = self.proc, self.stderr
        self.lines = _Lines(proc.stdout)
        self._err_pump = threading.Thread(target=_pump, args=(proc.stderr, err.append),
                                          daemon=True, name="toolcall-child-err")
        self._err_pump.start()
        try:
            reply = self._exchange({"type": "hello", "provider": self.provider}, HELLO_TIMEOUT,
                                   on_message=None)
        except _Fault as fault:
            self.close()
            raise UsageError(f"--toolcall-command {self.command!r} failed its hello: "
                             f"{fault.message}{self.stderr_tail()}") from None
        if reply.get("protocol") != PROTOCOL_VERSION:
            self.close()
            raise UsageError(f"--toolcall-command {self.command!r} speaks protocol "
                             f"{reply.get('protocol')!r}; this kit speaks {PROTOCOL_VERSION}")
        self.hello = reply
        self.dirty = False
        return reply

    def ensure(self) -> None:
        if self.proc is not None and (self.dirty or self.proc.poll() is not None):
            self.close()
        if self.proc is None:
            self.start()

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if self.lines is not None:
            self.lines.close()
        try:
            if proc.stdin:
                proc.stdin.close()
            proc.wait(timeout=0.5)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait(timeout=5)
        # the child has ended: its pipes are at their end. Closed here, not left to the garbage
        # collector, whose ResourceWarning ("unclosed file") a project that turns warnings into
        # errors sees as a failed run
        pump = getattr(self, "_err_pump", None)
        if pump is not None:
            pump.join(0.5)  # the last stderr lines, for stderr_tail
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()

    def stderr_tail(self) -> str:
        time.sleep(0.02)  # let the stderr pump catch the last lines of a dying child
        tail = list(self.stderr)[-15:]
        return ("\n  stderr of the child (last lines):\n    " + "\n    ".join(
            line.rstrip("\n") for line in tail)) if tail else "\n  (the child wrote nothing " \
                                                              "to stderr)"

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
                tail = self.stderr_tail()
                self.dirty = True
                self.close()
                raise ConformanceFailure(
                    fault.clause, f"{fault.message} (command: {self.command}){tail}",
                    hint=fault.hint) from None

    def _exchange(self, message: dict[str, Any], timeout: float, on_message: Any) -> Any:
        assert self.proc is not None
        self.next_id += 1
        rid = self.next_id
        message = {"v": PROTOCOL_VERSION, "id": rid, **message}
        problem = validate_message(message, "to_child")
        if problem:  # the kit built a bad message: a kit bug, not the child's
            from pytest_toolcall.core.errors import KitError

            raise KitError(f"the kit built an invalid protocol message: {problem}")
        self.dirty = True
        self._send(message)
        deadline = time.monotonic() + timeout
        while True:
            line = self.lines.get(deadline - time.monotonic())
            if line is None or line == _EOF:
                if line == _EOF:
                    raise _Fault("subprocess.exited",
                                 f"the child exited (code {self.proc.wait()}) while answering "
                                 f"{message['type']} #{rid}",
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
                             "stdout is the protocol channel: log to stderr "
                             "(console.error), never console.log") from None
            problem = validate_message(reply, "from_child")
            if problem:
                raise _Fault("subprocess.protocol", f"the child wrote a non-protocol message: "
                             f"{problem}: {line.rstrip()[:200]}",
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

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            with _SEND_LOCK:
                self.proc.stdin.write(json.dumps(message, ensure_ascii=False) + "\n")
                self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise _Fault("subprocess.exited", "the child closed its stdin (it exited?)",
                         "a crash in the harness: see its stderr") from None


_SEND_LOCK = threading.Lock()


_EOF = "\x00eof"


class _Lines:
    """The child's stdout, line by line, read in the thread that waits for the answer.

    A reader thread with a queue (what Windows, whose pipes ``select`` cannot wait on, still
    uses) costs a thread switch and a queue hand-off for every read; here the waiting thread
    waits on the pipe itself (a selector, with the request's deadline as its timeout) and
    splits what it reads into lines. ``get`` returns a line, ``_EOF`` once the child closed
    its stdout (after any last unterminated line), or ``None`` when ``timeout`` passed."""

    def __init__(self, stream: Any) -> None:
        self.pending: collections.deque[bytes] = collections.deque()
        self.eof = False
        self.selector: Any = None
        if os.name == "nt":
            self.queue: queue.Queue[str] = queue.Queue()
            threading.Thread(target=_pump, args=(stream, self.queue.put, True), daemon=True,
                             name="toolcall-child-out").start()
            return
        import selectors

        self.fd = stream.fileno()
        self.partial: list[bytes] = []  # the unfinished line, in the pieces read
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.fd, selectors.EVENT_READ)

    def get(self, timeout: float) -> str | None:
        if timeout <= 0:
            return None
        if self.selector is None:
            try:
                return self.queue.get(timeout=timeout)
            except queue.Empty:
                return None
        deadline = time.monotonic() + timeout
        while not self.pending:
            if self.eof:
                return _EOF
            left = deadline - time.monotonic()
            if left <= 0 or not self.selector.select(left):
                return None
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                data = b""
            if not data:
                self.eof = True
                if self.partial:
                    self.pending.append(b"".join(self.partial))
                    self.partial = []
                continue
            if b"\n" not in data:  # a long line comes in many reads: joined once, at its end
                self.partial.append(data)
                continue
            *lines, rest = data.split(b"\n")
            if self.partial:
                lines[0] = b"".join(self.partial) + lines[0]
            self.partial = [rest] if rest else []
            self.pending.extend(line + b"\n" for line in lines)
        line = self.pending.popleft()
        try:
            return line.decode("utf-8")
        except UnicodeDecodeError:
            raise _Fault("subprocess.protocol", f"the child wrote a line that is not UTF-8 to "
                         f"stdout: {line.rstrip()[:200]!r}",
                         "the protocol is JSON lines in UTF-8") from None

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
        return ConformanceFailure(
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
        # a little under the runner's own deadline, so the child's fault (with its stderr
        # tail) is what the case reports
        return 0.9 * float((self.child.hello.get("profile") or {}).get("timeout", 10.0))


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

        def run_tool(msg: dict[str, Any]) -> None:
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
                self.child._send({"v": PROTOCOL_VERSION, "id": msg["id"], **answer})
            except _Fault:
                pass  # the child is gone; the main exchange reports it

        def on_message(msg: dict[str, Any]) -> None:
            if msg["type"] != "tool_call":
                raise _Fault("subprocess.protocol", f"the child sent {msg['type']!r} during a "
                             "loop run, which takes tool_call only", "see docs/protocol.md")
            thread = threading.Thread(target=run_tool, args=(msg,), daemon=True)
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
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                status, headers, chunks = fake.respond(self.command, self.path,
                                                       dict(self.headers.items()), body)
                if self.refused(chunks):
                    return
                # unlike serve(), connections are kept alive: a child's HTTP client reuses
                # them across requests and cases (a new connection and server thread per
                # request is most of the cost of a loopback round trip); a reset or a stall
                # drops this one (play)
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                self.play(chunks)

            do_POST = do_GET = _answer

        self.fakes: dict[str, Any] = {}
        self.count = 0
        self.server = QuietServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                         daemon=True, name="toolcall-hub").start()
        self.port = self.server.server_address[1]
        from pytest_toolcall.core.netguard import add_kit_port

        add_kit_port(self.port)  # reachable while replay blocks the network


_HUB: _Hub | None = None
_HUB_LOCK = threading.Lock()


def served(fake: Any) -> Any:
    """A context manager: ``fake`` reachable on 127.0.0.1 for one case; yields an Endpoint
    (``base_url``, ``api_key``, ``fake``; its httpx clients use real sockets)."""
    from pytest_toolcall.providers.fake import Endpoint

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
        endpoint = Endpoint(provider=fake.dialect.name,
                            base_url=f"http://127.0.0.1:{hub.port}/{prefix}"
                                     f"{fake.dialect.base_path}",
                            api_key=fake.api_key, fake=fake)
        try:
            yield endpoint
        finally:
            endpoint.close()
            hub.fakes.pop(prefix, None)

    return scope()

"""The fake provider: an httpx handler that answers in one dialect and records every exchange."""

from __future__ import annotations

import json
import time
import threading
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

import httpx

from pytest_toolcall.cases import Turn
from pytest_toolcall.providers.base import Dialect, Rejection, get_dialect, noting_breaches
from pytest_toolcall.core.model import ChatRequest
from pytest_toolcall.providers.fake.chunking import cut

__all__ = ["DEFAULT_KEY", "RESET", "STALL", "Endpoint", "Exchange", "FakeProvider"]


class _Reset(bytes):
    """The marker ending a chunk list whose connection is reset instead of closed cleanly."""


#: put last in a chunk list: the transport fails the read there (StreamPlan.reset)
RESET = _Reset()
#: put last in a chunk list: no more bytes come (StreamPlan.stall)
STALL = _Reset()
#: the only chunk of an answer that never comes: the connection is refused (ErrorReply.refuse)
REFUSED = _Reset()
#: how long a stall lasts for a client without a read timeout (the runner's per-case timeout
#: ends the case long before): then the read fails, so no thread waits forever
STALL_LIMIT = 120.0
#: what httpx raises when a server drops the connection in the middle of a chunked body
RESET_TEXT = ("peer closed connection without sending complete message body (incomplete "
              "chunked read)")

#: The key the fake accepts unless told otherwise. Not a secret; never a real key.
DEFAULT_KEY = "tc-fake-key-not-a-secret"
_REDACTED = {"authorization", "x-api-key", "x-goog-api-key", "api-key", "cookie"}


@dataclass
class Exchange:
    """One HTTP request the fake received and what it answered."""

    index: int
    step: int | None
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    json: Any = None
    decoded: ChatRequest | None = None
    decode_error: str | None = None
    rejection: Rejection | None = None
    #: the rules the request broke that this provider is not shown to enforce: the fake took
    #: it (each as OpenAI would refuse it; issue 30, clause ``request.unconfirmed``)
    breaches: tuple[Rejection, ...] = ()
    status: int = 0
    response_json: Any = None
    chunks: list[bytes] = field(default_factory=list)
    streamed: bool = False
    turn: Turn | None = None
    #: headers the fake added to its answer (an error's Retry-After, rate-limit headers)
    response_headers: dict[str, str] = field(default_factory=dict)
    #: in-process transports: what the client did with the body: "open" (never read to the end
    #: nor closed: a leaked connection), "read" (to the end), "closed" (closed first);
    #: "untracked" where the fake cannot see it (on a loopback port)
    body_state: str = "untracked"
    #: why the fake could not judge the request: its dialect's ``validate`` raised (a kit bug).
    #: The fake answered 500 saying so; the runner raises a KitError (no verdict)
    kit_error: str | None = None
    #: when the request arrived (``time.perf_counter()``): how long a client waited between two
    at: float = field(default_factory=time.perf_counter)

    @property
    def accepted(self) -> bool:
        return self.rejection is None and 200 <= self.status < 300

    @property
    def response_body(self) -> bytes:
        return b"".join(self.chunks)


class FakeProvider:
    """A scripted provider for one dialect.

    Give it the turn to answer with (:meth:`expect`), wire a client to :meth:`handle` (sync) or
    :meth:`ahandle` (async), or to :meth:`transport` / :meth:`async_transport`, or serve it on a
    loopback port with :func:`pytest_toolcall.providers.fake.serve`. Every request is recorded in
    :attr:`exchanges`, rejected ones included.
    """

    def __init__(self, dialect: str | Dialect = "openai", turns: Sequence[Turn] = (), *,
                 api_key: str = DEFAULT_KEY) -> None:
        self.dialect: Dialect = get_dialect(dialect) if isinstance(dialect, str) else dialect
        self.api_key = api_key
        self.exchanges: list[Exchange] = []
        self._queue: list[Turn] = list(turns)
        self._current: Turn | None = None
        self._step: int | None = None
        self.boundaries: Sequence[int] | None = None
        self._lock = threading.Lock()
        #: set by :meth:`release`: a stalled body stops waiting (see :data:`STALL_LIMIT`)
        self.released = threading.Event()
        #: request body -> (rejection, decoded request, decode error, breaches), for dialects whose
        #: validate() and decode_request() read the body alone (``pure_requests``): a case sends
        #: the same body through both interfaces, and hypothesis cases twenty times
        self._verdicts: dict[bytes, tuple[Any, Any, str | None, tuple[Rejection, ...]]] = {}

    # -- scripting ----------------------------------------------------------------------------
    def expect(self, turn: Turn, *, step: int | None = None,
               boundaries: Sequence[int] | None = None) -> None:
        """Answer every request from now on with ``turn`` (cut at ``boundaries`` if streamed)."""
        self._current, self._step, self.boundaries = turn, step, boundaries
        self._queue.clear()

    def expect_after(self, turn: Turn) -> None:
        """Once the scripted turns are used up, answer every request with ``turn``."""
        self._current = turn

    def release(self) -> None:
        """The run that used this fake is over: a client still waiting in a stalled body (no
        read timeout, on a thread the run could not stop: a framework's worker) gets its read
        error now instead of after :data:`STALL_LIMIT`, so no thread outlives the run by two
        minutes and no session waits for one at exit. The verdict was given before."""
        self.released.set()

    def _next_turn(self) -> Turn | None:
        if self._queue:
            return self._queue.pop(0)
        return self._current

    # -- transports ---------------------------------------------------------------------------
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def async_transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.ahandle)

    def _exchange_of(self, chunks: list[bytes]) -> Exchange | None:
        with self._lock:
            return next((e for e in reversed(self.exchanges) if e.chunks is chunks), None)

    def handle(self, request: httpx.Request) -> httpx.Response:
        """The sync httpx handler."""
        status, headers, chunks = self.respond(request.method, request.url.raw_path.decode(),
                                               request.headers, request.read())
        if chunks and chunks[0] is REFUSED:
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        return httpx.Response(status, headers=headers,
                              stream=_Body(chunks, self._exchange_of(chunks),
                                           _read_timeout(request), self.released))

    async def ahandle(self, request: httpx.Request) -> httpx.Response:
        """The async httpx handler."""
        status, headers, chunks = self.respond(request.method, request.url.raw_path.decode(),
                                               request.headers, await request.aread())
        if chunks and chunks[0] is REFUSED:
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        return httpx.Response(status, headers=headers,
                              stream=_AsyncBody(chunks, self._exchange_of(chunks),
                                                _read_timeout(request), self.released))

    # -- the provider -------------------------------------------------------------------------
    def respond(self, method: str, raw_path: str, headers: Any,
                body: bytes) -> tuple[int, dict[str, str], list[bytes]]:
        """Answer one request: ``(status, headers, body chunks)``; transport-neutral."""
        path, _, query_text = raw_path.partition("?")
        query = dict(parse_qsl(query_text)) if query_text else {}
        lower = {k.lower(): v for k, v in headers.items()}
        with self._lock:
            exchange = Exchange(
                index=len(self.exchanges), step=self._step, method=method, path=path,
                headers={k: ("<redacted>" if k in _REDACTED else v) for k, v in lower.items()},
                body=body,
            )
            self.exchanges.append(exchange)
        dialect = self.dialect
        other = getattr(dialect, "dialect_for", None)  # a service's route on another wire
        if other is not None:
            dialect = other(path)
        if not dialect.route(method, path):
            return self._reject(exchange, dialect.not_found(method, path))
        denied = dialect.check_auth(lower, query, self.api_key)
        if denied:
            return self._reject(exchange, denied)
        try:
            exchange.json = json.loads(body) if body else None
        except (ValueError, UnicodeDecodeError):
            exchange.json = None
            try:
                return self._reject(exchange, dialect.validate(None))  # type: ignore[arg-type]
            except Exception as exc:
                return self._crashed(exchange, dialect, exc)
        try:
            pure = type(dialect).__dict__.get("pure_requests", False)  # never inherited
            verdict = self._verdicts.get(body) if pure else None
            if verdict is None:
                verdict = self._verdict(dialect, exchange.json)
                if pure:
                    self._verdicts[body] = verdict
            rejection, decoded, decode_error, exchange.breaches = verdict
            by_route = getattr(dialect, "validate_route", None)  # what the model in the path
            if rejection is None and by_route is not None:  # refuses
                rejection = by_route(path, exchange.json)
        except Exception as exc:  # a dialect that cannot judge the body: a kit bug, no verdict
            return self._crashed(exchange, dialect, exc)
        if rejection:
            return self._reject(exchange, rejection)
        exchange.decoded, exchange.decode_error = decoded, decode_error
        turn = self._next_turn()
        exchange.turn = turn
        if turn is None:
            status, err = 500, {"error": {"message": "pytest-toolcall fake provider: no turn is "
                                          "scripted for this request", "type": "server_error"}}
            return self._send_json(exchange, status, err)
        if turn.error is not None:
            if turn.error.refuse:  # no answer at all: the transport fails
                exchange.status, exchange.chunks = 0, [REFUSED]
                return 0, {}, exchange.chunks
            if turn.error.stall or turn.error.hang:  # taken, never answered: the client's
                # read timeout decides
                exchange.status, exchange.chunks = 200, [STALL]
                return 200, {"content-type": "application/json"}, exchange.chunks
            if turn.error.kind is not None:  # the provider's own error of that kind
                found = dialect.error_table(turn.error.kind, turn.error.retry_after)
                if found is None:
                    from pytest_toolcall.providers.errors import kinds_for

                    raise KeyError(f"{dialect.name} has no {turn.error.kind!r} error; it has "
                                   f"{kinds_for(dialect.name)}")
                status, extra, data = found
                return self._send_json(exchange, status, data, extra)
            if turn.error.raw_body is not None:  # not the provider speaking: a proxy, a gateway
                payload = turn.error.raw_body.encode()
                exchange.status, exchange.chunks = turn.error.status, [payload]
                kind = "application/json" if payload.lstrip()[:1] in (b"{", b"[") else \
                    "text/html; charset=utf-8"
                return (turn.error.status, {"content-type": kind, **turn.error.headers},
                        exchange.chunks)
            status, err = dialect.encode_error(turn.error)
            return self._send_json(exchange, status, err)
        if dialect.wants_stream(exchange.json, path):
            events = dialect.encode_stream(turn, exchange.json)
            chunks = cut(events, turn.stream, self.boundaries)
            if turn.stream.reset:
                chunks.append(RESET)
            elif turn.stream.stall:
                chunks.append(STALL)
            exchange.status, exchange.chunks, exchange.streamed = 200, chunks, True
            return 200, {"content-type": dialect.stream_content_type}, chunks
        return self._send_json(exchange, 200, dialect.encode_response(turn, exchange.json))

    @staticmethod
    def _verdict(dialect: Dialect, body: Any) -> tuple[Any, Any, str | None,
                                                       tuple[Rejection, ...]]:
        """What the provider makes of a parsed body: its rejection, else the decoded request
        (or why the kit could not decode it); and the rules it broke that the provider let
        pass (``providers.base.noting_breaches``)."""
        with noting_breaches() as breaches:
            rejection = dialect.validate(body)
        if rejection:
            return rejection, None, None, ()
        try:
            return None, dialect.decode_request(body), None, tuple(breaches)
        except Exception as exc:  # a request the provider accepts but the kit cannot read
            return None, None, f"{type(exc).__name__}: {exc}", tuple(breaches)

    def _crashed(self, exchange: Exchange, dialect: Dialect,
                 exc: Exception) -> tuple[int, dict[str, str], list[bytes]]:
        """The answer to a request the dialect crashed on: a 500 saying the kit could not run,
        the reason kept on the exchange (``kit_error``) for the runner to raise."""
        exchange.kit_error = (f"the fake {dialect.name} provider crashed judging the request: "
                              f"{type(exc).__name__}: {exc}")
        err = {"error": {"message": f"pytest-toolcall fake provider: the kit could not run: "
                                    f"{exchange.kit_error} (a kit bug, not a verdict)",
                         "type": "server_error"}}
        return self._send_json(exchange, 500, err)

    def _reject(self, exchange: Exchange, rejection: Rejection) -> tuple[int, dict[str, str], list[bytes]]:
        exchange.rejection = rejection
        return self._send_json(exchange, rejection.status, dict(rejection.body))

    @staticmethod
    def _send_json(exchange: Exchange, status: int, data: Any,
                   headers: dict[str, str] | None = None
                   ) -> tuple[int, dict[str, str], list[bytes]]:
        payload = _JSON_BODY.encode(data).encode()
        exchange.status, exchange.response_json, exchange.chunks = status, data, [payload]
        exchange.response_headers = dict(headers or {})
        return status, {"content-type": "application/json", **(headers or {})}, [payload]


#: json.dumps(data, ensure_ascii=False), without building an encoder per answer
_JSON_BODY = json.JSONEncoder(ensure_ascii=False)

#: httpx's own default base URL, parsed once: a client given the text parses it again, about
#: half the cost of building the client (and every item builds two)
_NO_BASE_URL = httpx.URL("")


def _read_timeout(request: httpx.Request) -> float | None:
    """The client's read timeout for this request (httpx puts it in the request)."""
    timeout = request.extensions.get("timeout") or {}
    value = timeout.get("read") if isinstance(timeout, dict) else None
    return float(value) if value is not None else None


_TIMED_OUT = "The read operation timed out"


class _Played:
    """A response body that records whether the client read it to the end or closed it (a
    plain object: garbage collection does not count as closing), and plays a reset or a stall
    (in virtual time: a client with a read timeout gets its ReadTimeout at once). ``http`` is
    the HTTP library whose exceptions the client expects (httpx, or httpx2 for clients built
    on it)."""

    http: Any = httpx

    def __init__(self, chunks: list[bytes], exchange: Exchange | None,
                 read_timeout: float | None = None,
                 released: threading.Event | None = None) -> None:
        self.chunks, self.exchange, self.read_timeout = chunks, exchange, read_timeout
        #: the fake's :meth:`FakeProvider.release`: a stall ends when it is set
        self.released = released if released is not None else threading.Event()
        if exchange is not None:
            exchange.body_state = "open"

    def _mark(self, state: str) -> None:
        if self.exchange is not None and self.exchange.body_state == "open":
            self.exchange.body_state = state

    def _broken(self, piece: bytes) -> bool:
        """Raise the client's error for a reset; True for a stall (the caller waits first)."""
        if piece is RESET:
            raise self.http.RemoteProtocolError(RESET_TEXT)
        return piece is STALL


class _Body(_Played, httpx.SyncByteStream):
    def __iter__(self) -> Any:
        for piece in self.chunks:
            # (only the markers are _Reset: a byte-at-a-time stream is thousands of pieces)
            if type(piece) is _Reset and self._broken(piece):
                if self.read_timeout is None:  # no timeout: the client waits, as it would
                    import time

                    end = time.monotonic() + STALL_LIMIT
                    while time.monotonic() < end and not self.released.is_set():
                        time.sleep(0.05)
                raise self.http.ReadTimeout(_TIMED_OUT)
            yield piece
        self._mark("read")

    def close(self) -> None:
        self._mark("closed")


class _AsyncBody(_Played, httpx.AsyncByteStream):
    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.chunks:
            if type(piece) is _Reset and self._broken(piece):
                if self.read_timeout is None:
                    import asyncio
                    import time

                    end = time.monotonic() + STALL_LIMIT
                    while time.monotonic() < end and not self.released.is_set():
                        await asyncio.sleep(0.05)
                raise self.http.ReadTimeout(_TIMED_OUT)
            yield piece
        self._mark("read")

    async def aclose(self) -> None:
        self._mark("closed")


@dataclass
class Endpoint:
    """Where an adapter under test sends its requests: everything a shim needs to wire itself.

    ``client`` / ``async_client`` are httpx clients already pointed at the fake (in-process,
    no network); ``transport`` / ``async_transport`` are there for adapters that build their own
    client. ``base_url`` ends with the provider's version prefix (``/v1`` for OpenAI).
    """

    provider: str
    base_url: str
    api_key: str
    fake: FakeProvider
    transport: httpx.BaseTransport | None = None
    async_transport: httpx.AsyncBaseTransport | None = None
    #: the read timeout of ``client`` / ``async_client`` (seconds); a loopback server's
    #: endpoint has a short one (``server.LOOPBACK_READ_TIMEOUT``): there a stall is real time
    read_timeout: float = 30.0
    _client: httpx.Client | None = field(default=None, repr=False)
    _async_client: httpx.AsyncClient | None = field(default=None, repr=False)

    @property
    def client(self) -> httpx.Client:
        if self._client is None:
            # trust_env=False: proxy settings from the environment would add real transports
            self._client = httpx.Client(transport=self.transport, trust_env=False,
                                        timeout=httpx.Timeout(30, read=self.read_timeout),
                                        base_url=_NO_BASE_URL)
        return self._client

    @property
    def async_client(self) -> httpx.AsyncClient:
        if self._async_client is None:
            self._async_client = httpx.AsyncClient(
                transport=self.async_transport, trust_env=False,
                timeout=httpx.Timeout(30, read=self.read_timeout), base_url=_NO_BASE_URL)
        return self._async_client

    def httpx2_client(self) -> Any:
        """An ``httpx2.Client`` wired to the fake in-process, for clients built on httpx2
        (anthropic 2.x refuses httpx clients: ``Anthropic(http_client=ep.httpx2_client())``).
        Needs the ``httpx2`` package (anthropic 2.x installs it; issue 14, defect 10)."""
        httpx2 = _httpx2()
        return httpx2.Client(transport=httpx2.MockTransport(_httpx2_handler(self.fake, httpx2)),
                             trust_env=False, timeout=30)

    def httpx2_async_client(self) -> Any:
        """An ``httpx2.AsyncClient`` wired to the fake in-process (see :meth:`httpx2_client`)."""
        httpx2 = _httpx2()
        return httpx2.AsyncClient(
            transport=httpx2.MockTransport(_httpx2_handler(self.fake, httpx2, is_async=True)),
            trust_env=False, timeout=30)

    @property
    def exchanges(self) -> list[Exchange]:
        return self.fake.exchanges

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        # an AsyncClient over a MockTransport holds no sockets; dropping it is enough


def _httpx2() -> Any:
    try:
        import httpx2
    except ImportError:
        from pytest_toolcall.core.errors import UsageError

        raise UsageError(
            "Endpoint.httpx2_client() needs the httpx2 package (clients built on httpx2, such as "
            "anthropic 2.x, install it): pip install httpx2. Or serve the fake on a loopback "
            "port (--toolcall-transport=loopback) and give the client only base_url and "
            "api_key.") from None
    return httpx2


def _httpx2_handler(fake: FakeProvider, httpx2: Any, *, is_async: bool = False) -> Any:
    """The fake's handler in httpx2's types (httpx2 mirrors httpx's request/response API): the
    same refusal, reset and stall as over httpx, raised as httpx2's own exceptions (a client
    built on httpx2 catches those, not httpx's)."""
    body_class = _httpx2_bodies(httpx2)[1 if is_async else 0]

    def answer(request: Any, body: bytes) -> Any:
        status, headers, chunks = fake.respond(request.method, request.url.raw_path.decode(),
                                               request.headers, body)
        if chunks and chunks[0] is REFUSED:
            raise httpx2.ConnectError("[Errno 111] Connection refused", request=request)
        return httpx2.Response(status, headers=headers,
                               stream=body_class(chunks, fake._exchange_of(chunks),
                                                 _read_timeout(request), fake.released))

    if not is_async:
        return lambda request: answer(request, request.read())

    async def handle(request: Any) -> Any:
        return answer(request, await request.aread())

    return handle


_HTTPX2_BODIES: list[tuple[type, type]] = []


def _httpx2_bodies(httpx2: Any) -> tuple[type, type]:
    """The body classes for httpx2 (its Response takes only its own byte-stream types)."""
    if not _HTTPX2_BODIES:
        sync = type("_Httpx2Body", (_Played, httpx2.SyncByteStream),
                    {"http": httpx2, "__iter__": _Body.__iter__, "close": _Body.close})
        asyn = type("_Httpx2AsyncBody", (_Played, httpx2.AsyncByteStream),
                    {"http": httpx2, "__aiter__": _AsyncBody.__aiter__,
                     "aclose": _AsyncBody.aclose})
        _HTTPX2_BODIES.append((sync, asyn))
    return _HTTPX2_BODIES[0]


def in_process_endpoint(fake: FakeProvider, host: str = "http://toolcall.fake") -> Endpoint:
    """An endpoint whose clients reach ``fake`` in-process through ``httpx.MockTransport``."""
    return Endpoint(provider=fake.dialect.name, base_url=host + fake.dialect.base_path,
                    api_key=fake.api_key, fake=fake, transport=fake.transport(),
                    async_transport=fake.async_transport())


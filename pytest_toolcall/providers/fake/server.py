"""Serve a fake provider on a loopback port, for clients that do not use httpx."""

from __future__ import annotations

import contextlib
import functools
import select
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

from pytest_toolcall.providers.fake.provider import (
    REFUSED,
    RESET,
    STALL,
    STALL_LIMIT,
    Endpoint,
    FakeProvider,
)

#: the read timeout of the kit's own clients of a fake on a loopback port (``Endpoint.client``,
#: which the reference adapters use): there a stall lasts until the case ends (``hold``), so
#: the timeout must be under the case's deadline (the profile's ``timeout``, 10 s by default)
LOOPBACK_READ_TIMEOUT = 2.0

__all__ = ["serve"]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeProvider
    #: set when the case this server (or hub prefix) serves has ended: a stall lets go then
    released: threading.Event | None = None

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        status, headers, chunks = self.fake.respond(self.command, self.path,
                                                    dict(self.headers.items()), body)
        if self.refused(chunks):
            return
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        # chunked transfer keeps the fake's chunk boundaries as far as TCP lets it
        self.send_header("transfer-encoding", "chunked")
        # one request per connection: the runner drives async adapters in a fresh event loop
        # per step, and a pooled connection from a closed loop cannot be reused
        self.send_header("connection", "close")
        self.close_connection = True
        self.end_headers()
        self.play(chunks)

    def refused(self, chunks: list[bytes]) -> bool:
        """An answer that never comes (ErrorReply.refuse): the port cannot refuse a connection
        it has accepted, so it closes it unanswered."""
        if chunks and chunks[0] is REFUSED:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return True
        return False

    def play(self, chunks: list[bytes], head: bytes = b"") -> None:
        """Write the body in chunked transfer, one chunk per piece; a reset drops the
        connection in the middle of the body, a stall first holds it (:meth:`hold`).

        ``head`` (the status line and headers, when the caller has not written them) goes out
        with the first piece, and the body's end with the last: a piece is still one send of
        its own, so the client sees the fake's cuts, but an answer in one piece is one send,
        not three (each a wake-up of the client: a third of a loopback round trip, 2026-11-28)."""
        self.wfile.flush()  # the headers (wfile is unbuffered: a no-op, kept for safety)
        # one send a piece, straight to the socket (a stream cut byte by byte is thousands of
        # pieces: wfile's write and flush were a third of the cost of each)
        send = self.connection.sendall
        last = len(chunks) - 1
        for at, piece in enumerate(chunks):
            if piece is STALL or piece is RESET:
                if head:
                    send(head)
                    head = b""
                if piece is STALL:
                    self.hold()
                # drop the connection in the middle of the chunked body
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            data = b"%s%x\r\n%s\r\n" % (head, len(piece), piece)
            head = b""
            send(data + b"0\r\n\r\n" if at == last else data)
        if last < 0:
            send(head + b"0\r\n\r\n")

    def hold(self) -> None:
        """A stall: the connection stays open and nothing comes, until the client gives up
        (closes it: its read timeout), the case ends (``released``: the case's deadline has
        passed by then, so a client without a read timeout fails it over loopback as it does
        in-process), or ``STALL_LIMIT`` seconds pass. Then the connection is dropped, so no
        client waits forever (issue 35: a 0.5 s stall let a client without a timeout pass)."""
        end = time.monotonic() + STALL_LIMIT
        released = self.released
        while time.monotonic() < end and not (released is not None and released.is_set()):
            try:
                if hasattr(select, "poll"):  # any descriptor number (select stops at 1024)
                    poller = select.poll()
                    poller.register(self.connection, select.POLLIN)
                    readable = bool(poller.poll(50))
                else:
                    readable = bool(select.select([self.connection], [], [], 0.05)[0])
                if readable and not self.connection.recv(1, socket.MSG_PEEK):
                    return  # the client closed its end
            except (OSError, ValueError):
                return
            if readable:  # it sent something more (a pipelined request): still no answer
                time.sleep(0.05)

    do_POST = do_GET = _answer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib name
        pass  # the fake records every exchange itself; stderr stays quiet


class QuietServer(ThreadingHTTPServer):
    """A threading HTTP server that does not print a traceback when a client drops its
    connection (a reset, a client closing a kept-alive connection): that is the client's
    right, not an error of the fake."""

    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        import sys

        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


class _IPv6Server(QuietServer):
    address_family = socket.AF_INET6


@functools.cache
def _tls() -> ssl.SSLContext:
    """httpx's default TLS context (what ``HTTPTransport()`` builds), built once a process and
    shared by every served endpoint's transports: each build loads certifi's whole CA bundle
    (about 20 ms of CPU), two a ``serve``, though a loopback endpoint speaks plain http."""
    return httpx.create_ssl_context()


@contextlib.contextmanager
def serve(fake: FakeProvider, host: str = "127.0.0.1") -> Iterator[Endpoint]:
    """Serve ``fake`` on ``host`` (loopback only) at a free port; yields an :class:`Endpoint`.

    The endpoint's httpx clients use real sockets to the loopback server, so this mode also
    works for adapters built on other HTTP libraries or in other languages: give them
    ``endpoint.base_url`` and ``endpoint.api_key``.
    """
    if host not in ("127.0.0.1", "::1", "localhost"):
        raise ValueError(f"the fake provider serves on loopback only, not on {host!r}: use "
                         "host='127.0.0.1' (the default), '::1' or 'localhost'")
    released = threading.Event()
    handler = type("Handler", (_Handler,), {"fake": fake, "released": released})
    # ThreadingHTTPServer binds IPv4 only; '::1' needs an IPv6 socket and a bracketed URL
    server_class = _IPv6Server if host == "::1" else QuietServer
    server = server_class((host, 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02},
                              name="toolcall-fake", daemon=True)
    thread.start()
    port = server.server_address[1]
    endpoint = Endpoint(provider=fake.dialect.name,
                        base_url=f"http://{'[::1]' if host == '::1' else host}:{port}"
                                 f"{fake.dialect.base_path}",
                        api_key=fake.api_key, fake=fake,
                        transport=httpx.HTTPTransport(verify=_tls()),
                        async_transport=httpx.AsyncHTTPTransport(verify=_tls()),
                        read_timeout=LOOPBACK_READ_TIMEOUT)
    from pytest_toolcall.core.netguard import kit_port

    try:
        with kit_port(port):  # reachable while replay blocks the network
            yield endpoint
    finally:
        released.set()  # a stalled connection lets go
        endpoint.close()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

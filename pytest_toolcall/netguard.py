"""Replay never reaches the network, whatever the client (issue 18).

vcrpy blocks the HTTP libraries it patches (httpx, requests, urllib3, http.client); an adapter
that opens its own sockets (``socket.create_connection``, ``asyncio.open_connection``, a gRPC or
websocket client) went around it. :func:`block_network` refuses, at the socket level, every
connection and name lookup except loopback connections to the kit's own servers (the fake
provider's loopback server, the child-process protocol's server), which register their ports
with :func:`kit_port`. Every refused attempt is kept, so the run can fail naming the host even
when the implementation swallowed the error.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
from collections.abc import Iterator
from typing import Any

from .errors import ToolcallError

__all__ = ["NetworkBlocked", "add_kit_port", "block_network", "kit_port"]

_lock = threading.Lock()
_kit_ports: set[int] = set()
_LOOPBACK_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost")


class NetworkBlocked(ToolcallError):
    """An implementation tried to reach the network while a cassette was replayed."""

    def __init__(self, host: str, port: Any, context: str) -> None:
        self.host, self.port = host, port
        where = f"{host}:{port}" if port not in (None, "", 0) else host
        super().__init__(
            f"blocked a connection to {where}: {context} never reaches the network, and this "
            "connection went around the cassette (a raw socket, asyncio.open_connection, or a "
            "client the cassette does not patch). Send the adapter's requests through the "
            "endpoint's httpx clients (endpoint.client / endpoint.async_client), or point a "
            "client with its own sockets at endpoint.base_url")


def add_kit_port(port: int) -> None:
    """Mark ``port`` on loopback as a server of the kit's for the rest of the process."""
    with _lock:
        _kit_ports.add(port)


@contextlib.contextmanager
def kit_port(port: int) -> Iterator[None]:
    """Mark ``port`` on loopback as the kit's own server while the block is on."""
    with _lock:
        _kit_ports.add(port)
    try:
        yield
    finally:
        with _lock:
            _kit_ports.discard(port)


def _is_loopback(host: str) -> bool:
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


class _Guard:
    def __init__(self, context: str) -> None:
        self.context = context
        self.attempts: list[NetworkBlocked] = []

    def refuse(self, host: Any, port: Any) -> NetworkBlocked:
        error = NetworkBlocked(str(host), port, self.context)
        self.attempts.append(error)
        return error

    def allowed(self, address: Any) -> tuple[bool, str, Any]:
        if isinstance(address, (str, bytes)):  # AF_UNIX: not the network
            return True, "", None
        host, port = str(address[0]), address[1] if len(address) > 1 else None
        with _lock:
            ours = port in _kit_ports
        return _is_loopback(host) and ours, host, port


_active: list[_Guard] = []
_originals: dict[str, Any] = {}


def _connect(self: socket.socket, address: Any) -> Any:
    for guard in list(_active):
        ok, host, port = guard.allowed(address)
        if not ok:
            raise guard.refuse(host, port)
    return _originals["connect"](self, address)


def _connect_ex(self: socket.socket, address: Any) -> Any:
    for guard in list(_active):
        ok, host, port = guard.allowed(address)
        if not ok:
            raise guard.refuse(host, port)
    return _originals["connect_ex"](self, address)


def _getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
    name = host.decode() if isinstance(host, bytes) else str(host)
    if host is not None and not _is_loopback(name):
        for guard in list(_active):
            raise guard.refuse(name, port)
    return _originals["getaddrinfo"](host, port, *args, **kwargs)


@contextlib.contextmanager
def block_network(context: str = "replay") -> Iterator[list[NetworkBlocked]]:
    """Refuse every connection but loopback ones to the kit's own servers; yields the list of
    refused attempts (each a :class:`NetworkBlocked` naming the host)."""
    guard = _Guard(context)
    with _lock:
        if not _active:
            _originals.update(connect=socket.socket.connect, connect_ex=socket.socket.connect_ex,
                              getaddrinfo=socket.getaddrinfo)
            socket.socket.connect = _connect  # type: ignore[method-assign]
            socket.socket.connect_ex = _connect_ex  # type: ignore[method-assign]
            socket.getaddrinfo = _getaddrinfo
        _active.append(guard)
    try:
        yield guard.attempts
    finally:
        with _lock:
            _active.remove(guard)
            if not _active:
                socket.socket.connect = _originals["connect"]  # type: ignore[method-assign]
                socket.socket.connect_ex = _originals["connect_ex"]  # type: ignore[method-assign]
                socket.getaddrinfo = _originals["getaddrinfo"]

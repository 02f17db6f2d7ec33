"""Replay never reaches the network, whatever the client (issue 18).

vcrpy blocks the HTTP libraries it patches (httpx, requests, urllib3, http.client); an adapter
that opens its own sockets (``socket.create_connection``, ``asyncio.open_connection``, a gRPC or
websocket client) went around it. :func:`block_network` refuses, at the socket level, every
connection (``connect``/``connect_ex``), every datagram sent to an address (``sendto``,
``sendmsg``) and every name lookup (``getaddrinfo``, ``gethostbyname``, ``gethostbyname_ex``,
``gethostbyaddr``, ``getnameinfo``) except loopback connections to the kit's own servers (the
fake provider's loopback server, the child-process protocol's server), which register their
ports with :func:`kit_port`, and lookups of loopback names. Every refused attempt is kept, so
the run can fail naming the host even when the implementation swallowed the error.

What it cannot reach: it patches the Python ``socket.socket`` class and the ``socket`` module's
functions. The C type ``_socket.socket`` is immutable, so code that uses it directly (or a C
library with its own sockets and resolver, such as gRPC's C core) and other processes go
around it; docs/reliability.md ("Limits") says so.
"""

from __future__ import annotations

import _socket
import contextlib
import ipaddress
import socket
import threading
from collections.abc import Iterator
from typing import Any

from pytest_toolcall.core.errors import ToolcallError

__all__ = ["NetworkBlocked", "add_kit_port", "block_network", "kit_port"]

_lock = threading.Lock()
_kit_ports: set[int] = set()
_LOOPBACK_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost")


class NetworkBlocked(ToolcallError):
    """An implementation tried to reach the network while a cassette was replayed."""

    def __init__(self, host: str, port: Any, context: str, kind: str = "connection",
                 via: str = "") -> None:
        self.host, self.port, self.kind = host, port, kind
        where = f"{host}:{port}" if port not in (None, "", 0) else host
        to = "of" if kind == "name lookup" else "to"
        how = f" ({via})" if via else ""
        super().__init__(
            f"blocked a {kind} {to} {where}{how}: {context} never reaches the network, and this "
            f"{kind} went around the cassette (a raw socket, asyncio.open_connection, or a "
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

    def refuse(self, host: Any, port: Any, kind: str = "connection",
               via: str = "") -> NetworkBlocked:
        error = NetworkBlocked(str(host), port, self.context, kind, via)
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
#: the ``socket.socket`` methods and ``socket`` functions the block replaces
_METHODS = ("connect", "connect_ex", "sendto", "sendmsg")
_FUNCTIONS = ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "gethostbyaddr", "getnameinfo")


def _original(name: str) -> Any:
    """The method the block replaced: the class's own, or the one ``_socket`` defines."""
    own = _originals.get(name)
    return own if own is not None else getattr(_socket.socket, name)


def _check(address: Any, kind: str, via: str = "") -> None:
    """Raise (and keep) a refusal unless every active block lets ``address`` through."""
    for guard in list(_active):
        ok, host, port = guard.allowed(address)
        if not ok:
            raise guard.refuse(host, port, kind, via)


def _check_name(host: Any, port: Any, via: str) -> None:
    """Refuse a name lookup of anything but a loopback name or address."""
    if host is None:  # getaddrinfo(None, port): the local wildcard, no lookup
        return
    name = host.decode() if isinstance(host, bytes) else str(host)
    if not _is_loopback(name):
        for guard in list(_active):
            raise guard.refuse(name, port, "name lookup", via)


def _connect(self: socket.socket, address: Any) -> Any:
    _check(address, "connection")
    return _original("connect")(self, address)


def _connect_ex(self: socket.socket, address: Any) -> Any:
    _check(address, "connection")
    return _original("connect_ex")(self, address)


def _sendto(self: socket.socket, data: Any, *args: Any) -> Any:
    # sendto(data, address) or sendto(data, flags, address)
    if args:
        _check(args[-1], "datagram", "sendto")
    return _original("sendto")(self, data, *args)


def _sendmsg(self: socket.socket, buffers: Any, *args: Any) -> Any:
    # sendmsg(buffers[, ancdata[, flags[, address]]]): without an address the socket is
    # connected, and its connect() was checked
    if len(args) >= 3 and args[2] is not None:
        _check(args[2], "datagram", "sendmsg")
    return _original("sendmsg")(self, buffers, *args)


def _getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
    _check_name(host, port, "getaddrinfo")
    return _originals["getaddrinfo"](host, port, *args, **kwargs)


def _gethostbyname(hostname: Any) -> Any:
    _check_name(hostname, None, "gethostbyname")
    return _originals["gethostbyname"](hostname)


def _gethostbyname_ex(hostname: Any) -> Any:
    _check_name(hostname, None, "gethostbyname_ex")
    return _originals["gethostbyname_ex"](hostname)


def _gethostbyaddr(address: Any) -> Any:
    _check_name(address, None, "gethostbyaddr")
    return _originals["gethostbyaddr"](address)


def _getnameinfo(sockaddr: Any, flags: Any) -> Any:
    if isinstance(sockaddr, tuple) and sockaddr:
        _check_name(sockaddr[0], sockaddr[1] if len(sockaddr) > 1 else None, "getnameinfo")
    return _originals["getnameinfo"](sockaddr, flags)


_REPLACEMENTS: dict[str, Any] = {
    "connect": _connect, "connect_ex": _connect_ex, "sendto": _sendto, "sendmsg": _sendmsg,
    "getaddrinfo": _getaddrinfo, "gethostbyname": _gethostbyname,
    "gethostbyname_ex": _gethostbyname_ex, "gethostbyaddr": _gethostbyaddr,
    "getnameinfo": _getnameinfo,
}


@contextlib.contextmanager
def block_network(context: str = "replay") -> Iterator[list[NetworkBlocked]]:
    """Refuse every connection but loopback ones to the kit's own servers; yields the list of
    refused attempts (each a :class:`NetworkBlocked` naming the host)."""
    guard = _Guard(context)
    with _lock:
        if not _active:
            for name in _METHODS:
                if hasattr(socket.socket, name):  # sendmsg is POSIX only
                    # what the class itself holds (usually nothing: inherited from _socket)
                    _originals[name] = vars(socket.socket).get(name)
                    setattr(socket.socket, name, _REPLACEMENTS[name])
            for name in _FUNCTIONS:
                _originals[name] = getattr(socket, name)
                setattr(socket, name, _REPLACEMENTS[name])
        _active.append(guard)
    try:
        yield guard.attempts
    finally:
        with _lock:
            _active.remove(guard)
            if not _active:
                for name in _METHODS:
                    if name in _originals:
                        own = _originals.pop(name)
                        if own is None:
                            delattr(socket.socket, name)
                        else:
                            setattr(socket.socket, name, own)
                for name in _FUNCTIONS:  # kept in _originals: a late caller still works
                    setattr(socket, name, _originals[name])

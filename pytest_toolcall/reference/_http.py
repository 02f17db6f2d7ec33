"""What every reference adapter does the same way: send on httpx, sync and async, complete and
stream; be wired to an endpoint (``from_endpoint``); read an error answer whose ``error`` object
names its fields (``raise_for_error``, with ``error_keys``). A subclass says where to post
(``request_url``), how to encode (``build_body``), how to read an answer (``parse_response``)
and a stream (``new_accumulator``), and reads an error of another shape itself."""

from __future__ import annotations

import functools
import json
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

import httpx

from pytest_toolcall.core.model import ChatRequest, ChatResponse

__all__ = ["RETRYABLE_TYPES", "EndMarked", "HttpxAdapter", "StreamLines", "finish_reason",
           "parsed_url", "read_error", "retry_fields", "tool_fields"]


def _unreachable(exc: Exception) -> Exception:
    from pytest_toolcall.core.errors import ProviderError

    return ProviderError(f"no answer from the provider: {type(exc).__name__}: {exc}",
                         retryable=True)


def _broken(exc: Exception) -> Exception:
    from pytest_toolcall.core.errors import IncompleteStreamError

    return IncompleteStreamError(f"the connection broke before the stream ended: {exc}",
                                 retryable=True)


def read_error(body: bytes) -> tuple[Any, dict[str, Any] | None]:
    """An error response's body: ``(data, error)``, where ``data`` is the decoded JSON (or the
    text, for a gateway's HTML page) and ``error`` its ``"error"`` object when there is one."""
    try:
        data = json.loads(body)
    except ValueError:
        return body.decode(errors="replace"), None
    error = data.get("error") if isinstance(data, dict) else None
    return data, error if isinstance(error, dict) else None


def finish_reason(table: Any, reason: str | None) -> Any:
    """A wire's stop reason as the canonical finish reason by ``table`` ("other" for a reason
    the table does not know; None for none)."""
    if reason is None:
        return None
    return table.get(reason, "other")


def tool_fields(adapter: Any, request: ChatRequest) -> dict[str, Any]:
    """``tools``, ``tool_choice`` and ``parallel_tool_calls`` as the OpenAI wires (Chat
    Completions and Responses) send them, by ``adapter``'s encoders; none without tools."""
    if not request.tools:
        return {}
    out: dict[str, Any] = {"tools": [adapter.encode_tool(t) for t in request.tools]}
    if request.tool_choice is not None:
        out["tool_choice"] = adapter.encode_tool_choice(request.tool_choice)
    if request.parallel_tool_calls is not None:
        out["parallel_tool_calls"] = request.parallel_tool_calls
    return out


@functools.lru_cache(maxsize=256)
def parsed_url(url: str) -> httpx.URL:
    """``url`` parsed once: httpx parses a URL given as text on every request (about a sixth
    of a bare in-process round trip) and takes an ``httpx.URL`` as it is (immutable, so one
    object serves every adapter that posts there)."""
    return httpx.URL(url)


class HttpxAdapter:
    """The four entry points of the ChatAdapter contract over httpx.

    A subclass's ``__init__`` sets ``_client`` and ``_async_client`` to the clients it was given
    (None: the default one, built on first use: each default client loads the CA bundle, ~35 ms,
    and an adapter made for its encoders and parsers alone never sends; the kit's tests make
    hundreds). Assigning ``client`` or ``async_client`` works as before."""

    _client: httpx.Client | None = None
    _async_client: httpx.AsyncClient | None = None
    headers: dict[str, str]
    url: Any

    @property
    def client(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(timeout=60)
        return self._client

    @client.setter
    def client(self, client: httpx.Client) -> None:
        self._client = client

    @property
    def async_client(self) -> httpx.AsyncClient:
        if self._async_client is None:
            self._async_client = httpx.AsyncClient(timeout=60)
        return self._async_client

    @async_client.setter
    def async_client(self, client: httpx.AsyncClient) -> None:
        self._async_client = client

    #: where the wire's error object (``{"error": {...}}``) keeps the error's type, code and
    #: param (None: the wire has no such field); see :meth:`raise_for_error`
    error_keys: tuple[str | None, str | None, str | None] = ("type", "code", "param")
    #: whether the error's code may say that retrying cannot help (OpenAI's
    #: ``insufficient_quota``, ``retry_fields``)
    quota_codes = True

    @classmethod
    def from_endpoint(cls, endpoint: Any, **kwargs: Any) -> Any:
        """Wired to a pytest-toolcall endpoint (the fake provider, in-process or on loopback)."""
        return cls(endpoint.base_url, endpoint.api_key, client=endpoint.client,
                   async_client=endpoint.async_client, **kwargs)

    def request_url(self, request: ChatRequest, *, stream: bool) -> str | httpx.URL:
        """Where the request goes (one URL for most providers)."""
        return parsed_url(str(self.url))

    # the hooks every adapter defines
    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        raise NotImplementedError

    def parse_response(self, data: Any) -> ChatResponse:
        raise NotImplementedError

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        """A ProviderError for an error status: the message and the fields ``error_keys``
        names from the body's ``error`` object, else the body itself (a gateway's page)."""
        from pytest_toolcall.core.errors import ProviderError

        if response.status_code < 400:
            return
        data, error = read_error(body)
        if error is not None:
            type_key, code_key, param_key = self.error_keys
            code = error.get(code_key) if code_key else None
            raise ProviderError(str(error.get("message")), status=response.status_code,
                                type=error.get(type_key) if type_key else None, code=code,
                                param=error.get(param_key) if param_key else None, body=data,
                                **retry_fields(response, data, code if self.quota_codes else None))
        raise ProviderError(str(data)[:500], status=response.status_code, body=data,
                            **retry_fields(response, data))

    def new_accumulator(self) -> Any:
        raise NotImplementedError

    # -- the four entry points ----------------------------------------------------------------
    def complete(self, request: ChatRequest) -> ChatResponse:
        try:
            response = self.client.post(self.request_url(request, stream=False),
                                        headers=self.headers,
                                        json=self.build_body(request, stream=False))
        except httpx.TransportError as exc:  # refused, reset, timed out: no answer
            raise _unreachable(exc) from exc
        self.raise_for_error(response, response.content)
        return self.parse_response(response.json())

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        try:
            response = await self.async_client.post(self.request_url(request, stream=False),
                                                    headers=self.headers,
                                                    json=self.build_body(request, stream=False))
        except httpx.TransportError as exc:
            raise _unreachable(exc) from exc
        self.raise_for_error(response, response.content)
        return self.parse_response(response.json())

    def stream(self, request: ChatRequest) -> Iterator[Any]:
        body = self.build_body(request, stream=True)
        with self.client.stream("POST", self.request_url(request, stream=True),
                                headers=self.headers, json=body) as response:
            if response.status_code >= 400:
                self.raise_for_error(response, response.read())
            acc = self.new_accumulator()
            try:
                for line in self.lines(response):
                    yield from acc.feed_line(line)
            except httpx.TransportError as exc:  # reset, read timeout: the answer is partial
                raise _broken(exc) from exc
            yield from acc.close()

    async def astream(self, request: ChatRequest) -> AsyncIterator[Any]:
        body = self.build_body(request, stream=True)
        async with self.async_client.stream("POST", self.request_url(request, stream=True),
                                            headers=self.headers, json=body) as response:
            if response.status_code >= 400:
                self.raise_for_error(response, await response.aread())
            acc = self.new_accumulator()
            try:
                async for line in self.alines(response):
                    for event in acc.feed_line(line):
                        yield event
            except httpx.TransportError as exc:
                raise _broken(exc) from exc
            for event in acc.close():
                yield event

    # -- reading a streamed body ----------------------------------------------------------------
    def lines(self, response: httpx.Response) -> Iterator[str]:
        """The streamed body's lines as its pieces arrive (:class:`StreamLines`)."""
        lines = StreamLines()
        for chunk in response.iter_bytes():
            yield from lines.feed(chunk)
        yield from lines.close()

    async def alines(self, response: httpx.Response) -> AsyncIterator[str]:
        """:meth:`lines` in the async client."""
        lines = StreamLines()
        async for chunk in response.aiter_bytes():
            for line in lines.feed(chunk):
                yield line
        for line in lines.close():
            yield line


class EndMarked:
    """What a stream accumulator shares: ``done`` once the wire's last event came, and a
    :meth:`close` that fails a stream cut before it (naming ``end_marker``, and the missing
    ``finish_name`` when no finish reason came either)."""

    done: bool
    finish: Any = None
    #: the wire's last event, as the error names it
    end_marker = "its last event"
    #: the field that carries the finish reason, named when it is missing too (None: not named)
    finish_name: str | None = None

    def close(self) -> Any:
        from pytest_toolcall.core.errors import IncompleteStreamError

        if not self.done:
            missing = (f" and without a {self.finish_name}"
                       if self.finish_name is not None and self.finish is None else "")
            raise IncompleteStreamError(f"the stream ended without {self.end_marker}{missing}")
        return ()


class StreamLines:
    """The lines of a streamed body as its pieces arrive, each decoded once it is whole.

    A line ends at CR LF, LF or CR and nowhere else: the event-stream format allows no other
    line ending (html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream,
    "end-of-line"), and NDJSON ends its lines with LF. httpx's ``iter_lines`` also cuts at the
    Unicode separators ``str.splitlines`` knows (U+2028, U+2029, U+0085, VT, FF, FS, GS, RS),
    which JSON allows raw inside a string: a data line holding one came out in two broken
    halves (httpx-sse #34, fixed in httpx-sse 0.4.2; modelcontextprotocol/python-sdk #1356;
    langchain-ai/langgraph #2560). The official openai SDK cuts the bytes before decoding for
    the same reason (``openai/_streaming.py``, ``SSEDecoder.iter_bytes``). Confirmed
    2026-11-25. Lines are decoded as UTF-8, which event streams always are; a line cut inside a
    multi-byte character is decoded only once whole."""

    def __init__(self) -> None:
        self._pending = bytearray()  # the start of a line whose end has not arrived
        self._after_cr = False  # the last piece ended in CR: a LF first in the next is its pair

    def feed(self, chunk: bytes) -> Sequence[str]:
        """The lines ``chunk`` completes."""
        if self._after_cr and chunk:
            self._after_cr = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        if b"\n" not in chunk and b"\r" not in chunk:
            self._pending += chunk
            return ()  # (most pieces of a stream cut small: no new list for each)
        if self._pending:
            chunk = bytes(self._pending) + chunk
            self._pending.clear()
        pieces = chunk.splitlines()  # bytes: CR LF, LF and CR only, each line without its end
        end = chunk[-1:]  # how the last piece ends: a line end, or a line still to complete
        if end == b"\r":
            self._after_cr = True
        elif end != b"\n":
            self._pending += pieces.pop()
        return [piece.decode("utf-8", "replace") for piece in pieces]

    def close(self) -> list[str]:
        """The last line, when the body ended without a line ending."""
        if not self._pending:
            return []
        line = self._pending.decode("utf-8", "replace")
        self._pending.clear()
        return [line]


#: error types and codes that say "try again": OpenAI's server_error, Anthropic's api_error and
#: overloaded_error, Gemini's INTERNAL / UNAVAILABLE / DEADLINE_EXCEEDED / RESOURCE_EXHAUSTED
#: (a per-minute limit), and rate-limit types; used for errors inside a 200 stream, which have
#: no status of their own
RETRYABLE_TYPES = frozenset({"server_error", "api_error", "overloaded_error", "rate_limit_error",
                             "rate_limit_exceeded", "INTERNAL", "UNAVAILABLE",
                             "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED"})
#: codes that say retrying cannot help whatever the status: OpenAI's used-up quota is a 429
NOT_RETRYABLE_CODES = frozenset({"insufficient_quota"})


def retry_fields(response: Any, data: Any, code: Any = None) -> dict[str, Any]:
    """``retry_after`` and ``retryable`` for a ProviderError from an error response: the delay
    from the headers (or Gemini's RetryInfo), and whether to retry from ``x-should-retry``
    (what the OpenAI and Anthropic SDKs obey first), else from the code and the status."""
    from pytest_toolcall.core.errors import retry_after_seconds, status_is_retryable

    retryable = status_is_retryable(response.status_code)
    should = response.headers.get("x-should-retry")
    if should in ("true", "false"):
        retryable = should == "true"
    elif code in NOT_RETRYABLE_CODES:
        retryable = False
    return {"retry_after": retry_after_seconds(response.headers, data), "retryable": retryable}

"""What every reference adapter does the same way: send on httpx, sync and async, complete and
stream. A subclass says where to post (``request_url``), how to encode (``build_body``), how to
read an answer (``parse_response``), a stream (``new_accumulator``) and an error
(``raise_for_error``)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx

from ..model import ChatRequest, ChatResponse

__all__ = ["RETRYABLE_TYPES", "HttpxAdapter", "read_error", "retry_fields"]


def _unreachable(exc: Exception) -> Exception:
    from ..errors import ProviderError

    return ProviderError(f"no answer from the provider: {type(exc).__name__}: {exc}",
                         retryable=True)


def _broken(exc: Exception) -> Exception:
    from ..errors import IncompleteStreamError

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


class HttpxAdapter:
    """The four entry points of the ChatAdapter contract over httpx."""

    client: httpx.Client
    async_client: httpx.AsyncClient
    headers: dict[str, str]
    url: Any

    def request_url(self, request: ChatRequest, *, stream: bool) -> str:
        """Where the request goes (one URL for most providers)."""
        return str(self.url)

    # the hooks every adapter defines
    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        raise NotImplementedError

    def parse_response(self, data: Any) -> ChatResponse:
        raise NotImplementedError

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        raise NotImplementedError

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
            # iter_lines joins lines cut across network reads and yields a last line without "\n"
            try:
                for line in response.iter_lines():
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
                async for line in response.aiter_lines():
                    for event in acc.feed_line(line):
                        yield event
            except httpx.TransportError as exc:
                raise _broken(exc) from exc
            for event in acc.close():
                yield event


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
    from ..errors import retry_after_seconds, status_is_retryable

    retryable = status_is_retryable(response.status_code)
    should = response.headers.get("x-should-retry")
    if should in ("true", "false"):
        retryable = should == "true"
    elif code in NOT_RETRYABLE_CODES:
        retryable = False
    return {"retry_after": retry_after_seconds(response.headers, data), "retryable": retryable}

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

__all__ = ["HttpxAdapter", "read_error"]


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
        response = self.client.post(self.request_url(request, stream=False), headers=self.headers,
                                    json=self.build_body(request, stream=False))
        self.raise_for_error(response, response.content)
        return self.parse_response(response.json())

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        response = await self.async_client.post(self.request_url(request, stream=False),
                                                headers=self.headers,
                                                json=self.build_body(request, stream=False))
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
            for line in response.iter_lines():
                yield from acc.feed_line(line)
            yield from acc.close()

    async def astream(self, request: ChatRequest) -> AsyncIterator[Any]:
        body = self.build_body(request, stream=True)
        async with self.async_client.stream("POST", self.request_url(request, stream=True),
                                            headers=self.headers, json=body) as response:
            if response.status_code >= 400:
                self.raise_for_error(response, await response.aread())
            acc = self.new_accumulator()
            async for line in response.aiter_lines():
                for event in acc.feed_line(line):
                    yield event
            for event in acc.close():
                yield event

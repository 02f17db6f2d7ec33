"""A scripted model for loop cases: a chat adapter that answers from a script, in-process.

Each request is checked with the provider's real rules (encoded as the reference adapter of the
dialect would send it, then validated by the dialect), so a loop that sends an orphan tool
message gets the provider's exact 400 here too, as a
:class:`~pytest_toolcall.core.errors.ProviderError`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from pytest_toolcall.cases import ErrorReply, Turn
from pytest_toolcall.providers.base import Rejection, get_dialect, noting_breaches
from pytest_toolcall.core.errors import ProviderError
from pytest_toolcall.core.model import ChatRequest, ChatResponse, ToolCall

__all__ = ["EXHAUSTED_TEXT", "ScriptedModel", "turn_response", "wire_rejection", "wire_verdict"]

EXHAUSTED_TEXT = "(pytest-toolcall: the model has nothing more to say)"
#: how long a hung model call (``ErrorReply.hang``) blocks at most when the case never ends it
HANG_LIMIT = 120.0


def wire_rejection(request: ChatRequest, dialect: str = "openai") -> Rejection | None:
    """The provider's answer to ``request`` as the dialect's reference adapter would send it:
    ``None`` when accepted."""
    return wire_verdict(request, dialect)[0]


def wire_verdict(request: ChatRequest, dialect: str = "openai"
                 ) -> tuple[Rejection | None, tuple[Rejection, ...]]:
    """:func:`wire_rejection`, and the rules the request broke that the provider's fake lets
    pass (issue 30: OpenAI's rules a service is not shown to enforce)."""
    from pytest_toolcall.reference import request_body

    with noting_breaches() as breaches:
        rejection = get_dialect(dialect).validate(request_body(dialect, request))
    return rejection, () if rejection is not None else tuple(breaches)


def turn_response(turn: Turn, ids: Sequence[str | None]) -> ChatResponse:
    """The canonical response a correct adapter parses from ``turn``."""
    calls = tuple(ToolCall.from_raw(id=cid, name=c.name, arguments=c.arguments)
                  for cid, c in zip(ids, turn.tool_calls))
    return ChatResponse(text=turn.text, tool_calls=calls, finish_reason=turn.expected_finish(),
                        usage=turn.usage, reasoning=turn.reasoning)


def provider_error(error: ErrorReply, dialect: str) -> ProviderError:
    """The error a scripted turn fails with, in-process: a provider's own ``kind`` of error
    (status, headers, body as the fake sends them) read by the dialect's reference adapter, so
    its status, type, code, delay and retryability are those a loop sees over HTTP."""
    if error.refuse or error.stall or error.hang:  # no answer: what the adapters raise then
        what = ("ConnectError: [Errno 111] Connection refused" if error.refuse
                else "ReadTimeout: The read operation timed out")
        return ProviderError(f"no answer from the provider: {what}", retryable=True)
    if error.kind is None:
        return ProviderError(error.message, status=error.status, type=error.type,
                             code=error.code)
    import httpx

    from pytest_toolcall.providers.errors import error_reply
    from pytest_toolcall.reference import _adapter_class

    status, headers, body = error_reply(dialect, error.kind, error.retry_after)
    response = httpx.Response(status, headers=headers, json=body)
    cls = _adapter_class(dialect)
    try:
        cls.raise_for_error(cls.__new__(cls), response, response.content)
    except ProviderError as exc:
        return exc
    raise AssertionError(f"the {dialect} reference adapter let a {status} through")  # pragma: no cover


class ScriptedModel:
    """Answers call *n* with ``turns[n]``; the last turn repeats until ``max_calls``.

    After ``max_calls`` model calls it answers with plain text (so a loop that never stops
    still ends, and the case can say so). ``requests`` holds every request, ``rejections`` the
    provider's answer to each request it would have refused.
    """

    def __init__(self, turns: Sequence[Turn], *, dialect: str = "openai", max_calls: int = 40,
                 validate: bool = True) -> None:
        if not turns:
            raise ValueError("a scripted model needs at least one turn")
        self.turns = list(turns)
        self.dialect = get_dialect(dialect)
        self.max_calls = max_calls
        self.validate = validate
        self.requests: list[ChatRequest] = []
        #: when each request came (``time.perf_counter()``), in the order of ``requests``
        self.times: list[float] = []
        self.rejections: list[tuple[int, Rejection]] = []
        #: the rules a request broke that the provider's fake lets pass (issue 30)
        self.breaches: list[tuple[int, Rejection]] = []
        self._lock = threading.Lock()
        self._released = threading.Event()

    def release(self) -> None:
        """End every model call still hanging (``ErrorReply.hang``): the case is over."""
        self._released.set()

    @staticmethod
    def _hung(taken: tuple[Turn, list[str | None]]) -> bool:
        return taken[0].error is not None and taken[0].error.hang

    def complete(self, request: ChatRequest) -> ChatResponse:
        taken = self._take(request)
        if isinstance(taken, ChatResponse):
            return taken
        if self._hung(taken):  # never answers: only a deadline of the caller's own ends it
            self._released.wait(HANG_LIMIT)
        return self._answer(taken)

    def _take(self, request: ChatRequest) -> ChatResponse | tuple[Turn, list[str | None]]:
        """Record the request; the answer past the script, or the scripted turn and its ids."""
        with self._lock:
            index = len(self.requests)
            self.requests.append(request)
            self.times.append(time.perf_counter())
        if self.validate:
            rejection, breaches = wire_verdict(request, self.dialect.name)
            self.breaches += [(index, b) for b in breaches]
            if rejection is not None:
                self.rejections.append((index, rejection))
                raise ProviderError(rejection.message, status=rejection.status,
                                    body=dict(rejection.body))
        if index >= self.max_calls:
            return ChatResponse(text=EXHAUSTED_TEXT, finish_reason="stop")
        return self.turn_for(index)

    def _answer(self, taken: tuple[Turn, list[str | None]]) -> ChatResponse:
        turn, ids = taken
        if turn.error is not None:  # the model call fails, as a provider error would
            raise provider_error(turn.error, self.dialect.name)
        return turn_response(turn, ids)

    def turn_for(self, index: int) -> tuple[Turn, list[str | None]]:
        """The turn of call ``index`` and its call ids: scripted ids on a turn's first use,
        ``call_<n>_<k>`` otherwise, so a repeated turn never reuses an id."""
        turn = self.turns[min(index, len(self.turns) - 1)]
        repeated = index >= len(self.turns)
        ids: list[str | None] = [
            c.id if c.id and not repeated else f"call_{index + 1}_{k + 1}"
            for k, c in enumerate(turn.tool_calls)]
        return turn, ids

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        taken = self._take(request)
        if isinstance(taken, ChatResponse):
            return taken
        if self._hung(taken):  # a cancelled task (asyncio.wait_for) stops waiting here
            import asyncio

            deadline = time.perf_counter() + HANG_LIMIT
            while not self._released.is_set() and time.perf_counter() < deadline:
                await asyncio.sleep(0.005)
        return self._answer(taken)

"""A scripted model for loop cases: a chat adapter that answers from a script, in-process.

Each request is checked with the provider's real rules (encoded as the reference adapter of the
dialect would send it, then validated by the dialect), so a loop that sends an orphan tool
message gets the provider's exact 400 here too, as a :class:`~pytest_toolcall.errors.ProviderError`.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from .cases import Turn
from .dialects import Rejection, get_dialect
from .errors import ProviderError
from .model import ChatRequest, ChatResponse, ToolCall

__all__ = ["EXHAUSTED_TEXT", "ScriptedModel", "turn_response", "wire_rejection"]

EXHAUSTED_TEXT = "(pytest-toolcall: the model has nothing more to say)"


def wire_rejection(request: ChatRequest, dialect: str = "openai") -> Rejection | None:
    """The provider's answer to ``request`` as the dialect's reference adapter would send it:
    ``None`` when accepted."""
    from .reference import request_body

    return get_dialect(dialect).validate(request_body(dialect, request))


def turn_response(turn: Turn, ids: Sequence[str | None]) -> ChatResponse:
    """The canonical response a correct adapter parses from ``turn``."""
    calls = tuple(ToolCall.from_raw(id=cid, name=c.name, arguments=c.arguments)
                  for cid, c in zip(ids, turn.tool_calls))
    return ChatResponse(text=turn.text, tool_calls=calls, finish_reason=turn.expected_finish(),
                        usage=turn.usage)


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
        self.rejections: list[tuple[int, Rejection]] = []
        self._lock = threading.Lock()

    def complete(self, request: ChatRequest) -> ChatResponse:
        with self._lock:
            index = len(self.requests)
            self.requests.append(request)
        if self.validate:
            rejection = wire_rejection(request, self.dialect.name)
            if rejection is not None:
                self.rejections.append((index, rejection))
                raise ProviderError(rejection.message, status=rejection.status,
                                    body=dict(rejection.body))
        if index >= self.max_calls:
            return ChatResponse(text=EXHAUSTED_TEXT, finish_reason="stop")
        turn, ids = self.turn_for(index)
        if turn.error is not None:  # the model call fails, as a provider error would
            raise ProviderError(turn.error.message, status=turn.error.status,
                                type=turn.error.type, code=turn.error.code)
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
        return self.complete(request)

"""OpenAI Responses: its own error answers, one per error kind (status, headers, body).

Confirmed 2026-11-23. The same error shapes and kinds as Chat Completions
(``providers/openai/errors.py``), but for the context window, which Responses words apart and
blames on ``input``.

The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.providers.openai.errors import _openai
from pytest_toolcall.providers.openai.errors import error_table as _chat_completions


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    if kind == "context_length":
        return 400, {}, _openai(400, "Your input exceeds the context window of this "
                                "model. Please adjust your input and try again.",
                                "invalid_request_error", "context_length_exceeded",
                                "input")
    return _chat_completions(kind, delay)

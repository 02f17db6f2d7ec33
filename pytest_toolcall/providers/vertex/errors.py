"""Gemini on Vertex AI: its own error answers, one per error kind (status, headers, body).

None yet: no Vertex error body has been confirmed (the wire corpus holds no Vertex traffic,
rechecked 2026-11-25), so the fake plays none and the errors family does not run for ``vertex``;
the gemini wire's bodies (``providers/gemini/errors.py``) are not assumed.

The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    return None

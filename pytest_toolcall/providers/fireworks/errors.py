"""Fireworks AI: its own error answers, one per error kind (status, headers, body).


The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    """Confirmed 2026-11-25, sources in ``pytest_toolcall.providers.FIREWORKS``: the 401 is a live
    capture, the 404 and the 429 are quoted bodies (the 429's error is a string, its words in
    ``message``; its headers are not confirmed: Retry-After only when the case gives a delay).
    500 and 503: the error-codes page's statuses, the wording is NOT confirmed. No quota kind
    (the 402's body was not found)."""
    if kind == "rate_limit":
        headers = {"retry-after": str(delay)} if delay is not None else {}
        return 429, headers, {"error": "Too Many Requests", "message": (
            "You have exceeded your usage limits. Please try again later or contact Fireworks "
            "to explore dedicated capacity.")}
    if kind == "auth":
        return 401, {}, {"error": {"message": "The API key you provided is invalid.",
                                   "code": "UNAUTHORIZED", "type": "error"}}
    if kind == "model_not_found":
        return 404, {}, {"error": {"message": "Model not found, inaccessible, and/or not "
                                              "deployed", "param": "model", "code": "NOT_FOUND",
                                   "type": "error"}}
    if kind == "server_error":  # not confirmed: the wording
        return 500, {}, {"error": {"type": "server_error", "message": "Internal server error"},
                         "type": "error"}
    if kind == "overloaded":  # not confirmed: the wording
        return 503, {}, {"error": {"type": "service_unavailable",
                                   "message": "Service unavailable"}, "type": "error"}
    return None

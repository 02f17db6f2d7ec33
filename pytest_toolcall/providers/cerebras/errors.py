"""Cerebras: its own error answers, one per error kind (status, headers, body).


The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any


def _cerebras(message: str, type: str | None, param: str | None, code: str) -> dict[str, Any]:
    # Cerebras' errors: message, type, param, code at the top level, no "error" key
    return {"message": message, "type": type, "param": param, "code": code}


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    """Confirmed 2026-11-25, sources in ``pytest_toolcall.providers.CEREBRAS`` (inference-docs.
    cerebras.ai/support/error for the statuses; public logs and fixtures for the bodies): 429
    'Tokens per minute limit exceeded - too many tokens processed.' too_many_tokens_error /
    token_quota_exceeded with the x-ratelimit-*-tokens-minute and -requests-day headers (reset
    in seconds) and retry-after; 402 payment_required with x-should-retry: false (the quota
    kind); 401 'Wrong API Key' wrong_api_key; 404 model_not_found (the head of the message is
    OpenAI's: only its tail is quoted); 400 'Please reduce the length of the messages or
    completion. Current length is N while limit is M' (cline #5140; its type and code are NOT
    quoted); overloaded is a 429 queue_exceeded "We're experiencing high traffic right now!"
    (its type is NOT quoted). 500: the wording is NOT confirmed. No 403 body for chat."""
    wait = delay if delay is not None else 1
    if kind == "rate_limit":
        headers = {"x-ratelimit-limit-requests-day": "14400",
                   "x-ratelimit-remaining-requests-day": "14350",
                   "x-ratelimit-reset-requests-day": "33011.5",
                   "x-ratelimit-limit-tokens-minute": "60000",
                   "x-ratelimit-remaining-tokens-minute": "0",
                   "x-ratelimit-reset-tokens-minute": f"{wait}.0"}
        if delay is not None:
            headers["retry-after"] = str(delay)
        return 429, headers, _cerebras("Tokens per minute limit exceeded - too many tokens "
                                       "processed.", "too_many_tokens_error", "quota",
                                       "token_quota_exceeded")
    if kind == "quota":
        return 402, {"x-should-retry": "false"}, _cerebras(
            "Payment required to access this resource. Visit your billing tab.",
            "payment_required_error", "quota", "payment_required")
    if kind == "auth":
        return 401, {}, _cerebras("Wrong API Key", "invalid_request_error", "api_key",
                                  "wrong_api_key")
    if kind == "model_not_found":
        return 404, {}, _cerebras("Model gpt-9-toolcall does not exist or you do not have "
                                  "access to it.", "not_found_error", "model", "model_not_found")
    if kind == "context_length":  # not confirmed: type and code (the message is quoted)
        return 400, {}, _cerebras("Please reduce the length of the messages or completion. "
                                  "Current length is 140000 while limit is 131072",
                                  "invalid_request_error", "messages", "context_length_exceeded")
    if kind == "server_error":  # not confirmed: the wording
        return 500, {}, _cerebras("Internal server error", "server_error", None,
                                  "internal_server_error")
    if kind == "overloaded":  # the type is not quoted
        return 429, {}, _cerebras("We're experiencing high traffic right now!",
                                  "too_many_requests_error", "queue", "queue_exceeded")
    return None

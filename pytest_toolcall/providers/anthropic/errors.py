"""Anthropic: its own error answers, one per error kind (status, headers, body).

Confirmed 2026-11-23. Anthropic ("Errors" page: 400 invalid_request_error, 401
authentication_error, 403 permission_error, 404 not_found_error, 413 request_too_large, 429
rate_limit_error, 500 api_error, 529 overloaded_error; "Rate limits" page: ``retry-after`` seconds
and the ``anthropic-ratelimit-*`` headers, as anthropic-sdk-typescript #357 shows them next to
``x-should-retry: true``); "prompt is too long: N tokens > M maximum" for the context window.

The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any


def _anthropic(type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": type, "message": message}}


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    if kind == "rate_limit":
        headers = {"anthropic-ratelimit-requests-limit": "50",
                   "anthropic-ratelimit-requests-remaining": "0",
                   "anthropic-ratelimit-requests-reset": "2026-11-23T03:00:07Z",
                   "anthropic-ratelimit-tokens-limit": "50000",
                   "anthropic-ratelimit-tokens-remaining": "0",
                   "anthropic-ratelimit-tokens-reset": "2026-11-23T03:00:07Z",
                   "x-should-retry": "true"}
        if delay is not None:
            headers["retry-after"] = str(delay)
        return 429, headers, _anthropic("rate_limit_error", (
            "This request would exceed the rate limit for your organization of 50,000 input "
            "tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-"
            "limits. You can see the response headers for current usage. Please reduce the "
            "prompt length or the maximum tokens requested, or try again later."))
    if kind == "auth":
        return 401, {"x-should-retry": "false"}, _anthropic("authentication_error",
                                                            "invalid x-api-key")
    if kind == "permission":
        return 403, {"x-should-retry": "false"}, _anthropic(
            "permission_error", "Your API key does not have permission to use the "
            "specified resource.")
    if kind == "model_not_found":
        return 404, {"x-should-retry": "false"}, _anthropic("not_found_error",
                                                            "model: claude-9-toolcall")
    if kind == "context_length":
        return 400, {"x-should-retry": "false"}, _anthropic(
            "invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum")
    if kind == "request_too_large":
        return 413, {}, _anthropic("request_too_large",
                                   "Request exceeds the maximum allowed number of bytes.")
    if kind == "server_error":
        return 500, {"x-should-retry": "true"}, _anthropic("api_error",
                                                           "Internal server error")
    if kind == "overloaded":
        return 529, {"x-should-retry": "true"}, _anthropic("overloaded_error", "Overloaded")
    return None

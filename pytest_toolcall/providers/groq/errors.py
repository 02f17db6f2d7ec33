"""Groq: its own error answers, one per error kind (status, headers, body).


The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any


def _groq(message: str, type: str, code: str | None = None) -> dict[str, Any]:
    # Groq's errors: OpenAI's without param (console.groq.com/docs/errors; recorded bodies)
    error: dict[str, Any] = {"message": message, "type": type}
    if code is not None:
        error["code"] = code
    return {"error": error}


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    """Confirmed 2026-11-25, sources in ``pytest_toolcall.providers.GROQ``: the 429 body
    ('Rate limit reached for model ... on tokens per minute (TPM): ... Please try again in Ns.
    Need more tokens? ...', type ``tokens``, code ``rate_limit_exceeded``; public litellm logs
    quoting GroqException) with ``retry-after`` (429 only) and the ``x-ratelimit-*`` headers
    (console.groq.com/docs/rate-limits); 401 'Invalid API Key' (nark/WiredSwift #44); 404
    'The model `...` does not exist or you do not have access to it.' code
    ``model_not_found`` (public incident notes, 2026-09). NOT confirmed (no public body
    found): the context-length, 500 and 503 wordings (OpenAI's texts in Groq's shape). Groq
    has no prepaid balance (no quota kind) and no 403 body was found."""
    wait = delay if delay is not None else 1
    if kind == "rate_limit":
        headers = {"x-ratelimit-limit-requests": "1000", "x-ratelimit-limit-tokens": "6000",
                   "x-ratelimit-remaining-requests": "998",
                   "x-ratelimit-remaining-tokens": "0",
                   "x-ratelimit-reset-requests": "2m52.8s", "x-ratelimit-reset-tokens": f"{wait}s"}
        if delay is not None:
            headers["retry-after"] = str(delay)
        return 429, headers, _groq(
            "Rate limit reached for model `llama-3.3-70b-versatile` in organization "
            "`org_01kztoolcall0000000000000` service tier `on_demand` on tokens per minute "
            f"(TPM): Limit 6000, Used 5435, Requested 3066. Please try again in {wait}s. Need "
            "more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing",
            "tokens", "rate_limit_exceeded")
    if kind == "auth":
        return 401, {}, _groq("Invalid API Key", "invalid_request_error", "invalid_api_key")
    if kind == "model_not_found":
        return 404, {}, _groq("The model `llama-9-toolcall` does not exist or you do not have "
                              "access to it.", "invalid_request_error", "model_not_found")
    if kind == "context_length":  # not confirmed: the wording
        return 400, {}, _groq("Please reduce the length of the messages or completion.",
                              "invalid_request_error", "context_length_exceeded")
    if kind == "server_error":  # not confirmed: the wording
        return 500, {}, _groq("Internal Server Error", "internal_server_error")
    if kind == "overloaded":  # not confirmed: the wording (the errors page's 503 title)
        return 503, {}, _groq("Service Unavailable", "internal_server_error")
    return None

"""Together AI: its own error answers, one per error kind (status, headers, body).


The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any


def _together(message: str, type: str, code: str | None = None) -> dict[str, Any]:
    # OpenAI's error object with the request id beside it (the recorded 401)
    return {"id": "oPN9RAs-2j9zxn-9ae97f338de0a29f",
            "error": {"message": message, "type": type, "param": None, "code": code}}


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    """Confirmed 2026-11-25, sources in ``pytest_toolcall.providers.TOGETHER``: the 401 and the
    404 are recorded bodies (maruel/genai's Together test data), the 429's type and message are
    quoted by public client code; the rate-limit headers are on every recorded answer (whether
    the 429 carries Retry-After is not confirmed: it is played when the case gives a delay).
    500 and 503: the error-codes page's statuses, the wording is NOT confirmed. No quota kind:
    the 402's body was not found."""
    model = "Qwen/Qwen3-235B-A22B-Instruct-2507-tput"
    if kind == "rate_limit":
        headers = {"x-ratelimit": "true", "x-ratelimit-limit": "10",
                   "x-ratelimit-remaining": "0", "x-ratelimit-reset": str(delay or 1),
                   "x-ratelimit-limit-tokens": "3000", "x-ratelimit-remaining-tokens": "0"}
        if delay is not None:
            headers["retry-after"] = str(delay)
        return 429, headers, _together(
            f"You have reached the rate limit specific to this model {model}. The maximum rate "
            "limit for this model is 120 queries per minute. This limit differs from the "
            "general rate limits published at Together AI rate limits documentation "
            "(https://docs.together.ai/docs/rate-limits). For inquiries about increasing your "
            "model-specific rate limit, please contact our sales team "
            "(https://www.together.ai/forms/contact-sales)", "model_rate_limit")
    if kind == "auth":
        return 401, {}, _together("Invalid API key provided. You can find your API key at "
                                  "https://api.together.ai/settings/api-keys.",
                                  "invalid_request_error", "invalid_api_key")
    if kind == "model_not_found":
        return 404, {}, _together("Unable to access model toolcall/missing-model. Please visit "
                                  "https://api.together.ai/models to view the list of supported "
                                  "models.", "invalid_request_error", "model_not_available")
    if kind == "server_error":  # not confirmed: the wording
        return 500, {}, _together("Internal server error", "server_error")
    if kind == "overloaded":  # not confirmed: the wording
        return 503, {}, _together("Engine overloaded", "server_error")
    return None

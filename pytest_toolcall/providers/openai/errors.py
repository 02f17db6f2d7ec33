"""OpenAI (Chat Completions): its own error answers, one per error kind (status, headers, body).

Confirmed 2026-11-23. OpenAI (Chat Completions and Responses share the error shape): the rate-limit
headers (``x-ratelimit-limit-requests``, ``-remaining-``, ``-reset-`` for requests and tokens) are
in the "Rate limits" guide ("Rate limits in headers"); ``Retry-After`` in integer seconds on a 429
is optional and absent on quota and billing 429s (openai/openai-openapi PR #564); the 429 wording
"Rate limit reached for … Please try again in …" and ``code: rate_limit_exceeded``
(zachblume/autospec #16 quotes "Limit 30000, Used 28770"); quota: ``insufficient_quota`` "You
exceeded your current quota, please check your plan and billing details." ("Error codes" guide);
404 ``model_not_found`` "The model `…` does not exist or you do not have access to it."; 400
``context_length_exceeded`` "This model's maximum context length is …"; 500 ``server_error`` "The
server had an error while processing your request. Sorry about that!"; 503 "The engine is currently
overloaded, please try again later." (all in the "Error codes" guide); 403
``unsupported_country_region_territory``.

The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any


def _openai(status: int, message: str, type: str, code: str | None,
            param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type, "param": param, "code": code}}


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    model = "gpt-4o-mini"
    wait = delay if delay is not None else 1
    if kind == "rate_limit":
        headers = {"x-ratelimit-limit-requests": "5000",
                   "x-ratelimit-remaining-requests": "4999",
                   "x-ratelimit-reset-requests": "12ms",
                   "x-ratelimit-limit-tokens": "200000",
                   "x-ratelimit-remaining-tokens": "0",
                   "x-ratelimit-reset-tokens": f"{wait}s"}
        if delay is not None:
            headers["retry-after"] = str(delay)
        return 429, headers, _openai(429, (
            f"Rate limit reached for {model} in organization org-toolcall on tokens per min "
            f"(TPM): Limit 200000, Used 199000, Requested 2000. Please try again in {wait}s. "
            "Visit https://platform.openai.com/account/rate-limits to learn more."),
            "tokens", "rate_limit_exceeded")
    if kind == "quota":
        return 429, {}, _openai(429, (
            "You exceeded your current quota, please check your plan and billing details. "
            "For more information on this error, read the docs: "
            "https://platform.openai.com/docs/guides/error-codes/api-errors."),
            "insufficient_quota", "insufficient_quota")
    if kind == "auth":
        return 401, {}, _openai(401, "Incorrect API key provided: tc-f****cret. You can "
                                "find your API key at https://platform.openai.com/account/"
                                "api-keys.", "invalid_request_error", "invalid_api_key")
    if kind == "permission":
        return 403, {}, _openai(403, "Country, region, or territory not supported",
                                "request_forbidden", "unsupported_country_region_territory")
    if kind == "model_not_found":
        return 404, {}, _openai(404, "The model `gpt-9-toolcall` does not exist or you do "
                                "not have access to it.", "invalid_request_error",
                                "model_not_found")
    if kind == "context_length":
        return 400, {}, _openai(400, "This model's maximum context length is 128000 tokens. "
                                "However, your messages resulted in 131072 tokens. Please "
                                "reduce the length of the messages.",
                                "invalid_request_error", "context_length_exceeded",
                                "messages")
    if kind == "server_error":
        return 500, {}, _openai(500, "The server had an error while processing your "
                                "request. Sorry about that!", "server_error", None)
    if kind == "overloaded":
        return 503, {}, _openai(503, "The engine is currently overloaded, please try again "
                                "later.", "server_error", None)
    return None

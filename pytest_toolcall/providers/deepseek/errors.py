"""DeepSeek: its own error answers, one per error kind (status, headers, body).

Confirmed 2026-11-25. DeepSeek (``{"error": {"message", "type", "param": null, "code":
"invalid_request_error"}}``; statuses from api-docs.deepseek.com/quick_start/error_codes: 400
Invalid Format, 401 Authentication Fails, 402 Insufficient Balance, 422 Invalid Parameters, 429
Rate Limit Reached, 500 Server Error, 503 Server Overloaded): 429 type ``rate_limit_error`` "Too
many requests. Your current concurrency is N, which exceeds your concurrency limit of M based on
your remaining balance. ..." (a public TStudio RCA note quoting the whole body; jobfetcher PR #42,
2026-09, verbatim message), with NO rate-limit headers and no Retry-After (jobfetcher PR #42 probed
them; the Rate Limit & Isolation page documents concurrency limits, no header); 402 "Insufficient
Balance" type ``unknown_error`` (the quota kind: a top-up, not a wait); 401
``authentication_error`` "Authentication Fails, Your api key: ****abcd is invalid"; an unknown
model is 400 "Model Not Exist" (deepwn/addi #13, 2026-03; langbot #1643); 400 "This model's maximum
context length is 131072 tokens. However, you requested ..." (fast-agent #621, 2026-01; litellm
#10431). 500 and 503: the statuses are the page's, the wording is NOT confirmed (no public body
found): the page's own titles in DeepSeek's shape. No 403.

The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any


def _deepseek(message: str, type: str) -> dict[str, Any]:
    # DeepSeek's code is always "invalid_request_error", whatever the type
    return {"error": {"message": message, "type": type, "param": None,
                      "code": "invalid_request_error"}}


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    # no rate-limit headers, no Retry-After: DeepSeek sends none (module docstring)
    if kind == "rate_limit":
        return 429, {}, _deepseek(
            "Too many requests. Your current concurrency is 26, which exceeds your concurrency "
            "limit of 25 based on your remaining balance. Please top up your balance to restore "
            "your concurrency.", "rate_limit_error")
    if kind == "quota":
        return 402, {}, _deepseek("Insufficient Balance", "unknown_error")
    if kind == "auth":
        return 401, {}, _deepseek("Authentication Fails, Your api key: ****cret is invalid",
                                  "authentication_error")
    if kind == "model_not_found":
        return 400, {}, _deepseek("Model Not Exist", "invalid_request_error")
    if kind == "context_length":
        return 400, {}, _deepseek(
            "This model's maximum context length is 131072 tokens. However, you requested "
            "131134 tokens (122942 in the messages, 8192 in the completion). Please reduce the "
            "length of the messages or completion.", "invalid_request_error")
    # not confirmed: the wording and type of 500 and 503 (the Error Codes page's titles)
    if kind == "server_error":
        return 500, {}, _deepseek("Server Error", "server_error")
    if kind == "overloaded":
        return 503, {}, _deepseek("Server Overloaded", "server_error")
    return None

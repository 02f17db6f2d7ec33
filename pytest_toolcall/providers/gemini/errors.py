"""Gemini (the Developer API): its own error answers, one per error kind (status, headers, body).

Confirmed 2026-11-23. Gemini (the google.rpc error model, ``{"error": {"code", "message", "status",
"details"}}``): 429 RESOURCE_EXHAUSTED with QuotaFailure and Help details (google-gemini/gemini-cli
#8437) and the delay in a ``google.rpc.RetryInfo`` detail ``retryDelay: "Ns"``, no header; a bad
key is 400 INVALID_ARGUMENT "API key not valid" with ErrorInfo reason API_KEY_INVALID; 404
"models/… is not found for API version v1beta, or is not supported for generateContent"; 400 "The
input token count (…) exceeds the maximum number of tokens allowed (…)."; 500 INTERNAL; 503
UNAVAILABLE "The model is overloaded. Please try again later."

The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any


def _gemini(status: int, name: str, message: str,
            details: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": status, "message": message, "status": name}
    if details:
        error["details"] = details
    return {"error": error}


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    model = "gemini-2.5-flash"
    if kind == "rate_limit":
        details = [
            {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{
                "quotaMetric": "generativelanguage.googleapis.com/"
                               "generate_content_free_tier_requests",
                "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                "quotaDimensions": {"location": "global", "model": model},
                "quotaValue": "10"}]},
            {"@type": "type.googleapis.com/google.rpc.Help", "links": [{
                "description": "Learn more about Gemini API quotas",
                "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}]}]
        if delay is not None:
            details.append({"@type": "type.googleapis.com/google.rpc.RetryInfo",
                            "retryDelay": f"{delay}s"})
        return 429, {}, _gemini(429, "RESOURCE_EXHAUSTED", (
            "You exceeded your current quota, please check your plan and billing details. "
            "For more information on this error, head to: "
            "https://ai.google.dev/gemini-api/docs/rate-limits."), details)
    if kind == "auth":
        return 400, {}, _gemini(400, "INVALID_ARGUMENT", "API key not valid. Please pass a "
                                "valid API key.", [{
                                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                                    "reason": "API_KEY_INVALID",
                                    "domain": "googleapis.com",
                                    "metadata": {"service":
                                                 "generativelanguage.googleapis.com"}}])
    if kind == "permission":
        return 403, {}, _gemini(403, "PERMISSION_DENIED", "The caller does not have "
                                "permission")
    if kind == "model_not_found":
        return 404, {}, _gemini(404, "NOT_FOUND", "models/gemini-9-toolcall is not found "
                                "for API version v1beta, or is not supported for "
                                "generateContent. Call ListModels to see the list of "
                                "available models and their supported methods.")
    if kind == "context_length":
        return 400, {}, _gemini(400, "INVALID_ARGUMENT", "The input token count (1212345) "
                                "exceeds the maximum number of tokens allowed (1048576).")
    if kind == "server_error":
        return 500, {}, _gemini(500, "INTERNAL", "An internal error has occurred. Please "
                                "retry or report in https://developers.generativeai.google/"
                                "guide/troubleshooting")
    if kind == "overloaded":
        return 503, {}, _gemini(503, "UNAVAILABLE", "The model is overloaded. Please try "
                                "again later.")
    return None

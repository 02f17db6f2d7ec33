"""Mistral: its own error answers, one per error kind (status, headers, body).

Confirmed 2026-11-25. Mistral (``{"object": "error", "message", "type", "param": null, "code",
"raw_status_code"}`` at the top level, docs.mistral.ai/resources/error-glossary;
``raw_status_code`` is in the 2026 bodies): 429 "Rate limit exceeded" type ``rate_limited`` code
"1300" (cline #9085, 2026-02; raycast/extensions #31107, 2026-09), no rate-limit header documented
(the glossary says "implement exponential backoff"; older gateways answered ``{"message": "Requests
rate limit exceeded"}``, pydantic-ai #1885, 2025-06: historical, not played); 401 ``{"detail":
"Unauthorized"}`` (agent-zero #539, nextcloud integration_openai #332); an unknown model is 400
"Invalid model: <id>" type ``invalid_model`` code "1500" (mistralai/mistral-vibe #617, 2026-04;
langchaingo #1233); 400 "Prompt contains N tokens and 0 draft tokens, too large for model with M
maximum context length" type ``invalid_request_invalid_args`` code "3051" (a public script quoting
mistralai 2.x ``SDKError``); overloaded is 429 "Service tier capacity exceeded for this model."
(continue #6185, 2025-06; raycast/extensions #31107 "This model is currently overloaded"). 500: the
glossary lists it with type ``server_error``; the wording is NOT confirmed. The glossary's 402 and
403 bodies were not found: not played.

The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any


def _mistral(status: int, message: str, type: str, code: str | None) -> dict[str, Any]:
    return {"object": "error", "message": message, "type": type, "param": None, "code": code,
            "raw_status_code": status}


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    # no rate-limit header documented: none is sent (module docstring)
    if kind == "rate_limit":
        return 429, {}, _mistral(429, "Rate limit exceeded", "rate_limited", "1300")
    if kind == "auth":
        return 401, {}, {"detail": "Unauthorized"}
    if kind == "model_not_found":
        return 400, {}, _mistral(400, "Invalid model: mistral-9-toolcall", "invalid_model",
                                 "1500")
    if kind == "context_length":
        return 400, {}, _mistral(400, "Prompt contains 159202 tokens and 0 draft tokens, too "
                                 "large for model with 131072 maximum context length",
                                 "invalid_request_invalid_args", "3051")
    if kind == "server_error":  # not confirmed: the wording (the glossary's type)
        return 500, {}, _mistral(500, "Internal server error", "server_error", None)
    if kind == "overloaded":  # as recorded in 2025-06: no raw_status_code, code null
        return 429, {}, {"object": "error",
                         "message": "Service tier capacity exceeded for this model.",
                         "type": "invalid_request_error", "param": None, "code": None}
    return None

"""OpenRouter: its own error answers, one per error kind (status, headers, body).


The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any


def _openrouter(status: int, message: str, metadata: dict[str, Any] | None = None
                ) -> dict[str, Any]:
    # OpenRouter's code is the HTTP status, an integer (openrouter.ai/docs/api-reference/errors)
    error: dict[str, Any] = {"message": message, "code": status}
    if metadata is not None:
        error["metadata"] = metadata
    return {"error": error, "user_id": "user_2x7DNyswjOHVRWDYVMCIROyGjsS"}


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    """Confirmed 2026-11-25. Statuses from openrouter.ai/docs/api-reference/errors (400, 401,
    402, 403, 408, 429, 502, 503; 'OpenRouter may include a standard HTTP Retry-After response
    header' on 429 and 503); bodies from public reports: 429 free-models-per-day with
    metadata.headers X-RateLimit-* (Gitlawb/openclaude #936, cline #5301); 402 'This request
    requires more credits, or fewer max_tokens. ...' with metadata.provider_name null
    (openclaude #1125, newo-ether/Agora #8, continue #11154); 401 'User not found.' (public
    client logs and probes 2025-12 to 2026-08); 400 '<id> is not a valid model ID'
    (OpenRouterTeam/openrouter-examples #74, picoclaw #1790); 400 'This endpoint's maximum
    context length is ... use the "middle-out" transform ...' with metadata.provider_name
    (Aider-AI/aider #3721); 502 'Provider returned error' with metadata.raw and provider_name
    (reVrost/go-openrouter PR #21, open-webui/computer #293). 403 and 503: the statuses, the
    docs' titles and the docs' ModerationErrorMetadata shape; the 403 and 503 wordings and the
    X-RateLimit-Reset value are NOT confirmed (no public body found)."""
    if kind == "rate_limit":
        headers = {"retry-after": str(delay)} if delay is not None else {}
        return 429, headers, _openrouter(429, (
            "Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model "
            "requests per day"), {"headers": {"X-RateLimit-Limit": "50",
                                             "X-RateLimit-Remaining": "0",
                                             "X-RateLimit-Reset": "1790035200000"},
                                 "provider_name": None})
    if kind == "quota":
        return 402, {}, _openrouter(402, (
            "This request requires more credits, or fewer max_tokens. You requested up to 65536 "
            "tokens, but can only afford 10114. To increase, visit https://openrouter.ai/"
            "settings/credits and upgrade to a paid account"), {"provider_name": None})
    if kind == "auth":
        return 401, {}, {"error": {"message": "User not found.", "code": 401}}
    if kind == "permission":
        return 403, {}, _openrouter(403, (
            "google/gemini-3-flash-preview requires moderation on OpenRouter. Your input was "
            "flagged for \"harassment\". No credits were charged."), {
                "reasons": ["harassment"], "flagged_input": "...", "provider_name": "OpenAI",
                "model_slug": "google/gemini-3-flash-preview"})
    if kind == "model_not_found":
        return 400, {}, _openrouter(400, "google/gemini-9-toolcall is not a valid model ID")
    if kind == "context_length":
        return 400, {}, _openrouter(400, (
            "This endpoint's maximum context length is 131072 tokens. However, you requested "
            "about 141607 tokens (10535 of text input, 131072 in the output). Please reduce the "
            "length of either one, or use the \"middle-out\" transform to compress your prompt "
            "automatically."), {"provider_name": "Chutes"})
    if kind == "server_error":
        # metadata as the docs' ProviderErrorMetadata; the upstream's raw text varies
        return 502, {}, _openrouter(502, "Provider returned error",
                                    {"provider_name": "Google AI Studio"})
    if kind == "overloaded":  # not confirmed: the wording (the docs' title for 503)
        headers = {"retry-after": str(delay)} if delay is not None else {}
        return 503, headers, _openrouter(503, "No available model provider that meets your "
                                         "routing requirements")
    return None

"""xAI: its own error answers, one per error kind (status, headers, body).


The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any


def _xai(code: str, message: str) -> dict[str, Any]:
    # xAI's flat body: the gRPC status name in kebab case and the text (no "error" object)
    return {"code": code, "error": message}


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    """Confirmed 2026-11-25. Statuses from docs.x.ai/developers/debugging (400 also for "an
    incorrect API key", 401 no key, 403, 404 unknown model, 429 rate limit); bodies from public
    reports: 400 invalid-argument 'Incorrect API key provided. ...' (autohandai/code-cli #545,
    2026-09; a client test 'verified live 2026-07-26'); 403 permission-denied 'Your team ... has
    either used all available credits or reached its monthly spending limit. ...' (public agent
    logs and client tests, 2026-09; a 429 'Some resource has been exhausted' in 2026-02,
    continuedev/continue #10373 #10740: historical); 429 resource-exhausted 'Too many requests
    for team ... and model ... Your team's rate limit is ...' (public Go client tests parsing
    it), no Retry-After confirmed (none sent); 404 not-found 'The model ... does not exist or
    your team ... does not have access to it. ...' (xAI's models guidance as quoted publicly;
    a public gateway test); 400 'This model's maximum prompt length is N but the request
    contains M tokens.' (litellm XaiException quoted in public client tests, code
    invalid-argument). 500: the code and wording are NOT confirmed (no public body found)."""
    if kind == "rate_limit":
        return 429, {}, _xai("resource-exhausted", (
            "Too many requests for team 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d and model "
            "grok-4.3. Your team's rate limit is \u2014 Requests per Minute (actual/limit): "
            "61/60."))
    if kind == "quota":
        return 403, {}, _xai("permission-denied", (
            "Your team 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d has either used all available "
            "credits or reached its monthly spending limit. To continue making API requests, "
            "please purchase more credits or raise your spending limit."))
    if kind == "auth":
        return 400, {}, _xai("invalid-argument", "Incorrect API key provided. You can obtain "
                             "an API key from https://console.x.ai.")
    if kind == "model_not_found":
        return 404, {}, _xai("not-found", (
            "The model grok-9-toolcall does not exist or your team "
            "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d does not have access to it. If you believe "
            "this is a mistake, please contact support and quote your team ID and the model "
            "name."))
    if kind == "context_length":
        return 400, {}, _xai("invalid-argument", "This model's maximum prompt length is 131072 "
                             "but the request contains 140123 tokens.")
    if kind == "server_error":  # not confirmed: the code and the wording
        return 500, {}, _xai("internal", "Internal server error")
    return None

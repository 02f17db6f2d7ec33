"""LM Studio: its own error answers, one per error kind (status, headers, body).


The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any

# OpenAI's shape, where this service answers in it
from pytest_toolcall.providers.openai.errors import _openai


AUTH_REQUIRED = ("An LM Studio API token is required to make requests to this server, but none "
                 "was provided using the Authorization header using the 'Bearer' scheme (i.e., "
                 "'Authorization: Bearer $LM_API_TOKEN'). Learn more at: "
                 "https://lmstudio.ai/docs/developer/core/authentication.")
CONTEXT_OVERFLOW = ("The number of tokens to keep from the initial prompt is greater than the "
                    "context length (n_keep: 13055>= n_ctx: 4096). Try to load the model with a "
                    "larger context length, or provide a shorter input.")


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    """LM Studio's local server (confirmed 2026-11-25; ``pytest_toolcall.providers.LMSTUDIO``):
    no rate limits, no quota, no overload answer (a local server queues). ``auth``: "Require
    Authentication" on, no token (agustif/opencode-lmstudio #41, LM Studio 0.4.18; the status
    401 is NOT confirmed); ``model_not_found``: 400 'Invalid model identifier "..."' code
    ``model_not_found`` (gpt-researcher #1556, continuedev/continue #12757, QwenLM/qwen-code
    #10065 on 0.4.23); ``context_length``: a bare-string 400 (Gitlawb/openclaude #353, 2026-04).
    A crashed model's body is not confirmed: no ``server_error``."""
    if kind == "auth":
        return 401, {}, {"error": {"type": "invalid_request", "code": "invalid_api_key",
                                   "message": AUTH_REQUIRED}}
    if kind == "model_not_found":
        return 400, {}, _openai(400, 'Invalid model identifier "qwen9-toolcall". Please specify '
                                "a valid downloaded model (e.g., qwen/qwen3-4b-2507, "
                                "openai/gpt-oss-20b, google/gemma-3-12b).",
                                "invalid_request_error", "model_not_found", "model")
    if kind == "context_length":
        return 400, {}, {"error": CONTEXT_OVERFLOW}
    return None

"""vLLM: its own error answers, one per error kind (status, headers, body).


The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any


def _vllm(status: int, message: str, type: str, param: str | None = None) -> dict[str, Any]:
    # vLLM's ErrorResponse since v0.10.1: the code is the HTTP status, an integer
    return {"error": {"message": message, "type": type, "param": param, "code": status}}


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    """Confirmed 2026-11-25 from vLLM's server code (vllm-project/vllm): a wrong or missing
    --api-key is 401 {"error": "Unauthorized"} (the authentication middleware); an unknown
    model 404 NotFoundError "The model `...` does not exist." (engine/serving.py _check_model);
    a prompt past max_model_len 400 BadRequestError "This model's maximum context length is N
    tokens. However, your request has M input tokens. ..." (_validate_input); a failed
    generation 500 InternalServerError "Internal server error" (GenerationError). vLLM queues
    requests: no rate limit, no quota, no 403; an overloaded server's answer is not confirmed
    (not played)."""
    if kind == "auth":
        return 401, {}, {"error": "Unauthorized"}
    if kind == "model_not_found":
        return 404, {}, _vllm(404, "The model `Qwen/Qwen9-toolcall` does not exist.",
                              "NotFoundError", "model")
    if kind == "context_length":
        return 400, {}, _vllm(400, "This model's maximum context length is 32768 tokens. "
                              "However, your request has 40960 input tokens. Please reduce "
                              "the length of the input messages.", "BadRequestError",
                              "input_tokens")
    if kind == "server_error":
        return 500, {}, _vllm(500, "Internal server error", "InternalServerError")
    return None

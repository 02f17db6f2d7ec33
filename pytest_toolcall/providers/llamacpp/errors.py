"""llama.cpp: its own error answers, one per error kind (status, headers, body).


The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any


def _llamacpp(status: int, message: str, type: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"code": status, "message": message, "type": type, **extra}}


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    """llama.cpp's llama-server (``{"error": {"code": <status>, "message", "type"}}``,
    ``tools/server/server-common.cpp`` format_error_response, confirmed 2026-11-25): 401
    "Invalid API Key" authentication_error (``server-http.cpp``, only with --api-key); 400
    exceed_context_size_error "request (N tokens) exceeds the available context size (M
    tokens), try increasing it" with ``n_prompt_tokens`` / ``n_ctx`` (measured bodies, b9553;
    PR #18174); 500 server_error with the exception's words, "Failed to parse input at pos N:
    ..." for a tool call the parser could not read (ggml-org/llama.cpp #20532, pwilkin/llama.cpp
    #5); 503 unavailable_error "Loading model" while the model loads (``server-http.cpp``
    middleware_server_state). No rate limits, no quota, no 403 body: a local server."""
    if kind == "auth":
        return 401, {}, {"error": {"message": "Invalid API Key", "type": "authentication_error",
                                   "code": 401}}
    if kind == "context_length":
        return 400, {}, _llamacpp(400, "request (36017 tokens) exceeds the available context "
                                  "size (32768 tokens), try increasing it",
                                  "exceed_context_size_error", n_prompt_tokens=36017,
                                  n_ctx=32768)
    if kind == "server_error":
        return 500, {}, _llamacpp(500, "Failed to parse input at pos 184: <tool_call>\n"
                                  "{\"name\": \"get_weather\", \"arguments\": {\"city\"",
                                  "server_error")
    if kind == "overloaded":
        return 503, {}, _llamacpp(503, "Loading model", "unavailable_error")
    return None

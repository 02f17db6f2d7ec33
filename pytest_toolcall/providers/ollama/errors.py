"""Ollama: its own error answers, one per error kind (status, headers, body).

Confirmed 2026-11-23. Ollama (native route: ``{"error": "<text>"}``): 404 "model \"…\" not found,
try pulling it first"; 503 "server busy, please try again. maximum pending requests exceeded" (the
FAQ's OLLAMA_MAX_QUEUE); 500 for a crashed runner. Ollama has no API keys and no rate limits.
Confirmed 2026-11-28: 400 "registry.ollama.ai/library/<model> does not support tools" for tools
sent to a model without them (server/routes.go handleScheduleError: errCapabilities; ollama
#14795), played by the case ``errors.ollama_tools_unsupported`` rather than as a kind here (no
other provider has it).

The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    if kind == "model_not_found":
        return 404, {}, {"error": 'model "llama9-toolcall" not found, try pulling it first'}
    if kind == "server_error":
        return 500, {}, {"error": "llama runner process has terminated: exit status 2"}
    if kind == "overloaded":
        return 503, {}, {"error": "server busy, please try again.  maximum pending "
                                  "requests exceeded"}
    return None

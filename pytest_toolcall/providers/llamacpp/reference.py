"""The reference llama.cpp (llama-server) adapter: the OpenAI Chat Completions adapter configured
for llama-server.

- Thinking (``--reasoning-format``, default ``auto``, puts the chain of thought in ``message.
  reasoning_content``, ``delta.reasoning_content`` in a stream): it goes to ``ChatResponse.
  reasoning`` as one ``Reasoning(type="thinking")``, never into the text, and an assistant message
  that carries it sends it back as ``reasoning_content`` (llama-server reads it back into the chat
  template: ``common/chat.cpp`` ``common_chat_msgs_parse_oaicompat``; gpt-oss and MiniMax-M2 were
  trained to see it again after a tool call, ggml-org/llama.cpp PR #16934). The DeepSeek
  reference's encoder and stream reader are reused.
- ``ChatRequest.reasoning`` True / False sends ``chat_template_kwargs: {"enable_thinking": ...}``
  (``tools/server/README.md``; ``server-common.cpp`` reads the kwarg), not DeepSeek's
  ``thinking`` switch.
- ``tool_choice``: ``auto``, ``none``, ``required``; a named function is NOT claimed (the
  profile): llama-server reads ``tool_choice`` as a string and falls back to ``auto`` for an
  object, so the named call would be the model's free choice.
- Errors: ``{"error": {"code": <status as an int>, "message", "type"}}``; an error inside a 200
  stream is ``data: {"error": {...}}`` with the status the failure would have had as its code:
  retryable when that status is (a 503 ``unavailable_error`` while the model loads, a 500).
  One 500 is final: "tools param requires --jinja flag" (a server started without the Jinja
  template refuses every request with tools until it is restarted): not retryable.

Confirmed 2026-11-25; the sources are in ``pytest_toolcall.providers.LLAMACPP``.
"""

from __future__ import annotations

from typing import Any

import httpx

from pytest_toolcall.core.errors import StreamError, status_is_retryable
from pytest_toolcall.core.model import ChatRequest
from pytest_toolcall.reference._http import RETRYABLE_TYPES
from pytest_toolcall.providers.deepseek.reference import DeepSeekAdapter, DeepSeekStreamAccumulator

__all__ = [
    "ADAPTER", "DEFAULT_MODEL", "FINAL_500", "LlamaCppAdapter", "LlamaCppStreamAccumulator",
    "PROFILE", "stream_error",
]

#: llama-server serves the model it was started with; the name is echoed back (single-model
#: mode) or picks a model (router mode)
DEFAULT_MODEL = "gpt-oss-20b"
#: the words of 500s that no retry heals (the server's configuration, not a passing failure)
FINAL_500 = ("requires --jinja flag",)
#: llama-server takes the tool_choice strings only (a named function falls back to auto)
PROFILE: dict[str, Any] = {"tool_choice": frozenset({"auto", "none", "required"})}


def stream_error(data: dict[str, Any]) -> StreamError:
    """llama-server's ``data: {"error": {"code", "message", "type"}}`` event as a typed error:
    retryable when its code (an HTTP status) or its type says so."""
    error = data.get("error") or {}
    if not isinstance(error, dict):
        error = {"message": str(error)}
    code, kind = error.get("code"), error.get("type")
    retryable = (status_is_retryable(code) if isinstance(code, int)
                 else kind in RETRYABLE_TYPES)
    return StreamError(str(error.get("message", error)), type=kind, code=code, body=data,
                       retryable=bool(retryable))


class LlamaCppAdapter(DeepSeekAdapter):
    """Canonical requests to ``POST {base_url}/chat/completions`` on llama-server and back."""

    DEFAULT_MODEL = DEFAULT_MODEL
    DEVELOPER_ROLE = "developer"  # OpenAI's role, as before: no source says it is refused here

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        body.pop("thinking", None)
        if request.reasoning is not None:
            body["chat_template_kwargs"] = {"enable_thinking": request.reasoning}
        return body

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        try:
            super().raise_for_error(response, body)
        except Exception as exc:
            if any(words in str(getattr(exc, "message", exc)) for words in FINAL_500):
                exc.retryable = False  # type: ignore[attr-defined]
            raise

    def new_accumulator(self) -> LlamaCppStreamAccumulator:
        return LlamaCppStreamAccumulator(self)


class LlamaCppStreamAccumulator(DeepSeekStreamAccumulator):
    """Also reads llama-server's error event, whose code is an HTTP status."""

    def error_event(self, data: Any) -> Exception:
        if isinstance(data, dict) and data.get("error"):
            return stream_error(data)
        return super().error_event(data)


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = LlamaCppAdapter

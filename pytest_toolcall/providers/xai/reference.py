"""The reference xAI adapter: the OpenAI Chat Completions adapter configured for xAI.

- Errors: xAI's body is flat, ``{"code": "invalid-argument", "error": "<text>"}``, not OpenAI's
  ``{"error": {...}}``: the text is the message and the code (the gRPC status name) goes to
  ``ProviderError.code``. A wrong key is a 400 (not retryable, as any 400); a team out of
  credits is a 403 ``permission-denied`` (not retryable); a rate limit a 429
  ``resource-exhausted`` (retryable). An error event inside a 200 stream is read as OpenAI's
  (its xAI shape is not confirmed).
- Reasoning: grok-3-mini's ``reasoning_content`` (``delta.reasoning_content`` in a stream) is
  the chain of thought, not the answer: it goes to ``ChatResponse.reasoning`` as one
  ``Reasoning(type="thinking")``. It is not sent back: xAI documents no such request field and
  its own clients leave it out (docs.x.ai reasoning guide; vercel/ai packages/xai).
- Calls come whole in one chunk each: the OpenAI accumulator keys them on ``index`` and keeps
  the arguments of a call's first (here: only) fragment.
- Usage is read as sent: xAI's ``completion_tokens`` leaves out the reasoning tokens, which its
  ``total_tokens`` counts; the total is never recomputed from the parts.

Confirmed 2026-11-25; the sources are in ``pytest_toolcall.providers.XAI``.
"""

from __future__ import annotations


import httpx

from pytest_toolcall.core.errors import ProviderError
from pytest_toolcall.reference._compat import ReasoningChatAdapter
from pytest_toolcall.reference._http import read_error, retry_fields

__all__ = ["ADAPTER", "DEFAULT_MODEL", "XAIAdapter"]

DEFAULT_MODEL = "grok-4.3"


class XAIAdapter(ReasoningChatAdapter):
    """Canonical requests to ``POST {base_url}/chat/completions`` on xAI and back; the stream
    reader is DeepSeek's (``delta.reasoning_content`` pieces joined, handed over before the
    calls)."""

    DEFAULT_MODEL = DEFAULT_MODEL
    SEND_REASONING = False  # reasoning_content is read, never sent back

    # -- wire -> canonical --------------------------------------------------------------------
    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        if response.status_code < 400:
            return
        data, _ = read_error(body)
        if isinstance(data, dict) and isinstance(data.get("error"), str):
            code = data.get("code")
            raise ProviderError(data["error"], status=response.status_code,
                                code=code if isinstance(code, str) else None, body=data,
                                **retry_fields(response, data, code))
        super().raise_for_error(response, body)


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = XAIAdapter

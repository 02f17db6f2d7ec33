"""The reference Cerebras Inference adapter: the OpenAI Chat Completions adapter configured for
``api.cerebras.ai``.

- Reasoning (gpt-oss-120b, zai-glm-4.7): ``message.reasoning`` (``delta.reasoning`` in a stream)
  is the chain of thought, not the answer's text: it goes to ``ChatResponse.reasoning`` as one
  ``Reasoning(type="thinking")``, and an assistant message that carries it sends it back as
  ``reasoning`` (cerebras_cloud_sdk 1.91.0 ``MessageAssistantMessageRequest.reasoning``;
  inference-docs.cerebras.ai/capabilities/reasoning). ``reasoning_content`` is never sent: it is
  not one of Cerebras' message keys. ``ChatRequest.reasoning`` False sends
  ``disable_reasoning: true``, True ``disable_reasoning: false``.
- Errors come at the top level, ``{"message", "type", "param", "code"}``, a missing key as
  FastAPI's ``{"detail": "Not authenticated"}``: both become a ProviderError with the code. A
  402 ``payment_required`` is not retryable (Cerebras also says ``x-should-retry: false``), nor
  a 429 ``token_quota_exceeded`` for a DAY (a day's quota is not cured by a retry).
- An error inside a 200 stream is ``{"error": {...}, "status_code": N}`` (the SDK's
  ``ErrorChunkResponse``): a StreamError, retryable by that status.
- No ``stream_options`` is needed: usage and ``time_info`` ride on the finish chunk (the key is
  accepted, so it is still sent, as OpenAI's adapter does).

Confirmed 2026-11-25; the sources are in ``pytest_toolcall.providers.CEREBRAS``.
"""

from __future__ import annotations

from typing import Any

import httpx

from pytest_toolcall.core.errors import ProviderError, StreamError, status_is_retryable
from pytest_toolcall.core.model import ChatRequest
from pytest_toolcall.reference._compat import ReasoningChatAdapter, ReasoningStreamAccumulator
from pytest_toolcall.reference._http import read_error, retry_fields

__all__ = [
    "ADAPTER", "CerebrasAdapter", "CerebrasStreamAccumulator", "DEFAULT_MODEL", "NOT_RETRYABLE",
]

DEFAULT_MODEL = "gpt-oss-120b"
#: codes that no retry cures (the 402's; a day's token quota)
NOT_RETRYABLE = frozenset({"payment_required"})


class CerebrasAdapter(ReasoningChatAdapter):
    """Canonical requests to ``POST {base_url}/chat/completions`` on Cerebras and back."""

    DEFAULT_MODEL = DEFAULT_MODEL
    REASONING_FIELDS = ("reasoning",)  # sent back; reasoning_content never

    # -- canonical -> wire --------------------------------------------------------------------
    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        if request.reasoning is not None:
            body["disable_reasoning"] = not request.reasoning
        return body

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        if response.status_code < 400:
            return
        data, error = read_error(body)
        if error is None and isinstance(data, dict) and "message" in data:
            code = data.get("code")
            fields = retry_fields(response, data, code)
            message = str(data["message"])
            if code in NOT_RETRYABLE or (code == "token_quota_exceeded" and "per day" in message):
                fields["retryable"] = False
            raise ProviderError(message, status=response.status_code, type=data.get("type"),
                                code=None if code is None else str(code),
                                param=data.get("param"), body=data, **fields)
        if error is None and isinstance(data, dict) and "detail" in data:
            raise ProviderError(str(data["detail"]), status=response.status_code, body=data,
                                **retry_fields(response, data))
        super().raise_for_error(response, body)

    def new_accumulator(self) -> CerebrasStreamAccumulator:
        return CerebrasStreamAccumulator(self)


class CerebrasStreamAccumulator(ReasoningStreamAccumulator):
    """Also joins ``delta.reasoning`` pieces (handed over before the calls) and reads the
    in-stream error event with its ``status_code``."""

    def error_event(self, data: Any) -> Exception:
        if not (isinstance(data, dict) and isinstance(data.get("error"), dict)):
            return super().error_event(data)
        error = data["error"]
        status = data.get("status_code")
        retryable = status_is_retryable(status) if isinstance(status, int) else None
        return StreamError(str(error.get("message", error)), type=error.get("type"),
                           code=error.get("code"), body=data, retryable=bool(retryable))


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = CerebrasAdapter

"""The reference vLLM adapter: the OpenAI Chat Completions adapter configured for ``vllm serve``.

- Route ``{base_url}/chat/completions`` with ``base_url`` ending in ``/v1``; bearer auth when
  the server was started with ``--api-key``. A wrong key is 401 ``{"error": "Unauthorized"}``:
  the error is a string, its text is the message.
- Reasoning (``--reasoning-parser``): ``message.reasoning`` (``delta.reasoning`` in a stream) is
  the chain of thought, not the answer's text: it goes to ``ChatResponse.reasoning`` as one
  ``Reasoning(type="thinking")``, and an assistant message that carries it sends it back as
  ``reasoning``, unchanged, for the chat template (interleaved thinking). ``reasoning_content``,
  the field's name until vLLM removed it (PR #33402, 2026-01), is read too when ``reasoning`` is
  not there (an older server); it is never sent: today's server drops it on input (#38488).
- A stream's error event ``{"error": {"message", "type", "param", "code": 500}}`` (vLLM's
  GenerationError, type ``InternalServerError``) is retryable: the status is in ``code``.
- ``tool_choice`` ``none``, ``auto``, ``required`` and named: vLLM takes all four (with
  ``--enable-auto-tool-choice --tool-call-parser``).

Confirmed 2026-11-25; the sources are in ``pytest_toolcall.providers.VLLM``.
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.core.errors import StreamError
from pytest_toolcall.reference._compat import ReasoningChatAdapter, ReasoningStreamAccumulator

__all__ = ["ADAPTER", "DEFAULT_MODEL", "VLLMAdapter", "VLLMStreamAccumulator"]

#: the model the reference sends when the request names none (whatever `vllm serve` serves)
DEFAULT_MODEL = "Qwen/Qwen3-8B"
#: vLLM's error types that a retry may cure (create_error_response: a 5xx)
_RETRYABLE_TYPES = frozenset({"InternalServerError", "ServiceUnavailableError"})


class VLLMAdapter(ReasoningChatAdapter):
    """Canonical requests to ``POST {base_url}/chat/completions`` on vLLM and back."""

    DEFAULT_MODEL = DEFAULT_MODEL
    #: ``reasoning`` (sent back), else ``reasoning_content`` (an older server's; never sent)
    REASONING_FIELDS = ("reasoning", "reasoning_content")

    def new_accumulator(self) -> VLLMStreamAccumulator:
        return VLLMStreamAccumulator(self)


class VLLMStreamAccumulator(ReasoningStreamAccumulator):
    """Also joins ``delta.reasoning`` pieces (handed over before the calls), and reads vLLM's
    in-stream error event, whose ``code`` is the HTTP status."""

    def error_event(self, data: Any) -> Exception:
        error = data.get("error") if isinstance(data, dict) else None
        if not isinstance(error, dict):
            return super().error_event(data)
        code = error.get("code")
        retryable = error.get("type") in _RETRYABLE_TYPES or (isinstance(code, int) and code >= 500)
        return StreamError(str(error.get("message", error)), type=error.get("type"), code=code,
                           body=data, retryable=retryable)


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = VLLMAdapter

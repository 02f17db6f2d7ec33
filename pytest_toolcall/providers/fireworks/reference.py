"""The reference Fireworks AI adapter: the OpenAI Chat Completions adapter with Fireworks'
differences.

- Reasoning models answer with ``reasoning_content`` next to ``content`` (``delta.
  reasoning_content`` in a stream): it goes to ``ChatResponse.reasoning`` as one
  ``Reasoning(type="thinking")``, and an assistant message that carries it sends it back
  unchanged: "when building multi-turn tool-calling agents with models that support interleaved
  thinking, you must include the reasoning_content from previous assistant turns in subsequent
  requests" (docs.fireworks.ai/guides/reasoning). The same mechanics as DeepSeek's, so the
  DeepSeek reference's encoder and stream reader are reused; ``ChatRequest.reasoning`` sends
  the Anthropic-compatible ``thinking: {"type": "enabled" / "disabled"}`` the page names (its
  exact accepted form without ``budget_tokens`` is not confirmed).
- Kimi K2.6 streams a call's id before its name and repeats the id on every argument fragment
  (timbal-ai/timbal PR #27): the OpenAI stream reader keys fragments on their index and keeps
  the first id and the first name it sees, which reads both.
- A 429 says ``{"error": "Too Many Requests", "message": "..."}``, the error a string: the
  message is the ``message`` field.

Confirmed 2026-11-25; the sources are in ``pytest_toolcall.providers.FIREWORKS``.
"""

from __future__ import annotations

import json

import httpx

from pytest_toolcall.core.errors import ProviderError
from pytest_toolcall.reference._http import retry_fields
from pytest_toolcall.providers.deepseek.reference import DeepSeekAdapter

__all__ = ["ADAPTER", "DEFAULT_MODEL", "FireworksAdapter"]

DEFAULT_MODEL = "accounts/fireworks/models/kimi-k2-instruct-0905"


class FireworksAdapter(DeepSeekAdapter):
    """Canonical requests to ``POST {base_url}/chat/completions`` on Fireworks AI and back."""

    DEFAULT_MODEL = DEFAULT_MODEL
    DEVELOPER_ROLE = "developer"  # OpenAI's role, as before: no source says it is refused here

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        if response.status_code >= 400:
            try:
                data = json.loads(body)
            except ValueError:
                data = None
            if isinstance(data, dict) and isinstance(data.get("error"), str):
                # the 429's shape: the error's name as a string, the words in "message"
                raise ProviderError(str(data.get("message") or data["error"]),
                                    status=response.status_code, body=data,
                                    **retry_fields(response, data))
        super().raise_for_error(response, body)


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = FireworksAdapter

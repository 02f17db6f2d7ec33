"""The reference Zhipu / Z.ai GLM adapter: the OpenAI Chat Completions adapter with GLM's
differences.

- Thinking (GLM-4.5 and later): ``reasoning_content`` next to ``content`` (``delta.
  reasoning_content`` in a stream) is the chain of thought, not the answer's text: it goes to
  ``ChatResponse.reasoning`` as one ``Reasoning(type="thinking")``, and an assistant message that
  carries it sends it back as ``reasoning_content``, unchanged: "thinking blocks should be
  explicitly preserved and returned together with the tool results" (docs.z.ai/guides/
  capabilities/thinking-mode). ``ChatRequest.reasoning`` True / False sends ``thinking: {"type":
  "enabled" / "disabled"}``. The same mechanics as DeepSeek's, so the DeepSeek reference's
  encoder and stream reader are reused.
- ``tool_choice``: only ``auto`` (the profile claims no other); GLM refuses the rest with 400.
- No ``stream_options``: usage rides on the finish chunk without it (docs.z.ai streaming
  example); agentscope's GLM formatter strips the key.
- Errors: ``{"error": {"code": "1302", "message": ...}}``: the business code goes to
  ``ProviderError.code``. Code 1113 (balance used up, "余额不足或无可用资源包,请充值。") comes with
  a 429, yet no retry cures it: it is not retryable.

Confirmed 2026-11-25; the sources are in ``pytest_toolcall.providers.ZHIPU``.
"""

from __future__ import annotations

from typing import Any

import httpx

from pytest_toolcall.providers.deepseek.reference import DeepSeekAdapter

__all__ = ["ADAPTER", "DEFAULT_MODEL", "NOT_RETRYABLE", "PROFILE", "ZhipuAdapter"]

DEFAULT_MODEL = "glm-4.7"
#: the reference profile: GLM takes tool_choice "auto" only
PROFILE: dict[str, Any] = {"tool_choice": frozenset({"auto"})}
#: business codes that come with a retryable status but that no retry cures (docs.z.ai
#: api-code: 1113 "Your account is in arrears, please recharge and try again")
NOT_RETRYABLE = frozenset({"1113"})


class ZhipuAdapter(DeepSeekAdapter):
    """Canonical requests to ``POST {base_url}/chat/completions`` on GLM and back."""

    DEFAULT_MODEL = DEFAULT_MODEL
    DEVELOPER_ROLE = "developer"  # OpenAI's role, as before: no source says it is refused here
    STREAM_OPTIONS = False  # usage rides on the finish chunk without it

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        try:
            super().raise_for_error(response, body)
        except Exception as exc:
            if getattr(exc, "code", None) in NOT_RETRYABLE:
                exc.retryable = False  # type: ignore[attr-defined]
            raise


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = ZhipuAdapter

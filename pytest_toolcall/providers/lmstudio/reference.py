"""The reference LM Studio adapter: the OpenAI Chat Completions adapter configured for LM Studio's
OpenAI-compatible server (``http://localhost:1234/v1``).

What it reads differently, each from LM Studio's own answers (sources in
``pytest_toolcall.providers.LMSTUDIO``, confirmed 2026-11-25):

- Errors whose ``error`` is a string (``{"error": "No models loaded. ..."}``, a context
  overflow's 400): the string is the message, not the repr of the body.
- A 200 whose body is ``{"error": ...}`` and no ``choices`` (LM Studio answers an unknown route
  with "Unexpected endpoint or method. (POST /chat/completions)" and status 200): an error
  carrying those words, never an empty answer.
- An error inside a 200 stream (``event: error`` then ``data: {"error": {"message"},
  "message"}``): a :class:`~pytest_toolcall.core.errors.StreamError` with the message.
- Reasoning in ``reasoning_content`` ("Separate reasoning_content" setting) or ``reasoning``
  (gpt-oss, since 0.3.23), as one ``Reasoning(type="thinking")``; it is not sent back (LM
  Studio documents no field for it in requests; the chat template decides).
- Call ids are numeric strings ("365174485"): kept and sent back as they came.
- ``tool_choice``: the documented values ``none``, ``auto``, ``required`` (0.3.15); a named
  function is not documented, so the reference profile does not claim it.
"""

from __future__ import annotations

from typing import Any

import httpx

from pytest_toolcall.core.errors import ProviderError, StreamError
from pytest_toolcall.core.model import ChatResponse
from pytest_toolcall.reference._compat import ReasoningChatAdapter, ReasoningStreamAccumulator
from pytest_toolcall.reference._http import read_error, retry_fields

__all__ = ["ADAPTER", "DEFAULT_MODEL", "LMStudioAdapter", "LMStudioStreamAccumulator", "PROFILE"]

DEFAULT_MODEL = "qwen/qwen3-4b-2507"
#: the reference profile: the tool_choice values LM Studio documents (API changelog 0.3.15)
PROFILE: dict[str, Any] = {"tool_choice": frozenset({"auto", "none", "required"})}
#: where LM Studio puts reasoning: the "separate reasoning_content" setting, and gpt-oss
REASONING_FIELDS = ("reasoning_content", "reasoning")


def error_message(error: Any) -> str | None:
    """The message of an ``error`` value: LM Studio's string, or an object's ``message``."""
    if isinstance(error, str):
        return error
    if isinstance(error, dict) and error.get("message") is not None:
        return str(error["message"])
    return None


class LMStudioAdapter(ReasoningChatAdapter):
    """Canonical requests to ``POST {base_url}/chat/completions`` on LM Studio and back."""

    DEFAULT_MODEL = DEFAULT_MODEL
    REASONING_FIELDS = REASONING_FIELDS
    SEND_REASONING = False  # no documented request field; the chat template decides

    # -- wire -> canonical --------------------------------------------------------------------
    def parse_response(self, data: Any) -> ChatResponse:
        if isinstance(data, dict) and "error" in data and not data.get("choices"):
            # "Unexpected endpoint or method. (...)" comes with status 200
            raise ProviderError(error_message(data["error"]) or str(data)[:500], status=200,
                                body=data, retryable=False)
        return super().parse_response(data)

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        if response.status_code < 400:
            return
        data, error = read_error(body)
        if error is None and isinstance(data, dict) and isinstance(data.get("error"), str):
            # LM Studio's bare-string errors: the string is the message
            raise ProviderError(data["error"], status=response.status_code, body=data,
                                **retry_fields(response, data))
        super().raise_for_error(response, body)

    def new_accumulator(self) -> LMStudioStreamAccumulator:
        return LMStudioStreamAccumulator(self)


class LMStudioStreamAccumulator(ReasoningStreamAccumulator):
    """Also joins the reasoning deltas, and reads LM Studio's stream error event."""

    def error_event(self, data: Any) -> Exception:
        if not isinstance(data, dict):
            return super().error_event(data)
        error = data["error"]
        message = error_message(error) or error_message(data) or str(data)[:500]
        fields = error if isinstance(error, dict) else {}
        return StreamError(message, type=fields.get("type"), code=fields.get("code"),
                           body=data, retryable=False)

    def reasoning_pieces(self, delta: dict[str, Any]) -> list[str]:
        # every reasoning field of a delta, in order (a message reads the first one only)
        return [p for p in (delta.get(f) for f in REASONING_FIELDS) if isinstance(p, str)]


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = LMStudioAdapter

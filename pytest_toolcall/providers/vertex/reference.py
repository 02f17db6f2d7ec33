"""The reference adapter for Gemini on Vertex AI: the gemini reference adapter
(``providers/gemini/reference.py``) with a bearer token."""

from __future__ import annotations

from typing import Any

from pytest_toolcall.providers.gemini.reference import PROFILE, GeminiAdapter

__all__ = ["ADAPTER", "PROFILE", "VertexAdapter"]


class VertexAdapter(GeminiAdapter):
    """The reference adapter for Gemini on Vertex AI: the gemini wire and a bearer token; the
    ids Vertex gives the calls go back as on the Gemini API (Vertex takes them since its
    discovery revision 20260921: anomalyco/opencode PR #50504; rechecked 2026-11-25).
    ``base_url`` ends in ``/publishers/google``."""

    def __init__(self, base_url: str, api_key: str, **kwargs: Any) -> None:
        super().__init__(base_url, api_key, **kwargs)
        self.headers = {"authorization": f"Bearer {api_key}"}


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = VertexAdapter

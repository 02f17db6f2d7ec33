"""Reference implementations: small, correct, and the worked examples of the docs."""

from __future__ import annotations

from typing import Any

from ..errors import UsageError

__all__ = ["reference_adapter"]


def reference_adapter(endpoint: Any) -> Any:
    """The built-in reference adapter for ``endpoint.provider``, wired to the endpoint."""
    if endpoint.provider == "openai":
        from .openai import OpenAIChatAdapter

        return OpenAIChatAdapter.from_endpoint(endpoint)
    raise UsageError(f"no reference adapter for provider {endpoint.provider!r}")

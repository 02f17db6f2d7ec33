"""Ready-made chat adapters for real client libraries (issues 10 and 14).

Each shim takes a factory that builds the library's client from the kit's endpoint and returns
a :class:`~pytest_toolcall.shims._base.Shim`; call that with the endpoint to get the adapter::

    @pytest.fixture
    def toolcall_adapter(toolcall_endpoint):
        return shims.openai(lambda ep: openai.OpenAI(base_url=ep.base_url, api_key=ep.api_key,
                                                     http_client=ep.client, max_retries=0)
                            )(toolcall_endpoint)

or, without code, ``--toolcall-adapter=shims.openai:my_app.models:make_client``.
Each library is imported when its shim is built (an optional extra); a shim maps shapes and
never repairs what its library got wrong. See docs/shims.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["SHIMS", "anthropic", "google_genai", "ollama", "openai", "openai_responses"]


def openai(factory: Callable[[Any], Any]) -> Any:
    """Chat Completions through the official openai SDK (``create``; the stream helper)."""
    from ._openai import OpenAIShim

    return OpenAIShim(factory)


def openai_responses(factory: Callable[[Any], Any]) -> Any:
    """The Responses API through the official openai SDK (``create``; the stream helper)."""
    from ._openai import OpenAIResponsesShim

    return OpenAIResponsesShim(factory)


def anthropic(factory: Callable[[Any], Any]) -> Any:
    """Messages through the official anthropic SDK (``create``; the stream helper)."""
    from ._anthropic import AnthropicShim

    return AnthropicShim(factory)


def google_genai(factory: Callable[[Any], Any]) -> Any:
    """generateContent through the official google-genai SDK."""
    from ._google_genai import GoogleGenaiShim

    return GoogleGenaiShim(factory)


def ollama(factory: Callable[[Any], Any]) -> Any:
    """Ollama's chat API through the official ollama library."""
    from ._ollama import OllamaShim

    return OllamaShim(factory)


#: shim name -> (shim, the dialect it speaks)
SHIMS: dict[str, tuple[Callable[[Callable[[Any], Any]], Any], str]] = {
    "openai": (openai, "openai"),
    "openai_responses": (openai_responses, "openai-responses"),
    "anthropic": (anthropic, "anthropic"),
    "google_genai": (google_genai, "gemini"),
    "ollama": (ollama, "ollama"),
}

"""The reference Azure OpenAI adapter: the OpenAI Chat Completions adapter on Azure's routes.

- Route: the dated data-plane route ``{endpoint}/openai/deployments/{deployment}/chat/
  completions?api-version=...`` by default, or the v1 route ``{endpoint}/openai/v1/chat/
  completions`` (no api-version) with ``route="v1"``. ``model`` goes in the body on both, as the
  openai SDK's ``AzureOpenAI`` sends it (on the v1 route it names the deployment).
- Auth: the ``api-key`` header, or ``Authorization: Bearer <Entra ID token>`` when
  ``azure_ad_token`` is given (the REST reference; openai/lib/azure.py ``_auth_headers``).
- Streams: Azure opens a stream with a chunk that has ``choices: []`` and only
  ``prompt_filter_results``: the OpenAI accumulator already reads ``choices`` as a list that may
  be empty; ``content_filter_results`` on a choice is no text.
- Errors: Azure's gateway errors are ``{"error": {"code": "<string>", "message"}}`` (``"401"``,
  ``"429"``, ``"DeploymentNotFound"``), its model errors OpenAI's; both read by the OpenAI
  reader. ``retry-after-ms`` is read before ``Retry-After`` (pytest_toolcall.core.errors).

Confirmed 2026-11-25; the sources are in ``pytest_toolcall.providers.AZURE_OPENAI``.
"""

from __future__ import annotations

from urllib.parse import quote

import httpx

from pytest_toolcall.providers.azure_openai.dialect import DEFAULT_API_VERSION
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter

__all__ = ["ADAPTER", "AzureOpenAIAdapter", "DEFAULT_DEPLOYMENT"]

DEFAULT_DEPLOYMENT = "gpt-4o"


class AzureOpenAIAdapter(OpenAIChatAdapter):
    """Canonical requests to an Azure OpenAI resource's chat completions and back."""

    DEFAULT_MODEL = DEFAULT_DEPLOYMENT

    def __init__(self, endpoint: str, api_key: str | None = None, *,
                 deployment: str = DEFAULT_DEPLOYMENT, api_version: str = DEFAULT_API_VERSION,
                 route: str = "deployments", azure_ad_token: str | None = None,
                 client: httpx.Client | None = None,
                 async_client: httpx.AsyncClient | None = None) -> None:
        if route not in ("deployments", "v1"):
            from pytest_toolcall.core.errors import UsageError

            raise UsageError(f"AzureOpenAIAdapter: route must be 'deployments' or 'v1', got "
                             f"{route!r}")
        if (api_key is None) == (azure_ad_token is None):
            from pytest_toolcall.core.errors import UsageError

            raise UsageError("AzureOpenAIAdapter: pass exactly one of api_key (sent as the "
                             "api-key header) and azure_ad_token (sent as Authorization: Bearer)")
        super().__init__(endpoint, api_key or "", model=deployment, client=client,
                         async_client=async_client)
        root = endpoint.rstrip("/")
        if route == "v1":
            self.url = f"{root}/openai/v1/chat/completions"
        else:
            self.url = (f"{root}/openai/deployments/{quote(deployment, safe='')}/chat/"
                        f"completions?api-version={api_version}")
        self.headers = ({"api-key": api_key} if api_key is not None
                        else {"authorization": f"Bearer {azure_ad_token}"})


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = AzureOpenAIAdapter

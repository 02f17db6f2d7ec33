"""Azure OpenAI: its own error answers, one per error kind (status, headers, body).

Confirmed 2026-11-25. Azure OpenAI (gateway errors ``{"error": {"code": "<string>", "message"}}``,
model errors OpenAI's shape): 429 code "429" "Requests to the ChatCompletions_Create Operation
under Azure OpenAI API version ... have exceeded token rate limit ... Please retry after N
seconds." (vanderschaarlab/climb #1, TinyLLM #17) with ``Retry-After`` and ``retry-after-ms``
(Azure/azure-openai-benchmark #31) and ``x-ratelimit-remaining-*``; 401 code "401" "Access denied
due to invalid subscription key or wrong API endpoint. ..." (SciSharp/BotSharp #386); 404 code
"DeploymentNotFound" (chatbox #861, azure-search-openai-demo-csharp #379); 400
``context_length_exceeded`` in OpenAI's shape (microsoft/kernel-memory #516); 500 ``server_error``
"The server had an error processing your request. ..." (Azure/azure-sdk-for- python #40812);
overloaded is a 429 "The system is currently experiencing high demand ..." (pollinations #6260
relays the text; its code field is NOT confirmed). No quota kind (no prepaid balance), no 403 body
found; see ``_azure_table``.

The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any

# OpenAI's shape, where this service answers in it
from pytest_toolcall.providers.openai.errors import _openai


def _azure(code: str, message: str) -> dict[str, Any]:
    # Azure's gateway errors: a string code, a message, nothing else
    return {"error": {"code": code, "message": message}}


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    """Confirmed 2026-11-25, sources in the module docstring and
    ``pytest_toolcall.providers.AZURE_OPENAI``. The 429 names the caller's api-version; the
    reference's default (2024-10-21) is played."""
    wait = delay if delay is not None else 1
    if kind == "rate_limit":
        headers = {"x-ratelimit-remaining-requests": "0", "x-ratelimit-remaining-tokens": "0"}
        if delay is not None:
            headers.update({"retry-after": str(delay), "retry-after-ms": str(delay * 1000)})
        return 429, headers, _azure("429", (
            "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version "
            f"2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. "
            f"Please retry after {wait} seconds. Please go here: https://aka.ms/oai/"
            "quotaincrease if you would like to further increase the default rate limit."))
    if kind == "auth":
        return 401, {}, _azure("401", (
            "Access denied due to invalid subscription key or wrong API endpoint. Make sure to "
            "provide a valid key for an active subscription and use a correct regional API "
            "endpoint for your resource."))
    if kind == "model_not_found":
        return 404, {}, _azure("DeploymentNotFound", (
            "The API deployment for this resource does not exist. If you created the deployment "
            "within the last 5 minutes, please wait a moment and try again."))
    if kind == "context_length":
        return 400, {}, _openai(400, "This model's maximum context length is 128000 tokens. "
                                "However, your messages resulted in 131072 tokens. Please "
                                "reduce the length of the messages.", "invalid_request_error",
                                "context_length_exceeded", "messages")
    if kind == "server_error":
        return 500, {}, _openai(500, (
            "The server had an error processing your request. Sorry about that! You can retry "
            "your request, or contact us through an Azure support request at: "
            "https://go.microsoft.com/fwlink/?linkid=2213926 if you keep seeing this error. "
            "(Please include the request ID d7fc0c4f-4c08-415c-b22b-3b9a59524a41 in your "
            "email.)"), "server_error", None)
    if kind == "overloaded":  # not confirmed: the code field and the header
        headers = {"retry-after": str(delay)} if delay is not None else {}
        return 429, headers, _azure("429", (
            "The system is currently experiencing high demand and cannot process your request. "
            "Your request exceeds the maximum usage size allowed during peak load. Please "
            f"retry after {wait} seconds. For improved latency reliability, consider switching "
            "to Provisioned Throughput."))
    return None

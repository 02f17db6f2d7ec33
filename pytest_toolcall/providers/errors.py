"""How each provider really answers when it fails: status, headers and body per error kind.

A case scripts ``ErrorReply(kind=..., retry_after=...)``; the fake answers with the provider's
own error for that kind, as below. Sources, confirmed 2026-11-23:

- OpenAI (Chat Completions and Responses share the error shape): the rate-limit headers
  (``x-ratelimit-limit-requests``, ``-remaining-``, ``-reset-`` for requests and tokens) are in
  the "Rate limits" guide ("Rate limits in headers"); ``Retry-After`` in integer seconds on a
  429 is optional and absent on quota and billing 429s (openai/openai-openapi PR #564); the
  429 wording "Rate limit reached for … Please try again in …" and ``code:
  rate_limit_exceeded`` (zachblume/autospec #16 quotes "Limit 30000, Used 28770"); quota:
  ``insufficient_quota`` "You exceeded your current quota, please check your plan and billing
  details." ("Error codes" guide); 404 ``model_not_found`` "The model `…` does not exist or you
  do not have access to it."; 400 ``context_length_exceeded`` "This model's maximum context
  length is …"; 500 ``server_error`` "The server had an error while processing your request.
  Sorry about that!"; 503 "The engine is currently overloaded, please try again later." (all in
  the "Error codes" guide); 403 ``unsupported_country_region_territory``.
- Anthropic ("Errors" page: 400 invalid_request_error, 401 authentication_error, 403
  permission_error, 404 not_found_error, 413 request_too_large, 429 rate_limit_error, 500
  api_error, 529 overloaded_error; "Rate limits" page: ``retry-after`` seconds and the
  ``anthropic-ratelimit-*`` headers, as anthropic-sdk-typescript #357 shows them next to
  ``x-should-retry: true``); "prompt is too long: N tokens > M maximum" for the context window.
- Gemini (the google.rpc error model, ``{"error": {"code", "message", "status", "details"}}``):
  429 RESOURCE_EXHAUSTED with QuotaFailure and Help details (google-gemini/gemini-cli #8437)
  and the delay in a ``google.rpc.RetryInfo`` detail ``retryDelay: "Ns"``, no header; a bad
  key is 400 INVALID_ARGUMENT "API key not valid" with ErrorInfo reason API_KEY_INVALID; 404
  "models/… is not found for API version v1beta, or is not supported for generateContent";
  400 "The input token count (…) exceeds the maximum number of tokens allowed (…)."; 500
  INTERNAL; 503 UNAVAILABLE "The model is overloaded. Please try again later."
- Ollama (native route: ``{"error": "<text>"}``): 404 "model \\"…\\" not found, try pulling it
  first"; 503 "server busy, please try again.  maximum pending requests exceeded" (the FAQ's
  OLLAMA_MAX_QUEUE); 500 for a crashed runner. Ollama has no API keys and no rate limits.

Confirmed 2026-11-25 (issue 13, the services beyond the five wire formats):

- DeepSeek (``{"error": {"message", "type", "param": null, "code": "invalid_request_error"}}``;
  statuses from api-docs.deepseek.com/quick_start/error_codes: 400 Invalid Format, 401
  Authentication Fails, 402 Insufficient Balance, 422 Invalid Parameters, 429 Rate Limit
  Reached, 500 Server Error, 503 Server Overloaded): 429 type ``rate_limit_error`` "Too many
  requests. Your current concurrency is N, which exceeds your concurrency limit of M based on
  your remaining balance. ..." (a public TStudio RCA note quoting the whole body; jobfetcher PR
  #42, 2026-09, verbatim message), with NO rate-limit headers and no Retry-After (jobfetcher PR
  #42 probed them; the Rate Limit & Isolation page documents concurrency limits, no header);
  402 "Insufficient Balance" type ``unknown_error`` (the quota kind: a top-up, not a wait);
  401 ``authentication_error`` "Authentication Fails, Your api key: ****abcd is invalid"; an
  unknown model is 400 "Model Not Exist" (deepwn/addi #13, 2026-03; langbot #1643); 400 "This
  model's maximum context length is 131072 tokens. However, you requested ..." (fast-agent
  #621, 2026-01; litellm #10431). 500 and 503: the statuses are the page's, the wording is NOT
  confirmed (no public body found): the page's own titles in DeepSeek's shape. No 403.
- Mistral (``{"object": "error", "message", "type", "param": null, "code", "raw_status_code"}``
  at the top level, docs.mistral.ai/resources/error-glossary; ``raw_status_code`` is in the 2026
  bodies): 429 "Rate limit exceeded" type ``rate_limited`` code "1300" (cline #9085, 2026-02;
  raycast/extensions #31107, 2026-09), no rate-limit header documented (the glossary says
  "implement exponential backoff"; older gateways answered ``{"message": "Requests rate limit
  exceeded"}``, pydantic-ai #1885, 2025-06: historical, not played); 401 ``{"detail":
  "Unauthorized"}`` (agent-zero #539, nextcloud integration_openai #332); an unknown model is
  400 "Invalid model: <id>" type ``invalid_model`` code "1500" (mistralai/mistral-vibe #617,
  2026-04; langchaingo #1233); 400 "Prompt contains N tokens and 0 draft tokens, too large for
  model with M maximum context length" type ``invalid_request_invalid_args`` code "3051" (a
  public script quoting mistralai 2.x ``SDKError``); overloaded is 429 "Service tier capacity
  exceeded for this model." (continue #6185, 2025-06; raycast/extensions #31107 "This model is
  currently overloaded"). 500: the glossary lists it with type ``server_error``; the wording is
  NOT confirmed. The glossary's 402 and 403 bodies were not found: not played.
- Zhipu / Z.ai GLM (``{"error": {"code": "<business code, a string>", "message"}}``, no type;
  docs.z.ai/api-reference/api-code): 429 code 1302 for concurrency, 1305 for an overloaded
  model, 1113 for a used-up balance (a 429 no retry cures: the quota kind), 401 code 1000, 400
  code 1211 for an unknown model and 1261 "Prompt exceeds max length"; no rate-limit header and
  no Retry-After (measured). The texts are open.bigmodel.cn's; see ``_zhipu_table``.
- Azure OpenAI (gateway errors ``{"error": {"code": "<string>", "message"}}``, model errors
  OpenAI's shape): 429 code "429" "Requests to the ChatCompletions_Create Operation under Azure
  OpenAI API version ... have exceeded token rate limit ... Please retry after N seconds."
  (vanderschaarlab/climb #1, TinyLLM #17) with ``Retry-After`` and ``retry-after-ms``
  (Azure/azure-openai-benchmark #31) and ``x-ratelimit-remaining-*``; 401 code "401" "Access
  denied due to invalid subscription key or wrong API endpoint. ..." (SciSharp/BotSharp #386);
  404 code "DeploymentNotFound" (chatbox #861, azure-search-openai-demo-csharp #379); 400
  ``context_length_exceeded`` in OpenAI's shape (microsoft/kernel-memory #516); 500
  ``server_error`` "The server had an error processing your request. ..." (Azure/azure-sdk-for-
  python #40812); overloaded is a 429 "The system is currently experiencing high demand ..."
  (pollinations #6260 relays the text; its code field is NOT confirmed). No quota kind (no
  prepaid balance), no 403 body found; see ``_azure_table``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ERROR_KINDS", "RETRYABLE_KINDS", "error_reply", "kinds_for"]

from pytest_toolcall.cases import ERROR_KINDS  # kind -> what it is (cases can name them: kept with the cases)
#: kinds where the same request may succeed later
RETRYABLE_KINDS = frozenset({"rate_limit", "server_error", "overloaded"})

_OPENAI = ("openai", "openai-responses")
_MODEL = {"openai": "gpt-4o-mini", "openai-responses": "gpt-4o-mini",
          "anthropic": "claude-haiku-4-5", "gemini": "gemini-2.5-flash", "ollama": "llama3.2",
          "deepseek": "deepseek-v4-flash", "mistral": "mistral-small-latest",
          "openrouter": "google/gemini-3-flash-preview", "zhipu": "glm-4.7",
          "azure-openai": "gpt-4o"}


def kinds_for(dialect: str) -> tuple[str, ...]:
    """The kinds this dialect's provider has."""
    return tuple(k for k in ERROR_KINDS if _table(dialect, k, 1) is not None)


def error_reply(dialect: str, kind: str,
                retry_after: int | None = None) -> tuple[int, dict[str, str], Any]:
    """``(status, headers, body)`` of the provider's ``kind`` error; ``retry_after`` (seconds)
    goes where the provider puts its delay. A kind the provider does not have is a KeyError."""
    found = _table(dialect, kind, retry_after)
    if found is None:
        raise KeyError(f"{dialect} has no {kind!r} error; it has {kinds_for(dialect)}")
    return found


def _openai(status: int, message: str, type: str, code: str | None,
            param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type, "param": param, "code": code}}


def _anthropic(type: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": type, "message": message}}


def _gemini(status: int, name: str, message: str,
            details: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": status, "message": message, "status": name}
    if details:
        error["details"] = details
    return {"error": error}


def _deepseek(message: str, type: str) -> dict[str, Any]:
    # DeepSeek's code is always "invalid_request_error", whatever the type
    return {"error": {"message": message, "type": type, "param": None,
                      "code": "invalid_request_error"}}


def _mistral(status: int, message: str, type: str, code: str | None) -> dict[str, Any]:
    return {"object": "error", "message": message, "type": type, "param": None, "code": code,
            "raw_status_code": status}


def _table(dialect: str, kind: str,  # noqa: C901 - one provider after another
           delay: int | None) -> tuple[int, dict[str, str], Any] | None:
    model = _MODEL.get(dialect, "model")
    wait = delay if delay is not None else 1
    if dialect in _OPENAI:
        if kind == "rate_limit":
            headers = {"x-ratelimit-limit-requests": "5000",
                       "x-ratelimit-remaining-requests": "4999",
                       "x-ratelimit-reset-requests": "12ms",
                       "x-ratelimit-limit-tokens": "200000",
                       "x-ratelimit-remaining-tokens": "0",
                       "x-ratelimit-reset-tokens": f"{wait}s"}
            if delay is not None:
                headers["retry-after"] = str(delay)
            return 429, headers, _openai(429, (
                f"Rate limit reached for {model} in organization org-toolcall on tokens per min "
                f"(TPM): Limit 200000, Used 199000, Requested 2000. Please try again in {wait}s. "
                "Visit https://platform.openai.com/account/rate-limits to learn more."),
                "tokens", "rate_limit_exceeded")
        if kind == "quota":
            return 429, {}, _openai(429, (
                "You exceeded your current quota, please check your plan and billing details. "
                "For more information on this error, read the docs: "
                "https://platform.openai.com/docs/guides/error-codes/api-errors."),
                "insufficient_quota", "insufficient_quota")
        if kind == "auth":
            return 401, {}, _openai(401, "Incorrect API key provided: tc-f****cret. You can "
                                    "find your API key at https://platform.openai.com/account/"
                                    "api-keys.", "invalid_request_error", "invalid_api_key")
        if kind == "permission":
            return 403, {}, _openai(403, "Country, region, or territory not supported",
                                    "request_forbidden", "unsupported_country_region_territory")
        if kind == "model_not_found":
            return 404, {}, _openai(404, "The model `gpt-9-toolcall` does not exist or you do "
                                    "not have access to it.", "invalid_request_error",
                                    "model_not_found")
        if kind == "context_length":
            if dialect == "openai-responses":
                return 400, {}, _openai(400, "Your input exceeds the context window of this "
                                        "model. Please adjust your input and try again.",
                                        "invalid_request_error", "context_length_exceeded",
                                        "input")
            return 400, {}, _openai(400, "This model's maximum context length is 128000 tokens. "
                                    "However, your messages resulted in 131072 tokens. Please "
                                    "reduce the length of the messages.",
                                    "invalid_request_error", "context_length_exceeded",
                                    "messages")
        if kind == "server_error":
            return 500, {}, _openai(500, "The server had an error while processing your "
                                    "request. Sorry about that!", "server_error", None)
        if kind == "overloaded":
            return 503, {}, _openai(503, "The engine is currently overloaded, please try again "
                                    "later.", "server_error", None)
        return None
    if dialect == "anthropic":
        if kind == "rate_limit":
            headers = {"anthropic-ratelimit-requests-limit": "50",
                       "anthropic-ratelimit-requests-remaining": "0",
                       "anthropic-ratelimit-requests-reset": "2026-11-23T03:00:07Z",
                       "anthropic-ratelimit-tokens-limit": "50000",
                       "anthropic-ratelimit-tokens-remaining": "0",
                       "anthropic-ratelimit-tokens-reset": "2026-11-23T03:00:07Z",
                       "x-should-retry": "true"}
            if delay is not None:
                headers["retry-after"] = str(delay)
            return 429, headers, _anthropic("rate_limit_error", (
                "This request would exceed the rate limit for your organization of 50,000 input "
                "tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-"
                "limits. You can see the response headers for current usage. Please reduce the "
                "prompt length or the maximum tokens requested, or try again later."))
        if kind == "auth":
            return 401, {"x-should-retry": "false"}, _anthropic("authentication_error",
                                                                "invalid x-api-key")
        if kind == "permission":
            return 403, {"x-should-retry": "false"}, _anthropic(
                "permission_error", "Your API key does not have permission to use the "
                "specified resource.")
        if kind == "model_not_found":
            return 404, {"x-should-retry": "false"}, _anthropic("not_found_error",
                                                                "model: claude-9-toolcall")
        if kind == "context_length":
            return 400, {"x-should-retry": "false"}, _anthropic(
                "invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum")
        if kind == "request_too_large":
            return 413, {}, _anthropic("request_too_large",
                                       "Request exceeds the maximum allowed number of bytes.")
        if kind == "server_error":
            return 500, {"x-should-retry": "true"}, _anthropic("api_error",
                                                               "Internal server error")
        if kind == "overloaded":
            return 529, {"x-should-retry": "true"}, _anthropic("overloaded_error", "Overloaded")
        return None
    if dialect == "gemini":
        if kind == "rate_limit":
            details = [
                {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{
                    "quotaMetric": "generativelanguage.googleapis.com/"
                                   "generate_content_free_tier_requests",
                    "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                    "quotaDimensions": {"location": "global", "model": model},
                    "quotaValue": "10"}]},
                {"@type": "type.googleapis.com/google.rpc.Help", "links": [{
                    "description": "Learn more about Gemini API quotas",
                    "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}]}]
            if delay is not None:
                details.append({"@type": "type.googleapis.com/google.rpc.RetryInfo",
                                "retryDelay": f"{delay}s"})
            return 429, {}, _gemini(429, "RESOURCE_EXHAUSTED", (
                "You exceeded your current quota, please check your plan and billing details. "
                "For more information on this error, head to: "
                "https://ai.google.dev/gemini-api/docs/rate-limits."), details)
        if kind == "auth":
            return 400, {}, _gemini(400, "INVALID_ARGUMENT", "API key not valid. Please pass a "
                                    "valid API key.", [{
                                        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                                        "reason": "API_KEY_INVALID",
                                        "domain": "googleapis.com",
                                        "metadata": {"service":
                                                     "generativelanguage.googleapis.com"}}])
        if kind == "permission":
            return 403, {}, _gemini(403, "PERMISSION_DENIED", "The caller does not have "
                                    "permission")
        if kind == "model_not_found":
            return 404, {}, _gemini(404, "NOT_FOUND", "models/gemini-9-toolcall is not found "
                                    "for API version v1beta, or is not supported for "
                                    "generateContent. Call ListModels to see the list of "
                                    "available models and their supported methods.")
        if kind == "context_length":
            return 400, {}, _gemini(400, "INVALID_ARGUMENT", "The input token count (1212345) "
                                    "exceeds the maximum number of tokens allowed (1048576).")
        if kind == "server_error":
            return 500, {}, _gemini(500, "INTERNAL", "An internal error has occurred. Please "
                                    "retry or report in https://developers.generativeai.google/"
                                    "guide/troubleshooting")
        if kind == "overloaded":
            return 503, {}, _gemini(503, "UNAVAILABLE", "The model is overloaded. Please try "
                                    "again later.")
        return None
    if dialect == "ollama":
        if kind == "model_not_found":
            return 404, {}, {"error": 'model "llama9-toolcall" not found, try pulling it first'}
        if kind == "server_error":
            return 500, {}, {"error": "llama runner process has terminated: exit status 2"}
        if kind == "overloaded":
            return 503, {}, {"error": "server busy, please try again.  maximum pending "
                                      "requests exceeded"}
        return None
    if dialect == "deepseek":
        return _deepseek_table(kind)
    if dialect == "mistral":
        return _mistral_table(kind)
    if dialect == "openrouter":
        return _openrouter_table(kind, delay)
    if dialect == "zhipu":
        return _zhipu_table(kind)
    if dialect == "azure-openai":
        return _azure_table(kind, delay)
    if dialect == "together":
        return _together_table(kind, delay)
    if dialect == "fireworks":
        return _fireworks_table(kind, delay)
    if dialect == "cerebras":
        return _cerebras_table(kind, delay)
    if dialect == "lmstudio":
        return _lmstudio_table(kind)
    if dialect == "groq":
        return _groq_table(kind, delay)
    if dialect == "llamacpp":
        return _llamacpp_table(kind)
    if dialect == "vllm":
        return _vllm_table(kind)
    if dialect == "xai":
        return _xai_table(kind)
    return None


def _deepseek_table(kind: str) -> tuple[int, dict[str, str], Any] | None:
    # no rate-limit headers, no Retry-After: DeepSeek sends none (module docstring)
    if kind == "rate_limit":
        return 429, {}, _deepseek(
            "Too many requests. Your current concurrency is 26, which exceeds your concurrency "
            "limit of 25 based on your remaining balance. Please top up your balance to restore "
            "your concurrency.", "rate_limit_error")
    if kind == "quota":
        return 402, {}, _deepseek("Insufficient Balance", "unknown_error")
    if kind == "auth":
        return 401, {}, _deepseek("Authentication Fails, Your api key: ****cret is invalid",
                                  "authentication_error")
    if kind == "model_not_found":
        return 400, {}, _deepseek("Model Not Exist", "invalid_request_error")
    if kind == "context_length":
        return 400, {}, _deepseek(
            "This model's maximum context length is 131072 tokens. However, you requested "
            "131134 tokens (122942 in the messages, 8192 in the completion). Please reduce the "
            "length of the messages or completion.", "invalid_request_error")
    # not confirmed: the wording and type of 500 and 503 (the Error Codes page's titles)
    if kind == "server_error":
        return 500, {}, _deepseek("Server Error", "server_error")
    if kind == "overloaded":
        return 503, {}, _deepseek("Server Overloaded", "server_error")
    return None


def _mistral_table(kind: str) -> tuple[int, dict[str, str], Any] | None:
    # no rate-limit header documented: none is sent (module docstring)
    if kind == "rate_limit":
        return 429, {}, _mistral(429, "Rate limit exceeded", "rate_limited", "1300")
    if kind == "auth":
        return 401, {}, {"detail": "Unauthorized"}
    if kind == "model_not_found":
        return 400, {}, _mistral(400, "Invalid model: mistral-9-toolcall", "invalid_model",
                                 "1500")
    if kind == "context_length":
        return 400, {}, _mistral(400, "Prompt contains 159202 tokens and 0 draft tokens, too "
                                 "large for model with 131072 maximum context length",
                                 "invalid_request_invalid_args", "3051")
    if kind == "server_error":  # not confirmed: the wording (the glossary's type)
        return 500, {}, _mistral(500, "Internal server error", "server_error", None)
    if kind == "overloaded":  # as recorded in 2025-06: no raw_status_code, code null
        return 429, {}, {"object": "error",
                         "message": "Service tier capacity exceeded for this model.",
                         "type": "invalid_request_error", "param": None, "code": None}
    return None


def _openrouter(status: int, message: str, metadata: dict[str, Any] | None = None
                ) -> dict[str, Any]:
    # OpenRouter's code is the HTTP status, an integer (openrouter.ai/docs/api-reference/errors)
    error: dict[str, Any] = {"message": message, "code": status}
    if metadata is not None:
        error["metadata"] = metadata
    return {"error": error, "user_id": "user_2x7DNyswjOHVRWDYVMCIROyGjsS"}


def _openrouter_table(kind: str, delay: int | None) -> tuple[int, dict[str, str], Any] | None:
    """Confirmed 2026-11-25. Statuses from openrouter.ai/docs/api-reference/errors (400, 401,
    402, 403, 408, 429, 502, 503; 'OpenRouter may include a standard HTTP Retry-After response
    header' on 429 and 503); bodies from public reports: 429 free-models-per-day with
    metadata.headers X-RateLimit-* (Gitlawb/openclaude #936, cline #5301); 402 'This request
    requires more credits, or fewer max_tokens. ...' with metadata.provider_name null
    (openclaude #1125, newo-ether/Agora #8, continue #11154); 401 'User not found.' (public
    client logs and probes 2025-12 to 2026-08); 400 '<id> is not a valid model ID'
    (OpenRouterTeam/openrouter-examples #74, picoclaw #1790); 400 'This endpoint's maximum
    context length is ... use the "middle-out" transform ...' with metadata.provider_name
    (Aider-AI/aider #3721); 502 'Provider returned error' with metadata.raw and provider_name
    (reVrost/go-openrouter PR #21, open-webui/computer #293). 403 and 503: the statuses, the
    docs' titles and the docs' ModerationErrorMetadata shape; the 403 and 503 wordings and the
    X-RateLimit-Reset value are NOT confirmed (no public body found)."""
    if kind == "rate_limit":
        headers = {"retry-after": str(delay)} if delay is not None else {}
        return 429, headers, _openrouter(429, (
            "Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model "
            "requests per day"), {"headers": {"X-RateLimit-Limit": "50",
                                             "X-RateLimit-Remaining": "0",
                                             "X-RateLimit-Reset": "1790035200000"},
                                 "provider_name": None})
    if kind == "quota":
        return 402, {}, _openrouter(402, (
            "This request requires more credits, or fewer max_tokens. You requested up to 65536 "
            "tokens, but can only afford 10114. To increase, visit https://openrouter.ai/"
            "settings/credits and upgrade to a paid account"), {"provider_name": None})
    if kind == "auth":
        return 401, {}, {"error": {"message": "User not found.", "code": 401}}
    if kind == "permission":
        return 403, {}, _openrouter(403, (
            "google/gemini-3-flash-preview requires moderation on OpenRouter. Your input was "
            "flagged for \"harassment\". No credits were charged."), {
                "reasons": ["harassment"], "flagged_input": "...", "provider_name": "OpenAI",
                "model_slug": "google/gemini-3-flash-preview"})
    if kind == "model_not_found":
        return 400, {}, _openrouter(400, "google/gemini-9-toolcall is not a valid model ID")
    if kind == "context_length":
        return 400, {}, _openrouter(400, (
            "This endpoint's maximum context length is 131072 tokens. However, you requested "
            "about 141607 tokens (10535 of text input, 131072 in the output). Please reduce the "
            "length of either one, or use the \"middle-out\" transform to compress your prompt "
            "automatically."), {"provider_name": "Chutes"})
    if kind == "server_error":
        # metadata as the docs' ProviderErrorMetadata; the upstream's raw text varies
        return 502, {}, _openrouter(502, "Provider returned error",
                                    {"provider_name": "Google AI Studio"})
    if kind == "overloaded":  # not confirmed: the wording (the docs' title for 503)
        headers = {"retry-after": str(delay)} if delay is not None else {}
        return 503, headers, _openrouter(503, "No available model provider that meets your "
                                         "routing requirements")
    return None


def _zhipu(code: str, message: str) -> dict[str, Any]:
    # Zhipu's business code is a string; there is no type (docs.z.ai/api-reference/api-code)
    return {"error": {"code": code, "message": message}}


def _zhipu_table(kind: str) -> tuple[int, dict[str, str], Any] | None:
    """Confirmed 2026-11-25: the statuses and codes of docs.z.ai/api-reference/api-code (401
    authentication; 429 for concurrency, balance and account; 400 parameters), the wordings as
    open.bigmodel.cn answers them (Chinese; Z.ai answers in English), from recorded bodies:
    1302 concurrency (a public FAQ quoting the 429; z.ai: 'Rate limit reached for requests',
    measured with three concurrent requests: no Retry-After, no X-RateLimit-* headers), 1113
    balance (429; recorded bodies in several public test suites: 'Insufficient balance or no
    resource package. Please recharge.' on z.ai), 1000 authentication, 1211 unknown model,
    1261 'Prompt exceeds max length' (names no number), 1305 model overloaded (429), all in a
    gateway's live evidence of 2026-10-09 and other public fixtures. 500: the api-code page's
    'Internal Error'; the body's wording is NOT confirmed. No 403 is documented for chat."""
    if kind == "rate_limit":
        return 429, {}, _zhipu("1302", "您当前使用该API的并发数过高，请降低并发，或联系客服增加限额。")
    if kind == "quota":  # a 429 that no wait cures: the balance is used up
        return 429, {}, _zhipu("1113", "余额不足或无可用资源包,请充值。")
    if kind == "auth":
        return 401, {}, _zhipu("1000", "身份验证失败。")
    if kind == "model_not_found":
        return 400, {}, _zhipu("1211", "模型不存在，请检查模型代码。")
    if kind == "context_length":
        return 400, {}, _zhipu("1261", "Prompt exceeds max length")
    if kind == "server_error":  # not confirmed: the wording (the api-code page's title)
        return 500, {}, _zhipu("500", "Internal Error")
    if kind == "overloaded":
        return 429, {}, _zhipu("1305", "该模型当前访问量过大，请您稍后再试")
    return None


def _azure(code: str, message: str) -> dict[str, Any]:
    # Azure's gateway errors: a string code, a message, nothing else
    return {"error": {"code": code, "message": message}}


def _azure_table(kind: str, delay: int | None) -> tuple[int, dict[str, str], Any] | None:
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


def _cerebras(message: str, type: str | None, param: str | None, code: str) -> dict[str, Any]:
    # Cerebras' errors: message, type, param, code at the top level, no "error" key
    return {"message": message, "type": type, "param": param, "code": code}


def _cerebras_table(kind: str, delay: int | None) -> tuple[int, dict[str, str], Any] | None:
    """Confirmed 2026-11-25, sources in ``pytest_toolcall.providers.CEREBRAS`` (inference-docs.
    cerebras.ai/support/error for the statuses; public logs and fixtures for the bodies): 429
    'Tokens per minute limit exceeded - too many tokens processed.' too_many_tokens_error /
    token_quota_exceeded with the x-ratelimit-*-tokens-minute and -requests-day headers (reset
    in seconds) and retry-after; 402 payment_required with x-should-retry: false (the quota
    kind); 401 'Wrong API Key' wrong_api_key; 404 model_not_found (the head of the message is
    OpenAI's: only its tail is quoted); 400 'Please reduce the length of the messages or
    completion. Current length is N while limit is M' (cline #5140; its type and code are NOT
    quoted); overloaded is a 429 queue_exceeded "We're experiencing high traffic right now!"
    (its type is NOT quoted). 500: the wording is NOT confirmed. No 403 body for chat."""
    wait = delay if delay is not None else 1
    if kind == "rate_limit":
        headers = {"x-ratelimit-limit-requests-day": "14400",
                   "x-ratelimit-remaining-requests-day": "14350",
                   "x-ratelimit-reset-requests-day": "33011.5",
                   "x-ratelimit-limit-tokens-minute": "60000",
                   "x-ratelimit-remaining-tokens-minute": "0",
                   "x-ratelimit-reset-tokens-minute": f"{wait}.0"}
        if delay is not None:
            headers["retry-after"] = str(delay)
        return 429, headers, _cerebras("Tokens per minute limit exceeded - too many tokens "
                                       "processed.", "too_many_tokens_error", "quota",
                                       "token_quota_exceeded")
    if kind == "quota":
        return 402, {"x-should-retry": "false"}, _cerebras(
            "Payment required to access this resource. Visit your billing tab.",
            "payment_required_error", "quota", "payment_required")
    if kind == "auth":
        return 401, {}, _cerebras("Wrong API Key", "invalid_request_error", "api_key",
                                  "wrong_api_key")
    if kind == "model_not_found":
        return 404, {}, _cerebras("Model gpt-9-toolcall does not exist or you do not have "
                                  "access to it.", "not_found_error", "model", "model_not_found")
    if kind == "context_length":  # not confirmed: type and code (the message is quoted)
        return 400, {}, _cerebras("Please reduce the length of the messages or completion. "
                                  "Current length is 140000 while limit is 131072",
                                  "invalid_request_error", "messages", "context_length_exceeded")
    if kind == "server_error":  # not confirmed: the wording
        return 500, {}, _cerebras("Internal server error", "server_error", None,
                                  "internal_server_error")
    if kind == "overloaded":  # the type is not quoted
        return 429, {}, _cerebras("We're experiencing high traffic right now!",
                                  "too_many_requests_error", "queue", "queue_exceeded")
    return None


def _lmstudio_table(kind: str) -> tuple[int, dict[str, str], Any] | None:
    """LM Studio's local server (confirmed 2026-11-25; ``pytest_toolcall.providers.LMSTUDIO``):
    no rate limits, no quota, no overload answer (a local server queues). ``auth``: "Require
    Authentication" on, no token (agustif/opencode-lmstudio #41, LM Studio 0.4.18; the status
    401 is NOT confirmed); ``model_not_found``: 400 'Invalid model identifier "..."' code
    ``model_not_found`` (gpt-researcher #1556, continuedev/continue #12757, QwenLM/qwen-code
    #10065 on 0.4.23); ``context_length``: a bare-string 400 (Gitlawb/openclaude #353, 2026-04).
    A crashed model's body is not confirmed: no ``server_error``."""
    from pytest_toolcall.providers.lmstudio.dialect import AUTH_REQUIRED, CONTEXT_OVERFLOW

    if kind == "auth":
        return 401, {}, {"error": {"type": "invalid_request", "code": "invalid_api_key",
                                   "message": AUTH_REQUIRED}}
    if kind == "model_not_found":
        return 400, {}, _openai(400, 'Invalid model identifier "qwen9-toolcall". Please specify '
                                "a valid downloaded model (e.g., qwen/qwen3-4b-2507, "
                                "openai/gpt-oss-20b, google/gemma-3-12b).",
                                "invalid_request_error", "model_not_found", "model")
    if kind == "context_length":
        return 400, {}, {"error": CONTEXT_OVERFLOW}
    return None


def _groq(message: str, type: str, code: str | None = None) -> dict[str, Any]:
    # Groq's errors: OpenAI's without param (console.groq.com/docs/errors; recorded bodies)
    error: dict[str, Any] = {"message": message, "type": type}
    if code is not None:
        error["code"] = code
    return {"error": error}


def _groq_table(kind: str, delay: int | None) -> tuple[int, dict[str, str], Any] | None:
    """Confirmed 2026-11-25, sources in ``pytest_toolcall.providers.GROQ``: the 429 body
    ('Rate limit reached for model ... on tokens per minute (TPM): ... Please try again in Ns.
    Need more tokens? ...', type ``tokens``, code ``rate_limit_exceeded``; public litellm logs
    quoting GroqException) with ``retry-after`` (429 only) and the ``x-ratelimit-*`` headers
    (console.groq.com/docs/rate-limits); 401 'Invalid API Key' (nark/WiredSwift #44); 404
    'The model `...` does not exist or you do not have access to it.' code
    ``model_not_found`` (public incident notes, 2026-09). NOT confirmed (no public body
    found): the context-length, 500 and 503 wordings (OpenAI's texts in Groq's shape). Groq
    has no prepaid balance (no quota kind) and no 403 body was found."""
    wait = delay if delay is not None else 1
    if kind == "rate_limit":
        headers = {"x-ratelimit-limit-requests": "1000", "x-ratelimit-limit-tokens": "6000",
                   "x-ratelimit-remaining-requests": "998",
                   "x-ratelimit-remaining-tokens": "0",
                   "x-ratelimit-reset-requests": "2m52.8s", "x-ratelimit-reset-tokens": f"{wait}s"}
        if delay is not None:
            headers["retry-after"] = str(delay)
        return 429, headers, _groq(
            "Rate limit reached for model `llama-3.3-70b-versatile` in organization "
            "`org_01kztoolcall0000000000000` service tier `on_demand` on tokens per minute "
            f"(TPM): Limit 6000, Used 5435, Requested 3066. Please try again in {wait}s. Need "
            "more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing",
            "tokens", "rate_limit_exceeded")
    if kind == "auth":
        return 401, {}, _groq("Invalid API Key", "invalid_request_error", "invalid_api_key")
    if kind == "model_not_found":
        return 404, {}, _groq("The model `llama-9-toolcall` does not exist or you do not have "
                              "access to it.", "invalid_request_error", "model_not_found")
    if kind == "context_length":  # not confirmed: the wording
        return 400, {}, _groq("Please reduce the length of the messages or completion.",
                              "invalid_request_error", "context_length_exceeded")
    if kind == "server_error":  # not confirmed: the wording
        return 500, {}, _groq("Internal Server Error", "internal_server_error")
    if kind == "overloaded":  # not confirmed: the wording (the errors page's 503 title)
        return 503, {}, _groq("Service Unavailable", "internal_server_error")
    return None


def _together(message: str, type: str, code: str | None = None) -> dict[str, Any]:
    # OpenAI's error object with the request id beside it (the recorded 401)
    return {"id": "oPN9RAs-2j9zxn-9ae97f338de0a29f",
            "error": {"message": message, "type": type, "param": None, "code": code}}


def _together_table(kind: str, delay: int | None) -> tuple[int, dict[str, str], Any] | None:
    """Confirmed 2026-11-25, sources in ``pytest_toolcall.providers.TOGETHER``: the 401 and the
    404 are recorded bodies (maruel/genai's Together test data), the 429's type and message are
    quoted by public client code; the rate-limit headers are on every recorded answer (whether
    the 429 carries Retry-After is not confirmed: it is played when the case gives a delay).
    500 and 503: the error-codes page's statuses, the wording is NOT confirmed. No quota kind:
    the 402's body was not found."""
    model = "Qwen/Qwen3-235B-A22B-Instruct-2507-tput"
    if kind == "rate_limit":
        headers = {"x-ratelimit": "true", "x-ratelimit-limit": "10",
                   "x-ratelimit-remaining": "0", "x-ratelimit-reset": str(delay or 1),
                   "x-ratelimit-limit-tokens": "3000", "x-ratelimit-remaining-tokens": "0"}
        if delay is not None:
            headers["retry-after"] = str(delay)
        return 429, headers, _together(
            f"You have reached the rate limit specific to this model {model}. The maximum rate "
            "limit for this model is 120 queries per minute. This limit differs from the "
            "general rate limits published at Together AI rate limits documentation "
            "(https://docs.together.ai/docs/rate-limits). For inquiries about increasing your "
            "model-specific rate limit, please contact our sales team "
            "(https://www.together.ai/forms/contact-sales)", "model_rate_limit")
    if kind == "auth":
        return 401, {}, _together("Invalid API key provided. You can find your API key at "
                                  "https://api.together.ai/settings/api-keys.",
                                  "invalid_request_error", "invalid_api_key")
    if kind == "model_not_found":
        return 404, {}, _together("Unable to access model toolcall/missing-model. Please visit "
                                  "https://api.together.ai/models to view the list of supported "
                                  "models.", "invalid_request_error", "model_not_available")
    if kind == "server_error":  # not confirmed: the wording
        return 500, {}, _together("Internal server error", "server_error")
    if kind == "overloaded":  # not confirmed: the wording
        return 503, {}, _together("Engine overloaded", "server_error")
    return None


def _llamacpp(status: int, message: str, type: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"code": status, "message": message, "type": type, **extra}}


def _llamacpp_table(kind: str) -> tuple[int, dict[str, str], Any] | None:
    """llama.cpp's llama-server (``{"error": {"code": <status>, "message", "type"}}``,
    ``tools/server/server-common.cpp`` format_error_response, confirmed 2026-11-25): 401
    "Invalid API Key" authentication_error (``server-http.cpp``, only with --api-key); 400
    exceed_context_size_error "request (N tokens) exceeds the available context size (M
    tokens), try increasing it" with ``n_prompt_tokens`` / ``n_ctx`` (measured bodies, b9553;
    PR #18174); 500 server_error with the exception's words, "Failed to parse input at pos N:
    ..." for a tool call the parser could not read (ggml-org/llama.cpp #20532, pwilkin/llama.cpp
    #5); 503 unavailable_error "Loading model" while the model loads (``server-http.cpp``
    middleware_server_state). No rate limits, no quota, no 403 body: a local server."""
    if kind == "auth":
        return 401, {}, {"error": {"message": "Invalid API Key", "type": "authentication_error",
                                   "code": 401}}
    if kind == "context_length":
        return 400, {}, _llamacpp(400, "request (36017 tokens) exceeds the available context "
                                  "size (32768 tokens), try increasing it",
                                  "exceed_context_size_error", n_prompt_tokens=36017,
                                  n_ctx=32768)
    if kind == "server_error":
        return 500, {}, _llamacpp(500, "Failed to parse input at pos 184: <tool_call>\n"
                                  "{\"name\": \"get_weather\", \"arguments\": {\"city\"",
                                  "server_error")
    if kind == "overloaded":
        return 503, {}, _llamacpp(503, "Loading model", "unavailable_error")
    return None


def _xai(code: str, message: str) -> dict[str, Any]:
    # xAI's flat body: the gRPC status name in kebab case and the text (no "error" object)
    return {"code": code, "error": message}


def _xai_table(kind: str) -> tuple[int, dict[str, str], Any] | None:
    """Confirmed 2026-11-25. Statuses from docs.x.ai/developers/debugging (400 also for "an
    incorrect API key", 401 no key, 403, 404 unknown model, 429 rate limit); bodies from public
    reports: 400 invalid-argument 'Incorrect API key provided. ...' (autohandai/code-cli #545,
    2026-09; a client test 'verified live 2026-07-26'); 403 permission-denied 'Your team ... has
    either used all available credits or reached its monthly spending limit. ...' (public agent
    logs and client tests, 2026-09; a 429 'Some resource has been exhausted' in 2026-02,
    continuedev/continue #10373 #10740: historical); 429 resource-exhausted 'Too many requests
    for team ... and model ... Your team's rate limit is ...' (public Go client tests parsing
    it), no Retry-After confirmed (none sent); 404 not-found 'The model ... does not exist or
    your team ... does not have access to it. ...' (xAI's models guidance as quoted publicly;
    a public gateway test); 400 'This model's maximum prompt length is N but the request
    contains M tokens.' (litellm XaiException quoted in public client tests, code
    invalid-argument). 500: the code and wording are NOT confirmed (no public body found)."""
    if kind == "rate_limit":
        return 429, {}, _xai("resource-exhausted", (
            "Too many requests for team 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d and model "
            "grok-4.3. Your team's rate limit is \u2014 Requests per Minute (actual/limit): "
            "61/60."))
    if kind == "quota":
        return 403, {}, _xai("permission-denied", (
            "Your team 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d has either used all available "
            "credits or reached its monthly spending limit. To continue making API requests, "
            "please purchase more credits or raise your spending limit."))
    if kind == "auth":
        return 400, {}, _xai("invalid-argument", "Incorrect API key provided. You can obtain "
                             "an API key from https://console.x.ai.")
    if kind == "model_not_found":
        return 404, {}, _xai("not-found", (
            "The model grok-9-toolcall does not exist or your team "
            "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d does not have access to it. If you believe "
            "this is a mistake, please contact support and quote your team ID and the model "
            "name."))
    if kind == "context_length":
        return 400, {}, _xai("invalid-argument", "This model's maximum prompt length is 131072 "
                             "but the request contains 140123 tokens.")
    if kind == "server_error":  # not confirmed: the code and the wording
        return 500, {}, _xai("internal", "Internal server error")
    return None


def _vllm(status: int, message: str, type: str, param: str | None = None) -> dict[str, Any]:
    # vLLM's ErrorResponse since v0.10.1: the code is the HTTP status, an integer
    return {"error": {"message": message, "type": type, "param": param, "code": status}}


def _vllm_table(kind: str) -> tuple[int, dict[str, str], Any] | None:
    """Confirmed 2026-11-25 from vLLM's server code (vllm-project/vllm): a wrong or missing
    --api-key is 401 {"error": "Unauthorized"} (the authentication middleware); an unknown
    model 404 NotFoundError "The model `...` does not exist." (engine/serving.py _check_model);
    a prompt past max_model_len 400 BadRequestError "This model's maximum context length is N
    tokens. However, your request has M input tokens. ..." (_validate_input); a failed
    generation 500 InternalServerError "Internal server error" (GenerationError). vLLM queues
    requests: no rate limit, no quota, no 403; an overloaded server's answer is not confirmed
    (not played)."""
    if kind == "auth":
        return 401, {}, {"error": "Unauthorized"}
    if kind == "model_not_found":
        return 404, {}, _vllm(404, "The model `Qwen/Qwen9-toolcall` does not exist.",
                              "NotFoundError", "model")
    if kind == "context_length":
        return 400, {}, _vllm(400, "This model's maximum context length is 32768 tokens. "
                              "However, your request has 40960 input tokens. Please reduce "
                              "the length of the input messages.", "BadRequestError",
                              "input_tokens")
    if kind == "server_error":
        return 500, {}, _vllm(500, "Internal server error", "InternalServerError")
    return None


def _fireworks_table(kind: str, delay: int | None) -> tuple[int, dict[str, str], Any] | None:
    """Confirmed 2026-11-25, sources in ``pytest_toolcall.providers.FIREWORKS``: the 401 is a live
    capture, the 404 and the 429 are quoted bodies (the 429's error is a string, its words in
    ``message``; its headers are not confirmed: Retry-After only when the case gives a delay).
    500 and 503: the error-codes page's statuses, the wording is NOT confirmed. No quota kind
    (the 402's body was not found)."""
    if kind == "rate_limit":
        headers = {"retry-after": str(delay)} if delay is not None else {}
        return 429, headers, {"error": "Too Many Requests", "message": (
            "You have exceeded your usage limits. Please try again later or contact Fireworks "
            "to explore dedicated capacity.")}
    if kind == "auth":
        return 401, {}, {"error": {"message": "The API key you provided is invalid.",
                                   "code": "UNAUTHORIZED", "type": "error"}}
    if kind == "model_not_found":
        return 404, {}, {"error": {"message": "Model not found, inaccessible, and/or not "
                                              "deployed", "param": "model", "code": "NOT_FOUND",
                                   "type": "error"}}
    if kind == "server_error":  # not confirmed: the wording
        return 500, {}, {"error": {"type": "server_error", "message": "Internal server error"},
                         "type": "error"}
    if kind == "overloaded":  # not confirmed: the wording
        return 503, {}, {"error": {"type": "service_unavailable",
                                   "message": "Service unavailable"}, "type": "error"}
    return None

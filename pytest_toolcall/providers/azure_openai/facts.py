"""Azure OpenAI (the openai wire): the facts the fake plays, each with
its source and the date it was confirmed.

Data only (the provider registry, ``pytest_toolcall.providers``, reads ``PROVIDER``);
docs/providers.md lists them."""

from __future__ import annotations

from pytest_toolcall.providers._facts import Fact, Provider

_AZ_CONFIRMED = "2026-11-25"
_AZ_DOCS = "https://learn.microsoft.com/azure/foundry/openai"
_AZ_SDK = "openai 3.57.0 openai/lib/azure.py"

#: Azure OpenAI ({resource}.openai.azure.com): OpenAI's Chat Completions on Azure's deployment
#: route (api-version) and v1 route, api-key or Entra ID bearer auth, content-filter chunks and
#: errors, gateway error bodies (issue 13). Served by the ``azure-openai`` dialect class
#: (pytest_toolcall.providers.azure_openai.dialect) and the AzureOpenAIAdapter reference. Facts
#: without a confirmed date inherit OpenAI's behaviour.
AZURE_OPENAI = Provider(name="azure-openai", dialect="openai", family="openai", facts={
    "routes": Fact("POST {endpoint}/openai/deployments/{deployment}/chat/completions?api-"
                   "version=YYYY-MM-DD[-preview] (latest GA data-plane inference version "
                   "2024-10-21); POST {endpoint}/openai/v1/chat/completions without api-version "
                   "(v1 API, GA since August 2025; model = the deployment name)",
                   f"learn.microsoft.com Azure OpenAI REST API reference (data plane "
                   f"inference); {_AZ_DOCS}/api-version-lifecycle (v1 API); {_AZ_SDK} "
                   "(AzureOpenAI: base_url {azure_endpoint}/openai, /deployments/{model} "
                   "prepended to /chat/completions, default_query api-version); openai-node "
                   "docs/azure.md", _AZ_CONFIRMED),
    "api_version": Fact("the deployment route without api-version is 404 {error: {code: '404', "
                        "message: 'Resource not found'}}; an unknown version is 400 {error: "
                        "{code: 'BadRequest', message: 'API version not supported'}}",
                        "MicrosoftDocs/azure-docs #114602 (404 without api-version), "
                        "openai/openai-python #362 (the raw 404 body), ThinkInAIXYZ/deepchat "
                        "#262, andrewyng/aisuite PR #186; hotovo/aider-desk #460 (2025-11), "
                        "mindsdb #11563 (400 body)", _AZ_CONFIRMED),
    "api_version_catalogue": Fact("which dated versions exist is not played: any YYYY-MM-DD or "
                                  "YYYY-MM-DD-preview is taken; the order of the version and "
                                  "key checks is not confirmed (the version is checked first)"),
    "auth": Fact("api-key: <key> header, or Authorization: Bearer <Microsoft Entra ID token>; "
                 "neither or a wrong key: 401 {error: {code: '401', message: 'Access denied due "
                 "to invalid subscription key or wrong API endpoint. Make sure to provide a "
                 "valid key for an active subscription and use a correct regional API endpoint "
                 "for your resource.'}}",
                 f"the REST reference (Authentication); {_AZ_SDK} _auth_headers / "
                 "_prepare_options; SciSharp/BotSharp #386 (the body, Content-Length 224), "
                 "microsoft/semantic-kernel #10337 (2025-01), microsoft/genaiscript #781",
                 _AZ_CONFIRMED),
    "auth_missing_key": Fact("the wording of a 401 without any key is not confirmed (API "
                             "Management gateways answer {statusCode: 401, message: 'Access "
                             "denied due to missing subscription key...'}, openai-python #1527,"
                             " continue #4601: a gateway's, not played): the bad-key body is "
                             "sent; whether the v1 route takes an API key as a bearer token is "
                             "documented (api-version-lifecycle: OpenAI(api_key=...)), whether "
                             "the dated route does is not: the fake takes it on both"),
    "error_shape": Fact("gateway errors {error: {code: '<string>', message}} (401, 404 "
                        "DeploymentNotFound, 429); model errors OpenAI's {error: {message, "
                        "type, param, code}} (context_length_exceeded, server_error)",
                        "the bodies quoted under auth, deployment_not_found, rate_limit; "
                        "microsoft/kernel-memory #516, Azure/azure-sdk-for-python #40812",
                        _AZ_CONFIRMED),
    "deployment_not_found": Fact("404 {error: {code: 'DeploymentNotFound', message: 'The API "
                                 "deployment for this resource does not exist. If you created "
                                 "the deployment within the last 5 minutes, please wait a "
                                 "moment and try again.'}}",
                                 "chatboxai/chatbox #861 and #646, Azure-Samples/azure-search-"
                                 "openai-demo-csharp #379 (2024-11), MicrosoftDocs/azure-docs "
                                 "#114013", _AZ_CONFIRMED),
    "rate_limit": Fact("429 {error: {code: '429', message: 'Requests to the ChatCompletions_"
                       "Create Operation under Azure OpenAI API version <v> have exceeded token "
                       "rate limit of your current OpenAI S0 pricing tier. Please retry after N "
                       "seconds. ...'}} with Retry-After (seconds) and retry-after-ms, "
                       "x-ratelimit-remaining-requests / -tokens (2025-12 wording: 'Your requests "
                       "to <deployment> ... have exceeded the token rate limit ...': not played)",
                       "vanderschaarlab/climb #1 (2025-01), alex-wolf-ps/dbchatprov2 #2, "
                       "jasonacox/TinyLLM #17; icereed/paperless-gpt #814 (2025-12); "
                       "Azure/azure-openai-benchmark #31 (retry-after-ms); Azure/azure-rest-api-"
                       "specs #26884 (x-ratelimit-remaining-*); openai-python #937 (headers of "
                       f"a 429); {_AZ_SDK.split(' openai/')[0]} _base_client.py reads "
                       "retry-after-ms first", _AZ_CONFIRMED),
    "overloaded": Fact("peak load is a 429 'The system is currently experiencing high demand "
                       "and cannot process your request. ... Please retry after 20 seconds. "
                       "...' (relayed by pollinations #6260, 2025-12): the body's code and the "
                       "header are not confirmed ('429' and Retry-After played)"),
    "content_filter": Fact("a filtered prompt: 400 {error: {message: 'The response was "
                           "filtered due to the prompt triggering Azure OpenAI's content "
                           "management policy. ...', type: null, param: 'prompt', code: "
                           "'content_filter', status: 400, innererror: {code: "
                           "'ResponsibleAIPolicyViolation', content_filter_result: {...}}}}; a "
                           "filtered completion: finish_reason 'content_filter'",
                           "vibrantlabsai/ragas #649, compl-ai/compl-ai #20, simonw/research "
                           "#16 (2025-11), BerriAI/litellm PR #16231, openai-python #331; "
                           "the REST reference (finish_reason content_filter)", _AZ_CONFIRMED),
    "stream_shape": Fact("a first chunk {choices: [], created: 0, id: '', model: '', object: "
                         "'', prompt_filter_results: [{prompt_index: 0, content_filter_"
                         "results: {...}}]}; then OpenAI's chunks with content_filter_results "
                         "on each choice ({} on role, tool-call and finish chunks); keys sorted; "
                         "with include_usage a choices: [] usage chunk last",
                         "InternLM/MindSearch #310 (2025-07), CoderCookE/vim-llm-agent PR #37, "
                         "AbanteAI mentat #429, pydantic/pydantic-ai #164, pydantic/logfire #64, "
                         "seratch/ChatGPT-in-Slack PR #49; recorded gpt-5.2-chat tool-call "
                         "streams (2026-02) and a gpt-5.4-mini stream (2026) in public test data",
                         _AZ_CONFIRMED),
    "stream_async_filter": Fact("the asynchronous filter mode's chunks with content_filter_"
                                "offsets and no delta are not played"),
    "prompt_annotations": Fact("historical: api-version 2023-06-01-preview named the first "
                               "chunk's field prompt_annotations (seratch/ChatGPT-in-Slack PR "
                               "#49); not played"),
    "ids": Fact("completion ids 'chatcmpl-' + 29 letters/digits, call ids 'call_' + 24, as "
                "OpenAI's", "the recorded streams above", _AZ_CONFIRMED),
    "request_errors": Fact("the wording of Azure's 400s for malformed requests is not "
                           "confirmed rule by rule: OpenAI's rejections are played"),
    "midstream_error": Fact("the shape of an error inside a 200 stream is not confirmed: "
                            "OpenAI's data: {error} is played"),
})

PROVIDER = AZURE_OPENAI

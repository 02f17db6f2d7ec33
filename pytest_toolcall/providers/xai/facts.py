"""xAI (the openai wire): the facts the fake plays, each with
its source and the date it was confirmed.

Data only (the provider registry, ``pytest_toolcall.providers``, reads ``PROVIDER``);
docs/providers.md lists them."""

from __future__ import annotations

from pytest_toolcall.providers._facts import Fact, Provider

_XA_CONFIRMED = "2026-11-25"
_XA_DOCS = "https://docs.x.ai/developers"
_XA_VERCEL = "vercel/ai packages/xai/src/__fixtures__"

#: xAI (api.x.ai/v1): the openai wire with flat {code, error} bodies (a wrong key is a 400), each
#: tool call whole in one stream chunk, grok-3-mini's reasoning_content and usage whose total
#: counts the reasoning tokens completion_tokens leaves out (issue 13). Served by the ``xai``
#: dialect class (dialect.py) and the XAIAdapter reference. Facts without a
#: confirmed date inherit OpenAI's behaviour.
XAI = Provider(name="xai", dialect="openai", family="openai", facts={
    "routes": Fact("POST /v1/chat/completions; base_url https://api.x.ai/v1 (also /v1/responses "
                   "and /v1/messages, not played)",
                   f"{_XA_DOCS}/rest-api-reference; vercel/ai packages/xai xai-chat-language-"
                   "model.ts (https://api.x.ai/v1 + /chat/completions)", _XA_CONFIRMED),
    "auth": Fact("Authorization: Bearer <key>; a WRONG key is 400 {code: 'invalid-argument', "
                 "error: 'Incorrect API key provided. You can obtain an API key from "
                 "https://console.x.ai.'}; until 2026-03 the text showed the key masked "
                 "('Incorrect API key provided: sk***YA. ...', historical) and in 2025 the code "
                 "was 'Client specified an invalid argument' (historical)",
                 f"{_XA_DOCS}/debugging ('400 ... An incorrect API key was supplied'); "
                 "autohandai/code-cli #545 (2026-09-01, grok-4.20); a public client test "
                 "'verified live 2026-07-26'; continuedev/continue #10161 #11412 (2026-02/03, "
                 "masked); i-am-bee/beeai-framework #447, nocmt/LLMSearchPlus #2 (2025)",
                 _XA_CONFIRMED),
    "auth_missing_key": Fact("a request without a key is 401 (the debugging page); the body is "
                             "not confirmed: {code: 'unauthenticated', error: <the page's cause "
                             "text>} is played"),
    "error_shape": Fact("{code: <gRPC status name, kebab case>, error: <text>} at the top level, "
                        "no 'error' object: 400 invalid-argument, 403 permission-denied, 404 "
                        "not-found, 429 resource-exhausted; statuses per the debugging page "
                        "(400, 401, 403, 404, 405, 415, 422, 429)",
                        f"{_XA_DOCS}/debugging; vercel/ai packages/xai/src/xai-error.test.ts "
                        "({code, error} shape); live bodies quoted in public client tests "
                        "(2026-07 to 2026-09: invalid-argument 'Model grok-4.20-0309-non-"
                        "reasoning does not support parameter reasoningEffort.', 'Client-side "
                        "tools for multi-agent models require beta access')", _XA_CONFIRMED),
    "error_codes_other": Fact("the code names of 401, 408, 5xx (unauthenticated, deadline-"
                              "exceeded, internal, unavailable) follow the same gRPC naming and "
                              "are not confirmed; the wording of request-validation 400s is not "
                              "confirmed rule by rule: OpenAI's words are played in xAI's shape"),
    "credits_exhausted": Fact("403 {code: 'permission-denied', error: 'Your team <id> has either "
                              "used all available credits or reached its monthly spending "
                              "limit. To continue making API requests, please purchase more "
                              "credits or raise your spending limit.'}; not retryable as it is. "
                              "In 2026-02 the same text came as 429 {code: 'Some resource has "
                              "been exhausted'} (historical)",
                              "public agent logs and client tests (2026-09-20 to 09-23: HTTP "
                              "403 permission-denied); continuedev/continue #10373 #10740 "
                              "(2026-02, 429)", _XA_CONFIRMED),
    "rate_limit": Fact("429 {code: 'resource-exhausted', error: 'Too many requests for team <id> "
                       "and model <model>. Your team's rate limit is \u2014 Requests per Minute "
                       "(actual/limit): N/M.'}; no Retry-After or rate-limit header confirmed "
                       "(none sent)",
                       f"{_XA_DOCS}/debugging (429 on inference endpoints); public Go client "
                       "tests parsing the live 429 text (per-second and per-minute variants)",
                       _XA_CONFIRMED),
    "model_not_found": Fact("404 {code: 'not-found', error: 'The model <id> does not exist or "
                            "your team <id> does not have access to it. If you believe this is "
                            "a mistake, please contact support and quote your team ID and the "
                            "model name.'}",
                            f"{_XA_DOCS}/debugging (404: a model not found); xAI's models "
                            "guidance as quoted publicly; a public gateway test", _XA_CONFIRMED),
    "context_length": Fact("400 {code: 'invalid-argument', error: \"This model's maximum prompt "
                           "length is 131072 but the request contains 537812 tokens.\"}",
                           "litellm XaiException quoted in public client tests (2026, 500000 "
                           "vs 637815); context-overflow classifiers listing xAI's wording; "
                           "inspect_ai grok provider ('prompt length' -> model_length)",
                           _XA_CONFIRMED),
    "server_error": Fact("the 500 and 503 bodies are not confirmed: {code: 'internal', error: "
                         "'Internal server error'} is played for 500; no overloaded kind"),
    "tool_choice": Fact("auto, required, none, {type: function, function: {name}}; parallel "
                        "function calling on by default (parallel_tool_calls); up to 200 tools",
                        f"{_XA_DOCS}/tools/function-calling; chenyme/grok2api #219 (quoting the "
                        "page); inspect_ai grok provider (auto / required / none / named)",
                        _XA_CONFIRMED),
    "stream_tool_calls": Fact("each call whole in one chunk: one tool_calls entry {id, "
                              "function: {name, arguments: <the whole JSON>}, index, type} "
                              "('With streaming, the function call is returned in whole in a "
                              "single chunk, not streamed across chunks'): xAI's normal shape, "
                              "not a quirk; whether parallel calls share one chunk or take one "
                              "each is not confirmed (one each is played)",
                              f"{_XA_DOCS}/tools/function-calling; {_XA_VERCEL}/xai-tool-call."
                              "chunks.txt (grok-3-mini, recorded 2026-02-10); vercel/ai "
                              "xai-chat-language-model.ts ('xai tool calls come in one piece')",
                              _XA_CONFIRMED),
    "stream_shape": Fact("chunks {id, object: chat.completion.chunk, created, model, choices: "
                         "[{index, delta}], system_fingerprint}: no finish_reason key and no "
                         "logprobs before the finish chunk, whose delta is {}; role rides on "
                         "the first delta with the first piece; with stream_options."
                         "include_usage a choices: [] chunk carries the usage",
                         f"{_XA_VERCEL}/xai-tool-call.chunks.txt and xai-text.chunks.txt "
                         "(recorded 2026-02-10; the request sent include_usage)", _XA_CONFIRMED),
    "stream_usage_without_option": Fact("without include_usage: not confirmed today (grok-beta "
                                        "in 2024 sent usage on every chunk, historical): "
                                        "OpenAI's behaviour, no usage, is played"),
    "stream_done": Fact("the closing 'data: [DONE]' is not in the recorded fixtures (stored "
                        "without SSE framing): OpenAI's is played"),
    "midstream_error": Fact("the shape of an error inside a 200 stream is not confirmed: "
                            "OpenAI's data: {error} is played"),
    "reasoning_content": Fact("Chat Completions: only grok-3-mini returns message."
                              "reasoning_content (stream: delta.reasoning_content pieces "
                              "before content and calls); grok-3 / grok-4 return none; the "
                              "grok-4 family's reasoning is encrypted and comes only from the "
                              "Responses API with include: ['reasoning.encrypted_content']; "
                              "nothing asks for reasoning_content to come back and xAI's "
                              "clients do not send it",
                              f"{_XA_DOCS}/model-capabilities/text/reasoning; docs.x.ai/docs/"
                              f"guides/reasoning ('only grok-3-mini returns message."
                              f"reasoning_content'); {_XA_VERCEL}/xai-tool-call.json; vercel/ai "
                              "convert-to-xai-chat-messages.ts", _XA_CONFIRMED),
    "reasoning_effort": Fact("grok-3-mini: reasoning_effort low|high; grok-4.3: none|low|"
                             "medium|high (default low); other models refuse it with 400 "
                             "invalid-argument 'Model <id> does not support parameter "
                             "reasoningEffort.' / 'This model does not support "
                             "`reasoning_effort` value `none`.'; presence_penalty, "
                             "frequency_penalty and stop are refused by reasoning models; not "
                             "enforced by the fake",
                             f"{_XA_DOCS}/model-capabilities/text/reasoning; docs.x.ai/docs/"
                             "guides/reasoning; live 400 bodies in a public client's tests",
                             _XA_CONFIRMED),
    "usage_fields": Fact("completion_tokens EXCLUDES reasoning tokens: total_tokens = "
                         "prompt_tokens + completion_tokens + completion_tokens_details."
                         "reasoning_tokens (291 + 26 + 196 = 513); prompt_tokens_details "
                         "{text_tokens, audio_tokens, image_tokens, cached_tokens}; "
                         "num_sources_used, cost_in_usd_ticks",
                         f"{_XA_VERCEL}/xai-tool-call.chunks.txt, xai-text.chunks.txt, "
                         "xai-tool-call.json; Vertex AI's Grok reasoning guide ('reasoning_"
                         "tokens ... separated from the completion_tokens')", _XA_CONFIRMED),
    "ids": Fact("call ids 'call_' + 8 digits (call_55117580, call_93562515); completion ids "
                "UUID-shaped (de9d896d-e946-b3a7-bb14-75ab33326930); non-stream tool_calls carry "
                "no index", f"{_XA_VERCEL}/xai-tool-call.chunks.txt, xai-tool-call.json",
                _XA_CONFIRMED),
}, quirks={})

PROVIDER = XAI

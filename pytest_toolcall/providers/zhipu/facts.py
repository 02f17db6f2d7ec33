"""Zhipu / Z.ai GLM (the openai wire): the facts the fake plays, each with
its source and the date it was confirmed.

Data only (the provider registry, ``pytest_toolcall.providers``, reads ``PROVIDER``);
docs/providers.md lists them."""

from __future__ import annotations

from pytest_toolcall.providers._facts import Fact, Provider

_ZP_CONFIRMED = "2026-11-25"
_ZP_SDK = "zai-org/z-ai-sdk-python src/zai"

#: Zhipu AI / Z.ai (open.bigmodel.cn, api.z.ai): GLM on the openai wire with business-code errors,
#: auto-only tool_choice, its own tool types, whole calls on the finish chunk and reasoning_content
#: (issue 13). Served by the ``zhipu`` dialect class (pytest_toolcall.providers.zhipu.dialect) and
#: the ZhipuAdapter reference. Facts without a confirmed date inherit OpenAI's behaviour.
ZHIPU = Provider(name="zhipu", dialect="openai", family="openai", facts={
    "routes": Fact("POST https://open.bigmodel.cn/api/paas/v4/chat/completions (Zhipu) and "
                   "https://api.z.ai/api/paas/v4/chat/completions (Z.ai, international), both "
                   "current; the GLM Coding Plan at /api/coding/paas/v4",
                   f"{_ZP_SDK}/_client.py (ZhipuAiClient / ZaiClient default_base_url); "
                   "docs.bigmodel.cn and docs.z.ai API reference (servers, POST "
                   "/paas/v4/chat/completions); docs.z.ai devpack", _ZP_CONFIRMED),
    "auth": Fact("Authorization: Bearer <key> (the SDK can also send a JWT signed with the key; "
                 "not played); no header: 401 {error: {code: '1001', message: 'Header中未收到"
                 "Authorization参数，无法进行身份验证。'}}; a bad key: 401 code '1000' '身份验证失败。'",
                 f"{_ZP_SDK}/_client.py auth_headers; recorded curl runs against "
                 "open.bigmodel.cn quoted in public repos; a gateway's live evidence "
                 "(2026-10-09)", _ZP_CONFIRMED),
    "error_shape": Fact("{error: {code: '<business code, a string>', message}} with the HTTP "
                        "status outside; no type, no param. Chinese texts on open.bigmodel.cn, "
                        "English on api.z.ai (1211 'Unknown Model, please check the model "
                        "code.', 1302 'Rate limit reached for requests', 1113 'Insufficient "
                        "balance or no resource package. Please recharge.')",
                        "docs.z.ai/api-reference/api-code (HTTP status and business codes "
                        "1000-1309); CodexPlusPlus PR #2195 (probe table); public test fixtures "
                        "quoting recorded bodies", _ZP_CONFIRMED),
    "error_codes": Fact("429 1302 concurrency, 1305 model overloaded, 1113 balance used up "
                        "(not retryable), 1308 usage limit (z.ai names the reset time in the "
                        "message); 400 1210 bad parameters, 1211 unknown model, 1214 invalid "
                        "parameter, 1261 'Prompt exceeds max length' (no number); 401 1000/1001; "
                        "no Retry-After, no rate-limit headers",
                        "docs.z.ai/api-reference/api-code; a public measured write-up (three "
                        "concurrent requests: '{\"error\":{\"code\":\"1302\",...}}', no "
                        "Retry-After / X-RateLimit-*); a gateway's live evidence 2026-10-09 "
                        "(1000, 1113, 1261, 1305, 1210)", _ZP_CONFIRMED),
    "server_error_wording": Fact("500's body wording is not confirmed: the api-code page's "
                                 "'Internal Error' with code '500' is played"),
    "tool_choice": Fact("only 'auto' ('默认为auto，当前仅支持auto'); 'required' and a named "
                        "function are refused with 400 'Tool choice must be auto'",
                        "Zhipu's API reference text quoted by GLM clients (zhipuai SDK param "
                        "docs, langchain-community ChatZhipuAI, spring-ai); hindsight #4246, "
                        "xagent #1960, github/copilot-cli #4646 (Z.AI via OpenRouter, "
                        "2026-09); agentscope GLM formatter", _ZP_CONFIRMED),
    "tool_choice_wording": Fact("the direct API's code for a refused tool_choice is not "
                                "confirmed ('Tool choice must be auto' is OpenRouter's relay): "
                                "code '1214' is played; 'none' is refused by the docs' rule, no "
                                "recorded refusal"),
    "tool_types": Fact("function, and GLM's own web_search and retrieval tools; any other type "
                       "is 400 {error: {code: '1214', message: 'tools[0].type:type is "
                       "illegal'}}",
                       "openai-interface 0.14.0 zai module (retrieval, web_search tools); "
                       "zai SDK tool params; a public measured write-up (custom and tool_search "
                       "types on z.ai)", _ZP_CONFIRMED),
    "response_format": Fact("json_schema is accepted and ignored (measured); not enforced"),
    "reasoning_content": Fact("GLM-4.5+ thinking (default on GLM-4.7 / 5.x; thinking: {type: "
                              "enabled|disabled}; clear_thinking: false keeps earlier turns' "
                              "reasoning) returns reasoning_content next to content; with tools "
                              "it should be returned with the tool results, complete and "
                              "unmodified; no error is known when it is left out (not "
                              "enforced: the cases check what is sent)",
                              "docs.z.ai/guides/capabilities/thinking-mode; docs.bigmodel.cn "
                              "思考模式 ('必须显式保留 Reasoning content'); zai-rs ThinkingType; "
                              f"{_ZP_SDK}/types/chat/chat_completion.py", _ZP_CONFIRMED),
    "stream_shape": Fact("role 'assistant' on every delta; no finish_reason key before the last "
                         "chunk; a tool call whole (id, type, function{name, arguments}, index) "
                         "in one delta on the chunk with finish_reason 'tool_calls'; object "
                         "'chat.completion.chunk' (absent in 2024-2025 streams: historical)",
                         "docs.bigmodel.cn / docs.z.ai streaming examples; langchain PR #26693 "
                         "(glm-4-flash chunk); recorded glm-4.6 streams (2025-10-18 without "
                         "object, 2026-02-10 with it)", _ZP_CONFIRMED),
    "stream_usage": Fact("usage on the finish chunk; with stream_options.include_usage a "
                         "separate choices: [] chunk after it",
                         "docs.z.ai/guides/capabilities/streaming (example); a recorded glm-4.6 "
                         "stream (2026-02-10)", _ZP_CONFIRMED),
    "tool_stream": Fact("tool_stream: true (GLM-4.6+) streams the arguments in fragments; the "
                        "fragment shape is not confirmed: OpenAI's is played",
                        "docs.z.ai/guides/capabilities/stream-tool", _ZP_CONFIRMED),
    "ids": Fact("call ids 'call_-' + 19 digits, consecutive within an answer; earlier "
                "'call_<request id>' (2024, historical); completion id = request_id, a "
                "timestamp and 16 hex digits; non-stream tool_calls carry index",
                "a recorded glm-5.2 answer (2026-09-13) in a public test suite; a recorded "
                "glm-4.7 answer (2026-04-24); langchain PR #26693 (2024)", _ZP_CONFIRMED),
    "usage_fields": Fact("usage: completion_tokens, completion_tokens_details.reasoning_tokens, "
                         "prompt_tokens, prompt_tokens_details.cached_tokens, total_tokens",
                         "the recorded glm-5.2 and glm-4.7 answers", _ZP_CONFIRMED),
    "tool_pairing": Fact("GLM's wording for unanswered calls or orphan tool messages is not "
                         "confirmed: OpenAI's rules and words are played"),
    "midstream_error": Fact("the shape of an error inside a 200 stream is not confirmed "
                            "(docs.bigmodel.cn: an aborted stream reports it in finish_reason): "
                            "OpenAI's data: {error} is played in Zhipu's error shape"),
})

PROVIDER = ZHIPU

"""Groq (the openai wire): the facts the fake plays, each with
its source and the date it was confirmed.

Data only (the provider registry, ``pytest_toolcall.providers``, reads ``PROVIDER``);
docs/providers.md lists them."""

from __future__ import annotations

from pytest_toolcall.providers._facts import Fact, Provider

_GQ_CONFIRMED = "2026-11-25"
_GQ_DOCS = "https://console.groq.com/docs"
_GQ_SDK = "groq 1.7.0 (groq-python) src/groq/types/chat"
_GQ_LIVE = ("live gpt-oss-20b and qwen3-32b stream captures of 2026-08 kept verbatim in a public "
            "test suite (req_01kztr8bqme32rx8ttyjtpk0nw, req_01kz7bdsx2ewjbpzjmx50syk52)")
_GQ_2025 = ("a recorded llama-3.3-70b-versatile stream (req_01jpmhp4mremx857n2f5kf4va5, "
            "2025-03-18) in a public groq-sdk example")

#: Groq (api.groq.com/openai/v1): the openai wire with usage under x_groq, each tool call whole
#: in one chunk, a reasoning field and its tool_use_failed 400 (issue 13). Served by the
#: ``groq`` dialect class (dialect.py) and the GroqAdapter reference. Facts
#: without a confirmed date inherit OpenAI's behaviour.
GROQ = Provider(name="groq", dialect="openai", family="openai", facts={
    "routes": Fact("POST /openai/v1/chat/completions; base_url https://api.groq.com/openai/v1",
                   f"{_GQ_DOCS}/api-reference; groq 1.7.0 _client.py (base_url); {_GQ_2025}",
                   _GQ_CONFIRMED),
    "auth": Fact("Authorization: Bearer <key>; a bad key is 401 {error: {message: 'Invalid API "
                 "Key', type: 'invalid_request_error', code: 'invalid_api_key'}}",
                 "nark/WiredSwift #44 (2026-03), ag5826000/resume-commentor #4 (2025-03, "
                 "content-length 96)", _GQ_CONFIRMED),
    "auth_missing_key": Fact("the wording of a 401 without any key is not confirmed: the fake "
                             "sends the bad-key body"),
    "error_shape": Fact("{error: {message, type, code}} without param (failed_generation added "
                        "on tool_use_failed); statuses 400, 401, 403, 404, 413, 422, 424, 429, "
                        "498 (flex capacity), 499, 500, 502, 503",
                        f"{_GQ_DOCS}/errors; the bodies quoted under auth, tool_use_failed, "
                        "rate_limit, model_not_found", _GQ_CONFIRMED),
    "tool_use_failed": Fact("a tool call the model wrote wrongly is 400 {error: {message: "
                            "\"Failed to call a function. Please adjust your prompt. See "
                            "'failed_generation' for more details.\", type: "
                            "'invalid_request_error', code: 'tool_use_failed', "
                            "failed_generation: '<the model's text>'}} (some 2026 bodies drop "
                            "the last sentence)",
                            "agno-agi/agno #4090 (2025-08), huggingface/smolagents #1119, "
                            "sipeed/picoclaw #748 (2026), chiruu12/Hive v0.5.1 release notes",
                            _GQ_CONFIRMED),
    "rate_limit": Fact("429 {error: {message: 'Rate limit reached for model `<m>` in organization "
                       "`org_...` service tier `on_demand` on tokens per minute (TPM): Limit "
                       "6000, Used 5435, Requested 3066. Please try again in 25.01s. Need more "
                       "tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/"
                       "billing', type: 'tokens', code: 'rate_limit_exceeded'}}; retry-after "
                       "(seconds) on 429 only; x-ratelimit-limit-requests (RPD), -limit-tokens "
                       "(TPM), -remaining-requests, -remaining-tokens, -reset-requests "
                       "('2m59.56s'), -reset-tokens ('7.66s') on every answer",
                       f"{_GQ_DOCS}/rate-limits (Rate Limit Headers); public litellm logs "
                       "quoting GroqException bodies (aider chat history, agent logs 2025-12); "
                       "a public client's header table", _GQ_CONFIRMED),
    "model_not_found": Fact("404 {error: {message: 'The model `<m>` does not exist or you do "
                            "not have access to it.', type: 'invalid_request_error', code: "
                            "'model_not_found'}}; a retired model is 400 code "
                            "'model_decommissioned'",
                            "public incident notes quoting GroqException bodies (2026-09); "
                            "litellm-based test fixtures (model_decommissioned)", _GQ_CONFIRMED),
    "error_wordings_unconfirmed": Fact("the wordings of context-length (400), 500 and 503 "
                                       "bodies are not confirmed: OpenAI's texts in Groq's shape "
                                       "are played"),
    "tool_choice": Fact("none, auto, required, {type: function, function: {name}}; "
                        "parallel_tool_calls a boolean; disable_tool_validation",
                        f"{_GQ_SDK}/chat_completion_tool_choice_option_param.py, "
                        "completion_create_params.py", _GQ_CONFIRMED),
    "stream_shape": Fact("first chunk {role: 'assistant', content: ''} with x_groq {id, seed}; "
                         "each tool call whole in one chunk {id, type, function{name, "
                         "arguments}, index}, one chunk per call; the finish chunk's delta {} "
                         "with x_groq {id, usage}; no usage key on other chunks",
                         f"{_GQ_2025}; {_GQ_LIVE}; BerriAI/litellm #7621 (2025-01: 'Groq "
                         "outputs a single chunk per one tool call') and #10034; vercel/ai PR "
                         "#1653 (Groq: 'the entire tool call payload in a single delta'); "
                         "meta-llama/llama-stack PR #630", _GQ_CONFIRMED),
    "stream_usage": Fact("usage under x_groq.usage on the finish chunk (with queue_time, "
                         "prompt_time, completion_time, total_time), always; with "
                         "stream_options.include_usage also a top-level usage on the finish "
                         "chunk and a choices: [] chunk with usage and service_tier after it",
                         f"{_GQ_SDK}/chat_completion_chunk.py (XGroq.usage: 'Only sent in the "
                         f"final chunk'); vercel/ai #1651 (2024); {_GQ_LIVE} (include_usage); "
                         "Portkey-AI/gateway #1072 and #1338 (2025)", _GQ_CONFIRMED),
    "reasoning": Fact("reasoning_format parsed|raw|hidden (parsed: message.reasoning; raw: "
                      "<think> in content; hidden: none), or include_reasoning (gpt-oss; not "
                      "with reasoning_format); stream: delta.reasoning pieces, with channel "
                      "'analysis' on gpt-oss; an assistant message may carry reasoning back",
                      f"{_GQ_DOCS}/reasoning; {_GQ_SDK}/chat_completion_message.py, "
                      "chat_completion_chunk.py, chat_completion_assistant_message_param.py, "
                      f"completion_create_params.py; {_GQ_LIVE}", _GQ_CONFIRMED),
    "reasoning_required": Fact("whether a tool-call turn must come back with its reasoning is "
                               "not confirmed: nothing is enforced"),
    "midstream_error": Fact("an error inside a 200 stream is a data: {error: {...}} event (the "
                            "groq SDK raises APIError on it: groq-python PR #119, _streaming.py); "
                            "x_groq.error ('why a stream was stopped early') is in the SDK's "
                            "chunk type; the exact body is not confirmed: Groq's error shape "
                            "is played", f"{_GQ_SDK}/chat_completion_chunk.py; groq 1.7.0 "
                            "_streaming.py", _GQ_CONFIRMED),
    "ids": Fact("call ids 'call_' + 4 lowercase letters/digits on llama models (call_re03, "
                "call_785j), 'fc_<uuid>' on gpt-oss; completion ids 'chatcmpl-<uuid>'; "
                "x_groq.id 'req_01' + 24 lowercase base32 (also the x-request-id header)",
                f"{_GQ_2025}; BerriAI/litellm #7621, #10034; {_GQ_LIVE}; public fixtures of "
                "gpt-oss tool calls (fc_ ids)", _GQ_CONFIRMED),
    "request_errors": Fact("the wording of Groq's 400s for malformed requests is not confirmed "
                           "rule by rule: OpenAI's rejections are played"),
}, quirks={
    "one_call_per_chunk": Fact("every tool call of a stream comes whole (id, type, name, "
                               "arguments, index) in a chunk of its own, never in fragments",
                               f"BerriAI/litellm #7621 (2025-01) and #10034 (2025-04); "
                               f"{_GQ_2025}; vercel/ai PR #1653", _GQ_CONFIRMED),
})

PROVIDER = GROQ

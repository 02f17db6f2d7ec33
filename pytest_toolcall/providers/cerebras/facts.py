"""Cerebras (the openai wire): the facts the fake plays, each with
its source and the date it was confirmed.

Data only (the provider registry, ``pytest_toolcall.providers``, reads ``PROVIDER``);
docs/providers.md lists them."""

from __future__ import annotations

from pytest_toolcall.providers._facts import Fact, Provider

_CB_CONFIRMED = "2026-11-25"
_CB_DOCS = "https://inference-docs.cerebras.ai"
_CB_SDK = "cerebras_cloud_sdk 1.91.0 src/cerebras/cloud/sdk/types/chat"
_CB_STREAM = ("a recorded gpt-oss-120b tool-call stream (jleechanorg/codex_plus "
              "testing_integration/cerebras_testing_results.md, 2025-10-04)")

#: Cerebras Inference (api.cerebras.ai): the openai wire with top-level error bodies, a closed
#: request schema, ``reasoning`` and ``time_info`` (issue 13). Served by the ``cerebras`` dialect
#: class (pytest_toolcall.providers.cerebras.dialect) and the CerebrasAdapter reference. Facts
#: without a confirmed date inherit OpenAI's behaviour.
CEREBRAS = Provider(name="cerebras", dialect="openai", family="openai", facts={
    "routes": Fact("POST /v1/chat/completions; base_url https://api.cerebras.ai/v1",
                   f"{_CB_DOCS}/resources/openai (OpenAI Compatibility)", _CB_CONFIRMED),
    "auth": Fact("Authorization: Bearer <key>; a wrong key is 401 {message: 'Wrong API Key', "
                 "type: 'invalid_request_error', param: 'api_key', code: 'wrong_api_key'}; no "
                 "key at all is 403 {detail: 'Not authenticated'} (FastAPI's shape)",
                 "a public API-emulation recipe struck live against api.cerebras.ai on "
                 "2026-09-13 (no header, a bad key); a public Rust client matching the 401 "
                 "body verbatim", _CB_CONFIRMED),
    "error_shape": Fact("{message, type, param, code} at the TOP LEVEL (no 'error' key); "
                        "statuses 400, 401, 402, 403, 404, 422, 429, 500, 503",
                        f"{_CB_DOCS}/support/error (status table); the bodies under auth, "
                        "rate_limit, quota, unsupported_keys", _CB_CONFIRMED),
    "rate_limit": Fact("429 {message: 'Tokens per minute limit exceeded - too many tokens "
                       "processed.', type: 'too_many_tokens_error', param: 'quota', code: "
                       "'token_quota_exceeded'} (per day: 'Tokens per day limit exceeded ...'; "
                       "requests: 'Requests per minute limit exceeded - too many requests "
                       "sent.', too_many_requests_error, request_quota_exceeded); headers "
                       "x-ratelimit-limit/remaining/reset-tokens-minute and -requests-day "
                       "(reset in seconds), retry-after (86399 on a daily limit)",
                       "continuedev/continue #9800, anomalyco/opencode #7463 (2026-01); public "
                       "fixtures quoting the whole bodies (augmentum, go clients with "
                       "Retry-After 86399); header readers in public Cerebras clients; "
                       f"{_CB_DOCS}/support/rate-limits", _CB_CONFIRMED),
    "queue_exceeded": Fact("overload is a 429 {message: \"We're experiencing high traffic right "
                           "now!\", code: 'queue_exceeded'} (type not quoted): played as the "
                           "overloaded kind with type 'too_many_requests_error' (not confirmed)",
                           "a public Cerebras retry-policy test suite quoting the 429",
                           _CB_CONFIRMED),
    "quota": Fact("402 {message: 'Payment required to access this resource. Visit your billing "
                  "tab.', type: 'payment_required_error', param: 'quota', code: "
                  "'payment_required'} with x-should-retry: false",
                  "public provider-probe notes (2026-08, 2026-09) quoting the body and header",
                  _CB_CONFIRMED),
    "unsupported_keys": Fact("a request key Cerebras does not know: 422 'body.<key>: property "
                             "'body.<key>' is unsupported' code 'wrong_api_format' (store, "
                             "reasoning, prompt_cache_key before it was added); the known keys "
                             f"are the SDK's CompletionCreateParams ({_CB_SDK}/"
                             "completion_create_params.py)",
                             "mem0 and dirge reports on Cerebras (422 body.store / "
                             "body.prompt_cache_key), a Claude-Code proxy note (422 "
                             "body.reasoning); elizaOS tests quoting a 400 wrong_api_format body "
                             "(param validation_error)", _CB_CONFIRMED),
    "unsupported_keys_body": Fact("the 422's type and param are not quoted whole: "
                                  "invalid_request_error / validation_error as in the 400 "
                                  "wrong_api_format bodies are played"),
    "refused_openai_fields": Fact("historical: frequency_penalty, logit_bias, presence_penalty, "
                                  "parallel_tool_calls and service_tier were refused with 400; "
                                  "the SDK 1.91.0 now lists them all: not played",
                                  "req_llm guides/cerebras.md (1.9-1.10); "
                                  f"{_CB_SDK}/completion_create_params.py", _CB_CONFIRMED),
    "tool_choice": Fact("none, auto, required, {type: function, function: {name}}",
                        f"{_CB_DOCS}/capabilities/tool-use (Tool Choice); {_CB_SDK}/"
                        "completion_create_params.py ToolChoice", _CB_CONFIRMED),
    "strict_tools": Fact("function.strict: true: arguments guaranteed by constrained decoding; "
                         "not enforced",
                         f"{_CB_DOCS}/capabilities/tool-use", _CB_CONFIRMED),
    "parallel_tool_calls": Fact("accepted (SDK param); parallel calls in one answer",
                                f"{_CB_SDK}/completion_create_params.py", _CB_CONFIRMED),
    "reasoning": Fact("gpt-oss-120b and zai-glm-4.7 reason; reasoning_format text_parsed (the "
                      "default) or parsed puts it in message.reasoning / delta.reasoning; raw "
                      "in content, hidden drops it; an assistant message may carry reasoning "
                      "back; disable_reasoning, reasoning_effort (none|low|medium|high), "
                      "clear_thinking switch it; reasoning_content in a message is refused "
                      "(400 wrong_api_format, wording not quoted: not enforced)",
                      f"{_CB_DOCS}/capabilities/reasoning; {_CB_SDK}/chat_completion.py, "
                      "completion_create_params.py; a public tool-loop probe note (2026-07)",
                      _CB_CONFIRMED),
    "stream_shape": Fact("the role chunk alone ({role: 'assistant'}), delta.reasoning pieces, "
                         "a call's first fragment {function{name, arguments: ''}, type, id, "
                         "index}, later ones {function{arguments}, type, index} (type repeated, "
                         "no id), then {delta: {}, finish_reason, usage, time_info}", _CB_STREAM,
                         _CB_CONFIRMED),
    "time_info": Fact("time_info {queue_time, prompt_time, completion_time, total_time, "
                      "created} next to usage, on answers and chunks",
                      f"{_CB_SDK}/chat_completion.py; {_CB_STREAM}; a recorded qwen-3-32b "
                      "answer (2025-05-29)", _CB_CONFIRMED),
    "ids": Fact("call ids 9 lowercase hex digits ('75a06f4da'); system_fingerprint 'fp_' and 20 "
                "hex digits", f"{_CB_STREAM}; a recorded qwen-3-32b answer (2025-05-29)",
                _CB_CONFIRMED),
    "midstream_error": Fact("an error inside a 200 stream is {error: {id, code, message, param, "
                            "type}, status_code}", f"{_CB_SDK}/chat_completion.py "
                            "ErrorChunkResponse", _CB_CONFIRMED),
    "context_length": Fact("400 'Please reduce the length of the messages or completion. "
                           "Current length is 42328 while limit is 40000' (2025-07); the type "
                           "and code are not quoted: invalid_request_error / "
                           "context_length_exceeded played",
                           "cline/cline #5140 (qwen-3-235b-a22b)", _CB_CONFIRMED),
    "model_not_found": Fact("404 {message: 'Model <id> does not exist or you do not have access "
                            "to it.', type: 'not_found_error', param: 'model', code: "
                            "'model_not_found'}",
                            "a public Rust client matching the body's tail; "
                            f"{_CB_DOCS}/quickstart (404 model not found)", _CB_CONFIRMED),
    "server_error_wording": Fact("500 and 503 wordings are not confirmed: 'Internal server "
                                 "error' / 'Service unavailable' are played"),
    "tool_pairing": Fact("Cerebras' wording for unanswered calls or orphan tool messages is not "
                         "confirmed: OpenAI's rules and words are played, in Cerebras' shape"),
}, quirks={
    "role_chunk_alone": Fact("the first chunk carries {role: 'assistant'} alone, no tool-call "
                             "fragment", _CB_STREAM, _CB_CONFIRMED),
})

PROVIDER = CEREBRAS

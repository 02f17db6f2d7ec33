"""vLLM's OpenAI-compatible server (the openai wire): the facts the fake plays, each with
its source and the date it was confirmed.

Data only (the provider registry, ``pytest_toolcall.providers``, reads ``PROVIDER``);
docs/providers.md lists them."""

from __future__ import annotations

from pytest_toolcall.providers._facts import Fact, Provider

_VL_CONFIRMED = "2026-11-25"
_VL_SRC = "vllm-project/vllm vllm/entrypoints"

#: vLLM's OpenAI-compatible server (`vllm serve`, /v1/chat/completions): the openai wire with an
#: optional --api-key, nested errors with integer codes, its request rules (no empty tools,
#: stream_options only when streaming, "auto" only with a tool-call parser), its stream shape
#: and the reasoning field (issue 13). Served by the ``vllm`` dialect class
#: (pytest_toolcall.providers.vllm.dialect) and the VLLMAdapter reference. Facts without a confirmed
#: date inherit OpenAI's behaviour. Every source is vLLM's server code (main, 2026) or a public
#: issue / PR of vllm-project/vllm unless named otherwise.
VLLM = Provider(name="vllm", dialect="openai", family="openai", facts={
    "routes": Fact("POST /v1/chat/completions (the router declares the full path; no bare "
                   "/chat/completions); base_url http://<host>:8000/v1",
                   f"{_VL_SRC}/openai/chat_completion/api_router.py; docs.vllm.ai "
                   "OpenAI-Compatible Server", _VL_CONFIRMED),
    "auth": Fact("optional: with --api-key (or VLLM_API_KEY) every /v1 path wants "
                 "'Authorization: Bearer <key>'; a missing or wrong key is the same 401 "
                 "{error: 'Unauthorized'} (a string); OPTIONS and paths outside /v1 pass",
                 "the api_server's authentication middleware (vllm/entrypoints/openai/"
                 "api_server.py, later server_utils.py AuthenticationMiddleware: "
                 "JSONResponse(content={'error': 'Unauthorized'}, status_code=401)); "
                 "skypilot examples/serve/authentication", _VL_CONFIRMED),
    "error_shape": Fact("{error: {message, type, param, code: <int, the HTTP status>}}; types "
                        "are exception class names: BadRequestError (400), NotFoundError (404), "
                        "InternalServerError (500), NotImplementedError (501); request-model "
                        "failures: type 'Bad Request', message '1 validation error:\\n  {...}' "
                        "(pydantic's error rendered), param the field",
                        f"{_VL_SRC}/openai/engine/serving.py create_error_response; "
                        f"{_VL_SRC}/serve/exception_handling/handlers/validation.py; PR #22099 "
                        "(nested since v0.10.1); neutree-ai/neutree PR #350", _VL_CONFIRMED),
    "error_shape_history": Fact("historical (before v0.10.1, PR #22099): {object: 'error', "
                                "message, type: 'BadRequestError', param: null, code: 400} at "
                                "the top level. Not played.",
                                "vllm issue #12886 (a quoted body); neutree-ai/neutree PR #350 "
                                "(flat before v0.10.1)", _VL_CONFIRMED),
    "validation_wording": Fact("the rendering of the pydantic error inside a validation 400's "
                               "message (its ctx part) is not confirmed: the fake plays "
                               "'1 validation error:\\n  {type, loc, msg: \"Value error, "
                               "<text>\", input}'"),
    "tools_empty": Fact("tools: [] is 400 '`tools` must not be an empty array. Either provide "
                        "at least one tool or omit the field entirely.' (param tools)",
                        f"{_VL_SRC}/openai/chat_completion/protocol.py check_tool_usage; "
                        "Prism-Shadow/penguin-harness changelog 2026-07-22 (the 400 from a "
                        "local vLLM)", _VL_CONFIRMED),
    "stream_options": Fact("stream_options without stream: true is 400 'Stream options can "
                           "only be defined when `stream=True`.' (param stream_options); "
                           "include_usage adds a last choices: [] chunk with usage; "
                           "continuous_usage_stats puts usage on every chunk; without them no "
                           "usage at all (unless the server runs --enable-force-include-usage)",
                           f"{_VL_SRC}/openai/chat_completion/protocol.py validate_stream_"
                           f"options, StreamOptions; {_VL_SRC}/openai/chat_completion/"
                           "serving.py chat_completion_stream_generator", _VL_CONFIRMED),
    "tool_choice": Fact("none, auto, required, {type: function, function: {name}}; tools "
                        "without tool_choice mean 'auto'; a named function not in tools is 400 "
                        "'The tool specified in `tool_choice` does not match any of the "
                        "specified `tools`'; tool_choice without tools: 'When using "
                        "`tool_choice`, `tools` must be set.'",
                        f"{_VL_SRC}/openai/chat_completion/protocol.py check_tool_usage",
                        _VL_CONFIRMED),
    "tool_choice_auto_unconfigured": Fact("'auto' on a server started without "
                                          "--enable-auto-tool-choice and --tool-call-parser is "
                                          "400 '\"auto\" tool choice requires --enable-auto-"
                                          "tool-choice and --tool-call-parser to be set' (type "
                                          "BadRequestError); required / named without a parser: "
                                          "'tool_choice=\"required\" requires --tool-call-parser "
                                          "to be set'. The fake plays a server started with "
                                          "both flags (VLLM(auto_tools=False) plays one without)",
                                          "serving_chat.py _create_chat_completion (v0.6 to "
                                          "main); public troubleshooting notes quoting the 400 "
                                          "(Open WebUI via LiteLLM, NVIDIA NIM, a test fixture "
                                          "with the nested body)", _VL_CONFIRMED),
    "named_choice_finish": Fact("a named tool_choice answers its call with finish_reason "
                                "'stop'; auto and required with 'tool_calls' (serving.py: "
                                "\"'tool_calls' for 'auto' or 'required' tool calls, and "
                                "'stop' for named tool calls\"); the fake sends the finish the "
                                "case scripts",
                                f"{_VL_SRC}/openai/chat_completion/serving.py (stream and full "
                                "generators)", _VL_CONFIRMED),
    "stream_shape": Fact("role chunk {role: 'assistant', content: ''} alone (with "
                         "prompt_token_ids: null); a call's first fragment {index, id, type: "
                         "'function', function: {name}} with no arguments key, later ones "
                         "{index, function: {arguments}}; the last arguments piece on the "
                         "finish chunk; choices carry logprobs: null, the finish chunk "
                         "stop_reason: null; chunks are dumped with exclude_unset (no usage "
                         "key unless it is sent); data: [DONE]",
                         f"{_VL_SRC}/openai/chat_completion/serving.py; {_VL_SRC}/generate/"
                         "base/protocol.py DeltaToolCall / DeltaFunctionCall; vllm tool_parsers "
                         "hermes_tool_parser.py extract_tool_calls_streaming", _VL_CONFIRMED),
    "stream_ids_missing_report": Fact("reported: tool_calls[].id missing in some streams "
                                      "(vllm #18412, 2025-05, open; parser not named); not "
                                      "played, not declared as the no_ids quirk"),
    "midstream_error": Fact("after the stream began: data: {error: {message, type, param, "
                            "code}} (a failed generation: 'Internal server error', "
                            "InternalServerError, 500; another exception: BadRequestError 400 "
                            "or InternalServerError 500 by its class), then data: [DONE]",
                            f"{_VL_SRC}/openai/chat_completion/serving.py (except branches, "
                            f"then the final yield); {_VL_SRC}/openai/engine/serving.py "
                            "create_streaming_error_response, GenerationError; "
                            "vllm-project/guidellm issue quoting the stream error format",
                            _VL_CONFIRMED),
    "reasoning": Fact("with --reasoning-parser: message.reasoning / delta.reasoning (since PR "
                      "#27752, 2025-11); the assistant message sent back carries 'reasoning' "
                      "for the chat template (interleaved thinking); nothing is refused when it "
                      "is missing (not enforced: the cases check what is sent)",
                      "vllm PR #27752, RFC #27755, issue #38488 (input reads 'reasoning'); "
                      f"{_VL_SRC}/openai/chat_completion/protocol.py ChatMessage; "
                      "dify-official-plugins #2740 (0.17.1), NillionNetwork/nilAI PR #182 "
                      "(v0.19.0)", _VL_CONFIRMED),
    "reasoning_content_history": Fact("historical: reasoning_content (DeepSeek's name) until "
                                      "v0.11; both fields from PR #27752 (2025-11); "
                                      "reasoning_content removed by PR #33402 (2026-01). Not "
                                      "played; the reference reads it as a fallback",
                                      "vllm PR #27752, PR #33402, issue #33616; vllm-project/"
                                      "router PR #115", _VL_CONFIRMED),
    "ids": Fact("completion ids 'chatcmpl-' + 16 hex digits, call ids 'chatcmpl-tool-' + 16 "
                "hex digits (random_uuid: the low 64 bits of a uuid4; 32 hex digits before, "
                "historical); Kimi K2 models 'functions.<name>:<n>'",
                "vllm/utils random_uuid (quoted with its source line by a public study of "
                "vllm/utils/__init__.py); chat_utils make_tool_call_id; ai-dynamo's renderer "
                "reproducing 'chatcmpl-tool-<16 hex>'; vllm #43267 log 'chatcmpl-97319e51c49a6410'",
                _VL_CONFIRMED),
    "context_length": Fact("400 BadRequestError \"This model's maximum context length is N "
                           "tokens. However, your request has M input tokens. Please reduce "
                           "the length of the input messages.\" (param input_tokens); max_tokens "
                           "too large: \"'max_tokens' or 'max_completion_tokens' is too large: "
                           "K. This model's maximum context length is N tokens and your request "
                           "has M input tokens (K > N - M).\" (older: '... However, you "
                           "requested T tokens (M in the messages, K in the completion). ...', "
                           "historical)",
                           f"{_VL_SRC}/openai/engine/serving.py _validate_input; vllm #12886 "
                           "(the older wording)", _VL_CONFIRMED),
    "model_not_found": Fact("404 NotFoundError 'The model `<name>` does not exist.' (param "
                            "model); the fake serves any model name",
                            f"{_VL_SRC}/openai/engine/serving.py _check_model", _VL_CONFIRMED),
    "rate_limits": Fact("none: vLLM queues requests (no 429, no Retry-After)",
                        "no 429 in the server code's error paths", _VL_CONFIRMED),
    "usage_fields": Fact("usage {prompt_tokens, total_tokens, completion_tokens, "
                         "prompt_tokens_details: null} (cached_tokens only with "
                         "--enable-prompt-tokens-details; completion_tokens_details."
                         "reasoning_tokens with a reasoning parser); a full answer always "
                         "carries usage (the fake only when the case scripts it)",
                         f"{_VL_SRC}/openai/chat_completion/serving.py UsageInfo",
                         _VL_CONFIRMED),
    "request_errors": Fact("vLLM does not check tool-call pairing (the chat template renders "
                           "the history): the fake keeps OpenAI's structural rules and words so "
                           "that a malformed history is named"),
}, quirks={
    "role_chunk_alone": Fact("the first chunk is {role: 'assistant', content: ''} and nothing "
                             "else, before any call, a single one too (the first_iteration "
                             "branch of chat_completion_stream_generator)",
                             f"{_VL_SRC}/openai/chat_completion/serving.py", _VL_CONFIRMED),
})

PROVIDER = VLLM

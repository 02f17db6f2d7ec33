"""llama.cpp's llama-server (the openai wire): the facts the fake plays, each with
its source and the date it was confirmed.

Data only (the provider registry, ``pytest_toolcall.providers``, reads ``PROVIDER``);
docs/providers.md lists them."""

from __future__ import annotations

from pytest_toolcall.providers._facts import Fact, Provider

_LC_CONFIRMED = "2026-11-25"
_LC = "ggml-org/llama.cpp"
_LC_SRV = f"{_LC} tools/server"

#: llama.cpp's llama-server: its OpenAI-compatible Chat Completions (/v1/chat/completions and
#: /chat/completions), optional --api-key, {code, message, type} errors, the role chunk alone,
#: 32-character call ids, reasoning_content and timings (issue 13). Served by the ``llamacpp``
#: dialect class (dialect.py) and the LlamaCppAdapter reference; the
#: sources are llama.cpp's own server and chat code (master as stored 2026-11). Facts without
#: a confirmed date inherit OpenAI's behaviour.
LLAMACPP = Provider(name="llamacpp", dialect="openai", family="openai", facts={
    "routes": Fact("POST /v1/chat/completions and POST /chat/completions (the same handler); "
                   "an unknown route is 404 {error: {message: 'File Not Found', type: "
                   "'not_found_error', code: 404}}",
                   f"{_LC_SRV}/server.cpp (ctx_http.post routes); {_LC_SRV}/server-http.cpp "
                   "(set_error_handler)", _LC_CONFIRMED),
    "auth": Fact("optional: only with --api-key (several keys allowed); the key comes in "
                 "Authorization ('Bearer ' stripped if present, a bare key works) or, when that "
                 "header is empty, X-Api-Key; a missing or wrong key is the same 401 {error: "
                 "{message: 'Invalid API Key', type: 'authentication_error', code: 401}}; "
                 "/health, /v1/health, /models, /v1/models need no key",
                 f"{_LC_SRV}/server-http.cpp (middleware_validate_api_key, public endpoints)",
                 _LC_CONFIRMED),
    "error_shape": Fact("{error: {code: <the HTTP status, an int>, message, type}}; types "
                        "invalid_request_error 400, authentication_error 401, permission_error "
                        "403, not_found_error 404, server_error 500, not_supported_error 501, "
                        "unavailable_error 503 ('Loading model' while the model loads), "
                        "exceed_context_size_error 400; a handler's std::invalid_argument is "
                        "the 400, any other exception the 500",
                        f"{_LC_SRV}/server-common.cpp (format_error_response); {_LC_SRV}/"
                        "server.cpp (ex_wrapper); server-http.cpp (middleware_server_state)",
                        _LC_CONFIRMED),
    "context_length": Fact("400 {error: {code: 400, message: 'request (N tokens) exceeds the "
                           "available context size (M tokens), try increasing it', type: "
                           "'exceed_context_size_error', n_prompt_tokens: N, n_ctx: M}}; "
                           "historical: 'the request exceeds the available context size, try "
                           "increasing it' (before PR #18174, 2025-12-18)",
                           "measured bodies quoted in public notes (llama.cpp b9553, 2026-09; "
                           "a probe 'P8 - Context overflow'; claude-multi-account truncation "
                           "report); ERROR_TYPE_EXCEED_CONTEXT_SIZE in server-common.cpp; "
                           "ggml-org/llama.cpp PR #18174 (the numbers in the message)",
                           _LC_CONFIRMED),
    "jinja_required": Fact("tools (or a tool_choice other than 'auto') without the Jinja chat "
                           "template is 500 {error: {code: 500, message: 'tools param requires "
                           "--jinja flag' ('tool_choice param requires --jinja flag'), type: "
                           "'server_error'}} (a std::runtime_error, so a 500, not a 400); "
                           "--jinja is on by default in current builds; historical (before PR "
                           "#12379, 2025-05): tools with stream: true were refused with 'Cannot "
                           "use tools with stream'. The fake plays a server started with Jinja",
                           f"{_LC_SRV}/server-common.cpp (oaicompat_chat_params_parse); "
                           f"{_LC_SRV}/README.md (--jinja, --no-jinja: default enabled); a "
                           "public client fixture quoting the 500 body; ggml-org/llama.cpp PR "
                           "#12379", _LC_CONFIRMED),
    "tool_choice": Fact("the strings auto, none, required; another string is 400 'Invalid "
                        "tool_choice: <value>' (invalid_request_error); an object (a named "
                        "function) is read as a string, fails, and falls back to 'auto' "
                        "silently: not claimed by the reference profile",
                        f"{_LC}/common/chat.cpp (common_chat_tool_choice_parse_oaicompat); "
                        f"{_LC_SRV}/server-common.cpp (json_value(body, 'tool_choice', "
                        "std::string('auto')) and json_value's type_error fallback)",
                        _LC_CONFIRMED),
    "parallel_tool_calls": Fact("defaults to false: without parallel_tool_calls: true the "
                                "grammar lets the model make one call; not enforced by the fake "
                                "(it plays the calls a case scripts)",
                                f"{_LC_SRV}/server-common.cpp (json_value(body, "
                                f"'parallel_tool_calls', false)); {_LC}/docs/function-calling.md"
                                " ('disabled by default')", _LC_CONFIRMED),
    "ids": Fact("call ids are 32 random letters and digits with no prefix (gen_tool_call_id = "
                "random_string()); completion ids 'chatcmpl-' + 32; system_fingerprint is the "
                "build ('b<number>-<commit>')",
                f"{_LC_SRV}/server-common.cpp (random_string, gen_chatcmplid, gen_tool_call_id); "
                f"{_LC_SRV}/server-task.cpp (llama_build_info)", _LC_CONFIRMED),
    "response_shape": Fact("message {role, reasoning_content (when any), content (null when "
                           "only calls), tool_calls [{type, function {name, arguments}, id}]}; "
                           "usage {completion_tokens, prompt_tokens, total_tokens, "
                           "prompt_tokens_details {cached_tokens}}; a timings object (cache_n, "
                           "prompt_n, prompt_ms, prompt_per_token_ms, prompt_per_second, "
                           "predicted_n, predicted_ms, predicted_per_token_ms, "
                           "predicted_per_second) next to it",
                           f"{_LC}/common/chat.cpp (common_chat_msg::to_json_oaicompat); "
                           f"{_LC_SRV}/server-task.cpp (to_json_oaicompat_chat, "
                           "usage_json_oaicompat)", _LC_CONFIRMED),
    "stream_shape": Fact("a first chunk {role: 'assistant', content: null} alone, then one "
                         "chunk per diff of the parsed message: reasoning_content pieces, "
                         "content pieces, tool-call fragments with index always, id + type + "
                         "function.name on a call's first fragment only, arguments diffs after "
                         "(calls one after the other); the finish chunk's delta is {}; then "
                         "data: [DONE]",
                         f"{_LC_SRV}/server-task.cpp (to_json_oaicompat_chat partial and final "
                         f"stream); {_LC}/common/chat.cpp (common_chat_msg_diff_to_json_"
                         "oaicompat)", _LC_CONFIRMED),
    "stream_usage": Fact("only with stream_options.include_usage: a choices: [] chunk with the "
                         "usage after the finish chunk ('OpenAI API spec ... empty choices "
                         "array for the last chunk when including usage'); timings ride on the "
                         "last chunk",
                         f"{_LC_SRV}/server-task.cpp (include_usage, timings)", _LC_CONFIRMED),
    "midstream_error": Fact("an error after the stream began is data: {error: {code, message, "
                            "type}} and the stream ends, no [DONE]",
                            f"{_LC_SRV}/server-context.cpp (format_oai_sse(json {{{{ 'error', "
                            "res_json }}}}), 'terminate on error')", _LC_CONFIRMED),
    "reasoning_content": Fact("--reasoning-format (default auto; deepseek puts thoughts in "
                              "message.reasoning_content, delta.reasoning_content in a stream) "
                              "keeps the chain of thought apart from content; an assistant "
                              "message's reasoning_content is read back into the chat template "
                              "(gpt-oss, MiniMax-M2 expect it after a tool call); "
                              "chat_template_kwargs {enable_thinking: false} turns thinking off; "
                              "no error when it is left out (not enforced)",
                              f"{_LC_SRV}/README.md (--reasoning-format, chat_template_kwargs); "
                              f"{_LC}/common/chat.cpp (common_chat_msgs_parse_oaicompat reads "
                              "reasoning_content); ggml-org/llama.cpp PR #16934; openai/gpt-oss "
                              "PR #225 (gpt-oss 'reliant on reasoning content being included in "
                              "subsequent requests after a toolcall')", _LC_CONFIRMED),
    "server_error_wording": Fact("a 500 carries the exception's own text: a tool-call parse "
                                 "failure is {error: {code: 500, message: 'Failed to parse "
                                 "input at pos N: ...', type: 'server_error'}} (what the fake "
                                 "plays for the server_error kind); a template's "
                                 "raise_exception and malformed replayed arguments ('Failed to "
                                 "parse tool call arguments as JSON') are 500s too",
                                 "ggml-org/llama.cpp #20532 (2026-03, b8334); pwilkin/llama.cpp "
                                 "#5 (the body, GLM-4.7); ggml-org/llama.cpp #17040 (a template's "
                                 "500); am17an/llama.cpp #43 (upstream #25510)", _LC_CONFIRMED),
    "request_errors": Fact("llama-server checks little itself ('messages' is required, "
                           "\"Expected 'messages' to be an array\", 'Invalid tool_choice' are "
                           "its own words); tool-call pairing is left to the model's chat "
                           "template: OpenAI's rules and words are played for the rest"),
    "historical_stream_usage": Fact("historical: before include_usage support the finish chunk "
                                    "carried usage in every stream: not played"),
}, quirks={
    "role_chunk_alone": Fact("the first chunk is {role: 'assistant', content: null} alone; "
                             "every diff, a call's first fragment too, comes in a chunk of its "
                             "own ('We have to send an initial update to conform to openai "
                             "behavior')",
                             f"{_LC_SRV}/server-task.cpp (server_task_result_cmpl_partial::"
                             "to_json_oaicompat_chat)", _LC_CONFIRMED),
})

PROVIDER = LLAMACPP

"""LM Studio (the openai wire): the facts the fake plays, each with
its source and the date it was confirmed.

Data only (the provider registry, ``pytest_toolcall.providers``, reads ``PROVIDER``);
docs/providers.md lists them."""

from __future__ import annotations

from pytest_toolcall.providers._facts import Fact, Provider

_LM_CONFIRMED = "2026-11-25"
_LM_DOCS = "lmstudio-ai/docs 1_developer"
_LM_BUGS = "lmstudio-ai/lmstudio-bug-tracker"

#: LM Studio's OpenAI-compatible server (http://localhost:1234/v1): the openai wire with a 200 for
#: unknown routes, string and object error bodies, an ``event: error`` inside 200 streams, numeric
#: call ids and reasoning_content / reasoning (issue 13). Served by the ``lmstudio`` dialect class
#: (pytest_toolcall.providers.lmstudio.dialect) and the LMStudioAdapter reference. Facts without a
#: confirmed date inherit OpenAI's behaviour.
LMSTUDIO = Provider(name="lmstudio", dialect="openai", family="openai", facts={
    "routes": Fact("POST /v1/chat/completions (also /v1/responses, /v1/completions, "
                   "/v1/embeddings, GET /v1/models); base_url http://localhost:1234/v1; "
                   "/chat/completions without /v1 is not served",
                   f"{_LM_DOCS}/3_openai-compat/index.md and chat-completions.md; {_LM_BUGS} "
                   "#618", _LM_CONFIRMED),
    "unknown_route": Fact("any other method or path: status 200 {error: 'Unexpected endpoint or "
                          "method. (POST /chat/completions)'} ('Returning 200 anyway')",
                          f"{_LM_BUGS} #618 (raw exchange, 0.3.14), #1323 (open, 0.4.18, "
                          "2026-07), #2085 (0.4.17, 2026-06/09)", _LM_CONFIRMED),
    "auth": Fact("none by default (any key or none is taken); with 'Require Authentication' "
                 "(0.4.0+) a request without Authorization: Bearer <LM API token> gets {error: "
                 "{type: 'invalid_request', code: 'invalid_api_key', message: 'An LM Studio API "
                 "token is required to make requests to this server, but none was provided "
                 "...'}}; tokens look like sk-lm-<8>:<20>",
                 f"{_LM_DOCS}/0_core/authentication.md; agustif/opencode-lmstudio #41 (0.4.18,"
                 " the logged body) and #28", _LM_CONFIRMED),
    "auth_status_and_wrong_token": Fact("the status of the auth error (401 played) and the "
                                        "wording for a wrong token (the missing-token body is "
                                        "played) are not confirmed; the fake plays the server "
                                        "with authentication required"),
    "error_shape": Fact("two shapes, both current: {error: {message, type: "
                        "'invalid_request_error', param, code}} (unknown model) and a bare "
                        "string {error: '<text>'} (no model loaded, context overflow)",
                        "gpt-researcher #1556 (2025-11, both shapes), continuedev/continue "
                        "#12757 (2026-06), QwenLM/qwen-code #10065 (0.4.23, 2026-09), "
                        "Gitlawb/openclaude #353 (2026-04)", _LM_CONFIRMED),
    "unknown_model": Fact("400 {error: {message: 'Invalid model identifier \"x\". Please "
                          "specify a valid downloaded model (e.g., a, b, c).', type: "
                          "'invalid_request_error', param: 'model', code: 'model_not_found'}}; "
                          "with one model loaded an unknown name may be served by it "
                          "(#619, 0.3.14); 2024's 404 'Model \"x\" not found. ...' is "
                          "historical (letta PR #1876, 0.3.5)",
                          f"gpt-researcher #1556, continue #12757, qwen-code #10065; {_LM_BUGS} "
                          "#619", _LM_CONFIRMED),
    "no_model_loaded": Fact("400 {error: \"No models loaded. Please load a model in the "
                            "developer page or use the 'lms load' command.\"} (just-in-time "
                            "loading off)", "gpt-researcher #1556 (2025-11)", _LM_CONFIRMED),
    "context_length": Fact("a non-stream overflow: 400 {error: 'The number of tokens to keep "
                           "from the initial prompt is greater than the context length (n_keep: "
                           "N>= n_ctx: M). Try to load the model with a larger context length, "
                           "or provide a shorter input.'}; streamed: see midstream_error; "
                           "'Trying to keep the first N tokens when context the overflows ...' "
                           "(2025) is historical",
                           f"Gitlawb/openclaude #353 (2026-04); {_LM_BUGS} #546, #237 (2025)",
                           _LM_CONFIRMED),
    "midstream_error": Fact("status 200, text/event-stream, then 'event: error' and data: "
                            "{error: {message: M}, message: M} (no type, no code), and the "
                            "stream ends; M e.g. 'Input does not fit in context length. The "
                            "input has 31430 tokens, but the context length only supports "
                            "30000 tokens.' (0.4.21); since 0.3.18 'errors returned from "
                            "streaming endpoints now follow the correct format expected by "
                            "OpenAI clients'",
                            f"aaif-goose/goose #11318 (raw capture, 2026-08-25); {_LM_BUGS} "
                            f"#2322; {_LM_DOCS}/api-changelog.md (0.3.18)", _LM_CONFIRMED),
    "tool_choice": Fact("'none', 'auto', 'required' ('required' on llama.cpp engines only); a "
                        "named function is not documented (not enforced, not claimed)",
                        f"{_LM_DOCS}/api-changelog.md (0.3.15)", _LM_CONFIRMED),
    "tool_choice_models": Fact("whether a model obeys 'required' depends on the model (a gem's "
                               "README: qwen3 obeys it, gpt-oss ignores it): not played"),
    "ids": Fact("call ids are numeric strings ('365174485', '377278620', '814890118'); "
                "completion ids 'chatcmpl-' + 21-22 lowercase letters/digits; "
                "system_fingerprint is the model id",
                f"{_LM_DOCS}/3_openai-compat/tools.md (JSON answer, SDK print-out, streamed "
                f"ChoiceDeltaToolCall); {_LM_BUGS} #619, #649, #723 (chunk ids)", _LM_CONFIRMED),
    "response_shape": Fact("message {role, tool_calls} without a content key when it calls "
                           "tools; usage {prompt_tokens, completion_tokens, total_tokens}; "
                           "finish_reason 'tool_calls'",
                           f"{_LM_DOCS}/3_openai-compat/tools.md", _LM_CONFIRMED),
    "stream_fragments": Fact("a call's first fragment {index, id, type: 'function', function: "
                             "{name, arguments: ''}}, later ones {index, function: {arguments}}"
                             " (id, type, name not repeated); argument tokens stream as they "
                             "are generated (0.3.17); finish_reason 'tool_calls' (0.3.15)",
                             f"{_LM_DOCS}/3_openai-compat/tools.md (Streaming); "
                             "api-changelog.md", _LM_CONFIRMED),
    "stream_role": Fact("no empty role chunk: role 'assistant' rides on the first delta with "
                        "the first piece; chunks carry logprobs: null and system_fingerprint",
                        f"{_LM_BUGS} #649 (0.3.15) and #723 (0.3.17) raw streams",
                        _LM_CONFIRMED),
    "stream_role_calls_only": Fact("which delta carries the role in an answer of calls only is "
                                   "not confirmed: the first fragment's is played"),
    "stream_parallel_history": Fact("historical: 0.3.17 broke streamed parallel calls (#723, "
                                    "#759); 0.3.18 fixed calls split across chunks being "
                                    "dropped, 0.3.19 'improved handling of parallel tool calls "
                                    "via the streaming API'. Not played.",
                                    f"{_LM_BUGS} #723, #759; {_LM_DOCS}/api-changelog.md",
                                    _LM_CONFIRMED),
    "stream_usage": Fact("stream_options.include_usage returns usage (0.3.18); the chunk that "
                         "carries it is not confirmed: OpenAI's choices: [] chunk is played"),
    "reasoning": Fact("with 'Separate reasoning_content and content in API responses' (App "
                      "Settings > Developer, 0.3.9) message.reasoning_content / "
                      "delta.reasoning_content; gpt-oss: message.reasoning / delta.reasoning "
                      "(0.3.23); with the setting off the thinking stays in content as "
                      "<think>...</think>; nothing documents sending it back",
                      f"{_LM_DOCS}/api-changelog.md (0.3.9, 0.3.23); moltis-org/moltis #597 "
                      f"(2026-04, qwen3.5 / gemma-4); {_LM_BUGS} #378, #894, #1569",
                      _LM_CONFIRMED),
    "request_errors": Fact("the wording of LM Studio's 400s for malformed requests (orphan tool "
                           "messages, unanswered calls, bad tools) is not confirmed: OpenAI's "
                           "rejections are played"),
    "server_error": Fact("a crashed model's answer ('The model has crashed without additional "
                         "information. (Exit code: N)') has no confirmed body: not played"),
}, quirks={})

PROVIDER = LMSTUDIO

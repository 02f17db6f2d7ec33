"""DeepSeek (the openai wire): the facts the fake plays, each with
its source and the date it was confirmed.

Data only (the provider registry, ``pytest_toolcall.providers``, reads ``PROVIDER``);
docs/providers.md lists them."""

from __future__ import annotations

from pytest_toolcall.providers._facts import Fact, Provider

_DS_CONFIRMED = "2026-11-25"
_DS_DOCS = "https://api-docs.deepseek.com"

#: DeepSeek (api.deepseek.com): the openai wire with its own rules, errors and reasoning_content
#: (issue 13). Served by the ``deepseek`` dialect class (dialect.py) and
#: the DeepSeekAdapter reference. Facts without a confirmed date inherit OpenAI's behaviour.
DEEPSEEK = Provider(name="deepseek", dialect="openai", family="openai", facts={
    "routes": Fact("POST /chat/completions and /v1/chat/completions (the v1 is not a model "
                   "version); /beta/chat/completions for beta features (strict tools)",
                   f"{_DS_DOCS} (Your First API Call); {_DS_DOCS}/guides/function_calling "
                   "(strict mode, beta base_url)", _DS_CONFIRMED),
    "auth": Fact("Authorization: Bearer <key>; a bad key is 401 {error: {message: "
                 "'Authentication Fails, Your api key: ****abcd is invalid', type: "
                 "'authentication_error', param: null, code: 'invalid_request_error'}}",
                 "public error logs quoting the body (litellm DeepseekException logs, agent "
                 "diagnostics 2026-03 and 2026-09)", _DS_CONFIRMED),
    "auth_missing_key": Fact("the wording of a 401 without any key is not confirmed: the fake "
                             "sends the bad-key text"),
    "error_shape": Fact("{error: {message, type, param: null, code: 'invalid_request_error'}}; "
                        "status codes 400 Invalid Format, 401 Authentication Fails, 402 "
                        "Insufficient Balance, 422 Invalid Parameters, 429 Rate Limit Reached, "
                        "500 Server Error, 503 Server Overloaded",
                        f"{_DS_DOCS}/quick_start/error_codes; langchain #37713, crewAI #5878 "
                        "(verbatim 400 bodies)", _DS_CONFIRMED),
    "insufficient_balance": Fact("402 {error: {message: 'Insufficient Balance', type: "
                                 "'unknown_error', param: null, code: 'invalid_request_error'}}; "
                                 "not retryable",
                                 f"{_DS_DOCS}/quick_start/error_codes; client test fixtures "
                                 "quoting the 402 body", _DS_CONFIRMED),
    "deserialize_errors": Fact("a body serde cannot read: 'Failed to deserialize the JSON body "
                               "into the target type: messages[i]: ... at line 1 column N'; "
                               "422 until 2025, 400 since (type invalid_request_error)",
                               "cline #230, chatbox #1740 (422); forgecode #2008, "
                               "jetbrains-cc-gui #591, qwen-code #2158 (400)", _DS_CONFIRMED),
    "roles": Fact("message roles system, user, assistant, tool (and latest_reminder, 2026): "
                  "no developer, no function. Any other role is serde's 400 'Failed to "
                  "deserialize the JSON body into the target type: messages[i].role: unknown "
                  "variant `developer`, expected one of `system`, `user`, `assistant`, `tool`, "
                  "`latest_reminder` at line 1 column N' (422 until 2025)",
                  f"{_DS_DOCS}/api/create-chat-completion (the message roles); "
                  "earendil-works/pi #1048 and PR #1047 (2026-01-28, 400), decolua/9router "
                  "#773 (2026-05-02, 400 with latest_reminder), eclipse-theia/theia #15144 "
                  "(2025-03-07, 422)", "2026-11-28"),
    "tool_pairing": Fact("unanswered calls: 400 \"An assistant message with 'tool_calls' must "
                         "be followed by tool messages responding to each 'tool_call_id'. "
                         "(insufficient tool messages following tool_calls message)\"; orphan "
                         "tool message: 400 \"Messages with role 'tool' must be a response to a "
                         "preceding message with 'tool_calls'\"",
                         "gptme blog 'The Bug That Only DeepSeek Caught' (deepseek-v4-flash); "
                         "a recorded Codex error log; spring-ai and agent test fixtures",
                         _DS_CONFIRMED),
    "tool_choice": Fact("none, auto, required, {type: function, function: {name}}",
                        f"{_DS_DOCS}/api/create-chat-completion", _DS_CONFIRMED),
    "tool_choice_thinking": Fact("whether thinking mode refuses required / named tool_choice "
                                 "is not confirmed at DeepSeek (Tencent TokenHub documents "
                                 "auto/none only for its DeepSeek models): not enforced"),
    "strict_tools": Fact("function.strict (beta): only on base_url .../beta; not enforced",
                         f"{_DS_DOCS}/guides/function_calling", _DS_CONFIRMED),
    "reasoning_content": Fact("thinking mode (default on V4; thinking: {type: enabled|disabled}) "
                              "returns reasoning_content next to content; a turn with tool "
                              "calls must come back with it in every later request, else 400 "
                              "'The `reasoning_content` in the thinking mode must be passed "
                              "back to the API.'; the key must be there, \"\" is accepted; "
                              "without tool calls it is ignored",
                              f"{_DS_DOCS}/guides/thinking_mode; langchain #37713, crewAI "
                              "#5878, litellm #37636, Raven #297 (bisected), opencode #24083",
                              _DS_CONFIRMED),
    "reasoning_content_history": Fact("historical: V3.2 (2025-12 to 2026-02) said 'Missing "
                                      "`reasoning_content` field in the assistant message at "
                                      "message index N. For more information, please refer to "
                                      "https://api-docs.deepseek.com/guides/thinking_mode#tool-"
                                      "calls'; deepseek-reasoner (R1, 2025) refused "
                                      "reasoning_content in input and successive same-role "
                                      "messages. Not played.",
                                      "continuedev/continue #9831 #9940 #10193, zed #44301; "
                                      "Yuxi #126, open-webui #9266", _DS_CONFIRMED),
    "stream_fragments": Fact("a call's first fragment has index, id, type, function{name, "
                             "arguments: ''}; later ones index and an arguments piece only",
                             "a measured deepseek-v4-pro stream kept as a Go client fixture; "
                             "a grok-db SSE log of DeepSeek ('later fragments carry only the "
                             "index')", _DS_CONFIRMED),
    "stream_usage": Fact("usage rides on the finish chunk, include_usage or not; no choices: [] "
                         "chunk; with include_usage the other chunks carry usage: null",
                         f"{_DS_DOCS}/api/create-chat-completion (stream_options, quoted in "
                         "moona3k/macparakeet PR #1087); the measured v4-pro stream",
                         _DS_CONFIRMED),
    "stream_keep_alive": Fact("': keep-alive' SSE comments while a request waits (non-stream "
                              "requests get blank lines before the JSON)",
                              f"{_DS_DOCS}/quick_start/rate_limit", _DS_CONFIRMED),
    "ids": Fact("call ids 'call_00_' + 24 letters/digits (V4; V3 sent 'call_0_<uuid4>'); "
                "completion ids are UUIDs",
                "recorded V4 responses in public client tests (call_00_JKplDF8t8DbqkZaGChDX1881"
                "); adk-python #144 (call_0_112b017f-...)", _DS_CONFIRMED),
    "usage_fields": Fact("usage adds prompt_cache_hit_tokens / prompt_cache_miss_tokens, "
                         "prompt_tokens_details.cached_tokens, completion_tokens_details."
                         "reasoning_tokens", "the measured v4-pro stream; solon DeepSeek.md",
                         _DS_CONFIRMED),
    "empty_content_with_calls": Fact("reported: an assistant message with tool_calls and "
                                     "content '' is refused (content must be null); not "
                                     "confirmed by DeepSeek, not enforced"),
    "midstream_error": Fact("the shape of an error inside a 200 stream is not confirmed: "
                            "OpenAI's data: {error} is played"),
}, quirks={
    "sse_comments": Fact("': keep-alive' SSE comment lines while a stream request waits",
                         f"{_DS_DOCS}/quick_start/rate_limit ('continuously return SSE "
                         "keep-alive comments')", _DS_CONFIRMED),
    "finish_reason_unlisted": Fact("finish_reason 'insufficient_system_resource': the turn was "
                                   "cut short by the inference system",
                                   f"{_DS_DOCS} (Create Chat Completion, choices.finish_reason); "
                                   "the ds-api crate's FinishReason enum", _DS_CONFIRMED),
})

PROVIDER = DEEPSEEK

"""Together AI (the openai wire): the facts the fake plays, each with
its source and the date it was confirmed.

Data only (the provider registry, ``pytest_toolcall.providers``, reads ``PROVIDER``);
docs/providers.md lists them."""

from __future__ import annotations

from pytest_toolcall.providers._facts import Fact, Provider

_TG_CONFIRMED = "2026-11-25"
_TG_DOCS = "https://docs.together.ai/docs"
#: recorded Together traffic: maruel/genai providers/togetherai/testdata (go-vcr cassettes of
#: api.together.xyz, 2025-12-14 and 2025-12-15)
_TG_REC = "maruel/genai providers/togetherai/testdata/TestClient/Scoreboard"

#: Together AI (api.together.xyz/v1): the openai wire with a request id beside its errors, a
#: stream whose last chunk says "stop" after "tool_calls", usage always in the stream and the
#: reasoning field (issue 13). Served by the ``together`` dialect class
#: (pytest_toolcall.providers.together.dialect) and the TogetherAdapter reference. Facts without a
#: confirmed date inherit OpenAI's behaviour.
TOGETHER = Provider(name="together", dialect="openai", family="openai", facts={
    "routes": Fact("POST /v1/chat/completions; base_url https://api.together.xyz/v1 (also "
                   "https://api.together.ai/v1)",
                   f"{_TG_DOCS}/inference/function-calling/single-call; recorded requests "
                   f"({_TG_REC}); togethercomputer/together-python", _TG_CONFIRMED),
    "auth": Fact("Authorization: Bearer <key>; a bad key is 401 {id: '<request id>', error: "
                 "{message: 'Invalid API key provided. You can find your API key at "
                 "https://api.together.ai/settings/api-keys.', type: 'invalid_request_error', "
                 "param: null, code: 'invalid_api_key'}} (api.together.xyz in the URL until "
                 "2025, historical)",
                 f"{_TG_REC}/Qwen/Qwen3-235B-A22B-Thinking-2507_thinking/GenStream-Text.yaml "
                 "(a recorded 401, 2025-12-14); maruel/genai togetherai client_test.go; "
                 "harshitv804/LawGPT #4 (2024)", _TG_CONFIRMED),
    "auth_missing_key": Fact("the wording of a 401 without any key is not confirmed: the fake "
                             "sends the bad-key body"),
    "error_shape": Fact("OpenAI's {error: {message, type, param, code}} with the request id at "
                        "the top level; statuses 400, 401, 402, 403, 404, 429, 500, 503",
                        f"{_TG_DOCS}/error-codes; maruel/genai togetherai client.go "
                        "ErrorResponse; the recorded 401", _TG_CONFIRMED),
    "model_not_found": Fact("404 code 'model_not_available' (type invalid_request_error): "
                            "'Unable to access model <m>. Please visit https://api.together.ai/"
                            "models to view the list of supported models.'",
                            "maruel/genai togetherai client_test.go (recorded, sync and "
                            "stream)", _TG_CONFIRMED),
    "rate_limit": Fact("429 type 'model_rate_limit': 'You have reached the rate limit specific "
                       "to this model <m>. The maximum rate limit for this model is N queries "
                       "per minute. ...' (2024: type 'credit_limit' 'You have been rate "
                       "limited. ...', historical); every answer carries x-ratelimit-limit, "
                       "-remaining, -reset, -limit-tokens, -remaining-tokens and Retry-After "
                       "(whether the 429 carries them too is not confirmed: played)",
                       "public client code matching the 429's type and message (DeepSeek-R1, "
                       "2025); xtekky/gpt4free #3032 (2025-06); togethercomputer/MoA #27 "
                       f"(2024); {_TG_DOCS}/rate-limits (headers); the recorded answers' "
                       "headers", _TG_CONFIRMED),
    "server_errors": Fact("500 'server_error' ('Internal server error') and 503 'Engine "
                          "overloaded' are the error-codes page's; the bodies' exact words "
                          "are not confirmed"),
    "quota": Fact("402 'Payment required' (credits used up) is on the error-codes page; its "
                  "body is not confirmed: the kind is not played"),
    "tool_choice": Fact("auto (default), none, required, {type: function, function: {name}}",
                        f"{_TG_DOCS}/inference/function-calling/single-call (tool_choice "
                        "options)", _TG_CONFIRMED),
    "tool_choice_required": Fact("models may answer required with a warning (warnings: "
                                 "[{message: ...tool_choice...}]) instead of a call (maruel/"
                                 "genai client.go: 'No model supports \"required\" tool "
                                 "calling'); not played"),
    "stream_shape": Fact("every choice has text (the content piece again) and logprobs: null; "
                         "every delta token_id: null, role: 'assistant', content ('' beside "
                         "tool calls); the first chunk is the role chunk alone (choice-level "
                         "role too, no usage key); a call's first fragment {index, id, type, "
                         "function{name, arguments: ''}} in a chunk of its own, later ones "
                         "index and an arguments piece; Kimi models send id: null, type, name: "
                         "null on later fragments instead (not played)",
                         f"{_TG_REC}/Qwen/Qwen3-235B-A22B-Instruct-2507-tput/GenStream-Tools-"
                         "SquareRoot-1.yaml (2025-12-14, 2025-12-15); moonshotai/Kimi-K2-"
                         "Thinking_thinking/GenStream-Tools-SquareRoot-1.yaml (2025-12-15)",
                         _TG_CONFIRMED),
    "stream_finish": Fact("finish_reason 'tool_calls' rides on the chunk with the last "
                          "arguments piece, again on a chunk with matched_stop, then a LAST "
                          "chunk says finish_reason 'stop' and carries the usage: the last "
                          "finish reason of a tool-call stream is 'stop' (Qwen3 models; Kimi's "
                          "stream ends with a choices: [] usage chunk instead). No name in "
                          "QUIRKS: played by the fake on every stop / tool_calls stream, "
                          "checked by stream.together_finish_after_tool_calls",
                          f"{_TG_REC}/Qwen/Qwen3-235B-A22B-Instruct-2507-tput/GenStream-Tools-"
                          "SquareRoot-1.yaml and GenStream-Tools-SquareRoot-2.yaml", _TG_CONFIRMED),
    "stream_usage": Fact("usage in the stream without stream_options: on the last 'stop' "
                         "chunk, or a choices: [] chunk after a length stop; usage {prompt_"
                         "tokens, total_tokens, completion_tokens, reasoning_tokens} "
                         "(prompt_tokens_details: null on some models); every other chunk "
                         "usage: null",
                         f"{_TG_REC}/Qwen/Qwen3-235B-A22B-Instruct-2507-tput/GenStream-"
                         "MaxTokens.yaml and GenStream-Tools-SquareRoot-1.yaml", _TG_CONFIRMED),
    "reasoning": Fact("reasoning models return the chain of thought in message.reasoning / "
                      "delta.reasoning (reasoning: null on other deltas); hybrid models switch "
                      "with reasoning: {enabled: true|false}, gpt-oss with reasoning_effort; "
                      "older models (DeepSeek-R1, Qwen3 Thinking) put <think>...</think> in "
                      "content (historical, dedicated endpoints)",
                      f"{_TG_DOCS}/inference/chat/reasoning; {_TG_REC}/moonshotai/Kimi-K2-"
                      "Thinking_thinking/GenStream-Tools-SquareRoot-1.yaml; "
                      f"{_TG_DOCS}/deepseek-r1", _TG_CONFIRMED),
    "reasoning_back": Fact("whether reasoning must (or may) come back on an assistant message is "
                           "not documented: not enforced, the reference does not send it"),
    "ids": Fact("call ids 'call_' + 24 lowercase letters/digits (Kimi models: "
                "'functions.<name>:<n>'); completion ids like 'oPN9RAs-2j9zxn-9ae97f338de0a29f'; "
                "non-stream tool_calls carry index; content null beside calls",
                f"{_TG_REC}/Qwen/Qwen3-235B-A22B-Instruct-2507-tput/GenSync-Tools-SquareRoot-1"
                ".yaml; the Kimi stream", _TG_CONFIRMED),
    "request_errors": Fact("the wording of Together's 400s for malformed requests is not "
                           "confirmed: OpenAI's rejections are played (with the request id); "
                           "the recorded service accepted a history with a repeated call id"),
    "midstream_error": Fact("the shape of an error inside a 200 stream is not confirmed: "
                            "OpenAI's data: {error} is played"),
}, quirks={
    "role_chunk_alone": Fact("the first chunk carries {role: 'assistant', content: ''} alone; a "
                             "single call's first fragment comes in the next chunk",
                             f"{_TG_REC}/Qwen/Qwen3-235B-A22B-Instruct-2507-tput/GenStream-"
                             "Tools-SquareRoot-1.yaml (2025-12-14, 2025-12-15)", _TG_CONFIRMED),
})

PROVIDER = TOGETHER

"""Provider registry (issue 13, foundation; ``vertex`` is its first provider beyond the five
dialects, served through the dialect registry under its own name).

A provider is data: which dialect it speaks, where it lives, how it authenticates,
and which facts about it are confirmed (with source and date). An unconfirmed fact
is marked so and inherits OpenAI's behaviour.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DIALECTS = ("openai", "openai-responses", "anthropic", "gemini", "ollama")


@dataclass(frozen=True)
class Fact:
    value: object
    source: str | None = None  # docs page, SDK source, public issue, recorded traffic
    confirmed: str | None = None  # ISO date; None means unconfirmed (inherits OpenAI)

    @property
    def is_confirmed(self) -> bool:
        return bool(self.source and self.confirmed)


@dataclass(frozen=True)
class Provider:
    name: str
    dialect: str
    family: str
    facts: dict[str, Fact] = field(default_factory=dict)
    #: stream quirks this service sends on its OpenAI-compatible Chat Completions endpoint
    #: (names from ``pytest_toolcall.cases.QUIRKS``: ``index_missing``, ``sse_comments``, ...),
    #: each a Fact whose value says how, with its source and date. The quirk cases run for the
    #: services that send them, and under ``openai`` for a profile that declares one of them in
    #: ``compatible_with``; OpenAI itself sends none of them.
    quirks: dict[str, Fact] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.name or not isinstance(self.name, str):
            raise ValueError("Provider.name must be a non-empty string")
        if self.dialect not in DIALECTS:
            raise ValueError(
                f"Provider {self.name!r}: field 'dialect' is {self.dialect!r}; "
                f"expected one of {', '.join(DIALECTS)}"
            )
        for key, fact in self.facts.items():
            if not isinstance(fact, Fact):
                raise ValueError(f"Provider {self.name!r}: field 'facts[{key!r}]' must be a Fact")
        for key, fact in self.quirks.items():
            if not isinstance(fact, Fact):
                raise ValueError(f"Provider {self.name!r}: field 'quirks[{key!r}]' must be a Fact")


_Q_CONFIRMED = "2026-11-25"

#: the stream quirks of the OpenAI-compatible endpoints of services whose own wire the kit
#: plays natively (Gemini's /v1beta/openai/, Ollama's /v1/): a profile that declares
#: compatible_with={"gemini"} or {"ollama"} gets them under the openai wire
_COMPAT_QUIRKS: dict[str, dict[str, Fact]] = {
    "gemini": {
        "index_missing": Fact(
            "the OpenAI-compatible endpoint (generativelanguage.googleapis.com/v1beta/openai/) "
            "streams tool-call deltas without 'index'; the openai SDK's stream helper raises "
            "TypeError on them",
            "openai/openai-python #2806 (gemini-3-flash-preview, 2025-12) and PR #3246 "
            "(2026-05: 'matching Gemini OpenAI-compatible streaming responses'); "
            "AstrBotDevs/AstrBot #6661 / PR #6692 (2026-03)", _Q_CONFIRMED),
    },
    "ollama": {
        "index_stuck_at_zero": Fact(
            "the OpenAI-compatible endpoint (/v1/chat/completions) streams every call of a "
            "parallel batch at index 0, each with its own id (Ollama 0.20.2 and 0.20.4; "
            "local servers keep old versions for long, so it is played though the issue is "
            "closed). Before 0.4.7 the index was missing altogether (ollama #7881: "
            "historical, not played)",
            "ollama/ollama #15457 (2026-04, a quoted stream); vercel/ai PR #14277 (verified "
            "with 0.20.2/0.20.4); LibreChat-AI/agents PR #260 (2026-06)", _Q_CONFIRMED),
    },
}

# Today's five dialect names stay valid providers and mean the same.
_BUILTIN = [Provider(name=d, dialect=d, family=d.split("-")[0],
                     quirks=_COMPAT_QUIRKS.get(d, {})) for d in DIALECTS]

_CONFIRMED = "2026-11-23"

#: Gemini on Vertex AI: the gemini wire on Vertex's routes (issue 13). Served by the ``vertex``
#: dialect class (pytest_toolcall.dialects.gemini.Vertex) and the VertexAdapter reference.
VERTEX = Provider(name="vertex", dialect="gemini", family="gemini", facts={
    "routes": Fact("POST /v1/projects/{p}/locations/{l}/publishers/google/models/{m}:"
                   "generateContent and :streamGenerateContent?alt=sse",
                   "https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/"
                   "inference; neuron-ai #437, quarkus-langchain4j #825 (recorded URLs)",
                   _CONFIRMED),
    "auth": Fact("Authorization: Bearer <OAuth access token>; an API key is refused with 401 "
                 "'API keys are not supported by this API...'",
                 "GoogleCloudPlatform/generative-ai #454, a2a-samples #43, mscraftsman/"
                 "generative-ai #51", _CONFIRMED),
    "ids": Fact("id on functionCall / functionResponse as on the Gemini API (discovery revision "
                "20260921); before it, 400 'Invalid JSON payload received. Unknown name \"id\" "
                "at ...: Cannot find field.' (historical: pydantic-ai #5081, vercel/ai #15664)",
                "anomalyco/opencode PR #50504 (live-verified 200s on v1 and v1beta1); googleapis "
                "aiplatform_v1 FunctionCall.id / FunctionResponse.id; google-genai 3.6.1 "
                "models.py sends id to Vertex", "2026-11-25"),
    "error_shape": Fact("{error: {code, message, status}} as the Gemini API",
                        "pydantic-ai #5081 (a quoted 400 body)", _CONFIRMED),
})

_DS_CONFIRMED = "2026-11-25"
_DS_DOCS = "https://api-docs.deepseek.com"

#: DeepSeek (api.deepseek.com): the openai wire with its own rules, errors and reasoning_content
#: (issue 13). Served by the ``deepseek`` dialect class (pytest_toolcall.dialects.deepseek) and
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
})

_MI_CONFIRMED = "2026-11-25"
_MI_SDK = "mistralai/client-python src/mistralai/client/models"

#: Mistral (api.mistral.ai): the openai wire with 9-character call ids, content chunks, closed
#: request schemas and its own error bodies (issue 13). Served by the ``mistral`` dialect class
#: (pytest_toolcall.dialects.mistral) and the MistralAdapter reference. Facts without a
#: confirmed date inherit OpenAI's behaviour.
MISTRAL = Provider(name="mistral", dialect="openai", family="openai", facts={
    "routes": Fact("POST /v1/chat/completions; base_url https://api.mistral.ai/v1",
                   "docs.mistral.ai (Chat Completions API); vercel/ai packages/mistral",
                   _MI_CONFIRMED),
    "auth": Fact("Authorization: Bearer <key>; a bad or missing key is 401 "
                 "{detail: 'Unauthorized'} (older gateway: {message: 'Unauthorized', "
                 "request_id}, cline #1734, 2025-02: not played)",
                 "agent-zero #539 (2025-06, chat/completions), nextcloud integration_openai "
                 "#332 (2026-01)", _MI_CONFIRMED),
    "error_shape": Fact("{object: 'error', message, type, param: null, code} at the top level "
                        "(no 'error' key); 422 schema errors are pydantic's {detail: [{type, "
                        "loc, msg, input}]}", "litellm #17761, onyx #6458, avante.nvim #2562 "
                        "(400 bodies); openclaude #739, zeroclaw #2693 (422 bodies)",
                        _MI_CONFIRMED),
    "ids": Fact("call ids exactly 9 of [a-zA-Z0-9]; any other id in a history is 400 {object: "
                "'error', message: 'Tool call id was <id> but must be a-z, A-Z, 0-9, with a "
                "length of 9.', type: 'invalid_function_call', param: null, code: '3280'}; ids "
                "from another provider must be re-mapped, alike on calls and results; "
                "completion ids 32 hex digits",
                "gptel #1203 (2026-01, content-length 167 = this body), ironclaw #1241 "
                "(2026-03, same with raw_status_code: 400), opencode #1680, langchain PR "
                "#24668 (2024: type invalid_request_error, code null)", _MI_CONFIRMED),
    "closed_schema": Fact("unknown request or message keys are 422 extra_forbidden 'Extra "
                          "inputs are not permitted' (assistant reasoning_content, tool_calls[]."
                          "name, store, max_completion_tokens, thinking); the allowed keys are "
                          "the SDK's request models (no stream_options)",
                          "crush #1590, litellm #30835, OpenMinis #87, jcode #261, zeroclaw "
                          f"#2693, openclaude #739; {_MI_SDK}/chatcompletionstreamrequest.py, "
                          "assistantmessage.py, toolcall.py", _MI_CONFIRMED),
    "developer_role": Fact("role 'developer' is not one of Mistral's message roles (SDK union: "
                           "system, user, assistant, tool); the 422 wording played is "
                           "pydantic's union_tag_invalid, not confirmed on the service"),
    "message_order": Fact("400 type invalid_request_message_order code '3230': \"Unexpected "
                          "role 'user' after role 'tool'\" and \"Unexpected role 'tool' after "
                          "role 'user'\"; unanswered calls: 'Not the same number of function "
                          "calls and responses' (type invalid_request_error, code null). The "
                          "user-after-tool rule is played only when enforce_user_after_tool is "
                          "set (the kit's history cases build tool -> user histories)",
                          "avante.nvim #2562/#2695, litellm #17761, onyx #6458, crush #279; "
                          "mistralai/client-ts #106, camel #1467", _MI_CONFIRMED),
    "tool_choice": Fact("auto, none, any, required, {type: function, function: {name}}; "
                        "parallel_tool_calls a boolean",
                        f"{_MI_SDK}/toolchoiceenum.py, chatcompletionstreamrequest.py",
                        _MI_CONFIRMED),
    "content_chunks": Fact("reasoning (reasoning_effort='high' on mistral-small / "
                           "mistral-medium-3-5 / mistral-large-4; Magistral): message.content "
                           "is a list [{type: thinking, thinking: [{type: text, text}], closed: "
                           "true}, {type: text, text}]; the thinking goes back as a content "
                           "chunk of the assistant message (recommended)",
                           "docs.mistral.ai/capabilities/reasoning; vercel/ai fixtures "
                           "mistral-large-4-reasoning-high.json, mistral-reasoning-history-"
                           "live.json; mistralai/client-python examples reasoning_multi_turn.py",
                           _MI_CONFIRMED),
    "stream_shape": Fact("role chunk {role: assistant, content: ''}; thinking as delta.content "
                         "lists, then plain strings (a transition delta may hold both); every "
                         "tool call whole in one delta (id, function{name, arguments}, index; "
                         "no type) on the chunk with finish_reason and usage; usage carries "
                         "prompt_tokens_details.cached_tokens and service_tier; data: [DONE]",
                         "vercel/ai fixtures mistral-tool-call.chunks.txt, mistral-reasoning."
                         "chunks.txt, mistral-usage-raw-live.chunks.txt; opik PR #7385 (live "
                         "check 2026-07); mistralai/client-python reasoning_with_streaming.py",
                         _MI_CONFIRMED),
    "stream_padding": Fact("live 2026 chunks carry a padding field 'p' (vercel/ai mistral-usage-"
                           "raw-live.chunks.txt); not played"),
    "midstream_error": Fact("the shape of an error inside a 200 stream is not confirmed: "
                            "OpenAI's data: {error} is played"),
    "unknown_id_wording": Fact("the wording for a tool_call_id that matches no call is not "
                               "confirmed: OpenAI's is played"),
})

_OR_CONFIRMED = "2026-11-25"
_OR_DOCS = "https://openrouter.ai/docs"

#: OpenRouter (openrouter.ai/api/v1): the openai wire with its integer-coded errors, its stream
#: shape (role on every chunk, the finish chunk twice, SSE comments, mid-stream error events) and
#: reasoning_details (issue 13). Served by the ``openrouter`` dialect class
#: (pytest_toolcall.dialects.openrouter) and the OpenRouterAdapter reference. Facts without a
#: confirmed date inherit OpenAI's behaviour.
OPENROUTER = Provider(name="openrouter", dialect="openai", family="openai", facts={
    "routes": Fact("POST /api/v1/chat/completions; base_url https://openrouter.ai/api/v1",
                   f"{_OR_DOCS}/api-reference/overview; {_OR_DOCS}/api-reference/streaming",
                   _OR_CONFIRMED),
    "auth": Fact("Authorization: Bearer <key>; a bad key is 401 {error: {message: 'User not "
                 "found.', code: 401}}; no key 401 'No cookie auth credentials found' (2025: "
                 "'No auth credentials found', historical)",
                 "public client logs and probes (2025-12 to 2026-08); Gitlawb/openclaude #967, "
                 "Chevey339/kelivo #147, continuedev/continue #10153; musistudio/claude-code-"
                 "router #227 (2025)", _OR_CONFIRMED),
    "error_shape": Fact("{error: {code: <int, equal to the HTTP status>, message, metadata?}} "
                        "(often a top-level user_id); statuses 400, 401, 402, 403, 408, 429, "
                        "502, 503; Retry-After may come on 429 and 503; upstream failures are "
                        "'Provider returned error' with metadata {raw, provider_name}",
                        f"{_OR_DOCS}/api-reference/errors; reVrost/go-openrouter PR #21, "
                        "open-webui/computer #293, diegosouzapw/OmniRoute #3044", _OR_CONFIRMED),
    "insufficient_credits": Fact("402 'This request requires more credits, or fewer "
                                 "max_tokens. You requested up to N tokens, but can only "
                                 "afford M. ...' metadata {provider_name: null}; not retryable "
                                 "as it is", "Gitlawb/openclaude #1125, newo-ether/Agora #8, "
                                 "continuedev/continue #11154, QwenLM/qwen-code #73",
                                 _OR_CONFIRMED),
    "midstream_error": Fact("after the first token: a data event {id, object: "
                            "chat.completion.chunk, created, model, provider, error: {code, "
                            "message}, choices: [{index: 0, delta: {content: ''}, "
                            "finish_reason: 'error'}]} under the 200, and the stream ends",
                            f"{_OR_DOCS}/api-reference/streaming (Handling Errors During "
                            "Streaming, the example 'Provider disconnected unexpectedly'); "
                            "cline #5449 (a mid-stream code 502 with metadata.raw)",
                            _OR_CONFIRMED),
    "stream_shape": Fact("role: 'assistant' on every chunk's delta, content null next to "
                         "tool-call fragments; a call's first fragment has index, id, type, "
                         "name, arguments ''; the finish chunk's delta {content: '', role: "
                         "'assistant'} with native_finish_reason; the finish chunk sent twice, "
                         "the second with usage (a usage-only choices: [] chunk was seen too)",
                         "a recorded anthropic/claude-4.5-haiku stream via Amazon Bedrock "
                         "(gen-1772969079-EhEx5DeV7JqM43lpl47Y) quoted in a public client's "
                         "tests; langchain-ai/langchain #38226 / PR #38552, QwenLM/qwen-code "
                         "#2402", _OR_CONFIRMED),
    "sse_comments": Fact("': OPENROUTER PROCESSING' SSE comments to keep the connection open, "
                         "before and between data lines", f"{_OR_DOCS}/api-reference/streaming "
                         "(Additional Information)", _OR_CONFIRMED),
    "stream_usage": Fact("usage (with cost, is_byok, prompt_tokens_details.cached_tokens / "
                         "cache_write_tokens, completion_tokens_details.reasoning_tokens) in the "
                         "last SSE message always; stream_options.include_usage is deprecated "
                         "and has no effect", f"{_OR_DOCS}/use-cases/usage-accounting",
                         _OR_CONFIRMED),
    "reasoning": Fact("message.reasoning (text) and message.reasoning_details [{type: "
                      "reasoning.text|reasoning.summary|reasoning.encrypted, text|summary|data, "
                      "id?, format, index}]; streamed as delta pieces; preserve "
                      "reasoning_details when passing messages back",
                      f"{_OR_DOCS}/use-cases/reasoning-tokens (Preserving reasoning blocks); "
                      "recorded openai/gpt-5 streams (charmbracelet fantasy testdata)",
                      _OR_CONFIRMED),
    "reasoning_details_required": Fact("Gemini models: a tool-call turn sent back without its "
                                       "encrypted reasoning detail is 400 {error: {message: "
                                       "'Provider returned error', code: 400, metadata: {raw: "
                                       "'Gemini models require OpenRouter reasoning details to "
                                       "be preserved in each request. Please refer to our "
                                       "docs: ... Upstream error: {... missing a "
                                       "`thought_signature` ...}'}}}",
                                       "OpenRouterTeam/ai-sdk-provider #381, microsoft/vscode-"
                                       "copilot-chat PR #2649, public agent logs (2025-12)",
                                       _OR_CONFIRMED),
    "reasoning_format_back": Fact("whether the format field must come back unchanged is not "
                                  "confirmed: the fake checks the encrypted data only"),
    "upstream_raw_tail": Fact("the upstream part of metadata.raw after 'Upstream error:' is "
                              "truncated in every public log: the fake's tail is Gemini's "
                              "message as far as quoted"),
    # not confirmed (2026-11-25): the parameters and tool-calling pages were not read; the
    # Python SDK's ToolChoice component lists Auto, Any, None and Tool
    # (openrouter.ai/docs/client-sdks/python/components/toolchoice.md). Inherits OpenAI's
    # values and is not enforced by the fake
    "tool_choice": Fact("none, auto, required, {type: function, function: {name}} (OpenAI's, "
                        "inherited; not enforced)"),
    "tools_unsupported": Fact("a model without a tool-capable endpoint is 404 'No endpoints "
                              "found that support tool use. ...' (Routstr/routstr-core #554); "
                              "not played (the fake has no model catalogue)"),
    "ids": Fact("completion ids 'gen-<unix>-<20 letters/digits>'; call ids from the upstream "
                "(toolu_bdrk_01... Anthropic on Bedrock, call_... OpenAI, tool_<name>_... "
                "Gemini); a provider field names the upstream",
                "the recorded Bedrock stream; recorded Parasail and Google AI Studio responses "
                "in public client tests", _OR_CONFIRMED),
    "request_errors": Fact("the wording of OpenRouter's own 400s for malformed requests is not "
                           "confirmed: OpenAI's rejections are played"),
}, quirks={
    "sse_comments": Fact("': OPENROUTER PROCESSING' comment lines, up to dozens before the "
                         "first data line and between events",
                         f"{_OR_DOCS}/api-reference/streaming (Additional Information)",
                         _OR_CONFIRMED),
})

_ZP_CONFIRMED = "2026-11-25"
_ZP_SDK = "zai-org/z-ai-sdk-python src/zai"

#: Zhipu AI / Z.ai (open.bigmodel.cn, api.z.ai): GLM on the openai wire with business-code
#: errors, auto-only tool_choice, its own tool types, whole calls on the finish chunk and
#: reasoning_content (issue 13). Served by the ``zhipu`` dialect class
#: (pytest_toolcall.dialects.zhipu) and the ZhipuAdapter reference. Facts without a confirmed
#: date inherit OpenAI's behaviour.
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

_AZ_CONFIRMED = "2026-11-25"
_AZ_DOCS = "https://learn.microsoft.com/azure/foundry/openai"
_AZ_SDK = "openai 3.57.0 openai/lib/azure.py"

#: Azure OpenAI ({resource}.openai.azure.com): OpenAI's Chat Completions on Azure's deployment
#: route (api-version) and v1 route, api-key or Entra ID bearer auth, content-filter chunks and
#: errors, gateway error bodies (issue 13). Served by the ``azure-openai`` dialect class
#: (pytest_toolcall.dialects.azure_openai) and the AzureOpenAIAdapter reference. Facts without
#: a confirmed date inherit OpenAI's behaviour.
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

REGISTRY: dict[str, Provider] = {p.name: p for p in (*_BUILTIN, VERTEX, DEEPSEEK, MISTRAL,
                                                     OPENROUTER, ZHIPU, AZURE_OPENAI)}


def quirk_senders(quirk: str) -> tuple[str, ...]:
    """The services whose ``quirks`` declare ``quirk``, in registry order."""
    return tuple(name for name, p in REGISTRY.items() if quirk in p.quirks)


def get(name: str) -> Provider:
    try:
        return REGISTRY[name]
    except KeyError:
        groups: dict[str, list[str]] = {}
        for p in REGISTRY.values():
            groups.setdefault(p.family, []).append(p.name)
        listing = "; ".join(f"{fam}: {', '.join(sorted(ns))}" for fam, ns in sorted(groups.items()))
        raise KeyError(f"unknown provider {name!r}; valid providers by family: {listing}") from None

"""Provider registry (issue 13, foundation; ``vertex`` is its first provider beyond the five
dialects, served through the dialect registry under its own name).

A provider is data: which dialect it speaks, where it lives, how it authenticates,
and which facts about it are confirmed (with source and date). An unconfirmed fact
is marked so and inherits OpenAI's behaviour.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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
    #: a provider a plugin adds (the ``pytest_toolcall_providers`` hook): the dialect class
    #: its fake plays (a subclass of its wire's, e.g. ``pytest_toolcall.providers.dialects.openai.
    #: OpenAIChat``; default: the wire's own) and the reference adapter class the suite runs
    #: against it when no adapter is given (default: the wire's reference)
    fake: Any = field(default=None, compare=False)
    reference: Any = field(default=None, compare=False)

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
#: dialect class (pytest_toolcall.providers.dialects.gemini.Vertex) and the VertexAdapter reference.
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
#: (issue 13). Served by the ``deepseek`` dialect class (pytest_toolcall.providers.dialects.deepseek) and
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
    "finish_reason_unlisted": Fact("finish_reason 'insufficient_system_resource': the turn was "
                                   "cut short by the inference system",
                                   f"{_DS_DOCS} (Create Chat Completion, choices.finish_reason); "
                                   "the ds-api crate's FinishReason enum", _DS_CONFIRMED),
})

_MI_CONFIRMED = "2026-11-25"
_MI_SDK = "mistralai/client-python src/mistralai/client/models"

#: Mistral (api.mistral.ai): the openai wire with 9-character call ids, content chunks, closed
#: request schemas and its own error bodies (issue 13). Served by the ``mistral`` dialect class
#: (pytest_toolcall.providers.dialects.mistral) and the MistralAdapter reference. Facts without a
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
#: (pytest_toolcall.providers.dialects.openrouter) and the OpenRouterAdapter reference. Facts without a
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
#: (pytest_toolcall.providers.dialects.zhipu) and the ZhipuAdapter reference. Facts without a confirmed
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
#: (pytest_toolcall.providers.dialects.azure_openai) and the AzureOpenAIAdapter reference. Facts without
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

_CB_CONFIRMED = "2026-11-25"
_CB_DOCS = "https://inference-docs.cerebras.ai"
_CB_SDK = "cerebras_cloud_sdk 1.91.0 src/cerebras/cloud/sdk/types/chat"
_CB_STREAM = ("a recorded gpt-oss-120b tool-call stream (jleechanorg/codex_plus "
              "testing_integration/cerebras_testing_results.md, 2025-10-04)")

#: Cerebras Inference (api.cerebras.ai): the openai wire with top-level error bodies, a closed
#: request schema, ``reasoning`` and ``time_info`` (issue 13). Served by the ``cerebras`` dialect
#: class (pytest_toolcall.providers.dialects.cerebras) and the CerebrasAdapter reference. Facts without a
#: confirmed date inherit OpenAI's behaviour.
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

_GQ_CONFIRMED = "2026-11-25"
_GQ_DOCS = "https://console.groq.com/docs"
_GQ_SDK = "groq 1.7.0 (groq-python) src/groq/types/chat"
_GQ_LIVE = ("live gpt-oss-20b and qwen3-32b stream captures of 2026-08 kept verbatim in a public "
            "test suite (req_01kztr8bqme32rx8ttyjtpk0nw, req_01kz7bdsx2ewjbpzjmx50syk52)")
_GQ_2025 = ("a recorded llama-3.3-70b-versatile stream (req_01jpmhp4mremx857n2f5kf4va5, "
            "2025-03-18) in a public groq-sdk example")

#: Groq (api.groq.com/openai/v1): the openai wire with usage under x_groq, each tool call whole
#: in one chunk, a reasoning field and its tool_use_failed 400 (issue 13). Served by the
#: ``groq`` dialect class (pytest_toolcall.providers.dialects.groq) and the GroqAdapter reference. Facts
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

_TG_CONFIRMED = "2026-11-25"
_TG_DOCS = "https://docs.together.ai/docs"
#: recorded Together traffic: maruel/genai providers/togetherai/testdata (go-vcr cassettes of
#: api.together.xyz, 2025-12-14 and 2025-12-15)
_TG_REC = "maruel/genai providers/togetherai/testdata/TestClient/Scoreboard"

#: Together AI (api.together.xyz/v1): the openai wire with a request id beside its errors, a
#: stream whose last chunk says "stop" after "tool_calls", usage always in the stream and the
#: reasoning field (issue 13). Served by the ``together`` dialect class
#: (pytest_toolcall.providers.dialects.together) and the TogetherAdapter reference. Facts without a
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

_LM_CONFIRMED = "2026-11-25"
_LM_DOCS = "lmstudio-ai/docs 1_developer"
_LM_BUGS = "lmstudio-ai/lmstudio-bug-tracker"

#: LM Studio's OpenAI-compatible server (http://localhost:1234/v1): the openai wire with a 200 for
#: unknown routes, string and object error bodies, an ``event: error`` inside 200 streams, numeric
#: call ids and reasoning_content / reasoning (issue 13). Served by the ``lmstudio`` dialect class
#: (pytest_toolcall.providers.dialects.lmstudio) and the LMStudioAdapter reference. Facts without a
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
# No quirk of pytest_toolcall.cases.QUIRKS is confirmed for LM Studio's stream today (the docs'
# stream is OpenAI's shape; data lines read 'data: {...}' with the space, goose #11318); its
# 'event: error' line has no quirk name (facts['midstream_error']).

_LC_CONFIRMED = "2026-11-25"
_LC = "ggml-org/llama.cpp"
_LC_SRV = f"{_LC} tools/server"

#: llama.cpp's llama-server: its OpenAI-compatible Chat Completions (/v1/chat/completions and
#: /chat/completions), optional --api-key, {code, message, type} errors, the role chunk alone,
#: 32-character call ids, reasoning_content and timings (issue 13). Served by the ``llamacpp``
#: dialect class (pytest_toolcall.providers.dialects.llamacpp) and the LlamaCppAdapter reference; the
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

_VL_CONFIRMED = "2026-11-25"
_VL_SRC = "vllm-project/vllm vllm/entrypoints"

#: vLLM's OpenAI-compatible server (`vllm serve`, /v1/chat/completions): the openai wire with an
#: optional --api-key, nested errors with integer codes, its request rules (no empty tools,
#: stream_options only when streaming, "auto" only with a tool-call parser), its stream shape
#: and the reasoning field (issue 13). Served by the ``vllm`` dialect class
#: (pytest_toolcall.providers.dialects.vllm) and the VLLMAdapter reference. Facts without a confirmed
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


_XA_CONFIRMED = "2026-11-25"
_XA_DOCS = "https://docs.x.ai/developers"
_XA_VERCEL = "vercel/ai packages/xai/src/__fixtures__"

#: xAI (api.x.ai/v1): the openai wire with flat {code, error} bodies (a wrong key is a 400), each
#: tool call whole in one stream chunk, grok-3-mini's reasoning_content and usage whose total
#: counts the reasoning tokens completion_tokens leaves out (issue 13). Served by the ``xai``
#: dialect class (pytest_toolcall.providers.dialects.xai) and the XAIAdapter reference. Facts without a
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


_FW_CONFIRMED = "2026-11-25"
_FW_DOCS = "https://docs.fireworks.ai"

#: Fireworks AI (api.fireworks.ai/inference/v1): the openai wire with its own error shapes (a
#: string error on 429), reasoning_content with interleaved thinking, and Kimi's id-before-name
#: tool-call streams (issue 13). Served by the ``fireworks`` dialect class
#: (pytest_toolcall.providers.dialects.fireworks) and the FireworksAdapter reference. Facts without a
#: confirmed date inherit OpenAI's behaviour.
FIREWORKS = Provider(name="fireworks", dialect="openai", family="openai", facts={
    "routes": Fact("POST /inference/v1/chat/completions; base_url "
                   "https://api.fireworks.ai/inference/v1",
                   f"{_FW_DOCS}/guides/function-calling (OpenAI SDK example); vercel/ai "
                   "packages/fireworks chat test (the URL)", _FW_CONFIRMED),
    "auth": Fact("Authorization: Bearer <key>; a bad key is 401 {error: {message: 'The API key "
                 "you provided is invalid.', code: 'UNAUTHORIZED', type: 'error'}}",
                 "a public agent project's notes quoting a live capture with a bogus key "
                 "(2026); typeclaw/typeclaw PR #388 ('bad keys come back as 401 UNAUTHORIZED')",
                 _FW_CONFIRMED),
    "auth_missing_key": Fact("the wording of a 401 without any key is not confirmed: the fake "
                             "sends the bad-key body"),
    "error_shape": Fact("a refused request: 400 {error: {type: 'invalid_request_error', message}, "
                        "type: 'error'}; statuses 400, 401, 402, 403, 404, 405, 408, 412, 413, "
                        "429, 500, 502, 503 (older bodies {error: {object: 'error', type, "
                        "message}}: historical)",
                        f"earendil-works/pi #5352 (2026-06); {_FW_DOCS}/guides/inference-error-"
                        "codes; TabbyML/tabby PR #3676 (2025-01)", _FW_CONFIRMED),
    "model_not_found": Fact("404 {error: {message: 'Model not found, inaccessible, and/or not "
                            "deployed', param: 'model', code: 'NOT_FOUND', ...}} (the rest of the "
                            "object is cut in every quoted log: type 'error' played as on the "
                            "401)", "public troubleshooting notes and test fixtures quoting the "
                            "body (2025-2026)", _FW_CONFIRMED),
    "rate_limit": Fact("429 {error: 'Too Many Requests', message: 'You have exceeded your usage "
                       "limits. Please try again later or contact Fireworks to explore "
                       "dedicated capacity.'}: the error is a string; headers not confirmed "
                       "(Retry-After played when the case gives a delay)",
                       "GordeyZuev/LEAP #6 (2025-11); "
                       f"{_FW_DOCS}/guides/inference-error-codes (understanding 429 errors)",
                       _FW_CONFIRMED),
    "server_errors": Fact("500 / 503 bodies are not confirmed: {error: {type: 'server_error' / "
                          "'service_unavailable', message}, type: 'error'} played"),
    "tool_choice": Fact("auto (default), none, required, {type: function, function: {name}} "
                        "(OpenAI's, inherited; the docs page states OpenAI compatibility)"),
    "reasoning_content": Fact("reasoning models return message.reasoning_content / "
                              "delta.reasoning_content (some put <think> in content); with "
                              "interleaved thinking 'you must include the reasoning_content from "
                              "previous assistant turns in subsequent requests'; a model without "
                              "it ignores the field (no error documented: not enforced); "
                              "reasoning_effort or the Anthropic-compatible thinking parameter",
                              f"{_FW_DOCS}/guides/reasoning (Interleaved thinking)",
                              _FW_CONFIRMED),
    "kimi_stream": Fact("Kimi K2.6: a call's first fragment carries the id (and empty "
                        "arguments) but not the name; the header comes once, then further "
                        "chunks reuse the same id with the argument pieces. No name in QUIRKS "
                        "for the name coming after the id: the fake plays it for a model whose "
                        "name contains 'kimi', checked by stream.fireworks_kimi_id_before_name",
                        "timbal-ai/timbal PR #27 (2026-04-28)", _FW_CONFIRMED),
    "stream_shape": Fact("other models: OpenAI's chunk shape (role chunk, fragments with index, "
                         "id and name on the first), usage only with stream_options "
                         "(not confirmed: inherited)"),
    "ids": Fact("call ids 'call_' + 24 letters/digits; non-stream tool_calls carry index; usage "
                "{prompt_tokens, total_tokens, completion_tokens}",
                "a recorded accounts/fireworks/models/qwen3-30b-a3b answer (2025-05) in a public "
                "parser's example", _FW_CONFIRMED),
    "midstream_error": Fact("the shape of an error inside a 200 stream is not confirmed: "
                            "OpenAI's data: {error} is played in Fireworks' shape"),
}, quirks={
    "repeat_id_name": Fact("id, type and name repeated on every fragment of a call: raw "
                           "chunks of accounts/fireworks/models/glm-5p2 quoted in "
                           "SillyTavern PR #5948 (2026-08: 'chatcmpl-tool-aa62' on each); "
                           "Kimi K2.6 repeats the id on every argument fragment",
                           "SillyTavern/SillyTavern PR #5948 (2026-08-19); BerriAI/litellm "
                           "#8990 (2025-03); timbal-ai/timbal PR #27 (2026-04-28)",
                           _FW_CONFIRMED),
})

REGISTRY: dict[str, Provider] = {p.name: p for p in (*_BUILTIN, VERTEX, DEEPSEEK, MISTRAL,
                                                     OPENROUTER, ZHIPU, AZURE_OPENAI, CEREBRAS,
                                                     GROQ, TOGETHER,
                                                     LMSTUDIO, LLAMACPP, VLLM, XAI, FIREWORKS)}


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

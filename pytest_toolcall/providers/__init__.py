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


# Today's five dialect names stay valid providers and mean the same.
_BUILTIN = [Provider(name=d, dialect=d, family=d.split("-")[0]) for d in DIALECTS]

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

REGISTRY: dict[str, Provider] = {p.name: p for p in (*_BUILTIN, VERTEX, DEEPSEEK, MISTRAL)}


def get(name: str) -> Provider:
    try:
        return REGISTRY[name]
    except KeyError:
        groups: dict[str, list[str]] = {}
        for p in REGISTRY.values():
            groups.setdefault(p.family, []).append(p.name)
        listing = "; ".join(f"{fam}: {', '.join(sorted(ns))}" for fam, ns in sorted(groups.items()))
        raise KeyError(f"unknown provider {name!r}; valid providers by family: {listing}") from None

"""OpenRouter (the openai wire): the facts the fake plays, each with
its source and the date it was confirmed.

Data only (the provider registry, ``pytest_toolcall.providers``, reads ``PROVIDER``);
docs/providers.md lists them."""

from __future__ import annotations

from pytest_toolcall.providers._facts import Fact, Provider

_OR_CONFIRMED = "2026-11-25"
_OR_DOCS = "https://openrouter.ai/docs"

#: OpenRouter (openrouter.ai/api/v1): the openai wire with its integer-coded errors, its stream
#: shape (role on every chunk, the finish chunk twice, SSE comments, mid-stream error events) and
#: reasoning_details (issue 13). Served by the ``openrouter`` dialect class
#: (pytest_toolcall.providers.openrouter.dialect) and the OpenRouterAdapter reference. Facts
#: without a confirmed date inherit OpenAI's behaviour.
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

PROVIDER = OPENROUTER

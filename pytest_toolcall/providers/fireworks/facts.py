"""Fireworks AI (the openai wire): the facts the fake plays, each with
its source and the date it was confirmed.

Data only (the provider registry, ``pytest_toolcall.providers``, reads ``PROVIDER``);
docs/providers.md lists them."""

from __future__ import annotations

from pytest_toolcall.providers._facts import Fact, Provider

_FW_CONFIRMED = "2026-11-25"
_FW_DOCS = "https://docs.fireworks.ai"

#: Fireworks AI (api.fireworks.ai/inference/v1): the openai wire with its own error shapes (a
#: string error on 429), reasoning_content with interleaved thinking, and Kimi's id-before-name
#: tool-call streams (issue 13). Served by the ``fireworks`` dialect class
#: (pytest_toolcall.providers.fireworks.dialect) and the FireworksAdapter reference. Facts without a
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

PROVIDER = FIREWORKS

"""Mistral (the openai wire): the facts the fake plays, each with
its source and the date it was confirmed.

Data only (the provider registry, ``pytest_toolcall.providers``, reads ``PROVIDER``);
docs/providers.md lists them."""

from __future__ import annotations

from pytest_toolcall.providers._facts import Fact, Provider

_MI_CONFIRMED = "2026-11-25"
_MI_SDK = "mistralai/client-python src/mistralai/client/models"

#: Mistral (api.mistral.ai): the openai wire with 9-character call ids, content chunks, closed
#: request schemas and its own error bodies (issue 13). Served by the ``mistral`` dialect class
#: (pytest_toolcall.providers.mistral.dialect) and the MistralAdapter reference. Facts without a
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

PROVIDER = MISTRAL

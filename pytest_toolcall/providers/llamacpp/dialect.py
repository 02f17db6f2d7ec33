"""llama.cpp's ``llama-server``: its OpenAI-compatible Chat Completions endpoint (issue 13).

The ``openai`` dialect with what llama-server does differently. Every fact below was read in
llama.cpp's own sources (``ggml-org/llama.cpp``, ``tools/server/`` and ``common/chat.cpp``,
master as stored 2026-11) or its ``tools/server/README.md`` and confirmed 2026-11-25; the
provider registry (``pytest_toolcall.providers.LLAMACPP``) holds them as data. What could not
be confirmed inherits OpenAI's behaviour.

- Routes: ``POST /v1/chat/completions`` and ``POST /chat/completions`` (``server.cpp``: both
  registered to the same handler); an unknown route is 404 ``{"error": {"message": "File Not
  Found", "type": "not_found_error", "code": 404}}`` (``server-http.cpp`` error handler).
- Auth is optional (``--api-key``, several keys allowed). When set, the key is read from
  ``Authorization`` (a ``Bearer `` prefix is stripped if present, so a bare key works too) or,
  when that header is empty, from ``X-Api-Key``; a missing or wrong key gets the same 401
  ``{"error": {"message": "Invalid API Key", "type": "authentication_error", "code": 401}}``
  (``server-http.cpp``, ``middleware_validate_api_key``). The fake always has a key.
- Errors: ``{"error": {"code": <HTTP status, an int>, "message", "type"}}``, the type by kind
  (``server-common.cpp`` ``format_error_response``): ``invalid_request_error`` 400,
  ``authentication_error`` 401, ``permission_error`` 403, ``not_found_error`` 404,
  ``server_error`` 500, ``not_supported_error`` 501, ``unavailable_error`` 503,
  ``exceed_context_size_error`` 400 (with ``n_prompt_tokens`` and ``n_ctx`` next to it:
  "request (N tokens) exceeds the available context size (M tokens), try increasing it"). A
  handler's ``std::invalid_argument`` is the 400, any other exception the 500
  (``server.cpp`` ``ex_wrapper``).
- ``tool_choice``: the strings ``auto``, ``none``, ``required``; any other string is 400
  "Invalid tool_choice: <value>" (``common/chat.cpp`` ``common_chat_tool_choice_parse_oaicompat``);
  a named-function object is read as a string, fails, and falls back to ``auto`` without a word
  (``server-common.cpp``: ``json_value(body, "tool_choice", std::string("auto"))``): the fake
  accepts it and plays what the case scripts.
- ``parallel_tool_calls`` defaults to FALSE (``json_value(body, "parallel_tool_calls", false)``;
  docs/function-calling.md: "disabled by default, enable it by passing
  \"parallel_tool_calls\": true"): the grammar then lets the model make one call. Not enforced:
  the fake plays the calls a case scripts.
- Tools need the Jinja chat template (``--jinja``, on by default in current builds per the
  README): without it ``tools`` is a 500 ``server_error`` "tools param requires --jinja flag"
  (a ``std::runtime_error``); the fake plays a server started with it.
- Answers: ``message`` is ``{role, [reasoning_content], content, [tool_calls]}``, ``content``
  ``null`` when the model only made calls; a call is ``{type, function: {name, arguments}, id}``
  and its id 32 random letters and digits, NO ``call_`` prefix (``gen_tool_call_id`` =
  ``random_string()``); completion ids ``chatcmpl-`` + 32; ``system_fingerprint`` is the build
  (``b<number>-<commit>``); ``usage`` has ``prompt_tokens_details.cached_tokens``; a ``timings``
  object (``cache_n``, ``prompt_n``, ``prompt_ms``, ..., ``predicted_per_second``) rides next to
  it (``server-task.cpp``).
- Stream (``server-task.cpp``): a first chunk ``{role: "assistant", content: null}`` ALONE
  (never a call fragment in it: the ``role_chunk_alone`` quirk), then one chunk per diff of the
  parsed message (``common_chat_msg_diff_to_json_oaicompat``): ``reasoning_content`` pieces,
  ``content`` pieces, tool-call fragments that always carry ``index``, with ``id`` and ``type``
  and ``function.name`` on a call's first fragment only and ``arguments`` diffs after; calls one
  after the other; the finish chunk's delta is ``{}``; with ``stream_options.include_usage`` a
  ``choices: []`` chunk with the usage follows, and ``timings`` rides on the last chunk; then
  ``data: [DONE]``. An error after the stream began is ``data: {"error": {...}}`` and the stream
  ends there, no ``[DONE]`` (``server-context.cpp``).
- Reasoning (``--reasoning-format``, default ``auto``: "deepseek: puts thoughts in
  message.reasoning_content"): the chain of thought comes apart from ``content``; an assistant
  message's ``reasoning_content`` is read back into the template (``common_chat_msgs_parse_
  oaicompat``); ``chat_template_kwargs: {"enable_thinking": false}`` turns thinking off.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pytest_toolcall.cases import ErrorReply, Turn
from pytest_toolcall.providers.base import Rejection
from pytest_toolcall.providers._compat import minted, reasoning_text, switch_at, usage_tokens
from pytest_toolcall.providers.openai.dialect import CREATED, OpenAIChat, _finish
from pytest_toolcall.providers.llamacpp import errors as _errors

__all__ = [
    "BUILD", "COMPLETION_ID", "DIALECT", "FILE_NOT_FOUND", "INVALID_KEY", "JINJA_REQUIRED",
    "LlamaCpp", "TYPES", "call_id", "context_size_message", "llamacpp_error",
]

INVALID_KEY = "Invalid API Key"
FILE_NOT_FOUND = "File Not Found"
#: the 500 of a request with tools to a server started without --jinja
JINJA_REQUIRED = "tools param requires --jinja flag"
#: ``chatcmpl-`` and 32 letters and digits (``gen_chatcmplid``)
COMPLETION_ID = "chatcmpl-Xk3n8Qp0Zr7Lm2Vb5Ht9Wc4Jd6Fs1GaE"
#: ``llama_build_info()``: the build number and the commit
BUILD = "b7146-7ad4d6a2"
#: the error type llama-server gives each status (``format_error_response``)
TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
         404: "not_found_error", 500: "server_error", 501: "not_supported_error",
         503: "unavailable_error"}
_PATHS = frozenset({"/v1/chat/completions", "/chat/completions"})
_ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_TOOL_CHOICES = ("auto", "none", "required")


def context_size_message(n_prompt: int, n_ctx: int) -> str:
    """The words of llama-server's exceed_context_size_error."""
    return (f"request ({n_prompt} tokens) exceeds the available context size ({n_ctx} tokens), "
            "try increasing it")


def llamacpp_error(status: int, message: str, *, type: str | None = None, rule: str,
                   **extra: Any) -> Rejection:
    """A rejection in llama-server's shape: ``{"error": {"code": status, "message", "type"}}``
    (``extra``: fields next to them, as ``n_prompt_tokens`` / ``n_ctx``)."""
    error: dict[str, Any] = {"code": status, "message": message,
                             "type": type or TYPES.get(status, "server_error"), **extra}
    return Rejection(status=status, body={"error": error}, rule=rule)


def _dump(value: Any, indent: int | None = None) -> str:
    """nlohmann's ``dump()``: compact, or indented."""
    if indent is None:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(value, ensure_ascii=False, indent=indent)


_REF = "(ref: https://github.com/ggml-org/llama.cpp/issues/8367)"


def parse_messages(messages: list[Any]) -> Rejection | None:
    """The 500 of ``common_chat_msgs_parse_oaicompat`` (fact message_parse), else None."""
    def failed(reason: str, rule: str) -> Rejection:
        return llamacpp_error(500, f"Failed to parse messages: {reason}", rule=rule)

    for message in messages:
        if not isinstance(message, Mapping):
            return failed(f"Expected 'message' to be an object, got {_dump(message)}",
                          "messages.object")
        if "role" not in message:
            return failed(f"Missing 'role' in message: {_dump(message)}", "messages.role.missing")
        content = message.get("content")
        if "content" in message and not isinstance(content, (str, list)) and content is not None:
            return failed(f"Invalid 'content' type: expected string or array, got "
                          f"{_dump(content)} {_REF}", "messages.content.type")
        calls = message.get("tool_calls")
        for raw in calls if isinstance(calls, list) else [] if calls is None else [calls]:
            call = raw if isinstance(raw, Mapping) else {}
            if "type" not in call:
                return failed(f"Missing tool call type: {_dump(raw)}", "messages.tool_calls.type")
            if call["type"] != "function":
                return failed(f"Unsupported tool call type: {_dump(call)}",
                              "messages.tool_calls.type")
            function = call.get("function")
            if not isinstance(function, Mapping):
                return failed(f"Missing tool call function: {_dump(call)}",
                              "messages.tool_calls.function")
            if "name" not in function:
                return failed(f"Missing tool call name: {_dump(call)}",
                              "messages.tool_calls.function.name")
            if "arguments" not in function:
                return failed("[json.exception.out_of_range.403] key 'arguments' not found",
                              "messages.tool_calls.function.arguments")
        if "content" not in message and "tool_calls" not in message:
            return failed("Expected 'content' or 'tool_calls' (ref: https://github.com/ggml-org/"
                          "llama.cpp/issues/8367 & https://github.com/ggml-org/llama.cpp/issues/"
                          "12279)", "messages.content.absent")
    return None


def parse_tools(tools: Any) -> Rejection | None:
    """The 500 of ``common_chat_tools_parse_oaicompat`` (fact message_parse), else None."""
    if tools is None:
        return None

    def failed(reason: str, rule: str) -> Rejection:
        return llamacpp_error(500, f"Failed to parse tools: {reason}; tools = {_dump(tools, 2)}",
                              rule=rule)

    if not isinstance(tools, list):
        return failed(f"Expected 'tools' to be an array, got {_dump(tools)}", "tools.array")
    for tool in tools:
        tool_map = tool if isinstance(tool, Mapping) else {}
        if "type" not in tool_map:
            return failed(f"Missing tool type: {_dump(tool)}", "tools.type.missing")
        if tool_map["type"] != "function":
            return failed(f"Unsupported tool type: {_dump(tool)}", "tools.type")
        if "function" not in tool_map:
            return failed(f"Missing tool function: {_dump(tool)}", "tools.function.missing")
        function = tool_map["function"]
        if not isinstance(function, Mapping) or "name" not in function:
            return failed("[json.exception.out_of_range.403] key 'name' not found",
                          "tools.name.missing")
    return None


def call_id(key: str, position: int) -> str:
    """32 letters and digits, as ``random_string()`` makes them (here derived from ``key``)."""
    return minted(f"{key}/{position}", 32, _ALNUM)


class LlamaCpp(OpenAIChat):
    """The ``llamacpp`` provider: llama-server's OpenAI-compatible Chat Completions."""

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    name = "llamacpp"
    confirmed_rules = {"tool_choice.value": "tool_choice",
                       # what common/chat.cpp parses itself (fact message_parse): a 500
                       **{rule: "message_parse" for rule in (
                           "messages.role.missing", "messages.tool_calls.type",
                           "messages.tool_calls.function", "messages.tool_calls.function.name",
                           "messages.tool_calls.function.arguments", "tools.type.missing",
                           "tools.type", "tools.function.missing", "tools.name.missing")}}
    #: what llama-server takes that OpenAI refuses: it reads no more than it needs (fact
    #: message_parse)
    lenient_rules = {
        "messages.tool_calls.id": "a call without id (read only when present)",
        "messages.tool.tool_call_id": "a tool message without tool_call_id (read only when "
                                      "present)",
        "messages.assistant.content_null": "content: null (a message without the content key "
                                           "and without tool_calls is its own 500)",
        "messages.content.missing": "content: null (a message without the content key and "
                                    "without tool_calls is its own 500)",
    }
    title = "llama.cpp llama-server (OpenAI-compatible Chat Completions)"
    base_path = "/v1"
    paths = _PATHS
    reasoning_field = "reasoning_content"
    thinking_switch = staticmethod(switch_at("chat_template_kwargs", "enable_thinking"))
    call_id = staticmethod(call_id)

    # -- routing and auth -------------------------------------------------------------------
    def route(self, method: str, path: str) -> bool:
        return method == "POST" and path in self.paths  # the router matches a path exactly

    def not_found(self, method: str, path: str) -> Rejection:
        return llamacpp_error(404, FILE_NOT_FOUND, rule="route")

    def check_auth(self, headers: Mapping[str, str], query: Mapping[str, str],
                   key: str) -> Rejection | None:
        sent = headers.get("authorization", "")
        if not sent:
            sent = headers.get("x-api-key", "")
        sent = sent.removeprefix("Bearer ")
        if sent == key:
            return None
        # one answer for a missing and a wrong key
        return llamacpp_error(401, INVALID_KEY, rule="auth.invalid" if sent else "auth.missing")

    # -- validation ---------------------------------------------------------------------------
    def validate(self, body: Any) -> Rejection | None:
        if isinstance(body, Mapping):
            if "messages" not in body:
                return llamacpp_error(400, "'messages' is required", rule="messages.missing")
            if not isinstance(body["messages"], list):
                return llamacpp_error(400, "Expected 'messages' to be an array", rule="type")
            choice = body.get("tool_choice")
            if isinstance(choice, str) and choice not in _TOOL_CHOICES:
                return llamacpp_error(400, f"Invalid tool_choice: {choice}",
                                      rule="tool_choice.value")
            found = parse_messages(body["messages"]) or parse_tools(body.get("tools"))
            if found is not None:
                return found
        # the rest of OpenAI's rules are not llama-server's (the model's chat template may
        # raise): taken, reported as hardening
        return super().validate(body)

    def _validate_tool_choice(self, choice: Any, tools: list[Any]) -> Rejection | None:
        # a string was checked above; anything else is read as "auto" (json_value's fallback)
        return None

    # -- encoding -----------------------------------------------------------------------------
    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        from pytest_toolcall.cases import error_type_for

        kind = error.type
        if kind == error_type_for(error.status) or kind == "invalid_request_error":
            # the type a case leaves out follows the status, in llama-server's words
            kind = TYPES.get(error.status, kind)
        # inside a 200 stream the event carries the status the failure would have had
        code = error.status if error.status >= 400 else 500
        return error.status, {"error": {"code": code, "message": error.message, "type": kind}}

    @staticmethod
    def _usage(turn: Turn) -> dict[str, Any]:
        prompt, completion, total = usage_tokens(turn)
        # usage_json_oaicompat's keys and order
        return {"completion_tokens": completion, "prompt_tokens": prompt, "total_tokens": total,
                "prompt_tokens_details": {"cached_tokens": 0}}

    @staticmethod
    def _timings(turn: Turn) -> dict[str, Any]:
        u = turn.usage
        prompt = (u.input_tokens or 0) if u is not None else 12
        predicted = (u.output_tokens or 0) if u is not None else 8
        return {"cache_n": 0, "prompt_n": prompt, "prompt_ms": 41.2,
                "prompt_per_token_ms": round(41.2 / max(prompt, 1), 3),
                "prompt_per_second": round(prompt / 0.0412, 3), "predicted_n": predicted,
                "predicted_ms": 250.5,
                "predicted_per_token_ms": round(250.5 / max(predicted, 1), 3),
                "predicted_per_second": round(predicted / 0.2505, 3)}

    def _base(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return {"created": CREATED, "id": COMPLETION_ID,
                "model": body.get("model") or "gpt-oss-20b", "system_fingerprint": BUILD}

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant"}
        reasoning = reasoning_text(turn)
        if reasoning:
            message["reasoning_content"] = reasoning
        message["content"] = None if (turn.tool_calls and not turn.text) else (turn.text or "")
        if turn.tool_calls:
            message["tool_calls"] = [
                {"type": "function", "function": {"name": c.name,
                                                  "arguments": c.arguments_text()}, "id": cid}
                for cid, c in zip(self.call_ids(turn), turn.tool_calls)]
        base = self._base(body)
        response: dict[str, Any] = {
            "choices": [{"finish_reason": _finish(turn), "index": 0, "message": message}],
            "created": base["created"], "model": base["model"],
            "system_fingerprint": BUILD, "object": "chat.completion"}
        self.with_usage(response, turn)
        response["id"] = COMPLETION_ID
        response["timings"] = self._timings(turn)
        return response

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        plan, quirks = turn.stream, turn.stream.quirks
        include_usage = self.include_usage(body)
        base = self._base(body)

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {"choices": [{"finish_reason": finish, "index": 0, "delta": delta}],
                    "created": base["created"], "id": COMPLETION_ID, "model": base["model"],
                    "system_fingerprint": BUILD, "object": "chat.completion.chunk"}

        size = plan.fragment_size
        # the opening chunk goes alone (role_chunk_alone): the diffs follow in their own chunks
        chunks = [chunk(d) for d in [{"role": "assistant", "content": None},
                                     *self.text_deltas(turn, size)]]
        reasoning = reasoning_text(turn)
        fragments = self.call_fragments(turn, size, quirks)
        if fragments and "call_in_role_chunk" in quirks and not turn.text and not reasoning:
            chunks[0]["choices"][0]["delta"]["tool_calls"] = [fragments.pop(0)]
        chunks += [chunk({"tool_calls": [frag]}) for frag in fragments]
        chunks.append(chunk({}, _finish(turn)))
        if include_usage and turn.usage is not None:
            chunks.append({"choices": [], "created": base["created"], "id": COMPLETION_ID,
                           "model": base["model"], "system_fingerprint": BUILD,
                           "object": "chat.completion.chunk", "usage": self._usage(turn)})
        chunks[-1]["timings"] = self._timings(turn)
        return self.stream_events(chunks, plan, quirks)


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = LlamaCpp

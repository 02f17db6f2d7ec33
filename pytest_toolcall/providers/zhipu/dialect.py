"""Zhipu AI / Z.ai GLM (``open.bigmodel.cn``, ``api.z.ai``): OpenAI-compatible Chat Completions.

The ``openai`` dialect with what GLM does differently. Every fact below carries its source and
was confirmed 2026-11-25 (the provider registry, ``pytest_toolcall.providers.ZHIPU``, holds them
as data); what could not be confirmed inherits OpenAI's behaviour and is marked so there.

- Routes: ``POST /api/paas/v4/chat/completions`` on ``https://open.bigmodel.cn`` (Zhipu, the
  ``ZhipuAiClient`` default) and on ``https://api.z.ai`` (Z.ai, the ``ZaiClient`` default):
  zai-org/z-ai-sdk-python ``src/zai/_client.py``; docs.bigmodel.cn and docs.z.ai API reference
  (``servers: https://open.bigmodel.cn/api/`` / ``https://api.z.ai/api``, ``POST
  /paas/v4/chat/completions``). The GLM Coding Plan serves the same wire at
  ``/api/coding/paas/v4`` (docs.z.ai devpack; a measured compatibility write-up). Auth:
  ``Authorization: Bearer <key>`` (the SDK's ``auth_headers`` with ``disable_token_cache=True``,
  its default).
- Errors: ``{"error": {"code": "<business code as a string>", "message": ...}}``, the HTTP
  status outside (docs.z.ai/api-reference/api-code): 401 code 1001 without the header ("Header
  中未收到Authorization参数，无法进行身份验证。", recorded curl runs), 1000 for a bad key
  ("身份验证失败。", a gateway's live evidence 2026-10-09); an unknown tool type is 400 code 1214
  "tools[0].type:type is illegal" (measured on z.ai). Zhipu answers in Chinese, Z.ai in English;
  the fake plays open.bigmodel.cn's words.
- ``tool_choice``: "默认为auto，当前仅支持auto" (the parameter's description in Zhipu's API
  reference, quoted by every GLM client); ``required`` and a named function are refused with
  400 "Tool choice must be auto" (hindsight #4246, xagent #1960, copilot-cli #4646, relayed by
  OpenRouter from Z.AI; the code field of the direct answer is NOT confirmed: 1214 is played,
  the docs' "Invalid ${field} parameter").
- Tools: besides ``function``, GLM's own ``web_search`` and ``retrieval`` tool types
  (zhipuai / zai SDK tool params; openai-interface ``zai`` module).
- Thinking (GLM-4.5 and later; on by default on GLM-4.7 / 5.x; ``thinking: {"type":
  "disabled"}`` turns it off): the chain of thought comes in ``message.reasoning_content``
  (stream: ``delta.reasoning_content``). "When using interleaved thinking with tools, thinking
  blocks should be explicitly preserved and returned together with the tool results"
  (docs.z.ai/guides/capabilities/thinking-mode; docs.bigmodel.cn: "必须显式保留 Reasoning
  content"); with ``clear_thinking: false`` (preserved thinking) it must come back "complete,
  unmodified". No error is documented or reported when it is left out, so the fake does not
  refuse such a request; the cases check what the adapter sends.
- Stream (without ``tool_stream``): every delta carries ``role: "assistant"``, chunks have no
  ``finish_reason`` key until the last; a tool call arrives whole (id, type, name, arguments,
  index) in one delta, on the chunk with ``finish_reason: "tool_calls"`` (langchain PR #26693,
  glm-4-flash); usage rides on that finish chunk (docs.z.ai/guides/capabilities/streaming,
  docs.bigmodel.cn examples); with ``stream_options.include_usage`` it comes in a separate
  ``choices: []`` chunk after it (a recorded glm-4.6 stream, 2026-02-10). ``tool_stream: true``
  (GLM-4.6 and later) streams the arguments in fragments (docs.z.ai/guides/capabilities/
  stream-tool; the fragment shape is NOT confirmed: OpenAI's is played).
- Ids: call ids ``call_-`` and 19 digits, consecutive within an answer
  (``call_-7263702910662343394``, ``...393``, ``...392``: a recorded glm-5.2 answer,
  2026-09-13; glm-4.7, 2026-04); completion ids are the ``request_id``, a timestamp and 16 hex
  digits; non-stream tool calls carry ``index`` too.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from pytest_toolcall.cases import ErrorReply, Turn
from pytest_toolcall.providers.base import Rejection
from pytest_toolcall.providers._compat import reasoning_text, thinking_type, usage_tokens
from pytest_toolcall.providers.openai.dialect import CREATED, OpenAIChat, _finish
from pytest_toolcall.providers.zhipu import errors as _errors

__all__ = [
    "AUTH_INVALID", "AUTH_MISSING", "DIALECT", "REQUEST_ID", "TOOL_CHOICE_AUTO", "TOOL_TYPES",
    "TOOL_TYPE_ILLEGAL", "Zhipu", "call_id", "zhipu_error",
]

AUTH_MISSING = "Header中未收到Authorization参数，无法进行身份验证。"
AUTH_INVALID = "身份验证失败。"
TOOL_CHOICE_AUTO = "Tool choice must be auto"
TOOL_TYPE_ILLEGAL = "tools[{i}].type:type is illegal"
#: the id and request_id of every answer: a timestamp and 16 hex digits (recorded glm-5.2)
REQUEST_ID = "20261125120000a1b2c3d4e5f60718"
#: GLM's own tool types next to ``function`` (zai SDK, openai-interface ``zai``)
TOOL_TYPES = frozenset({"function", "web_search", "retrieval"})
_PATHS = frozenset({"/api/paas/v4/chat/completions", "/api/coding/paas/v4/chat/completions"})


def zhipu_error(status: int, code: str, message: str, *, rule: str) -> Rejection:
    """A rejection in Zhipu's shape: ``{"error": {"code": "<string>", "message"}}``."""
    return Rejection(status=status, body={"error": {"code": code, "message": message}},
                     rule=rule)


def call_id(key: str, position: int) -> str:
    """``call_-`` and 19 digits, consecutive within one answer (as recorded)."""
    digest = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
    base = 7_000_000_000_000_000_000 + digest % 2_000_000_000_000_000_000
    return f"call_-{base - position}"


class Zhipu(OpenAIChat):
    """The ``zhipu`` provider: GLM's Chat Completions (open.bigmodel.cn / api.z.ai)."""

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    name = "zhipu"
    confirmed_rules = {"tools.type": "tool_types", "tool_choice.value": "tool_choice"}
    title = "Zhipu AI / Z.ai GLM Chat Completions (open.bigmodel.cn, api.z.ai)"
    base_path = "/api/paas/v4"
    paths = _PATHS
    reasoning_field = "reasoning_content"
    thinking_switch = staticmethod(thinking_type)
    call_id = staticmethod(call_id)

    # -- auth -----------------------------------------------------------------------------------
    def auth_rejection(self, auth: str) -> Rejection:
        if not auth:
            return zhipu_error(401, "1001", AUTH_MISSING, rule="auth.missing")
        return zhipu_error(401, "1000", AUTH_INVALID, rule="auth.invalid")

    # -- validation ---------------------------------------------------------------------------
    def _validate_tool(self, i: int, tool: Any) -> Rejection | None:
        kind = tool.get("type") if isinstance(tool, Mapping) else None
        if kind in ("web_search", "retrieval"):
            return None  # GLM's own tools: their settings are not the kit's business
        if isinstance(tool, Mapping) and isinstance(kind, str) and kind not in TOOL_TYPES:
            return zhipu_error(400, "1214", TOOL_TYPE_ILLEGAL.format(i=i), rule="tools.type")
        return super()._validate_tool(i, tool)

    def _validate_tool_choice(self, choice: Any, tools: list[Any]) -> Rejection | None:
        if choice == "auto":
            return None
        # the wording is Z.AI's as OpenRouter relays it; the code is not confirmed
        return zhipu_error(400, "1214", TOOL_CHOICE_AUTO, rule="tool_choice.value")

    # -- encoding -----------------------------------------------------------------------------
    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        return error.status, {"error": {"code": error.code or str(error.status),
                                        "message": error.message}}

    @staticmethod
    def _usage(turn: Turn) -> dict[str, Any]:
        prompt, completion, total = usage_tokens(turn)
        # the keys of the recorded glm-5.2 answer, in its (alphabetical) order
        return {"completion_tokens": completion,
                "completion_tokens_details": {"reasoning_tokens": 0},
                "prompt_tokens": prompt, "prompt_tokens_details": {"cached_tokens": 0},
                "total_tokens": total}

    def _whole_calls(self, turn: Turn) -> list[dict[str, Any]]:
        return [{"function": {"arguments": c.arguments_text(), "name": c.name}, "id": cid,
                 "index": k, "type": "function"}
                for k, (cid, c) in enumerate(zip(self.call_ids(turn), turn.tool_calls))]

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"content": turn.text or "", "role": "assistant"}
        reasoning = reasoning_text(turn)
        if reasoning is not None:
            message["reasoning_content"] = reasoning
        if turn.tool_calls:
            message["tool_calls"] = self._whole_calls(turn)
        response: dict[str, Any] = {
            "choices": [{"finish_reason": _finish(turn), "index": 0, "message": message}],
            "created": CREATED, "id": REQUEST_ID, "model": body.get("model") or "glm-4.7",
            "object": "chat.completion", "request_id": REQUEST_ID}
        return self.with_usage(response, turn)

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        plan, quirks = turn.stream, turn.stream.quirks
        include_usage = self.include_usage(body)
        tool_stream = body.get("tool_stream") is True
        base = {"id": REQUEST_ID, "created": CREATED, "object": "chat.completion.chunk",
                "model": body.get("model") or "glm-4.7"}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            choice: dict[str, Any] = {"index": 0}
            if finish is not None:
                choice["finish_reason"] = finish
            choice["delta"] = {"role": "assistant", **delta}
            return dict(base, choices=[choice])

        size = plan.fragment_size
        chunks = [chunk(d) for d in self.text_deltas(turn, size) or [{"content": ""}]]
        last_delta: dict[str, Any] = {"content": ""}
        if turn.tool_calls and tool_stream:
            # tool_stream: fragments as OpenAI sends them, call after call (the fragment shape
            # is not confirmed; interleaving is not played)
            fragments = self.call_fragments(turn, size, quirks - {"interleave"})
            chunks += [chunk({"tool_calls": [frag]}) for frag in fragments]
        elif turn.tool_calls:
            last_delta = {"tool_calls": self._whole_calls(turn)}
        last = chunk(last_delta, _finish(turn))
        chunks.append(last)
        if turn.usage is not None:
            if include_usage:
                chunks.append({"id": REQUEST_ID, "created": CREATED, "model": base["model"],
                               "choices": [], "usage": self._usage(turn),
                               "object": "chat.completion.chunk"})
            else:
                last["usage"] = self._usage(turn)
        # not confirmed: the shape of an error inside a 200 stream; OpenAI's data: {error} is
        # played (in Zhipu's error shape); no sse_comments
        return self.sse_events(chunks, plan, quirks)


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = Zhipu

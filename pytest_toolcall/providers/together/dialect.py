"""Together AI (``api.together.xyz/v1``), an OpenAI-compatible Chat Completions service (issue 13).

The ``openai`` dialect with what Together does differently. Every fact below carries its source
and was confirmed 2026-11-25 (the provider registry, ``pytest_toolcall.providers.TOGETHER``,
holds them as data); what could not be confirmed inherits OpenAI's behaviour.

- Route ``POST /v1/chat/completions`` on ``https://api.together.xyz`` (and
  ``https://api.together.ai``); bearer auth. A bad key is 401 ``{"id": "<request id>", "error":
  {"message": "Invalid API key provided. You can find your API key at https://api.together.ai/
  settings/api-keys.", "type": "invalid_request_error", "param": null, "code":
  "invalid_api_key"}}`` (a recorded answer in maruel/genai's Together test data, 2025-12-14; the
  same body quoted by public client tests). Errors are OpenAI's shape with a top-level ``id``;
  an unknown model is 404 ``model_not_available`` "Unable to access model <m>. Please visit
  https://api.together.ai/models to view the list of supported models.".
- ``tool_choice``: ``auto`` (default), ``none``, ``required`` or a named function
  (docs.together.ai/docs/inference/function-calling/single-call, "tool_choice options").
- Stream (recorded Qwen3-235B-A22B-Instruct-2507 streams, 2025-12-14 and -15): every choice
  carries ``text`` (the content piece again) and ``logprobs: null``; every delta carries
  ``token_id: null``, ``role: "assistant"`` and ``content`` (``""`` next to tool calls); the
  first chunk is the role chunk ALONE (choice-level ``role`` too), the call's first fragment
  comes in a chunk of its own (``index, id, type, function{name, arguments: ""}``), later
  fragments carry ``index`` and an ``arguments`` piece only. ``finish_reason: "tool_calls"``
  rides on the chunk with the last arguments piece, again on a chunk with ``matched_stop``,
  and then a LAST chunk says ``finish_reason: "stop"`` and carries the usage, whatever
  ``stream_options`` says. A reader that lets the last finish_reason win reports "stop" for a
  tool-call turn. A ``length`` stop ends with a ``choices: []`` usage chunk instead (a recorded
  GenStream-MaxTokens stream, same day). Usage has ``reasoning_tokens`` at its top level.
- Reasoning (docs.together.ai/docs/inference/chat/reasoning: "visible as tokens in the
  ``reasoning`` output field"; a recorded Kimi-K2-Thinking stream): ``message.reasoning`` /
  ``delta.reasoning`` pieces (``reasoning: null`` on the other deltas); ``reasoning: {"enabled":
  true|false}`` switches hybrid models. Whether it must come back is not documented: the fake
  reads it from assistant messages and enforces nothing.
- Ids: call ids ``call_`` + 24 lowercase letters and digits (``call_ouqrnqlg7bum0r32ip4nw66d``);
  completion ids like ``oPN9RAs-2j9zxn-9ae97f338de0a29f``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolcall.cases import ErrorReply, Turn
from pytest_toolcall.providers.base import Rejection
from pytest_toolcall.providers._compat import (LOWER_ALNUM, error_object, minted, reasoning_text,
                                               switch_at, usage_tokens)
from pytest_toolcall.providers.openai.dialect import CREATED, OpenAIChat, _finish
from pytest_toolcall.providers.together import errors as _errors

__all__ = [
    "BAD_KEY", "COMPLETION_ID", "DEFAULT_MODEL", "DIALECT", "MATCHED_STOP", "Together", "call_id",
    "together_error",
]

BAD_KEY = ("Invalid API key provided. You can find your API key at https://api.together.ai/"
           "settings/api-keys.")
#: the completion id of every answer (the recorded shape: 7, 6 and 16 characters)
COMPLETION_ID = "oPN9RAs-2j9zxn-9ae97f338de0a29f"
#: the stop token id the recorded finish chunks name (Qwen's <|im_end|>)
MATCHED_STOP = 151645
DEFAULT_MODEL = "Qwen/Qwen3-235B-A22B-Instruct-2507-tput"


def together_error(status: int, message: str, *, type: str = "invalid_request_error",
                   code: str | None = None, param: str | None = None,
                   rule: str) -> Rejection:
    """A rejection in Together's shape: OpenAI's error object with the request id beside it."""
    return Rejection(status=status, body={"id": COMPLETION_ID, "error": {
        "message": message, "type": type, "param": param, "code": code}}, rule=rule)


def call_id(key: str, position: int) -> str:
    """``call_`` and 24 lowercase letters and digits, as recorded."""
    return "call_" + minted(f"{key}/{position}", 24, LOWER_ALNUM)


class Together(OpenAIChat):
    """The ``together`` provider: Together AI's Chat Completions on the ``openai`` wire."""

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    name = "together"
    title = "Together AI Chat Completions (api.together.xyz/v1)"
    base_path = "/v1"
    paths = frozenset({"/v1/chat/completions"})
    reasoning_field = "reasoning"
    #: ``reasoning: {"enabled": true|false}`` switches hybrid models
    thinking_switch = staticmethod(switch_at("reasoning", "enabled"))
    call_id = staticmethod(call_id)

    # -- auth, validation -----------------------------------------------------------------------
    def auth_rejection(self, auth: str) -> Rejection:
        # the wording without any key is not confirmed: the bad-key body is sent
        return together_error(401, BAD_KEY, code="invalid_api_key",
                              rule="auth.invalid" if auth else "auth.missing")

    def validate(self, body: Any) -> Rejection | None:
        found = super().validate(body)
        if found is not None and isinstance(found.body, Mapping) and "error" in found.body:
            # not confirmed rule by rule: OpenAI's words, in Together's shape (the request id)
            return Rejection(status=found.status, body={"id": COMPLETION_ID, **found.body},
                             rule=found.rule)
        return found

    # -- encoding -----------------------------------------------------------------------------
    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        return error.status, {"id": COMPLETION_ID, "error": error_object(error)}

    @staticmethod
    def _usage(turn: Turn) -> dict[str, Any]:
        prompt, completion, total = usage_tokens(turn)
        # the recorded stream's keys, in its order
        return {"prompt_tokens": prompt, "total_tokens": total, "completion_tokens": completion,
                "reasoning_tokens": 0}

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant",
                                   "content": turn.text if turn.text or not turn.tool_calls
                                   else None}
        reasoning = reasoning_text(turn)
        if reasoning is not None:
            message["reasoning"] = reasoning
        if turn.tool_calls:
            message["tool_calls"] = [
                {"index": k, "id": cid, "type": "function",
                 "function": {"arguments": c.arguments_text(), "name": c.name}}
                for k, (cid, c) in enumerate(zip(self.call_ids(turn), turn.tool_calls))]
        response: dict[str, Any] = {
            "id": COMPLETION_ID, "object": "chat.completion", "created": CREATED,
            "model": body.get("model") or DEFAULT_MODEL, "prompt": [],
            "choices": [{"index": 0, "logprobs": None, "finish_reason": _finish(turn),
                         "seed": None, "message": message}]}
        if turn.usage is not None:
            u = self._usage(turn)
            del u["reasoning_tokens"]  # the recorded non-stream usage has three keys
            response["usage"] = u
        return response

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        plan, quirks = turn.stream, turn.stream.quirks
        model = body.get("model") or DEFAULT_MODEL
        reasoning = reasoning_text(turn)
        base = {"id": COMPLETION_ID, "object": "chat.completion.chunk", "created": CREATED}

        def chunk(delta: dict[str, Any], finish: str | None = None, *,
                  extra: dict[str, Any] | None = None, usage: Any = None) -> dict[str, Any]:
            choice: dict[str, Any] = {"index": 0, "text": delta.get("content") or "",
                                      "logprobs": None, "finish_reason": finish, **(extra or {})}
            full = {"token_id": None, "role": "assistant", "content": "", **delta}
            if reasoning is not None:
                full.setdefault("reasoning", None)
            choice["delta"] = full
            return dict(base, choices=[choice], model=model, usage=usage)

        size = plan.fragment_size
        first = chunk({})
        del first["usage"]  # the role chunk: choice-level role, no usage key (recorded)
        first["choices"][0] = {"index": 0, "role": "assistant", **first["choices"][0]}
        chunks = [first] + [chunk(d) for d in self.text_deltas(turn, size)]
        fragments = self.call_fragments(turn, size, quirks)
        if fragments and "call_in_role_chunk" in quirks and not turn.text and not reasoning:
            first["choices"][0]["delta"]["tool_calls"] = [fragments.pop(0)]
        finish = _finish(turn)
        frag_chunks = [chunk({"tool_calls": [frag]}) for frag in fragments]
        if frag_chunks and finish == "tool_calls":
            # the finish rides on the chunk with the last arguments piece (recorded)
            frag_chunks[-1]["choices"][0]["finish_reason"] = finish
        chunks += frag_chunks
        chunks.append(chunk({}, finish, extra={"matched_stop": MATCHED_STOP}))
        usage = self._usage(turn) if turn.usage is not None else None
        if finish in ("stop", "tool_calls"):
            # the last chunk says "stop", tool calls or not, and carries the usage (recorded)
            last = chunk({}, "stop", usage=usage)
            del last["choices"][0]["logprobs"]
            chunks.append(last)
        elif usage is not None:
            chunks.append(dict(base, choices=[], model=model, usage=usage))
        # not confirmed: the shape of an error inside a 200 stream; sse_events plays OpenAI's
        # data: {error}, in Together's error shape
        return self.stream_events(chunks, plan, quirks)


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = Together

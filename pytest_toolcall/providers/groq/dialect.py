"""Groq (``api.groq.com/openai/v1``), an OpenAI-compatible Chat Completions service (issue 13).

The ``openai`` dialect with what Groq does differently. Every fact below carries its source and
was confirmed 2026-11-25 (the provider registry, ``pytest_toolcall.providers.GROQ``, holds them
as data); what could not be confirmed inherits OpenAI's behaviour.

- Route ``POST /openai/v1/chat/completions``, bearer auth. A bad key is 401 ``{"error":
  {"message": "Invalid API Key", "type": "invalid_request_error", "code": "invalid_api_key"}}``
  (nark/WiredSwift #44, 2026-03; ag5826000/resume-commentor #4, 2025-03, content-length 96).
  Groq's error bodies have no ``param`` key: ``{"error": {"message", "type", "code"}}``.
- ``tool_use_failed``: when the model's tool call cannot be parsed, Groq answers 400 ``{"error":
  {"message": "Failed to call a function. Please adjust your prompt. See 'failed_generation' for
  more details.", "type": "invalid_request_error", "code": "tool_use_failed",
  "failed_generation": "<what the model wrote>"}}`` (agno #4090, smolagents #1119, picoclaw #748).
- Stream (a recorded llama-3.3-70b-versatile stream of 2025-03 in a public groq-sdk example;
  live gpt-oss-20b and qwen3-32b captures of 2026-08 in a public test suite): the first chunk is
  ``{"role": "assistant", "content": ""}`` with ``x_groq: {"id": "req_...", "seed"}``; EACH tool
  call comes whole in a chunk of its own (``id, type, function{name, arguments}, index``; litellm
  #7621: "Groq outputs a single chunk per one tool call"; vercel/ai PR #1653, Groq's engineer:
  "Groq sends the entire tool call payload in a single delta"): the ``one_call_per_chunk``
  quirk, always; the finish chunk has an empty delta and carries the usage under
  ``x_groq.usage`` (with queue/prompt/completion/total times), whatever the request says, and
  the same usage at the top level (recorded streams of 2026-11, without ``stream_options``; the
  ``usage_in_x_groq_only`` quirk plays the older x_groq-only shape). With
  ``stream_options.include_usage`` a ``choices: []`` chunk with the usage and ``service_tier``
  follows (the 2026-08 captures). No other chunk carries a ``usage`` key. An error inside the
  stream is ``event: error`` then a data line whose error carries ``status_code`` (and
  ``failed_generation`` where the scripted error's ``fields`` hold it).
- Reasoning (``reasoning_format: "parsed"``, or ``include_reasoning`` on gpt-oss): the chain of
  thought comes in ``message.reasoning`` (stream: ``delta.reasoning`` pieces, with ``channel:
  "analysis"`` on gpt-oss) next to ``content``; an assistant message may carry it back as
  ``reasoning`` (groq 1.7.0 ``ChatCompletionAssistantMessageParam.reasoning``). Nothing is known
  to be refused when it is left out: the fake enforces nothing.
- Ids: call ids of 9 lowercase letters/digits on llama models (``48f5r72yf``, 2026-11;
  ``call_re03`` in 2025; gpt-oss sends ``fc_<uuid>``); completion ids ``chatcmpl-<uuid>``; request ids ``req_01...``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolcall.cases import ErrorReply, Turn
from pytest_toolcall.providers.base import Rejection
from pytest_toolcall.providers._compat import (LOWER_ALNUM, message_calls, minted, pieces,
                                               reasoning_text, usage_tokens)
from pytest_toolcall.providers.openai.dialect import CREATED, OpenAIChat, _finish
from pytest_toolcall.providers.groq import errors as _errors

__all__ = [
    "BAD_KEY", "COMPLETION_ID", "DIALECT", "FRAGMENT_QUIRKS", "Groq", "REQUEST_ID",
    "TOOL_USE_FAILED", "groq_error",
]

BAD_KEY = "Invalid API Key"
#: the 400 Groq sends when it cannot parse the model's tool call (failed_generation beside it)
TOOL_USE_FAILED = ("Failed to call a function. Please adjust your prompt. See "
                   "'failed_generation' for more details.")
COMPLETION_ID = "chatcmpl-82997b9c-3191-4877-9c04-8095155a11b8"
REQUEST_ID = "req_01kztr8bqme32rx8ttyjtpk0nw"
SEED = 917241710
FINGERPRINT = "fp_ef00694abe"
#: quirks that only mean something when a call comes in fragments: asked for, the fake sends
#: OpenAI's fragments with them (Groq itself sends whole calls)
FRAGMENT_QUIRKS = frozenset({"interleave", "repeat_id_name"})


def groq_error(status: int, message: str, *, type: str = "invalid_request_error",
               code: str | None = None, rule: str) -> Rejection:
    """A rejection in Groq's shape: ``{"error": {"message", "type"[, "code"]}}``, no param."""
    error: dict[str, Any] = {"message": message, "type": type}
    if code is not None:
        error["code"] = code
    return Rejection(status=status, body={"error": error}, rule=rule)


def call_id(name: str, position: int) -> str:
    """9 lowercase letters and digits, no prefix (``48f5r72yf``: llama models' ids in the
    recorded traffic of issue 30), from the call's name and position."""
    return minted(f"{name}/{position}", 9, LOWER_ALNUM)


class Groq(OpenAIChat):
    """The ``groq`` provider: Groq's Chat Completions on the ``openai`` wire."""

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    name = "groq"
    title = "Groq Chat Completions (api.groq.com/openai/v1)"
    base_path = "/openai/v1"
    paths = frozenset({"/openai/v1/chat/completions"})
    reasoning_field = "reasoning"
    call_id = staticmethod(call_id)
    call_id_key = "call"

    # -- auth -----------------------------------------------------------------------------------
    def auth_rejection(self, auth: str) -> Rejection:
        # the missing-key wording is not confirmed: Groq's one 401 text is sent
        return groq_error(401, BAD_KEY, code="invalid_api_key",
                          rule="auth.invalid" if auth else "auth.missing")

    # -- validation ---------------------------------------------------------------------------
    #: OpenAI's rules shown on Groq (the rest are taken and reported as hardening)
    confirmed_rules = {"messages.tool.tool_call_id": "tool_message_fields"}

    def validate(self, body: Any) -> Rejection | None:
        found = super().validate(body)
        if found is not None and found.rule == "messages.tool.tool_call_id":
            # the schema validator's words (fact tool_message_fields)
            i = next(k for k, m in enumerate(body["messages"]) if isinstance(m, Mapping)
                     and m.get("role") == "tool" and not isinstance(m.get("tool_call_id"), str))
            return groq_error(400, f"'messages.{i}' : for 'role:tool' the following must be "
                              f"satisfied[('messages.{i}.tool_call_id' : property "
                              "'tool_call_id' is missing)]", rule=found.rule)
        return found

    # -- encoding -----------------------------------------------------------------------------
    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        body: dict[str, Any] = {"message": error.message, "type": error.type}
        if error.code is not None:
            body["code"] = error.code
        body.update(error.fields)  # failed_generation, where the error has it
        return error.status, {"error": body}

    def stream_error(self, error: ErrorReply) -> dict[str, Any]:
        # an error inside a 200 stream carries its HTTP status as status_code (fact
        # midstream_error)
        data = self.encode_error(error)[1]
        data["error"]["status_code"] = error.status
        return data

    def stream_error_event(self, error: ErrorReply) -> bytes:
        """``event: error`` then the data line (fact midstream_error)."""
        return b"event: error\n" + super().stream_error_event(error)

    @staticmethod
    def _usage(turn: Turn, reasoning: str | None) -> dict[str, Any]:
        prompt, completion, total = usage_tokens(turn)
        usage: dict[str, Any] = {
            "queue_time": 0.017371826, "prompt_tokens": prompt,
            "prompt_time": 0.003517995, "completion_tokens": completion,
            "completion_time": 0.001015726, "total_tokens": total,
            "total_time": 0.004533721}
        if reasoning is not None:
            usage["completion_tokens_details"] = {"reasoning_tokens": 0}
        return usage

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        reasoning = reasoning_text(turn)
        message: dict[str, Any] = {"role": "assistant", "content": turn.text}
        if reasoning is not None:
            message["reasoning"] = reasoning
        if turn.tool_calls:
            message["tool_calls"] = message_calls(turn, self.call_ids(turn))
        response: dict[str, Any] = {
            "id": COMPLETION_ID, "object": "chat.completion", "created": CREATED,
            "model": body.get("model") or "llama-3.3-70b-versatile",
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": _finish(turn)}]}
        if turn.usage is not None:
            response["usage"] = self._usage(turn, reasoning)
        response.update(usage_breakdown=None, system_fingerprint=FINGERPRINT,
                        x_groq={"id": REQUEST_ID, "seed": SEED}, service_tier="on_demand")
        return response

    def _whole_calls(self, turn: Turn, quirks: frozenset[str], size: int) -> list[dict[str, Any]]:
        """The calls as Groq sends them: each whole, in one fragment (keys in Groq's order);
        under a fragment quirk (interleave, repeat_id_name) OpenAI's fragments instead."""
        ids = self.call_ids(turn)
        if quirks & FRAGMENT_QUIRKS:
            return self.call_fragments(turn, size, quirks)
        out = []
        for k, (cid, c) in enumerate(zip(ids, turn.tool_calls)):
            frag: dict[str, Any] = {"id": cid, "type": "function",
                                    "function": {"name": c.name,
                                                 "arguments": c.arguments_text()},
                                    "index": 0 if "index_stuck_at_zero" in quirks else k}
            if "index_missing" in quirks:
                del frag["index"]
            if "no_ids" in quirks:
                del frag["id"]
            out.append(frag)
        return out

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        plan, quirks = turn.stream, turn.stream.quirks
        include_usage = self.include_usage(body)
        reasoning = reasoning_text(turn)
        base = {"id": COMPLETION_ID, "object": "chat.completion.chunk", "created": CREATED,
                "model": body.get("model") or "llama-3.3-70b-versatile",
                "system_fingerprint": FINGERPRINT}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return dict(base, choices=[{"index": 0, "delta": delta, "logprobs": None,
                                        "finish_reason": finish}])

        size = plan.fragment_size
        first = chunk({"role": "assistant", "content": ""})
        first["x_groq"] = {"id": REQUEST_ID, "seed": SEED}
        chunks = [first]
        # gpt-oss: the analysis channel, one piece a chunk
        chunks += [chunk({"reasoning": p, "channel": "analysis"}) for p in pieces(reasoning, size)]
        chunks += [chunk({"content": p}) for p in pieces(turn.text, size)]
        chunks += [chunk({"tool_calls": [frag]})
                   for frag in self._whole_calls(turn, quirks, size)]
        last = chunk({}, _finish(turn))
        if turn.usage is not None:
            usage = self._usage(turn, reasoning)
            last["x_groq"] = {"id": REQUEST_ID, "usage": usage}
            if include_usage or "usage_in_x_groq_only" not in quirks:
                last["usage"] = usage  # also at the top level (fact stream_usage)
        chunks.append(last)
        if include_usage and turn.usage is not None:
            chunks.append(dict(base, choices=[], usage=self._usage(turn, reasoning),
                               service_tier="on_demand"))
        return self.stream_events(chunks, plan, quirks)


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = Groq

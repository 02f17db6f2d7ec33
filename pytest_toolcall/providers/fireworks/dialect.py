"""Fireworks AI (``api.fireworks.ai/inference/v1``), an OpenAI-compatible Chat Completions service
(issue 13).

The ``openai`` dialect with what Fireworks does differently. Every fact below carries its source
and was confirmed 2026-11-25 (the provider registry, ``pytest_toolcall.providers.FIREWORKS``,
holds them as data); what could not be confirmed inherits OpenAI's behaviour.

- Route ``POST /inference/v1/chat/completions``; ``base_url`` ``https://api.fireworks.ai/
  inference/v1`` (docs.fireworks.ai/guides/function-calling, OpenAI SDK example); bearer auth. A
  bad key is 401 ``{"error": {"message": "The API key you provided is invalid.", "code":
  "UNAUTHORIZED", "type": "error"}}`` (captured live with a bogus key, quoted in a public agent
  project's notes, 2026).
- Errors: a refused request is 400 ``{"error": {"type": "invalid_request_error", "message":
  ...}, "type": "error"}`` (earendil-works/pi #5352, 2026-06); an unknown model 404 ``{"error":
  {"message": "Model not found, inaccessible, and/or not deployed", "param": "model", "code":
  "NOT_FOUND", ...}}`` (public logs, 2025-2026); a rate limit 429 ``{"error": "Too Many
  Requests", "message": "You have exceeded your usage limits. ..."}`` with the error a STRING
  (GordeyZuev/LEAP #6, 2025-11). Statuses on docs.fireworks.ai/guides/inference-error-codes.
- Reasoning (docs.fireworks.ai/guides/reasoning): ``message.reasoning_content`` /
  ``delta.reasoning_content``; "when building multi-turn tool-calling agents with models that
  support interleaved thinking, you must include the reasoning_content from previous assistant
  turns in subsequent requests"; a model without interleaved thinking ignores it, so no error
  is documented: the fake enforces nothing, the cases check what is sent. ``reasoning_effort``
  or the Anthropic-compatible ``thinking`` switch it.
- Stream: OpenAI's shape for most models. Kimi K2.6 (timbal-ai/timbal PR #27, 2026-04-28):
  the first fragment of a call carries the ``id`` (and empty ``arguments``) but NOT the name,
  and later fragments reuse the same ``id`` with the argument pieces; the fake plays that for a
  model whose name contains ``kimi``.
- Ids: call ids ``call_`` + 24 letters and digits (``call_Qi2Is8SYTdRWjAToAViVLGeE``, a recorded
  qwen3-30b-a3b answer); non-stream ``tool_calls`` carry ``index``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_toolcall.cases import ErrorReply, ScriptedCall, Turn
from pytest_toolcall.providers.base import Rejection
from pytest_toolcall.providers._compat import message_calls, minted, reasoning_text, thinking_type
from pytest_toolcall.providers.openai.dialect import CREATED, OpenAIChat, _finish, _usage
from pytest_toolcall.providers.fireworks import errors as _errors

__all__ = [
    "BAD_KEY", "COMPLETION_ID", "DEFAULT_MODEL", "DIALECT", "Fireworks", "call_id",
    "fireworks_error", "is_kimi",
]

BAD_KEY = "The API key you provided is invalid."
COMPLETION_ID = "4e22697d-078b-4a62-b74d-6ab350c7b189"
DEFAULT_MODEL = "accounts/fireworks/models/kimi-k2-instruct-0905"


def fireworks_error(status: int, message: str, *, rule: str,
                    type: str = "invalid_request_error") -> Rejection:
    """A refused request in Fireworks' shape: ``{"error": {type, message}, "type": "error"}``."""
    return Rejection(status=status, body={"error": {"type": type, "message": message},
                                          "type": "error"}, rule=rule)


def call_id(key: str, position: int) -> str:
    """``call_`` and 24 letters and digits, as recorded."""
    return "call_" + minted(f"{key}/{position}", 24)


def is_kimi(model: Any) -> bool:
    """Whether ``model`` is one of the Kimi models whose streams send the id before the name."""
    return isinstance(model, str) and "kimi" in model.lower()


class Fireworks(OpenAIChat):
    """The ``fireworks`` provider: Fireworks AI's Chat Completions on the ``openai`` wire."""

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    is_kimi = staticmethod(is_kimi)
    name = "fireworks"
    title = "Fireworks AI Chat Completions (api.fireworks.ai/inference/v1)"
    base_path = "/inference/v1"
    paths = frozenset({"/inference/v1/chat/completions"})
    reasoning_field = "reasoning_content"
    thinking_switch = staticmethod(thinking_type)
    call_id = staticmethod(call_id)

    #: what Fireworks takes that OpenAI refuses (fact tool_choice): another string than "any"
    #: is still OpenAI's breach
    lenient_rules = {"tool_choice.value": "tool_choice \"any\": the model always calls a "
                                          "function (read as \"required\")"}
    lenient_in_part = frozenset({"tool_choice.value"})

    # -- auth, validation -----------------------------------------------------------------------
    def lenient(self, body: Mapping[str, Any]) -> Mapping[str, Any]:
        """The body as Fireworks reads it: ``tool_choice: "any"`` is ``"required"``."""
        if body.get("tool_choice") == "any":
            return dict(body, tool_choice="required")
        return body

    def auth_rejection(self, auth: str) -> Rejection:
        # the wording without any key is not confirmed: the bad-key body is sent
        return Rejection(status=401, body={"error": {"message": BAD_KEY, "code": "UNAUTHORIZED",
                                                     "type": "error"}},
                         rule="auth.invalid" if auth else "auth.missing")

    def validate(self, body: Any) -> Rejection | None:
        found = super().validate(body)
        if found is not None and isinstance(found.body, Mapping):
            error = found.body.get("error")
            if isinstance(error, Mapping):
                # the shape is Fireworks'; the words are OpenAI's (not confirmed rule by rule)
                return fireworks_error(found.status, str(error.get("message")), rule=found.rule)
        return found

    # -- encoding -----------------------------------------------------------------------------
    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        inner: dict[str, Any] = {"type": error.type, "message": error.message}
        if error.code:
            inner["code"] = error.code
        return error.status, {"error": inner, "type": "error"}

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": turn.text}
        reasoning = reasoning_text(turn)
        if reasoning is not None:
            message["reasoning_content"] = reasoning
        if turn.tool_calls:
            message["tool_calls"] = message_calls(turn, self.call_ids(turn), indexed=True)
        response: dict[str, Any] = {
            "id": COMPLETION_ID, "object": "chat.completion", "created": CREATED,
            "model": body.get("model") or DEFAULT_MODEL,
            "choices": [{"index": 0, "message": message, "finish_reason": _finish(turn)}]}
        if turn.usage is not None:
            u = turn.usage
            # the recorded answer's keys, in its order
            response["usage"] = {"prompt_tokens": u.input_tokens or 0,
                                 "total_tokens": u.total_tokens or 0,
                                 "completion_tokens": u.output_tokens or 0}
        return response

    @staticmethod
    def _kimi_fragments(k: int, cid: str, call: ScriptedCall, size: int,
                        quirks: frozenset[str]) -> list[dict[str, Any]]:
        """Kimi K2.6's call: the id (with empty arguments) first, the name next, then the
        argument pieces under the same id (timbal-ai/timbal PR #27)."""
        text = call.arguments_text()
        frags: list[dict[str, Any]] = [
            {"index": k, "id": cid, "type": "function", "function": {"arguments": ""}},
            {"index": k, "id": cid, "type": "function", "function": {"name": call.name}}]
        frags += [{"index": k, "id": cid, "type": "function", "function": {"arguments": p}}
                  for p in ([text[n:n + size] for n in range(0, len(text), size)] if text
                            else [])]
        for frag in frags[2:] if "repeat_id_name" in quirks else ():
            frag["function"]["name"] = call.name
        for frag in frags:
            if "index_stuck_at_zero" in quirks:
                frag["index"] = 0
            if "index_missing" in quirks:
                frag.pop("index", None)
        return frags

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        plan, quirks = turn.stream, turn.stream.quirks
        model = body.get("model") or DEFAULT_MODEL
        include_usage = self.include_usage(body)
        reasoning = reasoning_text(turn)
        base = {"id": COMPLETION_ID, "object": "chat.completion.chunk", "created": CREATED,
                "model": model}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            data = dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": finish}])
            if include_usage:
                data["usage"] = None
            return data

        size = plan.fragment_size
        chunks = [chunk(d) for d in [{"role": "assistant", "content": None},
                                     *self.text_deltas(turn, size)]]
        fragments = self.call_fragments(
            turn, size, quirks, of=self._kimi_fragments if is_kimi(model) else None)
        if fragments and "call_in_role_chunk" in quirks and not turn.text and not reasoning:
            chunks[0]["choices"][0]["delta"]["tool_calls"] = [fragments.pop(0)]
        chunks += [chunk({"tool_calls": [frag]}) for frag in fragments]
        chunks.append(chunk({}, _finish(turn)))
        if include_usage and turn.usage is not None:
            chunks.append(dict(base, choices=[], usage=_usage(turn)))
        # not confirmed: the shape of an error inside a 200 stream; sse_events plays OpenAI's
        # data: {error}, in Fireworks' error shape
        return self.stream_events(chunks, plan, quirks)


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = Fireworks

"""OpenRouter (``openrouter.ai/api/v1``), an OpenAI-compatible Chat Completions gateway (issue 13).

The ``openai`` dialect with what OpenRouter does differently. Every fact below carries its source
and was confirmed 2026-11-25 (the provider registry, ``pytest_toolcall.providers.OPENROUTER``,
holds them as data); what could not be confirmed inherits OpenAI's behaviour.

- Route ``POST /api/v1/chat/completions``, bearer auth. A bad key is 401 ``{"error": {"message":
  "User not found.", "code": 401}}``, a missing one 401 "No cookie auth credentials found"
  (public client logs and probes, 2025-12 to 2026-08; "No auth credentials found" in 2025).
- Errors (openrouter.ai/docs/api-reference/errors): ``{"error": {"code": <int, the HTTP status>,
  "message", "metadata"?}}``; 400, 401, 402, 403, 408, 429, 502, 503. An error after the stream
  began is a data event with ``error`` at the top level next to a ``choices`` entry with
  ``finish_reason: "error"``, under the 200 (docs/api-reference/streaming, "Errors After Tokens
  Have Been Sent"): the fake sends the page's own example event.
- Stream (a recorded anthropic/claude-4.5-haiku stream via Amazon Bedrock quoted in a public
  client's tests; langchain #38226, qwen-code #2402): ``role: "assistant"`` on EVERY chunk's delta,
  ``content: null`` next to tool-call fragments; a call's first fragment carries index, id, type,
  name and ``arguments: ""``, later ones index and an arguments piece; the finish chunk's delta is
  ``{"content": "", "role": "assistant"}`` with ``native_finish_reason``, and the finish chunk is
  SENT TWICE, the second time with the usage (OpenRouter puts usage in the last message whatever
  ``stream_options`` says: docs/use-cases/usage-accounting). SSE comments ``: OPENROUTER
  PROCESSING`` come while the model works: every stream the fake sends opens with five (most
  real streams carry 5 to 30: the recorded streams of issue 30); the ``sse_comments`` quirk
  puts one between every two events too.
- Reasoning (docs/use-cases/reasoning-tokens): ``message.reasoning`` (text) and
  ``message.reasoning_details`` (a list of ``reasoning.text`` / ``reasoning.summary`` /
  ``reasoning.encrypted`` entries with ``format`` and ``index``); stream deltas carry pieces of
  both. A Gemini model's encrypted entry (its thought signature) must come back with the tool
  calls it preceded, else 400 ``Provider returned error`` with ``metadata.raw`` "Gemini models
  require OpenRouter reasoning details to be preserved in each request. ..." (OpenRouterTeam/
  ai-sdk-provider #381, microsoft/vscode-copilot-chat PR #2649, public agent logs). The fake
  enforces it for the turns it answered with an encrypted entry (it remembers their call ids).
- Ids: completion ids ``gen-<unix>-<20 letters/digits>``; call ids are the upstream's
  (``toolu_bdrk_01...`` from Anthropic on Bedrock, ``call_...`` from OpenAI, ``tool_<name>_...``
  from Gemini); a ``provider`` field names the upstream.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pytest_toolcall.cases import ErrorReply, StreamPlan, Turn
from pytest_toolcall.core.model import ChatRequest, Reasoning
from pytest_toolcall.providers.base import Rejection
from pytest_toolcall.providers._compat import minted, pieces
from pytest_toolcall.providers.openai.dialect import (CREATED, OpenAIChat, _finish,
                                                      _function_named, _objects, _sse,
                                                      with_wire_reasoning)
from pytest_toolcall.providers.openai_responses.dialect import OpenAIResponses, ServiceResponses
from pytest_toolcall.providers.openrouter import errors as _errors

__all__ = [
    "BAD_KEY", "COMPLETION_ID", "DETAILS_MISSING", "DIALECT", "GEMINI_FORMAT", "MID_STREAM_ERROR",
    "NO_AUTH", "OpenRouter", "openrouter_error",
]

NO_AUTH = "No cookie auth credentials found"
#: the 400 of a /responses body its schema refuses (fact responses_request_schema)
RESPONSES_INVALID = "Invalid Responses API request"
BAD_KEY = "User not found."
#: the start of metadata.raw when a Gemini tool-call turn comes back without its reasoning
DETAILS_MISSING = ("Gemini models require OpenRouter reasoning details to be preserved in each "
                   "request. Please refer to our docs: https://openrouter.ai/docs/guides/"
                   "best-practices/reasoning-tokens#preserving-reasoning-blocks.")
#: the mid-stream error event of the streaming page, verbatim but for id/model/created
MID_STREAM_ERROR = {"code": "server_error", "message": "Provider disconnected unexpectedly"}
COMPLETION_ID = "gen-1772969079-EhEx5DeV7JqM43lpl47Y"
GEMINI_FORMAT = "google-gemini-v1"
#: the comment lines every stream of the fake opens with (fact sse_comments)
DEFAULT_COMMENTS = 5


def openrouter_error(status: int, message: str, *, rule: str,
                     metadata: Mapping[str, Any] | None = None) -> Rejection:
    """A rejection in OpenRouter's shape: ``{"error": {"message", "code": status[, metadata]}}``."""
    error: dict[str, Any] = {"message": message, "code": status}
    if metadata is not None:
        error["metadata"] = dict(metadata)
    return Rejection(status=status, body={"error": error}, rule=rule)


def _details(turn: Turn, call_ids: list[str]) -> list[dict[str, Any]]:
    """The turn's reasoning as OpenRouter's reasoning_details (Gemini's shape: the text, then
    the encrypted thought signature tied to the first call)."""
    out: list[dict[str, Any]] = []
    for k, r in enumerate(turn.reasoning):
        if r.type == "thinking":
            entry: dict[str, Any] = {"type": "reasoning.text", "text": r.text or ""}
            if r.signature is not None:
                entry["signature"] = r.signature
        elif r.type == "redacted_thinking":
            entry = {"type": "reasoning.encrypted", "data": r.signature or "",
                     "id": call_ids[0] if call_ids else None}
        else:
            entry = {"type": "reasoning.summary", "summary": r.text or ""}
        entry.update(format=GEMINI_FORMAT, index=k)
        out.append(entry)
    return out


#: the model a request without one is read as (fact model_optional: the account's default)
DEFAULT_MODEL = "openrouter/auto"


def _server_tool(tool: Any) -> bool:
    """Whether ``tool`` is one of OpenRouter's server tools (``"type": "openrouter:<name>"``,
    openrouter.ai/docs/guides/features/server-tools)."""
    return isinstance(tool, Mapping) and str(tool.get("type", "")).startswith("openrouter:")


class OpenRouterResponses(ServiceResponses):
    """OpenRouter's Responses API (``POST /api/v1/responses``, beta; openrouter.ai/docs
    api-reference responses): OpenAI's Responses wire, with OpenRouter's key check and error
    shape (fact responses_route). Its schema refuses a function_call without call_id or name
    (fact responses_request_schema: "Invalid Responses API request", the zod issue in
    metadata.raw); OpenAI's other Responses rules are not confirmed: the fake takes a body that
    breaks one, noting the breach (issue 30)."""

    name = "openrouter"
    paths = frozenset({"/api/v1/responses"})
    confirmed_rules = {"input.function_call.call_id": "responses_request_schema",
                       "input.function_call.name": "responses_request_schema"}

    def validate(self, body: Any) -> Rejection | None:
        found = OpenAIResponses.validate(self, body)  # OpenAI's rejection, its param kept
        if found is None or found.rule not in self.confirmed_rules:
            return self.service.own_shape(found)  # type: ignore[no-any-return]
        param = str((found.body.get("error") or {}).get("param") or "")
        index, _, field = param.removeprefix("input[").partition("].")
        issue = {"code": "invalid_type", "expected": "string", "received": "undefined",
                 "path": ["input", int(index) if index.isdigit() else index, field],
                 "message": "Required"}
        return openrouter_error(400, RESPONSES_INVALID, rule=found.rule,
                                metadata={"raw": json.dumps([issue], indent=2)})


class OpenRouter(OpenAIChat):
    """The ``openrouter`` provider: OpenRouter's Chat Completions on the ``openai`` wire."""

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    name = "openrouter"
    title = "OpenRouter Chat Completions (openrouter.ai/api/v1)"
    base_path = "/api/v1"
    paths = frozenset({"/api/v1/chat/completions"})
    call_id_key = "call"

    def __init__(self) -> None:
        #: call id -> the encrypted reasoning data the fake sent with it (must come back)
        self.signed_calls: dict[str, str] = {}

    # -- auth -----------------------------------------------------------------------------------
    def auth_rejection(self, auth: str) -> Rejection:
        if not auth:
            return openrouter_error(401, NO_AUTH, rule="auth.missing")
        return openrouter_error(401, BAD_KEY, rule="auth.invalid")

    # -- validation ---------------------------------------------------------------------------
    #: what OpenRouter takes that OpenAI refuses (fact server_tools)
    lenient_rules = {
        "tools.type": "a server tool (\"type\": \"openrouter:web_search\", "
                      "\"openrouter:advisor\" ...) is run by OpenRouter, not the model's caller",
        "model.missing": "no model: the account's default model answers (fact model_optional)",
    }
    #: a type that is no server tool is still OpenAI's breach (not confirmed either way)
    lenient_in_part = frozenset({"tools.type"})
    #: OpenRouter's Responses API (fact responses_route)
    other_routes = {"/api/v1/responses": OpenRouterResponses}

    def lenient(self, body: Mapping[str, Any]) -> Mapping[str, Any]:
        """The body with OpenRouter's server tools set apart: OpenAI's rules check the function
        tools only (``lenient_rules``)."""
        if "model" not in body:  # the account's default model (fact model_optional)
            body = dict(body, model=DEFAULT_MODEL)
        tools = body.get("tools")
        if not isinstance(tools, list):
            return body
        return dict(body, tools=[t for t in tools if not _server_tool(t)])

    def validate(self, body: Any) -> Rejection | None:
        found = super().validate(body)
        if found is not None:
            return found  # an unavoidable rule: OpenAI's words, OpenRouter's shape
        return self._validate_details(body)

    def _validate_details(self, body: Mapping[str, Any]) -> Rejection | None:
        # past a noted breach (issue 30) any field may have any shape: read the objects only
        for msg in _objects(body.get("messages")):
            if msg.get("role") != "assistant":
                continue
            calls = _objects(msg.get("tool_calls"))
            ids = [c["id"] for c in calls if isinstance(c.get("id"), str)]
            wanted = {self.signed_calls[i] for i in ids if i in self.signed_calls}
            if not wanted:
                continue
            sent = {d["data"] for d in _objects(msg.get("reasoning_details"))
                    if d.get("type") == "reasoning.encrypted" and isinstance(d.get("data"), str)}
            if not wanted <= sent:
                name = next((c["function"]["name"] for c in calls if _function_named(c)), "tool")
                upstream = json.dumps({"error": {
                    "code": 400, "message": f"Unable to submit request because function call "
                    f"`default_api:{name}` in the 2. content block is missing a "
                    "`thought_signature`.", "status": "INVALID_ARGUMENT"}}, indent=2)
                return openrouter_error(400, "Provider returned error", metadata={
                    "raw": f"{DETAILS_MISSING} Upstream error: {upstream}",
                    "provider_name": "Google AI Studio"},
                    rule="messages.reasoning_details.missing")
        return None

    def decode_request(self, body: Mapping[str, Any]) -> ChatRequest:
        return with_wire_reasoning(super().decode_request(body), body, _reasoning_details)

    # -- encoding -----------------------------------------------------------------------------
    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        return error.status, {"error": {"message": error.message, "code": error.status}}

    @staticmethod
    def call_id(name: str, position: int) -> str:
        """The Bedrock-style ids the recorded answers carry: ``toolu_bdrk_01`` and 22 letters
        and digits, from the call's name and position."""
        return "toolu_bdrk_01" + minted(f"{name}/{position}", 22)

    def _remember(self, turn: Turn, ids: list[str]) -> list[dict[str, Any]]:
        details = _details(turn, ids)
        for d in details:
            if d["type"] == "reasoning.encrypted":
                for cid in ids:
                    self.signed_calls[cid] = d["data"]
        return details

    @staticmethod
    def _usage(turn: Turn) -> dict[str, Any]:
        u = turn.usage
        assert u is not None
        return {"prompt_tokens": u.input_tokens or 0, "completion_tokens": u.output_tokens or 0,
                "total_tokens": u.total_tokens or 0, "cost": 0.00012195, "is_byok": False,
                "prompt_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0,
                                          "audio_tokens": 0, "video_tokens": 0},
                "cost_details": {"upstream_inference_cost": 0.00012195},
                "completion_tokens_details": {"reasoning_tokens": 0, "image_tokens": 0}}

    def _base(self, body: Mapping[str, Any], obj: str) -> dict[str, Any]:
        return {"id": COMPLETION_ID, "provider": "Google AI Studio",
                "model": body.get("model") or "google/gemini-3-flash-preview", "object": obj,
                "created": CREATED}

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        ids = self.call_ids(turn)
        details = self._remember(turn, ids)
        text = "".join(r.text or "" for r in turn.reasoning if r.type == "thinking")
        message: dict[str, Any] = {"role": "assistant", "content": turn.text or "",
                                   "refusal": None, "reasoning": text or None}
        if turn.tool_calls:
            message["tool_calls"] = [
                {"type": "function", "index": k, "id": cid,
                 "function": {"name": c.name, "arguments": c.arguments_text()}}
                for k, (cid, c) in enumerate(zip(ids, turn.tool_calls))]
        if details:
            message["reasoning_details"] = details
        finish = _finish(turn)
        response = dict(self._base(body, "chat.completion"), choices=[{
            "logprobs": None, "finish_reason": finish, "native_finish_reason": finish,
            "index": 0, "message": message}])
        return self.with_usage(response, turn)

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        plan, quirks = turn.stream, turn.stream.quirks
        ids = self.call_ids(turn)
        details = self._remember(turn, ids)
        base = self._base(body, "chat.completion.chunk")

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            # role on every chunk: the recorded stream and qwen-code #2402
            return dict(base, choices=[{"index": 0, "delta": {"role": "assistant", **delta},
                                        "finish_reason": finish, "native_finish_reason": finish,
                                        "logprobs": None}])

        size = plan.fragment_size
        chunks = [chunk({"content": ""})]
        for d in details:  # each detail in pieces, as OpenRouter streams them
            if d["type"] == "reasoning.encrypted":
                chunks.append(chunk({"content": "", "reasoning": None,
                                     "reasoning_details": [d]}))
                continue
            key = "text" if d["type"] == "reasoning.text" else "summary"
            whole = d[key]
            for k in range(0, max(len(whole), 1), size):
                piece = dict(d, **{key: whole[k:k + size]})
                chunks.append(chunk({"content": "", "reasoning": whole[k:k + size],
                                     "reasoning_details": [piece]}))
        chunks += [chunk({"content": p}) for p in pieces(turn.text, size)]
        fragments = self.call_fragments(turn, size, quirks)
        chunks += [chunk({"content": None, "tool_calls": [frag]}) for frag in fragments]
        finish = _finish(turn)
        # the finish chunk, then the same again carrying the usage (langchain #38226)
        chunks.append(chunk({"content": ""}, finish))
        last = chunk({"content": ""}, finish)
        if turn.usage is not None:
            last["usage"] = self._usage(turn)
        chunks.append(last)
        return self.stream_events(chunks, plan, quirks)

    def stream_events(self, chunks: list[dict[str, Any]], plan: Any,
                      quirks: frozenset[str]) -> list[bytes]:
        """Every stream opens with comment lines (fact sse_comments: most real streams carry 5
        to 30); the ``sse_comments`` quirk adds one between every two events as well."""
        events = super().stream_events(chunks, plan, quirks)
        if "sse_comments" in quirks:
            return events
        return [self.sse_comment] * DEFAULT_COMMENTS + events

    def sse_events(self, chunks: list[dict[str, Any]], plan: Any,
                   quirks: frozenset[str]) -> list[bytes]:
        if plan.error_after is None:
            return super().sse_events(chunks, plan, quirks)
        events = [_sse(c) for c in chunks]
        # the unified mid-stream error event (the streaming page's example when the case
        # scripts no error of its own), then the stream ends: no [DONE]
        if plan.error == StreamPlan().error:
            error: dict[str, Any] = dict(MID_STREAM_ERROR)
        else:
            error = {"code": plan.error.code or plan.error.type, "message": plan.error.message}
        head = chunks[0]
        event = {"id": head["id"], "object": "chat.completion.chunk", "created": head["created"],
                 "model": head["model"], "provider": head["provider"], "error": error,
                 "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}]}
        return events[: min(plan.error_after + 1, len(events))] + [_sse(event)]


def _reasoning_details(wire: Mapping[str, Any]) -> tuple[Reasoning, ...] | None:
    details = wire.get("reasoning_details")
    if not isinstance(details, list):
        return None
    return tuple(r for r in (reasoning_of(d) for d in details) if r is not None)


def reasoning_of(detail: Any) -> Reasoning | None:
    """One entry of ``reasoning_details`` as the canonical reasoning (None: not one of the three
    kinds); the reference adapter reads answers with it too."""
    if not isinstance(detail, Mapping):
        return None
    kind = detail.get("type")
    if kind == "reasoning.text":
        return Reasoning(type="thinking", text=detail.get("text"),
                         signature=detail.get("signature"))
    if kind == "reasoning.encrypted":
        return Reasoning(type="redacted_thinking", signature=detail.get("data"),
                         id=detail.get("id"))
    if kind == "reasoning.summary":
        return Reasoning(type="reasoning", text=detail.get("summary"))
    return None


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = OpenRouter

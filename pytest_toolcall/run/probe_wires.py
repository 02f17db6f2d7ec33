"""The probes of the wires other than OpenAI's Chat Completions (issue 33): Anthropic Messages,
Gemini generateContent (and Vertex, the same wire on its own routes), Ollama's native chat and
OpenAI Responses. Each :class:`Wire` says where a probe goes (the path below the base URL, the
model in it for Gemini), how the key goes (a header, or none), how small a request is made
(each wire's output limit), and how its answers read: the stream's events (named SSE events,
data-only SSE, NDJSON), each event's kind, and the fields whose place the probes compare. The
rules' bodies are each provider's data (``providers/<folder>/probes.py``); run/probes.py runs
them. No pytest here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from pytest_toolcall.run.probes import Probe

__all__ = ["ANTHROPIC_VERSION", "CALL_PROMPT", "WIRES", "Wire", "probes_of", "wire_for"]

#: the API version the Anthropic probes name (the one the official SDKs send)
ANTHROPIC_VERSION = "2023-06-01"
#: what the call probe asks (the fake answers it with a call: run/probes.py turn_for)
CALL_PROMPT = "Call get_weather for Paris."


class Wire:
    """One wire's probe mechanics; subclasses fill in what differs."""

    name = ""
    #: the fields whose place in an answer the probes compare (the last key of a path)
    placed: frozenset[str] = frozenset()
    #: the event kinds that end a stream's content (what "finish" means in the placement)
    finish_kinds: frozenset[str] = frozenset()
    #: ``module`` holds BREAKING, TWINS, twin_of (and PINNED_MODELS, COMPAT_BREAKING)
    module = ""
    #: auth probes: (probe id suffix, how the key is sent (see :meth:`headers`), the rule it
    #: breaks; "": none, the service takes the key so)
    auth_probes: tuple[tuple[str, str, str], ...] = (("missing", "none", "auth.missing"),
                                                     ("invalid", "wrong", "auth.invalid"))

    def data(self) -> ModuleType:
        import importlib

        return importlib.import_module(self.module)

    # -- requests -----------------------------------------------------------------------------
    def path(self, model: str, stream: bool) -> str:
        """The path below the base URL a probe goes to."""
        raise NotImplementedError

    def headers(self, key: str | None, auth: str) -> dict[str, str]:
        """The auth headers for ``key`` (``auth`` is the probe's way: key, none, wrong, ...)."""
        return {"authorization": f"Bearer {key}"} if key else {}

    def query(self, key: str | None, auth: str) -> dict[str, str]:
        """The URL parameters that carry the key, for a wire that takes it there."""
        return {}

    def sized(self, body: Any, model: str, tokens: int) -> Any:
        """``body`` with the probe's model (where it names one) and the smallest output."""
        if not isinstance(body, dict):
            return body
        out = dict(body)
        if "model" in out:
            out["model"] = model
        return out

    def shapes(self, model: str) -> list[tuple[str, Any, bool, bool]]:
        """The shape probes: (id suffix, body, streamed, asks for a call)."""
        raise NotImplementedError

    # -- answers ------------------------------------------------------------------------------
    def streams(self, content_type: str) -> bool:
        return "event-stream" in content_type

    def events(self, text: str) -> list[tuple[str | None, Any]]:
        """The stream's events: (SSE event name or None, the parsed data)."""
        out: list[tuple[str | None, Any]] = []
        for block in text.replace("\r\n", "\n").split("\n\n"):
            lines = block.split("\n")
            data = [line[5:].strip() for line in lines if line.startswith("data:")]
            if not data:
                continue
            name = next((line[6:].strip() for line in lines if line.startswith("event:")), None)
            try:
                out.append((name, json.loads("\n".join(data))))
            except ValueError:
                out.append((name, "<not json>"))
        return out

    def kind(self, name: str | None, event: Any) -> str:
        raise NotImplementedError


def _flagged(text: dict[str, Any], call: dict[str, Any],
             answer: dict[str, Any] | None = None) -> list[tuple[str, Any, bool, bool]]:
    """The shape probes of a wire that streams on ``"stream": true`` in the body."""
    return [("answer", text if answer is None else answer, False, False),
            ("stream", dict(text, stream=True), True, False),
            ("stream_call", dict(call, stream=True), True, True)]


def _typed_kind(name: str | None, event: Any, sub: Mapping[str, str]) -> str:
    """A named-event wire's kind: the data's ``type`` (with the type of its block, delta or item
    where ``sub`` names the key), and the SSE event name where it is missing or differs."""
    if not isinstance(event, Mapping):
        return "not-json"
    kind = str(event.get("type"))
    inner = event.get(sub.get(kind, ""))
    if isinstance(inner, Mapping) and inner.get("type"):
        kind += f":{inner['type']}"
    if name != event.get("type"):
        kind += f" (event: {name})"
    return kind


class _NamedEvents(Wire):
    """A wire whose stream is named SSE events, each data's ``type`` the event's name."""

    #: event type -> the key of the block, delta or item whose type the kind adds
    _SUB: ClassVar[dict[str, str]] = {}

    def kind(self, name: str | None, event: Any) -> str:
        return _typed_kind(name, event, self._SUB)


class AnthropicWire(_NamedEvents):
    name = "anthropic"
    module = "pytest_toolcall.providers.anthropic.probes"
    placed = frozenset({"id", "usage", "stop_reason", "role", "model"})
    finish_kinds = frozenset({"message_delta"})
    auth_probes = (*Wire.auth_probes, ("version", "no-version", "auth.version"))
    _SUB: ClassVar[dict[str, str]] = {"content_block_start": "content_block",
                                      "content_block_delta": "delta"}

    def path(self, model: str, stream: bool) -> str:
        return "/messages"

    def headers(self, key: str | None, auth: str) -> dict[str, str]:
        out = {} if auth == "no-version" else {"anthropic-version": ANTHROPIC_VERSION}
        return {**out, "x-api-key": key} if key else out

    def sized(self, body: Any, model: str, tokens: int) -> Any:
        out = super().sized(body, model, tokens)
        if isinstance(out, dict) and "max_tokens" in out:
            thinking = out.get("thinking")
            budget = thinking.get("budget_tokens", 0) if isinstance(thinking, Mapping) else 0
            out["max_tokens"] = tokens + budget  # the API wants max_tokens above the budget
        return out

    def shapes(self, model: str) -> list[tuple[str, Any, bool, bool]]:
        from pytest_toolcall.providers.anthropic.probes import TOOL

        text = {"model": model, "max_tokens": 1, "messages": [{"role": "user",
                                                               "content": "Say ok."}]}
        call = {"model": model, "max_tokens": 1, "tools": [TOOL], "tool_choice": {"type": "any"},
                "messages": [{"role": "user", "content": CALL_PROMPT}]}
        return _flagged(text, call)


class ResponsesWire(_NamedEvents):
    name = "openai-responses"
    module = "pytest_toolcall.providers.openai_responses.probes"
    placed = frozenset({"id", "usage", "status", "call_id", "role", "output_index"})
    finish_kinds = frozenset({"response.completed", "response.incomplete", "response.failed"})
    _SUB: ClassVar[dict[str, str]] = {"response.output_item.added": "item",
                                      "response.output_item.done": "item"}

    def path(self, model: str, stream: bool) -> str:
        return "/responses"

    def sized(self, body: Any, model: str, tokens: int) -> Any:
        out = super().sized(body, model, tokens)
        if isinstance(out, dict):
            out["max_output_tokens"] = tokens  # 16 is the least the API takes
        return out

    def shapes(self, model: str) -> list[tuple[str, Any, bool, bool]]:
        from pytest_toolcall.providers.openai_responses.probes import TOOL

        text = {"model": model, "input": "Say ok."}
        call = {"model": model, "input": CALL_PROMPT, "tools": [TOOL], "tool_choice": "required"}
        return _flagged(text, call)


class GeminiWire(Wire):
    name = "gemini"
    module = "pytest_toolcall.providers.gemini.probes"
    placed = frozenset({"usageMetadata", "finishReason", "responseId", "role", "modelVersion",
                        "id", "thoughtSignature"})
    finish_kinds = frozenset({"finish"})

    def path(self, model: str, stream: bool) -> str:
        how = "streamGenerateContent?alt=sse" if stream else "generateContent"
        return f"/models/{model}:{how}"

    #: beside the header, the key as ``?key=`` (the API takes both; a probe the fake takes)
    auth_probes = (*Wire.auth_probes, ("query", "query", ""))

    def headers(self, key: str | None, auth: str) -> dict[str, str]:
        return {"x-goog-api-key": key} if key and auth != "query" else {}

    def query(self, key: str | None, auth: str) -> dict[str, str]:
        return {"key": key} if key and auth == "query" else {}

    def sized(self, body: Any, model: str, tokens: int) -> Any:
        if not isinstance(body, dict):
            return body
        return {**body, "generationConfig": {"maxOutputTokens": tokens}}

    def shapes(self, model: str) -> list[tuple[str, Any, bool, bool]]:
        from pytest_toolcall.providers.gemini.probes import DECL

        text = {"contents": [{"role": "user", "parts": [{"text": "Say ok."}]}]}
        call = {"contents": [{"role": "user", "parts": [{"text": CALL_PROMPT}]}],
                "tools": [{"functionDeclarations": [DECL]}],
                "toolConfig": {"functionCallingConfig": {"mode": "ANY"}}}
        return [("answer", text, False, False), ("stream", text, True, False),
                ("stream_call", call, True, True)]

    def kind(self, name: str | None, event: Any) -> str:
        if not isinstance(event, Mapping):
            return "not-json"
        if "error" in event:
            return "error"
        candidates = event.get("candidates") or [{}]
        first = candidates[0] if isinstance(candidates[0], Mapping) else {}
        if first.get("finishReason"):
            return "finish"
        parts = (first.get("content") or {}).get("parts") or []
        if any(isinstance(p, Mapping) and p.get("functionCall") for p in parts):
            return "call"
        if any(isinstance(p, Mapping) and p.get("thought") for p in parts):
            return "thought"
        if any(isinstance(p, Mapping) and p.get("text") for p in parts):
            return "text"
        return "usage" if event.get("usageMetadata") else "empty"


class VertexWire(GeminiWire):
    name = "vertex"
    #: no key (bearer), a wrong token, and an API key where Vertex wants a token
    auth_probes = (*Wire.auth_probes, ("api_key", "api-key", "auth.missing"))

    def query(self, key: str | None, auth: str) -> dict[str, str]:
        return {}

    def headers(self, key: str | None, auth: str) -> dict[str, str]:
        if auth == "api-key":
            return {"x-goog-api-key": key or ""}
        return {"authorization": f"Bearer {key}"} if key else {}


class OllamaWire(Wire):
    name = "ollama"
    module = "pytest_toolcall.providers.ollama.probes"
    placed = frozenset({"done_reason", "eval_count", "prompt_eval_count", "tool_calls", "id",
                        "role", "created_at", "thinking"})
    finish_kinds = frozenset({"done"})
    auth_probes = ()  # Ollama has no key: any, or none, is taken (dialect.py check_auth)

    def path(self, model: str, stream: bool) -> str:
        return "/api/chat"

    def sized(self, body: Any, model: str, tokens: int) -> Any:
        out = super().sized(body, model, tokens)
        if isinstance(out, dict):
            out["options"] = {"num_predict": tokens}
        return out

    def shapes(self, model: str) -> list[tuple[str, Any, bool, bool]]:
        from pytest_toolcall.providers.ollama.probes import TWINS

        # "think": false, so that a thinking model (qwen3) answers within the few tokens given;
        # a model that cannot think takes it too: only true is refused there (ollama/ollama
        # server/routes.go, `req.Think != nil && req.Think.Bool()`; read 2026-11-28)
        text = {"model": model, "messages": [{"role": "user", "content": "Say ok."}],
                "think": False}
        call = {"model": model, "messages": [{"role": "user", "content": CALL_PROMPT}],
                "tools": TWINS["plain"]["tools"], "think": False}
        return _flagged(text, call, answer=dict(text, stream=False))  # streams unless told not

    def streams(self, content_type: str) -> bool:
        return "ndjson" in content_type

    def events(self, text: str) -> list[tuple[str | None, Any]]:
        out: list[tuple[str | None, Any]] = []
        for line in text.split("\n"):
            if line.strip():
                try:
                    out.append((None, json.loads(line)))
                except ValueError:
                    out.append((None, "<not json>"))
        return out

    def kind(self, name: str | None, event: Any) -> str:
        if not isinstance(event, Mapping):
            return "not-json"
        if "error" in event:
            return "error"
        if event.get("done"):
            return "done"
        message = event.get("message") or {}
        if message.get("tool_calls"):
            return "call"
        if message.get("thinking"):
            return "thinking"
        return "text" if message.get("content") else "empty"


#: provider -> its wire (providers on OpenAI's Chat Completions are run/probes.py's own)
WIRES: dict[str, Wire] = {"anthropic": AnthropicWire(), "openai-responses": ResponsesWire(),
                          "gemini": GeminiWire(), "vertex": VertexWire(),
                          "ollama": OllamaWire()}


def wire_for(provider: str) -> Wire | None:
    return WIRES.get(provider)


def probes_of(provider: str, wire: Wire, model: str, tokens: int, call_tokens: int,
              probe: type[Probe]) -> list[Probe]:
    """Every probe of ``provider`` on ``wire``: the accepted twins, one per rule, the auth
    probes, the shape probes."""
    data = wire.data()
    pinned: Mapping[str, str] = getattr(data, "PINNED_MODELS", {})
    compat: Mapping[str, Any] = getattr(data, "COMPAT_BREAKING", {})

    def made(pid: str, kind: str, body: Any, *, on: str = model, compat_route: bool = False,
             stream: bool = False, size: int = tokens, **fields: Any) -> Probe:
        raw = body if isinstance(body, bytes) else None
        body = None if raw is not None else body
        sized = body if compat_route else wire.sized(body, on, size)
        if compat_route and isinstance(sized, dict):
            sized = dict(sized, model=on) if "model" in sized else sized
            sized["max_tokens"] = size
        path = "/v1/chat/completions" if compat_route else wire.path(on, stream)
        return probe(id=pid, kind=kind, body=sized, raw=raw, path=path, stream=stream,
                     **fields)

    out = [made(f"twin.{name}", "twin", body, compat_route=name.startswith("v1."))
           for name, body in data.TWINS.items()]
    out += [made(f"rule.{rule}", "rule", body, rule=rule, twin=f"twin.{data.twin_of(rule)}",
                 on=pinned.get(rule, model)) for rule, body in data.BREAKING.items()]
    out += [made(f"rule.v1.{rule}", "rule", body, rule=rule, twin="twin.v1.plain",
                 compat_route=True) for rule, body in compat.items()]
    out += [made(f"auth.{how}", "auth", data.TWINS["plain"], rule=rule or None,
                 twin="twin.plain", auth=auth) for how, auth, rule in wire.auth_probes]
    out += [made(f"shape.{sid}", "shape", body, stream=stream,
                 size=call_tokens if call else tokens)
            for sid, body, stream, call in wire.shapes(model)]
    return out

"""Probes: the fake's claims about a real service, asked of the service itself (issue 33).

On OpenAI's Chat Completions wire (this module): each of OpenAI's request rules
(``OPENAI_RULES``) carries a probe: the smallest request breaking it
(``providers.openai.probes.BREAKING``, the data the rule tests use) and its accepted twin.
Each stream-shape fact carries a probe whose answer shows where the ids, the usage and the
finish reason sit. :func:`run_probes` sends every probe to the real service and to the fake
(in-process, through the fake's transport-neutral ``respond()``) and lists each divergence:
accepted vs refused, status, error shape, type, code and wording, stream event sequence and
field placement. :func:`fact_update` turns a report into a fact update of the provider's
``facts.json``. The other wires (Anthropic, Gemini and Vertex, Ollama's native chat, OpenAI
Responses) bring their paths, auth headers, sizes and stream readings (run/probe_wires.py) and
their rules' bodies (``providers/<folder>/probes.py``); the run and the comparison are the same.

No pytest here; the command is ``pytest-toolcall probe`` (cli/probe.py).
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pytest_toolcall.cases import ScriptedCall, Turn
from pytest_toolcall.providers import get
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.fake.provider import DEFAULT_KEY, FakeProvider
from pytest_toolcall.providers.openai.dialect import OPENAI_RULES, UNAVOIDABLE_RULES, OpenAIChat
from pytest_toolcall.providers.openai.probes import (BREAKING, OWN_BREAKING, TOOL, TWINS, USER,
                                                     twin_of)
from pytest_toolcall.run.probe_wires import CALL_PROMPT, Wire, probes_of, wire_for

__all__ = ["PROBE_ACCESS", "Probe", "ProbeAccess", "ProbeFake", "Unreachable", "fact_update",
           "probes_for", "run_probes", "turn_for"]


class Unreachable(Exception):
    """The service did not answer the first probe at all (no connection, a timeout)."""

#: the output tokens a probe may cost: enough for "ok" or one short call
MAX_TOKENS = 16
MAX_CALL_TOKENS = 48
#: what a body that is not JSON is on the wire
NOT_JSON = b"{this is not json"
#: the key an ``auth.invalid`` probe sends: never anyone's
WRONG_KEY = "sk-toolcall-probe-not-a-key-0000000000000000"
#: the stream-shape facts a shape probe shows, where the provider has them
SHAPE_FACTS = ("stream_shape", "stream_usage", "stream_finish", "response_shape", "usage",
               "call_ids")
#: the fields whose place in an answer the probes compare (the last key of a path)
PLACED = frozenset({"id", "usage", "finish_reason", "role", "tool_calls", "object"})


@dataclass(frozen=True)
class ProbeAccess:
    """How to reach a provider's real service for probes: its base URL (None: a local server,
    --base-url needed), the documented key variables, the smallest model, the auth header."""

    base_url: str | None
    key_vars: tuple[str, ...] = ()
    model: str | None = None
    key_header: str = "authorization"
    #: a server the user runs (any URL is the service itself): no key needed
    local: bool = False
    #: the base URL's {placeholders} read from the environment, with their defaults
    url_vars: tuple[tuple[str, str | None], ...] = ()

    @property
    def key_required(self) -> bool:
        return self.base_url is not None and not self.local

    def public_url(self, environ: Mapping[str, str]) -> str | None:
        """The base URL, its placeholders filled from ``environ``; a KeyError names a missing
        variable."""
        if self.base_url is None:
            return None
        values = {}
        for name, default in self.url_vars:
            value = environ.get(name) or default
            if value is None:
                raise KeyError(name)
            values[name] = value
        return self.base_url.format(**values)

    def is_public(self, url: str) -> bool:
        """Whether ``url`` is the service's own (any URL for a local server)."""
        import re

        if self.local:
            return True
        if self.base_url is None:
            return False
        pattern = re.escape(self.base_url)
        for name, _ in self.url_vars:
            pattern = pattern.replace(re.escape("{" + name + "}"), "[^/]+")
        return re.fullmatch(pattern, url.rstrip("/")) is not None


#: provider -> how to reach it (the key variables are those the providers' SDKs read; the model
#: is the smallest one with tool calling we know of: --model overrides it)
PROBE_ACCESS: dict[str, ProbeAccess] = {
    "openai": ProbeAccess("https://api.openai.com/v1", ("OPENAI_API_KEY",), "gpt-4.1-nano"),
    "deepseek": ProbeAccess("https://api.deepseek.com", ("DEEPSEEK_API_KEY",), "deepseek-chat"),
    "mistral": ProbeAccess("https://api.mistral.ai/v1", ("MISTRAL_API_KEY",),
                           "ministral-3b-latest"),
    "openrouter": ProbeAccess("https://openrouter.ai/api/v1", ("OPENROUTER_API_KEY",),
                              "openai/gpt-4.1-nano"),
    "zhipu": ProbeAccess("https://api.z.ai/api/paas/v4", ("ZAI_API_KEY", "ZHIPUAI_API_KEY"),
                         "glm-4.5-flash"),
    "azure-openai": ProbeAccess(None, ("AZURE_OPENAI_API_KEY",), None, key_header="api-key"),
    "cerebras": ProbeAccess("https://api.cerebras.ai/v1", ("CEREBRAS_API_KEY",), "llama3.1-8b"),
    "groq": ProbeAccess("https://api.groq.com/openai/v1", ("GROQ_API_KEY",),
                        "llama-3.1-8b-instant"),
    "together": ProbeAccess("https://api.together.xyz/v1", ("TOGETHER_API_KEY",),
                            "meta-llama/Llama-3.2-3B-Instruct-Turbo"),
    "xai": ProbeAccess("https://api.x.ai/v1", ("XAI_API_KEY",), "grok-3-mini"),
    "fireworks": ProbeAccess("https://api.fireworks.ai/inference/v1", ("FIREWORKS_API_KEY",),
                             "accounts/fireworks/models/llama-v3p1-8b-instruct"),
    "lmstudio": ProbeAccess(None, ("LM_API_TOKEN",)),
    # llama-server answers with the model it loaded, whatever the request names
    "llamacpp": ProbeAccess(None, ("LLAMA_API_KEY",), "default"),
    "vllm": ProbeAccess(None, ("VLLM_API_KEY",)),
    # the other wires (run/probe_wires.py): Anthropic takes x-api-key and anthropic-version
    "anthropic": ProbeAccess("https://api.anthropic.com/v1", ("ANTHROPIC_API_KEY",),
                             "claude-haiku-4-5", key_header="x-api-key"),
    "openai-responses": ProbeAccess("https://api.openai.com/v1", ("OPENAI_API_KEY",),
                                    "gpt-4.1-nano"),
    # the key goes in x-goog-api-key (the probe auth.query sends it as ?key=, which the fake
    # takes too)
    "gemini": ProbeAccess("https://generativelanguage.googleapis.com/v1beta",
                          ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "gemini-2.5-flash-lite",
                          key_header="x-goog-api-key"),
    # an OAuth access token (gcloud auth print-access-token), the project and location in the
    # URL, from the variables google-genai reads
    "vertex": ProbeAccess("https://{GOOGLE_CLOUD_LOCATION}-aiplatform.googleapis.com/v1/projects/"
                          "{GOOGLE_CLOUD_PROJECT}/locations/{GOOGLE_CLOUD_LOCATION}/publishers/"
                          "google", ("GOOGLE_OAUTH_ACCESS_TOKEN",), "gemini-2.5-flash-lite",
                          url_vars=(("GOOGLE_CLOUD_PROJECT", None),
                                    ("GOOGLE_CLOUD_LOCATION", "us-central1"))),
    # a local server on its native API, no key; the model is the one it serves
    "ollama": ProbeAccess("http://localhost:11434", (), None, local=True),
}


@dataclass(frozen=True)
class Probe:
    """One request asked of the service and of the fake."""

    id: str
    kind: str  # "rule" (a breaking body), "twin" (its accepted twin), "auth" or "shape"
    body: Any  # the JSON body (None: a body that is not JSON; see raw)
    #: the rule it breaks (kind rule or auth: OpenAI's, the service's own or the dialect's), the
    #: facts it shows (kind shape)
    rule: str | None = None
    facts: tuple[str, ...] = ()
    twin: str | None = None  # a rule probe's accepted twin
    stream: bool = False
    #: the key it sends: the user's ("key"), none ("none") or a wrong one ("wrong"); a wire may
    #: have its own ways (probe_wires.py: "no-version", "api-key")
    auth: str = "key"
    #: the path below the base URL ("": /chat/completions, the openai wire's)
    path: str = ""
    #: the bytes sent instead of a JSON body (an empty body)
    raw: bytes | None = None

    def payload(self) -> bytes:
        if self.raw is not None:
            return self.raw
        return NOT_JSON if self.body is None else json.dumps(self.body).encode()

    @property
    def turn(self) -> Turn:
        """What the fake answers when it takes the request (:func:`turn_for`)."""
        return turn_for(self.body)


def _sized(body: Any, model: str, tokens: int = MAX_TOKENS) -> Any:
    """``body`` with the probe's model (where it names one) and the smallest output."""
    if not isinstance(body, dict):
        return body
    out = dict(body)
    if "model" in out:
        out["model"] = model
    out["max_tokens"] = tokens
    return out


_CALL_TURN = Turn(tool_calls=(ScriptedCall(name="get_weather", arguments={"city": "Paris"}),))
_CALL_PROMPT = CALL_PROMPT


def turn_for(body: Any) -> Turn:
    """The fake's answer to a probe's body: the call the call probe asks for, else "ok"."""
    if body is not None and f'"{_CALL_PROMPT}"' in json.dumps(body):
        return _CALL_TURN
    return Turn(text="ok")


class ProbeFake(FakeProvider):
    """The fake answering each probe as :func:`fake_sender` has it answer (:func:`turn_for`):
    served on loopback, the fake itself stands for the service (tests, a demonstration)."""

    def respond(self, method: str, raw_path: str, headers: Any,
                body: bytes) -> tuple[int, dict[str, str], list[bytes]]:
        try:
            self.expect(turn_for(json.loads(body)))
        except (ValueError, UnicodeDecodeError):
            self.expect(turn_for(None))
        return super().respond(method, raw_path, headers, body)


def probes_for(provider: str, model: str) -> list[Probe]:
    """Every probe of ``provider``: one per rule (OpenAI's and the service's own on the openai
    wire, the dialect's on the others), the auth probes, the accepted twins, and the
    stream-shape probes."""
    wire = wire_for(provider)
    if wire is not None:
        return probes_of(provider, wire, model, MAX_TOKENS, MAX_CALL_TOKENS, Probe)
    if not isinstance(get_dialect(provider), OpenAIChat):
        raise ValueError(f"{provider} speaks the {get(provider).dialect} wire, which has no "
                         "probes")
    facts = get(provider).facts
    shown = tuple(f for f in SHAPE_FACTS if f in facts)
    out = [Probe(id=f"twin.{name}", kind="twin", body=_sized(body, model))
           for name, body in TWINS.items()]
    rules = {**{rule: BREAKING[rule] for rule in OPENAI_RULES}, **OWN_BREAKING.get(provider, {})}
    out += [Probe(id=f"rule.{rule}", kind="rule", rule=rule, twin=f"twin.{twin_of(rule)}",
                  body=_sized(broken, model)) for rule, broken in rules.items()]
    out += [Probe(id=f"auth.{how}", kind="auth", rule=f"auth.{how}", twin="twin.plain",
                  auth=auth, facts=tuple(f for f in ("auth", "auth_missing_key") if f in facts),
                  body=_sized(TWINS["plain"], model)) for how, auth in (("missing", "none"),
                                                                         ("invalid", "wrong"))]
    text = {"model": model, "messages": [dict(USER, content="Say ok.")]}
    call = {"model": model, "messages": [dict(USER, content=_CALL_PROMPT)],
            "tools": [TOOL], "tool_choice": "required"}
    if get_dialect(provider).validate(call) is not None:  # Zhipu takes "auto" only
        call["tool_choice"] = "auto"
    out += [
        Probe(id="shape.answer", kind="shape", facts=shown, body=_sized(text, model)),
        Probe(id="shape.stream", kind="shape", facts=shown, stream=True,
              body=_sized(dict(text, stream=True), model)),
        Probe(id="shape.stream_usage", kind="shape", facts=shown, stream=True,
              body=_sized(dict(text, stream=True, stream_options={"include_usage": True}),
                          model)),
        Probe(id="shape.stream_call", kind="shape", facts=shown, stream=True,
              body=_sized(dict(call, stream=True), model, MAX_CALL_TOKENS)),
    ]
    return out


# -- what an answer shows ------------------------------------------------------------------------
def _paths(value: Any, prefix: str = "") -> list[str]:
    """The key paths of ``value`` whose value is not null (list items as ``[]``)."""
    out: list[str] = []
    if isinstance(value, Mapping):
        for key, item in value.items():
            if item is None:
                continue
            path = f"{prefix}.{key}" if prefix else str(key)
            out.append(path)
            out += _paths(item, path)
    elif isinstance(value, list):
        for item in value:
            out += _paths(item, prefix + "[]")
    return sorted(set(out))


def _placed(value: Any, placed: frozenset[str] = PLACED) -> list[str]:
    return [p for p in _paths(value) if p.rsplit(".", 1)[-1] in placed]


def _error_of(data: Any, text: str) -> dict[str, Any]:
    """What a refusal says: its key paths (the shape), type, code and message."""
    inner = data.get("error") if isinstance(data, Mapping) else None
    fields = inner if isinstance(inner, Mapping) else data if isinstance(data, Mapping) else {}
    message = fields.get("message", fields.get("detail"))
    kind = fields.get("type")
    if kind is None:  # Gemini's and Vertex's google.rpc status name
        kind = fields.get("status")
    if message is None and isinstance(inner, str):
        message = inner
    if message is None and not isinstance(data, Mapping):
        message = text[:500]
    return {"shape": _paths(data) if isinstance(data, Mapping) else ["<not json>"],
            "type": kind, "code": fields.get("code"),
            "message": message if isinstance(message, str) else json.dumps(message)}


def _sse_events(text: str) -> list[Any]:
    events: list[Any] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        data = [line[5:].strip() for line in block.split("\n") if line.startswith("data:")]
        if not data:
            continue
        joined = "\n".join(data)
        if joined == "[DONE]":
            events.append("[DONE]")
            continue
        try:
            events.append(json.loads(joined))
        except ValueError:
            events.append("<not json>")
    return events


def _kind(event: Any) -> str:
    if isinstance(event, str):
        return "done" if event == "[DONE]" else "not-json"
    choices = event.get("choices")
    if isinstance(choices, list) and not choices:
        return "usage" if event.get("usage") or _placed(event) else "empty"
    choice = choices[0] if isinstance(choices, list) and isinstance(choices[0], Mapping) else {}
    delta = choice.get("delta") or {}
    if choice.get("finish_reason"):
        return "finish"
    if delta.get("tool_calls"):
        return "call"
    if delta.get("content"):
        return "text"
    if any(delta.get(k) for k in ("reasoning", "reasoning_content")):
        return "reasoning"
    return "role" if delta.get("role") else "other"


def _stream_shape(events: list[Any], kinds: list[str] | None = None,
                  finish_kinds: frozenset[str] = frozenset({"finish"}),
                  placed: frozenset[str] = PLACED) -> dict[str, Any]:
    """The event sequence (repeats folded) and where each placed field appears: in the first
    event, a middle one, the finish event, after it, the last."""
    kinds = [_kind(e) for e in events] if kinds is None else kinds
    sequence: list[str] = []
    for kind in kinds:
        if not sequence or sequence[-1] != kind:
            sequence.append(kind)
    finish = next((i for i, k in enumerate(kinds) if k.split(" ")[0] in finish_kinds), None)
    placement: dict[str, set[str]] = {}
    data = [(i, e) for i, e in enumerate(events) if isinstance(e, Mapping)]
    last = data[-1][0] if data else -1
    for i, event in data:
        where = ("first" if i == data[0][0] else "finish" if i == finish
                 else "after-finish" if finish is not None and i > finish
                 else "last" if i == last else "middle")
        for path in _placed(event, placed):
            placement.setdefault(path, set()).add(where)
    return {"events": sequence, "placement": {k: sorted(v) for k, v in sorted(placement.items())}}


def outcome(status: int, content_type: str, raw: bytes, stream: bool,
            wire: Wire | None = None) -> dict[str, Any]:
    """What one answer shows, the same for the fake and the service (``wire``: how a wire other
    than OpenAI's Chat Completions reads)."""
    text = raw.decode("utf-8", "replace")
    out: dict[str, Any] = {"accepted": 200 <= status < 300, "status": status}
    if not out["accepted"]:
        try:
            data = json.loads(text)
        except ValueError:
            data = text
        out["error"] = _error_of(data, text)
    elif stream and wire is None and "event-stream" in content_type:
        out.update(_stream_shape(_sse_events(text)))
    elif stream and wire is not None and wire.streams(content_type):
        events = wire.events(text)
        out.update(_stream_shape([e for _, e in events], [wire.kind(n, e) for n, e in events],
                                 wire.finish_kinds, wire.placed))
    else:
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        placed = PLACED if wire is None else wire.placed
        out["placement"] = ({p: ["answer"] for p in _placed(data, placed)}
                            if data is not None else {})
        if stream:
            out["events"] = ["<no event stream>"]
    return out


# -- running -------------------------------------------------------------------------------------
#: send(probe) -> (status, content type, body bytes); raises for a transport failure
Sender = Callable[[Probe], tuple[int, str, bytes]]


def fake_sender(provider: str, fake: FakeProvider | None = None) -> Sender:
    """The fake of ``provider``, in-process (``FakeProvider.respond``, no transport)."""
    fake = FakeProvider(provider) if fake is None else fake
    wire = wire_for(provider)
    path = fake_path(provider) if wire is None else ""

    def send(probe: Probe) -> tuple[int, str, bytes]:
        fake.expect(probe.turn)
        headers = {"content-type": "application/json"}
        key = _key_sent(probe, DEFAULT_KEY)
        if wire is not None:
            headers.update(wire.headers(key, probe.auth))
        elif key is not None:
            headers.update({"authorization": f"Bearer {key}", "api-key": key})
        where = path or get_dialect(provider).base_path + probe.path
        if wire is not None and wire.query(key, probe.auth):
            from urllib.parse import urlencode

            sep = "&" if "?" in where else "?"
            where += sep + urlencode(wire.query(key, probe.auth))
        status, out, chunks = fake.respond("POST", where, headers, probe.payload())
        return status, out.get("content-type", ""), b"".join(c for c in chunks if c)

    return send


def _key_sent(probe: Probe, key: str | None) -> str | None:
    """The key a probe sends: the user's, none, or a wrong one."""
    if probe.auth in ("none",):
        return None
    return WRONG_KEY if probe.auth == "wrong" else key


def fake_path(provider: str) -> str:
    """The path the fake of ``provider`` answers Chat Completions on."""
    dialect = get_dialect(provider)
    paths = sorted(getattr(dialect, "paths", None) or ())
    for path in [f"{dialect.base_path}/chat/completions", *paths,
                 "/openai/v1/chat/completions"]:
        if dialect.route("POST", path):
            return path
    raise ValueError(f"no Chat Completions route on the fake of {provider}")


def http_sender(base_url: str, key: str | None, key_header: str = "authorization",
                timeout: float = 60.0, wire: Wire | None = None
                ) -> tuple[Sender, Callable[[], None]]:
    """A sender to the real service at ``base_url`` (each probe's path below it:
    ``/chat/completions`` on the openai wire) and the function that closes its client."""
    import httpx

    def auth(probe: Probe, value: str | None) -> dict[str, str]:
        if wire is not None:
            return wire.headers(value, probe.auth)
        if not value:
            return {}
        return {key_header: f"Bearer {value}" if key_header == "authorization" else value}

    client = httpx.Client(timeout=timeout, headers={"content-type": "application/json"})
    base, _, query = base_url.partition("?")

    def send(probe: Probe) -> tuple[int, str, bytes]:
        from urllib.parse import urlencode

        path, _, own = (probe.path or "/chat/completions").partition("?")
        sent = _key_sent(probe, key)
        keyed = urlencode(wire.query(sent, probe.auth)) if wire is not None else ""
        both = "&".join(q for q in (own, query, keyed) if q)
        url = base.rstrip("/") + path + (f"?{both}" if both else "")
        r = client.post(url, content=probe.payload(), headers=auth(probe, sent))
        return r.status_code, r.headers.get("content-type", ""), r.content

    return send, client.close


def rule_status(provider: str, rule: str) -> str:
    """How the fake of ``provider`` treats ``rule`` (OpenAI's, or the service's own: "own",
    an auth rule: "auth", confirmed by the service's facts)."""
    dialect = get_dialect(provider)
    if rule.startswith("auth."):
        return "auth"
    if rule not in OPENAI_RULES or not isinstance(dialect, OpenAIChat):
        return "own"
    if dialect.enforces_all_rules:
        return "confirmed"
    if rule in UNAVOIDABLE_RULES:
        return "unavoidable"
    if rule in dialect.confirmed_rules:
        return "confirmed"
    return "lenient" if rule in dialect.lenient_rules else "unconfirmed"


def compare(probe: Probe, fake: Mapping[str, Any], real: Mapping[str, Any]
            ) -> list[dict[str, Any]]:
    """Each way the service's answer to ``probe`` differs from the fake's."""
    found: list[dict[str, Any]] = []

    def differ(what: str, a: Any, b: Any) -> None:
        if a != b:
            found.append({"probe": probe.id, "rule": probe.rule, "what": what,
                          "fake": a, "real": b})

    differ("accepted", fake["accepted"], real["accepted"])
    if found:
        return found
    if not fake["accepted"]:
        differ("status", fake["status"], real["status"])
        for key in ("shape", "type", "code", "message"):
            differ(f"error.{key}", fake["error"][key], real["error"][key])
        return found
    if probe.kind != "shape":
        return found  # taken by both: the model's answer is no claim of the rule's
    if "events" in fake or "events" in real:
        differ("stream.events", fake.get("events"), real.get("events"))
    for path in sorted(set(fake.get("placement", {})) | set(real.get("placement", {}))):
        differ(f"placement.{path}", fake.get("placement", {}).get(path),
               real.get("placement", {}).get(path))
    return found


def run_probes(provider: str, send: Sender, *, model: str, base_url: str,
               probes: list[Probe] | None = None,
               progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Send every probe of ``provider`` through ``send`` (the real service) and to the fake;
    the report (a JSON-ready dict; the caller masks secrets before writing it)."""
    from pytest_toolcall import __version__

    probes = probes if probes is not None else probes_for(provider, model)
    to_fake = fake_sender(provider)
    wire = wire_for(provider)
    rows: list[dict[str, Any]] = []
    divergences: list[dict[str, Any]] = []
    for n, probe in enumerate(probes, 1):
        fake = outcome(*to_fake(probe), probe.stream, wire)
        try:
            real = outcome(*send(probe), probe.stream, wire)
        except Exception as exc:  # noqa: BLE001 - a transport failure is the probe's result
            if n == 1:  # nothing answers: stop before sending the rest
                raise Unreachable(f"{type(exc).__name__}: {exc}") from None
            real = {"accepted": False, "status": 0,
                    "error": {"shape": ["<no answer>"], "type": type(exc).__name__,
                              "code": None, "message": str(exc)}}
        row = {"id": probe.id, "kind": probe.kind, "rule": probe.rule,
               "breaks": _breaks(provider, probe), "twin": probe.twin,
               "facts": list(probe.facts), "auth": probe.auth,
               "path": probe.path or "/chat/completions",
               "request": (probe.body if probe.body is not None else
                           (probe.raw if probe.raw is not None else NOT_JSON).decode()),
               "fake": fake, "real": real}
        if probe.rule:
            row["status_in_fake"] = rule_status(provider, probe.rule)
        rows.append(row)
        divergences += compare(probe, fake, real)
        if progress is not None:
            progress(f"[{n}/{len(probes)}] {probe.id}: fake "
                     f"{'accepts' if fake['accepted'] else 'refuses'}, service "
                     f"{'accepts' if real['accepted'] else 'refuses'} ({real['status']})")
    twins_refused = [r["id"] for r in rows if r["kind"] == "twin" and not r["real"]["accepted"]]
    return {
        "report": "pytest-toolcall probe",
        "kit": __version__,
        "provider": provider,
        "base_url": base_url,
        "model": model,
        "date": _dt.datetime.now(_dt.timezone.utc).date().isoformat(),
        "requests": len(probes),
        "summary": {"probes": len(probes), "divergences": len(divergences),
                    "diverging_probes": len({d["probe"] for d in divergences}),
                    "twins_refused": twins_refused},
        "divergences": divergences,
        "probes": rows,
    }


def _breaks(provider: str, probe: Probe) -> str | None:
    if probe.rule is None:
        return None
    if probe.kind == "auth":
        return {"none": "no key", "wrong": "a wrong key", "no-version": "no anthropic-version",
                "api-key": "an API key instead of a token"}.get(probe.auth, probe.auth)
    if rule_status(provider, probe.rule) == "own":
        return f"a request {provider} refuses by its own rule"
    return OPENAI_RULES[probe.rule]


# -- a report becomes a fact update ---------------------------------------------------------------
def fact_key(probe_id: str) -> str:
    return "probe_" + probe_id.split(".", 1)[1].replace(".", "_")


def fact_update(report: Mapping[str, Any], source: str) -> tuple[dict[str, dict[str, Any]],
                                                                 list[str]]:
    """The facts a probe report shows, fact name -> ``{value, source, confirmed}``, for each
    probe that diverged; and what else a reviewer must change (a rule the service turned out to
    refuse belongs in its dialect's ``confirmed_rules``)."""
    provider, date = report["provider"], report["date"]
    by_id = {row["id"]: row for row in report["probes"]}
    diverged = sorted({d["probe"] for d in report["divergences"]})
    facts: dict[str, dict[str, Any]] = {}
    todo: list[str] = []
    for probe_id in diverged:
        row = by_id[probe_id]
        real = row["real"]
        whose = "rule" if row.get("status_in_fake") in ("own", "auth") else "OpenAI's rule"
        if row["kind"] in ("rule", "auth") and row["rule"]:
            breaks = row["breaks"]
            subject = (f"a request with {breaks} ({whose} {row['rule']}" if whose != "rule"
                       else f"the request breaking its rule {row['rule']} alone (probe "
                            f"{probe_id}")
            if real["accepted"]:
                value = (f"{provider} takes {subject}, which the fake refuses): status "
                         f"{real['status']}")
                if row["status_in_fake"] != "unconfirmed":
                    todo.append(f"{row['rule']}: the fake refuses it ({row['status_in_fake']}); "
                                "the service takes it: drop the rule from the dialect "
                                "(confirmed_rules, or its own check) or explain")
            else:
                error = real["error"]
                value = (f"{provider} refuses {subject}): {real['status']} "
                         f"{json.dumps(error['message'])} "
                         f"(type {error['type']}, code {error['code']}; keys "
                         f"{', '.join(error['shape'])})")
                if row["status_in_fake"] in ("unconfirmed", "lenient"):
                    todo.append(f"{row['rule']}: the service refuses it: add "
                                f"\"{row['rule']}\": \"{fact_key(probe_id)}\" to confirmed_rules "
                                "(dialect.py), in the service's words")
                else:
                    todo.append(f"{row['rule']}: the service refuses it otherwise than the "
                                "fake: its status, shape or words (the dialect's encode_error, "
                                "errors.py)")
        elif row["kind"] in ("twin", "auth"):  # an auth probe of no rule: a way the key goes
            what = "the accepted twin" if row["kind"] == "twin" else "the key sent so,"
            value = (f"{provider} refused {what} {probe_id}: {real['status']} "
                     f"{json.dumps(real.get('error', {}).get('message'))}")
            if row["kind"] == "auth":
                todo.append(f"{probe_id}: the fake takes the key so (the dialect's check_auth)")
        else:
            shown = {k: v for k, v in real.items() if k in ("events", "placement", "status")}
            value = f"{probe_id}: {json.dumps(shown, sort_keys=True)}"
            if row["facts"]:
                todo.append(f"{probe_id}: compare with the facts {', '.join(row['facts'])}")
        facts[fact_key(probe_id)] = {"value": value, "source": source, "confirmed": date}
    return facts, todo

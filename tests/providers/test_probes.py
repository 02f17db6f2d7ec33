"""Issue 33: every rule carries a probe; a probe run names every divergence between a service and
its fake. No network: the "service" is a loopback server started and stopped here (the fake
itself, or a stand-in that diverges from it on purpose).
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.cases import Turn
from pytest_toolcall.cli import main
from pytest_toolcall.core._names import PROVIDERS
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.fake import FakeProvider, serve
from pytest_toolcall.providers.fake.provider import DEFAULT_KEY
from pytest_toolcall.providers.openai.dialect import OPENAI_RULES, OpenAIChat
from pytest_toolcall.providers.openai.probes import BREAKING
from pytest_toolcall.run.probe_wires import WIRES, wire_for
from pytest_toolcall.run.probes import (PROBE_ACCESS, ProbeFake, fake_path, fake_sender,
                                        http_sender, probes_for, run_probes)

_OPENAI_WIRE = [n for n in PROVIDERS if isinstance(get_dialect(n), OpenAIChat)]
_OTHER_WIRES = [n for n in PROVIDERS if n not in _OPENAI_WIRE]
SECRET = "sk-probe-Secret-0123456789abcdefXYZ"

#: every loopback server (serve) builds two httpx transports and every http_sender a client,
#: each loading certifi's whole CA bundle (about 30 ms apiece, some 60 a run of this module)
#: though no probe here does TLS: a bundle of one certificate instead (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("one_ca_certificate")


#: rules no probe asks: the URL's (the probe goes where the user points it), and those needing
#: what an earlier answer said (a one-request probe cannot show them), provider -> rule -> why
_UNPROBED = {"*": {"route": "the route is the URL the user gives",
                   "api_version.missing": "Azure's api-version is part of the URL the user gives",
                   "api_version.unsupported": "the same"},
             "deepseek": {"messages.reasoning_content.missing": "needs a thinking call answered"},
             "openrouter": {"messages.reasoning_details.missing": "needs a Gemini call answered"},
             "anthropic": {"messages.thinking.missing": "needs a thinking turn the service "
                                                        "answered, with its signature"},
             "openai-responses": {"input.function_call.reasoning": "needs the reasoning item of "
                                                                   "an answer"}}

#: the rules a dialect builds from an argument, not as rule="...": provider -> rule -> the source
#: text that builds it (checked to be there)
_BUILT = {
    "anthropic": {"model.missing": 'rule=f"{field}.missing"',
                  "messages.missing": 'for field in ("model", "messages", "max_tokens")',
                  "max_tokens.missing": 'for field in ("model", "messages", "max_tokens")',
                  "messages.tool_use.id": 'rule=f"messages.tool_use.{field}"',
                  "messages.tool_use.name": 'for field in ("id", "name", "input")',
                  "messages.tool_use.input": 'for field in ("id", "name", "input")'},
    "gemini": {r: f'"{r}")' for r in ("body.unknown_field", "messages.unknown_field",
                                      "tools.unknown_field", "tools.parameters.unknown_field")},
    "openai-responses": {
        **{r: f'"{r}")' for r in (
            "model.missing", "tools.type.missing", "tools.name.missing",
            "tool_choice.name.missing", "input.message.role.missing", "input.message.content",
            "input.function_call_output.call_id", "input.function_call_output.output")},
        **{f"input.function_call.{f}": 'f"input.function_call.{field}")'
           for f in ("call_id", "name", "arguments")},
        "tool_choice.value": "tool_choice_mode(choice)", "type": "_type_error(",
        "auth.missing": "OpenAIChat().check_auth", "auth.invalid": "OpenAIChat().check_auth"},
    "ollama": {r: f'"{r}")' for r in ("body.json", "messages.empty", "messages.format",
                                      "messages.content.missing")},
}
_BUILT["vertex"] = _BUILT["gemini"]


def _folders(name: str) -> list[Path]:
    """The provider folders of the classes its dialect is made of (Vertex: gemini's too)."""
    import inspect

    classes = type(get_dialect(name)).__mro__
    return sorted({Path(inspect.getfile(c)).parent for c in classes
                   if c.__module__.startswith("pytest_toolcall.providers.")} |
                  {Path(__file__).parents[2] / "pytest_toolcall/providers" /
                   name.replace("-", "_")})


def _rules_in_source(name: str) -> set[str]:
    """Every rule id the provider's folders name (``rule="..."``), the rules built from
    arguments (_BUILT), and OpenAI's on the openai wire."""
    found = set(OPENAI_RULES) if name in _OPENAI_WIRE else set()
    text = "".join(f.read_text(encoding="utf-8") for d in _folders(name) for f in d.glob("*.py"))
    found |= set(re.findall(r'rule="([^"]+)"', text))
    return found | set(_BUILT.get(name, {}))


@pytest.mark.parametrize("name", sorted(_BUILT))
def test_the_rules_built_from_arguments_are_in_the_source(name: str) -> None:
    text = "".join(f.read_text(encoding="utf-8") for d in _folders(name) for f in d.glob("*.py"))
    assert [r for r, built in _BUILT[name].items() if built not in text] == []


@pytest.mark.parametrize("name", PROVIDERS)
def test_every_rule_of_every_provider_has_a_probe(name: str) -> None:
    """A rule a provider's fake enforces (OpenAI's, the service's own, the dialect's, its auth)
    without a probe fails here, unless listed in _UNPROBED with why."""
    assert name in PROBE_ACCESS
    probes = probes_for(name, "m")
    probed = {p.rule for p in probes if p.kind in ("rule", "auth")}
    unprobed = {**_UNPROBED["*"], **_UNPROBED.get(name, {})}
    missing = _rules_in_source(name) - probed - set(unprobed)
    assert not missing, missing
    if name in _OPENAI_WIRE:
        assert set(OPENAI_RULES) <= probed
    if name != "ollama":  # a local Ollama takes any key, or none: no auth rule
        assert {"auth.missing", "auth.invalid"} <= probed
    assert not probed & set(unprobed)
    ids = {p.id for p in probes}
    assert len(ids) == len(probes)
    assert all(p.twin in ids for p in probes if p.twin), name
    shapes = {"shape.answer", "shape.stream", "shape.stream_call"}
    assert {p.id for p in probes if p.kind == "shape"} == (
        shapes | {"shape.stream_usage"} if name in _OPENAI_WIRE else shapes)


@pytest.mark.parametrize("name", _OTHER_WIRES)
def test_each_rule_probe_is_refused_by_the_fake_under_its_own_rule(name: str) -> None:
    """The probe's body breaks its rule alone, sized and with the run's model (a model the rule
    is about is pinned), and the auth probes are refused under theirs: each as the fake
    sees it, and the twins and shape probes are taken."""
    for model in ("m", PROBE_ACCESS[name].model or "llama3.2"):
        fake = FakeProvider(name)
        send = fake_sender(name, fake)
        for probe in probes_for(name, model):
            send(probe)
            rejection = fake.exchanges[-1].rejection
            if probe.rule is not None:
                assert rejection is not None and rejection.rule == probe.rule, probe.id
            else:
                assert rejection is None, (probe.id, rejection)


def test_the_source_scan_sees_a_rule_without_a_probe() -> None:
    """The scan is no formality: Mistral's own id rule is found in its folder, and it is one of
    the own probes."""
    assert "messages.tool_calls.id_format" in _rules_in_source("mistral")
    assert "messages.tool_calls.id_format" not in _rules_in_source("groq")


def test_a_rule_probe_is_the_rule_tests_breaking_body() -> None:
    """The probe's data is the rule's own (BREAKING), with the probe's model and max_tokens."""
    probes = {p.rule: p for p in probes_for("groq", "tiny") if p.kind == "rule"}
    for rule, body in BREAKING.items():
        sent = probes[rule].body
        if body is None:
            assert sent is None and probes[rule].payload() == b"{this is not json"
            continue
        assert {k: v for k, v in sent.items() if k not in ("model", "max_tokens")} == \
            {k: v for k, v in body.items() if k != "model"}
        assert sent.get("model", "tiny") == "tiny" and sent["max_tokens"] == 16


def test_the_rule_tests_use_the_probes_bodies() -> None:
    """The dialects' rule tables take each rule's body from the probes' data (one source)."""
    root = Path(__file__).parents[1]
    for test, module in (("test_dialect_anthropic.py", "anthropic"),
                         ("test_dialect_gemini.py", "gemini"),
                         ("test_dialect_openai_responses.py", "openai_responses"),
                         ("test_dialect_ollama.py", "ollama")):
        text = (root / test).read_text(encoding="utf-8")
        assert f"from pytest_toolcall.providers.{module}.probes import" in text, test
        assert "BREAKING[" in text, test


def _base_url(endpoint: Any, name: str) -> str:
    if name not in _OPENAI_WIRE:
        return endpoint.base_url  # the wire's paths go below the dialect's base path
    root = endpoint.base_url[:len(endpoint.base_url) - len(get_dialect(name).base_path)]
    return root + fake_path(name).removesuffix("/chat/completions")


@pytest.mark.parametrize("name", PROVIDERS)
def test_the_fake_itself_on_loopback_shows_no_divergence(name: str) -> None:
    with serve(ProbeFake(name)) as endpoint:
        send, close = http_sender(_base_url(endpoint, name), DEFAULT_KEY,
                                  PROBE_ACCESS[name].key_header, timeout=10,
                                  wire=wire_for(name))
        try:
            report = run_probes(name, send, model="m", base_url=endpoint.base_url)
        finally:
            close()
    assert report["divergences"] == [], report["divergences"][:3]
    assert report["requests"] == len(report["probes"]) == len(probes_for(name, "m"))
    assert len(endpoint.exchanges) == report["requests"]  # each probe sent once over the wire


# -- the stand-in: the openai fake, changed in three places ------------------------------------
class StandIn(ProbeFake):
    """What a drifted service might answer: it takes a tool name with a space (OpenAI's fake
    refuses it), refuses an unknown role in another error shape (422 {detail: [...]}), streams
    its usage under x_groq.usage instead of at the top level, and ends no stream with [DONE]."""

    def respond(self, method: str, raw_path: str, headers: Any,
                body: bytes) -> tuple[int, dict[str, str], list[bytes]]:
        data = json.loads(body) if body.startswith(b"{\"") else None
        if isinstance(data, dict) and any(" " in str(t.get("function", {}).get("name", ""))
                                          for t in data.get("tools", [])):
            data["tools"] = [{**t, "function": {**t["function"], "name": "get_weather"}}
                             for t in data["tools"]]
            body = json.dumps(data).encode()
        if isinstance(data, dict) and any(m.get("role") == "wizard"
                                          for m in data.get("messages", [])):
            detail = {"detail": [{"loc": ["body", "messages", 0, "role"],
                                  "msg": "Input should be 'user', 'assistant' or 'tool'"}]}
            return 422, {"content-type": "application/json"}, [json.dumps(detail).encode()]
        status, out, chunks = super().respond(method, raw_path, headers, body)
        if out.get("content-type", "").startswith("text/event-stream"):
            chunks = [_usage_moved(c).replace(b"data: [DONE]\n\n", b"") for c in chunks]
        return status, out, chunks


def _usage_moved(chunk: bytes) -> bytes:
    out = []
    for block in chunk.split(b"\n\n"):
        if block.startswith(b"data: {"):
            event = json.loads(block[6:])
            if event.get("usage"):
                event["x_groq"] = {"usage": event.pop("usage")}
            block = b"data: " + json.dumps(event).encode()
        out.append(block)
    return b"\n\n".join(out)


PLANTED = {("rule.tools.name.pattern", "accepted"),
           ("rule.messages.role", "status"), ("rule.messages.role", "error.shape"),
           ("rule.messages.role", "error.type"), ("rule.messages.role", "error.code"),
           ("rule.messages.role", "error.message"),
           ("shape.stream_usage", "placement.usage"),
           ("shape.stream_usage", "placement.x_groq.usage"),
           ("shape.stream", "stream.events"), ("shape.stream_usage", "stream.events"),
           ("shape.stream_call", "stream.events")}


@contextlib.contextmanager
def _standin(api_key: str = DEFAULT_KEY) -> Iterator[Any]:
    before = threading.active_count()
    with serve(StandIn("openai", api_key=api_key)) as endpoint:
        yield endpoint
    assert threading.active_count() <= before  # the server's thread is gone


def test_the_report_names_each_planted_divergence() -> None:
    with _standin() as endpoint:
        send, close = http_sender(endpoint.base_url, DEFAULT_KEY, timeout=10)
        try:
            report = run_probes("openai", send, model="m", base_url=endpoint.base_url)
        finally:
            close()
    found = {(d["probe"], d["what"]) for d in report["divergences"]}
    assert found == PLANTED
    accepted = next(d for d in report["divergences"] if d["what"] == "accepted")
    assert (accepted["fake"], accepted["real"], accepted["rule"]) == \
        (False, True, "tools.name.pattern")
    shape = next(d for d in report["divergences"] if d["what"] == "error.shape")
    assert shape["real"][0] == "detail" and "error.message" in shape["fake"]
    usage = next(d for d in report["divergences"] if d["what"] == "placement.usage")
    assert usage == {"probe": "shape.stream_usage", "rule": None, "what": "placement.usage",
                     "fake": ["after-finish"], "real": None}
    events = next(d for d in report["divergences"] if d["probe"] == "shape.stream_call")
    assert events["fake"][-1] == "done" and "done" not in events["real"], events
    assert report["summary"]["diverging_probes"] == 5


def test_the_command_reports_and_writes_facts(tmp_path: Path, monkeypatch: Any,
                                             capsys: Any) -> None:
    """One command against the stand-in: the request count first, a summary after, exit 1,
    a report without the key; then --to-facts writes a fact per diverging probe."""
    monkeypatch.setenv("VLLM_API_KEY", SECRET)
    report_file = tmp_path / "report.json"
    with _standin(api_key=SECRET) as endpoint:
        code = main(["probe", "--provider", "vllm", "--base-url", endpoint.base_url,
                     "--model", "tiny", "--report", str(report_file)])
    out = capsys.readouterr().out
    assert code == 1, out
    assert out.startswith("probing vllm at http://127.0.0.1:") and "42 requests" in out
    assert "divergences in" in out and SECRET not in out
    text = report_file.read_text()
    assert SECRET not in text
    report = json.loads(text)
    assert report["provider"] == "vllm" and report["model"] == "tiny"
    facts_file = tmp_path / "facts.json"
    original = Path(__file__).parents[2] / "pytest_toolcall/providers/vllm/facts.json"
    facts_file.write_text(original.read_text())
    assert main(["probe", "--to-facts", str(report_file), "--facts", str(facts_file)]) == 0
    out = capsys.readouterr().out
    assert "+    \"probe_" in out and "facts written to" in out
    facts = json.loads(facts_file.read_text())["facts"]
    diverged = {d["probe"] for d in report["divergences"]}
    new = {k: v for k, v in facts.items() if k.startswith("probe_")}
    assert len(new) == len(diverged)
    for fact in new.values():
        assert fact["confirmed"] == report["date"] and "report.json" in fact["source"]
    # vLLM is shown to refuse a tool_choice without tools: the stand-in (OpenAI's fake) refuses
    # it in OpenAI's words, so the fact quotes them and the reviewer is told to fix the fake
    assert "OpenAI's rule tool_choice.without_tools" in \
        facts["probe_tool_choice_without_tools"]["value"]
    assert "to review: tool_choice.without_tools: the service refuses it otherwise" in out
    # a rule vLLM's fake takes (unconfirmed) that the stand-in refuses: to confirm
    assert "to review: tools.name.length: the service refuses it: add" in out


def test_a_report_of_another_url_is_not_written_over_the_service_facts(tmp_path: Path,
                                                                       capsys: Any) -> None:
    report = {"report": "pytest-toolcall probe", "provider": "openai", "date": "2026-11-28",
              "base_url": "http://localhost:11434/v1", "model": "qwen3:0.6b", "probes": [],
              "divergences": []}
    file = tmp_path / "r.json"
    file.write_text(json.dumps(report))
    assert main(["probe", "--to-facts", str(file)]) == 2
    assert "give --facts FILE" in capsys.readouterr().err


@pytest.mark.parametrize("argv, words", [
    ([], "--provider: name the provider"),
    (["--provider", "vertex"], "set GOOGLE_CLOUD_PROJECT"),
    (["--provider", "ollama"], "--model: ollama has no default model"),
    (["--provider", "nope"], "no such provider"),
    (["--provider", "vllm"], "--base-url: vllm has no public endpoint"),
    (["--provider", "vllm", "--base-url", "localhost:8000"], "is no http(s) URL"),
    (["--provider", "gemini", "--base-url", "https://g/v1beta?key=" + SECRET],
     "no key in the URL: the auth probes send it"),
    (["--provider", "vllm", "--base-url", "http://127.0.0.1:9/v1"], "--model: vllm has no"),
    (["--provider", "llamacpp", "--base-url", "http://x/v1", "--report", "/no/such/dir/r.json"],
     "--report: the folder"),
    (["--to-facts", "/no/such/report.json"], "--to-facts: no file"),
])
def test_bad_input_is_a_usage_error(argv: list[str], words: str, capsys: Any,
                                    monkeypatch: Any) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)
    monkeypatch.setenv("GOOGLE_OAUTH_ACCESS_TOKEN", SECRET)
    assert main(["probe", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and SECRET not in err


def test_no_key_for_a_public_service_is_a_usage_error(monkeypatch: Any, capsys: Any) -> None:
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    assert main(["probe", "--provider", "groq"]) == 2
    assert "set GROQ_API_KEY" in capsys.readouterr().err


def test_a_server_that_does_not_answer_sends_one_request(capsys: Any) -> None:
    with serve(FakeProvider("vllm")) as endpoint:
        url = endpoint.base_url
    assert main(["probe", "--provider", "vllm", "--base-url", url, "--model", "m",
                 "--timeout", "2"]) == 3
    assert "did not answer" in capsys.readouterr().err


# -- a stand-in per other wire: the fake, changed on purpose in a few places ---------------------
def _sse(events: list[tuple[str | None, Any]], sep: str = "\n\n") -> bytes:
    return "".join((f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}{sep}"
                   for name, data in events).encode()


def _anthropic_stream(events: list[tuple[str | None, Any]]) -> bytes:
    """No ping; the delta's usage on message_stop; message_stop's SSE event named otherwise."""
    out = []
    usage = None
    for name, data in events:
        if name == "ping":
            continue
        if name == "message_delta":
            data = dict(data)
            usage = data.pop("usage")
        if name == "message_stop":
            name, data = "done", dict(data, usage=usage)
        out.append((name, data))
    return _sse(out)


def _responses_stream(events: list[tuple[str | None, Any]]) -> bytes:
    """response.in_progress without its SSE event line; the usage beside the response, not in
    it, on response.completed."""
    out = []
    for name, data in events:
        if name == "response.in_progress":
            name = None
        if name == "response.completed":
            response = dict(data["response"])
            data = dict(data, response=response, usage=response.pop("usage"))
        out.append((name, data))
    return _sse(out)


def _gemini_stream(events: list[tuple[str | None, Any]]) -> bytes:
    """usageMetadata on the last chunk only; the text before the finish sent as a thought."""
    out = []
    for i, (_, data) in enumerate(events):
        data = dict(data)
        if i < len(events) - 1:
            data.pop("usageMetadata", None)
            for candidate in data["candidates"]:
                for part in candidate["content"]["parts"]:
                    if part.get("text"):
                        part["thought"] = True
        out.append((None, data))
    return _sse(out, "\r\n\r\n")


def _ollama_stream(events: list[tuple[str | None, Any]]) -> bytes:
    """No done_reason on the last line."""
    return "".join(json.dumps({k: v for k, v in data.items() if k != "done_reason"}) + "\n"
                   for _, data in events).encode()


class WireStandIn(ProbeFake):
    """A service that drifted from its fake: it takes one rule's breaking body (``takes``),
    refuses another rule in another error shape (``reshapes``: rule -> status, body), and
    changes its streams (``stream``: the events -> the bytes sent)."""

    def __init__(self, name: str, takes: str, reshapes: dict[str, tuple[int, Any]],
                 stream: Any, **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        self.takes, self.reshapes, self.stream = takes, reshapes, stream

    def respond(self, method: str, raw_path: str, headers: Any,
                body: bytes) -> tuple[int, dict[str, str], list[bytes]]:
        status, out, chunks = super().respond(method, raw_path, headers, body)
        rejection = self.exchanges[-1].rejection
        json_type = {"content-type": "application/json"}
        if rejection is not None and rejection.rule == self.takes:
            answer = self.dialect.encode_response(Turn(text="ok"), json.loads(body))
            return 200, json_type, [json.dumps(answer).encode()]
        if rejection is not None and rejection.rule in self.reshapes:
            status, error = self.reshapes[rejection.rule]
            return status, json_type, [json.dumps(error).encode()]
        if status == 200 and self.exchanges[-1].streamed:
            wire = wire_for(self.dialect.name)
            events = wire.events(b"".join(chunks).decode())
            return status, out, [self.stream(events)]
        return status, out, chunks


_GOOGLE_ERROR = {"error": {"code": 400, "message": "bad tool_choice", "status": "INVALID_ARGUMENT"}}
_UNPROCESSABLE = {"detail": [{"loc": ["body", "input", 1, "role"], "msg": "Input should be "
                              "'user', 'assistant', 'system' or 'developer'"}]}
_ERROR_TYPES = ("error.shape", "error.type", "error.code")

#: wire -> (the stand-in's changes, every divergence they must be named as: (probe, what))
STAND_INS: dict[str, tuple[dict[str, Any], set[tuple[str, str]]]] = {
    "anthropic": (
        {"takes": "tools.name.pattern", "stream": _anthropic_stream,
         "reshapes": {"tool_choice.type": (400, _GOOGLE_ERROR)}},
        {("rule.tools.name.pattern", "accepted"),
         *{("rule.tool_choice.type", w) for w in (*_ERROR_TYPES, "error.message")},
         *{(p, w) for p in ("shape.stream", "shape.stream_call")
           for w in ("stream.events", "placement.usage")}}),
    "openai-responses": (
        {"takes": "tools.name.pattern", "stream": _responses_stream,
         "reshapes": {"input.message.role": (422, _UNPROCESSABLE)}},
        {("rule.tools.name.pattern", "accepted"),
         *{("rule.input.message.role", w) for w in ("status", *_ERROR_TYPES, "error.message")},
         *{(p, w) for p in ("shape.stream", "shape.stream_call")
           for w in ("stream.events", "placement.usage", "placement.response.usage")}}),
    "gemini": (
        {"takes": "tools.name.pattern", "stream": _gemini_stream,
         "reshapes": {"messages.role": (400, {"error": "Please use a valid role: user, model."})}},
        {("rule.tools.name.pattern", "accepted"),
         *{("rule.messages.role", w) for w in _ERROR_TYPES},  # the same words
         ("shape.stream", "stream.events"),
         ("shape.stream", "placement.usageMetadata"),
         ("shape.stream_call", "placement.usageMetadata")}),
    "ollama": (
        {"takes": "messages.tool_calls.arguments", "stream": _ollama_stream,
         "reshapes": {"model.missing": (400, {"error": {"message": "model is required"}})}},
        {("rule.messages.tool_calls.arguments", "accepted"),  # on both routes
         ("rule.v1.messages.tool_calls.arguments", "accepted"),
         ("rule.model.missing", "error.shape"),
         *{("rule.v1.model.missing", w) for w in ("error.shape", "error.type")},
         ("shape.stream", "placement.done_reason"),
         ("shape.stream_call", "placement.done_reason")}),
}
STAND_INS["vertex"] = STAND_INS["gemini"]


@pytest.mark.parametrize("name", sorted(STAND_INS))
def test_the_report_names_each_planted_divergence_of_each_wire(name: str) -> None:
    changes, planted = STAND_INS[name]
    assert sorted(STAND_INS) == sorted(WIRES) and set(WIRES) == set(_OTHER_WIRES)
    with serve(WireStandIn(name, **changes)) as endpoint:
        send, close = http_sender(endpoint.base_url, DEFAULT_KEY, timeout=10,
                                  wire=wire_for(name))
        try:
            report = run_probes(name, send, model="m", base_url=endpoint.base_url)
        finally:
            close()
    found = {(d["probe"], d["what"]) for d in report["divergences"]}
    assert found == planted, (found - planted, planted - found)
    taken = next(d for d in report["divergences"] if d["what"] == "accepted")
    assert (taken["fake"], taken["real"]) == (False, True)
    assert report["summary"]["twins_refused"] == []


def test_one_command_probes_a_local_ollama_on_its_native_api(capsys: Any) -> None:
    """The example of docs/providers.md, the fake standing for ``ollama serve``: no key, the
    native routes below the server's root, exit 0."""
    with serve(ProbeFake("ollama")) as endpoint:
        code = main(["probe", "--provider", "ollama", "--base-url", endpoint.base_url,
                     "--model", "qwen3:0.6b"])
        paths = {e.path for e in endpoint.exchanges}
    out = capsys.readouterr().out
    assert code == 0, out
    assert "16 requests" in out and "0 divergences" in out
    assert paths == {"/api/chat", "/v1/chat/completions"}


def test_the_anthropic_key_goes_in_x_api_key_and_never_in_the_report(
        tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    report_file = tmp_path / "anthropic.json"
    with serve(WireStandIn("anthropic", api_key=SECRET,
                           **STAND_INS["anthropic"][0])) as endpoint:
        code = main(["probe", "--provider", "anthropic", "--base-url", endpoint.base_url,
                     "--report", str(report_file)])
        sent = [e.headers for e in endpoint.exchanges]
    out = capsys.readouterr().out
    assert code == 1 and "claude-haiku-4-5" in out and SECRET not in out
    assert SECRET not in report_file.read_text()
    assert all(h.get("x-api-key") == "<redacted>" or "x-api-key" not in h for h in sent)
    assert sum("x-api-key" in h for h in sent) == len(sent) - 1  # the no-key probe
    assert sum("anthropic-version" not in h for h in sent) == 1  # the no-version probe
    report = json.loads(report_file.read_text())
    assert {d["probe"] for d in report["divergences"]} == {
        p for p, _ in STAND_INS["anthropic"][1]}
    # the report becomes facts of Anthropic's facts.json (one per diverging probe), in the
    # dialect's own terms, and the file still loads
    from pytest_toolcall.providers._facts import load

    folder = tmp_path / "anthropic"
    folder.mkdir()
    original = Path(__file__).parents[2] / "pytest_toolcall/providers/anthropic/facts.json"
    (folder / "facts.json").write_text(original.read_text())
    assert main(["probe", "--to-facts", str(report_file), "--facts",
                 str(folder / "facts.json")]) == 0
    out = capsys.readouterr().out
    facts = load(str(folder / "facts.py")).facts
    assert set(facts) == {"probe_tools_name_pattern", "probe_tool_choice_type", "probe_stream",
                          "probe_stream_call"}
    assert facts["probe_tools_name_pattern"].value == (
        "anthropic takes the request breaking its rule tools.name.pattern alone (probe "
        "rule.tools.name.pattern, which the fake refuses): status 200")
    assert facts["probe_tool_choice_type"].value.startswith(
        "anthropic refuses the request breaking its rule tool_choice.type alone (probe "
        'rule.tool_choice.type): 400 "bad tool_choice" (type INVALID_ARGUMENT, code 400')
    assert "OpenAI" not in out


def test_vertex_reads_its_project_and_location_from_the_environment() -> None:
    access = PROBE_ACCESS["vertex"]
    url = access.public_url({"GOOGLE_CLOUD_PROJECT": "p1"})
    assert url == ("https://us-central1-aiplatform.googleapis.com/v1/projects/p1/locations/"
                   "us-central1/publishers/google")
    assert access.is_public(url) and not access.is_public("http://127.0.0.1:9/v1")
    assert PROBE_ACCESS["ollama"].is_public("http://192.168.1.5:11434")
    with pytest.raises(KeyError, match="GOOGLE_CLOUD_PROJECT"):
        access.public_url({})

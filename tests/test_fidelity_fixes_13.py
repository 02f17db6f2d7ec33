"""Issue 13, "Fidelity defects in today's fakes", Anthropic and Gemini: each fact measured in the
recorded traffic of the wire corpus (tests/data/wire-corpus, pydantic-ai/anthropic and
pydantic-ai/gemini; recounted 2026-11-25) or read in the official SDKs (anthropic 2.14.0,
google-genai 3.6.1), and the fake held to it.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from typing import Any

import pytest

import corpus
from pytest_toolcall.cases import QUIRKS, ErrorReply, ScriptedCall, StreamPlan, Turn
from pytest_toolcall.core._names import PROVIDERS
from pytest_toolcall.providers.base import Rejection, get_dialect, noting_breaches

ANTHROPIC = get_dialect("anthropic")
GEMINI = get_dialect("gemini")
VERTEX = get_dialect("vertex")
CALL = (ScriptedCall(name="get_capital", arguments={"country": "France"}),)


@functools.lru_cache(maxsize=None)
def _load(folder: str) -> tuple[corpus.Interaction, ...]:
    pytest.importorskip("yaml")
    return tuple(i for path in corpus.files(folder) for i in corpus.load(path))


def _events(raw: list[bytes]) -> list[Any]:
    out = []
    for event in raw:
        for line in event.decode().splitlines():
            if line.startswith("data:"):
                out.append(json.loads(line[5:]))
    return out


def _streams(interactions: tuple[corpus.Interaction, ...]) -> list[list[dict[str, Any]]]:
    return [i.sse_chunks() for i in interactions
            if i.response_text and "data:" in i.response_text]


# -- Anthropic: stop_details, usage, tool_use fields ---------------------------------------------

def test_anthropic_json_answer_has_the_majority_keys() -> None:
    real = [i.response_json for i in _load("anthropic") if isinstance(i.response_json, dict)
            and i.response_json.get("type") == "message"]
    with_details = sum("stop_details" in m for m in real)
    assert (with_details, len(real)) == (101, 149)
    assert all(m["stop_details"] is None for m in real if "stop_details" in m)
    # the most common key set of a real answer (container / context_management come with
    # server tools, which the fake never runs)
    shapes = Counter(frozenset(m) - {"container", "context_management"} for m in real)
    fake = ANTHROPIC.encode_response(Turn(text="Hi.", tool_calls=CALL), {"model": "m"})
    assert frozenset(fake) == shapes.most_common(1)[0][0]
    assert fake["stop_details"] is None


def test_anthropic_stream_has_a_recorded_shape() -> None:
    real = _streams(_load("anthropic"))
    starts = [e["message"] for s in real for e in s if e.get("type") == "message_start"]
    deltas = [e["delta"] for s in real for e in s if e.get("type") == "message_delta"]
    # stop_details on message_start and message_delta's delta in 5 of 9 streams, the same 5;
    # the fake streams the other recorded shape (tests/test_dialect_anthropic.py pins its delta)
    assert [("stop_details" in m, "stop_details" in d) for m, d in zip(starts, deltas)].count(
        (True, True)) == 5 == len(starts) - 4
    events = {e["type"]: e for e in _events(ANTHROPIC.encode_stream(Turn(tool_calls=CALL), {}))}
    start, delta = events["message_start"]["message"], events["message_delta"]["delta"]
    assert frozenset(start) in {frozenset(m) for m in starts}
    assert frozenset(delta) in {frozenset(d) for d in deltas}
    assert ("stop_details" in start) == ("stop_details" in delta)
    # usage: cache_creation and service_tier at the start, never in the delta
    assert start["usage"]["cache_creation"] == {"ephemeral_5m_input_tokens": 0,
                                                "ephemeral_1h_input_tokens": 0}
    assert start["usage"]["service_tier"] == "standard"
    assert not {"service_tier", "cache_creation"} & set(events["message_delta"]["usage"])
    assert events["content_block_start"]["content_block"]["caller"] == {"type": "direct"}


def test_anthropic_delta_server_tool_use_only_after_a_server_tool() -> None:
    for i in _load("anthropic"):
        if not (i.response_text and "event:" in i.response_text):
            continue
        chunks = i.sse_chunks()
        server = any(e.get("type") == "content_block_start" and e["content_block"]["type"]
                     in ("server_tool_use", "mcp_tool_use") for e in chunks)
        delta = next(e for e in chunks if e.get("type") == "message_delta")
        assert ("server_tool_use" in delta["usage"]) == server, i.where


def test_anthropic_sdk_reads_stop_details() -> None:
    anthropic = pytest.importorskip("anthropic")
    from anthropic.types import Message, RawMessageDeltaEvent

    body = ANTHROPIC.encode_response(Turn(tool_calls=CALL), {"model": "m"})
    assert Message.model_validate(body).stop_details is None
    delta = next(e for e in _events(ANTHROPIC.encode_stream(Turn(tool_calls=CALL), {}))
                 if e["type"] == "message_delta")
    assert RawMessageDeltaEvent.model_validate(delta).delta.stop_details is None
    assert anthropic.__version__


# -- ErrorReply's type follows the status, in each provider's words -----------------------------

ANTHROPIC_TYPES = {400: "invalid_request_error", 401: "authentication_error",
                   402: "billing_error", 403: "permission_error", 404: "not_found_error",
                   409: "conflict_error", 413: "request_too_large", 422: "invalid_request_error",
                   429: "rate_limit_error", 500: "api_error", 502: "api_error",
                   503: "api_error", 504: "timeout_error", 529: "overloaded_error"}


@pytest.mark.parametrize(("status", "kind"), sorted(ANTHROPIC_TYPES.items()))
def test_anthropic_error_type_follows_the_status(status: int, kind: str) -> None:
    code, body = ANTHROPIC.encode_error(ErrorReply(status=status, message="m"))
    assert (code, body) == (status, {"type": "error", "error": {"type": kind, "message": "m"}})


def test_anthropic_error_types_are_the_sdks_or_the_docs() -> None:
    pytest.importorskip("anthropic")
    from typing import get_args

    from anthropic.types.shared.error_type import ErrorType

    # request_too_large: docs.claude.com/en/api/errors (413, sent by Cloudflare); the rest are
    # the SDK's own ErrorType literals
    assert set(ANTHROPIC_TYPES.values()) - set(get_args(ErrorType)) == {"request_too_large"}


def test_an_explicit_anthropic_type_is_kept() -> None:
    _, body = ANTHROPIC.encode_error(ErrorReply(status=400, type="billing_error"))
    assert body["error"]["type"] == "billing_error"


@pytest.mark.parametrize(("status", "name"), [
    (400, "INVALID_ARGUMENT"), (401, "UNAUTHENTICATED"), (402, "RESOURCE_EXHAUSTED"),
    (403, "PERMISSION_DENIED"),
    (404, "NOT_FOUND"), (409, "ABORTED"), (429, "RESOURCE_EXHAUSTED"), (499, "CANCELLED"),
    (500, "INTERNAL"), (501, "UNIMPLEMENTED"), (503, "UNAVAILABLE"), (504, "DEADLINE_EXCEEDED"),
    (529, "UNKNOWN"),
])
@pytest.mark.parametrize("dialect", [GEMINI, VERTEX], ids=["gemini", "vertex"])
def test_gemini_error_status_follows_the_http_status(dialect: Any, status: int,
                                                     name: str) -> None:
    code, body = dialect.encode_error(ErrorReply(status=status, message="m"))
    assert (code, body) == (status, {"error": {"code": status, "message": "m", "status": name}})


def test_error_reply_default_type_is_not_one_for_every_status() -> None:
    # ErrorReply speaks OpenAI's words by default (the OpenAI dialects send them as they are)
    kinds = {s: ErrorReply(status=s).type for s in (400, 401, 429, 500, 503)}
    assert kinds == {400: "invalid_request_error", 401: "invalid_request_error",
                     429: "requests", 500: "server_error", 503: "server_error"}


# -- Gemini: the ending of a stream and the thoughtSignature ------------------------------------

def _ending(stream: list[dict[str, Any]]) -> str:
    last = stream[-1]["candidates"][0]
    if last["content"]["parts"] in ([{"text": ""}],) or all(
            p.get("text") == "" for p in last["content"]["parts"]):
        return "empty_chunk"
    return "finish_on_last_chunk"


def test_gemini_default_ending_is_the_recorded_majority_and_the_other_a_quirk() -> None:
    shapes = Counter(_ending(s) for s in _streams(_load("gemini")))
    assert shapes == {"empty_chunk": 4, "finish_on_last_chunk": 3}
    majority, minority = (k for k, _ in shapes.most_common())
    for turn in (Turn(tool_calls=CALL), Turn(text="The capital is Paris.")):
        default = _events(GEMINI.encode_stream(turn, {}))
        assert _ending(default) == majority
        assert "finishReason" not in default[0]["candidates"][0] or len(default) == 1
        variant = _events(GEMINI.encode_stream(turn.model_copy(update={"stream": StreamPlan(
            quirks=frozenset({minority}))}), {}))
        assert _ending(variant) == minority
        assert variant[-1]["candidates"][0]["finishReason"] == "STOP"
        assert len(variant) == len(default) - 1
    assert minority in QUIRKS


def test_gemini_signature_follows_the_model_not_the_id() -> None:
    seen: Counter[tuple[str, bool, bool]] = Counter()
    for i in _load("gemini"):
        if "/models/" not in i.path:
            continue  # the OpenAI-compatible route
        version = i.path.split("/models/")[-1].split("-")[1]  # gemini-<version>-...
        parts: list[dict[str, Any]] = []
        if isinstance(i.response_json, dict) and i.response_json.get("candidates"):
            parts = i.response_json["candidates"][0]["content"].get("parts") or []
        elif i.response_text and "data:" in i.response_text:
            parts = [p for c in i.sse_chunks() for p in c["candidates"][0]["content"]["parts"]]
        first = next((p for p in parts if "functionCall" in p), None)
        if first is not None:
            seen[(version, "id" in first["functionCall"], "thoughtSignature" in first)] += 1
    # id-less calls are signed by 2.5 and 3.x (23 of 23); only 2.0 signs nothing
    assert seen == {("2.0", False, False): 8, ("2.5", False, True): 17,
                    ("3", False, True): 6, ("3", True, True): 12, ("3.6", True, True): 2}
    signed_idless = GEMINI.encode_response(Turn(tool_calls=CALL, stream=StreamPlan(
        quirks=frozenset({"no_ids"}))), {})["candidates"][0]["content"]["parts"][0]
    assert "id" not in signed_idless["functionCall"] and "thoughtSignature" in signed_idless
    two_oh = GEMINI.encode_response(Turn(tool_calls=CALL, stream=StreamPlan(
        quirks=frozenset({"no_ids", "no_thought_signature"}))), {})
    assert two_oh["candidates"][0]["content"]["parts"][0] == {
        "functionCall": {"name": "get_capital", "args": {"country": "France"}}}


# -- Vertex and call ids ----------------------------------------------------------------------

def test_google_genai_sends_ids_to_vertex_and_the_fake_takes_them() -> None:
    """Vertex takes functionCall.id / functionResponse.id since its discovery revision 20260921
    (anomalyco/opencode PR #50504, live-verified on v1 and v1beta1), and google-genai 3.6.1
    sends them to Vertex: the vertex fake takes the request with and without them (its earlier
    400 is historical; rechecked 2026-11-25)."""
    pytest.importorskip("google.genai")
    from google.genai import models, types

    call = models._Part_to_vertex(types.Part(function_call=types.FunctionCall(
        id="c1", name="f", args={})).model_dump(exclude_none=True))
    result = models._Part_to_vertex(types.Part(function_response=types.FunctionResponse(
        id="c1", name="f", response={"output": "ok"})).model_dump(exclude_none=True))
    assert call["functionCall"]["id"] == result["functionResponse"]["id"] == "c1"
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]},
                         {"role": "model", "parts": [call]},
                         {"role": "user", "parts": [result]}]}
    assert GEMINI.validate(body) is None
    assert VERTEX.validate(body) is None
    without = json.loads(json.dumps(body).replace('"id": "c1", ', ""))
    assert VERTEX.validate(without) is None


# -- Anthropic JSON answers: usage and tool_use keys are recorded ones ---------------------------

def test_anthropic_json_usage_and_tool_use_keys_are_recorded_ones() -> None:
    real = [i.response_json for i in _load("anthropic") if isinstance(i.response_json, dict)
            and i.response_json.get("type") == "message"]
    uses = Counter(frozenset(b) for m in real for b in m["content"] if b["type"] == "tool_use")
    # 43 of 77 recorded tool_use blocks carry caller (the newer field), the rest predate it
    assert uses == {frozenset({"type", "id", "name", "input", "caller"}): 43,
                    frozenset({"type", "id", "name", "input"}): 34}
    usages = {frozenset(m["usage"]) for m in real}
    assert all({"cache_creation", "service_tier"} <= u for u in usages)
    fake = ANTHROPIC.encode_response(Turn(tool_calls=CALL), {"model": "m"})
    assert frozenset(fake["content"][0]) == uses.most_common(1)[0][0]
    assert frozenset(fake["usage"]) in usages


# -- bad request bodies: a provider's 400, never a crash, never Python's repr --------------------

def _openai_error(message: str, param: str, code: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": param,
                      "code": code}}


OPENAI_TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}


@pytest.mark.parametrize(("function", "message", "code", "rule"), [
    ({}, "Missing required parameter: 'tool_choice.function.name'.",
     "missing_required_parameter", "tool_choice.function.missing"),
    ({"name": None}, "Missing required parameter: 'tool_choice.function.name'.",
     "missing_required_parameter", "tool_choice.function.missing"),
    ({"name": ["f"]}, "Invalid type for 'tool_choice.function.name': expected a string, but got "
     "an array instead.", "invalid_type", "type"),
    ({"name": {"n": "f"}}, "Invalid type for 'tool_choice.function.name': expected a string, but "
     "got an object instead.", "invalid_type", "type"),
])
def test_openai_tool_choice_name_missing_or_not_a_string(function: dict[str, Any], message: str,
                                                         code: str, rule: str) -> None:
    # was "tool 'None' not found in 'tools'" for a missing name, and a TypeError (the fake
    # crashed) for a list or an object. OpenAI refuses it; a service refuses it only when the
    # rule is confirmed for it (or unavoidable), else takes it and notes the breach in OpenAI's
    # words (issue 30)
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [OPENAI_TOOL],
            "tool_choice": {"type": "function", "function": function}}
    openai_error = _openai_error(message, "tool_choice.function.name", code)
    assert get_dialect("openai").validate(body) == Rejection(400, openai_error, rule)
    for name in ("deepseek", "openrouter"):
        dialect = get_dialect(name)
        with noting_breaches() as breaches:
            rejection = dialect.validate(body)
        if dialect.refuses(rule):  # deepseek: a field of the wrong type (deserialize_errors)
            assert rejection is not None and rejection.status == 400, name
            assert (rejection.rule, rejection.message) == (rule, message), name
            own = dialect.encode_error(ErrorReply(status=400, message="m"))[1]
            assert set(rejection.body) == set(own), name  # the service's shape
        else:
            assert rejection is None, (name, rejection)
            assert [b.body for b in breaches] == [openai_error], name
            assert breaches[0].rule == rule, name


@pytest.mark.parametrize(("dialect", "body", "where"), [
    ("openai", {"model": "m", "messages": [{"role": True, "content": "hi"}]}, "messages[0].role"),
    ("openai-responses", {"model": "m", "input": [{"role": True, "content": "hi"}]},
     "input[0].role"),
])
def test_openai_role_that_is_not_a_string_is_a_type_error(dialect: str, body: dict[str, Any],
                                                          where: str) -> None:
    # was "Invalid value: 'True'." (Python's repr of JSON's true)
    rejection = get_dialect(dialect).validate(body)
    assert rejection is not None
    assert rejection.body["error"]["message"] == (
        f"Invalid type for '{where}': expected a string, but got a boolean instead.")


@pytest.mark.parametrize("tool_use_id", [["toolu_1"], {"id": "toolu_1"}, None, 7])
def test_anthropic_tool_use_id_that_is_not_a_string(tool_use_id: Any) -> None:
    body = {"model": "m", "max_tokens": 10, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f",
                                           "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use_id,
                                      "content": "x"}]}]}
    rejection = ANTHROPIC.validate(body)  # a list or an object crashed the fake (TypeError)
    assert rejection is not None and rejection.status == 400
    assert rejection.body["error"]["message"] == (
        "messages.2.content.0.tool_result.tool_use_id: Input should be a valid string")


_GEMINI_OK = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
_PROTO = "type.googleapis.com/google.ai.generativelanguage.v1beta."


@pytest.mark.parametrize(("body", "message"), [
    ({"contents": [{"role": "user", "parts": 5}]},
     f"Invalid value at 'contents[0].parts' ({_PROTO}Part), 5"),
    ({"contents": [{"role": "model", "parts": [{"functionCall": "f"}]}]},
     f"Invalid value at 'contents[0].parts[0].function_call' ({_PROTO}FunctionCall), \"f\""),
    # Google's proto JSON parser's own words for an array there (zed-industries/zed #44875)
    ({"contents": [{"role": "model", "parts": [{"functionCall": []}]}]},
     "Invalid JSON payload received. Unknown name \"functionCall\" at 'contents[0].parts[0]': "
     "Proto field is not repeating, cannot start list."),
    ({"contents": [{"role": "user", "parts": [{"functionResponse": 3}]}]},
     f"Invalid value at 'contents[0].parts[0].function_response' ({_PROTO}FunctionResponse), 3"),
    (dict(_GEMINI_OK, tools=5), f"Invalid value at 'tools' ({_PROTO}Tool), 5"),
    (dict(_GEMINI_OK, tools=[None]), f"Invalid value at 'tools[0]' ({_PROTO}Tool), null"),
    (dict(_GEMINI_OK, tools=[{"functionDeclarations": True}]),
     f"Invalid value at 'tools[0].function_declarations' ({_PROTO}FunctionDeclaration), true"),
    (dict(_GEMINI_OK, tools=[{"functionDeclarations": ["f"]}]),
     f"Invalid value at 'tools[0].function_declarations[0]' ({_PROTO}FunctionDeclaration), "
     "\"f\""),
    (dict(_GEMINI_OK, systemInstruction={"parts": "be brief"}),
     f"Invalid value at 'system_instruction.parts' ({_PROTO}Part), \"be brief\""),
])
@pytest.mark.parametrize("dialect", [GEMINI, VERTEX], ids=["gemini", "vertex"])
def test_gemini_malformed_shapes_are_a_400_not_a_crash(dialect: Any, body: dict[str, Any],
                                                      message: str) -> None:
    rejection = dialect.validate(body)  # each one raised TypeError / AttributeError before
    assert rejection is not None and rejection.status == 400
    assert rejection.body["error"] == {"code": 400, "message": message,
                                       "status": "INVALID_ARGUMENT"}


_VALID = {
    "openai": {"model": "m", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": "x"}],
        "tools": [OPENAI_TOOL], "tool_choice": {"type": "function", "function": {"name": "f"}}},
    "openai-responses": {"model": "m", "input": [
        {"role": "user", "content": "hi"},
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c", "output": "x"}],
        "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}}],
        "tool_choice": {"type": "function", "name": "f"}},
    "anthropic": {"model": "m", "max_tokens": 10, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f",
                                           "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                      "content": "x"}]}],
        "tools": [{"name": "f", "input_schema": {"type": "object"}}],
        "tool_choice": {"type": "tool", "name": "f"}},
    "gemini": {"contents": [
        {"role": "user", "parts": [{"text": "hi"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]}],
        "tools": [{"functionDeclarations": [{"name": "f", "parameters": {"type": "OBJECT"}}]}],
        "systemInstruction": {"parts": [{"text": "be brief"}]}},
}
_VALID["vertex"] = _VALID["gemini"]
#: Ollama's native /api/chat: arguments an object, the result naming its tool
_VALID["ollama"] = {"model": "m", "messages": [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"function": {"name": "f", "arguments": {}}}]},
    {"role": "tool", "tool_name": "f", "content": "x"}], "tools": [OPENAI_TOOL]}
# the services on OpenAI's wire: OpenAI's body, but for what a confirmed rule of the service
# needs (Mistral: call ids of 9 letters and digits; Zhipu: tool_choice auto only)
_VALID["mistral"] = json.loads(json.dumps(_VALID["openai"]).replace('"c"', '"abcDEF123"'))
_VALID["zhipu"] = dict(_VALID["openai"], tool_choice="auto")
for _name in PROVIDERS:
    _VALID.setdefault(_name, _VALID["openai"])
#: the routes of a provider on another wire: (provider, path) -> the body of that wire
_ROUTES = {("ollama", "/v1/chat/completions"): "openai",
           ("deepseek", "/responses"): "openai-responses",
           ("openrouter", "/api/v1/responses"): "openai-responses"}
_GONE = object()


def _mutations(body: Any, path: tuple[Any, ...] = ()) -> Any:
    children = (body.items() if isinstance(body, dict)
                else enumerate(body) if isinstance(body, list) else ())
    for key, value in children:
        for replacement in (None, _GONE, 5, True, "", [], {}):
            yield (*path, key), replacement
        yield from _mutations(value, (*path, key))


def _mutated(body: Any, path: tuple[Any, ...], value: Any) -> Any:
    body = json.loads(json.dumps(body))
    target = body
    for key in path[:-1]:
        target = target[key]
    if value is _GONE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return body


#: (provider, path, body): each provider on its own wire, fed its own valid body and (a fake
#: answers any body) OpenAI's; each route on another wire fed that wire's body
_MUTATED = sorted({(name, None, name) for name in PROVIDERS}
                  | {(name, None, "openai") for name in PROVIDERS}
                  | {(name, path, wire) for (name, path), wire in _ROUTES.items()},
                  key=lambda c: (c[0], c[1] or "", c[2]))


def _routed(name: str, path: str | None) -> Any:
    """The dialect of ``name`` that answers ``path`` (None: its own), as the fake picks it."""
    dialect: Any = get_dialect(name)
    if path is not None:
        dialect = getattr(dialect, "dialect_for", lambda _: dialect)(path)
        assert dialect.route("POST", path), (name, path)  # Ollama: the compat route from now on
    return dialect


@pytest.mark.parametrize(("name", "path", "wire"), _MUTATED,
                         ids=[f"{n}{p or ''}:{w}" for n, p, w in _MUTATED])
def test_every_one_field_mutation_is_answered_without_python_reprs(name: str, path: str | None,
                                                                   wire: str) -> None:
    """Each field of a valid tool-loop body replaced by null, a number, a boolean, an empty
    string, list or object, or dropped: the fake answers (accepts or rejects with the
    provider's 400), never crashes, and never quotes Python's None/True/False as a value. A
    service goes on validating past a breach it takes (issue 30), so every later check meets
    any shape, and a body a route on another wire takes is decoded without a crash. OpenAI's
    own JSON-schema messages do print Python's reprs ("None is not of type
    'object'", sashabaranov/go-openai #432; rossoctl/examples #856, 2026-09), as does
    Anthropic's pydantic ("Input tag 'True' ..."): those are the providers' words and are left
    out here."""
    dialect = _routed(name, path)
    body = _VALID[wire]
    if wire == name or path is not None:
        assert dialect.validate(body) is None
    for field, value in _mutations(body):
        mutated = _mutated(body, field, value)
        with noting_breaches():
            rejection = dialect.validate(mutated)
        if rejection is None and path is not None:
            dialect.decode_request(mutated)  # a body the route takes is read, never a crash
        if rejection is None or "parameters" in field or "input_schema" in field or (
                name == "anthropic" and field[:1] == ("tool_choice",)):
            continue
        text = json.dumps(rejection.body)
        for repr_ in ("'None'", "'True'", "'False'", " None ", "object at 0x"):
            assert repr_ not in text, (field, value, text)

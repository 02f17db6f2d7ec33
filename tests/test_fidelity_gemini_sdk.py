"""Fidelity: the official ``google-genai`` SDK must read what the fake Gemini provider sends.

The fake is served on a loopback port (the SDK uses its own HTTP client setup). Every reply of a
built-in step that applies to Gemini and is something Gemini sends (no error, no cut stream) is
read through ``generate_content`` and ``generate_content_stream``, on ``/v1beta`` and on ``/v1``
(google-genai 3.x calls ``/v1`` by default), with the key in the header and in ``?key=``.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from sdk_fidelity import served_fake

from pytest_toolcall.cases import Step, Turn, default_registry
from pytest_toolcall.providers.fake import FakeProvider
from pytest_toolcall.providers.gemini.dialect import Gemini

genai = pytest.importorskip("google.genai", reason="google-genai is not installed (it is in "
                            "the 'dev' extra: pip install -e '.[dev]')")
types = pytest.importorskip("google.genai.types")


def _realistic(step: Step) -> bool:
    plan = step.reply.stream
    return (step.reply.error is None and plan.error_after is None
            and plan.truncate_after is None)


STEPS = [pytest.param(step, id=f"{case.id}/step{n + 1}")
         for case in default_registry().select(dialect="gemini") if case.contract == "chat"
         for n, step in enumerate(case.steps) if _realistic(step)]


fake, endpoint = served_fake("gemini")


_CLIENTS: dict[tuple[str, str], Any] = {}


def _client(endpoint: Any, version: str) -> Any:
    """One SDK client per endpoint and API version (kept: a dropped client closes its pool)."""
    key = (endpoint.base_url, version)
    if key not in _CLIENTS:
        root = endpoint.base_url.rsplit("/", 1)[0]
        _CLIENTS[key] = genai.Client(api_key=endpoint.api_key, http_options=types.HttpOptions(
            base_url=root, api_version=version, timeout=10_000))
    return _CLIENTS[key]


def _expected(turn: Turn) -> dict[str, Any]:
    ids = Gemini.call_ids(turn)
    calls = [(cid, c.name, Gemini()._parts(Turn(tool_calls=(c,)))[0]["functionCall"]["args"])
             for cid, c in zip(ids, turn.tool_calls)]
    finish = "STOP" if turn.expected_finish() in ("stop", "tool_calls") else None
    return {"text": turn.text or None, "calls": calls, "finish": finish}


def _read(parts: list[Any]) -> tuple[str | None, list[Any], list[bytes]]:
    # the answer's text: a thought summary (thought=True, includeThoughts) is not answer text
    text = "".join(p.text for p in parts if p.text and not p.thought) or None
    calls = [(p.function_call.id, p.function_call.name, p.function_call.args or {})
             for p in parts if p.function_call]
    signatures = [p.thought_signature for p in parts if p.thought_signature]
    return text, calls, signatures


def _assert_blocked(chunks: list[Any], turn: Turn) -> None:
    """A blocked prompt as the SDK reads it: one response (a stream: one chunk), no candidates,
    the block reason in prompt_feedback, the prompt's usage."""
    assert len(chunks) == 1
    response = chunks[0]
    assert not response.candidates and response.prompt_feedback.block_reason == "OTHER"
    assert turn.usage is not None
    assert response.usage_metadata.prompt_token_count == turn.usage.input_tokens
    assert response.usage_metadata.total_token_count == turn.usage.total_tokens


@pytest.mark.parametrize("version", ["v1beta", "v1"])
@pytest.mark.parametrize("step", STEPS)
def test_sdk_reads_every_realistic_reply(step: Step, version: str, fake: FakeProvider,
                                         endpoint: Any) -> None:
    fake.expect(step.reply)
    client = _client(endpoint, version)
    want = _expected(step.reply)
    tools = [types.Tool(function_declarations=[types.FunctionDeclaration(
        name=t.name, description=t.description, parameters_json_schema=t.parameters)
        for t in step.request.tools])] if step.request.tools else None
    config = types.GenerateContentConfig(tools=tools)
    response = client.models.generate_content(model="gemini-2.5-flash", contents="hi",
                                              config=config)
    if "prompt_blocked" in step.reply.stream.quirks:
        _assert_blocked([response], step.reply)
        _assert_blocked(list(client.models.generate_content_stream(
            model="gemini-2.5-flash", contents="hi", config=config)), step.reply)
        return
    text, calls, signatures = _read(response.candidates[0].content.parts)
    assert (text, calls) == (want["text"], want["calls"])
    if want["finish"]:
        assert response.candidates[0].finish_reason == want["finish"]
    if step.reply.usage is not None:
        assert response.usage_metadata.total_token_count == step.reply.usage.total_tokens
    if calls and "no_thought_signature" in step.reply.stream.quirks:
        assert signatures == []  # gemini-2.0-flash signs nothing
    elif calls:
        first_call = next(p for p in Gemini()._parts(step.reply) if "functionCall" in p)
        assert len(signatures) == 1 and base64.b64encode(signatures[0]).decode() == \
            first_call["thoughtSignature"]

    streamed = list(client.models.generate_content_stream(
        model="gemini-2.5-flash", contents="hi", config=config))
    parts = [p for chunk in streamed for p in chunk.candidates[0].content.parts or ()]
    s_text, s_calls, _ = _read(parts)
    assert (s_text, s_calls) == (want["text"], want["calls"])
    assert streamed[-1].candidates[0].finish_reason is not None
    assert fake.exchanges[-1].path.startswith(f"/{version}/models/gemini-2.5-flash:")
    assert fake.exchanges[-1].rejection is None


def test_sdk_surfaces_the_providers_error(fake: FakeProvider, endpoint: Any) -> None:
    from pytest_toolcall.cases import ErrorReply

    fake.expect(Turn(error=ErrorReply(status=429, message="Resource has been exhausted")))
    with pytest.raises(genai.errors.ClientError) as exc:
        _client(endpoint, "v1beta").models.generate_content(model="m", contents="hi")
    assert exc.value.code == 429 and "Resource has been exhausted" in str(exc.value)


def test_sdk_request_with_history_passes_validation(fake: FakeProvider, endpoint: Any) -> None:
    """What the SDK sends for a tool round trip (snake_case fields included) is accepted."""
    fake.expect(Turn(text="Sunny."))
    contents = [
        types.Content(role="user", parts=[types.Part(text="weather?")]),
        types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(
            name="get_weather", args={"city": "Paris"}, id="a1"))]),
        types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
            name="get_weather", id="a1", response={"output": "21C"}))]),
    ]
    response = _client(endpoint, "v1beta").models.generate_content(
        model="gemini-2.5-flash", contents=contents, config=types.GenerateContentConfig(
            tool_config=types.ToolConfig(function_calling_config=types.FunctionCallingConfig(
                mode="ANY", allowed_function_names=["get_weather"])),
            tools=[types.Tool(function_declarations=[types.FunctionDeclaration(
                name="get_weather", parameters_json_schema={"type": "object"})])]))
    assert response.text == "Sunny."
    exchange = fake.exchanges[-1]
    assert exchange.rejection is None and exchange.decoded is not None
    assert exchange.decoded.messages[2].tool_call_id == "a1"
    assert exchange.headers.get("x-goog-api-key") == "<redacted>"

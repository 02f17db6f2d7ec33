"""Fidelity: the official ``openai`` SDK must read what the fake OpenAI provider sends.

The fake is served on a loopback port (the SDK uses its own HTTP stack, not httpx) and the SDK
is created with ``_strict_response_validation=True``: without it the SDK builds response objects
without validation and "the SDK parsed it" would prove little (WIRE.md §0).

Which built-in steps are replayed through the SDK: a step whose reply is *realistic for OpenAI*,
i.e. something api.openai.com itself sends (see :func:`unrealistic`). Excluded, with the reason:

- replies that are errors (scripted status, ``error_after``) or truncated streams: the SDK error
  path has its own tests below;
- stream quirks (``interleave``, ``repeat_id_name``, ``index_*``, ``no_ids``): they reproduce
  *other* servers; ``repeat_id_name`` has its own test proving it breaks the SDK stream helper;
- calls with ``arguments: null``: OpenAI always sends a string (``""`` is real, PR #3502);
- finish reasons OpenAI never sends (``error``, ``other``).

Every remaining step is sent three ways, whatever its ``via``: ``create()``, ``create(stream=True)``
and the stream helper ``stream()`` + ``get_final_completion()``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sdk_fidelity import error_or_cut, other_servers, realistic_steps, served_fake, usage_tokens

from pytest_toolcall.cases import Step, StreamPlan, Turn, default_registry
from pytest_toolcall.providers.fake import FakeProvider
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter

openai = pytest.importorskip(
    "openai", reason="the official openai SDK is not installed (it is in the 'dev' extra: "
    "pip install -e '.[dev]'); the SDK fidelity tests need it")

#: finish reasons the real API sends, as the canonical model spells them (the same words)
OPENAI_FINISH = {"stop", "tool_calls", "length", "content_filter"}
MODES = ("create", "create_stream", "stream_helper")


def unrealistic(step: Step) -> str | None:
    """Why the reply of ``step`` is not something OpenAI sends, or None when it is."""
    why = error_or_cut(step) or other_servers(step, "arguments null (OpenAI always sends a string)")
    if why is None and step.reply.expected_finish() not in OPENAI_FINISH:
        return f"finish_reason {step.reply.expected_finish()!r} is not an OpenAI value"
    return why


REALISTIC, EXCLUDED = realistic_steps("openai", unrealistic)
fake, endpoint = served_fake("openai")


@pytest.fixture(scope="module")
def client(endpoint: Any) -> Iterator[Any]:
    # trust_env=False: a proxy from the environment must not see loopback traffic
    http_client = openai.DefaultHttpxClient(trust_env=False)
    sdk = openai.OpenAI(base_url=endpoint.base_url, api_key=endpoint.api_key,
                        _strict_response_validation=True, max_retries=0, timeout=10,
                        http_client=http_client)
    yield sdk
    sdk.close()


@pytest.fixture(scope="module")
def reference() -> Iterator[OpenAIChatAdapter]:
    adapter = OpenAIChatAdapter("http://unused.invalid/v1", "unused")  # only build_body is used
    yield adapter
    adapter.client.close()


def _body(step: Step, reference: OpenAIChatAdapter) -> dict[str, Any]:
    """The request the reference adapter would send: the SDK is asked to send the same."""
    return reference.build_body(step.request, stream=False)


def _expected_calls(turn: Turn) -> list[tuple[str, str, str | None]]:
    # a scripted call without an id gets call_001, call_002, ... from the fake (ids are by position)
    return [(c.id or f"call_{i + 1:03d}", c.name, c.arguments_text())
            for i, c in enumerate(turn.tool_calls)]


def _usage(turn: Turn) -> tuple[int, int, int] | None:
    u = turn.usage
    return None if u is None else (u.input_tokens or 0, u.output_tokens or 0, u.total_tokens or 0)


def _run(client: Any, body: dict[str, Any], mode: str) -> dict[str, Any]:
    """Send ``body`` through the SDK in ``mode``; what the SDK made of the answer."""
    if mode == "create":
        completion = client.chat.completions.create(**body)
        assert completion.object == "chat.completion"
        message, choice = completion.choices[0].message, completion.choices[0]
        return {"text": message.content,
                "calls": [(c.id, c.function.name, c.function.arguments)
                          for c in message.tool_calls or ()],
                "types": {c.type for c in message.tool_calls or ()},
                "finish": choice.finish_reason, "usage": usage_tokens(completion.usage)}
    if mode == "create_stream":
        chunks = list(client.chat.completions.create(
            **body, stream=True, stream_options={"include_usage": True}))
        assert all(c.object == "chat.completion.chunk" for c in chunks)
        text, calls, finish = [], {}, None  # calls: index -> [id, name, [pieces]]
        for chunk in chunks[:-1]:
            assert chunk.usage is None, "usage comes only in the last chunk"
            (choice,) = chunk.choices
            if choice.delta.content:
                text.append(choice.delta.content)
            for frag in choice.delta.tool_calls or ():
                if frag.index not in calls:
                    # OpenAI sends id, type and name once, on a call's first fragment
                    assert frag.id and frag.type == "function" and frag.function.name
                    calls[frag.index] = [frag.id, frag.function.name, []]
                else:
                    assert frag.id is None and frag.function.name is None, frag
                calls[frag.index][2].append(frag.function.arguments or "")
            finish = choice.finish_reason or finish
        last = chunks[-1]
        assert last.choices == [], "with include_usage the last chunk has choices: []"
        assert sorted(calls) == list(range(len(calls))), "indices must be dense from 0"
        return {"text": "".join(text) or None,
                "calls": [(i, n, "".join(p)) for i, n, p in (calls[k] for k in sorted(calls))],
                "types": {"function"} if calls else set(),
                "finish": finish, "usage": usage_tokens(last.usage)}
    with client.chat.completions.stream(**body, stream_options={"include_usage": True}) as s:
        completion = s.get_final_completion()
    message, choice = completion.choices[0].message, completion.choices[0]
    return {"text": message.content or None,
            "calls": [(c.id, c.function.name, c.function.arguments)
                      for c in message.tool_calls or ()],
            "types": {c.type for c in message.tool_calls or ()},
            "finish": choice.finish_reason, "usage": usage_tokens(completion.usage)}


def test_the_exclusion_rule_keeps_the_baseline_and_drops_the_quirks() -> None:
    kept = {p.id for p in REALISTIC}
    dropped = dict(EXCLUDED)
    for must in ("wire.single_call/step1", "wire.parallel_calls/step1",
                 "wire.second_turn_passthrough/step2", "wire.zero_args_empty_string/step1",
                 "stream.parallel_sequential/step1", "stream.bytewise/step1"):
        assert must in kept
    assert dropped["stream.id_name_repeated/step1"].startswith("quirks")
    assert dropped["wire.zero_args_null/step1"].startswith("arguments null")
    assert dropped["wire.provider_error/step1"] == "error reply"
    assert dropped["stream.truncated/step1"] == "error reply"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("step", REALISTIC)
def test_sdk_reads_what_the_turn_scripted(client: Any, fake: FakeProvider,
                                          reference: OpenAIChatAdapter, step: Step,
                                          mode: str) -> None:
    turn = step.reply
    fake.expect(turn)
    before = len(fake.exchanges)
    body = _body(step, reference)
    got = _run(client, body, mode)

    (exchange,) = fake.exchanges[before:]
    assert exchange.accepted, exchange.rejection
    sent = {k: v for k, v in exchange.json.items() if k not in ("stream", "stream_options")}
    assert sent == body, "the SDK did not send the request it was given"
    assert exchange.streamed is (mode != "create")

    assert got["calls"] == _expected_calls(turn)
    assert got["types"] == ({"function"} if turn.tool_calls else set())
    assert got["text"] == turn.text
    assert got["finish"] == turn.expected_finish()
    assert got["usage"] == _usage(turn)


def _repeated_turn() -> Turn:
    return default_registry()["stream.id_name_repeated"].steps[0].reply


def test_repeat_id_name_breaks_the_sdk_stream_helper(client: Any, fake: FakeProvider,
                                                     reference: OpenAIChatAdapter) -> None:
    """WIRE.md §0: the helper concatenates every string field; a repeated id doubles."""
    turn = _repeated_turn()
    assert "repeat_id_name" in turn.stream.quirks
    step = default_registry()["stream.id_name_repeated"].steps[0]
    fake.expect(turn)
    got = _run(client, _body(step, reference), "stream_helper")
    expected = _expected_calls(turn)
    assert len(got["calls"]) == len(expected)
    for (got_id, got_name, got_args), (cid, name, args) in zip(got["calls"], expected):
        assert got_id != cid and got_id.startswith(cid + cid), got_id
        assert got_id == cid * (got_id.count(cid))
        assert got_name.startswith(name + name), got_name
        assert got_args == args  # the arguments themselves are concatenated correctly

    # the control: the same turn without the quirk is read exactly
    fake.expect(turn.model_copy(update={"stream": StreamPlan(fragment_size=3)}))
    assert _run(client, _body(step, reference), "stream_helper")["calls"] == expected


def test_scripted_400_raises_bad_request_with_the_fake_message(
        client: Any, fake: FakeProvider, reference: OpenAIChatAdapter) -> None:
    step = default_registry()["wire.provider_error"].steps[0]
    error = step.reply.error
    assert error is not None and error.status == 400
    fake.expect(step.reply)
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(**_body(step, reference))
    assert info.value.status_code == 400
    assert error.message in str(info.value)
    assert info.value.code == error.code == "context_length_exceeded"
    assert info.value.type == "invalid_request_error"


def test_scripted_400_on_a_stream_request_raises_bad_request(client: Any, fake: FakeProvider,
                                                             reference: OpenAIChatAdapter) -> None:
    step = default_registry()["stream.provider_error"].steps[0]
    assert step.reply.error is not None
    fake.expect(step.reply)
    with pytest.raises(openai.BadRequestError) as info:
        list(client.chat.completions.create(**_body(step, reference), stream=True))
    assert step.reply.error.message in str(info.value)
    assert info.value.param == "tools[0].function.name"


def test_mid_stream_error_event_raises_api_error(client: Any, fake: FakeProvider,
                                                 reference: OpenAIChatAdapter) -> None:
    step = default_registry()["stream.mid_stream_error"].steps[0]
    plan = step.reply.stream
    assert plan.error_after is not None
    fake.expect(step.reply)
    seen = []
    with pytest.raises(openai.APIError) as info:
        for chunk in client.chat.completions.create(**_body(step, reference), stream=True,
                                                    stream_options={"include_usage": True}):
            seen.append(chunk)
    assert plan.error.message in str(info.value)
    assert len(seen) == plan.error_after + 1  # role chunk + error_after events, then the error

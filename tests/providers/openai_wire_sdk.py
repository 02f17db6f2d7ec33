"""What the tests of the providers on the openai wire (deepseek, mistral, openrouter, zhipu, groq,
cerebras, together, vllm, lmstudio, llamacpp, xai, fireworks) share: the fake's SSE events
as JSON, and the official openai SDK reading the answers the fake sends (``create``,
``create`` with ``stream=True``, the ``stream()`` helper).

Each ``tests/providers/test_<folder>.py`` keeps its own test functions and calls these with what
is its own (the dialect's name, the adapter class, the call-id function, the reasoning field).
The openai SDK is imported for the callers (``pytest.importorskip`` in :func:`openai_and_sdk`),
never when this module is. Their negative controls and reference runs are in
``test_controls.py`` (``provider_kit.py``).
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pytest_toolcall.cases import Turn, default_registry
from pytest_toolcall.providers.fake import FakeProvider, serve

MODES = ["create", "create_stream", "stream_helper"]


# -- the official openai SDK on the fake ---------------------------------------------------------

def sdk_steps(dialect: str, *, quirks: frozenset[str] = frozenset(),
              keep: Callable[[Any], bool] = lambda step: True) -> list[Any]:
    """The steps of the dialect's cases whose answer the SDK can read whole: no error, no cut,
    no quirk but ``quirks``, arguments on every call, a finish it knows; ``keep`` drops more."""
    out = []
    for case in default_registry().select(dialect=dialect):
        for n, step in enumerate(case.steps):
            turn, plan = step.reply, step.reply.stream
            if not keep(step):
                continue
            if (step.expect == "error" or turn.error or plan.error_after is not None
                    or plan.truncate_after is not None or plan.quirks - quirks
                    or any(x.arguments is None for x in turn.tool_calls)
                    or turn.expected_finish() not in ("stop", "tool_calls", "length")):
                continue
            out.append(pytest.param(step, id=f"{case.id}/step{n + 1}"))
    return out


def each_answer(dialect: str, **steps: Any) -> Callable[[Any], Any]:
    """Parametrise a test over the dialect's steps the SDK can read (:func:`sdk_steps`, with
    ``steps`` its options) and the three ways of reading each (:data:`MODES`): ``step`` and
    ``mode``, test ids ``<case>/step<n>-<mode>``."""
    def mark(test: Any) -> Any:
        test = pytest.mark.parametrize("step", sdk_steps(dialect, **steps))(test)
        return pytest.mark.parametrize("mode", MODES)(test)
    return mark


def expect(sdk: tuple[Any, FakeProvider], step: Any, adapter: type) -> tuple[Any, Turn, Any]:
    """The fake of the ``sdk`` fixture set to send the step's answer: (the client, that turn,
    the request body ``adapter`` builds for the step)."""
    client, fake = sdk
    fake.expect(step.reply)
    return client, step.reply, request_body(adapter, step)


def openai_client(ep: Any, *, strict: bool = True) -> Any:
    """The official SDK on ``ep``: no retries, no proxy, strict response validation or not."""
    import openai

    extra = {"_strict_response_validation": True} if strict else {}
    return openai.OpenAI(base_url=ep.base_url, api_key=ep.api_key, max_retries=0, timeout=10,
                         **extra, http_client=openai.DefaultHttpxClient(trust_env=False))


def openai_and_sdk(dialect: str) -> tuple[Any, Any]:
    """The openai SDK (the module is skipped without it) and the module's ``sdk`` fixture
    (:func:`sdk_fixture`): ``openai, sdk = openai_and_sdk("xai")``."""
    return pytest.importorskip("openai"), sdk_fixture(dialect)


def sdk_fixture(dialect: str) -> Any:
    """The module's ``sdk`` fixture: (a strict client, the fake it talks to), over a socket."""

    @pytest.fixture(name="sdk", scope="module")
    def sdk() -> Iterator[tuple[Any, FakeProvider]]:
        fake = FakeProvider(dialect)
        with serve(fake) as ep:
            client = openai_client(ep)
            yield client, fake
            client.close()

    return sdk


@dataclasses.dataclass
class Answer:
    """What the SDK read: the calls (id, name, arguments), the extra fields of the message (or
    of each delta; None from the stream helper, which keeps only OpenAI's fields), the content
    of the message (or of each delta), the role of each delta, the usage, the last finish."""

    streamed: bool
    calls: list[tuple[Any, Any, Any]]
    extras: list[dict[str, Any]] | None
    contents: list[Any]
    roles: list[Any]
    usage: Any
    finish: Any


def _whole(done: Any, *, extras: bool) -> Answer:
    message = done.choices[0].message
    return Answer(streamed=False, calls=[(x.id, x.function.name, x.function.arguments)
                                         for x in message.tool_calls or ()],
                  extras=[message.model_extra or {}] if extras else None,
                  contents=[message.content], roles=[message.role], usage=done.usage,
                  finish=done.choices[0].finish_reason)


def read_answer(client: Any, body: dict[str, Any], mode: str) -> Answer:
    """The answer to ``body`` as the SDK reads it in ``mode`` (one of :data:`MODES`); a stream's
    call fragments joined by index."""
    if mode == "create":
        return _whole(client.chat.completions.create(**body), extras=True)
    if mode == "stream_helper":
        with client.chat.completions.stream(**body) as s:
            done = s.get_final_completion()
        return _whole(done, extras=False)
    chunks = list(client.chat.completions.create(**body, stream=True))
    return stream_answer(chunks, usage=chunks[-1].usage,
                         finish=chunks[-1].choices[0].finish_reason)


def stream_answer(chunks: list[Any], *, usage: Any, finish: Any) -> Answer:
    """The SDK's chunks of a stream read delta by delta, call fragments joined by index; the
    usage and the finish are the caller's (where they ride differs from provider to provider)."""
    slots: dict[int, list[Any]] = {}
    extras, contents, roles = [], [], []
    for ch in chunks:
        for choice in ch.choices:
            extras.append(choice.delta.model_extra or {})
            contents.append(choice.delta.content)
            roles.append(choice.delta.role)
            for f in choice.delta.tool_calls or ():
                slot = slots.setdefault(f.index, [f.id, f.function.name, []])
                slot[2].append(f.function.arguments or "")
    return Answer(streamed=True, calls=[(s[0], s[1], "".join(s[2]))
                                        for _, s in sorted(slots.items())],
                  extras=extras, contents=contents, roles=roles, usage=usage, finish=finish)


def last_finish(chunks: list[Any]) -> Any:
    """The last finish_reason any choice of the stream gave, or None."""
    return next((c.finish_reason for ch in reversed(chunks) for c in reversed(ch.choices)
                 if c.finish_reason), None)


def last_usage(chunks: list[Any]) -> Any:
    """The usage of the last chunk of the stream that carried one, or None."""
    return next((ch.usage for ch in reversed(chunks) if ch.usage), None)


def sse_chunks(events: list[bytes]) -> list[dict[str, Any]]:
    """The JSON of each ``data:`` event of a stream the fake encoded, ``[DONE]`` last."""
    assert events[-1] == b"data: [DONE]\n\n"
    return [json.loads(e[len(b"data: "):]) for e in events[:-1]]


def wanted_calls(turn: Turn, call_ids: Callable[[Turn], list[str]]) -> list[tuple[str, str, str]]:
    """The calls the fake sends for ``turn``: (id, name, arguments text)."""
    return [(i, x.name, x.arguments_text()) for i, x in zip(call_ids(turn), turn.tool_calls)]


@functools.cache
def _body_builder(adapter: type) -> Any:
    """One instance of ``adapter`` per test process, used for ``build_body`` only (which reads
    nothing but its constructor arguments): constructing a reference adapter builds its own two
    httpx clients, each loading the CA bundle (~35 ms apiece), and this ran once per parametrised
    SDK test, about 1,500 times a suite run."""
    return adapter("http://unused.invalid", "k")


def request_body(adapter: type, step: Any) -> dict[str, Any]:
    """The JSON body the reference adapter builds for the step's request (no stream)."""
    return _body_builder(adapter).build_body(step.request, stream=False)


def wanted_reasoning(turn: Turn) -> str | None:
    """The reasoning text the fake sends for ``turn`` (all its parts joined), or None."""
    return "".join(r.text or "" for r in turn.reasoning) if turn.reasoning else None


def reasoning_read(got: Answer, field: str, turn: Turn) -> str | None:
    """The reasoning the SDK read in ``field``: the message's, the deltas' pieces joined (None
    when the turn has none), or the wanted one from the stream helper (it keeps only OpenAI's
    fields)."""
    if got.extras is None:
        return wanted_reasoning(turn)
    if got.streamed:
        pieces = [e[field] for e in got.extras if isinstance(e.get(field), str)]
        return "".join(pieces) if turn.reasoning else None
    return got.extras[0].get(field)


def assert_usage_read(answer: Answer, turn: Turn) -> None:
    if turn.usage is not None:
        assert answer.usage is not None and answer.usage.total_tokens == turn.usage.total_tokens


def assert_sdk_reads_reasoning_field(client: Any, fake: FakeProvider, step: Any, mode: str, *,
                                     adapter: type, call_ids: Callable[[Turn], list[str]],
                                     field: str = "reasoning_content") -> None:
    """The SDK reads the calls, the usage and the reasoning text in ``field`` (a string on the
    message, pieces on the deltas) of the step's answer."""
    turn = step.reply
    fake.expect(turn)
    body = request_body(adapter, step)
    want_calls = wanted_calls(turn, call_ids)
    got = read_answer(client, body, mode)
    if got.streamed:
        assert got.finish == turn.expected_finish()
    assert got.calls == want_calls
    assert reasoning_read(got, field, turn) == wanted_reasoning(turn)
    assert_usage_read(got, turn)

"""``stream.truncated`` cuts a stream where a truncation can be detected (issue 28, part 5).

On the Chat Completions wire the answer ends with the chunk that carries ``finish_reason``; only
the usage chunk and ``data: [DONE]`` follow. No SDK tells a missing [DONE] from the end of the
stream: openai 3.57.0 and groq 1.7.0 (``_streaming.py``, ``Stream.__stream__``: ``if
sse.data.startswith("[DONE]"): break``, and the loop ends the same way at EOF), mistralai 3.7.0
(``utils/eventstreaming.py``: the sentinel only ends the loop early), zai-sdk 0.2.3. Until
2026-11-28 the cut of ``stream.truncated`` fell after the finish chunk under groq, mistral, xai
and zhipu (their calls come whole, so the stream is short): only [DONE] was missing, the answer
was whole, and an adapter that checks ``finish_reason`` was failed for returning it. The cut now
falls before the event that ends the answer on every dialect (``cut_before_finish``).

The real SDKs read the cut stream here: a stream cut where only [DONE] is missing reads exactly
like the whole stream (so no case may demand an error there), the case's cut hands over no
finish reason, an adapter over the SDK that checks it passes, and the same adapter without the
check fails with ``error.surfaced``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pytest_toolcall.cases import default_registry
from pytest_toolcall.core.errors import ConformanceFailure, ProviderError
from pytest_toolcall.core.model import (
    ChatRequest,
    ChatResponse,
    StreamDone,
    ToolCall,
    ToolCallComplete,
)
from pytest_toolcall.providers import REGISTRY
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.reference import reference_profile
from pytest_toolcall.run.runner import run_case
from pytest_toolcall.shims._base import encoder

CASE = default_registry()["stream.truncated"]
TURN = CASE.steps[0].reply
BODY = {"stream": True, "stream_options": {"include_usage": True}, "model": "m"}

#: the event that ends the answer, per wire: a choice's finish_reason (chat completions), the
#: stop reason / message_stop (anthropic), response.completed (responses), finishReason
#: (gemini), done: true (ollama)
_ENDS = re.compile(rb'"finish_reason": ?"|"stop_reason": ?"|message_stop|response\.completed'
                   rb'|"finishReason": ?"|"done": ?true')


@pytest.mark.parametrize("dialect", sorted(REGISTRY))
def test_the_cut_falls_before_the_answer_ends(dialect: str) -> None:
    d = get_dialect(dialect)
    whole = d.encode_stream(TURN.model_copy(update={"stream": TURN.stream.model_copy(
        update={"truncate_after": None})}), BODY)
    cut = d.encode_stream(TURN, BODY)
    assert any(_ENDS.search(e) for e in whole), "the whole stream ends its answer"
    assert cut and not any(_ENDS.search(e) for e in cut), (
        f"{dialect}: the cut stream still carries the end of the answer: {cut[-1][:200]!r}")
    assert cut == whole[:len(cut)], "a cut is a prefix of the whole stream"


# -- the real SDKs -------------------------------------------------------------------------------

def _groq(ep: Any) -> Callable[[dict[str, Any]], Iterator[Any]]:
    groq = pytest.importorskip("groq")
    client = groq.Groq(base_url=ep.base_url.removesuffix("/openai/v1"), api_key=ep.api_key,
                       max_retries=0, http_client=ep.client)
    return lambda body: iter(client.chat.completions.create(**body, stream=True))


def _mistral(ep: Any) -> Callable[[dict[str, Any]], Iterator[Any]]:
    client_mod = pytest.importorskip("mistralai.client")
    client = client_mod.Mistral(api_key=ep.api_key, server_url=ep.base_url.removesuffix("/v1"),
                                client=ep.httpx2_client(), timeout_ms=10_000)

    def chunks(body: dict[str, Any]) -> Iterator[Any]:
        return (event.data for event in client.chat.stream(**body))
    return chunks


def _openai(ep: Any) -> Callable[[dict[str, Any]], Iterator[Any]]:
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=ep.base_url, api_key=ep.api_key, max_retries=0,
                           http_client=ep.client)
    return lambda body: iter(client.chat.completions.create(**body, stream=True))


#: dialect -> the provider's own SDK (openai's for xai: it has no SDK of its own in the dev extra)
SDKS: dict[str, Callable[[Any], Callable[[dict[str, Any]], Iterator[Any]]]] = {
    "groq": _groq, "mistral": _mistral, "xai": _openai, "openai": _openai}


def _body(dialect: str, request: ChatRequest) -> dict[str, Any]:
    body = encoder(dialect).build_body(request, stream=True)
    body.pop("stream", None)
    if dialect == "groq":  # the groq SDK has no stream_options parameter
        body["extra_body"] = {"stream_options": body.pop("stream_options", None)}
    if dialect == "mistral":
        body.pop("stream_options", None)
    return body


class ChunkReader:
    """A hand-written adapter over an SDK's raw chunks: calls joined by index, and the answer
    is complete only when a chunk carried its finish_reason (``check_finish``)."""

    def __init__(self, dialect: str, chunks: Callable[[dict[str, Any]], Iterator[Any]],
                 check_finish: bool = True) -> None:
        self.dialect, self.chunks, self.check_finish = dialect, chunks, check_finish

    def complete(self, request: ChatRequest) -> ChatResponse:  # pragma: no cover - unused
        raise NotImplementedError

    def stream(self, request: ChatRequest) -> Iterator[Any]:
        slots: dict[int, list[Any]] = {}
        finish = None
        for chunk in self.chunks(_body(self.dialect, request)):
            for choice in chunk.choices or ():
                for f in choice.delta.tool_calls or ():
                    slot = slots.setdefault(f.index, [None, None, []])
                    slot[0] = slot[0] or f.id
                    slot[1] = slot[1] or f.function.name
                    arguments = f.function.arguments
                    slot[2].append(arguments if isinstance(arguments, str)
                                   else json.dumps(arguments or {}))
                finish = choice.finish_reason or finish
        if finish is None and self.check_finish:
            raise ProviderError("the stream ended before the answer did (no finish_reason)")
        calls = [ToolCall.from_raw(id=s[0], name=s[1], arguments="".join(s[2]))
                 for _, s in sorted(slots.items())]
        for call in calls:
            yield ToolCallComplete(call=call)
        yield StreamDone(finish_reason="tool_calls" if calls else "stop")


def _run(dialect: str, check_finish: bool) -> ConformanceFailure | None:
    ep = in_process_endpoint(FakeProvider(dialect))
    try:
        adapter = ChunkReader(dialect, SDKS[dialect](ep), check_finish)
        run_case(CASE, adapter, reference_profile(dialect).model_copy(
            update={"compatible_with": frozenset()}), ep)
    except ConformanceFailure as failure:
        return failure
    finally:
        ep.close()
    return None


@pytest.mark.parametrize("dialect", sorted(SDKS))
def test_an_adapter_that_checks_the_finish_reason_passes(dialect: str) -> None:
    assert _run(dialect, check_finish=True) is None


@pytest.mark.parametrize("dialect", sorted(SDKS))
def test_control_an_adapter_that_trusts_the_end_of_the_stream_fails(dialect: str) -> None:
    failure = _run(dialect, check_finish=False)
    assert failure is not None and failure.clause == "error.surfaced", failure


@pytest.mark.parametrize("dialect", ["groq", "mistral"])
def test_a_missing_done_alone_reads_like_the_whole_stream(dialect: str,
                                                         monkeypatch: Any) -> None:
    """The evidence for the rule: the SDK hands over the same chunks, and no error, whether
    [DONE] came or not; only a cut before the finish chunk is visible to its caller."""
    ep = in_process_endpoint(FakeProvider(dialect))
    try:
        read = SDKS[dialect](ep)
        request = CASE.steps[0].request
        whole = TURN.model_copy(update={"stream": TURN.stream.model_copy(
            update={"truncate_after": None})})

        def dumped() -> list[Any]:
            return [c.model_dump() for c in read(_body(dialect, request))]

        ep.fake.expect(whole)
        with_done = dumped()
        events = ep.fake.dialect.encode_stream(whole, BODY)
        assert events[-1] == b"data: [DONE]\n\n"
        ep.fake.expect(whole)
        original = ep.fake.dialect.encode_stream
        with monkeypatch.context() as m:
            m.setattr(ep.fake.dialect, "encode_stream",
                      lambda turn, body: original(turn, body)[:-1])
            without_done = dumped()
        assert without_done == with_done
        assert any(ch["choices"] and ch["choices"][0]["finish_reason"] for ch in with_done)
        ep.fake.expect(TURN)
        cut = dumped()
        assert not any(ch["choices"] and ch["choices"][0]["finish_reason"] for ch in cut)
    finally:
        ep.close()

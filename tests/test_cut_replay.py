"""``stream.any_chunking`` replays hypothesis' derandomized cut points (issue 9: a case near
its floor).

The case cuts its stream where hypothesis says, derandomized (a fixed seed, the digest of the
runner's ``explore``, and no example database), so every run with the same number of examples
draws the same cut points: the first passing run keeps them and later runs (the other interface,
the next provider of the matrix, the next session in a warm process) replay them without
hypothesis' engine. A failure in a replay hands the search back to hypothesis, which finds the
failing cuts again and shrinks them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import controls_openai as c  # tests/providers/ is on sys.path: a read taken to hold whole lines
import pytest

from pytest_toolcall.run import runner
from pytest_toolcall.cases import default_registry
from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.providers.fake.provider import Endpoint
from pytest_toolcall.core.model import ChatRequest
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter

CASE = default_registry()["stream.any_chunking"]
EXAMPLES = max(s.reply.stream.hypothesis_examples for s in CASE.steps)


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> dict[int, Any]:
    drawn: dict[int, Any] = {}
    monkeypatch.setattr(runner, "_CUTS", drawn)
    return drawn


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    ep = in_process_endpoint(FakeProvider("openai"))
    yield ep
    ep.close()


class Recording(OpenAIChatAdapter):
    """The reference, noting how the fake cut each stream it read."""

    endpoint: Endpoint
    cuts: list[tuple[int, ...]]

    def stream(self, request: ChatRequest) -> Iterator[Any]:
        yield from super().stream(request)
        self.cuts.append(tuple(len(c) for c in self.endpoint.exchanges[-1].chunks))


def _recording(endpoint: Endpoint) -> Recording:
    adapter = Recording.from_endpoint(endpoint)
    adapter.endpoint, adapter.cuts = endpoint, []
    return adapter


def test_the_search_draws_the_same_cuts_every_time(fresh: dict[int, Any],
                                                  endpoint: Endpoint) -> None:
    # the premise of the replay: derandomized, the search is the same whatever ran before
    run_once = runner.run_case
    run_once(CASE, OpenAIChatAdapter.from_endpoint(endpoint), Profile(), endpoint,
             interfaces=["sync"])
    first = fresh.pop(EXAMPLES)
    run_once(CASE, OpenAIChatAdapter.from_endpoint(endpoint), Profile(), endpoint,
             interfaces=["sync"])
    assert fresh[EXAMPLES] == first
    assert len(first) == EXAMPLES
    assert len(set(first)) > 1  # the cut points differ from one example to the next


def test_a_passing_run_is_replayed_without_the_engine(
        fresh: dict[int, Any], endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch) -> None:
    searching = _recording(endpoint)
    runner.run_case(CASE, searching, Profile(), endpoint, interfaces=["sync"])

    def no_search(*args: Any) -> None:
        raise AssertionError("hypothesis ran again for a passing adapter")

    monkeypatch.setattr(runner, "_search_cuts", no_search)
    replaying = _recording(endpoint)
    runner.run_case(CASE, replaying, Profile(), endpoint, interfaces=["sync"])
    # every stream was cut as it was in the search, in the same order
    assert replaying.cuts == searching.cuts
    assert len(replaying.cuts) == EXAMPLES


def test_a_failing_replay_hands_the_search_back_to_hypothesis(
        fresh: dict[int, Any], endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch) -> None:
    runner.run_case(CASE, OpenAIChatAdapter.from_endpoint(endpoint), Profile(), endpoint,
                    interfaces=["sync"])
    assert fresh
    searched: list[int] = []
    search = runner._search_cuts

    def counting(*args: Any) -> Any:
        searched.append(1)
        return search(*args)

    monkeypatch.setattr(runner, "_search_cuts", counting)
    with pytest.raises(ConformanceFailure) as failure:
        runner.run_case(CASE, c.ReadIsWholeLines.from_endpoint(endpoint), Profile(), endpoint,
                        interfaces=["sync"])
    assert searched == [1]
    assert failure.value.clause == "adapter.raised"
    # hypothesis shrank it to a single cut, which the message names
    assert failure.value.message.endswith("(stream cut at byte offsets "
                                          f"[{len(endpoint.exchanges[0].chunks[0])}])")
    assert len(endpoint.exchanges[0].chunks) == 2

"""The property case replays hypothesis' derandomized histories (issue 13: the matrix's speed).

``history.random_histories`` draws its stored histories with hypothesis, derandomized (a fixed
seed, no example database), so every run draws the same ones: the first passing run keeps them
and later runs (the matrix's other providers) replay them without hypothesis' engine. A failure
in a replay hands the search back to hypothesis, which finds and shrinks the failing history.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolcall.run import looprun
from pytest_toolcall.cases import default_registry
from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.core.model import UserMessage
from pytest_toolcall.reference.history import ReferenceHistoryBuilder

CASE = next(c for c in default_registry() if c.id == "history.random_histories")
EXAMPLES = CASE.history.property_examples


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> dict[int, Any]:
    drawn: dict[int, Any] = {}
    monkeypatch.setattr(looprun, "_DRAWN", drawn)
    return drawn


def test_the_search_draws_the_same_histories_every_time(fresh: dict[int, Any]) -> None:
    # the premise of the replay: derandomized, the search is the same whatever ran before
    looprun.run_history(CASE, ReferenceHistoryBuilder(), Profile())
    first = fresh.pop(EXAMPLES)
    looprun.run_history(CASE, ReferenceHistoryBuilder(), Profile())
    assert fresh[EXAMPLES] == first
    assert len(first) >= EXAMPLES


def test_a_passing_run_is_replayed_without_the_engine(
        fresh: dict[int, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    looprun.run_history(CASE, ReferenceHistoryBuilder(), Profile())
    seen: list[tuple[Any, ...]] = []

    class Recording(ReferenceHistoryBuilder):
        def build(self, stored: Any) -> Any:
            seen.append(tuple(stored))
            return super().build(stored)

    def no_search(*args: Any) -> None:
        raise AssertionError("hypothesis ran again for a passing builder")

    monkeypatch.setattr(looprun, "_explore", no_search)
    looprun.run_history(CASE, Recording(), Profile())
    # every drawn history was built (and its result rebuilt), in the order they were drawn
    assert seen[::2] == list(fresh[EXAMPLES])


class _FailsOnLongHistories(ReferenceHistoryBuilder):
    """Raises on a history of four or more questions: only some drawn histories have them."""

    raised_on: list[Any] = []

    def build(self, stored: Any) -> Any:
        if sum(isinstance(m, UserMessage) for m in stored) >= 4:
            self.raised_on = list(stored)
            raise RuntimeError("too long")
        return super().build(stored)


def test_a_failing_replay_hands_the_search_back_to_hypothesis(
        fresh: dict[int, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    looprun.run_history(CASE, ReferenceHistoryBuilder(), Profile())
    assert fresh
    searched: list[int] = []
    explore = looprun._explore

    def counting(*args: Any) -> Any:
        searched.append(1)
        return explore(*args)

    monkeypatch.setattr(looprun, "_explore", counting)
    builder = _FailsOnLongHistories()
    with pytest.raises(ConformanceFailure) as failure:
        looprun.run_history(CASE, builder, Profile())
    assert failure.value.clause == "history.raised"
    assert searched == [1]
    # hypothesis shrank it (its last run replays the shrunk example): four plain turns, no
    # system prompt, no call (the drawn histories that failed first were longer and messier)
    assert [type(m).__name__ for m in builder.raised_on] == [
        "UserMessage", "AssistantMessage"] * 4

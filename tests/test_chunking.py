"""Chunking policies: every policy keeps the bytes; each cuts where it says."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_toolcall.cases import StreamPlan
from pytest_toolcall.providers.fake.chunking import cut, cut_at

EVENTS = [b'data: {"a":"Z\xc3\xbcrich"}\n\n', b"", b'data: {"b":2}\n\n', b"data: [DONE]\n\n"]
DATA = b"".join(EVENTS)


@pytest.mark.parametrize("plan", [
    StreamPlan(), StreamPlan(chunking="bytewise"), StreamPlan(chunking="seeded", seed=3),
    StreamPlan(chunking="explicit", boundaries=(1, 5, 9)), StreamPlan(chunking="hypothesis"),
], ids=["realistic", "bytewise", "seeded", "explicit", "hypothesis"])
def test_every_policy_preserves_the_bytes(plan: StreamPlan) -> None:
    chunks = cut(EVENTS, plan)
    assert b"".join(chunks) == DATA
    assert all(chunks), "no empty chunk is ever sent"


def test_realistic_is_one_event_per_chunk_dropping_empty_events() -> None:
    assert cut(EVENTS, StreamPlan()) == [EVENTS[0], EVENTS[2], EVENTS[3]]


def test_bytewise_gives_one_byte_chunks_even_inside_utf8() -> None:
    chunks = cut(EVENTS, StreamPlan(chunking="bytewise"))
    assert len(chunks) == len(DATA)
    assert all(len(c) == 1 for c in chunks)
    assert b"\xc3" in chunks and b"\xbc" in chunks


def test_seeded_is_deterministic_per_seed() -> None:
    first = cut(EVENTS, StreamPlan(chunking="seeded", seed=7))
    assert first == cut(EVENTS, StreamPlan(chunking="seeded", seed=7))
    others = [cut(EVENTS, StreamPlan(chunking="seeded", seed=s)) for s in range(8, 12)]
    assert any(o != first for o in others)
    # about one cut per 7 bytes: far more than the realistic 3, far fewer than bytewise
    assert 3 < len(first) < len(DATA) // 2


def test_explicit_cuts_exactly_at_the_boundaries() -> None:
    chunks = cut(EVENTS, StreamPlan(chunking="explicit", boundaries=(4, 2)))
    assert chunks == [DATA[:2], DATA[2:4], DATA[4:]]


def test_passed_boundaries_win_over_the_plan() -> None:
    plan = StreamPlan(chunking="explicit", boundaries=(1,))
    assert cut(EVENTS, plan, boundaries=[3]) == [DATA[:3], DATA[3:]]
    # even over a policy that does not cut at boundaries itself
    assert cut(EVENTS, StreamPlan(), boundaries=[3]) == [DATA[:3], DATA[3:]]
    assert cut(EVENTS, StreamPlan(chunking="bytewise"), boundaries=[]) == [DATA]


def test_cut_at_ignores_out_of_range_and_repeated_offsets() -> None:
    data = b"abcdef"
    assert cut_at(data, [0, 3, 3, 6, 99, -2]) == [b"abc", b"def"]
    assert cut_at(data, []) == [data]
    assert cut_at(b"", [1, 2]) == []


def test_hypothesis_plan_without_boundaries_sends_one_chunk() -> None:
    assert cut(EVENTS, StreamPlan(chunking="hypothesis")) == [DATA]


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=200), boundaries=st.lists(st.integers(-10, 260), max_size=40))
def test_any_boundaries_preserve_the_bytes(data: bytes, boundaries: list[int]) -> None:
    chunks = cut_at(data, boundaries)
    assert b"".join(chunks) == data
    assert all(chunks)
    inner = sorted({b for b in boundaries if 0 < b < len(data)})
    assert len(chunks) == (len(inner) + 1 if data else 0)


@settings(max_examples=100, deadline=None)
@given(events=st.lists(st.binary(max_size=40), max_size=8), seed=st.integers(0, 2**32),
       chunking=st.sampled_from(["realistic", "bytewise", "seeded", "explicit"]),
       boundaries=st.lists(st.integers(0, 300), max_size=20))
def test_every_policy_preserves_any_events(events: list[bytes], seed: int, chunking: str,
                                            boundaries: list[int]) -> None:
    plan = StreamPlan.model_validate({"chunking": chunking, "seed": seed,
                                      "boundaries": tuple(boundaries)})
    assert b"".join(cut(events, plan)) == b"".join(events)

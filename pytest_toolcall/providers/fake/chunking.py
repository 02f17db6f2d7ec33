"""Chunking policies: where a stream's bytes are cut into transport chunks.

Real networks cut streams anywhere: inside an SSE line, inside a UTF-8 sequence, between the two
newlines that end an event. A parser that only works when each read holds whole events is broken;
these policies make that visible.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from pytest_toolcall.cases import StreamPlan

__all__ = ["cut", "cut_at"]


def cut_at(data: bytes, boundaries: Sequence[int]) -> list[bytes]:
    """``data`` cut at the given offsets (out-of-range and repeated offsets are ignored)."""
    points = sorted({b for b in boundaries if 0 < b < len(data)})
    pieces, start = [], 0
    for point in points:
        pieces.append(data[start:point])
        start = point
    pieces.append(data[start:])
    return [p for p in pieces if p]


def cut(events: Sequence[bytes], plan: StreamPlan, boundaries: Sequence[int] | None = None) -> list[bytes]:
    """Transport chunks for ``events`` under ``plan``.

    ``realistic``: one event per chunk, as providers flush them. ``bytewise``: one byte per chunk.
    ``seeded``: random cuts from ``plan.seed`` (about one per 7 bytes). ``explicit`` and
    ``hypothesis``: cuts at ``boundaries`` (the plan's, or those passed in, which win).
    """
    if plan.chunking == "realistic" and boundaries is None:
        return [e for e in events if e]
    data = b"".join(events)
    if plan.chunking == "bytewise" and boundaries is None:
        return [data[i : i + 1] for i in range(len(data))]
    if plan.chunking == "seeded" and boundaries is None:
        rng = random.Random(plan.seed)
        points = [i for i in range(1, len(data)) if rng.random() < 1 / 7]
        return cut_at(data, points)
    return cut_at(data, boundaries if boundaries is not None else plan.boundaries)

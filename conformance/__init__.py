"""The shared conformance suite: cases as data, one module per family.

``wire``: what a non-streaming adapter sends and how it reads answers. ``stream``: tool calls in
fragments, cut anywhere, with the quirks of real servers. The catalogue in ``docs/cases.md`` is
generated from these modules.
"""

from __future__ import annotations

from pytest_toolcall.cases import Case

FAMILIES = ("wire", "stream")


def builtin_cases() -> list[Case]:
    """Every built-in case, family by family."""
    from . import stream, wire

    return [*wire.CASES, *stream.CASES]

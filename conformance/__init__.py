"""The shared conformance suite: cases as data, one module per family.

``wire``: what a non-streaming adapter sends and how it reads answers. ``stream``: tool calls in
fragments, cut anywhere, with the quirks of real servers. ``loop``: a tool loop under failure
(all-failure rounds, permanent failures, mixed batches, caps). ``history``: rebuilding
provider-ready messages from a stored history (orphans, dedupe, missing ids). The catalogue in ``docs/cases.md`` is
generated from these modules.
"""

from __future__ import annotations

from pytest_toolcall.cases import Case

FAMILIES = ("wire", "stream", "loop", "history")


def builtin_cases() -> list[Case]:
    """Every built-in case, family by family."""
    from . import history, loop, stream, wire

    return [*wire.CASES, *stream.CASES, *loop.CASES, *history.CASES]

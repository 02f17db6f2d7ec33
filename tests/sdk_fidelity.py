"""What the SDK fidelity tests (``tests/test_fidelity_*_sdk.py``) share: the built-in steps whose
reply the real API could send, each with the reason when it could not, and the fake served on a
loopback port (the official SDKs bring their own HTTP stack).

Each test module keeps its own rule of what its API sends (``unrealistic``) and its own client.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pytest_toolcall.cases import Step, default_registry
from pytest_toolcall.providers.fake import FakeProvider, serve


def usage_tokens(usage: Any) -> tuple[int, int, int] | None:
    """(prompt, completion, total) tokens of an SDK's usage object (OpenAI's names, which the
    Mistral and Z.ai SDKs share); None without one."""
    return None if usage is None else (usage.prompt_tokens, usage.completion_tokens,
                                       usage.total_tokens)


def error_or_cut(step: Step) -> str | None:
    """Why no API sends the step's reply as an answer to read: an error reply, or a stream that
    breaks off or errs mid-way (the SDKs' error paths have tests of their own); else None."""
    turn, plan = step.reply, step.reply.stream
    if step.expect == "error" or turn.error is not None:
        return "error reply"
    if plan.error_after is not None or plan.truncate_after is not None:
        return "mid-stream error or truncation"
    return None


def other_servers(step: Step, null_arguments: str = "arguments null") -> str | None:
    """Why the step's reply is another server's on the openai wires: a stream quirk, or a call
    whose arguments are null (said as ``null_arguments``); else None."""
    if step.reply.stream.quirks:
        return f"quirks of other servers: {sorted(step.reply.stream.quirks)}"
    if any(c.arguments is None for c in step.reply.tool_calls):
        return null_arguments
    return None


def realistic_steps(dialect: str, unrealistic: Callable[[Step], str | None], *,
                    chat_only: bool = False) -> tuple[list[Any], list[tuple[str, str]]]:
    """The steps of the dialect's built-in cases (``chat_only``: of its chat cases), as
    ``pytest.param`` with the id ``<case>/step<n>``, whose reply ``unrealistic`` finds nothing
    against; and the others, as (id, reason)."""
    kept, dropped = [], []
    for case in default_registry().select(dialect=dialect):
        if chat_only and case.contract != "chat":
            continue
        for n, step in enumerate(case.steps):
            why, name = unrealistic(step), f"{case.id}/step{n + 1}"
            if why:
                dropped.append((name, why))
            else:
                kept.append(pytest.param(step, id=name))
    return kept, dropped


def served_fake(dialect: str) -> tuple[Any, Any]:
    """A module's ``fake`` and ``endpoint`` fixtures: the dialect's fake, served on loopback once
    for the module (``fake, endpoint = served_fake("openai")``)."""

    @pytest.fixture(name="fake", scope="module")
    def fake() -> FakeProvider:
        return FakeProvider(dialect)

    @pytest.fixture(name="endpoint", scope="module")
    def endpoint(fake: FakeProvider) -> Iterator[Any]:
        with serve(fake) as ep:
            yield ep

    return fake, endpoint

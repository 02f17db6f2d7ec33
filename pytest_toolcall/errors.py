"""Every exception pytest-toolcall raises or asks adapters to raise.

Two families never mix, so a reader always knows who is at fault::

    ToolcallError                  the kit could not run: fix your setup (or report a kit bug)
    ├── UsageError                 bad option, fixture, profile or adapter shape
    ├── CaseDefinitionError        a malformed conformance case (yours or a plugin's)
    └── KitError                   the kit itself failed; this is a pytest-toolcall bug

    ConformanceFailure             your implementation broke a clause (an AssertionError)

    ProviderError                  what an adapter raises when the provider answered with an error
    └── StreamError                an error event arrived in the middle of a stream
        └── IncompleteStreamError  the stream ended before the provider said it was done

Adapters are free to raise their own exception types; the ``ProviderError`` family is offered so
that reference adapters and shims have a typed, documented choice.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CaseDefinitionError",
    "ConformanceFailure",
    "IncompleteStreamError",
    "KitError",
    "ProviderError",
    "StreamError",
    "ToolcallError",
    "UsageError",
]


class ToolcallError(Exception):
    """Base of the errors that mean "the kit could not run", never "your adapter is wrong"."""


class UsageError(ToolcallError):
    """The kit was configured or called wrongly: an option, a fixture, a profile, an adapter shape."""


class CaseDefinitionError(ToolcallError):
    """A conformance case is malformed; raised when the case is registered or collected."""

    def __init__(self, case_id: str, problem: str) -> None:
        self.case_id = case_id
        self.problem = problem
        super().__init__(f"case {case_id!r} is malformed: {problem}")


class KitError(ToolcallError):
    """pytest-toolcall itself failed while running a case. Please report it with the case id."""


class ConformanceFailure(AssertionError):
    """The implementation under test broke a clause of the contract.

    ``clause`` is a stable dotted name (``stream.tool_call.id_once``), ``expected`` and ``got``
    describe the difference in the user's terms, ``hint`` names the likely cause and fix.
    ``trace`` is filled in by the runner with the ladder of each tool call.
    """

    def __init__(
        self,
        clause: str,
        message: str,
        *,
        expected: Any = None,
        got: Any = None,
        hint: str | None = None,
    ) -> None:
        self.clause = clause
        self.message = message
        self.expected = expected
        self.got = got
        self.hint = hint
        self.case_id: str | None = None
        self.provider: str | None = None
        self.interface: str | None = None
        self.trace: str | None = None
        super().__init__(f"[{clause}] {message}")

    def render(self) -> str:
        """The failure block shown by pytest: clause, difference, hint, trace."""
        # the first line is what pytest's short summary shows: make it the verdict
        lines = [f"[{self.clause}] {self.message}"]
        where = f"conformance failure in case {self.case_id}" if self.case_id else "conformance failure"
        if self.provider:
            where += f" ({self.provider}"
            where += f", {self.interface} interface)" if self.interface else ")"
        lines.append(f"  {where}")
        if self.expected is not None:
            lines.append(f"  expected: {_short(self.expected)}")
        if self.expected is not None or self.got is not None:
            # "got: None" says the value was missing; leaving the line out says nothing
            lines.append(f"  got:      {_short(self.got)}")
        if self.hint:
            lines.append(f"  hint:     {self.hint}")
        if self.trace:
            lines.append("  trace (where each tool call went):")
            lines.extend("    " + line for line in self.trace.splitlines())
        return "\n".join(lines)


class ProviderError(Exception):
    """The provider answered with an error; ``message`` holds the provider's own words."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        type: str | None = None,
        code: str | None = None,
        param: str | None = None,
        body: Any = None,
    ) -> None:
        self.message = message
        self.status = status
        self.type = type
        self.code = code
        self.param = param
        self.body = body
        prefix = f"provider error {status}" if status is not None else "provider error"
        super().__init__(f"{prefix}: {message}")


class StreamError(ProviderError):
    """The provider sent an error in the middle of a stream."""


class IncompleteStreamError(StreamError):
    """The stream ended before the provider's end marker: the response is incomplete."""


def _short(value: Any, limit: int = 400) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"

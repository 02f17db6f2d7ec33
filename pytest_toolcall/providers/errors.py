"""How providers really answer when they fail: the error kinds, and each provider's answer.

A case scripts ``ErrorReply(kind=..., retry_after=...)``; the fake answers with the provider's
own error for that kind: status, headers (the delay where the provider puts it) and body, word
for word. Each provider's answers, with their sources and dates, are in its folder's
``errors.py`` (``providers/<folder>/errors.py``), and its dialect class serves them as
``error_table(kind, delay)``. A service's dialect subclasses its wire's, so a plugin's provider
answers with its wire's errors unless its class gives its own ``error_table``.
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.cases import ERROR_KINDS  # kind -> what it is (cases name them)
from pytest_toolcall.core.errors import UsageError

__all__ = ["ERROR_KINDS", "RETRYABLE_KINDS", "error_reply", "kinds_for"]

#: kinds where the same request may succeed later
RETRYABLE_KINDS = frozenset({"rate_limit", "server_error", "overloaded"})


def _table(provider: str, kind: str, delay: int | None) -> tuple[int, dict[str, str], Any] | None:
    from pytest_toolcall.providers.base import get_dialect

    try:
        dialect = get_dialect(provider)
    except UsageError:
        return None  # not a provider: it has no errors
    return dialect.error_table(kind, delay)


def kinds_for(provider: str) -> tuple[str, ...]:
    """The error kinds this provider has (those its ``error_table`` answers)."""
    return tuple(k for k in ERROR_KINDS if _table(provider, k, 1) is not None)


def error_reply(provider: str, kind: str,
                retry_after: int | None = None) -> tuple[int, dict[str, str], Any]:
    """``(status, headers, body)`` of the provider's ``kind`` error; ``retry_after`` (seconds)
    goes where the provider puts its delay. A kind the provider does not have is a KeyError."""
    found = _table(provider, kind, retry_after)
    if found is None:
        raise KeyError(f"{provider} has no {kind!r} error; it has {kinds_for(provider)}")
    return found

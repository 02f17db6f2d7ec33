"""What the tests of the dialects' request rules share (``tests/test_dialect_*.py``): the rules a
dialect module names, and a rejection asserted to the letter."""

from __future__ import annotations

import inspect
import re
from types import ModuleType
from typing import Any


def rules_named(module: ModuleType) -> set[str]:
    """The rules a dialect module names in its source (each ``rule="..."``); rules it builds
    from arguments are the caller's to add."""
    return set(re.findall(r'rule="([a-z_.]+)"', inspect.getsource(module)))


def assert_rejects_exactly(dialect: Any, request_body: Any, rule: str,
                           expected: dict[str, Any]) -> None:
    """``dialect`` refuses ``request_body`` under ``rule`` with a 400 whose body is ``expected``
    to the letter, its message the error's."""
    rejection = dialect.validate(request_body)
    assert rejection is not None, f"{rule} not enforced"
    assert (rejection.rule, rejection.status) == (rule, 400)
    assert dict(rejection.body) == expected
    assert rejection.message == expected["error"]["message"]

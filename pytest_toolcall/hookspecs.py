"""Hooks that pytest-toolcall offers to conftest files and plugins."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy
import pytest

if TYPE_CHECKING:
    from collections.abc import Iterable

    from .cases import Case

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_toolcall_cases(config: pytest.Config) -> Iterable[Case]:
    """Return extra conformance cases; they join the built-in suite and run the same way.

    Example (``conftest.py``)::

        from pytest_toolcall.cases import make_case, Step, Turn
        def pytest_toolcall_cases(config):
            return [make_case(id="mine.my_case", title=..., why=..., steps=..., checks=...)]
    """

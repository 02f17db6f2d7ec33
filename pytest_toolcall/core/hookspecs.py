"""Hooks that pytest-toolcall offers to conftest files and plugins."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy
import pytest

if TYPE_CHECKING:
    from collections.abc import Iterable

    from pytest_toolcall.cases import Case
    from pytest_toolcall.providers import Provider

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_toolcall_cases(config: pytest.Config) -> Iterable[Case]:
    """Return extra conformance cases; they join the built-in suite and run the same way.

    Example (``conftest.py``)::

        from pytest_toolcall.cases import make_case, Step, Turn
        def pytest_toolcall_cases(config):
            return [make_case(id="mine.my_case", title=..., why=..., steps=..., checks=...)]
    """


@hookspec
def pytest_toolcall_providers(config: pytest.Config) -> Iterable[Provider]:
    """Return extra providers (an in-house gateway, a service the kit does not know): each a
    :class:`pytest_toolcall.providers.Provider` with its wire, facts and quirks, and optionally
    the dialect class its fake plays and its reference adapter. They join
    ``--toolcall-provider`` (``all`` included) and ``Profile.compatible_with``.

    Example (``conftest.py``)::

        from pytest_toolcall.providers.openai.dialect import OpenAIChat
        from pytest_toolcall.providers import Provider

        class AcmeGateway(OpenAIChat):
            name = "acme"
            def route(self, method, path):
                return method == "POST" and path == "/llm/v2/chat/completions"

        def pytest_toolcall_providers(config):
            return [Provider(name="acme", dialect="openai", family="openai", fake=AcmeGateway)]

    See docs/providers.md (Adding your own provider).
    """

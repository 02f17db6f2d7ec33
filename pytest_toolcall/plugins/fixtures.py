"""The kit's fixtures: ``toolcall_adapter``, ``toolcall_loop``, ``toolcall_history``,
``toolcall_structured``, ``toolcall_profile``, ``toolcall_endpoint``, ``toolcall_provider``,
``toolcall_case`` and ``toolcall_tools``. Each is thin: the default builders are in ``suite.py``
(a suite item fills these fixtures itself when nothing overrides them, docs/architecture.md).
Loaded by ``plugins/core.py`` (its ``SUB_PLUGINS``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.plugin import providers
from pytest_toolcall.plugins.core import _transport


@pytest.fixture
def toolcall_provider(request: pytest.FixtureRequest) -> str:
    """The provider (dialect) name of this item: 'openai', ..."""
    from pytest_toolcall.plugins.suite import PROVIDER_KEY

    name = request.node.stash.get(PROVIDER_KEY, None)
    if name is None:
        chosen = providers(request.config)
        name = chosen[0] if chosen else "openai"
    return name


@pytest.fixture
def toolcall_case(request: pytest.FixtureRequest) -> Any:
    """The conformance case of this suite item."""
    from pytest_toolcall.plugins.suite import CASE_KEY
    from pytest_toolcall.core.errors import UsageError

    case = request.node.stash.get(CASE_KEY, None)
    if case is None:
        raise UsageError("the toolcall_case fixture only exists inside suite items")
    return case


@pytest.fixture
def toolcall_endpoint(request: pytest.FixtureRequest, toolcall_provider: str,
                      toolcall_cassette_dir: Path,
                      toolcall_cassette_config: dict[str, Any]) -> Iterator[Any]:
    """Where the adapter sends requests: base_url, api_key, httpx clients, the fake provider.
    Live items under --toolcall-live get the real service (recording) or the cassette
    (replaying, network blocked) instead."""
    # the live branch lives in cassettes_plugin.py; one fixture rather than an override there
    # of this one: every fixture costs each suite item a setup and a teardown (issue 9)
    from pytest_toolcall.plugins.cassettes import live_endpoint

    live = live_endpoint(request, toolcall_provider, toolcall_cassette_dir,
                         toolcall_cassette_config)
    if live is not None:
        with live as endpoint:
            yield endpoint
        return
    from pytest_toolcall.plugins.suite import default_endpoint

    if _transport(request.config) == "loopback":
        from pytest_toolcall.providers.fake import FakeProvider, serve

        with serve(FakeProvider(toolcall_provider)) as endpoint:
            yield endpoint
        return
    endpoint = default_endpoint(toolcall_provider)
    yield endpoint
    endpoint.close()


@pytest.fixture
def toolcall_adapter(pytestconfig: pytest.Config, toolcall_endpoint: Any) -> Any:
    """The adapter under test. Override it in conftest.py to test yours; the default is the
    shim set with --toolcall-adapter, else the built-in reference adapter of the provider."""
    from pytest_toolcall.plugins.suite import default_adapter

    return default_adapter(pytestconfig, toolcall_endpoint)


@pytest.fixture
def toolcall_loop(toolcall_profile: Any) -> Any:
    """The tool loop under test. Override it in conftest.py to test yours; the default is the
    reference loop, configured from the profile's loop policy."""
    from pytest_toolcall.plugins.suite import default_loop

    return default_loop(toolcall_profile)


@pytest.fixture
def toolcall_structured(toolcall_profile: Any) -> Any:
    """The structured output (tool -> json -> text fallback) under test. Override it to test
    yours; the default is the reference implementation."""
    from pytest_toolcall.plugins.suite import default_structured

    return default_structured()


@pytest.fixture
def toolcall_history(toolcall_profile: Any) -> Any:
    """The history builder under test. Override it to test yours; the default is the reference
    builder, configured from the profile's history policy."""
    from pytest_toolcall.plugins.suite import default_history

    return default_history(toolcall_profile)


@pytest.fixture
def toolcall_tools() -> Iterator[Any]:
    """Scripted tools for your own tests: ``toolcall_tools.executor(ScriptedTool(...), ...)``
    gives an Executor that records every execution; hung calls are released at teardown."""
    from pytest_toolcall.cases.tools import ToolKit

    kit = ToolKit()
    yield kit
    kit.release_all()


@pytest.fixture
def toolcall_profile(request: pytest.FixtureRequest, toolcall_provider: str) -> Any:
    """What the implementation under test claims (a Profile or a dict). Override it to declare
    yours; the default is the reference's profile for the kit's reference implementations, and
    for yours one that claims nothing you have not declared (issue 28)."""
    from pytest_toolcall.plugins.suite import default_profile, kit_subject

    return default_profile(toolcall_provider, kit_subject(request.node))

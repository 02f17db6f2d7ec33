"""The kit's modules, imported once into the process of the kit's own tests.

A pytester run in this process (``runpytest_inprocess``, ``inline_run``, ``runpytest`` in its
default in-process mode) drops at its end every module it imported itself (pytester's snapshot
of ``sys.modules``). The plugin imports none of the kit until a session asks for it
(``pytest_toolcall/plugin.py``), so in a test module that imports little of the kit each run
imported all of it again (about 240 modules: the kit's, pydantic's and jsonschema's, and
pytest's rewrite of the kit's; 0.5 to 1 s of CPU a run, measured 2026-11-28 on
tests/test_plugin_compat.py, this project's 2-core machine). Imported here before any run, they
stay, as tests/test_plugin.py does by hand. What a run executes is the same code: a session of
the whole suite had most of these modules already, from other test modules' collection.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from typing import Any

import hypothesis.strategies  # noqa: F401 - the kit's stream checks draw with it
import pytest

import pytest_toolcall
from pytest_toolcall.cases import default_registry

#: the plugin modules a session registers with ``import_plugin`` (pytest_toolcall/plugin.py
#: CORE, plugins/core.py SUB_PLUGINS): left to each run, which imports and assertion-rewrites
#: them itself (imported here, each run would warn "Module already imported so cannot be
#: rewritten", a warning in the outcomes the tests read)
PLUGIN_MODULES = ("pytest_toolcall.plugins.core", "pytest_toolcall.plugins.fixtures",
                  "pytest_toolcall.plugins.summary", "pytest_toolcall.plugins.report",
                  "pytest_toolcall.plugins.cassettes")


def import_the_kit() -> None:
    """Every module of the package but :data:`PLUGIN_MODULES` (the shims' libraries stay
    unimported: each shim imports its library when it is used) and the conformance cases
    (``default_registry``)."""
    for module in pkgutil.walk_packages(pytest_toolcall.__path__, "pytest_toolcall."):
        if module.name not in PLUGIN_MODULES and not module.name.endswith(".__main__"):
            importlib.import_module(module.name)
    default_registry()
    imported = [name for name in PLUGIN_MODULES if name in sys.modules]
    assert not imported, f"{imported} imported with the kit: PLUGIN_MODULES is out of date"


def libraries_fixture(*names: str) -> Any:
    """A module-scoped fixture, ``_libraries_imported``, importing each of ``names`` that is
    installed (where one is not, the tests that need it skip as before, naming it).

    For the libraries a test module's pytester runs import, or the fixtures of its tests
    (``short_client_backoff``): imported after the test's pytester took its snapshot of
    ``sys.modules``, they were dropped at the test's end and imported again by the next test
    (the openai and anthropic SDKs and a framework: 3 to 6 s of CPU a test, measured
    2026-11-28 on tests/test_loop_shim_smolagents.py, this project's 2-core machine), and
    each dropped copy stayed in memory. A module-scoped fixture is set up before any
    function-scoped one (pytester's), and only where a test of the module runs: collecting
    the module imports none of them."""

    @pytest.fixture(scope="module", name="_libraries_imported")
    def _libraries_imported() -> None:
        for name in names:
            try:
                importlib.import_module(name)
            except ImportError:
                continue

    return _libraries_imported


import_the_kit()

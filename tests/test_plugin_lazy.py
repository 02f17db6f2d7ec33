"""The plugin costs nothing until asked (issue 9): the entry point imports nothing but pytest and
names; the kit loads when a session asks for it, and only then."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from background import Job, ahead

from pytest_toolcall.core import _names

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("pydantic", "httpx", "hypothesis", "vcr", "jsonschema", "pytest_toolcall.plugins.core",
         "pytest_toolcall.core.model", "pytest_toolcall.plugins.suite")


def test_the_entry_point_imports_nothing_heavy() -> None:
    code = ("import sys; import pytest_toolcall.plugin; "
            f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=REPO)
    assert done.stdout.strip() == "", f"the entry point imported: {done.stdout.strip()}"


def test_provider_names_agree_with_the_dialect_registry() -> None:
    from pytest_toolcall.providers.base import DIALECT_NAMES

    assert _names.PROVIDERS == DIALECT_NAMES


def test_every_provider_is_one_folder_and_every_folder_a_provider() -> None:
    """Issue 34: a provider's facts, dialect and reference adapter live in its folder, and the
    names the options offer are exactly the folders (``--help`` reads the names without
    importing the kit, so the list is kept in ``core/_names.py`` and checked here)."""
    from pytest_toolcall import providers, reference
    from pytest_toolcall.providers.base import get_dialect

    root = REPO / "pytest_toolcall" / "providers"
    folders = {p.parent.name for p in root.glob("*/facts.py")}
    assert folders == {providers.folder(n) for n in _names.PROVIDERS}
    for name in _names.PROVIDERS:
        here = root / providers.folder(name)
        assert {"__init__.py", "facts.py", "dialect.py", "reference.py"} <= \
            {p.name for p in here.iterdir()}, name
        assert providers.REGISTRY[name].name == name
        assert type(get_dialect(name)).__module__ == f"{providers.__name__}.{here.name}.dialect"
        assert reference._adapter_class(name).__module__ == \
            f"{providers.__name__}.{here.name}.reference"


_PROBE = """
import sys

def test_probe(request):
    loaded = request.config.pluginmanager.has_plugin("pytest_toolcall.plugins.core")
    print(f"KIT-LOADED={loaded} MODEL-IMPORTED={'pytest_toolcall.core.model' in sys.modules}")
"""


#: --strict-markers must accept the kit's markers in a session that never loads the kit
_MARKED = """
import pytest

@pytest.mark.toolcall_known_gap("wire.*", reason="r")
def test_marked():
    pass
"""


def _loaded(result: pytest.RunResult) -> tuple[bool, bool]:
    line = next(text for text in result.outlines if "KIT-LOADED=" in text)
    return "KIT-LOADED=True" in line, "MODEL-IMPORTED=True" in line


def test_an_unrelated_session_does_not_load_the_kit(pytester: pytest.Pytester) -> None:
    """In a process of its own: nothing of the kit may be imported. The same session checks
    that --strict-markers accepts the kit's markers in a session that never loads the kit (it
    was a session of its own, test_markers_are_known_without_the_kit: merged, issue 34)."""
    pytester.makepyfile(test_probe=_PROBE, test_marked=_MARKED)
    result = pytester.runpytest_subprocess("-s", "-p", "no:cacheprovider", "--strict-markers")
    assert _loaded(result) == (False, False), "the kit was loaded (or imported)"
    result.assert_outcomes(passed=2)  # test_marked.py: the kit's marker is known


# In-process sessions from here on, where only the session's plugins are asserted (the kit's
# core plugin registered or not): a session's plugin manager is its own, and the entry point
# decides in it as in a process of its own. What needs a fresh process (nothing of the kit
# imported, --help, -p no:toolcall) runs in one.
@pytest.mark.parametrize("how", ["option", "ini", "conftest-fixture", "conftest-hook"])
def test_a_session_that_asks_loads_the_kit(pytester: pytest.Pytester, how: str) -> None:
    pytester.makepyfile(test_probe=_PROBE)
    args = ["-s", "-p", "no:cacheprovider"]
    if how == "option":
        args.append("--toolcall-cases=no-such-case")
    elif how == "ini":
        pytester.makeini("[pytest]\ntoolcall_transport = loopback\n")
    elif how == "conftest-fixture":
        pytester.makeconftest("import pytest\n\n@pytest.fixture\ndef toolcall_profile():\n"
                              "    return {}\n")
    else:
        pytester.makeconftest("def pytest_toolcall_cases(config):\n    return []\n")
    result = pytester.runpytest_inprocess(*args)
    result.assert_outcomes(passed=1)
    assert _loaded(result)[0], result.stdout.str()


def test_a_test_that_requests_a_toolcall_fixture_gets_it(pytester: pytest.Pytester) -> None:
    """No option, no conftest: the fixture request alone loads the kit, before the test runs."""
    pytester.makepyfile(test_tools="""
        from pytest_toolcall.cases.tools import ToolKit

        def test_tools(toolcall_tools):
            assert isinstance(toolcall_tools, ToolKit)

        def test_provider(toolcall_provider):
            assert toolcall_provider == "openai"
    """)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_help_lists_every_option_without_loading_the_kit(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_probe=_PROBE)
    result = pytester.runpytest_subprocess("--help")
    text = result.stdout.str()
    for option in ("--toolcall-provider", "--toolcall-report", "--toolcall-live",
                   "--toolcall-command", "--toolcall-snapshot-update", "toolcall_known_gaps"):
        assert option in text
    assert "pytest-toolcall" in text


def test_no_toolcall_switches_it_all_off(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_probe=_PROBE)
    result = pytester.runpytest_subprocess("-p", "no:toolcall", "--toolcall-provider=openai")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unrecognized arguments: --toolcall-provider=openai" in result.stderr.str()


def _load_bench(where: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    # --runs 1 --no-warm-up: one round, kept (--quick alone: a warm-up round, dropped, and two
    # more), each figure printed all the same; this checks the script, its figures are noise on
    # a shared machine anyway, so it may run ahead, beside other tests (tests/background.py)
    return subprocess.run([sys.executable, str(REPO / "bench" / "bench_plugin_load.py"),
                           "--quick", "--runs", "1", "--no-warm-up", "--json",
                           str(where / "f.json")], env=dict(env), capture_output=True,
                          text=True, timeout=600, check=False, cwd=where)


@ahead(lambda: Job("the plugin-load benchmark's quick mode", _load_bench))
def test_the_benchmark_runs_in_quick_mode(ahead_run: tuple[Any, Path]) -> None:
    done, tmp_path = ahead_run
    assert done.returncode == 0, done.stdout + done.stderr
    for label in ("without the plugin (-p no:toolcall)", "with the plugin installed, unused",
                  "plugin cost when unused:", "target <= 15 ms", "the kit asked for",
                  "in a bare pytest"):
        assert label in done.stdout
    import json

    figures = json.loads((tmp_path / "f.json").read_text())
    assert figures["quick"] is True and figures["runs"] == 1 and figures["warm_up"] is False

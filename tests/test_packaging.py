"""How the kit is installed: the built-in suite lives under the plugin's own import name.

The cases are kept in the repository's ``conformance/`` folder and import as
``pytest_toolcall.conformance`` (a wheel carries them inside the package, see ``pyproject.toml``;
a source checkout serves them through ``pytest_toolcall/core/_layout.py``). A user's project may have a
package called ``conformance`` of its own: it must neither break collection nor be shadowed.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

import pytest_toolcall.conformance as suite
from pytest_toolcall.core import _layout

ROOT = Path(__file__).resolve().parent.parent


def test_suite_imports_under_the_plugin_namespace() -> None:
    assert suite.__name__ == "pytest_toolcall.conformance"
    assert suite.builtin_cases(), "the built-in suite is empty"
    # every case module is a submodule of the namespaced package, none of a top-level one
    modules = {check.__module__ for case in suite.builtin_cases() for check in case.checks}
    assert "pytest_toolcall.conformance.wire" in modules
    assert not [m for m in modules if m.startswith("conformance")], modules
    assert not [m for m in sys.modules if m == "conformance" or m.startswith("conformance.")]


def test_the_kit_never_imports_a_top_level_conformance() -> None:
    offenders = []
    for path in sorted((ROOT / "pytest_toolcall").rglob("*.py")) + sorted(
            (ROOT / "tests").rglob("*.py")) + sorted((ROOT / "bench").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#")[0].strip()
            if code.startswith(("import conformance", "from conformance")):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {code}")
    assert not offenders, "import the suite as pytest_toolcall.conformance:\n" + "\n".join(offenders)


def test_wheel_maps_the_folder_into_the_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wheel = config["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert "conformance" not in wheel["packages"], "the wheel must not ship a top-level conformance"
    assert wheel["force-include"] == {"conformance": "pytest_toolcall/conformance"}
    # the checkout finder serves the same folder the wheel ships
    assert _layout.CHECKOUT_CASES == ROOT / "conformance"


USER_PACKAGE = {
    "conformance/__init__": '"""The user\'s own package that happens to share the name."""\nOWNER = "user"\n',
    "tests/test_mine": (
        "import conformance\n\n"
        "def test_my_package_is_mine():\n"
        "    assert conformance.OWNER == 'user'\n"
    ),
}


def test_user_package_named_conformance_does_not_break_the_suite(
        pytester: pytest.Pytester) -> None:
    # A subprocess, so that neither the user's package nor the kit's comes from this process's
    # module cache: the run imports both the way a user's `pytest` does.
    pytester.makepyfile(**USER_PACKAGE)
    pytester.makeini("[pytest]\npythonpath = .\n")
    result = pytester.runpytest_subprocess(
        "--toolcall-provider=openai", "--toolcall-cases=wire.single_call,stream.*",
        "-p", "no:cacheprovider", "-p", "no:randomly", "-q")
    out = result.stdout.str()
    assert result.ret == 0, out + result.stderr.str()
    assert "test_my_package_is_mine" not in out or "passed" in out
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= 3, outcomes  # the user's test and suite cases
    assert "errors" not in outcomes and "failed" not in outcomes, outcomes


# -- the real-traffic fixtures ship with the repository ---------------------------------------------
def test_shipped_wire_corpus_is_complete_and_credited() -> None:
    import json

    folder = ROOT / "tests" / "data" / "wire-corpus"
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "pydantic-ai" in readme and "MIT" in readme
    assert "Copyright (c) Pydantic Services Inc." in (folder / "LICENSE").read_text("utf-8")
    manifest = json.loads((folder / "pydantic-ai" / "manifest.json").read_text("utf-8"))
    listed = {entry["file"] for entry in manifest}
    present = {p.relative_to(folder / "pydantic-ai").as_posix()
               for p in (folder / "pydantic-ai").rglob("*.yaml")}
    assert listed == present and len(present) == 307
    assert all(entry.get("source") for entry in manifest)  # each file names its origin


def test_a_missing_corpus_is_an_error_not_a_skip(pytester: pytest.Pytester,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # the corpus tests, pointed at an empty folder, must not pass or skip silently
    pytester.syspathinsert(ROOT / "tests")
    pytester.makepyfile(test_uses_corpus="""
        import corpus

        FILES = corpus.files("gemini")

        def test_reads():
            assert FILES
    """)
    monkeypatch.setenv("TOOLCALL_WIRE_CORPUS", str(pytester.path / "nowhere"))
    result = pytester.runpytest_inprocess("-p", "no:randomly")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*CorpusMissing: no wire corpus files in *nowhere*"])

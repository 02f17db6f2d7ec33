"""docs/ci.md's GitHub Actions recipe works when copied into a user's repository, and the plugin
appends its Markdown summary to ``$GITHUB_STEP_SUMMARY``.

The recipe is read from the page itself (the ```yaml block), so the page cannot drift from what
is checked here: what it installs covers every option its pytest command uses, it installs the
kit from the wheel the page says to build (the kit is not on PyPI yet; not the kit's own
``.[dev]`` extra, which does not exist in a user's repository), and its commands, run as written
in a fresh user project with an OpenAI-compatible adapter (the README's), build and install that
wheel, pass and write what the upload step uploads. The wheel is checked for what a user's
tools read: the licence and ``py.typed``.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from background import Job, ahead

yaml = pytest.importorskip("yaml", reason="pyyaml (the dev extra) reads the recipe")

ROOT = Path(__file__).resolve().parent.parent
CI_PAGE = ROOT / "docs" / "ci.md"
PROVIDER = "--toolcall-provider=openai"
HEADING = "## pytest-toolcall conformance"

#: which distribution provides each command-line option the recipe may use
OPTION_OWNERS = {
    "--toolcall-": "pytest-toolcall",
    "-n": "pytest-xdist", "--numprocesses": "pytest-xdist", "--dist": "pytest-xdist",
    "--cov": "pytest-cov", "--timeout": "pytest-timeout", "--reruns": "pytest-rerunfailures",
    "--junitxml": "pytest", "-q": "pytest", "-v": "pytest", "-x": "pytest", "-p": "pytest",
}


def recipe() -> dict:
    blocks = re.findall(r"```yaml\n(.*?)```", CI_PAGE.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) == 1, "docs/ci.md should hold exactly one ```yaml workflow"
    return yaml.safe_load(blocks[0])


def steps() -> list[dict]:
    return recipe()["jobs"]["toolcall"]["steps"]


def commands(prefix: str) -> list[list[str]]:
    """The shell commands of the suite job that start with ``prefix``, split into words."""
    found = []
    for step in steps():
        for line in str(step.get("run", "")).replace("\\\n", " ").splitlines():
            words = shlex.split(line)
            if words[:len(prefix.split())] == prefix.split():
                found.append(words)
    return found


def pytest_command() -> list[str]:
    runs = commands("python -m pytest")
    assert len(runs) == 1, runs
    return runs[0][3:]


def installed() -> set[str]:
    (install,) = commands("python -m pip install")
    return {w.split("[")[0].lower() for w in install[4:] if not w.startswith("-") and w != "."}


def build_command() -> list[str]:
    """The page's command that builds the kit's wheel, from its ```bash block."""
    text = CI_PAGE.read_text(encoding="utf-8")
    lines = [line for block in re.findall(r"```bash\n(.*?)```", text, re.DOTALL)
             for line in block.splitlines() if line.startswith("python -m pip wheel")]
    assert len(lines) == 1, "docs/ci.md should say once how to build the kit's wheel"
    return shlex.split(lines[0])


def wheel_argument() -> str:
    """The recipe's install argument that names the kit's wheel."""
    (install,) = commands("python -m pip install")
    wheels = [w for w in install if w.endswith(".whl")]
    assert len(wheels) == 1, f"the recipe should install the kit from one wheel: {install}"
    return wheels[0]


def test_recipe_installs_the_kit_not_the_kits_own_extra() -> None:
    (install,) = commands("python -m pip install")
    assert ".[dev]" not in " ".join(install), "a user's repository has no pytest-toolcall dev extra"
    assert "pytest-toolcall" not in install, "the kit is not on PyPI yet: install its wheel"
    from pytest_toolcall import __version__

    # the wheel the build command writes, under the name pip gives it
    folder = build_command()[build_command().index("-w") + 1]
    wheel = f"pytest_toolcall-{__version__}-py3-none-any.whl"
    assert Path(wheel_argument()) == Path(folder) / wheel
    text = " ".join(CI_PAGE.read_text(encoding="utf-8").split())
    assert "pytest-toolcall is not on PyPI yet" in text


def test_recipe_names_its_providers_not_all() -> None:
    providers = [w for w in pytest_command() if w.startswith("--toolcall-provider=")]
    assert providers == [PROVIDER], "the recipe gates on the provider an adapter speaks"


def test_what_the_recipe_installs_covers_the_options_it_uses() -> None:
    needed = {}
    for word in pytest_command():
        if not word.startswith("-"):
            continue
        name = word.split("=")[0]
        owner = next((d for o, d in OPTION_OWNERS.items()
                      if name == o or (o.endswith("-") and name.startswith(o))), None)
        assert owner is not None, f"docs/ci.md uses {name}: say which package provides it"
        needed[name] = owner
    missing = {name: owner for name, owner in needed.items()
               if owner not in ("pytest", "pytest-toolcall") and owner not in installed()}
    assert not missing, f"docs/ci.md uses options whose plugin it does not install: {missing}"


def test_recipe_uploads_what_the_run_writes_and_adds_no_second_summary() -> None:
    command = pytest_command()
    report = next(w.split("=", 1)[1] for w in command if w.startswith("--toolcall-report="))
    upload = next(s for s in steps() if "upload-artifact" in str(s.get("uses", "")))
    assert upload["with"]["path"].rstrip("/") == report
    # the plugin appends the summary itself: a step that cats the file too would show it twice
    assert not [s for s in steps() if "GITHUB_STEP_SUMMARY" in str(s.get("run", ""))]


def _build_wheel(project: Path, env: Mapping[str, str]) -> Path:
    """The kit's wheel, built by the page's command in a fresh user project (``ci/`` of it).

    Network-free: ``--no-build-isolation --no-index`` build with the hatchling installed here
    (the dev extra) instead of fetching it; the command is otherwise the page's, word for word,
    with the clone's path for its placeholder. About 1.5 s.
    """
    command = [ROOT.as_posix() if w == "/path/to/pytest-toolcall" else w for w in build_command()]
    assert command[:4] == ["python", "-m", "pip", "wheel"], command
    done = subprocess.run([sys.executable, *command[1:], "--no-build-isolation", "--no-index",
                           "-q"], cwd=project, env=dict(env), capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    wheel = project / wheel_argument()
    assert wheel.is_file(), f"the build command wrote {sorted(project.rglob('*.whl'))}"
    return wheel


@dataclass
class RecipeRun:
    wheel: Path
    skip: str | None = None  # why the recipe's commands could not run here
    install: subprocess.CompletedProcess[str] | None = None
    session: subprocess.CompletedProcess[str] | None = None
    site: Path | None = None
    summary: Path | None = None


def _recipe_run(where: Path, env: Mapping[str, str]) -> RecipeRun:
    """The wheel built, then the install step and the pytest command in a fresh project with an
    OpenAI-compatible adapter; the kit comes from the wheel, not from this checkout. About
    6 s, nearly all of it waiting on pip and pytest: it may run ahead, beside other tests
    (tests/background.py)."""
    pytest.importorskip("hatchling", reason="hatchling (the dev extra) builds the kit's wheel")
    project = where / "user-project"
    project.mkdir()
    run = RecipeRun(_build_wheel(project, env))
    (install,) = commands("python -m pip install")
    assert install[4:6] == ["-e", "."], install  # the user's own project: theirs to install
    from importlib import metadata

    for name in installed():
        if not name.endswith(".whl"):  # what the step installs besides the kit: present here
            try:
                metadata.version(name)
            except metadata.PackageNotFoundError:
                run.skip = f"the recipe installs {name}, which is not installed here"
                return run
    # a venv-less install: the wheel alone, its dependencies are here
    site = run.site = where / "site"
    run.install = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                                  "--no-index", "--target", str(site), wheel_argument()],
                                 cwd=project, env=dict(env), capture_output=True, text=True,
                                 timeout=300, check=False)
    if run.install.returncode != 0:
        return run
    (project / "conftest.py").write_text(readme_adapter(), encoding="utf-8")
    (project / "test_mine.py").write_text(
        "import pytest_toolcall\n\n\ndef test_the_kit_comes_from_the_wheel():\n"
        f"    assert pytest_toolcall.__file__.startswith({str(site)!r})\n", encoding="utf-8")
    summary = run.summary = project / "step-summary.md"
    summary.write_text("earlier output of the same step\n", encoding="utf-8")
    session_env = {k: v for k, v in env.items()
                   if not k.startswith(("PYTEST_", "TOOLCALL_")) and k != "PYTHONPATH"}
    session_env.update(PYTHONPATH=str(site), GITHUB_STEP_SUMMARY=str(summary))
    # the whole suite is the main job's business: one case keeps this quick (three processes
    # under -n 2); langsmith's plugin, there only as langchain's dependency, costs each 0.9 s
    run.session = subprocess.run([sys.executable, "-m", "pytest", *pytest_command(),
                                  "--toolcall-cases=wire.single_call", "-p", "no:cacheprovider",
                                  "-p", "no:randomly", "-p", "no:langsmith_plugin"],
                                 cwd=project, env=session_env, capture_output=True, text=True,
                                 timeout=300, check=False)
    return run


#: the wheel and the recipe's run, once for the module's two tests
RECIPE = Job("the CI recipe in a user project", _recipe_run)


@pytest.fixture
def kit_wheel(ahead_run: tuple[RecipeRun, Path]) -> Path:
    return ahead_run[0].wheel


@ahead(lambda: RECIPE)
def test_the_wheel_ships_the_licence_and_py_typed(kit_wheel: Path) -> None:
    names = zipfile.ZipFile(kit_wheel).namelist()
    assert "pytest_toolcall/py.typed" in names  # type checkers read the kit's annotations
    licences = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    assert licences, names[-8:]
    shipped = zipfile.ZipFile(kit_wheel).read(licences[0]).decode()
    assert shipped == (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert shipped.startswith("MIT License\n")
    metadata = zipfile.ZipFile(kit_wheel).read(
        next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in metadata  # pyproject's licence, the file's
    assert {n.split("/")[0] for n in names} == {"pytest_toolcall",
                                                kit_wheel.name.split("-py3")[0] + ".dist-info"}


def readme_adapter() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"^```python\n(.*?)^```", readme, re.M | re.S)
                if b.startswith("# conftest.py\n")]
    return block


@ahead(lambda: RECIPE)
def test_recipe_commands_run_as_written_in_a_user_project(
        ahead_run: tuple[RecipeRun, Path]) -> None:
    """The install step and the pytest command, in a fresh project with an OpenAI-compatible
    adapter; the kit comes from the wheel, not from this checkout (_recipe_run)."""
    run, _ = ahead_run
    if run.skip:
        pytest.skip(run.skip)
    assert run.install is not None and run.session is not None and run.summary is not None
    assert run.install.returncode == 0, run.install.stdout + run.install.stderr
    done, project, command = run.session, run.wheel.parent.parent, pytest_command()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout, done.stdout
    report = next(w.split("=", 1)[1] for w in command if w.startswith("--toolcall-report="))
    for name in ("toolcall-report.json", "toolcall-summary.md", "toolcall-badge.json",
                 "junit.xml"):
        assert (project / report / name).is_file(), name
    assert "conftest.MyAdapter" in (project / report / "toolcall-report.json").read_text()
    text = run.summary.read_text(encoding="utf-8")
    assert text.startswith("earlier output of the same step\n")
    assert text.count(HEADING) == 1
    assert "gate passed" in text


# -- $GITHUB_STEP_SUMMARY ---------------------------------------------------------------------------
def test_summary_is_appended_to_the_step_summary(pytester: pytest.Pytester,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    summary = pytester.path / "summary.md"
    summary.write_text("# written by an earlier tool\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    for _ in range(2):
        result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.single_call")
        result.assert_outcomes(passed=1)
        result.stdout.fnmatch_lines([f"summary appended to $GITHUB_STEP_SUMMARY ({summary})"])
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("# written by an earlier tool\n")  # appended, never overwritten
    assert text.count(HEADING) == 2
    assert "wire.single_call" not in text or "Failures" not in text
    # no --toolcall-report: the summary is the only file written
    assert not list(pytester.path.glob("**/toolcall-report.json"))


def test_summary_carries_failures(pytester: pytest.Pytester,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makeconftest("""
        import pytest

        class Broken:
            def complete(self, request):
                raise RuntimeError("adapter exploded")

        @pytest.fixture
        def toolcall_adapter():
            return Broken()
    """)
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.single_call")
    result.assert_outcomes(failed=1)
    text = summary.read_text(encoding="utf-8")
    assert "### Failures (1)" in text and "`wire.single_call` (openai)" in text


def test_own_tests_without_the_suite_append_nothing(pytester: pytest.Pytester,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    pytester.makepyfile(test_mine="def test_mine(): pass")
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(passed=1)
    assert not summary.exists()
    assert "GITHUB_STEP_SUMMARY" not in result.stdout.str()


def test_no_step_summary_while_mutmut_runs_a_mutant(pytester: pytest.Pytester,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("MUTANT_UNDER_TEST", "pytest_toolcall.x__mutmut_1")
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.single_call")
    result.assert_outcomes(passed=1)
    assert not summary.exists()


def test_unwritable_step_summary_is_said_and_keeps_the_verdict(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    target = pytester.mkdir("a-directory")  # opening a directory for append fails
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(target))
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.single_call")
    assert result.ret == 0
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["could not append the summary to $GITHUB_STEP_SUMMARY (*a-directory): *"])

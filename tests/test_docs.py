"""The docs stay true: the committed catalogue is the registry's, and every doc link resolves."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from background import Job, ahead, run_pytest
from page_commands import assert_write_and_check

from pytest_toolcall.cases import Registry, make_case
from pytest_toolcall.cli import catalogue

ROOT = Path(__file__).resolve().parents[1]
CASES_MD = ROOT / "docs" / "cases.md"
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# [text](target) and [text]: target; targets with a scheme or a bare #anchor are not files
_INLINE = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)", re.MULTILINE)
_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def test_committed_catalogue_equals_a_fresh_render() -> None:
    fresh = catalogue.render(catalogue.builtin_registry())
    committed = CASES_MD.read_text(encoding="utf-8") if CASES_MD.exists() else ""
    assert committed == fresh, (
        f"docs/cases.md is out of date with the case registry. Regenerate it from the repository "
        f"root with:  {catalogue.COMMAND}")


def test_the_registry_part_of_providers_md_equals_a_fresh_render() -> None:
    """docs/providers.md's generated part is the provider registry's: every provider, the
    quirks it sends and every fact with its source and date (issue 13)."""
    committed = (ROOT / "docs" / "providers.md").read_text(encoding="utf-8")
    fresh = catalogue.with_providers_block(committed, catalogue.render_providers())
    assert committed == fresh, (
        "the generated registry part of docs/providers.md is out of date. Regenerate it from "
        f"the repository root with:  {catalogue.COMMAND}")
    from pytest_toolcall.providers import REGISTRY

    for name, provider in REGISTRY.items():
        assert f"| `{name}` | `{provider.dialect}` |" in committed
        for fact in provider.facts.values():
            if fact.is_confirmed:
                assert " ".join(str(fact.source).split()).replace("|", "\\|") in committed


def test_a_providers_md_without_the_markers_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no generated registry part"):
        catalogue.with_providers_block("# Providers\n", catalogue.render_providers())


def test_every_builtin_case_is_in_the_catalogue_with_its_clauses() -> None:
    text = CASES_MD.read_text(encoding="utf-8")
    registry = catalogue.builtin_registry()
    assert len(registry) >= 30  # the built-in suite, not an empty registry
    for case in registry:
        heading = f"\n### {case.id}\n"
        assert heading in text, f"{case.id} is missing from docs/cases.md"
        entry = text.split(heading, 1)[1].split("\n### ", 1)[0]
        assert case.title in entry and case.why in entry
        for clause in catalogue.clauses_of(case):
            assert f"`{clause}`" in entry, f"{case.id}: clause {clause} not listed"
    assert text.count("\n### ") == len(registry)


def test_render_lists_needs_dialects_steps_and_each_checks_clause() -> None:
    from pytest_toolcall.cases import ScriptedCall, Step, Turn, check
    from pytest_toolcall.core.model import ChatRequest, UserMessage

    @check("demo.first")
    def first(run: object) -> None: ...

    @check("demo.second")
    def second(run: object) -> None: ...

    registry = Registry()
    registry.add(make_case(
        id="demo.streamed", title="A demo title", why="A demo reason.", dialects=("openai",),
        needs={"usage"}, checks=(first, second, first),
        steps=(Step(request=ChatRequest(messages=(UserMessage(content="hi"),)),
                    reply=Turn(tool_calls=(ScriptedCall(name="f"),)), via="stream",
                    expect="error"),)))
    text = catalogue.render(registry)
    assert "\n1 case in 1 family." in text
    assert "## demo (1 case)" in text
    assert "| `demo.streamed` | A demo title |" in text
    assert "- needs: `stream`, `usage`" in text  # the streaming step adds `stream`
    assert "- dialects: `openai`" in text
    assert "- steps: stream (expects an error)" in text
    # in order, no repeats, each with its level (a clause the kit does not know: must)
    assert "- clauses: `demo.first` (must), `demo.second` (must)" in text
    assert catalogue.render(registry) == text  # deterministic


def test_module_command_prints_the_committed_catalogue() -> None:
    # the exact command the failure message and the docs give, run for real
    done = subprocess.run([sys.executable, "-m", "pytest_toolcall.cli.catalogue"], cwd=ROOT,
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode("utf-8") == catalogue.render(catalogue.builtin_registry())


def test_write_and_check_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert_write_and_check(catalogue.main, tmp_path, "cases.md", CASES_MD)
    # with a docs/providers.md, its generated part is written and checked too
    providers_md = tmp_path / "docs" / "providers.md"
    providers_md.write_text(f"# Mine\n\n{catalogue.BEGIN}\nstale\n{catalogue.END}\n",
                            encoding="utf-8")
    assert catalogue.main(["--check"]) == 1
    assert catalogue.main(["--write"]) == 0 and catalogue.main(["--check"]) == 0
    assert "| `vllm` | `openai` |" in providers_md.read_text(encoding="utf-8")
    providers_md.write_text("# no markers\n", encoding="utf-8")
    assert catalogue.main(["--check"]) == 2  # names the missing markers


def _links(path: Path) -> list[str]:
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))  # code blocks are not links
    return _INLINE.findall(text) + _REFERENCE.findall(text)


def test_doc_files_are_found() -> None:
    names = {p.name for p in DOC_FILES}
    assert {"README.md", "quickstart.md", "writing-an-adapter-shim.md", "architecture.md",
            "writing-cases.md", "cases.md"} <= names


@pytest.mark.parametrize("path", DOC_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_doc_link_points_to_an_existing_file(path: Path) -> None:
    broken = []
    for target in _links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a URL, or an anchor in the same page
        file_part = target.split("#", 1)[0]
        if not (path.parent / file_part).exists():
            broken.append(target)
    assert not broken, f"{path.relative_to(ROOT)} links to files that do not exist: {broken}"


def test_link_finder_sees_links() -> None:
    # guards the parametrized test above against a regex that finds nothing
    readme_links = _links(ROOT / "README.md")
    assert "docs/writing-an-adapter-shim.md" in readme_links
    assert "docs/cases.md" in readme_links


# -- docs/loops.md and docs/strategies.md: their examples run as written -----------------------
LOOPS_MD = ROOT / "docs" / "loops.md"
STRATEGIES_MD = ROOT / "docs" / "strategies.md"
# the loops.md mutation: failure rounds counted as iterations (seed 002 AC1)
LOOP_GOOD = "                failure_rounds += 1\n"
LOOP_BROKEN = "                failure_rounds, iterations = failure_rounds + 1, iterations + 1\n"


def _doc_section(path: Path, title: str) -> str:
    text = path.read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"{path.name} has no '## {title}' section"
    return match.group(1)


def _doc_block(path: Path, title: str, first_line: str) -> str:
    blocks = [b for b in re.findall(r"^```python\n(.*?)^```", _doc_section(path, title),
                                    re.M | re.S) if b.startswith(first_line + "\n")]
    assert len(blocks) == 1, f"{path.name} '## {title}': expected one block '{first_line}'"
    return blocks[0]


def _builtin(contract: str) -> list:
    """The built-in cases of ``contract`` that `--toolcall-provider=openai` collects."""
    return [c for c in catalogue.builtin_registry().select((), "openai")
            if c.contract == contract]


def _needing(cases: list, capability: str) -> list[str]:
    return sorted(c.id for c in cases if capability in c.needs)


def _doc_conftest_session(section: str, *args: str) -> Callable[[Path, Mapping[str, str]],
                                                                  pytest.RunResult]:
    """A job: ``pytest ARGS`` in a fresh project whose conftest.py is loops.md's ``section``,
    in a process of its own. Nearly all of it waits on the session's loop cases (tool and
    model deadlines): it may run ahead, beside other tests (tests/background.py)."""
    def run(where: Path, env: Mapping[str, str]) -> pytest.RunResult:
        project = where / "project"
        project.mkdir()
        (project / "conftest.py").write_text(_doc_block(LOOPS_MD, section, "# conftest.py"),
                                             encoding="utf-8")
        return run_pytest(project, env, *args)
    return run


@pytest.mark.parametrize("model", ["inprocess", "fake"])
@ahead(lambda model: Job(f"loops.md's loop shim, {model} model", _doc_conftest_session(
    "A shim for a hand-written loop", "--toolcall-provider=openai", "--toolcall-cases=loop.*",
    f"--toolcall-loop-model={model}", "-rs", "-p", "no:cacheprovider")))
def test_loops_md_loop_shim_passes_the_loop_family(ahead_run: tuple[pytest.RunResult, Path],
                                                   model: str) -> None:
    result, _ = ahead_run
    loops = _builtin("loop")
    # the shim declares parallel_dispatch=False and loop_events=False, and neither a cancel
    # signal nor handoff tools (the defaults)
    skipped = sorted(_needing(loops, "loop.parallel") + _needing(loops, "loop.events")
                     + _needing(loops, "loop.cancellation") + _needing(loops, "loop.handoff")
                     + _needing(loops, "loop.model_deadline"))
    assert skipped == ["loop.cancelled", "loop.cancelled_tools_stopped", "loop.events",
                       "loop.handed_off", "loop.model_deadline", "loop.parallel_dispatch"]
    result.assert_outcomes(passed=len(loops) - len(skipped), skipped=len(skipped))
    output = result.stdout.str()
    assert ("the profile does not claim 'loop.parallel', which loop.parallel_dispatch needs"
            in output)
    assert "the profile does not claim 'loop.events', which loop.events needs" in output
    assert "tool loop under test: conftest.MyAgent" in output  # the doc's loop ran
    section = " ".join(_doc_section(LOOPS_MD, "A shim for a hand-written loop").split())
    assert ("`the profile does not claim 'loop.parallel', which loop.parallel_dispatch needs`"
            in section)


def test_loops_md_loop_shim_mutation_fails_where_the_doc_says(pytester: pytest.Pytester) -> None:
    code = _doc_block(LOOPS_MD, "A shim for a hand-written loop", "# conftest.py")
    assert code.count(LOOP_GOOD) == 1, "the loops.md shim changed; update LOOP_GOOD"
    pytester.makeconftest(code.replace(LOOP_GOOD, LOOP_BROKEN))
    result = pytester.runpytest("--toolcall-provider=openai",
                                "--toolcall-cases=loop.*failure_rounds*", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=2)
    output = result.stdout.str()
    assert "loop.failure_rounds_not_iterations[openai]: loop.model_calls" in output
    assert "loop.failure_rounds_reset[openai]: loop.stop_reason" in output
    section = " ".join(_doc_section(LOOPS_MD, "A shim for a hand-written loop").split())
    assert f"change `{LOOP_GOOD.strip()}` into `{LOOP_BROKEN.strip()}`" in section


@pytest.mark.parametrize("transport", ["inprocess", "loopback"])
@ahead(lambda transport: Job(f"loops.md's framework loop, {transport}", _doc_conftest_session(
    "A framework with its own client", "--toolcall-provider=openai", "--toolcall-cases=loop.*",
    "--toolcall-loop-model=fake", f"--toolcall-transport={transport}", "-rs", "-p",
    "no:cacheprovider")))
def test_loops_md_framework_with_its_own_client_passes(ahead_run: tuple[pytest.RunResult, Path],
                                                       transport: str) -> None:
    """The openai-SDK loop of loops.md reaches each case's script through request.endpoint."""
    pytest.importorskip("openai", reason="the example needs the openai SDK (dev extra)")
    result, _ = ahead_run
    loops = _builtin("loop")
    skipped = sorted(_needing(loops, "loop.parallel") + _needing(loops, "loop.events")
                     + _needing(loops, "loop.cancellation") + _needing(loops, "loop.handoff")
                     + _needing(loops, "loop.model_deadline"))
    result.assert_outcomes(passed=len(loops) - len(skipped), skipped=len(skipped))
    assert "tool loop under test: conftest.OpenAISDKAgent" in result.stdout.str()


def test_loops_md_history_shim_passes_the_history_family(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(_doc_block(LOOPS_MD, "A shim for a history builder", "# conftest.py"))
    result = pytester.runpytest("--toolcall-provider=openai", "--toolcall-cases=history.*",
                                "-p", "no:cacheprovider")
    histories = _builtin("history")
    result.assert_outcomes(passed=len(histories))
    assert "history builder under test: conftest.MyHistory" in result.stdout.str()
    section = " ".join(_doc_section(LOOPS_MD, "A shim for a history builder").split())
    assert f"All {len(histories)} history cases pass" in section


def test_loops_md_toolcall_tools_example_runs(pytester: pytest.Pytester) -> None:
    code = _doc_block(LOOPS_MD, "The ToolLoop contract", "# test_my_tools.py")
    pytester.makepyfile(test_my_tools=code)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_loops_md_names_every_stop_reason_and_loop_case() -> None:
    from pytest_toolcall.core.loop import STOP_REASONS

    text = LOOPS_MD.read_text(encoding="utf-8")
    table = _doc_section(LOOPS_MD, "The ToolLoop contract")
    for reason in STOP_REASONS:
        assert f"\n| `{reason}` |" in table, f"loops.md: stop reason {reason} is not in the table"
    # every case a profile field or capability drives is named in the profile table
    profile_table = _doc_section(LOOPS_MD, "Profile fields and the cases they drive")
    for case in _builtin("loop") + _builtin("history"):
        for capability in case.needs:
            assert f"`{capability}`" in profile_table, (case.id, capability)
            assert f"`{case.id}`" in profile_table, case.id
    assert "`--toolcall-loop-model`" in text


def _strategies_example(where: Path, env: Mapping[str, str]) -> pytest.RunResult:
    project = where / "project"
    project.mkdir()
    code = _doc_block(STRATEGIES_MD, "Example", "# test_properties.py")
    (project / "test_properties.py").write_text(code, encoding="utf-8")
    # fewer examples than hypothesis' default 100 keep the kit's tests fast; hypothesis' timing
    # checks (the too_slow health check, the 200 ms deadline) measure the machine, not the
    # example, and failed it on a loaded one (2026-11-28, load about 8); the example is unchanged
    (project / "conftest.py").write_text(
        "from hypothesis import HealthCheck, settings\n"
        "settings.register_profile('docs', max_examples=25, deadline=None,\n"
        "    suppress_health_check=[HealthCheck.too_slow])\n"
        "settings.load_profile('docs')\n", encoding="utf-8")
    # a subprocess: in-process, pytester's sys.modules snapshot gives hypothesis and pydantic
    # classes a second identity, which is not what a user running the example sees. It may run
    # ahead, beside other tests (tests/background.py)
    return run_pytest(project, env, "-p", "no:cacheprovider")


@ahead(lambda: Job("strategies.md's example", _strategies_example))
def test_strategies_md_example_runs(ahead_run: tuple[pytest.RunResult, Path]) -> None:
    result, _ = ahead_run
    code = _doc_block(STRATEGIES_MD, "Example", "# test_properties.py")
    n_tests = len(re.findall(r"^def test_", code, re.M))
    assert n_tests >= 3
    result.assert_outcomes(passed=n_tests)


def test_strategies_md_names_every_public_strategy() -> None:
    from pytest_toolcall.cases import strategies

    text = STRATEGIES_MD.read_text(encoding="utf-8")
    for name in strategies.__all__:
        assert f"`{name}(" in text, f"docs/strategies.md does not document {name}"


WRITING_CASES_MD = ROOT / "docs" / "writing-cases.md"


def test_writing_cases_loop_and_history_example_runs(pytester: pytest.Pytester) -> None:
    code = _doc_block(WRITING_CASES_MD, "Loop and history cases", "# conftest.py")
    pytester.makeconftest(code)
    result = pytester.runpytest("--toolcall-provider=openai", "--toolcall-cases=mine.*",
                                "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    # the same cases against a loop that gives up after one failure round: the check bites
    pytester.makeconftest(code + (
        "\n\nimport pytest\nfrom pytest_toolcall.reference.loop import ReferenceToolLoop\n\n\n"
        "@pytest.fixture\ndef toolcall_loop():\n"
        "    return ReferenceToolLoop(max_failure_rounds=1)\n"))
    broken = pytester.runpytest("--toolcall-provider=openai", "--toolcall-cases=mine.*",
                                "-p", "no:cacheprovider")
    broken.assert_outcomes(passed=1, failed=1)
    assert "mine.refund_retry[openai]: mine.refunded_once" in broken.stdout.str()

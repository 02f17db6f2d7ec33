"""The Go example (docs/examples/go: a chat adapter on net/http, standard library only) built and
run through the suite over the child-process protocol: it passes the chat cases that apply, and
each of its deliberate bugs fails the case that names it. The protocol is language-neutral.

Where Go is not installed (CI machines) every test here skips, naming Go. The build never
reaches the network: the example has no module to download, and GOPROXY=off, GOTOOLCHAIN=local
and GOFLAGS= keep `go` from fetching anything; the build cache is Go's default (GOCACHE), or one
in the test's tmp dir where the environment gives Go no home for it."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest
from background import Job, ahead, run_pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "go"

pytestmark = pytest.mark.skipif(
    shutil.which("go") is None,
    reason="needs Go (the 'go' program, Go 1.19+, on PATH) to build docs/examples/go")


def build(where: Path, base: Mapping[str, str] | None = None) -> Path:
    """The example built in ``where`` (a few seconds with a warm build cache)."""
    env = {**(os.environ if base is None else base), "GOPROXY": "off", "GOTOOLCHAIN": "local",
           "GOFLAGS": "", "GONOSUMDB": "*", "GOWORK": "off", "CGO_ENABLED": "0"}
    if not (env.get("GOCACHE") or env.get("XDG_CACHE_HOME") or env.get("HOME")):
        env["GOCACHE"] = str(where / "gocache")
    binary = where / "chat-adapter"
    built = subprocess.run(["go", "build", "-o", str(binary), "."], cwd=EXAMPLE, env=env,
                           capture_output=True, text=True, timeout=300, check=False)
    assert built.returncode == 0, f"go build failed:\n{built.stdout}\n{built.stderr}"
    return binary


@pytest.fixture(scope="module")
def go_adapter(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example built once for this module."""
    return build(tmp_path_factory.mktemp("go"))


def _chat_cases(where: Path, env: Mapping[str, str]) -> pytest.RunResult:
    # the build and the session both wait on the Go child most of the time: they may run
    # ahead, beside other tests (tests/background.py)
    binary = build(where, env)
    (where / "project").mkdir()
    return run_pytest(where / "project", env, "--toolcall-provider=openai",
                      "--toolcall-cases=wire.*,stream.*,errors.*", "-p", "no:cacheprovider",
                      "-rs", f"--toolcall-command={binary}")


@ahead(lambda: Job("the Go example's chat cases", _chat_cases))
def test_the_go_adapter_passes_the_chat_cases(ahead_run: tuple[pytest.RunResult, Path]) -> None:
    result, _ = ahead_run
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0 and outcomes.get("errors", 0) == 0, \
        result.stdout.str()[-4000:]
    assert outcomes["passed"] >= 55, outcomes  # 60 on 2026-11-28; the skips are quirks
    result.stdout.fnmatch_lines(["adapter under test: pytest_toolcall.run.foreign.ForeignAdapter"])
    skipped = [line for line in result.stdout.lines if line.startswith("SKIPPED")]
    assert skipped and all("quirk openai does not send" in line for line in skipped), skipped


@pytest.mark.parametrize("bug,case,clause", [
    ("merge_calls", "wire.text_and_calls", "response.tool_calls.count"),
    ("drop_text", "stream.text_fragmented", "response.text"),
])
def test_each_deliberate_bug_fails_the_case_that_names_it(pytester: pytest.Pytester,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          go_adapter: Path, bug: str,
                                                          case: str, clause: str) -> None:
    monkeypatch.setenv("TOOLCALL_EXAMPLE_BUG", bug)
    result = pytester.runpytest(
        "--toolcall-provider=openai", f"--toolcall-cases={case}", "-p", "no:cacheprovider",
        f"--toolcall-command={go_adapter}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*{case}*{clause}*"])

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
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "go"

pytestmark = pytest.mark.skipif(
    shutil.which("go") is None,
    reason="needs Go (the 'go' program, Go 1.19+, on PATH) to build docs/examples/go")


@pytest.fixture(scope="module")
def go_adapter(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example built once for this module (a few seconds with a warm build cache)."""
    where = tmp_path_factory.mktemp("go")
    env = {**os.environ, "GOPROXY": "off", "GOTOOLCHAIN": "local", "GOFLAGS": "",
           "GONOSUMDB": "*", "GOWORK": "off", "CGO_ENABLED": "0"}
    if not (env.get("GOCACHE") or env.get("XDG_CACHE_HOME") or env.get("HOME")):
        env["GOCACHE"] = str(where / "gocache")
    binary = where / "chat-adapter"
    built = subprocess.run(["go", "build", "-o", str(binary), "."], cwd=EXAMPLE, env=env,
                           capture_output=True, text=True, timeout=300, check=False)
    assert built.returncode == 0, f"go build failed:\n{built.stdout}\n{built.stderr}"
    return binary


def test_the_go_adapter_passes_the_chat_cases(pytester: pytest.Pytester,
                                              go_adapter: Path) -> None:
    result = pytester.runpytest_subprocess(
        "--toolcall-provider=openai", "--toolcall-cases=wire.*,stream.*,errors.*", "-p",
        "no:cacheprovider", "-rs", f"--toolcall-command={go_adapter}")
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

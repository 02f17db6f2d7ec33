"""The JavaScript/TypeScript package in js/ (pytest-toolcall-node): its declarations against the
schema, its mappers (node:test), its runner, and a fresh TypeScript project that installs it
from the path and tests an adapter export and a collector export with one pytest command.
Tests that need node, npm or tsc skip, naming the program, without it. No network: npm installs
the package from its path (--offline). The pytest runs are subprocesses: in process, together
with tests/test_foreign.py, they changed a later render of docs/providers.md (test_docs.py's
registry test failed; seen 2026-11-28, not traced)."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import jsonschema
import pytest
from background import Job, ahead, run_pytest

from pytest_toolcall.core import fallback, loop, model
from pytest_toolcall.core.errors import UsageError
from pytest_toolcall.run.foreign import Child

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "js"
RUNNER = PACKAGE / "bin" / "pytest-toolcall-node.mjs"
EXAMPLES = ROOT / "docs" / "examples" / "node"
PROJECT = Path(__file__).resolve().parent / "js_project"
SCHEMA = json.loads((ROOT / "pytest_toolcall" / "run" / "protocol.schema.json").read_text())
#: where a developer installs TypeScript once for these tests (no test downloads it)
TSC_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / \
    "pytest-toolcall-tests" / "typescript"

needs_node = pytest.mark.skipif(shutil.which("node") is None,
                                reason="needs the 'node' program (Node 18+) on PATH")
needs_npm = pytest.mark.skipif(shutil.which("npm") is None or shutil.which("npx") is None,
                               reason="needs the 'npm' and 'npx' programs on PATH")


def _tsc() -> str | None:
    cached = TSC_CACHE / "node_modules" / ".bin" / "tsc"
    return shutil.which("tsc") or (str(cached) if cached.exists() else None)


needs_tsc = pytest.mark.skipif(
    _tsc() is None, reason=f"needs TypeScript's 'tsc' on PATH, or installed once with "
    f"'npm install --prefix {TSC_CACHE} typescript@5'")


def _gen_types():
    spec = importlib.util.spec_from_file_location("gen_types", PACKAGE / "scripts" / "gen_types.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- the declarations ---------------------------------------------------------------------------
def test_the_declarations_are_the_schemas():
    text = (PACKAGE / "protocol.d.ts").read_text("utf-8")
    assert text == _gen_types().generate(), "js/protocol.d.ts has drifted from the schema: " \
        "run python js/scripts/gen_types.py"


def test_the_generator_refuses_a_keyword_it_does_not_read():
    gen = _gen_types()
    schema = {"$defs": {**SCHEMA["$defs"], "usage": {"type": "string", "pattern": "x"}}}
    with pytest.raises(ValueError, match="#/\\$defs/usage.*'pattern'"):
        gen.Generator(schema).render()


_MODELS = {
    "usage": [model.Usage], "canonical_tool_call": [model.ToolCall],
    "reasoning": [model.Reasoning], "tool_spec": [model.ToolSpec],
    "canonical_message": [model.SystemMessage, model.UserMessage, model.AssistantMessage,
                          model.ToolMessage],
    "canonical_request": [model.ChatRequest], "chat_response": [model.ChatResponse],
    "text_delta": [model.TextDelta], "tool_call_delta": [model.ToolCallDelta],
    "tool_call_complete": [model.ToolCallComplete],
    "reasoning_complete": [model.ReasoningComplete], "stream_done": [model.StreamDone],
    "loop_event": [loop.LoopEvent], "loop_result": [loop.LoopResult],
    "fallback_result": [fallback.FallbackResult],
}


@pytest.mark.parametrize("definition", sorted(_MODELS))
def test_a_canonical_shape_has_its_models_fields(definition):
    fields = {name for m in _MODELS[definition] for name in m.model_fields}
    assert set(SCHEMA["$defs"][definition]["properties"]) == fields


def test_the_canonical_shapes_accept_what_the_models_dump():
    call = model.ToolCall(id="c", name="f", arguments={"a": 1})
    dumps = {
        "chat_response": model.ChatResponse(text="t", tool_calls=(call,), finish_reason="stop",
                                            usage=model.Usage(input_tokens=1)),
        "canonical_request": model.ChatRequest(messages=(
            model.UserMessage(content="u"), model.AssistantMessage(tool_calls=(call,)),
            model.ToolMessage(tool_call_id="c", content="r")), tool_choice="auto"),
        "stream_done": model.StreamDone(finish_reason=None),
        "loop_result": loop.LoopResult(stop_reason="completed", text="x"),
    }
    for definition, value in dumps.items():
        schema = {**SCHEMA, "$ref": f"#/$defs/{definition}"}
        jsonschema.validate(value.model_dump(mode="json"), schema)
    with pytest.raises(jsonschema.ValidationError):  # the shapes can refuse: a wrong finish
        jsonschema.validate({"finish_reason": "done"},
                            {**SCHEMA, "$ref": "#/$defs/chat_response"})


# -- the mappers and the runner -----------------------------------------------------------------
@needs_node
def test_the_mappers_node_tests_pass():
    done = subprocess.run(["node", "--test", str(PACKAGE / "test")], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout


@needs_node
@pytest.mark.parametrize("args,words", [
    ([f"{EXAMPLES / 'collector.mjs'}#extract"], "is a function: name its contract"),
    ([f"{EXAMPLES / 'collector.mjs'}#nope"], 'has no export "nope"'),
    ([f"chatty={EXAMPLES / 'collector.mjs'}#extract"], "unknown contract chatty"),
    (["./src/adapter.ts#complete"], "needs tsx in your project"),
    ([f"stream={EXAMPLES / 'openai_adapter.mjs'}#sendMessagesStreaming"],
     "needs its chat export too"),
])
def test_the_runner_refuses_what_it_cannot_serve_with_a_clear_error(args, words, tmp_path,
                                                                   monkeypatch):
    monkeypatch.chdir(tmp_path)  # no tsx here
    with pytest.raises(UsageError, match="failed its hello") as info:
        Child(["node", str(RUNNER), *args]).start()
    assert words in info.value.args[0]


def _runner_command(bug: str = "") -> str:
    adapter = EXAMPLES / "openai_adapter.mjs"
    return (f"node {RUNNER} chat={adapter}#sendMessages stream={adapter}#sendMessagesStreaming "
            f"loop={adapter}#runTools history={adapter}#buildHistory profile={adapter}#profile "
            f"fallback={EXAMPLES / 'collector.mjs'}#extract")


_SOME = ("wire.text_and_calls,stream.parallel_interleaved,loop.iteration_cap,history.orphan_results,"
         "fallback.tool_first")


@needs_node
def test_a_streams_events_reach_the_kit_in_one_write(monkeypatch):
    # every write to the pipe wakes the kit (and, on a loaded machine, gives it this process's
    # CPU): the harness holds a stream's events until its result. Events a few ms apart, which
    # were one write each before 2026-11-28, come in one read; all of them, in order
    from pytest_toolcall import ChatRequest, UserMessage
    from pytest_toolcall.providers.fake import FakeProvider
    from pytest_toolcall.run import foreign
    from pytest_toolcall.run.foreign import ForeignAdapter, served

    reads = []
    original = foreign._Lines._read
    monkeypatch.setattr(foreign._Lines, "_read", lambda self: reads.append(1) or original(self))
    harness = (PACKAGE / "src" / "index.mjs").as_uri()
    code = (f"import {{ serve }} from {json.dumps(harness)};\n"
            "const later = () => new Promise((r) => setTimeout(r, 5));\n"
            "serve({ adapter: { complete: () => ({ content: 'ok', toolCalls: [] }),\n"
            "  async *stream() { for (const t of ['a', 'b', 'c', 'd']) { await later();\n"
            "    yield { type: 'text_delta', text: t }; }\n"
            "    yield { type: 'done', finish_reason: 'stop', usage: null }; } } });\n")
    child = Child(["node", "--input-type=module", "-e", code])
    child.start()
    try:
        with served(FakeProvider("openai")) as endpoint:
            reads.clear()
            events = list(ForeignAdapter(child, endpoint, timeout=5).stream(
                ChatRequest(messages=(UserMessage(content="hi"),))))
    finally:
        child.close()
    assert [getattr(e, "text", None) for e in events] == ["a", "b", "c", "d", None]
    assert len(reads) == 1, f"{len(reads)} reads for one stream"


@needs_node
def test_the_runner_serves_the_examples_exports(pytester):
    result = pytester.runpytest_subprocess("--toolcall-provider=openai", f"--toolcall-cases={_SOME}",
                                "-p", "no:cacheprovider", f"--toolcall-command={_runner_command()}")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["*structured output under test: *ForeignStructured",
                                 "*tool loop under test: pytest_toolcall.run.foreign.ForeignLoop"])


@needs_node
def test_the_runner_serves_a_broken_export_and_the_case_fails(pytester, monkeypatch):
    monkeypatch.setenv("TOOLCALL_EXAMPLE_BUG", "merge_calls")
    result = pytester.runpytest_subprocess("--toolcall-provider=openai", "-p", "no:cacheprovider",
                                "--toolcall-cases=wire.text_and_calls",
                                f"--toolcall-command={_runner_command()}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*wire.text_and_calls*response.tool_calls.count*"])


# -- done when: a fresh TypeScript project, no harness ------------------------------------------
def _run(argv: list[str], cwd: Path, env: Mapping[str, str]) -> None:
    done = subprocess.run(argv, cwd=cwd, env=dict(env), capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, f"{argv}: {done.stdout[-2000:]}{done.stderr[-2000:]}"


def typescript_project(path: Path, env: Mapping[str, str]) -> None:
    """``path`` made a fresh project: npm init, npm install <js/>, the TypeScript sources
    of tests/js_project and a copy of the Node examples (importing the package by name),
    compiled with tsc --strict (which also checks the examples against the declarations).
    tsconfig.json has skipDefaultLibCheck: TypeScript's own lib files are not re-checked (5 of
    the 9 s tsc took at load 3, 2026-11-28), the package's declarations still are
    (skipLibCheck stays false: a planted error in js/index.d.ts fails the compile)."""
    _run(["npm", "init", "-y"], path, env)
    _run(["npm", "pkg", "set", "type=module"], path, env)
    _run(["npm", "install", "--offline", "--no-audit", "--no-fund", str(PACKAGE)], path, env)
    for source in PROJECT.iterdir():
        shutil.copy(source, path / source.name)
    (path / "examples").mkdir()
    for example in EXAMPLES.glob("*.mjs"):
        text = example.read_text("utf-8").replace('"../../../js/src/index.mjs"',
                                                   '"pytest-toolcall-node"')
        (path / "examples" / example.name).write_text(text, "utf-8")
    _run([_tsc(), "-p", "."], path, env)


_FRESH = ("npx pytest-toolcall-node chat=./dist/adapter.js#complete "
          "profile=./dist/adapter.js#profile fallback=./dist/collector.js#extract")


def _fresh_project_runs(where: Path, env: Mapping[str, str],
                        ) -> tuple[pytest.RunResult, pytest.RunResult]:
    """The project made and its two sessions run, as a user in a fresh folder would (with a
    HOME of its own, as pytester gives its runs). Nearly all of it waits on npm, tsc and the
    Node child: it may run ahead, beside other tests (tests/background.py)."""
    project, home = where / "project", where / "project-home"
    project.mkdir()
    home.mkdir(exist_ok=True)
    typescript_project(project, {**env, "HOME": str(home), "USERPROFILE": str(home)})
    # the families the child implements (loop and history run the kit's references: not this
    # test's subject, and loop.cancelled_tools_stopped is timing-bound on a loaded machine)
    result = run_pytest(project, env, "--toolcall-provider=openai", "-p", "no:cacheprovider",
                        "--toolcall-cases=wire.*,errors.*,stream.*,fallback.*",
                        f"--toolcall-command={_FRESH}")
    # the negative control: the same project with its collector reading only the whole text
    broken = run_pytest(project, {**env, "COLLECTOR_BUG": "whole_text_only"},
                        "--toolcall-provider=openai", "-p", "no:cacheprovider",
                        "--toolcall-cases=fallback.json_in_prose", f"--toolcall-command={_FRESH}")
    return result, broken


@needs_node
@needs_npm
@needs_tsc
@ahead(lambda: Job("a fresh TypeScript project", _fresh_project_runs))
def test_a_fresh_typescript_project_is_tested_with_one_command(ahead_run):
    (result, broken), _ = ahead_run
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0 and outcomes.get("errors", 0) == 0, result.stdout.str()
    assert outcomes["passed"] >= 50  # wire, errors and fallback run in the child
    result.stdout.fnmatch_lines(["adapter under test: pytest_toolcall.run.foreign.ForeignAdapter",
                                 "structured output under test: *ForeignStructured"])
    broken.assert_outcomes(failed=1)
    broken.stdout.fnmatch_lines(["*fallback.json_in_prose*fallback.channel*"])


# -- the node:test bridge -----------------------------------------------------------------------
def _bridge_run(bug: str, where: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess:
    # node --test and the kit's session under it, waited on: it may run ahead, beside other
    # tests (tests/background.py)
    bridge = (PACKAGE / "src" / "node-test.mjs").as_uri()
    command = _runner_command().replace(" profile=", " --name bridge profile=")
    (where / "conformance.test.mjs").write_text(
        f"import {{ toolcallSuite }} from {json.dumps(bridge)};\n"
        f"await toolcallSuite({{ provider: 'openai', command: {json.dumps(command)},\n"
        "  args: ['--toolcall-cases=wire.text_and_calls,fallback.tool_first'] });\n", "utf-8")
    env = {**env, "PYTHON": sys.executable, "PYTHONPATH": str(ROOT), "TOOLCALL_EXAMPLE_BUG": bug}
    return subprocess.run(["node", "--test", "conformance.test.mjs"], cwd=where, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


@needs_node
@pytest.mark.parametrize("bug,expected", [
    ("", ["ok 1 - toolcall::fallback.tool_first[openai]", "# fail 0"]),
    ("merge_calls", ["not ok 2 - toolcall::wire.text_and_calls[openai]",
                     "[response.tool_calls.count] (must) toolcall::wire.text_and_calls[openai]",
                     "hint: ", "# fail 1"]),
])
@ahead(lambda bug: Job(f"the node:test bridge, bug {bug!r}",
                       functools.partial(_bridge_run, bug)))
def test_the_node_test_bridge_reports_one_test_per_case(bug, expected, ahead_run):
    done, _ = ahead_run
    assert (done.returncode == 0) == (not bug), done.stdout[-3000:]
    for line in expected:
        assert line in done.stdout, done.stdout[-3000:]


@needs_node
def test_the_runners_log_keeps_the_stderr_of_a_passing_run(pytester, tmp_path):
    log = tmp_path / "child.log"
    logger = tmp_path / "logger.mjs"
    adapter = (EXAMPLES / "openai_adapter.mjs").as_uri()
    logger.write_text(f"import {{ sendMessages }} from {json.dumps(adapter)};\n"
                      "export async function complete(request, endpoint) {\n"
                      "  console.log('said on stdout by the code under test');\n"
                      "  console.error('seen on stderr');\n"
                      "  return sendMessages(request, endpoint);\n}\n")
    result = pytester.runpytest_subprocess("--toolcall-provider=openai", "-p", "no:cacheprovider",
                                "--toolcall-cases=wire.text_and_calls",
                                f"--toolcall-command=node {RUNNER} --log {log} "
                                f"--profile '{{\"streaming\":false}}' chat={logger}#complete")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0 and outcomes.get("errors", 0) == 0, result.stdout.str()
    assert outcomes.get("passed") == 1
    text = log.read_text()
    # console.log went to stderr (no protocol fault), and both lines reached the log
    assert "said on stdout by the code under test" in text and "seen on stderr" in text

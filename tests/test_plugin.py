"""The plugin, black-box: what a user of pytest-toolcall types and sees, run through pytester.

Every run here is a pytest session in a temporary project; the plugin is loaded there through its
pytest11 entry point, exactly as in a user's project.
"""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path

# Imported here, before any pytester run, for speed: an in-process run drops the modules it
# imported itself, and pytest assertion-rewrites the packages of entry-point plugins (hypothesis's
# included), so each run would import and rewrite them all over again.
import hypothesis.strategies  # noqa: F401
import pytest
from background import Job, ahead, run_pytest

import pytest_toolcall.plugins.suite
import pytest_toolcall.run.checks
import pytest_toolcall.providers.openai.dialect
import pytest_toolcall.run.looprun
import pytest_toolcall.reference.history
import pytest_toolcall.reference.loop
import pytest_toolcall.providers.openai.reference
import pytest_toolcall.run.scripted
import pytest_toolcall.cases.strategies
import pytest_toolcall.cases.tools
import pytest_toolcall.run.trace  # noqa: F401
from pytest_toolcall.cases import default_registry
from pytest_toolcall.providers.base import DIALECT_NAMES
from pytest_toolcall.plugin import TRANSPORTS

default_registry()  # imports the conformance package

PROVIDER = "--toolcall-provider=openai"


def openai_cases(*patterns: str) -> list[str]:
    """Ids of the registered cases the suite runs for openai (all when no pattern)."""
    return [c.id for c in default_registry().select(patterns, "openai")]


def collected(result: pytest.RunResult) -> list[str]:
    """The suite item ids listed by --collect-only -q."""
    return [line for line in result.outlines if line.startswith("toolcall::")]


def suite_ids(result: pytest.RunResult, outcome: str) -> set[str]:
    """Case ids of the suite items reported with ``outcome`` (FAILED, ERROR, ...) in -rA lines."""
    found = re.findall(rf"^{outcome} toolcall::([a-z0-9_.]+)\[openai\]", result.stdout.str(),
                       re.MULTILINE)
    return set(found)


# An adapter author's own adapter, written on httpx the way a user would write it: sync, no
# streaming, and with one deliberate bug: it keeps only the first tool call of a response.
MY_ADAPTER = '''
import pytest
from pytest_toolcall import ChatResponse, ProviderError, ToolCall, Usage

REQUESTS = []


class MyOpenAIAdapter:
    def __init__(self, base_url, api_key, client):
        self.url, self.client = base_url + "/chat/completions", client
        self.headers = {"authorization": f"Bearer {api_key}"}

    def complete(self, request):
        body = {"model": request.model or "gpt-4o-mini",
                "messages": [self.message(m) for m in request.messages]}
        if request.tools:
            body["tools"] = [{"type": "function", "function": {
                "name": t.name, "description": t.description, "parameters": t.parameters,
                **({"strict": t.strict} if t.strict is not None else {})}} for t in request.tools]
            choice = request.tool_choice
            if choice is not None:
                body["tool_choice"] = choice if isinstance(choice, str) else {
                    "type": "function", "function": {"name": choice.name}}
            if request.parallel_tool_calls is not None:
                body["parallel_tool_calls"] = request.parallel_tool_calls
        REQUESTS.append(body)
        response = self.client.post(self.url, headers=self.headers, json=body)
        if response.status_code >= 400:
            try:
                words = response.json()["error"]["message"]
            except ValueError:  # not JSON: a gateway's page
                words = response.text
            raise ProviderError(words, status=response.status_code)
        data = response.json()
        try:
            choice = data["choices"][0]
            message, usage = choice["message"], data.get("usage") or {}
        except (KeyError, IndexError, TypeError):  # a 200 that is not an answer
            raise ProviderError(f"no answer: {response.text[:200]}") from None
        calls = [ToolCall.from_raw(id=c["id"], name=c["function"]["name"],
                                   arguments=c["function"]["arguments"])
                 for c in message.get("tool_calls") or []]
        finish = choice.get("finish_reason")
        known = ("stop", "tool_calls", "length", "content_filter")
        return ChatResponse(text=message.get("content"), tool_calls=calls[:1],  # the bug
                            finish_reason=(finish if finish in known else "other")
                            if finish else None,
                            usage=Usage(input_tokens=usage.get("prompt_tokens"),
                                        output_tokens=usage.get("completion_tokens"),
                                        total_tokens=usage.get("total_tokens")))

    @staticmethod
    def message(m):
        out = {"role": m.role, "content": m.content}
        if m.role == "assistant" and m.tool_calls:
            out["tool_calls"] = [{"id": c.id, "type": "function", "function": {
                "name": c.name, "arguments": c.arguments_json()}} for c in m.tool_calls]
        if m.role == "tool":
            out["tool_call_id"] = m.tool_call_id
        return out


@pytest.fixture
def toolcall_adapter(toolcall_endpoint):
    return MyOpenAIAdapter(toolcall_endpoint.base_url, toolcall_endpoint.api_key,
                           toolcall_endpoint.client)


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"my adapter sent {len(REQUESTS)} requests")
'''


def multi_call_wire_cases() -> set[str]:
    """The wire cases in which the model makes more than one call: those MY_ADAPTER breaks."""
    return {c.id for c in default_registry().select(["wire.*"], "openai")
            if any(len(step.reply.tool_calls) > 1 for step in c.steps)}


# -- 1. the adapter author's flow ----------------------------------------------------------------
@pytest.mark.parametrize("where", ["conftest.py", "tests/conftest.py"])
def test_suite_runs_against_the_authors_adapter(pytester: pytest.Pytester, where: str) -> None:
    # no test files of the author's own: the conftest is all there is
    pytester.path.joinpath(where).parent.mkdir(exist_ok=True)
    pytester.path.joinpath(where).write_text(MY_ADAPTER)
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.*", "-rA")

    broken = multi_call_wire_cases()
    wire = openai_cases("wire.*")
    # the author declared no profile: the answer shapes other servers send and OpenAI never
    # does are not claimed for their adapter (issue 28), and skip
    quirks = {c.id for c in default_registry().select(["wire.*"], "openai") if c.quirk}
    assert broken and quirks and len(broken) + len(quirks) < len(wire)
    assert not broken & quirks
    passed = len(wire) - len(broken) - len(quirks)
    result.assert_outcomes(passed=passed, failed=len(broken), skipped=len(quirks))
    assert suite_ids(result, "FAILED") == broken
    # their adapter, not the reference one, made the requests: it counted them
    sent = int(re.search(r"my adapter sent (\d+) requests", result.stdout.str()).group(1))
    assert sent >= len(wire)
    result.stdout.fnmatch_lines([
        "*pytest-toolcall conformance summary*",
        "family*provider*passed*failed*error*skipped*xfailed*xpassed",
        f"wire*openai*{passed}*{len(broken)}*0*{len(quirks)}*0*0",
        "adapter under test: conftest.MyOpenAIAdapter",
        "broken clauses (your implementation):",
        "  wire.parallel_calls[openai]: response.tool_calls.count (must)",
    ])
    # the failure block names the clause and shows where the lost calls went
    result.stdout.fnmatch_lines([
        ("[[]response.tool_calls.count[]] step 1: the model made 3 tool call(s), the adapter "
        "returned 1"),
        "  conformance failure in case wire.parallel_calls (openai, sync interface)",
        "*✗ parsed     not among the 1 call(s) the adapter returned",
    ])


def test_overrides_in_unrelated_directories_are_a_usage_error(pytester: pytest.Pytester) -> None:
    fixture = ("import pytest\n@pytest.fixture\ndef toolcall_adapter(toolcall_endpoint):\n"
               "    raise AssertionError('never used')\n")
    for sub in ("a", "b"):
        pytester.mkdir(sub).joinpath("conftest.py").write_text(fixture)
    pytester.makepyfile(**{"a/test_a": "def test_a(): pass", "b/test_b": "def test_b(): pass"})
    result = pytester.runpytest_inprocess(PROVIDER)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([
        ("*overridden in conftest.py files of unrelated directories: a/conftest.py "
        "(toolcall_adapter); b/conftest.py (toolcall_adapter)*move the overrides into one*")])


def test_test_module_override_stays_local(pytester: pytest.Pytester) -> None:
    # a module's own toolcall_adapter is for that module's tests; the suite keeps its adapter
    pytester.makepyfile(test_mine="""
        import pytest
        @pytest.fixture
        def toolcall_adapter():
            return "my module's stand-in"
        def test_uses_it(toolcall_adapter):
            assert toolcall_adapter == "my module's stand-in"
    """)
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.single_call")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        ["adapter under test: pytest_toolcall.providers.openai.reference.OpenAIChatAdapter"])


# -- 2. options -----------------------------------------------------------------------------------
def test_unknown_provider_lists_the_valid_ones(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess("--toolcall-provider=opneai")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([(f"*unknown provider 'opneai'. Valid providers: "
                                 f"{', '.join(DIALECT_NAMES)}, or 'all'*")])
    result.stderr.fnmatch_lines(["*(by family: anthropic: anthropic; gemini: gemini, vertex;*"])


def test_bad_transport_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-transport=carrier-pigeon")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--toolcall-transport: invalid choice: 'carrier-pigeon'*"
                                 + "*".join(TRANSPORTS) + "*"])


def test_bad_transport_in_ini_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntoolcall_transport = tcp\n")
    result = pytester.runpytest_inprocess(PROVIDER)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*toolcall_transport = 'tcp': use one of*inprocess*loopback*"])


def test_cases_glob_selects(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=stream.*",
                                          "--collect-only", "-q")
    listed = collected(result)
    assert listed == [f"toolcall::{case}[openai]" for case in openai_cases("stream.*")]
    assert len(listed) < len(openai_cases())


def test_cases_glob_that_matches_nothing_names_the_pattern(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.single_call,strem.*")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines([
        "*pytest-toolcall could not collect the suite:",
        "*the pattern 'strem.*' matches no case for openai*families: errors, fallback, history, loop, stream, wire*",
    ])
    result.assert_outcomes(errors=1)


# -- 3. adapter shape and profile -----------------------------------------------------------------
def test_adapter_without_complete_is_a_setup_error(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        import pytest
        class HalfDone:
            def stream(self, request):
                return iter(())
        @pytest.fixture
        def toolcall_adapter():
            return HalfDone()
    """)
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.single_call,"
                                          "wire.text_only")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines([
        "*ERROR at setup of wire.single_call (openai)*",
        "pytest-toolcall could not run this case (fix the setup):",
        ("  the toolcall_adapter fixture returned a HalfDone object, which is not a ChatAdapter: "
        "it needs a complete(request) method or an async acomplete(request) method "
        "(it has: stream)"),
        "  (toolcall_adapter is defined at conftest.py:*)",
    ])
    result.stdout.fnmatch_lines([
        "could not run (setup or kit errors, not verdicts on the implementation):",
        "  wire.single_call[[]openai[]]",
        "  wire.text_only[[]openai[]]",
    ])
    assert "conformance failure" not in result.stdout.str()
    assert "Traceback" not in result.stdout.str()


def test_claimed_streaming_without_stream_method_fails(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        import pytest
        from pytest_toolcall import Profile
        from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter
        class NoStream(OpenAIChatAdapter):
            stream = astream = None
        @pytest.fixture
        def toolcall_adapter(toolcall_endpoint):
            return NoStream.from_endpoint(toolcall_endpoint)
        @pytest.fixture
        def toolcall_profile():
            return Profile(streaming=True)
    """)
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=stream.zero_args,"
                                          "wire.single_call")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([
        ("[[]profile.claims.stream[]] the profile claims streaming, but the adapter has no "
        "stream() method*"),
        "  stream.zero_args[[]openai[]]: profile.claims.stream (must)",
    ])


@pytest.mark.parametrize(("profile", "problem"), [
    ({"streamin": True}, "streamin: Extra inputs are not permitted"),
    ({"timeout": -1}, "timeout: Input should be greater than 0"),
])
def test_invalid_profile_dict_names_the_field(pytester: pytest.Pytester, profile: dict,
                                             problem: str) -> None:
    pytester.makeconftest(f"""
        import pytest
        @pytest.fixture
        def toolcall_profile():
            return {profile!r}
    """)
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.single_call")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([
        "pytest-toolcall could not run this case (fix the setup):",
        f"  the toolcall_profile fixture is invalid: {problem}*",
    ])


# -- 4. adapters that raise, hang or return garbage -----------------------------------------------
def test_adapter_that_raises(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        import pytest
        from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter
        class Exploding(OpenAIChatAdapter):
            def parse_response(self, data):
                raise RuntimeError("my parser exploded")
        @pytest.fixture
        def toolcall_adapter(toolcall_endpoint):
            return Exploding.from_endpoint(toolcall_endpoint)
    """)
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.single_call")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "[[]adapter.raised[]] the adapter raised in step 1 on a valid provider answer",
        "  conformance failure in case wire.single_call (openai, sync interface)",
        "  got:      RuntimeError: my parser exploded (at conftest.py:* in parse_response)",
        "  trace (where each tool call went):",
        "    call_001 get_weather (step 1)",
        "      ✓ emitted    by the model: *",
        "      ✗ parsed     the adapter raised RuntimeError: my parser exploded*",
    ])
    # a verdict on the implementation, never dressed as a kit problem
    assert "pytest-toolcall could not run" not in result.stdout.str()


def test_adapter_that_hangs_times_out_quickly(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        import time
        import pytest
        from pytest_toolcall import Profile
        class Sleepy:
            def complete(self, request):
                time.sleep(10)
        @pytest.fixture
        def toolcall_adapter():
            return Sleepy()
        @pytest.fixture
        def toolcall_profile():
            return Profile(timeout=0.2)  # the adapter is the broken one: a short deadline
    """)
    started = time.perf_counter()
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.text_only")
    assert time.perf_counter() - started < 5  # did not wait the 10 s out
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["[[]adapter.timeout[]] the adapter did not return within 0.2s*",
                                 "  conformance failure in case wire.text_only*"])


def test_adapter_that_returns_garbage(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        import pytest
        class Garbage:
            def complete(self, request):
                return "it's fine, trust me"
        @pytest.fixture
        def toolcall_adapter():
            return Garbage()
    """)
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.text_only")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "[[]adapter.result[]] complete() returned something that is not a ChatResponse",
        "  conformance failure in case wire.text_only (openai, sync interface)",
        "  got:      str: \"it's fine, trust me\"",
        "  wire.text_only[[]openai[]]: adapter.result (must)",
    ])


# -- 5. user cases --------------------------------------------------------------------------------
USER_CASE = """
import pytest
from pytest_toolcall import ChatRequest, ScriptedCall, Step, ToolSpec, Turn, UserMessage, make_case
from pytest_toolcall.run.checks import matches_script

def pytest_toolcall_cases(config):
    return [make_case(
        id={case_id!r}, title="Oslo weather", why="our product asks this a lot",
        needs={needs!r},
        steps=(Step(request=ChatRequest(messages=(UserMessage(content="Weather in Oslo?"),),
                                        tools=(ToolSpec(name="get_weather"),)),
                    reply=Turn(tool_calls=(ScriptedCall(name="get_weather",
                                                        arguments={{"city": "Oslo"}},
                                                        id="call_oslo"),))),),
        checks=(matches_script,))]
"""


def test_user_case_runs_like_builtins(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(USER_CASE.format(case_id="mine.oslo_weather", needs=set()))
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=mine.*", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["toolcall::mine.oslo_weather[[]openai[]] PASSED*",
                                 "mine*openai*1*0*0*0*0*0"])

    # and its checks give verdicts: an adapter that loses the call fails it with the clause
    pytester.makepyfile(conftest=USER_CASE.format(case_id="mine.oslo_weather", needs=set()) + """
from pytest_toolcall import ChatResponse
class Forgetful:
    def complete(self, request):
        return ChatResponse(text="no idea", finish_reason="stop")
@pytest.fixture
def toolcall_adapter():
    return Forgetful()
""")
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=mine.*")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([("[[]request.sent[]] the adapter returned in step 1 without "
                                 "sending a request"),
                                 "  conformance failure in case mine.oslo_weather (openai, sync*",
                                 "  mine.oslo_weather[[]openai[]]: request.sent (must)"])


@pytest.mark.parametrize(("conftest", "message"), [
    (USER_CASE.format(case_id="Mine Oslo", needs=set()),
     ("*case 'Mine Oslo' is malformed: id: *id must be '<family>.<name>' in lower case*"
     "(from the pytest_toolcall_cases hook in conftest.py)")),
    (USER_CASE.format(case_id="mine.oslo", needs={"teleport"}),
     ("*case 'mine.oslo' is malformed: needs: *unknown capabilities [[]'teleport'[]]*"
     "(from the pytest_toolcall_cases hook in conftest.py)")),
    (USER_CASE.format(case_id="Mine Oslo", needs=set()).replace("make_case(", "Case(")
     .replace("import pytest", "import pytest\nfrom pytest_toolcall import Case"),
     "*case 'Mine Oslo' is malformed: id: *(from the pytest_toolcall_cases hook in conftest.py)"),
], ids=["bad-id", "unknown-capability", "Case-directly"])
def test_malformed_user_case_is_a_clear_collection_error(pytester: pytest.Pytester,
                                                          conftest: str, message: str) -> None:
    pytester.makeconftest(conftest)
    result = pytester.runpytest_inprocess(PROVIDER)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*ERROR collecting toolcall*",
                                 "pytest-toolcall could not collect the suite:", message])
    out = result.stdout.str()
    assert "Traceback" not in out and "_suite.py" not in out and "pydantic" not in out


# -- 6. known gaps --------------------------------------------------------------------------------
TRUNCATION_BUG = """
import pytest
from pytest_toolcall import Profile
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter, StreamAccumulator

class Trusting(StreamAccumulator):
    def close(self):
        return () if self.done else self.finish_events()   # the bug: a cut stream looks done

class TrustingAdapter(OpenAIChatAdapter):
    def new_accumulator(self):
        return Trusting(self)
"""
BUGGY_FIXTURE = """
@pytest.fixture
def toolcall_adapter(toolcall_endpoint):
    return TrustingAdapter.from_endpoint(toolcall_endpoint)
"""
GAP = "we do not detect truncation yet"


@pytest.mark.parametrize("declared", ["ini", "profile", "marker"])
@pytest.mark.parametrize("buggy", [True, False], ids=["adapter-with-the-gap", "reference"])
def test_known_gaps(pytester: pytest.Pytester, declared: str, buggy: bool) -> None:
    conftest = TRUNCATION_BUG + (BUGGY_FIXTURE if buggy else "")
    if declared == "ini":
        pytester.makeini(f"[pytest]\ntoolcall_known_gaps =\n    stream.truncated: {GAP}\n")
    elif declared == "profile":
        conftest += ("@pytest.fixture\ndef toolcall_profile():\n"
                     f"    return Profile(known_gaps={{'stream.trunc*': {GAP!r}}})\n")
    else:
        conftest += ("def pytest_collection_modifyitems(items):\n    for item in items:\n"
                     "        if item.get_closest_marker('toolcall'):\n"
                     "            item.add_marker(pytest.mark.toolcall_known_gap("
                     f"'stream.truncated', reason={GAP!r}))\n")
    pytester.makeconftest(conftest)
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=stream.truncated,"
                                          "stream.zero_args", "-rxX")
    if buggy:
        result.assert_outcomes(passed=1, xfailed=1)
        result.stdout.fnmatch_lines([(f"XFAIL toolcall::stream.truncated[[]openai[]] - "
                                     f"known gap: {GAP}")])
        assert result.ret == pytest.ExitCode.OK
    else:
        # the gap is closed: the strict xfail turns the unexpected pass into a failure
        result.assert_outcomes(passed=1, failed=1)
        result.stdout.fnmatch_lines([f"*[[]XPASS(strict)[]] known gap: {GAP}*"])
        assert result.ret == pytest.ExitCode.TESTS_FAILED


# -- 7. ini twins and transports ------------------------------------------------------------------
RECORD_ENDPOINTS = """
import pytest
from urllib.parse import urlsplit
SEEN = set()
@pytest.fixture(autouse=True)
def _record(request):
    if "toolcall_endpoint" in request.fixturenames:
        SEEN.add(urlsplit(request.getfixturevalue("toolcall_endpoint").base_url).hostname)
def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"endpoints: {sorted(SEEN)}")
"""


def test_provider_from_ini(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntoolcall_provider = openai\ntoolcall_cases = wire.text_only\n")
    result = pytester.runpytest_inprocess("-v")
    result.stdout.fnmatch_lines(["toolcall::wire.text_only[[]openai[]] PASSED*"])
    result.assert_outcomes(passed=1)


def test_provider_cli_beats_ini(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntoolcall_provider = no-such-provider\n")
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.text_only")
    result.assert_outcomes(passed=1)


def test_cases_from_ini(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntoolcall_cases = wire.text_only\n")
    result = pytester.runpytest_inprocess(PROVIDER, "--collect-only", "-q")
    assert collected(result) == ["toolcall::wire.text_only[openai]"]


def test_cases_cli_beats_ini(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntoolcall_cases = wire.text_only\n")
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.usage",
                                          "--collect-only", "-q")
    assert collected(result) == ["toolcall::wire.usage[openai]"]


def test_transport_from_ini(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(RECORD_ENDPOINTS)
    pytester.makeini("[pytest]\ntoolcall_transport = loopback\n")
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.text_only")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["endpoints: [[]'127.0.0.1'[]]"])


def test_transport_cli_beats_ini(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(RECORD_ENDPOINTS)
    pytester.makeini("[pytest]\ntoolcall_transport = loopback\n")
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.text_only",
                                          "--toolcall-transport=inprocess")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["endpoints: [[]'toolcall.fake'[]]"])


def test_loopback_transport_runs_the_suite_over_http(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(RECORD_ENDPOINTS)
    # a cross-section, for speed (each loopback item starts a server): plain, parallel, errors,
    # a second turn, and streams that are interleaved, cut short and broken off
    patterns = ("wire.single_call", "wire.parallel_calls", "wire.provider_error",
                "wire.second_turn_passthrough", "stream.parallel_interleaved", "stream.truncated",
                "stream.mid_stream_error", "stream.usage_chunk")
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-transport=loopback",
                                          f"--toolcall-cases={','.join(patterns)}")
    result.assert_outcomes(passed=len(openai_cases(*patterns)))
    result.stdout.fnmatch_lines(["endpoints: [[]'127.0.0.1'[]]"])


# -- 8. xdist -------------------------------------------------------------------------------------
def _xdist_run(where: Path, env: Mapping[str, str]) -> pytest.RunResult:
    # a session of three processes that waits on them: it may run ahead (tests/background.py)
    (where / "project").mkdir()
    (where / "project" / "test_mine.py").write_text("def test_mine(): pass\n")
    return run_pytest(where / "project", env, "-n", "2", PROVIDER, "-p", "no:cacheprovider")


@ahead(lambda: Job("the suite under xdist", _xdist_run))
def test_xdist(ahead_run: tuple[pytest.RunResult, Path]) -> None:
    result, _ = ahead_run
    total = len(openai_cases())
    result.assert_outcomes(passed=total + 1)
    result.stdout.fnmatch_lines([
        "*pytest-toolcall conformance summary*",
        f"{total} case runs: {total} passed",
        "adapter under test: pytest_toolcall.providers.openai.reference.OpenAIChatAdapter",
    ])


# -- 9. help, markers, junit ----------------------------------------------------------------------
def test_help_shows_the_group(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess("--help")
    result.stdout.fnmatch_lines([
        "pytest-toolcall: conformance suite for LLM tool calling (more in the pytest-toolcall "
        "groups below):",
        "*--toolcall-provider=NAME[[],NAME[]]*",
        "*run the conformance suite against this provider's wire*",
        "*--toolcall-cases=GLOB[[],GLOB[]]*",
        "*only the cases whose id matches one of these globs*",
        "pytest-toolcall: how the suite runs*",
        "*--toolcall-transport={inprocess,loopback}",
        "*how adapters reach the fake provider*",
    ])
    result.stdout.fnmatch_lines(["  toolcall_provider (string):", "*default for --toolcall-provider",
                                 "  toolcall_cases (string):", "*default for --toolcall-cases",
                                 "  toolcall_transport (string):",
                                 "*default for --toolcall-transport",
                                 "  toolcall_known_gaps (linelist):",
                                 "*known gaps, one 'case-glob: reason' per line*"])


def test_markers_are_listed(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess("--markers")
    result.stdout.fnmatch_lines([
        "@pytest.mark.toolcall: an item of the pytest-toolcall suite",
        "@pytest.mark.toolcall_known_gap(case, reason): the matching cases xfail*",
    ])


def test_junitxml_carries_case_provider_and_clause(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        import pytest
        class Garbage:
            def complete(self, request):
                return 42
        @pytest.fixture
        def toolcall_adapter():
            return Garbage()
    """)
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.text_only",
                                          "--junitxml=report.xml")
    result.assert_outcomes(failed=1)
    case = ET.parse(pytester.path / "report.xml").getroot().find(".//testcase")
    assert case is not None and case.find("failure") is not None
    properties = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert properties["toolcall_case"] == "wire.text_only"
    assert properties["toolcall_provider"] == "openai"
    assert properties["toolcall_clause"] == "adapter.result"


# -- 10. ids and selection ------------------------------------------------------------------------
def test_ids_markers_and_collect_only(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_mine="def test_mine(): pass")
    result = pytester.runpytest_inprocess(PROVIDER, "--collect-only", "-q")
    listed = result.outlines[:len(openai_cases()) + 1]
    assert listed == ["test_mine.py::test_mine"] + [f"toolcall::{c}[openai]"
                                                   for c in openai_cases()]
    assert "toolcall::wire.single_call[openai]" in listed

    result = pytester.runpytest_inprocess(PROVIDER, "-m", "toolcall", "--toolcall-cases=wire.*",
                                          "-q")
    result.assert_outcomes(passed=len(openai_cases("wire.*")), deselected=1)
    result = pytester.runpytest_inprocess(PROVIDER, "-m", "not toolcall", "-q")
    result.assert_outcomes(passed=1, deselected=len(openai_cases()))


def test_without_provider_no_suite(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_mine="def test_mine(): pass")
    result = pytester.runpytest_inprocess()
    result.assert_outcomes(passed=1)
    assert "pytest-toolcall conformance summary" not in result.stdout.str()


def test_known_gap_that_matches_no_case_warns(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntoolcall_known_gaps =\n    strem.truncated: a typo\n")
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.single_call")
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(["*toolcall_known_gaps: 'strem.truncated' matches no case*"])


def test_user_loop_fixture_is_the_subject(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        import pytest
        from pytest_toolcall.core.loop import LoopResult

        class GivesUpAtOnce:
            def run(self, request):
                return LoopResult(stop_reason="completed", text="done")

        @pytest.fixture
        def toolcall_loop():
            return GivesUpAtOnce()
    """)
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=loop.all_failure_rounds,"
                                          "loop.iteration_cap,wire.single_call")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines([
        "*tool loop under test: conftest.GivesUpAtOnce*",
        "*loop.all_failure_rounds*loop.stop_reason*",
        "*loop.iteration_cap*loop.stop_reason*",
    ])


def test_loop_fixture_without_run_is_a_setup_error(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        import pytest

        @pytest.fixture
        def toolcall_loop():
            return object()
    """)
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=loop.mixed_batch")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*it needs run(request) or async arun(request)*"])


def test_history_fixture_is_the_subject(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        import pytest

        class KeepsEverything:
            def build(self, stored):
                return list(stored)

        @pytest.fixture
        def toolcall_history():
            return KeepsEverything()
    """)
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=history.orphan_results")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*[[]history.orphan_dropped[]] an orphan result was sent*",
                                 "*history builder under test: conftest.KeepsEverything*"])


@pytest.mark.parametrize("where", ["cli", "ini"])
def test_loop_model_fake_runs_the_loop_over_the_wire(pytester: pytest.Pytester,
                                                      where: str) -> None:
    args = [PROVIDER, "--toolcall-cases=loop.mixed_batch,loop.duplicate_call_id"]
    if where == "cli":
        args.append("--toolcall-loop-model=fake")
    else:
        pytester.makeini("[pytest]\ntoolcall_loop_model = fake\n")
    result = pytester.runpytest_inprocess(*args)
    result.assert_outcomes(passed=2)


def test_bad_loop_model_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntoolcall_loop_model = remote\n")
    result = pytester.runpytest_inprocess(PROVIDER)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*toolcall_loop_model = 'remote': use one of*"])


@pytest.mark.parametrize("where", ["root", "tests"])
def test_module_scoped_autouse_fixture_works_for_suite_items(pytester: pytest.Pytester,
                                                              where: str) -> None:
    """Issue 17: a module- or package-scoped autouse fixture in the user's conftest.py needs a
    Module above each suite item; without one every case errored inside pytest."""
    conftest = """
        import pytest
        SEEN = []

        @pytest.fixture(scope="module", autouse=True)
        def module_setup():
            SEEN.append("module")
            yield

        @pytest.fixture(scope="package", autouse=True)
        def package_setup():
            yield

        @pytest.fixture(scope="class", autouse=True)
        def class_setup():
            yield

        def pytest_sessionfinish(session):
            print("module fixture ran", len(SEEN), "time(s)")
    """
    if where == "root":
        pytester.makeconftest(conftest)
    else:
        pytester.makepyfile(**{"tests/conftest": conftest})
        pytester.makepyfile(**{"tests/test_mine": "def test_mine(): pass"})
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.single_call,stream.*",
                                          "-s")
    result.assert_outcomes(passed=result.parseoutcomes()["passed"])
    assert "Could not obtain a node" not in result.stdout.str()
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*module fixture ran 1 time(s)*"])


def test_rerun_by_the_node_id_pytest_prints(pytester: pytest.Pytester) -> None:
    """Issue 17: `pytest "toolcall::wire.single_call[openai]"` reran nothing ("file or directory
    not found"); it now selects exactly that item, and a user test file beside it still runs."""
    pytester.makepyfile(test_mine="def test_mine(): pass")
    result = pytester.runpytest_inprocess(PROVIDER, "toolcall::wire.single_call[openai]",
                                          "test_mine.py", "-v")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*toolcall::wire.single_call*PASSED*"])


@pytest.mark.parametrize("testpaths", [True, False])
def test_rerun_by_node_id_alone_sees_an_override_in_tests_conftest(
        pytester: pytest.Pytester, testpaths: bool) -> None:
    """Issue 17: with the adapter override in tests/conftest.py, node ids as the only arguments
    left pytest nothing to collect, tests/conftest.py was never loaded and the run stopped with
    "the directory 'tests' was not collected". The directories pytest walks without arguments
    are walked for their conftest.py files; the user's test files do not run."""
    pytester.mkdir("tests").joinpath("conftest.py").write_text(MY_ADAPTER)
    pytester.makepyfile(**{"tests/test_mine": "def test_mine(): raise AssertionError('ran')"})
    if testpaths:
        pytester.makeini("[pytest]\ntestpaths = tests\n")
    result = pytester.runpytest_inprocess("toolcall::wire.parallel_calls[openai]",
                                          "toolcall::wire.single_call[openai]", "-v")
    out = result.stdout.str()
    assert "was not collected" not in out, out
    result.assert_outcomes(passed=1, failed=1)  # MY_ADAPTER keeps only the first call
    result.stdout.fnmatch_lines(["*adapter under test: conftest.MyOpenAIAdapter"])
    assert "test_mine" not in out, out


def test_a_node_id_without_its_provider_is_a_usage_error(pytester: pytest.Pytester) -> None:
    """Issue 17: `pytest 'toolcall::wire.single_call'` said "no tests ran" in silence."""
    result = pytester.runpytest_inprocess("toolcall::wire.single_call")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    result.stderr.fnmatch_lines([
        "ERROR: pytest-toolcall: the node id 'toolcall::wire.single_call' names no provider. "
        "A suite item's node id is 'toolcall::<case id>[[]<provider>[]]'*"
        "'toolcall::wire.single_call[[]openai[]]'; or keep the id and name the provider with "
        "--toolcall-provider=NAME*"])
    # with a configured provider the id runs for it
    result = pytester.runpytest_inprocess("toolcall::wire.single_call", PROVIDER, "-v")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*toolcall::wire.single_call[[]openai[]] PASSED*"])


def test_a_node_id_that_names_no_item_is_an_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess("toolcall::wire.no_such_case[openai]")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    result.stderr.fnmatch_lines(["ERROR: pytest-toolcall: not found: "
                                 "toolcall::wire.no_such_case[[]openai[]] (no suite item*"])


def test_the_rerun_hint_is_a_command_that_runs(pytester: pytest.Pytester) -> None:
    """Issue 17: the hint printed `pytest --toolcall-provider=... --lf`, a placeholder. It names
    the run's providers and the kit options given (not the report), and runs as printed."""
    import shlex

    pytester.makeconftest(MY_ADAPTER)
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases",
                                          "wire.single_call,wire.parallel_calls",
                                          "--toolcall-report", "out")
    result.assert_outcomes(passed=1, failed=1)
    line = next(line for line in result.outlines if line.startswith("re-run one case:"))
    assert line == ("re-run one case: pytest 'toolcall::wire.parallel_calls[openai]'   (all that "
                    "failed: pytest --toolcall-provider=openai --toolcall-cases "
                    "wire.single_call,wire.parallel_calls --lf)"), line
    command = shlex.split(line.partition("(all that failed: ")[2].rstrip(")"))
    assert command[0] == "pytest"
    again = pytester.runpytest_inprocess(*command[1:])
    assert again.parseoutcomes() == {"failed": 1, "deselected": 1}, again.stdout.str()
    # without the cache there is no --lf: the hint names only the one case
    quiet = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.parallel_calls",
                                         "-p", "no:cacheprovider")
    assert any(line == "re-run one case: pytest 'toolcall::wire.parallel_calls[openai]'"
               for line in quiet.outlines), quiet.stdout.str()

"""What a user reads (issue 32): value lines of a sane width, the broken-clause list sorted,
``-rs`` naming the case, ``--lf`` without the provider not passing in silence, a short first
``--help`` group."""

from __future__ import annotations

import pytest

from pytest_toolcall.core.errors import VALUE_WIDTH, ConformanceFailure

BROKEN = """
import pytest


class Crashing:
    def complete(self, request):
        raise RuntimeError("broken on purpose")


@pytest.fixture
def toolcall_adapter():
    return Crashing()


@pytest.fixture
def toolcall_profile():
    return {"name": "crashing", "streaming": False}
"""


def test_expected_and_got_lines_are_wrapped_masked_then_cut(
        monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "s3cr3t-value-of-the-test-token-0123456789"
    monkeypatch.setenv("ISSUE32_TEST_TOKEN", secret)
    calls = [f"get_weather(id='call_{n:03}', arguments={{'city': 'Paris'}})" for n in range(20)]
    failure = ConformanceFailure("a.b", "wrong", expected=calls,
                                 got="x" * 380 + " " + secret + " tail")
    text = failure.render()
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= VALUE_WIDTH, text
    assert lines[2].startswith("  expected: [\"get_weather(id='call_000'")
    assert lines[3].startswith("            ")  # the continuation, under the value
    got = text.split("  got:      ", 1)[1]
    assert "[redacted $ISSUE32_TEST_TOKEN]" in got or got.rstrip().endswith("…")
    assert secret[:12] not in text  # masked before the cut: no piece of it survives
    assert text.count("…") == 2  # both values cut at 400 characters


def test_the_broken_clause_list_is_sorted_by_case_then_provider(
        pytester: pytest.Pytester) -> None:
    pytester.makeconftest(BROKEN)
    result = pytester.runpytest_inprocess(
        "--toolcall-provider=openai,deepseek",
        "--toolcall-cases=wire.single_call,wire.parallel_calls", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=4)
    out = result.stdout.str()
    listed = out.split("broken clauses (your implementation):\n", 1)[1].splitlines()[:4]
    # collected provider by provider (openai first): the list is by case id, then provider
    assert [line.split(":")[0].strip() for line in listed] == [
        "wire.parallel_calls[deepseek]", "wire.parallel_calls[openai]",
        "wire.single_call[deepseek]", "wire.single_call[openai]"]
    assert "re-run one case: pytest 'toolcall::wire.parallel_calls[deepseek]'" in out


def test_skip_lines_name_the_case_not_the_kits_file(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(BROKEN)
    result = pytester.runpytest_inprocess("--toolcall-provider=openai",
                                          "--toolcall-cases=stream.truncated", "-rs",
                                          "-p", "no:cacheprovider")
    result.assert_outcomes(skipped=1)
    (line,) = [x for x in result.stdout.lines if x.startswith("SKIPPED")]
    assert line.startswith("SKIPPED [1] toolcall::stream.truncated[openai]: the profile does "
                           "not claim 'stream'"), line
    assert "pytest_toolcall" not in line and ".py" not in line


def test_lf_without_the_provider_says_how_to_rerun_the_suites_failures(
        pytester: pytest.Pytester) -> None:
    pytester.makeconftest(BROKEN)
    pytester.makepyfile(test_mine="def test_mine(): pass")
    first = pytester.runpytest_inprocess("--toolcall-provider=openai",
                                         "--toolcall-cases=wire.single_call")
    first.assert_outcomes(passed=1, failed=1)
    again = pytester.runpytest_inprocess("--lf")
    assert again.ret == pytest.ExitCode.TESTS_FAILED
    again.stdout.fnmatch_lines(["1 suite case run(s) failed last time and were not re-run*",
                                "  pytest --lf --toolcall-provider=openai"])
    # with the provider, --lf re-runs them (and the message is not shown)
    rerun = pytester.runpytest_inprocess("--lf", "--toolcall-provider=openai")
    rerun.assert_outcomes(failed=1)
    assert "were not re-run" not in rerun.stdout.str()


def test_the_first_help_group_holds_what_a_newcomer_needs(pytestconfig: pytest.Config) -> None:
    groups = {g.name: [o.names()[0] for o in g.options]
              for g in pytestconfig._parser._groups if g.name.startswith("toolcall")}
    assert groups["toolcall"] == ["--toolcall-provider", "--toolcall-cases",
                                  "--toolcall-adapter"]
    assert "--toolcall-live" in groups["toolcall-live"]
    assert "--toolcall-record-mode" in groups["toolcall-live"]
    assert "--toolcall-report" in groups["toolcall-ci"]
    assert sum(len(v) for v in groups.values()) >= 20  # every option is still there

"""Bad input on the newer surfaces (issue 35, item 9), each through a real pytest session
(pytester, in process): the kit could not run (a usage or setup error naming the option, hook,
profile field or file, and no traceback of the kit's own) is told apart from "your implementation
broke clause X" (a verdict, counted in the pass rates)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import vcr  # noqa: F401 - imported here, outside the in-process runs: pytester drops modules
import yaml  # first imported inside a run, and yaml's C extension cannot reload

from pytest_toolcall.providers.fake import Endpoint, serve
from pytest_toolcall.run.live import StandInProvider

RUN = ("-p", "no:cacheprovider", "--toolcall-provider=openai")
KIT_BUG = "a bug in the kit"


def _text(result: pytest.RunResult) -> str:
    return result.stdout.str() + "\n" + result.stderr.str()


def _usage_error(result: pytest.RunResult, *needles: str) -> str:
    text = _text(result)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, text
    assert "INTERNALERROR" not in text and "Traceback" not in text, text
    for needle in needles:
        assert needle in text, text
    return text


# -- --toolcall-command / ini toolcall_command ------------------------------------------------------
@pytest.mark.parametrize("args", [
    ("--toolcall-command=",), ("--toolcall-command=   ",), ("-o", "toolcall_command="),
], ids=["empty", "blank", "ini-override-blank"])
def test_a_blank_command_is_a_usage_error_not_a_run_of_the_reference(
        pytester: pytest.Pytester, args: tuple[str, ...]) -> None:
    # in CI: --toolcall-command="$HARNESS" with HARNESS unset; it tested the kit's reference
    result = pytester.runpytest(*RUN, "--toolcall-cases=wire.single_call", *args)
    text = _usage_error(result, "toolcall_command" if "-o" in args else "--toolcall-command",
                        "is empty")
    assert "passed" not in text


def test_an_ini_command_left_blank_in_the_file_still_means_no_command(
        pytester: pytest.Pytester) -> None:
    # the control: only a value asked for explicitly (option, -o) is checked; the ini default
    pytester.makeini("[pytest]\ntoolcall_command =\n")
    pytester.runpytest(*RUN, "--toolcall-cases=wire.single_call").assert_outcomes(passed=1)


@pytest.mark.parametrize("where", ["option", "ini"])
def test_a_command_with_unbalanced_quotes_is_a_usage_error(pytester: pytest.Pytester,
                                                           where: str) -> None:
    args = [*RUN, "--toolcall-cases=wire.single_call"]
    if where == "ini":
        pytester.makeini("[pytest]\ntoolcall_command = node 'my harness.mjs\n")
    else:
        args.append("--toolcall-command=node 'my harness.mjs")
    _usage_error(pytester.runpytest(*args), "cannot be read as a command",
                 "No closing quotation", "node 'my harness.mjs")


# -- hooks that raise ---------------------------------------------------------------------------
def test_a_providers_hook_that_raises_is_a_usage_error_with_its_own_frames(
        pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        def pytest_toolcall_providers(config):
            return {}["my_provider"]
    """)
    text = _usage_error(pytester.runpytest(*RUN), "the pytest_toolcall_providers hook in",
                        "raised KeyError: 'my_provider'", 'return {}["my_provider"]')
    assert "providers/plugins.py" not in text


def test_a_cases_hook_that_raises_names_the_hook_without_the_kits_frames(
        pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        def pytest_toolcall_cases(config):
            raise RuntimeError("no cases today")
    """)
    result = pytester.runpytest(*RUN, "--toolcall-cases=wire.single_call")
    text = _text(result)
    result.assert_outcomes(errors=1)
    assert "the pytest_toolcall_cases hook in conftest.py raised RuntimeError: no cases today" \
        in text
    assert 'raise RuntimeError("no cases today")' in text  # the hook's own frame
    assert "plugins/suite.py" not in text and "INTERNALERROR" not in text


# -- the implementation's fault, counted ------------------------------------------------------------
@pytest.mark.parametrize(("returned", "said"), [
    ("ToolCall(id='a', name='get_weather', arguments={})", "build() returned ToolCall"),
    ("['a message', 'another']", "build() returned a list whose item 0 is a str"),
], ids=["toolcall", "strings"])
def test_a_builder_returning_no_messages_breaks_history_result(
        pytester: pytest.Pytester, returned: str, said: str) -> None:
    pytester.makeconftest(f"""
        import pytest
        from pytest_toolcall.core.model import ToolCall

        class Builder:
            def build(self, stored):
                return {returned}

        @pytest.fixture
        def toolcall_history():
            return Builder()
    """)
    result = pytester.runpytest(*RUN, "--toolcall-cases=history.dedupe,history.orphan_calls")
    result.assert_outcomes(failed=2)  # verdicts: counted in the pass rates, not "could not run"
    text = _text(result)
    assert "[history.result]" in text and said in text
    assert KIT_BUG not in text


def test_a_user_check_that_crashes_is_the_cases_fault(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("""
        from pytest_toolcall.cases import check, default_registry, make_case

        @check("mine.broken")
        def broken(run):
            return run.steps[0].no_such_field

        def pytest_toolcall_cases(config):
            base = default_registry()["wire.single_call"]
            keep = ("title", "why", "dialects", "needs", "steps")
            return [make_case(id="mine.single", checks=(broken,),
                              **{k: getattr(base, k) for k in keep})]
    """)
    result = pytester.runpytest(*RUN, "--toolcall-cases=mine.*")
    result.assert_outcomes(errors=1)
    text = _text(result)
    assert KIT_BUG not in text
    assert "could not run this case (fix the setup)" in text
    assert "its check 'mine.broken' (" in text and "raised AttributeError" in text
    assert "return run.steps[0].no_such_field" in text  # the check's own frame
    assert "runbase.py" not in text


# -- setup and data errors, not verdicts ----------------------------------------------------------
def test_a_shim_of_another_wire_is_a_setup_error_not_request_route(
        pytester: pytest.Pytester) -> None:
    pytest.importorskip("anthropic")
    pytester.makeconftest("""
        import anthropic
        import pytest
        from pytest_toolcall import shims

        @pytest.fixture
        def toolcall_adapter(toolcall_endpoint):
            return shims.anthropic(lambda ep: anthropic.Anthropic(
                base_url=ep.base_url, api_key=ep.api_key,
                http_client=ep.http_client()))(toolcall_endpoint)
    """)
    result = pytester.runpytest(*RUN, "--toolcall-cases=wire.single_call")
    result.assert_outcomes(errors=1)
    text = _text(result)
    assert "shims.anthropic speaks the 'anthropic' dialect, but this suite item runs for " \
           "'openai'" in text and "--toolcall-provider=anthropic" in text
    assert "request.route" not in text


@pytest.mark.parametrize(("broken", "said"), [
    ("half", "is not valid JSON"), ("list", "holds a JSON list, not an object"),
])
def test_a_broken_request_snapshot_is_the_kits_input_not_a_regression(
        pytester: pytest.Pytester, broken: str, said: str) -> None:
    args = (*RUN, "--toolcall-cases=wire.single_call")
    pytester.runpytest(*args, "--toolcall-snapshot-update").assert_outcomes(passed=1)
    snapshot = pytester.path / "cassettes" / "requests" / "openai" / "wire.single_call.json"
    text = snapshot.read_text()
    snapshot.write_text(text[: len(text) // 2] if broken == "half" else "[]\n")
    result = pytester.runpytest(*args)
    result.assert_outcomes(errors=1)  # "could not run", never a verdict
    out = _text(result)
    assert "could not run this case (fix the setup)" in out
    assert f"the request snapshot {snapshot} {said}" in out and "delete it" in out
    assert "[request.snapshot]" not in out and "broken clauses" not in out


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> Iterator[Endpoint]:
    key = "sk-standin-SECRET-1122334455"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    with serve(StandInProvider("openai", api_key=key)) as endpoint:
        yield endpoint


def test_a_cassette_body_that_is_not_json_is_a_cassette_error(
        pytester: pytest.Pytester, stand_in: Endpoint, monkeypatch: pytest.MonkeyPatch) -> None:
    live = (*RUN, "--toolcall-live", "--toolcall-cases=live.round_trip")
    pytester.runpytest(*live, "--toolcall-record-mode=once",
                       f"--toolcall-base-url=openai={stand_in.base_url}").assert_outcomes(passed=1)
    monkeypatch.delenv("OPENAI_API_KEY")
    cassette = pytester.path / "cassettes" / "openai" / "live.round_trip.yaml"
    data = yaml.safe_load(cassette.read_text())
    data["interactions"][0]["response"]["body"]["string"] = "<html>502 Bad Gateway</html>"
    cassette.write_text(yaml.safe_dump(data))
    result = pytester.runpytest(*live)
    result.assert_outcomes(errors=1)
    out = _text(result)
    assert f"cassette {cassette}, interaction #0: the response body is not the JSON" in out
    assert "live.accepted" not in out
    assert "During handling of the above exception" not in out


@pytest.mark.parametrize(("profile", "said"), [
    ("{'final_answer_tool': ''}", ("the toolcall_profile fixture is invalid: profile: Value "
                                   "error, final_answer_tool='' is empty")),
    ("{'final_answer_tool': 'slow_lookup'}",
     "Profile(final_answer_tool='slow_lookup') names a tool the kit's cases give the loop"),
], ids=["empty", "a-case-tool"])
def test_a_final_answer_tool_that_cannot_work_is_a_usage_error(
        pytester: pytest.Pytester, profile: str, said: str) -> None:
    pytester.makeconftest(f"""
        import pytest

        @pytest.fixture
        def toolcall_profile():
            return {profile}
    """)
    result = pytester.runpytest(*RUN, "--toolcall-cases=loop.parallel_dispatch")
    result.assert_outcomes(errors=1)
    out = _text(result)
    assert said in out and "could not run this case (fix the setup)" in out
    assert "broken clauses" not in out


# -- pytest-toolcall mutate -----------------------------------------------------------------------
def test_mutate_report_naming_a_file_is_a_usage_error(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_toolcall.cli import main

    report = tmp_path / "report.json"
    report.write_text("{}")
    assert main(["mutate", "--root", str(tmp_path), "--report", str(report), "x.py"]) == 2
    err = capsys.readouterr().err
    assert "usage error: --report:" in err and "is a file" in err and "Traceback" not in err

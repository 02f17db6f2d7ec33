"""The default profile claims nothing the implementation under test has not declared (issue 28,
part 3): the reference implementations keep their own claims (compatible_with={'*'} under the
OpenAI wires, anthropic_legacy_usage under anthropic, the reference loop's cancel hook and
handoff tool); a user's adapter or loop with no toolcall_profile gets the provider's limits and
nothing else, so an adapter wired for OpenAI is not failed for stream shapes OpenAI never sends.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_toolcall.cases import default_registry
from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.reference import (
    REFERENCE_CLAIMS,
    provider_profile,
    reference_adapter,
    reference_profile,
)
from pytest_toolcall.run.runner import CaseSkipped, run_case

SHIMS_MD = Path(__file__).parent.parent / "docs" / "shims.md"
QUIRK_CASES = sorted(c.id for c in default_registry() if c.quirk is not None)


def _docs_conftest() -> str:
    """The first conftest docs/shims.md shows ("One fixture per library"), as it is."""
    text = SHIMS_MD.read_text(encoding="utf-8")
    section = text.split("## One fixture per library", 1)[1]
    block = re.search(r"```python\n(.*?)```", section, re.S)
    assert block is not None, "docs/shims.md lost its first conftest example"
    return block.group(1)


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic", "ollama",
                                      "gemini", "vllm"])
def test_provider_profile_claims_nothing_of_the_reference(provider: str) -> None:
    mine, reference = provider_profile(provider), reference_profile(provider)
    for name in REFERENCE_CLAIMS:
        assert getattr(mine, name) == Profile.model_fields[name].default, name
    # the provider's own limits stay: a tool_choice it refuses is refused whoever sends it
    assert mine.tool_choice == reference.tool_choice
    assert mine.parallel_tool_calls == reference.parallel_tool_calls


def test_the_reference_profiles_keep_their_claims() -> None:
    assert reference_profile("openai").compatible_with == frozenset({"*"})
    assert reference_profile("openai-responses").compatible_with == frozenset({"*"})
    assert reference_profile("anthropic").anthropic_legacy_usage
    assert reference_profile("openai").cancellation


def test_a_shim_wired_as_docs_shims_md_shows_fails_no_quirk_case(
        pytester: pytest.Pytester) -> None:
    """The conftest of docs/shims.md, no profile fixture, under openai: the quirk cases skip,
    each naming the services that send its quirk; none fails (before issue 28 the openai SDK
    failed three of them under the reference's compatible_with={'*'})."""
    pytest.importorskip("openai")
    pytester.makeconftest(_docs_conftest())
    result = pytester.runpytest_inprocess(
        "--toolcall-provider=openai", "--toolcall-cases=stream.*,wire.*",
        "--toolcall-report=out", "-p", "no:randomly")
    document = json.loads((pytester.path / "out" / "toolcall-report.json").read_text("utf-8"))
    cases = {c["id"]: c for c in document["cases"]}
    assert {c["subject"]["name"] for c in cases.values()} == {
        "pytest_toolcall.shims._openai.OpenAIChatShimAdapter"}, result.stdout.str()
    for case_id in QUIRK_CASES:
        if case_id not in cases:  # a quirk case of another wire
            continue
        record = cases[case_id]
        assert record["outcome"] == "skipped", (case_id, record)
        assert "does not send" in record["message"]
        senders = default_registry()[case_id].senders()
        assert all(name in record["message"] for name in senders), record["message"]
    # and the shim really ran: the library's own defect under OpenAI still shows
    assert cases["stream.truncated"]["outcome"] == "failed"


def test_the_reference_adapter_still_runs_the_quirk_cases(pytester: pytest.Pytester) -> None:
    """No override: the subject is the reference adapter, whose profile claims '*'."""
    result = pytester.runpytest_inprocess(
        "--toolcall-provider=openai", "--toolcall-cases=stream.index_missing", "-p",
        "no:randomly")
    result.assert_outcomes(passed=1)


def test_a_loop_of_the_users_gets_no_reference_loop_claim(pytester: pytest.Pytester) -> None:
    """A toolcall_loop override with no profile: the reference loop's cancel hook and handoff
    tool are not claimed for it (its cases skip, naming the capability)."""
    pytester.makeconftest(
        "import pytest\n"
        "from pytest_toolcall.reference.loop import ReferenceToolLoop\n\n"
        "@pytest.fixture\n"
        "def toolcall_loop():\n"
        "    return ReferenceToolLoop()\n")
    result = pytester.runpytest_inprocess(
        "--toolcall-provider=openai", "--toolcall-cases=loop.cancelled,loop.handed_off", "-rs",
        "-p", "no:randomly")
    result.assert_outcomes(skipped=2)
    result.stdout.fnmatch_lines(["*does not claim 'loop.cancellation'*",
                                 "*does not claim 'loop.handoff'*"], consecutive=False)


def test_a_failed_quirk_case_names_the_services_that_send_it() -> None:
    """Negative control: an adapter that loses the calls of a stream whose index is stuck at 0
    fails stream.index_stuck_at_zero under compatible_with={'*'}; the failure names ollama."""
    case = default_registry()["stream.index_stuck_at_zero"]

    class FirstCallOnly:
        def __init__(self, endpoint: object) -> None:
            self.inner = reference_adapter(endpoint)

        def complete(self, request: object) -> object:
            return self.inner.complete(request)

        def stream(self, request: object) -> object:
            from pytest_toolcall.core.model import ToolCallComplete

            seen = False
            for event in self.inner.stream(request):
                if isinstance(event, ToolCallComplete):
                    if seen:
                        continue
                    seen = True
                yield event

    endpoint = in_process_endpoint(FakeProvider("openai"))
    try:
        profile = provider_profile("openai").model_copy(
            update={"compatible_with": frozenset({"*"})})
        with pytest.raises(ConformanceFailure) as failed:
            run_case(case, FirstCallOnly(endpoint), profile, endpoint, interfaces=["sync"])
    finally:
        endpoint.close()
    text = failed.value.render()
    assert "sent by ollama" in text and "compatible_with" in text, text
    # and under OpenAI's behaviour alone it never runs
    endpoint = in_process_endpoint(FakeProvider("openai"))
    try:
        with pytest.raises(CaseSkipped, match="ollama"):
            run_case(case, FirstCallOnly(endpoint), provider_profile("openai"), endpoint)
    finally:
        endpoint.close()

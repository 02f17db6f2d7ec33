"""The README cannot drift: its quickstart is CI's script, and its examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_toolcall.cli.catalogue import builtin_registry

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CI_RUN = ROOT / ".ci" / "run"

# The README's failure example: the adapter example with this one line changed (calls keyed by
# name, so two calls to the same tool collapse into one).
GOOD_LINE = 'for c in message.get("tool_calls") or []]'
BROKEN_LINE = ('for c in {c["function"]["name"]: c '
               'for c in message.get("tool_calls") or []}.values()]')
FAILING_CASE = "wire.text_and_calls"


def _section(title: str) -> str:
    """The README text under ``## title``, up to the next ``## `` heading."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README, re.M | re.S)
    assert match, f"README.md has no '## {title}' section"
    return match.group(1)


def _blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, re.M | re.S)


def _conftest_example() -> str:
    blocks = [b for b in _blocks(_section("Test your adapter"), "python")
              if b.startswith("# conftest.py\n")]
    assert len(blocks) == 1, "README.md: expected one ```python block starting '# conftest.py'"
    return blocks[0]


def _ci_commands() -> list[str]:
    """Command lines of .ci/run: no blank lines, comments (or the shebang), nor shell setup."""
    commands = []
    for line in CI_RUN.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or line.startswith(("set ", "cd ")):
            continue
        commands.append(line)
    return commands


def test_quickstart_commands_are_exactly_the_ci_script() -> None:
    blocks = _blocks(_section("Quickstart"), "bash")
    assert len(blocks) == 1, "the Quickstart section must have exactly one ```bash block"
    quickstart = [line.strip() for line in blocks[0].splitlines()
                  if line.strip() and not line.strip().startswith("#")]
    assert quickstart == _ci_commands(), (
        "README.md's Quickstart and .ci/run disagree; CI must run exactly the quickstart")
    assert quickstart == ['python -m pip install -e ".[dev]" -c constraints.txt',
                          "python -m pytest --toolcall-provider=openai",
                          "python -m pytest"]


def _openai_cases() -> list:
    """The built-in cases `--toolcall-provider=openai` collects (some cases are for one dialect)."""
    return builtin_registry().select((), "openai")


def _counts() -> dict[str, int]:
    """Built-in cases by contract, the chat contract split by whether a step streams:
    ``wire`` (chat, no streaming step), ``stream``, ``loop``, ``history``."""
    counts = {"wire": 0, "stream": 0, "errors": 0, "loop": 0, "history": 0, "fallback": 0}
    for case in _openai_cases():
        if case.family == "errors":  # chat cases of their own family (issue 12)
            counts["errors"] += 1
        elif case.contract == "chat":
            counts["stream" if "stream" in case.required_capabilities() else "wire"] += 1
        else:
            counts[case.contract] += 1
    return counts


def test_counts_by_contract_match_the_families() -> None:
    # the README speaks of families; the counts come from contracts and capabilities: they agree
    by_family: dict[str, int] = {}
    for case in _openai_cases():
        by_family[case.family] = by_family.get(case.family, 0) + 1
    assert _counts() == by_family


def test_readme_adapter_example_passes_the_suite(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(_conftest_example())
    result = pytester.runpytest("--toolcall-provider=openai", "-rs", "-p", "no:cacheprovider")
    n = _counts()
    assert n["wire"] >= 18 and n["stream"] >= 18 and n["loop"] >= 1 and n["history"] >= 1
    # the example overrides the adapter only: wire passes, stream skips (streaming=False), and
    # the loop and history families run against the reference loop and builder
    streamed_errors = len([c for c in _openai_cases() if c.family == "errors"
                           and "stream" in c.required_capabilities()])
    # a loop claims cancellation, handoffs and a model-call deadline only when its profile says
    # so (issues 16, 29): the reference loop here runs under the example's profile, which does
    # not (loop.cancelled, loop.cancelled_tools_stopped, loop.handed_off, loop.model_deadline)
    unclaimed_loop = len([c for c in _openai_cases() if c.family == "loop"
                          and {"loop.cancellation", "loop.handoff", "loop.model_deadline"}
                          & c.required_capabilities()])
    assert unclaimed_loop == 4
    # a wire case that plays a shape OpenAI never sends skips for a profile without
    # compatible_with (issue 13): wire.zero_args_null (arguments: null) and
    # wire.unknown_finish_reason (DeepSeek's insufficient_system_resource)
    wire_quirks = len([c for c in _openai_cases() if c.family == "wire" and c.quirk])
    assert wire_quirks == 2
    result.assert_outcomes(passed=n["wire"] - wire_quirks + n["errors"] - streamed_errors
                           + n["loop"] - unclaimed_loop + n["history"] + n["fallback"],
                           skipped=n["stream"] + streamed_errors + unclaimed_loop + wire_quirks)
    # the example declares Profile(streaming=False): each stream case skips, naming why
    output = result.stdout.str()
    reasons = re.findall(r"the profile does not claim 'stream', which ((?:stream|errors)\.\w+) "
                         r"needs", output)
    assert sorted(reasons) == sorted(c.id for c in _openai_cases()
                                     if "stream" in c.required_capabilities())
    assert "adapter under test: conftest.MyAdapter" in output  # the README's adapter ran
    assert "tool loop under test: pytest_toolcall.reference.loop.ReferenceToolLoop" in output


def _summary_lines(n: dict[str, int]) -> list[str]:
    """The conformance summary of an all-passing run, as the plugin prints it."""
    from pytest_toolcall.cases.versions import SUITE_VERSION

    columns = ("passed", "failed", "hardening", "error", "skipped", "xfailed", "xpassed")
    widths = [max(9, len(c) + 2) for c in columns]
    lines = [f"suite {SUITE_VERSION}, the newest (pin it: toolcall_suite = {SUITE_VERSION})",
             f"{'family':<10}{'provider':<12}" + "".join(f"{c:>{w}}" for c, w in
                                                         zip(columns, widths))]
    for family in sorted(n):
        lines.append(f"{family:<10}{'openai':<12}" + f"{n[family]:>9}"
                     + "".join(f"{0:>{w}}" for w in widths[1:]))
    total = sum(n.values())
    lines.append(f"{total} case runs: {total} passed")
    return lines


def test_readme_numbers_match_the_suite() -> None:
    n = _counts()
    total = sum(n.values())
    text = " ".join(README.split())  # line wrapping does not matter
    streamed = len([c for c in _openai_cases() if c.family == "errors"
                    and "stream" in c.required_capabilities()])
    quirks = len([c for c in _openai_cases() if c.family == "wire" and c.quirk])
    assert (f"passes {n['wire'] - quirks} of the {n['wire']} `wire` cases and the "
            f"{n['errors'] - streamed} `errors` cases that do not stream, and skips the "
            f"{n['stream']} `stream` cases and the {streamed} streamed `errors` cases") in text
    assert f"the other {quirks} `wire` cases play shapes OpenAI never sends" in text
    assert (f"with {total} cases in six families: {n['wire']} `wire`, {n['stream']} `stream`, "
            f"{n['errors']} `errors`, {n['loop']} `loop`, {n['history']} `history` and "
            f"{n['fallback']} `fallback`") in text
    quickstart = " ".join((ROOT / "docs" / "quickstart.md").read_text(encoding="utf-8").split())
    assert f"({total} cases today)" in quickstart


@pytest.mark.parametrize("doc", ["README.md", "docs/quickstart.md"])
def test_documented_summary_is_the_registrys(doc: str) -> None:
    # the all-passing summary shown in the docs, rebuilt from the registry's counts
    lines = [line.strip() for line in (ROOT / doc).read_text(encoding="utf-8").splitlines()]
    for expected in _summary_lines(_counts()):
        assert expected in lines, f"{doc}: summary line {expected!r} not found; the suite changed"


def test_readme_failure_example_is_real_output(pytester: pytest.Pytester) -> None:
    code = _conftest_example()
    assert code.count(GOOD_LINE) == 1, "the README example changed; update GOOD_LINE"
    pytester.makeconftest(code.replace(GOOD_LINE, BROKEN_LINE))
    result = pytester.runpytest("--toolcall-provider=openai", f"--toolcall-cases={FAILING_CASE}",
                                "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    output = {line.strip() for line in result.stdout.lines}
    blocks = _blocks(_section("What a failure looks like"), "text")
    assert len(blocks) == 1
    sample = [line.strip() for line in blocks[0].splitlines()
              if line.strip() and not line.startswith("$ ")]
    assert f"$ pytest --toolcall-provider=openai --toolcall-cases={FAILING_CASE}" in blocks[0]
    missing = [line for line in sample if line not in output]
    assert not missing, (
        "README.md's failure example no longer matches the real output; re-run the broken "
        f"example and paste the new output. Lines not found: {missing}\n\n"
        + result.stdout.str())
    assert len(sample) >= 10  # the sample shows the clause, expected/got, hint and the ladder


def test_readme_examples_pin_the_current_suite() -> None:
    # the README shows a pinned project; a new suite version moves the pin in the examples
    from pytest_toolcall.cases.versions import SUITE_VERSION

    pins = re.findall(r"^toolcall_suite = (\S+)$", README, re.M)
    assert len(pins) >= 2, "README.md's ini examples must pin the suite (toolcall_suite = ...)"
    assert set(pins) == {SUITE_VERSION}, f"README.md pins {sorted(set(pins))}, the suite is " \
                                          f"{SUITE_VERSION}"

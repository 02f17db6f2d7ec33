"""The README cannot drift: its quickstart is CI's script, and its examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_toolcall.catalogue import builtin_registry

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
    assert quickstart == ['python -m pip install -e ".[dev]"',
                          "python -m pytest --toolcall-provider=openai",
                          "python -m pytest"]


def _counts() -> tuple[int, int]:
    """(cases without a streaming step, cases with one) in the built-in suite."""
    cases = list(builtin_registry())
    streamed = sum("stream" in c.required_capabilities() for c in cases)
    return len(cases) - streamed, streamed


def test_readme_adapter_example_passes_the_suite(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(_conftest_example())
    result = pytester.runpytest("--toolcall-provider=openai", "-rs", "-p", "no:cacheprovider")
    plain, streamed = _counts()
    assert plain >= 18 and streamed >= 18
    result.assert_outcomes(passed=plain, skipped=streamed)
    # the example declares Profile(streaming=False): each stream case skips, naming why
    output = result.stdout.str()
    reasons = re.findall(r"the profile does not claim 'stream', which (stream\.\w+) needs",
                         output)
    assert sorted(reasons) == sorted(c.id for c in builtin_registry()
                                     if "stream" in c.required_capabilities())
    assert "conftest.MyAdapter" in output  # the README's adapter ran, not the reference


def test_readme_numbers_match_the_suite() -> None:
    plain, streamed = _counts()
    text = " ".join(README.split())  # line wrapping does not matter
    assert f"passes all {plain} `wire` cases and skips the {streamed} `stream` cases" in text
    assert f"with {plain + streamed} cases in two families" in text
    quickstart = " ".join((ROOT / "docs" / "quickstart.md").read_text(encoding="utf-8").split())
    assert f"({plain + streamed} cases today)" in quickstart


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

"""What the kit adds to pytest's own reporting: the clause of a broken case in the report's
``user_properties`` (so JUnit XML carries it), "could not run" kept apart from a verdict, and the
conformance summary at the end of the terminal output (``Summary``: outcomes per family and
provider, broken clauses, the command that re-runs the failures). Loaded by ``plugins/core.py``.
"""

from __future__ import annotations

import shlex
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

import pytest

from pytest_toolcall.plugin import flag, providers, suite_pin


#: the status a 'should' failure gets outside strict mode: pytest's own line and the summary
#: count it apart from the failures, and the run's exit status ignores it
HARDENING = "hardening"


def _by_id(entry: tuple[str, Any, Any]) -> tuple[str, str]:
    """A listed node id's sort key: the case id, then the provider."""
    case, _, provider = entry[0].removeprefix("toolcall::").partition("[")
    return case, provider


# tryfirst: the outermost wrapper, so pytest's xfail handling (a declared known gap) has made its
# verdict before a 'should' failure is turned into a hardening pass
@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    from pytest_toolcall.core.errors import ConformanceFailure

    if call.excinfo is not None and isinstance(call.excinfo.value, ConformanceFailure):
        failure = call.excinfo.value
        level = getattr(failure, "level", None) or "must"
        props = [("toolcall_clause", failure.clause), ("toolcall_level", level)]
        if (level == "should" and call.when == "call" and report.failed
                and not hasattr(report, "wasxfail") and item.get_closest_marker("toolcall")
                and not flag(item.config, "toolcall_strict")):
            # hardening, not a defect: reported apart (its own status, the summary's section,
            # the report's outcome) and left out of the exit status; the text stays on the report
            report.outcome = "passed"
            props.append(("toolcall_hardening", str(failure).splitlines()[0]))
        report.user_properties += props
        # junitxml writes the properties of the teardown report, built from the item's list
        item.user_properties += props
    elif call.excinfo is not None and call.when == "call" and _is_kit_error(call.excinfo.value):
        # the kit could not run the case: reported apart, never a verdict (issue 14)
        report.user_properties.append(("toolcall_kit_error", True))
        item.user_properties.append(("toolcall_kit_error", True))
    elif call.excinfo is not None and call.when == "call" and _is_not_run(call.excinfo.value):
        # the kit could not run the case (a live service out of reach, a bad cassette): an
        # error like a failed setup, never a broken clause of the implementation (issue 17)
        report.user_properties.append(("toolcall_not_run", True))
    if (report.skipped and isinstance(report.longrepr, tuple) and len(report.longrepr) == 3
            and item.get_closest_marker("toolcall")):
        # -rs names the skipped case, not the kit's line that skipped it (a path into
        # site-packages, issue 32): the node id, which re-runs it
        report.longrepr = (item.nodeid, None, report.longrepr[2])
    return report


def pytest_report_teststatus(report: pytest.TestReport,
                             config: pytest.Config) -> tuple[str, str, Any] | None:
    """A suite item the kit could not run (a live service out of reach, a bad cassette, a kit
    error) is an error in pytest's own line too, as in the kit's summary, not a failure: pytest
    counts an exception of the call phase as failed (issue 17). A broken 'should' clause outside
    strict mode is "hardening" (issue 28)."""
    if report.when != "call":
        return None
    props = dict(report.user_properties)
    if "toolcall_case" not in props:
        return None
    if report.passed and props.get("toolcall_hardening"):
        # a 'should' clause broke: counted apart ("2 hardening" in pytest's last line)
        return HARDENING, "H", ("HARDENING", {"yellow": True})
    if not report.failed:
        return None
    if props.get("toolcall_not_run") or props.get("toolcall_kit_error"):
        return "error", "E", ("ERROR", {"red": True})
    return None


def _is_not_run(error: BaseException) -> bool:
    from pytest_toolcall.core.errors import ToolcallError

    return isinstance(error, ToolcallError)


def _is_kit_error(error: BaseException) -> bool:
    from pytest_toolcall.core.errors import KitError

    return isinstance(error, KitError)


_COLUMNS = ("passed", "failed", "hardening", "error", "skipped", "xfailed", "xpassed")


def _wide(column: str) -> int:
    return max(9, len(column) + 2)


class Summary:
    """Counts suite outcomes per family and provider (on the xdist controller too)."""

    def __init__(self, config: pytest.Config | None = None,
                 chosen: Callable[[pytest.Config], list[str]] = providers) -> None:
        self.config = config
        #: the providers the suite runs for (plugins/core.py also reads them off node ids)
        self.chosen = chosen
        self.rows: Counter[tuple[str, str, str]] = Counter()
        self.failures: list[tuple[str, str | None, str | None]] = []
        #: broken 'should' clauses outside strict mode: node id, clause, the failure text
        self.hardening: list[tuple[str, str | None, str]] = []
        self.previews = 0
        self.errors: list[str] = []
        self.kit_errors: list[str] = []
        self.adapters: set[str] = set()
        #: the declared risks of the run's profiles, and the case runs each turned off (issue 28)
        self.risks: set[str] = set()
        self.risk_skips: Counter[str] = Counter()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        if "toolcall_case" not in props:
            return
        if "toolcall_subject" in props:
            self.adapters.add(str(props["toolcall_subject"]))
        for risk in str(props.get("toolcall_declared_risks") or "").split(","):
            if risk:
                self.risks.add(risk)
        outcome = _outcome(report)
        if outcome is None:
            return
        if outcome == "skipped" and props.get("toolcall_declared_risk"):
            self.risk_skips[str(props["toolcall_declared_risk"])] += 1
        if outcome == "skipped" and props.get("toolcall_preview"):
            self.previews += 1
        if outcome == "passed" and props.get("toolcall_hardening"):
            outcome = "hardening"
        elif outcome == "failed" and props.get("toolcall_kit_error"):
            outcome = "kit_error"
        elif outcome == "failed" and props.get("toolcall_not_run"):
            outcome = "error"
        self.rows[(props["toolcall_family"], props["toolcall_provider"], outcome)] += 1
        if outcome == "failed":
            self.failures.append((report.nodeid, props.get("toolcall_clause"),
                                  props.get("toolcall_level")))
        elif outcome == "hardening":
            self.hardening.append((report.nodeid, props.get("toolcall_clause"),
                                   report.longreprtext))
        elif outcome == "error":
            self.errors.append(report.nodeid)
        elif outcome == "kit_error":
            self.kit_errors.append(report.nodeid)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.rows:
            return
        rows: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        for (family, provider, outcome), n in self.rows.items():
            rows[(family, provider)][outcome] += n
        write = terminalreporter.write_line
        for nodeid, _clause, text in self.hardening:  # the failure text, in a section of its own
            terminalreporter.write_sep("_", f"hardening (should): {nodeid}")
            write(text)
        terminalreporter.write_sep("=", "pytest-toolcall conformance summary")
        write(self.suite_line())
        width = max([12] + [len(provider) + 2 for _, provider in rows])
        write(f"{'family':<10}{'provider':<{width}}" + "".join(f"{c:>{_wide(c)}}" for c in _COLUMNS))
        totals: Counter[str] = Counter()
        for (family, provider), counts in sorted(rows.items()):
            totals.update(counts)
            write(f"{family:<10}{provider:<{width}}"
                  + "".join(f"{counts[c]:>{_wide(c)}}" for c in _COLUMNS))
        runs = sum(totals.values())
        # kit errors get no column (they are no verdict): they are named on this line only
        parts = [f"{totals[c]} {c.replace('_', ' ')}" for c in (*_COLUMNS, "kit_error")
                 if totals[c]]
        write(f"{runs} case run{'s' if runs != 1 else ''}: {', '.join(parts)}")
        # says what was tested: a fixture override that was not picked up shows here
        for subject in sorted(self.adapters):
            kind, _, name = subject.partition(": ")
            write(f"{kind} under test: {name}")
        for line in self.risk_lines():
            write(line)
        if self.failures:
            write("broken clauses (your implementation):")
            # sorted by case id, then provider: the order of arrival varies under -n, and the
            # suite is collected provider by provider (issue 32); the JSON report's order too
            for nodeid, clause, level in sorted(self.failures, key=_by_id):
                write(f"  {nodeid.removeprefix('toolcall::')}: {clause or 'see the failure above'}"
                      + (f" ({level})" if clause and level else ""))
        if self.hardening:
            write("hardening (should clauses: not defects, the run does not fail on them; "
                  "--toolcall-strict makes it):")
            for nodeid, clause, _text in sorted(self.hardening, key=_by_id):
                write(f"  {nodeid.removeprefix('toolcall::')}: {clause or '?'} (should)")
        if self.errors:
            write("could not run (setup or kit errors, not verdicts on the implementation):")
            for nodeid in sorted(self.errors):
                write(f"  {nodeid.removeprefix('toolcall::')}")
        if self.kit_errors:
            write("kit errors (the kit could not run these; not verdicts, not in any pass rate; "
                  "please report them):")
            for nodeid in sorted(self.kit_errors):
                write(f"  {nodeid.removeprefix('toolcall::')}")
        first = next(iter([n for n, _, _ in sorted(self.failures, key=_by_id)]
                          + sorted(self.errors) + sorted(self.kit_errors)), None)
        if first is not None:
            rerun = f"re-run one case: pytest {shlex.quote(first)}"
            if self.config is None or self.config.pluginmanager.has_plugin("cacheprovider"):
                rerun += f"   (all that failed: {self.rerun_command()})"  # --lf needs the cache
            write(rerun)

    def risk_lines(self) -> list[str]:
        """The declared risks of the run's profiles (``core.risks``): what each risks in
        production and how many case runs it turned off. Never a silent skip (issue 28)."""
        if not self.risks:
            return []
        from pytest_toolcall.core.risks import RISKS

        lines = ["declared risks (the profile turns these checks off; no verdict covers them):"]
        for risk in RISKS:
            if risk.id not in self.risks:
                continue
            skipped = self.risk_skips[risk.id]
            off = f"; {skipped} case run{'s' * (skipped != 1)} skipped" if skipped else ""
            lines.append(f"  {risk.declaration}: {risk.risk}{off}")
        return lines

    def suite_line(self) -> str:
        """Which suite version ran, and what to do about it: pin it, or run the previews."""
        from pytest_toolcall.cases.versions import SUITE_VERSION

        pin = suite_pin(self.config) if self.config is not None else None
        strict = self.config is not None and flag(self.config, "toolcall_strict")
        mode = "; strict: should clauses fail the run" if strict else ""
        if pin is None:
            # a pinned project's upgrades add cases only as previews
            return f"suite {SUITE_VERSION}, the newest (pin it: toolcall_suite = {SUITE_VERSION}){mode}"
        previews = ""
        if self.previews:
            previews = (f"; {self.previews} preview case run{'s' * (self.previews != 1)} "
                        "skipped (added after the pin: --toolcall-preview runs them)")
        newer = "" if pin == SUITE_VERSION else f" (this kit has {SUITE_VERSION})"
        return f"suite {pin} (pinned){newer}{previews}{mode}"

    def rerun_command(self) -> str:
        """``pytest --toolcall-provider=<the run's providers> [the kit options given] --lf``: the
        options that choose what is tested (the adapter, the command, the cases, ...) come from
        the command line as given; the report and the gate do not (a re-run of the failures would
        overwrite the full run's report and gate on the failures alone)."""
        ran = list(dict.fromkeys(provider for _, provider, _ in self.rows))
        chosen = self.chosen(self.config) if self.config is not None else []
        names = [p for p in chosen if p in ran] + [p for p in ran if p not in chosen]
        words = ["pytest", f"--toolcall-provider={','.join(names)}"]
        if self.config is not None:
            words += _kit_options(list(self.config.invocation_params.args))
        # a URL's password or a key given on the command line is never printed (issue 18)
        return " ".join(shlex.quote(_masked_word(word)) for word in [*words, "--lf"])


def _masked_word(word: str) -> str:
    """``word`` with every secret the kit knows masked, and a URL's password (``--toolcall-base-
    url=http://user:pass@host``) too."""
    from pytest_toolcall.core.redact import mask, mask_url

    head, sep, value = word.partition("=")
    if sep and "://" in value:
        return f"{head}={mask_url(value)}" if "://" not in head else mask_url(word)
    return mask_url(word) if "://" in word else mask(word)


#: kit options that do not choose what runs: not repeated in the re-run command
_NOT_REPEATED = ("--toolcall-provider", "--toolcall-report", "--toolcall-min-pass-rate",
                 "--toolcall-gate-families")
#: kit options that take no value
_FLAGS = ("--toolcall-live", "--toolcall-snapshot-update", "--toolcall-preview",
          "--toolcall-strict")


def _kit_options(args: list[str]) -> list[str]:
    """The --toolcall-* options of a command line (with their values), as given."""
    out: list[str] = []
    i = 0
    while i < len(args):
        word = str(args[i])
        name = word.partition("=")[0]
        takes_value = "=" not in word and name not in _FLAGS
        if name.startswith("--toolcall-") and name not in _NOT_REPEATED:
            out += [word, str(args[i + 1])] if takes_value and i + 1 < len(args) else [word]
        i += 2 if name.startswith("--toolcall-") and takes_value else 1
    return out


def _outcome(report: pytest.TestReport) -> str | None:
    if report.outcome == "rerun":  # pytest-rerunfailures: an attempt, not the case's verdict
        return None
    xfail = hasattr(report, "wasxfail")
    if report.when == "call":
        if report.passed:
            return "xpassed" if xfail else "passed"
        if report.skipped:
            return "xfailed" if xfail else "skipped"
        return "failed"
    if report.when == "setup":
        if report.skipped:
            return "xfailed" if xfail else "skipped"
        if report.failed:
            return "error"
    return None

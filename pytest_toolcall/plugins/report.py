"""The reporting sub-plugin: ``--toolcall-report`` files, the pass-rate gate, known gaps in the
terminal. Loaded by ``pytest_toolcall.plugins.core`` (its ``SUB_PLUGINS``); the logic is in
:mod:`pytest_toolcall.output.report`.

Under pytest-xdist the workers only run items; the controller sees every item's serialized
reports in ``pytest_runtest_logreport`` and is the only process that computes the gate and writes
files. Everything the report needs therefore travels in the reports themselves: the
``toolcall_*`` user properties, the outcome, ``wasxfail`` and the failure text.
"""

from __future__ import annotations

import os
import platform
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.plugin import _setting, _split, flag, providers, suite_pin
from pytest_toolcall.run.runner import release_loop_threads

#: set by mutmut in the environment of each mutant run: no report files then
MUTANT_ENV = "MUTANT_UNDER_TEST"
#: set by GitHub Actions to the job summary's file; the Markdown summary is appended to it
STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"


def min_pass_rate(config: pytest.Config) -> float | None:
    """The gate's threshold, or ``None`` without one; a usage error says what a rate looks like."""
    raw = _setting(config, "toolcall_min_pass_rate").strip()
    if not raw:
        return None
    try:
        rate = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        rate = -1.0
    if not 0.0 <= rate <= 1.0:
        raise pytest.UsageError(
            f"--toolcall-min-pass-rate / toolcall_min_pass_rate: {raw!r} is not a pass rate. "
            "Give a number from 0 to 1 (0.95) or a percentage (95%).")
    return rate


def report_dir(config: pytest.Config) -> Path | None:
    """Where the report files go: the option is relative to the invocation directory, the ini
    setting to the ini file's directory (like --junitxml and junit paths)."""
    option = config.getoption("toolcall_report")
    if option:
        return Path(config.invocation_params.dir, option)
    ini = str(config.getini("toolcall_report") or "").strip()
    if ini:
        base = config.inipath.parent if config.inipath else config.rootpath
        return Path(base, ini)
    return None


def pytest_configure(config: pytest.Config) -> None:
    rate = min_pass_rate(config)  # fail early on a bad value
    directory = report_dir(config)
    if directory is not None and directory.exists() and not directory.is_dir():
        raise pytest.UsageError(
            f"--toolcall-report / toolcall_report: {directory} is a file, not a directory. The "
            "kit writes three files (toolcall-report.json, toolcall-summary.md, "
            "toolcall-badge.json) into the directory you name: give a directory, e.g. "
            "--toolcall-report=toolcall-report")
    families = _split(_setting(config, "toolcall_gate_families"))
    if families and rate is None:
        config.issue_config_time_warning(pytest.PytestConfigWarning(
            "--toolcall-gate-families has no effect without --toolcall-min-pass-rate: it only "
            "chooses which families' cases the pass rate counts"), stacklevel=2)
    if hasattr(config, "workerinput"):
        return  # an xdist worker: the controller reports
    config.pluginmanager.register(Reporter(config, rate, families), "toolcall-report")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    from pytest_toolcall.core.errors import ConformanceFailure

    exc = call.excinfo.value if call.excinfo is not None else None
    if isinstance(exc, ConformanceFailure) and exc.hint:
        # the fix line of the Markdown summary; on the report only, so not in --junitxml
        report.user_properties.append(("toolcall_hint", exc.hint))
    if item.get_closest_marker("toolcall") is not None:
        mask_report(report, item)
    return report


def mask_report(report: pytest.TestReport, item: pytest.Item | None = None) -> None:
    """Mask every secret the kit knows (:mod:`pytest_toolcall.core.redact`) in what pytest prints
    and writes for this report: the failure text and skip reason (terminal, JUnit, the report
    files), captured output, and the user properties (JUnit ``<properties>``). Done here, where
    the report is made, so xdist workers send masked reports to the controller."""
    from pytest_toolcall.core.redact import mask

    longrepr = report.longrepr
    if isinstance(longrepr, str):
        report.longrepr = mask(longrepr)
    elif isinstance(longrepr, tuple) and len(longrepr) == 3:
        report.longrepr = (longrepr[0], longrepr[1], mask(longrepr[2]))
    elif longrepr is not None:
        text = str(longrepr)
        masked = mask(text)
        if masked != text:  # keep pytest's rich repr unless it holds a secret
            report.longrepr = masked
    report.sections = [(title, mask(content)) for title, content in report.sections]
    masked = _property_masker()
    for holder in (report, item):
        if holder is not None:
            holder.user_properties[:] = [(name, masked(value))
                                         for name, value in holder.user_properties]


#: user property value -> its masked text, valid while the redactor's matcher stays the same
#: object (it is rebuilt when the environment or the registered secrets change): every report
#: of every suite item carries the same few properties, in the report and in the item
_MASKED: dict[str, Any] = {}
_MASKED_FOR: list[Any] = [None]


def _property_masker() -> Any:
    """``redact.mask`` for user property values, remembering what it made of each value."""
    from pytest_toolcall.core import redact

    matcher = getattr(redact, "_matcher", None)
    if matcher is None:  # pragma: no cover - a redactor without its cache: mask every time
        return redact.mask
    current = matcher(None)[0]
    if current is not _MASKED_FOR[0] or len(_MASKED) > 4096:
        _MASKED.clear()
        _MASKED_FOR[0] = current

    def masked(value: Any) -> Any:
        if not isinstance(value, str):
            return redact.mask(value)
        done = _MASKED.get(value)
        if done is None:
            done = _MASKED[value] = redact.mask(value)
        return done

    return masked


def _text(report: pytest.TestReport) -> str | None:
    """The failure's text, or the skip reason, as plain text (serialized reports included)."""
    longrepr = report.longrepr
    if longrepr is None:
        return None
    if report.skipped and not hasattr(report, "wasxfail") and isinstance(longrepr, (tuple, list)):
        return str(longrepr[-1]).removeprefix("Skipped: ")
    if isinstance(longrepr, str):
        return longrepr
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None and getattr(crash, "message", None):
        return str(crash.message).removeprefix("Failed: ")  # pytest.fail(): the text is enough
    return str(longrepr).strip().splitlines()[-1] if str(longrepr).strip() else None


def _target(thread: threading.Thread) -> str:
    target = getattr(thread, "_target", None)  # CPython keeps it until the thread ends
    name = getattr(target, "__qualname__", None)
    module = getattr(target, "__module__", None)
    return f" (running {module}.{name})" if name and module else ""


class Reporter:
    """Collects the suite's reports (on the controller) and writes and gates at the end."""

    def __init__(self, config: pytest.Config, rate: float | None, families: list[str]) -> None:
        self.config = config
        self.rate = rate
        self.families = families
        self.phases: list[Any] = []
        self.started = datetime.now(timezone.utc)
        self.clock = time.perf_counter()
        self.gate: Any = None
        self.records: list[Any] = []
        self.written: list[Path] = []
        self.suppressed = False
        self.collected = 0
        self.threads: set[int | None] = {t.ident for t in threading.enumerate()}
        self.incomplete: str | None = None
        self.step_summary: str | None = None

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.collected = sum(1 for item in session.items
                             if item.get_closest_marker("toolcall") is not None)

    def pytest_sessionstart(self) -> None:
        self.threads = {t.ident for t in threading.enumerate()}
        self.started = datetime.now(timezone.utc)
        self.clock = time.perf_counter()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        if "toolcall_case" not in props or report.outcome == "rerun":
            return  # a rerun attempt (pytest-rerunfailures) is no verdict; the last attempt is
        from pytest_toolcall.output.report import Phase

        self.phases.append(Phase(
            nodeid=report.nodeid, when=report.when, outcome=report.outcome, properties=props,
            duration=float(report.duration or 0.0), wasxfail=getattr(report, "wasxfail", None),
            text=_text(report)))

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        from pytest_toolcall.output import report

        if self.config.option.collectonly:
            return  # nothing ran: no verdict, and the last real run's files stay
        chosen = providers(self.config)
        phases = self.phases
        interrupted = session.exitstatus == pytest.ExitCode.INTERRUPTED
        if interrupted:
            # the item that was running has a passed setup and nothing else: no verdict
            done = {p.nodeid for p in phases if p.when == "call" or p.outcome != "passed"}
            phases = [p for p in phases if p.nodeid in done]
        self.records = report.redact_records(report.merge_phases(phases))
        if interrupted and chosen:
            # a KeyboardInterrupt (the user's, or raised by an implementation under test)
            self.incomplete = (f"interrupted (KeyboardInterrupt) after {len(self.records)} of "
                               f"{self.collected or '?'} suite items: the counts cover only "
                               "the cases that ran")
        if self.rate is not None and chosen:
            self.gate = report.evaluate_gate(self.records, self.rate, self.families or None)
            self.gate.reason = report.redact(self.gate.reason) or ""
            if not self.gate.passed and session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
        directory = report_dir(self.config)
        step_summary = os.environ.get(STEP_SUMMARY_ENV, "").strip()
        if not step_summary or not chosen or not self.records:
            step_summary = ""  # only a run of the suite appends to the job summary
        if directory is None and not step_summary:
            return
        if os.environ.get(MUTANT_ENV):
            self.suppressed = True
            return
        info = self._run_info(chosen)
        info.incomplete = self.incomplete
        document = report.build_document(info, self.records, self.gate)
        if directory is not None:
            self.written = report.write_reports(directory, document)
        if step_summary:
            try:
                report.append_step_summary(Path(step_summary), document)
                self.step_summary = f"summary appended to ${STEP_SUMMARY_ENV} ({step_summary})"
            except OSError as exc:  # the verdict stands; say why the job summary is missing
                self.step_summary = (f"could not append the summary to ${STEP_SUMMARY_ENV} "
                                     f"({step_summary}): {exc}")

    def _run_info(self, chosen: list[str]) -> Any:
        from pytest_toolcall import __version__
        from pytest_toolcall.cases.versions import SUITE_VERSION
        from pytest_toolcall.output.report import RunInfo

        option = self.config.option
        pin = suite_pin(self.config)
        return RunInfo(
            suite={"version": pin or SUITE_VERSION, "pinned": pin is not None,
                   "preview": flag(self.config, "toolcall_preview"),
                   "strict": flag(self.config, "toolcall_strict")},
            providers=chosen,
            selection={"cases": _split(_setting(self.config, "toolcall_cases")),
                       "keyword": getattr(option, "keyword", "") or None,
                       "markers": getattr(option, "markexpr", "") or None},
            settings={"transport": _setting(self.config, "toolcall_transport") or "inprocess",
                      "loop_model": _setting(self.config, "toolcall_loop_model") or "inprocess"},
            versions={"pytest": pytest.__version__, "pytest_toolcall": __version__,
                      "python": platform.python_version()},
            start=self.started.isoformat(timespec="milliseconds"),
            end=datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
            duration=round(time.perf_counter() - self.clock, 3))

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        lines = list(self._summary_lines())
        if not lines:
            return
        terminalreporter.write_sep("-", "pytest-toolcall gate and reports")
        for line, markup in lines:
            terminalreporter.write_line(line, **markup)

    def leftover_threads(self) -> list[threading.Thread]:
        """Non-daemon threads started during the session and still running: they keep the
        process alive after the summary (an implementation's executor or timer not shut down)."""
        release_loop_threads()
        return [t for t in threading.enumerate()
                if t.is_alive() and not t.daemon and t is not threading.main_thread()
                and t.ident not in self.threads]

    def _summary_lines(self) -> Iterator[tuple[str, dict[str, bool]]]:
        leftover = self.leftover_threads() if self.records else []
        if leftover:
            names = ", ".join(f"{t.name!r}{_target(t)}" for t in leftover)
            yield (f"warning: {len(leftover)} non-daemon thread{'s' if len(leftover) != 1 else ''}"
                   f" left running after the suite will keep this process from exiting: {names}."
                   " Shut down executors and join threads the implementation starts (or make "
                   "them daemon threads)", {"yellow": True, "bold": True})
        if self.incomplete:
            yield f"INCOMPLETE RUN: {self.incomplete}", {"red": True, "bold": True}
        gaps = [r for r in self.records if r.known_gap is not None]
        if gaps:
            yield (f"known gaps ({len(gaps)}, declared; they do not fail the gate):", {})
            for r in gaps:
                now = " (NOW PASSES: remove the declaration)" if r.outcome == "xpassed" else ""
                yield f"  {r.id} [{r.provider}]: {r.known_gap}{now}", {}
        if self.gate is not None:
            yield self.gate.line(), ({"green": True} if self.gate.passed
                                     else {"red": True, "bold": True})
        if self.written:
            yield f"reports written: {', '.join(str(p) for p in self.written)}", {}
        if self.step_summary:
            yield self.step_summary, {}
        elif self.suppressed:
            yield f"no report files written: {MUTANT_ENV} is set (a mutmut run)", {}

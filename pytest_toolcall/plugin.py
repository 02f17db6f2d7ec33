"""The pytest plugin: options, fixtures, markers, suite collection and the summary. Kept thin:
the logic lives in modules that do not import pytest.

Precedence for every setting: command-line option > ini setting > default.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from typing import Any

import pytest

from . import hookspecs
from .dialects import DIALECT_NAMES

TRANSPORTS = ("inprocess", "loopback")


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolcall", "pytest-toolcall: conformance suite for LLM tool calling")
    group.addoption(
        "--toolcall-provider", dest="toolcall_provider", default=None, metavar="NAME[,NAME]",
        help="run the conformance suite against this provider's wire format: "
             f"{', '.join(DIALECT_NAMES)}, a comma list, or 'all'. Without it the suite is not "
             "collected. (ini: toolcall_provider)")
    group.addoption(
        "--toolcall-cases", dest="toolcall_cases", default=None, metavar="GLOB[,GLOB]",
        help="only the cases whose id matches one of these globs, e.g. 'stream.*' or "
             "'wire.zero_args_*' (ini: toolcall_cases)")
    group.addoption(
        "--toolcall-transport", dest="toolcall_transport", default=None, choices=TRANSPORTS,
        help="how adapters reach the fake provider: 'inprocess' (httpx MockTransport, the "
             "default) or 'loopback' (a real HTTP server on 127.0.0.1, for clients that are "
             "not httpx) (ini: toolcall_transport)")
    parser.addini("toolcall_provider", "default for --toolcall-provider", default="")
    parser.addini("toolcall_cases", "default for --toolcall-cases", default="")
    parser.addini("toolcall_transport", "default for --toolcall-transport", default="inprocess")
    parser.addini("toolcall_known_gaps", "known gaps, one 'case-glob: reason' per line; those "
                  "cases xfail (strict: an unexpected pass fails)", type="linelist", default=[])


def _setting(config: pytest.Config, name: str) -> str:
    value = config.getoption(name)
    return str(value) if value is not None else str(config.getini(name) or "")


def _split(value: str) -> list[str]:
    return [p.strip() for p in value.replace("\n", ",").split(",") if p.strip()]


def providers(config: pytest.Config) -> list[str]:
    """The providers the suite runs for; a usage error names the valid ones."""
    names = _split(_setting(config, "toolcall_provider"))
    if names == ["all"]:
        return list(DIALECT_NAMES)
    unknown = [n for n in names if n not in DIALECT_NAMES]
    if unknown:
        raise pytest.UsageError(
            f"--toolcall-provider: unknown provider {unknown[0]!r}. Valid providers: "
            f"{', '.join(DIALECT_NAMES)}, or 'all'.")
    return list(dict.fromkeys(names))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "toolcall: an item of the pytest-toolcall suite")
    config.addinivalue_line(
        "markers", "toolcall_known_gap(case, reason): the matching cases xfail with the reason; "
                   "an unexpected pass fails the run")
    providers(config)  # fail early on a bad name
    transport = _setting(config, "toolcall_transport") or "inprocess"
    if transport not in TRANSPORTS:
        raise pytest.UsageError(f"toolcall_transport = {transport!r}: use one of {TRANSPORTS}")
    config.pluginmanager.register(Summary(), "toolcall-summary")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    chosen = providers(config)
    if not chosen:
        return
    from ._suite import ToolcallSuite

    suite = ToolcallSuite.from_parent(session, name="toolcall", nodeid="toolcall")
    suite.providers = chosen
    suite.patterns = _split(_setting(config, "toolcall_cases"))
    items.extend(session.genitems(suite))  # type: ignore[arg-type]
    gaps = [line.partition(":") for line in config.getini("toolcall_known_gaps")]
    for item in items:
        if item.get_closest_marker("toolcall") is None:
            continue
        for pattern, _, reason in gaps:
            item.add_marker(pytest.mark.toolcall_known_gap(
                pattern.strip(), reason=reason.strip() or "declared in toolcall_known_gaps"))


# -- fixtures ---------------------------------------------------------------------------------
@pytest.fixture
def toolcall_provider(request: pytest.FixtureRequest) -> str:
    """The provider (dialect) name of this item: 'openai', ..."""
    from ._suite import PROVIDER_KEY

    name = request.node.stash.get(PROVIDER_KEY, None)
    if name is None:
        chosen = providers(request.config)
        name = chosen[0] if chosen else "openai"
    return name


@pytest.fixture
def toolcall_case(request: pytest.FixtureRequest) -> Any:
    """The conformance case of this suite item."""
    from ._suite import CASE_KEY
    from .errors import UsageError

    case = request.node.stash.get(CASE_KEY, None)
    if case is None:
        raise UsageError("the toolcall_case fixture only exists inside suite items")
    return case


@pytest.fixture
def toolcall_endpoint(request: pytest.FixtureRequest, toolcall_provider: str) -> Iterator[Any]:
    """Where the adapter sends requests: base_url, api_key, httpx clients, the fake provider."""
    from .fake import FakeProvider, in_process_endpoint, serve

    fake = FakeProvider(toolcall_provider)
    if (_setting(request.config, "toolcall_transport") or "inprocess") == "loopback":
        with serve(fake) as endpoint:
            yield endpoint
        return
    endpoint = in_process_endpoint(fake)
    yield endpoint
    endpoint.close()


@pytest.fixture
def toolcall_adapter(toolcall_endpoint: Any) -> Any:
    """The adapter under test. Override it in conftest.py to test yours; the default is the
    built-in reference adapter of the provider."""
    from .reference import reference_adapter

    return reference_adapter(toolcall_endpoint)


@pytest.fixture
def toolcall_profile(toolcall_provider: str) -> Any:
    """What the adapter under test claims (a Profile or a dict). Override it to narrow claims."""
    from .contracts import Profile

    return Profile(name=f"reference {toolcall_provider}")


# -- reporting --------------------------------------------------------------------------------
@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    from .errors import ConformanceFailure

    if call.excinfo is not None and isinstance(call.excinfo.value, ConformanceFailure):
        report.user_properties.append(("toolcall_clause", call.excinfo.value.clause))
    return report


_COLUMNS = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")


class Summary:
    """Counts suite outcomes per family and provider (on the xdist controller too)."""

    def __init__(self) -> None:
        self.rows: Counter[tuple[str, str, str]] = Counter()
        self.failures: list[tuple[str, str | None]] = []
        self.errors: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        if "toolcall_case" not in props:
            return
        outcome = _outcome(report)
        if outcome is None:
            return
        self.rows[(props["toolcall_family"], props["toolcall_provider"], outcome)] += 1
        if outcome == "failed":
            self.failures.append((report.nodeid, props.get("toolcall_clause")))
        elif outcome == "error":
            self.errors.append(report.nodeid)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.rows:
            return
        rows: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
        for (family, provider, outcome), n in self.rows.items():
            rows[(family, provider)][outcome] += n
        write = terminalreporter.write_line
        terminalreporter.write_sep("=", "pytest-toolcall conformance summary")
        write(f"{'family':<10}{'provider':<12}" + "".join(f"{c:>9}" for c in _COLUMNS))
        totals: Counter[str] = Counter()
        for (family, provider), counts in sorted(rows.items()):
            totals.update(counts)
            write(f"{family:<10}{provider:<12}" + "".join(f"{counts[c]:>9}" for c in _COLUMNS))
        runs = sum(totals.values())
        parts = [f"{totals[c]} {c}" for c in _COLUMNS if totals[c]]
        write(f"{runs} case run{'s' if runs != 1 else ''}: {', '.join(parts)}")
        if self.failures:
            write("broken clauses (your implementation):")
            for nodeid, clause in self.failures:
                write(f"  {nodeid.removeprefix('toolcall::')}: {clause or 'see the failure above'}")
        if self.errors:
            write("could not run (setup or kit errors, not verdicts on the implementation):")
            for nodeid in self.errors:
                write(f"  {nodeid.removeprefix('toolcall::')}")
        if self.failures or self.errors:
            write("re-run one case: pytest --toolcall-provider=<name> --toolcall-cases=<case id>")


def _outcome(report: pytest.TestReport) -> str | None:
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

"""The pytest entry point (``pytest11: toolcall``): options, ini settings, markers and hooks,
and nothing else until the kit is asked for (issue 9).

pytest loads this module in every session of every project where the kit is installed, so it
imports nothing but pytest and two modules of names. The kit itself (``plugins/core.py``
with its report, cassette and subprocess sub-plugins, and through them pydantic, httpx and the
suite) is registered only when a session asks for it:

- a ``--toolcall-*`` option is given, or a ``toolcall_*`` ini setting is set;
- a conftest.py (or another plugin) loaded at start-up defines a ``toolcall_*`` fixture or
  implements ``pytest_toolcall_cases``;
- a suite item's node id (``toolcall::...``) is given as an argument;
- a collected test requests a ``toolcall_*`` fixture (the kit is loaded then, before any test
  runs, and pytest finds its fixtures when the test sets them up).

``-p no:toolcall`` still switches everything off: it blocks this module.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolcall.core import hookspecs
from pytest_toolcall.core._names import (
    LOOP_MODELS,
    MISSING_POLICIES,
    PROVIDERS,
    RECORD_MODES,
    REPLAY_CHUNKINGS,
    TRANSPORTS,
)

#: the module registered when the kit is asked for (it loads its sub-plugins itself)
CORE = "pytest_toolcall.plugins.core"

#: option dest -> default and ini name -> default, as defined below: a value other than its
#: default asks for the kit
_OPTION_DEFAULTS: dict[str, Any] = {}
_INI_DEFAULTS: dict[str, Any] = {}


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    # pytest --help: the options a newcomer needs in the first group, the rest in their own
    # (issue 32: one group of 21 options hid the three that matter)
    groups = {
        "main": parser.getgroup("toolcall", "pytest-toolcall: conformance suite for LLM tool "
                                "calling (more in the pytest-toolcall groups below)"),
        "run": parser.getgroup("toolcall-run", "pytest-toolcall: how the suite runs (transport, "
                               "loop model, another language, suite pin, strict mode)"),
        "ci": parser.getgroup("toolcall-ci", "pytest-toolcall: reports and the pass-rate gate "
                              "for CI (docs/ci.md)"),
        "live": parser.getgroup("toolcall-live", "pytest-toolcall: live runs against real "
                                "services, cassettes and request snapshots (docs/cassettes.md)"),
    }

    def option(*names: str, group: str = "run", **kwargs: Any) -> None:
        groups[group].addoption(*names, **kwargs)
        _OPTION_DEFAULTS[kwargs["dest"]] = kwargs.get("default")

    def ini(name: str, help: str, default: Any, type: str | None = None) -> None:  # noqa: A002
        if type is None:
            parser.addini(name, help, default=default)
        else:
            parser.addini(name, help, type=type, default=default)  # type: ignore[arg-type]
        _INI_DEFAULTS[name] = default

    # -- the suite ------------------------------------------------------------------------------
    option(
        "--toolcall-provider", group="main",
        dest="toolcall_provider", default=None, metavar="NAME[,NAME]",
        help="run the conformance suite against this provider's wire format: "
             f"{', '.join(PROVIDERS)}, a comma list, or 'all'. Without it the suite is not "
             "collected. (ini: toolcall_provider)")
    option(
        "--toolcall-cases", group="main",
        dest="toolcall_cases", default=None, metavar="GLOB[,GLOB]",
        help="only the cases whose id matches one of these globs, e.g. 'stream.*' or "
             "'wire.zero_args_*' (ini: toolcall_cases)")
    option(
        "--toolcall-transport", dest="toolcall_transport", default=None, choices=TRANSPORTS,
        help="how adapters reach the fake provider: 'inprocess' (httpx MockTransport, the "
             "default) or 'loopback' (a real HTTP server on 127.0.0.1, for clients that are "
             "not httpx) (ini: toolcall_transport)")
    ini("toolcall_provider", "default for --toolcall-provider", "")
    ini("toolcall_cases", "default for --toolcall-cases", "")
    ini("toolcall_transport", "default for --toolcall-transport", "inprocess")
    option(
        "--toolcall-loop-model", dest="toolcall_loop_model", default=None, choices=LOOP_MODELS,
        help="the model a tool loop under test talks to: 'inprocess' (a scripted chat adapter "
             "that checks each request with the provider's rules, the default) or 'fake' (the "
             "provider's reference adapter over the fake provider's wire format) "
             "(ini: toolcall_loop_model)")
    ini("toolcall_loop_model", "default for --toolcall-loop-model", "inprocess")
    option(
        "--toolcall-command", dest="toolcall_command", default=None, metavar="COMMAND",
        help="test an implementation in another language: start COMMAND (e.g. 'node "
             "my-harness.mjs') and speak the child-process protocol with it (docs/protocol.md) "
             "(ini: toolcall_command)")
    ini("toolcall_command", "default for --toolcall-command", "")
    ini("toolcall_hello_timeout", "seconds the --toolcall-command child has to answer its "
        "hello (15); a child that exits first is reported at once", "")
    option(
        "--toolcall-child-log", dest="toolcall_child_log", default=None, metavar="FILE",
        help="append every line the --toolcall-command child writes to stderr to FILE (masked), "
             "passing runs too: the kit shows a child's stderr only with a failure "
             "(ini: toolcall_child_log)")
    ini("toolcall_child_log", "default for --toolcall-child-log", "")
    option(
        "--toolcall-adapter", group="main", dest="toolcall_adapter", default=None,
        metavar="shims.LIBRARY:MODULE:FACTORY",
        help="test a real client library through a ready-made shim, without code: e.g. "
             "'shims.openai:my_app.models:make_client', where make_client(endpoint) builds the "
             "library's client (docs/shims.md) (ini: toolcall_adapter)")
    ini("toolcall_adapter", "default for --toolcall-adapter", "")
    ini("toolcall_known_gaps", "known gaps, one 'case-glob: reason' per line; those cases xfail "
        "(strict: an unexpected pass fails)", [], type="linelist")
    option(
        "--toolcall-suite", dest="toolcall_suite", default=None, metavar="VERSION",
        help="pin the suite version (e.g. 0.3.0): cases added after it are previews, skipped "
             "unless --toolcall-preview, and clauses keep their level as of it; default the "
             "newest (ini: toolcall_suite)")
    option(
        "--toolcall-preview", dest="toolcall_preview", action="store_true", default=None,
        help="also run the cases added after the pinned --toolcall-suite version "
             "(ini: toolcall_preview)")
    option(
        "--toolcall-strict", dest="toolcall_strict", action="store_true", default=None,
        help="fail the run on 'should' clauses too (hardening: timeouts, retry hints, typed "
             "errors), not only on 'must' ones (defects) (ini: toolcall_strict)")
    ini("toolcall_suite", "default for --toolcall-suite", "")
    ini("toolcall_preview", "default for --toolcall-preview", False, type="bool")
    ini("toolcall_strict", "default for --toolcall-strict", False, type="bool")

    # -- reports and the gate (report_plugin.py) ------------------------------------------------
    option(
        "--toolcall-report", group="ci", dest="toolcall_report", default=None, metavar="DIR",
        help="write toolcall-report.json, toolcall-summary.md (for $GITHUB_STEP_SUMMARY) and "
             "toolcall-badge.json (shields.io endpoint) into DIR (ini: toolcall_report)")
    option(
        "--toolcall-min-pass-rate", group="ci",
        dest="toolcall_min_pass_rate", default=None, metavar="RATE",
        help="fail the session when the suite's pass rate, (passed + xpassed + hardening) / "
             "(passed + xpassed + hardening + failed + error), is below RATE (0.95 or 95%%); "
             "known gaps and skips are not counted (ini: toolcall_min_pass_rate)")
    option(
        "--toolcall-gate-families", group="ci", dest="toolcall_gate_families", default=None,
        metavar="FAMILY[,FAMILY]",
        help="only these families' cases count toward --toolcall-min-pass-rate, e.g. "
             "'wire,stream'; a failing case of another family still fails pytest "
             "(ini: toolcall_gate_families)")
    ini("toolcall_report", "default for --toolcall-report (relative to the ini file)", "")
    ini("toolcall_min_pass_rate", "default for --toolcall-min-pass-rate", "")
    ini("toolcall_gate_families", "default for --toolcall-gate-families", "")

    # -- cassettes and live runs (cassettes_plugin.py) ------------------------------------------
    option(
        "--toolcall-live", group="live", dest="toolcall_live", action="store_true", default=None,
        help="run the live cases (live.*) against the real provider or its cassette instead of "
             "the fake: keys from OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY / "
             "GOOGLE_API_KEY (ini: toolcall_live)")
    option(
        "--toolcall-record-mode", group="live",
        dest="toolcall_record_mode", default=None, choices=RECORD_MODES,
        help="live cases: 'none' replays cassettes with the network blocked (default); 'once' "
             "records missing cassettes; 'new_episodes' adds new requests; 'all' re-records "
             "(ini: toolcall_record_mode)")
    option(
        "--toolcall-cassette-dir", group="live",
        dest="toolcall_cassette_dir", default=None, metavar="DIR",
        help="where cassettes (<provider>/<case id>.yaml) and request snapshots "
             "(requests/<provider>/<case id>.json) live; default 'cassettes' under the rootdir "
             "(ini: toolcall_cassette_dir; the toolcall_cassette_dir fixture overrides both)")
    option(
        "--toolcall-base-url", group="live",
        dest="toolcall_base_url", action="append", default=None,
        metavar="NAME=URL",
        help="live cases: send provider NAME's requests to URL (a local Ollama or vLLM, a "
             "proxy); repeatable (ini: toolcall_base_url, one NAME=URL per line)")
    option(
        "--toolcall-model", group="live", dest="toolcall_model", action="append", default=None,
        metavar="NAME=MODEL",
        help="live cases: the model to ask for provider NAME (default: the adapter's) "
             "(ini: toolcall_model)")
    option(
        "--toolcall-missing-cassette", group="live", dest="toolcall_missing_cassette", default=None,
        choices=MISSING_POLICIES,
        help="live case without a cassette in replay: 'fail' (default) or 'skip'; both print "
             "the command that records it (ini: toolcall_missing_cassette)")
    option(
        "--toolcall-replay-chunking", group="live", dest="toolcall_replay_chunking", default=None,
        choices=REPLAY_CHUNKINGS,
        help="how a replayed stream is cut: 'seeded' (default), 'realistic', 'bytewise' or "
             "'recorded' (one piece, as vcrpy would) (ini: toolcall_replay_chunking)")
    option(
        "--toolcall-snapshot-update", group="live",
        dest="toolcall_snapshot_update", action="store_true",
        default=False,
        help="write the request snapshots (requests/<provider>/<case id>.json) of the cases run, "
             "creating missing ones; without it existing snapshots are checked")
    ini("toolcall_live", "default for --toolcall-live", False, type="bool")
    ini("toolcall_record_mode", "default for --toolcall-record-mode", "none")
    ini("toolcall_cassette_dir", "default for --toolcall-cassette-dir", "")
    ini("toolcall_base_url", "default for --toolcall-base-url", [], type="linelist")
    ini("toolcall_model", "default for --toolcall-model", [], type="linelist")
    ini("toolcall_missing_cassette", "default for --toolcall-missing-cassette", "fail")
    ini("toolcall_replay_chunking", "default for --toolcall-replay-chunking", "seeded")


def providers(config: pytest.Config) -> list[str]:
    """The providers the suite runs for; a usage error names the valid ones."""
    from pytest_toolcall.providers.base import DIALECT_NAMES

    names = _split(_setting(config, "toolcall_provider"))
    if not names and config.getoption("toolcall_provider") is not None:
        raise pytest.UsageError(
            "--toolcall-provider is empty: name a provider "
            f"({', '.join(DIALECT_NAMES)}), a comma list, or 'all'; leave the option out to "
            "run without the suite")
    return providers_named(names)


def providers_named(names: list[str]) -> list[str]:
    """The named providers, checked; 'all' is every one."""
    from pytest_toolcall.providers.base import DIALECT_NAMES

    if names == ["all"]:
        return list(DIALECT_NAMES)
    unknown = [n for n in names if n not in DIALECT_NAMES]
    if unknown:
        from pytest_toolcall.providers import REGISTRY

        families: dict[str, list[str]] = {}
        for name in DIALECT_NAMES:
            provider = REGISTRY.get(name)
            families.setdefault(provider.family if provider else name, []).append(name)
        grouped = "; ".join(f"{family}: {', '.join(members)}"
                            for family, members in sorted(families.items()))
        raise pytest.UsageError(
            f"--toolcall-provider: unknown provider {unknown[0]!r}. Valid providers: "
            f"{', '.join(DIALECT_NAMES)}, or 'all' (by family: {grouped}).")
    return list(dict.fromkeys(names))


def _setting(config: pytest.Config, name: str) -> str:
    """Command-line option > ini setting > default, as text."""
    value = config.getoption(name)
    return str(value) if value is not None else str(config.getini(name) or "")


def flag(config: pytest.Config, name: str) -> bool:
    """A yes/no setting: the command-line flag, else the ini setting."""
    value = config.getoption(name, None)
    return bool(value) if value is not None else bool(config.getini(name))


def suite_pin(config: pytest.Config) -> str | None:
    """The pinned suite version (``--toolcall-suite`` > ini ``toolcall_suite``), or ``None``
    (the newest runs); a usage error names the known versions."""
    raw = _setting(config, "toolcall_suite").strip()
    if not raw:
        return None
    from pytest_toolcall.cases.versions import check_version

    try:
        return check_version(raw)
    except ValueError as exc:
        raise pytest.UsageError(f"--toolcall-suite / toolcall_suite: {exc}") from None


def _split(value: str) -> list[str]:
    return [p.strip() for p in value.replace("\n", ",").split(",") if p.strip()]


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "toolcall: an item of the pytest-toolcall suite")
    config.addinivalue_line(
        "markers", "toolcall_known_gap(case, reason): the matching cases xfail with the reason; "
                   "an unexpected pass fails the run")
    if _asked_for(config):
        activate(config)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    """A test of the user's own that requests a ``toolcall_*`` fixture loads the kit; pytest
    looks fixtures up again when it sets a test up, so registering the kit now is in time."""
    if is_active(config):
        return
    if any(name.startswith("toolcall_") for item in items
           for name in getattr(item, "fixturenames", ())):
        activate(config)


#: the suite's node ids that failed last time and that a --lf / --ff run without the suite left
#: out (issue 32: such a run exited 0 in silence)
_UNRUN_FAILURES = pytest.StashKey[list]()


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    if not (config.getoption("lf", False) or config.getoption("failedfirst", False)):
        return
    if config.getoption("toolcall_provider", None) or config.getini("toolcall_provider"):
        return  # the suite was collected: --lf re-ran its failures
    cache = getattr(config, "cache", None)
    if cache is None:
        return
    cached = sorted(k for k in cache.get("cache/lastfailed", {}) if k.startswith("toolcall::"))
    if cached:
        config.stash[_UNRUN_FAILURES] = cached
        if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    cached = config.stash.get(_UNRUN_FAILURES, None)
    if not cached:
        return
    names = sorted({k.rsplit("[", 1)[-1].rstrip("]") for k in cached if k.endswith("]")})
    terminalreporter.section("pytest-toolcall", sep="-", red=True)
    terminalreporter.write_line(
        f"{len(cached)} suite case run(s) failed last time and were not re-run: the suite is "
        "collected only with --toolcall-provider (this run exits 1 for them). Re-run them with:")
    terminalreporter.write_line(
        f"  pytest --lf --toolcall-provider={','.join(names) or '<provider>'}")


def is_active(config: pytest.Config) -> bool:
    return config.pluginmanager.has_plugin(CORE)


def activate(config: pytest.Config) -> None:
    """Register the kit's plugin (and, through it, its sub-plugins) in this session."""
    if is_active(config):
        return
    config.pluginmanager.import_plugin(CORE)
    # import_plugin registered it; the plugins that override its fixtures must come after it
    config.pluginmanager.get_plugin(CORE).register_overrides(config)


def _asked_for(config: pytest.Config) -> bool:
    for dest, default in _OPTION_DEFAULTS.items():
        if config.getoption(dest, default) != default:
            return True
    for name, default in _INI_DEFAULTS.items():
        if config.getini(name) != default:
            return True
    args = getattr(config, "args", None) or []
    if any(str(a) == "toolcall" or str(a).startswith("toolcall::") for a in args):
        return True  # a suite item's node id given back to rerun it
    return any(_wants_kit(plugin) for plugin in config.pluginmanager.get_plugins())


def _wants_kit(plugin: object) -> bool:
    """A conftest.py or plugin that overrides a toolcall_* fixture or adds cases."""
    module = getattr(plugin, "__name__", "")
    # pytest's own plugins (half of those registered) define no toolcall_* fixture
    if not isinstance(module, str) or module.startswith(("pytest_toolcall", "_pytest.")):
        return False
    if callable(getattr(plugin, "pytest_toolcall_cases", None)):
        return True
    return bool(fixture_names(plugin))


def fixture_names(plugin: object) -> set[str]:
    """Names of the toolcall_* fixtures a module defines (``@pytest.fixture(name=...)`` too)."""
    names = set()
    try:
        members = vars(plugin)
    except TypeError:
        return names
    for attribute, value in list(members.items()):
        if not callable(value):  # (a fixture always is: the two lookups below cost more)
            continue
        marker = (getattr(value, "_fixture_function_marker", None)
                  or getattr(value, "_pytestfixturefunction", None))
        if marker is None:
            continue
        name = getattr(marker, "name", None) or getattr(value, "name", None) or attribute
        if isinstance(name, str) and name.startswith("toolcall_"):
            names.add(name)
    return names

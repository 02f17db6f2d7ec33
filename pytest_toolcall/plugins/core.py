"""The kit's pytest plugin: configuration, which suite items to collect (providers, node ids,
known gaps, shuffling), and where the suite sits among the session's items. Its fixtures are in
``fixtures.py``, the summary in ``summary.py``. Kept thin: the logic lives in modules that do not
import pytest. Registered by the entry point ``plugin.py`` (which defines the
options, ini settings and markers) only when a session asks for the kit (issue 9).

Precedence for every setting: command-line option > ini setting > default.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.core._names import LOOP_MODELS, TRANSPORTS
from pytest_toolcall.core.errors import UsageError as ToolcallUsageError
from pytest_toolcall.providers.plugins import register_providers, unregister_providers
from pytest_toolcall.plugin import (
    _setting,
    _split,
    fixture_names,
    providers,
    providers_named,
    suite_pin,
)

#: loaded right after this module, in this order (the fixtures; the summary; --toolcall-report,
#: the gate; cassettes). Not
#: through ``pytest_plugins``: for each name listed there pytest first reads the entry points of
#: every installed distribution (some 6 ms a name, a session, here), and these are no entry
#: points, so the scan never finds them
SUB_PLUGINS = ("pytest_toolcall.plugins.fixtures", "pytest_toolcall.plugins.summary",
               "pytest_toolcall.plugins.report", "pytest_toolcall.plugins.cassettes")


@pytest.hookimpl(trylast=True)
def pytest_plugin_registered(plugin: object, manager: pytest.PytestPluginManager) -> None:
    # where pytest would take up ``pytest_plugins``: once this module is registered (all its
    # hooks attached, its fixtures parsed), before anything else is
    if plugin is sys.modules[__name__]:
        for name in SUB_PLUGINS:
            manager.import_plugin(name)


def pytest_configure(config: pytest.Config) -> None:
    try:
        config.stash[_PLUGIN_PROVIDERS] = register_providers(config)
    except ToolcallUsageError as exc:
        raise pytest.UsageError(str(exc)) from None
    try:
        _configure(config)
    except BaseException:
        # this module is registered while pytest_configure runs (plugin.activate), and pluggy
        # attaches a plugin's hooks in name order, stopping at the first that raises: when
        # this one fails, pytest_unconfigure is never attached, so forget the plugins'
        # providers here (a later session in the process must not see them)
        unregister_providers(config.stash.get(_PLUGIN_PROVIDERS, []))
        config.stash[_PLUGIN_PROVIDERS] = []
        raise


def _transport(config: pytest.Config) -> str:
    return _setting(config, "toolcall_transport") or "inprocess"


def _configure(config: pytest.Config) -> None:
    providers(config)  # fail early on a bad name
    suite_pin(config)  # and on a suite version that does not exist
    _check_known_gap_lines(config)
    transport = _transport(config)
    if transport not in TRANSPORTS:
        raise pytest.UsageError(f"toolcall_transport = {transport!r}: use one of {TRANSPORTS}")
    loop_model = _setting(config, "toolcall_loop_model") or "inprocess"
    if loop_model not in LOOP_MODELS:
        raise pytest.UsageError(f"toolcall_loop_model = {loop_model!r}: use one of {LOOP_MODELS}")
    # this hook runs before SUB_PLUGINS are loaded: load the summary plugin now, as pytest loads
    # a plugin (a plain import would keep pytest from rewriting its asserts, with a warning)
    config.pluginmanager.import_plugin("pytest_toolcall.plugins.summary")
    from pytest_toolcall.plugins.summary import Summary

    config.pluginmanager.register(Summary(config, chosen=_chosen), "toolcall-summary")
    adapter_spec = _setting(config, "toolcall_adapter").strip()
    if adapter_spec:  # the form is checked now, the factory imported when first needed
        from pytest_toolcall.plugins.suite import ADAPTER_SPEC
        from pytest_toolcall.shims._config import parse

        try:
            config.stash[ADAPTER_SPEC] = parse(adapter_spec)
        except ToolcallUsageError as exc:
            raise pytest.UsageError(str(exc)) from None
    _take_suite_node_ids(config)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Hypothesis' files (the kit's searches) under pytest's cache, not in the project (issue
    32); pytest's cache is there by now, which it may not be in pytest_configure."""
    from pytest_toolcall.run import runbase

    cache = getattr(session.config, "cache", None)  # None under -p no:cacheprovider
    runbase.HYPOTHESIS_HOME = cache.mkdir("toolcall-hypothesis") if cache is not None else None


def pytest_unconfigure(config: pytest.Config) -> None:
    unregister_providers(config.stash.get(_PLUGIN_PROVIDERS, []))


def _check_known_gap_lines(config: pytest.Config) -> None:
    """Each toolcall_known_gaps line is 'case-glob: reason'; without the colon the line would
    declare nothing (or the wrong glob) in silence."""
    for line in config.getini("toolcall_known_gaps"):
        pattern, colon, reason = str(line).partition(":")
        if not colon or not pattern.strip():
            raise pytest.UsageError(
                f"toolcall_known_gaps: the line {line!r} is not 'case-glob: reason'. Write the "
                "case id or glob, a colon, then why it is a known gap, e.g. "
                "'wire.parallel_calls: keeps only the first call (issue 12)'")


#: the providers this session's plugins added (forgotten when it ends)
_PLUGIN_PROVIDERS = pytest.StashKey[list[str]]()


def register_overrides(config: pytest.Config) -> None:
    """Plugins whose fixtures replace this module's: registered by the entry point once this
    module and its sub-plugins are (pytest lets the fixture registered last win, and this
    module's pytest_configure runs before pytest has taken note of this module's fixtures)."""
    from pytest_toolcall.plugins import foreign as foreign_plugin

    config.pluginmanager.register(foreign_plugin, "toolcall-subprocess")
    command = _command(config)
    if command:
        config.pluginmanager.register(foreign_plugin.ForeignPlugin(command), "toolcall-foreign")


def _command(config: pytest.Config) -> str:
    """--toolcall-command (> ini toolcall_command), checked: a value given but blank (in CI,
    ``--toolcall-command="$HARNESS"`` with the variable unset) is a usage error, never a silent
    run of the kit's own reference that exits 0; unbalanced quotes are one too (issue 35)."""
    import shlex

    given = config.getoption("toolcall_command")
    explicit, where = given is not None, "--toolcall-command"
    if given is None:  # -o toolcall_command= is asked for explicitly too; a blank ini line not
        given, where = str(config.getini("toolcall_command") or ""), "toolcall_command (ini)"
        explicit = any(str(o).partition("=")[0].strip() == "toolcall_command"
                       for o in config.getoption("override_ini", None) or ())
        where = "-o toolcall_command" if explicit else where
    command = str(given).strip()
    if explicit and not command:
        raise pytest.UsageError(
            f"pytest-toolcall: {where} is empty: give the command that starts your harness, "
            "e.g. --toolcall-command='node my-harness.mjs' (an unset variable in "
            "--toolcall-command=\"$HARNESS\" gives an empty value); leave the option out to "
            "test a Python implementation")
    try:
        shlex.split(command)
    except ValueError as exc:
        raise pytest.UsageError(
            f"pytest-toolcall: {where} = {command!r} cannot be read as a command: {exc} (the "
            "value is split like a shell command line: close each quote, or escape it)") from None
    return command


_NODE_IDS = pytest.StashKey[list[str]]()


def _take_suite_node_ids(config: pytest.Config) -> None:
    """Rerun by the node id pytest prints ("toolcall::wire.single_call[openai]"): the suite is no
    file on disk, so pytest would say "file or directory not found"; take such arguments out of
    the path arguments and select the named items after collection instead (issue 17)."""
    args = getattr(config, "args", None)
    if not isinstance(args, list):
        return
    ours = [a for a in args if a == "toolcall" or a.startswith("toolcall::")]
    bare = [a for a in ours if not _provider_of(a)]
    if bare and not providers(config):
        raise pytest.UsageError(
            f"pytest-toolcall: the node id {bare[0]!r} names no provider. A suite item's node "
            "id is 'toolcall::<case id>[<provider>]', as pytest prints it, e.g. "
            "'toolcall::wire.single_call[openai]'; or keep the id and name the provider with "
            f"--toolcall-provider=NAME (then {bare[0]!r} runs for that provider).")
    if ours:
        config.stash[_NODE_IDS] = ours
        args[:] = [a for a in args if a not in ours]
        if not args:  # node ids alone: walk the directories pytest walks without arguments
            args[:] = _default_args(config)
            config.stash[_ONLY_NODE_IDS] = True


_ONLY_NODE_IDS = pytest.StashKey[bool]()


def _default_args(config: pytest.Config) -> list[str]:
    """What pytest collects when given no argument (testpaths from the rootdir, else the current
    directory). Node ids alone left pytest nothing to collect, so a toolcall_* override in
    ``tests/conftest.py`` was never loaded and the suite could not see it (issue 17); the
    directories are walked for their conftest.py files, their test files are not collected
    (pytest_ignore_collect below): only the named suite items run."""
    import glob

    invocation = config.invocation_params.dir
    if invocation == config.rootpath:
        found = [match for path in config.getini("testpaths")
                 for match in sorted(glob.iglob(str(path), recursive=True))]
        if found:
            return found
    return [str(invocation)]


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if config.stash.get(_ONLY_NODE_IDS, False) and not collection_path.is_dir():
        return True  # only suite node ids were given: no test file of the user's runs
    return None


def _selected_by_node_id(config: pytest.Config, nodeid: str) -> bool:
    wanted = config.stash.get(_NODE_IDS, None)
    if not wanted:
        return True
    return any(w == "toolcall" or nodeid == w or nodeid.startswith(w + "[") for w in wanted)


def _provider_of(node_id: str) -> str:
    """The provider a suite node id names ("toolcall::wire.single_call[openai]"), or ''."""
    if node_id.startswith("toolcall::") and node_id.endswith("]") and "[" in node_id:
        return node_id.rpartition("[")[2][:-1]
    return ""


def _providers_of_node_ids(config: pytest.Config) -> list[str]:
    """A node id names its provider ("toolcall::wire.single_call[openai]"): rerunning by node id
    needs no --toolcall-provider beside it."""
    found = [_provider_of(w) for w in config.stash.get(_NODE_IDS, ()) if _provider_of(w)]
    return providers_named(found) if found else []


def _check_node_ids_found(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A suite node id that names no item (a typo, a case --toolcall-cases leaves out) is an
    error, as pytest's own "not found" is for a test id, never "no tests ran" in silence."""
    ids = [item.nodeid for item in items if item.get_closest_marker("toolcall") is not None]
    for wanted in config.stash.get(_NODE_IDS, ()):
        if wanted != "toolcall" and not any(i == wanted or i.startswith(wanted + "[")
                                            for i in ids):
            raise pytest.UsageError(
                f"pytest-toolcall: not found: {wanted} (no suite item has this node id for "
                f"{', '.join(_chosen(config))}). Suite node ids look like "
                "'toolcall::wire.single_call[openai]'; list them with: pytest "
                "--toolcall-provider=NAME --collect-only -q (--toolcall-cases / toolcall_cases "
                "leave cases out)")


def _chosen(config: pytest.Config) -> list[str]:
    """The providers the suite runs for: the configured ones, else those its node ids name."""
    return providers(config) or _providers_of_node_ids(config)


@pytest.hookimpl(tryfirst=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    """The suite's own collection, before plugins that empty a file by its path: under --lf,
    once a failed test of the user's is collected, pytest's cacheprovider (LFPluginCollSkipfiles)
    returns an empty collection for every file whose path has no recorded failure, and the
    suite's path (_suite.py) never has one (its failures are recorded under "toolcall::"), so
    `pytest --lf` re-ran the user's failures and dropped the suite's (issue 17). --lf and --ff
    select among the suite's items after collection, like any other items."""
    from pytest_toolcall.plugins.suite import ToolcallSuite

    if not isinstance(collector, ToolcallSuite):
        return None
    from _pytest import runner  # the default implementation (pytest has no public alias)

    return runner.pytest_make_collect_report(collector)


_DIRECTORIES = pytest.StashKey[dict[str, pytest.Collector]]()


def pytest_collectstart(collector: pytest.Collector) -> None:
    # Remember directory nodes (even those without tests of their own): the suite is parented
    # under the one whose conftest.py overrides the toolcall_* fixtures.
    if isinstance(collector, pytest.Directory):
        collector.config.stash.setdefault(_DIRECTORIES, {})[collector.nodeid] = collector


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    chosen = _chosen(config)
    if not chosen:
        return
    from pytest_toolcall.plugins.suite import ToolcallSuite

    # An explicit nodeid keeps item ids short and the same wherever the suite is parented.
    suite = ToolcallSuite.from_parent(_suite_parent(session), name="toolcall", nodeid="toolcall",
                                     path=Path(_suite_file()))
    from pytest_toolcall.plugins.cassettes import live_mode

    suite.providers = chosen
    option = config.option
    suite.fill_defaults = not (live_mode(config) or _transport(config) == "loopback"
                               or getattr(option, "setupshow", False)
                               or getattr(option, "setuponly", False)
                               or getattr(option, "setupplan", False))
    suite.patterns = _split(_setting(config, "toolcall_cases"))
    items.extend(item for item in session.genitems(suite)  # type: ignore[arg-type]
                 if _selected_by_node_id(config, item.nodeid))
    _check_node_ids_found(config, items)
    _shuffle_with_randomly(config, items)
    gaps = [line.partition(":") for line in config.getini("toolcall_known_gaps")]
    _warn_unmatched_gaps(config, [pattern.strip() for pattern, _, _ in gaps])
    loopback = _loopback_hosts(config)
    for item in items:
        if item.get_closest_marker("toolcall") is None:
            continue
        if loopback:
            item.add_marker(pytest.mark.block_network(allowed_hosts=loopback))
        for pattern, _, reason in gaps:
            item.add_marker(pytest.mark.toolcall_known_gap(
                pattern.strip(), reason=reason.strip() or "declared in toolcall_known_gaps"))


def _shuffle_with_randomly(config: pytest.Config, items: list[pytest.Item]) -> None:
    """pytest-randomly shuffles in a wrapper of this hook *before* the other implementations run,
    so the suite's items, added here, came after the user's in the kit's fixed order whatever
    the seed (issue 17). When pytest-randomly is active (not -p no:randomly, not
    --randomly-dont-reorganize), its shuffle is applied again to the whole list: it is a function
    of the seed and the node ids, so the user's items keep the order it gave them and the
    suite's take part (the suite is one module; its cases are shuffled within it). Without
    pytest-randomly the kit's own deterministic order stays."""
    plugin = config.pluginmanager.get_plugin("randomly")
    if plugin is None:
        return
    try:
        if not config.getoption("randomly_reorganize"):
            return
    except ValueError:  # pragma: no cover - an unknown version without the option
        return
    reorganize = getattr(plugin, "_reorganize_items", None)
    if callable(reorganize):
        reorganize(config, items)
        return
    import random  # pragma: no cover - a version without it: shuffle the suite's items alone

    ours = [i for i, item in enumerate(items) if item.get_closest_marker("toolcall") is not None]
    shuffled = [items[i] for i in ours]
    random.Random(config.getoption("randomly_seed")).shuffle(shuffled)
    for i, item in zip(ours, shuffled):
        items[i] = item


#: the kit's own servers (the fake on loopback, the hub of --toolcall-command) listen here
_LOOPBACK = [r"127\.0\.0\.1\Z", r"localhost\Z", r"::1\Z"]


def _loopback_hosts(config: pytest.Config) -> list[str] | None:
    """pytest-recording's --block-network blocks every socket, the kit's own loopback fake
    included, and the loopback cases would then fail as if the implementation had broken them.
    Under --block-network the suite's items allow loopback hosts (and the --allowed-hosts the
    user gave); everything else stays blocked. None when pytest-recording is absent or off."""
    try:
        blocked = config.getoption("--block-network")
    except ValueError:  # pytest-recording is not installed
        return None
    if not blocked:
        return None
    extra = config.getoption("--allowed-hosts") or ""
    return _LOOPBACK + [h for h in str(extra).split(",") if h]


def _suite_file() -> str:
    from pytest_toolcall.plugins import suite as _suite

    return _suite.__file__


def _warn_unmatched_gaps(config: pytest.Config, patterns: list[str]) -> None:
    """A known gap that names no case (a typo, a renamed case) would silently do nothing."""
    import fnmatch
    import warnings

    from pytest_toolcall.plugins.suite import build_registry
    from pytest_toolcall.core.errors import ToolcallError

    if not patterns:
        return
    try:
        ids = [case.id for case in build_registry(config)]
    except ToolcallError:
        return  # a malformed case: the suite's collection error already says so
    for pattern in patterns:
        if not any(fnmatch.fnmatchcase(case_id, pattern) for case_id in ids):
            warnings.warn(pytest.PytestConfigWarning(
                f"toolcall_known_gaps: {pattern!r} matches no case, so it declares nothing; "
                "case ids look like 'stream.truncated' (list them with --collect-only -q)"),
                stacklevel=1)


def _suite_parent(session: pytest.Session) -> pytest.Collector:
    """The node the suite hangs under, so that it sees the user's toolcall_* fixture overrides.

    pytest shows a conftest.py fixture only to nodes under that conftest's directory. Parented to
    the session, the suite would miss an override in ``tests/conftest.py`` and silently test the
    reference adapter instead; so it goes under the deepest directory whose conftest overrides a
    toolcall_* fixture, and overrides in unrelated directories are a usage error.
    """
    homes = _override_homes(session)
    if not homes:
        return session
    deepest = max(homes, key=lambda d: d.count("/"))
    strays = [d for d in homes if d != deepest and not deepest.startswith(d + "/")]
    if strays:
        where = "; ".join(f"{d}/conftest.py ({', '.join(sorted(homes[d]))})"
                          for d in sorted(homes))
        raise pytest.UsageError(
            f"pytest-toolcall: toolcall_* fixtures are overridden in conftest.py files of "
            f"unrelated directories: {where}. The suite runs against one adapter: move the "
            f"overrides into one conftest.py (the rootdir's, or a common parent directory's), "
            f"or run pytest on one of these directories at a time.")
    node = session.config.stash.get(_DIRECTORIES, {}).get(deepest)
    if node is None:
        raise pytest.UsageError(
            f"pytest-toolcall: {deepest}/conftest.py overrides {', '.join(sorted(homes[deepest]))}"
            f" but the directory {deepest!r} was not collected, so the suite cannot see it. "
            f"Run pytest on {deepest!r} (or a parent), or move the fixtures to the rootdir's "
            f"conftest.py.")
    return node


def _override_homes(session: pytest.Session) -> dict[str, set[str]]:
    """Directories (node ids) whose conftest.py defines a toolcall_* fixture, with the names.

    Read from the conftest modules themselves (registered plugins), not from the fixture
    manager: its internals changed in pytest 9.2, and a detection that silently finds nothing
    would let the suite test the reference adapter instead of the user's.
    """
    homes: dict[str, set[str]] = defaultdict(set)
    root = session.config.rootpath
    for plugin in session.config.pluginmanager.get_plugins():
        path = getattr(plugin, "__file__", None)
        if not path or not str(path).endswith("conftest.py"):
            continue
        names = fixture_names(plugin)
        if not names:
            continue
        try:
            home = Path(path).parent.relative_to(root).as_posix()
        except ValueError:
            continue  # a conftest outside the rootdir: pytest shows it to everything below it
        if home not in ("", "."):  # the rootdir's conftest is seen everywhere already
            homes[home].update(names)
    return dict(homes)

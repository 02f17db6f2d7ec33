"""Suite items fill the kit's own fixtures themselves, without pytest's fixture machinery, when no
one overrides or requests them (issue 9: a tenth of a millisecond a fixture, a fifth of a case's
cost above its floor). What must hold: every item still has exactly one endpoint, the one its
adapter talks to and its case runs against; an override, an autouse fixture or a dynamic
``getfixturevalue`` of a kit fixture keeps that fixture (and whatever it requests) with pytest;
``--setup-show`` still lists every fixture.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from pytest_toolcall.plugins.suite import direct_fixtures

PROVIDER = "--toolcall-provider=openai"
CASES = "--toolcall-cases=wire.single_call,stream.*_fragmented"

# Every suite item checks, before its call, that the fixture values it holds are the ones its
# adapter and its case run on, and records which toolcall_* fixtures pytest set up for it. A
# plugin registered at configure, not conftest hooks: pytest calls a conftest's item hooks only
# for items under its directory, and suite items live in the kit's _suite.py
CHECK = '''
import pytest


class Check:
    set_up = []
    calls = 0

    def pytest_fixture_setup(self, fixturedef, request):
        if fixturedef.argname.startswith("toolcall_"):
            self.set_up.append(fixturedef.argname)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_call(self, item):
        if item.get_closest_marker("toolcall") is None:
            return
        args = item.funcargs
        endpoint, adapter = args["toolcall_endpoint"], args["toolcall_adapter"]
        assert adapter.client is endpoint.client, "the adapter talks to another endpoint"
        assert endpoint.provider == args["toolcall_provider"] == "openai"
        assert args["toolcall_case"].id == item.name.partition("[")[0]
        assert args["request"].node is item
        Check.calls += 1

    def pytest_terminal_summary(self, terminalreporter):
        terminalreporter.write_line("CHECKED %d" % Check.calls)
        terminalreporter.write_line("SET_UP " + ",".join(sorted(set(self.set_up))))


def pytest_configure(config):
    config.pluginmanager.register(Check(), "check")
'''


def _set_up(result: pytest.RunResult) -> set[str]:
    checked = next(x for x in result.outlines if x.startswith("CHECKED "))
    assert int(checked.removeprefix("CHECKED ")) > 0, "no suite item was checked"
    line = next(x for x in result.outlines if x.startswith("SET_UP "))
    return {name for name in line.removeprefix("SET_UP ").split(",") if name}


def test_default_items_fill_every_kit_fixture_themselves(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CHECK)
    result = pytester.runpytest_inprocess(PROVIDER, CASES, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    # session-scoped and set up once for the session: the only one pytest still handles
    assert _set_up(result) == {"toolcall_cassette_dir"}


def test_an_override_keeps_what_it_requests_with_pytest(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CHECK + '''
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter


@pytest.fixture
def toolcall_adapter(toolcall_endpoint):
    return OpenAIChatAdapter.from_endpoint(toolcall_endpoint)
''')
    result = pytester.runpytest_inprocess(PROVIDER, CASES, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    assert _set_up(result) == {"toolcall_adapter", "toolcall_endpoint", "toolcall_provider",
                               "toolcall_cassette_dir", "toolcall_cassette_config"}


def test_an_override_of_the_profile_alone(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CHECK + '''
@pytest.fixture
def toolcall_profile():
    return {"name": "mine", "compatible_with": ["*"]}
''')
    result = pytester.runpytest_inprocess(PROVIDER, CASES, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    assert _set_up(result) == {"toolcall_profile", "toolcall_cassette_dir"}


def test_an_autouse_fixture_that_requests_a_kit_fixture(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CHECK + '''
SEEN = []


@pytest.fixture(autouse=True)
def note_endpoint(request, toolcall_endpoint):
    yield
    if request.node.get_closest_marker("toolcall") is not None:
        assert toolcall_endpoint is request.node.funcargs["toolcall_endpoint"]
        SEEN.append(toolcall_endpoint)


def pytest_sessionfinish(session):
    print("SEEN", len(set(map(id, SEEN))))
''')
    pytester.makepyfile(test_mine="def test_mine(toolcall_endpoint):\n    pass\n")
    result = pytester.runpytest_inprocess(PROVIDER, CASES, "-p", "no:cacheprovider", "-s")
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*SEEN 3"])
    assert _set_up(result) == {"toolcall_endpoint", "toolcall_provider", "toolcall_cassette_dir",
                               "toolcall_cassette_config"}


def test_a_fixture_that_asks_for_the_endpoint_by_name(pytester: pytest.Pytester) -> None:
    """``request.getfixturevalue`` is not in any fixture's arguments: the endpoint pytest sets
    up for it is the item's endpoint, never a second one."""
    pytester.makeconftest(CHECK + '''
SEEN = []


@pytest.fixture(autouse=True)
def by_name(request):
    if request.node.get_closest_marker("toolcall") is None:
        yield
        return
    endpoint = request.getfixturevalue("toolcall_endpoint")
    yield
    assert endpoint is request.node.funcargs["toolcall_endpoint"]
    SEEN.append(endpoint)


def pytest_sessionfinish(session):
    print("SEEN", len(set(map(id, SEEN))))
''')
    result = pytester.runpytest_inprocess(PROVIDER, CASES, "-p", "no:cacheprovider", "-s")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*SEEN 3"])
    assert "toolcall_endpoint" in _set_up(result)


@pytest.mark.parametrize("option", ["--setup-show", "--setup-plan"])
def test_setup_show_lists_the_kit_fixtures(pytester: pytest.Pytester, option: str) -> None:
    result = pytester.runpytest_inprocess(PROVIDER, "--toolcall-cases=wire.single_call",
                                          option, "-p", "no:cacheprovider")
    for name in ("toolcall_case", "toolcall_adapter", "toolcall_endpoint", "toolcall_profile"):
        assert f"F {name}" in result.stdout.str(), name


def test_the_endpoint_is_closed_at_teardown(pytester: pytest.Pytester) -> None:
    pytester.makeconftest('''
import pytest

HELD = []


class Hold:
    @pytest.hookimpl(trylast=True)
    def pytest_runtest_call(self, item):
        if item.get_closest_marker("toolcall") is not None:
            HELD.append(item.funcargs["toolcall_endpoint"])


def pytest_configure(config):
    config.pluginmanager.register(Hold(), "hold")


def pytest_sessionfinish(session):
    open_ones = [e for e in HELD if e._client is not None and not e._client.is_closed]
    print("OPEN", len(HELD), len(open_ones))
''')
    result = pytester.runpytest_inprocess(PROVIDER, CASES, "-p", "no:cacheprovider", "-s")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*OPEN 3 0"])


# -- direct_fixtures, on fixture closures built by hand ------------------------------------------
def _kit(name: str, *args: str) -> SimpleNamespace:
    func = type(name, (), {})  # any object with the kit's module and the fixture's name
    func.__module__, func.__name__ = "pytest_toolcall.plugins.fixtures", name
    return SimpleNamespace(func=func, argnames=args)


def _user(name: str, *args: str) -> SimpleNamespace:
    def func() -> None:  # defined in this test module: the user's
        pass
    func.__name__ = name
    return SimpleNamespace(func=func, argnames=args)


KIT = {"toolcall_provider": [_kit("toolcall_provider", "request")],
       "toolcall_case": [_kit("toolcall_case", "request")],
       "toolcall_endpoint": [_kit("toolcall_endpoint", "request", "toolcall_provider")],
       "toolcall_adapter": [_kit("toolcall_adapter", "pytestconfig", "toolcall_endpoint")],
       "toolcall_profile": [_kit("toolcall_profile", "toolcall_provider")]}


def _info(defs: dict[str, list[SimpleNamespace]]) -> SimpleNamespace:
    return SimpleNamespace(name2fixturedefs=defs, names_closure=["request", *defs])


def test_direct_fixtures_of_the_defaults() -> None:
    assert direct_fixtures(_info(KIT)) == ("toolcall_provider", "toolcall_case",
                                           "toolcall_endpoint", "toolcall_adapter",
                                           "toolcall_profile")


def test_an_override_that_wraps_the_kit_fixture_it_overrides() -> None:
    """``def toolcall_adapter(toolcall_adapter)`` runs the kit's too: what that one requests
    stays with pytest as well."""
    defs = {**KIT, "toolcall_adapter": [*KIT["toolcall_adapter"],
                                        _user("toolcall_adapter", "toolcall_adapter")]}
    assert direct_fixtures(_info(defs)) == ("toolcall_case", "toolcall_profile")


def test_a_user_fixture_requesting_the_provider() -> None:
    defs = {**KIT, "mine": [_user("mine", "toolcall_provider")]}
    assert direct_fixtures(_info(defs)) == ("toolcall_case", "toolcall_endpoint",
                                            "toolcall_adapter", "toolcall_profile")


def test_a_fixture_of_another_kit_module_is_not_ours() -> None:
    foreign = _kit("toolcall_endpoint", "request", "toolcall_provider")
    foreign.func.__module__ = "pytest_toolcall.plugins.foreign"
    defs = {**KIT, "toolcall_endpoint": [*KIT["toolcall_endpoint"], foreign]}
    assert direct_fixtures(_info(defs)) == ("toolcall_case", "toolcall_adapter",
                                            "toolcall_profile")

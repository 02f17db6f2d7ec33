"""The pytest side of the suite: a collector that turns cases into items, and the item itself."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

try:  # pytest >= 9.2: structured node ids
    from _pytest import nodeid as _nodeid
except ImportError:  # pragma: no cover - older pytest
    _nodeid = None  # type: ignore[assignment]
from pydantic import ValidationError

from pytest_toolcall.cases import Case, Registry, default_registry
from pytest_toolcall.core.contracts import check_adapter, make_profile
from pytest_toolcall.core.errors import (
    CaseDefinitionError,
    ConformanceFailure,
    KitError,
    ToolcallError,
    UsageError,
    raised_by_user,
)
from pytest_toolcall.run.runner import CaseSkipped, run_case

CASE_KEY = pytest.StashKey[Case]()
#: the pinned suite version of the session (None: the newest), read once at collection
PIN_KEY = pytest.StashKey[str | None]()
PROVIDER_KEY = pytest.StashKey[str]()
#: the kit's fixtures a suite item fills itself (see :func:`direct_fixtures`)
DIRECT_KEY = pytest.StashKey[tuple[str, ...]]()
#: a placeholder in ``item.funcargs`` that keeps pytest from setting up a fixture the item fills
_PENDING = object()


def build_registry(config: pytest.Config) -> Registry:
    """Built-in cases plus those every ``pytest_toolcall_cases`` hook returns.

    Each hook implementation is called on its own so that a malformed case names the conftest or
    plugin it came from.
    """
    registry = Registry()
    registry.extend(default_registry())
    for impl in reversed(config.hook.pytest_toolcall_cases.get_hookimpls()):
        if impl.hookwrapper or getattr(impl, "wrapper", False):
            continue
        source = _source(impl, config.rootpath)
        try:
            try:
                result = list(impl.function(**{name: config for name in impl.argnames}) or ())
            except (CaseDefinitionError, ValidationError):
                raise
            except Exception as exc:  # noqa: BLE001 - the hook's own bug: its frames
                raise UsageError(raised_by_user(
                    f"the pytest_toolcall_cases hook in {source}", exc)) from None
            for case in result:
                registry.add(case)
        except CaseDefinitionError as exc:
            raise CaseDefinitionError(exc.case_id, f"{exc.problem} (from the pytest_toolcall_cases "
                                      f"hook in {source})") from None
        except ValidationError as exc:
            # Case(...) built directly instead of through make_case()
            bad_id = next((str(e["input"]) for e in exc.errors() if e["loc"] == ("id",)), None)
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'case'}: {e['msg']}"
                                 for e in exc.errors())
            raise CaseDefinitionError(bad_id or f"<a case from {source}>",
                                      f"{problems} (from the pytest_toolcall_cases hook in "
                                      f"{source})") from None
    return registry


def _source(impl: Any, root: Path) -> str:
    """Where a hook implementation lives: a conftest path relative to the rootdir, or a name."""
    path = getattr(impl.plugin, "__file__", None)
    if not path:
        return str(impl.plugin_name)
    try:
        return str(Path(path).relative_to(root))
    except ValueError:
        return str(path)


def known_gap(item: pytest.Item, case: Case, profile_gaps: Any) -> str | None:
    """The reason this case is a declared known gap, from the marker, the ini or the profile."""
    for mark in item.iter_markers("toolcall_known_gap"):
        pattern = mark.args[0] if mark.args else mark.kwargs.get("case", "*")
        if fnmatch.fnmatchcase(case.id, pattern):
            return str(mark.kwargs.get("reason") or (mark.args[1] if len(mark.args) > 1 else
                                                     "declared known gap"))
    for pattern, reason in dict(profile_gaps or {}).items():
        if fnmatch.fnmatchcase(case.id, pattern):
            return str(reason)
    return None


ADAPTER_KEY = pytest.StashKey[tuple[Any, Any, list[str]]]()
#: the adapter spec of --toolcall-adapter / the toolcall_adapter ini setting, parsed at configure
ADAPTER_SPEC = pytest.StashKey[Any]()


# -- the kit's default fixture values ------------------------------------------------------------
# The fixtures in plugins/fixtures.py and plugins/cassettes.py return these; a suite item whose fixtures
# are the kit's own builds them itself (see CaseItem._fill_defaults).
def default_endpoint(provider: str) -> Any:
    """The in-process endpoint of a fresh fake provider."""
    from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint

    return in_process_endpoint(FakeProvider(provider))


def default_adapter(config: pytest.Config, endpoint: Any) -> Any:
    """The shim --toolcall-adapter names, else the reference adapter of the endpoint's provider."""
    from pytest_toolcall.reference import reference_adapter

    spec = config.stash.get(ADAPTER_SPEC, None)
    if spec is not None:
        return spec.adapter(endpoint)
    return reference_adapter(endpoint)


def default_profile(provider: str, reference: bool = True) -> Any:
    """The profile of an item whose ``toolcall_profile`` is the kit's: the reference
    implementation's when the subject under test is the reference, else one that claims
    nothing the subject has not declared (``reference.provider_profile``; issue 28)."""
    from pytest_toolcall.reference import provider_profile, reference_profile

    return reference_profile(provider) if reference else provider_profile(provider)


def kit_subject(item: Any) -> bool:
    """Whether the subject of this suite item is one of the kit's reference implementations:
    its fixture (``toolcall_adapter``, ``toolcall_loop``, ...) is the kit's own, and for an
    adapter no --toolcall-adapter shim replaces the reference. True outside suite items."""
    case = item.stash.get(CASE_KEY, None) if hasattr(item, "stash") else None
    if case is None:
        return True
    fixture = SUBJECTS[case.contract][0]
    if case.contract == "chat" and item.config.stash.get(ADAPTER_SPEC, None) is not None:
        return False
    defs = item._fixtureinfo.name2fixturedefs.get(fixture)
    return bool(defs) and _kit_fixture(defs[-1], fixture)


def _kit_fixture(fixturedef: Any, name: str) -> bool:
    func = fixturedef.func
    return (getattr(func, "__module__", None) in _KIT_FIXTURE_MODULES
            and getattr(func, "__name__", None) == name)


def default_loop(profile: Any) -> Any:
    from pytest_toolcall.reference.loop import ReferenceToolLoop

    return ReferenceToolLoop.from_profile(make_profile(profile))


def default_structured() -> Any:
    from pytest_toolcall.reference.fallback import ReferenceStructuredOutput

    return ReferenceStructuredOutput()


def default_history(profile: Any) -> Any:
    from pytest_toolcall.reference.history import ReferenceHistoryBuilder

    return ReferenceHistoryBuilder(failed_calls=make_profile(profile).history_failed_calls)


def default_cassette_config() -> dict[str, Any]:
    return {"ignore_body_keys": (), "secrets": (), "seed": 0}


#: where the kit's default fixtures are defined (an override anywhere else is the user's)
_KIT_FIXTURE_MODULES = frozenset({"pytest_toolcall.plugins.fixtures",
                                  "pytest_toolcall.plugins.cassettes"})

#: the kit's function-scoped fixtures a suite item can fill itself, in dependency order, and how:
#: ``item`` and the values filled so far -> the value. Each one is exactly its fixture's body for
#: an item of the in-process suite (no --toolcall-live, no loopback transport).
_BUILDERS: dict[str, Any] = {
    "toolcall_provider": lambda item, v: item.stash[PROVIDER_KEY],
    "toolcall_case": lambda item, v: item.stash[CASE_KEY],
    "toolcall_cassette_config": lambda item, v: default_cassette_config(),
    "toolcall_endpoint": lambda item, v: item._own_endpoint(v["toolcall_provider"]),
    "toolcall_adapter": lambda item, v: default_adapter(item.config, v["toolcall_endpoint"]),
    "toolcall_profile": lambda item, v: default_profile(v["toolcall_provider"],
                                                        kit_subject(item)),
    "toolcall_loop": lambda item, v: default_loop(v["toolcall_profile"]),
    "toolcall_structured": lambda item, v: default_structured(),
    "toolcall_history": lambda item, v: default_history(v["toolcall_profile"]),
}


def direct_fixtures(info: Any) -> tuple[str, ...]:
    """The kit's fixtures in this fixture closure that the item may fill itself, in the order of
    :data:`_BUILDERS`: those defined by the kit (not overridden) that no other fixture requests,
    directly or through another. A fixture that pytest sets up gets its arguments from pytest, so
    whatever such a fixture requests stays with pytest too, lest the item hold a second endpoint.
    """
    defs = info.name2fixturedefs
    ours = {name for name in info.names_closure if name in _BUILDERS and defs.get(name)
            and _kit_fixture(defs[name][-1], name)}
    with_pytest = {name for name in info.names_closure if name not in ours}
    pending = list(with_pytest)
    while pending:
        name = pending.pop()
        # the last definition, and the one it overrides when it requests its own name
        for fixturedef in reversed(defs.get(name) or ()):
            for arg in fixturedef.argnames:
                if arg not in with_pytest:
                    with_pytest.add(arg)
                    pending.append(arg)
            if name not in fixturedef.argnames:
                break
    return tuple(name for name in _BUILDERS if name in ours and name not in with_pytest)


#: the fixture that provides what each contract tests, and how the summary names it
SUBJECTS = {"chat": ("toolcall_adapter", "adapter"), "loop": ("toolcall_loop", "tool loop"),
            "history": ("toolcall_history", "history builder"),
            "fallback": ("toolcall_structured", "structured output")}


def _run(request: pytest.FixtureRequest, case: Case, **kwargs: Any) -> None:
    subject, profile, interfaces = request.node.stash[ADAPTER_KEY]
    reason = known_gap(request.node, case, profile.known_gaps)
    if reason is not None:
        request.applymarker(pytest.mark.xfail(reason=f"known gap: {reason}", strict=True,
                                              raises=ConformanceFailure))
    try:
        run_case(case, subject, profile, interfaces=interfaces,
                 suite=request.config.stash.get(PIN_KEY, None), **kwargs)
    except CaseSkipped as skip:
        if skip.risk is not None:  # the declared risk that turned the case off (issue 28)
            request.node.user_properties.append(("toolcall_declared_risk", skip.risk))
        pytest.skip(str(skip))


def _suite_case(request: pytest.FixtureRequest, toolcall_case: Case, toolcall_adapter: Any,
                toolcall_profile: Any, toolcall_endpoint: Any) -> None:
    """Run one chat-adapter case (the body of every chat suite item)."""
    _run(request, toolcall_case, endpoint=toolcall_endpoint)


def _suite_loop_case(request: pytest.FixtureRequest, toolcall_case: Case, toolcall_loop: Any,
                     toolcall_profile: Any, toolcall_provider: str) -> None:
    """Run one tool-loop case."""
    from pytest_toolcall.plugin import _setting

    _run(request, toolcall_case, dialect=toolcall_provider,
         loop_model=_setting(request.config, "toolcall_loop_model") or "inprocess",
         transport=_setting(request.config, "toolcall_transport") or "inprocess")


def _suite_history_case(request: pytest.FixtureRequest, toolcall_case: Case,
                        toolcall_history: Any, toolcall_profile: Any) -> None:
    """Run one history-builder case."""
    _run(request, toolcall_case)


def _suite_fallback_case(request: pytest.FixtureRequest, toolcall_case: Case,
                         toolcall_structured: Any, toolcall_profile: Any,
                         toolcall_provider: str) -> None:
    """Run one structured-output (fallback) case."""
    _run(request, toolcall_case, dialect=toolcall_provider)


_BODIES = {"chat": _suite_case, "loop": _suite_loop_case, "history": _suite_history_case,
           "fallback": _suite_fallback_case}


def check_subject(contract: str, subject: Any, profile: Any) -> list[str]:
    """The subject's interfaces to run; a usage error names what its contract misses."""
    if contract == "chat":
        return list(check_adapter(subject, profile))
    if contract == "loop":
        from pytest_toolcall.run.looprun import loop_interfaces

        return list(loop_interfaces(subject, profile))
    if contract == "fallback":
        from pytest_toolcall.run.fallbackrun import fallback_interfaces

        return list(fallback_interfaces(subject, profile))
    if not callable(getattr(subject, "build", None)):
        raise UsageError(f"the toolcall_history fixture returned a {type(subject).__name__}, "
                         "which is not a HistoryBuilder: it needs build(stored)")
    return []


_SETUP_HEADING = "pytest-toolcall could not run this case (fix the setup):"


#: pytest-recording's vcr marker on a suite item: vcrpy would patch the HTTP clients under the
#: kit's own transports and every case would fail as if the implementation had broken it
_VCR_ON_SUITE = (
    "a `vcr` marker (pytest-recording) is on this suite item: vcrpy would patch the HTTP "
    "clients under the kit's own fake and replay, and the cases would fail as if your "
    "implementation had broken them. Keep `vcr` markers off the suite's items (they carry the "
    "`toolcall` marker: skip those where you add markers); the suite records its own traffic "
    "with --toolcall-record-mode (docs/cassettes.md)")


class CaseItem(pytest.Function):
    """One case against one provider."""

    def setup(self) -> None:
        """Fixtures first, then the adapter's shape and the profile: a bad one is a setup ERROR
        (the kit could not run), never a FAILED verdict on the implementation."""
        problem: tuple[Exception, str | None] | None = None
        if self.get_closest_marker("vcr") is not None:  # before pytest-recording's fixture runs
            self._setup_error(UsageError(_VCR_ON_SUITE), None)
        direct = self.stash.get(DIRECT_KEY, ())
        try:
            # the test's own ``request`` argument is the item's request (pytest would build a
            # fixture definition to hand it over), and the kit's fixtures that no one else
            # requests are filled below, after pytest has set up the others: kept out of its way
            self.funcargs["request"] = self._request
            self.funcargs.update(dict.fromkeys(direct, _PENDING))
            super().setup()
            self._fill_defaults(direct)
        except UsageError as exc:  # a default fixture built from a bad profile (issue 18)
            problem = (exc, "toolcall_profile" if "toolcall_profile" in str(exc) else None)
        if problem:  # raised outside the except: no "during handling" chain in the report
            self._setup_error(*problem)
        contract = self.stash[CASE_KEY].contract
        fixture, label = SUBJECTS[contract]
        subject = self.funcargs[fixture]
        self.user_properties.append(("toolcall_subject", f"{label}: {_describe(subject)}"))
        raw = self.funcargs["toolcall_profile"]
        profile: Any = None
        interfaces: list[str] = []
        try:
            if raw is None:
                raise UsageError("the toolcall_profile fixture returned None (a missing "
                                 "`return`?): return a pytest_toolcall.Profile or a dict; "
                                 "{} claims everything")
            profile = make_profile(raw)
        except UsageError as exc:
            problem = (exc, "toolcall_profile")
        if problem is None:
            try:
                interfaces = check_subject(contract, subject, profile)
            except UsageError as exc:
                problem = (exc, fixture)
        if problem:
            self._setup_error(*problem)
        self.stash[ADAPTER_KEY] = (subject, profile, interfaces)
        _note_risks(self, profile, subject, contract)

    def _fill_defaults(self, names: tuple[str, ...]) -> None:
        """Give the item the kit's own fixtures in ``names``, as pytest would but without its
        fixture machinery (about a tenth of a millisecond a fixture: issue 9): the values of
        :data:`_BUILDERS`, after pytest has set up every other fixture, as the fixtures
        would be. A fixture pytest set up all the same (requested with ``getfixturevalue`` by
        another) keeps pytest's value: one endpoint per item."""
        if not names:
            return
        computed = getattr(self._request, "_fixture_defs", {})
        for name in names:
            self.funcargs[name] = (self._request.getfixturevalue(name) if name in computed
                                   else _BUILDERS[name](self, self.funcargs))

    def _own_endpoint(self, provider: str) -> Any:
        endpoint = default_endpoint(provider)
        self.addfinalizer(endpoint.close)
        return endpoint

    def teardown(self) -> None:
        # the subject and what it holds (its HTTP clients, the fake provider behind them with
        # every exchange of the case) are the call's alone: kept on the item until the session
        # ends, they grew the heap by a case's worth of objects per item, which the garbage
        # collector's full passes (about 0.1 s each) went over again and again
        try:
            super().teardown()
        finally:
            if ADAPTER_KEY in self.stash:
                del self.stash[ADAPTER_KEY]

    def _setup_error(self, exc: Exception, fixture: str | None) -> Any:
        """A setup ERROR that names the fixture to fix and where it is defined; no traceback."""
        where = self._fixture_location(fixture) if fixture else None
        pytest.fail(f"{_SETUP_HEADING}\n  {exc}"
                    + (f"\n  ({fixture} is defined at {where})" if where else ""),
                    pytrace=False)

    def _fixture_location(self, name: str) -> str | None:
        defs = self._fixtureinfo.name2fixturedefs.get(name)
        if not defs:
            return None
        func = getattr(defs[-1], "func", None)
        code = getattr(func, "__code__", None)
        if code is None:
            return None
        path = Path(code.co_filename)
        try:
            path = path.relative_to(self.config.rootpath)
        except ValueError:
            pass
        return f"{path}:{code.co_firstlineno}"

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        exc = excinfo.value
        if isinstance(exc, ConformanceFailure):
            if getattr(exc, "level", None) is None:  # raised outside run_case (a snapshot)
                from pytest_toolcall.cases.levels import level_of

                exc.level = level_of(exc.clause, self.stash[CASE_KEY].id,
                                     self.config.stash.get(PIN_KEY, None))
            return exc.render() + crash_traceback(exc, self.config)
        if isinstance(exc, KitError):
            return (f"pytest-toolcall could not run this case (a bug in the kit, please report "
                    f"it with the case id):\n  {exc}")
        if isinstance(exc, ToolcallError):
            return f"{_SETUP_HEADING}\n  {exc}"
        return super().repr_failure(excinfo)

    def _repr_failure_py(self, excinfo: pytest.ExceptionInfo[BaseException],
                         style: Any = None) -> Any:
        # setup errors (a fixture that raised, e.g. --toolcall-adapter's factory) come here,
        # not to repr_failure: a kit usage error reads as one message, not a traceback
        if isinstance(excinfo.value, ToolcallError) and not isinstance(excinfo.value, KitError):
            return f"{_SETUP_HEADING}\n  {excinfo.value}"
        return super()._repr_failure_py(excinfo, style)  # type: ignore[arg-type]

    def reportinfo(self) -> tuple[Path, int | None, str]:
        # Not "wire.single_call[openai]": pytest -v turns the dots of a domain that ends the node
        # id into "::" (it takes them for a module path) and would print a misleading id.
        case = self.stash[CASE_KEY]
        # a line number, not None: pytest asserts one when a fixture skips the item
        return Path(__file__), 0, f"{case.id} ({self.stash[PROVIDER_KEY]})"


#: where the kit's own frames are: hidden from an implementation's traceback but under
#: --full-trace (the package, and in a source checkout the suite's conformance/ folder)
_KIT_DIRS = tuple(str(p) + "/" for p in {Path(__file__).resolve().parents[1],
                                         Path(__file__).resolve().parents[2] / "conformance"})


def crash_traceback(failure: ConformanceFailure, config: pytest.Config) -> str:
    """The traceback of the exception an implementation raised (``failure.crash``), in the
    style ``--tb`` asks for, after the failure block (issue 32).

    The user's frames and their libraries' are shown, the kit's own hidden (the runner that
    called the implementation, a shim's glue) unless ``--full-trace``; ``--tb=line`` and
    ``--tb=no`` show none (pytest then shows the block's first line, or nothing); ``-l`` adds
    each frame's locals. The text is masked like the block above it.
    """
    from pytest_toolcall.core.redact import mask

    error = failure.crash
    style = config.getoption("tbstyle", "auto")
    if error is None or error.__traceback__ is None or style in ("line", "no"):
        return ""
    full = bool(config.getoption("fulltrace", False))
    info = pytest.ExceptionInfo.from_exception(error)

    def frames(excinfo: pytest.ExceptionInfo[BaseException]) -> Any:
        traceback = excinfo.traceback
        if not full:
            traceback = traceback.filter(excinfo)  # __tracebackhide__, as pytest does
            theirs = traceback.filter(lambda entry: not str(entry.path).startswith(_KIT_DIRS))
            traceback = theirs or traceback  # raised by the kit's own code: show that
        if style == "auto" and len(traceback) > 2:  # pytest's auto: short between the ends
            middle = traceback[1:-1]
            if hasattr(traceback[0], "with_repr_style"):  # pytest >= 8.2: entries are frozen
                middle = [entry.with_repr_style("short") for entry in middle]
            else:
                for entry in middle:
                    entry.set_repr_style("short")
            traceback = type(traceback)([traceback[0], *middle, traceback[-1]])
        return traceback

    shown = "long" if style == "auto" else style
    try:
        if style == "native":  # pytest formats natively from the first frame it is given
            info.traceback = frames(info)
        text = str(info.getrepr(style=shown, showlocals=config.getoption("showlocals", False),
                                tbfilter=frames, truncate_locals=not full, chain=True))
    except Exception as problem:  # never lose the verdict over its traceback
        return f"\n\n(the traceback could not be shown: {type(problem).__name__}: {problem})"
    how = ("--full-trace: every frame, the kit's too" if full else
           f"--tb={style}{'' if style == 'long' else '; --tb=long for more'}, --full-trace for "
           "the kit's frames too")
    return mask(f"\n\nthe implementation's traceback ({how}):\n{text.rstrip()}")


def _note_risks(item: pytest.Item, profile: Any, subject: Any, contract: str) -> None:
    """The declared risks of the item's profile (``core.risks``), in its user properties: the
    summary and the reports list them (issue 28)."""
    from pytest_toolcall.core.risks import declared_risks

    risks = declared_risks(profile, subject if contract == "chat" else None, contract)
    if risks:
        item.user_properties.append(("toolcall_declared_risks",
                                     ",".join(risk.id for risk in risks)))


def _describe(adapter: Any) -> str:
    kind = type(adapter)
    return f"{kind.__module__}.{kind.__qualname__}"


class ToolcallSuite(pytest.Module):
    """The conformance suite for the configured providers and case globs.

    A Module (not a bare Collector) so that every pytest scope resolves for its items: a
    module-scoped fixture (autouse in a user's conftest.py, or pytest-recording's) needs a Module
    above the item, else pytest asserts "Could not obtain a node for scope Module" (issue 17).
    """

    def _getobj(self) -> Any:
        import sys

        return sys.modules[__name__]  # never import a user's file as the suite's module

    providers: Sequence[str] = ()
    patterns: Sequence[str] = ()
    #: whether items may fill the kit's default fixtures themselves: not when they are live
    #: (their endpoint is the service or a cassette) or loopback, nor under --setup-show,
    #: --setup-only or --setup-plan, which list the fixtures pytest sets up
    fill_defaults: bool = False

    def collect(self) -> Iterator[CaseItem]:
        from pytest_toolcall.plugin import flag, suite_pin

        registry = build_registry(self.config)
        pin = self.config.stash[PIN_KEY] = suite_pin(self.config)
        preview = flag(self.config, "toolcall_preview")
        for pattern in self.patterns:
            if not any(registry.select([pattern], provider) for provider in self.providers):
                families = sorted({c.family for c in registry})
                raise UsageError(
                    f"--toolcall-cases / toolcall_cases: the pattern {pattern!r} matches no case "
                    f"for {', '.join(self.providers)}. Case ids look like 'stream.truncated' "
                    f"(globs: 'stream.*'); families: {', '.join(families)}; "
                    "list them all with: pytest --toolcall-provider=<name> --collect-only -q")
        # the items of one contract share their body, so their fixture closure is the same: it
        # is worked out once per body, as pytest does for the items of one parametrized test
        infos: dict[Any, Any] = {}
        direct: dict[Any, tuple[str, ...]] = {}
        for provider in self.providers:
            for case in registry.select(self.patterns, provider):
                body = _BODIES[case.contract]
                item = CaseItem.from_parent(self, name=f"{case.id}[{provider}]",
                                            callobj=body, fixtureinfo=infos.get(body))
                if body not in infos:
                    infos[body] = item._fixtureinfo
                    direct[body] = (direct_fixtures(item._fixtureinfo) if self.fill_defaults
                                    else ())
                _split_params(item)
                item.stash[CASE_KEY] = case
                item.stash[PROVIDER_KEY] = provider
                item.stash[DIRECT_KEY] = direct[body]
                item.add_marker(pytest.mark.toolcall)
                item.user_properties += [("toolcall_case", case.id),
                                         ("toolcall_family", case.family),
                                         ("toolcall_provider", provider),
                                         ("toolcall_contract", case.contract)]
                if case.since is not None:
                    item.user_properties.append(("toolcall_since", case.since))
                    if is_preview(case, pin):
                        item.user_properties.append(("toolcall_preview", True))
                        if not preview:
                            item.add_marker(pytest.mark.skip(reason=preview_reason(case, pin)))
                yield item

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, ToolcallError):
            return f"pytest-toolcall could not collect the suite:\n  {excinfo.value}"
        return super().repr_failure(excinfo)  # type: ignore[arg-type]


def is_preview(case: Case, pin: str | None) -> bool:
    """Whether ``case`` was added after the pinned suite version (a project's own case, with no
    ``since``, never is)."""
    from pytest_toolcall.cases.versions import parse_version

    return (pin is not None and case.since is not None
            and parse_version(case.since) > parse_version(pin))


def preview_reason(case: Case, pin: str | None) -> str:
    """The skip reason of a preview case: what it is and how to run it."""
    return (f"preview: {case.id} was added in suite {case.since}, after the pinned {pin}; run "
            f"it with --toolcall-preview (ini: toolcall_preview = true), or move the pin "
            f"(--toolcall-suite={case.since} or later)")


def _split_params(item: pytest.Item) -> None:
    """pytest 9.2 keeps node ids structured (path, names, params) and matches --lf/--ff/--sw
    against ids parsed back from their text, where "case[provider]" has params "provider". An
    item built by name alone gets the bracket inside its name, never equal to the parsed id:
    re-parse the item's own id so both agree (no-op before pytest 9.2, whose ids are text)."""
    parse = getattr(_nodeid, "NodeId", None)
    current = getattr(item, "_id", None)
    if parse is not None and isinstance(current, parse):
        item._id = parse.parse(str(current))  # type: ignore[attr-defined]

"""Every provider's negative and positive controls, one parametrised test for all of them.

Each ``tests/providers/controls_<folder>.py`` declares its provider's tables and what is its
own (the layout is in ``provider_kit.py``); here every row runs: each case fails its broken
adapter on the clause it must name, each own case and each error kind of the provider has a
row, every control is in a table and says what it breaks, and the reference adapter passes every
case that applies to the provider, on each of its routes. Test ids start with the provider:
``groq-stream.groq_whole_calls-ArgumentsWithIdDropped``, ``azure-openai-wire.parallel_calls-v1``.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import Any

import controls_openai as _generic  # tests/providers/controls_openai.py
import pytest
from provider_kit import (
    Route,
    chat_cases,
    declared_tables,
    error_kind,
    kind_controls,
    own_cases,
    own_kind_cases,
)

from pytest_toolcall.cases import default_registry
from pytest_toolcall.core._names import PROVIDERS
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.providers import folder
from pytest_toolcall.providers.errors import error_reply, kinds_for
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.providers.fake.provider import Endpoint
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter
from pytest_toolcall.reference import reference_profile
from pytest_toolcall.run.runner import CaseSkipped, run_case

HERE = Path(__file__).resolve().parent


def _order(module: ModuleType) -> tuple[int, str]:
    name = module.PROVIDER
    return (PROVIDERS.index(name) if name in PROVIDERS else len(PROVIDERS), name)


#: the controls modules of tests/providers/, in the order ``--toolcall-provider=all`` runs them
MODULES = sorted((import_module(p.stem) for p in HERE.glob("controls_*.py")), key=_order)


def _name(module: ModuleType) -> str:
    return module.PROVIDER


def _profile(module: ModuleType, route: Route | None = None) -> Any:
    if route is not None and route.profile is not None:
        return route.profile
    profile = getattr(module, "PROFILE", None)
    return reference_profile(module.PROVIDER) if profile is None else profile


def _routes(module: ModuleType) -> dict[str, Route]:
    return dict(getattr(module, "ROUTES", {}))


def _tables(module: ModuleType) -> list[tuple[str, list[tuple[str, type, str]]]]:
    """The module's control tables: its lists whose name ends with ``CONTROLS``."""
    return [(name, value) for name, value in vars(module).items()
            if name.endswith("CONTROLS") and isinstance(value, list)]


def _adapter_class(module: ModuleType, route: Route | None) -> type:
    if route is not None and route.adapter is not None:
        return route.adapter
    return import_module(f"pytest_toolcall.providers.{folder(module.PROVIDER)}.reference").ADAPTER


def _on_adapter(broken: type, module: ModuleType, route: Route | None) -> type:
    """The control a row runs: its class, or a generic bug of controls_openai.py (a mixin over
    the OpenAI adapter, e.g. ``_generic.StatusLost``) put on the provider's reference adapter."""
    adapter = _adapter_class(module, route)
    if issubclass(broken, adapter):
        return broken
    assert issubclass(broken, OpenAIChatAdapter) and issubclass(adapter, OpenAIChatAdapter), \
        f"{broken.__name__} is not a control of {adapter.__name__}"
    return type(broken.__name__, (broken, adapter), {"__doc__": broken.__doc__})


@contextmanager
def _endpoint(module: ModuleType, route: Route | None) -> Iterator[Endpoint]:
    """The provider's fake in process, at the route's URL."""
    endpoint = in_process_endpoint(FakeProvider(module.PROVIDER))
    if route is not None and route.base_url is not None:
        endpoint.base_url = route.base_url(endpoint.base_url)
    try:
        yield endpoint
    finally:
        endpoint.close()


def test_every_provider_has_its_controls_module() -> None:
    """tests/providers/ mirrors pytest_toolcall/providers/: one controls module a provider."""
    assert [module.PROVIDER for module in MODULES] == list(PROVIDERS)
    for module in MODULES:
        assert module.__name__ == f"controls_{folder(module.PROVIDER)}"


# -- each case fails its negative control, naming the clause --------------------------------------

def _all_tables(module: ModuleType) -> list[tuple[str, list[tuple[str, type, str]]]]:
    """The module's tables and, for a provider with ``ERROR_KINDS``, its kind controls."""
    kinds = [("KIND_CONTROLS", kind_controls(module))] if hasattr(module, "ERROR_KINDS") else []
    return [*_tables(module), *kinds]


def _control_rows() -> Iterator[Any]:
    for module in MODULES:
        on_route = {id(route.controls): name for name, route in _routes(module).items()
                    if route.controls is not None}
        for table, rows in _all_tables(module):
            route = on_route.get(id(rows))
            for case_id, broken, clause in rows:
                yield pytest.param(module, table, route, case_id, broken, clause,
                                   id="-".join(filter(None, (module.PROVIDER, case_id,
                                                              broken.__name__, route))))


@pytest.mark.parametrize(("module", "table", "route", "case_id", "broken", "clause"),
                         list(_control_rows()))
def test_case_fails_its_negative_control(module: ModuleType, table: str, route: str | None,
                                         case_id: str, broken: type, clause: str) -> None:
    way = _routes(module)[route] if route else None
    case = default_registry()[case_id]
    assert case.contract == "chat"
    assert case.applies_to((way and way.dialect) or module.PROVIDER), \
        f"{case_id} does not run for {module.PROVIDER}"
    profile = _profile(module, way)
    async_only = table.startswith("ASYNC_")
    with _endpoint(module, way) as endpoint:
        adapter = _on_adapter(broken, module, way).from_endpoint(
            endpoint, **(way.adapter_kwargs if way else {}))
        if async_only:  # the sync path of the control is the reference's: it passes
            runs = run_case(case, adapter, profile, endpoint, interfaces=["sync"])
            assert [run.interface for run in runs] == ["sync"]
        with pytest.raises(ConformanceFailure) as exc:
            run_case(case, adapter, profile, endpoint)
    assert exc.value.clause == clause, exc.value.render()
    assert exc.value.case_id == case_id
    # a bug on a path both interfaces share fails the first one run already
    assert exc.value.interface == ("async" if async_only else "sync")


# -- every own case, every error kind and every control is in a table ------------------------------

@pytest.mark.parametrize("module", MODULES, ids=_name)
def test_every_own_case_has_a_negative_control(module: ModuleType) -> None:
    own = own_cases(module.PROVIDER)
    assert own, f"no case is {module.PROVIDER}'s alone"
    assert own == {row[0] for row in module.CONTROLS}, \
        "CONTROLS has a row for each of the provider's own cases, and no other case"


@pytest.mark.parametrize("module", [m for m in MODULES if hasattr(m, "ERROR_KINDS")], ids=_name)
def test_every_error_kind_runs_with_a_control(module: ModuleType) -> None:
    """The shared kind cases run on the provider's own error bodies, each with the generic error
    bugs; a shared errors case without a kind (an error inside a stream) has its own row."""
    assert set(kinds_for(module.PROVIDER)) == module.ERROR_KINDS
    kind_cases = {row[0] for row in kind_controls(module)}
    assert {error_kind(case_id) for case_id in kind_cases} == module.ERROR_KINDS
    assert getattr(module, "UNNAMED_ERRORS", set()) <= module.ERROR_KINDS
    shared = {row[0] for row in getattr(module, "SHARED_CONTROLS", [])
              if row[0].startswith("errors.")}
    assert own_kind_cases(module.PROVIDER) == kind_cases | shared


def _unnamed_rows() -> Iterator[Any]:
    for module in MODULES:
        unnamed = getattr(module, "UNNAMED_ERRORS", set())
        for case_id in sorted(own_kind_cases(module.PROVIDER)):
            if error_kind(case_id) in unnamed:
                yield pytest.param(module, case_id, id=f"{module.PROVIDER}-{case_id}")


@pytest.mark.parametrize(("module", "case_id"), list(_unnamed_rows()))
def test_unnamed_error_has_no_name_to_drop(module: ModuleType, case_id: str) -> None:
    """``UNNAMED_ERRORS`` is true: on such a body dropping the error's type and code changes
    nothing the case can see, so the kind controls leave that bug out there."""
    with _endpoint(module, None) as endpoint:
        adapter = _on_adapter(_generic.DropsErrorCode, module, None).from_endpoint(endpoint)
        run_case(default_registry()[case_id], adapter, _profile(module), endpoint)


def _controls(module: ModuleType) -> dict[str, type]:
    """The module's controls: the public classes it defines (what the bug catalogue reads)."""
    return {name: value for name, value in vars(module).items()
            if isinstance(value, type) and value.__module__ == module.__name__
            and not name.startswith("_")}


@pytest.mark.parametrize("module", MODULES, ids=_name)
def test_every_control_is_in_a_table_and_names_its_bug(module: ModuleType) -> None:
    controls = _controls(module)
    assert sorted(module.__all__) == sorted(controls), "__all__ names the module's controls"
    used = {broken for _, rows in _all_tables(module) for _, broken, _ in rows}
    assert sorted(name for name, cls in controls.items() if cls not in used) == [], \
        "controls no table runs"
    tables = {table for table, _ in _tables(module)}
    for table, rows in _tables(module):  # a row both declared with @fails and written out
        assert len(set(rows)) == len(rows), f"{table} has a row twice"
    for name, cls in controls.items():
        assert (cls.__doc__ or "").strip(), f"{name} has no docstring naming its bug"
        assert declared_tables(cls) <= tables, f"{name} declares rows of no table (@fails)"


# -- the reference adapter passes every case that applies, on each route ---------------------------

def _reference_runs() -> Iterator[Any]:
    for module in MODULES:
        ways: list[tuple[str | None, Route | None]] = [(None, None), *_routes(module).items()]
        for route, way in ways:
            globs = way.cases if way else ("*",)
            for case_id in chat_cases((way and way.dialect) or module.PROVIDER):
                if any(fnmatch.fnmatchcase(case_id, glob) for glob in globs):
                    yield pytest.param(module, route, case_id, id="-".join(
                        filter(None, (module.PROVIDER, case_id, route))))


@pytest.mark.parametrize(("module", "route", "case_id"), list(_reference_runs()))
def test_reference_adapter_passes(module: ModuleType, route: str | None, case_id: str) -> None:
    way = _routes(module)[route] if route else None
    case = default_registry()[case_id]
    profile = _profile(module, way)
    with _endpoint(module, way) as endpoint:
        adapter = _adapter_class(module, way).from_endpoint(
            endpoint, **(way.adapter_kwargs if way else {}))
        unclaimed = [need for need in case.needs if not profile.claims(need)]
        if unclaimed:  # the profile says the provider has no such thing: the case skips
            with pytest.raises(CaseSkipped) as skip:
                run_case(case, adapter, profile, endpoint)
            assert any(need in str(skip.value) for need in unclaimed), str(skip.value)
            return
        pinned = getattr(module, "PINNED", {})
        if case_id in pinned:  # a known gap: the reference fails it, on this clause
            with pytest.raises(ConformanceFailure) as exc:
                run_case(case, adapter, profile, endpoint)
            assert exc.value.clause == pinned[case_id][0]
            return
        runs = run_case(case, adapter, profile, endpoint)
        exchanges = list(endpoint.exchanges)
    assert [run.interface for run in runs] == ["sync", "async"]
    for run in runs:
        assert len(run.steps) == len(case.steps)
        for record in run.steps:
            # the provider accepted the request; an error reply is the scripted answer to it
            assert len(record.exchanges) == 1
            exchange = record.exchanges[0]
            assert exchange.rejection is None, exchange.rejection
            assert exchange.status == _status(module.PROVIDER, record.step.reply.error)
            if record.step.expect == "error":
                assert record.error is not None and record.response is None
            else:
                assert record.error is None and record.response is not None
    path = way.path if way else module.PATH
    assert exchanges and all(fnmatch.fnmatchcase(e.path, path) for e in exchanges), \
        sorted({e.path for e in exchanges})
    if way is not None and way.stream_marker is not None:
        assert all(e.streamed and way.stream_marker in e.response_body for e in exchanges)
    check_sent = getattr(module, "check_sent", None)
    if check_sent is not None:
        for exchange in exchanges:
            check_sent(exchange.json or {})


def _status(provider: str, error: Any) -> int:
    """The status the fake answers a step with: 200, the scripted error's, the provider's own
    for an error kind, 0 where the connection is refused."""
    if error is None:
        return 200
    if error.refuse:
        return 0
    if error.kind is not None:
        return error_reply(provider, error.kind, error.retry_after)[0]
    return error.status

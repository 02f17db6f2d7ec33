"""The pytest side of the suite: a collector that turns cases into items, and the item itself."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from .cases import Case, Registry, default_registry
from .contracts import make_profile
from .errors import CaseDefinitionError, ConformanceFailure, KitError, ToolcallError
from .runner import CaseSkipped, run_case

CASE_KEY = pytest.StashKey[Case]()
PROVIDER_KEY = pytest.StashKey[str]()


def build_registry(config: pytest.Config) -> Registry:
    """Built-in cases plus those every ``pytest_toolcall_cases`` hook returns."""
    registry = Registry()
    registry.extend(default_registry())
    for result in config.hook.pytest_toolcall_cases(config=config):
        for case in result or ():
            registry.add(case)
    return registry


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


def _suite_case(request: pytest.FixtureRequest, toolcall_case: Case, toolcall_adapter: Any,
                toolcall_profile: Any, toolcall_endpoint: Any) -> None:
    """Run one conformance case (the body of every suite item)."""
    profile = make_profile(toolcall_profile)
    reason = known_gap(request.node, toolcall_case, profile.known_gaps)
    if reason is not None:
        request.applymarker(pytest.mark.xfail(reason=f"known gap: {reason}", strict=True,
                                              raises=ConformanceFailure))
    try:
        run_case(toolcall_case, toolcall_adapter, profile, toolcall_endpoint)
    except CaseSkipped as skip:
        pytest.skip(str(skip))


class CaseItem(pytest.Function):
    """One case against one provider."""

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        exc = excinfo.value
        if isinstance(exc, ConformanceFailure):
            return exc.render()
        if isinstance(exc, KitError):
            return (f"pytest-toolcall could not run this case (a bug in the kit, please report "
                    f"it with the case id):\n  {exc}")
        if isinstance(exc, ToolcallError):
            return f"pytest-toolcall could not run this case (fix the setup):\n  {exc}"
        return super().repr_failure(excinfo, style=style)  # type: ignore[arg-type]

    def reportinfo(self) -> tuple[Path, int | None, str]:
        case = self.stash[CASE_KEY]
        return Path(__file__), None, f"{case.id}[{self.stash[PROVIDER_KEY]}]"


class ToolcallSuite(pytest.Collector):
    """The conformance suite for the configured providers and case globs."""

    providers: Sequence[str] = ()
    patterns: Sequence[str] = ()

    def collect(self) -> Iterator[CaseItem]:
        registry = build_registry(self.config)
        for pattern in self.patterns:
            if not any(fnmatch.fnmatchcase(c.id, pattern) for c in registry):
                families = sorted({c.family for c in registry})
                raise CaseDefinitionError(
                    pattern, f"--toolcall-cases pattern {pattern!r} matches no case; case ids "
                    f"look like 'stream.truncated', families are {', '.join(families)}")
        for provider in self.providers:
            for case in registry.select(self.patterns, provider):
                item = CaseItem.from_parent(self, name=f"{case.id}[{provider}]",
                                            callobj=_suite_case)
                item.stash[CASE_KEY] = case
                item.stash[PROVIDER_KEY] = provider
                item.add_marker(pytest.mark.toolcall)
                item.user_properties += [("toolcall_case", case.id),
                                         ("toolcall_family", case.family),
                                         ("toolcall_provider", provider),
                                         ("toolcall_contract", case.contract)]
                yield item

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, ToolcallError):
            return f"pytest-toolcall could not collect the suite:\n  {excinfo.value}"
        return super().repr_failure(excinfo)  # type: ignore[arg-type]

"""What runs inside the pytest processes the driver starts: the probe, a pytest plugin active
only with ``PROBE_ENV`` set (``-p pytest_toolcall.cli.mutation.probe``: it records which suite
items ran and where in the pre-flight and the verification), and ``run_suite_case``, the body of
the generated tests that mutmut runs in its copy of the project.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from pytest_toolcall.cli.mutation.model import (
    GENERATED_TEST,
    MUTANT_ENV,
    PROBE_ENV,
)


def run_suite_case(request: Any, case_id: str) -> None:
    """The body of the generated tests: run one case as the plugin's suite item would."""
    import pytest

    from pytest_toolcall.plugins.suite import SUBJECTS, build_registry, check_subject
    from pytest_toolcall.core.contracts import make_profile
    from pytest_toolcall.plugin import _setting
    from pytest_toolcall.run.runner import CaseSkipped, run_case

    registry = getattr(request.config, "_toolcall_mutation_registry", None)
    if registry is None:
        registry = build_registry(request.config)
        request.config._toolcall_mutation_registry = registry
    case = registry[case_id]
    fixture, _ = SUBJECTS[case.contract]
    subject = request.getfixturevalue(fixture)
    profile = make_profile(request.getfixturevalue("toolcall_profile"))
    interfaces = check_subject(case.contract, subject, profile)
    kwargs: dict[str, Any] = {}
    if case.contract == "chat":
        kwargs["endpoint"] = request.getfixturevalue("toolcall_endpoint")
    elif case.contract == "loop":
        kwargs["dialect"] = request.getfixturevalue("toolcall_provider")
        kwargs["loop_model"] = _setting(request.config, "toolcall_loop_model") or "inprocess"
    try:
        run_case(case, subject, profile, interfaces=interfaces, **kwargs)
    except CaseSkipped as skip:
        pytest.skip(str(skip))


# -- the probe: a pytest plugin active only with PROBE_ENV set (pre-flight and verification) -----
def pytest_configure(config: Any) -> None:
    if os.environ.get(PROBE_ENV) and not os.environ.get(MUTANT_ENV):
        config.pluginmanager.register(_Probe(Path(os.environ[PROBE_ENV])), "toolcall-mutation")


class _Probe:
    def __init__(self, out: Path) -> None:
        self.out = out
        self.items: dict[str, dict[str, Any]] = {}
        self.collected: list[str] = []
        self.suite_dir: str | None = None

    def pytest_collection_modifyitems(self, session: Any, config: Any, items: list[Any]) -> None:
        from pytest_toolcall.plugins.suite import CASE_KEY, PROVIDER_KEY

        self.collected = [item.nodeid for item in items]
        if config.getoption("collectonly"):
            return
        keep, drop = [], []
        for item in items:
            case = item.stash.get(CASE_KEY, None)
            params = getattr(getattr(item, "callspec", None), "params", {})
            if case is None and getattr(item, "originalname", None) == GENERATED_TEST \
                    and "toolcall_mutation_profile" in params:
                keep.append(item)  # a generated run under a declared profile (--profiles)
                self.items[item.nodeid] = {"nodeid": item.nodeid,
                                           "case": params["toolcall_case_id"],
                                           "provider": params["toolcall_provider"],
                                           "profile": params["toolcall_mutation_profile"],
                                           "outcome": None}
                continue
            if case is None:
                drop.append(item)  # the user's own tests: not part of the suite
                continue
            keep.append(item)
            parent = item.parent.parent if item.parent is not None else None
            path = getattr(parent, "path", None)
            if path is not None and self.suite_dir is None:
                try:
                    self.suite_dir = Path(path).relative_to(config.rootpath).as_posix()
                except ValueError:
                    self.suite_dir = "."
            self.items[item.nodeid] = {"nodeid": item.nodeid, "case": case.id,
                                       "provider": item.stash[PROVIDER_KEY], "outcome": None}
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep

    def pytest_runtest_logreport(self, report: Any) -> None:
        record = self.items.get(report.nodeid)
        if record is None:
            return
        xfail = hasattr(report, "wasxfail")
        if report.when == "setup" and report.failed:
            record["outcome"] = "error"
        elif report.when == "setup" and report.skipped:
            record["outcome"] = "xfailed" if xfail else "skipped"
        elif report.when == "call":
            if report.passed:
                record["outcome"] = "xpassed" if xfail else "passed"
            elif report.skipped:
                record["outcome"] = "xfailed" if xfail else "skipped"
            else:
                record["outcome"] = "failed"
        elif report.when == "teardown" and report.failed:
            record["outcome"] = "error"

    def pytest_sessionfinish(self, session: Any) -> None:
        self.out.write_text(json.dumps({"items": list(self.items.values()),
                                        "collected": self.collected,
                                        "suite_dir": self.suite_dir}), encoding="utf-8")

"""The mutation driver: mutmut 3 over an implementation, with the conformance suite as the tests.

mutmut has no Python API, so it runs as a subprocess (``mutmut run``) in a temporary working copy
of the project, configured through that copy's ``setup.cfg``: the user's files are never edited.
Its verdicts are read from its result files (``mutants/**/*.meta``, ``mutants/mutmut-stats.json``).

**No false kills.** mutmut records which tests call which function, then re-runs those tests *by
node id* inside its copy (``mutants/``), and counts any failing run as a kill. The plugin's suite
items (``toolcall::wire.single_call[openai]``) cannot be re-run by id, so they are never handed to
mutmut: a generated test module (one parametrized test per case, ids like
``test_toolcall_mutation_suite.py::test_toolcall_case[openai-wire.single_call]``) runs the
selected cases, and before any verdict is trusted, every test id mutmut recorded must collect
again inside ``mutants/`` (``pytest --collect-only``); otherwise the run is refused.

Steps: plan the sources -> copy the project -> pre-flight (the suite must be green; it also says
which cases ran and where the user's fixtures live) -> generate the test module and the config ->
``mutmut run`` -> verify the recorded ids -> read the results -> report and gate.

Nothing here writes anything while ``MUTANT_UNDER_TEST`` is set (inside a mutant run).

Three processes, one module each: the driver (``driver.py``, with its reports in ``output.py``)
runs in the ``pytest-toolcall mutate`` process; the probe (``probe.py``) is a pytest plugin in the
pytest processes it starts (pre-flight and verification), and ``probe.run_suite_case`` is the body
of the generated tests mutmut runs in its copy; ``model.py`` is what they share.
"""

from __future__ import annotations

from pytest_toolcall.cli.mutation.driver import (
    plan_sources,
    run_mutation,
    verify_recorded_ids,
    write_mutmut_config,
)
from pytest_toolcall.cli.mutation.model import (
    GENERATED_MODULE,
    GENERATED_TEST,
    REFERENCE_PROFILES,
    Escape,
    MutationError,
    MutationResult,
    MutationRun,
    apply_profile,
    classify,
    evaluate_gate,
    parse_profiles,
    parse_rate,
)
from pytest_toolcall.cli.mutation.output import render_text, write_reports
from pytest_toolcall.cli.mutation.probe import run_suite_case

__all__ = [
    "GENERATED_MODULE",
    "GENERATED_TEST",
    "REFERENCE_PROFILES",
    "Escape",
    "MutationError",
    "MutationResult",
    "MutationRun",
    "apply_profile",
    "classify",
    "evaluate_gate",
    "parse_profiles",
    "parse_rate",
    "plan_sources",
    "render_text",
    "run_mutation",
    "run_suite_case",
    "verify_recorded_ids",
    "write_mutmut_config",
    "write_reports",
]

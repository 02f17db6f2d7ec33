"""What the mutation driver works with: its constants, results, the profiles each policy branch
runs under, and the gate. Imported by the driver and by the probe (both processes).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from pytest_toolcall.core.errors import ToolcallError, UsageError




MUTANT_ENV = "MUTANT_UNDER_TEST"


PROBE_ENV = "PYTEST_TOOLCALL_MUTATION_PROBE"


GENERATED_MODULE = "test_toolcall_mutation_suite.py"


GENERATED_TEST = "test_toolcall_case"


SCHEMA = "pytest-toolcall/mutation"


SCHEMA_VERSION = 1


#: never copied into the working copy: VCS data, caches, environments, old mutmut output
_IGNORED = (".git", ".hg", ".svn", "mutants", ".venv", "venv", ".tox", ".nox", "node_modules",
            "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis",
            "*.egg-info", "build", "dist", ".benchmarks", "toolcall-report", ".coverage")


#: arguments of every pytest run mutmut makes, in its copy:
#: no plugin suite (its ids cannot be re-run by id), no report files, no cache writes; the
#: unraisable-exception plugin's five gc.collect() calls per session cost most of a warm run
#: (it can only turn a kill into a survivor, never the reverse)
PYTEST_ARGS = ("-p", "no:cacheprovider", "-p", "no:unraisableexception",
               "-o", "toolcall_provider=", "-o", "toolcall_report=",
               "-o", "toolcall_min_pass_rate=", "-o", f"python_functions={GENERATED_TEST}")


#: mutmut's exit code of a mutant run -> our status. Only a failing test run (1) is a kill;
#: mutmut also counts pytest's internal error (3) as one, which a crash of the kit would produce.
_STATUS = {1: "killed", 0: "survived", 5: "no_tests", 33: "no_tests", 34: "skipped",
           37: "skipped", 36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout",
           255: "timeout", -9: "timeout"}


CAUGHT = ("killed", "timeout")


ESCAPED = ("survived", "no_tests")


class MutationError(ToolcallError):
    """The driver could not produce an honest result (red suite, mutmut failed, ids that do not
    collect in mutmut's copy); the message says what to fix."""


def classify(exit_code: int | None) -> str:
    """Our status for one of mutmut's recorded exit codes ('error' for anything unexplained)."""
    if exit_code is None:
        return "not_checked"
    return _STATUS.get(exit_code, "error")


# -- data -------------------------------------------------------------------------------------
@dataclass
class Escape:
    """A mutant the suite did not catch."""

    mutant: str
    status: str  # survived | no_tests
    file: str
    line: int | None
    function: str
    diff: str
    cases: list[str] = field(default_factory=list)


@dataclass
class MutationResult:
    sources: list[str]
    providers: list[str]
    cases: list[str]
    counts: dict[str, int]
    escapes: list[Escape]
    errors: list[dict[str, Any]]
    seconds: float
    mutmut_seconds: float
    mutants_per_second: float | None
    mutmut_version: str
    workdir: str | None = None
    #: the declared profiles the cases ran under (``--profiles``); empty: the base profile only
    profiles: list[str] = field(default_factory=list)

    @property
    def tested(self) -> int:
        return sum(self.counts.get(s, 0) for s in CAUGHT + ESCAPED)

    @property
    def caught(self) -> int:
        return sum(self.counts.get(s, 0) for s in CAUGHT)

    @property
    def kill_rate(self) -> float | None:
        return self.caught / self.tested if self.tested else None

    def headline(self) -> str:
        return f"MUTATION_ESCAPES: {len(self.escapes)}/{self.tested}"

    def document(self, gate: dict[str, Any] | None = None) -> dict[str, Any]:
        return {"schema": SCHEMA, "version": SCHEMA_VERSION, "sources": self.sources,
                "providers": self.providers, "cases": self.cases, "counts": self.counts,
                "mutants": self.tested, "escaped": len(self.escapes), "caught": self.caught,
                "kill_rate": self.kill_rate, "escapes": [asdict(e) for e in self.escapes],
                "errors": self.errors, "gate": gate, "profiles": self.profiles,
                "timing": {"seconds": round(self.seconds, 3),
                           "mutmut_seconds": round(self.mutmut_seconds, 3),
                           "mutants_per_second": self.mutants_per_second},
                "mutmut_version": self.mutmut_version}


@dataclass
class MutationRun:
    """What to run: the files to mutate (relative to ``root``), providers and case globs."""

    root: Path
    files: list[str]
    providers: list[str]
    cases: list[str]
    jobs: int
    keep: bool = False
    #: ``--profiles``: name -> {"fields": Profile fields over the base profile, "cases": globs
    #: (empty: every selected case)}; None runs every case once, under the base profile
    profiles: dict[str, dict[str, Any]] | None = None


# -- profiles: each policy branch runs under the profile that declares it ----------------------
#: The declared profiles the reference loop and history builder are measured under
#: (``--profiles reference``). The reference loop implements every policy field its
#: ``from_profile`` reads; under one profile the branches of the other values never run, so
#: their mutants survive whatever the cases check. Each profile here is one a real loop
#: declares (docs/loops.md, "Profile fields"; the framework shims pytest_toolcall/shims/_*.py),
#: with its caps lowered to keep runs short; a mutant is caught when the run under ANY profile
#: fails. Fields are laid over the base profile (the ``toolcall_profile`` fixture's). Every case
#: runs under "default"; each other profile runs the cases whose expectations its fields change
#: (a mutant's run re-runs every case that called its function: the whole matrix under every
#: profile costs four times as long on two cores).
REFERENCE_PROFILES: dict[str, dict[str, Any]] = {
    "default": {"fields": {}, "cases": []},
    # argument_validation: ask the user about a missing required argument
    "clarify": {"fields": {"argument_validation": "clarify"},
                "cases": ["loop.missing_required_argument", "loop.argument_types"]},
    # one call after the other, each with its own timeout
    "sequential": {"fields": {"parallel_dispatch": False, "tool_timeout": 0.25},
                   "cases": ["loop.answered_once_in_order", "loop.result_contents_match",
                             "loop.tool_timeout", "loop.mixed_batch",
                             # a stop pressed in a sequential round: no further call starts
                             "loop.cancelled_tools_stopped"]},
    # openai-agents: max_turns counts model calls, no failure-round cap, undeclared keys
    # dropped (shims/_openai_agents.py), no deadline of the loop's own on a model call
    "agents-sdk": {"fields": {"iteration_counts": "model_calls", "max_iterations": 4,
                              "max_failure_rounds": None, "undeclared_arguments": "drop",
                              "model_timeout": None},
                   "cases": ["loop.iteration_cap", "loop.all_failure_rounds",
                             "loop.usage_summed", "loop.mixed_batch", "loop.argument_types",
                             "loop.unknown_tool"]},
    # pydantic-ai: request_limit on model calls, a per-tool retry budget, a crash ends the run
    "pydantic-ai": {"fields": {"iteration_counts": "model_calls", "max_iterations": 6,
                               "max_failure_rounds": None, "tool_failure_budget": 1,
                               "crash_policy": "abort"},
                    "cases": ["loop.all_failure_rounds", "loop.retryable_failure_continues",
                              "loop.mixed_batch", "loop.sanitised_failures", "loop.events",
                              "loop.iteration_cap"]},
    # langgraph: recursion_limit on rounds, a crash ends the run, repeated ids refused,
    # undeclared keys dropped (shims/_langgraph.py)
    "langgraph": {"fields": {"iteration_counts": "rounds", "max_iterations": 4,
                             "max_failure_rounds": None, "crash_policy": "abort",
                             "duplicate_call_ids": "refuse", "undeclared_arguments": "drop"},
                  "cases": ["loop.duplicate_call_id", "loop.all_failure_rounds",
                            "loop.iteration_cap", "loop.sanitised_failures", "loop.mixed_batch",
                            "loop.argument_types", "loop.unknown_tool"]},
    # smolagents: max_steps on model calls, a closing call at the cap, a final_answer tool
    "smolagents": {"fields": {"iteration_counts": "model_calls", "max_iterations": 4,
                              "max_failure_rounds": None, "closing_call": True,
                              "final_answer_tool": "final_answer"},
                   "cases": ["loop.iteration_cap", "loop.all_failure_rounds",
                             "loop.permanent_failure", "loop.usage_summed",
                             "loop.text_with_calls", "loop.events", "loop.model_error"]},
    # a loop that runs a call again once, inside the round, after a retryable ToolError
    # (Profile.tool_retries: the scripts fail once more per retry)
    "retrying": {"fields": {"tool_retries": 1},
                 "cases": ["loop.failure_rounds_reset", "loop.failure_rounds_not_iterations",
                           "loop.retryable_failure_continues", "loop.mixed_batch",
                           "loop.permanent_failure"]},
    # a closing call after a cap counted in successful rounds, none after a permanent failure
    # (Profile.closing_call_after)
    "closing-rounds": {"fields": {"closing_call": True,
                                  "closing_call_after": ["max_iterations", "failure_rounds"]},
                       "cases": ["loop.iteration_cap", "loop.all_failure_rounds",
                                 "loop.permanent_failure"]},
    # a history builder that keeps failed calls and their error results
    "keep-failed": {"fields": {"history_failed_calls": "keep"}, "cases": ["history.*"]},
}


BUILTIN_PROFILES = {"reference": REFERENCE_PROFILES}


def apply_profile(base: Any, fields: dict[str, Any]) -> Any:
    """``base`` (a Profile, a mapping or None) with ``fields`` laid over it, validated."""
    from pytest_toolcall.core.contracts import make_profile

    if not fields:
        return base
    merged = {**make_profile(base).model_dump(), **fields}
    return make_profile(merged)


def parse_profiles(raw: str) -> dict[str, dict[str, Any]]:
    """``--profiles``: a built-in matrix name (``reference``), a JSON file, or inline JSON.

    The JSON maps a profile name to its Profile fields, laid over the base profile; an entry
    may instead be ``{"fields": {...}, "cases": ["loop.*", "!loop.tool_timeout"]}`` to run
    only those cases under it ('!' leaves a case out).
    Every profile is validated here: a bad field is a usage error naming it.
    """
    from pytest_toolcall.core.contracts import Profile

    text = raw.strip()
    if text in BUILTIN_PROFILES:
        data: Any = BUILTIN_PROFILES[text]
    else:
        path = Path(text)
        source = text
        if not text.startswith("{"):
            if not path.is_file():
                raise UsageError(f"--profiles: {raw!r} is neither a built-in matrix "
                                 f"({', '.join(BUILTIN_PROFILES)}), a JSON file nor a JSON "
                                 "object")
            source = path.read_text(encoding="utf-8")
        try:
            data = json.loads(source)
        except ValueError as exc:
            raise UsageError(f"--profiles: {raw!r} is not valid JSON ({exc})") from None
    if not isinstance(data, dict) or not data:
        raise UsageError("--profiles: give a JSON object mapping profile names to Profile "
                         'fields, e.g. {"default": {}, "clarify": {"argument_validation": '
                         '"clarify"}}')
    out: dict[str, dict[str, Any]] = {}
    for name, entry in data.items():
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.]+(-[A-Za-z0-9_.]+)*",
                                                         name):
            raise UsageError(f"--profiles: profile name {name!r}: use letters, digits, '_', "
                             "'.' and single '-' (it becomes part of a test id)")
        if not isinstance(entry, dict):
            raise UsageError(f"--profiles: profile {name!r} must be an object of Profile fields")
        if set(entry) <= {"fields", "cases"} and "fields" in entry:
            fields, cases = entry["fields"], entry.get("cases") or []
        else:
            fields, cases = entry, []
        if isinstance(cases, str):
            cases = [c.strip() for c in cases.split(",") if c.strip()]
        if not isinstance(fields, dict) or not isinstance(cases, list):
            raise UsageError(f"--profiles: profile {name!r}: 'fields' is an object, 'cases' a "
                             "list of case globs")
        try:
            Profile.model_validate(fields)
        except Exception as exc:  # noqa: BLE001 - pydantic's ValidationError
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'profile'}: "
                                 f"{e['msg']}" for e in getattr(exc, "errors", lambda: [])())
            raise UsageError(f"--profiles: profile {name!r} is not a valid Profile: "
                             f"{problems or exc}") from None
        out[name] = {"fields": dict(fields), "cases": [str(c) for c in cases]}
    return out


# -- gate -------------------------------------------------------------------------------------
def parse_rate(raw: str) -> float:
    """A kill rate from '0.9' or '90%'; a usage error says what one looks like."""
    text = raw.strip()
    try:
        rate = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        rate = -1.0
    if not 0.0 <= rate <= 1.0:
        raise UsageError(f"--min-kill-rate: {raw!r} is not a kill rate. Give a number from 0 to 1 "
                         "(0.9) or a percentage (90%).")
    return rate


def evaluate_gate(result: MutationResult, max_escapes: int | None,
                  min_kill_rate: float | None) -> dict[str, Any]:
    """The gate's verdict: passed, and one failure message per exceeded threshold."""
    failures = []
    if max_escapes is not None and len(result.escapes) > max_escapes:
        failures.append(f"MUTATION GATE FAILED: {len(result.escapes)} escapes, more than "
                        f"--max-escapes {max_escapes}")
    rate = result.kill_rate
    if min_kill_rate is not None and (rate is None or rate < min_kill_rate):
        shown = "n/a" if rate is None else f"{rate:.1%}"
        failures.append(f"MUTATION GATE FAILED: kill rate {shown}, below --min-kill-rate "
                        f"{min_kill_rate:.1%}")
    return {"passed": not failures, "max_escapes": max_escapes, "min_kill_rate": min_kill_rate,
            "failures": failures}


def mutmut_version() -> str:
    try:
        from importlib.metadata import version

        return version("mutmut")
    except Exception:  # noqa: BLE001 - not installed
        raise UsageError("pytest-toolcall mutate needs mutmut 3: pip install 'pytest-toolcall[mutation]'") \
            from None

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
"""

from __future__ import annotations

import ast
import configparser
import difflib
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pytest_toolcall.core.errors import ToolcallError, UsageError

__all__ = [
    "Escape",
    "MutationError",
    "MutationResult",
    "MutationRun",
    "REFERENCE_PROFILES",
    "apply_profile",
    "classify",
    "evaluate_gate",
    "parse_profiles",
    "run_mutation",
    "run_suite_case",
]

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
                             "loop.tool_timeout", "loop.mixed_batch"]},
    # openai-agents: max_turns counts model calls, no failure-round cap
    "agents-sdk": {"fields": {"iteration_counts": "model_calls", "max_iterations": 4,
                              "max_failure_rounds": None},
                   "cases": ["loop.iteration_cap", "loop.all_failure_rounds",
                             "loop.usage_summed", "loop.mixed_batch"]},
    # pydantic-ai: request_limit on model calls, a per-tool retry budget, a crash ends the run
    "pydantic-ai": {"fields": {"iteration_counts": "model_calls", "max_iterations": 6,
                               "max_failure_rounds": None, "tool_failure_budget": 1,
                               "crash_policy": "abort"},
                    "cases": ["loop.all_failure_rounds", "loop.retryable_failure_continues",
                              "loop.mixed_batch", "loop.sanitised_failures", "loop.events",
                              "loop.iteration_cap"]},
    # langgraph: recursion_limit on rounds, a crash ends the run, repeated ids refused
    "langgraph": {"fields": {"iteration_counts": "rounds", "max_iterations": 4,
                             "max_failure_rounds": None, "crash_policy": "abort",
                             "duplicate_call_ids": "refuse"},
                  "cases": ["loop.duplicate_call_id", "loop.all_failure_rounds",
                            "loop.iteration_cap", "loop.sanitised_failures", "loop.mixed_batch"]},
    # smolagents: max_steps on model calls, a closing call at the cap, a final_answer tool
    "smolagents": {"fields": {"iteration_counts": "model_calls", "max_iterations": 4,
                              "max_failure_rounds": None, "closing_call": True,
                              "final_answer_tool": "final_answer"},
                   "cases": ["loop.iteration_cap", "loop.all_failure_rounds",
                             "loop.permanent_failure", "loop.usage_summed",
                             "loop.text_with_calls", "loop.events", "loop.model_error"]},
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


# -- planning ---------------------------------------------------------------------------------
def plan_sources(root: Path, paths: list[str]) -> tuple[list[str], list[str]]:
    """(files to mutate, mutmut source_paths), both relative to ``root``.

    mutmut copies its source paths into ``mutants/`` and puts ``mutants/``, ``mutants/src`` and
    ``mutants/source`` first on ``sys.path``; so a file inside a package is mutated through the
    whole top-level package (copied too, so that it still imports) and that package must sit in
    the project root, ``src/`` or ``source/``.
    """
    if not paths:
        raise UsageError("pytest-toolcall mutate: name the source to mutate, e.g. "
                         "`pytest-toolcall mutate my_adapter.py`")
    files: list[str] = []
    roots: list[str] = []
    for raw in paths:
        path = Path(raw)
        path = (path if path.is_absolute() else Path.cwd() / path).resolve()
        if not path.exists():
            raise UsageError(f"pytest-toolcall mutate: {raw!r} does not exist (looked for {path})")
        try:
            rel = path.relative_to(root)
        except ValueError:
            raise UsageError(f"pytest-toolcall mutate: {raw!r} is outside the project {root}; "
                             "run from the project root or pass --root") from None
        if path.is_file() and path.suffix != ".py":
            raise UsageError(f"pytest-toolcall mutate: {raw!r} is not a Python file (.py)")
        found = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        found = [f for f in found if not _ignored_path(f.relative_to(root))]
        if not found:
            raise UsageError(f"pytest-toolcall mutate: {raw!r} holds no Python file to mutate")
        top = _import_root(path if path.is_dir() else path.parent, root)
        if top is None:
            top = rel if rel.parts else None
        if top is None or not rel.parts:
            raise UsageError(f"pytest-toolcall mutate: {raw!r} is the project root; name the "
                             "module or package to mutate")
        base = top.parent
        if base.as_posix() not in (".", "src", "source"):
            raise UsageError(
                f"pytest-toolcall mutate: mutmut cannot import {rel.as_posix()} from its copy: "
                f"its top-level module {top.as_posix()!r} is in {base.as_posix()}/, and mutmut "
                "only puts the project root, src/ and source/ on sys.path. Move the package "
                "there, or mutate it from a project whose root holds it.")
        files += [f.relative_to(root).as_posix() for f in found]
        roots.append(top.as_posix())
    return sorted(dict.fromkeys(files)), sorted(dict.fromkeys(roots))


def _import_root(directory: Path, root: Path) -> Path | None:
    """The top-level package dir holding ``directory`` (relative), or the module's own dir."""
    top = None
    current = directory
    while current != root and (current / "__init__.py").exists():
        top = current
        current = current.parent
    return top.relative_to(root) if top is not None else None


def _ignored_path(rel: Path) -> bool:
    return any(fnmatch.fnmatch(part, pattern) for part in rel.parts for pattern in _IGNORED)


# -- the working copy -------------------------------------------------------------------------
def copy_project(root: Path, dest: Path) -> None:
    """Copy the project into ``dest`` (caches, VCS data and old ``mutants/`` left out)."""
    try:
        shutil.copytree(root, dest, ignore=shutil.ignore_patterns(*_IGNORED), symlinks=True,
                        dirs_exist_ok=True)
    except (OSError, shutil.Error) as exc:
        raise MutationError(f"could not copy the project {root} into a working copy for mutmut "
                            f"({exc}); mutmut needs a copy of the whole project. Remove "
                            "unreadable files or special files from it.") from None


def _also_copy(workdir: Path, source_paths: list[str]) -> list[str]:
    """Everything of the copy that is not a source path, so mutmut's copy holds conftest.py
    files, pytest's configuration and the generated test module."""
    keep: list[str] = []
    sources = [Path(p) for p in source_paths]

    def walk(rel: Path) -> None:
        for child in sorted((workdir / rel).iterdir()):
            sub = child.relative_to(workdir)
            if sub.parts[0] == "mutants":
                continue
            if any(sub == s for s in sources):
                continue
            if child.is_dir() and any(sub in s.parents for s in sources):
                walk(sub)
            else:
                keep.append(sub.as_posix())

    walk(Path("."))
    return keep


def write_mutmut_config(workdir: Path, *, source_paths: list[str], files: list[str],
                        test_module: str) -> None:
    """mutmut's configuration for the copy, in its ``setup.cfg`` ``[mutmut]`` section.

    mutmut reads ``[tool.mutmut]`` of ``pyproject.toml`` first: the copy's table (if the user
    has one) is renamed so that this configuration applies. The user's files are not touched.
    """
    pyproject = workdir / "pyproject.toml"
    if pyproject.exists():
        text = pyproject.read_text(encoding="utf-8")
        renamed = re.sub(r"(?m)^(\s*\[+\s*tool\.)mutmut(\s*[\].])", r"\1mutmut_of_the_user\2",
                         text)
        if renamed != text:
            pyproject.write_text(renamed, encoding="utf-8")
    cfg_path = workdir / "setup.cfg"
    parser = configparser.RawConfigParser()
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    if cfg_path.exists():
        try:
            parser.read(cfg_path, encoding="utf-8")
        except configparser.Error as exc:
            raise UsageError(f"setup.cfg of the project cannot be read ({exc}); mutmut reads its "
                             "configuration from it. Fix its syntax.") from None
    if parser.has_section("mutmut"):
        parser.remove_section("mutmut")
    parser.add_section("mutmut")
    settings = {
        "source_paths": source_paths,
        "only_mutate": files,
        "also_copy": _also_copy(workdir, source_paths),
        "pytest_add_cli_args_test_selection": [test_module],
        "pytest_add_cli_args": list(PYTEST_ARGS),
        "use_git_change_detection": "false",
        "track_dependencies": "false",
    }
    for key, value in settings.items():
        if isinstance(value, list):
            parser.set("mutmut", key, "\n" + "\n".join(value) if len(value) != 1 else value[0])
        else:
            parser.set("mutmut", key, value)
    with cfg_path.open("w", encoding="utf-8") as out:
        parser.write(out)


# -- pre-flight: the suite, green, in the copy --------------------------------------------------
def _clean_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop(MUTANT_ENV, None)
    env.pop(PROBE_ENV, None)
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    return env


def preflight(workdir: Path, providers: list[str], cases: list[str]) -> dict[str, Any]:
    """Run the suite in the copy, unmutated; it must be green. Returns the probe's record."""
    out = workdir / ".toolcall-mutation-probe.json"
    args = [sys.executable, "-m", "pytest", "-p", "pytest_toolcall.cli.mutation",
            f"--toolcall-provider={','.join(providers)}", "-q", "-p", "no:cacheprovider",
            "-o", "toolcall_report=", "-o", "toolcall_min_pass_rate=", "--tb=short"]
    if cases:
        args.append(f"--toolcall-cases={','.join(cases)}")
    env = _clean_env()
    env[PROBE_ENV] = str(out)
    done = subprocess.run(args, cwd=workdir, env=env, capture_output=True, text=True,
                          check=False)
    output = done.stdout + done.stderr
    unmatched = [line.strip() for line in output.splitlines() if "matches no case" in line]
    if unmatched and done.returncode != 0:  # a --cases glob that names nothing: usage, exit 2
        from pytest_toolcall.core.errors import UsageError

        raise UsageError(f"pytest-toolcall mutate: --cases {','.join(cases)!r}: "
                         f"{unmatched[0].split('toolcall_cases: ', 1)[-1]}")
    if not out.exists():
        raise MutationError("the conformance suite could not even start in the working copy "
                            f"(pytest exit code {done.returncode}):\n{_tail(output)}")
    probe = json.loads(out.read_text(encoding="utf-8"))
    out.unlink()
    bad = [f"{r['nodeid']}: {r['outcome']}" for r in probe["items"]
           if r["outcome"] in ("failed", "error")]
    if bad or done.returncode not in (0, 5):
        shown = "\n  ".join(bad[:20]) or f"pytest exit code {done.returncode}"
        raise MutationError(
            "the conformance suite is red before mutation; mutmut needs a green suite. Fix "
            "these first (run `pytest --toolcall-provider=" + ",".join(providers)
            + (f" --toolcall-cases={','.join(cases)}" if cases else "")
            + f"` to see why), or leave them out with --cases:\n  {shown}\n{_tail(output, 15)}")
    if not any(r["outcome"] == "passed" for r in probe["items"]):
        raise MutationError("no conformance case passed in the pre-flight run (all skipped or "
                            "known gaps), so no case could catch a mutant; widen --cases or "
                            "check the profile's claims")
    return probe


def _tail(text: str, lines: int = 30) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def generate_test_module(workdir: Path, probe: dict[str, Any],
                         profiles: dict[str, dict[str, Any]] | None = None,
                         runs: list[tuple[str, str, str]] | None = None) -> str:
    """Write the test module mutmut runs (next to the user's toolcall_* fixture overrides);
    returns its path relative to the copy. With ``profiles``, one test per (provider, profile,
    case) of ``runs``, the profile laid over the ``toolcall_profile`` fixture."""
    directory = Path(probe["suite_dir"] or ".")
    rel = (directory / GENERATED_MODULE).as_posix()
    if profiles is not None:
        (workdir / rel).write_text(_profiled_module(profiles, runs or []), encoding="utf-8")
        return rel
    chosen = [(r["provider"], r["case"]) for r in probe["items"] if r["outcome"] == "passed"]
    lines = [
        '"""Generated by `pytest-toolcall mutate`: one test per conformance case, so that mutmut',
        'can re-run each case by node id inside its copy. Do not edit."""',
        "",
        "import pytest",
        "",
        "from pytest_toolcall.cli.mutation import run_suite_case",
        "",
        "CASES = [",
        *[f"    ({provider!r}, {case!r})," for provider, case in chosen],
        "]",
        "",
        "",
        '@pytest.mark.parametrize(("toolcall_provider", "toolcall_case_id"), CASES,',
        '                         ids=[f"{p}-{c}" for p, c in CASES])',
        f"def {GENERATED_TEST}(request, toolcall_provider, toolcall_case_id):",
        "    run_suite_case(request, toolcall_case_id)",
        "",
    ]
    (workdir / rel).write_text("\n".join(lines), encoding="utf-8")
    return rel


def _profiled_module(profiles: dict[str, dict[str, Any]],
                     runs: list[tuple[str, str, str]]) -> str:
    fields = {name: spec["fields"] for name, spec in profiles.items()}
    lines = [
        '"""Generated by `pytest-toolcall mutate --profiles`: one test per conformance case and',
        'declared profile, so that mutmut can re-run each by node id inside its copy. Do not',
        'edit."""',
        "",
        "import pytest",
        "",
        "from pytest_toolcall.cli.mutation import apply_profile, run_suite_case",
        "",
        f"PROFILES = {fields!r}",
        "",
        "CASES = [",
        *[f"    ({provider!r}, {name!r}, {case!r})," for provider, name, case in runs],
        "]",
        "",
        "",
        "@pytest.fixture",
        "def toolcall_profile(toolcall_profile, toolcall_mutation_profile):",
        "    # the declared profile over the base one: the subject fixtures built from",
        "    # toolcall_profile (toolcall_loop, toolcall_history) get its policy too",
        "    return apply_profile(toolcall_profile, PROFILES[toolcall_mutation_profile])",
        "",
        "",
        '@pytest.mark.parametrize(("toolcall_provider", "toolcall_mutation_profile", '
        '"toolcall_case_id"),',
        '                         CASES, ids=[f"{p}-{n}-{c}" for p, n, c in CASES])',
        f"def {GENERATED_TEST}(request, toolcall_provider, toolcall_mutation_profile, "
        "toolcall_case_id):",
        "    run_suite_case(request, toolcall_case_id)",
        "",
    ]
    return "\n".join(lines)


def node_id(module: str, provider: str, case: str, profile: str | None = None) -> str:
    if profile is not None:
        return f"{module}::{GENERATED_TEST}[{provider}-{profile}-{case}]"
    return f"{module}::{GENERATED_TEST}[{provider}-{case}]"


def _profile_selects(globs: list[str], case: str) -> bool:
    """A profile's 'cases': the case matches a glob (none: every case) and no '!glob'."""
    take = [g for g in globs if not g.startswith("!")]
    if any(fnmatch.fnmatchcase(case, g[1:]) for g in globs if g.startswith("!")):
        return False
    return not take or any(fnmatch.fnmatchcase(case, g) for g in take)


def preflight_profiles(workdir: Path, probe: dict[str, Any],
                       profiles: dict[str, dict[str, Any]]) -> list[tuple[str, str, str]]:
    """Run every selected case under every declared profile, unmutated, through the generated
    module (as mutmut will); every run must pass or be skipped (the profile does not claim
    what the case needs). Returns the (provider, profile, case) runs that passed."""
    candidates = [(r["provider"], r["case"]) for r in probe["items"]
                  if r["outcome"] in ("passed", "skipped")]
    runs = [(provider, name, case) for name, spec in profiles.items()
            for provider, case in candidates if _profile_selects(spec["cases"], case)]
    if not runs:
        raise MutationError("no selected case runs under any declared profile (--profiles "
                            "'cases' globs and --cases select nothing in common)")
    module = generate_test_module(workdir, probe, profiles, runs)
    out = workdir / ".toolcall-mutation-profiles.json"
    env = _clean_env()
    env[PROBE_ENV] = str(out)
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "pytest_toolcall.cli.mutation",
                           "-q", "--rootdir=.", "--tb=short", *PYTEST_ARGS, module],
                          cwd=workdir, env=env, capture_output=True, text=True, check=False)
    output = done.stdout + done.stderr
    if not out.exists():
        raise MutationError("the cases could not run under the declared profiles (pytest exit "
                            f"code {done.returncode}):\n{_tail(output)}")
    record = json.loads(out.read_text(encoding="utf-8"))
    out.unlink()
    bad = [f"{r['case']}[{r['provider']}] under profile {r['profile']!r}: {r['outcome']}"
           for r in record["items"] if r["outcome"] in ("failed", "error", None)]
    if bad or done.returncode not in (0, 5):
        shown = "\n  ".join(bad[:20]) or f"pytest exit code {done.returncode}"
        raise MutationError(
            "the conformance suite is red under a declared profile before mutation; mutmut "
            "needs a green suite. Each profile must be one the implementation really has "
            "(its toolcall_* fixture must build it from toolcall_profile); fix the profile or "
            f"the implementation, or narrow the profile's 'cases':\n  {shown}\n"
            f"{_tail(output, 15)}")
    return [(r["provider"], r["profile"], r["case"]) for r in record["items"]
            if r["outcome"] == "passed"]


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


# -- mutmut -----------------------------------------------------------------------------------
_LAUNCH = "import sys\nfrom mutmut.__main__ import cli\nsys.argv[0] = 'mutmut'\ncli()\n"
_RATE = re.compile(r"([0-9.]+) mutations/second")


def mutmut_version() -> str:
    try:
        from importlib.metadata import version

        return version("mutmut")
    except Exception:  # noqa: BLE001 - not installed
        raise UsageError("pytest-toolcall mutate needs mutmut 3: pip install 'pytest-toolcall[mutation]'") \
            from None


def run_mutmut(workdir: Path, jobs: int, log: Path | None) -> tuple[float, float | None, str]:
    """``mutmut run`` in the copy; (seconds, mutmut's mutations/second, output)."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _LAUNCH, "run", "--max-children", str(jobs)],
                          cwd=workdir, env=_clean_env(), capture_output=True, text=True,
                          check=False)
    seconds = time.perf_counter() - started
    output = _strip_spinner(done.stdout + done.stderr)
    if log is not None:
        from pytest_toolcall.core.redact import mask

        log.write_text(mask(output), encoding="utf-8")
    if done.returncode != 0:
        raise MutationError(_explain_mutmut_failure(done.returncode, output))
    rate = _RATE.findall(output)
    return seconds, float(rate[-1]) if rate else None, output


def _strip_spinner(text: str) -> str:
    lines = []
    for line in text.replace("\r", "\n").splitlines():
        if re.match(r"^\s*[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]", line):
            continue
        lines.append(line)
    return "\n".join(lines)


def _explain_mutmut_failure(code: int, output: str) -> str:
    if "could not find any test case for any mutant" in output:
        return ("mutmut stopped: no selected conformance case calls any function of the code to "
                "mutate. Check that the fixture under test (toolcall_adapter / toolcall_loop / "
                "toolcall_history in conftest.py) builds its object from these files, and that "
                "--cases selects cases of its contract.")
    if "none match any mutant key" in output:
        return ("mutmut stopped: the suite imports the code under another module name than its "
                f"path gives (a pythonpath setting or sys.path trick?).\n{_tail(output, 12)}")
    if "failed to collect stats" in output:
        return ("mutmut's first run of the suite failed inside its copy (mutants/) although the "
                f"pre-flight run passed: something in the project depends on files mutmut does "
                f"not copy, or on the working directory.\n{_tail(output, 25)}")
    if "Failed to run clean test" in output:
        return ("mutmut's clean re-run of the recorded tests by node id failed inside its copy; "
                f"its verdicts would be false kills.\n{_tail(output, 25)}")
    if "Unable to force test failures" in output:
        return ("mutmut could not make the suite fail by forcing every mutated function to "
                "raise: the tests do not run the mutated copy of the code (is the code imported "
                f"from elsewhere, e.g. an installed copy?).\n{_tail(output, 15)}")
    return f"mutmut run failed (exit code {code}):\n{_tail(output, 30)}"


def verify_recorded_ids(mutants_dir: Path, recorded: set[str]) -> None:
    """Refuse the run unless every test id mutmut recorded collects inside its copy.

    mutmut re-runs tests by these ids; one that does not collect makes pytest fail, and mutmut
    counts that failure as a kill.
    """
    if not recorded:
        raise MutationError("mutmut recorded no test for any function of the code to mutate; "
                            "nothing can be reported")
    out = mutants_dir / ".toolcall-mutation-collect.json"
    env = _clean_env()
    env[PROBE_ENV] = str(out)
    args = [sys.executable, "-m", "pytest", "-p", "pytest_toolcall.cli.mutation", "--collect-only",
            "-q", "--rootdir=.", *PYTEST_ARGS, *sorted(recorded)]
    done = subprocess.run(args, cwd=mutants_dir, env=env, capture_output=True, text=True,
                          check=False)
    collected: set[str] = set()
    if out.exists():
        collected = set(json.loads(out.read_text(encoding="utf-8"))["collected"])
        out.unlink()
    missing = sorted(recorded - collected)
    if missing or done.returncode != 0:
        shown = "\n  ".join(missing[:10]) or "(see pytest's output)"
        raise MutationError(
            f"refusing to report: {len(missing)} of the {len(recorded)} test ids mutmut recorded "
            f"do not collect inside its copy ({mutants_dir}), so mutmut would count every mutant "
            f"they cover as killed. Not collected:\n  {shown}\n{_tail(done.stdout + done.stderr, 12)}")


# -- results ----------------------------------------------------------------------------------
def read_results(workdir: Path, files: list[str], module: str,
                 case_by_test: dict[str, str]) -> tuple[dict[str, int], list[Escape],
                                                        list[dict[str, Any]], set[str]]:
    mutants = workdir / "mutants"
    stats = json.loads((mutants / "mutmut-stats.json").read_text(encoding="utf-8"))
    tests_by_function: dict[str, list[str]] = stats["tests_by_mangled_function_name"]
    recorded = {t for tests in tests_by_function.values() for t in tests}
    counts: dict[str, int] = {}
    escapes: list[Escape] = []
    errors: list[dict[str, Any]] = []
    unchecked = []
    for rel in files:
        meta_path = mutants / (rel + ".meta")
        if not meta_path.exists():
            continue  # no function to mutate in this file
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        mutated = _functions(mutants / rel)
        original = _functions(workdir / rel)
        for name, code in sorted(meta["exit_code_by_key"].items(), key=_mutant_order):
            status = classify(code)
            counts[status] = counts.get(status, 0) + 1
            if status == "not_checked":
                unchecked.append(name)
            if status == "error":
                errors.append({"mutant": name, "exit_code": code, "file": rel})
            if status not in ESCAPED:
                continue
            mangled = name.partition("__mutmut_")[0]
            function = mangled.rpartition(".")[2]
            diff, line = _mutant_diff(rel, function, name.rpartition(".")[2], mutated, original)
            tests = tests_by_function.get(mangled, [])
            cases = sorted({case_by_test.get(t, t) for t in tests})
            escapes.append(Escape(mutant=name, status=status, file=rel, line=line,
                                  function=_readable(function), diff=diff, cases=cases))
    if unchecked:
        raise MutationError(f"mutmut left {len(unchecked)} mutants unchecked (an interrupted "
                            f"run?), e.g. {unchecked[0]}; run again")
    return counts, escapes, errors, recorded


def _mutant_order(item: tuple[str, Any]) -> tuple[str, int]:
    head, _, number = item[0].rpartition("__mutmut_")
    return head, int(number) if number.isdigit() else 0


def _readable(mangled: str) -> str:
    if mangled.startswith("xǁ"):
        _, cls, func = mangled.split("ǁ", 2)
        return f"{cls}.{func}"
    return mangled.removeprefix("x_")


def _functions(path: Path) -> dict[str, tuple[int, int, list[str]]]:
    """Top-level functions and methods of top-level classes: name -> (first, last line, lines)."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    out: dict[str, tuple[int, int, list[str]]] = {}
    tree = ast.parse(text)
    for node in tree.body:
        children = [(None, node)] if not isinstance(node, ast.ClassDef) else \
            [(node.name, child) for child in node.body]
        for cls, child in children:
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                key = child.name if cls is None else f"{cls}.{child.name}"
                end = child.end_lineno or child.lineno
                out[key] = (child.lineno, end, lines[child.lineno - 1:end])
    return out


def _mutant_diff(rel: str, function: str, mutant: str, mutated: dict[str, Any],
                 original: dict[str, Any]) -> tuple[str, int | None]:
    """The unified diff of one mutant against the original function, and its line in ``rel``."""
    readable = _readable(function)
    cls = readable.rpartition(".")[0]
    prefix = f"{cls}." if cls else ""
    orig_key, mutant_key = f"{prefix}{function}__mutmut_orig", f"{prefix}{mutant}"
    if orig_key not in mutated or mutant_key not in mutated:
        return "(diff unavailable: run `mutmut show " + mutant + "` in the kept working copy)", None
    name = readable.rpartition(".")[2]
    before = [ln.replace(f"{function}__mutmut_orig", name) for ln in mutated[orig_key][2]]
    after = [ln.replace(mutant, name) for ln in mutated[mutant_key][2]]
    diff = "\n".join(difflib.unified_diff(before, after, f"a/{rel}", f"b/{rel}", n=1,
                                          lineterm=""))
    line = None
    start = original.get(readable)
    if start is not None:
        for tag, i1, _, _, _ in difflib.SequenceMatcher(a=before, b=after,
                                                       autojunk=False).get_opcodes():
            if tag != "equal":
                line = start[0] + i1
                break
    return diff, line


# -- the whole run ----------------------------------------------------------------------------
def run_mutation(run: MutationRun, *, log_dir: Path | None = None) -> MutationResult:
    if os.environ.get(MUTANT_ENV):
        raise UsageError(f"{MUTANT_ENV} is set: pytest-toolcall mutate does not run inside a "
                         "mutmut run")
    version = mutmut_version()
    if not version.startswith("3."):
        raise UsageError(f"pytest-toolcall mutate needs mutmut 3 (found {version}): "
                         "pip install 'mutmut>=3,<4'")
    started = time.perf_counter()
    files, source_paths = plan_sources(run.root, run.files)
    workdir = Path(tempfile.mkdtemp(prefix="toolcall-mutate-"))
    try:
        copy_project(run.root, workdir)
        probe = preflight(workdir, run.providers, run.cases)
        if run.profiles is not None:
            runs = preflight_profiles(workdir, probe, run.profiles)
            module = generate_test_module(workdir, probe, run.profiles, runs)
            case_by_test = {node_id(module, p, c, n): f"{c}[{p}, {n}]" for p, n, c in runs}
        else:
            module = generate_test_module(workdir, probe)
            case_by_test = {node_id(module, r["provider"], r["case"]):
                            f"{r['case']}[{r['provider']}]"
                            for r in probe["items"] if r["outcome"] == "passed"}
        write_mutmut_config(workdir, source_paths=source_paths, files=files,
                            test_module=module)
        mutmut_seconds, rate, _ = run_mutmut(workdir, run.jobs,
                                             log_dir / "mutmut.log" if log_dir else None)
        counts, escapes, errors, recorded = read_results(workdir, files, module, case_by_test)
        verify_recorded_ids(workdir / "mutants", recorded)
        return MutationResult(
            sources=files, providers=run.providers, cases=sorted(case_by_test.values()),
            counts=counts, escapes=escapes, errors=errors,
            seconds=time.perf_counter() - started, mutmut_seconds=mutmut_seconds,
            mutants_per_second=rate, mutmut_version=version,
            workdir=str(workdir) if run.keep else None, profiles=list(run.profiles or ()))
    finally:
        if not run.keep:
            shutil.rmtree(workdir, ignore_errors=True)


# -- output -----------------------------------------------------------------------------------
def render_text(result: MutationResult) -> str:
    out = [result.headline()]
    rate = result.kill_rate
    out.append(f"caught {result.caught} of {result.tested} mutants"
               + (f" (kill rate {rate:.1%})" if rate is not None else "")
               + f"; {', '.join(f'{v} {k}' for k, v in sorted(result.counts.items()))}")
    if result.profiles:
        out.append(f"cases ran under {len(result.profiles)} declared profiles: "
                   + ", ".join(result.profiles))
    for escape in result.escapes:
        where = f"{escape.file}:{escape.line}" if escape.line else escape.file
        what = "survived" if escape.status == "survived" else "no case calls this function"
        out.append("")
        out.append(f"ESCAPE {escape.mutant} ({what}) at {where}, in {escape.function}")
        out.append("  cases that ran it: " + (", ".join(escape.cases) or "none"))
        out.extend("  " + line for line in escape.diff.splitlines())
    for error in result.errors:
        out.append(f"UNCLEAR {error['mutant']}: mutmut exit code {error['exit_code']} (not "
                   "counted as a kill)")
    return "\n".join(out)


def render_markdown(result: MutationResult, gate: dict[str, Any]) -> str:
    rate = result.kill_rate
    lines = ["# Mutation escapes", "",
             f"**{result.headline()}** - kill rate "
             + (f"{rate:.1%}" if rate is not None else "n/a")
             + f" ({result.caught} of {result.tested} mutants caught)", "",
             (f"Sources: {', '.join(f'`{s}`' for s in result.sources)}; providers: "
              f"{', '.join(result.providers)}; {len(result.cases)} cases"
              + (f" (runs under profiles {', '.join(result.profiles)})" if result.profiles
                 else "") + "."), ""]
    if gate["failures"]:
        lines += [f"- :x: {f}" for f in gate["failures"]] + [""]
    elif gate["max_escapes"] is not None or gate["min_kill_rate"] is not None:
        lines += ["- :white_check_mark: mutation gate passed", ""]
    if result.escapes:
        lines += ["| mutant | where | status | cases that ran it |", "|---|---|---|---|"]
        for e in result.escapes:
            where = f"{e.file}:{e.line}" if e.line else e.file
            lines.append(f"| `{e.mutant.rpartition('.')[2]}` | `{where}` | {e.status} | "
                         f"{', '.join(e.cases) or 'none'} |")
        lines.append("")
        for e in result.escapes:
            lines += [f"<details><summary><code>{e.mutant}</code></summary>", "", "```diff",
                      e.diff, "```", "", "</details>", ""]
    return "\n".join(lines)


def write_reports(directory: Path, result: MutationResult, gate: dict[str, Any]) -> list[Path]:
    if os.environ.get(MUTANT_ENV):
        return []  # never from inside a mutant run
    directory.mkdir(parents=True, exist_ok=True)
    json_path = directory / "mutation-report.json"
    md_path = directory / "mutation-summary.md"
    # secrets never reach a file the kit writes (issue 18)
    from pytest_toolcall.core.redact import mask

    json_path.write_text(mask(json.dumps(result.document(gate), indent=2, ensure_ascii=False))
                         + "\n", encoding="utf-8")
    md_path.write_text(mask(render_markdown(result, gate)), encoding="utf-8")
    return [json_path, md_path]

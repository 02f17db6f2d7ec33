"""The driver's steps, in the ``pytest-toolcall mutate`` process: plan the sources, copy the
project, run the pre-flight, generate the test module and mutmut's config, run mutmut, verify
the test ids it recorded, read its results (see the package's docstring).
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
from pathlib import Path
from typing import Any
from pytest_toolcall.core.errors import UsageError
from pytest_toolcall.cli.mutation.model import (
    ESCAPED,
    Escape,
    GENERATED_MODULE,
    GENERATED_TEST,
    MUTANT_ENV,
    MutationError,
    MutationResult,
    MutationRun,
    PROBE_ENV,
    PYTEST_ARGS,
    _IGNORED,
    classify,
    mutmut_version,
)


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
    args = [sys.executable, "-m", "pytest", "-p", "pytest_toolcall.cli.mutation.probe",
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
        "from pytest_toolcall.cli.mutation.probe import run_suite_case",
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
        "from pytest_toolcall.cli.mutation.model import apply_profile\n"
        "from pytest_toolcall.cli.mutation.probe import run_suite_case",
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
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "pytest_toolcall.cli.mutation.probe",
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


# -- mutmut -----------------------------------------------------------------------------------
_LAUNCH = "import sys\nfrom mutmut.__main__ import cli\nsys.argv[0] = 'mutmut'\ncli()\n"


_RATE = re.compile(r"([0-9.]+) mutations/second")


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
    args = [sys.executable, "-m", "pytest", "-p", "pytest_toolcall.cli.mutation.probe", "--collect-only",
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

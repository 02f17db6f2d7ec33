"""``pytest-toolcall``: the command line: ``mutate``, and ``probe`` (cli/probe.py, its own exit
codes).

Exit codes: 0 done (gate passed or no gate), 1 the mutation gate failed, 2 usage error (bad
option, missing path, mutmut missing), 3 no honest result could be produced (the suite is red,
mutmut failed, or its recorded test ids do not collect in its copy); the message says what to fix.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_toolcall.core.errors import UsageError

EXIT_GATE, EXIT_USAGE, EXIT_NO_RESULT = 1, 2, 3


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"pytest-toolcall: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def version_text() -> str:
    """``pytest-toolcall 0.4.0 (suite 0.4.0)``: the package, and the newest suite it runs."""
    from pytest_toolcall import __version__
    from pytest_toolcall.cases.versions import SUITE_VERSION

    return f"pytest-toolcall {__version__} (suite {SUITE_VERSION})"


def build_parser() -> argparse.ArgumentParser:
    from pytest_toolcall.providers.base import DIALECT_NAMES

    parser = _Parser(prog="pytest-toolcall", description="pytest-toolcall command line tools")
    parser.add_argument("--version", action="version", version=version_text(),
                        help="print the package and suite versions and exit")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    mutate = sub.add_parser(
        "mutate", help="run mutmut over your implementation with the conformance suite and list "
                       "the mutants it lets through",
        description="Run mutmut 3 over PATH... with the conformance suite as the tests, in a "
                    "temporary working copy (your files and configuration are not touched). "
                    "Prints MUTATION_ESCAPES: k/n and each escape's diff.")
    mutate.add_argument("paths", nargs="+", metavar="PATH",
                        help="Python files or packages to mutate (your adapter, loop, ...)")
    mutate.add_argument("--provider", default="openai", metavar="NAME[,NAME]",
                        help=f"providers to run the suite for: {', '.join(DIALECT_NAMES)} "
                             "(default openai)")
    mutate.add_argument("--cases", default="", metavar="GLOB[,GLOB]",
                        help="only these cases, e.g. 'wire.*,stream.*' (default: all)")
    mutate.add_argument("--report", default=None, metavar="DIR",
                        help="write mutation-report.json and mutation-summary.md (and mutmut.log) "
                             "into DIR")
    mutate.add_argument("--max-escapes", type=int, default=None, metavar="N",
                        help="exit 1 when more than N mutants escape")
    mutate.add_argument("--min-kill-rate", default=None, metavar="RATE",
                        help="exit 1 when the kill rate is below RATE (0.9 or 90%%)")
    mutate.add_argument("--root", default=".", metavar="DIR",
                        help="the project root (default: the current directory)")
    mutate.add_argument("--jobs", type=int, default=os.cpu_count() or 2, metavar="N",
                        help="mutants tested in parallel (default: the number of CPUs)")
    mutate.add_argument("--profiles", default=None, metavar="MATRIX",
                        help="run the cases once per declared profile (a mutant is caught when "
                             "any profile's run fails): 'reference' (the built-in matrix of the "
                             "reference loop and history builder), a JSON file, or inline JSON "
                             "mapping names to Profile fields laid over toolcall_profile "
                             "(default: the base profile only)")
    mutate.add_argument("--keep", action="store_true",
                        help="keep the working copy (for `mutmut browse` / `mutmut show`)")
    from pytest_toolcall.cli import probe

    probe.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "probe":
        from pytest_toolcall.cli import probe

        return probe.run(args)
    return _mutate(args)


def _mutate(args: argparse.Namespace) -> int:
    from pytest_toolcall.providers.base import DIALECT_NAMES
    from pytest_toolcall.cli.mutation import (
        MutationError,
        MutationRun,
        evaluate_gate,
        parse_profiles,
        parse_rate,
        render_text,
        run_mutation,
        write_reports,
    )
    from pytest_toolcall.core.redact import mask

    try:
        providers = [p.strip() for p in args.provider.split(",") if p.strip()]
        if providers == ["all"]:
            providers = list(DIALECT_NAMES)
        unknown = [p for p in providers if p not in DIALECT_NAMES]
        if unknown or not providers:
            raise UsageError(f"--provider: unknown provider {(unknown or [''])[0]!r}; valid: "
                             f"{', '.join(DIALECT_NAMES)}, or 'all'")
        if args.max_escapes is not None and args.max_escapes < 0:
            raise UsageError("--max-escapes: give a number of escapes, 0 or more")
        if args.jobs < 1:
            raise UsageError("--jobs: give 1 or more")
        rate = parse_rate(args.min_kill_rate) if args.min_kill_rate is not None else None
        root = Path(args.root).resolve()
        if not root.is_dir():
            raise UsageError(f"--root: {args.root!r} is not a directory")
        report = Path(args.report).resolve() if args.report else None
        cases = [c.strip() for c in args.cases.split(",") if c.strip()]
        profiles = parse_profiles(args.profiles) if args.profiles is not None else None
        run = MutationRun(root=root, files=list(args.paths), providers=providers, cases=cases,
                          jobs=args.jobs, keep=args.keep, profiles=profiles)
        if report is not None:
            if report.exists() and not report.is_dir():
                raise UsageError(f"--report: {args.report!r} is a file; --report names the "
                                 "folder the reports are written to (it is made if missing)")
            try:
                report.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise UsageError(f"--report: cannot make the folder {args.report!r}: "
                                 f"{exc.strerror or exc}") from None
        result = run_mutation(run, log_dir=report)
    except MutationError as exc:
        print(mask(f"pytest-toolcall mutate: no result: {exc}"), file=sys.stderr)
        return EXIT_NO_RESULT
    except UsageError as exc:
        print(mask(f"pytest-toolcall mutate: usage error: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    gate = evaluate_gate(result, args.max_escapes, rate)
    print(mask(render_text(result)))
    if result.workdir:
        print(f"working copy kept: {result.workdir} (mutmut browse / mutmut show there)")
    if report is not None:
        written = write_reports(report, result, gate)
        print("reports written: " + ", ".join(str(p) for p in written))
    for failure in gate["failures"]:
        print(failure)
    return EXIT_GATE if gate["failures"] else 0


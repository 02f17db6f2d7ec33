"""The kit's two guards under mutation: how many one-change mutants of ``core/redact.py`` and
``core/netguard.py`` the kit's own tests kill (issue 35, item 10). Prints figures; asserts
nothing.

    python bench/bench_guard_mutation.py                      # both files, the guard tests
    python bench/bench_guard_mutation.py --file redact --json /tmp/guards.json
    python bench/bench_guard_mutation.py --list               # the mutants, not run

An honest one-change-at-a-time loop rather than mutmut: mutmut 3 mutates through trampolines
that the guards' own machinery defeats (netguard stores its replacement functions in a table
and patches them into ``socket``; redact's matcher is cached across calls), so each mutant here
is a real edit of the file. The repository (without ``.git``) is copied once to a temporary
directory; each mutant is written into the copy's file, the tests run there in a subprocess
(``-x``, ``-p no:cacheprovider``, ``PYTHONPATH`` the copy), and the file is put back. A mutant
whose tests fail, or that times out, is killed; one whose tests all pass survived.

Operators (each mutant changes one node of the file's AST; the module is written back with
``ast.unparse``, so comments go, which changes no behaviour): comparison operators swapped
(``==``/``!=``, ``<``/``<=``, ``>``/``>=``, ``in``/``not in``, ``is``/``is not``); ``and``/``or``
swapped, and a two-operand ``and``/``or`` replaced by each operand (a dropped condition);
``not`` removed; numbers ``n`` -> ``n + 1``; strings ``s`` -> ``"XX" + s + "XX"`` (docstrings
left alone) and each element of a tuple, set or list of strings dropped (a dropped rule);
``True``/``False`` swapped; ``+``/``-`` swapped; an expression statement, augmented assignment
or plain assignment inside a function replaced by ``pass``; ``return X`` -> ``return None``.

Survivors judged equivalent (no behaviour can change) are listed in :data:`EQUIVALENT` by file
and the mutant's description, with the reason; they are left out of the kill rate. Any other
survivor counts against it. docs/reliability.md ("The guards under mutation") has the figures.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import inspect
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FILES = {"redact": "pytest_toolcall/core/redact.py",
         "netguard": "pytest_toolcall/core/netguard.py"}
#: the kit's tests that exercise the guards
TESTS = ["tests/test_guards.py", "tests/test_redact_matcher.py",
         "tests/test_snapshot_redaction.py", "tests/test_reliability_security.py"]
#: in tests/test_reliability_security.py, the secrets and the network items (the others are
#: hangs and bad input: they do not touch the guards and take most of its time)
SELECT = ("guards or mask or redact or credential or lose or secret or password or network or socket "
          "or datagram or lookup or loopback or mutation_reports")
TARGET = 0.95

#: survivors no test can kill, by file -> description -> why
EQUIVALENT: dict[str, dict[str, str]] = {
    "redact": {
        "L95: statement -> pass: name = str(name)":
            "every caller passes a str (environment, header and query names; JSON keys go "
            "through str() first): str() of a str is the same text",
        "L47: 'sk-tc-PLANTED-9f8e7d6c5b4a3928' -> 'XX..XX'":
            "the planted value itself: cases.tools.SECRET is the same object, so the kit "
            "plants and masks the changed value alike; no behaviour depends on its text",
        "L100: return None":
            "secret_name's 'return False' for a name without words as None: read as a truth "
            "value only",
        "L125: 1 -> 2":
            "register bumps the registry's version by 2: only a change of it is read",
        "L144: 1 -> 2": "isolated() bumps the version by 2: only a change of it is read",
        "L151: 1 -> 2": "isolated() bumps the version by 2: only a change of it is read",
        "L253: 0 -> 1":
            "the longest start found so far begins at 1 instead of 0: every start compared "
            "is MIN_PREFIX (8) characters or more",
        "L236: Gt -> GtE":
            "a value of exactly 8 characters gets a 'start' that is the whole value, which "
            "the first pass has masked already",
        "L240: 0 -> 1":
            "the build counter starts at 2: only its changes are read (tests)",
        "L279: And: keep operand 0 only":
            "the starts pass on a text shorter than 8 characters: no start can match in it",
        "L284: 0 -> 1":
            "the branch that keeps an already masked URL password: a mark holds a space, which "
            "the password pattern never matches, so the branch is never taken",
        "L78: 0 -> 1":
            "the registry's first version number: it is only compared with itself, to tell "
            "that the registry changed",
    },
    "netguard": {
        "L135: return None":
            "_connect: socket.connect returns None, so returning None changes nothing",
        "L79: return None":
            "_is_loopback's 'return False' as None: the result is only read as a truth value",
        "L87: 'connection' -> 'XX..XX'":
            "_Guard.refuse's default kind: every caller passes a kind",
        "L88: '' -> 'XX..XX'":
            "_Guard.refuse's default via: every caller passes one",
        "L95: '' -> 'XX..XX'":
            "the host _Guard.allowed returns for a Unix socket, which it allows: an allowed "
            "address's host is never read",
        "L77: '%' -> 'XX..XX'":
            "the scope id cut from an IPv6 address: Python 3.9+ ipaddress reads '::1%lo' "
            "itself, and an IPv4 address has none",
    },
}


class _Mutant:
    def __init__(self, index: int, line: int, description: str, tree: ast.Module) -> None:
        self.index, self.line, self.description, self.tree = index, line, description, tree

    @property
    def label(self) -> str:
        return f"L{self.line}: {self.description}"


_SWAP: dict[type, type] = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE,
         ast.GtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot,
         ast.IsNot: ast.Is}


def _docstrings(tree: ast.Module) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            body = node.body
            if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                ids.add(id(body[0].value))
    return ids


def _edits(tree: ast.Module) -> Iterator[tuple[ast.AST, int, str, object]]:
    """(node, line, description, change) for every mutation of ``tree``; ``change`` is applied
    by :func:`_apply` to the node at the same walk position of a copy."""
    docs = _docstrings(tree)
    # imports, __all__, and the text of f-strings (the wording of a message; what it names is
    # mutated where it is computed)
    skip = {id(n) for n in ast.walk(tree) if isinstance(n, (ast.ImportFrom, ast.Import,
                                                            ast.JoinedStr))
            or (isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__"
                                                  for t in n.targets))}
    for node in ast.walk(tree):
        if id(node) in skip:
            for child in ast.iter_child_nodes(node):
                skip.add(id(child))
            continue
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Compare):
            for k, op in enumerate(node.ops):
                if type(op) in _SWAP:
                    yield node, line, f"{type(op).__name__} -> {_SWAP[type(op)].__name__}", (
                        "cmp", k)
        elif isinstance(node, ast.BoolOp):
            other = "Or" if isinstance(node.op, ast.And) else "And"
            yield node, line, f"{type(node.op).__name__} -> {other}", ("boolop",)
            if len(node.values) == 2:
                for k in range(2):
                    yield node, line, f"{type(node.op).__name__}: keep operand {k} only", (
                        "operand", k)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield node, line, "drop not", ("not",)
        elif isinstance(node, ast.Constant) and id(node) not in docs:
            value = node.value
            if isinstance(value, bool):
                yield node, line, f"{value} -> {not value}", ("const", not value)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                yield node, line, f"{value!r} -> {value + 1!r}", ("const", value + 1)
            elif isinstance(value, str):
                yield node, line, f"{value!r} -> 'XX..XX'", ("const", f"XX{value}XX")
            elif isinstance(value, bytes):
                yield node, line, f"{value!r} -> b'XX..XX'", ("const", b"XX" + value + b"XX")
        elif isinstance(node, (ast.Tuple, ast.Set, ast.List)) and len(node.elts) > 1 and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            for k, elt in enumerate(node.elts):
                yield node, line, f"drop element {elt.value!r}", ("drop", k)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            other = "Sub" if isinstance(node.op, ast.Add) else "Add"
            yield node, line, f"{type(node.op).__name__} -> {other}", ("binop",)
        elif isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            yield node, line, "return None", ("return_none",)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.If, ast.For, ast.While,
                             ast.With, ast.Try)):
            in_function = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or any(
                isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef)) for p in _parents(
                    tree, node))
            if not in_function:
                continue
            for field in ("body", "orelse", "finalbody"):
                stmts = getattr(node, field, None) or []
                for k, stmt in enumerate(stmts):
                    if isinstance(stmt, (ast.Expr, ast.AugAssign, ast.Assign)) and not (
                            isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
                        yield node, stmt.lineno, f"statement -> pass: {_short(stmt)}", (
                            "pass", field, k)


_PARENTS: dict[int, dict[int, ast.AST]] = {}


def _parents(tree: ast.Module, node: ast.AST) -> list[ast.AST]:
    table = _PARENTS.get(id(tree))
    if table is None:
        table = _PARENTS[id(tree)] = {}
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                table[id(child)] = parent
    out = []
    while id(node) in table:
        node = table[id(node)]
        out.append(node)
    return out


def _short(stmt: ast.AST) -> str:
    text = ast.unparse(stmt).splitlines()[0]
    return text if len(text) <= 60 else text[:57] + "..."


def _apply(node: ast.AST, change: tuple) -> None:
    kind = change[0]
    if kind == "cmp":
        k = change[1]
        node.ops[k] = _SWAP[type(node.ops[k])]()  # type: ignore[attr-defined]
    elif kind == "boolop":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()  # type: ignore
    elif kind == "operand":
        keep = node.values[change[1]]  # type: ignore[attr-defined]
        node.values = [keep, keep]  # type: ignore[attr-defined]  # x and x == x
    elif kind == "not":
        node.op = ast.UAdd()  # type: ignore[attr-defined]  # replaced below
    elif kind == "const":
        node.value = change[1]  # type: ignore[attr-defined]
    elif kind == "drop":
        del node.elts[change[1]]  # type: ignore[attr-defined]
    elif kind == "binop":
        node.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()  # type: ignore
    elif kind == "return_none":
        node.value = ast.Constant(None)  # type: ignore[attr-defined]
    elif kind == "pass":
        getattr(node, change[1])[change[2]] = ast.Pass()


class _DropNot(ast.NodeTransformer):
    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        return node.operand if isinstance(node.op, ast.UAdd) and getattr(
            node, "_dropped", False) else node


def mutants(source: str) -> list[_Mutant]:
    tree = ast.parse(source)
    plan = [(i, line, text, change) for i, (_, line, text, change) in enumerate(_edits(tree))]
    out = []
    for number, (position, line, text, change) in enumerate(plan, 1):
        copy_tree = copy.deepcopy(tree)
        node = _nth_edit_node(copy_tree, position)
        if change[0] == "not":
            node._dropped = True  # type: ignore[attr-defined]
        _apply(node, change)
        if change[0] == "not":
            copy_tree = _DropNot().visit(copy_tree)
        ast.fix_missing_locations(copy_tree)
        out.append(_Mutant(number, line, text, copy_tree))
    return out


def _nth_edit_node(tree: ast.Module, position: int) -> ast.AST:
    _PARENTS.pop(id(tree), None)
    for i, (node, *_rest) in enumerate(_edits(tree)):
        if i == position:
            return node
    raise IndexError(position)


def _apply_in_process(module_name: str, source: str) -> None:
    """Run ``source`` as the module ``module_name``, in its own namespace, and point every
    reference other modules took of its functions, classes and long strings
    (``from pytest_toolcall.core.redact import mask``) at the new ones."""
    module = sys.modules[module_name]
    old = dict(vars(module))
    exec(compile(source, module.__file__ or module_name, "exec"), module.__dict__)  # noqa: S102
    new = vars(module)
    swap = {id(value): new[name] for name, value in old.items()
            if name in new and new[name] is not value
            and ((inspect.isfunction(value) or inspect.isclass(value))
                 and getattr(value, "__module__", None) == module_name
                 or isinstance(value, str) and len(value) > 8)}
    for other in list(sys.modules.values()):
        namespace = getattr(other, "__dict__", None)
        if other is module or not isinstance(namespace, dict):
            continue
        for name, value in list(namespace.items()):
            replacement = swap.get(id(value))
            if replacement is not None:
                namespace[name] = replacement


def _run_forked(module_name: str, source: str | None, tests: list[str],
                timeout: float) -> tuple[str, float]:
    """The tests in a forked child of this process (everything is imported already), with the
    module replaced by ``source`` (None: unchanged). Killed, survived or timeout."""
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child
        code = 3
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
            if source is not None:
                _apply_in_process(module_name, source)
            import pytest

            # no tracebacks (a broken mask fails every report: formatting them is most of a
            # killed mutant's time) and only the plugins the guard tests need
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
            code = int(pytest.main(["-x", "-q", "--tb=no", "-p", "no:cacheprovider",
                                    "-p", "pytest_toolcall.plugin", "--no-header",
                                    "-k", SELECT, *tests]))
        except BaseException:  # noqa: BLE001 - a mutant that breaks the import: killed
            code = 3
        finally:
            os._exit(code)
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        elapsed = time.monotonic() - start
        if done:
            break
        if elapsed > timeout:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "timeout", elapsed
        time.sleep(0.02)
    code = os.waitstatus_to_exitcode(status)
    if code == 0:
        return "survived", elapsed
    if code in (1, 2, 3) or code < 0:  # failed, interrupted, internal error, crashed
        return "killed", elapsed
    return f"error {code}", elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", choices=sorted(FILES), action="append")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument("--only", type=int, action="append", help="run mutant N only")
    parser.add_argument("--every", type=int, default=1,
                        help="a systematic sample: mutants 1, 1+K, 1+2K, ... (default: all)")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--tests", nargs="*", default=None, help="test files (default: TESTS)")
    parser.add_argument("--repo", type=Path, default=REPO,
                        help="the checkout to copy and measure (default: this one)")
    args = parser.parse_args()
    repo = args.repo.resolve()
    names = args.file or sorted(FILES)
    tests = [t for t in (args.tests or TESTS) if (repo / t).exists()]
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="guard-mutation-") as tmp:
        root = Path(tmp) / "repo"
        shutil.copytree(repo, root, ignore=shutil.ignore_patterns(
            ".git", "__pycache__", ".hypothesis", "mutants", ".mypy_cache", ".ruff_cache",
            "node_modules", ".venv", "*.egg-info", "cassettes"))
        # the copy's package, imported once here; every mutant runs in a fork of this process
        os.chdir(root)
        sys.path.insert(0, str(root))
        for name in [n for n in list(sys.modules) if n.split(".")[0] == "pytest_toolcall"]:
            del sys.modules[name]
        os.environ["PYTHONPATH"] = str(root)  # for the pytester runs in a subprocess
        import importlib

        import pytest

        for rel in FILES.values():
            module = importlib.import_module(rel[:-3].replace("/", "."))
            assert Path(module.__file__).resolve() == (root / rel).resolve(), module.__file__
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
            pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", *tests])
        clean, took = _run_forked("", None, tests, args.timeout * 2)
        print(f"clean run: {clean} in {took:.1f} s ({len(tests)} test files, -k {SELECT!r})")
        if clean != "survived":
            print("the tests fail without any mutant: nothing to measure")
            return 2
        for name in names:
            rel = FILES[name]
            module_name = rel[:-3].replace("/", ".")
            original = (root / rel).read_text(encoding="utf-8")
            found = mutants(original)
            print(f"\n{rel}: {len(found)} mutants", flush=True)
            if args.list:
                for m in found:
                    print(f"  #{m.index} {m.label}")
                continue
            killed, survived, equivalent = [], [], []
            for m in found:
                if args.only and m.index not in args.only or (m.index - 1) % args.every:
                    continue
                verdict, took = _run_forked(module_name, ast.unparse(m.tree) + "\n", tests,
                                            args.timeout)
                if verdict == "survived":
                    reason = EQUIVALENT[name].get(m.label)
                    (equivalent if reason else survived).append((m, reason))
                else:
                    killed.append((m, verdict))
                mark = {"survived": "S", "killed": ".", "timeout": "T"}.get(verdict, "E")
                print(f"  #{m.index:3d} {mark} {took:5.1f}s {m.label}", flush=True)
            counted = len(killed) + len(survived)
            rate = len(killed) / counted if counted else 1.0
            results[name] = {
                "file": rel, "mutants": len(killed) + len(survived) + len(equivalent),
                "killed": len(killed), "equivalent": len(equivalent),
                "survived": len(survived), "kill_rate": round(rate, 4),
                "survivors": [m.label for m, _ in survived],
                "equivalents": [(m.label, reason) for m, reason in equivalent]}
            print(f"{rel}: {len(killed)} killed, {len(survived)} survived, {len(equivalent)} "
                  f"equivalent; kill rate {rate:.1%} of {counted} non-equivalent "
                  f"(target {TARGET:.0%})")
            for label in results[name]["survivors"]:
                print(f"  survived: {label}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

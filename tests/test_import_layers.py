"""The package's modules form layers that import only downward, with no new import cycle (issue 9).

Read statically (``ast``): every ``import`` of a ``pytest_toolcall`` module, at module level or
inside a function (a function-local import that closes a cycle is still a cycle), except under
``if TYPE_CHECKING:``. docs/architecture.md shows the same layers.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pytest_toolcall"

#: bottom to top; a module may import its own layer and the layers below it
LAYERS: dict[str, tuple[str, ...]] = {
    "model and contracts": ("redact", "errors", "_schema", "_names", "_layout", "model", "contracts",
                            "loop", "fallback", "hookspecs"),
    "cases as data": ("tools", "cases", "strategies", "bugs", "providers",
                      "netguard"),
    "provider side": ("dialects", "fake", "reference", "scripted", "foreign", "provider_plugins"),
    "runners and checks": ("runbase", "checks", "runner", "looprun", "fallbackrun", "trace",
                           "live"),
    "reports and cassettes": ("report", "cassettes"),
    "shims for client libraries": ("shims",),
    "pytest layer": ("plugin", "core_plugin", "_suite", "report_plugin", "cassettes_plugin",
                     "foreign_plugin"),
    "mutation and the command line": ("mutation", "catalogue", "cli", "__main__"),
}

#: import cycles that exist today, each named; the test fails on any other. None is left: the
#: runners' shared recordings, deadline and check helpers live in runbase.py, below them.
KNOWN_CYCLES: dict[str, frozenset[str]] = {}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path  # "" is the package itself
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    is_package = path.name == "__init__.py"
    here = name.split(".") if name else []
    package = here if is_package else here[:-1]
    targets: set[str] = set()

    def visit(node: ast.AST, type_checking: bool) -> None:
        for child in ast.iter_child_nodes(node):
            guarded = type_checking or (isinstance(child, ast.If)
                                        and "TYPE_CHECKING" in ast.unparse(child.test))
            if not guarded and isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package[:len(package) - (child.level - 1)]
                    stem = ".".join([*base, *([child.module] if child.module else [])])
                elif (child.module or "").startswith("pytest_toolcall"):
                    stem = child.module.removeprefix("pytest_toolcall").lstrip(".")  # type: ignore[union-attr]
                else:
                    stem = None
                if stem is not None:
                    for candidate in [stem] + [f"{stem}.{a.name}".lstrip(".") for a in child.names]:
                        while candidate and candidate not in modules:
                            candidate = candidate.rpartition(".")[0]
                        targets.add(candidate)
            elif not guarded and isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.startswith("pytest_toolcall"):
                        candidate = alias.name.removeprefix("pytest_toolcall").lstrip(".")
                        while candidate and candidate not in modules:
                            candidate = candidate.rpartition(".")[0]
                        targets.add(candidate)
            visit(child, guarded)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    # the package itself imports nothing at run time (its names load lazily), so importing it
    # places no layer above another
    targets.discard("")
    targets.discard(name)
    return targets


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items() if name}


def _layer(module: str) -> int:
    top = module.split(".")[0]
    for index, members in enumerate(LAYERS.values()):
        if top in members:
            return index
    raise AssertionError(f"pytest_toolcall.{module} belongs to no layer: add it to LAYERS here "
                         "and to the layer table in docs/architecture.md")


def _cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_every_module_has_a_layer_and_imports_only_downward() -> None:
    graph = _graph()
    upward = sorted(f"{module} ({list(LAYERS)[_layer(module)]}) imports {target} "
                    f"({list(LAYERS)[_layer(target)]})"
                    for module, targets in graph.items() for target in targets
                    if _layer(target) > _layer(module))
    assert not upward, "imports that go up a layer:\n" + "\n".join(upward)


def test_no_new_import_cycle() -> None:
    cycles = _cycles(_graph())
    print("import cycles today:", [sorted(c) for c in cycles])
    new = [sorted(c) for c in cycles if not any(c <= known for known in KNOWN_CYCLES.values())]
    assert not new, f"a new import cycle: {new}; break it (move the shared part down a layer)"


def test_the_bottom_layers_have_no_cycle_at_all() -> None:
    """The case model and the provider side import nothing above them (issue 9)."""
    graph = _graph()
    low = {m: {t for t in targets if _layer(t) <= 2} for m, targets in graph.items()
           if _layer(m) <= 2}
    assert _cycles(low) == []


@pytest.mark.parametrize("broken", [
    {"a": {"b"}, "b": {"a"}},
    {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}},
])
def test_the_cycle_finder_finds_cycles(broken: dict[str, set[str]]) -> None:
    """Negative control: the finder is not blind."""
    assert _cycles(broken)

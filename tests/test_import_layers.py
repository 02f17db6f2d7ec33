"""The package's modules form layers that import only downward, with no new import cycle (issue 9).

Read statically (``ast``): every ``import`` of a ``pytest_toolcall`` module, at module level or
inside a function (a function-local import that closes a cycle is still a cycle), except under
``if TYPE_CHECKING:``. docs/architecture.md shows the same layers.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pytest_toolcall"

#: bottom to top: each layer is a folder of the package (or an entry module at its top level); a
#: module may import its own layer and the layers below it. A new module in a folder belongs to
#: that folder's layer; a new folder has to be placed here and in docs/architecture.md.
LAYERS: dict[str, tuple[str, ...]] = {
    "model and contracts": ("core",),
    "cases as data": ("cases",),
    "provider side": ("providers", "reference"),
    "running and checking": ("run",),
    # the built-in suite: conformance/ (installed as pytest_toolcall.conformance, outside this
    # package's folder in a checkout) and each provider's own cases.py
    "the built-in suite": ("conformance",),
    "reports and cassettes": ("output",),
    "shims for client libraries": ("shims",),
    "pytest layer": ("plugins", "plugin"),
    "command line": ("cli", "__main__"),
}

#: a provider's folder is a slice through the layers (docs/writing-a-provider.md): its
#: ``facts.py`` and the registry that reads them are data, below the case model (which reads
#: them to check the quirks a case names); its ``cases.py`` belongs to the built-in suite; the
#: rest (dialect, reference adapter) is provider side
DATA_MODULES = frozenset({"providers", "providers._facts"})
FILE_ROLES = {"facts": "cases as data", "cases": "the built-in suite"}

#: what may stand at the package's top level besides the layer folders
ENTRY_FILES = frozenset({"__init__.py", "__main__.py", "plugin.py", "py.typed"})


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


@functools.cache  # three tests read the same, unchanged package: parsed once
def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items() if name}


def _layer(module: str) -> int:
    if module in DATA_MODULES:
        return list(LAYERS).index("cases as data")
    parts = module.split(".")
    if len(parts) == 3 and parts[0] == "providers" and parts[2] in FILE_ROLES:
        return list(LAYERS).index(FILE_ROLES[parts[2]])
    top = module.split(".")[0]
    for index, members in enumerate(LAYERS.values()):
        if top in members:
            return index
    raise AssertionError(f"pytest_toolcall.{module} belongs to no layer: put it in a layer folder, "
                         "or add its folder to LAYERS here and to docs/architecture.md")


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


def test_the_top_level_is_the_layer_folders_and_the_entry_points() -> None:
    """A reader sees the architecture in ``ls pytest_toolcall`` (issue 34)."""
    folders = {name for members in LAYERS.values() for name in members
               if (PACKAGE / name).is_dir()}
    entries = {p.name for p in PACKAGE.iterdir() if p.name != "__pycache__"}
    stray = entries - folders - ENTRY_FILES
    assert not stray, f"not a layer folder nor an entry point: {sorted(stray)}"
    assert all((PACKAGE / f / "__init__.py").is_file() for f in folders)


def test_the_kit_imports_no_moved_path() -> None:
    """Old module paths (``core._layout.MOVED``) are for users; the kit's own code, cases, tests
    and benchmarks import the new ones, so that the table can shrink without breaking the kit."""
    from pytest_toolcall.core._layout import MOVED

    root = PACKAGE.parent
    # a file can import an old path only if its text names it: "pytest_toolcall", a dot and the
    # old path's next part (a dotted name may have blanks or line continuations around its dots,
    # never inside a name). Only those files are parsed (most of the ~370 files name none; the
    # parse of all of them took 1.6 s of CPU), each checked as before
    parts = sorted({old.split(".")[1] for old in MOVED}, key=len, reverse=True)
    may_import = re.compile(r"pytest_toolcall[\s\\]*\.[\s\\]*(?:" + "|".join(parts) + r")\b")
    found = []
    for base in ("pytest_toolcall", "conformance", "tests", "bench"):
        for path in (root / base).rglob("*.py"):
            if path.name == "test_public_api.py":
                continue  # it imports the old paths on purpose: they are what it tests
            text = path.read_text(encoding="utf-8")
            if not may_import.search(text):
                continue
            for node in ast.walk(ast.parse(text)):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                         [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                for name in names:
                    if any(name == old or name.startswith(old + ".") for old in MOVED):
                        found.append(f"{path.relative_to(root)}:{node.lineno} {name}")
    assert not found, "imports of a moved path:\n" + "\n".join(found)

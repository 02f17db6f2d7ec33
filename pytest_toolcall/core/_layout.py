"""Where modules come from: the built-in cases, and the module paths that moved.

**The cases** are always imported as ``pytest_toolcall.conformance``.

The cases are kept in the repository's top-level ``conformance/`` folder. A wheel installs that
folder inside this package (``pyproject.toml``: ``force-include``), so nothing claims the generic
top-level name ``conformance`` and a user's own ``conformance`` package never shadows the suite.
In a source checkout (an editable install, or ``PYTHONPATH`` pointing at the repository) the
folder sits beside this package instead; the finder below serves exactly that one name from it.

**Moved modules.** On 2026-11-27 the package's flat modules moved into one folder per layer
(docs/architecture.md). The paths that users write, those the docs and README named before the
move, keep working: ``MOVED`` maps each old path to its new one, and importing the old path
gives the very same module object (so ``isinstance``, ``monkeypatch`` and ``mock.patch`` on
either path agree). ``tests/test_public_api.py`` pins the table; the kit's own code and tests
use the new paths only (``tests/test_import_layers.py``).
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import types
from pathlib import Path

#: the import name of the built-in suite
NAME = "pytest_toolcall.conformance"

_PACKAGE = Path(__file__).resolve().parents[1]
#: the repository's ``conformance/`` folder in a source checkout
CHECKOUT_CASES = _PACKAGE.parent / "conformance"


class _CheckoutCases(importlib.abc.MetaPathFinder):
    """Serves ``pytest_toolcall.conformance`` from the checkout's ``conformance/`` folder."""

    def find_spec(self, fullname, path=None, target=None):  # noqa: D102 - importlib protocol
        if fullname != NAME:
            return None
        return importlib.util.spec_from_file_location(
            fullname, CHECKOUT_CASES / "__init__.py",
            submodule_search_locations=[str(CHECKOUT_CASES)],
        )


#: old module path -> new module path; a submodule of an old package path follows its package
MOVED: dict[str, str] = {
    "pytest_toolcall.bugs": "pytest_toolcall.cases.bugs",
    "pytest_toolcall.cassettes": "pytest_toolcall.output.cassettes",
    "pytest_toolcall.catalogue": "pytest_toolcall.cli.catalogue",
    "pytest_toolcall.checks": "pytest_toolcall.run.checks",
    "pytest_toolcall.contracts": "pytest_toolcall.core.contracts",
    "pytest_toolcall.dialects": "pytest_toolcall.providers.base",
    "pytest_toolcall.dialects.anthropic": "pytest_toolcall.providers.anthropic.dialect",
    "pytest_toolcall.dialects.azure_openai": "pytest_toolcall.providers.azure_openai.dialect",
    "pytest_toolcall.dialects.cerebras": "pytest_toolcall.providers.cerebras.dialect",
    "pytest_toolcall.dialects.deepseek": "pytest_toolcall.providers.deepseek.dialect",
    "pytest_toolcall.dialects.fireworks": "pytest_toolcall.providers.fireworks.dialect",
    "pytest_toolcall.dialects.gemini": "pytest_toolcall.providers.gemini.dialect",
    "pytest_toolcall.dialects.groq": "pytest_toolcall.providers.groq.dialect",
    "pytest_toolcall.dialects.llamacpp": "pytest_toolcall.providers.llamacpp.dialect",
    "pytest_toolcall.dialects.lmstudio": "pytest_toolcall.providers.lmstudio.dialect",
    "pytest_toolcall.dialects.mistral": "pytest_toolcall.providers.mistral.dialect",
    "pytest_toolcall.dialects.ollama": "pytest_toolcall.providers.ollama.dialect",
    "pytest_toolcall.dialects.openai": "pytest_toolcall.providers.openai.dialect",
    "pytest_toolcall.dialects.openai_responses":
        "pytest_toolcall.providers.openai_responses.dialect",
    "pytest_toolcall.dialects.openrouter": "pytest_toolcall.providers.openrouter.dialect",
    "pytest_toolcall.dialects.provider_errors": "pytest_toolcall.providers.errors",
    "pytest_toolcall.dialects.together": "pytest_toolcall.providers.together.dialect",
    "pytest_toolcall.dialects.vllm": "pytest_toolcall.providers.vllm.dialect",
    "pytest_toolcall.dialects.xai": "pytest_toolcall.providers.xai.dialect",
    "pytest_toolcall.dialects.zhipu": "pytest_toolcall.providers.zhipu.dialect",
    "pytest_toolcall.errors": "pytest_toolcall.core.errors",
    "pytest_toolcall.fake": "pytest_toolcall.providers.fake",
    "pytest_toolcall.fallback": "pytest_toolcall.core.fallback",
    "pytest_toolcall.foreign": "pytest_toolcall.run.foreign",
    "pytest_toolcall.live": "pytest_toolcall.run.live",
    "pytest_toolcall.loop": "pytest_toolcall.core.loop",
    "pytest_toolcall.looprun": "pytest_toolcall.run.looprun",
    "pytest_toolcall.model": "pytest_toolcall.core.model",
    "pytest_toolcall.mutation": "pytest_toolcall.cli.mutation",
    "pytest_toolcall.reference.anthropic": "pytest_toolcall.providers.anthropic.reference",
    "pytest_toolcall.reference.azure_openai": "pytest_toolcall.providers.azure_openai.reference",
    "pytest_toolcall.reference.cerebras": "pytest_toolcall.providers.cerebras.reference",
    "pytest_toolcall.reference.deepseek": "pytest_toolcall.providers.deepseek.reference",
    "pytest_toolcall.reference.fireworks": "pytest_toolcall.providers.fireworks.reference",
    "pytest_toolcall.reference.gemini": "pytest_toolcall.providers.gemini.reference",
    "pytest_toolcall.reference.groq": "pytest_toolcall.providers.groq.reference",
    "pytest_toolcall.reference.llamacpp": "pytest_toolcall.providers.llamacpp.reference",
    "pytest_toolcall.reference.lmstudio": "pytest_toolcall.providers.lmstudio.reference",
    "pytest_toolcall.reference.mistral": "pytest_toolcall.providers.mistral.reference",
    "pytest_toolcall.reference.ollama": "pytest_toolcall.providers.ollama.reference",
    "pytest_toolcall.reference.openai": "pytest_toolcall.providers.openai.reference",
    "pytest_toolcall.reference.openai_responses":
        "pytest_toolcall.providers.openai_responses.reference",
    "pytest_toolcall.reference.openrouter": "pytest_toolcall.providers.openrouter.reference",
    "pytest_toolcall.reference.together": "pytest_toolcall.providers.together.reference",
    "pytest_toolcall.reference.vllm": "pytest_toolcall.providers.vllm.reference",
    "pytest_toolcall.reference.xai": "pytest_toolcall.providers.xai.reference",
    "pytest_toolcall.reference.zhipu": "pytest_toolcall.providers.zhipu.reference",
    "pytest_toolcall.report": "pytest_toolcall.output.report",
    "pytest_toolcall.runner": "pytest_toolcall.run.runner",
    "pytest_toolcall.strategies": "pytest_toolcall.cases.strategies",
    "pytest_toolcall.tools": "pytest_toolcall.cases.tools",
}


def moved_to(fullname: str) -> str | None:
    """The new path of an old module path (or of a submodule of an old package path)."""
    head, dot, rest = fullname, "", ""
    while head:
        target = MOVED.get(head)
        if target is not None:
            return target + dot + rest
        head, dot, tail = head.rpartition(".")
        rest = tail + ("." + rest if rest else "")
        dot = "." if head else ""
    return None


class _MovedLoader(importlib.abc.Loader):
    """Hands out the module at its new path; runs nothing of its own."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec):  # noqa: D102 - importlib protocol
        module = importlib.import_module(self.target)
        self._spec = module.__spec__
        if spec.submodule_search_locations is not None and not hasattr(module, "__path__"):
            # an old package path whose contents now live in a plain module
            # (``pytest_toolcall.dialects``, now ``providers.base``): its submodules still have
            # old paths, so the import system needs a package to find them under. A stand-in
            # that reads every name from the module serves it.
            self._spec = None
            return _PackageOf(spec.name, module)
        return module

    def exec_module(self, module) -> None:  # noqa: D102 - importlib protocol
        # the import system set the old path's spec on the module: give it its own back
        if self._spec is not None:
            module.__spec__ = self._spec

    # ``python -m <old path>`` (runpy asks the loader for the code and whether it is a package)
    def get_code(self, fullname):  # noqa: D102
        spec = importlib.util.find_spec(self.target)
        return spec.loader.get_code(self.target)

    def is_package(self, fullname) -> bool:  # noqa: D102
        spec = importlib.util.find_spec(self.target)
        return spec.submodule_search_locations is not None


class _PackageOf(types.ModuleType):
    """An old package path whose names now live in one module: every name read from it."""

    def __init__(self, name: str, module: types.ModuleType) -> None:
        super().__init__(name, module.__doc__)
        self.__path__: list[str] = []
        self._module = module

    def __getattr__(self, name: str):
        return getattr(self._module, name)

    def __dir__(self) -> list[str]:
        return dir(self._module)


def _was_package(fullname: str) -> bool:
    return any(old.startswith(fullname + ".") for old in MOVED)


class _MovedModules(importlib.abc.MetaPathFinder):
    """Serves each old module path of ``MOVED`` as the module at its new path."""

    def find_spec(self, fullname, path=None, target=None):  # noqa: D102 - importlib protocol
        if not fullname.startswith("pytest_toolcall."):
            return None
        new = moved_to(fullname)
        if new is None or importlib.util.find_spec(new) is None:
            return None  # not a moved path, or nothing there: the usual ModuleNotFoundError
        return importlib.util.spec_from_loader(fullname, _MovedLoader(new),
                                               is_package=_was_package(fullname) or None)


def install() -> None:
    """Serve the moved module paths, and add the checkout finder when the cases are not
    installed inside the package."""
    if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
        sys.meta_path.insert(0, _MovedModules())
    if (_PACKAGE / "conformance" / "__init__.py").is_file():
        return  # a wheel: the ordinary import system finds them
    if not (CHECKOUT_CASES / "__init__.py").is_file():
        return  # nothing to serve; importing the suite then fails with ModuleNotFoundError
    if not any(isinstance(finder, _CheckoutCases) for finder in sys.meta_path):
        sys.meta_path.append(_CheckoutCases())

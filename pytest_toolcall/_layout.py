"""Where the built-in cases come from: always imported as ``pytest_toolcall.conformance``.

The cases are kept in the repository's top-level ``conformance/`` folder. A wheel installs that
folder inside this package (``pyproject.toml``: ``force-include``), so nothing claims the generic
top-level name ``conformance`` and a user's own ``conformance`` package never shadows the suite.
In a source checkout (an editable install, or ``PYTHONPATH`` pointing at the repository) the
folder sits beside this package instead; the finder below serves exactly that one name from it.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from pathlib import Path

#: the import name of the built-in suite
NAME = "pytest_toolcall.conformance"

_PACKAGE = Path(__file__).resolve().parent
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


def install() -> None:
    """Add the checkout finder when the cases are not installed inside the package."""
    if (_PACKAGE / "conformance" / "__init__.py").is_file():
        return  # a wheel: the ordinary import system finds them
    if not (CHECKOUT_CASES / "__init__.py").is_file():
        return  # nothing to serve; importing the suite then fails with ModuleNotFoundError
    if not any(isinstance(finder, _CheckoutCases) for finder in sys.meta_path):
        sys.meta_path.append(_CheckoutCases())

"""The shared conformance suite: cases as data, one module per family.

``wire``: what a non-streaming adapter sends and how it reads answers. ``stream``: tool calls in
fragments, cut anywhere, with the quirks of real servers. ``loop``: a tool loop under failure
(all-failure rounds, permanent failures, mixed batches, caps). ``history``: rebuilding
provider-ready messages from a stored history (orphans, dedupe, missing ids). A provider's own
cases live in its folder (``pytest_toolcall/providers/<folder>/cases.py``). The catalogue in
``docs/cases.md`` is generated from these modules.
"""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec

from pytest_toolcall.cases import Case
from pytest_toolcall.core._names import PROVIDERS

FAMILIES = ("wire", "stream", "errors", "loop", "history", "fallback")

#: the shared families' modules, in catalogue order; each has a ``CASES`` list
MODULES = ("wire", "messages", "stream", "stream_more", "errors", "loop", "history",
           "history_turns", "history_more", "fallback", "fallback_more")


def case_modules() -> list[str]:
    """Every module that holds built-in cases, in catalogue order: the shared families, then
    each built-in provider's own ``cases.py``, in ``core._names.PROVIDERS`` order."""
    return [*(f"{__name__}.{name}" for name in MODULES),
            *(module for module in (f"pytest_toolcall.providers.{p.replace('-', '_')}.cases"
                                    for p in PROVIDERS) if find_spec(module) is not None)]


def builtin_cases() -> list[Case]:
    """Every built-in case, module by module, each with the suite version that added it."""
    cases: list[Case] = []
    for module in case_modules():
        cases.extend(import_module(module).CASES)
    return with_since(cases)


def with_since(cases: list[Case]) -> list[Case]:
    """``cases``, each knowing the suite version that added it (``Case.since``, from
    :mod:`pytest_toolcall.cases.versions`), unless it names one itself."""
    from pytest_toolcall.cases.versions import added_in

    return [c if c.since is not None else c.model_copy(update={"since": added_in(c.id)})
            for c in cases]

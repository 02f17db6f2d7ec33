"""The shared conformance suite: cases as data, one module per family.

``wire``: what a non-streaming adapter sends and how it reads answers. ``stream``: tool calls in
fragments, cut anywhere, with the quirks of real servers. ``loop``: a tool loop under failure
(all-failure rounds, permanent failures, mixed batches, caps). ``history``: rebuilding
provider-ready messages from a stored history (orphans, dedupe, missing ids). Dialect-specific
cases live in a module named after their dialect. The catalogue in ``docs/cases.md`` is
generated from these modules.
"""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec

from pytest_toolcall.cases import Case

FAMILIES = ("wire", "stream", "errors", "loop", "history", "fallback")

#: every module that may hold built-in cases, in catalogue order; each has a ``CASES`` list
MODULES = ("wire", "messages", "stream", "errors", "loop", "history", "fallback",
           "openai_responses", "anthropic", "gemini", "ollama", "deepseek",
           "mistral", "openrouter", "zhipu", "azure_openai", "cerebras", "groq", "together",
           "lmstudio", "xai", "llamacpp", "vllm", "fireworks")


def builtin_cases() -> list[Case]:
    """Every built-in case, module by module."""
    cases: list[Case] = []
    for name in MODULES:
        if find_spec(f"{__name__}.{name}") is not None:
            cases.extend(import_module(f"{__name__}.{name}").CASES)
    return cases

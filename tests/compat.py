"""docs/compat.md: the compatibility matrix of every shimmed library and framework (issue 10).

Rendered from the pins of the kit's own tests, which run each library through every case of its
families and assert that exactly the pinned cases fail, with the pinned clause, at the installed
versions; the versions come from ``constraints.txt``, which the ``dev`` install uses. A row
here is therefore what CI measured, never a hand-written claim::

    PYTHONPATH=$PWD python -m tests.compat --write

``tests/test_compat.py`` keeps the page and the constraints in step with the pins.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parent.parent
COMPAT_MD = ROOT / "docs" / "compat.md"
CONSTRAINTS = ROOT / "constraints.txt"
COMMAND = "PYTHONPATH=$PWD python -m tests.compat --write"
_ISSUE = re.compile(r"https://github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull)/(\d+)")


def _chat() -> list[tuple[str, str, str, dict[str, tuple[str, str]]]]:
    """``(row, distribution, dialect, pins)`` of every chat library configuration."""
    from tests import (test_shim_langchain, test_shim_litellm, test_shim_pydantic_ai_models,
                       test_shims)
    from tests.shim_matrix import LIBRARIES

    rows = []
    for name, pins in test_shims.PINNED.items():
        base = name.split(" (")[0]
        dist = {"openai-responses": "openai"}.get(base, base)
        rows.append((f"shims.{LIBRARIES[base][0]}: {name}", dist, LIBRARIES[base][1], pins))
    for name, (_module, _factory, dialect) in test_shim_langchain.LIBRARIES.items():
        rows.append((f"shims.langchain: {name}", name, dialect,
                     test_shim_langchain.PINNED[name]))
    for route, (dialect, _factory) in test_shim_litellm.ROUTES.items():
        rows.append((f"shims.litellm: {route}/", "litellm", dialect,
                     test_shim_litellm.PINNED[route]))
    for name, (_module, dialect, _factory) in test_shim_pydantic_ai_models.MODELS.items():
        rows.append((f"shims.pydantic_ai: {name}", "pydantic-ai-slim", dialect,
                     test_shim_pydantic_ai_models.PINNED[name]))
    return rows


def _loops() -> list[tuple[str, str, dict[str, tuple[str, str]], dict[str, str]]]:
    """``(row, distribution, gaps, skips)`` of every framework loop."""
    from tests import (test_framework_loops, test_loop_shim_langgraph,
                       test_loop_shim_openai_agents, test_loop_shim_smolagents)

    lg_gaps = test_loop_shim_langgraph.GAPS
    return [
        ("shims.pydantic_ai_agent: Agent", "pydantic-ai-slim",
         {c: ("", why) for c, why in test_framework_loops.PYDANTIC_AI_GAPS.items()},
         test_framework_loops.PYDANTIC_AI_SKIPS),
        ("shims.openai_agents: Runner", "openai-agents",
         test_loop_shim_openai_agents.OPENAI_AGENTS_GAPS,
         test_loop_shim_openai_agents.OPENAI_AGENTS_SKIPS),
        ("shims.langchain_agent: create_agent", "langchain", lg_gaps,
         test_loop_shim_langgraph.SKIPS),
        ("shims.langgraph_react: create_react_agent", "langgraph", lg_gaps,
         test_loop_shim_langgraph.SKIPS),
        ("shims.smolagents: ToolCallingAgent", "smolagents",
         test_loop_shim_smolagents.SMOLAGENTS_GAPS, test_loop_shim_smolagents.SMOLAGENTS_SKIPS),
    ]


def pinned_versions() -> dict[str, str]:
    """``constraints.txt``: distribution -> the exact version the pins were confirmed with."""
    out = {}
    for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            out[name.strip().lower()] = version.strip()
    return out


def _issues(why: str) -> str:
    if why.startswith("KIT:"):  # a gap of the kit's own shim: never a verdict on the library
        return "KIT: a kit gap, not the library's (see its pin)"
    found = dict.fromkeys(f"[{repo.split('/')[1]}#{n}](https://github.com/{repo}/issues/{n})"
                          for repo, n in _ISSUE.findall(why))
    return ", ".join(found) or "no public issue found"


def _level(case: str, clause: str) -> str:
    """The level of a pinned failure (pytest_toolcall/cases/levels.py): must or should."""
    from pytest_toolcall.cases.levels import level_of

    return level_of(clause, case) if clause else "-"


def render() -> str:
    from pytest_toolcall.cases import default_registry
    from tests.shim_matrix import FAMILIES

    versions = pinned_versions()
    registry = default_registry()
    out = ["# Compatibility matrix", "",
           "What each shimmed client library and agent framework fails, at the versions in",
           "`constraints.txt` (the `dev` install uses them). Generated from the pins of the kit's",
           "own tests, which run every case of the library's families through its shim and assert",
           "that exactly these cases fail, with these clauses; every other case of its dialect",
           "passes, or skips by capability. A new release is a deliberate bump of",
           "`constraints.txt`: the pin tests then say what changed. Regenerate with",
           f"`{COMMAND}`.", "",
           "Declare a library's failures as known gaps (`toolcall_known_gaps`) in your project: "
           "the", "suite stays green and an upstream fix shows up as an unexpected pass. Why each "
           "case", "fails, with the evidence: [shims.md](shims.md) and [frameworks.md](frameworks.md).",
           "", "## Chat libraries (wire, stream and errors families)", "",
           "A *kit gap* is a case the kit's own shim cannot judge yet (its pin's reason starts "
           "with", "\"KIT:\"): it fails under the shim, but it is no verdict on the library.", "",
           "Each failure has its clause's level ([cases.md](cases.md#clause-levels)): *must* (a "
           "defect: it", "fails the run) or *should* (hardening: timeouts, retry hints, typed "
           "errors; reported", "apart, it fails the run only with `--toolcall-strict`).", "",
           "| shim: library | version | dialect | cases | failed | of them should |",
           "|---|---|---|---|---|---|"]
    chat = _chat()
    for row, dist, dialect, pins in chat:
        n = len(registry.select(FAMILIES, dialect=dialect))
        kit = sum(why.startswith("KIT:") for _clause, why in pins.values())
        failed = f"{len(pins) - kit} (+{kit} kit gaps)" if kit else f"{len(pins)}"
        should = sum(_level(case, clause) == "should" for case, (clause, _why) in pins.items())
        out.append(f"| {row} | {versions.get(dist, '?')} | `{dialect}` | {n} | {failed} | "
                   f"{should} |")
    out += ["", "### Failures", "",
            "A case marked *quirk* plays a stream shape OpenAI never sends: the library fails it",
            "only for an adapter that targets the services sending it (`Profile.compatible_with`,",
            "[providers.md](providers.md#what-openai-plays-and-the-quirks-of-the-others-compatible_with));",
            "under OpenAI's behaviour alone it is skipped.", "",
            "| shim: library | case | clause | level | public issue |", "|---|---|---|---|---|"]
    for row, _dist, _dialect, pins in chat:
        for case, (clause, why) in sorted(pins.items()):
            quirk = registry[case].quirk if case in {c.id for c in registry} else None
            where = ""
            if quirk:
                senders = registry[case].senders()
                where = (f" (quirk, sent by {', '.join(senders)})" if senders
                         else " (quirk, no registered sender)")
            out.append(f"| {row} | `{case}`{where} | `{clause}` | {_level(case, clause)} | "
                       f"{_issues(why)} |")
    out += ["", "## Agent frameworks' own loops (loop family, under each framework's profile)", "",
            "| shim: framework | version | gaps | skipped by its policy |", "|---|---|---|---|"]
    loops = _loops()
    for row, dist, gaps, skips in loops:
        out.append(f"| {row} | {versions.get(dist, '?')} | {len(gaps)} | "
                   f"{', '.join(f'`{c}`' for c in sorted(skips)) or 'none'} |")
    out += _risks(loops, registry)
    out += ["", "### Gaps", "", "| shim: framework | case | clause | level | public issue |",
            "|---|---|---|---|---|"]
    for row, _dist, gaps, _skips in loops:
        for case, (clause, why) in sorted(gaps.items()):
            out.append(f"| {row} | `{case}` | `{clause or '-'}` | {_level(case, clause)} | "
                       f"{_issues(why)} |")
    return "\n".join(out) + "\n"


def _risks(loops: list[tuple[str, str, Any, Any]], registry: Any) -> list[str]:
    """The declared risks of each framework's shipped profile (``core.risks``, issue 28): what
    its policy leaves the application open to, and the cases it turns off or has judged by the
    declaration. The skips above that are no risk are capabilities the framework has no hook
    for (a cancel hook, handoff tools) or caps it counts another way."""
    from pytest_toolcall import shims
    from pytest_toolcall.core.risks import declared_risks, turned_off

    out = ["", "### Declared risks", "",
           "A declared risk is a policy of the framework's (its profile says so, with the "
           "source)", "that lowers safety in production: the cases it turns off pass no "
           "verdict on it. The", "terminal summary and the reports list the declared risks of "
           "your own profile too", "([loops.md](loops.md#declared-risks)).", "",
           "| shim: framework | declaration | what it risks in production | cases it turns off |",
           "|---|---|---|---|"]
    loop_cases = registry.select(["loop.*"])
    for row, _dist, _gaps, _skips in loops:
        profile = shims.loop_profile(row.split(":")[0].removeprefix("shims."))
        for risk in declared_risks(profile, contract="loop"):
            cases = [f"`{c}`" for c in turned_off(risk, loop_cases)]
            cases += [f"`{c}` (judged by it)" for c in risk.judged]
            out.append(f"| {row} | `{risk.declaration}` | {risk.risk} | "
                       f"{', '.join(cases) or '-'} |")
    return out


if __name__ == "__main__":  # pragma: no cover - a tool for maintainers
    if sys.argv[1:] == ["--write"]:
        COMPAT_MD.write_text(render(), encoding="utf-8")
        print(f"wrote {COMPAT_MD.relative_to(ROOT)}")
    else:
        sys.stdout.write(render())

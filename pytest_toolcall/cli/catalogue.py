"""The case catalogue: ``docs/cases.md``, rendered from a case registry.

Regenerate the committed catalogue from the repository root with either of::

    python -m pytest_toolcall.cli.catalogue > docs/cases.md
    python -m pytest_toolcall.cli.catalogue --write

``--write`` also rewrites the generated part of ``docs/providers.md``, between two markers: each
service's section (the ``README.md`` of its folder) and the provider registry (every service, its
quirks and every fact with its source and date).
``tests/test_docs.py`` fails when a committed file and a fresh render differ.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from pathlib import Path

from pytest_toolcall.cases.bugs import SOURCES_NOTE
from pytest_toolcall.cases import SERVICE_QUIRKS, Case, Registry
from pytest_toolcall.providers import REGISTRY as PROVIDER_REGISTRY

__all__ = ["COMMAND", "DEFAULT_PATH", "PROVIDERS_PATH", "builtin_registry", "clauses_of", "main",
           "render", "render_providers", "with_providers_block"]

#: The command that regenerates the committed catalogue (quoted in failure messages).
COMMAND = "python -m pytest_toolcall.cli.catalogue --write"
#: Where ``--write`` puts the catalogue, relative to the current directory.
DEFAULT_PATH = Path("docs") / "cases.md"
#: The doc whose registry part ``--write`` regenerates, between these two markers.
PROVIDERS_PATH = Path("docs") / "providers.md"
BEGIN = ("<!-- registry: generated from pytest_toolcall/providers by `python -m "
         "pytest_toolcall.cli.catalogue --write`; do not edit by hand -->")
END = "<!-- registry: end -->"


def builtin_registry() -> Registry:
    """A fresh registry of the built-in cases only (never user cases added with ``register``)."""
    import pytest_toolcall.conformance as conformance

    registry = Registry()
    registry.extend(conformance.builtin_cases())
    return registry


def clauses_of(case: Case) -> list[str]:
    """The clause each check of ``case`` asserts (its ``.clause``), in order, without repeats."""
    found: list[str] = []
    for item in case.checks:
        clause = getattr(item, "clause", None) or getattr(item, "__name__", repr(item))
        if clause not in found:
            found.append(clause)
    return found


def _family_order(cases: Iterable[Case]) -> list[str]:
    try:
        import pytest_toolcall.conformance as conformance

        known: Sequence[str] = conformance.FAMILIES
    except ImportError:  # pragma: no cover - the package always ships conformance
        known = ()
    present = {c.family for c in cases}
    return [f for f in known if f in present] + sorted(present - set(known))


def _steps(case: Case) -> str:
    parts = []
    for step in case.steps:
        parts.append(step.via + (" (expects an error)" if step.expect == "error" else ""))
    return ", ".join(parts)


def _code_list(values: Iterable[str]) -> str:
    values = list(values)
    return ", ".join(f"`{v}`" for v in values) if values else "none"


def render(registry: Iterable[Case]) -> str:
    """The catalogue as Markdown: per family, each case's id, title, why, needs, dialects,
    steps and the clauses its checks assert. Deterministic: same registry, same text."""
    cases = sorted(registry, key=lambda c: c.id)
    families = _family_order(cases)
    out = [
        "# Case catalogue",
        "",
        f"<!-- Generated from the case registry. Do not edit by hand; run `{COMMAND}`. -->",
        "",
        f"{len(cases)} case{'s' if len(cases) != 1 else ''} in {len(families)} "
        f"famil{'y' if len(families) == 1 else 'ies'}. Run one case with "
        "`pytest --toolcall-provider=openai --toolcall-cases=<id>`.",
        "",
        "How to read an entry:",
        "",
        "- **needs**: what the profile must claim for the case to run (the case's `needs`, plus "
        "`stream` when a step streams). A case whose needs are not claimed is skipped, and the "
        "skip names the capability.",
        "- **dialects**: the wire formats the case runs for (`*` means all).",
        "- **steps**: how the runner calls the adapter in each step: `complete` or `stream`, on "
        "every interface the adapter has (sync and async).",
        "- **clauses**: the clause of each check in the case (its `.clause`), with its level "
        "(`must` or `should`, see [Clause levels](#clause-levels)). A failure can name "
        "a finer clause of the same check, e.g. `response.tool_calls.arguments` under "
        "`response.matches_script`. Every step also runs the basic checks (`request.*`, "
        "`adapter.raised`, `stream.done_last`, ...), which are not listed per case.",
        "- **since**: the suite version that added the case (`--toolcall-suite` pins one; "
        "[CHANGELOG.md](../CHANGELOG.md)).",
        "",
        SOURCES_NOTE,
        "",
    ]
    for family in families:
        members = [c for c in cases if c.family == family]
        out += [f"## {family} ({len(members)} case{'s' if len(members) != 1 else ''})", ""]
        out += ["| id | title |", "|---|---|"]
        out += [f"| `{c.id}` | {_cell(c.title)} |" for c in members]
        out.append("")
        for case in members:
            out += [
                f"### {case.id}",
                "",
                f"**{case.title}**",
                "",
                case.why,
                "",
                f"- needs: {_code_list(sorted(case.required_capabilities()))}",
                f"- dialects: {_code_list(case.dialects)}",
                *([_quirk_line(case)] if case.quirk else []),
                f"- steps: {_steps(case)}",
                f"- clauses: {_levelled(case)}",
                *([f"- since: {case.since}"] if case.since else []),
                "",
            ]
    out += render_levels()
    return "\n".join(out).rstrip("\n") + "\n"


def _levelled(case: Case) -> str:
    from pytest_toolcall.cases.levels import level_of

    clauses = clauses_of(case)
    return ", ".join(f"`{c}` ({level_of(c, case.id)})" for c in clauses) if clauses else "none"


def render_levels() -> list[str]:
    """The "Clause levels" section: each clause's level, what breaks in production, the source."""
    from pytest_toolcall.cases.levels import CLAUSES, IN_CASE, PREFIXES

    out = ["## Clause levels", "",
           "Every clause is `must` or `should` (`pytest_toolcall/cases/levels.py`). `must`: "
           "breaking it returns a wrong result as a success, loses data, crashes, leaks or sends "
           "a request the provider refuses; a defect, and it fails the run. `should`: what breaks "
           "is the hardening production needs around a correct result (timeouts, retry hints, "
           "typed errors, the words of an error); it is reported apart (the status "
           "`hardening`) and fails the run only with `--toolcall-strict` (ini "
           "`toolcall_strict`). A clause of a project's own case that is not in this table is "
           "`must`.", "",
           "| clause | level | what breaks in production | source |", "|---|---|---|---|"]
    rows = sorted(CLAUSES.items(), key=lambda kv: (kv[1].level != "should", kv[0]))
    out += [f"| `{clause}` | {entry.level} | {_cell(entry.why)} | {_cell(entry.source)} |"
            for clause, entry in rows]
    out += [f"| `{prefix}<rule>` | {entry.level} | {_cell(entry.why)} | {_cell(entry.source)} |"
            for prefix, entry in sorted(PREFIXES.items())]
    out += ["", "A clause that names a defect in most cases can name missing hardening in one:",
            "", "| case | clause | level there | why |", "|---|---|---|---|"]
    out += [f"| `{case_id}` | `{clause}` | {entry.level} | {_cell(entry.why)} |"
            for (case_id, clause), entry in sorted(IN_CASE.items())]
    return [*out, ""]


def _quirk_line(case: Case) -> str:
    senders = case.senders()
    if not senders:
        return (f"- quirk: `{case.quirk}`, sent by no registered service (reported gateways); "
                "it runs for a profile with `compatible_with={'*'}`")
    return (f"- quirk: `{case.quirk}`, sent by {_code_list(senders)}; under the bare wires it "
            "runs for a profile whose `compatible_with` names one of them (or `'*'`)")


def service_sections() -> list[str]:
    """Each service's own section of docs/providers.md: the ``README.md`` of its folder
    (``pytest_toolcall/providers/<folder>/README.md``, written for docs/: its links are relative
    to docs/), in ``--toolcall-provider=all`` order."""
    import pytest_toolcall.providers as providers

    home = Path(providers.__file__).parent
    out = []
    for name in PROVIDER_REGISTRY:
        readme = home / providers.folder(name) / "README.md"
        if readme.is_file():
            out += [readme.read_text(encoding="utf-8").strip(), ""]
    return out


def render_providers(registry: Registry | None = None) -> str:
    """The generated part of docs/providers.md: every provider, the quirks each sends, and every
    fact with its source and the date it was confirmed (``not confirmed`` otherwise)."""
    cases = list(registry if registry is not None else builtin_registry())
    out = [BEGIN, "", *service_sections(), "## The registry (generated)", "",
           "Every provider the kit plays, from the `facts.py` of each "
           "`pytest_toolcall/providers/` folder. A fact "
           "without a source and a date is *not confirmed*: the fake plays OpenAI's behaviour "
           "(or the wire's) for it.", "",
           "| provider | wire | family | cases of its own | stream quirks it sends | facts "
           "(confirmed / not) |", "|---|---|---|---|---|---|"]
    for name, provider in PROVIDER_REGISTRY.items():
        own = sum(1 for c in cases if name in c.dialects and "*" not in c.dialects
                  and c.quirk is None and len(c.dialects) == 1)
        confirmed = sum(1 for f in provider.facts.values() if f.is_confirmed)
        out.append(f"| `{name}` | `{provider.dialect}` | {provider.family} | {own} | "
                   f"{_code_list(sorted(provider.quirks)) if provider.quirks else '-'} | "
                   f"{confirmed} / {len(provider.facts) - confirmed} |")
    out += ["", "### Stream quirks and who sends them", "",
            "A quirk case runs in the runs of the services that send its quirk, and under the "
            "bare `openai` wire for a profile whose `compatible_with` names one of them (or "
            "`'*'`).", "",
            "| quirk | what it is | quirk cases | sent by (source, confirmed) |",
            "|---|---|---|---|"]
    for quirk, what in SERVICE_QUIRKS.items():
        senders = [(n, p.quirks[quirk]) for n, p in PROVIDER_REGISTRY.items() if quirk in p.quirks]
        quirk_cases = [c.id for c in cases if c.quirk == quirk]
        if not senders and not quirk_cases:
            continue
        who = "<br>".join(f"`{n}`: {_cell(str(f.source))} ({f.confirmed})" for n, f in senders)
        out.append(f"| `{quirk}` | {_cell(what)} | {_code_list(quirk_cases) or '-'} | "
                   f"{who or _NO_SENDER} |")
    out += rules_table()
    out += ["", "### Every fact, with its source", ""]
    for name, provider in PROVIDER_REGISTRY.items():
        if not provider.facts:
            continue
        out += [f"<details><summary><code>{name}</code>: {len(provider.facts)} facts</summary>",
                "", "| fact | value | source | confirmed |", "|---|---|---|---|"]
        for key, fact in provider.facts.items():
            out.append(f"| `{key}` | {_cell(_one_line(fact.value))} | "
                       f"{_cell(_one_line(fact.source)) if fact.source else '-'} | "
                       f"{fact.confirmed if fact.is_confirmed else 'not confirmed'} |")
        out += ["", "</details>", ""]
    out += [END]
    return "\n".join(out) + "\n"


def rules_table() -> list[str]:
    """Per service on the openai wire, each of OpenAI's request rules (and, for a service's own
    Responses route, each of OpenAI's Responses rules): confirmed (the fact that shows it, its
    source and date: the fake refuses), lenient (the fake takes what OpenAI refuses, and why),
    unavoidable (refused on every service: nothing to answer) or unconfirmed (the fake takes it
    and the kit reports the breach as hardening, issue 30)."""
    from pytest_toolcall.providers.base import get_dialect
    from pytest_toolcall.providers.openai.dialect import (OPENAI_RULES, UNAVOIDABLE_RULES,
                                                          OpenAIChat)
    from pytest_toolcall.providers.openai_responses.dialect import (
        RESPONSES_RULES, UNAVOIDABLE_RESPONSES_RULES, OpenAIResponses)

    out = ["", "### OpenAI's request rules, service by service", "",
           "What the fake of each service on the openai wire does with each request rule "
           "OpenAI's fake enforces (and, on a service's own `/responses` route, each rule of "
           "OpenAI's Responses fake). **confirmed**: the service is shown to refuse it (the "
           "fact, its source and date), and its fake refuses, in the service's error shape. "
           "**lenient**: the service is shown to take it, and so does its fake. **unavoidable**: "
           "every fake refuses it, since there is nothing to answer. *unconfirmed*: neither is "
           "shown, so the fake takes the request and the kit reports the breach as hardening "
           "(clause `request.unconfirmed`, a `should`: it fails the run only under "
           "`--toolcall-strict`), naming OpenAI's rule; `openai` (and `openai-responses`) "
           "itself refuses all of them.", ""]
    for name, provider in PROVIDER_REGISTRY.items():
        dialect = get_dialect(name)
        if name == "openai" or not isinstance(dialect, OpenAIChat):
            continue
        out += _rule_rows(name, provider, dialect, OPENAI_RULES, UNAVOIDABLE_RULES)
        for suffix, cls in dialect.other_routes.items():
            if issubclass(cls, OpenAIResponses):
                out += _rule_rows(f"{name} {suffix}", provider, dialect.dialect_for(suffix),
                                  RESPONSES_RULES, UNAVOIDABLE_RESPONSES_RULES)
    return out


def _rule_rows(title: str, provider: Any, dialect: Any, rules: Mapping[str, str],
               unavoidable: Mapping[str, str]) -> list[str]:
    """One service route's table of ``rules`` (rule id -> what OpenAI refuses)."""
    lenient, confirmed = dialect.lenient_rules, dialect.confirmed_rules
    states = [_rule_state(rule, lenient, confirmed, unavoidable) for rule in rules]
    counts = {k: states.count(k) for k in ("confirmed", "lenient", "unavoidable",
                                             "unconfirmed")}
    out = [f"<details><summary><code>{title}</code>: {counts['confirmed']} confirmed, "
           f"{counts['lenient']} lenient, {counts['unavoidable']} unavoidable, "
           f"{counts['unconfirmed']} unconfirmed</summary>", "",
           "| rule | OpenAI refuses | here |", "|---|---|---|"]
    for (rule, what), state in zip(rules.items(), states):
        if state == "lenient":
            here = f"**lenient**: {_cell(lenient[rule])}"
        elif state == "confirmed":
            fact = provider.facts[confirmed[rule]]
            here = (f"**confirmed**: fact `{confirmed[rule]}` "
                    f"({_cell(_one_line(fact.source))}, {fact.confirmed})")
        elif state == "unavoidable":
            here = f"**unavoidable**: {_cell(unavoidable[rule])}"
        else:
            here = "*unconfirmed*: taken, reported as hardening"
        out.append(f"| `{rule}` | {_cell(what)} | {here} |")
    return out + ["", "</details>"]


def _rule_state(rule: str, lenient: Mapping[str, str], confirmed: Mapping[str, str],
                unavoidable: Mapping[str, str] | None = None) -> str:
    """What a service's fake does with OpenAI's ``rule``: lenient, confirmed, unavoidable or
    unconfirmed (``unavoidable``: the wire's unavoidable rules, Chat Completions' by
    default)."""
    if unavoidable is None:
        from pytest_toolcall.providers.openai.dialect import UNAVOIDABLE_RULES as unavoidable

    if rule in lenient:
        return "lenient"
    if rule in confirmed:
        return "confirmed"
    return "unavoidable" if rule in unavoidable else "unconfirmed"


_NO_SENDER = "no registered service (reported gateways): it runs for `compatible_with={'*'}`"


def with_providers_block(text: str, block: str) -> str:
    """``text`` (docs/providers.md) with its generated part replaced by ``block``."""
    if BEGIN not in text or END not in text:
        raise ValueError(f"{PROVIDERS_PATH.as_posix()} has no generated registry part: put the "
                         f"two markers in it, {BEGIN!r} and {END!r}")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + block.rstrip("\n") + tail


def _one_line(value: object) -> str:
    return " ".join(str(value).split())


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_toolcall.cli.catalogue",
        description="Print the case catalogue (docs/cases.md) rendered from the built-in cases.")
    parser.add_argument("--write", action="store_true",
                        help=f"write it to {DEFAULT_PATH.as_posix()} (run from the repository "
                             "root) instead of printing it")
    parser.add_argument("--check", action="store_true",
                        help=f"exit 1 when {DEFAULT_PATH.as_posix()} differs from a fresh render")
    args = parser.parse_args(argv)
    text = render(builtin_registry())
    if args.write or args.check:
        if not DEFAULT_PATH.parent.is_dir():
            print(f"error: no {DEFAULT_PATH.parent}/ directory in {Path.cwd()}; run this from the "
                  "repository root", file=sys.stderr)
            return 2
        # a checkout without docs/providers.md (a project's own docs/) has only the catalogue
        providers_now = providers_text = (PROVIDERS_PATH.read_text(encoding="utf-8")
                                          if PROVIDERS_PATH.exists() else "")
        if providers_now:
            try:
                providers_text = with_providers_block(providers_now, render_providers())
            except ValueError as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 2
        if args.check:
            current = DEFAULT_PATH.read_text(encoding="utf-8") if DEFAULT_PATH.exists() else ""
            stale = [p.as_posix() for p, now, fresh in ((DEFAULT_PATH, current, text),
                                                        (PROVIDERS_PATH, providers_now,
                                                         providers_text)) if now != fresh]
            if stale:
                print(f"{' and '.join(stale)} out of date; run: {COMMAND}", file=sys.stderr)
                return 1
            return 0
        if providers_now:
            PROVIDERS_PATH.write_bytes(providers_text.encode("utf-8"))
        DEFAULT_PATH.write_bytes(text.encode("utf-8"))
        print(f"wrote {DEFAULT_PATH.as_posix()} ({len(list(builtin_registry()))} cases)",
              file=sys.stderr)
        return 0
    # bytes, so the file is UTF-8 with \n line ends whatever the locale and platform
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

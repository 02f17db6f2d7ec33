"""CI reports of a conformance run: the JSON document, the Markdown summary and the badge.

No pytest here: :mod:`pytest_toolcall.plugins.report` turns pytest's test reports into
:class:`Phase` objects (plain data, the same on the pytest-xdist controller as in a serial run)
and this module merges them into one :class:`CaseRecord` per suite item, computes the gate and
renders the files. The JSON document is described by ``report.schema.json`` next to this module
and in ``docs/report-schema.md``.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from pytest_toolcall.core.redact import clip

__all__ = [
    "BADGE_FILE", "OUTCOMES", "REPORT_FILE", "SCHEMA", "SUMMARY_FILE", "VERSION", "CaseRecord",
    "Gate", "Phase", "RunInfo", "badge", "build_document", "evaluate_gate", "failure_lines",
    "load_schema", "merge_phases", "redact", "render_markdown", "write_reports",
]

SCHEMA = "pytest-toolcall/report"
#: 2 (issue 28, 2026-11-28): the ``hardening`` outcome, each case's ``level`` and ``since``, the
#: run's ``suite``; version 1 documents had none of them
VERSION = 2
REPORT_FILE = "toolcall-report.json"
SUMMARY_FILE = "toolcall-summary.md"
BADGE_FILE = "toolcall-badge.json"
#: ``kit_error``: the kit could not decode or run the case (a KitError); never a verdict on the
#: implementation, left out of the pass rate, the gate and the badge's count (issue 14)
#: ``hardening``: a ``should`` clause broke outside strict mode (hardening, not a defect): it
#: counts as passing in the pass rate and the gate, and is listed apart (issue 28)
OUTCOMES = ("passed", "failed", "hardening", "error", "skipped", "xfailed", "xpassed",
            "kit_error")
#: the outcomes that count as passing in the pass rate, the gate and the badge
PASSING = ("passed", "xpassed", "hardening")
#: the modules of the built-in reference implementations: the contract references
#: (``pytest_toolcall.reference.*``) and each provider's reference adapter
#: (``pytest_toolcall.providers.<folder>.reference``)
REFERENCE_MODULES = re.compile(r"^pytest_toolcall\.(reference|providers\.[a-z0-9_]+\.reference)\.")
_MAX_MESSAGE_LINES = 6
_MAX_LINE = 300
_XPASS_STRICT = "[XPASS(strict)] "
_GAP_PREFIX = "known gap: "


# -- input: one phase (setup/call/teardown) of one suite item ------------------------------------
@dataclass(frozen=True)
class Phase:
    """What the report needs from one pytest ``TestReport`` of a suite item.

    ``outcome`` is pytest's ('passed', 'failed', 'skipped'); ``wasxfail`` is the xfail reason
    when pytest set one; ``text`` is the failure text (a plain string) or the skip reason;
    ``properties`` are the report's ``user_properties``.
    """

    nodeid: str
    when: str
    outcome: str
    properties: Mapping[str, Any]
    duration: float = 0.0
    wasxfail: str | None = None
    text: str | None = None


@dataclass
class CaseRecord:
    """One suite item: a case against one provider, with its verdict."""

    id: str
    nodeid: str
    contract: str
    family: str
    provider: str
    outcome: str
    clause: str | None = None
    #: the broken clause's level, "must" or "should" (with ``clause``)
    level: str | None = None
    message: str | None = None
    hint: str | None = None
    known_gap: str | None = None
    duration: float = 0.0
    subject: dict[str, Any] | None = None
    #: the suite version that added the case (``None``: a project's own case)
    since: str | None = None
    #: the ids of the declared risks of the item's profile (``core.risks``), and the one that
    #: turned this case off, when one did (issue 28)
    declared_risks: list[str] = field(default_factory=list)
    declared_risk: str | None = None

    @property
    def counts_as_passing(self) -> bool:
        return self.outcome in PASSING


def failure_lines(text: str | None) -> str | None:
    """The first lines of a failure, without the trace ladder, the hint line or a traceback."""
    if not text:
        return None
    kept: list[str] = []
    for line in text.strip("\n").splitlines():
        stripped = line.strip()
        if stripped.startswith(("trace (where", "Traceback (most recent call last)",
                                "the implementation's traceback")):
            break
        if stripped.startswith("hint:"):
            continue  # reported apart, as the fix line
        kept.append(clip(line.rstrip(), _MAX_LINE))  # masked before the cut
        if len(kept) == _MAX_MESSAGE_LINES:
            break
    return "\n".join(kept) or None


def merge_phases(phases: Iterable[Phase]) -> list[CaseRecord]:
    """One record per suite item, in a stable order (case id, then provider)."""
    by_node: dict[str, list[Phase]] = {}
    for phase in phases:
        by_node.setdefault(phase.nodeid, []).append(phase)
    records = [_record(nodeid, group) for nodeid, group in by_node.items()]
    return sorted(records, key=lambda r: (r.id, r.provider, r.nodeid))


def _record(nodeid: str, phases: list[Phase]) -> CaseRecord:
    props: dict[str, Any] = {}
    for phase in phases:
        props.update(phase.properties)
    outcome, decisive = _outcome(phases)
    if outcome == "failed" and props.get("toolcall_kit_error"):
        outcome = "kit_error"
    elif outcome == "failed" and props.get("toolcall_not_run"):
        outcome = "error"  # the kit could not run it (a ToolcallError in the call): no verdict
    elif outcome == "passed" and props.get("toolcall_hardening"):
        outcome = "hardening"  # a should clause broke; strict mode would have failed it
    record = CaseRecord(
        id=str(props.get("toolcall_case", nodeid)), nodeid=nodeid,
        contract=str(props.get("toolcall_contract", "chat")),
        family=str(props.get("toolcall_family", "")),
        provider=str(props.get("toolcall_provider", "")), outcome=outcome,
        duration=round(sum(p.duration for p in phases), 6),
        subject=_subject(props.get("toolcall_subject")),
        declared_risks=[r for r in str(props.get("toolcall_declared_risks") or "").split(",")
                        if r],
        declared_risk=_opt(props.get("toolcall_declared_risk")),
        since=_opt(props.get("toolcall_since")))
    if decisive is None:
        return record
    if outcome in ("failed", "hardening", "error", "xfailed"):
        record.clause = _opt(props.get("toolcall_clause"))
        record.level = _opt(props.get("toolcall_level")) if record.clause else None
        record.hint = _opt(props.get("toolcall_hint"))
    if outcome == "skipped":
        record.message = _opt(decisive.text)
    elif decisive.text and decisive.text.startswith(_XPASS_STRICT):
        record.message = ("declared as a known gap, but it passes: remove the declaration "
                          "(toolcall_known_gaps, the toolcall_known_gap marker or the profile)")
    elif outcome != "passed":  # hardening included: its text is on the passed report
        record.message = failure_lines(decisive.text)
        if outcome == "kit_error" and record.message is None:
            record.message = "the kit could not run this case (a kit bug, not a verdict)"
    gap = decisive.wasxfail
    if gap is None and decisive.text and decisive.text.startswith(_XPASS_STRICT):
        gap = decisive.text[len(_XPASS_STRICT):]
    if gap is not None and outcome in ("xfailed", "xpassed"):
        record.known_gap = gap.removeprefix(_GAP_PREFIX) or "declared known gap"
    return record


def _outcome(phases: list[Phase]) -> tuple[str, Phase | None]:
    """The item's outcome as pytest counts it, and the phase that decided it."""
    by_when = {p.when: p for p in phases}
    setup, call, teardown = by_when.get("setup"), by_when.get("call"), by_when.get("teardown")
    if setup is not None and setup.outcome == "failed":
        return "error", setup
    if setup is not None and setup.outcome == "skipped":
        return ("xfailed" if setup.wasxfail is not None else "skipped"), setup
    if call is not None:
        if call.outcome == "passed":
            verdict = "xpassed" if call.wasxfail is not None else "passed"
        elif call.outcome == "skipped":
            verdict = "xfailed" if call.wasxfail is not None else "skipped"
        elif call.text and call.text.startswith(_XPASS_STRICT):
            verdict = "xpassed"  # strict: pytest fails the run, the record says why
        else:
            verdict = "failed"
        if verdict in ("passed", "xpassed") and teardown is not None \
                and teardown.outcome == "failed":
            return "error", teardown
        return verdict, call
    return "error", teardown  # no call phase: interrupted, or only a teardown arrived


def _subject(value: Any) -> dict[str, Any] | None:
    if not value:
        return None
    kind, sep, name = str(value).partition(": ")
    if not sep:
        kind, name = "subject", str(value)
    return {"kind": kind, "name": name, "reference": REFERENCE_MODULES.match(name) is not None}


def _opt(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)


# -- secrets ------------------------------------------------------------------------------------
def secrets(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Secret values from the environment -> variable name (see
    :mod:`pytest_toolcall.core.redact`)."""
    from pytest_toolcall.core.redact import env_secrets

    return {value: label.removeprefix("$") for value, label in env_secrets(environ).items()}


def redact(text: str | None, environ: Mapping[str, str] | None = None) -> str | None:
    """``text`` with every secret the kit knows masked (:func:`pytest_toolcall.core.redact.mask`):
    environment secrets as ``[redacted $NAME]``, the planted tool secret, registered keys."""
    from pytest_toolcall.core.redact import mask

    return mask(text, environ)  # type: ignore[no-any-return]


def redact_records(records: Iterable[CaseRecord],
                   environ: Mapping[str, str] | None = None) -> list[CaseRecord]:
    out = []
    for record in records:
        for name in ("message", "hint", "known_gap", "clause"):
            setattr(record, name, redact(getattr(record, name), environ))
        out.append(record)
    return out


# -- the gate -----------------------------------------------------------------------------------
@dataclass
class Gate:
    """``--toolcall-min-pass-rate`` over the gated families' cases."""

    min_pass_rate: float
    families: tuple[str, ...] | None = None
    counted: dict[str, int] = field(default_factory=dict)
    rate: float | None = None
    passed: bool = True
    reason: str = ""
    missing_families: tuple[str, ...] = ()

    def line(self) -> str:
        """One terminal line: the verdict, the rate and the threshold."""
        return f"pytest-toolcall gate {'passed' if self.passed else 'FAILED'}: {self.reason}"


def _pct(rate: float) -> str:
    return f"{math.floor(rate * 1000) / 10:.1f}%"


def evaluate_gate(records: Sequence[CaseRecord], min_pass_rate: float,
                  families: Sequence[str] | None = None) -> Gate:
    """Pass rate = (passed + xpassed + hardening) / (passed + xpassed + hardening + failed +
    error) over the gated cases.

    Known gaps (xfailed) and skipped cases are not counted. A ``hardening`` case (a ``should``
    clause broke outside strict mode) counts as passing, as it does not fail the run; in strict
    mode it is ``failed``. A gate that counts no case, or that names a family no case of the run
    belongs to, fails: it could not check anything.
    """
    gated = tuple(families) if families else None
    pool = [r for r in records if gated is None or r.family in gated]
    counts = Counter(r.outcome for r in pool)
    passing = sum(counts[o] for o in PASSING)
    judged = passing + counts["failed"] + counts["error"]
    gate = Gate(min_pass_rate=min_pass_rate, families=gated,
                counted={"passing": passing, "hardening": counts["hardening"],
                         "failed": counts["failed"], "error": counts["error"],
                         "judged": judged})
    where = f"in families {', '.join(gated)}" if gated else "over all families"
    threshold = f"--toolcall-min-pass-rate={min_pass_rate:g} ({_pct(min_pass_rate)})"
    present = {r.family for r in records}
    if gated:
        gate.missing_families = tuple(f for f in gated if f not in present)
    if gate.missing_families:
        gate.passed = False
        gate.reason = (f"--toolcall-gate-families names {', '.join(gate.missing_families)}, but "
                       f"no case of this run is in "
                       f"{'that family' if len(gate.missing_families) == 1 else 'those families'}"
                       f" (families run: {', '.join(sorted(present)) or 'none'}); fix the name "
                       "or the --toolcall-cases selection")
        return gate
    if judged == 0:
        gate.passed = False
        gate.reason = (f"no case {where} passed or failed (all skipped, known gaps or "
                       f"deselected), so {threshold} checked nothing")
        return gate
    gate.rate = passing / judged
    gate.passed = gate.rate >= min_pass_rate
    relation = "meets" if gate.passed else "is below"
    gate.reason = (f"pass rate {_pct(gate.rate)} ({passing}/{judged} {where}) {relation} "
                   f"{threshold}")
    return gate


# -- the documents ------------------------------------------------------------------------------
@dataclass
class RunInfo:
    """The run: what was asked for, with which versions, and when."""

    providers: list[str]
    selection: dict[str, Any]
    settings: dict[str, Any]
    versions: dict[str, str]
    start: str
    end: str
    duration: float
    #: why the run stopped early (an interrupt); None when every selected case ran
    incomplete: str | None = None
    #: the suite that ran: ``version``, ``pinned`` (a --toolcall-suite pin), ``preview``
    #: (--toolcall-preview), ``strict`` (--toolcall-strict)
    suite: dict[str, Any] = field(default_factory=dict)


def totals(records: Sequence[CaseRecord]) -> dict[str, Any]:
    counts = Counter(r.outcome for r in records)
    out: dict[str, Any] = {"cases": len(records)}
    out.update({o: counts[o] for o in OUTCOMES})
    passing = sum(counts[o] for o in PASSING)
    judged = passing + counts["failed"] + counts["error"]
    out["pass_rate"] = round(passing / judged, 6) if judged else None
    return out


def build_document(run: RunInfo, records: Sequence[CaseRecord],
                   gate: Gate | None) -> dict[str, Any]:
    """The ``toolcall-report.json`` document (schema ``pytest-toolcall/report``, version 2)."""
    gate_doc = None
    if gate is not None:
        gate_doc = {"min_pass_rate": gate.min_pass_rate,
                    "families": list(gate.families) if gate.families else None,
                    "rate": None if gate.rate is None else round(gate.rate, 6),
                    "counted": gate.counted, "passed": gate.passed, "reason": gate.reason}
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "run": asdict(run),
        "totals": totals(records),
        "gate": gate_doc,
        "known_gaps": [{"id": r.id, "provider": r.provider, "outcome": r.outcome,
                        "reason": r.known_gap} for r in records if r.known_gap is not None],
        "declared_risks": risk_section(records),
        "cases": [asdict(r) for r in records],
    }


def risk_section(records: Sequence[CaseRecord]) -> list[dict[str, Any]]:
    """The run's declared risks (``core.risks``), one entry per risk some item's profile
    declares: what it risks in production, the subjects and providers that declare it, the
    cases it turned off (skipped) and those it had judged by the declaration instead."""
    from pytest_toolcall.core.risks import RISKS

    out = []
    for risk in RISKS:
        mine = [r for r in records if risk.id in r.declared_risks]
        if not mine:
            continue
        out.append({
            "id": risk.id, "declaration": risk.declaration, "risk": risk.risk,
            "capability": risk.capability,
            "subjects": sorted({r.subject["name"] for r in mine if r.subject}),
            "providers": sorted({r.provider for r in mine}),
            "skipped": sorted({r.id for r in mine if r.declared_risk == risk.id}),
            "judged": sorted({r.id for r in mine if r.id in risk.judged}),
        })
    return out


def _render_risks(document: Mapping[str, Any]) -> list[str]:
    """The Markdown section of the run's declared risks (empty when there are none)."""
    risks = document.get("declared_risks") or []
    if not risks:
        return []
    out = ["", f"### Declared risks ({len(risks)}: the profile turns these checks off; no "
               "verdict covers them)", ""]
    for risk in risks:
        who = ", ".join(_code(s) for s in risk["subjects"]) or "the subject under test"
        out.append(f"- ⚠️ {_code(risk['declaration'])} ({who}): {_plain(risk['risk'])}")
        if risk["skipped"]:
            out.append("  - skipped: " + ", ".join(_code(c) for c in risk["skipped"]))
        if risk["judged"]:
            out.append("  - judged by the declaration: "
                       + ", ".join(_code(c) for c in risk["judged"]))
    return out


def badge(records: Sequence[CaseRecord], label: str = "tool calling") -> dict[str, Any]:
    """A shields.io endpoint badge: "58/60 passing"; known gaps count as not passing here, and
    hardening (a broken ``should`` clause) as passing, named apart: "60/60 passing, 2 should"."""
    counts = Counter(r.outcome for r in records)
    passing = sum(counts[o] for o in PASSING)
    run = passing + counts["failed"] + counts["error"] + counts["xfailed"]
    kit = counts["kit_error"]
    if run == 0:
        return {"schemaVersion": 1, "label": label,
                "message": f"{kit} kit errors" if kit else "no cases run", "color": "lightgrey"}
    rate = passing / run
    if counts["failed"] or counts["error"]:
        color = "red"
    elif rate >= 1 and not counts["hardening"]:
        color = "brightgreen"
    elif rate >= 1:
        color = "green"  # no defect; hardening left to do
    elif rate >= 0.95:
        color = "green"
    elif rate >= 0.9:
        color = "yellowgreen"
    elif rate >= 0.75:
        color = "yellow"
    else:
        color = "orange"
    # kit errors are not the implementation's: shown apart, never in the count
    extra = f" ({kit} kit error{'s' * (kit != 1)})" if kit else ""
    should = f", {counts['hardening']} should" if counts["hardening"] else ""
    return {"schemaVersion": 1, "label": label,
            "message": f"{passing}/{run} passing{should}{extra}", "color": color}


def _cell(records: Sequence[CaseRecord]) -> str:
    if not records:
        return "—"
    counts = Counter(r.outcome for r in records)
    passing = sum(counts[o] for o in PASSING)
    run = passing + counts["failed"] + counts["error"] + counts["xfailed"]
    icon = "❌" if counts["failed"] or counts["error"] else ("⚠️" if counts["xfailed"] else "✅")
    extras = [f"{counts['hardening']} should" if counts["hardening"] else "",
              f"{counts['xfailed']} known gap{'s' * (counts['xfailed'] != 1)}"
              if counts["xfailed"] else "",
              f"{counts['kit_error']} kit error{'s' * (counts['kit_error'] != 1)}"
              if counts["kit_error"] else "",
              f"{counts['skipped']} skipped" if counts["skipped"] else ""]
    text = f"{icon} {passing}/{run}" if run else "⏭️ 0/0"
    return text + "".join(f" · {e}" for e in extras if e)


def _longest_backtick_run(text: str) -> int:
    longest = current = 0
    for ch in text:
        current = current + 1 if ch == "`" else 0
        longest = max(longest, current)
    return longest


def _code(text: str) -> str:
    """``text`` as inline code that its own backticks cannot break."""
    fence = "`" * (_longest_backtick_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _block(text: str, indent: str = "  ") -> list[str]:
    """A fenced code block safe for any content (the fence is longer than any backtick run)."""
    fence = "`" * max(3, _longest_backtick_run(text) + 1)
    return [f"{indent}{fence}text", *(f"{indent}{line}" for line in text.splitlines()),
            f"{indent}{fence}"]


def _plain(text: str) -> str:
    """One line of prose for a Markdown list item or table cell."""
    return " ".join(text.split()).replace("|", "\\|").replace("<", "&lt;")


def render_markdown(document: Mapping[str, Any]) -> str:
    """The Markdown summary (for ``$GITHUB_STEP_SUMMARY``) of a report document."""
    cases = [CaseRecord(**c) for c in document["cases"]]
    run, tot, gate = document["run"], document["totals"], document["gate"]
    providers = list(run["providers"]) or sorted({c.provider for c in cases})
    for extra in sorted({c.provider for c in cases} - set(providers)):
        providers.append(extra)
    badge_doc = badge(cases)
    out = ["## pytest-toolcall conformance", ""]
    parts = [f"{tot[o]} {o}" for o in OUTCOMES if tot[o]]
    out.append(f"**{badge_doc['message']}** ({', '.join(parts) or 'no cases'}) · providers: "
               f"{', '.join(providers) or 'none'}")
    if run.get("incomplete"):
        out += ["", f"⚠️ **incomplete run**: {_plain(run['incomplete'])}"]
    if gate is not None:
        out += ["", (f"{'✅' if gate['passed'] else '❌'} **gate "
                    f"{'passed' if gate['passed'] else 'failed'}**: {_plain(gate['reason'])}")]
    subjects = sorted({(c.subject["kind"], c.subject["name"], c.subject["reference"])
                       for c in cases if c.subject})
    if subjects:
        out.append("")
        out += [f"- {kind} under test: {_code(name)}{' (built-in reference)' if ref else ''}"
                for kind, name, ref in subjects]
    families = sorted({c.family for c in cases})
    if families:
        out += ["", "| family | " + " | ".join(providers) + " |",
                "|---|" + "---|" * len(providers)]
        for family in families:
            cells = [_cell([c for c in cases if c.family == family and c.provider == p])
                     for p in providers]
            out.append(f"| {family} | " + " | ".join(cells) + " |")
        out.append("| **all** | " + " | ".join(
            _cell([c for c in cases if c.provider == p]) for p in providers) + " |")
    broken = [c for c in cases if c.outcome in ("failed", "error", "kit_error")
              or (c.outcome == "xpassed" and c.message)]
    if broken:
        out += ["", f"### Failures ({len(broken)})", ""]
        for c in broken:
            what = {"failed": (f"broke clause {_code(c.clause)}"
                               + (f" ({c.level})" if c.level else "")) if c.clause else "failed",
                    "error": "could not run (setup or kit error, not a verdict)",
                    "kit_error": "the kit could not run it (a kit bug, not a verdict on the "
                                 "implementation; please report it)",
                    "xpassed": "known gap now passes"}[c.outcome]
            out.append(f"- ❌ {_code(c.id)} ({c.provider}): {what}")
            if c.message:
                out += _block(c.message)
            if c.hint:
                out.append(f"  - fix: {_plain(c.hint)}")
            out.append(f"  - re-run: {_code(_rerun(c))}")
    hardening = [c for c in cases if c.outcome == "hardening"]
    if hardening:
        out += ["", f"### Hardening ({len(hardening)}, should clauses: not defects, they do not "
                    "fail the run; --toolcall-strict makes them)", ""]
        for c in hardening:
            out.append(f"- 🛠️ {_code(c.id)} ({c.provider}): broke clause {_code(c.clause or '?')} "
                       "(should)")
            if c.message:
                out += _block(c.message)
            if c.hint:
                out.append(f"  - fix: {_plain(c.hint)}")
    out += _render_risks(document)
    gaps = [c for c in cases if c.known_gap is not None]
    if gaps:
        out += ["", f"### Known gaps ({len(gaps)}, declared: they do not fail the gate)", ""]
        out += [f"- {_code(c.id)} ({c.provider}): {_plain(c.known_gap or '')}"
                + (f" — clause {_code(c.clause)}" if c.clause else "")
                + (" — **now passes: remove the declaration**" if c.outcome == "xpassed" else "")
                for c in gaps]
    skipped = [c for c in cases if c.outcome == "skipped"]
    if skipped:
        out += ["", (f"<details><summary>{len(skipped)} skipped "
                    f"case{'s' * (len(skipped) != 1)}</summary>"), ""]
        out += [f"- {_code(c.id)} ({c.provider}): {_plain(c.message or 'no reason given')}"
                for c in skipped]
        out += ["", "</details>"]
    suite = run.get("suite") or {}
    out += ["", (f"<sub>suite {suite.get('version', '?')}"
                 f"{' (pinned)' if suite.get('pinned') else ''}"
                 f"{', strict' if suite.get('strict') else ''}"
                 f", pytest-toolcall {run['versions'].get('pytest_toolcall', '?')}, pytest "
                 f"{run['versions'].get('pytest', '?')}, Python "
                 f"{run['versions'].get('python', '?')}</sub>"), ""]
    return "\n".join(out)


def _rerun(record: CaseRecord) -> str:
    return f"pytest --toolcall-provider={record.provider} --toolcall-cases={record.id}"


def load_schema() -> dict[str, Any]:
    """The JSON Schema of the report document (shipped as ``report.schema.json``)."""
    text = resources.files(__package__).joinpath("report.schema.json").read_text("utf-8")
    return json.loads(text)


def write_reports(directory: Path, document: Mapping[str, Any]) -> list[Path]:
    """Write the JSON document, the Markdown summary and the badge into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    cases = [CaseRecord(**c) for c in document["cases"]]
    files = {REPORT_FILE: json.dumps(document, indent=2, ensure_ascii=False) + "\n",
             SUMMARY_FILE: render_markdown(document),
             BADGE_FILE: json.dumps(badge(cases), indent=2) + "\n"}
    written = []
    from pytest_toolcall.core.redact import mask

    for name, text in files.items():
        path = directory / name
        path.write_text(mask(text), encoding="utf-8")  # whatever the records missed
        written.append(path)
    return written


def append_step_summary(path: Path, document: Mapping[str, Any]) -> None:
    """Append the Markdown summary to GitHub's job summary file (``$GITHUB_STEP_SUMMARY``).

    GitHub gives each step its own file and shows what the step appended; appending (never
    overwriting) keeps what other tools of the same step wrote.
    """
    with path.open("a", encoding="utf-8") as handle:
        handle.write(render_markdown(document) + "\n")

"""The census: public tool-calling bug reports, classed, and the cases that cover each class.

The suite grows from this census, not from lists handed to it (issue 29): every report is a real
public issue or pull request (its link, library, date opened and one line saying what broke),
classed by root cause in the taxonomy of :data:`CLASSES`. Each class names the built-in cases
that cover it (id globs); a class no case covers is shown as a gap, with the reason when it
cannot be tested by a case. The data is one file, ``conformance/census.json``; this module
validates it and renders its part of ``docs/bugs.md`` (:mod:`pytest_toolcall.cases.bugs`
calls :func:`render_section`).

A negative control reproduces a census report when its docstring cites the report as
``<repo> #<number>`` or ``<owner>/<repo> #<number>`` (the form :func:`bugs.parse_refs` reads).
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from pytest_toolcall.core.errors import UsageError

__all__ = ["CENSUS_PATH", "CLASSES", "Report", "ReportClass", "load", "render_section"]

#: the census file, beside the cases it is read with (installed inside the package)
CENSUS_PATH = Path(__file__).resolve().parents[2] / "conformance" / "census.json"


@dataclass(frozen=True)
class ReportClass:
    """A failure class: what it is, and the built-in cases that cover it (id globs)."""

    title: str
    meaning: str
    cases: tuple[str, ...]
    #: why no case can cover the class, when none does (shown instead of "gap")
    untestable: str = ""


CLASSES: dict[str, ReportClass] = {
    "wire_encoding": ReportClass(
        "Wire encoding", "tool definitions, schemas, tool_choice or messages encoded wrongly: "
        "a request the provider refuses or misreads",
        ("wire.tool_*", "wire.strict_tool_intact", "wire.developer_message",
         "wire.parallel_tool_calls_*", "wire.*_foreign_id_pattern", "wire.vllm_no_empty_tools",
         "wire.mistral_tool_call_id_format", "wire.vllm_stream_options_only_when_streaming",
         "wire.anthropic_tool_choice_parallel", "wire.ollama_tool_name_on_results")),
    "stream_assembly": ReportClass(
        "Stream assembly", "streamed call fragments assembled wrongly: indices, interleaved or "
        "merged parallel calls, the last chunk missed, zero-argument calls",
        ("stream.single_call_fragmented", "stream.parallel_*", "stream.index_*",
         "stream.id_name_*", "stream.*chunking", "stream.bytewise", "stream.same_as_complete",
         "stream.*whole_calls*", "stream.*one_call_per_chunk", "stream.gemini_calls_in_one_chunk",
         "stream.anthropic_parallel_blocks", "stream.call_in_role_chunk",
         "stream.ollama_index_stuck_at_zero", "stream.ollama_payload_on_done_line",
         "stream.responses_output_index",
         "stream.truncated", "stream.zero_args*", "stream.anthropic_zero_args_blocks")),
    "ids_pairing": ReportClass(
        "Ids and pairing", "call ids missing, duplicated or regenerated; results not paired "
        "with their calls",
        ("wire.gemini_calls_without_ids", "wire.gemini_id_less_results_paired",
         "wire.ollama_calls_without_ids", "wire.responses_call_id_not_item_id",
         "wire.gemini_results_out_of_order",
         "wire.*call_ids*", "stream.responses_call_id_from_item", "stream.*numeric_call_ids",
         "history.call_id_reused", "history.results_without_id", "loop.duplicate_call_id")),
    "arguments_parsing": ReportClass(
        "Arguments", "malformed, empty, null, double-encoded or non-ASCII arguments mishandled",
        ("*.malformed_arguments", "wire.zero_args_*", "wire.non_ascii_arguments",
         "wire.ollama_object_arguments", "loop.argument_types", "loop.missing_required_argument")),
    "history_validity": ReportClass(
        "History validity", "the replayed conversation is invalid: orphan calls or results, "
        "wrong order or roles, assistant text dropped",
        ("history.*", "wire.foreign_history", "wire.anthropic_results_one_message",
         "wire.anthropic_tool_results_first", "wire.gemini_one_response_turn",
         "wire.responses_every_call_answered", "wire.assistant_text*",
         "wire.second_turn_passthrough", "wire.ollama_calls_only_turn_replayed")),
    "loop_control": ReportClass(
        "Loop control", "when the loop stops or goes on: endless loops, iteration caps, "
        "unknown tools, duplicate calls, the final answer",
        ("loop.iteration_cap", "loop.unknown_tool", "loop.stop_with_calls",
         "loop.text_with_calls", "loop.handed_off", "loop.answered_once_in_order",
         "loop.failure_rounds_*", "loop.truncated_answer", "loop.content_filtered",
         "loop.events")),
    "tool_failures": ReportClass(
        "Tool failures", "a tool that raises, hangs or fails for good handled wrongly: a "
        "crash, a lost result, an error never fed back",
        ("loop.all_failure_rounds", "loop.permanent_failure", "loop.mixed_batch",
         "loop.retryable_failure_continues", "loop.sanitised_failures", "loop.tool_timeout",
         "loop.result_contents_match", "loop.parallel_dispatch", "history.all_calls_failed")),
    "model_call_errors": ReportClass(
        "Model-call errors", "the model call failing: non-retryable errors retried, waits "
        "uncapped, 429/529 mishandled, error types lost, an error inside a 200",
        ("errors.*", "loop.model_error", "loop.model_timeout", "loop.rate_limited",
         "loop.model_error_not_retried", "loop.overloaded_retried",
         "loop.rate_limit_retries_bounded", "loop.retry_after_capped", "loop.model_deadline",
         "*.provider_error", "stream.mid_stream_error", "wire.malformed_success",
         "wire.gemini_success_not_object",
         "wire.error_not_json", "stream.*error*", "wire.*error*")),
    "reasoning_replay": ReportClass(
        "Reasoning replay", "thinking blocks and signatures, reasoning items, thought "
        "signatures or reasoning_content dropped, merged or misplaced across tool rounds",
        ("*reasoning*", "*thinking*", "*thought*", "wire.gemini_*signature*",
         "stream.gemini_signature_echoed", "wire.gemini_signed_history_replayed")),
    "system_prompt": ReportClass(
        "System prompt", "the system prompt or instructions dropped, repeated or moved across "
        "the turns of a loop",
        ("wire.system_prompt", "wire.system_prompts_several", "loop.system_prompt_*")),
    "structured_output": ReportClass(
        "Structured output", "an output tool, JSON mode or fenced-JSON fallback returning a "
        "wrong or partial value", ("fallback.*",)),
    "cancellation": ReportClass(
        "Cancellation and deadlines", "a cancelled or aborted run that leaves tools running, "
        "loses state or hangs", ("loop.cancelled", "loop.cancelled_tools_stopped",
                                 "errors.stream_cancelled",
                                 "errors.stream_stalled")),
    "usage_finish": ReportClass(
        "Usage and finish", "token usage or the finish reason wrong on answers with calls",
        ("*usage*", "wire.unknown_finish_reason", "*finish*", "wire.gemini_stop_with_calls",
         "wire.ollama_done_reason_stop_with_calls")),
    "secrets": ReportClass(
        "Secrets", "API keys or credentials leaked into logs, traces or error messages",
        ("errors.auth_invalid", "errors.key_not_in_error", "loop.sanitised_failures")),
}

ClassName = Literal[tuple(CLASSES)]  # type: ignore[valid-type]

_URL = re.compile(r"^https://github\.com/([\w.-]+)/([\w.-]+)/(issues|pull|discussions)/(\d+)$")


class Report(BaseModel):
    """One public report of the census."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str
    library: str
    language: Literal["python", "js-ts", "go", "rust", "java", "other"]
    kind: Literal["client-sdk", "gateway", "agent-framework", "inference-server", "app"]
    date: str = Field(pattern=r"^(\d{4}-\d{2}(-\d{2})?)?$")
    title: str = Field(min_length=1)
    klass: ClassName = Field(alias="class")  # type: ignore[valid-type]
    failure: str = Field(min_length=1)
    providers: tuple[str, ...] = ()
    evidence: str = ""

    @field_validator("url")
    @classmethod
    def _github(cls, url: str) -> str:
        if not _URL.match(url):
            raise ValueError("must be https://github.com/<owner>/<repo>/issues|pull/<number>")
        return url

    @property
    def owner_repo(self) -> str:
        match = _URL.match(self.url)
        assert match is not None
        return f"{match.group(1)}/{match.group(2)}"

    @property
    def number(self) -> int:
        match = _URL.match(self.url)
        assert match is not None
        return int(match.group(4))

    def cited_by(self, ref_project: str, ref_number: int) -> bool:
        """Whether a citation ``<project> #<number>`` names this report: the project is the
        repository (``litellm``) or owner/repository (``BerriAI/litellm``), any case."""
        if ref_number != self.number:
            return False
        owner_repo = self.owner_repo.lower()
        return ref_project.lower() in (owner_repo, owner_repo.split("/", 1)[1])

    @property
    def label(self) -> str:
        kind = "PR " if "/pull/" in self.url else ""
        return f"{self.owner_repo} {kind}#{self.number}"


def load(path: Path = CENSUS_PATH) -> list[Report]:
    """The census, validated: every record well formed, no url twice. A problem is a
    :class:`UsageError` naming the record and the field."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"no census file at {path}") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(raw, list):
        raise UsageError(f"{path}: expected a JSON array of reports")
    reports: list[Report] = []
    seen: dict[str, int] = {}
    for index, record in enumerate(raw):
        try:
            report = Report.model_validate(record)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
                                 for e in exc.errors())
            name = record.get("url", "?") if isinstance(record, dict) else "?"
            raise UsageError(f"{path}: report {index} ({name}): {problems}") from None
        if report.url in seen:
            raise UsageError(f"{path}: report {index} repeats report {seen[report.url]} "
                             f"({report.url})")
        seen[report.url] = index
        reports.append(report)
    return reports


def cases_of(klass: ReportClass, case_ids: Iterable[str]) -> list[str]:
    """The case ids a class's globs match, sorted."""
    return sorted(i for i in case_ids if any(fnmatch.fnmatchcase(i, g) for g in klass.cases))


def controls_reproducing(reports: Sequence[Report], controls: Iterable[object]) -> list[object]:
    """The controls whose docstring cites one of ``reports`` (controls have ``refs``)."""
    found = []
    for control in controls:
        refs = getattr(control, "refs", ())
        if any(r.cited_by(ref.project, ref.number) for ref in refs for r in reports):
            found.append(control)
    return found


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_section(reports: Sequence[Report], case_ids: Sequence[str],
                   controls: Sequence[object]) -> list[str]:
    """The census part of docs/bugs.md: a table by class, then the reports of each class."""
    by_class: dict[str, list[Report]] = {name: [] for name in CLASSES}
    for report in reports:
        by_class[report.klass].append(report)
    libraries = {r.library.lower() for r in reports}
    out = [
        "## The census",
        "",
        (f"{len(reports)} public tool-calling bug reports from {len(libraries)} libraries "
         "(client SDKs, gateways, agent frameworks, inference servers; Python and "
         "JavaScript/TypeScript), each classed by root cause. The data is "
         "`conformance/census.json`; the classes and the cases that cover them are in "
         "`pytest_toolcall/cases/census.py`. A class is covered when a built-in case runs "
         "its failure and a negative control reproduces one of its reports (the control's "
         "docstring cites it); a class with no case is a **gap**."),
        "",
        "| class | reports | cases | controls reproducing a report | status |",
        "|---|---:|---:|---:|---|",
    ]
    details: list[str] = []
    for name, klass in CLASSES.items():
        members = by_class[name]
        covering = cases_of(klass, case_ids)
        reproducing = controls_reproducing(members, controls)
        if covering and reproducing:
            status = "covered"
        elif covering:
            status = "cases, no control of a census report"
        else:
            status = f"untestable: {klass.untestable}" if klass.untestable else "**gap**"
        out.append(f"| {klass.title} | {len(members)} | {len(covering)} | {len(reproducing)} "
                   f"| {status} |")
        details += [f"### {klass.title}", "", klass.meaning[0].upper() + klass.meaning[1:] + ".",
                    ""]
        details.append("Cases: " + (", ".join(f"`{i}`" for i in covering) if covering
                                    else "**none**") + ".")
        if reproducing:
            details.append("Controls: " + ", ".join(
                f"`{getattr(c, 'name', c)}`" for c in reproducing) + ".")
        details.append("")
        for report in sorted(members, key=lambda r: (r.date, r.url), reverse=True):
            when = report.date or "date not shown"
            details.append(f"- [{report.label}]({report.url}) ({when}): "
                           f"{_cell(report.failure)}")
        details.append("")
    return [*out, "", *details]

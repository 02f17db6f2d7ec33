"""The driver's reports: the text printed, ``mutation-summary.md`` and ``mutation-report.json``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from pytest_toolcall.cli.mutation.model import (
    MUTANT_ENV,
    MutationResult,
)


# -- output -----------------------------------------------------------------------------------
def render_text(result: MutationResult) -> str:
    out = [result.headline()]
    rate = result.kill_rate
    out.append(f"caught {result.caught} of {result.tested} mutants"
               + (f" (kill rate {rate:.1%})" if rate is not None else "")
               + f"; {', '.join(f'{v} {k}' for k, v in sorted(result.counts.items()))}")
    if result.profiles:
        out.append(f"cases ran under {len(result.profiles)} declared profiles: "
                   + ", ".join(result.profiles))
    for escape in result.escapes:
        where = f"{escape.file}:{escape.line}" if escape.line else escape.file
        what = "survived" if escape.status == "survived" else "no case calls this function"
        out.append("")
        out.append(f"ESCAPE {escape.mutant} ({what}) at {where}, in {escape.function}")
        out.append("  cases that ran it: " + (", ".join(escape.cases) or "none"))
        out.extend("  " + line for line in escape.diff.splitlines())
    for error in result.errors:
        out.append(f"UNCLEAR {error['mutant']}: mutmut exit code {error['exit_code']} (not "
                   "counted as a kill)")
    return "\n".join(out)


def render_markdown(result: MutationResult, gate: dict[str, Any]) -> str:
    rate = result.kill_rate
    lines = ["# Mutation escapes", "",
             f"**{result.headline()}** - kill rate "
             + (f"{rate:.1%}" if rate is not None else "n/a")
             + f" ({result.caught} of {result.tested} mutants caught)", "",
             (f"Sources: {', '.join(f'`{s}`' for s in result.sources)}; providers: "
              f"{', '.join(result.providers)}; {len(result.cases)} cases"
              + (f" (runs under profiles {', '.join(result.profiles)})" if result.profiles
                 else "") + "."), ""]
    if gate["failures"]:
        lines += [f"- :x: {f}" for f in gate["failures"]] + [""]
    elif gate["max_escapes"] is not None or gate["min_kill_rate"] is not None:
        lines += ["- :white_check_mark: mutation gate passed", ""]
    if result.escapes:
        lines += ["| mutant | where | status | cases that ran it |", "|---|---|---|---|"]
        for e in result.escapes:
            where = f"{e.file}:{e.line}" if e.line else e.file
            lines.append(f"| `{e.mutant.rpartition('.')[2]}` | `{where}` | {e.status} | "
                         f"{', '.join(e.cases) or 'none'} |")
        lines.append("")
        for e in result.escapes:
            lines += [f"<details><summary><code>{e.mutant}</code></summary>", "", "```diff",
                      e.diff, "```", "", "</details>", ""]
    return "\n".join(lines)


def write_reports(directory: Path, result: MutationResult, gate: dict[str, Any]) -> list[Path]:
    if os.environ.get(MUTANT_ENV):
        return []  # never from inside a mutant run
    directory.mkdir(parents=True, exist_ok=True)
    json_path = directory / "mutation-report.json"
    md_path = directory / "mutation-summary.md"
    # secrets never reach a file the kit writes (issue 18)
    from pytest_toolcall.core.redact import mask

    json_path.write_text(mask(json.dumps(result.document(gate), indent=2, ensure_ascii=False))
                         + "\n", encoding="utf-8")
    md_path.write_text(mask(render_markdown(result, gate)), encoding="utf-8")
    return [json_path, md_path]

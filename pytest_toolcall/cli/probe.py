"""``pytest-toolcall probe``: ask a real service what its fake claims, and turn the answer into
a fact update (issue 33; no pytest).

Exit codes: 0 no divergence (or facts written), 1 divergences found, 2 usage error, 3 no honest
result (the service refused the accepted twins: a wrong key, model or base URL).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_toolcall.core.errors import UsageError

EXIT_DIVERGED, EXIT_USAGE, EXIT_NO_RESULT = 1, 2, 3


def add_parser(sub: Any) -> None:
    probe = sub.add_parser(
        "probe", help="send every probe of a provider to its real service and to its fake, and "
                      "report each divergence",
        description="Send the provider's probes (one request per rule its fake judges: on "
                    "the openai wire OpenAI's 31 and the service's own, on the others the "
                    "dialect's; no key and a wrong key; the accepted twins; the stream-shape "
                    "probes: 16 to 42 requests, at most 16 output tokens, 48 for a call) "
                    "to the real service and to the fake, and report "
                    "every divergence. With --to-facts REPORT: write what a report shows into "
                    "the provider's facts.json and print the diff.")
    probe.add_argument("--provider", default=None, metavar="NAME",
                       help="the provider to probe (any of the kit's providers)")
    probe.add_argument("--base-url", default=None, metavar="URL",
                       help="the service's base URL, the wire's paths below it (default: the "
                            "provider's public one; required for local servers but Ollama's)")
    probe.add_argument("--model", default=None, metavar="M",
                       help="the model to ask (default: the provider's smallest)")
    probe.add_argument("--report", default=None, metavar="FILE",
                       help="write the JSON report (no secret in it) to FILE")
    probe.add_argument("--timeout", type=float, default=60.0, metavar="S",
                       help="seconds to wait for each answer (default 60)")
    probe.add_argument("--to-facts", default=None, metavar="REPORT",
                       help="turn a probe report into a fact update of the provider's "
                            "facts.json (printed as a diff)")
    probe.add_argument("--facts", default=None, metavar="FILE",
                       help="with --to-facts: the facts.json to update (default: the "
                            "provider's own, for a report of its public service)")


def run(args: argparse.Namespace) -> int:
    from pytest_toolcall.core.redact import mask

    try:
        if args.to_facts is not None:
            return _to_facts(args)
        return _probe(args)
    except UsageError as exc:
        print(mask(f"pytest-toolcall probe: usage error: {exc}"), file=sys.stderr)
        return EXIT_USAGE


def _provider(name: str | None) -> str:
    from pytest_toolcall.run.probes import PROBE_ACCESS

    if not name:
        raise UsageError(f"--provider: name the provider to probe: {', '.join(PROBE_ACCESS)}")
    if name not in PROBE_ACCESS:
        from pytest_toolcall.core._names import PROVIDERS

        why = "it has no probes" if name in PROVIDERS else "no such provider"
        raise UsageError(f"--provider: {name!r}: {why}; valid: {', '.join(PROBE_ACCESS)}")
    return name


def _probe(args: argparse.Namespace,
           environ: Mapping[str, str] | None = None) -> int:
    from pytest_toolcall.core.redact import mask, mask_url, register
    from pytest_toolcall.run.probe_wires import wire_for
    from pytest_toolcall.run.probes import (MAX_CALL_TOKENS, MAX_TOKENS, PROBE_ACCESS,
                                            Unreachable, http_sender, probes_for, run_probes)

    env = os.environ if environ is None else environ
    provider = _provider(args.provider)
    access = PROBE_ACCESS[provider]
    if args.timeout <= 0:
        raise UsageError("--timeout: give a number of seconds above 0")
    try:
        base_url = args.base_url or access.public_url(env)
    except KeyError as exc:
        raise UsageError(f"--base-url: {provider}'s URL names the project: set {exc.args[0]} "
                         f"(and {', '.join(n for n, _ in access.url_vars if n != exc.args[0])} "
                         "if not the default), or give the whole --base-url") from None
    if not base_url:
        raise UsageError(f"--base-url: {provider} has no public endpoint: give your server's, "
                         "e.g. --base-url http://localhost:8080/v1")
    if not base_url.startswith(("http://", "https://")):
        raise UsageError(f"--base-url: {mask_url(base_url)!r} is no http(s) URL")
    from urllib.parse import parse_qs, urlsplit

    if "key" in parse_qs(urlsplit(base_url).query):
        raise UsageError("--base-url: no key in the URL: the auth probes send it, a wrong one "
                         f"or none themselves; set {' or '.join(access.key_vars) or 'none'}")
    key = next((env[v] for v in access.key_vars if env.get(v)), None)
    if key is None and args.base_url is None and access.key_required:
        raise UsageError(f"no key for {provider}: set {' or '.join(access.key_vars)} (or give "
                         "--base-url for a local server)")
    register(key, f"${access.key_vars[0]}" if access.key_vars else "key")
    model = args.model or access.model
    if not model:
        azure = " (for Azure, the deployment)" if provider == "azure-openai" else ""
        raise UsageError(f"--model: {provider} has no default model: name the one your server "
                         f"serves{azure}")
    report_path = Path(args.report) if args.report else None
    if report_path is not None and not report_path.parent.is_dir():
        raise UsageError(f"--report: the folder {str(report_path.parent)!r} does not exist")
    probes = probes_for(provider, model)
    shown_url = mask_url(base_url)
    print(mask(f"probing {provider} at {shown_url} with model {model}: {len(probes)} requests "
               f"(at most {MAX_TOKENS} output tokens, {MAX_CALL_TOKENS} for the call probe; "
               "most are refused before the model runs)"))
    send, close = http_sender(base_url, key, access.key_header, args.timeout, wire_for(provider))
    try:
        report = run_probes(provider, send, model=model, base_url=shown_url, probes=probes,
                            progress=lambda line: print(mask(line)))
    except Unreachable as exc:
        print(mask(f"pytest-toolcall probe: no result: {shown_url} did not answer ({exc})"),
              file=sys.stderr)
        return EXIT_NO_RESULT
    finally:
        close()
    text = mask(json.dumps(report, indent=2, ensure_ascii=False)) + "\n"
    if key:
        assert key not in text  # mask() registered it; never write a secret
    if report_path is not None:
        report_path.write_text(text, encoding="utf-8")
    print(mask(_summary(report)))
    if report_path is not None:
        print(f"report written: {report_path}")
    if report["summary"]["twins_refused"]:
        print(mask(f"no honest result: the service refused the accepted twins "
                   f"({', '.join(report['summary']['twins_refused'])}): check the key, --model "
                   "and --base-url"), file=sys.stderr)
        return EXIT_NO_RESULT
    return EXIT_DIVERGED if report["divergences"] else 0


def _summary(report: Mapping[str, Any]) -> str:
    summary = report["summary"]
    lines = [f"{report['provider']}: {summary['probes']} probes sent, {summary['divergences']} "
             f"divergences in {summary['diverging_probes']} probes"]
    for d in report["divergences"]:
        lines.append(f"  {d['probe']}: {d['what']}: fake {json.dumps(d['fake'])[:120]}, "
                     f"service {json.dumps(d['real'])[:120]}")
    return "\n".join(lines)


def _load_report(path: str) -> dict[str, Any]:
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"--to-facts: no file {path!r}")
    try:
        report = json.loads(file.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise UsageError(f"--to-facts: {path!r} is not JSON ({exc})") from None
    needed = ("report", "provider", "date", "base_url", "model", "probes", "divergences")
    if not isinstance(report, dict) or report.get("report") != "pytest-toolcall probe" or \
            any(k not in report for k in needed):
        raise UsageError(f"--to-facts: {path!r} is no probe report (written by "
                         "pytest-toolcall probe --report)")
    return report


def _to_facts(args: argparse.Namespace) -> int:
    from pytest_toolcall.run.probes import PROBE_ACCESS, fact_update

    report = _load_report(args.to_facts)
    provider = _provider(report["provider"])
    if args.provider and args.provider != provider:
        raise UsageError(f"--provider: the report probed {provider}, not {args.provider}")
    access = PROBE_ACCESS[provider]
    public = access.base_url
    if args.facts is not None:
        target = Path(args.facts)
    elif public is not None and not access.is_public(report["base_url"]):
        raise UsageError(f"--to-facts: the report probed {report['base_url']}, not "
                         f"{provider}'s service ({public}): give --facts FILE to write it "
                         "elsewhere")
    else:
        import pytest_toolcall.providers as providers

        target = Path(providers.__file__).with_name(provider.replace("-", "_")) / "facts.json"
    if not target.is_file():
        raise UsageError(f"--facts: no file {str(target)!r}")
    before = target.read_text(encoding="utf-8")
    data = json.loads(before)
    source = (f"pytest-toolcall probe report {Path(args.to_facts).name} ({report['model']} at "
              f"{report['base_url']}, {report['date']})")
    facts, todo = fact_update(report, source)
    data.setdefault("facts", {}).update(facts)
    after = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    target.write_text(after, encoding="utf-8")
    diff = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                f"a/{target.name}", f"b/{target.name}")
    sys.stdout.writelines(diff)
    print(f"{len(facts)} facts written to {target}")
    for line in todo:
        print(f"to review: {line}")
    return 0

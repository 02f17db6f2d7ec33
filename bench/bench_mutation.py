"""Self-check of the mutation driver: the suite's kill rate on the reference OpenAI adapter, and
the driver's speed. Prints figures; asserts nothing.

    python bench/bench_mutation.py                 # the chat families against reference/openai.py
    python bench/bench_mutation.py --jobs 2 --json /tmp/mutation.json

Each other dialect's chat reference (``--provider`` picks its ``providers/<folder>/reference.py``
and its verdicts; on a shared machine run one at a time, under ``nice -n 10``):

    python bench/bench_mutation.py --provider anthropic --jobs 1
    python bench/bench_mutation.py --provider gemini --jobs 1
    python bench/bench_mutation.py --provider ollama --jobs 1
    python bench/bench_mutation.py --provider openai-responses --jobs 1

The run is ``pytest-toolcall mutate pytest_toolcall/providers/openai/reference.py --cases
'wire.*,stream.*,errors.*'`` (the chat families: the loop and history families do not test the
chat adapter). Every survivor
is listed with the verdict of ``docs/mutation.md``: ``equivalent`` (no behaviour the kit can
observe changes), ``outside`` (observable, but not required by the ChatAdapter contract) or
``gap`` (a real hole in the suite, reported to the lead). A survivor missing from the table is
``unclassified`` and counts as non-equivalent.

Figures: mutmut's own "mutations/second" (the mutant phase only, after its stats, clean and
forced-fail runs) and the whole run's mutants per wall-clock second (copy, pre-flight, mutmut,
verification).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

TARGET_RATE = 0.95  # issue 29: >= 95% of the contract-visible mutants
TARGET_SPEED = 15.0

_E, _O, _G = "equivalent", "outside", "gap"
#: survivor verdicts, by ``<Class>.<method>`` -> {mutant number: (verdict, reason)}; see
#: docs/mutation.md for the table with the reasons in full
VERDICTS: dict[str, dict[int, tuple[str, str]]] = {
    "OpenAIChatAdapter.__init__": {
        3: (_E, "rstrip(None): the kit's base URLs end without '/' or space"),
        4: (_E, "lstrip('/'): the kit's base URLs do not start with '/'"),
        5: (_E, "rstrip('XX/XX'): the kit's base URLs end in none of those characters"),
        10: (_E, "HTTP header names are case-insensitive"),
        13: (_E, "the default model always kept: every case's request names its model")},
    "OpenAIChatAdapter.encode_message": {
        **{n: (_G, "an empty assistant turn (no text, no calls) is never replayed")
           for n in (17, 18, 19, 20)},
        29: (_E, "the TypeError for a non-canonical message is unreachable with canonical input")},
    "OpenAIChatAdapter.parse_call": {
        16: (_E, "OpenAI always sends function.name in a complete response"),
        18: (_E, "same as 16"), 21: (_E, "same as 16")},
    "OpenAIChatAdapter.parse_content": {
        **{n: (_E, "unreachable from OpenAI: list content is Mistral's (mistral.* cases)")
           for n in range(4, 23)},
        23: (_G, "a content of another type raises an error without words; no case sends one"),
        24: (_O, "wording of that error")},
    "OpenAIChatAdapter.parse_response": {
        8: (_O, ("the malformed-response error without words: still typed "
                 "(wire.malformed_success reaches it); no clause judges the adapter's own words")),
        **{n: (_O, "ChatResponse.model left out: optional in the contract")
           for n in (20, 25, 38, 39, 40)},
        **{n: (_G, "a 200 with fields of the wrong shape: error without words or a crash; no "
                   "case sends one") for n in (41, 43, 46)},
        **{n: (_O, "ProviderError.body dropped, or wording") for n in (42, 44, 45)}},
    "StreamAccumulator.__init__": {
        4: (_E, "finish is always set by a finish_reason chunk before it is read"),
        5: (_E, "every OpenAI stream the kit sends carries a usage chunk"),
        6: (_E, "done=None is falsy like False")},
    "_Slot.__init__": {2: (_E, "'' and None both mean 'no fragment yet' to the code that reads it")},
    "StreamAccumulator.add_fragment": {
        **{n: (_E, "id/name set twice: the next line repairs the slot")
           for n in (22, 23, 27, 28, 29, 36, 37, 38)},
        **{n: (_O, "a ToolCallDelta may leave id and name out; stream.deltas checks them when "
                   "given") for n in (48, 49, 52, 53, 55, 56, 57)}},
    "StreamAccumulator.error_event": {
        **{n: (_O, "in-stream error code (null in OpenAI's chunk; the type is carried)")
           for n in (7, 12, 25, 26, 27)},
        **{n: (_O, "StreamError.body") for n in (8, 13)},
        **{n: (_O, "message falls back to the whole error object, still the provider's words")
           for n in (16, 20, 21)},
        **{n: (_E, "the error always has a message") for n in (17, 19)}},
    "StreamAccumulator.finish_events": {16: (_E, "names always arrive in OpenAI streams")},
}


def _same(verdict_: str, reason: str, *numbers: int) -> dict[int, tuple[str, str]]:
    return {n: (verdict_, reason) for n in numbers}


_DEFAULTS = "the fallback for a field the provider always sends"
#: the Anthropic chat reference's survivors (docs/mutation.md, "Anthropic: survivors")
ANTHROPIC_VERDICTS: dict[str, dict[int, tuple[str, str]]] = {
    "wire_id": _same(_E, "a rewritten id still valid, paired and unique", 6, 16, 17, 18, 19, 20),
    "AnthropicAdapter.__init__": {
        **_same(_E, "the kit's base URLs have no trailing '/'", 3, 4, 5),
        **_same(_E, "HTTP header names are case-insensitive", 10, 12),
        13: (_E, "no default model: every case's request names its model")},
    "AnthropicAdapter.build_body": {
        4: (_G, "the default model sent instead of the request's; no clause compares them"),
        48: (_E, "max_tokens 3072 instead of 2048: still above the thinking budget"),
        **_same(_G, "the thinking switch dropped or malformed: the fake does not refuse it",
                31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 47)},
    "AnthropicAdapter.encode_call": {
        13: (_G, "input: null for unparsed arguments; no Anthropic case replays such a call")},
    "_all_results": {1: (_E, "differs only after a user text turn: no valid history")},
    "AnthropicAdapter.encode_messages": {
        4: (_E, "differs only for a tool result first in the conversation"),
        **_same(_E, "the user's text in its own user message: Anthropic merges them",
                39, 40, 43, 44, 45, 46, 47, 48),
        **_same(_G, "a text block of an unknown type: the fake lets it through", 33, 34),
        **_same(_G, "the user's text put in the assistant message; no check sees it", 52, 53),
        68: (_E, "the TypeError for a non-canonical message is unreachable")},
    "AnthropicAdapter.encode_reasoning": _same(_E, _DEFAULTS, 11, 19, 23),
    "AnthropicAdapter.parse_call": _same(_E, _DEFAULTS, 11, 13, 16),
    "AnthropicAdapter.parse_response": {
        4: (_O, "wording of the malformed-response error"),
        **_same(_E, _DEFAULTS, 9, 11, 14),
        **_same(_O, "ChatResponse.model left out: optional", 46, 52, 63, 64, 65)},
    "AnthropicAdapter.parse_usage": _same(_E, "usage always has both counts, non-zero at the end",
                                          13, 15, 20, 23, 25, 26, 27, 28),
    "AnthropicStreamAccumulator.__init__": {
        **_same(_E, "'' or None for a default overwritten before it is read", 2, 7, 8),
        6: (_O, "wording of the IncompleteStreamError")},
    "AnthropicStreamAccumulator.add_delta": {
        **_same(_E, _DEFAULTS, 10, 12, 15, 24, 36),
        30: (_E, "the signature comes in one signature_delta")},
    "AnthropicStreamAccumulator.feed": {
        **_same(_O, "StreamError.body", 11, 15),
        **_same(_O, "message falls back to the error object: still the provider's words",
                18, 22, 23),
        **_same(_E, "the error always has a message", 19, 21)},
    "AnthropicStreamAccumulator.feed_line": {
        **_same(_E, "event: line and data type always agree; no comments", 2, 3, 5, 6, 7, 9,
                21, 22, 23, 24),
        **_same(_G, "SSE fields without the space after the colon: no Anthropic case", 8, 16)},
    "AnthropicStreamAccumulator.start_block": {
        **_same(_O, "a ToolCallDelta may leave id and name out", 28, 29, 31, 32, 33, 34, 35, 36,
                37, 38),
        **_same(_E, "content_block_start carries empty thinking, signature and text", 49, 50,
                56, 57, 58, 64, 65, 66, 67, *range(69, 82))},
    "AnthropicStreamAccumulator.stop_block": {
        **_same(_E, _DEFAULTS, 20, 34, 53),
        55: (_E, "ToolCall.from_raw parses the raw text the same way")},
}

#: the Gemini chat reference's survivors (docs/mutation.md, "Gemini: survivors")
GEMINI_VERDICTS: dict[str, dict[int, tuple[str, str]]] = {
    "GeminiAdapter.__init__": {
        **_same(_E, "the kit's base URLs have no trailing '/'", 2, 3, 4),
        7: (_E, "HTTP header names are case-insensitive"),
        8: (_E, "no default model: every case's request names its model")},
    "GeminiAdapter.request_url": _same(_G, "the model in the path: no clause compares it", 1, 2),
    "GeminiAdapter.encode_assistant": {
        3: (_G, "an empty text part before the calls; the fake accepts it"),
        **_same(_G, "an empty model turn: no case replays one", 39, 40, 41),
        **_same(_E, "the remembered and the carried signature are the same one", 20, 21, 22,
                24)},
    "GeminiAdapter.encode_call": _same(_E, "getattr defaults; an id-less call", 19, 22, 26),
    "GeminiAdapter.encode_contents": {
        2: (_E, "orphan results before any model turn: no chat case"),
        31: (_E, "the TypeError for a non-canonical message is unreachable")},
    "GeminiAdapter.encode_results": {
        8: (_E, "the lookup key of a result without an id: no call has the id 'XXXX' or ''"),
        **_same(_E, "orphan results: no chat case", 10, 11, 15, 16, 32),
        **_same(_O, "the wrapper key of a good result is free", 22, 23),
        **_same(_G, "a stored result that lost its call's id: no case", 30, 31)},
    "GeminiAdapter.new_id": {2: (_E, "17 hex digits: still unique")},
    "GeminiAdapter.parse_call": _same(_E, _DEFAULTS, 25, 27, 30),
    "GeminiAdapter.parse_response": {
        28: (_O, "wording of the malformed-response error"),
        **_same(_O, "ChatResponse.model left out: optional", 59, 64, 80, 81, 82, 83)},
    "StreamAccumulator.__init__": {6: (_E, "every Gemini stream carries usage")},
    "StreamAccumulator.add_call": _same(_O, "a ToolCallDelta may leave id, name and arguments "
                                            "out; the ToolCallComplete has them", 7, 8, 11, 12,
                                        13),
    "StreamAccumulator.close": {
        **_same(_G, "a last event without its blank line: no Gemini case", 1, 2),
        **_same(_O, "wording of the IncompleteStreamError", 4, 5, 6, 7, 8, 9)},
    "StreamAccumulator.feed": {
        **_same(_O, "in-stream error code, body or message fallback", 10, 11, 15, 16, 19, 23,
                24, 28, 29, 30),
        **_same(_E, "the error always has a message", 20, 22),
        61: (_E, "Gemini sends one candidate")},
    "StreamAccumulator.feed_line": {
        **_same(_E, "whitespace before JSON; one data: line per event", 6, 8, 9, 13),
        7: (_G, "data: without the space: no Gemini case")},
}

#: the Ollama chat reference's survivors (docs/mutation.md, "Ollama: survivors")
OLLAMA_VERDICTS: dict[str, dict[int, tuple[str, str]]] = {
    "OllamaCompatAdapter.__init__": _same(_E, "unreachable: the compatible route is not built",
                                          *range(1, 21)),
    "OllamaAdapter.__init__": {
        **_same(_E, "the kit's base URLs have no trailing '/'", 3, 4, 5),
        10: (_E, "'Bearer None' without a key: a local Ollama reads no header"),
        12: (_E, "HTTP header names are case-insensitive"),
        **_same(_G, "the bearer key dropped: the fake checks none", 8, 9, 11)},
    "OllamaAdapter.encode_message": {
        **_same(_G, "a role in upper case: the fake takes any case", 4, 15),
        29: (_E, "the TypeError for a non-canonical message is unreachable")},
    "OllamaAdapter.encode_result": {
        5: (_G, "a role in upper case: the fake takes any case"),
        12: (_E, "the lookup key of a result without an id")},
    "OllamaAdapter.encode_tool": {
        **_same(_E, "Ollama ignores strict", 8, 9, 10, 11),
        **_same(_G, "a tool type other than 'function': the fake accepts it", 12, 13, 14, 15)},
    "OllamaAdapter.new_call_id": {1: (_E, "13 hex digits: still unique")},
    "OllamaAdapter.parse_call": _same(_E, _DEFAULTS, 17, 19, 22),
    "OllamaAdapter.parse_response": {
        3: (_G, "a 200 whose body is not an object crashes; no case sends one"),
        8: (_O, "wording of the malformed-response error"),
        **_same(_O, "ProviderError.body", 9, 11),
        **_same(_O, "ChatResponse.model left out: optional", 23, 28, 42, 43, 44)},
    "OllamaAdapter.parse_usage": _same(_E, "the final line carries both counts, non-zero",
                                       1, 2, 3, 4, 5, 6, 7, 13, 18),
    "OllamaAdapter.raise_for_error": {
        **_same(_E, "bodies are UTF-8 and short", 7, 8, 19),
        **_same(_O, "the message is the whole body: still the provider's words", 9, 10, 12, 13,
                14, 16),
        **_same(_O, "ProviderError.body", 22, 25),
        **_same(_E, "no Retry-After from Ollama; retryable read from the status", 26, 28)},
    "NdjsonAccumulator.__init__": {3: (_E, "done=None is falsy")},
    "NdjsonAccumulator.feed": _same(_O, "a ToolCallDelta may leave id, name and arguments out",
                                    22, 23, 26, 27, 28),
    "NdjsonAccumulator.feed_line": {
        1: (_E, "no blank lines in Ollama's NDJSON, nothing after done"),
        **_same(_O, "StreamError.body", 9, 11)},
}

_TWICE = "a redundant path of the stream: the other carries the same fact"
#: the OpenAI Responses chat reference's survivors (docs/mutation.md, "OpenAI Responses")
RESPONSES_VERDICTS: dict[str, dict[int, tuple[str, str]]] = {
    "OpenAIResponsesAdapter.__init__": {
        **_same(_E, "the kit's base URLs have no trailing '/'", 3, 4, 5),
        10: (_E, "HTTP header names are case-insensitive"),
        11: (_E, "no default model: every case's request names its model")},
    "OpenAIResponsesAdapter.build_body": {
        11: (_G, "the default model sent instead of the request's; no clause compares them")},
    "OpenAIResponsesAdapter.encode_call": _same(_E, "getattr defaults; an id-less call", 16,
                                                19, 23),
    "OpenAIResponsesAdapter.encode_message": {
        21: (_G, "an empty assistant turn: no case replays one"),
        **_same(_G, "reasoning kept before calls without a known fc_ id: no case", 27, 29, 32),
        35: (_E, "the TypeError for a non-canonical message is unreachable")},
    "OpenAIResponsesAdapter.encode_reasoning": {
        11: (_G, "a summary part with text null: no case replays reasoning without a summary")},
    "OpenAIResponsesAdapter.parse_call": _same(_E, _DEFAULTS, 12, 14, 17),
    "OpenAIResponsesAdapter.parse_finish": _same(
        _G, "an incomplete_details.reason outside the map (max_messages, steered): no case",
        16, 18, 19, 20),
    "OpenAIResponsesAdapter.parse_reasoning": {
        3: (_G, "two summary parts joined with XXXX: no case"),
        **_same(_E, _DEFAULTS, 5, 7, 10),
        **_same(_G, "the rs_ id lost: the fake accepts a replayed item without it", 16, 20, 25,
                26, 27)},
    "OpenAIResponsesAdapter.parse_response": {
        4: (_O, "wording of the malformed-response error"),
        **_same(_O, "code or body of a failed response's error", 17, 18, 20, 21, 24, 26,
                *range(29, 34)),
        **_same(_E, "an output entry or a part that changes nothing", 40, 58, 60, 63, 68),
        **_same(_O, "ChatResponse.model left out: optional", 87, 93, 108, 109, 110)},
    "OpenAIResponsesAdapter.remember_item_id": {1: (_E, "the later lookup finds no id anyway")},
    "ResponsesStreamAccumulator.__init__": {4: (_E, "done=None is falsy")},
    "ResponsesStreamAccumulator.feed": {
        **_same(_O, "StreamError.body and code", 10, 14, 40, 41, 44, 45, 56, 57, 58),
        **_same(_G, "retryable of response.failed: no check", 42, 46, 59, 60, 61, 62),
        **_same(_E, "the error always has a message", 49, 51),
        **_same(_O, "wording of the fallback message", 54, 55),
        **_same(_E, "the text is the same", 85, 88, 90, 93),
        **_same(_O, "argument deltas not read: a delta may leave them out", 98, 99),
        **_same(_E, _TWICE, *range(103, 111), 116, 118, 121, 123, 124, 125, 128, 129, 130, 147,
                148, 149, 151, 152, *range(157, 163), 168, 169, 170, 171, 173, 174, 175, 176)},
    "ResponsesStreamAccumulator.feed_line": {8: (_G, "data: without the space: no case here")},
    "ResponsesStreamAccumulator.find": {**_same(_E, _TWICE, *range(1, 19)),
                                        20: (_O, "wording of the error")},
    "ResponsesStreamAccumulator.finish_events": _same(_E, _TWICE, 4, 6, 7, 8, 9, 24),
    "ResponsesStreamAccumulator.start": _same(_E, _TWICE, *range(7, 14)),
    "_Item.__init__": _same(_E, _TWICE, *range(6, 14), 15),
}

#: provider -> (its chat reference, the verdicts of its survivors)
DIALECTS: dict[str, tuple[str, dict[str, dict[int, tuple[str, str]]]]] = {
    "openai": ("pytest_toolcall/providers/openai/reference.py", VERDICTS),
    "anthropic": ("pytest_toolcall/providers/anthropic/reference.py", ANTHROPIC_VERDICTS),
    "gemini": ("pytest_toolcall/providers/gemini/reference.py", GEMINI_VERDICTS),
    "ollama": ("pytest_toolcall/providers/ollama/reference.py", OLLAMA_VERDICTS),
    "openai-responses": ("pytest_toolcall/providers/openai_responses/reference.py",
                         RESPONSES_VERDICTS),
}


def verdict(function: str, mutant: str, provider: str = "openai") -> tuple[str, str]:
    number = int(mutant.rpartition("__mutmut_")[2])
    table = DIALECTS[provider][1] if provider in DIALECTS else {}
    return table.get(function, {}).get(number, ("unclassified", "not in docs/mutation.md"))


def main() -> int:
    from pytest_toolcall.cli.mutation import MutationRun, render_text, run_mutation

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--provider", default="openai",
                        help="the dialect: " + ", ".join(DIALECTS) + " (default openai)")
    parser.add_argument("--source", default=None,
                        help="the file to mutate (default: the provider's chat reference)")
    parser.add_argument("--cases", default="wire.*,stream.*,errors.*")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--json", default=None, help="write the figures here")
    parser.add_argument("--verbose", action="store_true", help="print every escape's diff")
    args = parser.parse_args()
    if args.provider not in DIALECTS:
        parser.error(f"--provider {args.provider!r}: no verdicts for it; one of "
                     + ", ".join(DIALECTS))
    if args.source is None:
        args.source = DIALECTS[args.provider][0]

    started = time.perf_counter()
    result = run_mutation(MutationRun(root=REPO, files=[str(REPO / args.source)],
                                      providers=[args.provider], cases=args.cases.split(","),
                                      jobs=args.jobs))
    wall = time.perf_counter() - started
    if args.verbose:
        print(render_text(result))
        print()
    rows = [(e, *verdict(e.function, e.mutant, args.provider)) for e in result.escapes]
    tally = {k: sum(1 for _, v, _ in rows if v == k)
             for k in (_E, _O, _G, "unclassified")}
    n = result.tested
    print(f"provider: {args.provider}; source: {args.source}; cases: {args.cases} "
          f"({len(result.cases)} ran); jobs: {args.jobs}; cpus: {os.cpu_count()}")
    print(result.headline())
    print(f"raw kill rate: {result.caught}/{n} = {result.caught / n:.1%}")
    print(f"survivors: {tally[_E]} equivalent, {tally[_O]} outside the contract, {tally[_G]} gap, "
          f"{tally['unclassified']} unclassified")
    strict = n - tally[_E]
    contract = n - tally[_E] - tally[_O]
    rate_strict = result.caught / strict
    rate_contract = result.caught / contract
    print(f"kill rate of non-equivalent mutants (outside-the-contract survivors counted as "
          f"escapes): {result.caught}/{strict} = {rate_strict:.1%}")
    print(f"kill rate of mutants the ChatAdapter contract can see: {result.caught}/{contract} = "
          f"{rate_contract:.1%}  (target >= {TARGET_RATE:.0%}: "
          f"{'PASS' if rate_contract >= TARGET_RATE else 'MISS'})")
    per_second = n / wall
    print(f"speed: mutmut's mutant phase {result.mutants_per_second} mutants/s; whole run "
          f"{n} mutants in {wall:.1f} s = {per_second:.1f} mutants/s (mutmut {result.mutmut_seconds:.1f} s)"
          f"  (target >= {TARGET_SPEED:g}/s on 2 cores, mutant phase: "
          f"{'PASS' if (result.mutants_per_second or 0) >= TARGET_SPEED else 'MISS'})")
    print()
    print("survivors:")
    for escape, kind, reason in rows:
        print(f"  {kind:<12} {escape.mutant.rpartition('.')[2]:<55} {escape.file}:{escape.line}"
              f"  {reason}")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "mutants": n, "caught": result.caught, "escapes": len(result.escapes),
            "tally": tally, "kill_rate_raw": result.caught / n,
            "kill_rate_non_equivalent": rate_strict, "kill_rate_contract": rate_contract,
            "mutmut_mutants_per_second": result.mutants_per_second,
            "whole_run_mutants_per_second": per_second, "seconds": wall,
            "survivors": [{"mutant": e.mutant, "line": e.line, "verdict": k, "reason": r}
                          for e, k, r in rows]}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

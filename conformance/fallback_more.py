"""More structured-output cases (issue 29, family 4): what no earlier case streamed.

Two valid calls of the output tool in one answer (the contract: the first valid one wins), a
stream that ends in the middle of the call with no end marker (the partial arguments are no
value, however they could be "repaired"), and a fenced block in another language that holds a
JSON object that fits the schema, before the real ```` ```json ```` block.
"""

from __future__ import annotations

from pytest_toolcall.conformance.fallback import (
    DRAFT_PLAN,
    EMIT_PLAN,
    PLAIN,
    TEXT_PLAN,
    TOOL_PLAN,
    _fallback_case,
    _json,
)

from pytest_toolcall.cases import Case, ScriptedCall, Turn
from pytest_toolcall.run.fallbackrun import FallbackScript

__all__ = ["CASES", "CUT_ARGUMENTS", "PYTHON_FENCE_FIRST", "SECOND_PLAN"]

#: a second plan that fits the schema as well as the first, streamed after it
SECOND_PLAN = {"goal": "ship v2", "steps": ["publish"]}
#: the arguments of a call cut off mid-stream: a prefix of TOOL_PLAN that a partial-JSON repair
#: closes into {"goal": "ship v2", "steps": ["freeze", "tag"]}, which fits the schema
CUT_ARGUMENTS = '{"goal": "ship v2", "steps": ["freeze", "tag"'
#: the old plan shown in a ```python block (a dict literal that is valid JSON), then the answer
PYTHON_FENCE_FIRST = (f"The old plan was:\n```python\n{_json(DRAFT_PLAN)}\n```\nThe new one:\n"
                      f"```json\n{_json(TEXT_PLAN)}\n```\n")

CASES: list[Case] = [
    _fallback_case(
        id="fallback.first_valid_call_wins",
        title="Two valid calls of the tool: the first one is the value",
        why="Models call the structured-output tool more than once in one turn "
            "(langchain-ai/langchainjs #11022, 2026-06-03) and docs/fallback.md says the first "
            "call that parses and fits the schema wins; a collector keyed by tool name keeps "
            "overwriting and returns the last.",
        fallback=FallbackScript(tool=EMIT_PLAN, turn=Turn(text=PLAIN, tool_calls=(
            ScriptedCall(name="emit_plan", arguments=TOOL_PLAN, id="call_plan"),
            ScriptedCall(name="emit_plan", arguments=SECOND_PLAN, id="call_plan_2")))),
        expect="tool", value_=TOOL_PLAN, text_=PLAIN),
    _fallback_case(
        id="fallback.cut_call_not_repaired",
        title="A call cut off mid-stream (no end marker) is no value, whatever a repair makes "
              "of it",
        why="A stream that stops inside a call's arguments (max_tokens, a dropped connection) "
            "leaves a prefix that a partial-JSON parser 'repairs' into an object that fits the "
            "schema but was never sent: mastra-ai/mastra #24442 (2026-09-19) returned "
            "structured output so repaired as a complete object, langchain-ai/langchainjs "
            "#11469 (2026-08-25) as a finished tool call. Only a call the stream completed is "
            "a value; here the JSON in the text is.",
        fallback=FallbackScript(tool=EMIT_PLAN, cut=True, turn=Turn(
            text=_json(TEXT_PLAN),
            tool_calls=(ScriptedCall(name="emit_plan", arguments=CUT_ARGUMENTS,
                                     id="call_plan"),))),
        expect="json", value_=TEXT_PLAN, text_=_json(TEXT_PLAN)),
    _fallback_case(
        id="fallback.fence_other_language_json",
        title="A fenced block in another language that holds a fitting object is skipped",
        why="A model shows the old plan in a ```python block (a dict literal that is valid "
            "JSON) before the answer in a ```json block: taking every fenced block whatever its "
            "language, or a fence pattern that does not consume the language tag (it then "
            "takes a closing fence for an opening one, misses both blocks and finds the python "
            "block's object in the prose, as docs/fallback.md's own example did until "
            "2026-11-28), returns the old plan. Fence markers taken for the JSON fence: "
            "langgenius/dify #41958 (2026-09-08).",
        fallback=FallbackScript(tool=EMIT_PLAN, turn=Turn(text=PYTHON_FENCE_FIRST)),
        expect="json", value_=TEXT_PLAN, text_=PYTHON_FENCE_FIRST),
]

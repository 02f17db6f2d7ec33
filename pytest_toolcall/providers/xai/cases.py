"""Cases for the ``xai`` provider (issue 13): what xAI's Chat Completions asks beyond the OpenAI
wire.

xAI streams each tool call whole, in one chunk ("the function call is returned in whole in a
single chunk, not streamed across chunks": docs.x.ai/developers/tools/function-calling), the
arguments included, so an accumulator that takes only the id and name from a call's first
fragment loses them. grok-3-mini puts its chain of thought in ``reasoning_content`` (stream:
``delta.reasoning_content`` pieces) next to ``content``. xAI's ``completion_tokens`` leaves the
reasoning tokens out while ``total_tokens`` counts them. Its errors are flat, ``{"code":
"invalid-argument", "error": "<text>"}``, not OpenAI's ``{"error": {...}}``. Sources confirmed
2026-11-25 (``pytest_toolcall.providers.XAI``).
"""

from __future__ import annotations

from pytest_toolcall.cases import Case, ErrorReply, Step, Turn, Usage
from pytest_toolcall.run.checks import error_surfaced, matches_script, usage_reported
from pytest_toolcall.core.model import Reasoning

from pytest_toolcall.conformance._common import PARIS_TOKYO_TIME, case, one_step, reasoning_decoded
from pytest_toolcall.conformance.errors import provider_error

DIALECT = ("xai",)
#: a grok-3-mini thought, as the recorded streams open ("First, the user is asking ...")
_THOUGHT = ("First, the user is asking about the weather in Paris and in Tokyo. I have a "
            "function called get_weather; I should call it for both cities.")
_REASONING = (Reasoning(type="thinking", text=_THOUGHT),)
#: the recorded grok-3-mini stream's usage: completion 26 + reasoning 196 + prompt 291 = 513
_USAGE = Usage(input_tokens=291, output_tokens=26, total_tokens=513)
#: a live xAI 400 (a public client's fixture of bodies observed from api.x.ai)
_UNSUPPORTED = "Model grok-4.20-0309-non-reasoning does not support parameter reasoningEffort."


def _both(turn: Turn) -> tuple[Step, ...]:
    return (*one_step(turn, via="complete"), *one_step(turn, via="stream"))


CASES: list[Case] = [
    case(
        id="wire.xai_reasoning_content",
        dialects=DIALECT,
        title="grok-3-mini's reasoning_content is decoded as reasoning, apart from the text",
        why="In Chat Completions grok-3-mini returns its thinking in message.reasoning_content "
            "next to content (docs.x.ai reasoning guide; a recorded grok-3-mini answer in "
            "vercel/ai packages/xai fixtures); an adapter that folds it into the answer shows "
            "the user the model's scratchpad, one that ignores it loses it; confirmed "
            "2026-11-25.",
        steps=one_step(Turn(reasoning=_REASONING, text="", tool_calls=PARIS_TOKYO_TIME[:2])),
        checks=(matches_script, reasoning_decoded),
    ),
    case(
        id="stream.xai_reasoning_content",
        dialects=DIALECT,
        title="Streamed reasoning_content deltas are joined into the reasoning, not the text",
        why="grok-3-mini streams its thinking as delta.reasoning_content pieces (the first one "
            "with the role) before the calls (vercel/ai fixture xai-tool-call.chunks.txt, "
            "recorded 2026-02-10); accumulators that read only content and tool_calls drop it, "
            "those that read any string delta mix it into the answer; confirmed 2026-11-25.",
        steps=one_step(Turn(reasoning=_REASONING, text="Checking both cities.",
                            tool_calls=PARIS_TOKYO_TIME[:2]), via="stream"),
        checks=(matches_script, reasoning_decoded),
    ),
    case(
        id="stream.xai_whole_calls",
        dialects=DIALECT,
        title="Each call comes whole in one chunk: its arguments are in its first fragment",
        why="'With streaming, the function call is returned in whole in a single chunk, not "
            "streamed across chunks' (docs.x.ai/developers/tools/function-calling; the "
            "recorded stream's one tool_calls delta carries id, name and the whole arguments). "
            "OpenAI's first fragment carries arguments '' and accumulators written for it "
            "take only id and name from it: on xAI every call then has empty arguments; "
            "confirmed 2026-11-25.",
        steps=one_step(Turn(tool_calls=PARIS_TOKYO_TIME), via="stream"),
        checks=(matches_script,),
    ),
    case(
        id="wire.xai_usage_reasoning_tokens",
        dialects=DIALECT,
        title="Usage is read as sent: total_tokens counts the reasoning tokens "
              "completion_tokens leaves out",
        why="xAI's completion_tokens excludes the reasoning tokens, which "
            "completion_tokens_details.reasoning_tokens counts and total_tokens includes (the "
            "recorded grok-3-mini stream: 291 prompt + 26 completion + 196 reasoning = 513; "
            "Vertex AI's Grok guide: 'reasoning_tokens ... separated from the "
            "completion_tokens'); an adapter that recomputes the total from prompt and "
            "completion under-reports every reasoning turn, in the answer and in the stream's "
            "usage chunk; confirmed 2026-11-25.",
        steps=_both(Turn(reasoning=_REASONING, text="Sunny in both.", usage=_USAGE)),
        checks=(usage_reported,),
    ),
    case(
        id="wire.xai_error_body",
        dialects=DIALECT,
        title="xAI's flat error body {code, error} surfaces with its words and its code",
        why="xAI answers errors as {'code': 'invalid-argument', 'error': '<text>'}, not "
            "OpenAI's {'error': {...}} (live bodies quoted by public clients, 2026: an "
            "unsupported reasoningEffort, a wrong key, an unknown model); an adapter that reads "
            "only OpenAI's shape loses the code a caller branches on, or crashes on a string "
            "where it wanted an object; confirmed 2026-11-25.",
        steps=one_step(Turn(error=ErrorReply(status=400, message=_UNSUPPORTED,
                                             code="invalid-argument")), expect="error"),
        checks=(error_surfaced(must_contain=_UNSUPPORTED), provider_error(retryable=False)),
    ),
]

"""Cases for the ``llamacpp`` provider (issue 13): what llama.cpp's llama-server asks beyond the
OpenAI wire.

llama-server (with its default ``--reasoning-format auto``) puts the chain of thought in
``reasoning_content`` next to ``content`` and reads it back from the history into the chat
template, which models such as gpt-oss rely on after a tool call. Its call ids are 32 random
letters and digits with no ``call_`` prefix. A request with tools to a server started without
the Jinja template is a 500 that no retry heals. Sources and dates:
``pytest_toolcall.providers.LLAMACPP``.
"""

from __future__ import annotations


from pytest_toolcall.cases import Case, ErrorReply, ScriptedCall, Step, Turn
from pytest_toolcall.run.checks import error_surfaced, matches_script
from pytest_toolcall.providers.llamacpp.dialect import JINJA_REQUIRED, call_id
from pytest_toolcall.core.model import Reasoning

from pytest_toolcall.conformance._common import (PARIS_TOKYO_TIME, answered,
                                                 call_ids_replayed_check, case,
                                                 reasoning_content_cases, request)
from pytest_toolcall.conformance.errors import provider_error

DIALECT = ("llamacpp",)
#: a gpt-oss analysis as llama-server hands it over in reasoning_content
_THOUGHT = ("The user wants the weather in Paris and Tokyo and the time. I should call "
            "get_weather twice, then get_time.")
#: llama-server's call ids: 32 random letters and digits, no prefix (gen_tool_call_id)
LLAMA_CALLS = tuple(
    ScriptedCall(name=c.name, arguments=c.arguments, id=call_id("llamacpp-case", k))
    for k, c in enumerate(PARIS_TOKYO_TIME[:2]))
#: the whole 500 body of a request with tools to a server started without --jinja
_JINJA_BODY = ('{"error":{"code":500,"message":"' + JINJA_REQUIRED
               + '","type":"server_error"}}')


_FIRST = Turn(reasoning=(Reasoning(type="thinking", text=_THOUGHT),),
              tool_calls=PARIS_TOKYO_TIME[:2])


#: the calls go back with llama-server's ids exactly as they came, on the calls and the results
call_ids_verbatim = call_ids_replayed_check(
    "wire.llamacpp.call_ids", [c.id for c in LLAMA_CALLS], "llama-server",
    hint="keep a call id as an opaque string: llama-server's are 32 letters and digits with no "
         "'call_' prefix; never add one, trim or re-mint them")


#: the calls with llama-server's ids, then their history sent back
_ID_STEPS = (
    Step(request=request(), reply=Turn(tool_calls=LLAMA_CALLS)),  # type: ignore[arg-type]
    Step(request=request(*answered(Turn(tool_calls=LLAMA_CALLS))),  # type: ignore[arg-type]
         reply=Turn(text="Done.")),
)

CASES: list[Case] = [
    *reasoning_content_cases(
        "llamacpp", sender="llama-server", first=_FIRST, final="Sunny in both.",
        because="llama-server reads it back into the chat template (common/chat.cpp "
            "common_chat_msgs_parse_oaicompat), and gpt-oss relies on its analysis after a tool "
            "call",
        why="With --reasoning-format auto (the default; 'deepseek: puts thoughts in "
            "message.reasoning_content', tools/server/README.md) llama-server answers with "
            "reasoning_content next to content, and reads an assistant message's "
            "reasoning_content back into the chat template (common/chat.cpp "
            "common_chat_msgs_parse_oaicompat; ggml-org/llama.cpp PR #16934: gpt-oss and "
            "MiniMax-M2 'were trained for this'; openai/gpt-oss PR #225: gpt-oss is 'reliant on "
            "reasoning content being included in subsequent requests after a toolcall'). An "
            "adapter that folds it into the text or drops it loses the model's plan between "
            "tool rounds; confirmed 2026-11-25.",
        why_stream="llama-server streams the chain of thought as delta.reasoning_content diffs "
            "before the content and tool_calls diffs (tools/server/server-task.cpp; "
            "common/chat.cpp common_chat_msg_diff_to_json_oaicompat; PR #12379 'streaming of "
            "tool calls and thoughts'); an accumulator that reads only content and tool_calls "
            "cannot send it back; confirmed 2026-11-25."),
    case(
        id="wire.llamacpp_call_ids_replayed",
        dialects=DIALECT,
        title="llama-server's call ids (32 letters and digits, no prefix) go back as they came",
        why="llama-server makes a call id with random_string(): 32 letters and digits and no "
            "'call_' prefix (tools/server/server-common.cpp gen_tool_call_id); an adapter that "
            "normalises ids to OpenAI's 'call_...' look, or re-mints them, breaks the pairing of "
            "calls and results the chat template renders; confirmed 2026-11-25.",
        steps=_ID_STEPS,
        checks=(matches_script, call_ids_verbatim),
    ),
    case(
        id="errors.llamacpp_jinja_required",
        dialects=DIALECT,
        title="The 500 'tools param requires --jinja flag' surfaces with its words, final",
        why="A llama-server started without the Jinja chat template answers a request with "
            "tools with 500 {error: {code: 500, message: 'tools param requires --jinja flag', "
            "type: 'server_error'}} (tools/server/server-common.cpp throws a "
            "std::runtime_error, which server.cpp's ex_wrapper makes a 500; public client "
            "fixtures quote the body). The status says 'retry', yet the same request fails "
            "until the server is restarted with --jinja: a caller must see the words and stop; "
            "confirmed 2026-11-25.",
        steps=(Step(request=request(), expect="error", reply=Turn(error=ErrorReply(
            status=500, raw_body=_JINJA_BODY,
            headers={"content-type": "application/json; charset=utf-8"}))),),
        checks=(error_surfaced(must_contain=JINJA_REQUIRED), provider_error(retryable=False)),
    ),
]

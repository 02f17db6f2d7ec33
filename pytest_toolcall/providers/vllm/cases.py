"""Cases for the ``vllm`` provider (issue 13): what ``vllm serve`` asks beyond the OpenAI wire.

vLLM's reasoning parsers put the chain of thought in ``reasoning`` (``reasoning_content`` until
2026-01), and its chat templates want it back on the assistant message (interleaved thinking);
the last arguments piece of a streamed call rides on the finish chunk; a named ``tool_choice``
finishes with ``"stop"``; an error inside a stream is followed by ``data: [DONE]``; its request
model refuses ``tools: []`` and ``stream_options`` without ``stream: true``; and a server
started without a tool-call parser refuses ``tool_choice: "auto"``. Sources: vLLM's server code
(vllm-project/vllm, ``vllm/entrypoints/openai/chat_completion/{serving,protocol}.py``) and the
issues named in each case's ``why``, confirmed 2026-11-25.
"""

from __future__ import annotations

from pytest_toolcall.cases import Case, ErrorReply, ScriptedCall, Step, StreamPlan, Turn
from pytest_toolcall.run.checks import error_surfaced, matches_script
from pytest_toolcall.providers.vllm.dialect import AUTO_NEEDS_PARSER
from pytest_toolcall.core.model import ChatRequest, NamedToolChoice, Reasoning, UserMessage

from pytest_toolcall.conformance._common import (PARIS_TOKYO_TIME, case, reasoning_content_check,
                                                 reasoning_decoded, reasoning_replayed_steps,
                                                 request, wire_and_stream)
from pytest_toolcall.conformance.errors import provider_error

DIALECT = ("vllm",)
_THOUGHT = ("The user asks for two cities. I will call get_weather for Paris and for "
            "Tokyo.\n")


def _reasoning_steps(via: str) -> tuple[Step, ...]:
    first = Turn(reasoning=(Reasoning(type="thinking", text=_THOUGHT),),
                 text="Checking both cities." if via == "complete" else None,
                 tool_calls=PARIS_TOKYO_TIME[:2])
    return reasoning_replayed_steps(first, via=via, final="Sunny in both.")


#: the assistant message that replays the calls carries the first turn's thinking in
#: ``reasoning``, unchanged (the field vLLM's chat templates read)
reasoning_replayed = reasoning_content_check(
    "wire.vllm.reasoning_replayed", "the model", field="reasoning",
    carries=", in 'reasoning', the thinking the model sent with these calls",
    hint="send AssistantMessage.reasoning back as 'reasoning' on the assistant "
         "message with the tool_calls: vLLM's chat templates render it "
         "(interleaved thinking) and drop 'reasoning_content' on input (vllm "
         "#38488)")


#: a call whose arguments stream in pieces of 3: the last one ('"}') rides on the finish chunk
_FINISH_PIECE = Turn(tool_calls=(ScriptedCall(name="get_weather", arguments={"city": "Paris"},
                                              id="chatcmpl-tool-8c1f0b6e2d4a9f37"),),
                     stream=StreamPlan(fragment_size=3))

_NAMED = ChatRequest(messages=(UserMessage(content="Weather in Paris?"),),
                     tools=request().tools, tool_choice=NamedToolChoice(name="get_weather"))
#: vLLM's answer to a named tool_choice: the call, and finish_reason "stop"
_NAMED_TURN = Turn(tool_calls=(ScriptedCall(name="get_weather", arguments={"city": "Paris"},
                                            id="chatcmpl-tool-2f7d4c9a1b3e5f60"),),
                   finish_reason="stop")

CASES: list[Case] = [
    *wire_and_stream(
        "vllm_reasoning_replayed", _reasoning_steps, dialects=DIALECT,
        checks=(matches_script, reasoning_decoded, reasoning_replayed),
        title="message.reasoning is decoded apart from the text and sent back with the calls",
        why="With --reasoning-parser vLLM answers the chain of thought in message.reasoning "
            "(PR #27752; reasoning_content was removed by PR #33402, 2026-01: dify-official-"
            "plugins #2740, llama_index #21075 lost it); the chat templates of interleaved-"
            "thinking models (Qwen3, MiniMax-M2, Kimi K2) render it from the assistant message "
            "sent back, which vLLM reads as 'reasoning' (issue #38488); confirmed 2026-11-25.",
        stream_title="Streamed delta.reasoning pieces are joined, kept and sent back with the "
            "calls",
        stream_why="vLLM streams the chain of thought as delta.reasoning pieces before the content "
            "and tool_calls deltas (serving.py; DeltaMessage.reasoning); readers that know only "
            "reasoning_content lose it since the rename (nilAI PR #182, multi-llm-ts PR #25); "
            "confirmed 2026-11-25."),
    case(
        id="stream.vllm_arguments_on_finish_chunk",
        dialects=DIALECT,
        title="The last arguments piece that rides on the finish chunk is kept",
        why="When a call ends, vLLM's stream generator sends the arguments it has not streamed "
            "yet in the same chunk as finish_reason 'tool_calls' (the 'unstreamed tool arg "
            "tokens' check of serving.py's finish branch); a reader that handles the finish "
            "before the delta, or skips the delta of a finishing chunk, cuts the JSON's "
            "closing '\"}'; confirmed 2026-11-25.",
        steps=(Step(request=request(), via="stream", reply=_FINISH_PIECE),),
        checks=(matches_script,),
    ),
    case(
        id="wire.vllm_named_choice_finish_stop",
        dialects=DIALECT,
        title="A named tool_choice's call comes with finish_reason 'stop' and is kept",
        why="vLLM follows 'tool_calls for auto or required tool calls, and stop for named tool "
            "calls' (serving.py, stream and full generators): an adapter that reads tool calls "
            "only when finish_reason is 'tool_calls' loses every forced call; confirmed "
            "2026-11-25.",
        steps=(Step(request=_NAMED, reply=_NAMED_TURN),
               Step(request=_NAMED, reply=_NAMED_TURN, via="stream")),
        checks=(matches_script,),
    ),
    case(
        id="wire.vllm_no_empty_tools",
        dialects=DIALECT,
        title="A request without tools leaves the tools key out (vLLM refuses tools: [])",
        why="vLLM's request model answers 400 '`tools` must not be an empty array. Either "
            "provide at least one tool or omit the field entirely.' (protocol.py "
            "check_tool_usage; a coding harness hit it on every tool-less request to a local "
            "vLLM, penguin-harness 2026-07-22); confirmed 2026-11-25.",
        steps=(Step(request=request(tools=()), reply=Turn(text="Hello.")),
               Step(request=request(tools=()), reply=Turn(text="Hello."), via="stream")),
        checks=(matches_script,),
    ),
    case(
        id="wire.vllm_stream_options_only_when_streaming",
        dialects=DIALECT,
        title="stream_options goes out with stream: true only",
        why="vLLM's request model refuses stream_options on a request that does not stream: "
            "400 'Stream options can only be defined when `stream=True`.' (protocol.py "
            "validate_stream_options); an adapter that always sends include_usage fails every "
            "non-streamed call; confirmed 2026-11-25.",
        steps=(Step(request=request(), reply=Turn(text="Sunny.")),
               Step(request=request(), reply=Turn(text="Sunny."), via="stream")),
        checks=(matches_script,),
    ),
    case(
        id="stream.vllm_error_then_done",
        dialects=DIALECT,
        title="An error event followed by data: [DONE] is an error, never a short answer",
        why="vLLM's stream generator catches a failure, yields data: {\"error\": {...}} "
            "(GenerationError: 'Internal server error', type InternalServerError, code 500) and "
            "then the same final data: [DONE] as a good stream (serving.py); a reader that "
            "skips chunks without choices sees a clean end and returns what came before; "
            "confirmed 2026-11-25.",
        steps=(Step(request=request(), via="stream", expect="error",
                    reply=Turn(text="The weather in Paris is",
                               stream=StreamPlan(error_after=2))),),
        checks=(error_surfaced(must_contain="Internal server error"),
                provider_error(retryable=True)),
    ),
    case(
        id="errors.vllm_auto_tool_choice_unconfigured",
        dialects=DIALECT,
        title="'\"auto\" tool choice requires --enable-auto-tool-choice' surfaces, not retried",
        why="A vLLM server started without --enable-auto-tool-choice and --tool-call-parser "
            "answers every request with tools (tool_choice defaults to 'auto') 400 '\"auto\" "
            "tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set' "
            "(serving_chat.py); it is the server's configuration, no retry heals it, and the "
            "caller must see vLLM's words to fix it (Open WebUI, NVIDIA NIM, LiteLLM reports); "
            "confirmed 2026-11-25.",
        steps=(Step(request=request(), expect="error", reply=Turn(error=ErrorReply(
            status=400, message=AUTO_NEEDS_PARSER, type="BadRequestError"))),),
        checks=(error_surfaced(must_contain="--enable-auto-tool-choice"),
                provider_error(retryable=False)),
    ),
]

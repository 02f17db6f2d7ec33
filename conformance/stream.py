"""The ``stream`` family: tool calls that arrive in fragments, cut anywhere, with quirks."""

from __future__ import annotations

from pytest_toolcall.cases import Case, ErrorReply, ScriptedCall, Step, StreamPlan, Turn
from pytest_toolcall.run.checks import (
    error_surfaced,
    matches_script,
    same_result_both_ways,
    usage_reported,
)

from pytest_toolcall.conformance._common import (
    PARIS_TOKYO_TIME,
    TEXT_ARGUMENTS,
    calls,
    case,
    one_step,
    replayed_step,
    request,
)
from pytest_toolcall.conformance.wire import history_intact, replay_arguments_are_json


def _turn(tool_calls: tuple[ScriptedCall, ...] = PARIS_TOKYO_TIME, text: str | None = None,
          **plan: object) -> Turn:
    return Turn(text=text, tool_calls=tool_calls, stream=StreamPlan(**plan))  # type: ignore[arg-type]


def _stream(reply: Turn, **kw: object) -> tuple[Step, ...]:
    return one_step(reply, via="stream", **kw)  # type: ignore[arg-type]


def _fragment_quirk(quirk: str, title: str, why: str, **fields: object) -> Case:
    """A case of two calls streamed in 3-character fragments that ``quirk`` reshapes (the id
    and name fragments of a call)."""
    return case(dialects=TEXT_ARGUMENTS, title=title, why=why, quirk=quirk,
                steps=_stream(_turn(PARIS_TOKYO_TIME[:2], quirks={quirk}, fragment_size=3)),
                checks=(matches_script,), **fields)


_ERROR_TEXT = "The server had an error while processing your request. Sorry about that!"
# two thirds of the text's UTF-8 bytes are continuation bytes: random cuts split characters
_DENSE_TEXT = "Ça va ? " + "東京は晴れ、パリは曇り、ベルリンは雪。" * 6 + " 🚀"
# a search over a pasted document: one event of about 600 KB, past the line buffers of common
# stream readers (aiohttp: 128 KiB by default, 512 KiB with a larger read_bufsize)
_PASTED = "Quarterly report, section 4: revenue by region and product line. " * 9_000
_OVERSIZED = calls(("search-docs_v2", {"query": _PASTED}))
_NON_ASCII = calls(("get_weather", {"city": "Zürich"}),
                   ("get_weather", {"city": "東京 🚀", "unit": "celsius"}))

CASES: list[Case] = [
    case(
        id="stream.single_call_fragmented",
        title="One call whose arguments arrive in many small fragments",
        why="Arguments arrive a few characters at a time; each fragment must be appended to the "
            "call's buffer and parsed once at the end.",
        steps=_stream(_turn(calls(("get_weather", {"city": "Paris", "unit": "celsius"})),
                            fragment_size=2)),
        checks=(matches_script,),
    ),
    case(
        id="stream.text_fragmented",
        title="Streamed text is reassembled in order",
        why="Text deltas dropped or reordered lose the model's answer.",
        steps=_stream(_turn((), text="Paris: 21°C, sunny. Tokyo: 18°C, rain.", fragment_size=3)),
        checks=(matches_script,),
    ),
    case(
        id="stream.parallel_sequential",
        title="Parallel calls streamed one after the other stay separate",
        why="langchain #34807 / litellm #5231: parallel calls merged into one when fragments are "
            "not keyed on their index.",
        steps=_stream(_turn(PARIS_TOKYO_TIME)),
        checks=(matches_script,),
    ),
    case(
        id="stream.parallel_interleaved",
        dialects=(*TEXT_ARGUMENTS, "openai-responses"),
        title="Parallel calls whose fragments interleave stay separate",
        why="OpenAI's stream types key every tool-call fragment on its index ('index' is the "
            "one required field of a delta's tool call, 'id' is optional: openai-python 3.57.0 "
            "ChoiceDeltaToolCall, whose stream helper accumulates tool_calls[index]; confirmed "
            "2026-11-25), so fragments of parallel calls may interleave; an adapter that "
            "appends to 'the current call' mixes them (adk-python #1038, through LiteLLM: "
            "{\"project_id\": 3}{\"project_id\": 9}).",
        steps=_stream(_turn(PARIS_TOKYO_TIME, quirks={"interleave"}, fragment_size=3)),
        checks=(matches_script,),
    ),
    case(
        id="stream.id_name_once",
        dialects=(*TEXT_ARGUMENTS, "openai-responses"),
        title="id and name come only on a call's first fragment",
        why="litellm #11407: an adapter expected the id on every chunk; OpenAI sends id and name "
            "once, then only argument fragments.",
        steps=_stream(_turn(PARIS_TOKYO_TIME[:2], fragment_size=2)),
        checks=(matches_script,),
    ),
    case(
        id="stream.sse_data_without_space",
        title="SSE lines without the space after 'data:' are read",
        why="The SSE spec makes the space after the colon optional and OpenAI-compatible "
            "gateways omit it (Spring-based proxies: openai-python #498; a private gateway: "
            "lidge-jun/opencodex #1170, 2026-08; confirmed 2026-11-25); OpenAI and no service "
            "in the registry do, so it runs for compatible_with={'*'}. An adapter that cuts a "
            "fixed 'data: ' prefix loses the first character of every event.",
        dialects=TEXT_ARGUMENTS,
        quirk="data_no_space",
        steps=_stream(_turn(PARIS_TOKYO_TIME[:2], text="Checking.", quirks={"data_no_space"})),
        checks=(matches_script,),
    ),
    case(
        id="stream.sse_comment_lines",
        title="SSE comment lines before and between events are skipped",
        why="OpenRouter keeps streams open with SSE comment lines (': OPENROUTER PROCESSING'), "
            "up to dozens before the first data line; its streaming docs warn that a parser "
            "that json-decodes them crashes (openrouter.ai/docs/api-reference/streaming, "
            "confirmed 2026-11-23). DeepSeek sends ': keep-alive' comments while a request "
            "waits (api-docs.deepseek.com/quick_start/rate_limit: 'continuously return SSE "
            "keep-alive comments', confirmed 2026-11-25). The SSE spec says a line starting "
            "with ':' is ignored. The openrouter fake sends OpenRouter's own comment text "
            "(confirmed 2026-11-25). It runs for the services whose registry entry declares "
            "the quirk sse_comments.",
        dialects=TEXT_ARGUMENTS,
        quirk="sse_comments",
        steps=_stream(_turn(PARIS_TOKYO_TIME[:2], text="Checking.", quirks={"sse_comments"})),
        checks=(matches_script,),
    ),
    case(
        id="stream.call_in_role_chunk",
        dialects=TEXT_ARGUMENTS,
        title="A tool call that starts in the role chunk is not lost",
        why="Real OpenAI streams mostly put the first tool-call fragment in the same chunk as "
            "role: assistant (23 of 34 recorded tool-call streams, every one with a single "
            "call; the default of the fake since 2026-11-23), and some servers do it for "
            "parallel calls too (this case); an adapter that skips the role chunk, or reads "
            "only one field of a delta, loses the call.",
        steps=_stream(_turn(PARIS_TOKYO_TIME[:2], quirks={"call_in_role_chunk"})),
        checks=(matches_script,),
    ),
    _fragment_quirk(
        "repeat_id_name", id="stream.id_name_repeated",
        title="id and name repeated on every fragment are not concatenated",
        why="Fireworks repeats id, type and name on every fragment of a call (litellm #8990, "
            "2025-03; raw Fireworks chunks in SillyTavern PR #5948, 2026-08; confirmed "
            "2026-11-25); langchain #40041 and the openai stream helper concatenate every string "
            "field, so a client reads id 'call_Acall_A' and name 'get_weatherget_weather'.",
    ),
    _fragment_quirk(
        "null_id_name", id="stream.id_name_null",
        title="Explicit null id and name on a call's later fragments keep the first ones",
        why="SGLang serialises a call's continuation fragments with \"id\": null and "
            "\"function\": {\"name\": null} (sgl-project/sglang PR #35542, 2026-08-19, open: "
            "its ToolCall deltas are dumped with None as null), and so does the OpenCode Zen "
            "gateway (xintaofei/deepseek-acp #4, 2026-08-17, raw chunks quoted); OpenAI leaves "
            "the keys out. A parser that assigns every id or name it is given "
            "(`if (call.id !== undefined)`) erases the call's id and name (deepseek-acp #4: "
            "unknown tool \"\"), one that starts a call on any id key splits it. Confirmed "
            "2026-11-28.",
    ),
    case(
        id="stream.index_stuck_at_zero",
        dialects=(*TEXT_ARGUMENTS, "openai-responses"),
        quirk="index_stuck_at_zero",
        title="Calls that all arrive at index 0, with distinct ids, stay separate",
        why="Ollama's OpenAI-compatible endpoint sends every call of a parallel batch at index "
            "0 (ollama #15457, 0.20.x, 2026-04; litellm #33678; confirmed 2026-11-25); keyed on "
            "index alone they merge into {\"path\":\"a\"}{\"path\":\"b\"}. "
            "On the Responses wire the same merge follows from keying on output_index (litellm "
            "#21331: a stream bridge put every parallel call on index 0).",
        steps=_stream(_turn(PARIS_TOKYO_TIME, quirks={"index_stuck_at_zero"})),
        checks=(matches_script,),
    ),
    case(
        id="stream.index_missing",
        dialects=(*TEXT_ARGUMENTS, "openai-responses"),
        quirk="index_missing",
        title="Tool-call fragments without an index are still assembled",
        why="Gemini's OpenAI-compatible endpoint streams tool calls without 'index' "
            "(openai-python #2806, 2025-12, and PR #3246, 2026-05; AstrBot #6692, 2026-03; "
            "confirmed 2026-11-25), as Ollama's did before 0.4.7 (ollama #7881); adapters "
            "indexing tool_calls[index] crash.",
        steps=_stream(_turn(PARIS_TOKYO_TIME, quirks={"index_missing"})),
        checks=(matches_script,),
    ),
    case(
        id="stream.bytewise",
        title="A stream delivered one byte at a time, cutting UTF-8 and SSE lines",
        why="Parsers that decode each network read on its own break multi-byte characters and "
            "half lines; real networks cut anywhere.",
        steps=_stream(_turn(_NON_ASCII, text="Voilà:", chunking="bytewise", fragment_size=40)),
        checks=(matches_script,),
    ),
    case(
        id="stream.unicode_line_separators",
        dialects=("openai", "vllm", "llamacpp"),
        title="U+2028 and U+2029 inside streamed text and arguments do not end an event line",
        why="JSON leaves U+2028 and U+2029 raw inside strings, and OpenAI streams them when the "
            "model writes them (openai/openai-python #1230: delta.content cut at a raw U+2028, "
            "JSONDecodeError). A stream reader built on str.splitlines (httpx's iter_lines, "
            "httpx-sse before 0.4.2: florimondmanca/httpx-sse #34; langchain-ai/langgraph "
            "#2560; modelcontextprotocol/python-sdk #1356) cuts the data line there; the event "
            "format ends lines at CR LF, LF or CR only (html.spec.whatwg.org, "
            "server-sent-events, end-of-line). Runs where the raw character is confirmed: "
            "OpenAI (the report above) and vLLM, whose stream generator writes each chunk with "
            "pydantic's model_dump_json (chat_completion_stream_generator: "
            "chunk.model_dump_json(exclude_unset=True)), which leaves U+2028 and U+2029 raw "
            "(measured with pydantic 2.13), and llama.cpp's server, whose format_oai_sse writes "
            "each chunk with safe_json_to_str: nlohmann::json's dump without ensure_ascii, "
            "which escapes only code points below U+0020 (serializer::dump_escaped). "
            "Confirmed 2026-11-25.",
        steps=_stream(_turn(calls(("get_weather", {"city": "Saint-Étienne\u2029(Loire)"})),
                            text="As you wrote:\u2028« Saint-Étienne »", fragment_size=8)),
        checks=(matches_script,),
    ),
    case(
        id="stream.any_chunking",
        title="Any chunking of the stream gives the same result (hypothesis)",
        why="Chunk-boundary bugs hide behind realistic chunking; hypothesis searches the cut "
            "points and shrinks a failure to the fewest cuts. The text is dense in multi-byte "
            "characters so that random cuts split one (with 'Ça va' alone they almost never did).",
        steps=_stream(_turn(_NON_ASCII + PARIS_TOKYO_TIME[2:], text=_DENSE_TEXT,
                            chunking="hypothesis", fragment_size=60, hypothesis_examples=10)),
        checks=(matches_script,),
    ),
    case(
        id="stream.zero_args",
        dialects=(*TEXT_ARGUMENTS, "anthropic", "openai-responses"),
        title="A streamed zero-argument call (arguments \"\" only) completes as {}",
        why="pydantic-ai #1654 / litellm #5063: a zero-argument tool in a stream never completed "
            "or replayed as \"\".",
        steps=replayed_step(_turn(calls(("get_time", ""))), via="stream", final="It is noon."),
        checks=(matches_script, replay_arguments_are_json, history_intact),
    ),
    case(
        id="stream.zero_args_null",
        dialects=TEXT_ARGUMENTS,
        quirk="arguments_null",
        title="A streamed call whose arguments are null completes as {}",
        why="pydantic-ai #1654: arguments null in a stream left the call incomplete. Servers "
            "other than OpenAI send it (Qwen3 on a local OpenAI-compatible server, 2025-05; "
            "confirmed 2026-11-25); OpenAI streams '' fragments, so it runs for "
            "compatible_with={'*'}. Anthropic's tool_use block without any input_json_delta is "
            "stream.anthropic_zero_args_blocks (litellm #5063).",
        steps=_stream(_turn(calls(("get_time", None)))),
        checks=(matches_script,),
    ),
    case(
        id="stream.malformed_arguments",
        dialects=(*TEXT_ARGUMENTS, "anthropic", "openai-responses"),
        title="Malformed streamed arguments become a parse error; the stream is read to the end",
        why="A parse failure mid-stream must not abandon the stream or the other calls "
            "(seed 003: the whole stream is read once).",
        steps=_stream(_turn((ScriptedCall(id="call_001", name="get_weather", arguments='{"city":'),
                             ScriptedCall(id="call_002", name="get_time", arguments="{}")),
                            text="Checking.")),
        checks=(matches_script,),
    ),
    case(
        id="stream.mid_stream_error",
        title="An error event in the middle of a stream raises a typed error",
        why="A stream that carries an error must not end as a silent, partial success.",
        steps=_stream(_turn(PARIS_TOKYO_TIME, error_after=3,
                            error=ErrorReply(status=200, type="server_error",
                                             message=_ERROR_TEXT)), expect="error"),
        checks=(error_surfaced(must_contain=_ERROR_TEXT),),
    ),
    case(
        id="stream.oversized_line",
        title="One stream event larger than a line buffer (600 KB of arguments) is read whole",
        why="Providers send a call's arguments, or a batched reasoning trace, as one event when "
            "it is ready at once: DeepSeek-V3.2 and Kimi data lines past 128 KB "
            "(NVIDIA/TensorRT-LLM PR #13952), OpenRouter reasoning providers batching the "
            "trace into one chunk (open-webui PR #24928), tool-call payloads of MCP tools "
            "(ansible-ai-connect-service #2000). A reader with a fixed line buffer (aiohttp's "
            "readuntil: 'Chunk too big' past 128 KiB, LineTooLong past 512 KiB, "
            "microsoft/Agents-for-python #507) ends the stream there. Confirmed 2026-11-25.",
        steps=_stream(_turn(_OVERSIZED, fragment_size=10_000_000)),
        checks=(matches_script,),
    ),
    case(
        id="stream.truncated",
        title="A stream cut off before the answer ends is an error, never a silent success",
        why="Connections drop; an adapter that returns what it has so far hands the loop a call "
            "with half its arguments as if the model had finished. The cut falls before the "
            "event that ends the answer (finish_reason, message_stop, response.completed, "
            "finishReason, done): a stream that loses [DONE] alone is whole, and no SDK tells "
            "it from one that ends (openai, groq, mistralai, zai read 2026-11-28).",
        steps=_stream(_turn(PARIS_TOKYO_TIME, truncate_after=4), expect="error"),
        checks=(error_surfaced(),),
    ),
    case(
        id="stream.provider_error",
        title="A 400 answer to a stream request surfaces the provider's message",
        why="Adapters that start parsing SSE before checking the status lose the error body.",
        steps=_stream(Turn(error=ErrorReply(
            status=400, code="invalid_value", param="tools[0].function.name",
            message="Invalid 'tools[0].function.name': string does not match pattern. Expected "
                    "a string that matches the pattern '^[a-zA-Z0-9_-]+$'.")), expect="error"),
        checks=(error_surfaced(must_contain="string does not match pattern"),),
    ),
    case(
        id="stream.usage_chunk",
        dialects=TEXT_ARGUMENTS,
        title="Usage from the final chunk (choices: []) is reported",
        why="With include_usage, OpenAI sends usage in one more chunk with an empty choices "
            "list; adapters that index choices[0] crash or drop the usage.",
        needs={"usage"},
        steps=_stream(_turn(calls(("get_time", "{}")))),
        checks=(usage_reported,),
    ),
    case(
        id="stream.same_as_complete",
        title="stream() and complete() give the same result for the same answer",
        why="Two code paths drift apart: the streamed path forgets text, usage or the finish "
            "reason that the non-streamed path reads.",
        steps=(Step(request=request(), reply=_turn(PARIS_TOKYO_TIME, text="Checking."),
                    via="complete"),
               Step(request=request(), reply=_turn(PARIS_TOKYO_TIME, text="Checking."),
                    via="stream")),
        checks=(same_result_both_ways, matches_script),
    ),
]

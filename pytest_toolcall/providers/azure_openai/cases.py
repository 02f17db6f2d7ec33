"""Cases for the ``azure-openai`` provider (issue 13): what Azure OpenAI asks beyond the OpenAI wire.

Azure's content filter (on by default) opens every stream with a chunk of its own: ``choices:
[]``, an empty id, model and object, and the prompt's ``prompt_filter_results``; every choice
after it carries ``content_filter_results``. A stream reader that indexes ``choices[0]`` on every
chunk crashes on the first one (IndexError: list index out of range). A completion the filter
withheld ends with ``finish_reason: "content_filter"``; a prompt it refused is a 400 with code
``content_filter`` (innererror ``ResponsibleAIPolicyViolation``) that no retry cures. Sources
and dates: ``pytest_toolcall.providers.AZURE_OPENAI``.
"""

from __future__ import annotations

from pytest_toolcall.cases import Case, ErrorReply, Step, StreamPlan, Turn
from pytest_toolcall.run.checks import matches_script

from pytest_toolcall.conformance._common import PARIS_TOKYO_TIME, calls, case, request
from pytest_toolcall.conformance.errors import error_surfaced, provider_error

DIALECT = ("azure-openai",)

CASES: list[Case] = [
    case(
        id="stream.azure_prompt_filter_chunk",
        dialects=DIALECT,
        title="A stream that opens with Azure's prompt-filter chunk (choices: []) is read",
        why="Azure OpenAI's content filter sends a first chunk {choices: [], created: 0, id: '', "
            "model: '', object: '', prompt_filter_results: [...]} before the role chunk (recorded "
            "streams: InternLM/MindSearch #310, 2025-07; CoderCookE/vim-llm-agent PR #37; a "
            "2026-02 gpt-5.2-chat tool-call stream in public test data). Readers that index "
            "choices[0] on every chunk crash with IndexError (AbanteAI mentat #429, "
            "pydantic/pydantic-ai #164, pydantic/logfire #64, langfuse #2833, seratch/ChatGPT-"
            "in-Slack PR #49); confirmed 2026-11-25.",
        steps=(Step(request=request(), via="stream", reply=Turn(
            text="Checking.", tool_calls=PARIS_TOKYO_TIME, stream=StreamPlan(fragment_size=4))),),
        checks=(matches_script,),
    ),
    case(
        id="stream.azure_content_filter_results",
        dialects=DIALECT,
        title="content_filter_results on every streamed choice is not text and not a call",
        why="Each Azure chunk's choice carries content_filter_results next to delta ({} on the "
            "role, tool-call and finish chunks, the category verdicts on text chunks: the "
            "recorded 2026 gpt-5.4-mini and gpt-5.2-chat streams; quarkus-langchain4j's Azure "
            "fixture 'generated from a true API call'). A reader that takes any string it finds "
            "in a choice as text, or a choice without a usable delta as the end, gets the answer "
            "wrong; confirmed 2026-11-25.",
        steps=(Step(request=request(), via="stream", reply=Turn(
            text="Sunny in Paris.", stream=StreamPlan(fragment_size=3))),),
        checks=(matches_script,),
    ),
    case(
        id="wire.azure_content_filter_finish",
        dialects=DIALECT,
        title="A completion Azure's filter withheld reports finish_reason content_filter",
        why="When Azure's content filter withholds the completion, the answer comes back with "
            "finish_reason 'content_filter' and choices[].content_filter_results showing "
            "filtered: true (learn.microsoft.com Azure OpenAI REST reference and content "
            "filtering concepts). An adapter that maps every unknown reason to 'stop' hands the "
            "caller a cut answer as if complete; confirmed 2026-11-25.",
        steps=(Step(request=request(), reply=Turn(text="The answer",
                                                  finish_reason="content_filter")),
               Step(request=request(), via="stream", reply=Turn(
                   text="The answer", finish_reason="content_filter"))),
        checks=(matches_script,),
    ),
    case(
        id="errors.azure_prompt_filtered",
        dialects=DIALECT,
        title="A prompt Azure's content filter refused is a final 400 with code content_filter",
        why="Azure answers a prompt its filter refuses with 400 {error: {message: 'The response "
            "was filtered due to the prompt triggering Azure OpenAI's content management "
            "policy. ...', type: null, param: 'prompt', code: 'content_filter', status: 400, "
            "innererror: {code: 'ResponsibleAIPolicyViolation', content_filter_result: ...}}} "
            "(vibrantlabsai/ragas #649, compl-ai #20, simonw/research #16, litellm PR #16231). "
            "The same prompt is refused again: the caller needs the code to tell it from a "
            "malformed request, and must not retry it; confirmed 2026-11-25.",
        steps=(Step(request=request(), reply=Turn(error=ErrorReply(
            status=400, code="content_filter", message="filtered")), expect="error"),),
        checks=(error_surfaced(must_contain="content management policy"),
                provider_error(retryable=False)),
    ),
    case(
        id="stream.azure_call_in_role_chunk",
        dialects=DIALECT,
        title="One streamed call whose first fragment rides in the role chunk, after the "
              "prompt-filter chunk",
        why="In Azure's recorded tool-call streams (gpt-5.2-chat, 2026-02) the role chunk "
            "carries the call's id, name and empty arguments, after the prompt-filter chunk; "
            "a reader that skips the first chunk with choices (taking it for the role-only "
            "chunk OpenAI sometimes sends) loses the call's name and id; confirmed 2026-11-25.",
        steps=(Step(request=request(), via="stream", reply=Turn(
            tool_calls=calls(("get_time", "{}")))),),
        checks=(matches_script,),
    ),
]

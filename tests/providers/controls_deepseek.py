"""Negative controls for the DeepSeek cases: the reference :class:`DeepSeekAdapter` with ONE thing
broken each; the docstring names the bug and its public report. Above each, ``@fails`` names the
case that must fail it and the clause; the tables at the end collect them for
``tests/providers/test_controls.py``."""

from __future__ import annotations

import json
from typing import Any

import controls_openai as _generic  # tests/providers/controls_openai.py
from provider_kit import (
    DecodesAsOpenAI,
    DropsReasoningDeltas,
    EncodesAsOpenAI,
    ReasoningInText,
    UsageFromEmptyChoicesOnly,
    collected,
    fails,
)

from pytest_toolcall.core.errors import ProviderError
from pytest_toolcall.core.model import ChatResponse
from pytest_toolcall.providers.deepseek.reference import DeepSeekAdapter

__all__ = ["DropsReasoning", "EditsReasoning", "NonEmptyReasoningOnly", "ReasoningAsText",
           "ReasoningNotDecoded", "StreamDropsReasoning", "UsageChunkOnly", "RetriesEverything",
           "DeveloperRoleSent"]


@fails("wire.deepseek_reasoning_replayed", "request.messages.reasoning_content.missing")
@fails("stream.deepseek_reasoning_replayed", "request.messages.reasoning_content.missing")
class DropsReasoning(EncodesAsOpenAI, DeepSeekAdapter):
    """The plain OpenAI encoder: reasoning_content never goes back (langchain #37713, crewAI
    #5878, opencode #24083): DeepSeek's 400."""


@fails("wire.deepseek_reasoning_replayed", "wire.deepseek.reasoning_replayed")
class EditsReasoning(DeepSeekAdapter):
    """Sends the reasoning back trimmed (a re-serialising history store)."""

    @staticmethod
    def encode_reasoning(reasoning: Any) -> str | None:
        text = DeepSeekAdapter.encode_reasoning(reasoning)
        return None if text is None else text.strip()


@fails("wire.deepseek_empty_reasoning_replayed", "request.messages.reasoning_content.missing")
class NonEmptyReasoningOnly(DeepSeekAdapter):
    """Sends reasoning_content only when it is non-empty (deepseek-harness #739's
    serializeAssistant; Raven #297): an empty one is dropped, and DeepSeek answers 400."""

    @staticmethod
    def encode_reasoning(reasoning: Any) -> str | None:
        return DeepSeekAdapter.encode_reasoning(reasoning) or None


@fails("wire.deepseek_reasoning_replayed", "response.text")
class ReasoningAsText(ReasoningInText, DeepSeekAdapter):
    """Folds the chain of thought into the answer's text (a client that shows '<think>' text)."""


@fails("wire.deepseek_reasoning_replayed", "response.reasoning")
class ReasoningNotDecoded(DecodesAsOpenAI, DeepSeekAdapter):
    """The OpenAI decoder: reasoning_content is ignored, nothing can be replayed (the adapters
    behind openai-agents #2155)."""


@fails("stream.deepseek_reasoning_replayed", "response.reasoning")
class StreamDropsReasoning(DropsReasoningDeltas, DeepSeekAdapter):
    """The stream reader keeps content and tool_calls deltas only (deepseek-harness #739 asks
    whether reasoning_content is lost in the streaming chunks)."""


@fails("stream.deepseek_usage_on_finish_chunk", "response.usage")
class UsageChunkOnly(UsageFromEmptyChoicesOnly, DeepSeekAdapter):
    """Reads usage only from OpenAI's separate ``choices: []`` chunk, which DeepSeek never sends."""


@fails("wire.developer_message", "request.messages.role", table="SHARED_CONTROLS")
class DeveloperRoleSent(DeepSeekAdapter):
    """Sends a developer message with OpenAI's role, which DeepSeek does not have: 400 "unknown
    variant `developer`, expected one of `system`, `user`, `assistant`, `tool`"
    (earendil-works/pi #1048)."""

    def encode_message(self, message: Any) -> dict[str, Any]:
        return super(DeepSeekAdapter, self).encode_message(message)


@fails("errors.deepseek_insufficient_balance", "errors.retryable")
class RetriesEverything(_generic.EveryErrorRetryable, DeepSeekAdapter):
    """Marks every provider error retryable: a 402 Insufficient Balance is retried forever."""


# -- the errors family on DeepSeek's own bodies, and its keep-alive lines -----------------------

@fails("stream.sse_comment_lines", "adapter.raised", table="SHARED_CONTROLS")
class BreaksOnKeepAlive(_generic.BreaksOnSseComments, DeepSeekAdapter):
    """Reads every non-empty SSE line as data: DeepSeek's ': keep-alive' comments (Rate Limit
    page) make it raise."""


@fails("wire.deepseek_keep_alive_lines", "adapter.raised")
class FirstLineOnly(DeepSeekAdapter):
    """A hand-rolled reader that json-decodes the body's first line (or wants it to start with
    '{'): the empty lines DeepSeek writes while a request waits (Rate Limit page: 'please
    ensure to handle these empty lines') make every answer of a busy hour fail."""

    def complete(self, request: Any) -> ChatResponse:
        response = self.client.post(self.request_url(request, stream=False),
                                    headers=self.headers,
                                    json=self.build_body(request, stream=False))
        self.raise_for_error(response, response.content)
        first = response.text.split("\n", 1)[0]
        if not first.startswith("{"):
            raise ProviderError(f"not a JSON answer: {first[:40]!r}", status=response.status_code)
        return self.parse_response(json.loads(first))


@fails("wire.unknown_finish_reason", "response.finish_reason", table="SHARED_CONTROLS")
class UnknownFinishIsStop(_generic.UnknownFinishIsStop, DeepSeekAdapter):
    """Reports every finish reason it does not know as 'stop': DeepSeek's
    insufficient_system_resource (a turn the inference system cut short) reads as a complete
    answer (litellm's map_finish_reason does this: litellm #33968)."""


__all__ += ["BreaksOnKeepAlive", "FirstLineOnly", "UnknownFinishIsStop"]


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "deepseek"
#: the path of every request the reference adapter sends
PATH = "/chat/completions"
#: the error kinds DeepSeek has: each one's case runs on its bodies with the generic error bugs
ERROR_KINDS = {"rate_limit", "quota", "auth", "model_not_found", "context_length", "server_error",
               "overloaded"}

#: (case id, broken adapter, the clause the case must name)
CONTROLS = collected(__name__)

#: the shared cases that run on DeepSeek's own bodies and stream (its keep-alive comments among
#: them), each with the bug it must catch there
SHARED_CONTROLS = collected(__name__, "SHARED_CONTROLS")

"""Negative controls for the LM Studio cases: the reference :class:`LMStudioAdapter` with ONE thing
broken each; the docstring names the bug. Above each, ``@fails`` names the case that must fail it
and the clause; the tables at the end collect them for ``tests/providers/test_controls.py``."""

from __future__ import annotations

import json
from typing import Any

import controls_openai as _generic  # tests/providers/controls_openai.py
from provider_kit import (
    BrokenStream,
    DecodesAsOpenAI,
    OpenAIPrefix,
    ReasoningOnlyInText,
    collected,
    fails,
)

from pytest_toolcall.core.errors import ProviderError, StreamError
from pytest_toolcall.core.model import ChatResponse
from pytest_toolcall.providers.lmstudio.reference import LMStudioAdapter, LMStudioStreamAccumulator
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter, StreamAccumulator

__all__ = ["IdsPrefixed", "IdsAsNumbers", "ReasoningAsText", "ReasoningNotDecoded",
           "StreamDropsReasoning", "ReasoningContentOnly", "OpenAIBodyReader",
           "EmptyAnswerOnErrorBody", "OpenAIErrorReader", "CrashesOnStringError",
           "SkipsErrorEvents", "StreamErrorRetryable"]


@fails("wire.lmstudio_numeric_call_ids", "wire.lmstudio.call_ids")
@fails("stream.lmstudio_numeric_call_ids", "wire.lmstudio.call_ids")
class IdsPrefixed(OpenAIPrefix, LMStudioAdapter):
    """'Repairs' ids without OpenAI's call_ prefix, on calls and results alike (the fake takes
    it: the pairing holds), so the ids LM Studio gave never come back."""


# LM Studio is not shown to refuse a call id that is no string (issue 30): its fake takes
# it, and the case's own clause names the defect
@fails("wire.lmstudio_numeric_call_ids", "wire.lmstudio.call_ids")
class IdsAsNumbers(LMStudioAdapter):
    """Reads ids with json.loads: '365174485' goes back as the number 365174485."""

    def encode_message(self, message: Any) -> dict[str, Any]:
        out = super().encode_message(message)
        for call in out.get("tool_calls") or ():
            call["id"] = json.loads(call["id"]) if call["id"].isdigit() else call["id"]
        if str(out.get("tool_call_id", "")).isdigit():
            out["tool_call_id"] = json.loads(out["tool_call_id"])
        return out


@fails("wire.lmstudio_reasoning_content", "response.text")
class ReasoningAsText(ReasoningOnlyInText, LMStudioAdapter):
    """Folds the chain of thought into the answer's text."""


@fails("wire.lmstudio_reasoning_content", "response.reasoning")
class ReasoningNotDecoded(DecodesAsOpenAI, LMStudioAdapter):
    """The OpenAI decoder: reasoning_content and reasoning are ignored."""


class _NoReasoning(LMStudioStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        return StreamAccumulator.feed(self, data)


@fails("stream.lmstudio_reasoning_content", "response.reasoning")
class StreamDropsReasoning(BrokenStream, LMStudioAdapter):
    """The stream reader keeps content and tool_calls deltas only."""

    accumulator = _NoReasoning


class _ContentOnlyAcc(LMStudioStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        for choice in data.get("choices") or ():
            piece = (choice.get("delta") or {}).get("reasoning_content")
            if isinstance(piece, str):
                self.reasoning = (self.reasoning or []) + [piece]
        return StreamAccumulator.feed(self, data)


@fails("wire.lmstudio_gpt_oss_reasoning", "response.reasoning")
class ReasoningContentOnly(LMStudioAdapter):
    """Reads reasoning_content only (DeepSeek's and vLLM's old field): gpt-oss's reasoning is
    lost, answers and streams alike."""

    def parse_response(self, data: Any) -> ChatResponse:
        response = OpenAIChatAdapter.parse_response(self, data)
        text = data["choices"][0]["message"].get("reasoning_content")
        if isinstance(text, str):
            return response.model_copy(update={"reasoning": self.parse_reasoning(text)})
        return response

    def new_accumulator(self) -> LMStudioStreamAccumulator:
        return _ContentOnlyAcc(self)


@fails("wire.lmstudio_error_in_200_body", "wire.lmstudio.error_message")
class OpenAIBodyReader(DecodesAsOpenAI, LMStudioAdapter):
    """Reads a 200 as OpenAI's answer: a body with no choices is a 'malformed response' that
    quotes the body instead of saying LM Studio's words."""


@fails("wire.lmstudio_error_in_200_body", "error.surfaced")
class EmptyAnswerOnErrorBody(LMStudioAdapter):
    """Trusts the status: a 200 without choices is an empty answer."""

    def parse_response(self, data: Any) -> ChatResponse:
        if isinstance(data, dict) and not data.get("choices"):
            return ChatResponse()
        return super().parse_response(data)


@fails("errors.lmstudio_string_error", "errors.lmstudio.message")
class OpenAIErrorReader(LMStudioAdapter):
    """OpenAI's error reader: a string 'error' becomes the repr of the whole body."""

    def raise_for_error(self, response: Any, body: bytes) -> None:
        OpenAIChatAdapter.raise_for_error(self, response, body)


@fails("errors.lmstudio_string_error", "error.typed")
class CrashesOnStringError(LMStudioAdapter):
    """Reads body['error']['message'] whatever 'error' is: a string error is a TypeError."""

    def raise_for_error(self, response: Any, body: bytes) -> None:
        if response.status_code >= 400:
            data = json.loads(body)
            raise ProviderError(data["error"]["message"], status=response.status_code)


class _SkipsErrors(LMStudioStreamAccumulator):
    def feed_line(self, line: str) -> Any:
        if line.startswith("data:") and '"error"' in line:
            return ()  # no choices: nothing to read
        return super().feed_line(line)


@fails("stream.lmstudio_error_event", "error.message")
class SkipsErrorEvents(BrokenStream, LMStudioAdapter):
    """Reads only chunks with choices: the error event is skipped and the partial text comes
    back as the answer."""

    accumulator = _SkipsErrors


class _RetryableErrors(LMStudioStreamAccumulator):
    def feed_line(self, line: str) -> Any:
        try:
            return super().feed_line(line)
        except StreamError as exc:
            exc.retryable = True
            raise


@fails("stream.lmstudio_error_event", "errors.retryable")
class StreamErrorRetryable(BrokenStream, LMStudioAdapter):
    """Every error inside a stream is retryable: an input that does not fit the context is
    sent again and again."""

    accumulator = _RetryableErrors


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "lmstudio"
#: the path of every request the reference adapter sends
PATH = "/v1/chat/completions"
#: the error kinds LM Studio has: each one's case runs on its bodies with the generic error bugs
ERROR_KINDS = {"auth", "model_not_found", "context_length"}
#: the kinds whose body names no type or code, so the kind controls drop none there: LM Studio's
#: context overflow is {"error": "<words>"}
UNNAMED_ERRORS = {"context_length"}

#: (case id, broken adapter, the clause the case must name)
CONTROLS = [
    *collected(__name__),
    ("errors.lmstudio_string_error", _generic.EveryErrorRetryable, "errors.retryable"),
]


"""Negative controls for the Groq cases: the reference :class:`GroqAdapter` with ONE thing broken
each; the docstring names the bug. Above each, ``@fails`` names the case that must fail it and the
clause; the tables at the end collect them for ``tests/providers/test_controls.py``."""

from __future__ import annotations

from typing import Any

import controls_openai as _generic  # tests/providers/controls_openai.py
from provider_kit import BrokenStream, DecodesAsOpenAI, ReasoningInText, collected, fails

from pytest_toolcall.core.errors import ProviderError
from pytest_toolcall.providers.groq.reference import GroqAdapter, GroqStreamAccumulator
from pytest_toolcall.providers.openai.reference import StreamAccumulator

__all__ = ["XGroqUsageIgnored", "ArgumentsWithIdDropped", "ReasoningAsText",
           "ReasoningNotDecoded", "StreamDropsReasoning", "DropsErrorBody"]


class _TopLevelUsageOnly(GroqStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        return super().feed({k: v for k, v in data.items() if k != "x_groq"})


@fails("stream.groq_usage_in_x_groq", "response.usage")
class XGroqUsageIgnored(BrokenStream, GroqAdapter):
    """Reads a stream's usage only from OpenAI's top-level field (vercel/ai #1651: 'Token
    usage: NaN' on Groq): x_groq.usage, where Groq puts it, is never read."""

    accumulator = _TopLevelUsageOnly


class _ArgumentsAfterIdOnly(GroqStreamAccumulator):
    def add_fragment(self, frag: dict[str, Any]) -> Any:
        if frag.get("id"):  # OpenAI's first fragment: arguments "" assumed, so ignored
            frag = dict(frag, function={k: v for k, v in (frag.get("function") or {}).items()
                                        if k != "arguments"})
        return super().add_fragment(frag)


@fails("stream.groq_whole_calls", "response.tool_calls.arguments")
class ArgumentsWithIdDropped(BrokenStream, GroqAdapter):
    """Built on OpenAI's fragment shape: the fragment that brings a call's id is taken to carry
    arguments '' and its arguments are ignored; Groq's whole calls lose theirs."""

    accumulator = _ArgumentsAfterIdOnly


@fails("wire.groq_reasoning_decoded", "response.text")
class ReasoningAsText(ReasoningInText, GroqAdapter):
    """Folds the chain of thought into the answer's text."""


@fails("wire.groq_reasoning_decoded", "response.reasoning")
class ReasoningNotDecoded(DecodesAsOpenAI, GroqAdapter):
    """The OpenAI decoder: message.reasoning is ignored."""


class _NoReasoning(GroqStreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        x_groq = data.get("x_groq")
        if isinstance(x_groq, dict) and x_groq.get("usage") and not data.get("usage"):
            self.usage = self.adapter.parse_usage(x_groq["usage"])
        return StreamAccumulator.feed(self, data)


@fails("stream.groq_reasoning_decoded", "response.reasoning")
class StreamDropsReasoning(BrokenStream, GroqAdapter):
    """The stream reader keeps content and tool_calls deltas only: delta.reasoning is lost."""

    accumulator = _NoReasoning


@fails("errors.groq_tool_use_failed", "errors.groq.failed_generation")
class DropsErrorBody(GroqAdapter):
    """Raises the provider's message, status and code but not its body: failed_generation (what
    the model wrote) is lost."""

    def raise_for_error(self, response: Any, body: bytes) -> None:
        try:
            super().raise_for_error(response, body)
        except ProviderError as exc:
            raise ProviderError(exc.message, status=exc.status, type=exc.type,
                                code=exc.code) from None


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "groq"
#: the path of every request the reference adapter sends
PATH = "/openai/v1/chat/completions"
#: the error kinds Groq has: each one's case runs on its bodies with the generic error bugs
ERROR_KINDS = {"rate_limit", "auth", "model_not_found", "context_length", "server_error",
               "overloaded"}

#: (case id, broken adapter, the clause the case must name)
CONTROLS = [
    *collected(__name__),
    ("errors.groq_tool_use_failed", _generic.DropsErrorCode, "errors.type"),
]



def check_sent(body: dict[str, Any]) -> None:
    """The usage comes in x_groq.usage without it: the reference never asks for stream_options."""
    assert "stream_options" not in body

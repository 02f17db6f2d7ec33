"""Negative controls for the Azure OpenAI cases: the reference :class:`AzureOpenAIAdapter` with ONE
thing broken each; the docstring names the bug. Above each, ``@fails`` names the case that must fail
it and the clause; the tables at the end collect them for ``tests/providers/test_controls.py``."""

from __future__ import annotations

from typing import Any

import controls_openai as _generic  # tests/providers/controls_openai.py
from provider_kit import BrokenStream, Route, collected, fails

from pytest_toolcall.providers.azure_openai.reference import AzureOpenAIAdapter
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter, StreamAccumulator

__all__ = ["ChoicesZeroEveryChunk", "SkipsFirstChoiceChunk", "FilterResultsMeanFiltered",
           "ContentFilterAsStop", "NoApiVersion", "OpenAIRoute", "NoRetryAfter",
           "SecondsOnlyRetryAfter"]


class _FirstChoiceAcc(StreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        choice = data["choices"][0]  # IndexError on Azure's prompt-filter chunk
        return super().feed(dict(data, choices=[choice]))


@fails("stream.azure_prompt_filter_chunk", "adapter.raised")
class ChoicesZeroEveryChunk(BrokenStream, AzureOpenAIAdapter):
    """Indexes ``choices[0]`` on every chunk (``chunk.choices[0].delta``, as mentat #429,
    pydantic-ai #164 and logfire #64 did): Azure's first chunk has ``choices: []``."""

    accumulator = _FirstChoiceAcc


class _SkipsFirstAcc(StreamAccumulator):
    def __init__(self, adapter: Any) -> None:
        super().__init__(adapter)
        self.seen = False

    def feed(self, data: dict[str, Any]) -> list[Any]:
        if data.get("choices") and not self.seen:
            self.seen = True
            return []  # "the first chunk with choices is the role header"
        return super().feed(data)


@fails("stream.azure_call_in_role_chunk", "response.tool_calls.id")
class SkipsFirstChoiceChunk(BrokenStream, AzureOpenAIAdapter):
    """Skips the first chunk that has choices as a role-only header (having stepped over the
    prompt-filter chunk): Azure's role chunk carries a single call's id and name."""

    accumulator = _SkipsFirstAcc


class _FilteredAcc(StreamAccumulator):
    filtered = False

    def feed(self, data: dict[str, Any]) -> list[Any]:
        for choice in data.get("choices") or ():
            if choice.get("content_filter_results"):  # the verdicts read as a filter hit
                self.filtered = True
        return super().feed(data)

    def finish_events(self) -> list[Any]:
        if self.filtered:
            self.finish = "content_filter"
        return super().finish_events()


@fails("stream.azure_content_filter_results", "response.finish_reason")
class FilterResultsMeanFiltered(BrokenStream, AzureOpenAIAdapter):
    """Takes a choice's non-empty ``content_filter_results`` for a filtered answer, without
    reading ``filtered``: every text stream ends as 'content_filter'."""

    accumulator = _FilteredAcc


@fails("wire.azure_content_filter_finish", "response.finish_reason")
class ContentFilterAsStop(AzureOpenAIAdapter):
    """Maps every finish reason but tool_calls and length to 'stop': a withheld answer reads
    as complete."""

    @staticmethod
    def parse_finish(reason: str | None) -> Any:
        if reason is None:
            return None
        return reason if reason in ("tool_calls", "length") else "stop"


@fails("stream.azure_prompt_filter_chunk", "request.api_version.missing")
class NoApiVersion(AzureOpenAIAdapter):
    """Posts to the deployment route without ``api-version`` (Azure: 404 Resource not found)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.url = str(self.url).partition("?")[0]


@fails("stream.azure_prompt_filter_chunk", "request.route")
class OpenAIRoute(AzureOpenAIAdapter):
    """OpenAI's client pointed at the resource: ``{endpoint}/chat/completions`` with bearer auth
    (Azure: 404 Resource not found)."""

    def __init__(self, endpoint: str, api_key: str | None = None, **kwargs: Any) -> None:
        super().__init__(endpoint, api_key, **kwargs)
        OpenAIChatAdapter.__init__(self, endpoint, api_key or "", model=self.model,
                                   client=self.client, async_client=self.async_client)


# -- the errors family on Azure's own bodies: its retry delays -------------------------------------

@fails("errors.rate_limited", "errors.retry_after", table="SHARED_CONTROLS")
class NoRetryAfter(_generic.NoRetryAfter, AzureOpenAIAdapter):
    """The delay Azure asks for (Retry-After, retry-after-ms) is dropped."""


@fails("errors.rate_limited", "errors.retry_after", table="SHARED_CONTROLS")
class SecondsOnlyRetryAfter(AzureOpenAIAdapter):
    """Reads ``retry-after-ms`` as seconds (the header's name read past): asks for 1000 times
    the wait."""

    def raise_for_error(self, response: Any, body: bytes) -> None:
        try:
            super().raise_for_error(response, body)
        except Exception as exc:
            ms = response.headers.get("retry-after-ms")
            if ms is not None:
                exc.retry_after = float(ms)  # type: ignore[attr-defined]
            raise


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "azure-openai"
#: the path of every request the reference adapter sends (on its default route, a deployment's)
PATH = "/openai/deployments/gpt-4o/chat/completions"
#: the v1 route (route="v1": no deployment, no api-version) for Azure's own cases and a sample:
#: the wire is the same, only the URL differs (the whole matrix twice would double the time)
ROUTES = {"v1": Route(path="/openai/v1/chat/completions", adapter_kwargs={"route": "v1"},
                      cases=("*azure*", "wire.parallel_calls", "stream.parallel_interleaved",
                             "errors.rate_limited"))}
#: the error kinds Azure has: each one's case runs on its bodies with the generic error bugs
ERROR_KINDS = {"rate_limit", "auth", "model_not_found", "context_length", "server_error",
               "overloaded"}

#: (case id, broken adapter, the clause the case must name)
CONTROLS = [
    *collected(__name__),
    ("errors.azure_prompt_filtered", _generic.EveryErrorRetryable, "errors.retryable"),
    ("errors.azure_prompt_filtered", _generic.DropsErrorCode, "errors.type"),
    ("errors.azure_prompt_filtered", _generic.StatusLost, "errors.status"),
]

#: the shared cases that run on Azure's own bodies (the errors family's kinds), each with the
#: bug it must catch there
SHARED_CONTROLS = collected(__name__, "SHARED_CONTROLS")

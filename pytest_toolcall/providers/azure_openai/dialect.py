"""Azure OpenAI (``{resource}.openai.azure.com``): OpenAI's Chat Completions on Azure's routes.

The ``openai`` dialect with what Azure does differently. Every fact below carries its source and
was confirmed 2026-11-25 (the provider registry, ``pytest_toolcall.providers.AZURE_OPENAI``,
holds them as data); what could not be confirmed inherits OpenAI's behaviour and is marked so.

- Routes: the dated data-plane route ``POST /openai/deployments/{deployment}/chat/completions
  ?api-version=YYYY-MM-DD[-preview]`` (learn.microsoft.com Azure OpenAI REST reference, data
  plane inference; the openai SDK's ``AzureOpenAI`` builds ``{azure_endpoint}/openai/
  deployments/{model}`` in openai/lib/azure.py), and the v1 route ``POST /openai/v1/chat/
  completions`` without ``api-version`` (GA August 2025: learn.microsoft.com/azure/foundry/
  openai/api-version-lifecycle; the plain ``OpenAI`` client with ``base_url=.../openai/v1/``,
  ``model`` = the deployment name). On the dated route a request without ``api-version`` is 404
  ``{"error": {"code": "404", "message": "Resource not found"}}`` (MicrosoftDocs/azure-docs
  #114602, openai-python #362 quotes the raw body, deepchat #262, aisuite PR #186); a version
  the service does not know is 400 ``{"error": {"code": "BadRequest", "message": "API version
  not supported"}}`` (hotovo/aider-desk #460, mindsdb #11563). The fake knows no catalogue of
  versions: any ``YYYY-MM-DD`` or ``YYYY-MM-DD-preview`` is taken.
- Auth: the ``api-key`` header, or ``Authorization: Bearer <Microsoft Entra ID token>`` (the
  REST reference; ``AzureOpenAI._auth_headers`` sends one or the other). The fake takes its key
  in either header (the bearer plays the Entra token). Neither, or a wrong key: 401 ``{"error":
  {"code": "401", "message": "Access denied due to invalid subscription key or wrong API
  endpoint. Make sure to provide a valid key for an active subscription and use a correct
  regional API endpoint for your resource."}}`` (SciSharp/BotSharp #386 quotes the body with
  Content-Length 224; microsoft/semantic-kernel #10337, 2025-01; microsoft/genaiscript #781).
  Unconfirmed: the wording for no key at all (API Management gateways answer ``{"statusCode":
  401, "message": "Access denied due to missing subscription key..."}``: not played).
- Content filtering (on by default): a stream opens with a chunk of its own, ``{"choices": [],
  "created": 0, "id": "", "model": "", "object": "", "prompt_filter_results": [{"prompt_index":
  0, "content_filter_results": {...}}]}`` (recorded streams: InternLM/MindSearch #310, 2025-07;
  CoderCookE/vim-llm-agent PR #37; AbanteAI mentat #429; a 2026 gpt-5.4-mini stream quoted in a
  public gateway's notes), then OpenAI's chunks, each choice carrying ``content_filter_results``
  (``{}`` on the role, tool-call and finish chunks, the category verdicts on text chunks; a
  recorded gpt-5.2-chat tool-call stream, 2026-02, in a public .NET project's test data; the
  quarkus-langchain4j Azure fixture "generated from a true API call"). A JSON answer carries
  ``prompt_filter_results`` and ``choices[].content_filter_results``. A filtered completion ends
  with ``finish_reason: "content_filter"``; a filtered prompt is 400 ``{"error": {"message":
  "The response was filtered due to the prompt triggering Azure OpenAI's content management
  policy. ...", "type": null, "param": "prompt", "code": "content_filter", "status": 400,
  "innererror": {"code": "ResponsibleAIPolicyViolation", "content_filter_result": {...}}}}``
  (vibrantlabsai/ragas #649, compl-ai #20, simonw/research #16, litellm PR #16231).
- Request rules: the tool pairing is shown, in OpenAI's words (fact ``tool_pairing``); the fake
  takes a request that breaks another of OpenAI's rules and the kit reports the breach as
  hardening (``request.unconfirmed``, issue 30). The stream fragments are OpenAI's. The keys of
  Azure's JSON are sorted.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from typing import Any

from pytest_toolcall.cases import ErrorReply, Turn
from pytest_toolcall.providers.base import Rejection
from pytest_toolcall.providers.openai.dialect import CREATED, OpenAIChat, _finish, _usage
from pytest_toolcall.providers.azure_openai import errors as _errors

__all__ = [
    "AUTH_DENIED", "AzureOpenAI", "CONTENT_FILTERED", "DEFAULT_API_VERSION", "DIALECT",
    "PROMPT_FILTER_CHUNK", "RESOURCE_NOT_FOUND", "SAFE", "VERSION_NOT_SUPPORTED", "azure_error",
    "content_filter_body",
]

AUTH_DENIED = ("Access denied due to invalid subscription key or wrong API endpoint. Make sure to "
               "provide a valid key for an active subscription and use a correct regional API "
               "endpoint for your resource.")
RESOURCE_NOT_FOUND = "Resource not found"
VERSION_NOT_SUPPORTED = "API version not supported"
#: the latest GA version of the data-plane inference API (learn.microsoft.com REST reference)
DEFAULT_API_VERSION = "2024-10-21"
CONTENT_FILTERED = ("The response was filtered due to the prompt triggering Azure OpenAI's "
                    "content management policy. Please modify your prompt and retry. To learn "
                    "more about our content filtering policies please read our documentation: "
                    "https://go.microsoft.com/fwlink/?linkid=2198766")
_DEPLOYMENT = re.compile(r"^/openai/deployments/[^/]+/chat/completions$")
_V1 = "/openai/v1/chat/completions"
_VERSION = re.compile(r"^\d{4}-\d{2}-\d{2}(-preview)?$")

#: the verdicts on a text chunk and in a JSON answer (recorded streams and answers)
SAFE: dict[str, Any] = {
    "hate": {"filtered": False, "severity": "safe"},
    "self_harm": {"filtered": False, "severity": "safe"},
    "sexual": {"filtered": False, "severity": "safe"},
    "violence": {"filtered": False, "severity": "safe"}}
_PROMPT_SAFE: dict[str, Any] = {**SAFE, "jailbreak": {"filtered": False, "detected": False}}
_PROMPT_FILTER = [{"prompt_index": 0, "content_filter_results": dict(sorted(
    _PROMPT_SAFE.items()))}]
#: the chunk every filtered stream opens with: no choices, empty id, model and object
PROMPT_FILTER_CHUNK: dict[str, Any] = {"choices": [], "created": 0, "id": "", "model": "",
                                       "object": "", "prompt_filter_results": _PROMPT_FILTER}
_ID = "chatcmpl-AzToolcallFake000000000000001"  # 29 after the prefix, as recorded


def azure_error(status: int, code: str, message: str, *, rule: str) -> Rejection:
    """A rejection in Azure's own (gateway) shape: ``{"error": {"code", "message"}}``."""
    return Rejection(status=status, body={"error": {"code": code, "message": message}},
                     rule=rule)


def content_filter_body(category: str = "violence") -> dict[str, Any]:
    """Azure's 400 for a prompt its content filter refused (``category`` is the one filtered)."""
    result = {k: dict(v) for k, v in sorted(_PROMPT_SAFE.items())}
    if category == "jailbreak":
        result["jailbreak"] = {"filtered": True, "detected": True}
    else:
        result[category] = {"filtered": True, "severity": "medium"}
    return {"error": {"message": CONTENT_FILTERED, "type": None, "param": "prompt",
                      "code": "content_filter", "status": 400,
                      "innererror": {"code": "ResponsibleAIPolicyViolation",
                                     "content_filter_result": result}}}


def _sorted(data: Any) -> Any:
    """Azure's JSON has its keys sorted at every level (recorded answers and streams)."""
    if isinstance(data, dict):
        return {k: _sorted(data[k]) for k in sorted(data)}
    if isinstance(data, list):
        return [_sorted(v) for v in data]
    return data


class AzureOpenAI(OpenAIChat):
    """The ``azure-openai`` provider: Chat Completions on Azure OpenAI's two routes."""

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    name = "azure-openai"
    title = "Azure OpenAI Chat Completions ({resource}.openai.azure.com)"
    #: the endpoint's base_url is the resource's root, what AzureOpenAI(azure_endpoint=) takes
    base_path = ""
    pure_requests = True
    #: OpenAI's rules shown on Azure (the rest are taken and reported as hardening)
    confirmed_rules = {"messages.tool.orphan": "tool_pairing",
                       "messages.tool_calls.unanswered": "tool_pairing"}

    # -- routing and auth -------------------------------------------------------------------
    def __init__(self) -> None:
        #: the path of the request being answered, per thread (route() runs before check_auth)
        self._seen = threading.local()

    def route(self, method: str, path: str) -> bool:
        path = path.rstrip("/")
        self._seen.path = path
        return method == "POST" and (path == _V1 or bool(_DEPLOYMENT.match(path)))

    def not_found(self, method: str, path: str) -> Rejection:
        return azure_error(404, "404", RESOURCE_NOT_FOUND, rule="route")

    def check_auth(self, headers: Mapping[str, str], query: Mapping[str, str],
                   key: str) -> Rejection | None:
        # check_auth is the fake's one look at the query: the dated route's api-version is
        # checked here, on the path route() saw for this request (same thread). Which comes
        # first on Azure, the version or the key, is not confirmed: the version is played first
        version = query.get("api-version")
        dated = bool(_DEPLOYMENT.match(getattr(self._seen, "path", "")))
        if dated and version is None:
            return azure_error(404, "404", RESOURCE_NOT_FOUND, rule="api_version.missing")
        if version is not None and not _VERSION.match(version) and dated:
            return azure_error(400, "BadRequest", VERSION_NOT_SUPPORTED,
                               rule="api_version.unsupported")
        auth = headers.get("authorization", "")
        if headers.get("api-key") == key or auth == f"Bearer {key}":
            return None
        return azure_error(401, "401", AUTH_DENIED,
                           rule="auth.invalid" if headers.get("api-key") or auth
                           else "auth.missing")

    # -- validation ---------------------------------------------------------------------------
    def validate(self, body: Any) -> Rejection | None:
        if isinstance(body, Mapping) and "model" not in body:
            # the dated route names the deployment in the path: the body needs no model (the
            # REST reference's request body has none)
            body = {**body, "model": "deployment"}
        return super().validate(body)

    # -- encoding -----------------------------------------------------------------------------
    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        if error.code == "content_filter":
            return 400, content_filter_body()
        return super().encode_error(error)

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"annotations": [], "content": turn.text, "refusal": None,
                                   "role": "assistant"}
        if turn.tool_calls:
            message["tool_calls"] = [
                {"function": {"arguments": c.arguments_text(), "name": c.name}, "id": cid,
                 "type": "function"}
                for cid, c in zip(self.call_ids(turn), turn.tool_calls)]
        filtered = _finish(turn) == "content_filter"
        verdicts = {k: dict(v) for k, v in SAFE.items()}
        if filtered:
            verdicts["violence"] = {"filtered": True, "severity": "medium"}
        response: dict[str, Any] = {
            "choices": [{"content_filter_results": verdicts if turn.text or filtered else {},
                         "finish_reason": _finish(turn), "index": 0, "logprobs": None,
                         "message": message}],
            "created": CREATED, "id": _ID, "model": "gpt-4o-2024-11-20",
            "object": "chat.completion", "prompt_filter_results": _PROMPT_FILTER,
            "system_fingerprint": "fp_toolcall_azure"}
        if turn.usage is not None:
            response["usage"] = _usage(turn)
        return _sorted(response)

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        plan = turn.stream
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        # OpenAI's chunks, then Azure's additions: built from the parent's chunk list
        chunks = self._chunks(turn, body, include_usage)
        # the prompt-filter chunk comes first: the plan's counts stay on the parent's chunks
        shifted = plan.model_copy(update={
            k: getattr(plan, k) + 1 for k in ("error_after", "truncate_after")
            if getattr(plan, k) is not None})
        return self.sse_events([PROMPT_FILTER_CHUNK, *chunks], shifted, plan.quirks)

    def sse_events(self, chunks: list[dict[str, Any]], plan: Any,
                   quirks: frozenset[str]) -> list[bytes]:
        capture = getattr(self._seen, "capture", None)
        if capture is not None:  # _chunks() asks OpenAI's encoder for its chunks only
            capture.append(chunks)
            return []
        return super().sse_events(chunks, plan, quirks)

    def _chunks(self, turn: Turn, body: Mapping[str, Any],
                include_usage: bool) -> list[dict[str, Any]]:
        captured: list[list[dict[str, Any]]] = []
        self._seen.capture = captured
        try:
            OpenAIChat._encode_stream(self, turn, body, include_usage)
        finally:
            self._seen.capture = None
        (chunks,) = captured
        out = []
        for chunk in chunks:
            chunk = {k: v for k, v in chunk.items() if k != "service_tier"}
            chunk["id"] = _ID
            chunk["model"] = "gpt-4o-2024-11-20"
            chunk["system_fingerprint"] = "fp_toolcall_azure"
            for choice in chunk.get("choices") or ():
                delta = choice.get("delta") or {}
                choice["content_filter_results"] = (
                    {k: dict(v) for k, v in SAFE.items()} if delta.get("content") else {})
            out.append(_sorted(chunk))
        return out


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = AzureOpenAI

"""The ``errors`` family: the provider fails, and the adapter must say how (issue 12).

A chat adapter sends one request per call (``request.count``); retrying belongs to its caller
(a tool loop, a gateway). So what these cases check is that the caller gets what it needs to
decide: the error is typed and carries the HTTP status, the provider's own error type or
code, the delay the provider asked for, and whether retrying can help. The fields are those of
:class:`pytest_toolcall.ProviderError` (``status``, ``type``, ``code``, ``retry_after``,
``retryable``); an adapter with its own exception types passes with the same attributes on the
error or on an exception it chains from (``status_code`` and ``response.status_code`` count as
the status).

The errors are each provider's own, status, headers and body, from
``pytest_toolcall/providers/errors.py``, which names the source of each. A case runs for
the providers that have that error (Ollama has no keys and no rate limits; only Anthropic
documents a 413; OpenAI's 429 insufficient_quota and DeepSeek's 402 are used-up accounts that no
wait cures). The services beyond the five wire formats (DeepSeek, Mistral) run them with their
own bodies; where a provider sends no delay with its 429 (DeepSeek, Mistral), there is no delay
to carry and only the status, the type or code and ``retryable`` are checked.

This is a family of its own, not part of ``wire``: the ``wire`` error cases ask that an error be
raised and carry the provider's words; these ask what a retrying caller reads, and each names
whether the kind is retryable, which is a fact about the provider, not about the adapter.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pytest_toolcall.core._names import PROVIDERS
from pytest_toolcall.cases import Case, ErrorReply, Step, StreamPlan, Turn, check
from pytest_toolcall.run.checks import describe_error, error_surfaced
from pytest_toolcall.providers.errors import RETRYABLE_KINDS, kinds_for
from pytest_toolcall.core.errors import ConformanceFailure, retry_after_seconds
from pytest_toolcall.run.runner import CaseRun

from pytest_toolcall.conformance._common import case, one_step

#: every --toolcall-provider name; a kind case runs for those whose table has the kind
ALL = PROVIDERS
#: the delay the rate-limit cases ask for, in seconds
DELAY = 7


def _chain(error: BaseException) -> list[BaseException]:
    """The error and what it was raised from, as Python shows them: ``__cause__``, and
    ``__context__`` unless suppressed (``raise ... from None`` hides it)."""
    out: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and all(current is not e for e in out):
        out.append(current)
        current = current.__cause__ or (None if current.__suppress_context__
                                        else current.__context__)
    return out


def _status_of(error: BaseException) -> Any:
    for name in ("status", "status_code", "http_status"):
        value = getattr(error, name, None)
        if isinstance(value, int):
            return value
    response = getattr(error, "response", None)
    value = getattr(response, "status_code", None)
    return value if isinstance(value, int) else None


def _provider_ids(dialect: str, body: Any) -> set[str]:
    """The provider's own names for the error in ``body``: what ``type``/``code`` may hold."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict) and isinstance(body, dict) and body.get("object") == "error":
        error = body  # Mistral: the fields at the top level
    if error is None and isinstance(body, dict) and "message" in body and (
            "type" in body or "code" in body):
        error = body  # Cerebras: {message, type, param, code} at the top level, no "object"
    if isinstance(error, str) and isinstance(body, dict) and isinstance(body.get("code"), str):
        return {body["code"]}  # xAI: {"code": "invalid-argument", "error": "<text>"}
    if not isinstance(error, dict):
        return set()
    if dialect == "gemini":
        keys = ("status",)
    elif dialect == "anthropic":
        keys = ("type",)
    else:
        keys = ("type", "code")
    return {str(error[k]) for k in keys if isinstance(error.get(k), str)}


def _stream_error_body(exchange: Any) -> Any:
    """The error event that ended a 200 stream: the JSON of its last ``data:`` line (OpenAI's
    and Gemini's ``{"error": {...}}``, Anthropic's ``error`` event), ``None`` without one."""
    for line in reversed(exchange.response_body.decode(errors="replace").splitlines()):
        if line.startswith("data:"):
            try:
                return json.loads(line[5:])
            except ValueError:
                return None
    return None


_STATUS_RETRY_HINT = ("retryable: 408, 409, 429 and 5xx (Anthropic's 529 too), except what the "
                      "provider marks final (x-should-retry: false, OpenAI's "
                      "insufficient_quota)")
#: an error event inside a 200 stream has no status to decide on: its type or code does
_IN_STREAM_RETRY_HINT = (
    "the stream was answered 200, so no status decides here: read the error event's own type "
    "or code (OpenAI's error chunk: server_error; Anthropic's error event: overloaded_error, "
    "api_error; Gemini's status: INTERNAL, UNAVAILABLE; OpenRouter: finish_reason 'error' "
    "with the error's code) and set retryable=True for the transient ones: the request can "
    "be sent again")


#: shorter keys are not searched for: an 8-character value turns up by chance (redact.MIN_SECRET)
_MIN_KEY = 8


@check("errors.no_api_key")
def key_not_in_error(run: CaseRun) -> None:
    """No error the adapter raises carries the API key it was given, in its text or in the
    text of an exception it chains from (what a log line or a traceback of it shows)."""
    key = run.api_key
    if not key or len(key) < _MIN_KEY:
        return
    for record in run.steps:
        if record.error is None:
            continue
        for error in _chain(record.error):
            text = f"{error} {error!r}"
            if key in text:
                shown = text.replace(key, "<the API key>")
                raise ConformanceFailure(
                    "errors.no_api_key", f"step {record.index + 1}: the {type(error).__name__} "
                    "the adapter raised carries the API key in its text: every log line, "
                    "trace or error page that shows the exception leaks it",
                    expected="an error that names the failure, never the key",
                    got=shown[:300],
                    hint="send the key in a header (Gemini: x-goog-api-key, not ?key=), and "
                         "never put the request URL with its query, the request headers or "
                         "the client's configuration in an error's message; if a library's "
                         "exception carries the URL, raise your own from it without the key")


def provider_error(*, retryable: bool, retry_after: int | None = None) -> Callable[[CaseRun],
                                                                                    None]:
    """The error carries status, the provider's type or code, the delay, and ``retryable``."""

    @check("errors.provider_error")
    def provider_error_check(run: CaseRun) -> None:
        for record in run.steps:
            if record.step.expect != "error" or record.error is None or not record.exchanges:
                continue
            n, chain = record.index + 1, _chain(record.error)
            exchange = record.exchanges[0]
            got = describe_error(record.error)
            if exchange.status >= 400:
                statuses = [_status_of(e) for e in chain]
                if exchange.status not in statuses:
                    raise ConformanceFailure(
                        "errors.status", f"step {n}: the error does not carry the HTTP status",
                        expected=f"status {exchange.status}",
                        got=f"{got} (status: {next((s for s in statuses if s), None)})",
                        hint="put the response's status on the error (ProviderError(status=...)"
                             "): a caller decides on it whether to retry")
            ids = _provider_ids(run.dialect, exchange.response_json)
            if ids and not any(getattr(e, "type", None) in ids or getattr(e, "code", None) in ids
                               for e in chain):
                raise ConformanceFailure(
                    "errors.type", f"step {n}: the error does not carry the provider's error "
                    "type or code", expected=f"type or code in {sorted(ids)}", got=got,
                    hint="copy the provider's error type/code (OpenAI error.type and "
                         "error.code, Anthropic error.type, Gemini error.status, Mistral's "
                         "top-level type and code) onto the error")
            asked = retry_after_seconds(exchange.response_headers, exchange.response_json)
            if retry_after is not None and asked is not None:  # none asked (DeepSeek): no check
                delays = [getattr(e, "retry_after", None) for e in chain]
                seen = next((d for d in delays if d is not None), None)
                if not any(isinstance(d, (int, float)) and abs(d - retry_after) <= 1
                           for d in delays):
                    raise ConformanceFailure(
                        "errors.retry_after", f"step {n}: the error does not carry the delay "
                        "the provider asked for", expected=f"retry_after={retry_after} "
                        "(seconds)", got=f"retry_after={seen!r}",
                        hint="read Retry-After / retry-after-ms (Gemini: the RetryInfo detail's "
                             "retryDelay) into retry_after, in seconds")
            flags = [getattr(e, "retryable", None) for e in chain]
            flag = next((f for f in flags if isinstance(f, bool)), None)
            if flag is not retryable:
                in_stream = exchange.status < 400 and exchange.streamed
                raise ConformanceFailure(
                    "errors.retryable", f"step {n}: the error says retrying "
                    f"{'can' if flag else 'cannot' if flag is False else 'may or may not'} "
                    f"help; for this error it {'can' if retryable else 'cannot'}",
                    expected=f"retryable={retryable}", got=f"retryable={flag!r}",
                    hint=_IN_STREAM_RETRY_HINT if in_stream else _STATUS_RETRY_HINT)
            # inside a 200 stream the status says nothing: the error event's type or code
            # must reach the caller (checked after retryable, the first thing a caller reads)
            ids = (_provider_ids(run.dialect, _stream_error_body(exchange))
                   if exchange.status < 400 and exchange.streamed else set())
            if ids and not any(getattr(e, "type", None) in ids or getattr(e, "code", None) in ids
                               for e in chain):
                raise ConformanceFailure(
                    "errors.type", f"step {n}: the error inside the stream does not carry the "
                    "provider's error type or code", expected=f"type or code in {sorted(ids)}",
                    got=got, hint="copy the error event's type/code (OpenAI error.type and "
                                  "error.code, Anthropic error.type, Gemini error.status) onto "
                                  "the error")

    return provider_error_check


def _kind_case(kind: str, *, id: str, title: str, why: str, via: str = "complete",
               retry_after: int | None = None) -> Case:
    dialects = tuple(d for d in ALL if kind in kinds_for(d))
    reply = Turn(error=ErrorReply(kind=kind, retry_after=retry_after))
    return case(id=id, title=title, why=why, dialects=dialects,
                steps=one_step(reply, via=via, expect="error"),
                checks=(error_surfaced(), provider_error(retryable=kind in RETRYABLE_KINDS,
                                                         retry_after=retry_after)))


_HTML_502 = ("<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>"
             "502 Bad Gateway</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n"
             "</html>\r\n")

@check("errors.transport")
def transport_error_retryable(run: CaseRun) -> None:
    """A broken connection may be retried: an error that says otherwise is wrong (one that
    says nothing is allowed: the caller sees a transport error)."""
    for record in run.steps:
        if record.step.expect != "error" or record.error is None:
            continue
        flags = [getattr(e, "retryable", None) for e in _chain(record.error)]
        flag = next((f for f in flags if isinstance(f, bool)), None)
        if flag is False:
            raise ConformanceFailure(
                "errors.retryable", f"step {record.index + 1}: the connection broke, and the "
                "error says retrying cannot help", expected="retryable=True (or not set)",
                got=describe_error(record.error),
                hint="a reset connection is transient: mark the error retryable")


@check("stream.closed")
def stream_closed(run: CaseRun) -> None:
    """A stream the caller stopped early was closed: its connection goes back to the pool."""
    for record in run.steps:
        for exchange in record.exchanges:
            if exchange.streamed and exchange.body_state == "open":
                raise ConformanceFailure(
                    "stream.closed", f"step {record.index + 1}: the caller stopped reading "
                    "the stream and closed it, but the adapter left the response open",
                    expected="the HTTP response closed when the stream is closed",
                    got="the response was neither read to the end nor closed (a leaked "
                        "connection)",
                    hint="read the response inside `with client.stream(...)` (async: `async "
                         "with`) in the generator, so closing the generator closes it")


_LONG = ("It is 21°C and sunny in Paris this afternoon, with a light wind from the west and "
         "no rain expected before the evening.")

CASES: list[Case] = [
    _kind_case(
        "rate_limit", id="errors.rate_limited", retry_after=DELAY,
        title="A 429 with a delay surfaces as a retryable error carrying the status and the "
              "delay",
        why="Rate limits are the most common production failure of tool loops. The provider "
            "says how long to wait (Retry-After on OpenAI and Anthropic, with their rate-limit "
            "headers; a RetryInfo detail on Gemini); an adapter that raises a bare error makes "
            "its caller guess, hammer the API or give up."),
    _kind_case(
        "rate_limit", id="errors.rate_limited_stream", via="stream", retry_after=DELAY,
        title="A 429 answering a stream request carries the status and the delay too",
        why="Stream paths read the error body themselves (before any event) and often lose "
            "the headers: the same 429 must come out the same way as from complete()."),
    _kind_case(
        "quota", id="errors.quota_exhausted",
        title="A used-up quota (OpenAI's 429 insufficient_quota, DeepSeek's 402) is not "
              "retryable",
        why="OpenAI answers a used-up quota with 429 too; a caller that retries every 429 "
            "loops until its budget is gone (OpenAI's error-codes guide: check plan and "
            "billing). The code, not the status, says so. DeepSeek says it with 402 "
            "'Insufficient Balance' (Error Codes page, confirmed 2026-11-25)."),
    _kind_case(
        "auth", id="errors.auth_invalid",
        title="A rejected API key surfaces as a final error with its status",
        why="A wrong key never heals; retrying it only delays the message the user needs. "
            "Gemini says it with 400 INVALID_ARGUMENT (reason API_KEY_INVALID), the others "
            "with 401."),
    _kind_case(
        "permission", id="errors.permission_denied",
        title="A 403 surfaces as a final error with its status",
        why="A key without access to the model, or a region the provider does not serve, "
            "fails the same way every time."),
    _kind_case(
        "model_not_found", id="errors.model_not_found",
        title="An unknown model (404) surfaces as a final error with its status",
        why="A typo in the model name or a retired model; adapters that treat every non-200 "
            "as transient retry it forever, and routers need the 404 to fall back."),
    _kind_case(
        "context_length", id="errors.context_length",
        title="A prompt longer than the context window surfaces as a final error with the "
              "provider's type or code",
        why="Each provider says it differently (OpenAI context_length_exceeded, Anthropic "
            "'prompt is too long', Gemini's input token count); callers that trim history "
            "need to recognise it, and it must not be retried as it is."),
    _kind_case(
        "request_too_large", id="errors.request_too_large",
        title="Anthropic's 413 request_too_large surfaces as a final error",
        why="Anthropic refuses bodies over its size limit with 413 before reading them; a "
            "retry sends the same bytes."),
    _kind_case(
        "server_error", id="errors.server_error",
        title="A 500 surfaces as a retryable error with its status",
        why="Provider failures are transient; a caller retries them, if the error says so."),
    _kind_case(
        "overloaded", id="errors.overloaded",
        title="An overloaded provider (Anthropic 529 overloaded_error, others 503) is "
              "retryable",
        why="Anthropic's 529 is outside the 5xx lists many clients copy (500, 502, 503, "
            "504); treated as final, every busy hour becomes an outage."),
    case(
        id="errors.gateway_html",
        title="A gateway's HTML 502 page surfaces as a retryable error with its status",
        why="Cloudflare and load balancers answer 502 with HTML; the adapter must not crash on "
            "the body, and the caller must still see a retryable 502.",
        steps=one_step(Turn(error=ErrorReply(status=502, raw_body=_HTML_502)), expect="error"),
        checks=(error_surfaced(must_contain="Bad Gateway"), provider_error(retryable=True)),
    ),
    case(
        id="errors.in_stream",
        dialects=("openai", "openai-responses", "anthropic", "gemini", "openrouter"),
        title="An error inside a 200 stream surfaces as a retryable error",
        why="Providers fail mid-stream after the 200 is sent (Anthropic's overloaded_error "
            "event, OpenAI's error chunk, Gemini's INTERNAL, OpenRouter's unified event with a "
            "top-level error and finish_reason 'error': openrouter.ai/docs/api-reference/"
            "streaming, confirmed 2026-11-25); the status says nothing then, so the error's "
            "type or code must: the request can be sent again.",
        steps=(Step(request=one_step(Turn())[0].request,
                    reply=Turn(text="The weather in Paris is", stream=StreamPlan(error_after=2)),
                    via="stream", expect="error"),),
        checks=(error_surfaced(), provider_error(retryable=True)),
    ),
    case(
        id="errors.key_not_in_error",
        title="A failed call's error does not carry the API key",
        why="Errors are logged, traced and shown: an adapter that sends the key in the URL "
            "(Gemini's ?key=) and raises with the request URL puts the key in every log of a "
            "failed call (BerriAI/litellm #24902 and #8075, graniet/llm #115, nyroway/nyro #68 "
            "returned it in a 502 body to proxy users, HolmesGPT/holmesgpt #2010), and one "
            "that quotes the request or its own configuration leaks it the same way "
            "(steve-goldberg/NocoBot #3: str(e) of client exceptions carrying API keys "
            "logged and returned). The census class 'secrets' (docs/bugs.md); confirmed "
            "2026-11-28. Complete and streamed, each answered 500.",
        steps=(Step(request=one_step(Turn())[0].request, expect="error",
                    reply=Turn(error=ErrorReply(status=500, message="Internal error"))),
               Step(request=one_step(Turn())[0].request, via="stream", expect="error",
                    reply=Turn(error=ErrorReply(status=500, message="Internal error")))),
        checks=(error_surfaced(), key_not_in_error),
    ),
    case(
        id="errors.connection_refused",
        title="A refused connection raises a typed error, never an empty answer",
        why="Gateways restart, local servers (Ollama) are not running, DNS points nowhere. An "
            "adapter that catches every exception and returns an empty response makes the "
            "loop think the model said nothing; the caller needs an error it can retry.",
        steps=one_step(Turn(error=ErrorReply(refuse=True)), expect="error"),
        checks=(error_surfaced(), transport_error_retryable),
    ),
    case(
        id="errors.connection_reset",
        title="A connection reset in the middle of a stream raises, never a partial answer",
        why="Connections drop mid-stream (a proxy's idle timeout, a deploy, a flaky network): "
            "httpx reports 'peer closed connection without sending complete message body'. An "
            "adapter that treats the end of the bytes as the end of the answer returns half a "
            "text or half a call as if complete.",
        steps=(Step(request=one_step(Turn())[0].request,
                    reply=Turn(text=_LONG, stream=StreamPlan(truncate_after=3, reset=True)),
                    via="stream", expect="error"),),
        checks=(error_surfaced(), transport_error_retryable),
    ),
    case(
        id="errors.stream_stalled",
        title="A stream that stalls (no bytes, connection open) ends in an error, not a hang",
        why="Providers and proxies stall mid-stream: the connection stays open, nothing comes. "
            "Clients built with timeout=None (to let long generations finish) then wait "
            "forever. The adapter needs a read timeout, and the error it raises is retryable. "
            "In-process the fake honours the client's read timeout at once; on a loopback port "
            "it holds the connection until the client closes it or the case's deadline has "
            "passed.",
        steps=(Step(request=one_step(Turn())[0].request,
                    reply=Turn(text=_LONG, stream=StreamPlan(truncate_after=3, stall=True)),
                    via="stream", expect="error"),),
        checks=(error_surfaced(), transport_error_retryable),
    ),
    case(
        id="errors.stream_cancelled",
        title="A stream the caller stops early is closed, not leaked",
        why="Callers stop reading streams (a user cancels, a UI navigates away, a loop has the "
            "call it needs). An adapter that opens the response outside a `with` block leaves "
            "the connection open; the pool runs dry after a few cancelled streams "
            "(httpx: 'Unclosed response' / PoolTimeout). The fake tracks whether each response "
            "was read to the end or closed.",
        steps=(Step(request=one_step(Turn())[0].request,
                    reply=Turn(text=_LONG), via="stream", take=2),),
        checks=(stream_closed,),
    ),
]

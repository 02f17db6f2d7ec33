"""Negative controls for the Gemini cases: the reference :class:`GeminiAdapter` with ONE thing
broken each. The docstring names the bug and, where there is one, its public report (WIRE.md §6).
Above each, ``@fails`` names the case that must fail it and the clause; the tables at the end
collect them for ``tests/providers/test_controls.py``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import httpx
from provider_kit import BrokenStream, Route, collected, fails

from pytest_toolcall.core.errors import ProviderError
from pytest_toolcall.core.model import (
    AssistantMessage,
    ChatRequest,
    ChatResponse,
    Reasoning,
    SystemMessage,
    ToolCall,
    ToolCallComplete,
    ToolCallDelta,
    ToolMessage,
)
from pytest_toolcall.providers.gemini.reference import GeminiAdapter, StreamAccumulator

__all__ = [
    "BlockedPromptAsStop",
    "BlockedPromptCrashes",
    "BlockedStreamIsCut",
    "CarriesAnySignedBlock",
    "FailedResultAsOutput",
    "FirstRoundResultsOnly",
    "LastTextPartWins",
    "DropsCallIdsOnReplay",
    "DropsTextNextToCalls",
    "KeepsFirstSystemOnly",
    "KeyInUrlShownInErrors",
    "SystemAsUserTurn",
    "ThoughtsAsAnswerText",
    "DropsThoughtSignature",
    "FinishChunkEndsStream",
    "IgnoresCarriedSignature",
    "FirstFunctionCallPartOnly",
    "LastChunkCallsWin",
    "NameAsId",
    "NoIdMadeUp",
    "OneTurnPerResult",
    "PairsByPositionOnly",
    "PairsByIdOnly",
    "RequiresThoughtSignature",
    "ResultsLeftOut",
    "RetryDelayFromHeadersOnly",
    "ParsesEachRead",
    "ResultsAsToolRole",
    "SplitsEventsOnLfLf",
    "StopIsStop",
    "StreamForgetsSignature",
    "SuccessBodyReadAsObject",
    "UnknownFinishIsStop",
]


@fails("wire.gemini_calls_without_ids", "response.tool_calls.id_unique")
class NameAsId(GeminiAdapter):
    """A call without an id gets its function name as id: two get_weather calls share one
    (TanStack/ai #199)."""

    def parse_call(self, part: dict[str, Any]) -> ToolCall:
        call = super().parse_call(part)
        return call if part["functionCall"].get("id") else call.model_copy(
            update={"id": call.name})


@fails("wire.gemini_calls_without_ids", "response.tool_calls.id_unique")
class NoIdMadeUp(GeminiAdapter):
    """A call without an id is handed on with id None; nothing can be paired with it later."""

    def parse_call(self, part: dict[str, Any]) -> ToolCall:
        call = super().parse_call(part)
        return call.model_copy(update={"id": part["functionCall"].get("id")})


@fails("wire.gemini_id_less_results_paired", "request.messages.function_response.name")
class PairsByIdOnly(GeminiAdapter):
    """Results are paired with calls by id only: results of id-less calls find no call and go
    out without a name (litellm #11262)."""

    def encode_results(self, results: list[ToolMessage],
                       calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
        by_id = {c.id: c for c in calls if c.id}
        return [{"functionResponse": {
            "name": by_id[r.tool_call_id].name if r.tool_call_id in by_id else "",
            "response": {"output": r.content}}} for r in results]


# no functionResponse at all: every call of the turn goes back unanswered
@fails("wire.gemini_id_less_results_paired", "wire.gemini.results_paired")
class ResultsLeftOut(GeminiAdapter):
    """Results are paired with calls by id only and a result that finds no call is left out;
    a result turn left with no part is not sent at all: the calls of an id-less turn go back
    unanswered (langchain-google-genai 4.4.3, _parse_chat_history, when a ToolMessage's
    tool_call_id matches no call id)."""

    def encode_results(self, results: list[ToolMessage],
                       calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
        ids = {c.id for c in calls if c.id}
        return super().encode_results([r for r in results if r.tool_call_id in ids], calls)

    def encode_contents(self, messages: Sequence[Any]) -> list[dict[str, Any]]:
        return [c for c in super().encode_contents(messages) if c["parts"]]


@fails("wire.gemini_ids_and_signature_echoed", "wire.gemini.ids_echoed")
@fails("stream.gemini_signature_echoed", "wire.gemini.ids_echoed")
class DropsCallIdsOnReplay(GeminiAdapter):
    """Ids are never sent back (the Vertex workaround applied to the Gemini API too, as in
    vercel/ai #15891 / litellm PR #34603): newer models lose the call-result link."""

    @staticmethod
    def wire_id(call_id: str | None) -> bool:
        return False


@fails("wire.gemini_ids_and_signature_echoed", "wire.gemini.thought_signature")
class DropsThoughtSignature(GeminiAdapter):
    """The thoughtSignature of a call is not replayed (vercel/ai #10344: Gemini 3 answers 400
    'Function call is missing a thought_signature')."""

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        part = super().encode_call(call)
        part.pop("thoughtSignature", None)
        return part


@fails("wire.gemini_signed_history_replayed", "wire.gemini.thought_signature")
class IgnoresCarriedSignature(GeminiAdapter):
    """Only the signatures the adapter read itself go back: a stored turn's signature is lost,
    and Gemini 3 answers 400 (dirge-code/dirge #833: the stored tool call had no field for it
    and was replayed with ``signature: None``)."""

    def encode_assistant(self, message: AssistantMessage) -> dict[str, Any]:
        return super().encode_assistant(message.model_copy(update={"reasoning": ()}))


@fails("wire.gemini_signed_history_replayed", "wire.gemini.thought_signature")
class CarriesAnySignedBlock(GeminiAdapter):
    """Any signed reasoning goes on the turn's first call, a Claude thinking block's signature
    too: Gemini answers 400 'Corrupted thought signature.' (decolua/9router #4136: Claude's
    signatures put on Gemini functionCall parts after a model switch)."""

    def encode_assistant(self, message: AssistantMessage) -> dict[str, Any]:
        signed = tuple(Reasoning(type="thinking", signature=r.signature)
                       for r in message.reasoning if r.signature)
        return super().encode_assistant(message.model_copy(update={"reasoning": signed}))


@fails("wire.gemini_results_out_of_order", "wire.gemini.results_paired")
class PairsByPositionOnly(GeminiAdapter):
    """A result is paired with the call at its position, ids ignored: results stored out of
    call order get each other's names (router-for-me/CLIProxyAPI #5199: permuted results paired
    by position, 'functionResponse.id does not match functionCall.id')."""

    def encode_results(self, results: list[ToolMessage],
                       calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
        return super().encode_results(results, [c.model_copy(update={"id": None})
                                                for c in calls])


@fails("wire.gemini_success_not_object", "error.typed")
class SuccessBodyReadAsObject(GeminiAdapter):
    """A 200 body is read as an object whatever it is: a JSON array crashes with an
    AttributeError (coreply/coreply #18: "Expected start of the object '{', but had '['")."""

    def parse_response(self, data: Any) -> ChatResponse:
        if not data.get("candidates"):
            raise ProviderError(f"malformed response: {data!r:.200}")
        return super().parse_response(data)


class _NoSignatureAccumulator(StreamAccumulator):
    def add_call(self, part: dict[str, Any]) -> list[Any]:
        function = part["functionCall"]
        self.count += 1
        return [ToolCallComplete(call=ToolCall.from_raw(
            id=function.get("id") or self.adapter.new_id(), name=function["name"],
            arguments=function.get("args")))]


@fails("stream.gemini_signature_echoed", "wire.gemini.thought_signature")
class StreamForgetsSignature(BrokenStream, GeminiAdapter):
    """The streaming path builds calls on its own and keeps no thoughtSignature: replay after a
    streamed turn fails on Gemini 3 while the non-streaming path works."""

    accumulator = _NoSignatureAccumulator


@fails("wire.gemini_one_response_turn", "request.messages.function_response.count")
@fails("wire.second_turn_passthrough", "request.messages.function_response.count",
       table="SHARED_CONTROLS")
class OneTurnPerResult(GeminiAdapter):
    """Each tool result goes in a user turn of its own (langchain #27799)."""

    def encode_contents(self, messages: Sequence[Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        calls: Sequence[ToolCall] = ()
        for message in messages:
            if isinstance(message, ToolMessage):
                k = sum(1 for m in messages[:messages.index(message)]
                        if isinstance(m, ToolMessage))
                out.append({"role": "user", "parts": self.encode_results(
                    [message], [calls[k]] if k < len(calls) else [])})
            else:
                out += super().encode_contents([message])
                calls = getattr(message, "tool_calls", calls)
        return out


@fails("wire.gemini_one_response_turn", "request.messages.role")
class ResultsAsToolRole(GeminiAdapter):
    """Results go in a turn with role 'function' (the old PaLM/Vertex spelling)."""

    def encode_contents(self, messages: Sequence[Any]) -> list[dict[str, Any]]:
        out = super().encode_contents(messages)
        for content in out:
            if any("functionResponse" in p for p in content["parts"]):
                content["role"] = "function"
        return out


@fails("wire.gemini_stop_with_calls", "response.finish_reason")
class StopIsStop(GeminiAdapter):
    """finishReason STOP is read as 'stop' even when the turn is tool calls."""

    @staticmethod
    def parse_finish(reason: str | None, has_calls: bool) -> Any:
        return GeminiAdapter.parse_finish(reason, False)


@fails("wire.gemini_stop_with_calls", "response.finish_reason")
class UnknownFinishIsStop(GeminiAdapter):
    """Every finishReason that is not MAX_TOKENS or SAFETY is read as 'stop':
    MALFORMED_FUNCTION_CALL passes as a normal end."""

    @staticmethod
    def parse_finish(reason: str | None, has_calls: bool) -> Any:
        mapped = GeminiAdapter.parse_finish(reason, has_calls)
        return "stop" if mapped in ("error", "other") else mapped


class _FirstCallAccumulator(StreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        for candidate in data.get("candidates") or ():
            parts = (candidate.get("content") or {}).get("parts") or []
            calls = [p for p in parts if "functionCall" in p]
            candidate["content"]["parts"] = [p for p in parts if "functionCall" not in p] \
                + calls[:1]
        return super().feed(data)


@fails("stream.gemini_calls_in_one_chunk", "response.tool_calls.count")
@fails("stream.parallel_sequential", "response.tool_calls.count", table="SHARED_CONTROLS")
class FirstFunctionCallPartOnly(BrokenStream, GeminiAdapter):
    """Only the first functionCall part of a chunk is read (langchainjs #10196)."""

    accumulator = _FirstCallAccumulator


class _LastChunkAccumulator(StreamAccumulator):
    def __init__(self, adapter: GeminiAdapter) -> None:
        super().__init__(adapter)
        self.calls: list[ToolCall] = []

    def feed(self, data: dict[str, Any]) -> list[Any]:
        events = super().feed(data)
        chunk_calls = [e.call for e in events if isinstance(e, ToolCallComplete)]
        if chunk_calls:
            self.calls = chunk_calls  # "the calls of the response" = those of this chunk
        return [e for e in events if not isinstance(e, (ToolCallComplete, ToolCallDelta))]

    def close(self) -> Iterable[Any]:
        done = list(super().close())
        return [ToolCallComplete(call=c) for c in self.calls] + done


@fails("stream.gemini_one_call_per_chunk", "response.tool_calls.count")
class LastChunkCallsWin(BrokenStream, GeminiAdapter):
    """Each chunk's calls are taken as the turn's calls: with one call per chunk only the last
    survives."""

    accumulator = _LastChunkAccumulator


@fails("stream.gemini_crlf_events", "adapter.raised")
class SplitsEventsOnLfLf(GeminiAdapter):
    """Events are split on '\\n\\n' in the raw text: Gemini's '\\r\\n\\r\\n' endings give no
    event at all."""

    def lines(self, response: httpx.Response) -> Iterator[str]:
        pending = ""
        for text in response.iter_text():
            pending += text
            *events, pending = pending.split("\n\n")
            for event in events:
                yield from event.split("\n")
                yield ""


# the cut inside "data: " loses the first event silently: its text is missing
@fails("stream.gemini_crlf_events", "response.text")
@fails("stream.bytewise", "adapter.raised", table="SHARED_CONTROLS")
class ParsesEachRead(GeminiAdapter):
    """Each network read is taken to hold whole events: a data: line cut in two is two broken
    JSON payloads."""

    def lines(self, response: httpx.Response) -> Iterator[str]:
        for text in response.iter_text():
            yield from text.splitlines()
            yield ""


class _FinishIsEndAccumulator(StreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        candidates = data.get("candidates") or ()
        if candidates and candidates[0].get("finishReason"):
            self.finish = candidates[0]["finishReason"]  # "the closing chunk carries nothing"
            return []
        return super().feed(data)


@fails("stream.gemini_finish_on_last_chunk", "response.tool_calls.count")
class FinishChunkEndsStream(BrokenStream, GeminiAdapter):
    """The chunk carrying finishReason is taken for the empty closing chunk of 2.5 / 3.x and
    its parts are skipped: with gemini-2.0-flash the last call or text is lost."""

    accumulator = _FinishIsEndAccumulator


@fails("wire.gemini_calls_without_signature", "adapter.raised")
class RequiresThoughtSignature(GeminiAdapter):
    """Written for Gemini 3: the first functionCall part of a turn is assumed to carry a
    thoughtSignature (``part["thoughtSignature"]``), so 2.0's unsigned calls raise KeyError."""

    def parse_response(self, data: Any) -> Any:
        parts = data["candidates"][0]["content"]["parts"]
        first = next((p for p in parts if "functionCall" in p), None)
        if first is not None:
            self.signatures["first"] = first["thoughtSignature"]
        return super().parse_response(data)


# == messages (issue 12) ===========================================================================


@fails("wire.system_prompt", "wire.messages.system", table="SHARED_CONTROLS")
class SystemAsUserTurn(GeminiAdapter):
    """The system prompt is sent as a first user turn instead of ``systemInstruction`` (the
    model reads the instructions as the user's words)."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        system = body.pop("systemInstruction", None)
        if system:
            body["contents"].insert(0, {"role": "user", "parts": system["parts"]})
        return body


@fails("wire.system_prompts_several", "wire.messages.system", table="SHARED_CONTROLS")
@fails("wire.developer_message", "wire.messages.system", table="SHARED_CONTROLS")
class KeepsFirstSystemOnly(GeminiAdapter):
    """Only the first system message becomes ``systemInstruction``; later ones are dropped."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        first = next((m.content for m in request.messages if isinstance(m, SystemMessage)), None)
        if first is not None:
            body["systemInstruction"] = {"parts": [{"text": first}]}
        return body


@fails("wire.assistant_text_with_calls_replayed", "wire.history.messages", table="SHARED_CONTROLS")
class DropsTextNextToCalls(GeminiAdapter):
    """A model turn with functionCall parts is replayed as the calls alone; its text part is
    lost (issue 12)."""

    def encode_assistant(self, message: AssistantMessage) -> dict[str, Any]:
        out = super().encode_assistant(message)
        if message.tool_calls:
            out["parts"] = [p for p in out["parts"] if "functionCall" in p]
        return out


# == errors (issue 12) =============================================================================


@fails("errors.rate_limited", "errors.retry_after", table="SHARED_CONTROLS")
class RetryDelayFromHeadersOnly(GeminiAdapter):
    """The delay is read from Retry-After only, as for OpenAI and Anthropic: Gemini puts it in
    the body's RetryInfo detail, so the caller never learns it."""

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        try:
            super().raise_for_error(response, body)
        except ProviderError as error:
            delay = response.headers.get("retry-after")
            raise ProviderError(error.message, status=error.status, type=error.type,
                                code=error.code, body=error.body,
                                retry_after=float(delay) if delay else None) from None


@fails("errors.key_not_in_error", "errors.no_api_key", table="SHARED_CONTROLS")
class KeyInUrlShownInErrors(GeminiAdapter):
    """Sends the API key as ``?key=`` on the URL instead of the x-goog-api-key header, and
    raises a failed call's error with the URL it posted to: the key is in the message of every
    error, and so in every log of one. BerriAI/litellm #24902 (the Gemini key passed as a ?key=
    URL parameter; any failed call put the full URL with the key into exception messages)."""

    def __init__(self, base_url: str, api_key: str, **kwargs: Any) -> None:
        super().__init__(base_url, api_key, **kwargs)
        self.headers, self.key = {}, api_key

    def request_url(self, request: ChatRequest, *, stream: bool) -> httpx.URL:
        return super().request_url(request, stream=stream).copy_merge_params({"key": self.key})

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        try:
            super().raise_for_error(response, body)
        except ProviderError as error:
            raise ProviderError(f"{error.message} (POST {response.request.url})",
                                status=error.status, type=error.type, code=error.code,
                                body=error.body, retryable=error.retryable) from None


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "gemini"
#: the path of every request the reference adapter sends
PATH = "/v1beta/models/gemini-2.5-flash:*"
#: recent google-genai clients call /v1: the fake routes it like /v1beta
ROUTES = {"v1": Route(path="/v1/models/gemini-2.5-flash:*",
                      base_url=lambda url: url.replace("/v1beta", "/v1"),
                      cases=("wire.second_turn_passthrough", "stream.parallel_sequential",
                             "wire.gemini_ids_and_signature_echoed"))}

#: (case id, broken adapter, the clause the case must name): the gemini cases
def _unmarked(data: Any) -> Any:
    """A response chunk with the ``thought`` marks taken off its parts."""
    for candidate in (data.get("candidates") or ()) if isinstance(data, dict) else ():
        for part in (candidate.get("content") or {}).get("parts") or ():
            part.pop("thought", None)
    return data


class _ThoughtsAsTextAccumulator(StreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        return super().feed(_unmarked(data))


@fails("wire.gemini_thought_not_answer", "response.text")
class ThoughtsAsAnswerText(BrokenStream, GeminiAdapter):
    """Joins every text part into the answer, the thought: true parts too: the thought summary
    is shown as the model's answer (AstrBotDevs/AstrBot #4222)."""

    accumulator = _ThoughtsAsTextAccumulator

    def parse_response(self, data: Any) -> Any:
        return super().parse_response(_unmarked(data))


@fails("wire.gemini_prompt_blocked", "adapter.raised")
class BlockedPromptCrashes(GeminiAdapter):
    """Reads ``candidates[0]`` of every answer: a blocked prompt, which has none, raises a
    KeyError (gbaptista/gemini-ai PR #9: "The parsed_data may not have candidates")."""

    def parse_response(self, data: Any) -> ChatResponse:
        data["candidates"][0]
        return super().parse_response(data)


@fails("wire.gemini_prompt_blocked", "response.finish_reason")
class BlockedPromptAsStop(GeminiAdapter):
    """A response without candidates is an empty answer that finished: the blocked prompt
    reads as a blank final answer (2389-research/tracker #543: "swallowed as a successful empty
    completion")."""

    def parse_response(self, data: Any) -> ChatResponse:
        if isinstance(data, dict) and not data.get("candidates"):
            return ChatResponse(finish_reason="stop",
                                usage=self.parse_usage(data.get("usageMetadata")))
        return super().parse_response(data)


class _FeedbackIgnoredAccumulator(StreamAccumulator):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        return super().feed({k: v for k, v in data.items() if k != "promptFeedback"})


@fails("wire.gemini_prompt_blocked", "adapter.raised")
class BlockedStreamIsCut(BrokenStream, GeminiAdapter):
    """A streamed chunk's promptFeedback is not read: the one chunk of a blocked prompt has no
    finishReason, and the stream is taken for a cut one (0xPlaygrounds/rig PR #2475: "the stream
    ended before its terminal record", retried as a transient fault)."""

    accumulator = _FeedbackIgnoredAccumulator


@fails("wire.gemini_text_in_parts", "response.text")
class LastTextPartWins(GeminiAdapter):
    """Each text part of a candidate replaces the one before: only the last is kept
    (agno-agi/agno #3229)."""

    def parse_response(self, data: Any) -> ChatResponse:
        response = super().parse_response(data)
        parts = data["candidates"][0]["content"]["parts"]
        texts = [p["text"] for p in parts if isinstance(p.get("text"), str)
                 and not p.get("thought")]
        return response.model_copy(update={"text": texts[-1] if texts else None})


@fails("wire.gemini_failed_result", "wire.gemini.failed_result")
class FailedResultAsOutput(GeminiAdapter):
    """Every result goes back under ``output``, the failed ones too: the model reads a failure
    as the tool's answer (pleaseai/shunt PR #234 review: "Tool Failures Become Successful
    Results", tool_result.is_error ignored)."""

    def encode_results(self, results: list[ToolMessage],
                       calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
        return super().encode_results(
            [r.model_copy(update={"is_error": False}) for r in results], calls)


@fails("wire.gemini_failed_result", "wire.gemini.results_paired")
class FirstRoundResultsOnly(GeminiAdapter):
    """Only the first turn of results goes back; a later round's calls are left unanswered
    (microsoft/vscode #299295: orphaned function calls, Gemini's 400 'the number of function
    response parts is equal to the number of function call parts')."""

    def encode_results(self, results: list[ToolMessage],
                       calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
        self.rounds = getattr(self, "rounds", 0) + 1
        return super().encode_results(results, calls) if self.rounds == 1 else []

    def encode_contents(self, messages: Sequence[Any]) -> list[dict[str, Any]]:
        self.rounds = 0
        return [c for c in super().encode_contents(messages) if c["parts"]]


CONTROLS = collected(__name__)

#: the shared cases, each with a bug of the gemini wire it must catch there, as Gemini sends them
SHARED_CONTROLS = collected(__name__, "SHARED_CONTROLS")

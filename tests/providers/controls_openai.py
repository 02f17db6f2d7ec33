"""Negative controls: small broken adapters, each reproducing one real tool-calling bug.

Every class is the reference :class:`OpenAIChatAdapter` with ONE method overridden (stream bugs
override ``new_accumulator`` to hand out an accumulator with one broken method). The docstring names
the bug and, where there is one, the public report it comes from (WIRE.md §6). Above each,
``@fails`` names the case that must fail it and the clause; the tables at the end collect them for
``tests/providers/test_controls.py``. The generic cases, which every provider runs, have their
controls here, on the openai wire; the controls of the other providers on the openai wire are
subclasses of these (their error bugs, for example) on their own adapters.

Classes whose name starts with ``Async`` break only the async path (``acomplete`` / ``astream``),
so their sync path passes and the async interface is proven to be checked on its own.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import httpx
from provider_kit import BrokenStream, collected, fails

from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import ProviderError
from pytest_toolcall.core.model import (
    ChatRequest,
    ChatResponse,
    NamedToolChoice,
    StreamDone,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolMessage,
    ToolSpec,
    Usage,
)
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter, StreamAccumulator, _Slot

# == request encoding ==============================================================================


@fails("wire.tool_definitions_intact", "wire.tools.intact", table="GENERIC_CONTROLS")
class DropsDescriptions(OpenAIChatAdapter):
    """Tool descriptions are not translated: the model sees bare names."""

    def encode_tool(self, tool: ToolSpec) -> dict[str, Any]:
        out = super().encode_tool(tool)
        del out["function"]["description"]
        return out


@fails("wire.tool_definitions_intact", "wire.tools.intact", table="GENERIC_CONTROLS")
class DropsSchemaKeywords(OpenAIChatAdapter):
    """Only ``type``/``properties``/``required`` survive the schema translation; ``enum``,
    ``additionalProperties``, ``minLength``, ``$defs``... are dropped (a whitelist translator)."""

    def encode_tool(self, tool: ToolSpec) -> dict[str, Any]:
        out = super().encode_tool(tool)
        schema = tool.parameters
        out["function"]["parameters"] = {k: schema[k] for k in ("type", "properties", "required")
                                         if k in schema}
        return out


@fails("wire.strict_tool_intact", "wire.tools.intact", table="SHARED_CONTROLS")
class DropsStrict(OpenAIChatAdapter):
    """The ``strict`` flag of a tool is not sent: strict: true is lost (an omitted strict:
    false is the provider default and passes wire.tool_definitions_intact)."""

    def encode_tool(self, tool: ToolSpec) -> dict[str, Any]:
        out = super().encode_tool(tool)
        out["function"].pop("strict", None)
        return out


@fails("wire.tool_choice_auto", "wire.tool_choice", table="GENERIC_CONTROLS")
@fails("wire.tool_choice_none", "wire.tool_choice", table="GENERIC_CONTROLS")
@fails("wire.tool_choice_named", "wire.tool_choice", table="GENERIC_CONTROLS")
class NeverSendsToolChoice(OpenAIChatAdapter):
    """tool_choice is accepted by the adapter's API and never put on the wire."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        body.pop("tool_choice", None)
        return body


@fails("wire.tool_choice_none", "wire.tool_choice", table="GENERIC_CONTROLS")
@fails("wire.tool_choice_required", "wire.tool_choice", table="GENERIC_CONTROLS")
class AlwaysAuto(OpenAIChatAdapter):
    """tool_choice is hard-coded to "auto": 'none' and 'required' from the caller are ignored."""

    def encode_tool_choice(self, choice: Any) -> Any:
        return "auto"


@fails("wire.tool_choice_named", "request.tool_choice.value", table="GENERIC_CONTROLS")
class ToolChoiceAsPlainName(OpenAIChatAdapter):
    """A named tool_choice is sent as the bare tool name string; OpenAI rejects it (400)."""

    def encode_tool_choice(self, choice: Any) -> Any:
        return choice.name if isinstance(choice, NamedToolChoice) else choice


@fails("wire.tool_choice_required", "request.tool_choice.value", table="GENERIC_CONTROLS")
class ToolChoiceAnthropicSpelling(OpenAIChatAdapter):
    """'required' is spelled 'any' (Anthropic's word, copied into the OpenAI mapping)."""

    def encode_tool_choice(self, choice: Any) -> Any:
        return "any" if choice == "required" else super().encode_tool_choice(choice)


@fails("wire.parallel_tool_calls_false", "wire.parallel_tool_calls", table="GENERIC_CONTROLS")
class DropsParallelToolCalls(OpenAIChatAdapter):
    """parallel_tool_calls is never sent."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        body.pop("parallel_tool_calls", None)
        return body


@fails("wire.parallel_tool_calls_false", "wire.parallel_tool_calls", table="GENERIC_CONTROLS")
class ParallelToolCallsTruthy(OpenAIChatAdapter):
    """``if request.parallel_tool_calls:`` instead of ``is not None``: False is never sent."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        if not body.get("parallel_tool_calls"):
            body.pop("parallel_tool_calls", None)
        return body


# == history replay ================================================================================


# null replayed as null: OpenAI itself refuses the request
@fails("wire.zero_args_null", "request.type")
@fails("wire.zero_args_empty_string", "wire.replay.arguments_json", table="SHARED_CONTROLS")
@fails("stream.zero_args", "wire.replay.arguments_json", table="SHARED_CONTROLS")
class ReplaysRawArguments(OpenAIChatAdapter):
    """A call is replayed with the argument text exactly as it came: "" stays "" and null stays
    null (litellm #5063; openai-python PR #3502 shows json.loads("") failing on the next turn)."""

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        return {"id": call.id, "type": "function",
                "function": {"name": call.name, "arguments": call.raw_arguments}}


@fails("wire.zero_args_null", "wire.replay.arguments_json")
@fails("wire.zero_args_empty_object", "wire.replay.arguments_json", table="GENERIC_CONTROLS")
class EmptyArgumentsAsEmptyString(OpenAIChatAdapter):
    """``json.dumps(args) if args else ""``: a call with no arguments is replayed as ""."""

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        text = json.dumps(call.arguments, ensure_ascii=False) if call.arguments else ""
        return {"id": call.id, "type": "function",
                "function": {"name": call.name, "arguments": text}}


@fails("wire.non_ascii_arguments", "wire.replay.non_ascii", table="GENERIC_CONTROLS")
class ReplaysAsciiEscaped(OpenAIChatAdapter):
    """Arguments replayed with ``json.dumps`` defaults: non-ASCII becomes \\uXXXX
    (langchain PR #32222)."""

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        return {"id": call.id, "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments or {})}}


@fails("wire.second_turn_passthrough", "wire.history.tool_calls", table="GENERIC_CONTROLS")
class ReplaysNamespacedName(OpenAIChatAdapter):
    """The replayed call's name carries a framework prefix ("functions.get_weather")."""

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        out = super().encode_call(call)
        out["function"]["name"] = "functions." + call.name
        return out


@fails("wire.second_turn_passthrough", "request.messages.tool_calls.unanswered",
       table="GENERIC_CONTROLS")
class DropsToolResults(OpenAIChatAdapter):
    """Tool results are dropped on the second turn (seed 004: dropped on iteration 2+); the
    provider answers 400 for the unanswered calls."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        body["messages"] = [m for m in body["messages"] if m["role"] != "tool"]
        return body


@fails("wire.second_turn_passthrough", "request.messages.tool.orphan", table="GENERIC_CONTROLS")
class DropsAssistantToolCalls(OpenAIChatAdapter):
    """The assistant turn is replayed as text only; its tool calls are lost, so the tool results
    that follow are orphans and the provider answers 400."""

    def encode_message(self, message: Any) -> dict[str, Any]:
        out = super().encode_message(message)
        if out["role"] == "assistant" and "tool_calls" in out:
            del out["tool_calls"]
            out["content"] = out["content"] or ""
        return out


@fails("wire.second_turn_passthrough", "wire.history.tool_results", table="GENERIC_CONTROLS")
class ToolResultsJsonEncoded(OpenAIChatAdapter):
    """Tool results are JSON-encoded a second time: "result 1" reaches the model as
    '"result 1"'."""

    def encode_message(self, message: Any) -> dict[str, Any]:
        out = super().encode_message(message)
        if isinstance(message, ToolMessage):
            out["content"] = json.dumps(message.content)
        return out


@fails("wire.second_turn_passthrough", "wire.history.tool_results", table="GENERIC_CONTROLS")
class ToolResultsReversed(OpenAIChatAdapter):
    """Tool results are sent in completion order (here: reversed), not in call order."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        messages = body["messages"]
        tools = [k for k, m in enumerate(messages) if m["role"] == "tool"]
        for k, m in zip(tools, reversed([messages[k] for k in tools])):
            messages[k] = m
        return body


# == response parsing ==============================================================================


@fails("wire.zero_args_null", "adapter.raised")
@fails("wire.zero_args_empty_string", "adapter.raised", table="SHARED_CONTROLS")
@fails("wire.malformed_arguments", "adapter.raised", table="SHARED_CONTROLS")
class UnguardedJsonLoads(OpenAIChatAdapter):
    """``json.loads(arguments)`` unguarded: crashes on "" (openai-python PR #3502), on null and
    on malformed JSON instead of reporting a parse error."""

    def parse_call(self, raw: dict[str, Any]) -> ToolCall:
        function = raw.get("function") or {}
        text = function.get("arguments")
        return ToolCall(id=raw.get("id"), name=function.get("name", ""),
                        arguments=json.loads(text), raw_arguments=text)


@fails("wire.zero_args_empty_string", "response.tool_calls.arguments", table="SHARED_CONTROLS")
class EmptyStringIsParseError(OpenAIChatAdapter):
    """json.loads is guarded, but "" is not special-cased: a zero-argument call becomes a parse
    error instead of {}."""

    def parse_call(self, raw: dict[str, Any]) -> ToolCall:
        function = raw.get("function") or {}
        text = function.get("arguments")
        try:
            return ToolCall(id=raw.get("id"), name=function.get("name", ""),
                            arguments=json.loads(text) if text is not None else {},
                            raw_arguments=text)
        except ValueError as exc:
            return ToolCall(id=raw.get("id"), name=function.get("name", ""), arguments=None,
                            raw_arguments=text, parse_error=str(exc))


@fails("wire.zero_args_empty_object", "response.tool_calls.arguments", table="GENERIC_CONTROLS")
class EmptyObjectIsMissing(OpenAIChatAdapter):
    """``json.loads(text) or None``: {} is falsy, so a zero-argument call loses its arguments."""

    def parse_call(self, raw: dict[str, Any]) -> ToolCall:
        call = super().parse_call(raw)
        return call.model_copy(update={"arguments": call.arguments or None})


@fails("wire.malformed_arguments", "response.tool_calls.parse_error", table="SHARED_CONTROLS")
class MalformedBecomesEmpty(OpenAIChatAdapter):
    """A parse failure is swallowed into {}: the tool runs with no arguments and nobody knows."""

    def parse_call(self, raw: dict[str, Any]) -> ToolCall:
        call = super().parse_call(raw)
        if call.parse_error:
            return call.model_copy(update={"arguments": {}, "parse_error": None})
        return call


@fails("wire.malformed_arguments", "response.tool_calls.raw_arguments", table="SHARED_CONTROLS")
class ParseErrorLosesRawText(OpenAIChatAdapter):
    """The parse error is reported, but the raw argument text is thrown away, so the loop cannot
    show the model what it sent."""

    def parse_call(self, raw: dict[str, Any]) -> ToolCall:
        call = super().parse_call(raw)
        if call.parse_error:
            return call.model_copy(update={"raw_arguments": None})
        return call


@fails("wire.single_call", "response.tool_calls.arguments", table="GENERIC_CONTROLS")
class ArgumentsFromFlatShape(OpenAIChatAdapter):
    """Arguments read from ``call["arguments"]`` (the Responses API's flat shape) instead of
    ``call["function"]["arguments"]``: every call arrives with no arguments."""

    def parse_call(self, raw: dict[str, Any]) -> ToolCall:
        function = raw.get("function") or {}
        return ToolCall.from_raw(id=raw.get("id"), name=function.get("name", ""),
                                 arguments=raw.get("arguments"))


@fails("wire.single_call", "response.tool_calls.id", table="GENERIC_CONTROLS")
class DropsCallIds(OpenAIChatAdapter):
    """Call ids are not kept, so tool results cannot be paired with calls (litellm #11262)."""

    def parse_call(self, raw: dict[str, Any]) -> ToolCall:
        return super().parse_call(raw).model_copy(update={"id": None})


@fails("wire.parallel_calls", "response.tool_calls.count", table="GENERIC_CONTROLS")
class KeysCallsByName(OpenAIChatAdapter):
    """Calls are collected in a dict keyed by tool name (TanStack/ai #199: id = function name):
    two parallel calls of the same tool collapse into one."""

    def parse_response(self, data: Any) -> ChatResponse:
        response = super().parse_response(data)
        by_name = {call.name: call for call in response.tool_calls}
        return response.model_copy(update={"tool_calls": tuple(by_name.values())})


@fails("wire.parallel_calls", "response.tool_calls.count", table="GENERIC_CONTROLS")
class FirstCallOnly(OpenAIChatAdapter):
    """Only ``tool_calls[0]`` is read: parallel calls are silently dropped."""

    def parse_response(self, data: Any) -> ChatResponse:
        response = super().parse_response(data)
        return response.model_copy(update={"tool_calls": response.tool_calls[:1]})


@fails("wire.parallel_calls", "response.tool_calls.id", table="GENERIC_CONTROLS")
class CallsSortedByName(OpenAIChatAdapter):
    """Calls are returned sorted by tool name, not in the order the model made them."""

    def parse_response(self, data: Any) -> ChatResponse:
        response = super().parse_response(data)
        ordered = tuple(sorted(response.tool_calls, key=lambda c: c.name))
        return response.model_copy(update={"tool_calls": ordered})


@fails("wire.text_and_calls", "response.text", table="GENERIC_CONTROLS")
class ContentOrToolCalls(OpenAIChatAdapter):
    """Reads either content or tool_calls: text next to tool calls is lost."""

    def parse_response(self, data: Any) -> ChatResponse:
        response = super().parse_response(data)
        if response.tool_calls:
            return response.model_copy(update={"text": None})
        return response


@fails("wire.text_only", "response.text", table="GENERIC_CONTROLS")
class ReadsLegacyText(OpenAIChatAdapter):
    """Text read from ``choices[0].text`` (the legacy Completions shape), never from
    ``choices[0].message.content``."""

    def parse_response(self, data: Any) -> ChatResponse:
        response = super().parse_response(data)
        return response.model_copy(update={"text": data["choices"][0].get("text")})


@fails("wire.single_call", "response.finish_reason", table="GENERIC_CONTROLS")
class FinishAlwaysStop(OpenAIChatAdapter):
    """Every finish reason is mapped to "stop": the loop cannot tell a tool turn from an end."""

    @staticmethod
    def parse_finish(reason: str | None) -> Any:
        return None if reason is None else "stop"


@fails("stream.usage_chunk", "response.usage")
@fails("wire.usage", "response.usage", table="GENERIC_CONTROLS")
class IgnoresUsage(OpenAIChatAdapter):
    """Token usage is never read; cost tracking is silently zero."""

    @staticmethod
    def parse_usage(raw: dict[str, Any] | None) -> Usage | None:
        return None


@fails("wire.usage", "response.usage", table="GENERIC_CONTROLS")
class SwapsUsage(OpenAIChatAdapter):
    """prompt_tokens and completion_tokens are swapped (input and output priced differently)."""

    @staticmethod
    def parse_usage(raw: dict[str, Any] | None) -> Usage | None:
        if not raw:
            return None
        return Usage(input_tokens=raw.get("completion_tokens"),
                     output_tokens=raw.get("prompt_tokens"), total_tokens=raw.get("total_tokens"))


# == errors ========================================================================================


@fails("wire.non_ascii_arguments", "response.tool_calls.arguments", table="GENERIC_CONTROLS")
class DecodesLatin1(OpenAIChatAdapter):
    """The JSON body is decoded as ISO-8859-1 (the HTTP/1.1 default when no charset is given):
    "Zürich" arrives as "ZÃ¼rich"."""

    def complete(self, request: ChatRequest) -> ChatResponse:
        response = self.client.post(self.url, headers=self.headers,
                                    json=self.build_body(request, stream=False))
        self.raise_for_error(response, response.content)
        return self.parse_response(json.loads(response.content.decode("latin-1")))


@fails("wire.provider_error", "error.surfaced", table="GENERIC_CONTROLS")
class SwallowsErrorBody(OpenAIChatAdapter):
    """The status is never checked and a body without ``choices`` is read as an empty answer:
    a 400 becomes a silent, empty success."""

    def complete(self, request: ChatRequest) -> ChatResponse:
        response = self.client.post(self.url, headers=self.headers,
                                    json=self.build_body(request, stream=False))
        data = response.json()
        if not data.get("choices"):
            return ChatResponse()
        return self.parse_response(data)


@fails("wire.provider_error", "error.message", table="GENERIC_CONTROLS")
class GenericErrorMessage(OpenAIChatAdapter):
    """The error raised names the HTTP status only ("request failed: HTTP 400"); the provider's
    explanation in the body is dropped."""

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        if response.status_code >= 400:
            raise ProviderError(f"request failed: HTTP {response.status_code}",
                                status=response.status_code)


@fails("wire.provider_error", "error.message", table="GENERIC_CONTROLS")
@fails("stream.provider_error", "error.message", table="GENERIC_CONTROLS")
class RaiseForStatus(OpenAIChatAdapter):
    """``response.raise_for_status()``: httpx's "Client error '400 Bad Request'" replaces the
    provider's message."""

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        response.raise_for_status()


@fails("wire.provider_error", "error.typed", table="GENERIC_CONTROLS")
class KeyErrorOnErrorBody(OpenAIChatAdapter):
    """Errors are read from a guessed shape (``data["detail"]``): the real error body raises
    KeyError: the user sees a crash, not the provider's words."""

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        if response.status_code >= 400:
            raise ProviderError(json.loads(body)["detail"], status=response.status_code)


@fails("wire.provider_error", "error.surfaced", table="GENERIC_CONTROLS")
class ErrorAsText(OpenAIChatAdapter):
    """A failed request is turned into an assistant message carrying the error text, as if the
    model had said it."""

    def complete(self, request: ChatRequest) -> ChatResponse:
        try:
            return super().complete(request)
        except ProviderError as exc:
            return ChatResponse(text=str(exc), finish_reason="stop")


@fails("wire.provider_error", "request.count", table="GENERIC_CONTROLS")
class RetriesOnError(OpenAIChatAdapter):
    """Retries every failed request once, 4xx included: the provider is billed twice and the
    error still arrives, late."""

    def complete(self, request: ChatRequest) -> ChatResponse:
        try:
            return super().complete(request)
        except ProviderError:
            return super().complete(request)


@fails("wire.single_call", "adapter.raised", table="GENERIC_CONTROLS")
class CompleteAsksForStream(OpenAIChatAdapter):
    """complete() builds its body with the streaming flag (one build_body call shared badly)."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        return super().build_body(request, stream=True)


# == streaming: the request and the byte level =====================================================


@fails("stream.single_call_fragmented", "stream.requested", table="GENERIC_CONTROLS")
class StreamWithoutStreamFlag(OpenAIChatAdapter):
    """stream() forgets ``stream: true``; the provider answers one JSON body, no SSE."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        return super().build_body(request, stream=False)


@fails("stream.usage_chunk", "response.usage")
class NoIncludeUsage(OpenAIChatAdapter):
    """``stream_options.include_usage`` is not requested, so no usage chunk ever comes."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        body.pop("stream_options", None)
        return body


@fails("stream.bytewise", "adapter.raised", table="GENERIC_CONTROLS")
@fails("stream.any_chunking", "adapter.raised", table="GENERIC_CONTROLS")
class DecodesEachRead(OpenAIChatAdapter):
    """Each network read is decoded as UTF-8 on its own: a character cut between two reads
    raises UnicodeDecodeError."""

    def lines(self, response: httpx.Response) -> Iterator[str]:
        pending = ""
        for chunk in response.iter_bytes():
            pending += chunk.decode("utf-8")
            *lines, pending = pending.split("\n")
            yield from lines
        yield pending


@fails("stream.bytewise", "adapter.raised", table="GENERIC_CONTROLS")
@fails("stream.any_chunking", "adapter.raised", table="GENERIC_CONTROLS")
class ReadIsWholeLines(OpenAIChatAdapter):
    """Each network read is taken to hold whole SSE lines (true of most servers' flushes, not
    of networks): a line cut in two is two broken JSON payloads."""

    def lines(self, response: httpx.Response) -> Iterator[str]:
        for chunk in response.iter_text():
            yield from chunk.splitlines()


@fails("stream.provider_error", "error.message", table="GENERIC_CONTROLS")
class StreamNoStatusCheck(OpenAIChatAdapter):
    """SSE parsing starts before the status is checked: the 400 body is no event, the stream
    'ends early', and the provider's message is lost."""

    def stream(self, request: ChatRequest) -> Iterator[Any]:
        body = self.build_body(request, stream=True)
        with self.client.stream("POST", self.url, headers=self.headers, json=body) as response:
            acc = self.new_accumulator()
            for line in response.iter_lines():
                yield from acc.feed_line(line)
            yield from acc.close()


@fails("stream.parallel_sequential", "request.count", table="GENERIC_CONTROLS")
class RetriesStream(OpenAIChatAdapter):
    """stream() sends its request twice (a 'warm-up' request, or a retry wrapper around a
    generator that was already started)."""

    def stream(self, request: ChatRequest) -> Iterator[Any]:
        self.client.post(self.url, headers=self.headers,
                         json=self.build_body(request, stream=True)).read()
        yield from super().stream(request)


# == streaming: accumulators =======================================================================


class _Acc(StreamAccumulator):
    """Base of the broken accumulators (one overridden method each)."""


class _OverwritesArgumentsAcc(_Acc):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        delta = super().add_fragment(frag)
        slot = self.slots[delta.index]
        if slot.arguments:
            slot.arguments = slot.arguments[-1:]
        return delta


@fails("stream.single_call_fragmented", "response.tool_calls.arguments", table="GENERIC_CONTROLS")
class OverwritesArguments(BrokenStream, OpenAIChatAdapter):
    """Each arguments fragment replaces the buffer instead of being appended to it."""

    accumulator = _OverwritesArgumentsAcc


class _RoleChunkIsHeaderAcc(_Acc):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        choices = data.get("choices") or ()
        if choices and "role" in (choices[0].get("delta") or {}):
            return []  # "the role chunk only announces the message"
        return super().feed(data)


@fails("stream.call_in_role_chunk", "response.tool_calls.id")
class SkipsRoleChunk(BrokenStream, OpenAIChatAdapter):
    """Treats the chunk that carries ``role`` as a header and skips it; real OpenAI streams
    mostly put the first tool-call fragment in that very chunk, so the call is lost."""

    accumulator = _RoleChunkIsHeaderAcc


class _KeysOnIndexAcc(_Acc):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        index, function = frag.get("index"), frag.get("function") or {}
        slot = self.by_index.get(index)
        if slot is None:
            slot = self.by_index[index] = _Slot(len(self.slots), frag.get("id"), None)
            self.slots.append(slot)
        slot.id, slot.name = slot.id or frag.get("id"), slot.name or function.get("name")
        if function.get("arguments") is not None:
            slot.arguments = (slot.arguments or []) + [function["arguments"]]
        return ToolCallDelta(index=slot.index, arguments_delta=function.get("arguments") or "")


@fails("stream.index_stuck_at_zero", "response.tool_calls.count", table="SHARED_CONTROLS")
@fails("stream.index_missing", "response.tool_calls.count", table="SHARED_CONTROLS")
class KeysOnIndexOnly(BrokenStream, OpenAIChatAdapter):
    """Fragments keyed on ``index`` alone: servers that send every call at index 0 get their
    calls merged into ``{"path":"a"}{"path":"b"}`` (ollama #15457, litellm #33678, #5231)."""

    accumulator = _KeysOnIndexAcc


class _IndexRequiredAcc(_Acc):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        frag["index"] = int(frag["index"])
        return super().add_fragment(frag)


@fails("stream.index_missing", "adapter.raised", table="SHARED_CONTROLS")
class IndexRequired(BrokenStream, OpenAIChatAdapter):
    """``frag["index"]`` read unguarded: a stream without indices raises KeyError
    (ollama #7881)."""

    accumulator = _IndexRequiredAcc


class _KeysOnIdAcc(_Acc):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        call_id, function = frag["id"], frag.get("function") or {}
        slot = next((s for s in self.slots if s.id == call_id), None)
        if slot is None:
            slot = _Slot(len(self.slots), call_id, function.get("name"))
            self.slots.append(slot)
        if function.get("arguments") is not None:
            slot.arguments = (slot.arguments or []) + [function["arguments"]]
        return ToolCallDelta(index=slot.index, id=call_id,
                             arguments_delta=function.get("arguments") or "")


@fails("stream.id_name_once", "adapter.raised", table="SHARED_CONTROLS")
class ExpectsIdOnEveryChunk(BrokenStream, OpenAIChatAdapter):
    """Fragments keyed on ``id``, read as ``frag["id"]``: OpenAI sends the id only on a call's
    first fragment, so the next fragment raises KeyError (litellm #11407)."""

    accumulator = _KeysOnIdAcc


class _DropsIdlessAcc(_Acc):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        if not frag.get("id"):
            return ToolCallDelta(index=0)
        return super().add_fragment(frag)


@fails("stream.id_name_once", "response.tool_calls.arguments", table="SHARED_CONTROLS")
class DropsFragmentsWithoutId(BrokenStream, OpenAIChatAdapter):
    """Fragments without an id are skipped as 'not a tool call': only the empty first
    fragment of each call is kept (litellm #11407)."""

    accumulator = _DropsIdlessAcc


class _LastNameWinsAcc(_Acc):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        delta = super().add_fragment(frag)
        self.slots[delta.index].name = (frag.get("function") or {}).get("name")
        return delta


@fails("stream.id_name_once", "response.tool_calls.name", table="SHARED_CONTROLS")
class LastNameWins(BrokenStream, OpenAIChatAdapter):
    """The call's name is overwritten by every fragment, so the later fragments, which carry
    no name, erase it."""

    accumulator = _LastNameWinsAcc


@fails("errors.key_not_in_error", "errors.no_api_key", table="GENERIC_CONTROLS")
class ErrorQuotesRequestHeaders(OpenAIChatAdapter):
    """Raises a failed call's error with the request's headers in its message, for debugging:
    the Authorization header carries the key into every log of the error. steve-goldberg/
    NocoBot #3 (str(e) of client exceptions, which can contain API keys, stored in the response
    and logged)."""

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        try:
            super().raise_for_error(response, body)
        except ProviderError as error:
            raise ProviderError(f"{error.message}; request headers: "
                                f"{dict(response.request.headers)}", status=error.status,
                                type=error.type, code=error.code, body=error.body) from None


class _AssignsGivenKeysAcc(_Acc):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        delta = super().add_fragment(frag)
        slot, function = self.slots[delta.index], frag.get("function") or {}
        if "id" in frag:  # any id the fragment carries, null included, is assigned
            slot.id = frag["id"]
        if "name" in function:
            slot.name = function["name"]
        return delta


@fails("stream.id_name_null", "response.tool_calls.id")
class AssignsNullIdAndName(BrokenStream, OpenAIChatAdapter):
    """Assigns every id and name a fragment carries, an explicit null too: a key left out
    keeps the first fragment's, a null erases it. xintaofei/deepseek-acp #4 (`if (call.id !==
    undefined) block.callId = call.id`: the tool ran as unknown tool \"\")."""

    accumulator = _AssignsGivenKeysAcc


class _NewCallOnIdKeyAcc(_Acc):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        if "id" in frag and frag.get("index") in self.by_index:
            del self.by_index[frag["index"]]  # an id key, even null, starts a call
        return super().add_fragment(frag)


@fails("stream.id_name_null", "response.tool_calls.count")
class NewCallOnAnyIdKey(BrokenStream, OpenAIChatAdapter):
    """Starts a new call on every fragment that has an id key, whatever its value: a null id
    splits one call into several. symfony/ai PR #2220 (a continuation's empty id read as a new
    start: the accumulated arguments clobbered)."""

    accumulator = _NewCallOnIdKeyAcc


class _ConcatenatesAcc(_Acc):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        index, function = frag.get("index"), frag.get("function") or {}
        slot = self.by_index.get(index)
        if slot is None:
            slot = self.by_index[index] = _Slot(len(self.slots), None, None)
            self.slots.append(slot)
        # every string field is appended, the way arguments are
        slot.id = (slot.id or "") + (frag.get("id") or "") or None
        slot.name = (slot.name or "") + (function.get("name") or "") or None
        if function.get("arguments") is not None:
            slot.arguments = (slot.arguments or []) + [function["arguments"]]
        return ToolCallDelta(index=slot.index, arguments_delta=function.get("arguments") or "")


@fails("stream.id_name_repeated", "response.tool_calls.id")
class ConcatenatesIdAndName(BrokenStream, OpenAIChatAdapter):
    """Every string field of a fragment is concatenated, id and name included (langchain
    #40041, the openai stream helper's accumulate_delta): a server that repeats them yields
    'call_001call_001'."""

    accumulator = _ConcatenatesAcc


class _ConcatenatesNameAcc(_Acc):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        existing = self.by_index.get(frag.get("index"))
        delta = super().add_fragment(frag)
        name = (frag.get("function") or {}).get("name")
        if existing is not None and existing is self.slots[delta.index] and name:
            existing.name = (existing.name or "") + name
        return delta


@fails("stream.id_name_repeated", "response.tool_calls.name")
class ConcatenatesName(BrokenStream, OpenAIChatAdapter):
    """The name is appended like the arguments (langchain #40041): 'get_weatherget_weather'."""

    accumulator = _ConcatenatesNameAcc


class _LineLimitAcc(_Acc):
    LIMIT = 131_072  # aiohttp's StreamReader high-water mark with the default read_bufsize

    def feed_line(self, line: str) -> Iterable[Any]:
        if len(line.encode("utf-8")) > self.LIMIT:
            raise ValueError("Chunk too big")
        return super().feed_line(line)


@fails("stream.unicode_line_separators", "adapter.raised", table="SHARED_CONTROLS")
class SplitsLinesLikeStr(OpenAIChatAdapter):
    """Reads the stream with httpx's iter_lines, which cuts lines with
    str.splitlines: at U+2028 and U+2029 too, inside a data line's JSON (openai-python #1230,
    httpx-sse #34). The reference adapters read this way until 2026-11-25."""

    def lines(self, response: httpx.Response) -> Iterator[str]:
        return response.iter_lines()


@fails("stream.unicode_line_separators", "adapter.raised", table="ASYNC_CONTROLS")
class AsyncSplitsLinesLikeStr(OpenAIChatAdapter):
    """:class:`SplitsLinesLikeStr` in astream() only: aiter_lines cuts at U+2028 and U+2029."""

    def alines(self, response: httpx.Response) -> AsyncIterator[str]:
        return response.aiter_lines()


@fails("stream.oversized_line", "adapter.raised", table="GENERIC_CONTROLS")
class LineBufferLimit(BrokenStream, OpenAIChatAdapter):
    """Reads the stream through a fixed line buffer and fails on an event past it, as
    aiohttp's line reader does ('Chunk too big' past 128 KiB: NVIDIA/TensorRT-LLM #13952)."""

    accumulator = _LineLimitAcc


class _IdStartsCallAcc(_Acc):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        if frag.get("id"):
            self.by_index.pop(frag.get("index"), None)
        return super().add_fragment(frag)


@fails("stream.id_name_repeated", "response.tool_calls.count")
class IdStartsNewCall(BrokenStream, OpenAIChatAdapter):
    """Any fragment that carries an id starts a new call: a server that repeats the id on every
    fragment turns one call into one call per fragment."""

    accumulator = _IdStartsCallAcc


class _CurrentCallAcc(_Acc):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        function = frag.get("function") or {}
        if frag.get("id") or function.get("name") or not self.slots:
            self.slots.append(_Slot(len(self.slots), frag.get("id"), function.get("name")))
        slot = self.slots[-1]
        if function.get("arguments") is not None:
            slot.arguments = (slot.arguments or []) + [function["arguments"]]
        return ToolCallDelta(index=slot.index, arguments_delta=function.get("arguments") or "")


@fails("stream.parallel_interleaved", "response.tool_calls.arguments", table="SHARED_CONTROLS")
class AppendsToCurrentCall(BrokenStream, OpenAIChatAdapter):
    """Argument fragments go to 'the current call' (the last one started), ignoring index:
    interleaved parallel calls mix (adk-python #1038: {"project_id": 3}{"project_id": 9})."""

    accumulator = _CurrentCallAcc


class _SingleCallAcc(_Acc):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        return super().add_fragment(dict(frag, index=0, id=None))


@fails("stream.parallel_interleaved", "response.tool_calls.count", table="SHARED_CONTROLS")
@fails("stream.parallel_sequential", "response.tool_calls.count", table="GENERIC_CONTROLS")
class OneCallPerStream(BrokenStream, OpenAIChatAdapter):
    """The accumulator holds a single call: parallel calls stream into one (langchain #34807)."""

    accumulator = _SingleCallAcc


class _ByNameAcc(_Acc):
    def finish_events(self) -> list[Any]:
        events = super().finish_events()
        by_name = {e.call.name: e for e in events[:-1]}
        return [*by_name.values(), events[-1]]


@fails("stream.parallel_sequential", "response.tool_calls.count", table="GENERIC_CONTROLS")
class StreamKeysCallsByName(BrokenStream, OpenAIChatAdapter):
    """Completed calls are stored by tool name (TanStack/ai #199): same-name parallel calls
    collapse into the last one."""

    accumulator = _ByNameAcc


class _SkipsEmptyAcc(_Acc):
    def finish_events(self) -> list[Any]:
        self.slots = [s for s in self.slots if s.arguments and "".join(s.arguments)]
        return super().finish_events()


@fails("stream.zero_args_null", "response.tool_calls.count")
@fails("stream.zero_args", "response.tool_calls.count", table="SHARED_CONTROLS")
class CompletesOnlyCallsWithArguments(BrokenStream, OpenAIChatAdapter):
    """A call is completed only once some argument text arrived: a zero-argument call ("" or
    null) never completes (pydantic-ai #1654)."""

    accumulator = _SkipsEmptyAcc


class _JoinsNoneAcc(_Acc):
    def finish_events(self) -> list[Any]:
        for slot in self.slots:
            slot.arguments = ["".join(slot.arguments)]  # type: ignore[arg-type]
        return super().finish_events()


@fails("stream.zero_args_null", "adapter.raised")
class JoinsNullArguments(BrokenStream, OpenAIChatAdapter):
    """``"".join(buffer)`` where the buffer of a call whose arguments were null is None:
    TypeError at the end of the stream (pydantic-ai #1654)."""

    accumulator = _JoinsNoneAcc


class _StrictFinishAcc(_Acc):
    def finish_events(self) -> list[Any]:
        for slot in self.slots:
            json.loads("".join(slot.arguments or []))
        return super().finish_events()


@fails("stream.zero_args", "adapter.raised", table="SHARED_CONTROLS")
@fails("stream.malformed_arguments", "adapter.raised", table="SHARED_CONTROLS")
class StreamUnguardedJsonLoads(BrokenStream, OpenAIChatAdapter):
    """The joined arguments are ``json.loads``-ed unguarded at the end of the stream: "" or
    malformed JSON raises and the rest of the answer is lost."""

    accumulator = _StrictFinishAcc


class _SwallowsParseErrorAcc(_Acc):
    def finish_events(self) -> list[Any]:
        events = super().finish_events()
        return [type(e)(call=e.call.model_copy(update={"arguments": {}, "parse_error": None}))
                if hasattr(e, "call") and e.call.parse_error else e for e in events]


@fails("stream.malformed_arguments", "response.tool_calls.parse_error", table="SHARED_CONTROLS")
class StreamMalformedBecomesEmpty(BrokenStream, OpenAIChatAdapter):
    """A streamed call whose arguments do not parse is completed with {}."""

    accumulator = _SwallowsParseErrorAcc


class _DropsTextAcc(_Acc):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        return [e for e in super().feed(data) if not isinstance(e, TextDelta)]


@fails("stream.text_fragmented", "response.text", table="GENERIC_CONTROLS")
@fails("stream.same_as_complete", "stream.same_as_complete", table="GENERIC_CONTROLS")
class StreamDropsText(BrokenStream, OpenAIChatAdapter):
    """The streamed path reads tool-call deltas only; ``delta.content`` is dropped."""

    accumulator = _DropsTextAcc


class _StripsTextAcc(_Acc):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        return [TextDelta(text=e.text.strip()) if isinstance(e, TextDelta) else e
                for e in super().feed(data)]


@fails("stream.text_fragmented", "response.text", table="GENERIC_CONTROLS")
class StripsTextDeltas(BrokenStream, OpenAIChatAdapter):
    """Each text delta is ``.strip()``-ed: the spaces between fragments vanish."""

    accumulator = _StripsTextAcc


class _NoFinishAcc(_Acc):
    def finish_events(self) -> list[Any]:
        events = super().finish_events()
        return [*events[:-1], StreamDone(finish_reason=None, usage=events[-1].usage)]


@fails("stream.same_as_complete", "stream.same_as_complete", table="GENERIC_CONTROLS")
class StreamDropsFinishReason(BrokenStream, OpenAIChatAdapter):
    """The streamed path never reports the finish reason (the finish chunk has an empty
    delta and is skipped)."""

    accumulator = _NoFinishAcc


class _NoUsageAcc(_Acc):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        return super().feed({k: v for k, v in data.items() if k != "usage"})


@fails("stream.usage_chunk", "response.usage")
# usage is compared by no other check of this case: only the comparison catches it
@fails("stream.same_as_complete", "stream.same_as_complete", table="GENERIC_CONTROLS")
class StreamIgnoresUsage(BrokenStream, OpenAIChatAdapter):
    """The usage chunk (``choices: []``) is skipped: streamed answers report no usage."""

    accumulator = _NoUsageAcc


class _FirstChoiceAcc(_Acc):
    def feed_event(self, data: Any) -> Iterable[Any]:
        choice = data["choices"][0]  # every chunk is assumed to carry choices[0]
        return self.feed(dict(data, choices=[choice]))


@fails("stream.usage_chunk", "adapter.raised")
@fails("stream.mid_stream_error", "error.typed", table="GENERIC_CONTROLS")
class IndexesFirstChoice(BrokenStream, OpenAIChatAdapter):
    """``chunk["choices"][0]`` on every chunk: the usage chunk (``choices: []``) raises
    IndexError, an error event (no choices) KeyError."""

    accumulator = _FirstChoiceAcc


class _IgnoresErrorAcc(_Acc):
    def feed_event(self, data: Any) -> Iterable[Any]:
        return self.feed(data)


@fails("stream.mid_stream_error", "error.message", table="GENERIC_CONTROLS")
class IgnoresErrorEvent(BrokenStream, OpenAIChatAdapter):
    """``data: {"error": ...}`` is not recognised and skipped; the stream then just ends, and
    the provider's message is lost."""

    accumulator = _IgnoresErrorAcc


class _NoDoneCheckAcc(_Acc):
    def close(self) -> Iterable[Any]:
        return () if self.done else self.finish_events()


@fails("stream.truncated", "error.surfaced", table="GENERIC_CONTROLS")
class NoDoneCheck(BrokenStream, OpenAIChatAdapter):
    """The end of the byte stream is taken as the end of the answer, [DONE] or not: a cut
    connection returns half a call as a finished result."""

    accumulator = _NoDoneCheckAcc


class _AssertsDoneAcc(_Acc):
    def close(self) -> Iterable[Any]:
        assert self.done, "stream ended early"
        return ()


@fails("stream.truncated", "error.typed", table="GENERIC_CONTROLS")
class AssertsDone(BrokenStream, OpenAIChatAdapter):
    """A truncated stream is detected with ``assert``: an AssertionError, not a typed error."""

    accumulator = _AssertsDoneAcc


class _NoDoneEventAcc(_Acc):
    def finish_events(self) -> list[Any]:
        return super().finish_events()[:-1]


@fails("stream.text_fragmented", "stream.done_last", table="GENERIC_CONTROLS")
class NoStreamDone(BrokenStream, OpenAIChatAdapter):
    """The stream ends without a StreamDone event, so consumers never learn the finish reason."""

    accumulator = _NoDoneEventAcc


class _TwoDonesAcc(_Acc):
    def feed(self, data: dict[str, Any]) -> list[Any]:
        events = super().feed(data)
        for choice in data.get("choices") or ():
            if choice.get("finish_reason"):
                events.append(StreamDone(finish_reason=self.adapter.parse_finish(self.finish)))
        return events


@fails("stream.text_fragmented", "stream.done_last", table="GENERIC_CONTROLS")
class TwoStreamDones(BrokenStream, OpenAIChatAdapter):
    """A StreamDone is emitted on the finish chunk and again at [DONE]."""

    accumulator = _TwoDonesAcc


# == async-only bugs ===============================================================================


@fails("wire.provider_error", "error.message", table="ASYNC_CONTROLS")
class AsyncGenericErrorMessage(OpenAIChatAdapter):
    """acomplete() has its own error handling, which drops the provider's message that
    complete() reports (two code paths drift)."""

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        response = await self.async_client.post(self.url, headers=self.headers,
                                                json=self.build_body(request, stream=False))
        if response.is_error:
            raise ProviderError(f"request failed: HTTP {response.status_code}",
                                status=response.status_code)
        return self.parse_response(response.json())


@fails("wire.usage", "response.usage", table="ASYNC_CONTROLS")
class AsyncIgnoresUsage(OpenAIChatAdapter):
    """acomplete() drops usage that complete() reports."""

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        response = await super().acomplete(request)
        return response.model_copy(update={"usage": None})


@fails("wire.parallel_calls", "response.tool_calls.count", table="ASYNC_CONTROLS")
class AsyncKeysCallsByName(OpenAIChatAdapter):
    """acomplete() collects calls by name (TanStack/ai #199); complete() is right."""

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        response = await super().acomplete(request)
        by_name = {call.name: call for call in response.tool_calls}
        return response.model_copy(update={"tool_calls": tuple(by_name.values())})


@fails("stream.single_call_fragmented", "stream.requested", table="ASYNC_CONTROLS")
class AsyncStreamWithoutFlag(OpenAIChatAdapter):
    """astream() forgets ``stream: true``; stream() sends it."""

    async def astream(self, request: ChatRequest) -> AsyncIterator[Any]:
        async with self.async_client.stream("POST", self.url, headers=self.headers,
                                            json=self.build_body(request, stream=False)) as r:
            acc = self.new_accumulator()
            async for line in r.aiter_lines():
                for event in acc.feed_line(line):
                    yield event
            for event in acc.close():
                yield event


@fails("stream.bytewise", "adapter.raised", table="ASYNC_CONTROLS")
@fails("stream.any_chunking", "adapter.raised", table="ASYNC_CONTROLS")
class AsyncDecodesEachRead(OpenAIChatAdapter):
    """astream() decodes each network read on its own (``aiter_bytes`` + ``decode``): a UTF-8
    character cut between reads raises; stream() uses iter_lines and is right."""

    async def alines(self, response: httpx.Response) -> AsyncIterator[str]:
        pending = ""
        async for chunk in response.aiter_bytes():
            pending += chunk.decode("utf-8")
            *lines, pending = pending.split("\n")
            for line in lines:
                yield line
        yield pending


@fails("stream.truncated", "error.surfaced", table="ASYNC_CONTROLS")
class AsyncNoDoneCheck(OpenAIChatAdapter):
    """astream() returns what it has when the bytes stop, [DONE] or not; stream() checks."""

    async def astream(self, request: ChatRequest) -> AsyncIterator[Any]:
        body = self.build_body(request, stream=True)
        async with self.async_client.stream("POST", self.url, headers=self.headers,
                                            json=body) as response:
            if response.status_code >= 400:
                self.raise_for_error(response, await response.aread())
            acc = self.new_accumulator()
            async for line in response.aiter_lines():
                for event in acc.feed_line(line):
                    yield event
            if not acc.done:
                for event in acc.finish_events():
                    yield event


@fails("stream.same_as_complete", "stream.same_as_complete", table="ASYNC_CONTROLS")
class AsyncStreamDropsText(OpenAIChatAdapter):
    """astream() yields only tool-call events; the text deltas stream() yields are lost."""

    async def astream(self, request: ChatRequest) -> AsyncIterator[Any]:
        async for event in super().astream(request):
            if not isinstance(event, TextDelta):
                yield event


# == gaps found by the mutation self-check ========================================================


@fails("errors.gateway_html", "error.typed", table="GENERIC_CONTROLS")
@fails("wire.error_not_json", "error.typed", table="GENERIC_CONTROLS")
class JsonDecodesEveryErrorBody(OpenAIChatAdapter):
    """Every error body is json-decoded, unguarded: a gateway's HTML 502 page crashes the
    adapter with a JSONDecodeError instead of a typed error carrying the status."""

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        if response.status_code < 400:
            return
        error = json.loads(body)["error"]
        raise ProviderError(str(error.get("message")), status=response.status_code)


@fails("wire.assistant_text_replayed", "wire.history.messages", table="GENERIC_CONTROLS")
class DropsTextOnlyAssistant(OpenAIChatAdapter):
    """Only the tool-call parts of the history are translated: an earlier assistant answer
    without tool calls is left out, silently (the provider accepts the shorter request)."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        body["messages"] = [m for m in body["messages"]
                            if m["role"] != "assistant" or m.get("tool_calls")]
        return body


class _FixedPrefixAcc(_Acc):
    def feed_line(self, line: str) -> Any:
        if line.startswith("data:") and not self.done:
            line = "data: " + line[len("data: "):]  # "cut the prefix": assumes the space
        return super().feed_line(line)


@fails("stream.sse_data_without_space", "adapter.raised")
class FixedDataPrefix(BrokenStream, OpenAIChatAdapter):
    """Cuts a fixed six-character 'data: ' prefix off every SSE line; a server that writes
    'data:{...}' (legal SSE) loses the first character of each event."""

    accumulator = _FixedPrefixAcc


class _EveryLineIsDataAcc(_Acc):
    def feed_line(self, line: str) -> Any:
        if line and not self.done:
            # "every non-empty line is 'field: json'": a comment line is decoded as an event
            payload = line.partition(":")[2].strip()
            if payload != "[DONE]":
                json.loads(payload)
        return super().feed_line(line)


@fails("stream.sse_comment_lines", "adapter.raised")
class BreaksOnSseComments(BrokenStream, OpenAIChatAdapter):
    """Reads every non-empty SSE line as ``<field>: <json>``; OpenRouter's keep-alive comment
    lines (``: OPENROUTER PROCESSING``, legal SSE) make it raise (OpenRouter's streaming docs
    warn about exactly this parser)."""

    accumulator = _EveryLineIsDataAcc


class _RawIndexDeltaAcc(_Acc):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        delta = super().add_fragment(frag)  # the completed calls stay right
        return delta.model_copy(update={"index": frag.get("index") or 0})


@fails("stream.index_stuck_at_zero", "stream.deltas", table="SHARED_CONTROLS")
class DeltaIndexIsProviderIndex(BrokenStream, OpenAIChatAdapter):
    """Streamed deltas carry the provider's raw index: with a server that sends every call at
    index 0, a client rendering the deltas shows one call whose arguments are all of them."""

    accumulator = _RawIndexDeltaAcc


class _NoPiecesDeltaAcc(_Acc):
    def add_fragment(self, frag: dict[str, Any]) -> ToolCallDelta:
        return super().add_fragment(frag).model_copy(update={"arguments_delta": ""})


@fails("stream.single_call_fragmented", "stream.deltas", table="GENERIC_CONTROLS")
class DeltasWithoutArguments(BrokenStream, OpenAIChatAdapter):
    """Deltas announce each call but never carry its argument pieces: a client showing the
    call as it streams shows it empty."""

    accumulator = _NoPiecesDeltaAcc


@fails("wire.malformed_success", "error.typed", table="GENERIC_CONTROLS")
class IndexesStraightIntoTheAnswer(OpenAIChatAdapter):
    """Reads ``data["choices"][0]["message"]`` unguarded: a 200 body without choices (a proxy's
    error in a success envelope) crashes with a KeyError instead of a typed error."""

    def parse_response(self, data: Any) -> ChatResponse:
        message = data["choices"][0]["message"]
        return super().parse_response({**data, "choices": [{"message": message}]})


@fails("wire.unknown_finish_reason", "adapter.raised")
class FinishReasonDictLookup(OpenAIChatAdapter):
    """Maps finish reasons with a plain dict lookup: a reason added by the provider after the
    adapter was written raises KeyError."""

    @staticmethod
    def parse_finish(reason: str | None) -> Any:
        table = {"stop": "stop", "tool_calls": "tool_calls", "length": "length",
                 "content_filter": "content_filter"}
        return None if reason is None else table[reason]


@fails("wire.unknown_finish_reason", "response.finish_reason")
class UnknownFinishIsStop(OpenAIChatAdapter):
    """Any finish reason it does not know is reported as 'stop': a resource-exhausted or
    moderated answer reads as a complete one."""

    @staticmethod
    def parse_finish(reason: str | None) -> Any:
        known = {"stop", "tool_calls", "length", "content_filter"}
        return None if reason is None else (reason if reason in known else "stop")


@fails("wire.malformed_success", "error.surfaced", table="GENERIC_CONTROLS")
class MalformedAnswerAsEmpty(OpenAIChatAdapter):
    """A 200 that is not an answer (no choices) is read as an empty answer: the loop gets no
    text, no calls and no error, as if the model had said nothing."""

    def parse_response(self, data: Any) -> ChatResponse:
        if not isinstance(data, dict) or not data.get("choices"):
            return ChatResponse()
        return super().parse_response(data)


@fails("wire.error_not_json", "error.message", table="GENERIC_CONTROLS")
class ErrorPageWithoutItsWords(OpenAIChatAdapter):
    """A non-JSON error page becomes 'HTTP 502' with the page's own words thrown away."""

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        if response.status_code < 400:
            return
        try:
            error = json.loads(body)["error"]
        except ValueError:
            raise ProviderError(f"HTTP {response.status_code}") from None
        raise ProviderError(str(error.get("message")), status=response.status_code)


@fails("wire.parallel_tool_calls_without_tools", "request.parallel_tool_calls.without_tools")
class ParallelFlagWithoutTools(OpenAIChatAdapter):
    """Sends parallel_tool_calls whenever the request sets it, also on a request without tools
    (a final turn asked without tools): OpenAI answers 400."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        if request.parallel_tool_calls is not None:
            body["parallel_tool_calls"] = request.parallel_tool_calls
        return body


# == messages: system prompts, developer messages, text next to calls (issue 12) ==================


@fails("wire.system_prompt", "wire.messages.system", table="GENERIC_CONTROLS")
@fails("wire.developer_message", "wire.messages.system", table="GENERIC_CONTROLS")
class SystemAsUser(OpenAIChatAdapter):
    """System messages are translated with a role table that knows only user and assistant:
    the system prompt goes out as a user message (issue 12: an independently written adapter
    did this and passed the whole suite)."""

    def encode_message(self, message: Any) -> dict[str, Any]:
        out = super().encode_message(message)
        if out["role"] in ("system", "developer"):
            out["role"] = "user"
        return out


@fails("wire.system_prompt", "wire.messages.system", table="GENERIC_CONTROLS")
@fails("wire.system_prompts_several", "wire.messages.system", table="GENERIC_CONTROLS")
class DropsSystemMessages(OpenAIChatAdapter):
    """Only user, assistant and tool messages are translated; system messages vanish."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        body["messages"] = [m for m in body["messages"] if m["role"] not in ("system",
                                                                             "developer")]
        return body


@fails("wire.system_prompts_several", "wire.messages.system", table="GENERIC_CONTROLS")
class MergesSystemMessages(OpenAIChatAdapter):
    """All system messages are joined into one at the top (a 'system prompt' field, as
    Anthropic-first libraries model it): a system message added later in the conversation
    moves to the start."""

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        system = [m["content"] for m in body["messages"] if m["role"] in ("system", "developer")]
        rest = [m for m in body["messages"] if m["role"] not in ("system", "developer")]
        body["messages"] = ([{"role": "system", "content": "\n\n".join(system)}] if system
                            else []) + rest
        return body


@fails("wire.developer_message", "wire.messages.system", table="GENERIC_CONTROLS")
class DeveloperAsUser(OpenAIChatAdapter):
    """A role table from before the developer role: system stays system, anything else that
    is not assistant or tool becomes user, so a developer message is sent as the user's."""

    def encode_message(self, message: Any) -> dict[str, Any]:
        out = super().encode_message(message)
        if out["role"] == "developer":
            out["role"] = "user"
        return out


@fails("wire.assistant_text_with_calls_replayed", "wire.history.messages", table="GENERIC_CONTROLS")
class DropsTextWithToolCalls(OpenAIChatAdapter):
    """An assistant turn with tool calls is replayed as the calls alone (content null): the
    model's own words before the calls are lost (issue 12)."""

    def encode_message(self, message: Any) -> dict[str, Any]:
        out = super().encode_message(message)
        if out.get("tool_calls"):
            out["content"] = None
        return out


@fails("wire.foreign_history", "request.messages.tool.unknown_id", table="GENERIC_CONTROLS")
class RemintsForeignIdsOnCalls(OpenAIChatAdapter):
    """Call ids that do not look like OpenAI's (``call_…``) are replaced by fresh ones on the
    assistant's calls, but the tool results keep the old ids: after a provider switch OpenAI
    answers 400 (the cross-provider failures of pi #9048 and tau PR #557, here on OpenAI)."""

    def encode_call(self, call: ToolCall) -> dict[str, Any]:
        out = super().encode_call(call)
        if not str(call.id).startswith("call_"):
            out["id"] = "call_" + str(abs(hash(call.id)))[:12]
        return out


# == errors: what a retrying caller reads (issue 12) ==============================================


class _Reraise(OpenAIChatAdapter):
    """Base of the error controls: ``raise_for_error`` builds the reference's ProviderError,
    then ``change`` rewrites it."""

    def change(self, error: ProviderError) -> ProviderError:
        return error

    def raise_for_error(self, response: httpx.Response, body: bytes) -> None:
        try:
            super().raise_for_error(response, body)
        except ProviderError as error:
            raise self.change(error) from None


def _copy(error: ProviderError, **fields: Any) -> ProviderError:
    values = {"status": error.status, "type": error.type, "code": error.code,
              "param": error.param, "body": error.body, "retry_after": error.retry_after,
              "retryable": error.retryable}
    values.update(fields)
    return type(error)(error.message, **values)


@fails("errors.rate_limited", "errors.retry_after", table="SHARED_CONTROLS")
class NoRetryAfter(_Reraise):
    """The error keeps the status and the words but not the delay: Retry-After is never read
    (openai-node #1477: the rate-limit headers are not on the exception)."""

    def change(self, error: ProviderError) -> ProviderError:
        return _copy(error, retry_after=None)


@fails("errors.gateway_html", "errors.status", table="GENERIC_CONTROLS")
class StatusLost(_Reraise):
    """The error carries the provider's words but not the HTTP status (``raise
    Exception(body['error']['message'])``): a caller cannot tell a 429 from a 400."""

    def change(self, error: ProviderError) -> ProviderError:
        return _copy(error, status=None, retryable=None)


class EveryErrorRetryable(_Reraise):
    """Every error is marked retryable: a wrong key or an unknown model is retried until the
    caller's budget runs out."""

    def change(self, error: ProviderError) -> ProviderError:
        return _copy(error, retryable=True)


class NeverRetryable(_Reraise):
    """No error is marked retryable: a rate limit or a busy hour stops the caller at once."""

    def change(self, error: ProviderError) -> ProviderError:
        return _copy(error, retryable=False)


@fails("errors.quota_exhausted", "errors.retryable", table="SHARED_CONTROLS")
class RetryableByStatusOnly(_Reraise):
    """Whether to retry is read from the status alone: OpenAI's 429 insufficient_quota (a used-
    up quota) is retried as if it were a rate limit."""

    def change(self, error: ProviderError) -> ProviderError:
        return _copy(error, retryable=error.status == 429 or (error.status or 0) >= 500)


class DropsErrorCode(_Reraise):
    """The provider's error type and code are dropped: context_length_exceeded and
    rate_limit_exceeded look the same to the caller."""

    def change(self, error: ProviderError) -> ProviderError:
        return _copy(error, type=None, code=None)


@fails("errors.in_stream", "errors.retryable", table="SHARED_CONTROLS")
class StreamErrorFinal(OpenAIChatAdapter):
    """An error chunk inside a 200 stream is raised as a final error (no status, so "not
    retryable"): a stream broken by a transient server_error is never sent again."""

    def new_accumulator(self) -> StreamAccumulator:
        acc = super().new_accumulator()
        feed_line = acc.feed_line

        def final(line: str) -> Any:
            try:
                return feed_line(line)
            except ProviderError as error:
                raise _copy(error, retryable=False) from None

        acc.feed_line = final  # type: ignore[method-assign]
        return acc


@fails("errors.rate_limited_stream", "errors.retry_after", table="SHARED_CONTROLS")
class StreamLosesRetryAfter(OpenAIChatAdapter):
    """stream() reads an error answer on its own path and raises without the delay, while
    complete() keeps it."""

    def stream(self, request: ChatRequest) -> Iterator[Any]:
        try:
            yield from super().stream(request)
        except ProviderError as error:
            if error.status is None:
                raise
            raise _copy(error, retry_after=None) from None


@fails("errors.in_stream", "errors.type", table="SHARED_CONTROLS")
class StreamErrorUntyped(OpenAIChatAdapter):
    """An error chunk inside a 200 stream is raised with its words and ``retryable`` but
    without the event's type and code: with no status either, the caller cannot tell a
    server_error from a rate limit (mutation survivors ``feed_line`` 23, 28, 39-41)."""

    def new_accumulator(self) -> StreamAccumulator:
        acc = super().new_accumulator()
        feed_line = acc.feed_line

        def untyped(line: str) -> Any:
            try:
                return feed_line(line)
            except ProviderError as error:
                raise _copy(error, type=None, code=None) from None

        acc.feed_line = untyped  # type: ignore[method-assign]
        return acc


# == transport faults (issue 12) ===================================================================


@fails("errors.connection_reset", "error.surfaced", table="GENERIC_CONTROLS")
@fails("errors.stream_stalled", "error.surfaced", table="GENERIC_CONTROLS")
class ReturnsPartialOnReset(OpenAIChatAdapter):
    """A broken connection ends the stream as if the provider had finished: the partial text
    is returned as the answer."""

    def stream(self, request: ChatRequest) -> Iterator[Any]:
        try:
            yield from super().stream(request)
        except ProviderError as error:
            if error.status is not None or not isinstance(error.__cause__, httpx.TransportError):
                raise
            yield StreamDone(finish_reason="stop")


@fails("errors.connection_reset", "errors.retryable", table="GENERIC_CONTROLS")
class ResetIsFinal(OpenAIChatAdapter):
    """A broken connection is reported as an error that cannot be retried."""

    def stream(self, request: ChatRequest) -> Iterator[Any]:
        try:
            yield from super().stream(request)
        except ProviderError as error:
            if error.status is not None:
                raise
            raise ProviderError(error.message, retryable=False) from None


@fails("errors.stream_cancelled", "stream.closed", table="GENERIC_CONTROLS")
class LeaksStream(OpenAIChatAdapter):
    """The response is opened with ``client.send(..., stream=True)`` and never closed: when the
    caller stops reading, the connection stays checked out of the pool."""

    def stream(self, request: ChatRequest) -> Iterator[Any]:
        body = self.build_body(request, stream=True)
        response = self.client.send(self.client.build_request(
            "POST", self.request_url(request, stream=True), headers=self.headers, json=body),
            stream=True)
        if response.status_code >= 400:
            self.raise_for_error(response, response.read())
        acc = self.new_accumulator()
        for line in response.iter_lines():
            yield from acc.feed_line(line)
        yield from acc.close()


@fails("errors.connection_refused", "error.surfaced", table="GENERIC_CONTROLS")
class EmptyAnswerWhenUnreachable(OpenAIChatAdapter):
    """Every failure to reach the provider is swallowed into an empty answer (``except
    Exception: return ChatResponse()``): a loop takes it for a model that said nothing."""

    def complete(self, request: ChatRequest) -> ChatResponse:
        try:
            return super().complete(request)
        except ProviderError as error:
            if error.status is not None:
                raise
            return ChatResponse(finish_reason="stop")


#: the controls: every public class of this module is a broken adapter
__all__ = sorted(name for name, value in dict(globals()).items()
                 if isinstance(value, type) and issubclass(value, OpenAIChatAdapter)
                 and value is not OpenAIChatAdapter and not name.startswith("_"))


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "openai"
#: the path of every request the reference adapter sends
PATH = "/v1/chat/completions"
#: the controls and the reference are meant for any OpenAI-compatible server: the quirk cases
#: (which the bare openai wire plays only for such a profile) run too
PROFILE = Profile(compatible_with={"*"})
#: the error kinds OpenAI has: each one's case runs on its bodies with the generic error bugs
ERROR_KINDS = {"rate_limit", "quota", "auth", "permission", "model_not_found", "context_length",
               "server_error", "overloaded"}

#: (case id, broken adapter, the clause the case must name): the openai cases
CONTROLS = collected(__name__)

#: the cases openai shares with some providers (the errors family's kinds among them), each with
#: a bug it must catch on the openai wire
SHARED_CONTROLS = collected(__name__, "SHARED_CONTROLS")

#: the generic cases, which every provider runs: their controls are on the openai wire
GENERIC_CONTROLS = collected(__name__, "GENERIC_CONTROLS")

#: Bugs in the async path only: the sync interface passes, the async one must fail.
ASYNC_CONTROLS = collected(__name__, "ASYNC_CONTROLS")

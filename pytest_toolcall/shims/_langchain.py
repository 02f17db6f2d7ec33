"""LangChain chat models: any ``langchain_core`` ``BaseChatModel`` (``ChatOpenAI``,
``ChatAnthropic``, ...), through ``bind_tools`` + ``invoke`` and ``bind_tools`` + ``stream``.

``shims.langchain(lambda ep: ChatOpenAI(model="gpt-4o-mini", base_url=ep.base_url,
api_key=ep.api_key, http_client=ep.client, max_retries=0))``.

The canonical request becomes LangChain's own input: ``SystemMessage`` (a developer message
carries ``additional_kwargs={"__openai_role__": "developer"}``, the key langchain-openai itself
reads and writes for that role), ``HumanMessage``, ``AIMessage`` with ``tool_calls`` (a call
whose arguments did not parse goes back as one of its ``invalid_tool_calls``, its text as it
came) and the thinking blocks it followed as content blocks, ``ToolMessage`` with
``tool_call_id`` (``status="error"`` for a failed call). Tools are bound as JSON-schema tool
dicts with ``tool_choice`` in LangChain's own spelling (``"any"`` to force a call, a tool's name
to force that tool, ``"auto"``, ``"none"``) and ``parallel_tool_calls``.

The answer is read from LangChain's own objects only: ``tool_calls`` and ``invalid_tool_calls``
(an invalid call is a call with a parse error, never dropped or repaired), ``text``,
``response_metadata`` (``finish_reason``, or Anthropic's ``stop_reason``), ``usage_metadata``.
A stream is what ``stream()`` yields: the text of each chunk as it comes, then the chunks added
together as LangChain documents (``AIMessageChunk.__add__``), whose ``tool_calls`` /
``invalid_tool_calls`` are LangChain's own reading of the ``tool_call_chunks``.

Gemini (langchain-google-genai): ``finish_reason`` is Gemini's own enum name (``STOP``,
``MAX_TOKENS``, ...), read as ``shims.google_genai`` reads it (STOP with calls is
``tool_calls``); a blocked prompt, which has no finish reason, is read from the block its
``response_metadata["prompt_feedback"]`` keeps, as ``shims.google_genai`` reads the SDK's
``prompt_feedback`` (a SAFETY finish). A call's ``thoughtSignature`` is kept where the library
keeps it,
``additional_kwargs["__gemini_function_call_thought_signatures__"]`` (call id -> signature),
and put back there on the AIMessage that replays the call; the signature a stored Gemini turn
carries (a signed entry without text) goes there too, for its first call. An assistant turn with
signed reasoning is stamped as its integration stamps its own (``response_metadata
["model_provider"]``: ``anthropic`` for Claude's thinking blocks, ``google_genai`` for a Gemini
signature), which is how langchain-google-genai tells another provider's blocks from its own
(chat_models.py ``_prepare_ai_message_content``, 4.4.3: a foreign turn's reasoning is dropped). A
call of the canonical history that
has no id gets a uuid, as the library gives an id-less Gemini call (``str(uuid.uuid4())``), and
its result (by id, else by position) the same id: the library pairs results with calls by id.

Errors: the integrations raise their provider SDK's exceptions (or LangChain subclasses of
them); the openai and anthropic SDKs' HTTP errors become ``ProviderError`` with the SDK's own
retry decision, read from the model's SDK client when it can be reached. google-genai's
``APIError`` (raised as it is, as LangChain's ``GoogleAPIError`` / ``GoogleContextOverflowError``
subclasses of it, or as the cause of LangChain's ``ChatGoogleGenerativeAIError``) is mapped as
``shims.google_genai`` maps it.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from typing import Any

from pytest_toolcall.core.errors import ProviderError
from pytest_toolcall.core.model import (
    AssistantMessage,
    ChatRequest,
    ChatResponse,
    NamedToolChoice,
    Reasoning,
    StreamDone,
    SystemMessage,
    TextDelta,
    ToolCall,
    ToolMessage,
    Usage,
    UserMessage,
)
from pytest_toolcall.shims._base import (
    ANTHROPIC_FINISH,
    OPENAI_FINISH,
    Shim,
    final_events,
    gemini_signature,
    maps_errors,
    reasoning_origin,
    stainless_error,
    thinking_block,
)
from pytest_toolcall.shims._google_genai import api_error, gemini_finish

#: finish reasons as the integrations put them in ``response_metadata``: langchain-openai's
#: ``finish_reason`` (Chat Completions) and langchain-anthropic's ``stop_reason`` (Messages)
_FINISH = {**OPENAI_FINISH, **ANTHROPIC_FINISH}

#: where langchain-google-genai keeps each call's thoughtSignature (call id -> signature, base64
#: text), read and written by its chat_models.py (4.4.3: _FUNCTION_CALL_THOUGHT_SIGNATURES_MAP_KEY)
_SIGNATURES = "__gemini_function_call_thought_signatures__"

#: the origin of a signed reasoning entry (``shims._base.reasoning_origin``) -> the
#: ``response_metadata["model_provider"]`` its integration stamps on the AIMessage it returns
_MODEL_PROVIDERS = {"anthropic": "anthropic", "gemini": "google_genai"}

#: with ``ChatRequest.reasoning`` on a model that has ChatAnthropic's ``thinking`` field: the
#: reference encoder's budget (Anthropic's minimum) and max_tokens above it
_THINKING_BUDGET = 1024

#: the SDKs whose HTTP errors are mapped, and where a LangChain model keeps its SDK client
#: (langchain-openai: ``root_client``; langchain-anthropic: the cached ``_client``)
_SDKS = (("openai", ("root_client", "client")), ("anthropic", ("_client",)))


class LangChainShim(Shim):
    expected = "a LangChain chat model (a langchain_core BaseChatModel, e.g. ChatOpenAI)"

    shim, requires = "langchain", ("langchain_core.language_models", "langchain")

    def check(self, client: Any) -> None:
        if isinstance(client, self.module.BaseChatModel):
            return
        runnables = sys.modules.get("langchain_core.runnables")
        if runnables is not None and isinstance(client, runnables.RunnableBinding) \
                and isinstance(getattr(client, "bound", None), self.module.BaseChatModel):
            raise self.wrong_kind(client, ": return the chat model itself, not a bound one "
                                          "(model.bind_tools(...) / .bind(...)); the shim binds "
                                          "each request's tools itself")
        raise self.wrong_kind(client)

    def adapter(self, client: Any) -> LangChainShimAdapter:
        return LangChainShimAdapter(client)


class LangChainShimAdapter:
    """``complete`` is ``bind_tools(...).invoke(messages)``, ``stream`` is
    ``bind_tools(...).stream(messages)`` with the chunks added together."""

    def __init__(self, model: Any) -> None:
        self.model = model
        #: call id -> the thoughtSignature langchain-google-genai read with it, replayed with it
        self.signatures: dict[str, Any] = {}
        #: ``gemini`` for langchain-google-genai's model (the wire a text-less signed reasoning
        #: entry is Gemini's on: ``shims._base.reasoning_origin``)
        self.wire = "gemini" if type(model).__module__.startswith("langchain_google_genai") \
            else None

    # -- errors --------------------------------------------------------------------------------
    def provider_error(self, exc: Exception) -> ProviderError | None:
        for module_name, attributes in _SDKS:
            module = sys.modules.get(module_name)  # raised by it: it is imported
            if module is None or not isinstance(exc, getattr(module, "APIStatusError", ())):
                continue
            return stainless_error(self.sdk_client(module, attributes), module, exc)
        if "google.genai.errors" in sys.modules:  # raised by it: it is imported
            return _genai_error(exc)
        return None

    def sdk_client(self, module: Any, attributes: tuple[str, ...]) -> Any:
        """The model's own SDK client (the one whose retry policy applies), or None."""
        base = getattr(getattr(module, "_base_client", None), "SyncAPIClient", None)
        if base is None:
            return None
        for attribute in attributes:
            try:
                client = getattr(self.model, attribute, None)
            except Exception:  # a lazily built client that cannot be built: none to read
                continue
            if isinstance(client, base):
                return client
        return None

    # -- canonical -> LangChain ----------------------------------------------------------------
    def runnable(self, request: ChatRequest) -> Any:
        if not request.tools:
            return self.model
        tools = [_tool(t) for t in request.tools]
        kwargs: dict[str, Any] = {}
        choice = request.tool_choice
        if isinstance(choice, NamedToolChoice):
            kwargs["tool_choice"] = choice.name
        elif choice == "required":
            kwargs["tool_choice"] = "any"
        elif choice is not None:  # "auto", "none"
            kwargs["tool_choice"] = choice
        if request.parallel_tool_calls is not None:
            kwargs["parallel_tool_calls"] = request.parallel_tool_calls
        stricts = {t.strict for t in request.tools}
        if len(stricts) == 1 and None not in stricts:
            # bind_tools' own strict (ChatOpenAI and ChatAnthropic both take it); each tool
            # dict says it too, but langchain-anthropic reads only this one
            kwargs["strict"] = stricts.pop()
        return self.model.bind_tools(tools, **kwargs)

    def call_kwargs(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        if request.model:
            kwargs["model"] = request.model
        fields = getattr(type(self.model), "model_fields", {})
        if request.reasoning and "thinking" in fields:  # ChatAnthropic's extended thinking
            kwargs["thinking"] = {"type": "enabled", "budget_tokens": _THINKING_BUDGET}
            kwargs["max_tokens"] = max(getattr(self.model, "max_tokens", 0) or 0,
                                       2 * _THINKING_BUDGET)
        if stream and "stream_usage" in fields:
            # a streamed request asks for usage, as the reference encoders do; langchain-openai
            # leaves it off by default for a custom base_url or http_client
            kwargs["stream_usage"] = True
        return kwargs

    def messages(self, request: ChatRequest) -> list[Any]:
        from langchain_core import messages as lc

        out: list[Any] = []
        ids: list[str] = []  # the ids the last assistant turn's calls went with
        answered = 0  # results since that turn
        for message in request.messages:
            if isinstance(message, SystemMessage):
                extra = ({"__openai_role__": "developer"} if message.role == "developer"
                         else {})
                out.append(lc.SystemMessage(content=message.content, additional_kwargs=extra))
            elif isinstance(message, UserMessage):
                out.append(lc.HumanMessage(content=message.content))
            elif isinstance(message, AssistantMessage):
                ids = [c.id or str(uuid.uuid4()) for c in message.tool_calls]
                answered = 0
                out.append(_assistant(lc, message, ids, self.signatures, self.wire))
            elif isinstance(message, ToolMessage):
                kwargs: dict[str, Any] = {"status": "error"} if message.is_error else {}
                if message.name is not None:
                    kwargs["name"] = message.name
                # by id, else by position: the id its id-less call went with
                call_id = message.tool_call_id or (ids[answered] if answered < len(ids) else "")
                answered += 1
                out.append(lc.ToolMessage(content=message.content, tool_call_id=call_id,
                                          **kwargs))
            else:  # pragma: no cover - the canonical model has no other message
                raise TypeError(f"not a canonical message: {message!r}")
        return out

    # -- the calls -----------------------------------------------------------------------------
    @maps_errors
    def complete(self, request: ChatRequest) -> ChatResponse:
        message = self.runnable(request).invoke(self.messages(request),
                                                **self.call_kwargs(request, stream=False))
        self.keep_signatures(message)
        return read(message)

    @maps_errors
    def stream(self, request: ChatRequest) -> Iterator[Any]:
        total = None
        for chunk in self.runnable(request).stream(self.messages(request),
                                                   **self.call_kwargs(request, stream=True)):
            text = _text(chunk)
            if text:
                yield TextDelta(text=text)
            total = chunk if total is None else total + chunk
        if total is None:  # nothing at all came: LangChain yielded no chunk
            yield StreamDone()
            return
        self.keep_signatures(total)
        yield from final_events(read(total))


    def keep_signatures(self, message: Any) -> None:
        """The thoughtSignatures langchain-google-genai read with the calls, by call id."""
        signatures = (getattr(message, "additional_kwargs", None) or {}).get(_SIGNATURES)
        if isinstance(signatures, dict):
            self.signatures.update(signatures)


def _genai_error(exc: BaseException) -> ProviderError | None:
    """google-genai's APIError as ``shims.google_genai`` maps it: the exception itself, or the
    one LangChain raised it from (``raise ChatGoogleGenerativeAIError(msg) from e``)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        error = api_error(current)
        if error is not None:
            return error
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _tool(tool: Any) -> dict[str, Any]:
    function: dict[str, Any] = {"name": tool.name, "description": tool.description,
                                "parameters": tool.parameters}
    if tool.strict is not None:
        function["strict"] = tool.strict
    return {"type": "function", "function": function}


def _assistant(lc: Any, message: AssistantMessage, ids: list[str],
               signatures: dict[str, Any], wire: str | None) -> Any:
    """``ids``: each call's id (its own, or the one made up for an id-less call); ``wire``:
    the dialect the model speaks, where the shim knows it (``gemini``)."""
    pairs = list(zip(message.tool_calls, ids))
    calls = [{"type": "tool_call", "name": c.name, "args": c.arguments, "id": i}
             for c, i in pairs if c.arguments is not None]
    invalid = [{"type": "invalid_tool_call", "name": c.name, "args": c.raw_arguments,
                "id": i, "error": c.parse_error}
               for c, i in pairs if c.arguments is None]
    kept = {i: signatures[i] for _c, i in pairs if i in signatures}
    carried = gemini_signature(message, wire)
    if carried and ids and ids[0] not in kept:  # a stored Gemini turn: its first call's
        kept[ids[0]] = carried
    extra = {_SIGNATURES: kept} if kept else {}
    content: Any = message.content or ""
    blocks: list[dict[str, Any]] = [thinking_block(r) for r in message.reasoning
                                    if reasoning_origin(r, wire) != "gemini"]
    if blocks:  # as the model's own AIMessage carries them: blocks, text after
        if message.content:
            blocks.append({"type": "text", "text": message.content})
        content = blocks
    # whose message it is, as each integration stamps its own (response_metadata
    # "model_provider": langchain-anthropic 1.x "anthropic", langchain-google-genai
    # "google_genai"): an integration drops or keeps another provider's signed blocks by it
    origins = {reasoning_origin(r, wire) or "" for r in message.reasoning} - {""}
    provider = _MODEL_PROVIDERS.get(origins.pop()) if len(origins) == 1 else None
    metadata = {"model_provider": provider} if provider else {}
    return lc.AIMessage(content=content, tool_calls=calls, invalid_tool_calls=invalid,
                        additional_kwargs=extra, response_metadata=metadata)


# -- LangChain -> canonical ------------------------------------------------------------------
def _text(message: Any) -> str:
    text = message.text  # a property in langchain-core 1.x (a str), a method before
    return str(text if isinstance(text, str) else text())


def read(message: Any) -> ChatResponse:
    """A LangChain ``AIMessage`` (or an aggregated ``AIMessageChunk``) as a ChatResponse."""
    calls = [ToolCall.from_raw(id=c.get("id"), name=c.get("name") or "",
                               arguments=c.get("args"))
             for c in message.tool_calls]
    for invalid in message.invalid_tool_calls:
        call = ToolCall.from_raw(id=invalid.get("id"), name=invalid.get("name") or "",
                                 arguments=invalid.get("args"))
        if call.parse_error is None:  # LangChain says invalid: it stays a failed call
            call = call.model_copy(update={
                "arguments": None,
                "parse_error": invalid.get("error") or "LangChain reported an invalid tool "
                                                       "call (invalid_tool_calls)"})
        calls.append(call)
    metadata = message.response_metadata or {}
    finish = metadata.get("finish_reason") or metadata.get("stop_reason")
    if not finish and (metadata.get("prompt_feedback") or {}).get("block_reason"):
        finish = "SAFETY"  # a blocked prompt: no candidates, the block kept here
    if finish and finish not in _FINISH:  # Gemini's enum name, or a name nobody maps: "other"
        finish_reason = gemini_finish(finish, bool(calls))
    else:
        finish_reason = _FINISH.get(finish) if finish else None
    usage = message.usage_metadata
    model = metadata.get("model_name") or metadata.get("model")
    reasoning = tuple(
        Reasoning(type="thinking", text=b.get("thinking"), signature=b.get("signature"))
        if b.get("type") == "thinking" else
        Reasoning(type="redacted_thinking", signature=b.get("data"))
        for b in (message.content if isinstance(message.content, list) else ())
        if isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking"))
    return ChatResponse(
        text=_text(message) or None, tool_calls=tuple(calls),
        finish_reason=finish_reason,
        usage=None if not usage else Usage(input_tokens=usage.get("input_tokens"),
                                           output_tokens=usage.get("output_tokens"),
                                           total_tokens=usage.get("total_tokens")),
        model=model if isinstance(model, str) else None, reasoning=reasoning)

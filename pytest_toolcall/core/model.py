"""The canonical model: provider-neutral tool specs, calls, messages, requests and responses.

Every dialect decodes its wire format into these types and encodes them back, and every contract
speaks them. They are pydantic v2 models, frozen, with ``extra="forbid"`` so that a typo in a shim
is an error instead of a silently dropped field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pytest_toolcall.core.redact import clip

__all__ = [
    "AssistantMessage",
    "ChatRequest",
    "ChatResponse",
    "FinishReason",
    "Message",
    "NamedToolChoice",
    "Reasoning",
    "ReasoningComplete",
    "StreamDone",
    "StreamEvent",
    "SystemMessage",
    "TextDelta",
    "ToolCall",
    "ToolCallComplete",
    "ToolCallDelta",
    "ToolChoice",
    "ToolMessage",
    "ToolSpec",
    "Usage",
    "UserMessage",
    "assemble_stream",
    "extends_id",
    "parse_arguments",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")

FinishReason = Literal["stop", "tool_calls", "length", "content_filter", "error", "other"]


def parse_arguments(raw: str | dict[str, Any] | None) -> tuple[dict[str, Any] | None, str | None]:
    """Parse tool-call arguments as a provider sent them: ``(arguments, parse_error)``.

    ``""``, ``None`` and ``{}`` all mean "no arguments" (providers send each of them for
    zero-argument tools); anything that is not a JSON object is a parse error, not an exception.
    """
    if raw is None:
        return {}, None
    if isinstance(raw, dict):
        return dict(raw), None
    if not isinstance(raw, str):
        return None, f"arguments must be a JSON object or its text, got {type(raw).__name__}"
    if raw.strip() == "":
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, f"arguments are not valid JSON: {exc.msg} at position {exc.pos}"
    if not isinstance(value, dict):
        return None, (f"arguments must be a JSON object, got {_json_kind(value)}: "
                      f"{clip(raw.strip(), 60)}")
    return value, None


def _json_kind(value: Any) -> str:
    """The JSON name of a decoded value's type (``array``, not ``list``), for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return {str: "a string", list: "an array"}.get(type(value), type(value).__name__)


class ToolSpec(BaseModel):
    """A tool the model may call: its name, description and JSON Schema for the arguments."""

    model_config = _FROZEN

    name: str = Field(min_length=1)
    description: str = ""
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )
    strict: bool | None = None

    @field_validator("parameters")
    @classmethod
    def _schema_is_valid(cls, schema: dict[str, Any]) -> dict[str, Any]:
        # Checked against the meta-schema it declares (draft 2020-12 when it declares none), so a
        # broken schema is reported where it is written, not as a provider 400 later on.
        from pytest_toolcall.core._schema import schema_problem

        problem = schema_problem(schema)
        if problem is not None:
            where, message = problem
            raise ValueError(f"parameters is not a valid JSON Schema at {where}: {message}")
        return schema


class ToolCall(BaseModel):
    """One call of a tool by the model.

    ``arguments`` is the parsed object (``None`` when parsing failed), ``raw_arguments`` the text
    as the provider sent it (``None`` when the provider sent an object), ``parse_error`` says why
    parsing failed. Build one from wire data with :meth:`from_raw`.
    """

    model_config = _FROZEN

    id: str | None = None
    name: str
    arguments: dict[str, Any] | None = None
    raw_arguments: str | None = None
    parse_error: str | None = None

    @classmethod
    def from_raw(
        cls, *, id: str | None, name: str, arguments: str | dict[str, Any] | None
    ) -> ToolCall:
        """A tool call from the arguments as the provider sent them (text, object or null)."""
        parsed, error = parse_arguments(arguments)
        raw = arguments if isinstance(arguments, str) else None
        return cls(id=id, name=name, arguments=parsed, raw_arguments=raw, parse_error=error)

    def arguments_json(self) -> str:
        """The arguments as JSON text to send back to a provider: never ``""``, never escaped."""
        if self.arguments is None:
            return self.raw_arguments or "{}"
        return json.dumps(self.arguments, ensure_ascii=False, separators=(",", ":"))


class SystemMessage(BaseModel):
    """Instructions to the model: a system prompt, or (``role="developer"``) a developer message.

    ``developer`` is OpenAI's name for the same thing on newer models (Chat Completions and
    Responses take both roles and convert one into the other per model; OpenAI staff on the
    developer forum, "How is developer message better than system prompt?", confirmed
    2026-11-23). Providers without the role take it as a system prompt: Anthropic's top-level
    ``system``, Gemini's ``systemInstruction``, Ollama's ``system`` role (Ollama ignores a
    ``developer`` message: earendil-works/pi PR #140, confirmed 2026-11-23).
    """

    model_config = _FROZEN
    role: Literal["system", "developer"] = "system"
    content: str


class UserMessage(BaseModel):
    model_config = _FROZEN
    role: Literal["user"] = "user"
    content: str


class Reasoning(BaseModel):
    """Reasoning the model produced before it answered, to be sent back UNCHANGED with the tool
    calls it precedes (the provider checks it; see docs/reasoning.md).

    ``type``: ``thinking`` / ``redacted_thinking`` (Anthropic blocks), ``reasoning`` (an OpenAI
    Responses item). ``text``: the thinking text, or the Responses summary text. ``signature``:
    Anthropic's ``signature`` (``data`` for a redacted block), or a Responses item's
    ``encrypted_content``. ``id``: a Responses item's ``rs_`` id.
    """

    model_config = _FROZEN
    type: Literal["thinking", "redacted_thinking", "reasoning"]
    text: str | None = None
    signature: str | None = None
    id: str | None = None


class AssistantMessage(BaseModel):
    """What the model said: text, tool calls, or both; and the reasoning that came before."""

    model_config = _FROZEN
    role: Literal["assistant"] = "assistant"
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    reasoning: tuple[Reasoning, ...] = ()

    if TYPE_CHECKING:  # what a type checker accepts: any sequence (pydantic stores a tuple)
        def __init__(self, *, role: Literal["assistant"] = "assistant",
                     content: str | None = None, tool_calls: Sequence[ToolCall] = (),
                     reasoning: Sequence[Reasoning] = ()) -> None: ...


class ToolMessage(BaseModel):
    """The result of one tool call, sent back to the model."""

    model_config = _FROZEN
    role: Literal["tool"] = "tool"
    tool_call_id: str | None
    content: str
    name: str | None = None
    is_error: bool = False


Message = Annotated[
    Union[SystemMessage, UserMessage, AssistantMessage, ToolMessage],
    Field(discriminator="role"),
]


class NamedToolChoice(BaseModel):
    """Force the model to call this one tool."""

    model_config = _FROZEN
    type: Literal["tool"] = "tool"
    name: str


ToolChoice = Union[Literal["auto", "none", "required"], NamedToolChoice]


class ChatRequest(BaseModel):
    """One request to a model: messages, tools and how the model may use them."""

    model_config = _FROZEN

    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: ToolChoice | None = None
    parallel_tool_calls: bool | None = None
    stream: bool = False
    model: str | None = None
    #: ask the model to reason first (Anthropic ``thinking``); ``None``: the provider's default
    reasoning: bool | None = None

    if TYPE_CHECKING:  # what a type checker accepts: any sequence (pydantic stores a tuple)
        def __init__(self, *, messages: Sequence[Message], tools: Sequence[ToolSpec] = (),
                     tool_choice: ToolChoice | None = None,
                     parallel_tool_calls: bool | None = None, stream: bool = False,
                     model: str | None = None, reasoning: bool | None = None) -> None: ...


class Usage(BaseModel):
    model_config = _FROZEN
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None


class ChatResponse(BaseModel):
    """What the model answered, in canonical form."""

    model_config = _FROZEN

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: FinishReason | None = None
    usage: Usage | None = None
    model: str | None = None
    reasoning: tuple[Reasoning, ...] = ()

    if TYPE_CHECKING:  # what a type checker accepts: any sequence (pydantic stores a tuple)
        def __init__(self, *, text: str | None = None, tool_calls: Sequence[ToolCall] = (),
                     finish_reason: FinishReason | None = None, usage: Usage | None = None,
                     model: str | None = None, reasoning: Sequence[Reasoning] = ()) -> None: ...

    def to_message(self) -> AssistantMessage:
        """The assistant message that replays this response in the next request."""
        return AssistantMessage(content=self.text or None, tool_calls=self.tool_calls,
                                reasoning=self.reasoning)


class TextDelta(BaseModel):
    model_config = _FROZEN
    type: Literal["text_delta"] = "text_delta"
    text: str


class ToolCallDelta(BaseModel):
    """A fragment of a tool call as it streams in (optional: adapters may skip these).

    When an adapter emits them they must describe the calls it completes: ``index`` is the
    call's position among the response's tool calls, the ``arguments_delta`` pieces of one index
    join into that call's arguments, and ``id``/``name``, when given, are that call's.
    """

    model_config = _FROZEN
    type: Literal["tool_call_delta"] = "tool_call_delta"
    index: int
    id: str | None = None
    name: str | None = None
    arguments_delta: str = ""


class ToolCallComplete(BaseModel):
    """A tool call whose arguments have fully arrived."""

    model_config = _FROZEN
    type: Literal["tool_call_complete"] = "tool_call_complete"
    call: ToolCall


class ReasoningComplete(BaseModel):
    """A reasoning block or item that has fully arrived (in order, before the calls it
    precedes)."""

    model_config = _FROZEN
    type: Literal["reasoning_complete"] = "reasoning_complete"
    reasoning: Reasoning


class StreamDone(BaseModel):
    """The last event of every stream."""

    model_config = _FROZEN
    type: Literal["done"] = "done"
    finish_reason: FinishReason | None = None
    usage: Usage | None = None


StreamEvent = Annotated[
    Union[TextDelta, ToolCallDelta, ToolCallComplete, ReasoningComplete, StreamDone],
    Field(discriminator="type"),
]


def assemble_stream(events: Iterable[Any]) -> ChatResponse:
    """Fold stream events into the response they describe (text, completed calls, done)."""
    text: list[str] = []
    calls: list[ToolCall] = []
    reasoning: list[Reasoning] = []
    finish: FinishReason | None = None
    usage: Usage | None = None
    for event in events:
        if isinstance(event, TextDelta):
            text.append(event.text)
        elif isinstance(event, ToolCallComplete):
            calls.append(event.call)
        elif isinstance(event, ReasoningComplete):
            reasoning.append(event.reasoning)
        elif isinstance(event, StreamDone):
            finish, usage = event.finish_reason, event.usage
    return ChatResponse(
        text="".join(text) or None, tool_calls=tuple(calls), finish_reason=finish, usage=usage,
        reasoning=tuple(reasoning),
    )


def extends_id(got: str | None, want: str) -> bool:
    """A library may hand back the provider's id with more encoded after it (litellm's Gemini
    route appends the thought signature, ``call_001__thought__<sig>``, and strips it before the
    id goes back; issue 14, defect 8). What reaches the provider is judged on replay; here the
    id handed back must start with the provider's and must not repeat it (the concatenated-id
    bug, ``call_001call_001``)."""
    if not got or not got.startswith(want) or got == want:
        return False
    rest = got[len(want):]
    return want not in rest and not rest[:1].isalnum()

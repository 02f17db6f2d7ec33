"""Cases as data: what the model says, what is sent, and the clauses checked afterwards.

A :class:`Case` is a list of :class:`Step` s. In each step the runner hands ``step.request`` to
the adapter (``complete`` or ``stream``), the fake provider answers the adapter's HTTP request
with ``step.reply`` (a :class:`Turn`) encoded in the provider's real wire format, and everything
is recorded. Then every check of the case runs over the recording and raises
:class:`~pytest_toolcall.core.errors.ConformanceFailure` naming the clause it found broken.

User cases join the built-in ones through the ``pytest_toolcall_cases`` hook or
:func:`register`, and are validated the same way.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from pytest_toolcall.core.contracts import CAPABILITIES
from pytest_toolcall.core.errors import CaseDefinitionError
from pytest_toolcall.core.model import (
    ChatRequest,
    FinishReason,
    Message,
    Reasoning,
    ToolSpec,
    Usage,
    UserMessage,
)
from pytest_toolcall.providers import REGISTRY, quirk_senders
from pytest_toolcall.cases.tools import ScriptedTool

if TYPE_CHECKING:
    from pytest_toolcall.run.runner import CaseRun

__all__ = [
    "CHUNKINGS",
    "ERROR_KINDS",
    "QUIRKS",
    "SERVICE_QUIRKS",
    "SHAPES",
    "Case",
    "Check",
    "ErrorReply",
    "Registry",
    "ScriptedCall",
    "Step",
    "StreamPlan",
    "Turn",
    "check",
    "default_registry",
    "register",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")

#: How a streamed answer is cut into transport chunks.
CHUNKINGS = ("realistic", "bytewise", "seeded", "explicit", "hypothesis")

#: Stream quirks seen in the wild, by name (a dialect may support a subset).
QUIRKS = {
    "interleave": "fragments of parallel calls interleave instead of one call after the other",
    "repeat_id_name": "id and name are repeated on every fragment of a call",
    "null_id_name": "a call's later fragments carry \"id\": null and \"name\": null "
                    "(explicit nulls, where OpenAI leaves the keys out)",
    "index_missing": "tool-call fragments carry no index",
    "index_stuck_at_zero": "every call is sent with index 0",
    "response_failed": "openai-responses: a stream's error comes as response.failed, not error",
    "no_ids": "tool calls carry no id",
    "data_no_space": "SSE lines read 'data:{...}' without the space the spec makes optional",
    "ndjson_no_final_newline": "ollama: the last NDJSON line of the stream has no trailing newline",
    "done_line_payload": "ollama: the done: true line carries the turn's last text and its tool "
                         "calls (what Ollama's parsers flush when the model stops)",
    "call_in_role_chunk": "the first tool-call fragment comes in the same chunk as the role, "
                          "parallel calls too (OpenAI does it for a single call by default)",
    "role_chunk_alone": "openai: the role chunk carries no tool-call fragment, even for a single "
                        "call (what OpenAI does for parallel calls by default)",
    "sse_comments": "SSE comment lines (': OPENROUTER PROCESSING') before the first event and "
                    "between events, as OpenRouter sends them",
    "one_call_per_chunk": "each whole call in its own chunk (Gemini: also all calls in one)",
    "usage_in_x_groq_only": "groq: a stream's usage only under x_groq.usage on the finish chunk, "
                            "none at the top level",
    "finish_on_last_chunk": "gemini: finishReason comes on the last call or text chunk, with "
                            "no empty chunk after it (gemini-2.0-flash)",
    "no_thought_signature": "gemini: the first call of a turn carries no thoughtSignature "
                            "(gemini-2.0-flash)",
    "prompt_blocked": "gemini: the prompt is blocked: no candidates, promptFeedback.blockReason "
                      "and the prompt's usage (a stream: that one chunk)",
    "text_in_parts": "gemini: the answer's text comes in two text parts of one candidate",
    "text_in_blocks": "anthropic: the answer's text comes in two text blocks",
    "ping_everywhere": "anthropic: a ping event between every two events (pings come anywhere)",
    "delta_usage_output_only": "anthropic: message_delta usage carries output_tokens only",
    "text_in_messages": "openai-responses: the answer's text comes in two message items",
    "arguments_done_only": "openai-responses: no function_call_arguments.delta events; the "
                           "arguments arrive whole in function_call_arguments.done",
}

#: Shapes of a whole answer (not of a stream plan) that some OpenAI-compatible servers send and
#: OpenAI does not; a case may name one as its ``quirk`` like a stream quirk, and a provider may
#: declare one in its registry entry's ``quirks``.
SHAPES = {
    "arguments_null": "a call without arguments carries arguments: null (OpenAI sends '{}')",
    "finish_reason_unlisted": "a finish_reason outside OpenAI's set (DeepSeek's "
                              "insufficient_system_resource)",
}
#: every name a case's ``quirk`` or a provider's ``quirks`` may use
SERVICE_QUIRKS = {**QUIRKS, **SHAPES}


#: The error ``type`` OpenAI sends with each status (confirmed 2026-11-23): a wrong key is an
#: ``invalid_request_error`` with code ``invalid_api_key`` (the fake's auth check), a rate limit
#: ``requests`` (mmz-001/knowledge_gpt #5 quotes ``error_type=requests`` on a 429), a 5xx
#: ``server_error`` (the SDK's own stream error body). Anthropic's dialect maps them to its own
#: words by status. Other 4xx: ``invalid_request_error``.
ERROR_TYPES: dict[int, str] = {
    401: "invalid_request_error",  # with code invalid_api_key
    403: "invalid_request_error",
    404: "invalid_request_error",
    429: "requests",
    500: "server_error",
    502: "server_error",
    503: "server_error",
    504: "server_error",
}


def error_type_for(status: int) -> str:
    """The error type an :class:`ErrorReply` with this status carries unless it names one."""
    if status in ERROR_TYPES:
        return ERROR_TYPES[status]
    return "server_error" if status >= 500 or status < 400 else "invalid_request_error"


#: Provider errors a case can ask for by kind (``ErrorReply(kind=...)``); each dialect answers
#: with its provider's own status, headers and body (``dialects/provider_errors.py``).
ERROR_KINDS = {
    "rate_limit": "429: too many requests or tokens per minute; retry after the delay",
    "quota": "429: the account's quota is used up; retrying cannot help",
    "auth": "the API key is not valid (401; Gemini: 400)",
    "permission": "403: the key may not use this model or region",
    "model_not_found": "404: no such model",
    "context_length": "the prompt is longer than the model's context window (400)",
    "request_too_large": "413: the request body is too large",
    "server_error": "500: the provider failed",
    "overloaded": "the provider is overloaded (Anthropic 529, others 503)",
}


#: The Reasoning types each dialect's fake sends (docs/reasoning.md)
REASONING_WIRES: dict[str, frozenset[str]] = {
    "anthropic": frozenset({"thinking", "redacted_thinking"}),
    "openai-responses": frozenset({"reasoning"}),
    # reasoning_content: one thinking text, no signature (issue 13)
    "deepseek": frozenset({"thinking"}),
    # content lists with thinking chunks: one thinking text, no signature (issue 13)
    "mistral": frozenset({"thinking"}),
    # reasoning_content: one thinking text, no signature (issue 13)
    "zhipu": frozenset({"thinking"}),
    # reasoning_details: text (with its signature), summary, encrypted data (issue 13)
    "openrouter": frozenset({"thinking", "redacted_thinking", "reasoning"}),
    # the reasoning field (reasoning_format parsed): one thinking text, no signature (issue 13)
    "groq": frozenset({"thinking"}),
    # grok-3-mini's reasoning_content: one thinking text, no signature (issue 13)
    "xai": frozenset({"thinking"}),
    # the reasoning field (reasoning_format text_parsed / parsed): one thinking text (issue 13)
    "cerebras": frozenset({"thinking"}),
    # the reasoning field (message.reasoning / delta.reasoning): one thinking text (issue 13)
    "together": frozenset({"thinking"}),
    # reasoning_content (the "separate reasoning_content" setting) or, for gpt-oss, reasoning:
    # one thinking text, no signature (issue 13)
    "lmstudio": frozenset({"thinking"}),
    # the reasoning field (--reasoning-parser): one thinking text, no signature (issue 13)
    "vllm": frozenset({"thinking"}),
    # reasoning_content (--reasoning-format auto / deepseek): one thinking text (issue 13)
    "llamacpp": frozenset({"thinking"}),
    # reasoning_content: one thinking text, no signature (issue 13)
    "fireworks": frozenset({"thinking"}),
    # thought: true text parts (includeThoughts), and the thoughtSignature of a step's first
    # functionCall part (a thinking entry with a signature and no text; issue 29)
    "gemini": frozenset({"thinking"}),
    "vertex": frozenset({"thinking"}),
}


class ScriptedCall(BaseModel):
    """A tool call the fake model makes. ``arguments`` is sent as given: text, object or null."""

    model_config = _FROZEN

    name: str
    arguments: str | dict[str, Any] | None = "{}"
    id: str | None = None

    def arguments_text(self) -> str | None:
        """The arguments as wire text (objects are dumped without ASCII escapes)."""
        if isinstance(self.arguments, dict):
            return json.dumps(self.arguments, ensure_ascii=False)
        return self.arguments


class ErrorReply(BaseModel):
    """An error the fake provider answers with instead of a turn."""

    model_config = _FROZEN

    status: int = 400
    message: str = "The server had an error while processing your request."
    #: the error type in OpenAI's words; left out, it follows the status (:data:`ERROR_TYPES`)
    type: str = "invalid_request_error"
    code: str | None = None
    param: str | None = None
    #: send this text as the body instead of the provider's JSON error (a proxy's HTML page,
    #: or with status 200 a JSON body that is not a valid answer)
    raw_body: str | None = None
    #: answer with the provider's own error of this kind (status, headers and body as the
    #: provider sends them; ``status``/``message``/``type``/``code`` are then unused). The kinds
    #: are in ``pytest_toolcall.providers.errors.ERROR_KINDS``.
    kind: str | None = None
    #: with ``kind``: the delay (seconds) the provider asks for, where it puts it (Retry-After,
    #: Gemini's RetryInfo)
    retry_after: int | None = Field(default=None, ge=0)
    #: more fields of the service's error object, where its shape has them (Groq's
    #: ``failed_generation``: what the model wrote when its tool call could not be parsed)
    fields: dict[str, Any] = Field(default_factory=dict)
    #: extra response headers (e.g. for a ``raw_body``)
    headers: dict[str, str] = Field(default_factory=dict)
    #: no answer at all: the connection is refused (in-process the transport raises
    #: ``httpx.ConnectError``; on a loopback port the server closes the connection unanswered)
    refuse: bool = False
    #: no answer at all: the provider takes the request and never answers. In-process a client
    #: with a read timeout gets its ``ReadTimeout`` at once (virtual time); one without waits,
    #: as it would, until the case's timeout. On a loopback port the connection is held until
    #: the client closes it or the case ends (issue 35), then dropped.
    stall: bool = False
    #: no answer at all, and no client read timeout to end the wait: in-process the model call
    #: blocks until the case ends (only the loop's own deadline on the call ends it); through
    #: the fake it is a ``stall`` (the client's read timeout decides)
    hang: bool = False

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, kind: str | None) -> str | None:
        if kind is not None and kind not in ERROR_KINDS:
            raise ValueError(f"unknown error kind {kind!r}; known: {sorted(ERROR_KINDS)}")
        return kind

    @model_validator(mode="before")
    @classmethod
    def _type_follows_status(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("type") is None:
            status = data.get("status", 400)
            if isinstance(status, int):
                data = dict(data, type=error_type_for(status))
        return data


def _all_known(names: frozenset[str], known: Mapping[str, Any], what: str) -> frozenset[str]:
    """``names``, when each is a key of ``known``; else a ValueError naming the unknown ones
    (as ``what``) and the known."""
    unknown = sorted(names - known.keys())
    if unknown:
        raise ValueError(f"unknown {what} {unknown}; known: {sorted(known)}")
    return names


class StreamPlan(BaseModel):
    """How a streamed turn is sent: chunking, quirks, and ways for the stream to go wrong."""

    model_config = _FROZEN

    chunking: Literal["realistic", "bytewise", "seeded", "explicit", "hypothesis"] = "realistic"
    seed: int = 0
    boundaries: tuple[int, ...] = ()
    fragment_size: int = Field(default=4, ge=1)
    quirks: frozenset[str] = frozenset()
    include_usage: bool = True
    error_after: int | None = Field(default=None, ge=0)
    error: ErrorReply = ErrorReply(
        status=200, message="The server had an error while processing your request.",
        type="server_error",
    )
    truncate_after: int | None = Field(default=None, ge=0)
    #: the connection is reset after the last event sent (with ``truncate_after``: in the
    #: middle of the stream) instead of ending cleanly: the client's read fails
    reset: bool = False
    #: the connection stays open and silent after the last event sent: the client's read
    #: timeout must end the wait (in-process the fake raises httpx.ReadTimeout at once when the
    #: client has a read timeout, and waits, as the provider would, when it has none)
    stall: bool = False
    hypothesis_examples: int = Field(default=25, ge=1)

    @field_validator("quirks")
    @classmethod
    def _known_quirks(cls, quirks: frozenset[str]) -> frozenset[str]:
        return _all_known(quirks, QUIRKS, "quirk(s)")


class Turn(BaseModel):
    """What the fake model answers to one request."""

    model_config = _FROZEN

    text: str | None = None
    tool_calls: tuple[ScriptedCall, ...] = ()
    #: reasoning the model sends before its text and calls, in order (dialects that have it:
    #: anthropic thinking / redacted_thinking blocks, openai-responses reasoning items)
    reasoning: tuple[Reasoning, ...] = ()
    finish_reason: FinishReason | None = None
    #: the finish reason as sent on the wire, when it is one the canonical model does not have
    #: (``finish_reason`` is then what a correct adapter reports: usually ``other``)
    wire_finish_reason: str | None = None
    usage: Usage | None = Usage(input_tokens=11, output_tokens=7, total_tokens=18)
    error: ErrorReply | None = None
    stream: StreamPlan = StreamPlan()

    def expected_finish(self) -> FinishReason:
        if self.finish_reason is not None:
            return self.finish_reason
        return "tool_calls" if self.tool_calls else "stop"


class Step(BaseModel):
    """One request handed to the adapter and the turn the fake answers it with."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    request: ChatRequest
    reply: Turn
    via: Literal["complete", "stream"] = "complete"
    expect: Literal["response", "error"] = "response"
    #: stream steps: the caller stops after this many events and closes the stream (a user
    #: cancels, a loop has what it needs); the adapter must then close the response
    take: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _take_streams(self) -> Step:
        if self.take is not None and self.via != "stream":
            raise ValueError("take (stop reading after N events) needs via='stream'")
        return self


Check = Callable[["CaseRun"], None]

_ID = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$")


class Case(BaseModel):
    """One conformance case: data for the runner, checks for the verdict."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    id: str
    contract: Literal["chat", "loop", "history", "fallback"] = "chat"
    title: str = Field(min_length=1)
    why: str = Field(min_length=1)
    dialects: tuple[str, ...] = ("*",)
    #: a stream quirk or answer shape (a key of :data:`SERVICE_QUIRKS`) that some OpenAI-compatible services send and
    #: OpenAI does not: the case runs for the services whose registry entry declares it, and
    #: under the bare wires in ``dialects`` only for a profile whose ``compatible_with`` names
    #: one of them (or ``"*"``)
    quirk: str | None = None
    needs: frozenset[str] = frozenset()
    # Not Field(min_length=1): pydantic would add "at least 1 item" to every error of a bad step.
    steps: tuple[Step, ...] = ()
    #: loop cases: a LoopScript, or a function of the profile returning one (caps vary)
    loop: Any = None
    #: history cases: a HistoryScript
    history: Any = None
    #: fallback (structured output) cases: a FallbackScript
    fallback: Any = None
    checks: tuple[Any, ...] = ()
    live: bool = False
    #: the suite version that added the case (built-in cases: from
    #: :mod:`pytest_toolcall.cases.versions`); ``None`` for a project's own case, which runs
    #: whatever suite version the project pins
    since: str | None = None

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not _ID.match(value):
            raise ValueError(
                "id must be '<family>.<name>' in lower case, dots between parts "
                f"(like 'stream.parallel_interleaved'), got {value!r}"
            )
        return value

    @field_validator("since")
    @classmethod
    def _since_shape(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^\d+\.\d+\.\d+$", value):
            raise ValueError(f"since must be a suite version like '0.3.0', got {value!r}")
        return value

    @field_validator("quirk")
    @classmethod
    def _known_quirk(cls, value: str | None) -> str | None:
        if value is not None and value not in SERVICE_QUIRKS:
            raise ValueError(f"unknown quirk {value!r}; known: "
                             f"{', '.join(sorted(SERVICE_QUIRKS))}")
        return value

    @field_validator("needs")
    @classmethod
    def _known_needs(cls, needs: frozenset[str]) -> frozenset[str]:
        return _all_known(needs, CAPABILITIES, "capabilities")

    @model_validator(mode="after")
    def _script_fits_contract(self) -> Case:
        if self.contract == "chat" and not self.steps:
            raise ValueError("steps: a case needs at least one step (a request and the turn "
                             "answering it)")
        if self.contract == "loop" and not (isinstance(self.loop, LoopScript)
                                            or callable(self.loop)):
            raise ValueError("a loop case needs loop=LoopScript(...) or a function of the "
                             f"profile returning one, got {self.loop!r}")
        if self.contract == "history" and not isinstance(self.history, HistoryScript):
            raise ValueError(f"a history case needs history=HistoryScript(...), got {self.history!r}")
        if self.contract == "fallback" and not isinstance(self.fallback, FallbackScript):
            raise ValueError("a fallback case needs fallback=FallbackScript(...), got "
                             f"{self.fallback!r}")
        if self.contract != "chat" and self.steps:
            raise ValueError(f"steps belong to chat cases; a {self.contract} case has a script")
        self._reasoning_fits_dialects()
        return self

    def _reasoning_fits_dialects(self) -> None:
        """Scripted reasoning only where the wire carries it: a fake that dropped it would
        pass every adapter (issue 13)."""
        kinds = {r.type for step in self.steps for r in step.reply.reasoning}
        for dialect in self.dialects:
            carried = REASONING_WIRES.get(dialect, frozenset())
            if kinds - carried:
                raise ValueError(
                    f"a turn scripts reasoning of type {sorted(kinds - carried)}, which the "
                    f"{dialect!r} wire does not carry; reasoning by dialect: "
                    + "; ".join(f"{d}: {', '.join(sorted(k))}" for d, k in
                                sorted(REASONING_WIRES.items()))
                    + ". Give the case dialects=(...) that carry it.")

    @field_validator("checks")
    @classmethod
    def _callable_checks(cls, checks: tuple[Any, ...]) -> tuple[Any, ...]:
        for position, item in enumerate(checks):
            if not callable(item):
                raise ValueError(
                    f"check #{position} is not callable: {item!r}; a check is a function that "
                    "takes the CaseRun and raises ConformanceFailure"
                )
        return checks

    @property
    def family(self) -> str:
        return self.id.split(".", 1)[0]

    def required_capabilities(self) -> frozenset[str]:
        """What a profile must claim for this case to run: ``needs`` plus what the steps use."""
        needed = set(self.needs)
        if any(step.via == "stream" for step in self.steps):
            needed.add("stream")
        return frozenset(needed)

    def applies_to(self, dialect: str) -> bool:
        if self.quirk is None:
            return "*" in self.dialects or dialect in self.dialects
        # a quirk case: the bare wires it names (gated at run time by compatible_with), and the
        # services on one of those wires that send the quirk themselves
        return dialect in self.dialects or dialect in self.senders(own_fake=True)

    def senders(self, *, own_fake: bool = False) -> tuple[str, ...]:
        """The services that send this case's quirk (empty for a case without one). With
        ``own_fake``: only those whose own fake speaks one of the case's wires."""
        if self.quirk is None:
            return ()
        names = quirk_senders(self.quirk)
        if own_fake:
            names = tuple(n for n in names if n not in self.dialects
                          and REGISTRY[n].dialect in self.dialects)
        return names


def check(clause: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Mark a function as a check of ``clause``; it raises ConformanceFailure on a breach."""

    def mark(func: Callable[..., None]) -> Callable[..., None]:
        func.clause = clause  # type: ignore[attr-defined]
        return func

    return mark


def make_case(**fields: Any) -> Case:
    """Build a case, turning pydantic's errors into a :class:`CaseDefinitionError`."""
    try:
        return Case(**fields)
    except ValidationError as exc:
        # pydantic prefixes messages of our own validators with "Value error, ": noise here
        # a whole-case rule (empty loc) names the field in its own message
        problems = "; ".join(
            (f"{'.'.join(str(p) for p in e['loc'])}: " if e["loc"] else "")
            + e["msg"].removeprefix("Value error, ")
            for e in exc.errors()
        )
        raise CaseDefinitionError(str(fields.get("id", "<no id>")), problems) from None


class Registry:
    """Cases by id; built-in and user cases join the same way."""

    def __init__(self) -> None:
        self._cases: dict[str, Case] = {}

    def add(self, case: Case) -> Case:
        if not isinstance(case, Case):
            raise CaseDefinitionError(
                getattr(case, "id", repr(case)), f"expected a Case, got {type(case).__name__}"
            )
        if case.id in self._cases and self._cases[case.id] is not case:
            raise CaseDefinitionError(case.id, "another case is already registered with this id")
        self._cases[case.id] = case
        return case

    def extend(self, cases: Iterable[Case]) -> None:
        for case in cases:
            self.add(case)

    def __iter__(self) -> Iterator[Case]:
        return iter(sorted(self._cases.values(), key=lambda c: c.id))

    def __len__(self) -> int:
        return len(self._cases)

    def __getitem__(self, case_id: str) -> Case:
        try:
            return self._cases[case_id]
        except KeyError:
            raise KeyError(f"no case {case_id!r}; known: {', '.join(sorted(self._cases))}") from None

    def select(self, patterns: Sequence[str] = (), dialect: str | None = None) -> list[Case]:
        """Cases whose id matches any glob in ``patterns`` (all when empty), for ``dialect``."""
        chosen = []
        for case in self:
            if patterns and not any(fnmatch.fnmatchcase(case.id, p) for p in patterns):
                continue
            if dialect is not None and not case.applies_to(dialect):
                continue
            chosen.append(case)
        return chosen


_default = Registry()


def default_registry() -> Registry:
    """The registry holding the built-in suite (loaded on first use)."""
    if not len(_default):
        import pytest_toolcall.conformance as conformance

        _default.extend(conformance.builtin_cases())
    return _default


def register(case: Case) -> Case:
    """Add a user case to the default registry (the ``pytest_toolcall_cases`` hook is the other way)."""
    return default_registry().add(case)


# -- the scripts of the other contracts' cases ---------------------------------------------------
# Defined beside the case model, so that the case model depends on nothing above it (issue 9):
# the runners (looprun.py, fallbackrun.py) import them from here.

class LoopScript(BaseModel):
    """The world a loop case sets up: conversation, tools and their behaviours, model turns.

    The model answers its *n*-th call with ``turns[n]``; the last turn repeats. After
    ``max_model_calls`` calls it answers with plain text, so a loop that never stops still
    ends; unless a script sets it, the ceiling follows the profile
    (:func:`~pytest_toolcall.run.looprun.model_call_ceiling`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    messages: tuple[Message, ...] = (UserMessage(content="Please help with my request."),)
    tools: tuple[ScriptedTool, ...] = Field(min_length=1)
    turns: tuple[Turn, ...] = Field(min_length=1)
    max_model_calls: int = Field(default=40, ge=1)


class HistoryScript(BaseModel):
    """A stored history for the builder under test."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    stored: tuple[Message, ...]
    property_examples: int = Field(default=0, ge=0)
    """When > 0: ignore ``stored`` and check this many random histories (hypothesis)."""


class FallbackScript(BaseModel):
    """The world of a fallback case: the conversation, the tool asked for, the streamed turn.

    ``tool`` is the tool whose call carries the value (its name and parameters are the
    request's ``tool_name`` and ``schema``); ``other_tools`` are offered too. With
    ``calls_first`` the tool calls stream before the text (as Anthropic and some OpenAI-
    compatible servers do), so a reader that stops at the call never sees the text. With
    ``cut`` the stream ends in the middle of the last call: its argument fragments are streamed,
    then nothing, neither its ``ToolCallComplete`` nor a ``StreamDone`` (a connection dropped
    mid-call, read by an adapter that does not check for the end marker).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    messages: tuple[Message, ...] = (UserMessage(content="Plan the release of version 2."),)
    tool: ToolSpec
    other_tools: tuple[ToolSpec, ...] = ()
    turn: Turn
    calls_first: bool = False
    cut: bool = False

    @property
    def tool_name(self) -> str:
        return self.tool.name

    @property
    def schema_(self) -> dict[str, Any]:
        return dict(self.tool.parameters)

    def chat_request(self) -> ChatRequest:
        return ChatRequest(messages=self.messages, tools=(self.tool, *self.other_tools),
                           stream=True)

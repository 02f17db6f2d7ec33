"""The contracts under test and the profile an implementation declares.

An adapter is any object with some of these methods (structural typing, nothing to inherit)::

    complete(ChatRequest) -> ChatResponse               sync, non-streaming
    stream(ChatRequest) -> Iterator[StreamEvent]        sync, streaming (optional)
    async acomplete(ChatRequest) -> ChatResponse        async, non-streaming
    astream(ChatRequest) -> AsyncIterator[StreamEvent]  async, streaming (optional)

At least one of ``complete`` / ``acomplete`` is required. The :class:`Profile` says what the
implementation claims; a claimed capability must hold, an unclaimed one skips its cases.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from pytest_toolcall.core.errors import UsageError
from pytest_toolcall.core.model import ChatRequest, ChatResponse, StreamEvent

__all__ = [
    "CAPABILITIES",
    "AsyncChatAdapter",
    "ChatAdapter",
    "Interface",
    "Profile",
    "adapter_interfaces",
    "check_adapter",
    "make_profile",
]

Interface = Literal["sync", "async"]

#: Capability names a case may need, with what claiming each one means.
CAPABILITIES: Mapping[str, str] = {
    "stream": "the adapter streams (stream / astream)",
    "tool_choice.auto": "tool_choice='auto' is passed to the provider",
    "tool_choice.none": "tool_choice='none' is passed to the provider",
    "tool_choice.required": "tool_choice='required' is passed to the provider",
    "tool_choice.named": "a named tool_choice is passed to the provider",
    "parallel_tool_calls": "parallel_tool_calls=False is passed to the provider",
    "usage": "token usage is reported",
    "loop.permanent_stop": "a permanent tool failure stops the loop (permanent_failure_stops)",
    "loop.argument_validation": "arguments are validated before a tool runs "
                                "(argument_validation is 'clarify' or 'feed_back')",
    "loop.parallel": "the calls of one turn run concurrently (parallel_dispatch)",
    "loop.failure_rounds_2": "max_failure_rounds is at least 2",
    "loop.successful_rounds": "only rounds with a successful call count toward the iteration cap "
                              "(iteration_counts='successful_rounds')",
    "loop.tool_timeout": "the loop gives each tool call a timeout (tool_timeout is set)",
    "loop.events": "the loop reports what it does to its client (LoopResult.events)",
    "loop.cancellation": "the loop stops with 'cancelled' once LoopRequest.cancel is set "
                         "(cancellation=True)",
    "loop.handoff": "the loop stops with 'handed_off' when the model calls one of its handoff "
                    "tools (handoff_tools is not empty)",
    "loop.model_deadline": "the loop puts a deadline of its own on each model call "
                           "(model_timeout is set)",
    "history.drop_failed": "failed calls are dropped from a rebuilt history "
                           "(history_failed_calls='drop')",
    "anthropic.legacy_usage": "the adapter also reads Anthropic's older stream usage shape, "
                              "message_delta with output_tokens only (anthropic_legacy_usage)",
}


@runtime_checkable
class ChatAdapter(Protocol):
    """The wire layer, sync: canonical request in, canonical response out."""

    def complete(self, request: ChatRequest) -> ChatResponse: ...


@runtime_checkable
class AsyncChatAdapter(Protocol):
    """The wire layer, async."""

    async def acomplete(self, request: ChatRequest) -> ChatResponse: ...


class StreamingChatAdapter(Protocol):
    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]: ...


class AsyncStreamingChatAdapter(Protocol):
    def astream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]: ...


class Profile(BaseModel):
    """What an implementation declares about itself. Cases read their expectations from it.

    ``None`` means "infer from the adapter": ``streaming`` is claimed when the adapter has
    ``stream``/``astream``, an interface when it has the matching methods. Everything else is
    claimed by default; narrow the claims to skip cases, each skip naming the capability.
    """

    # populate_by_name: ``async`` is a keyword, so Python code must be able to say async_=False
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    name: str = "adapter"
    streaming: bool | None = None
    sync: bool | None = None
    async_: bool | None = Field(default=None, alias="async")
    tool_choice: frozenset[Literal["auto", "none", "required", "named"]] = frozenset(
        {"auto", "none", "required", "named"}
    )
    parallel_tool_calls: bool = True
    usage: bool = True
    #: Anthropic streams once ended with a message_delta carrying output_tokens only; every
    #: stream recorded today carries both counts there (wire corpus, 2026-11-22). Claim this
    #: for an adapter that must still read the old shape (a proxy or an old API version).
    anthropic_legacy_usage: bool = False
    #: the OpenAI-compatible services (``--toolcall-provider`` names: ``vllm``, ``ollama``,
    #: ``gemini`` for its OpenAI-compatible endpoint, ...) this adapter also targets: under the
    #: bare ``openai`` / ``openai-responses`` wires the stream quirks those services send (and
    #: OpenAI never does) run against it too. ``"*"``: every quirk of every service, for an
    #: adapter meant for any OpenAI-compatible server. Empty (the default): OpenAI's behaviour
    #: only; a service run (``--toolcall-provider=vllm``) always plays its own quirks.
    compatible_with: frozenset[str] = frozenset()
    known_gaps: Mapping[str, str] = Field(default_factory=dict)
    timeout: float = Field(default=10.0, gt=0)
    # -- loop policy (ToolLoop) --------------------------------------------------------------
    #: iterations (see ``iteration_counts``) before the loop stops with max_iterations
    max_iterations: int = Field(default=5, ge=1)
    #: what the iteration cap counts: rounds with at least one successful call
    #: (``successful_rounds``), every round of tool calls (``rounds``), or every model call
    #: (``model_calls``: openai-agents ``max_turns``, pydantic-ai ``request_limit``)
    iteration_counts: Literal["successful_rounds", "rounds", "model_calls"] = "successful_rounds"
    #: rounds in a row in which every call failed before the loop stops with failure_rounds;
    #: None: no such cap (most frameworks)
    max_failure_rounds: int | None = Field(default=3, ge=1)
    #: failures one tool may have in a run; one more stops the loop with failure_rounds
    #: (pydantic-ai's per-tool ``retries``); None: no per-tool budget
    tool_failure_budget: int | None = Field(default=None, ge=0)
    permanent_failure_stops: bool = True
    #: a tool that crashes (raises something other than ToolError): its sanitised failure is
    #: fed back to the model (``feed_back``), or the run stops with ``error`` (``abort``)
    crash_policy: Literal["feed_back", "abort"] = "feed_back"
    #: a call to a tool the loop does not have: an error result fed back to the model
    #: (``feed_back``), or the run stops with ``error`` (``abort``: openai-agents'
    #: ``RunConfig.tool_not_found_behavior="raise_error"``, its default)
    unknown_tool_policy: Literal["feed_back", "abort"] = "feed_back"
    #: a call id repeated within one turn: run and answer it once (``dedupe``), or run none of
    #: the calls with that id and fail closed (``refuse``)
    duplicate_call_ids: Literal["dedupe", "refuse"] = "dedupe"
    #: after stopping at a cap or on a permanent failure, the loop makes one more model call
    #: to have the model sum up (smolagents after ``max_steps``)
    closing_call: bool = False
    #: the stops after which a declared ``closing_call`` is made: all three by default; a loop
    #: that sums up only after a permanent failure declares ``{"permanent_failure"}``
    closing_call_after: frozenset[Literal["max_iterations", "failure_rounds",
                                          "permanent_failure"]] = frozenset(
        {"max_iterations", "failure_rounds", "permanent_failure"})
    #: times the loop runs a call again by itself, inside the round, after a retryable
    #: ToolError, before it answers the model with the last attempt's outcome (a tool wrapper
    #: with a retry); 0: every failure goes to the model
    tool_retries: int = Field(default=0, ge=0)
    #: model calls the provider's client retries by itself after a 5xx or a 429, a 429 after
    #: its retry-after (the openai SDK's ``max_retries=2``); the loop's own calls are counted
    #: without them
    model_retries: int = Field(default=0, ge=0)
    #: seconds the loop (or its provider client) waits at most before retrying a model call when
    #: the provider asks for a longer delay than it will wait (a Retry-After of an hour): it
    #: waits this long at most, or gives up at once with 'error'. The openai SDK gives up on a
    #: Retry-After over 120 s (MAX_RETRY_AFTER_DELAY) and backs off at most 8 s of its own
    #: (MAX_RETRY_DELAY; _base_client.py, read 2026-11-28 on openai 3.57.0)
    max_retry_wait: float = Field(default=8.0, gt=0)
    #: seconds the loop lets one model call run before it abandons it (its own deadline:
    #: asyncio.wait_for, a worker thread's timeout), then retries it (model_retries) or stops
    #: with 'error'. None: the loop leaves the deadline to its chat client's read timeout, which
    #: loop.model_timeout checks through the fake provider (--toolcall-loop-model=fake)
    model_timeout: float | None = Field(default=None, gt=0)
    #: the loop ends only when the model calls this tool (its own, not one of the case's);
    #: scripts end with a call to it, arguments ``{"answer": ...}``, instead of plain text
    final_answer_tool: str | None = None
    #: where tool results and failures reach the model: tool messages (``tool``) or user-role
    #: text (``user``, frameworks that render calls and observations as text)
    feedback_role: Literal["tool", "user"] = "tool"
    argument_validation: Literal["clarify", "feed_back", "none"] = "feed_back"
    #: a call with keys its tool's schema does not declare (``additionalProperties: false``):
    #: refused like any invalid call (``refuse``), or the keys dropped and the tool run with the
    #: declared ones (``drop``: a typed tool on pydantic's default ``extra="ignore"``, e.g.
    #: langchain-core's StructuredTool with an ``args_schema``). ``drop`` is a declared risk:
    #: what the model asked beyond the schema is silently not done, and it is told the call
    #: succeeded
    undeclared_arguments: Literal["refuse", "drop"] = "refuse"
    parallel_dispatch: bool = True
    #: seconds one tool call may take; None: the loop has no tool timeout
    tool_timeout: float | None = Field(default=0.5, gt=0)
    #: the loop reports tool calls, results, errors and its stop in LoopResult.events
    loop_events: bool = True
    #: its events mark a failed call as ``tool_error``; False: every outcome may come as a
    #: ``tool_result`` event (frameworks whose events carry no per-call failure flag)
    event_errors: bool = True
    #: the loop honours ``LoopRequest.cancel`` (the user's stop button): once it is set, no
    #: further model call and the run stops with ``cancelled`` (the Agent Client Protocol's
    #: ``session/cancel``, Strands' ``agent.cancel()``). Not carried by the subprocess protocol
    cancellation: bool = False
    #: tools of the loop's own (not the case's) that hand the conversation to another agent or
    #: a human: a call to one stops the run with ``handed_off`` and no further model call
    #: (the OpenAI Agents SDK's ``transfer_to_<agent>`` tools, AutoGen's ``HandoffTermination``)
    handoff_tools: tuple[str, ...] = ()
    # -- history policy (HistoryBuilder) ---------------------------------------------------
    history_failed_calls: Literal["drop", "keep"] = "drop"

    @field_validator("compatible_with", mode="before")
    @classmethod
    def _known_services(cls, value: Any) -> Any:
        from pytest_toolcall.core._names import known_providers

        if isinstance(value, str):
            raise ValueError(f"compatible_with is a set of service names, got the string "
                             f"{value!r}: write compatible_with={{{value!r}}}")
        known = known_providers()
        unknown = sorted(str(v) for v in value or () if v != "*" and v not in known)
        if unknown:
            raise ValueError(
                f"compatible_with names unknown services {unknown}; known: "
                f"{', '.join(sorted(known))}, or '*' for every OpenAI-compatible service")
        return value

    @model_validator(mode="after")
    def _a_loop_that_stops(self) -> Profile:
        if (self.iteration_counts == "successful_rounds" and self.max_failure_rounds is None
                and self.tool_failure_budget is None):
            raise ValueError(
                "max_failure_rounds=None with iteration_counts='successful_rounds' and no "
                "tool_failure_budget declares a loop that never stops when every call fails: "
                "declare what your loop caps (iteration_counts='rounds' or 'model_calls', a "
                "max_failure_rounds, or a tool_failure_budget)")
        if self.final_answer_tool is not None and not self.final_answer_tool.strip():
            raise ValueError(f"final_answer_tool={self.final_answer_tool!r} is empty: give the "
                             "name of the loop's own final-answer tool (e.g. 'final_answer'), "
                             "or None when the loop ends on plain text")
        if any(not name.strip() for name in self.handoff_tools):
            raise ValueError("handoff_tools holds an empty name: list the names of the tools "
                             "that hand the conversation off, e.g. ('transfer_to_human',)")
        if self.final_answer_tool is not None and self.final_answer_tool in self.handoff_tools:
            raise ValueError(f"{self.final_answer_tool!r} is both the final_answer_tool and a "
                             "handoff tool: a call to it cannot both complete the run and hand "
                             "it off")
        return self

    def closes(self, stop_reason: str | None) -> bool:
        """Whether the loop makes its closing model call after stopping with ``stop_reason``."""
        return self.closing_call and stop_reason in self.closing_call_after

    def claims(self, capability: str, adapter: Any = None) -> bool:
        """Whether this profile claims ``capability`` (one of :data:`CAPABILITIES`)."""
        if capability == "stream":
            if self.streaming is not None:
                return self.streaming
            return adapter is not None and bool({"stream", "astream"} & _methods(adapter))
        if capability.startswith("tool_choice."):
            return capability.split(".", 1)[1] in self.tool_choice
        if capability == "parallel_tool_calls":
            return self.parallel_tool_calls
        if capability == "usage":
            return self.usage
        loop_claims = {
            "loop.permanent_stop": self.permanent_failure_stops,
            "loop.argument_validation": self.argument_validation != "none",
            "loop.parallel": self.parallel_dispatch,
            "loop.failure_rounds_2": (self.max_failure_rounds or 0) >= 2,
            "loop.successful_rounds": self.iteration_counts == "successful_rounds",
            "loop.tool_timeout": self.tool_timeout is not None,
            "loop.events": self.loop_events,
            "loop.cancellation": self.cancellation,
            "loop.handoff": bool(self.handoff_tools),
            "loop.model_deadline": self.model_timeout is not None,
            "history.drop_failed": self.history_failed_calls == "drop",
            "anthropic.legacy_usage": self.anthropic_legacy_usage,
        }
        if capability in loop_claims:
            return loop_claims[capability]
        raise UsageError(
            f"unknown capability {capability!r}; known capabilities: {', '.join(CAPABILITIES)}"
        )


def make_profile(value: Any) -> Profile:
    """A :class:`Profile` from a profile, a mapping or ``None``, with usage errors naming fields."""
    if value is None:
        return Profile()
    if isinstance(value, Profile):
        return value
    if isinstance(value, Mapping):
        try:
            return Profile.model_validate(dict(value))
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'profile'}: {e['msg']}"
                for e in exc.errors()
            )
            raise UsageError(f"the toolcall_profile fixture is invalid: {problems}") from None
    raise UsageError(
        "the toolcall_profile fixture must return a pytest_toolcall.Profile or a dict, "
        f"got {type(value).__name__}"
    )


def _methods(adapter: Any) -> set[str]:
    names = ("complete", "stream", "acomplete", "astream")
    return {n for n in names if callable(getattr(adapter, n, None))}


def adapter_interfaces(adapter: Any, profile: Profile) -> list[Interface]:
    """The interfaces a case runs through: those the adapter has, unless the profile says no."""
    methods = _methods(adapter)
    found: list[Interface] = []
    if "complete" in methods and profile.sync is not False:
        found.append("sync")
    if "acomplete" in methods and profile.async_ is not False:
        found.append("async")
    return found


def check_adapter(adapter: Any, profile: Profile) -> list[Interface]:
    """Validate the adapter's shape against the contract and the profile's claims.

    Raises :class:`UsageError` naming what is missing; returns the interfaces to run.
    """
    methods = _methods(adapter)
    kind = type(adapter).__name__
    if not {"complete", "acomplete"} & methods:
        raise UsageError(
            f"the toolcall_adapter fixture returned a {kind} object, which is not a ChatAdapter: "
            "it needs a complete(request) method or an async acomplete(request) method"
            + (f" (it has: {', '.join(sorted(methods))})" if methods else "")
        )
    if profile.sync and "complete" not in methods:
        raise UsageError(f"the profile claims sync=True but {kind} has no complete() method")
    if profile.async_ and "acomplete" not in methods:
        raise UsageError(f"the profile claims async=True but {kind} has no acomplete() method")
    interfaces = adapter_interfaces(adapter, profile)
    if not interfaces:
        raise UsageError(f"the profile disables every interface {kind} has (sync and async)")
    return interfaces

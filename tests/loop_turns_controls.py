"""Negative controls of the loop and history cases over several turns (issue 29, families 1 and
3: ``conformance/loop/turns.py``, ``conformance/history_turns.py``): a broken loop or builder
each, modelled on a public report of the census that its docstring cites.

The tables :data:`LOOP_TURNS_CONTROLS` and :data:`HISTORY_TURNS_CONTROLS` say which case must
catch which control and on which clause; ``tests/test_loop_negative_controls.py`` runs them with
the other loop controls on the five wires, ``tests/test_loop_turns.py`` on DeepSeek and in both
model modes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_toolcall.conformance.history_turns import CASES as HISTORY_CASES  # noqa: F401

from pytest_toolcall.core.model import AssistantMessage, ChatRequest, Reasoning, SystemMessage
from pytest_toolcall.reference.history import ReferenceHistoryBuilder
from pytest_toolcall.reference.loop import ReferenceToolLoop, _State


# == loops =========================================================================================
class _Rebuilt(_State):
    """A state whose appended assistant turns go through ``rebuild``."""

    def rebuild(self, message: AssistantMessage) -> AssistantMessage:  # pragma: no cover
        raise NotImplementedError

    def on_response(self, response: Any, max_iterations: int) -> Any:
        decision = super().on_response(response, max_iterations)
        if decision is None and self.messages and isinstance(self.messages[-1], AssistantMessage):
            self.messages[-1] = self.rebuild(self.messages[-1])
        return decision


class _DropsReasoningState(_Rebuilt):
    def rebuild(self, message: AssistantMessage) -> AssistantMessage:
        return message.model_copy(update={"reasoning": ()})


class DropsReasoningBetweenRounds(ReferenceToolLoop):
    """Appends the model's turn as text and calls only: the reasoning before the calls never
    goes back. openai/openai-agents-python #1704 (the SDK dropped Anthropic thinking while
    converting history between tool rounds: 'Expected `thinking` or `redacted_thinking`, but
    found `tool_use`'), TanStack/ai #1212 (the Responses tool loop re-sent the function_call
    without its reasoning item), langchain-ai/langchain #37713 (ChatDeepSeek never sent
    reasoning_content back: DeepSeek's 400 on the next round)."""

    def new_state(self, request: Any) -> _State:
        return _DropsReasoningState(request)


def _merge_thinking(message: AssistantMessage) -> AssistantMessage:
    """``message`` with its thinking blocks joined into one, under the first one's signature."""
    blocks = [r for r in message.reasoning if r.type == "thinking"]
    if len(blocks) < 2:
        return message
    merged = Reasoning(type="thinking", text="\n".join(r.text or "" for r in blocks),
                       signature=blocks[0].signature)
    rest = tuple(r for r in message.reasoning if r.type != "thinking")
    return message.model_copy(update={"reasoning": (merged, *rest)})


class _MergesThinkingState(_Rebuilt):
    def rebuild(self, message: AssistantMessage) -> AssistantMessage:
        return _merge_thinking(message)


class MergesThinkingBlocks(ReferenceToolLoop):
    """Joins consecutive thinking blocks of a turn into one, keeping the first signature: the
    block no longer matches what Anthropic signed. NousResearch/hermes-agent #6112 (merging
    assistant messages altered signed thinking blocks: 400 'Invalid signature in thinking
    block')."""

    def new_state(self, request: Any) -> _State:
        return _MergesThinkingState(request)


class _ShiftedSignaturesState(_Rebuilt):
    def rebuild(self, message: AssistantMessage) -> AssistantMessage:
        # text and signatures kept as two lists, zipped back with the signatures one place off
        signatures = [r.signature for r in message.reasoning][1:] + [None]
        return message.model_copy(update={"reasoning": tuple(
            r.model_copy(update={"signature": s}) for r, s in zip(message.reasoning, signatures))})


class SignaturesShifted(ReferenceToolLoop):
    """Stores thinking texts and signatures apart and pairs them back by position, one place
    off: each block goes back signed for another's text. openai/openai-agents-python #4155
    (signatures re-attached to the preceding block when a block had none)."""

    def new_state(self, request: Any) -> _State:
        return _ShiftedSignaturesState(request)


class _DropsSignaturesState(_Rebuilt):
    def rebuild(self, message: AssistantMessage) -> AssistantMessage:
        return message.model_copy(update={"reasoning": tuple(
            r.model_copy(update={"signature": None}) for r in message.reasoning)})


class DropsReasoningSignatures(ReferenceToolLoop):
    """Keeps the thinking text and drops its signature (and a Responses item's
    encrypted_content). WordPress/ai-provider-for-anthropic #30 (the signature was dropped on
    parse and never re-serialised: 'messages.1.content.0.thinking.signature: Field
    required')."""

    def new_state(self, request: Any) -> _State:
        return _DropsSignaturesState(request)


class _LastReasoningOnlyState(_Rebuilt):
    def rebuild(self, message: AssistantMessage) -> AssistantMessage:
        for n, earlier in enumerate(self.messages[:-1]):
            if isinstance(earlier, AssistantMessage) and earlier.reasoning:
                self.messages[n] = earlier.model_copy(update={"reasoning": ()})
        return message


class ReasoningOfLastRoundOnly(ReferenceToolLoop):
    """Keeps the reasoning of the latest round only (what Anthropic allows), on every wire:
    the Responses API wants each replayed function_call's own reasoning item, DeepSeek each
    tool-call turn's reasoning_content. rikkahub/rikkahub #1690 (reasoning replayed once per
    turn: 400 on a turn with several function calls)."""

    def new_state(self, request: Any) -> _State:
        return _LastReasoningOnlyState(request)


class _DropsOpaqueReasoningState(_Rebuilt):
    def rebuild(self, message: AssistantMessage) -> AssistantMessage:
        return message.model_copy(update={"reasoning": tuple(
            r for r in message.reasoning if r.text)})


class RebuildsCallsWithoutProviderData(ReferenceToolLoop):
    """Rebuilds each tool-call turn from what it can show, the calls and any thinking text,
    and drops the opaque provider data riding with them: a Gemini step's thoughtSignature (a
    signed entry with no text) never goes back. vercel/workflow #727 (DurableAgent rebuilt the
    tool-call history without providerOptions: Gemini 3's 400 'Function call is missing a
    thought_signature' on step 2), AstrBotDevs/AstrBot #9217 (the previous Gemini turn rebuilt
    with function_call parts only)."""

    def new_state(self, request: Any) -> _State:
        return _DropsOpaqueReasoningState(request)


class _SystemOnceState(_State):
    def chat_request(self) -> ChatRequest:
        if self.model_calls > 1:  # the first call is the only one with the instructions
            self.messages = [m for m in self.messages if not isinstance(m, SystemMessage)]
        return super().chat_request()


class SystemPromptFirstCallOnly(ReferenceToolLoop):
    """Sends the system prompt with the first model call only; the calls after a tool round
    go without it. microsoft/autogen #4309 (the model call after executing tools omitted the
    system message)."""

    def new_state(self, request: Any) -> _State:
        return _SystemOnceState(request)


class _SystemEveryTurnState(_State):
    def chat_request(self) -> ChatRequest:
        system = [m for m in self.messages if isinstance(m, SystemMessage)]
        if self.model_calls > 1 and system:  # the instructions added again for each call
            self.messages = [system[0], *self.messages]
        return super().chat_request()


class SystemPromptPrependedEachTurn(ReferenceToolLoop):
    """Prepends the system prompt again before every model call after the first, so the
    conversation it re-sends holds it twice, then three times. microsoft/agent-framework #5049
    (the instructions' system message sent twice in every request), BasisResearch/effectful
    #599 (each call appended the system message to the persisted history again)."""

    def new_state(self, request: Any) -> _State:
        return _SystemEveryTurnState(request)


class _SystemAfterUserState(_State):
    def chat_request(self) -> ChatRequest:
        if self.model_calls == 2:  # injected context moves the instructions down the list
            system = [m for m in self.messages if isinstance(m, SystemMessage)]
            self.messages = [m for m in self.messages if not isinstance(m, SystemMessage)]
            self.messages[1:1] = system
        return super().chat_request()


class SystemPromptMovedDown(ReferenceToolLoop):
    """Moves the system message after the user's first message once the loop adds its own
    context: it is no longer the first message. elie222/inbox-zero #1642 (system messages
    injected later in the conversation: Anthropic allows system only at the start)."""

    def new_state(self, request: Any) -> _State:
        return _SystemAfterUserState(request)


#: (case id, broken loop, the clause the case must name, profile fields)
LOOP_TURNS_CONTROLS: list[tuple[str, type[ReferenceToolLoop], str, dict[str, Any]]] = [
    ("loop.anthropic_thinking_replayed", DropsReasoningBetweenRounds,
     "loop.reasoning_replayed", {}),
    ("loop.anthropic_thinking_replayed", MergesThinkingBlocks, "loop.reasoning_replayed", {}),
    ("loop.anthropic_thinking_replayed", SignaturesShifted, "loop.reasoning_replayed", {}),
    ("loop.anthropic_thinking_replayed", DropsReasoningSignatures, "loop.reasoning_replayed", {}),
    ("loop.responses_reasoning_replayed", DropsReasoningBetweenRounds,
     "loop.reasoning_replayed", {}),
    ("loop.responses_reasoning_replayed", ReasoningOfLastRoundOnly,
     "loop.reasoning_replayed", {}),
    ("loop.responses_reasoning_replayed", DropsReasoningSignatures,
     "loop.reasoning_replayed", {}),
    ("loop.deepseek_reasoning_replayed", DropsReasoningBetweenRounds,
     "loop.reasoning_replayed", {}),
    ("loop.deepseek_reasoning_replayed", ReasoningOfLastRoundOnly,
     "loop.reasoning_replayed", {}),
    ("loop.gemini_thought_signature_replayed", RebuildsCallsWithoutProviderData,
     "loop.reasoning_replayed", {}),
    ("loop.gemini_thought_signature_replayed", DropsReasoningBetweenRounds,
     "loop.reasoning_replayed", {}),
    ("loop.gemini_thought_signature_replayed", ReasoningOfLastRoundOnly,
     "loop.reasoning_replayed", {}),
    ("loop.system_prompt_every_turn", SystemPromptFirstCallOnly, "loop.system_prompt", {}),
    ("loop.system_prompt_every_turn", SystemPromptPrependedEachTurn, "loop.system_prompt", {}),
    ("loop.system_prompt_every_turn", SystemPromptMovedDown, "loop.system_prompt", {}),
]


# == history builders ==============================================================================
class HistoryDropsReasoning(ReferenceHistoryBuilder):
    """Rebuilds each assistant message from its text and calls: the reasoning of an
    interrupted tool round is lost on reload. openai/openai-agents-python #1704 (reasoning items
    dropped when converting the stored history to API messages)."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        return [m.model_copy(update={"reasoning": ()}) if isinstance(m, AssistantMessage) else m
                for m in super().build(stored)]


class HistoryMergesThinking(ReferenceHistoryBuilder):
    """Joins the consecutive thinking blocks of a stored turn into one. NousResearch/
    hermes-agent #6112 (merging altered signed thinking blocks: 'Invalid signature in thinking
    block')."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        return [_merge_thinking(m) if isinstance(m, AssistantMessage) else m
                for m in super().build(stored)]


class HistoryDropsSystem(ReferenceHistoryBuilder):
    """Rebuilds the messages without the system messages. mastra-ai/mastra #10798 (rebuilt
    step messages silently lost the system prompt)."""

    def build(self, stored: Sequence[Any]) -> list[Any]:
        return [m for m in super().build(stored) if not isinstance(m, SystemMessage)]


#: (case id, broken history builder, the clause the case must name)
HISTORY_TURNS_CONTROLS: list[tuple[str, type[ReferenceHistoryBuilder], str]] = [
    ("history.reasoning_kept", HistoryDropsReasoning, "history.reasoning_kept"),
    ("history.reasoning_kept", HistoryMergesThinking, "history.reasoning_kept"),
    ("history.reasoning_kept", HistoryDropsSystem, "history.kept"),
]


#: (case id, control, dialect) -> the clause behind the fake, where the provider's own 400
#: comes first: the Responses API refuses a function_call replayed without its reasoning item,
#: DeepSeek a tool-call turn without its reasoning_content (in-process the loop clause names it)
FAKE_CLAUSES: dict[tuple[str, str, str], str] = {
    **{("loop.responses_reasoning_replayed", name, "openai-responses"):
       "request.input.function_call.reasoning"
       for name in ("DropsReasoningBetweenRounds", "ReasoningOfLastRoundOnly")},
    **{("loop.deepseek_reasoning_replayed", name, "deepseek"):
       "request.messages.reasoning_content.missing"
       for name in ("DropsReasoningBetweenRounds", "ReasoningOfLastRoundOnly")},
}
#: (case id, control, dialect, model mode) -> why the control cannot fail there by design
EXCLUDED: dict[tuple[str, str, str, str], str] = {
    ("loop.system_prompt_every_turn", "SystemPromptMovedDown", "anthropic", "fake"):
        "the anthropic wire has one place for the system prompt (top-level system): the "
        "reference adapter sends a moved system message there, first again",
    ("loop.system_prompt_every_turn", "SystemPromptMovedDown", "gemini", "fake"):
        "the gemini wire has one place for the system prompt (systemInstruction): the "
        "reference adapter sends a moved system message there, first again",
    # the gemini reference adapter keeps each call's thoughtSignature by call id and sends it
    # back whatever the loop's message carries: behind it the wire is right (what Gemini
    # checks); in-process the loop's own request shows the signature dropped
    **{("loop.gemini_thought_signature_replayed", name, "gemini", "fake"):
       "the gemini reference adapter puts the signature back by call id"
       for name in ("RebuildsCallsWithoutProviderData", "DropsReasoningBetweenRounds",
                    "ReasoningOfLastRoundOnly")},
}

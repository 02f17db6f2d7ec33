"""Loop cases over several model turns (issue 29, families 1 and 3): what each model request
carries of the turns before it.

- **Reasoning through the loop.** A reasoning model puts its reasoning before the calls of a
  turn, and the provider wants it back with them on the next request: Anthropic's signed
  thinking blocks, the Responses API's reasoning items, DeepSeek's ``reasoning_content``,
  Gemini's ``thoughtSignature``. No other loop case scripts a turn with reasoning, so a loop
  that rebuilds the assistant message from the text and the calls alone passed every one of
  them.
- **The system prompt across turns.** Every other loop case starts with one user message; here
  the conversation starts with a system prompt and runs several tool rounds, and every request
  must carry it once, first, unchanged.

What each provider is shown to enforce is all a case asks (:data:`REPLAY`): the checks read the
canonical requests, which the fake decodes from the wire behind ``--toolcall-loop-model=fake``.
Gemini's thought signature is held canonically as a signed ``thinking`` entry with no text on
the assistant message (what the fake decodes the signature of a replayed turn's first
functionCall part to, and what pydantic-ai keeps as a ThinkingPart's signature). An adapter
may also keep it by call id (the reference adapter, the SDK shims): behind such an adapter a
loop that drops the entry still sends the signature, which is what Gemini checks; in-process
the loop itself is judged. The chat case ``wire.gemini_ids_and_signature_echoed`` covers the
adapter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_toolcall.conformance.loop.checks import conversation_kept, results_fed_back
from pytest_toolcall.conformance.loop.policy import (
    _call,
    _final,
    _tools,
    expected_stop,
    model_calls,
    stop_reason,
)

from pytest_toolcall.cases import Case, Turn, check, make_case
from pytest_toolcall.cases.tools import ok
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.core.model import AssistantMessage, Reasoning, SystemMessage, UserMessage
from pytest_toolcall.core.redact import clip
from pytest_toolcall.providers.anthropic.dialect import thinking_signature
from pytest_toolcall.run.looprun import LoopRun, LoopScript, wire_of

__all__ = ["CASES", "REPLAY", "SYSTEM_PROMPT", "reasoning_replayed", "system_prompt_kept"]

#: what each provider is shown to refuse when a tool turn's reasoning does not come back:
#: ``"last"``: the last assistant turn with calls must start with its blocks, unchanged (earlier
#: ones may be dropped, never altered); ``"all"``: every replayed turn with calls carries its
#: reasoning, unchanged; ``"present"``: every turn with calls of the current user turn carries
#: its reasoning text (its wording is not shown to be checked); ``"current"``: every turn with
#: calls after the request's last user message (the current turn) carries its reasoning,
#: unchanged, and earlier ones may be dropped, never altered (Gemini: the first functionCall
#: part of each step of the current turn carries its thoughtSignature). Sources in each case's
#: why.
REPLAY: dict[str, str] = {"anthropic": "last", "openai-responses": "all", "deepseek": "present",
                          "gemini": "current"}

ASK = (UserMessage(content="Check the weather in Paris and the stock of SKU-1, then Lyon."),)


def _turn_ids(turn: Turn) -> set[str]:
    return {c.id for c in turn.tool_calls if c.id}


def _carrying(messages: Sequence[Any], ids: set[str]) -> list[Any]:
    """The assistant messages that replay any of the calls ``ids``."""
    return [m for m in messages if isinstance(m, AssistantMessage)
            and {c.id for c in m.tool_calls} & ids]


def _rule(run: LoopRun) -> str | None:
    """The replay rule the run is held to: its provider's, or (in-process, on a wire with no
    rule) ``"all"``: the scripted model hands the reasoning over there, so it must come back;
    behind the fake a wire without reasoning never hands it over."""
    rule = REPLAY.get(run.dialect) or REPLAY.get(wire_of(run.dialect))
    if rule is None and run.model_mode == "inprocess":
        return "all"
    return rule


def _show(reasoning: Sequence[Reasoning]) -> list[str]:
    return [f"{r.type}(text={(r.text or '')[:40]!r}, signature={(r.signature or '')[:16]!r}, "
            f"id={r.id!r})" for r in reasoning]


@check("loop.reasoning_replayed")
def reasoning_replayed(run: LoopRun) -> None:
    """Every model request after a turn that reasoned before its calls carries that reasoning
    on the assistant message that replays the calls, as the provider requires (:data:`REPLAY`):
    the same blocks or items, in their order, none merged, dropped or edited."""
    rule = _rule(run)
    if rule is None:
        return
    turns = run.script.turns
    for n, request in enumerate(run.requests[1:], start=1):
        # the tool turns the model answered before this request, that the loop replays
        earlier = [t for t in turns[:n] if t.tool_calls and t.reasoning and _turn_ids(t)]
        replayed = [(t, _carrying(request.messages, _turn_ids(t))) for t in earlier]
        replayed = [(t, found) for t, found in replayed if found]
        current = _current_turn_start(request.messages)
        for k, (turn, found) in enumerate(replayed):
            got = found[0].reasoning
            last = k == len(replayed) - 1
            # "current": a turn before the request's last user message may be dropped
            optional = not last if rule == "last" else (
                rule == "current" and _index(request.messages, found[0]) < current)
            if rule == "present":
                if len(got) == len(turn.reasoning) and all(isinstance(r.text, str) for r in got):
                    continue
            elif got == turn.reasoning or (optional and not got):
                continue
            where = "the last turn with calls" if last else "an earlier turn with calls"
            raise ConformanceFailure(
                "loop.reasoning_replayed", f"model call {n + 1}: the assistant message that "
                f"replays the calls {sorted(_turn_ids(turn))} ({where}) does not carry the "
                "reasoning the model sent before them, unchanged",
                expected=_show(turn.reasoning), got=_show(got) or "no reasoning",
                hint=_REPLAY_HINTS[rule])


def _current_turn_start(messages: Sequence[Any]) -> int:
    """The index just after the last user message: where the current turn begins."""
    return max((n + 1 for n, m in enumerate(messages) if isinstance(m, UserMessage)), default=0)


def _index(messages: Sequence[Any], message: Any) -> int:
    return next(n for n, m in enumerate(messages) if m is message)


_REPLAY_HINTS = {
    "last": "keep ChatResponse.reasoning and put it on the AssistantMessage you append with the "
            "calls (AssistantMessage(content=..., tool_calls=..., reasoning=response.reasoning)): "
            "every thinking block, in order, each with its signature, never merged or edited. "
            "Anthropic answers 400 'Expected `thinking` or `redacted_thinking`, but found "
            "`tool_use`' when they are dropped, 'Invalid `signature` in `thinking` block' when "
            "one is edited or two are merged",
    "all": "keep ChatResponse.reasoning on the AssistantMessage you append with the calls "
           "(reasoning=response.reasoning), every round: the Responses API answers 400 "
           "\"Item 'fc_…' of type 'function_call' was provided without its required "
           "'reasoning' item\" when a replayed call lost the reasoning item before it",
    "present": "keep ChatResponse.reasoning on the AssistantMessage you append with the calls "
               "(reasoning=response.reasoning): DeepSeek answers 400 'The `reasoning_content` "
               "in the thinking mode must be passed back to the API.' for a tool-call turn of "
               "the current user turn sent back without it",
    "current": "keep ChatResponse.reasoning (Gemini's thoughtSignature, a signed thinking entry) "
               "on the AssistantMessage you append with the calls, every step of the turn, or "
               "keep the signature with the call and send it back on the first functionCall "
               "part: Gemini 3 answers 400 'Function call is missing a thought_signature in "
               "functionCall parts' for a step of the current turn sent back without it",
}


# -- the scripts ------------------------------------------------------------------------------
def _two_rounds(first: tuple[Reasoning, ...], second: tuple[Reasoning, ...]) -> Any:
    """A script factory: two tool rounds, each turn reasoning before its calls, then the
    answer (the second round's reasoning is what the last request must carry)."""
    def script(profile: Any) -> LoopScript:
        return LoopScript(
            messages=ASK, tools=_tools(get_weather=[ok("18°C, sunny"), ok("21°C, cloudy")],
                                       get_stock=[ok("12")]),
            turns=(Turn(reasoning=first, tool_calls=(
                       _call("get_weather", {"city": "Paris"}, "call_r1a"),
                       _call("get_stock", {"sku": "SKU-1"}, "call_r1b"))),
                   Turn(reasoning=second, tool_calls=(
                       _call("get_weather", {"city": "Lyon"}, "call_r2"),)),
                   _final(profile)))
    return script


def _thinking(text: str, position: int) -> Reasoning:
    # signed as the anthropic fake signs a block at that place, so the in-process model and
    # the fake hand the loop the same block
    return Reasoning(type="thinking", text=text, signature=thinking_signature(text, position))


_ANTHROPIC = _two_rounds(
    (_thinking("The user wants the weather in Paris and a stock level.", 0),
     _thinking("Both lookups are independent: I will call both tools at once.", 1)),
    (_thinking("Paris is done. Lyon next.", 0),))
_RESPONSES = _two_rounds(
    (Reasoning(type="reasoning", id="rs_loop_turn_1", text="Two independent lookups.",
               signature="gAAAAABoLoopTurnOneEncryptedReasoning=="),),
    (Reasoning(type="reasoning", id="rs_loop_turn_2", text=None,
               signature="gAAAAABoLoopTurnTwoEncryptedReasoning=="),))
_DEEPSEEK = _two_rounds(
    (Reasoning(type="thinking", text="Paris weather and SKU-1 stock: two calls.\n"),),
    (Reasoning(type="thinking", text="Lyon is left.\n"),))

_GEMINI = _two_rounds(
    # one signature per step, for its first call part (a parallel call after it has none)
    (Reasoning(type="thinking", signature="dG9vbGNhbGwtZmFrZS10aG91Z2h0Omxvb3Atc3RlcC0x"),),
    (Reasoning(type="thinking", signature="dG9vbGNhbGwtZmFrZS10aG91Z2h0Omxvb3Atc3RlcC0y"),))

#: the rounds of the reasoning scripts: two tool rounds, then the answer
_ROUNDS = ["ok", "ok", "final"]


def _reasoning_checks() -> tuple[Any, ...]:
    return (reasoning_replayed, stop_reason(lambda p: expected_stop(p, _ROUNDS)[0]),
            model_calls(lambda p: expected_stop(p, _ROUNDS)[1], "two tool rounds, then the "
                        "answer"), results_fed_back)


# -- the system prompt ------------------------------------------------------------------------
SYSTEM_PROMPT = ("You are the stock assistant of Acme Ltd. Answer in one sentence and never "
                 "guess a stock level.")


def _system_rounds(profile: Any) -> LoopScript:
    return LoopScript(
        messages=(SystemMessage(content=SYSTEM_PROMPT), *ASK),
        tools=_tools(get_weather=[ok("18°C, sunny"), ok("21°C, cloudy")], get_stock=[ok("12")]),
        turns=(Turn(tool_calls=(_call("get_weather", {"city": "Paris"}, "call_s1"),)),
               Turn(tool_calls=(_call("get_stock", {"sku": "SKU-1"}, "call_s2"),)),
               Turn(tool_calls=(_call("get_weather", {"city": "Lyon"}, "call_s3"),)),
               _final(profile)))


_SYSTEM_ROUNDS = ["ok", "ok", "ok", "final"]


def _text(message: Any) -> str:
    content = getattr(message, "content", None)
    return content if isinstance(content, str) else ""


@check("loop.system_prompt")
def system_prompt_kept(run: LoopRun) -> None:
    """Every model request carries the conversation's system prompt exactly once, in the first
    message, a system (or developer) message, its text unchanged: the dialect's reference
    adapter sends that message as the wire wants it (Anthropic's top-level ``system``, Gemini's
    ``systemInstruction``, the Responses API's ``instructions``, OpenAI's first system message),
    and the fake decodes it back to that first message. A loop may add its own instructions
    around the text (a framework's prompt template); a declared closing call may send its own
    prompt instead (``Profile.closing_call``: smolagents' final-answer prompt)."""
    prompt = next((m.content for m in run.script.messages if isinstance(m, SystemMessage)), None)
    if prompt is None:
        return
    for n, request in enumerate(run.requests):
        closing = run.profile.closing_call and n == len(run.requests) - 1 and not request.tools
        if closing:
            continue
        texts = [_text(m) for m in request.messages]
        count = sum(t.count(prompt) for t in texts)
        first = request.messages[0] if request.messages else None
        if count == 1 and isinstance(first, SystemMessage) and prompt in _text(first):
            continue
        got = [f"{getattr(m, 'role', '?')}: {clip(_text(m), 60)!r}" for m in request.messages[:4]]
        if count == 0:
            problem, hint = "does not carry the system prompt", (
                "send the conversation's system message with EVERY model call, not only the "
                "first: keep it at the head of the message list the loop re-sends each round")
        elif count > 1:
            problem, hint = f"carries the system prompt {count} times", (
                "add the system prompt once: a loop that prepends it again each round (or an "
                "agent that adds its instructions while the client adds them too) sends it "
                "twice, and providers with one system slot take the last or refuse")
        else:
            problem, hint = "carries the system prompt elsewhere than in the first message", (
                "keep the system message first: Anthropic takes it only as the top-level "
                "`system`, Gemini as `systemInstruction`; a system message moved between "
                "turns is refused (vLLM: 'System message must be at the beginning') or read "
                "as a user turn")
        raise ConformanceFailure(
            "loop.system_prompt", f"model call {n + 1} {problem}",
            expected=f"one first system message carrying {prompt!r}",
            got=got, hint=hint)


# -- the cases --------------------------------------------------------------------------------
def _case(**fields: Any) -> Case:
    return make_case(contract="loop", **fields)


CASES: list[Case] = [
    _case(
        id="loop.anthropic_thinking_replayed",
        title="Thinking blocks, with their signatures, go back with the calls every round",
        why="With extended thinking, Claude's turn of tool calls starts with signed thinking "
            "blocks, and Anthropic answers 400 'Expected `thinking` or `redacted_thinking`, but "
            "found `tool_use`' when the last assistant turn comes back without them "
            "(deepset-ai/haystack-core-integrations #2146, pydantic/pydantic-ai #2040, "
            "openai/openai-agents-python #1704 dropped them while converting history between "
            "tool rounds) and 'Invalid `signature` in `thinking` block' when one is edited, "
            "reordered or merged with its neighbour (anthropic-sdk-python #1598, a "
            "maintainer, 2026-08-05). The first turn has two consecutive blocks: they must "
            "stay two (earendil-works/pi #8576 reported a 400 for two adjacent blocks replayed "
            "unchanged; closed without action). Anthropic's message names the final assistant "
            "message only, so an earlier turn's thinking may be dropped (NousResearch/"
            "hermes-agent PR #6112 strips older turns' blocks and keeps the latest), never "
            "altered: Anthropic still checks the signatures it is sent (openclaw/openclaw "
            "#99382). Confirmed 2026-11-28.",
        dialects=("anthropic",),
        loop=_ANTHROPIC,
        checks=_reasoning_checks(),
    ),
    _case(
        id="loop.responses_reasoning_replayed",
        title="Reasoning items go back before their function calls every round",
        why="A Responses reasoning model puts a reasoning item (id, encrypted_content) before "
            "its function_call items; a loop that replays the calls with their fc_ ids but not "
            "the item before them gets 400 \"Item 'fc_…' of type 'function_call' was provided "
            "without its required 'reasoning' item: 'rs_…'\" on the next round "
            "(TanStack/ai #1212: the tool loop re-sent the function_call without its "
            "reasoning item; VRSEN/agency-swarm #367, omnigent-ai/omnigent #5066, "
            "BerriAI/litellm #36197 dropped the items with their encrypted_content). Every "
            "replayed round needs its own. Confirmed 2026-11-28.",
        dialects=("openai-responses",),
        loop=_RESPONSES,
        checks=_reasoning_checks(),
    ),
    _case(
        id="loop.deepseek_reasoning_replayed",
        title="reasoning_content goes back on every tool-call turn of the current user turn",
        why="In thinking mode DeepSeek answers 400 'The `reasoning_content` in the thinking "
            "mode must be passed back to the API.' when an assistant message with tool calls "
            "of the current user turn comes back without it (api-docs.deepseek.com/guides/"
            "thinking_mode: within a turn's tool sub-turns the reasoning is passed back; "
            "langchain-ai/langchain #37713, earendil-works/pi #3635, moeru-ai/xsai #237, "
            "abhigyanpatwari/GitNexus #43: loops that replay the calls without it). DeepSeek "
            "is not shown to check the text itself: its presence is asked. Confirmed "
            "2026-11-28.",
        dialects=("deepseek",),
        loop=_DEEPSEEK,
        checks=_reasoning_checks(),
    ),
    _case(
        id="loop.gemini_thought_signature_replayed",
        title="Each step's thoughtSignature goes back on its first function call every round",
        why="Gemini 3 signs the first functionCall part of each step and answers 400 "
            "INVALID_ARGUMENT 'Function call is missing a thought_signature in functionCall "
            "parts' when a step of the current turn (since the last user message) comes back "
            "without it; parallel calls of one step carry one signature, on the first part, "
            "and earlier turns are not checked (ai.google.dev/gemini-api/docs/thought-"
            "signatures). Loops that rebuild the tool-call history from the calls alone lose "
            "it on step 2 (vercel/workflow #727: DurableAgent rebuilt the history without "
            "providerOptions; AstrBotDevs/AstrBot #9217, langgraph4j/langgraph4j #361, "
            "openai/openai-agents-python #2109). The signature is held canonically as a signed "
            "thinking entry with no text; an adapter may keep it by call id instead. "
            "Confirmed 2026-11-28.",
        dialects=("gemini", "vertex"),
        loop=_GEMINI,
        checks=_reasoning_checks(),
    ),
    _case(
        id="loop.system_prompt_every_turn",
        title="The system prompt goes with every model call, once, first, unchanged",
        why="A loop that sends the system prompt with the first model call only runs its tool "
            "rounds without its instructions (microsoft/autogen PR #4309: the call after the "
            "tools omitted the system message; mastra-ai/mastra #10119 and PR #10798, "
            "vercel/workflow PR #1389: rebuilt step messages lost it); one that prepends it "
            "again every turn sends it twice or more (microsoft/agent-framework #1258 and "
            "#5049, BasisResearch/effectful #599, open-webui/open-webui #28736), which "
            "providers with one system slot refuse or read as the last one only "
            "(microsoft/autogen #6117, DEEIX-AI/DEEIX-Chat PR #755). Each dialect carries it "
            "in its own place: Anthropic's top-level system, Gemini's systemInstruction, the "
            "Responses API's instructions (or a first system message), a first system message "
            "elsewhere. Confirmed 2026-11-28.",
        loop=_system_rounds,
        checks=(system_prompt_kept, conversation_kept,
                stop_reason(lambda p: expected_stop(p, _SYSTEM_ROUNDS)[0]),
                model_calls(lambda p: expected_stop(p, _SYSTEM_ROUNDS)[1],
                            "three tool rounds, then the answer")),
    ),
]

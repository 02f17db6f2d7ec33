"""``wire`` cases about the conversation itself: system prompts, developer messages, assistant
text next to tool calls, and histories recorded with another provider (issue 12).

Where each dialect carries instructions (confirmed 2026-11-23):

- ``openai``: ``system`` / ``developer`` messages, anywhere in ``messages``; OpenAI converts one
  role into the other per model ("For o1, system messages will auto-convert to developer
  messages. For GPT-4o, if you happen to use developer messages, they will auto-convert to
  system messages", OpenAI staff on community.openai.com, "How is developer message better than
  system prompt?"), so either role is accepted for either message.
- ``openai-responses``: ``instructions``, or ``system`` / ``developer`` input items anywhere
  (the wire corpus holds a request with a developer item at input[2], answered 200).
- ``anthropic``: the top-level ``system``; a ``system`` role in ``messages`` is a 400 (sglang
  #367 quotes it) except on Claude Opus 4.8, which takes one right after a user turn
  ("mid-conversation system messages", Anthropic docs, confirmed 2026-11-24). Hoisting every
  system message there, joined, is right on every model; a later one kept in place is accepted
  where the fake accepts it.
- ``gemini``: ``systemInstruction`` only (``contents`` roles are user and model).
- ``ollama``: ``system`` messages in ``messages``; a ``developer`` message is ignored
  (earendil-works/pi PR #140). Chat templates differ on system messages after the first (some
  keep only the first, litellm docs "Developer Role"), so a later one may stay in place or be
  joined to the first.

On the dialects with positional system messages (``openai``, ``openai-responses``), a system or
developer message later in the conversation stays in its place: agents send them there (Codex
CLI sends developer messages mid-conversation, litellm docs "Developer Role"; OpenAI keeps
each "in the same position"). Consecutive system messages may be joined.
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.cases import Case, Step, Turn, check
from pytest_toolcall.run.checks import matches_script, wire_request
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.core.model import (
    AssistantMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from pytest_toolcall.run.runner import CaseRun

from pytest_toolcall.conformance._common import (
    ASK,
    PARIS_TOKYO_TIME,
    calls,
    case,
    one_step,
    request,
)
from pytest_toolcall.conformance.wire import _messages_intact, history_intact

#: dialects whose wire has one system slot at the top: every system message goes there
SINGLE_SLOT = frozenset({"anthropic", "gemini", "vertex"})  # vertex: the gemini wire
#: dialects where a later system message may stay in place or join the first
EITHER = frozenset({"ollama"})

_WHERE = {
    "openai": "a message with role system (or developer) at its place in messages",
    "openai-responses": "instructions, or an input item with role system/developer at its place",
    "anthropic": "the top-level system parameter (a system role in messages is a 400, except "
                 "right after a user turn on Claude Opus 4.8)",
    "gemini": "systemInstruction (contents take user and model turns only)",
    "vertex": "systemInstruction (contents take user and model turns only)",
    "ollama": "a message with role system (Ollama ignores role developer)",
}


def _squash(text: str | None) -> str:
    return "".join((text or "").split())


def _shape(messages: Any, hoist: bool) -> list[tuple[str, str]]:
    """The conversation as the model reads it: instructions and user/assistant text, in order.
    Consecutive system messages count as one (joining them is fine); tool messages are left
    out (other checks pair them)."""
    hoisted: list[str] = []
    items: list[tuple[str, str]] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            text = _squash(message.content)
            if hoist:
                hoisted.append(text)
            elif items and items[-1][0] == "instructions":
                items[-1] = ("instructions", items[-1][1] + text)
            else:
                items.append(("instructions", text))
        elif not isinstance(message, ToolMessage):
            items.append((message.role, _squash(getattr(message, "content", None))))
    if hoisted:
        items.insert(0, ("instructions", "".join(hoisted)))
    return items


def _show(messages: Any) -> list[str]:
    out = []
    for m in messages:
        if isinstance(m, ToolMessage):
            continue
        text = (getattr(m, "content", None) or "")
        out.append(f"{m.role}: {text[:48]}{'…' if len(text) > 48 else ''}")
    return out


@check("wire.messages.system")
def system_kept(run: CaseRun) -> None:
    """Every system/developer message reaches the provider as instructions, in its place."""
    for record in run.steps:
        want_messages = record.step.request.messages
        if not any(isinstance(m, SystemMessage) for m in want_messages):
            continue
        got_messages = wire_request(run, record.index).messages
        hoist = run.dialect in SINGLE_SLOT
        want, got = _shape(want_messages, hoist), _shape(got_messages, hoist)
        if want != got and run.dialect in EITHER:
            want, got = _shape(want_messages, True), _shape(got_messages, True)
        if want == got:
            continue
        sent = "".join(t for role, t in got if role == "instructions")
        lost = [m for m in want_messages if isinstance(m, SystemMessage)
                and _squash(m.content) not in sent]
        as_user = [m for m in lost if any(role == "user" and _squash(m.content) in t
                                          for role, t in got)]
        if as_user:
            what = f"the {as_user[0].role} message was sent as a user message"
        elif lost:
            what = f"a {lost[0].role} message did not reach the provider"
        else:
            what = "the instructions were moved: a system message later in the conversation " \
                   "must stay in its place"
        raise ConformanceFailure(
            "wire.messages.system", f"step {record.index + 1}: {what}",
            expected=_show(want_messages), got=_show(got_messages),
            hint=f"send system/developer messages as {_WHERE.get(run.dialect, 'instructions')}")


#: the system prompt of the cases
SYSTEM = SystemMessage(content="You are a weather assistant. Answer in one short sentence.")
CELSIUS = SystemMessage(role="developer", content="Always give temperatures in celsius.")
LATER = SystemMessage(content="The user is now on the free plan: no more than one tool call.")

_CALLS = Turn(tool_calls=calls(("get_weather", {"city": "Paris"})))
_TEXT = Turn(text="It is 21°C and sunny in Paris.")

#: ids as other providers make them (confirmed in the wire corpus, 2026-11-23): Anthropic's
#: toolu_ (accepted as call_id by OpenAI Responses and in tool_use_id by Anthropic), OpenAI's
#: call_ (accepted by Anthropic and by Gemini 3 as functionCall.id), Gemini 3's 8-character ids
#: (accepted by OpenAI Responses), all in pydantic-ai's cross-provider replay cassettes
FOREIGN = calls(("get_weather", {"city": "Paris"}, "toolu_01FupCqh9WiFLKTeXddq4ZXH"),
                ("get_weather", {"city": "Tokyo"}, "call_twBJEEhJmhYlK4noeBJeztyd"),
                ("get_time", "{}", "hq1dul8c"))
#: an id as Codex-based clients store it (call_id|item_id): earendil-works/pi #9048 replayed it
#: to Anthropic and got 400 "messages.1.content.1.tool_use.id: String should match pattern
#: '^[a-zA-Z0-9_-]+$'" (2026-09-03; also maple-proxy #18, opencodex #1767)
CODEX_ID = "call_Q1JuaH3v7ZNL4Gk8y0BJ5N9I|fc_0f0d91e0a300c49b016a990224e6ec87d1b1ea29e03054e6ed"


def _history(turn: Turn) -> tuple[Any, ...]:
    parsed = tuple(ToolCall.from_raw(id=c.id, name=c.name, arguments=c.arguments)
                   for c in turn.tool_calls)
    return (ASK, AssistantMessage(content=turn.text, tool_calls=parsed),
            *(ToolMessage(tool_call_id=c.id, content=f"result {n + 1}")
              for n, c in enumerate(parsed)))


def _pairs(messages: Any) -> list[tuple[int, int]]:
    """For each tool message: (assistant turn number, position of the call it answers), by id,
    else (no id on the wire: Gemini 2.x) by its position among the turn's results."""
    out: list[tuple[int, int]] = []
    turn, ids, seen = -1, [], 0
    for message in messages:
        if isinstance(message, AssistantMessage) and message.tool_calls:
            turn, ids, seen = turn + 1, [c.id for c in message.tool_calls], 0
        elif isinstance(message, ToolMessage):
            if message.tool_call_id is not None and message.tool_call_id in ids:
                out.append((turn, ids.index(message.tool_call_id)))
            elif message.tool_call_id is None:
                out.append((turn, seen))
            else:
                out.append((turn, -1))
            seen += 1
    return out


@check("wire.history.pairing")
def pairing_kept(run: CaseRun) -> None:
    """Each tool result answers, on the wire, the call it answers in the request. The ids may
    be rewritten (a provider may refuse another's ids), as long as call and result agree."""
    for record in run.steps:
        want = _pairs(record.step.request.messages)
        got = _pairs(wire_request(run, record.index).messages)
        if want != got:
            raise ConformanceFailure(
                "wire.history.pairing", f"step {record.index + 1}: the tool results do not "
                "answer the same calls on the wire", expected=want, got=got,
                hint="keep each call's id on the call and on its result; if the provider "
                     "refuses an id, map it the same way in both places")


def _replayed(history: tuple[Any, ...], reply: Turn = _TEXT) -> tuple[Step, ...]:
    return (Step(request=request(*history), reply=reply),)


CASES: list[Case] = [
    case(
        id="wire.system_prompt",
        title="The system prompt reaches the provider as instructions, not as a user message",
        why="Issue 12: adapters written independently sent the system prompt as a user message, "
            "or dropped it, and passed every other case. Each provider has its own place for it "
            "(Anthropic's top-level system, Gemini's systemInstruction, Responses' "
            "instructions); sent as a user turn, the model treats the instructions as the "
            "user's words.",
        steps=one_step(_CALLS, request(SYSTEM, ASK)),
        checks=(system_kept, matches_script),
    ),
    case(
        id="wire.system_prompts_several",
        title="Several system messages, one of them later in the conversation, all arrive in "
              "their place",
        why="Applications add instructions as the conversation goes (a plan change, a "
            "retrieved policy). Adapters keep only the first system message, or move a later "
            "one to the top where the provider has positional system messages (OpenAI Chat and "
            "Responses keep each in its place: litellm docs 'Developer Role'); on Anthropic and "
            "Gemini all of them join the one system slot.",
        steps=one_step(_TEXT, request(
            SYSTEM, SystemMessage(content="Never mention the weather in other cities."),
            UserMessage(content="Is it warm in Paris?"),
            AssistantMessage(content="Yes: 21°C and sunny."), LATER,
            UserMessage(content="And in Tokyo?"))),
        checks=(system_kept, matches_script),
    ),
    case(
        id="wire.developer_message",
        title="A developer message reaches the provider as instructions",
        why="OpenAI's developer role (o1 and newer) is the system prompt of newer models. "
            "Adapters that know only system/user/assistant send it as a user message, or pass "
            "the role through to a provider that ignores it (Ollama drops role developer: "
            "earendil-works/pi PR #140, 2025-12-07).",
        steps=one_step(_CALLS, request(SYSTEM, CELSIUS, ASK)),
        checks=(system_kept, matches_script),
    ),
    case(
        id="wire.assistant_text_with_calls_replayed",
        title="An assistant turn with text and tool calls is replayed with its text",
        why="Issue 12: an adapter that replays an assistant turn with tool calls as the calls "
            "alone passed the whole suite; the provider accepts it and the model loses what it "
            "said (its plan, its explanation to the user).",
        steps=(Step(request=request(), reply=Turn(text="Let me check both cities.",
                                                  tool_calls=PARIS_TOKYO_TIME[:2])),
               Step(request=request(*_history(Turn(text="Let me check both cities.",
                                                   tool_calls=PARIS_TOKYO_TIME[:2]))),
                    reply=_TEXT)),
        checks=(check("wire.history.messages")(_messages_intact), history_intact,
                matches_script),
    ),
    case(
        id="wire.foreign_history",
        title="A history recorded with another provider (its call ids) continues here",
        why="Applications switch provider mid-conversation; the history then carries Anthropic "
            "toolu_ ids, OpenAI call_ ids, Gemini 3's short ids. Every provider accepted these "
            "in recorded traffic (pydantic-ai's cross-provider replay cassettes); an adapter "
            "that rewrites ids it does not recognise on the calls but not on the results "
            "breaks the pairing.",
        steps=_replayed(_history(Turn(tool_calls=FOREIGN))),
        checks=(pairing_kept, matches_script),
    ),
    case(
        id="wire.anthropic_foreign_id_pattern",
        dialects=("anthropic",),
        title="A call id Anthropic refuses (from another provider) is mapped, on the call and "
              "on its result",
        why="Anthropic requires tool_use ids to match ^[a-zA-Z0-9_-]+$; ids stored by Codex-"
            "based clients (call_…|fc_…) made every later request a 400 after a switch to "
            "Claude (earendil-works/pi #9048, maple-proxy #18, opencodex #1767, 2026).",
        steps=_replayed(_history(Turn(tool_calls=calls(
            ("get_weather", {"city": "Paris"}, CODEX_ID),
            ("get_time", "{}", "functions.get_time:1"))))),
        checks=(pairing_kept, matches_script),
    ),
]

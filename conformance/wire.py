"""The ``wire`` family: what a non-streaming adapter sends, and how it reads the answer."""

from __future__ import annotations

from typing import Any

from pytest_toolcall.cases import Case, Step, ErrorReply, ScriptedCall, Turn, check
from pytest_toolcall.run.checks import error_surfaced, matches_script, usage_reported, wire_request
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.core.model import (
    AssistantMessage,
    NamedToolChoice,
    ToolMessage,
    UserMessage,
    extends_id,
)
from pytest_toolcall.run.runner import CaseRun

from pytest_toolcall.conformance._common import (
    answered,
    PARIS_TOKYO_TIME,
    SEARCH,
    TEXT_ARGUMENTS,
    TIME,
    WEATHER,
    calls,
    case,
    one_step,
    replayed_step,
    request,
    wire_field,
)

_TEXT = Turn(text="It is sunny in Paris.")
#: strict mode needs every property required and no additional ones (OpenAI structured outputs
#: guide, Anthropic strict tool use; confirmed 2026-11-22)
STRICT_WEATHER = WEATHER.model_copy(update={"strict": True, "parameters": {
    **WEATHER.parameters, "required": ["city", "unit"]}})


#: Dialects whose tool definitions carry no ``strict`` field: Gemini's FunctionDeclaration and
#: Ollama's native tool (type, function: name, description, parameters; Ollama API docs, "Chat
#: request with tools", confirmed 2026-11-22). (issue 14, defect 11)
_NO_STRICT = frozenset({"gemini", "ollama"})


def _schema_meaning(schema: Any) -> Any:
    """A JSON Schema in a form where rewrites that mean the same compare equal: an ``anyOf`` of
    bare ``const`` schemas is the ``enum`` of those values (and a lone ``const`` a one-value
    ``enum``), as OpenAI's and Anthropic's strict-mode docs treat them; key order is free."""
    if isinstance(schema, list):
        return [_schema_meaning(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    options = schema.get("anyOf")
    out = {k: _schema_meaning(v) for k, v in schema.items()}
    if (isinstance(options, list) and options
            and all(isinstance(o, dict) and set(o) <= {"const", "type"} and "const" in o
                    for o in options)):
        del out["anyOf"]
        out["enum"] = [o["const"] for o in options]
        types = {o.get("type") for o in options} - {None}
        if len(types) == 1 and "type" not in out:
            out["type"] = types.pop()
    if "const" in out and "enum" not in out:
        out["enum"] = [out.pop("const")]
    if isinstance(out.get("enum"), list) and "type" not in out:
        kinds = {type(v).__name__ for v in out["enum"]}
        if kinds == {"str"}:
            out["type"] = "string"
    return out


def _first_difference(a: Any, b: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """Where two schemas first differ: ``(json path, value sent, value on the wire)``."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in b:
                return f"{path}/{key}", a[key], "(missing)"
            if key not in a:
                return f"{path}/{key}", "(absent)", b[key]
            found = _first_difference(a[key], b[key], f"{path}/{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for k, (x, y) in enumerate(zip(a, b)):
            found = _first_difference(x, y, f"{path}/{k}")
            if found:
                return found
        return None
    return None if a == b else (path or "/", a, b)


@check("wire.tools.intact")
def tools_intact(run: CaseRun) -> None:
    """Every tool arrives with its name, description, schema (by meaning) and strict flag, in
    order. An omitted ``strict`` is ``strict: false`` on Chat Completions and Anthropic
    (OpenAI function-calling guide and Anthropic tool-use docs: strict is opt-in, confirmed
    2026-11-22; issue 14, defect 4), ``true`` on the Responses API."""
    sent = wire_request(run).tools
    want = run.case.steps[0].request.tools
    _not_edited_in_place(run)
    if [t.name for t in sent] != [t.name for t in want]:
        raise ConformanceFailure("wire.tools.intact", "the tools on the wire are not the tools "
                                 "of the request, in order", expected=[t.name for t in want],
                                 got=[t.name for t in sent],
                                 hint="send every tool of the request, in the request's order")
    for mine, theirs in zip(want, sent):
        if mine.description != theirs.description:
            raise ConformanceFailure(
                "wire.tools.intact", f"tool {mine.name!r}: the description changed on the way "
                "to the provider", expected=mine.description, got=theirs.description,
                hint="send the description as given (no ASCII escaping, no truncation)")
        diff = _first_difference(_schema_meaning(mine.parameters),
                                  _schema_meaning(theirs.parameters))
        if diff:
            where, a, b = diff
            raise ConformanceFailure(
                "wire.tools.intact", f"tool {mine.name!r}: the parameters schema means something "
                f"else on the wire, at {where}", expected=a, got=b,
                hint="send the JSON Schema as given; rewrites that keep the meaning (anyOf of "
                     "consts as an enum, key order) are accepted, dropped or changed keywords "
                     "are not")
        if run.dialect in _NO_STRICT or mine.strict is None:
            continue
        # an omitted strict is false on Chat Completions and Anthropic, but TRUE on the
        # Responses API (API reference, FunctionTool.strict "Default true"; openai-python 2.x
        # types/responses/function_tool_param.py marks strict Required; confirmed 2026-11-22)
        default = run.dialect == "openai-responses"
        wire_strict = default if theirs.strict is None else theirs.strict
        if bool(mine.strict) != bool(wire_strict):
            raise ConformanceFailure(
                "wire.tools.intact", f"tool {mine.name!r}: strict changed on the way to the "
                "provider", expected=mine.strict, got=theirs.strict,
                hint="send strict: true when the tool asks for it (an omitted strict means "
                     "false)")


def _not_edited_in_place(run: CaseRun) -> None:
    """The adapter gets a deep copy of the case's request; after the call that copy must still
    equal the pristine request. An adapter that edits the caller's tool definitions in place
    (pops a keyword, adds ``additionalProperties``) corrupts the application's tools for every
    later request, even when what it sends looks right (issue 18)."""
    for record in run.steps:
        handed = record.handed
        if handed is None:
            continue
        pristine = record.step.request.tools
        for mine, theirs in zip(pristine, handed.tools):
            diff = None
            if mine.model_dump() != theirs.model_dump():
                diff = (_first_difference(mine.model_dump(), theirs.model_dump())
                        or ("the tool", mine.model_dump(), theirs.model_dump()))
            if diff:
                where, a, b = diff
                raise ConformanceFailure(
                    "wire.tools.intact", f"step {record.index + 1}: the adapter edited the tool "
                    f"definition {mine.name!r} of the request it was given, in place, at {where}",
                    expected=a, got=b,
                    hint="never mutate the caller's request: translate into new dicts "
                         "(copy.deepcopy the schema before rewriting it)")
        if len(pristine) != len(handed.tools):
            raise ConformanceFailure(
                "wire.tools.intact", f"step {record.index + 1}: the adapter added or removed "
                "tools in the request it was given, in place",
                expected=[t.name for t in pristine], got=[t.name for t in handed.tools],
                hint="never mutate the caller's request: build the provider's list anew")


def _messages_not_edited_in_place(run: CaseRun) -> None:
    """Like :func:`_not_edited_in_place`, for the request's messages. They are frozen models in
    a tuple (nothing can be popped or replaced), but a tool call's ``arguments`` is a dict: an
    adapter that edits it in place (pops a key it does not send, fills in a default) rewrites
    the caller's history for every later request, even when what it sends looks right. Call
    ids the runner handed back extended (``extends_id``, litellm's Gemini route) are the
    runner's doing, not an edit."""
    for record in run.steps:
        handed = record.handed
        if handed is None:
            continue
        pristine = record.step.request.messages
        for k, (mine, theirs) in enumerate(zip(pristine, handed.messages)):
            a, b = mine.model_dump(), theirs.model_dump()
            if a == b:
                continue
            for ca, cb in zip(a.get("tool_calls") or (), b.get("tool_calls") or ()):
                if ca["id"] and extends_id(cb["id"], ca["id"]):
                    cb["id"] = ca["id"]
            if a.get("tool_call_id") and extends_id(b.get("tool_call_id"), a["tool_call_id"]):
                b["tool_call_id"] = a["tool_call_id"]
            diff = _first_difference(a, b)
            if diff:
                where, x, y = diff
                raise ConformanceFailure(
                    "wire.history.tool_results" if isinstance(mine, ToolMessage)
                    else "wire.history.tool_calls",
                    f"step {record.index + 1}: the adapter edited message {k + 1} "
                    f"({mine.role}) of the request it was given, in place, at {where}",
                    expected=x, got=y,
                    hint="never mutate the caller's request: translate into new dicts "
                         "(copy.deepcopy a call's arguments before rewriting them)")


def _history_intact(run: CaseRun) -> None:
    """The second request carries the assistant's calls and each tool result, unchanged, and
    the adapter left the caller's history as it was given."""
    _messages_not_edited_in_place(run)
    for record in run.steps[1:]:
        want = record.step.request.messages
        got = wire_request(run, record.index).messages
        if run.dialect in NO_WIRE_IDS:  # sent or left out, both are right there
            want = tuple(_without_ids(m) for m in want)
            got = tuple(_without_ids(m) for m in got)
        want_calls = [c for m in want if isinstance(m, AssistantMessage) for c in m.tool_calls]
        got_calls = [c for m in got if isinstance(m, AssistantMessage) for c in m.tool_calls]
        if [(c.id, c.name, c.arguments) for c in want_calls] != [
                (c.id, c.name, c.arguments) for c in got_calls]:
            raise ConformanceFailure(
                "wire.history.tool_calls", f"step {record.index + 1}: the assistant's tool calls "
                "were not sent back as they came", expected=[(c.id, c.name, c.arguments)
                                                             for c in want_calls],
                got=[(c.id, c.name, c.arguments) for c in got_calls],
                hint="replay each call with its id, name and arguments as a JSON string")
        want_results = [(m.tool_call_id, m.content) for m in want if isinstance(m, ToolMessage)]
        got_results = [(m.tool_call_id, m.content) for m in got if isinstance(m, ToolMessage)]
        if want_results != got_results:
            raise ConformanceFailure(
                "wire.history.tool_results", f"step {record.index + 1}: the tool results were "
                "not sent as given", expected=want_results, got=got_results,
                hint="one tool message per result, with its tool_call_id, in call order")


#: providers on which ids going back are optional, so calls and results are compared without
#: them: Vertex takes results with the ids it gave the calls (since its discovery revision
#: 20260921, anomalyco/opencode PR #50504) and without them (all it took before; rechecked
#: 2026-11-25); Mistral refuses ids that are not 9 letters and digits, so a correct adapter maps
#: other providers' ids (wire.mistral_tool_call_id_format checks the mapping is one-to-one)
NO_WIRE_IDS = frozenset({"vertex", "mistral"})


def _without_ids(message: Any) -> Any:
    if isinstance(message, AssistantMessage):
        return message.model_copy(update={"tool_calls": tuple(
            c.model_copy(update={"id": None}) for c in message.tool_calls)})
    if isinstance(message, ToolMessage):
        return message.model_copy(update={"tool_call_id": None})
    return message


history_intact = check("wire.history.passthrough")(_history_intact)


def _messages_intact(run: CaseRun) -> None:
    """Every message of the request reaches the provider: role and text, in order."""
    for record in run.steps:
        want = [(m.role, getattr(m, "content", None) or None)
                for m in record.step.request.messages]
        got = [(m.role, getattr(m, "content", None) or None)
               for m in wire_request(run, record.index).messages]
        if want != got:
            raise ConformanceFailure(
                "wire.history.messages", f"step {record.index + 1}: the conversation on the wire "
                "is not the conversation of the request", expected=want, got=got,
                hint="translate every message, including assistant messages without tool calls")


@check("wire.replay.arguments_json")
def replay_arguments_are_json(run: CaseRun) -> None:
    """Replayed calls carry arguments as a JSON object text, never "" or null."""
    from pytest_toolcall.core.model import parse_arguments

    for record in run.steps[1:]:
        for message in wire_request(run, record.index).messages:
            if not isinstance(message, AssistantMessage):
                continue
            for call in message.tool_calls:
                raw = call.raw_arguments
                parsed, error = parse_arguments(raw) if raw is not None else (None, "null")
                if raw is None or raw.strip() == "" or error:
                    raise ConformanceFailure(
                        "wire.replay.arguments_json", f"step {record.index + 1}: call {call.id} "
                        "was replayed with arguments that are not a JSON object", expected="'{}'",
                        got=repr(raw), hint="send '{}' for a call without arguments "
                        "(json.loads('') fails on the next turn: openai-python PR #3502)")


@check("wire.replay.non_ascii")
def replay_not_escaped(run: CaseRun) -> None:
    """Non-ASCII argument text is replayed as is, not as \\uXXXX escapes."""
    for record in run.steps[1:]:
        for message in wire_request(run, record.index).messages:
            if isinstance(message, AssistantMessage):
                for call in message.tool_calls:
                    if call.raw_arguments and "\\u" in call.raw_arguments:
                        raise ConformanceFailure(
                            "wire.replay.non_ascii", f"step {record.index + 1}: call {call.id} "
                            "was replayed with \\u escapes", expected="the characters themselves",
                            got=call.raw_arguments,
                            hint="json.dumps(arguments, ensure_ascii=False) (langchain PR #32222)")


def _tool_choice_case(mode: str, choice: object, why: str) -> Case:
    return case(
        id=f"wire.tool_choice_{mode}", title=f"tool_choice {mode} reaches the provider", why=why,
        needs={f"tool_choice.{mode}"},
        steps=one_step(_TEXT, request(tool_choice=choice)),
        checks=(wire_field("wire.tool_choice", "tool_choice was not sent as requested",
                           lambda r: r.tool_choice, lambda r: r.tool_choice,
                           hint="map auto/none/required to strings and a named choice to "
                                "{type: function, function: {name}}"), matches_script),
    )


CASES: list[Case] = [
    case(
        id="wire.tool_definitions_intact",
        title="Tool definitions reach the wire intact",
        why="Adapters drop schema keywords, descriptions or the strict flag while translating; "
            "the model then calls tools with arguments the schema would have forbidden.",
        steps=one_step(_TEXT, request(tools=(WEATHER, SEARCH, TIME))),
        checks=(tools_intact, matches_script),
    ),
    case(
        id="wire.strict_tool_intact",
        title="A strict tool reaches the wire with strict: true",
        why="Dropping strict: true turns off the provider's schema enforcement silently; the "
            "model may then send arguments the schema forbids. (An omitted strict: false is "
            "the provider default and is accepted.)",
        dialects=("openai", "openai-responses", "anthropic"),
        steps=one_step(_TEXT, request(tools=(STRICT_WEATHER,))),
        checks=(tools_intact, matches_script),
    ),
    _tool_choice_case("auto", "auto", "tool_choice is easy to drop in translation; 'auto' is the "
                      "baseline every provider accepts."),
    _tool_choice_case("none", "none", "tool_choice 'none' dropped means the model may call tools "
                      "when the application forbade it."),
    _tool_choice_case("required", "required", "tool_choice 'required' is spelled 'any' or 'ANY' "
                      "by other providers; adapters copy the wrong spelling."),
    _tool_choice_case("named", NamedToolChoice(name="get_weather"), "a named tool_choice has a "
                      "different shape at every provider; a plain string name is rejected."),
    case(
        id="wire.parallel_tool_calls_false",
        title="parallel_tool_calls=false reaches the provider",
        why="Applications that need one call at a time set parallel_tool_calls=false; an adapter "
            "that drops it gets parallel calls the application cannot handle.",
        needs={"parallel_tool_calls"},
        steps=one_step(_TEXT, request(parallel_tool_calls=False)),
        checks=(wire_field("wire.parallel_tool_calls", "parallel_tool_calls was not sent as "
                           "requested", lambda r: r.parallel_tool_calls,
                           lambda r: r.parallel_tool_calls,
                           hint="send parallel_tool_calls whenever the request sets it"),),
    ),
    case(
        id="wire.parallel_tool_calls_without_tools",
        dialects=("openai",),
        title="parallel_tool_calls is not sent on a request without tools",
        why="Applications ask the final turn without tools (to force an answer) but keep their "
            "settings; OpenAI rejects parallel_tool_calls without tools (400 \"Invalid value for "
            "'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are "
            "specified.\", the fake's rule, sourced in dialects/openai.py; case added "
            "2026-11-22). Independent adapters passed every other case with this bug.",
        needs={"parallel_tool_calls"},
        steps=(Step(request=request(parallel_tool_calls=False),
                    reply=Turn(tool_calls=calls(("get_time", "{}")))),
               Step(request=request(*answered(Turn(tool_calls=calls(("get_time", "{}")))),
                                    tools=(), parallel_tool_calls=False),
                    reply=Turn(text="It is noon."))),
        checks=(matches_script,),
    ),
    case(
        id="wire.single_call",
        title="One tool call is parsed: id, name, arguments, finish reason",
        why="The baseline: a call's id, name and JSON-string arguments must come through as "
            "an object, with finish_reason tool_calls.",
        steps=one_step(Turn(tool_calls=calls(("get_weather", {"city": "Paris"})))),
        checks=(matches_script,),
    ),
    case(
        id="wire.parallel_calls",
        title="Parallel calls, two with the same name, stay separate and in order",
        why="Same-name parallel calls collapse when an adapter keys calls by name "
            "(TanStack/ai #199: id = function name).",
        steps=one_step(Turn(tool_calls=PARIS_TOKYO_TIME)),
        checks=(matches_script,),
    ),
    case(
        id="wire.text_and_calls",
        title="Text next to tool calls is kept",
        why="Adapters that read either content or tool_calls lose the model's preamble text.",
        steps=one_step(Turn(text="Let me check both cities.", tool_calls=PARIS_TOKYO_TIME[:2])),
        checks=(matches_script,),
    ),
    case(
        id="wire.text_only",
        title="A plain text answer has no tool calls and finish reason stop",
        why="An answer without calls must not produce empty or phantom tool calls.",
        steps=one_step(Turn(text="It is 21°C and sunny in Paris.")),
        checks=(matches_script,),
    ),
    case(
        id="wire.second_turn_passthrough",
        title="Second turn: assistant tool calls and tool results go back as the provider needs",
        why="Tool-loop messages dropped or reshaped on iteration 2+ (seed 004: three of four "
            "providers silently dropped them); the provider answers 400 to orphan or unanswered "
            "tool messages.",
        steps=replayed_step(Turn(tool_calls=PARIS_TOKYO_TIME)),
        checks=(history_intact, matches_script),
    ),
    case(
        id="wire.zero_args_empty_string",
        dialects=(*TEXT_ARGUMENTS, "openai-responses"),
        title="Zero-argument call sent as \"\" parses to {} and replays as '{}'",
        why="openai-python PR #3502: arguments \"\" for a strict no-argument tool crashed "
            "json.loads; litellm #5063: \"\" replayed and the next turn failed to parse.",
        steps=replayed_step(Turn(tool_calls=calls(("get_time", "")))),
        checks=(matches_script, replay_arguments_are_json, history_intact),
    ),
    case(
        id="wire.zero_args_null",
        dialects=TEXT_ARGUMENTS,
        quirk="arguments_null",
        title="Zero-argument call sent as null parses to {}",
        why="Servers other than OpenAI send arguments: null for a call without arguments (Qwen3 "
            "on a local OpenAI-compatible server: pydantic-ai #1654, 2025-05; Cohere's SDK types "
            "the field Optional: pydantic-ai #7718, 2026-08; confirmed 2026-11-25); OpenAI sends "
            "'{}'. An adapter that leaves the call incomplete or replays null loses it. No "
            "service in the registry is known to send it: it runs for compatible_with={'*'}.",
        steps=replayed_step(Turn(tool_calls=calls(("get_time", None)))),
        checks=(matches_script, replay_arguments_are_json),
    ),
    case(
        id="wire.zero_args_empty_object",
        title="Zero-argument call sent as '{}' parses to {}",
        why="The common form of a zero-argument call; must not become None or a parse error.",
        steps=replayed_step(Turn(tool_calls=calls(("get_time", "{}")))),
        checks=(matches_script, replay_arguments_are_json),
    ),
    case(
        id="wire.non_ascii_arguments",
        title="Non-ASCII arguments survive parsing and are not escaped on replay",
        why="langchain PR #32222: non-ASCII arguments replayed as \\uXXXX escapes change what "
            "the model sees of its own call.",
        steps=replayed_step(Turn(tool_calls=calls(
            ("get_weather", {"city": "Zürich"}),
            ("get_weather", {"city": "東京", "unit": "celsius"}),
            ("search-docs_v2", '{"query": "naïve café 🚀 — ok"}')))),
        checks=(matches_script, replay_not_escaped, history_intact),
    ),
    case(
        id="wire.malformed_arguments",
        dialects=(*TEXT_ARGUMENTS, "openai-responses"),
        title="Malformed JSON arguments become a parse error on the call, not a crash",
        why="Models emit truncated or invalid JSON; an adapter that calls json.loads unguarded "
            "crashes the whole turn instead of letting the loop ask for valid JSON.",
        steps=one_step(Turn(tool_calls=(
            ScriptedCall(id="call_001", name="get_weather", arguments='{"city": "Par'),
            ScriptedCall(id="call_002", name="get_time", arguments="[1, 2]"),
        ))),
        checks=(matches_script,),
    ),
    case(
        id="wire.provider_error",
        title="A provider 400 surfaces the provider's message in a typed error",
        why="Adapters that swallow error bodies leave users with 'KeyError: choices' instead of "
            "the provider's explanation.",
        steps=one_step(Turn(error=ErrorReply(
            status=400, code="context_length_exceeded",
            message="This model's maximum context length is 128000 tokens. However, your "
                    "messages resulted in 131072 tokens. Please reduce the length of the "
                    "messages.")), expect="error"),
        checks=(error_surfaced(must_contain="maximum context length is 128000 tokens"),),
    ),
    case(
        id="wire.error_not_json",
        title="An error page that is not JSON (a gateway's 502) raises a typed error",
        why="Proxies and gateways answer with HTML; an adapter that json-decodes every error "
            "body crashes with a JSONDecodeError that hides the status and the page's words.",
        steps=one_step(Turn(error=ErrorReply(
            status=502, raw_body="<html><head><title>502 Bad Gateway</title></head><body>"
                                 "<center><h1>502 Bad Gateway</h1></center></body></html>")),
            expect="error"),
        checks=(error_surfaced(must_contain="Bad Gateway"),),
    ),
    case(
        id="wire.malformed_success",
        title="A 200 answer that is not a valid completion raises a typed error",
        why="Proxies and half-compatible servers answer 200 with a body that lacks the answer "
            "(no choices, no content); an adapter that indexes straight into it crashes with a "
            "KeyError instead of saying what came back.",
        steps=one_step(Turn(error=ErrorReply(
            status=200, raw_body='{"id": "resp-1", "object": "error", "detail": "upstream '
                                 'timeout"}')), expect="error"),
        # judged by meaning, not words (issue 28): an error is raised (the answer is not
        # returned as a success) and it is typed (no KeyError/TypeError crash); what its
        # message says is the adapter's own (a word list failed "answer without choices")
        checks=(error_surfaced(),),
    ),
    case(
        id="wire.unknown_finish_reason",
        dialects=TEXT_ARGUMENTS,
        quirk="finish_reason_unlisted",
        title="A finish reason the adapter does not know becomes 'other', not a crash",
        why="Providers add finish reasons: DeepSeek stops a turn with insufficient_system_resource "
            "when its inference system runs short (DeepSeek API reference, Create Chat "
            "Completion, finish_reason; the ds-api crate's FinishReason; confirmed 2026-11-25). "
            "An adapter that maps with a dict lookup crashes, one that passes the value through "
            "breaks every consumer that switches on the canonical set. OpenAI sends only its "
            "own five: the case runs for DeepSeek and for compatible_with={'*'}.",
        steps=one_step(Turn(text="Partial answer.", finish_reason="other",
                            wire_finish_reason="insufficient_system_resource")),
        checks=(matches_script,),
    ),
    case(
        id="wire.assistant_text_replayed",
        title="Earlier assistant answers (text only) are sent back with the conversation",
        why="Adapters that translate only the tool-call parts of history drop the model's own "
            "earlier answers; the provider accepts the request and the model loses context.",
        steps=one_step(_TEXT, request(
            UserMessage(content="Is it warm in Paris?"),
            AssistantMessage(content="Yes: 21°C and sunny."),
            UserMessage(content="And in Tokyo?"))),
        checks=(check("wire.history.messages")(_messages_intact), matches_script),
    ),
    case(
        id="wire.usage",
        title="Token usage is reported",
        why="Usage is summed by loops and billed by applications; an adapter that drops it "
            "makes cost tracking silently wrong.",
        needs={"usage"},
        steps=one_step(Turn(tool_calls=calls(("get_time", "{}")))),
        checks=(usage_reported,),
    ),
]

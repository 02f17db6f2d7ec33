"""OpenAI Responses, ``POST /v1/responses``: decode, validate, encode.

Facts follow WIRE.md §2 and the real traffic of the wire corpus (136 recorded Responses files).
Error texts and where they come from:

- ``No tool output found for function call call_X.`` / ``No tool call found for function call
  output with call_id call_X.`` (param ``input``): WIRE.md §2; the same bodies are quoted in
  public reports (continuedev/continue #10092, router-for-me/CLIProxyAPI #2368);
- ``Invalid 'input[N].id': 'call_…'. Expected an ID that begins with 'fc'.``: a function_call
  replayed with its call_id as item id (nodetool PR #4252, sub2api PR #1505);
- ``Item 'rs_…' of type 'reasoning' was provided without its required following item.``: the one
  real 400 of the corpus (a reasoning item followed by an item without an id);
- ``Invalid 'tools[N].name': string does not match pattern…`` (code ``invalid_value``):
  openai-dotnet #441, codegraff #930;
- the ``Missing required parameter`` / ``Invalid type`` / ``Invalid value`` texts use the wording
  OpenAI uses for every parameter (see the Chat Completions dialect), with Responses' parameter
  paths (flat tools: ``tools[0].name``, items: ``input[2].call_id``).

The stream is ``event: <type>`` + ``data: {json}`` per event, each with a ``sequence_number``:
``response.created`` first, then per output item ``output_item.added`` → deltas → ``.done`` →
``output_item.done``, and ``response.completed`` (the whole response, with usage) last. No
``[DONE]``, no finish_reason. ``output_index`` is dense and ordered (the SDK stream helper indexes
``output[output_index]``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_toolcall.cases import ErrorReply, ScriptedCall, Turn
from pytest_toolcall.core.model import (AssistantMessage, ChatRequest, NamedToolChoice, Reasoning,
                                        SystemMessage, ToolCall, ToolMessage, UserMessage)
from pytest_toolcall.providers.base import ReferenceRules, Rejection, halves, judged

# the same error format, type errors and content text as Chat Completions
from pytest_toolcall.providers.openai.dialect import (_error, _objects, _text, _tool_spec,
                                                      _type_error, tool_choice_mode,
                                                      validate_tools)
from pytest_toolcall.providers.openai_responses import errors as _errors

__all__ = ["DIALECT", "RESPONSES_RULES", "UNAVOIDABLE_RESPONSES_RULES", "OpenAIResponses",
           "ServiceResponses", "item_id", "reasoning_item_id"]

_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")
_ROLES = ("user", "assistant", "system", "developer")
CREATED = 1_700_000_000
MESSAGE_ID = "msg_toolcall"


#: the request rules OpenAIResponses enforces, rule id -> what OpenAI refuses. A service's own
#: Responses route (:class:`ServiceResponses`: DeepSeek's, OpenRouter's) states for each
#: whether it is confirmed (``confirmed_rules``: its fake refuses) or taken (``lenient_rules``);
#: any other is *unconfirmed*: its fake takes the request, the breach noted, and the kit reports
#: it as hardening (``request.unconfirmed``, issue 30). docs/providers.md renders the table
RESPONSES_RULES = {
    "body.json": "a body that is not JSON",
    "model.missing": "no model",
    "type": "a field of the wrong JSON type",
    "tools.type.missing": "a tool without type",
    "tools.name.missing": "a function tool without a name (the Chat Completions shape)",
    "tools.name.pattern": "a name outside ^[a-zA-Z0-9_-]+$",
    "tools.name.length": "a name longer than 64",
    "tools.parameters.schema": "parameters that are not a JSON schema object",
    "tool_choice.value": "a tool_choice string other than none, auto, required",
    "tool_choice.name.missing": "a function tool_choice without its name",
    "input.message.role.missing": "a message item without role",
    "input.message.role": "a role other than user, assistant, system, developer",
    "input.message.content": "a message item without content",
    "input.function_call.call_id": "a function_call without call_id",
    "input.function_call.name": "a function_call without name",
    "input.function_call.arguments": "a function_call without arguments",
    "input.function_call.id_prefix": "a function_call whose id does not begin with 'fc'",
    "input.function_call.reasoning": "a function_call sent back without the reasoning item "
                                     "that came before it",
    "input.function_call.unanswered": "a function_call without its function_call_output",
    "input.function_call_output.call_id": "a function_call_output without call_id",
    "input.function_call_output.output": "a function_call_output without output",
    "input.function_call_output.orphan": "a function_call_output answering no call",
    "input.function_call_output.duplicate": "two function_call_outputs for one call",
    "input.reasoning.following_item": "a reasoning item without its following item",
}

#: OpenAI's Responses rules every fake of the wire keeps, whatever the service (rule id ->
#: why). An ``input`` that is neither a string nor an array (a ``type`` rejection of
#: ``input``) is one too
UNAVOIDABLE_RESPONSES_RULES = {
    "body.json": "a body that is not JSON is no request: there is nothing to read or answer",
}


def unavoidable_responses(found: Rejection) -> bool:
    """Whether ``found`` (OpenAI's Responses rejection) is one every fake keeps
    (:data:`UNAVOIDABLE_RESPONSES_RULES`; an ``input`` that is no string nor array)."""
    if found.rule in UNAVOIDABLE_RESPONSES_RULES:
        return True
    error = found.body.get("error")
    return found.rule == "type" and isinstance(error, Mapping) and error.get("param") == "input"


@dataclass
class _Seen:
    """What the input items before the one being judged showed."""

    stored: bool
    calls: dict[str, int] = field(default_factory=dict)  # call_id -> its function_call
    callers: set[str] = field(default_factory=set)  # call_ids an output may answer
    answered: set[str] = field(default_factory=set)
    reasoning: set[str] = field(default_factory=set)


def item_id(call_id: str) -> str:
    """The ``fc_`` item id the fake gives the function_call item of ``call_id`` (deterministic,
    and never equal to the call_id, so an adapter that mixes the two up is caught)."""
    return "fc_" + hashlib.sha1(call_id.encode()).hexdigest()[:40]


def _missing(param: str, rule: str) -> Rejection:
    return _error(400, f"Missing required parameter: '{param}'.", param=param,
                  code="missing_required_parameter", rule=rule)


def reasoning_item_id(call_id: str, position: int = 0) -> str:
    """The ``rs_`` id the fake gives the reasoning item at ``position`` of a turn whose first
    call is ``call_id`` (deterministic, like :func:`item_id`)."""
    return "rs_" + hashlib.sha256(f"reasoning:{position}:{call_id}".encode()).hexdigest()[:40]


class OpenAIResponses(ReferenceRules):
    """The ``openai-responses`` dialect: the Responses API."""

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    name = "openai-responses"
    title = "OpenAI Responses"
    base_path = "/v1"
    stream_content_type = "text/event-stream; charset=utf-8"
    #: OpenAI's Responses rules (:data:`RESPONSES_RULES`) the service is shown to enforce,
    #: rule id -> the fact of its registry entry that shows it (its Chat Completions entry)
    confirmed_rules: Mapping[str, str] = {}
    #: the rules it is shown to take, rule id -> what it takes instead (and its source)
    lenient_rules: Mapping[str, str] = {}
    #: whether every rule is this provider's own (OpenAI's). Never inherited: a service's
    #: route refuses only ``confirmed_rules`` and the unavoidable ones, and takes a request that
    #: breaks another, noting the breach (:meth:`_judge`)
    enforces_all_rules = True

    def __init__(self) -> None:
        #: fc_ item id -> the rs_ id of the reasoning item it came after, for every turn this
        #: fake answered with reasoning: OpenAI keeps the same link on its side
        self.required_reasoning: dict[str, str] = {}

    # -- routing and auth (the same keys and texts as every OpenAI endpoint) -----------------
    def route(self, method: str, path: str) -> bool:
        return method == "POST" and path.rstrip("/").endswith("/responses")

    def not_found(self, method: str, path: str) -> Rejection:
        return _error(404, f"Invalid URL ({method} {path})", rule="route")

    def check_auth(self, headers: Mapping[str, str], query: Mapping[str, str],
                   key: str) -> Rejection | None:
        from pytest_toolcall.providers.openai.dialect import OpenAIChat

        return OpenAIChat().check_auth(headers, query, key)

    def wants_stream(self, body: Mapping[str, Any], path: str) -> bool:
        return body.get("stream") is True

    # -- validation ---------------------------------------------------------------------------
    def refuses(self, rule: str) -> bool:
        """Whether this provider's fake refuses a request that breaks OpenAI's Responses
        ``rule`` (:data:`RESPONSES_RULES`)."""
        return (self.enforces_all_rules or rule in UNAVOIDABLE_RESPONSES_RULES
                or rule in self.confirmed_rules)

    def _judge(self, found: Rejection) -> Rejection | None:
        """``found`` (OpenAI's rejection) when this provider refuses it; else None, the breach
        noted (``providers.base.judged``) and the checks go on past it."""
        return judged(self, found, unavoidable_responses(found))

    def validate(self, body: Any) -> Rejection | None:
        if not isinstance(body, Mapping):
            return _error(400, "We could not parse the JSON body of your request. (HINT: This "
                          "likely means you aren't using your HTTP library correctly. The OpenAI "
                          "API expects a JSON payload, but what was sent was not valid JSON.)",
                          rule="body.json")
        judge = self._judge
        if "model" not in body:
            found = judge(_missing("model", "model.missing"))
            if found:
                return found
        found = validate_tools(self, body.get("tools"))
        if found and (found.rule != "type" or judge(found)):
            return found  # a tools array that is no array: a type breach, judged here
        choice = body.get("tool_choice")
        if choice is not None:
            found = self._validate_tool_choice(choice)
            if found:
                return found
        parallel = body.get("parallel_tool_calls")
        if parallel is not None and not isinstance(parallel, bool):
            found = judge(_type_error("parallel_tool_calls", "a boolean", parallel))
            if found:
                return found
        instructions = body.get("instructions")
        if instructions is not None and not isinstance(instructions, (str, list)):
            found = judge(_type_error("instructions", "a string", instructions))
            if found:
                return found
        items = body.get("input")
        if items is None or isinstance(items, str):
            return None
        if not isinstance(items, list):
            # unavoidable: no input to answer (UNAVOIDABLE_RESPONSES_RULES)
            return _type_error("input", "a string or an array of input items", items)
        # with previous_response_id / conversation the calls live on the server: outputs for
        # them are not orphans, and the fake cannot see them
        stored = bool(body.get("previous_response_id") or body.get("conversation"))
        return self._validate_input(items, stored=stored)

    def _validate_tool(self, i: int, tool: Any) -> Rejection | None:
        where, judge = f"tools[{i}]", self._judge
        if not isinstance(tool, Mapping):
            return judge(_type_error(where, "an object", tool))
        if "type" not in tool:
            return judge(_missing(f"{where}.type", "tools.type.missing"))
        if tool.get("type") != "function":
            return None  # hosted tools (web_search, mcp, file_search...) have their own shapes
        name = tool.get("name")
        if not isinstance(name, str):
            # what a Chat Completions shape {type, function: {name...}} gets here
            return judge(_missing(f"{where}.name", "tools.name.missing"))
        if not _NAME.match(name):
            return judge(_error(400, f"Invalid '{where}.name': string does not match pattern. "
                                "Expected a string that matches the pattern "
                                "'^[a-zA-Z0-9_-]+$'.", param=f"{where}.name",
                                code="invalid_value", rule="tools.name.pattern"))
        if len(name) > 64:
            return judge(_error(400, f"Invalid '{where}.name': string too long. Expected a "
                                f"string with maximum length 64, but got a string with length "
                                f"{len(name)} instead.", param=f"{where}.name",
                                code="string_above_max_length", rule="tools.name.length"))
        params = tool.get("parameters")
        if params is not None and not isinstance(params, Mapping):
            return judge(_type_error(f"{where}.parameters", "an object", params))
        if params is not None:
            from pytest_toolcall.core._schema import schema_problem

            problem = schema_problem(params)
            if problem:
                return judge(_error(400, f"Invalid schema for function '{name}': {problem[1]}.",
                                    param=f"{where}.parameters",
                                    code="invalid_function_parameters",
                                    rule="tools.parameters.schema"))
        strict = tool.get("strict")
        if strict is not None and not isinstance(strict, bool):
            return judge(_type_error(f"{where}.strict", "a boolean", strict))
        return None

    def _validate_tool_choice(self, choice: Any) -> Rejection | None:
        judge = self._judge
        if isinstance(choice, str):
            found = tool_choice_mode(choice)
            return judge(found) if found else None
        if not isinstance(choice, Mapping):
            return judge(_type_error("tool_choice", "a string or an object", choice))
        if choice.get("type") == "function" and not isinstance(choice.get("name"), str):
            # the Chat Completions shape {type: function, function: {name}} lands here
            return judge(_missing("tool_choice.name", "tool_choice.name.missing"))
        return None

    def _validate_input(self, items: list[Any], *, stored: bool) -> Rejection | None:
        """OpenAI's rules on the input items; a breach this provider lets pass (:meth:`_judge`)
        skips the rest of its item, and the checks go on."""
        seen = _Seen(stored=stored)
        for i, item in enumerate(items):
            found = self._validate_item(i, item, items, seen)
            if found:
                return found
        for call_id in seen.calls:
            if call_id not in seen.answered:
                found = self._judge(_error(400, f"No tool output found for function call "
                                           f"{call_id}.", param="input",
                                           rule="input.function_call.unanswered"))
                if found:
                    return found
        return None

    def _validate_item(self, i: int, item: Any, items: list[Any],  # noqa: C901
                       seen: _Seen) -> Rejection | None:
        where, judge = f"input[{i}]", self._judge
        if not isinstance(item, Mapping):
            return judge(_type_error(where, "an object", item))
        kind = item.get("type")
        if kind is None or kind == "message":
            role = item.get("role")
            if role is None:
                return judge(_missing(f"{where}.role", "input.message.role.missing"))
            if not isinstance(role, str):  # else Python's repr ('True') is quoted
                return judge(_type_error(f"{where}.role", "a string", role))
            if role not in _ROLES:
                return judge(_error(400, f"Invalid value: '{role}'. Supported values are: "
                                    "'assistant', 'system', 'developer', and 'user'.",
                                    param=f"{where}.role", code="invalid_value",
                                    rule="input.message.role"))
            if "content" not in item:
                return judge(_missing(f"{where}.content", "input.message.content"))
            if not isinstance(item["content"], (str, list)):
                return judge(_type_error(f"{where}.content", "a string or an array",
                                         item["content"]))
        elif kind == "function_call":
            if isinstance(item.get("call_id"), str):  # answerable, whatever else is broken
                seen.calls.setdefault(item["call_id"], i)
                seen.callers.add(item["call_id"])
            for field in ("call_id", "name", "arguments"):
                if field not in item:
                    return judge(_missing(f"{where}.{field}", f"input.function_call.{field}"))
            for field in ("call_id", "name", "arguments"):
                if not isinstance(item[field], str):
                    return judge(_type_error(f"{where}.{field}", "a string", item[field]))
            ident = item.get("id")
            if ident is not None and not str(ident).startswith("fc"):
                return judge(_error(400, f"Invalid '{where}.id': '{ident}'. Expected an ID that "
                                    "begins with 'fc'.", param=f"{where}.id",
                                    code="invalid_value", rule="input.function_call.id_prefix"))
            needed = self.required_reasoning.get(str(ident)) if ident else None
            if needed and needed not in seen.reasoning:
                # cline #12242, continuedev #10018, mastra #8738 quote it (confirmed
                # 2026-11-23): the reasoning item that came before the call is missing
                return judge(_error(400, f"Item '{ident}' of type 'function_call' was provided "
                                    f"without its required 'reasoning' item: '{needed}'.",
                                    param="input", rule="input.function_call.reasoning"))
        elif kind == "function_call_output":
            call_id = item.get("call_id")
            if not isinstance(call_id, str):
                return judge(_missing(f"{where}.call_id", "input.function_call_output.call_id")
                             if call_id is None else
                             _type_error(f"{where}.call_id", "a string", call_id))
            duplicate = call_id in seen.answered
            seen.answered.add(call_id)  # answered, whatever else is broken
            if "output" not in item:
                return judge(_missing(f"{where}.output", "input.function_call_output.output"))
            if not isinstance(item["output"], (str, list)):
                return judge(_type_error(f"{where}.output", "a string or an array",
                                         item["output"]))
            if call_id not in seen.callers and not seen.stored:
                return judge(_error(400, "No tool call found for function call output with "
                                    f"call_id {call_id}.", param="input",
                                    rule="input.function_call_output.orphan"))
            if duplicate:
                # quoted from the API by NousResearch/hermes-agent #102629 (a per-turn id
                # such as 'terminal:0' reused across turns; confirmed 2026-11-24)
                return judge(_error(400, f"Duplicate function_call_output for call_id "
                                    f"'{call_id}'. Each function_call must have exactly one "
                                    "matching function_call_output", param="input",
                                    rule="input.function_call_output.duplicate"))
        elif isinstance(item.get("call_id"), str):
            # other client-executed calls (tool_search_call...) are answered the same way
            seen.callers.add(item["call_id"])
        if kind == "reasoning" and item.get("id"):
            seen.reasoning.add(str(item["id"]))
            following = items[i + 1] if i + 1 < len(items) else None
            if not isinstance(following, Mapping) or not following.get("id"):
                return judge(_error(400, f"Item '{item['id']}' of type 'reasoning' was provided "
                                    "without its required following item.", param="input",
                                    rule="input.reasoning.following_item"))
        return None

    # -- decoding -----------------------------------------------------------------------------
    def decode_request(self, body: Mapping[str, Any]) -> ChatRequest:
        """The canonical request read from ``body``. A service's route takes a body that breaks
        a rule it is not shown to enforce (:meth:`_judge`), so the reading is the kind one:
        what cannot be read (an item that is no object, a call without a name) is left out."""
        messages: list[Any] = []
        if body.get("instructions"):
            messages.append(SystemMessage(content=_text(body["instructions"])))
        items = body.get("input")
        if isinstance(items, str):
            items = [{"role": "user", "content": items}]
        merge = False  # a function_call joins the assistant message right before it
        pending: list[Reasoning] = []  # reasoning items join the assistant turn that follows
        for item in _objects(items):
            kind = item.get("type")
            if kind == "reasoning":
                summary = "".join(str(p.get("text", "")) for p in _objects(item.get("summary")))
                pending.append(Reasoning(type="reasoning", id=_str(item.get("id")),
                                         text=summary or None,
                                         signature=_str(item.get("encrypted_content"))))
                merge = False
                continue
            if kind in (None, "message"):
                role = item.get("role")
                if role in ("system", "developer"):
                    messages.append(SystemMessage(role=role, content=_text(item.get("content"))))
                elif role == "user":
                    messages.append(UserMessage(content=_text(item.get("content"))))
                elif role == "assistant":
                    messages.append(AssistantMessage(content=_text(item.get("content")) or None,
                                                     reasoning=tuple(pending)))
                    pending = []
                merge = role == "assistant"
                continue
            if kind == "function_call":
                if not _str(item.get("name")):
                    merge = False
                    continue  # no call to read (a breach noted)
                arguments = item.get("arguments")
                call = ToolCall.from_raw(id=_str(item.get("call_id")), name=item["name"],
                                         arguments=arguments if isinstance(
                                             arguments, (str, Mapping)) else None)
                if merge and isinstance(messages[-1], AssistantMessage):
                    last = messages[-1]
                    messages[-1] = last.model_copy(update={"tool_calls": (*last.tool_calls, call)})
                else:
                    messages.append(AssistantMessage(tool_calls=(call,), reasoning=tuple(pending)))
                    pending = []
                merge = True
                continue
            if kind == "function_call_output":
                messages.append(ToolMessage(tool_call_id=_str(item.get("call_id")),
                                            content=_text(item.get("output"))))
            merge = False
        # a flat function tool has the fields of a Chat Completions function
        tools = tuple(_tool_spec(t) for t in _objects(body.get("tools"))
                      if t.get("type") == "function" and _str(t.get("name")))
        choice = body.get("tool_choice")
        tool_choice: Any = None
        if isinstance(choice, str):
            refused = tool_choice_mode(choice)
            if refused is not None and self.refuses(refused.rule):
                # decoding a body validate() refuses: say why, no crash
                raise ValueError(f"{self.name} refuses this request ({refused.rule}): "
                                 f"{refused.message}")
            tool_choice = choice if refused is None else None
        elif (isinstance(choice, Mapping) and choice.get("type") == "function"
              and _str(choice.get("name"))):
            tool_choice = NamedToolChoice(name=choice["name"])
        parallel = body.get("parallel_tool_calls")
        return ChatRequest(messages=tuple(messages), tools=tools, tool_choice=tool_choice,
                           parallel_tool_calls=parallel if isinstance(parallel, bool) else None,
                           stream=bool(body.get("stream")), model=_str(body.get("model")))

    # -- encoding -----------------------------------------------------------------------------
    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        if error.status == 200:
            # the model failed after the request was taken: a 200 whose Response has status
            # "failed" and an error {code, message} (openai-python 3.57.0, types/responses/
            # response.py, Response.error and ResponseError; confirmed 2026-11-28)
            failed = self._response(Turn(), {}, status="failed", output=[], usage=False)
            failed["error"] = {"code": error.code or error.type, "message": error.message}
            return 200, failed
        return error.status, {"error": {"message": error.message, "type": error.type,
                                        "param": error.param, "code": error.code}}

    @staticmethod
    def call_ids(turn: Turn) -> list[str]:
        return [c.id or f"call_{i + 1:03d}" for i, c in enumerate(turn.tool_calls)]

    def item_ids(self, turn: Turn) -> list[str]:
        """The ``fc_`` item ids of the turn's function_call items, in call order."""
        return [item_id(cid) for cid in self.call_ids(turn)]

    def reasoning_items(self, turn: Turn, *, done: bool = True) -> list[dict[str, Any]]:
        """The turn's reasoning output items, as recorded (wire corpus: ``{id, type,
        encrypted_content, summary}``, 92 JSON items and 5 streams; confirmed 2026-11-23): the
        summary is empty until the item is done. The fake remembers which fc_ items each one
        precedes, as OpenAI does."""
        first = (self.call_ids(turn) or ["text"])[0]
        items = []
        for k, r in enumerate(r for r in turn.reasoning if r.type == "reasoning"):
            item: dict[str, Any] = {"id": r.id or reasoning_item_id(first, k), "type": "reasoning"}
            if r.signature is not None:
                item["encrypted_content"] = r.signature
            item["summary"] = [{"type": "summary_text", "text": r.text}] if r.text and done \
                else []
            items.append(item)
        if items:
            for fid in self.item_ids(turn):
                self.required_reasoning[fid] = items[-1]["id"]
        return items

    def response_id(self, turn: Turn) -> str:
        """The ``resp_`` id of the answer to ``turn``: one per answer, as OpenAI's are. Clients
        key messages by it (langchain-openai's AIMessage.id): one id for every answer made
        LangGraph's add_messages replace the earlier turn of a run with the later one."""
        seed = f"{self.call_ids(turn)}|{turn.text}|{turn.expected_finish()}"
        return "resp_" + hashlib.sha1(seed.encode()).hexdigest()[:40]

    def _output(self, turn: Turn) -> list[dict[str, Any]]:
        """The finished output items: reasoning, the message (when there is text), then one per
        call."""
        out: list[dict[str, Any]] = self.reasoning_items(turn)
        out += [_message(text, _item_status(turn), mid)
                for mid, text in _message_texts(turn)]
        for cid, fid, call in zip(self.call_ids(turn), self.item_ids(turn), turn.tool_calls):
            out.append(_function_call(fid, cid, call.name, call.arguments_text(), "completed"))
        return out

    def _response(self, turn: Turn, body: Mapping[str, Any], *, status: str,
                  output: list[dict[str, Any]], usage: bool) -> dict[str, Any]:
        finish = turn.expected_finish()
        incomplete = {"length": "max_output_tokens",
                      "content_filter": "content_filter"}.get(finish)
        if status == "completed" and incomplete:
            status = "incomplete"
        tools = [{"type": "function", "name": t.get("name"), "description": t.get("description"),
                  "parameters": t.get("parameters"), "strict": t.get("strict")}
                 for t in body.get("tools") or () if t.get("type") == "function"]
        return {
            "id": self.response_id(turn), "object": "response", "created_at": CREATED, "status": status,
            "background": False, "error": None,
            "incomplete_details": {"reason": incomplete} if status == "incomplete" else None,
            "instructions": body.get("instructions"), "max_output_tokens": None,
            "max_tool_calls": None, "model": body.get("model") or "toolcall-fake",
            "output": output, "parallel_tool_calls": body.get("parallel_tool_calls", True),
            "previous_response_id": None, "reasoning": {"effort": None, "summary": None},
            "service_tier": "default", "store": True, "temperature": 1.0,
            "text": {"format": {"type": "text"}, "verbosity": "medium"},
            "tool_choice": body.get("tool_choice", "auto"), "tools": tools, "top_p": 1.0,
            "truncation": "disabled",
            "usage": _usage(turn) if usage and turn.usage is not None else None,
            "user": None, "metadata": {},
        }

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._response(turn, body, status="completed", output=self._output(turn),
                              usage=True)

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        plan = turn.stream
        quirks = plan.quirks
        size = plan.fragment_size
        events: list[dict[str, Any]] = [
            {"type": "response.created",
             "response": self._response(turn, body, status="in_progress", output=[], usage=False)},
            {"type": "response.in_progress",
             "response": self._response(turn, body, status="in_progress", output=[], usage=False)},
        ]
        index = 0
        for added, done in zip(self.reasoning_items(turn, done=False), self.reasoning_items(turn)):
            # as the 5 recorded streams do: the item announced, then done; a summary streams
            # in between as summary_part.added, summary_text.delta..., summary_text.done,
            # summary_part.done (the event types of openai-python 3.54.0, types/responses/
            # response_reasoning_summary_*_event.py; confirmed 2026-11-23)
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": added})
            for k, part in enumerate(done["summary"]):
                text, where = part["text"], {"item_id": done["id"], "output_index": index,
                                             "summary_index": k}
                events.append({"type": "response.reasoning_summary_part.added", **where,
                               "part": {"type": "summary_text", "text": ""}})
                events += [{"type": "response.reasoning_summary_text.delta", **where,
                            "delta": text[n:n + size]} for n in range(0, len(text), size)]
                events.append({"type": "response.reasoning_summary_text.done", **where,
                               "text": text})
                events.append({"type": "response.reasoning_summary_part.done", **where,
                               "part": {"type": "summary_text", "text": text}})
            events.append({"type": "response.output_item.done", "output_index": index,
                           "item": done})
            index += 1
        for mid, text in _message_texts(turn):
            part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": _message(None, "in_progress", mid)})
            events.append({"type": "response.content_part.added", "item_id": mid,
                           "output_index": index, "content_index": 0, "part": part})
            events += [{"type": "response.output_text.delta", "item_id": mid,
                        "output_index": index, "content_index": 0, "delta": text[k:k + size],
                        "logprobs": []} for k in range(0, len(text), size)]
            events.append({"type": "response.output_text.done", "item_id": mid,
                           "output_index": index, "content_index": 0, "text": text,
                           "logprobs": []})
            events.append({"type": "response.content_part.done", "item_id": mid,
                           "output_index": index, "content_index": 0,
                           "part": dict(part, text=text)})
            events.append({"type": "response.output_item.done", "output_index": index,
                           "item": _message(text, _item_status(turn), mid)})
            index += 1
        per_call: list[tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]] = []
        for cid, fid, call in zip(self.call_ids(turn), self.item_ids(turn), turn.tool_calls):
            added, deltas, done = _call_events(index, fid, cid, call, size)
            if "arguments_done_only" in quirks:
                # some models send no argument deltas at all (issue 14; seen by adapter authors
                # against real Responses streams, 2026-11): the text comes whole in .done
                deltas = []
            per_call.append((added, deltas, done))
            index += 1
        if "interleave" in quirks:
            # every item announced, then the argument fragments of all calls in turns
            events += [e for added, _, _ in per_call for e in added]
            deltas = [d for _, d, _ in per_call]
            longest = max((len(d) for d in deltas), default=0)
            events += [d[n] for n in range(longest) for d in deltas if n < len(d)]
            events += [e for _, _, done in per_call for e in done]
        else:
            events += [e for added, deltas, done in per_call for e in added + deltas + done]
        final = self._response(turn, body, status="completed", output=self._output(turn),
                               usage=True)
        # a response cut short ends with response.incomplete, not response.completed (openai-
        # python 3.57.0, types/responses/response_incomplete_event.py; confirmed 2026-11-28)
        events.append({"type": f"response.{final['status']}", "response": final})
        for event in events:
            if "output_index" in event:
                if "index_stuck_at_zero" in quirks:
                    event["output_index"] = 0
                if "index_missing" in quirks:
                    del event["output_index"]
        for n, event in enumerate(events):
            event["sequence_number"] = n
        # event 0 is response.created; error_after / truncate_after count the events after it
        if plan.error_after is not None:
            keep = events[: min(plan.error_after + 1, len(events) - 1)]
            error: dict[str, Any] = {"type": "error", "code": plan.error.code or plan.error.type,
                                     "message": plan.error.message, "param": plan.error.param,
                                     "sequence_number": len(keep)}
            if "response_failed" in quirks:
                failed = self._response(turn, body, status="failed", output=[], usage=False)
                failed["error"] = {"code": plan.error.code or plan.error.type,
                                   "message": plan.error.message}
                error = {"type": "response.failed", "response": failed,
                         "sequence_number": len(keep)}
            return [_sse(e) for e in keep] + [_sse(error)]
        if plan.truncate_after is not None:
            events = events[: plan.truncate_after + 1]
        return [_sse(e) for e in events]


def _item_status(turn: Turn) -> str:
    """A message cut short by max_output_tokens or a filter is ``incomplete`` (openai-python
    3.57.0, ResponseOutputMessage.status; confirmed 2026-11-28)."""
    return "incomplete" if turn.expected_finish() in ("length", "content_filter") \
        else "completed"


def _message(text: str | None, status: str, mid: str = MESSAGE_ID) -> dict[str, Any]:
    content = [] if text is None else [{"type": "output_text", "annotations": [],
                                         "logprobs": [], "text": text}]
    return {"id": mid, "type": "message", "status": status, "content": content,
            "role": "assistant"}


def _message_texts(turn: Turn) -> list[tuple[str, str]]:
    """``(item id, text)`` of each message item of the answer: one, or two under
    ``text_in_messages`` (a response may hold several message items, with a tool call between:
    openai/openai-java #625 quotes two; openai-python's ``Response.output_text`` joins the
    output_text of every message with nothing between, 3.57.0; confirmed 2026-11-28)."""
    text = turn.text or ""
    if "text_in_messages" not in turn.stream.quirks:
        return [(MESSAGE_ID, text)] if text else []
    return [(MESSAGE_ID if k == 0 else f"{MESSAGE_ID}_{k + 1}", piece)
            for k, piece in enumerate(halves(text))]


def _function_call(fid: str, cid: str, name: str, arguments: str | None,
                   status: str) -> dict[str, Any]:
    return {"id": fid, "type": "function_call", "status": status, "arguments": arguments,
            "call_id": cid, "name": name}


def _call_events(index: int, fid: str, cid: str, call: ScriptedCall,
                 size: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """(the item announced, its argument fragments, its two done events)."""
    text = call.arguments_text()
    added = [{"type": "response.output_item.added", "output_index": index,
              "item": _function_call(fid, cid, call.name, "", "in_progress")}]
    pieces = [text[n:n + size] for n in range(0, len(text), size)] if text else []
    # the fragments name their item by its fc_ id, never by call_id (WIRE.md §2)
    deltas = [{"type": "response.function_call_arguments.delta", "item_id": fid,
               "output_index": index, "delta": p} for p in pieces]
    done = [{"type": "response.function_call_arguments.done", "item_id": fid,
             "output_index": index, "arguments": text},
            {"type": "response.output_item.done", "output_index": index,
             "item": _function_call(fid, cid, call.name, text, "completed")}]
    return added, deltas, done


def _usage(turn: Turn) -> dict[str, Any]:
    u = turn.usage
    assert u is not None
    # the usage keys of real traffic (wire corpus; the newest recordings, and the SDK's strict
    # validation, have cache_write_tokens too)
    return {"input_tokens": u.input_tokens or 0,
            "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": 0},
            "output_tokens": u.output_tokens or 0,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": u.total_tokens or 0}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _sse(data: Mapping[str, Any]) -> bytes:
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {data['type']}\ndata: {payload}\n\n".encode()


class ServiceResponses(OpenAIResponses):
    """A service's own Responses route (DeepSeek's, OpenRouter's): OpenAI's Responses rules,
    with the service's key check, error shape and error answers (its Chat Completions dialect,
    ``get_dialect(name)``, says them). A subclass gives ``name`` and the ``paths`` it serves."""

    paths: frozenset[str] = frozenset()

    def __init__(self) -> None:
        super().__init__()
        from pytest_toolcall.providers.base import get_dialect

        self.service: Any = get_dialect(self.name)
        self.error_table = self.service.error_table

    def route(self, method: str, path: str) -> bool:
        return method == "POST" and path.rstrip("/") in self.paths

    def check_auth(self, headers: Mapping[str, str], query: Mapping[str, str],
                   key: str) -> Rejection | None:
        return self.service.check_auth(headers, query, key)  # type: ignore[no-any-return]

    def validate(self, body: Any) -> Rejection | None:
        return self.service.own_shape(super().validate(body))  # type: ignore[no-any-return]

    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]:
        return self.service.encode_error(error)  # type: ignore[no-any-return]


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = OpenAIResponses

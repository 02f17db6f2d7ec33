"""Public hypothesis strategies for tool calling: specs, arguments, calls, histories, chunkings.

Use them in your own property tests::

    from hypothesis import given
    from pytest_toolcall import strategies as tcst

    @given(tcst.stored_histories())
    def test_my_builder_is_idempotent(stored):
        once = my_builder.build(stored)
        assert my_builder.build(once) == once

Every strategy shrinks toward the smallest, plainest value: fewer messages, fewer calls, shorter
names, ASCII text, no failures.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from pytest_toolcall.core.model import (
    AssistantMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolSpec,
    UserMessage,
)

__all__ = [
    "arguments_for",
    "chunkings",
    "stored_histories",
    "tool_calls",
    "tool_names",
    "tool_specs",
]

_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=20)


def tool_names() -> st.SearchStrategy[str]:
    """Names every provider accepts: ``^[a-zA-Z0-9_-]{1,64}$``."""
    return st.from_regex(r"[a-zA-Z][a-zA-Z0-9_-]{0,30}", fullmatch=True)


_SCALARS = {
    "string": lambda s: st.text(max_size=s.get("maxLength", 12)),
    "integer": lambda s: st.integers(s.get("minimum", -1000), s.get("maximum", 1000)),
    "number": lambda s: st.floats(-1e6, 1e6, allow_nan=False),
    "boolean": lambda s: st.booleans(),
}


def _property_schemas() -> st.SearchStrategy[dict[str, Any]]:
    scalar = st.sampled_from(["string", "integer", "number", "boolean"]).map(
        lambda t: {"type": t})
    enum = st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=4, unique=True).map(
        lambda values: {"type": "string", "enum": values})
    array = scalar.map(lambda item: {"type": "array", "items": item, "maxItems": 3})
    return st.one_of(scalar, enum, array)


@st.composite
def tool_specs(draw: st.DrawFn, *, max_properties: int = 4) -> ToolSpec:
    """Tool specs with an object schema of scalar, enum and array properties."""
    if max_properties < 0:
        raise ValueError(f"max_properties must be >= 0, got {max_properties!r}")
    names = draw(st.lists(st.from_regex(r"[a-z][a-z_]{0,10}", fullmatch=True),
                          max_size=max_properties, unique=True))
    properties = {n: draw(_property_schemas()) for n in names}
    required = draw(st.lists(st.sampled_from(names), unique=True)) if names else []
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return ToolSpec(name=draw(tool_names()), description=draw(_TEXT), parameters=schema)


@st.composite
def arguments_for(draw: st.DrawFn, schema: dict[str, Any]) -> dict[str, Any]:
    """An arguments object valid for ``schema`` (object schemas as :func:`tool_specs` makes)."""
    if schema.get("type") != "object":
        raise ValueError(f"arguments_for needs an object schema, got type {schema.get('type')!r}")
    out: dict[str, Any] = {}
    required = set(schema.get("required", ()))
    for name, prop in schema.get("properties", {}).items():
        if name not in required and not draw(st.booleans()):
            continue
        out[name] = draw(_value(prop))
    return out


def _value(prop: dict[str, Any]) -> st.SearchStrategy[Any]:
    if "enum" in prop:
        return st.sampled_from(prop["enum"])
    if prop.get("type") == "array":
        return st.lists(_value(prop.get("items", {"type": "string"})),
                        max_size=prop.get("maxItems", 3))
    make = _SCALARS.get(prop.get("type", "string"), _SCALARS["string"])
    return make(prop)


@st.composite
def tool_calls(draw: st.DrawFn, spec: ToolSpec | None = None, *,
               id_prefix: str = "call_") -> ToolCall:
    """A well-formed tool call (of ``spec`` when given) with a unique-looking id."""
    spec = spec or draw(tool_specs())
    arguments = draw(arguments_for(spec.parameters))
    call_id = id_prefix + draw(st.from_regex(r"[A-Za-z0-9]{6}", fullmatch=True))
    return ToolCall(id=call_id, name=spec.name, arguments=arguments,
                    raw_arguments=json.dumps(arguments, ensure_ascii=False))


# stored_histories' strategies, built once: the same draws, without building (and hypothesis
# re-analysing) fresh strategy objects in every example (issue 13: speed)
_BOOLEANS = st.booleans()
_N_CALLS = st.integers(0, 3)
_CALL_TEXTS = st.sampled_from([None, "Let me check."])
_FATES = st.sampled_from(["ok", "ok", "failed", "missing", "duplicate", "no_id", "late"])
_ORPHAN = st.integers(0, 4)


@st.composite
def stored_histories(draw: st.DrawFn, *, max_turns: int = 5) -> list[Any]:
    """Stored conversations as applications persist them, flaws included.

    Each turn is a user message, maybe an assistant message with calls, and results that may be
    missing (interrupted turn), failed, duplicated, stored without an id, stored late (after
    the next user message), or orphaned (an id no call has).
    """
    if max_turns < 1:
        raise ValueError(f"max_turns must be >= 1, got {max_turns!r}")
    messages: list[Any] = []
    if draw(_BOOLEANS):
        messages.append(SystemMessage(content="You are a helpful assistant."))
    late: list[Any] = []
    counter = 0
    for turn in range(draw(st.integers(1, max_turns))):
        messages.append(UserMessage(content=f"question {turn}"))
        messages.extend(late)
        late = []
        n_calls = draw(_N_CALLS)
        if n_calls == 0:
            messages.append(AssistantMessage(content=f"answer {turn}"))
            continue
        calls = []
        for _ in range(n_calls):
            counter += 1
            calls.append(ToolCall(id=f"call_{counter}", name="lookup",
                                  arguments={"n": counter}, raw_arguments=f'{{"n": {counter}}}'))
        text = draw(_CALL_TEXTS)
        messages.append(AssistantMessage(content=text, tool_calls=tuple(calls)))
        for call in calls:
            fate = draw(_FATES)
            result = ToolMessage(tool_call_id=call.id, content=f"result of {call.id}",
                                 is_error=fate == "failed")
            if fate in ("ok", "failed"):
                messages.append(result)
            elif fate == "duplicate":
                messages += [result, result.model_copy(update={"content": "again"})]
            elif fate == "no_id":
                messages.append(result.model_copy(update={"tool_call_id": None}))
            elif fate == "late":
                late.append(result)
        if draw(_ORPHAN) == 0:
            messages.append(ToolMessage(tool_call_id=f"orphan_{turn}", content="stray result"))
    messages.extend(late)
    return messages


def chunkings(*, max_cuts: int = 48, max_offset: int = 4096) -> st.SearchStrategy[list[int]]:
    """Byte offsets at which to cut a stream (see ``pytest_toolcall.providers.fake.cut_at``).

    Shrinks toward no cuts at all, then toward fewer and smaller offsets.
    """
    if max_cuts < 0 or max_offset < 1:
        raise ValueError(f"max_cuts must be >= 0 and max_offset >= 1, got {max_cuts!r}, "
                         f"{max_offset!r}")
    return st.lists(st.integers(min_value=1, max_value=max_offset), max_size=max_cuts)

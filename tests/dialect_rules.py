"""What the tests of the dialects' request rules share (``tests/test_dialect_*.py``): the rules a
dialect module names, and a rejection asserted to the letter."""

from __future__ import annotations

import inspect
import json
import re
from types import ModuleType
from typing import Any

from pytest_toolcall.core.model import AssistantMessage, ChatRequest, ToolSpec

#: the tool the round-trip requests offer
WEATHER_TOOL = ToolSpec(name="get_weather", description="Weather by city", strict=True,
                        parameters={"type": "object", "properties": {"city": {"type": "string"}},
                                    "required": ["city"]})


def rules_named(module: ModuleType) -> set[str]:
    """The rules a dialect module names in its source (each ``rule="..."``); rules it builds
    from arguments are the caller's to add."""
    return set(re.findall(r'rule="([a-z_.]+)"', inspect.getsource(module)))


def assert_rejects_exactly(dialect: Any, request_body: Any, rule: str,
                           expected: dict[str, Any]) -> None:
    """``dialect`` refuses ``request_body`` under ``rule`` with a 400 whose body is ``expected``
    to the letter, its message the error's."""
    rejection = dialect.validate(request_body)
    assert rejection is not None, f"{rule} not enforced"
    assert (rejection.rule, rejection.status) == (rule, 400)
    assert dict(rejection.body) == expected
    assert rejection.message == expected["error"]["message"]


def assert_round_trips(dialect: Any, adapter: Any, request: ChatRequest) -> list[tuple[Any, Any]]:
    """The body ``adapter`` builds for ``request`` (not streamed, then streamed) passes
    ``dialect``'s validation and decodes back to ``request``, ``raw_arguments`` aside (what the
    wire carried). Returns each (body, decoded request), for the caller's own checks."""
    sent = []
    for stream in (False, True):
        wire = adapter.build_body(request, stream=stream)
        assert dialect.validate(wire) is None
        decoded = dialect.decode_request(json.loads(json.dumps(wire)))
        normalised = decoded.model_copy(update={"messages": tuple(
            m.model_copy(update={"tool_calls": tuple(c.model_copy(update={"raw_arguments": None})
                                                     for c in m.tool_calls)})
            if isinstance(m, AssistantMessage) else m for m in decoded.messages)})
        assert normalised == request.model_copy(update={"stream": stream})
        sent.append((wire, decoded))
    return sent

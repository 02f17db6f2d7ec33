"""The public surface of ``pytest_toolcall`` is pinned: adding or removing a name is a decision."""

from __future__ import annotations

import importlib

import pytest

import pytest_toolcall

PUBLIC = [
    "AssistantMessage",
    "AsyncChatAdapter",
    "AsyncStructuredOutput",
    "AsyncToolLoop",
    "Case",
    "CaseDefinitionError",
    "CaseRun",
    "ChatAdapter",
    "ChatRequest",
    "ChatResponse",
    "ConformanceFailure",
    "Endpoint",
    "ErrorReply",
    "FakeProvider",
    "FallbackRequest",
    "FallbackResult",
    "HistoryBuilder",
    "IncompleteStreamError",
    "KitError",
    "LoopEvent",
    "LoopRequest",
    "LoopResult",
    "NamedToolChoice",
    "Profile",
    "ProviderError",
    # issue 13: reasoning that travels with tool calls (added deliberately, 2026-11-23)
    "Reasoning",
    "ReasoningComplete",
    "ScriptedCall",
    "Step",
    "StreamDone",
    "StreamError",
    "StreamPlan",
    "StructuredOutput",
    "SystemMessage",
    "TextDelta",
    "ToolCall",
    "ToolCallComplete",
    "ToolCallDelta",
    "ToolError",
    "ToolLoop",
    "ToolMessage",
    "ToolSpec",
    "ToolcallError",
    "Turn",
    "Usage",
    "UsageError",
    "UserMessage",
    "__version__",
    "assemble_stream",
    "check",
    "make_case",
    "register",
    "run_case",
    "serve",
]


def test_all_is_pinned() -> None:
    assert pytest_toolcall.__all__ == PUBLIC


def test_all_is_sorted_and_unique() -> None:
    assert pytest_toolcall.__all__ == sorted(set(pytest_toolcall.__all__))


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_is_importable(name: str) -> None:
    module = importlib.import_module("pytest_toolcall")
    assert getattr(module, name) is not None
    namespace: dict[str, object] = {}
    # the import statement itself is what is tested
    exec(f"from pytest_toolcall import {name}", namespace)  # noqa: S102
    assert namespace[name] is getattr(module, name)


def test_star_import_gives_exactly_all() -> None:
    namespace: dict[str, object] = {}
    exec("from pytest_toolcall import *", namespace)  # noqa: S102
    assert sorted(k for k in namespace if k != "__builtins__") == sorted(PUBLIC)


def test_version_matches_distribution() -> None:
    from importlib.metadata import version

    assert pytest_toolcall.__version__ == version("pytest-toolcall")


def test_error_families_do_not_mix() -> None:
    from pytest_toolcall import errors

    assert issubclass(errors.ConformanceFailure, AssertionError)
    assert not issubclass(errors.ConformanceFailure, errors.ToolcallError)
    for kit_error in (errors.UsageError, errors.CaseDefinitionError, errors.KitError):
        assert issubclass(kit_error, errors.ToolcallError)
        assert not issubclass(kit_error, AssertionError)
    assert issubclass(errors.IncompleteStreamError, errors.StreamError)
    assert issubclass(errors.StreamError, errors.ProviderError)
    assert not issubclass(errors.ProviderError, errors.ToolcallError)


def test_the_repos_demo_command_collects_only_the_suite() -> None:
    # tests/conftest.py keeps the kit's own tests out of `pytest --toolcall-provider=openai`
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         "--toolcall-provider=openai"],
        cwd=root, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    ids = [line for line in result.stdout.splitlines() if "::" in line]
    assert ids and all(line.startswith("toolcall::") for line in ids), ids[:5]
    assert "toolcall::wire.single_call[openai]" in ids


#: the loop policies a profile declares (issue 15), with the defaults that keep the policy the
#: loop cases encoded before them: changing a name or a default is a decision
LOOP_POLICY_DEFAULTS = {
    "iteration_counts": "successful_rounds",
    "max_failure_rounds": 3,
    "tool_failure_budget": None,
    "crash_policy": "feed_back",
    "duplicate_call_ids": "dedupe",
    "closing_call": False,
    "model_retries": 0,
    "final_answer_tool": None,
    "feedback_role": "tool",
    "tool_timeout": 0.5,
    "event_errors": True,
    "cancellation": False,
    "handoff_tools": (),
}


def test_loop_policy_fields_and_defaults_are_pinned() -> None:
    profile = pytest_toolcall.Profile()
    assert {name: getattr(profile, name) for name in LOOP_POLICY_DEFAULTS} == \
        LOOP_POLICY_DEFAULTS
    from pytest_toolcall.contracts import CAPABILITIES

    assert {"loop.successful_rounds", "loop.tool_timeout", "loop.cancellation",
            "loop.handoff"} <= set(CAPABILITIES)


def test_loop_request_fields_are_pinned() -> None:
    import dataclasses

    from pytest_toolcall.loop import LoopRequest

    assert [f.name for f in dataclasses.fields(LoopRequest)] == [
        "messages", "tools", "model", "executor", "metadata", "endpoint", "cancel"]


def test_system_message_has_the_developer_role() -> None:
    """Issue 12 widened SystemMessage.role to system | developer (no new message type), so code
    that checks isinstance(m, SystemMessage) keeps working; other roles are still refused."""
    from pydantic import TypeAdapter, ValidationError

    from pytest_toolcall.model import Message

    assert pytest_toolcall.SystemMessage(content="x").role == "system"
    message = TypeAdapter(Message).validate_python({"role": "developer", "content": "x"})
    assert isinstance(message, pytest_toolcall.SystemMessage) and message.role == "developer"
    with pytest.raises(ValidationError):
        pytest_toolcall.SystemMessage(role="user", content="x")  # type: ignore[arg-type]

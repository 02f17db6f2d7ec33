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


#: the module paths users write that moved when the package took one folder per layer (issue 34,
#: 2026-11-27), each as the README and docs named it before the move. Adding or dropping one is a
#: decision (core/_layout.py serves them); the new paths follow from three rules:
#: a flat module went into its layer's folder under its own name (layer -> the modules) ...
MOVED_INTO_LAYERS = {
    "cases": "bugs strategies tools",
    "cli": "catalogue mutation",
    "core": "contracts errors fallback loop model",
    "output": "cassettes report",
    "run": "checks foreign live looprun runner",
}
#: ... each provider's dialect and reference module went into its folder (the providers there
#: were at the move; one added since has no old path) ...
MOVED_PROVIDERS = ("anthropic", "azure_openai", "cerebras", "deepseek", "fireworks", "gemini",
                   "groq", "llamacpp", "lmstudio", "mistral", "ollama", "openai", "openai_responses",
                   "openrouter", "together", "vllm", "xai", "zhipu")
#: ... and these were renamed (old -> new, under pytest_toolcall)
MOVED_RENAMED = {"dialects": "providers.base", "dialects.provider_errors": "providers.errors",
                 "fake": "providers.fake"}


def _moved_paths() -> dict[str, str]:
    """Every old path and its new one, by the rules above."""
    moved = dict(MOVED_RENAMED)
    for layer, names in MOVED_INTO_LAYERS.items():
        moved |= {name: f"{layer}.{name}" for name in names.split()}
    for folder in MOVED_PROVIDERS:
        moved |= {f"dialects.{folder}": f"providers.{folder}.dialect",
                  f"reference.{folder}": f"providers.{folder}.reference"}
    return {f"pytest_toolcall.{old}": f"pytest_toolcall.{new}" for old, new in moved.items()}


MOVED_PATHS = _moved_paths()


def test_moved_paths_are_pinned() -> None:
    from pytest_toolcall.core._layout import MOVED

    assert MOVED == MOVED_PATHS


@pytest.mark.parametrize("old", sorted(set(MOVED_PATHS) - {"pytest_toolcall.dialects"}))
def test_an_old_module_path_is_the_module_at_its_new_path(old: str) -> None:
    module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED_PATHS[old])
    assert module.__name__ == module.__spec__.name == MOVED_PATHS[old], "its own spec kept"


def test_the_old_dialects_package_reads_every_name_from_its_module() -> None:
    """``pytest_toolcall.dialects`` was a package whose ``__init__`` is now the module
    ``providers.base``; its submodules' old paths still import, so it is a stand-in package
    that reads each name from the module (the same objects)."""
    import pytest_toolcall.dialects as old
    import pytest_toolcall.providers.base as base

    assert old.get_dialect is base.get_dialect and old.Rejection is base.Rejection
    assert old.DIALECT_NAMES == base.DIALECT_NAMES
    assert importlib.import_module("pytest_toolcall.dialects.groq") is \
        importlib.import_module("pytest_toolcall.providers.groq.dialect")
    with pytest.raises(AttributeError):
        old.no_such_name  # noqa: B018 - the attribute access is the test


def test_old_paths_of_submodules_and_names_still_import() -> None:
    """What the README and docs wrote before the move: a dialect module, a name from a module."""
    from pytest_toolcall.dialects.openai import OpenAIChat  # noqa: F401 - the import is the test
    from pytest_toolcall.errors import retry_after_seconds
    from pytest_toolcall.fake import cut_at  # noqa: F401
    from pytest_toolcall.strategies import stored_histories  # noqa: F401

    import pytest_toolcall.core.errors as errors

    assert retry_after_seconds is errors.retry_after_seconds
    assert importlib.import_module("pytest_toolcall.dialects.openai").OpenAIChat is OpenAIChat


def test_an_old_module_path_runs_with_python_m() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "pytest_toolcall.catalogue", "--help"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "--write" in done.stdout, done.stderr


def test_a_path_that_never_existed_still_fails() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("pytest_toolcall.runnner")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("pytest_toolcall.dialects.no_such_dialect")


def test_version_matches_distribution() -> None:
    from importlib.metadata import version

    assert pytest_toolcall.__version__ == version("pytest-toolcall")


def test_error_families_do_not_mix() -> None:
    from pytest_toolcall.core import errors

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
    "closing_call_after": frozenset({"max_iterations", "failure_rounds", "permanent_failure"}),
    "tool_retries": 0,
    "undeclared_arguments": "refuse",
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
    from pytest_toolcall.core.contracts import CAPABILITIES

    assert {"loop.successful_rounds", "loop.tool_timeout", "loop.cancellation",
            "loop.handoff"} <= set(CAPABILITIES)


def test_loop_request_fields_are_pinned() -> None:
    import dataclasses

    from pytest_toolcall.core.loop import LoopRequest

    assert [f.name for f in dataclasses.fields(LoopRequest)] == [
        "messages", "tools", "model", "executor", "metadata", "endpoint", "cancel"]


def test_system_message_has_the_developer_role() -> None:
    """Issue 12 widened SystemMessage.role to system | developer (no new message type), so code
    that checks isinstance(m, SystemMessage) keeps working; other roles are still refused."""
    from pydantic import TypeAdapter, ValidationError

    from pytest_toolcall.core.model import Message

    assert pytest_toolcall.SystemMessage(content="x").role == "system"
    message = TypeAdapter(Message).validate_python({"role": "developer", "content": "x"})
    assert isinstance(message, pytest_toolcall.SystemMessage) and message.role == "developer"
    with pytest.raises(ValidationError):
        pytest_toolcall.SystemMessage(role="user", content="x")  # type: ignore[arg-type]

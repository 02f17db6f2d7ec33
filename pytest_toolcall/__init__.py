"""pytest-toolcall: a pytest plugin and conformance kit for LLM tool calling.

The public surface is re-exported here and pinned by ``tests/test_public_api.py``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names, for type checkers and readers; at run time they load on first use
    # (`X as X`: an explicit re-export, which `mypy --strict` needs to accept `from pytest_toolcall
    # import X`)
    from pytest_toolcall.cases import (
        Case as Case,
        ErrorReply as ErrorReply,
        ScriptedCall as ScriptedCall,
        Step as Step,
        StreamPlan as StreamPlan,
        Turn as Turn,
        check as check,
        make_case as make_case,
        register as register,
    )
    from pytest_toolcall.core.contracts import (
        AsyncChatAdapter as AsyncChatAdapter,
        ChatAdapter as ChatAdapter,
        Profile as Profile,
    )
    from pytest_toolcall.core.errors import (
        CaseDefinitionError as CaseDefinitionError,
        ConformanceFailure as ConformanceFailure,
        IncompleteStreamError as IncompleteStreamError,
        KitError as KitError,
        ProviderError as ProviderError,
        StreamError as StreamError,
        ToolcallError as ToolcallError,
        UsageError as UsageError,
    )
    from pytest_toolcall.providers.fake import (
        Endpoint as Endpoint,
        FakeProvider as FakeProvider,
        serve as serve,
    )
    from pytest_toolcall.core.fallback import (
        AsyncStructuredOutput as AsyncStructuredOutput,
        FallbackRequest as FallbackRequest,
        FallbackResult as FallbackResult,
        StructuredOutput as StructuredOutput,
    )
    from pytest_toolcall.core.loop import (
        AsyncToolLoop as AsyncToolLoop,
        HistoryBuilder as HistoryBuilder,
        LoopEvent as LoopEvent,
        LoopRequest as LoopRequest,
        LoopResult as LoopResult,
        ToolError as ToolError,
        ToolLoop as ToolLoop,
    )
    from pytest_toolcall.core.model import (
        AssistantMessage as AssistantMessage,
        ChatRequest as ChatRequest,
        ChatResponse as ChatResponse,
        NamedToolChoice as NamedToolChoice,
        Reasoning as Reasoning,
        ReasoningComplete as ReasoningComplete,
        StreamDone as StreamDone,
        SystemMessage as SystemMessage,
        TextDelta as TextDelta,
        ToolCall as ToolCall,
        ToolCallComplete as ToolCallComplete,
        ToolCallDelta as ToolCallDelta,
        ToolMessage as ToolMessage,
        ToolSpec as ToolSpec,
        Usage as Usage,
        UserMessage as UserMessage,
        assemble_stream as assemble_stream,
    )
    from pytest_toolcall.run.runner import (
        CaseRun as CaseRun,
        run_case as run_case,
    )

from pytest_toolcall.core._layout import install as _install_cases

_install_cases()  # the built-in suite imports as pytest_toolcall.conformance (stdlib only, cheap)

__version__ = "0.4.0"

#: public name -> the module that defines it. Imported on first use (PEP 562), so that loading
#: the pytest plugin, which imports this package, costs nothing until the kit is used (issue 9).
_LAZY: dict[str, str] = {
    "AssistantMessage": ".core.model",
    "AsyncChatAdapter": ".core.contracts",
    "AsyncStructuredOutput": ".core.fallback",
    "AsyncToolLoop": ".core.loop",
    "Case": ".cases",
    "CaseDefinitionError": ".core.errors",
    "CaseRun": ".run.runner",
    "ChatAdapter": ".core.contracts",
    "ChatRequest": ".core.model",
    "ChatResponse": ".core.model",
    "ConformanceFailure": ".core.errors",
    "Endpoint": ".providers.fake",
    "ErrorReply": ".cases",
    "FakeProvider": ".providers.fake",
    "FallbackRequest": ".core.fallback",
    "FallbackResult": ".core.fallback",
    "HistoryBuilder": ".core.loop",
    "IncompleteStreamError": ".core.errors",
    "KitError": ".core.errors",
    "LoopEvent": ".core.loop",
    "LoopRequest": ".core.loop",
    "LoopResult": ".core.loop",
    "NamedToolChoice": ".core.model",
    "Profile": ".core.contracts",
    "ProviderError": ".core.errors",
    "Reasoning": ".core.model",
    "ReasoningComplete": ".core.model",
    "ScriptedCall": ".cases",
    "Step": ".cases",
    "StreamDone": ".core.model",
    "StreamError": ".core.errors",
    "StreamPlan": ".cases",
    "StructuredOutput": ".core.fallback",
    "SystemMessage": ".core.model",
    "TextDelta": ".core.model",
    "ToolCall": ".core.model",
    "ToolCallComplete": ".core.model",
    "ToolCallDelta": ".core.model",
    "ToolError": ".core.loop",
    "ToolLoop": ".core.loop",
    "ToolMessage": ".core.model",
    "ToolSpec": ".core.model",
    "ToolcallError": ".core.errors",
    "Turn": ".cases",
    "Usage": ".core.model",
    "UsageError": ".core.errors",
    "UserMessage": ".core.model",
    "assemble_stream": ".core.model",
    "check": ".cases",
    "make_case": ".cases",
    "register": ".cases",
    "run_case": ".run.runner",
    "serve": ".providers.fake",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_toolcall' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


#: the public names (pinned by tests/test_public_api.py)
__all__ = sorted([*_LAZY, "__version__"])

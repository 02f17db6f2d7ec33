"""pytest-toolcall: a pytest plugin and conformance kit for LLM tool calling.

The public surface is re-exported here and pinned by ``tests/test_public_api.py``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names, for type checkers and readers; at run time they load on first use
    from .cases import (
        Case,
        ErrorReply,
        ScriptedCall,
        Step,
        StreamPlan,
        Turn,
        check,
        make_case,
        register,
    )
    from .contracts import AsyncChatAdapter, ChatAdapter, Profile
    from .errors import (
        CaseDefinitionError,
        ConformanceFailure,
        IncompleteStreamError,
        KitError,
        ProviderError,
        StreamError,
        ToolcallError,
        UsageError,
    )
    from .fake import Endpoint, FakeProvider, serve
    from .fallback import AsyncStructuredOutput, FallbackRequest, FallbackResult, StructuredOutput
    from .loop import (
        AsyncToolLoop,
        HistoryBuilder,
        LoopEvent,
        LoopRequest,
        LoopResult,
        ToolError,
        ToolLoop,
    )
    from .model import (
        AssistantMessage,
        ChatRequest,
        ChatResponse,
        NamedToolChoice,
        Reasoning,
        ReasoningComplete,
        StreamDone,
        SystemMessage,
        TextDelta,
        ToolCall,
        ToolCallComplete,
        ToolCallDelta,
        ToolMessage,
        ToolSpec,
        Usage,
        UserMessage,
        assemble_stream,
    )
    from .runner import CaseRun, run_case

from ._layout import install as _install_cases

_install_cases()  # the built-in suite imports as pytest_toolcall.conformance (stdlib only, cheap)

__version__ = "0.1.0"

#: public name -> the module that defines it. Imported on first use (PEP 562), so that loading
#: the pytest plugin, which imports this package, costs nothing until the kit is used (issue 9).
_LAZY: dict[str, str] = {
    "AssistantMessage": ".model",
    "AsyncChatAdapter": ".contracts",
    "AsyncStructuredOutput": ".fallback",
    "AsyncToolLoop": ".loop",
    "Case": ".cases",
    "CaseDefinitionError": ".errors",
    "CaseRun": ".runner",
    "ChatAdapter": ".contracts",
    "ChatRequest": ".model",
    "ChatResponse": ".model",
    "ConformanceFailure": ".errors",
    "Endpoint": ".fake",
    "ErrorReply": ".cases",
    "FakeProvider": ".fake",
    "FallbackRequest": ".fallback",
    "FallbackResult": ".fallback",
    "HistoryBuilder": ".loop",
    "IncompleteStreamError": ".errors",
    "KitError": ".errors",
    "LoopEvent": ".loop",
    "LoopRequest": ".loop",
    "LoopResult": ".loop",
    "NamedToolChoice": ".model",
    "Profile": ".contracts",
    "ProviderError": ".errors",
    "Reasoning": ".model",
    "ReasoningComplete": ".model",
    "ScriptedCall": ".cases",
    "Step": ".cases",
    "StreamDone": ".model",
    "StreamError": ".errors",
    "StreamPlan": ".cases",
    "StructuredOutput": ".fallback",
    "SystemMessage": ".model",
    "TextDelta": ".model",
    "ToolCall": ".model",
    "ToolCallComplete": ".model",
    "ToolCallDelta": ".model",
    "ToolError": ".loop",
    "ToolLoop": ".loop",
    "ToolMessage": ".model",
    "ToolSpec": ".model",
    "ToolcallError": ".errors",
    "Turn": ".cases",
    "Usage": ".model",
    "UsageError": ".errors",
    "UserMessage": ".model",
    "assemble_stream": ".model",
    "check": ".cases",
    "make_case": ".cases",
    "register": ".cases",
    "run_case": ".runner",
    "serve": ".fake",
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

__all__ = [
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

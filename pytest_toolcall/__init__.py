"""pytest-toolcall: a pytest plugin and conformance kit for LLM tool calling.

The public surface is re-exported here and pinned by ``tests/test_public_api.py``.
"""

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

__version__ = "0.1.0"

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

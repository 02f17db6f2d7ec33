"""The reference DeepSeek adapter: the OpenAI Chat Completions adapter plus ``reasoning_content``.

In thinking mode (the default on DeepSeek's V4 models) the answer carries the chain of thought in
``message.reasoning_content`` (``delta.reasoning_content`` in a stream), next to ``content``. It
is not the answer's text: it goes to ``ChatResponse.reasoning`` as one ``Reasoning(type=
"thinking", text=...)``, and an assistant message that carries it sends it back as
``reasoning_content``, unchanged, even when it is the empty string: DeepSeek answers 400 "The
`reasoning_content` in the thinking mode must be passed back to the API." when a tool-call turn
comes back without it (api-docs.deepseek.com/guides/thinking_mode, confirmed 2026-11-25).
``ChatRequest.reasoning`` True / False sends ``thinking: {"type": "enabled" / "disabled"}``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pytest_toolcall.core.model import ChatRequest
from pytest_toolcall.reference._compat import ReasoningChatAdapter, ReasoningStreamAccumulator

__all__ = ["ADAPTER", "DeepSeekAdapter", "DeepSeekStreamAccumulator"]

#: DeepSeek's current model ids (deepseek-chat / deepseek-reasoner were aliases of
#: deepseek-v4-flash without / with thinking, scheduled to end 2026-07-24)
DEFAULT_MODEL = "deepseek-v4-flash"


class DeepSeekAdapter(ReasoningChatAdapter):
    """Canonical requests to ``POST {base_url}/chat/completions`` on DeepSeek and back; the
    reasoning is ``reasoning_content``, sent back (:class:`ReasoningChatAdapter`'s defaults)."""

    DEFAULT_MODEL = DEFAULT_MODEL
    #: the role a developer message goes out with: DeepSeek's roles are system, user, assistant
    #: and tool (facts "roles"); a service built on this adapter names its own
    DEVELOPER_ROLE: ClassVar[str] = "system"

    # -- canonical -> wire --------------------------------------------------------------------
    def encode_message(self, message: Any) -> dict[str, Any]:
        out = super().encode_message(message)
        if out.get("role") == "developer":
            out["role"] = self.DEVELOPER_ROLE
        return out

    def build_body(self, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
        body = super().build_body(request, stream=stream)
        if request.reasoning is not None:
            body["thinking"] = {"type": "enabled" if request.reasoning else "disabled"}
        return body


#: DeepSeek's stream reader is the shared one (``delta.reasoning_content`` pieces joined, handed
#: over before the calls); one class, so ``super(DeepSeekStreamAccumulator, ...)`` skips it
DeepSeekStreamAccumulator = ReasoningStreamAccumulator


#: the reference adapter of this provider (``reference.reference_adapter``)
ADAPTER = DeepSeekAdapter

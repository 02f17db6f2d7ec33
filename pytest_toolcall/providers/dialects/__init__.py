"""Wire formats the fake provider speaks, one module per dialect.

A dialect knows one provider's HTTP API: which routes it serves, how to decode a request into the
canonical model, which requests the real provider rejects (with its exact error body), and how to
encode a scripted turn as the provider's JSON or stream.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from pytest_toolcall.cases import ErrorReply, Turn
from pytest_toolcall.core.errors import UsageError
from pytest_toolcall.core.model import ChatRequest

__all__ = ["DIALECT_NAMES", "Dialect", "Rejection", "get_dialect", "register_class"]


@dataclass(frozen=True)
class Rejection:
    """A request the real provider would refuse: status, the exact error body, and the rule."""

    status: int
    body: Mapping[str, Any]
    rule: str

    @property
    def message(self) -> str:
        error = self.body.get("error", {})
        if isinstance(error, Mapping):
            return str(error.get("message", ""))
        return str(error)


class Dialect(Protocol):
    name: str
    title: str
    base_path: str
    stream_content_type: str

    def route(self, method: str, path: str) -> bool:
        """Whether this dialect serves ``method path`` (path without query)."""

    def check_auth(self, headers: Mapping[str, str], query: Mapping[str, str], key: str) -> Rejection | None: ...

    def wants_stream(self, body: Mapping[str, Any], path: str) -> bool: ...

    def validate(self, body: Any) -> Rejection | None:
        """The provider's own rejection of this request body, or ``None`` when it is accepted."""

    def decode_request(self, body: Mapping[str, Any]) -> ChatRequest: ...

    def encode_response(self, turn: Turn, body: Mapping[str, Any]) -> dict[str, Any]: ...

    def encode_stream(self, turn: Turn, body: Mapping[str, Any]) -> list[bytes]:
        """The stream as a list of events, each the exact bytes of one event."""

    def encode_error(self, error: ErrorReply) -> tuple[int, dict[str, Any]]: ...

    def call_ids(self, turn: Turn) -> list[str]:
        """The ids the fake gives the turn's calls (scripted ids, or generated ones)."""

    def not_found(self, method: str, path: str) -> Rejection: ...


#: dialect name -> (module in this package, class); a dialect whose module is not there yet is
#: simply not offered
_REGISTRY: dict[str, tuple[str, str]] = {
    "openai": ("openai", "OpenAIChat"),
    "openai-responses": ("openai_responses", "OpenAIResponses"),
    "anthropic": ("anthropic", "AnthropicMessages"),
    "gemini": ("gemini", "Gemini"),
    "ollama": ("ollama", "OllamaChat"),
    # Gemini on Vertex AI: the gemini wire on Vertex's routes, with bearer auth (issue 13)
    "vertex": ("gemini", "Vertex"),
    # DeepSeek: the openai wire with its own rules, errors and reasoning_content (issue 13)
    "deepseek": ("deepseek", "DeepSeek"),
    # Mistral: the openai wire with 9-character call ids, content chunks, its errors (issue 13)
    "mistral": ("mistral", "Mistral"),
    # OpenRouter: the openai wire with its errors, stream shape and reasoning_details (issue 13)
    "openrouter": ("openrouter", "OpenRouter"),
    # Zhipu / Z.ai GLM: the openai wire with its routes, business-code errors, auto-only
    # tool_choice, whole calls on the finish chunk and reasoning_content (issue 13)
    "zhipu": ("zhipu", "Zhipu"),
    # Azure OpenAI: the openai wire on the deployment route (api-version) and the v1 route,
    # api-key or Entra bearer auth, content-filter chunks and errors (issue 13)
    "azure-openai": ("azure_openai", "AzureOpenAI"),
    # Cerebras Inference: the openai wire with top-level errors, a closed request schema,
    # reasoning and time_info (issue 13)
    "cerebras": ("cerebras", "Cerebras"),
    # Groq: the openai wire with x_groq usage, whole calls per chunk, reasoning and its
    # tool_use_failed 400 (issue 13)
    "groq": ("groq", "Groq"),
    # Together AI: the openai wire with its errors (a request id beside them), its stream
    # shape (a last chunk saying "stop" after "tool_calls") and the reasoning field (issue 13)
    "together": ("together", "Together"),
    # LM Studio: the openai wire with its 200 route errors, string and object error bodies,
    # the stream error event, numeric call ids and reasoning fields (issue 13)
    "lmstudio": ("lmstudio", "LMStudio"),
    # llama.cpp llama-server: the openai wire on /v1 and bare routes, optional key, its
    # {code, message, type} errors, role chunk alone, 32-character call ids and
    # reasoning_content (issue 13)
    "llamacpp": ("llamacpp", "LlamaCpp"),
    # vLLM's OpenAI-compatible server (vllm serve): the openai wire with its optional
    # --api-key, nested errors with integer codes, its request rules, stream shape and
    # reasoning field (issue 13)
    "vllm": ("vllm", "VLLM"),
    # xAI: the openai wire with flat {code, error} bodies (a wrong key is a 400), whole calls
    # per stream chunk, grok-3-mini's reasoning_content and its usage (issue 13)
    "xai": ("xai", "XAI"),
    # Fireworks AI: the openai wire with its error shapes, reasoning_content and Kimi's
    # id-before-name tool-call streams (issue 13)
    "fireworks": ("fireworks", "Fireworks"),
}


def _available() -> tuple[str, ...]:
    from importlib.util import find_spec

    return tuple(name for name, (module, _) in _REGISTRY.items()
                 if find_spec(f"{__name__}.{module}") is not None)


DIALECT_NAMES: tuple[str, ...] = _available()


#: dialects of providers that plugins added (pytest_toolcall.providers.plugins): name -> class
_PLUGIN_CLASSES: dict[str, type] = {}


def register_class(name: str, cls: type) -> None:
    """Offer ``name`` as a provider played by ``cls`` (a plugin's provider)."""
    global DIALECT_NAMES
    _PLUGIN_CLASSES[name] = cls
    if name not in DIALECT_NAMES:
        DIALECT_NAMES = (*DIALECT_NAMES, name)


def unregister_class(name: str) -> None:
    global DIALECT_NAMES
    _PLUGIN_CLASSES.pop(name, None)
    DIALECT_NAMES = tuple(n for n in DIALECT_NAMES if n != name or n in _REGISTRY)


#: built-in dialect name -> its class, once imported (the checks ask for a dialect per step)
_CLASSES: dict[str, type] = {}


def get_dialect(name: str) -> Dialect:
    """The dialect called ``name``; a usage error lists the valid names otherwise."""
    if name in _PLUGIN_CLASSES:
        return _PLUGIN_CLASSES[name]()  # type: ignore[no-any-return]
    if name in DIALECT_NAMES:
        found = _CLASSES.get(name)
        if found is None:
            from importlib import import_module

            module, cls = _REGISTRY[name]
            found = _CLASSES[name] = getattr(import_module(f"{__name__}.{module}"), cls)
        return found()  # type: ignore[no-any-return]
    raise UsageError(
        f"unknown provider {name!r}: valid providers are {', '.join(DIALECT_NAMES)}"
        + (" (or 'all')" if len(DIALECT_NAMES) > 1 else "")
    )

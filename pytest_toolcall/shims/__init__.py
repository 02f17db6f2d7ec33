"""Ready-made chat adapters for real client libraries (issues 10 and 14).

Each shim takes a factory that builds the library's client from the kit's endpoint and returns
a :class:`~pytest_toolcall.shims._base.Shim`; call that with the endpoint to get the adapter::

    @pytest.fixture
    def toolcall_adapter(toolcall_endpoint):
        return shims.openai(lambda ep: openai.OpenAI(base_url=ep.base_url, api_key=ep.api_key,
                                                     http_client=ep.client, max_retries=0)
                            )(toolcall_endpoint)

or, without code, ``--toolcall-adapter=shims.openai:my_app.models:make_client``.
Each library is imported when its shim is built (an optional extra); a shim maps shapes and
never repairs what its library got wrong. See docs/shims.md.

Agent frameworks' own loops, with their own model clients, are shimmed the same way for the
loop cases (``--toolcall-loop-model=fake``); each ships the profile of the framework's
documented policy::

    @pytest.fixture
    def toolcall_profile():
        return shims.loop_profile("pydantic_ai_agent")

    @pytest.fixture
    def toolcall_loop(toolcall_profile):
        return shims.pydantic_ai_agent(profile=toolcall_profile)

See docs/frameworks.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_toolcall.shims._base import SHIM_WIRES

__all__ = ["LOOPS", "SHIMS", "anthropic", "google_genai", "langchain", "langchain_agent",
           "langgraph_react", "litellm", "loop_profile", "ollama", "openai", "openai_agents",
           "openai_responses", "pydantic_ai", "pydantic_ai_agent", "smolagents"]


def openai(factory: Callable[[Any], Any]) -> Any:
    """Chat Completions through the official openai SDK (``create``; the stream helper)."""
    from pytest_toolcall.shims._openai import OpenAIShim

    return OpenAIShim(factory)


def openai_responses(factory: Callable[[Any], Any]) -> Any:
    """The Responses API through the official openai SDK (``create``; the stream helper)."""
    from pytest_toolcall.shims._openai import OpenAIResponsesShim

    return OpenAIResponsesShim(factory)


def anthropic(factory: Callable[[Any], Any]) -> Any:
    """Messages through the official anthropic SDK (``create``; the stream helper)."""
    from pytest_toolcall.shims._anthropic import AnthropicShim

    return AnthropicShim(factory)


def google_genai(factory: Callable[[Any], Any]) -> Any:
    """generateContent through the official google-genai SDK."""
    from pytest_toolcall.shims._google_genai import GoogleGenaiShim

    return GoogleGenaiShim(factory)


def ollama(factory: Callable[[Any], Any]) -> Any:
    """Ollama's chat API through the official ollama library."""
    from pytest_toolcall.shims._ollama import OllamaShim

    return OllamaShim(factory)


def langchain(factory: Callable[[Any], Any]) -> Any:
    """Any LangChain chat model (``BaseChatModel``: ``ChatOpenAI``, ``ChatAnthropic``, ...),
    through ``invoke`` and ``stream``; it speaks the dialect of the model the factory builds."""
    from pytest_toolcall.shims._langchain import LangChainShim

    return LangChainShim(factory)


def litellm(factory: Callable[[Any], Any]) -> Any:
    """``litellm.completion`` on its ``openai/``, ``anthropic/`` and ``gemini/`` routes; the
    factory returns the keyword arguments that pick the route and wire it to the endpoint."""
    from pytest_toolcall.shims._litellm import LiteLLMShim

    return LiteLLMShim(factory)


def pydantic_ai(factory: Callable[[Any], Any]) -> Any:
    """A pydantic-ai model (``OpenAIChatModel``, ``OpenAIResponsesModel``, ``AnthropicModel``,
    ``GoogleModel``) used directly, through ``request`` and ``request_stream``."""
    from pytest_toolcall.shims._pydantic_ai_models import PydanticAIModelShim

    return PydanticAIModelShim(factory)


#: shim name -> (shim, the dialect it speaks; None: the dialect of the client the factory
#: builds, which the shim checks against the endpoint's: ``_base.SHIM_WIRES``)
SHIMS: dict[str, tuple[Callable[[Callable[[Any], Any]], Any], str | None]] = {
    name: (shim, SHIM_WIRES[name]) for name, shim in (
        ("openai", openai), ("openai_responses", openai_responses), ("anthropic", anthropic),
        ("google_genai", google_genai), ("ollama", ollama), ("langchain", langchain),
        ("litellm", litellm), ("pydantic_ai", pydantic_ai))}


# -- agent frameworks' own loops ---------------------------------------------------------------
def pydantic_ai_agent(model: Callable[[Any], Any] | None = None, profile: Any = None) -> Any:
    """pydantic-ai's ``Agent`` loop; ``model(endpoint)`` builds its model (default:
    ``OpenAIChatModel`` on the endpoint)."""
    from pytest_toolcall.shims._pydantic_ai_agent import PROFILE, PydanticAIAgentLoop

    return PydanticAIAgentLoop(model, profile or PROFILE)


def openai_agents(model: Callable[[Any], Any] | None = None, profile: Any = None) -> Any:
    """openai-agents' ``Runner`` loop; ``model(endpoint)`` builds its model (default:
    ``OpenAIChatCompletionsModel`` over ``openai.AsyncOpenAI`` on the endpoint)."""
    from pytest_toolcall.shims._openai_agents import PROFILE, OpenAIAgentsLoop

    return OpenAIAgentsLoop(model, profile or PROFILE)


def langchain_agent(model: Callable[[Any], Any] | None = None, profile: Any = None) -> Any:
    """LangChain's ``create_agent`` loop; ``model(endpoint)`` builds its chat model (default:
    ``ChatOpenAI`` on the endpoint)."""
    from pytest_toolcall.shims._langgraph import LANGCHAIN_AGENT_PROFILE, LangChainAgentLoop

    return LangChainAgentLoop(model, profile or LANGCHAIN_AGENT_PROFILE)


def langgraph_react(model: Callable[[Any], Any] | None = None, profile: Any = None) -> Any:
    """LangGraph's prebuilt ``create_react_agent`` loop; ``model(endpoint)`` builds its chat
    model (default: ``ChatOpenAI`` on the endpoint)."""
    from pytest_toolcall.shims._langgraph import LANGGRAPH_REACT_PROFILE, LangGraphReactLoop

    return LangGraphReactLoop(model, profile or LANGGRAPH_REACT_PROFILE)


def smolagents(model: Callable[[Any], Any] | None = None, profile: Any = None) -> Any:
    """smolagents' ``ToolCallingAgent`` loop; ``model(endpoint)`` builds its model (default:
    ``OpenAIServerModel`` on the endpoint)."""
    from pytest_toolcall.shims._smolagents import PROFILE, SmolagentsLoop

    return SmolagentsLoop(model, profile or PROFILE)


#: loop shim name -> (shim, module, the name of its profile in that module)
LOOPS: dict[str, tuple[Callable[..., Any], str, str]] = {
    "pydantic_ai_agent": (pydantic_ai_agent, "_pydantic_ai_agent", "PROFILE"),
    "openai_agents": (openai_agents, "_openai_agents", "PROFILE"),
    "langchain_agent": (langchain_agent, "_langgraph", "LANGCHAIN_AGENT_PROFILE"),
    "langgraph_react": (langgraph_react, "_langgraph", "LANGGRAPH_REACT_PROFILE"),
    "smolagents": (smolagents, "_smolagents", "PROFILE"),
}


def loop_profile(name: str) -> Any:
    """The profile of a framework's documented loop policy (``LOOPS``), with its sources in
    the shim's module; copy it with changes to match your configuration."""
    import importlib

    from pytest_toolcall.core.errors import UsageError

    if name not in LOOPS:
        raise UsageError(f"no loop shim named {name!r}; known: {', '.join(sorted(LOOPS))}")
    _shim, module, attribute = LOOPS[name]
    return getattr(importlib.import_module(f"{__name__}.{module}"), attribute)

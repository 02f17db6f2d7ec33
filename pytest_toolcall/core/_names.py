"""The names the options offer, in a module that imports nothing, so that the pytest entry point
(``plugin.py``) can show them in ``--help`` without loading the kit (issue 9)."""

from __future__ import annotations

#: --toolcall-provider names, in the order 'all' runs them: one folder each under providers/
#: (tests/test_plugin_lazy.py checks that the folders and this list agree)
PROVIDERS = ("openai", "openai-responses", "anthropic", "gemini", "ollama", "vertex",
             "deepseek", "mistral", "openrouter", "zhipu", "azure-openai", "cerebras", "groq",
             "together", "lmstudio", "llamacpp", "vllm", "xai", "fireworks")
#: providers added by plugins (the ``pytest_toolcall_providers`` hook) at configure time
PLUGIN_PROVIDERS: list[str] = []


def known_providers() -> tuple[str, ...]:
    """Every provider name: the built-in ones and those plugins added."""
    return (*PROVIDERS, *PLUGIN_PROVIDERS)


#: --toolcall-transport choices
TRANSPORTS = ("inprocess", "loopback")
#: --toolcall-loop-model choices
LOOP_MODELS = ("inprocess", "fake")
#: --toolcall-record-mode choices, vcrpy's names. ``none``: replay only, the network blocked.
RECORD_MODES = ("none", "once", "new_episodes", "all")
#: --toolcall-missing-cassette choices
MISSING_POLICIES = ("fail", "skip")
#: --toolcall-replay-chunking choices: ``recorded`` is vcrpy's one piece; the others are the
#: fake provider's chunking policies applied to the recorded stream
REPLAY_CHUNKINGS = ("recorded", "realistic", "bytewise", "seeded")

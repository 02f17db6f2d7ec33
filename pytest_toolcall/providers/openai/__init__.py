"""OpenAI Chat Completions (the openai wire): its facts (facts.py), the rules and shapes the fake
plays (dialect.py) and its reference adapter (reference.py).

Its negative controls are in tests/providers/controls_openai.py.
Nothing is imported here: the registry reads facts.py alone (docs/writing-a-provider.md)."""

"""OpenAI Responses (the openai-responses wire): its facts (facts.py), the rules and shapes the
fake plays (dialect.py), its reference adapter (reference.py) and its own cases (cases.py).

Its negative controls are in tests/providers/controls_openai_responses.py.
Nothing is imported here: the registry reads facts.py alone (docs/writing-a-provider.md)."""

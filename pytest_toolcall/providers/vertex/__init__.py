"""Gemini on Vertex AI (the gemini wire on Vertex's routes): its facts (facts.py), the rules and
shapes the fake plays (dialect.py) and its reference adapter (reference.py).

Its negative controls are in tests/providers/controls_vertex.py.
Nothing is imported here: the registry reads facts.py alone (docs/writing-a-provider.md)."""

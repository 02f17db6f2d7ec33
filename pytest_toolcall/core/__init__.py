"""The canonical model and the contracts: the bottom layer, which every other layer may import.

``model`` (messages, tool calls, requests, answers, stream events), ``contracts`` (the adapter
protocols and ``Profile``), ``loop`` and ``fallback`` (the orchestration and structured-output
contracts), ``errors`` (every exception of the kit), ``redact`` (the one redactor),
``netguard`` (replay's socket guard), ``hookspecs`` and the option names. Nothing here imports
another layer (docs/architecture.md, tests/test_import_layers.py).
"""

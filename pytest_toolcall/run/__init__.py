"""Running and checking: drive one case through one implementation and check what it did.

``runner.run_case`` is the entry; ``runbase`` holds what the runners share (the recordings the
checks read, the deadline); ``looprun`` and ``fallbackrun`` drive loop, history and structured
output cases; ``checks`` and ``trace`` are the chat checks and the failure ladders; ``scripted``
is the in-process model a loop talks to; ``foreign`` runs an implementation in another process;
``live`` runs against a real service. No pytest here (docs/architecture.md).
"""

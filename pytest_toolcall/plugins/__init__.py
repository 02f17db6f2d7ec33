"""The pytest layer: the kit's own pytest plugins, registered by the entry point
``pytest_toolcall.plugin`` only when a session asks for the kit.

``core`` (configuration and collection), ``fixtures``, ``summary`` (the terminal summary),
``suite`` (the collector and the case items), ``report``, ``cassettes`` and ``foreign``
(``--toolcall-command``). Only this layer and
the entry point import pytest.
"""

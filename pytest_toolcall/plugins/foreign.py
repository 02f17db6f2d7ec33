"""The pytest side of foreign implementations: ``--toolcall-command`` and ``toolcall_subprocess``.

With a command, this plugin is registered after the main one, so its fixtures replace the
defaults (a user's conftest.py still wins): the contracts the child's hello lists are tested in
the child, the others against the reference implementations; the profile is the child's; the
fake provider is served on 127.0.0.1 so the child can reach it. One child per session (per
xdist worker), started before any case runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_toolcall.core.errors import UsageError
from pytest_toolcall.run.foreign import (
    Child,
    ForeignAdapter,
    ForeignHistory,
    ForeignLoop,
    ForeignStructured,
    child_profile,
)

__all__ = ["ForeignSession", "ForeignPlugin"]

#: the profile fields (as a hello names them) that claim what an implementation of each
#: contract does. A child that implements a contract declares these itself; the reference
#: profile fills them in only for the contracts the reference implementations run, so a child
#: is never judged on a claim it did not make (the reference's handoff tool, its
#: compatible_with '*'). tests/test_foreign.py checks that every Profile field is here or in
#: _GENERAL.
_CLAIMS = {
    "chat": frozenset({"streaming", "sync", "async", "tool_choice", "parallel_tool_calls",
                       "usage", "anthropic_legacy_usage", "compatible_with"}),
    "loop": frozenset({"max_iterations", "iteration_counts", "max_failure_rounds",
                       "tool_failure_budget", "permanent_failure_stops", "crash_policy",
                       "unknown_tool_policy", "duplicate_call_ids", "closing_call",
                       "closing_call_after", "tool_retries", "undeclared_arguments",
                       "model_retries", "final_answer_tool", "feedback_role",
                       "argument_validation", "parallel_dispatch", "tool_timeout", "loop_events",
                       "event_errors", "cancellation", "handoff_tools", "max_retry_wait",
                       "model_timeout"}),
    "history": frozenset({"history_failed_calls"}),
}
#: fields about the run, not about one contract: the reference's fill in what the child omits
_GENERAL = frozenset({"name", "known_gaps", "timeout"})


def merged_profile(reference: dict[str, Any], child: dict[str, Any],
                   contracts: list[str]) -> dict[str, Any]:
    """The profile of a session with a child: the child's hello profile, and the reference
    profile's fields for what the child does not implement."""
    claimed = frozenset().union(*(_CLAIMS.get(c, frozenset()) for c in contracts))
    return {**{k: v for k, v in reference.items() if k not in claimed}, **child}


class ForeignSession:
    """A started child and the contract objects it implements."""

    def __init__(self, child: Child) -> None:
        self.child = child

    @property
    def contracts(self) -> list[str]:
        return list(self.child.hello.get("contracts") or [])

    @property
    def profile(self) -> dict[str, Any]:
        return child_profile(self.child)

    def _need(self, contract: str) -> None:
        if contract not in self.contracts:
            raise UsageError(f"the child {self.child.command!r} does not implement {contract!r} "
                             f"(its hello lists: {', '.join(self.contracts) or 'nothing'})")

    def adapter(self, endpoint: Any) -> ForeignAdapter:
        self._need("chat")
        if endpoint.base_url.startswith("http://toolcall.fake"):
            raise UsageError("a foreign adapter reaches the fake provider over HTTP: run with "
                             "--toolcall-transport=loopback (ini: toolcall_transport = loopback)")
        return ForeignAdapter(self.child, endpoint)

    def loop(self) -> ForeignLoop:
        self._need("loop")
        return ForeignLoop(self.child)

    def history(self) -> ForeignHistory:
        self._need("history")
        return ForeignHistory(self.child)

    def structured(self) -> ForeignStructured:
        self._need("fallback")
        return ForeignStructured(self.child)


class _Children:
    """Children of this session by command, closed at the end."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.sessions: dict[str, ForeignSession] = {}

    def get(self, command: str, provider: str = "openai") -> ForeignSession:
        key = f"{command}\0{provider}"
        if key not in self.sessions:
            log = (self.config.getoption("toolcall_child_log", None)
                   or str(self.config.getini("toolcall_child_log") or "").strip() or None)
            child = Child(command, provider=provider, cwd=str(self.config.rootpath),
                          hello_timeout=hello_timeout(self.config), log=log)
            self.sessions[key] = ForeignSession(child)  # closed at session end, started or not
            try:
                child.start()
            except BaseException:
                del self.sessions[key]
                raise
        return self.sessions[key]

    def close(self) -> None:
        """Stop every child of this session with its process group, and reap them (the
        children a fault stopped earlier too)."""
        for session in self.sessions.values():
            session.child.close()
        self.sessions.clear()


def hello_timeout(config: pytest.Config) -> float:
    """The ini setting ``toolcall_hello_timeout`` (seconds; default ``HELLO_TIMEOUT``)."""
    from pytest_toolcall.run.foreign import HELLO_TIMEOUT

    raw = str(config.getini("toolcall_hello_timeout") or "").strip()
    if not raw:
        return HELLO_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise UsageError(f"toolcall_hello_timeout = {raw!r} is not a number of seconds above "
                         "0: write e.g. toolcall_hello_timeout = 30")
    return value


_CHILDREN = pytest.StashKey[_Children]()


def children(config: pytest.Config) -> _Children:
    if _CHILDREN not in config.stash:
        config.stash[_CHILDREN] = _Children(config)
    return config.stash[_CHILDREN]


def pytest_unconfigure(config: pytest.Config) -> None:
    if _CHILDREN in config.stash:
        config.stash[_CHILDREN].close()


@pytest.fixture(scope="session")
def toolcall_subprocess(request: pytest.FixtureRequest) -> Any:
    """``toolcall_subprocess("node my-harness.mjs")``: the child for that command (started once
    per session, restarted after a fault), with ``.adapter(endpoint)``, ``.loop()``,
    ``.history()``, ``.structured()`` and ``.profile``."""
    from pytest_toolcall.plugin import providers

    def start(command: str) -> ForeignSession:
        chosen = providers(request.config)
        return children(request.config).get(command, chosen[0] if chosen else "openai")

    return start


class ForeignPlugin:
    """Registered when --toolcall-command / toolcall_command is set."""

    def __init__(self, command: str) -> None:
        self.command = command

    def _session(self, config: pytest.Config, provider: str) -> ForeignSession:
        return children(config).get(self.command, provider)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        # start the child (one per provider of the run) before any case: a command that is
        # not found or fails its hello stops the session with a usage error
        from pytest_toolcall.plugins.suite import PROVIDER_KEY

        wanted = {item.stash[PROVIDER_KEY] for item in items if PROVIDER_KEY in item.stash}
        for provider in sorted(wanted):
            try:
                self._session(config, provider)
            except UsageError as exc:
                raise pytest.UsageError(str(exc)) from None

    @pytest.fixture
    def toolcall_endpoint(self, request: pytest.FixtureRequest,
                          toolcall_provider: str) -> Iterator[Any]:
        """The fake provider on 127.0.0.1: a child process reaches it over HTTP."""
        from pytest_toolcall.providers.fake import FakeProvider
        from pytest_toolcall.run.foreign import served

        with served(FakeProvider(toolcall_provider)) as endpoint:
            yield endpoint

    @pytest.fixture
    def toolcall_profile(self, request: pytest.FixtureRequest, toolcall_provider: str) -> Any:
        """The profile the child declared in its hello, and the reference profile's fields for
        the contracts the child does not implement (:func:`merged_profile`)."""
        from pytest_toolcall.reference import reference_profile

        session = self._session(request.config, toolcall_provider)
        return merged_profile(reference_profile(toolcall_provider).model_dump(
            by_alias=True, exclude_defaults=True), session.profile, session.contracts)

    @pytest.fixture
    def toolcall_adapter(self, request: pytest.FixtureRequest, toolcall_provider: str,
                         toolcall_endpoint: Any) -> Any:
        session = self._session(request.config, toolcall_provider)
        if "chat" not in session.contracts:
            from pytest_toolcall.reference import reference_adapter

            return reference_adapter(toolcall_endpoint)
        return session.adapter(toolcall_endpoint)

    @pytest.fixture
    def toolcall_loop(self, request: pytest.FixtureRequest, toolcall_provider: str,
                      toolcall_profile: Any) -> Any:
        session = self._session(request.config, toolcall_provider)
        if "loop" not in session.contracts:
            from pytest_toolcall.core.contracts import make_profile
            from pytest_toolcall.reference.loop import ReferenceToolLoop

            return ReferenceToolLoop.from_profile(make_profile(toolcall_profile))
        return session.loop()

    @pytest.fixture
    def toolcall_history(self, request: pytest.FixtureRequest, toolcall_provider: str,
                         toolcall_profile: Any) -> Any:
        session = self._session(request.config, toolcall_provider)
        if "history" not in session.contracts:
            from pytest_toolcall.core.contracts import make_profile
            from pytest_toolcall.reference.history import ReferenceHistoryBuilder

            return ReferenceHistoryBuilder(
                failed_calls=make_profile(toolcall_profile).history_failed_calls)
        return session.history()

    @pytest.fixture
    def toolcall_structured(self, request: pytest.FixtureRequest,
                            toolcall_provider: str) -> Any:
        session = self._session(request.config, toolcall_provider)
        if "fallback" not in session.contracts:
            from pytest_toolcall.reference.fallback import ReferenceStructuredOutput

            return ReferenceStructuredOutput()
        return session.structured()

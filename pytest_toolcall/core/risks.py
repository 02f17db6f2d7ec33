"""Declared risks: what a profile declares that lowers safety in production (issue 28).

A profile narrows what the suite checks: ``tool_timeout=None`` skips ``loop.tool_timeout``,
``unknown_tool_policy="abort"`` makes ``loop.unknown_tool`` expect the run to end. Some of these
declarations are choices with no cost to the user (``tool_choice`` a provider does not offer);
others leave the application open to what the skipped case would have caught: a hung tool hangs
the run. Those are *declared risks*. They are never a silent skip: a case skipped because of one
says so in its skip reason, and the terminal summary, the reports and docs/compat.md list each
subject's declared risks with what they risk in production and the cases they turn off.

``declared_risks(profile)`` computes them from a profile; ``RISKS`` is the table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["RISKS", "DeclaredRisk", "declared_risks", "risk_for_capability", "risk_named",
           "turned_off"]


@dataclass(frozen=True)
class DeclaredRisk:
    """One declaration that lowers safety.

    ``id``: a stable name (the reports use it); ``declaration``: the profile setting, as a user
    writes it; ``risk``: what it risks in production; ``capability``: the capability it leaves
    unclaimed, whose cases skip (None: no case skips); ``judged``: cases that still run but
    expect what the declaration says instead of what a safe implementation does;
    ``contracts``: the contracts it concerns (``chat``, ``loop``)."""

    id: str
    declaration: str
    risk: str
    capability: str | None
    judged: tuple[str, ...]
    contracts: tuple[str, ...]
    applies: Callable[[Any, Any], bool]

    def line(self) -> str:
        """``declaration: risk`` in one line."""
        return f"{self.declaration}: {self.risk}"


#: every declared risk, in the order the reports list them
RISKS: tuple[DeclaredRisk, ...] = (
    DeclaredRisk(
        "no_tool_timeout", "tool_timeout=None",
        "a tool that hangs (a stuck HTTP call, a lock never released) hangs the run and the "
        "user's request with it; nothing frees the worker",
        "loop.tool_timeout", (), ("loop",), lambda profile, adapter: profile.tool_timeout is None),
    DeclaredRisk(
        "no_argument_validation", "argument_validation='none'",
        "a tool runs with whatever arguments the model sent, missing or mistyped ones included: "
        "it may act on a wrong value (another record, an empty query) or crash, instead of the "
        "model being asked to fix them",
        "loop.argument_validation", (), ("loop",),
        lambda profile, adapter: profile.argument_validation == "none"),
    DeclaredRisk(
        "no_loop_events", "loop_events=False",
        "the application sees nothing of the run until it ends: no progress for the user, no "
        "record of which tools ran or failed for the logs or an audit",
        "loop.events", (), ("loop",), lambda profile, adapter: not profile.loop_events),
    DeclaredRisk(
        "events_without_errors", "event_errors=False",
        "the loop's events do not mark a failed tool call: the application shows and logs a "
        "failure as a result",
        None, ("loop.events",), ("loop",),
        lambda profile, adapter: profile.loop_events and not profile.event_errors),
    DeclaredRisk(
        "undeclared_arguments_dropped", "undeclared_arguments='drop'",
        "a key the model sent that the tool does not declare is dropped without a word and "
        "the call reads as a success: the model believes an option it asked for was applied",
        None, ("loop.argument_types",), ("loop",),
        lambda profile, adapter: profile.undeclared_arguments == "drop"),
    DeclaredRisk(
        "unknown_tool_aborts", "unknown_tool_policy='abort'",
        "one call to a tool name the model made up ends the whole run with an error, instead "
        "of the model being told so it can correct itself",
        None, ("loop.unknown_tool",), ("loop",),
        lambda profile, adapter: profile.unknown_tool_policy == "abort"),
    DeclaredRisk(
        "crash_aborts", "crash_policy='abort'",
        "a bug in one tool (an exception it does not catch) ends the whole run, and the "
        "exception may reach the application instead of a sanitised failure",
        None, ("loop.sanitised_failures",), ("loop",),
        lambda profile, adapter: profile.crash_policy == "abort"),
    DeclaredRisk(
        "permanent_failure_goes_on", "permanent_failure_stops=False",
        "after a failure no retry can cure (permission denied, a deleted record) the loop "
        "keeps calling the model, which may call the same tool again: tokens and tool calls "
        "spent on a run that cannot succeed",
        "loop.permanent_stop", (), ("loop",),
        lambda profile, adapter: not profile.permanent_failure_stops),
    DeclaredRisk(
        "no_failure_cap", "max_failure_rounds=None, tool_failure_budget=None",
        "when every call fails (a tool's backend down) the loop goes on to its iteration cap: "
        "every model call up to the cap is spent on a run that cannot succeed",
        "loop.failure_rounds_2", ("loop.all_failure_rounds",), ("loop",),
        lambda profile, adapter: profile.max_failure_rounds is None
        and profile.tool_failure_budget is None),
    DeclaredRisk(
        "no_streaming", "streaming=False (or no stream()/astream())",
        "the streamed path is not checked: tool calls in pieces, cut streams and errors inside "
        "a stream, which an application that streams meets, go untested",
        "stream", (), ("chat",),
        lambda profile, adapter: profile.streaming is False or (
            profile.streaming is None and adapter is not None
            and not profile.claims("stream", adapter))),
    DeclaredRisk(
        "no_usage", "usage=False",
        "token usage is not reported: the application cannot track or cap what a run costs",
        "usage", (), ("chat", "loop"), lambda profile, adapter: not profile.usage),
)

_BY_ID = {risk.id: risk for risk in RISKS}


def declared_risks(profile: Any, adapter: Any = None,
                   contract: str | None = None) -> tuple[DeclaredRisk, ...]:
    """The declared risks of ``profile`` (a :class:`~pytest_toolcall.core.contracts.Profile`),
    for ``contract`` (``chat``, ``loop``; None: every contract). ``adapter``: the chat adapter,
    whose stream methods say whether it streams when the profile leaves ``streaming`` unset."""
    return tuple(risk for risk in RISKS
                 if (contract is None or contract in risk.contracts)
                 and risk.applies(profile, adapter))


def risk_for_capability(profile: Any, capability: str,
                        adapter: Any = None) -> DeclaredRisk | None:
    """The declared risk that leaves ``capability`` unclaimed in ``profile``, if one does."""
    for risk in RISKS:
        if risk.capability == capability and risk.applies(profile, adapter):
            return risk
    return None


def risk_named(risk_id: str) -> DeclaredRisk:
    """The declared risk ``risk_id`` (a KeyError names the known ones)."""
    try:
        return _BY_ID[risk_id]
    except KeyError:
        raise KeyError(f"no declared risk {risk_id!r}; known: {', '.join(_BY_ID)}") from None


def turned_off(risk: DeclaredRisk, cases: Iterable[Any]) -> tuple[str, ...]:
    """The ids of ``cases`` (objects with ``id`` and ``required_capabilities()``) the risk
    turns off: those that need its capability."""
    if risk.capability is None:
        return ()
    return tuple(sorted(case.id for case in cases
                        if risk.capability in case.required_capabilities()))

"""The ``loop`` family: orchestration under failure. Generalised from the adversarial gate of a
chat tool loop (seed 002, AC1-AC10) and a tool loop with an iteration cap, parallel dispatch and
errors fed back as text (seed 004).

The scripts adapt to the profile (``max_failure_rounds``, ``max_iterations``), so the same case
checks a loop whatever caps it declares. Three modules, bottom first: ``policy`` (what a loop
with a given profile must do: ``expected_stop``, ``by_policy``, and the tools and turns the
scripts are made of), ``checks`` (the clauses over a recorded run) and ``cases`` (the scripts
and ``CASES``).
"""

from __future__ import annotations

from pytest_toolcall.conformance._common import WEATHER
from pytest_toolcall.conformance.loop.cases import CASES
from pytest_toolcall.conformance.loop.policy import by_policy, expected_stop

__all__ = ["CASES", "WEATHER", "by_policy", "expected_stop"]

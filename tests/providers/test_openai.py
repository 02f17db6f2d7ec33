"""The ``openai`` controls: the generic cases' controls, and the async-only bugs.

A case that a realistic bug can pass is a case that proves nothing; a case that fails it on the
wrong clause sends the user to the wrong place. Every case has a negative control: a broken
adapter it must fail, on the right clause. The cases every provider runs have theirs here, on the
openai wire (``controls_openai.py``: ``GENERIC_CONTROLS``), next to openai's own and shared ones;
``test_controls.py`` runs every row, and the reference adapter on every case (positive control).
The loop and history cases have their controls in tests/test_loop_negative_controls.py.
"""

from __future__ import annotations

import controls_openai as c  # tests/providers/ is on sys.path
from provider_kit import chat_cases, kind_controls

from pytest_toolcall.cases import default_registry


def _cases(*tables: list[tuple[str, type, str]]) -> set[str]:
    return {case_id for table in tables for case_id, _, _ in table}


def test_every_case_that_applies_to_openai_has_a_control() -> None:
    tables = (c.CONTROLS, c.SHARED_CONTROLS, c.GENERIC_CONTROLS, kind_controls(c))
    missing = sorted(set(chat_cases("openai")) - _cases(*tables))
    assert not missing, f"cases without a negative control: {missing}"
    assert _cases(*tables, c.ASYNC_CONTROLS) <= set(chat_cases("openai"))
    generic = {case.id for case in default_registry()
               if case.contract == "chat" and case.dialects == ("*",)}
    assert _cases(c.GENERIC_CONTROLS) == generic


def test_async_controls_break_only_the_async_path() -> None:
    for name in c.__all__:
        broken = getattr(c, name)
        own = {m for m in ("complete", "acomplete", "stream", "astream", "lines", "alines")
               if m in vars(broken)}
        if name.startswith("Async"):
            assert own <= {"acomplete", "astream", "alines"} and own, name
        else:
            assert not own & {"acomplete", "astream", "alines"}, name
    assert {broken.__name__ for _, broken, _ in c.ASYNC_CONTROLS} == {
        name for name in c.__all__ if name.startswith("Async")}

"""The gemini dialect: which shared cases run for it.

Its negative controls (``controls_gemini.py``) and the reference adapter on every case that
applies to Gemini (shared ones included), also when it is wired to ``/v1``, run in
``test_controls.py``.
"""

from __future__ import annotations

from provider_kit import chat_cases


def test_shared_text_argument_cases_do_not_apply() -> None:
    """Gemini arguments are objects: the cases about argument text are not run for it."""
    gemini_cases = chat_cases("gemini")
    assert "wire.malformed_arguments" not in gemini_cases
    assert "stream.index_missing" not in gemini_cases
    assert "wire.single_call" in gemini_cases

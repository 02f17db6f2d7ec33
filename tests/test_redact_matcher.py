"""The redactor's compiled matcher is kept from mask to mask while the environment stays the
same (issue 9: masking runs on every report of every suite item), and follows it when it
changes. pytest rewrites PYTEST_CURRENT_TEST before every phase: that alone rebuilds nothing."""

from __future__ import annotations

import pytest

from pytest_toolcall.core import redact


def test_the_masking_follows_the_environment_but_not_pytests_current_test(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled matcher is kept while the environment stays the same; pytest rewrites
    PYTEST_CURRENT_TEST before every phase, and that alone rebuilds nothing. A secret set,
    changed or removed anywhere else is seen by the next mask."""
    value, other = "late-secret-0a1b2c3d4e", "later-secret-9f8e7d6c5b"
    monkeypatch.delenv("LATE_API_KEY", raising=False)
    assert redact.mask(f"x {value}") == f"x {value}"
    # counted, not compared by identity: re.compile's own cache gives back the very same
    # pattern object for the same text, rebuilt or not (issue 35)
    built = redact._cache["builds"]
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "tests/test_x.py::test_y (call)")
    redact._matcher(None)
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    redact._matcher(None)
    assert redact._cache["builds"] == built
    monkeypatch.setenv("LATE_API_KEY", value)
    assert redact.mask(f"x {value}") == "x [redacted $LATE_API_KEY]"
    assert redact._cache["builds"] == built + 1
    monkeypatch.setenv("LATE_API_KEY", other)
    assert redact.mask(f"x {value} {other}") == f"x {value} [redacted $LATE_API_KEY]"
    monkeypatch.delenv("LATE_API_KEY")
    assert redact.mask(f"x {other}") == f"x {other}"

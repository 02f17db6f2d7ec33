"""What the tests of the kit's page generators share (``docs/cases.md``, ``docs/bugs.md``):
their ``--write`` and ``--check`` options."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


def assert_write_and_check(main: Callable[[list[str]], int], here: Path, page: str,
                           committed: Path) -> None:
    """``main`` run in ``here`` (the working directory, with no ``docs/``): ``--write``
    refuses (2, naming the fix); with ``docs/<page>`` stale, ``--check`` fails (1), ``--write``
    writes the ``committed`` page and ``--check`` then passes."""
    assert main(["--write"]) == 2  # no docs/ here: refuses, names the fix
    (here / "docs").mkdir()
    (here / "docs" / page).write_text("stale\n", encoding="utf-8")
    assert main(["--check"]) == 1
    assert main(["--write"]) == 0
    assert (here / "docs" / page).read_bytes() == committed.read_bytes()
    assert main(["--check"]) == 0

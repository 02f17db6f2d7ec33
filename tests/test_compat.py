"""docs/compat.md and constraints.txt stay in step with the pins (issue 10): the page is what
the pin tests assert at the versions the dev install uses."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

import pytest

from tests import compat


def test_committed_compat_md_equals_a_fresh_render() -> None:
    committed = compat.COMPAT_MD.read_text(encoding="utf-8")
    assert committed == compat.render(), (
        f"docs/compat.md is out of date with the pins. Regenerate it with: {compat.COMMAND}")


@pytest.mark.parametrize("dist", sorted(compat.pinned_versions()))
def test_the_installed_version_is_the_pinned_one(dist: str) -> None:
    """The pins were confirmed at the constrained version; another one must be a deliberate
    bump (the README's install command applies constraints.txt)."""
    try:
        installed = version(dist)
    except PackageNotFoundError:
        pytest.skip(f"{dist} is not installed (the dev extra installs it)")
    assert installed == compat.pinned_versions()[dist], (
        f"{dist} {installed} is installed, the pins were confirmed with "
        f"{compat.pinned_versions()[dist]}: install with -c constraints.txt, or bump it there "
        f"and re-check the pins ({compat.COMMAND})")


def test_every_row_names_a_constrained_distribution() -> None:
    versions = compat.pinned_versions()
    assert all(dist in versions for _row, dist, _d, _p in compat._chat())
    assert all(dist in versions for _row, dist, _g, _s in compat._loops())

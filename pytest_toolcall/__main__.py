"""``python -m pytest_toolcall mutate ...``: the same as the ``pytest-toolcall`` command."""

from pytest_toolcall.cli import main

if __name__ == "__main__":
    raise SystemExit(main())

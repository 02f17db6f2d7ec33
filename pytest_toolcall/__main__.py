"""``python -m pytest_toolcall mutate ...``: the same as the ``pytest-toolcall`` command."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())

"""``python -m pytest_toolcall.cli``: the command line, as ``pytest-toolcall``."""

from pytest_toolcall.cli import main

raise SystemExit(main())

"""The kit's public types accept what its docs write: ``mypy --strict`` passes the README's
adapter as written (issue 32: ``ChatResponse(tool_calls=[...])`` with a list, the names imported
from ``pytest_toolcall``), and rejects a wrong type where the docs' types are precise."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy", reason="mypy (the dev extra) checks the README adapter's types")

ROOT = Path(__file__).resolve().parent.parent


def readme_adapter() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"^```python\n(.*?)^```", readme, re.M | re.S)
                if b.startswith("# conftest.py\n")]
    return block


#: mypy's cache where pytest's cache is off (-p no:cacheprovider): in the checkout, ignored by
#: git (.gitignore, and mypy's own .gitignore inside it), kept from one session to the next
MYPY_CACHE = ROOT / ".mypy_cache" / "pytest-toolcall-tests"


def mypy_strict(source: str, folder: Path, config: pytest.Config) -> subprocess.CompletedProcess:
    # the module is named after its text: mypy's cache is keyed by module name and trusts an
    # entry whose file has the recorded size and mtime (whole seconds), so the control below
    # (the same size, one word changed), written in the same second as the adapter under the
    # same name, was read from the adapter's entry and passed (a serial run, 2026-11-28)
    name = f"adapter_{hashlib.sha256(source.encode()).hexdigest()[:16]}.py"
    (folder / name).write_text(source, encoding="utf-8")
    # mypy reads about 1,200 modules (the kit, pytest, pydantic, httpx, hypothesis and what they
    # import): 9 to 10 s of CPU with a cold cache, 0.5 s warm (mypy 2.4, 2026-11-28, this
    # project's 2-core machine). The cache lives under pytest's, or in MYPY_CACHE without it,
    # and is kept across sessions, so only a fresh checkout's first run is cold. mypy's own
    # incremental checks decide what to re-read: a changed source file, mypy version or option
    # invalidates what depends on it, as in any project that runs mypy
    cache = getattr(config, "cache", None)
    cache = cache.mkdir("mypy") if cache is not None else MYPY_CACHE
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the kit of this checkout
    return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
                           "--cache-dir", str(cache), name], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)


def test_mypy_strict_accepts_the_readme_adapter(tmp_path: Path,
                                                pytestconfig: pytest.Config) -> None:
    done = mypy_strict(readme_adapter(), tmp_path, pytestconfig)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_still_rejects_a_wrong_type(tmp_path: Path,
                                                pytestconfig: pytest.Config) -> None:
    # the control: the same file with a finish reason the model does not know
    source = readme_adapter().replace('FINISH: dict[str, FinishReason] = {"stop": "stop",',
                                      'FINISH: dict[str, FinishReason] = {"stop": "halt",')
    assert source != readme_adapter(), "the README adapter's FINISH table changed"
    done = mypy_strict(source, tmp_path, pytestconfig)
    assert done.returncode == 1 and "Literal['halt']" in done.stdout, done.stdout + done.stderr

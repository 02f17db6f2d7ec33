"""Run the chat families (wire, stream) through a shim over the real library, on the fake.

Shared by tests/test_shims.py (which pins each library's failures) and usable by hand::

    PYTHONPATH=$PWD python -m tests.shim_matrix openai
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import signal
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from pytest_toolcall.cases import default_registry
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.reference import provider_profile
from pytest_toolcall.run.runner import CaseSkipped

FAMILIES = ("wire.*", "stream.*", "errors.*")


def installed(module: str) -> bool:
    """Whether ``module`` can be imported (its package missing too is: not installed)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def libraries_imported_by(module: str, libraries: Iterable[str]) -> list[str]:
    """Which of ``libraries`` importing ``module`` loads, in a fresh interpreter, sorted."""
    code = (f"import sys, {module}; "
            f"print(sorted(m for m in {tuple(libraries)!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return ast.literal_eval(out.stdout.strip())


def _openai(ep: Any) -> Any:
    import openai

    return openai.OpenAI(base_url=ep.base_url, api_key=ep.api_key, http_client=ep.client,
                         max_retries=0)


def _anthropic(ep: Any) -> Any:
    import anthropic

    return anthropic.Anthropic(base_url=ep.base_url.removesuffix("/v1"), api_key=ep.api_key,
                               http_client=ep.httpx2_client(), max_retries=0)


def _google_genai(ep: Any) -> Any:
    from google import genai
    from google.genai import types

    return genai.Client(api_key=ep.api_key, http_options=types.HttpOptions(
        base_url=ep.base_url.rsplit("/", 1)[0], api_version="v1beta", httpx_client=ep.client))


def _ollama(ep: Any) -> Any:
    import ollama

    return ollama.Client(host=ep.base_url, transport=ep.transport)


#: library -> (shim name, dialect, the factory a user writes (the one in docs/shims.md))
LIBRARIES: dict[str, tuple[str, str, Callable[[Any], Any]]] = {
    "openai": ("openai", "openai", _openai),
    "openai-responses": ("openai_responses", "openai-responses", _openai),
    "anthropic": ("anthropic", "anthropic", _anthropic),
    "google-genai": ("google_genai", "gemini", _google_genai),
    "ollama": ("ollama", "ollama", _ollama),
}


def verdicts(library: str, factory: Callable[[Any], Any] | None = None
             ) -> tuple[dict[str, str], int, int]:
    """``({case id: broken clause}, passed, skipped)`` for ``library`` through its shim.

    A kit error (ToolcallError) is not caught: it is never a verdict on the library."""
    from pytest_toolcall import shims

    shim_name, dialect, default = LIBRARIES[library]
    return run_matrix(getattr(shims, shim_name)(factory or default), dialect)


class Verdicts(dict[str, str]):
    """``{case id: broken clause}``; ``frames``: ``{case id: the module whose code raised}`` for
    the failures that are an exception (``ConformanceFailure.frame``)."""

    def __init__(self) -> None:
        super().__init__()
        self.frames: dict[str, str] = {}


def run_matrix(shim: Callable[[Any], Any], dialect: str, profile: Any = None,
               only: Callable[[Any], bool] | None = None) -> tuple[Verdicts, int, int]:
    """The chat families of ``dialect`` through ``shim`` (endpoint -> adapter), each case on a
    fresh fake: ``({case id: broken clause}, passed, skipped)``; ``only`` narrows the cases.
    Kit errors propagate.

    Two passes. First what a user who declares no profile gets (``provider_profile``: OpenAI's
    behaviour only): a library is an adapter under test, not the reference, so the quirk cases
    skip (OpenAI never sends them). Then the quirk cases alone, for a profile that targets every
    OpenAI-compatible service (``compatible_with={"*"}``; and Anthropic's older usage shape, for
    one that claims ``anthropic_legacy_usage``): a quirk case a library fails is failed there,
    under the services that send the quirk, never under OpenAI.

    A failure raised inside the kit's own shim is no verdict on the library: it fails here
    (a shim maps shapes and never adds a failure of its own)."""
    base = profile or provider_profile(dialect)
    failed = Verdicts()
    passed = skipped = 0
    cases = [c for c in default_registry().select(FAMILIES, dialect=dialect)
             if only is None or only(c)]
    passes = [(cases, base)]
    if profile is None:
        passes.append(([c for c in cases if _opt_in(c)], base.model_copy(update={
            "compatible_with": frozenset({"*"}), "anthropic_legacy_usage": True})))
    for selected, claimed in passes:
        for case in selected:
            endpoint = in_process_endpoint(FakeProvider(dialect))
            try:
                run_one = shim(endpoint)
                from pytest_toolcall.run.runner import run_case

                with _stall_ends_the_call(case):
                    run_case(case, run_one, _deadline(case, claimed), endpoint)
                passed += 1
            except CaseSkipped:
                # a quirk case skipped for OpenAI's behaviour runs in the second pass
                if claimed is not base or not (profile is None and _opt_in(case)):
                    skipped += 1
            except ConformanceFailure as failure:
                assert profile is not None or claimed is not base or not _opt_in(case), (
                    f"{case.id} plays a shape the provider's own service no longer sends, yet "
                    "it ran for a profile that declares nothing")
                assert not (failure.frame or "").startswith("pytest_toolcall."), (
                    f"{case.id}: the kit's own code raised ({failure.frame}), not the "
                    f"library: a shim must pass its library's result or exception through\n"
                    f"{failure.render()}")
                failed[case.id] = failure.clause
                if failure.frame:
                    failed.frames[case.id] = failure.frame
            finally:
                endpoint.close()
    return failed, passed, skipped


def _opt_in(case: Any) -> bool:
    """A case that runs only for a profile that claims it: a stream quirk OpenAI never sends
    (``compatible_with``), or Anthropic's older usage shape (``anthropic_legacy_usage``)."""
    return case.quirk is not None or "anthropic.legacy_usage" in case.required_capabilities()


#: the case deadline (profile.timeout) of a case whose stream stalls (errors.stream_stalled): a
#: library with no read timeout waits there until the deadline (the 10 s default, five libraries
#: of this matrix: 50 s a run), one with a read timeout is answered ReadTimeout at once by the
#: in-process fake. The verdict (adapter.timeout, or a pass) does not depend on the deadline
STALL_DEADLINE = 2.0


def _deadline(case: Any, profile: Any) -> Any:
    """``profile`` with :data:`STALL_DEADLINE` when one of the case's replies stalls and the
    profile's deadline is longer; ``profile`` itself otherwise."""
    if profile.timeout > STALL_DEADLINE and any(step.reply.stream.stall for step in case.steps):
        return profile.model_copy(update={"timeout": STALL_DEADLINE})
    return profile


@contextlib.contextmanager
def _stall_ends_the_call(case: Any) -> Iterator[None]:
    """While a case whose stream stalls runs: a client that reaches the stall with no read
    timeout would wait there forever (the in-process fake holds it for ``STALL_LIMIT``, 120 s),
    so the runner's deadline alarm, already armed for the call, is made to strike now, as it
    would at the deadline: the verdict (adapter.timeout) is the one the deadline gives, without
    waiting :data:`STALL_DEADLINE` for it (2 s a library without a read timeout, five of them in
    the shim tests). The same verdict as before for any library whose own overall timeout, if
    it has one, is longer than that deadline (none of these libraries has one shorter; a pin
    would change if one had). A client with a read timeout gets its ReadTimeout at once as
    before and never meets the alarm early, so a correct library races no deadline. Where the
    runner runs the call without the alarm (not the main thread, another SIGALRM handler)
    nothing changes: the call waits for the deadline."""
    if not any(step.reply.stream.stall for step in case.steps):
        yield
        return
    from pytest_toolcall.providers.fake import provider as fake_provider

    played = fake_provider._Played  # what every fake body (httpx, httpx2, sync, async) plays
    broken = played.__dict__["_broken"]

    def _broken(self: Any, piece: bytes) -> bool:
        stalled = broken(self, piece)
        if stalled and self.read_timeout is None:
            _alarm_now()
        return stalled

    played._broken = _broken  # type: ignore[method-assign]
    try:
        yield
    finally:
        played._broken = broken  # type: ignore[method-assign]


def _alarm_now() -> None:
    """The runner's armed deadline alarm (run/runbase.py ``_with_alarm``) strikes in 1 ms;
    nothing when no alarm is armed or no handler is installed (SIGALRM would end the process)."""
    delay, interval = signal.getitimer(signal.ITIMER_REAL)
    if delay > 0 and signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, signal.SIG_IGN,
                                                              None):
        signal.setitimer(signal.ITIMER_REAL, 0.001, interval)


def assert_pinned(name: str, failed: dict[str, str], passed: int,
                  pins: dict[str, tuple[str, str]], at_least: int) -> None:
    """The library ``name`` failed exactly its pinned cases, each with its pinned clause and a
    reason, and the shim really ran the families (``at_least`` passes)."""
    pinned = {case: clause for case, (clause, _why) in pins.items()}
    assert failed == pinned, (
        f"{name}: the failures changed. New: "
        f"{ {c: k for c, k in failed.items() if pinned.get(c) != k} }; no longer failing: "
        f"{sorted(set(pinned) - set(failed))}. Classify each (library defect with its issue, "
        f"or a kit defect to fix) and update PINNED")
    assert passed >= at_least  # the shim really ran the families
    for case, (_clause, why) in pins.items():
        assert len(why) > 20, f"{name} {case}: say why it fails"
    for case, module in getattr(failed, "frames", {}).items():
        # a pin of an exception names the code that raised it: the failing frame's module
        why = pins[case][1]
        assert module in why or module.replace(".", "/") + ".py" in why, (
            f"{name} {case}: the exception was raised in {module}; the pin must name it "
            "(the module, or its path)")


if __name__ == "__main__":  # pragma: no cover - a tool for maintainers
    for name in sys.argv[1:] or LIBRARIES:
        failures, n_pass, n_skip = verdicts(name)
        print(f"{name}: {n_pass} passed, {len(failures)} failed, {n_skip} skipped")
        for case_id, clause in sorted(failures.items()):
            print(f"    {case_id!r}: {clause!r}")

"""Issue 18: a hostile-and-unlucky-user battery. Planted secrets in every place a credential
travels, grepped out of every artifact; in-place edits of the tool schema; hangs in every
contract; raw sockets in replay; bad input. Each test names the item of the issue it covers.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
from pathlib import Path

# Imported before any pytester run, for speed (see tests/test_plugin.py).
import hypothesis.strategies  # noqa: F401
import pytest

import pytest_toolcall.plugins.suite
import pytest_toolcall.reference.history
import pytest_toolcall.reference.loop
import pytest_toolcall.providers.openai.reference  # noqa: F401
from pytest_toolcall.core import redact
from pytest_toolcall.cases import default_registry
from pytest_toolcall.output.cassettes import Redactor, request_snapshot
from pytest_toolcall.providers.fake.provider import Exchange
from pytest_toolcall.cases.tools import SECRET as PLANTED

default_registry()

#: secrets planted in the environment under names that say (or do not say) what they are
ENV_SECRETS = {
    "SECRET_KEY_BASE": "rails-base-5f4dcc3b5aa765d61d8327deb882cf99",
    "DATABASE_URL": "postgres://app:db-pass-7c6a180b36896a0a@db.internal:5432/prod",
    "GH_PAT": "github_pat_11ABCDEFG0123456789",
    "DEMO_GATEWAY_TOKEN": "gw-tok-0a1b2c3d4e5f6a7b",
    "SMTP_PASSWORD": "smtp-pw-99887766",
    "VENDOR_SECRET": "vendor-secret-1234abcd",
    "REDIS_CACHE": "redis://:cache-pass-31415926@cache:6379/0",  # any URL with a password
}
ENV_VALUES = ("rails-base-5f4dcc3b5aa765d61d8327deb882cf99", "db-pass-7c6a180b36896a0a",
              "github_pat_11ABCDEFG0123456789", "gw-tok-0a1b2c3d4e5f6a7b", "smtp-pw-99887766",
              "vendor-secret-1234abcd", "cache-pass-31415926")
CONFIGURED_KEY = "sk-configured-a1b2c3d4e5f6a7b8c9"


@pytest.fixture
def planted_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in ENV_SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("DEMO_PROVIDER_API_KEY", CONFIGURED_KEY)


# == 1. one value-based redactor ==================================================================
def test_mask_finds_secrets_by_environment_name_and_by_url(planted_env: None) -> None:
    text = " | ".join(ENV_SECRETS.values()) + f" | {CONFIGURED_KEY}"
    masked = redact.mask(text)
    for value in (*ENV_VALUES, CONFIGURED_KEY):
        assert value not in masked, value
    assert "[redacted $SECRET_KEY_BASE]" in masked and "[redacted $GH_PAT]" in masked
    assert "[redacted $DEMO_PROVIDER_API_KEY]" in masked
    assert "[redacted: password in $REDIS_CACHE]" in masked  # a URL's password, whatever the name


def test_mask_leaves_ordinary_text_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    # negative control: short values, paths and names that are not secrets stay readable
    monkeypatch.setenv("SHORT_KEY", "abc")
    monkeypatch.setenv("PWD", "/work/somewhere-long")
    monkeypatch.setenv("HOME", "/home/someone-long")
    text = "abc in /work/somewhere-long and /home/someone-long via http://127.0.0.1:8080/v1"
    assert redact.mask(text) == text


def test_the_planted_secret_is_masked_and_says_so() -> None:
    masked = redact.mask(f"the tool said: could not connect with {PLANTED}")
    assert PLANTED not in masked
    assert "[redacted: planted secret]" in masked


def test_unknown_url_passwords_and_registered_values_are_masked() -> None:
    text = "retry against https://bob:hunter2-unknown@gw.example/v1 failed"
    assert redact.mask(text) == "retry against https://bob:[redacted: password]@gw.example/v1 failed"
    redact.register("Bearer tok-registered-0123456789", "gateway key")
    try:
        assert redact.mask("got tok-registered-0123456789") == "got [redacted: gateway key]"
    finally:
        redact.forget("Bearer tok-registered-0123456789")
        redact.forget("tok-registered-0123456789")


def _gateway_request(uri: str, body: dict[str, object]) -> object:
    from vcr.request import Request

    return Request("POST", uri, json.dumps(body).encode(), {
        "Authorization": f"Bearer {CONFIGURED_KEY}",
        "Helicone-Auth": "Bearer sk-helicone-0123456789abcdef",
        "X-Custom-Forward": CONFIGURED_KEY,  # any header whose value is the configured key
        "Content-Type": "application/json"})


def test_cassette_requests_lose_every_credential(planted_env: None) -> None:
    body = {"model": "m", "api_key": "body-key-0011223344556677",
            "metadata": {"user": "u1", "forwarded_key": CONFIGURED_KEY},
            "messages": [{"role": "user", "content": f"env says {ENV_SECRETS['GH_PAT']}"}]}
    request = _gateway_request(
        "https://user:basic-pass-55667788@gw.example/v1/chat/completions"
        "?access_token=qs-token-8899aabbccdd&alt=sse", body)
    clean = Redactor().vcr_request(request)
    written = json.dumps({"uri": clean.uri, "headers": dict(clean.headers),
                          "body": clean.body.decode()})
    for value in (CONFIGURED_KEY, "sk-helicone-0123456789abcdef", "body-key-0011223344556677",
                  "qs-token-8899aabbccdd", "basic-pass-55667788", ENV_SECRETS["GH_PAT"]):
        assert value not in written, value
    assert "alt=sse" in clean.uri and '"user": "u1"' in clean.body.decode()  # the rest is kept


def test_request_snapshots_lose_every_credential(planted_env: None) -> None:
    body = json.dumps({"model": "m", "api_key": "body-key-0011223344556677",
                       "metadata": {"k": CONFIGURED_KEY}}).encode()
    exchange = Exchange(index=0, step=0, method="POST",
                        path="/v1/chat/completions?access_token=qs-token-8899aabbccdd",
                        headers={"helicone-auth": "Bearer sk-helicone-0123456789abcdef",
                                 "x-forward": CONFIGURED_KEY}, body=body)
    text = request_snapshot([exchange])
    for value in (CONFIGURED_KEY, "sk-helicone-0123456789abcdef", "body-key-0011223344556677",
                  "qs-token-8899aabbccdd"):
        assert value not in text, value


LEAKY_CONFTEST = '''
import os
import pytest
from pytest_toolcall.reference.loop import ReferenceToolLoop, _Outcome
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter


class LeaksCrashText(ReferenceToolLoop):
    @staticmethod
    def failed(call, exc):
        return _Outcome(call, f"Error: {exc}", ok=False, permanent=False)


class EchoesEnvironment(OpenAIChatAdapter):
    def complete(self, request):
        if request.tool_choice == "none":
            print("debug:", os.environ["GH_PAT"], os.environ["DATABASE_URL"])
            raise RuntimeError("upstream refused: " + " ".join(
                os.environ[n] for n in ("SECRET_KEY_BASE", "DATABASE_URL", "GH_PAT",
                                        "DEMO_PROVIDER_API_KEY", "REDIS_CACHE")))
        return super().complete(request)


@pytest.fixture
def toolcall_adapter(toolcall_endpoint):
    return EchoesEnvironment.from_endpoint(toolcall_endpoint)


@pytest.fixture
def toolcall_loop():
    return LeaksCrashText()
'''


def _artifacts(pytester: pytest.Pytester, stdout: str) -> dict[str, str]:
    files = {p.name: p.read_text("utf-8") for p in (pytester.path / "out").iterdir()}
    files["junit.xml"] = (pytester.path / "junit.xml").read_text("utf-8")
    files["terminal"] = stdout
    return files


def test_no_secret_reaches_any_artifact(pytester: pytest.Pytester, planted_env: None) -> None:
    pytester.makeconftest(LEAKY_CONFTEST)
    result = pytester.runpytest_inprocess(
        "--toolcall-provider=openai", "--toolcall-report=out", "--junitxml=junit.xml",
        "-o", "junit_logging=all", "-rA",
        "--toolcall-cases=loop.sanitised_failures,wire.tool_choice_none")
    result.assert_outcomes(failed=2)
    artifacts = _artifacts(pytester, result.stdout.str() + result.stderr.str())
    assert set(artifacts) >= {"toolcall-report.json", "toolcall-summary.md", "junit.xml"}
    for name, text in artifacts.items():
        for value in (PLANTED, CONFIGURED_KEY, *ENV_VALUES):
            assert value not in text, f"{value} in {name}"
    # the reader is told what was masked, and the verdicts are intact
    for name in ("toolcall-report.json", "toolcall-summary.md", "terminal", "junit.xml"):
        assert "[redacted: planted secret]" in artifacts[name], name
        assert "[redacted $GH_PAT]" in artifacts[name], name
    cases = {c["id"]: c for c in json.loads(artifacts["toolcall-report.json"])["cases"]}
    assert cases["loop.sanitised_failures"]["clause"] == "loop.sanitised"
    assert cases["wire.tool_choice_none"]["clause"] == "adapter.raised"


def test_base_url_password_is_never_printed(pytester: pytest.Pytester) -> None:
    # a live case without a cassette prints "record it with" and the base URL it would use
    password = "proxy-pass-2468ace0"
    pytester.makeini("[pytest]\n")
    result = pytester.runpytest_inprocess(
        "--toolcall-provider=ollama", "--toolcall-live", "--toolcall-cases=live.round_trip",
        f"--toolcall-base-url=ollama=http://me:{password}@127.0.0.1:9/v1",
        "--toolcall-cassette-dir=cas", "--junitxml=junit.xml", "--toolcall-report=out")
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert "Record it with" in out and "me:[redacted" in out
    for name, text in _artifacts(pytester, out).items():
        assert password not in text, name


# == 2. an in-place edit of the tool schema is caught =============================================
from pytest_toolcall.cases import Registry  # noqa: E402
from pytest_toolcall.core.errors import ConformanceFailure  # noqa: E402
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint  # noqa: E402
from pytest_toolcall.reference import reference_profile  # noqa: E402
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter  # noqa: E402
from pytest_toolcall.run.runner import run_case  # noqa: E402

CHAT = Registry()
CHAT.extend(case for case in default_registry() if case.contract == "chat")


class EditsSchemaAfterSending(OpenAIChatAdapter):
    """Sends the schema intact, then 'cleans' the caller's tool in place (a cache key step that
    pops keywords): the wire looks right, the application's tools are corrupted."""

    def complete(self, request):  # type: ignore[no-untyped-def]
        response = super().complete(request)
        for tool in request.tools:
            tool.parameters.pop("required", None)
        return response


class EditsSchemaBeforeSending(OpenAIChatAdapter):
    """Marks the caller's schema in place (a provider-specific keyword), then sends it."""

    def complete(self, request):  # type: ignore[no-untyped-def]
        for tool in request.tools:
            tool.parameters["x-translated"] = True
        return super().complete(request)


class CopiesThenRewrites(OpenAIChatAdapter):
    """Positive control: rewrites a deep copy of each tool (the right way) and sends it
    faithfully; the caller's request is untouched."""

    def complete(self, request):  # type: ignore[no-untyped-def]
        import copy

        tools = tuple(t.model_copy(update={"parameters": copy.deepcopy(t.parameters)})
                      for t in request.tools)
        return super().complete(request.model_copy(update={"tools": tools}))


def _run_chat(case_id: str, adapter_cls: type, dialect: str = "openai") -> None:
    ep = in_process_endpoint(FakeProvider(dialect))
    try:
        run_case(CHAT[case_id], adapter_cls.from_endpoint(ep), reference_profile(dialect), ep,
                 interfaces=["sync"])
    finally:
        ep.close()


@pytest.mark.parametrize("adapter_cls", [EditsSchemaAfterSending, EditsSchemaBeforeSending])
def test_an_in_place_schema_edit_fails_tool_definitions_intact(adapter_cls: type) -> None:
    case = CHAT["wire.tool_definitions_intact"]
    before = [t.model_dump() for t in case.steps[0].request.tools]
    with pytest.raises(ConformanceFailure) as exc:
        _run_chat("wire.tool_definitions_intact", adapter_cls)
    assert exc.value.clause == "wire.tools.intact"
    assert "in place" in exc.value.message
    # and the case's own data is still pristine for the next case (the runner's deep copy)
    assert [t.model_dump() for t in case.steps[0].request.tools] == before


def test_rewriting_a_copy_passes_tool_definitions_intact() -> None:
    _run_chat("wire.tool_definitions_intact", CopiesThenRewrites)
    _run_chat("wire.tool_definitions_intact", OpenAIChatAdapter)


class FillsDefaultsAfterSending(OpenAIChatAdapter):
    """Sends the history faithfully, then 'normalises' the caller's tool-call arguments in place
    (fills in a default unit): the wire looks right, the application's history is rewritten."""

    def complete(self, request):  # type: ignore[no-untyped-def]
        response = super().complete(request)
        for message in request.messages:
            for call in getattr(message, "tool_calls", ()):
                if isinstance(call.arguments, dict):
                    call.arguments.setdefault("unit", "celsius")
        return response


class DropsArgumentsBeforeSending(OpenAIChatAdapter):
    """Pops an argument it does not want to send from the caller's history, then sends it."""

    def complete(self, request):  # type: ignore[no-untyped-def]
        for message in request.messages:
            for call in getattr(message, "tool_calls", ()):
                if isinstance(call.arguments, dict):
                    call.arguments.pop("city", None)
        return super().complete(request)


@pytest.mark.parametrize("adapter_cls", [FillsDefaultsAfterSending, DropsArgumentsBeforeSending])
def test_an_in_place_edit_of_the_history_fails_history_passthrough(adapter_cls: type) -> None:
    case = CHAT["wire.second_turn_passthrough"]
    before = _dump(case.steps[1].request.messages)
    with pytest.raises(ConformanceFailure) as exc:
        _run_chat("wire.second_turn_passthrough", adapter_cls)
    assert exc.value.clause == "wire.history.tool_calls"
    assert "edited message 2 (assistant) of the request it was given, in place" in (
        exc.value.message)
    assert _dump(case.steps[1].request.messages) == before  # the case itself is untouched
    _run_chat("wire.second_turn_passthrough", OpenAIChatAdapter)  # positive control


# == 3. deadlines for every contract; BaseExceptions from implementations =========================
import asyncio  # noqa: E402
import socket  # noqa: E402
import time  # noqa: E402

from pytest_toolcall.reference.fallback import ReferenceStructuredOutput  # noqa: E402
from pytest_toolcall.reference.history import ReferenceHistoryBuilder  # noqa: E402
from pytest_toolcall.reference.loop import ReferenceToolLoop  # noqa: E402

ALL = Registry()
ALL.extend(default_registry())
FAST = 0.4  # seconds: the profile's deadline in these tests
#: the deadline where the subject hangs or swallows the timeout on purpose and every interface
#: that runs is that subject: nothing correct has to finish inside it. What the kit adds after
#: it (two more alarms, 0.2 s apart, then the escalation) is the kit's own and unchanged
HANG = 0.2


def _profile(**update: object) -> object:
    return reference_profile("openai").model_copy(update={"timeout": FAST, **update})


def _swallowing(work: object) -> object:
    """A retry loop that swallows everything, the kit's timeout included."""
    def forever(*args: object, **kwargs: object) -> object:
        while True:
            try:
                time.sleep(0.01)
            except BaseException:  # noqa: BLE001, S110 - the bug under test
                pass
    return forever


def _run_case(case_id: str, subject: object, timeout: float = FAST, **kwargs: object) -> object:
    case = ALL[case_id]
    if case.contract == "chat":
        ep = in_process_endpoint(FakeProvider("openai"))
        try:
            return run_case(case, subject if not isinstance(subject, type)
                            else subject.from_endpoint(ep), _profile(timeout=timeout), ep,
                            interfaces=["sync"], **kwargs)
        finally:
            ep.close()
    return run_case(case, subject, _profile(timeout=timeout), dialect="openai", **kwargs)


def _fails_with(case_id: str, subject: object, timeout: float = FAST) -> ConformanceFailure:
    started = time.perf_counter()
    with pytest.raises(ConformanceFailure) as exc:
        _run_case(case_id, subject, timeout)
    assert time.perf_counter() - started < timeout + 3, "the deadline did not end the case"
    return exc.value


class SleepingBuilder(ReferenceHistoryBuilder):
    def build(self, stored):  # type: ignore[no-untyped-def]
        time.sleep(60)


class SpinningBuilder(ReferenceHistoryBuilder):
    def build(self, stored):  # type: ignore[no-untyped-def]
        while True:
            pass


class BlockedOnSocketBuilder(ReferenceHistoryBuilder):
    def build(self, stored):  # type: ignore[no-untyped-def]
        a, b = socket.socketpair()
        with a, b:
            a.recv(1)  # nothing is ever sent


@pytest.mark.parametrize("builder", [SleepingBuilder, SpinningBuilder, BlockedOnSocketBuilder])
def test_a_history_builder_that_hangs_is_ended_by_the_deadline(builder: type) -> None:
    failure = _fails_with("history.dedupe", builder(), HANG)
    assert failure.clause == "history.timeout" and failure.case_id == "history.dedupe"


class SwallowingAdapter(OpenAIChatAdapter):
    complete = _swallowing(None)


class SwallowingAsyncAdapter(OpenAIChatAdapter):
    async def acomplete(self, request):  # type: ignore[no-untyped-def]
        while True:
            try:
                await asyncio.sleep(0.01)
            except BaseException:  # noqa: BLE001, S110 - the bug under test
                pass


# the abandoned coroutine swallows its close() too: Python reports that when it is collected
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_an_async_implementation_that_swallows_the_timeout_is_forced_out() -> None:
    import gc

    ep = in_process_endpoint(FakeProvider("openai"))
    try:
        with pytest.raises(ConformanceFailure) as exc:
            run_case(CHAT["wire.single_call"], SwallowingAsyncAdapter.from_endpoint(ep),
                     _profile(timeout=HANG), ep, interfaces=["async"])
        assert exc.value.clause == "adapter.timeout" and "swallowed" in exc.value.message
        # the event loop the kit keeps is still usable for the next case
        run_case(CHAT["wire.single_call"], OpenAIChatAdapter.from_endpoint(ep), _profile(), ep,
                 interfaces=["async"])
    finally:
        ep.close()
        gc.collect()  # within this test, where the warning is expected


class SwallowingLoop(ReferenceToolLoop):
    run = _swallowing(None)


class SwallowingBuilder(ReferenceHistoryBuilder):
    build = _swallowing(None)


class SwallowingStructured(ReferenceStructuredOutput):
    extract = _swallowing(None)


@pytest.mark.parametrize(("case_id", "subject", "clause"), [
    ("wire.single_call", SwallowingAdapter, "adapter.timeout"),
    ("loop.answered_once_in_order", SwallowingLoop(), "loop.timeout"),
    ("history.dedupe", SwallowingBuilder(), "history.timeout"),
    ("fallback.tool_first", SwallowingStructured(), "fallback.timeout"),
])
def test_an_implementation_that_swallows_the_timeout_is_forced_out(
        case_id: str, subject: object, clause: str) -> None:
    import sys

    trace = sys.gettrace()
    failure = _fails_with(case_id, subject, HANG)
    assert failure.clause == clause
    assert "swallowed the kit's timeout" in failure.message
    assert sys.gettrace() is trace  # the escalation's trace function is gone


async def _swallowing_async(self: object, request: object) -> object:
    """The async retry loop that swallows everything, the kit's timeout included."""
    while True:
        try:
            await asyncio.sleep(0.01)
        except BaseException:  # noqa: BLE001, S110 - the bug under test
            pass


class SwallowingAsyncLoop(ReferenceToolLoop):
    arun = _swallowing_async


class SwallowingAsyncStructured(ReferenceStructuredOutput):
    aextract = _swallowing_async


# the abandoned coroutine swallows its close() too: Python reports that when it is collected
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize(("case_id", "subject", "clause", "honest"), [
    ("loop.answered_once_in_order", SwallowingAsyncLoop(), "loop.timeout", ReferenceToolLoop()),
    ("fallback.tool_first", SwallowingAsyncStructured(), "fallback.timeout",
     ReferenceStructuredOutput()),
], ids=["arun", "aextract"])
def test_an_async_loop_or_collector_that_swallows_the_timeout_is_forced_out(
        case_id: str, subject: object, clause: str, honest: object) -> None:
    import gc
    import sys

    trace = sys.gettrace()
    try:
        failure = _fails_with(case_id, subject)  # sync passes; async (arun/aextract) hangs
        assert failure.clause == clause
        # which note the kit gives depends on where the timeout lands in the coroutine's loop
        # (the await it swallows, or the alarm that re-fires after it): both say it went on
        assert ("went on after the kit's timeout signal" in failure.message
                or "swallowed the kit's timeout" in failure.message), failure.message
        assert sys.gettrace() is trace
        # the next case still runs, on both interfaces
        _run_case(case_id, honest)
    finally:
        gc.collect()  # within this test, where the warning is expected


def test_a_plain_timeout_does_not_claim_swallowing() -> None:
    # negative control for the message: a hang that lets the timeout through says only that
    failure = _fails_with("history.dedupe", SleepingBuilder(), HANG)
    assert "swallowed" not in failure.message


class ExitingAdapter(OpenAIChatAdapter):
    def complete(self, request):  # type: ignore[no-untyped-def]
        raise SystemExit(3)


class ExitingBuilder(ReferenceHistoryBuilder):
    def build(self, stored):  # type: ignore[no-untyped-def]
        raise SystemExit("bye")


class ExitingLoop(ReferenceToolLoop):
    def run(self, request):  # type: ignore[no-untyped-def]
        raise SystemExit(1)


class ExitingStructured(ReferenceStructuredOutput):
    def extract(self, request):  # type: ignore[no-untyped-def]
        raise SystemExit(4)


@pytest.mark.parametrize(("case_id", "subject", "clause"), [
    ("wire.single_call", ExitingAdapter, "adapter.exit"),
    ("loop.answered_once_in_order", ExitingLoop(), "loop.exit"),
    ("history.dedupe", ExitingBuilder(), "history.exit"),
    ("fallback.tool_first", ExitingStructured(), "fallback.exit"),
])
def test_system_exit_fails_the_case_with_a_clause(case_id: str, subject: object,
                                                  clause: str) -> None:
    failure = _fails_with(case_id, subject)
    assert failure.clause == clause and "SystemExit" in failure.message


class GeneratorExitBuilder(ReferenceHistoryBuilder):
    def build(self, stored):  # type: ignore[no-untyped-def]
        raise GeneratorExit()


def test_generator_exit_from_a_history_builder_is_caught() -> None:
    failure = _fails_with("history.dedupe", GeneratorExitBuilder())
    assert failure.clause == "history.raised" and "GeneratorExit" in str(failure.got)


class InterruptingAdapter(OpenAIChatAdapter):
    def complete(self, request):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt()


def test_keyboard_interrupt_from_an_implementation_propagates() -> None:
    with pytest.raises(KeyboardInterrupt):
        _run_case("wire.single_call", InterruptingAdapter)


BASE_EXCEPTION_CONFTEST = '''
import os, threading, time
import pytest
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter


def linger(stop):
    for _ in range(600):  # until the test says stop (30 s at most)
        if os.path.exists(stop):
            return
        time.sleep(0.05)


class Adapter(OpenAIChatAdapter):
    def complete(self, request):
        what = os.environ.get("TC_BEHAVIOUR")
        if what == "interrupt" and request.tool_choice == "none":
            raise KeyboardInterrupt()
        if what == "exit":
            raise SystemExit(2)
        if what == "thread":  # an absolute path: the test's cwd is undone after the test
            threading.Thread(target=linger, args=(os.path.abspath("stop-linger"),),
                             name="adapter-pool-0").start()
        return super().complete(request)


@pytest.fixture
def toolcall_adapter(toolcall_endpoint):
    return Adapter.from_endpoint(toolcall_endpoint)
'''
CHAT_CASES = "--toolcall-cases=wire.single_call,wire.tool_choice_none,wire.tool_choice_auto"


def test_an_interrupt_from_an_implementation_marks_the_report_incomplete(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TC_BEHAVIOUR", "interrupt")
    pytester.makeconftest(BASE_EXCEPTION_CONFTEST)
    result = pytester.runpytest_inprocess("--toolcall-provider=openai", "--toolcall-report=out",
                                          CHAT_CASES, "-p", "no:randomly",
                                          no_reraise_ctrlc=True)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    document = json.loads((pytester.path / "out" / "toolcall-report.json").read_text("utf-8"))
    assert "KeyboardInterrupt" in document["run"]["incomplete"]
    assert len(document["cases"]) < 3
    assert "incomplete run" in (pytester.path / "out" / "toolcall-summary.md").read_text("utf-8")
    result.stdout.fnmatch_lines(["*INCOMPLETE RUN: interrupted (KeyboardInterrupt)*"])


def test_a_complete_run_is_not_marked_incomplete(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(BASE_EXCEPTION_CONFTEST)
    result = pytester.runpytest_inprocess("--toolcall-provider=openai", "--toolcall-report=out",
                                          CHAT_CASES)
    result.assert_outcomes(passed=3)
    document = json.loads((pytester.path / "out" / "toolcall-report.json").read_text("utf-8"))
    assert document["run"]["incomplete"] is None


def test_system_exit_fails_with_a_clause_and_no_kit_frames(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TC_BEHAVIOUR", "exit")
    pytester.makeconftest(BASE_EXCEPTION_CONFTEST)
    result = pytester.runpytest_inprocess("--toolcall-provider=openai",
                                          "--toolcall-cases=wire.single_call")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "[adapter.exit]" in out or "adapter.exit" in out
    assert "pytest_toolcall/run/runner.py" not in out and "_suite.py" not in out


def test_leftover_non_daemon_threads_are_named(pytester: pytest.Pytester,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    monkeypatch.setenv("TC_BEHAVIOUR", "thread")
    pytester.makeconftest(BASE_EXCEPTION_CONFTEST)
    try:
        result = pytester.runpytest_inprocess("--toolcall-provider=openai",
                                              "--toolcall-cases=wire.single_call")
    finally:
        # the thread ends here, not up to 30 s later: it looked for a relative path, which it
        # missed once the test's cwd was undone, and outlived the test (a single module's run
        # waited for it at exit; later in-process sessions could see it left running)
        (pytester.path / "stop-linger").write_text("")
        for thread in threading.enumerate():
            if thread.name == "adapter-pool-0":
                thread.join(5)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*warning: * non-daemon thread* left running after the suite*"
                                 "'adapter-pool-0' (running conftest.linger)*"])


# == 4. replay blocks raw sockets =================================================================
from collections.abc import Iterator  # noqa: E402

import httpx  # noqa: E402
import vcr  # noqa: E402,F401 - outside the in-process runs (see tests/test_cassettes_plugin.py)
import yaml  # noqa: E402,F401

from pytest_toolcall.providers.fake import serve  # noqa: E402
from pytest_toolcall.run.live import StandInProvider  # noqa: E402
from pytest_toolcall.core.netguard import NetworkBlocked, block_network  # noqa: E402


@pytest.fixture
def listener() -> Iterator[int]:
    """A local listener that is not the kit's: a raw connection to it must be refused."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    with server:
        yield server.getsockname()[1]


def test_block_network_refuses_raw_sockets_and_names_the_host(listener: int) -> None:
    async def open_it() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", listener)
        writer.close()

    with block_network("replaying the cassette x.yaml") as attempts:
        with pytest.raises(NetworkBlocked, match=f"blocked a connection to 127.0.0.1:{listener}"):
            socket.create_connection(("127.0.0.1", listener), timeout=1)
        with pytest.raises(NetworkBlocked, match=f"127.0.0.1:{listener}"):
            asyncio.run(open_it())
        with pytest.raises(NetworkBlocked, match="api.example.com"):
            socket.getaddrinfo("api.example.com", 443)
    assert len(attempts) == 3
    assert "replaying the cassette x.yaml" in str(attempts[0])
    assert "--toolcall-record-mode" not in str(attempts[0])  # no invitation to re-record
    # and the block is gone afterwards (negative control: the same connection now works)
    socket.create_connection(("127.0.0.1", listener), timeout=1).close()


@pytest.fixture
def udp_listener() -> Iterator[socket.socket]:
    """A local UDP listener that is not the kit's: a datagram to it must be refused."""
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind(("127.0.0.1", 0))
    server.setblocking(False)
    with server:
        yield server


@pytest.mark.parametrize("how", ["sendto", "sendto with flags", "sendmsg"])
def test_block_network_refuses_datagrams_and_names_the_host(
        udp_listener: socket.socket, how: str) -> None:
    port = udp_listener.getsockname()[1]
    address = ("127.0.0.1", port)
    send = {"sendto": lambda s: s.sendto(b"x", address),
            "sendto with flags": lambda s: s.sendto(b"x", 0, address),
            "sendmsg": lambda s: s.sendmsg([b"x"], [], 0, address)}[how]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
        with block_network("replaying the cassette x.yaml") as attempts:
            says = (f"blocked a datagram to 127.0.0.1:{port} \\({how.split()[0]}\\): "
                    "replaying the cassette x.yaml never reaches the network")
            with pytest.raises(NetworkBlocked, match=says):
                send(client)
        assert len(attempts) == 1
        with pytest.raises(BlockingIOError):  # nothing arrived
            udp_listener.recv(16)
        # negative control: the block is gone afterwards, and the same datagram arrives
        send(client)
        udp_listener.settimeout(5)
        assert udp_listener.recv(16) == b"x"


def test_a_datagram_on_a_connected_socket_is_refused_at_connect(
        udp_listener: socket.socket) -> None:
    port = udp_listener.getsockname()[1]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client, block_network():
        with pytest.raises(NetworkBlocked, match=f"blocked a connection to 127.0.0.1:{port}"):
            client.connect(("127.0.0.1", port))


LOOKUPS = ("gethostbyname", "gethostbyname_ex", "gethostbyaddr", "getnameinfo", "getaddrinfo")


@pytest.mark.parametrize(("via", "args", "host"), [
    ("gethostbyname", ("telemetry.example.com",), "telemetry.example.com"),
    ("gethostbyname_ex", ("telemetry.example.com",), "telemetry.example.com"),
    ("gethostbyaddr", ("203.0.113.7",), "203.0.113.7"),
    ("getnameinfo", (("203.0.113.7", 443), 0), "203.0.113.7:443"),
    ("getaddrinfo", ("api.example.com", 443), "api.example.com:443"),
])
def test_block_network_refuses_name_lookups_and_names_the_host(
        monkeypatch: pytest.MonkeyPatch, via: str, args: tuple[object, ...], host: str) -> None:
    # the real resolver must never be asked (an experiment saw gethostbyname try a real lookup)
    def resolver_reached(*called: object) -> object:
        raise AssertionError(f"a real name lookup was attempted: {via}{called}")

    for name in LOOKUPS:
        monkeypatch.setattr(socket, name, resolver_reached)
    with block_network("replaying the cassette x.yaml") as attempts:
        with pytest.raises(NetworkBlocked, match=f"blocked a name lookup of {host} \\({via}\\): "
                                                 "replaying the cassette x.yaml never reaches"):
            getattr(socket, via)(*args)
    assert len(attempts) == 1 and attempts[0].host == host.split(":")[0]
    assert "--toolcall-record-mode" not in str(attempts[0])  # no invitation to re-record
    assert getattr(socket, via) is resolver_reached  # the block put back what it found


def test_loopback_names_still_resolve_under_the_block() -> None:
    with block_network() as attempts:
        assert socket.gethostbyname("localhost") == "127.0.0.1"
        assert socket.gethostbyname_ex("127.0.0.1")[2] == ["127.0.0.1"]
        assert socket.gethostbyaddr("127.0.0.1")
        assert socket.getnameinfo(("127.0.0.1", 80),
                                  socket.NI_NUMERICHOST | socket.NI_NUMERICSERV) == ("127.0.0.1",
                                                                                    "80")
        assert socket.getaddrinfo("127.0.0.1", 80, type=socket.SOCK_STREAM)
    assert attempts == []


def test_the_c_socket_type_is_outside_the_block(listener: int) -> None:
    """The documented limit (docs/reliability.md, "Limits"): ``_socket.socket`` is an immutable
    C type, so code that uses it directly (as C extensions do) is not refused. If this starts
    failing, the block reaches further and the Limits section is out of date."""
    import _socket

    with block_network() as attempts:
        raw = _socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            raw.settimeout(1)
            raw.connect(("127.0.0.1", listener))
        finally:
            raw.close()
    assert attempts == []


def test_the_kits_own_loopback_server_stays_reachable_under_the_block() -> None:
    with serve(FakeProvider("openai")) as endpoint, block_network() as attempts:
        answer = httpx.get(f"{endpoint.base_url}/models", timeout=5)
    assert answer.status_code < 500 and attempts == []


RAW_SOCKET_CONFTEST = '''
import asyncio, os, socket
import pytest
from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter


class SideChannel(OpenAIChatAdapter):
    """Opens its own socket (telemetry, a gRPC side channel) and swallows any error."""

    def complete(self, request):
        port = int(os.environ["TC_LISTENER_PORT"])
        try:
            if os.environ.get("TC_HOW") == "asyncio":
                async def go():
                    r, w = await asyncio.open_connection("127.0.0.1", port)
                    w.close()
                asyncio.run(go())
            elif os.environ.get("TC_HOW") == "udp":  # a metrics datagram (statsd style)
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                    udp.sendto(b"calls:1|c", ("127.0.0.1", port))
            elif os.environ.get("TC_HOW") == "lookup":
                socket.gethostbyname("telemetry.example.com")
            else:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except Exception:
            pass
        return super().complete(request)


@pytest.fixture
def toolcall_adapter(toolcall_endpoint):
    return SideChannel.from_endpoint(toolcall_endpoint)
'''


#: the ways an adapter opens its own socket, and the refusal each must be reported with
SIDE_CHANNELS = {
    "create_connection": "a connection to 127.0.0.1:{port}",
    "asyncio": "a connection to 127.0.0.1:{port}",
    "udp": "a datagram to 127.0.0.1:{port} (sendto)",
    "lookup": "a name lookup of telemetry.example.com (gethostbyname)",
}


def test_replay_fails_an_adapter_that_opens_its_own_socket(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, listener: int) -> None:
    # one recording and one positive control for the four ways (they differ only in the
    # conftest's TC_HOW, which neither run reads): 6 in-process sessions instead of 12
    key = "sk-standin-SECRET-1357924680"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    common = ("-p", "no:cacheprovider", "--toolcall-provider=openai", "--toolcall-live",
              "--toolcall-cases=live.round_trip")
    with serve(StandInProvider("openai", api_key=key)) as stand_in:
        pytester.runpytest_inprocess(
            *common, f"--toolcall-base-url=openai={stand_in.base_url}",
            "--toolcall-record-mode=once").assert_outcomes(passed=1)
    # positive control: the plain adapter replays offline
    pytester.runpytest_inprocess(*common).assert_outcomes(passed=1)
    monkeypatch.setenv("TC_LISTENER_PORT", str(listener))
    pytester.makeconftest(RAW_SOCKET_CONFTEST)
    for how, refusal in SIDE_CHANNELS.items():
        monkeypatch.setenv("TC_HOW", how)
        result = pytester.runpytest_inprocess(*common)
        try:
            result.assert_outcomes(errors=1)
        except AssertionError as exc:
            raise AssertionError(f"{how}: {exc}\n{result.stdout.str()}") from None
        blocked = refusal.format(port=listener)
        wanted = (f"*blocked {blocked}: replaying the cassette *live.round_trip.yaml never "
                  "reaches the network*")
        assert any(fnmatch.fnmatch(line, wanted) for line in result.outlines), \
            f"{how}: no line matches {wanted!r} in:\n{result.stdout.str()}"


# == 5. bad input: a clear error naming what was wrong and how to fix it ==========================
def _usage(result: pytest.RunResult) -> str:
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    text = result.stderr.str()
    assert "Traceback" not in text and "pytest_toolcall/" not in text, text
    return text


def test_report_option_pointing_at_a_file(pytester: pytest.Pytester) -> None:
    pytester.makefile(".json", out="{}")
    text = _usage(pytester.runpytest_inprocess("--toolcall-provider=openai",
                                               "--toolcall-report=out.json"))
    assert "out.json is a file, not a directory" in text and "give a directory" in text


def test_toolcall_live_that_is_not_a_boolean(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntoolcall_live = maybe\n")
    text = _usage(pytester.runpytest_inprocess("--toolcall-provider=openai"))
    assert "toolcall_live = 'maybe'" in text and "not a boolean" in text
    assert "toolcall_live = true" in text


@pytest.mark.parametrize("url", ["openai=localhost:11434", "openai=http://", "openai=ftp://h/x",
                                 "openai=http://h:port/v1"])
def test_malformed_base_url_is_a_usage_error_not_the_adapters_failure(
        pytester: pytest.Pytester, url: str) -> None:
    text = _usage(pytester.runpytest_inprocess("--toolcall-provider=openai",
                                               f"--toolcall-base-url={url}"))
    assert "is not a usable URL" in text and "NAME=http(s)://host[:port][/path]" in text


def test_a_malformed_base_url_does_not_print_its_password(pytester: pytest.Pytester) -> None:
    text = _usage(pytester.runpytest_inprocess(
        "--toolcall-provider=openai", "--toolcall-base-url=openai=ftp://u:pw-zz-91827364@h/"))
    assert "pw-zz-91827364" not in text and "u:[redacted" in text


def test_an_empty_provider_option(pytester: pytest.Pytester) -> None:
    text = _usage(pytester.runpytest_inprocess("--toolcall-provider="))
    assert "--toolcall-provider is empty" in text and "'all'" in text


def test_known_gap_line_without_a_colon(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ntoolcall_known_gaps =\n    stream.truncated keeps the tail\n")
    text = _usage(pytester.runpytest_inprocess("--toolcall-provider=openai"))
    assert "'stream.truncated keeps the tail' is not 'case-glob: reason'" in text


BAD_PROFILE = '''
import pytest

@pytest.fixture
def toolcall_profile():
    return {PROFILE}
'''


@pytest.mark.parametrize(("profile", "says"), [
    ("{'max_iterations': -1}", "max_iterations: Input should be greater than or equal to 1"),
    ("{'history_failed_calls': 'sometimes'}", "history_failed_calls"),
    ("None", "returned None (a missing `return`?)"),
])
def test_a_bad_profile_is_one_setup_error_naming_the_profile_fixture(
        pytester: pytest.Pytester, profile: str, says: str) -> None:
    pytester.makeconftest(BAD_PROFILE.replace("{PROFILE}", profile))
    result = pytester.runpytest_inprocess(
        "--toolcall-provider=openai",
        "--toolcall-cases=wire.single_call,loop.all_failure_rounds,history.dedupe")
    result.assert_outcomes(errors=3)
    out = result.stdout.str()
    # the ERRORS section: pytest 9.2's short summary repeats a multi-line message in full
    errors = out.split("short test summary info")[0]
    assert errors.count(says) == 3
    assert errors.count("(toolcall_profile is defined at conftest.py:") == 3
    assert "toolcall_adapter is defined" not in out  # the chat case names the right fixture
    assert "Traceback" not in out and "During handling" not in out
    assert len(errors.splitlines()) < 60


class NoneStream(OpenAIChatAdapter):
    def stream(self, request):  # type: ignore[no-untyped-def]
        return None


class NumberStream(OpenAIChatAdapter):
    def stream(self, request):  # type: ignore[no-untyped-def]
        return 42


@pytest.mark.parametrize("adapter_cls", [NoneStream, NumberStream])
def test_stream_returning_a_non_iterable_is_described_as_such(adapter_cls: type) -> None:
    streamed = next(c.id for c in CHAT if any(s.via == "stream" for s in c.steps)
                    and c.steps[0].expect == "response")
    with pytest.raises(ConformanceFailure) as exc:
        _run_chat(streamed, adapter_cls)
    assert exc.value.clause == "stream.events.type"
    assert "stream() returned" in exc.value.message and "not an iterable" in exc.value.message


class NoneBuilder(ReferenceHistoryBuilder):
    def build(self, stored):  # type: ignore[no-untyped-def]
        super().build(stored)  # the missing `return`


class NumberBuilder(ReferenceHistoryBuilder):
    def build(self, stored):  # type: ignore[no-untyped-def]
        return len(stored)


@pytest.mark.parametrize("builder", [NoneBuilder, NumberBuilder])
def test_build_returning_none_is_described_as_such(builder: type) -> None:
    failure = _fails_with("history.dedupe", builder())
    assert failure.clause == "history.result"
    assert "not a list of messages" in failure.message and "missing `return`" in failure.hint


def test_mutate_with_cases_that_match_nothing_is_a_usage_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_toolcall.cli import main

    (tmp_path / "tinyadapter.py").write_text(
        "from pytest_toolcall.providers.openai.reference import OpenAIChatAdapter\n\n\n"
        "class TinyAdapter(OpenAIChatAdapter):\n    pass\n")
    (tmp_path / "conftest.py").write_text(
        "import pytest\nfrom tinyadapter import TinyAdapter\n\n\n@pytest.fixture\n"
        "def toolcall_adapter(toolcall_endpoint):\n"
        "    return TinyAdapter.from_endpoint(toolcall_endpoint)\n")
    # the driver runs pytest without PYTEST_ADDOPTS: the project keeps the plugins out that
    # tests/conftest.py keeps out of other sessions
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\naddopts = -p no:langsmith_plugin -p no:anyio -p no:hypothesispytest\n")
    # the command in this process (its pre-flight pytest is the driver's subprocess, as always;
    # tests/test_mutation.py runs the command as a process)
    monkeypatch.delenv("MUTANT_UNDER_TEST", raising=False)
    monkeypatch.chdir(tmp_path)
    code = main(["mutate", "tinyadapter.py", "--cases", "nosuch.*", "--jobs", "1"])
    out, err = capsys.readouterr()
    assert code == 2, out + err  # documented in docs/mutation.md
    assert "'nosuch.*' matches no case" in err


# == 2b. loops, history builders and collectors get their own copies too =========================
class EditsToolsInPlace(ReferenceToolLoop):
    """Strips the schema of every tool it is given, in place, before running."""

    def run(self, request):  # type: ignore[no-untyped-def]
        for tool in request.tools:
            tool.parameters.clear()
        return super().run(request)


class EditsStoredInPlace(ReferenceHistoryBuilder):
    """Rewrites the text of the stored messages in place, then builds from them."""

    def build(self, stored):  # type: ignore[no-untyped-def]
        for message in stored:
            if getattr(message, "tool_calls", None):
                for call in message.tool_calls:
                    if isinstance(call.arguments, dict):
                        call.arguments["injected"] = True
        return super().build(stored)


def _dump(values: object) -> str:
    return json.dumps([v.model_dump(mode="json") for v in values], sort_keys=True)  # type: ignore[attr-defined]


def test_a_loop_that_edits_its_tools_in_place_leaves_the_case_unchanged() -> None:
    case = ALL["loop.answered_once_in_order"]
    from pytest_toolcall.run.looprun import resolve_script

    script = resolve_script(case, _profile())
    before = _dump([t.spec for t in script.tools])
    with contextlib.suppress(ConformanceFailure):
        _run_case(case.id, EditsToolsInPlace())
    assert _dump([t.spec for t in resolve_script(case, _profile()).tools]) == before


def test_a_builder_that_edits_the_stored_history_in_place_leaves_the_case_unchanged() -> None:
    ids = [c.id for c in ALL if c.contract == "history" and c.history.stored
           and any(getattr(m, "tool_calls", None) for m in c.history.stored)]
    case = ALL[ids[0]]
    before = _dump(case.history.stored)
    with contextlib.suppress(ConformanceFailure):
        _run_case(case.id, EditsStoredInPlace())
    assert _dump(case.history.stored) == before


def test_mutation_reports_mask_secrets_too(tmp_path: Path, planted_env: None) -> None:
    # an escape's diff shows the user's source: a key hard-wired next to an env secret's value
    from pytest_toolcall.cli import mutation

    diff = (f"-    headers = {{'x-key': '{ENV_SECRETS['GH_PAT']}'}}\n"
            f"+    headers = {{'x-key': None}}  # {PLANTED}")
    escape = mutation.Escape(mutant="m.x_f__mutmut_1", status="survived", file="m.py", line=1,
                             function="f", diff=diff)
    result = mutation.MutationResult(
        sources=["m.py"], providers=["openai"], cases=[], counts={"survived": 1},
        escapes=[escape], errors=[], seconds=1.0, mutmut_seconds=1.0, mutants_per_second=None,
        mutmut_version="3")
    written = mutation.write_reports(tmp_path, result, mutation.evaluate_gate(result, None, None))
    for path in written:
        text = path.read_text("utf-8")
        assert ENV_SECRETS["GH_PAT"] not in text and PLANTED not in text, path.name
        assert "[redacted $GH_PAT]" in text, path.name


# == 6. the documented figures ====================================================================
def test_the_documented_test_count_is_this_modules() -> None:
    """docs/reliability.md says how many tests this battery has; count them here (every test
    function times its parametrize rows) so the page cannot drift. No timing is asserted."""
    import re
    import sys

    count = 0
    for name, function in vars(sys.modules[__name__]).items():
        if not (name.startswith("test_") and callable(function)):
            continue
        rows = 1
        for mark in getattr(function, "pytestmark", []):
            if mark.name == "parametrize":
                rows *= len(mark.args[1])
        count += rows
    page = (Path(__file__).resolve().parents[1] / "docs" / "reliability.md").read_text("utf-8")
    documented = re.search(r"`tests/test_reliability_security\.py`, (\d+) tests", page)
    assert documented, "docs/reliability.md no longer states the battery's test count"
    assert int(documented.group(1)) == count, (
        f"docs/reliability.md says {documented.group(1)} tests, the module has {count}")

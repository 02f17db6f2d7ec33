"""The pytest side of cassettes: options, fixtures and hooks. Logic lives in ``cassettes.py``
(the only module that imports vcrpy) and ``live.py``.

Precedence: fixture override in conftest.py > command-line option > ini setting > default, for
the cassette directory (``toolcall_cassette_dir``); options > ini > default for the rest.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_toolcall.output.cassettes import (
    CHUNKINGS,
    MISSING_POLICIES,
    RECORD_MODES,
    Redactor,
    _snapshot_data,
    _snapshot_unchanged,
    canonical_json,
    check_snapshot,
    snapshot_path,
)

#: --toolcall-record-mode needs the network in these modes (once: only without a cassette)
_NETWORK_MODES = ("new_episodes", "all")


def _choice(config: pytest.Config, name: str, choices: tuple[str, ...]) -> str:
    value = config.getoption(name)
    value = str(value if value is not None else config.getini(name))
    if value not in choices:
        raise pytest.UsageError(f"{name} = {value!r}: use one of {', '.join(choices)}")
    return value


def _pairs(config: pytest.Config, name: str) -> dict[str, str]:
    from pytest_toolcall.providers.base import DIALECT_NAMES

    raw = config.getoption(name) or config.getini(name) or []
    pairs = {}
    for item in raw:
        provider, sep, value = str(item).partition("=")
        if not sep or not value or provider not in DIALECT_NAMES:
            from pytest_toolcall.core.redact import mask_url

            raise pytest.UsageError(
                f"--{name.replace('_', '-')}: expected NAME=VALUE with NAME one of "
                f"{', '.join(DIALECT_NAMES)}, got {mask_url(str(item))!r}")
        if name == "toolcall_base_url":
            _check_url(value, item)
        pairs[provider] = value
    return pairs


def _check_url(url: str, item: Any) -> None:
    """A base URL the kit can hand to an adapter: http(s), a host, a valid port."""
    from urllib.parse import urlsplit

    from pytest_toolcall.core.redact import mask_url

    problem = None
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError as exc:
        problem = str(exc)
    else:
        if parts.scheme not in ("http", "https"):
            problem = f"the scheme must be http or https, not {parts.scheme or 'missing'!r}"
        elif not parts.hostname:
            problem = "it names no host"
    if problem:
        raise pytest.UsageError(
            f"--toolcall-base-url: {mask_url(str(item))!r} is not a usable URL ({problem}). "
            "Write NAME=http(s)://host[:port][/path], e.g. ollama=http://localhost:11434")


def live_mode(config: pytest.Config) -> bool:
    option = config.getoption("toolcall_live")
    if option is not None:
        return bool(option)
    try:
        return bool(config.getini("toolcall_live"))
    except (ValueError, pytest.UsageError) as exc:  # "invalid truth value 'maybe'", which
        # names no setting (a ValueError before pytest 9.2, a UsageError since)
        value = str(exc).removeprefix("invalid truth value ")
        raise pytest.UsageError(
            f"toolcall_live = {value} in {config.inipath or 'the ini file'}: not a boolean. "
            "Write toolcall_live = true (or false), or pass --toolcall-live") from None


def pytest_configure(config: pytest.Config) -> None:
    live_mode(config)  # a bad toolcall_live value is a usage error now, not a traceback later
    _choice(config, "toolcall_record_mode", RECORD_MODES)
    _choice(config, "toolcall_missing_cassette", MISSING_POLICIES)
    _choice(config, "toolcall_replay_chunking", CHUNKINGS)
    _register_base_url_passwords(config)
    _pairs(config, "toolcall_base_url")
    _pairs(config, "toolcall_model")
    config.pluginmanager.register(_LiveRunner(), "toolcall-live-runner")


def _register_base_url_passwords(config: pytest.Config) -> None:
    """The userinfo password of a --toolcall-base-url is a credential: never printed or written."""
    from urllib.parse import urlsplit

    from pytest_toolcall.core.redact import register

    for item in config.getoption("toolcall_base_url") or config.getini("toolcall_base_url") or []:
        url = str(item).partition("=")[2]
        try:
            password = urlsplit(url).password
        except ValueError:
            continue
        register(password, "password of --toolcall-base-url", min_length=1)


def pytest_toolcall_cases(config: pytest.Config) -> Any:
    """The live subset joins the suite only with --toolcall-live."""
    if not live_mode(config):
        return []
    from pytest_toolcall.run.live import live_cases

    return live_cases()


# -- fixtures -----------------------------------------------------------------------------------
# session scope: the value follows from the configuration alone (and a Path is immutable), and
# a function-scoped fixture costs every suite item a setup and a teardown (issue 9); an override
# in conftest.py may have any scope
@pytest.fixture(scope="session")
def toolcall_cassette_dir(request: pytest.FixtureRequest) -> Path:
    """Where cassettes and request snapshots live. Override it in conftest.py to move them."""
    config = request.config
    value = config.getoption("toolcall_cassette_dir") or config.getini("toolcall_cassette_dir")
    path = Path(str(value)) if value else Path("cassettes")
    return path if path.is_absolute() else config.rootpath / path


@pytest.fixture
def toolcall_cassette_config() -> dict[str, Any]:
    """Replay and matching settings; override to change them: ``ignore_body_keys`` (top-level
    request keys left out of matching), ``secrets`` (more values to redact), ``seed`` (for
    seeded re-chunking). Redaction itself cannot be turned off."""
    from pytest_toolcall.plugins.suite import default_cassette_config

    return default_cassette_config()


def _case(request: pytest.FixtureRequest) -> Any:
    from pytest_toolcall.plugins.suite import CASE_KEY

    return request.node.stash.get(CASE_KEY, None)


def live_endpoint(request: pytest.FixtureRequest, provider: str, directory: Path,
                  settings: dict[str, Any]) -> Any:
    """For a live item under --toolcall-live, the context manager of its endpoint: the real
    service (recording) or the cassette (replaying, network blocked); ``None`` for every other
    item, which keeps the fake provider's endpoint (``toolcall_endpoint`` in plugins/fixtures.py)."""
    case = _case(request)
    if case is None or not case.live or not live_mode(request.config):
        return None
    from pytest_toolcall.core.contracts import make_profile

    profile = make_profile(request.getfixturevalue("toolcall_profile"))
    for capability in sorted(case.required_capabilities()):
        # before the cassette: nothing to record or replay ('stream' may depend on the
        # adapter, built from this endpoint: the runner checks it)
        if capability != "stream" and not profile.claims(capability):
            pytest.skip(f"the profile does not claim {capability!r}, which {case.id} needs")
    return _live_endpoint(request, provider, case.id, Path(directory), settings)


class _Live:
    """What the live runner needs besides the endpoint."""

    def __init__(self, path: Path, hint: str, model: str | None) -> None:
        self.path, self.hint, self.model = path, hint, model
        #: recording (not replaying): the error statuses answered, and why the cassette is
        #: dropped (set when the run could not reach the service); see ``record`` below
        self.recording = False
        self.refused: list[int] = []
        self.discard: str | None = None

    def not_kept(self) -> str | None:
        """Why this recording is not kept as a cassette, or ``None`` when it is kept."""
        if not self.recording:
            return None
        if self.refused:
            statuses = ", ".join(str(s) for s in self.refused)
            return (f"the recording was not kept as a cassette: an answer was an error (HTTP "
                    f"{statuses}), and a cassette of an error would replay it as if it were "
                    f"the provider's verdict. Record again once it works: {self.hint}")
        if self.discard:
            return (f"the recording was not kept as a cassette: {self.discard}. Record again "
                    f"once the service is reachable: {self.hint}")
        return None


_LIVE_KEY = pytest.StashKey[_Live]()
#: connections refused while this item's cassette was replayed
_BLOCKED_KEY = pytest.StashKey[list[Any]]()
#: the failure message already says why the recording was not kept
_TOLD_KEY = pytest.StashKey[bool]()


def _live_endpoint(request: pytest.FixtureRequest, provider: str, case_id: str, directory: Path,
                   settings: dict[str, Any]) -> Any:
    import contextlib

    import httpx

    from pytest_toolcall.output.cassettes import (
        CassetteError,
        Redactor,
        ReplayTransport,
        cassette_path,
        load_cassette,
        record_command,
        vcr_context,
    )
    from pytest_toolcall.providers.fake import Endpoint, FakeProvider
    from pytest_toolcall.run.live import ACCESS, PLACEHOLDER_KEY, access

    config = request.config
    mode = _choice(config, "toolcall_record_mode", RECORD_MODES)
    path = cassette_path(directory, provider, case_id)
    info = ACCESS.get(provider)
    key_hint = info.key_vars[0] if info and info.key_vars and info.key_required else None
    base_urls = _pairs(config, "toolcall_base_url")
    url_hint = (f" --toolcall-base-url={provider}={base_urls.get(provider, 'URL')}"
                if provider in base_urls or not (info and info.base_url) else "")
    hint = record_command(provider, case_id, key_hint=key_hint) + url_hint
    redactor = Redactor(settings.get("secrets", ()))
    ignore = tuple(settings.get("ignore_body_keys", ()))
    exists = path.is_file()
    if exists:
        unusable = None
        try:
            load_cassette(path, provider)
        except CassetteError as exc:
            unusable = str(exc)
        if unusable:  # failed outside the except block: no "During handling of ..." line
            pytest.fail(f"pytest-toolcall could not use the cassette:\n  {unusable}",
                        pytrace=False)
    live = request.node.stash[_LIVE_KEY] = _Live(path, hint,
                                                 _pairs(config, "toolcall_model").get(provider))

    @contextlib.contextmanager
    def replay() -> Iterator[Any]:
        cassette = load_cassette(path, provider)
        transport = ReplayTransport(
            cassette, chunking=_choice(config, "toolcall_replay_chunking", CHUNKINGS),
            seed=int(settings.get("seed", 0)), ignore_body_keys=ignore, redactor=redactor,
            record_hint=record_command(provider, case_id, mode="new_episodes",
                                       key_hint=key_hint) + url_hint)
        base = base_urls.get(provider) or (info.base_url if info else None) or "http://127.0.0.1"
        endpoint = Endpoint(provider=provider, base_url=base.rstrip("/"),
                            api_key=PLACEHOLDER_KEY, fake=FakeProvider(provider),
                            transport=transport, async_transport=transport)
        # vcrpy in 'none' mode around it: a client that bypasses the endpoint's transport gets
        # the cassette (in one piece) or a refusal, never the network; below the HTTP
        # libraries, raw sockets are refused too (issue 18)
        from pytest_toolcall.core.netguard import block_network

        with vcr_context(path, "none", redactor, ignore), \
                block_network(f"replaying the cassette {path}") as attempts:
            request.node.stash[_BLOCKED_KEY] = attempts
            yield endpoint
        endpoint.close()

    @contextlib.contextmanager
    def record(base_url: str, key: str) -> Iterator[Any]:
        endpoint = Endpoint(provider=provider, base_url=base_url, api_key=key,
                            fake=FakeProvider(provider), transport=httpx.HTTPTransport(),
                            async_transport=httpx.AsyncHTTPTransport())
        before = path.read_bytes() if path.is_file() else None
        live.recording = True
        # error answers are never written (vcr_context drops them); if one came, or the service
        # could not be reached, the whole recording goes: the cassette is what it was before
        with vcr_context(path, mode, redactor, ignore, refused=live.refused):
            yield endpoint
        endpoint.close()
        reason = live.not_kept()
        if reason is not None:
            if before is None:
                path.unlink(missing_ok=True)
            else:
                path.write_bytes(before)
            if not request.node.stash.get(_TOLD_KEY, False):  # a passing case: say it here
                import warnings

                warnings.warn(pytest.PytestWarning(f"{case_id} ({provider}): {reason}"),
                              stacklevel=1)

    needs_network = mode in _NETWORK_MODES or (mode == "once" and not exists)
    if not needs_network:
        if not exists:
            message = (f"no cassette for {case_id} ({provider}) at {path}; replay mode (record "
                       f"mode '{mode}') never reaches the network. Record it with: {hint}")
            if _choice(config, "toolcall_missing_cassette", MISSING_POLICIES) == "skip":
                pytest.skip(message)
            pytest.fail(message, pytrace=False)
        return replay()
    reach = access(provider, os.environ, base_urls)
    if isinstance(reach, str):
        pytest.skip(reach)
    from pytest_toolcall.core.redact import register

    register(reach[1] if reach[1] != PLACEHOLDER_KEY else None, f"api key of {provider}")
    return record(*reach)


class _LiveRunner:
    """Runs live items through :func:`pytest_toolcall.run.live.run_live` instead of the scripted
    runner; checks request snapshots of the scripted items."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> bool | None:
        live = pyfuncitem.stash.get(_LIVE_KEY, None)
        if live is None:
            return None
        from pytest_toolcall.plugins.suite import ADAPTER_KEY, CASE_KEY
        from pytest_toolcall.output.cassettes import unmatched_from_vcr
        from pytest_toolcall.core.errors import ConformanceFailure
        from pytest_toolcall.run.live import LiveSkip, ServiceError, run_live
        from pytest_toolcall.run.runner import CaseSkipped

        case = pyfuncitem.stash[CASE_KEY]
        adapter, profile, interfaces = pyfuncitem.stash[ADAPTER_KEY]
        for capability in sorted(case.required_capabilities()):
            if not profile.claims(capability, adapter):
                pytest.skip(f"the profile does not claim {capability!r}, which {case.id} needs")

        def translate(error: BaseException) -> BaseException | None:
            if type(error).__name__ == "CannotOverwriteExistingCassetteException":
                return unmatched_from_vcr(error, live.path, live.hint)
            return None

        blocked = pyfuncitem.stash.get(_BLOCKED_KEY, [])
        try:
            run_live(case, adapter, profile, interfaces, model=live.model, on_error=translate)
        except (LiveSkip, CaseSkipped) as skip:
            if blocked:
                raise blocked[0] from None
            pytest.skip(str(skip))
        except ServiceError as error:
            if blocked:
                raise blocked[0] from None
            live.discard = "the service could not be reached or refused to serve"
            _tell(pyfuncitem, live, error)
            raise
        except ConformanceFailure as failure:
            if blocked:
                raise blocked[0] from None
            _tell(pyfuncitem, live, failure)
            raise
        except Exception:
            if blocked:  # the refusal is the cause, whatever the adapter made of it
                raise blocked[0] from None
            raise
        if blocked:  # the adapter swallowed the refusal (and maybe answered from elsewhere)
            raise blocked[0]
        return True

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Any:
        result = yield
        if _LIVE_KEY not in item.stash:
            _check_snapshot(item)
        return result


def _tell(item: pytest.Item, live: _Live, error: BaseException) -> None:
    """Add to the failure why the recording will not be kept as a cassette, if it will not."""
    reason = live.not_kept()
    if reason is None:
        return
    item.stash[_TOLD_KEY] = True
    if hasattr(error, "message"):  # ConformanceFailure: its message is what is rendered
        error.message = f"{error.message}\n({reason})"
    else:
        error.args = (f"{error}\n  ({reason})", *error.args[1:])


def _check_snapshot_file(path: Path, provider: str, case_id: str) -> None:
    """A snapshot that is no JSON object (cut in half, edited by hand, a merge conflict) is the
    kit's input gone bad, not a change in what the adapter sends: a usage error naming the
    file, never a ``request.snapshot`` diff against it (issue 35)."""
    import json

    from pytest_toolcall.core.errors import UsageError

    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:  # UnicodeDecodeError is one
        problem: str | None = f"is not valid JSON ({exc})"
    else:
        problem = (None if isinstance(value, dict)
                   else f"holds a JSON {type(value).__name__}, not an object")
    if problem:
        raise UsageError(
            f"the request snapshot {path} {problem}: delete it to re-record it, or rewrite it "
            f"with pytest --toolcall-provider={provider} --toolcall-cases='{case_id}' "
            "--toolcall-snapshot-update")


def _check_snapshot(item: pytest.Item) -> None:
    from pytest_toolcall.plugins.suite import CASE_KEY, PROVIDER_KEY

    case = item.stash.get(CASE_KEY, None)
    funcargs = getattr(item, "funcargs", {})
    endpoint = funcargs.get("toolcall_endpoint")
    if case is None or case.contract != "chat" or endpoint is None:
        return
    exchanges = getattr(endpoint, "exchanges", None)
    if not exchanges:
        return
    directory = funcargs.get("toolcall_cassette_dir")
    settings = funcargs.get("toolcall_cassette_config") or {}
    if directory is None:  # toolcall_endpoint overridden without ours: nothing to compare with
        return
    path = snapshot_path(directory, item.stash[PROVIDER_KEY], case.id)
    data = _snapshot_data(exchanges, Redactor(settings.get("secrets", ())))
    if _snapshot_unchanged(path, data):  # the common case, without writing the text out
        return
    update = bool(item.config.getoption("toolcall_snapshot_update"))
    if not update and not path.is_file():  # no snapshot, none to write: check_snapshot's None
        return
    if not update:
        _check_snapshot_file(path, item.stash[PROVIDER_KEY], case.id)
    text = canonical_json(data, indent=2) + "\n"  # request_snapshot()'s text
    diff = check_snapshot(path, text, update=update)
    if diff:
        from pytest_toolcall.core.errors import ConformanceFailure

        provider = item.stash[PROVIDER_KEY]
        failure = ConformanceFailure(
            "request.snapshot", f"what the adapter sends for {case.id} changed since the "
            f"snapshot {path} was written:\n{diff}",
            expected=f"the requests in {path}", got="the requests above (+ lines)",
            hint=f"if the change is intended, rewrite it: pytest --toolcall-provider={provider} "
                 f"--toolcall-cases='{case.id}' --toolcall-snapshot-update")
        failure.case_id, failure.provider = case.id, provider
        raise failure

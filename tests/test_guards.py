"""The kit's two guards, tested hole by hole (issue 35, item 10): the redactor
(``core/redact.py``) and the network block (``core/netguard.py``). Each test pins a behaviour a
one-change mutant of the guard took away while every other test stayed green; secrets are
planted outside the environment too, since an environment variable with a secret-looking name
masks its value whatever the registry holds. ``bench/bench_guard_mutation.py`` measures how
many such mutants the kit's tests kill (docs/reliability.md, "The guards under mutation").
"""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Iterator

import pytest

from pytest_toolcall.core import netguard, redact
from pytest_toolcall.core.netguard import NetworkBlocked, add_kit_port, block_network, kit_port

#: an environment with no secret in it, for the tests that plant their own
NO_ENV: dict[str, str] = {}


@pytest.fixture
def registry() -> Iterator[dict[str, str]]:
    """The process-wide registry, empty for the test and put back after it."""
    with redact.isolated() as values:
        yield values


# == the redactor ===================================================================================
def test_guards_register_stores_the_value_with_no_environment_behind_it(
        registry: dict[str, str]) -> None:
    secret = "zq-registered-only-0123456789"
    assert redact.mask(f"key {secret}", NO_ENV) == f"key {secret}"
    redact.register(secret, "gateway key")  # after a mask: the cached matcher must follow
    assert registry == {secret: "gateway key"}
    assert redact.mask(f"key {secret}", NO_ENV) == "key [redacted: gateway key]"
    assert redact.known(NO_ENV)[secret] == "gateway key"
    assert redact.known()[secret] == "gateway key"  # the process's own environment
    assert redact.mask(f"key {secret}") == "key [redacted: gateway key]"  # os.environ's cache
    redact.register(secret, "another label")  # the first label stays
    assert redact.mask(secret, NO_ENV) == "[redacted: gateway key]"
    redact.forget(secret)
    assert redact.mask(f"key {secret}", NO_ENV) == f"key {secret}"
    assert redact.mask(f"key {secret}") == f"key {secret}"


def test_guards_register_refuses_what_is_no_secret(registry: dict[str, str]) -> None:
    redact.register(None, "nothing", min_length=4)
    redact.register("", "nothing")
    redact.register("seven77", "short")  # 7 characters: below MIN_SECRET
    redact.register("[redacted: planted secret]", "a mark")
    redact.register("<redacted>", "the cassette mark", min_length=4)
    redact.register("abc", "below the URL floor", min_length=1)
    redact.register(12345678, "a number")  # type: ignore[arg-type]
    assert registry == {}
    redact.register(b"bytes-secret-\xff-0123", "bytes")  # not UTF-8: read as it decodes
    assert registry == {"bytes-secret-\ufffd-0123": "bytes"}
    registry.clear()
    assert registry == {}
    assert redact.mask("None of them: seven77 abc", NO_ENV) == "None of them: seven77 abc"
    redact.register("abcd", "four", min_length=4)  # a URL password's floor
    assert registry == {"abcd": "four"}


def test_guards_register_strips_whitespace_and_keeps_the_token_after_a_scheme(
        registry: dict[str, str]) -> None:
    redact.register("  padded-secret-0123  \n", "padded")
    assert "padded-secret-0123" in registry
    for scheme in ("Bearer", "Basic", "token"):
        redact.register(f"{scheme} {scheme.lower()}-tok-456789ab", "header")
        assert f"{scheme.lower()}-tok-456789ab" in registry, scheme
        assert (redact.mask(f"sent {scheme.lower()}-tok-456789ab", NO_ENV)
                == "sent [redacted: header]")
    redact.register("Digest digest-tok-456789ab", "header")  # not a scheme it splits
    assert "digest-tok-456789ab" not in registry
    redact.register("Bearer short1", "header")  # the token alone is too short
    assert "short1" not in registry


def test_guards_register_masks_a_url_password_of_four_characters(
        registry: dict[str, str]) -> None:
    redact.register("https://me:pw4z@gw.example/v1", "base url")
    assert registry["pw4z"] == "base url"
    assert redact.mask("the password pw4z", NO_ENV) == "the password [redacted: base url]"
    redact.register("https://me:pw3@gw.example/v1", "base url")
    assert "pw3" not in registry


@pytest.mark.parametrize("name", [
    "OPENAI_API_KEY", "GH_TOKEN", "VENDOR_SECRET", "SMTP_PASSWORD", "DB_PASSWD",
    "GOOGLE_APPLICATION_CREDENTIALS", "SSH_PASSPHRASE", "GH_PAT", "SENTRY_DSN", "DSN",
    "DATABASE_URL", "HELICONE_AUTH", "PROXY_AUTHORIZATION", "APP_SESSION", "apiKey",
    "x-api-key", "user_token", "clientSecret", "APIKey", "api_\u212aey", "cookie",
    "X_AUTHENTICATION"])
def test_guards_secret_names(name: str) -> None:
    assert redact.secret_name(name)
    value = "value-of-the-secret-0123"
    assert redact.env_secrets({name: value}) == {value: f"${name}"}
    assert redact.mask(f"x {value}", {name: value}) == f"x [redacted ${name}]"


@pytest.mark.parametrize("name", [
    "PWD", "HOME", "PATH", "keyword", "max_tokens", "SSH_AUTH_SOCK", "author", "signature",
    "thoughtSignature", "model", "KEYRING_BACKEND", "DATABASE", "URL", "PYTEST_CURRENT_TEST",
    "", "__"])
def test_guards_names_that_hold_no_secret(name: str) -> None:
    value = "value-of-no-secret-0123"
    if name != "PYTEST_CURRENT_TEST":  # a node id, never a secret, and never read
        assert not redact.secret_name(name)
    assert redact.env_secrets({name: value}) == {}
    assert redact.mask(f"x {value}", {name: value}) == f"x {value}"


def test_guards_environment_values_from_eight_characters_and_stripped() -> None:
    env = {"A_KEY": "eight8ch", "B_KEY": "seven7c", "C_TOKEN": "  spaced-token-1234  ",
           "D_TOKEN": ""}
    assert redact.env_secrets(env) == {"eight8ch": "$A_KEY", "spaced-token-1234": "$C_TOKEN"}
    assert redact.mask("eight8ch seven7c spaced-token-1234", env) == (
        "[redacted $A_KEY] seven7c [redacted $C_TOKEN]")


def test_guards_url_passwords_and_users_in_the_environment() -> None:
    env = {"SENTRY_DSN": "https://0123456789abcdef@o1.ingest.example/1",
           "CACHE": "redis://:pw4z@cache:6379/0", "OTHER": "redis://:pw3@cache:6379/0",
           "MIRROR": "https://someuser1:longerpw-99@mirror.example/"}
    found = redact.env_secrets(env)
    assert found["0123456789abcdef"] == "$SENTRY_DSN"  # the key is the URL's user part
    assert found["https://0123456789abcdef@o1.ingest.example/1"] == "$SENTRY_DSN"
    assert found["pw4z"] == "password in $CACHE" and "pw3" not in found
    assert found["longerpw-99"] == "password in $MIRROR" and "someuser1" not in found
    assert redact.mask("dsn key 0123456789abcdef", env) == "dsn key [redacted $SENTRY_DSN]"


def test_guards_a_secret_that_begins_another_leaves_nothing_of_the_longer(
        registry: dict[str, str]) -> None:
    short, long = "nested-secret-0123", "nested-secret-0123-and-more-4567"
    redact.register(short, "short")
    redact.register(long, "long")
    assert redact.mask(f"<{long}> <{short}>", NO_ENV) == "<[redacted: long]> <[redacted: short]>"
    env = {"A_KEY": short, "B_KEY": long}
    assert redact.mask(f"<{long}>", env) == "<[redacted: long]>"


def test_guards_the_environment_passed_is_the_one_used() -> None:
    a, b = {"A_API_KEY": "first-secret-0123456"}, {"B_API_KEY": "second-secret-987654"}
    text = "first-secret-0123456 second-secret-987654"
    assert redact.mask(text, a) == "[redacted $A_API_KEY] second-secret-987654"
    assert redact.mask(text, b) == "first-secret-0123456 [redacted $B_API_KEY]"
    assert redact.known(b)["second-secret-987654"] == "$B_API_KEY"
    assert "first-secret-0123456" not in redact.known(b)
    assert redact.mask(text, a) == "[redacted $A_API_KEY] second-secret-987654"


def test_guards_the_planted_secret_and_unknown_url_passwords() -> None:
    assert redact.mask(redact.PLANTED, NO_ENV) == "[redacted: planted secret]"
    assert redact.known(NO_ENV)[redact.PLANTED] == redact.PLANTED_LABEL
    assert redact.mask("see ftp://u:hunter22@h/x", NO_ENV) == (
        "see ftp://u:[redacted: password]@h/x")
    assert redact.mask("no url: u:hunter22@h", NO_ENV) == "no url: u:hunter22@h"
    kept = "https://u:[redacted: password]@h/"
    assert redact.mask(kept, NO_ENV) == kept
    assert redact.mask_url("https://me:pw-000111@h.example/v1") == (
        "https://me:[redacted: password]@h.example/v1")
    # the password repeated outside the userinfo (a query value) is masked there too
    assert redact.mask_url("https://me:pw-000111@h.example/v1?x=a:pw-000111@b&k=pw-000111") == (
        "https://me:[redacted: password]@h.example/v1?x=a:[redacted: password]@b"
        "&k=[redacted: password]")
    assert redact.mask_url("https://h.example/v1") == "https://h.example/v1"
    assert redact.mask_url("http://[::1") == "http://[::1"  # not a URL urlsplit reads
    assert redact.mask(12345678, NO_ENV) == 12345678 and redact.mask("abc", NO_ENV) == "abc"
    assert redact.mask("sk-t", NO_ENV) == "sk-t"


def test_guards_the_start_of_a_secret_cut_short_is_masked(registry: dict[str, str]) -> None:
    secret = "cut-short-secret-0123456789abcdef"  # 33 characters
    redact.register(secret, "gateway key")
    for shown in (secret[:17], secret[:20], secret[:32]):  # half of it or more
        assert redact.mask(f"got: {shown}…", NO_ENV) == "got: [redacted: gateway key]…"
        assert redact.mask(f"'{shown}'", NO_ENV) == "'[redacted: gateway key]'"
    for shown in (secret[:7], secret[:16]):  # shorter than 8, or than half: left readable
        assert redact.mask(f"got: {shown}…", NO_ENV) == f"got: {shown}…"
    assert redact.mask(f"{secret[:16]}X {secret[:20]}", NO_ENV) == (
        f"{secret[:16]}X [redacted: gateway key]")
    eight = "k8-0123456789ab"  # 15 characters: 8 is more than half
    redact.register(eight, "short key")
    assert redact.mask(eight[:8], NO_ENV) == "[redacted: short key]"
    assert redact.mask(eight[:7] + "!", NO_ENV) == eight[:7] + "!"
    # a path or a URL is masked whole, never by its start (shared with unrelated text)
    redact.register("/home/someone/creds-0123.json", "credentials file")
    text = "/home/someone/creds-0123.yaml"
    assert redact.mask(text, NO_ENV) == text


def test_guards_clip_masks_then_cuts() -> None:
    text = f"Error: could not connect with {redact.PLANTED} (retrying)"
    for limit in range(20, 60):
        cut = redact.clip(text, limit)
        assert len(cut) <= limit and redact.PLANTED[:8] not in cut, limit
    assert redact.clip(text, 200) == redact.mask(text)
    assert redact.clip("abcdef", 4, "…") == "abc…" and redact.clip("abcdef", 6, "…") == "abcdef"
    assert redact.clip(["x", redact.PLANTED], 400) == "['x', '[redacted: planted secret]']"


def test_guards_failure_text_is_masked_before_it_is_cut() -> None:
    from pytest_toolcall.core.errors import ConformanceFailure
    from pytest_toolcall.output.report import failure_lines

    leaked = f"{'x' * 380} {redact.PLANTED} tail"
    failure = ConformanceFailure("loop.sanitised", "leaks", expected="nothing", got=leaked)
    assert redact.PLANTED[:8] not in str(failure)
    line = failure_lines("y" * 290 + " " + redact.PLANTED)
    assert line is not None and redact.PLANTED[:8] not in line


def test_guards_the_matcher_is_rebuilt_only_when_something_changed(
        monkeypatch: pytest.MonkeyPatch, registry: dict[str, str]) -> None:
    redact.mask("warm the cache up")
    built = redact._cache["builds"]
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "tests/test_x.py::test_y (call)")
    redact.mask("again")
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    redact.mask("and again")
    assert redact._cache["builds"] == built  # pytest's own variable rebuilds nothing
    redact.register("fresh-secret-0123456", "fresh")
    assert redact.mask("fresh-secret-0123456") == "[redacted: fresh]"
    assert redact._cache["builds"] == built + 1
    redact.register("fresh-secret-0123456", "fresh")  # nothing new: nothing rebuilt
    redact.mask("once more")
    assert redact._cache["builds"] == built + 1
    monkeypatch.setenv("ZZ_GUARD_TOKEN", "env-secret-0123456")
    assert redact.mask("env-secret-0123456") == "[redacted $ZZ_GUARD_TOKEN]"
    assert redact._cache["builds"] == built + 2


# == the network block =============================================================================
@pytest.fixture
def server() -> Iterator[socket.socket]:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(4)
    with s:
        yield s


def test_guards_connect_ex_is_refused_too(server: socket.socket) -> None:
    port = server.getsockname()[1]
    with socket.socket() as client, block_network() as attempts, pytest.raises(
            NetworkBlocked, match=f"^blocked a connection to 127.0.0.1:{port}: replay never "):
        client.connect_ex(("127.0.0.1", port))
    assert [(a.host, a.port, a.kind) for a in attempts] == [("127.0.0.1", port, "connection")]
    with socket.socket() as client:  # negative control: outside the block it connects
        assert client.connect_ex(("127.0.0.1", port)) == 0


def test_guards_a_kit_port_is_reachable_on_loopback_only(server: socket.socket) -> None:
    port = server.getsockname()[1]
    with kit_port(port), block_network() as attempts:
        with socket.socket() as client:
            assert client.connect_ex(("127.0.0.1", port)) == 0
        with socket.socket() as client:
            client.connect(("localhost", port))
        with socket.socket() as client, pytest.raises(NetworkBlocked, match="192.0.2.1"):
            client.connect(("192.0.2.1", port))  # the kit's port on another host
    assert [a.host for a in attempts] == ["192.0.2.1"]
    with block_network(), socket.socket() as client, pytest.raises(NetworkBlocked):
        client.connect(("127.0.0.1", port))  # the port was given back
    add_kit_port(port)
    try:
        with block_network() as attempts, socket.socket() as client:
            client.connect(("127.0.0.1", port))
        assert attempts == []
    finally:
        netguard._kit_ports.discard(port)


def test_guards_a_nested_block_leaves_the_outer_one_on(server: socket.socket) -> None:
    port = server.getsockname()[1]
    original = socket.getaddrinfo
    with block_network("outer") as outer:
        with block_network("inner") as inner, pytest.raises(NetworkBlocked, match="outer"):
            socket.create_connection(("127.0.0.1", port), timeout=1)
        assert len(inner) == 0 and len(outer) == 1  # the outermost block refuses and keeps it
        with pytest.raises(NetworkBlocked, match="outer"):  # the inner one ended: still on
            socket.create_connection(("127.0.0.1", port), timeout=1)
        with pytest.raises(NetworkBlocked):
            socket.getaddrinfo("api.example.com", 443)
        assert len(outer) == 3
    assert socket.getaddrinfo is original and "connect" not in vars(socket.socket)
    socket.create_connection(("127.0.0.1", port), timeout=1).close()


def test_guards_unix_sockets_are_not_the_network() -> None:
    if not hasattr(socket, "AF_UNIX"):
        pytest.skip("no Unix sockets here")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "s")
        with socket.socket(socket.AF_UNIX) as listening:
            listening.bind(path)
            listening.listen(1)
            with block_network() as attempts, socket.socket(socket.AF_UNIX) as client:
                client.connect(path)
                with socket.socket(socket.AF_UNIX) as other:
                    assert other.connect_ex(path.encode()) == 0
            assert attempts == []


def test_guards_lookups_of_loopback_names_and_of_no_name(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[object] = []

    def resolver(host: object, *rest: object, **kwargs: object) -> list[object]:
        asked.append(host)
        return []

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    with block_network() as attempts:
        for host in (None, "localhost", "localhost.localdomain", "ip6-localhost", b"localhost",
                     "127.0.0.2", "::1", "::1%lo"):
            socket.getaddrinfo(host, 443)
        for host in (b"api.example.com", "localhost.example.com", "10.0.0.1"):
            with pytest.raises(NetworkBlocked, match="name lookup of"):
                socket.getaddrinfo(host, 443)
    assert asked == [None, "localhost", "localhost.localdomain", "ip6-localhost", b"localhost",
                     "127.0.0.2", "::1", "::1%lo"]
    assert [a.host for a in attempts] == ["api.example.com", "localhost.example.com",
                                          "10.0.0.1"]
    assert attempts[0].kind == "name lookup" and attempts[0].port == 443
    assert "blocked a name lookup of api.example.com:443 (getaddrinfo)" in str(attempts[0])


def test_guards_a_refusal_names_what_was_refused() -> None:
    error = NetworkBlocked("h.example", None, "replaying x")
    assert str(error).startswith("blocked a connection to h.example: replaying x never reaches")
    error = NetworkBlocked("h.example", "", "replaying x")
    assert str(error).startswith("blocked a connection to h.example: replaying x never reaches")
    error = NetworkBlocked("h.example", 0, "replaying x", "name lookup", "gethostbyname")
    assert str(error).startswith("blocked a name lookup of h.example (gethostbyname): ")
    assert (error.host, error.port, error.kind) == ("h.example", 0, "name lookup")


def test_guards_datagrams_without_an_address_and_lookups_by_address(
        monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as receiver:
        receiver.bind(("127.0.0.1", 0))
        address = receiver.getsockname()
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender:
            sender.connect(address)  # connected before the block: no address to check later
            with block_network() as attempts:
                assert sender.sendmsg([b"one"]) == 3
                assert sender.sendmsg([b"two"], [], 0, None) == 3
            assert attempts == []
        receiver.settimeout(5)
        assert receiver.recv(8) == b"one" and receiver.recv(8) == b"two"
    monkeypatch.setattr(socket, "getnameinfo", lambda *a: ("ok", "0"))
    monkeypatch.setattr(socket, "gethostbyaddr", lambda *a: ("ok", [], []))
    with block_network() as attempts:
        assert socket.getnameinfo(("127.0.0.1", 80), 0) == ("ok", "0")
        assert socket.getnameinfo(("127.0.0.1",), 0) == ("ok", "0")
        assert socket.gethostbyaddr("::1") == ("ok", [], [])
        with pytest.raises(NetworkBlocked, match="198.51.100.1"):
            socket.getnameinfo(("198.51.100.1",), 0)
    assert attempts[0].port is None


def test_guards_every_lookup_and_datagram_route_is_patched(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each name lookup function and each datagram method the block names is replaced while it
    is on: a dropped entry of its tables, or a replacement that checks nothing, goes through."""
    reached: list[str] = []
    for name in netguard._FUNCTIONS:
        monkeypatch.setattr(socket, name, lambda *a, _n=name, **k: reached.append(_n))
    calls = {"gethostbyname": ("203.0.113.9",), "gethostbyname_ex": ("203.0.113.9",),
             "gethostbyaddr": ("203.0.113.9",), "getnameinfo": (("203.0.113.9", 1), 0),
             "getaddrinfo": ("203.0.113.9", 1)}
    assert set(calls) == set(netguard._FUNCTIONS)
    with block_network() as attempts:
        for name, args in calls.items():
            port = ":1" if len(args) == 2 else ""
            with pytest.raises(NetworkBlocked, match=f"of 203.0.113.9{port} \\({name}\\): "):
                getattr(socket, name)(*args)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
            for via, send in (("sendto", lambda: udp.sendto(b"x", ("203.0.113.9", 9))),
                              ("sendmsg", lambda: udp.sendmsg([b"x"], [], 0,
                                                              ("203.0.113.9", 9)))):
                with pytest.raises(NetworkBlocked,
                                   match=f"datagram to 203.0.113.9:9 \\({via}\\): "):
                    send()
    assert reached == [] and len(attempts) == 7


def test_guards_what_the_block_lets_through_returns_what_the_call_returns() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as receiver:
        receiver.bind(("127.0.0.1", 0))
        port = receiver.getsockname()[1]
        with kit_port(port), block_network() as attempts, socket.socket(
                socket.AF_INET, socket.SOCK_DGRAM) as sender:
            assert sender.sendto(b"abc", ("127.0.0.1", port)) == 3
            assert sender.sendto(b"abcd", 0, ("127.0.0.1", port)) == 4
            assert sender.sendmsg([b"ab"], [], 0, ("127.0.0.1", port)) == 2
            assert socket.gethostbyname("localhost") == "127.0.0.1"
            assert socket.gethostbyname_ex("127.0.0.1")[2] == ["127.0.0.1"]
            assert socket.gethostbyaddr("127.0.0.1")[2] == ["127.0.0.1"]
            assert socket.getnameinfo(("127.0.0.1", 80), socket.NI_NUMERICHOST
                                      | socket.NI_NUMERICSERV) == ("127.0.0.1", "80")
            assert socket.getaddrinfo("127.0.0.1", 80, type=socket.SOCK_STREAM)[0][4][:2] == (
                "127.0.0.1", 80)
        assert attempts == []
        receiver.settimeout(5)
        assert [receiver.recv(8) for _ in range(3)] == [b"abc", b"abcd", b"ab"]


def test_guards_getnameinfo_checks_address_tuples_only() -> None:
    """Anything but a non-empty tuple is passed on, to fail as it fails without the block."""
    for sockaddr in ((), ["203.0.113.9", 1], "203.0.113.9"):
        with pytest.raises(TypeError) as unblocked:
            socket.getnameinfo(sockaddr, 0)  # type: ignore[arg-type]
        with block_network() as attempts, pytest.raises(TypeError) as blocked:
            socket.getnameinfo(sockaddr, 0)  # type: ignore[arg-type]
        assert str(blocked.value) == str(unblocked.value) and attempts == [], sockaddr


def test_guards_an_isolated_registry_starts_empty_and_gives_back_the_one_before() -> None:
    outside = "outside-secret-0123456"
    with redact.isolated():
        redact.register(outside, "outside")
        assert redact.mask(outside, NO_ENV) == "[redacted: outside]"
        with redact.isolated() as inner:
            assert inner == {}
            assert redact.mask(outside, NO_ENV) == outside  # the cached matcher follows
            redact.register("inside-secret-0123456", "inside")
        assert redact.mask(f"{outside} inside-secret-0123456", NO_ENV) == (
            "[redacted: outside] inside-secret-0123456")


def test_guards_an_address_without_a_port_and_a_class_method_put_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    with block_network() as attempts, socket.socket() as client, pytest.raises(
            NetworkBlocked, match="^blocked a connection to 203.0.113.9: "):
        client.connect(("203.0.113.9",))
    assert attempts[0].port is None

    def own_connect(self: socket.socket, address: object) -> str:
        return "the class's own"

    monkeypatch.setattr(socket.socket, "connect", own_connect, raising=False)
    with block_network():
        assert socket.socket.connect is not own_connect
    assert vars(socket.socket)["connect"] is own_connect  # what the block found, put back


def test_guards_the_first_mask_of_a_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing cached yet (a process's first mask, its environment's own)."""
    monkeypatch.setattr(redact, "_cache", {"key": None})
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "tests/test_x.py::test_y (call)")
    assert redact.mask(f"plain text, {redact.PLANTED}") == "plain text, [redacted: planted secret]"
    monkeypatch.setattr(redact, "_cache", {"key": None})
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    assert redact.mask("plain text") == "plain text"


def test_guards_of_secrets_that_start_alike_the_longest_start_shown_is_masked(
        registry: dict[str, str]) -> None:
    longer, shorter = "sharedhd-0123456789", "sharedhd-xyz9"
    redact.register(longer, "longer")
    redact.register(shorter, "shorter")
    assert redact.mask("got sharedhd-01234567…", NO_ENV) == "got [redacted: longer]…"
    assert redact.mask("got sharedhd-xyz…", NO_ENV) == "got [redacted: shorter]…"


def test_guards_starts_of_values_with_spaces_stay_and_ties_go_to_the_first(
        registry: dict[str, str]) -> None:
    env = {"X_TOKEN": "two words-0123456789"}  # a value with a space: masked whole only
    assert redact.mask("two words-012345", env) == "two words-012345"
    redact.register("tiedhead-aaaa1", "first")
    redact.register("tiedhead-aaaa2", "second")
    assert redact.mask("tiedhead-aaaa", NO_ENV) == "[redacted: first]"
    assert redact.clip("abcdef", 0, "…") == "…"

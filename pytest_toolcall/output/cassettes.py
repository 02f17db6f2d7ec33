"""Cassettes: recorded provider traffic, replayed offline with no secrets, streams re-chunked;
and golden snapshots of what adapters send.

The only module of the kit that touches vcrpy, and only inside :func:`vcr_context` (imported
lazily). It does not import pytest: the plugin side lives in ``cassettes_plugin.py``.

- Files: ``<dir>/<provider>/<case id>.yaml`` (vcrpy's YAML format) and request snapshots in
  ``<dir>/requests/<provider>/<case id>.json``. One file per case and provider, so pytest-xdist
  workers never write the same file; snapshots are written atomically.
- Secrets: :class:`Redactor` runs on every request and response before anything is written. It
  cannot be turned off; extra secrets can only be added.
- Matching: method, path, query (``key=`` left out), a digest of the canonical JSON body, and the
  *names* of the credentials sent (their values are never stored).
- Replay: :class:`ReplayTransport` (an httpx transport, sync and async) answers from the file and
  re-chunks recorded streams with :func:`pytest_toolcall.providers.fake.chunking.cut`, because vcrpy
  replays a body in one piece and hides chunk-boundary bugs.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx

from pytest_toolcall.core._names import MISSING_POLICIES, RECORD_MODES, REPLAY_CHUNKINGS
from pytest_toolcall.core.errors import ToolcallError

__all__ = [
    "CHUNKINGS",
    "MISSING_POLICIES",
    "RECORD_MODES",
    "Cassette",
    "CassetteError",
    "Interaction",
    "Redactor",
    "ReplayTransport",
    "UnmatchedRequest",
    "body_digest",
    "canonical_json",
    "cassette_path",
    "check_snapshot",
    "env_secrets",
    "load_cassette",
    "load_corpus_cassette",
    "record_command",
    "request_snapshot",
    "snapshot_path",
    "vcr_context",
    "write_atomic",
]

#: the --toolcall-record-mode, --toolcall-missing-cassette and --toolcall-replay-chunking choices
#: (defined in ``_names`` so that the plugin's entry point can offer them without loading vcrpy)
CHUNKINGS = REPLAY_CHUNKINGS

#: headers that carry credentials: their values are replaced, their presence kept (and checked)
AUTH_HEADERS = ("authorization", "x-api-key", "x-goog-api-key", "api-key")
#: any other header whose name :func:`pytest_toolcall.core.redact.secret_name` says holds a
#: secret carries a credential too (gateway headers such as helicone-auth, x-portkey-api-key,
#: cf-aig-authorization): the one rule for headers, query parameters and JSON body keys
#: headers whose values are account ids, session state or request signatures: replaced too
PRIVATE_HEADERS = ("cookie", "openai-organization", "openai-project", "proxy-authorization")
_PRIVATE_HEADER_WORDS = re.compile(r"signature", re.IGNORECASE)
#: response headers dropped entirely
DROPPED_RESPONSE_HEADERS = ("set-cookie",)
#: query parameters that carry credentials besides those :func:`~pytest_toolcall.core.redact.
#: secret_name` names (a URL signature)
AUTH_QUERY = ("key", "api_key", "api-key", "apikey", "access_token", "token", "auth",
              "password", "secret", "signature", "sig")
#: examples of JSON body fields whose string values are credentials, anywhere in the body; any
#: key :func:`~pytest_toolcall.core.redact.secret_name` names is one (``user_token``,
#: ``clientSecret``, ``db_password``), as for headers and environment variables
AUTH_BODY_FIELDS = ("api_key", "apikey", "api-key", "access_token", "secret", "client_secret",
                    "password", "authorization", "user_token")
REDACTED = "<redacted>"
#: headers left out of request snapshots: they change with library versions, not adapters
_VOLATILE_HEADERS = ("host", "content-length", "user-agent", "accept-encoding", "connection",
                     "accept", "transfer-encoding")


class CassetteError(ToolcallError):
    """A cassette could not be used: corrupt, of another provider, missing, or no match."""


class UnmatchedRequest(CassetteError):
    """In replay, a request the cassette holds no answer for: the request changed, or it was
    never recorded. The network stays blocked."""

    def __init__(self, message: str, *, method: str, path: str, digest: str) -> None:
        super().__init__(message)
        self.method, self.path, self.digest = method, path, digest


# -- secrets ------------------------------------------------------------------------------------
def env_secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of the environment's secret variables (see :mod:`pytest_toolcall.core.redact`) long
    enough to be secrets; longest first, so a key is replaced before a part of it."""
    from pytest_toolcall.core.redact import env_secrets as found

    return sorted(found(environ), key=len, reverse=True)


def _secret_key(key: Any) -> bool:
    from pytest_toolcall.core.redact import secret_name

    return secret_name(str(key))


#: what a key :func:`~pytest_toolcall.core.redact.secret_name` names holds, lower-cased: a body
#: without any of these (and without escapes) has no credential key
_KEY_STEMS = ("key", "token", "secret", "passw", "passphrase", "credential", "auth", "session",
              "cookie", 'pat"', 'dsn"', "database")
_KEY_STEMS_BYTES = tuple(stem.encode() for stem in _KEY_STEMS)
#: a quoted JSON key followed by its colon, in text without backslashes
_JSON_KEY = re.compile(r'"([^"]*)"\s*:')
_JSON_KEY_BYTES = re.compile(rb'"([^"]*)"\s*:')


def _no_credential_keys(raw: bytes) -> bool:
    """Whether no key of the JSON text ``raw`` can be a secret's name
    (:func:`~pytest_toolcall.core.redact.secret_name`), told without parsing it. Text with a
    backslash (an escaped key), or that is not UTF-8, is parsed and walked; so is text holding
    any of the words a secret's name is made of, unless none of its keys is one. Without a
    backslash no string holds a quote, so every key stands as written between quotes, before
    its colon; ``str.lower`` maps character by character (the Kelvin sign lower-cases to an
    ASCII k, which :func:`~pytest_toolcall.core.redact.secret_name` reads as one too)."""
    if b"\\" in raw:
        return False
    if raw.isascii():
        lowered_bytes = raw.lower()
        if not any(stem in lowered_bytes for stem in _KEY_STEMS_BYTES):
            return True
        return not any(_secret_key(key.decode()) for key in set(_JSON_KEY_BYTES.findall(raw)))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    lowered = text.lower()
    if not any(stem in lowered for stem in _KEY_STEMS):
        return True
    return not any(_secret_key(key) for key in set(_JSON_KEY.findall(text)))


#: a path alone: one slash first, then no query, fragment, userinfo or the characters urlsplit
#: drops (tab, CR, LF)
_BARE_PATH = re.compile(r"/(?!/)[^?#@\t\r\n]*")


class Redactor:
    """Takes secrets out of requests and responses before they are written.

    Besides the fixed header and query names, every credential value seen in a request (and the
    bearer token inside ``Authorization``) joins the secrets, so a key the provider echoes back
    in a response body is scrubbed too. There is no switch to turn it off.
    """

    def __init__(self, secrets: Iterable[str] = (), *, environ: Mapping[str, str] | None = None):
        from pytest_toolcall.core import redact

        # every value the kit masks anywhere (the environment's, registered keys and passwords,
        # the planted tool secret): one redactor for everything the kit writes
        self.secrets: set[str] = {s for s in secrets if s} | set(redact.known(environ))

    def learn(self, value: str) -> None:
        """A credential seen on the wire: masked here, and in every report from now on."""
        from pytest_toolcall.core import redact

        value = value.strip()
        if len(value) >= 4 and value != REDACTED:
            self.secrets.add(value)
            scheme, _, token = value.partition(" ")
            if token and scheme.lower() in ("bearer", "basic", "token"):
                self.secrets.add(token.strip())
            redact.register(value, "credential sent to the provider")

    def learn_body(self, data: bytes) -> None:
        """Credentials in JSON body fields (``api_key``, ``access_token``, ...) at any depth."""
        if isinstance(data, bytes) and _no_credential_keys(data):
            return
        try:
            value = json.loads(data)
        except (ValueError, UnicodeDecodeError):
            return
        self.learn_json(value)

    def learn_json(self, value: Any) -> None:
        """:meth:`learn_body` of a body already parsed."""
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                for key, inner in item.items():
                    if isinstance(inner, str) and len(inner) >= 8 and _secret_key(key):
                        self.learn(inner)
                    else:
                        stack.append(inner)
            elif isinstance(item, list):
                stack.extend(item)

    def scrub_text(self, text: str) -> str:
        for secret in sorted(self.secrets, key=len, reverse=True):
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def scrub_bytes(self, data: bytes) -> bytes:
        for secret in sorted(self.secrets, key=len, reverse=True):
            needle = secret.encode()
            if needle in data:
                data = data.replace(needle, REDACTED.encode())
        return data

    def headers(self, headers: Mapping[str, Any], *, response: bool = False) -> dict[str, Any]:
        """Redacted copy; values may be strings or lists of strings (vcrpy's stored form)."""
        out: dict[str, Any] = {}
        for name, value in headers.items():
            lower = name.lower()
            values = value if isinstance(value, list) else [value]
            if response and lower in DROPPED_RESPONSE_HEADERS:
                continue
            if (lower in AUTH_HEADERS or lower in PRIVATE_HEADERS
                    or (not response and (_secret_key(lower)
                                          or _PRIVATE_HEADER_WORDS.search(lower)))):
                for v in values:
                    self.learn(str(v))
                values = [REDACTED for _ in values]
            else:
                values = [self.scrub_text(str(v)) for v in values]
            out[name] = values if isinstance(value, list) else values[0]
        return out

    def uri(self, uri: str) -> str:
        if _BARE_PATH.fullmatch(uri):
            # a bare path (what the fake records): no query, no userinfo, and urlunsplit gives
            # back what urlsplit took apart, so only the secrets are left to scrub
            return self.scrub_text(uri)
        return self._uri_parsed(uri)

    def _uri_parsed(self, uri: str) -> str:
        parts = urlsplit(uri)
        query = []
        if parts.password:
            self.learn(parts.password)
        for key, value in parse_qsl(parts.query, keep_blank_values=True):
            if _auth_query(key):
                self.learn(value)
                value = REDACTED
            query.append((key, value))
        clean = urlunsplit(parts._replace(query=urlencode(query, safe="<>"),
                                          netloc=parts.netloc.rpartition("@")[2]))
        return self.scrub_text(clean)

    # vcrpy hooks: called on copies, before matching and before writing
    def vcr_request(self, request: Any) -> Any:
        request.headers = self.headers(dict(request.headers))  # learns the credentials first
        request.uri = self.uri(request.uri)
        if request.body:
            body = request.body if isinstance(request.body, bytes) else str(request.body).encode()
            self.learn_body(body)
            request.body = self.scrub_bytes(body)
        return request

    def vcr_response(self, response: dict[str, Any]) -> dict[str, Any]:
        response["headers"] = self.headers(response.get("headers") or {}, response=True)
        body = (response.get("body") or {}).get("string")
        if isinstance(body, bytes):
            response["body"]["string"] = self.scrub_bytes(body)
        elif isinstance(body, str):
            response["body"]["string"] = self.scrub_text(body)
        return response


# -- canonical bodies and matching --------------------------------------------------------------
#: canonical_json's compact form, built once (json.dumps builds an encoder per call)
_COMPACT_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def canonical_json(value: Any, *, indent: int | None = None) -> str:
    """Sorted keys, no ASCII escapes: the same JSON always gives the same text."""
    if indent is None:
        return _COMPACT_CANONICAL.encode(value)
    separators = (",", ": ") if indent else (",", ":")
    return json.dumps(value, sort_keys=True, ensure_ascii=False, indent=indent,
                      separators=separators)


def _meaningful(body: bytes | str | None, ignore: Sequence[str] = ()) -> str:
    if body is None or body == b"" or body == "":
        return ""
    raw = body.encode() if isinstance(body, str) else body
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return raw.decode("utf-8", "replace")
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k not in ignore}
    return canonical_json(data, indent=2)


def body_digest(body: bytes | str | None, ignore: Sequence[str] = ()) -> str:
    """A short digest of the body's meaningful content: key order and whitespace do not count,
    a changed value does (top-level keys in ``ignore`` are left out)."""
    return hashlib.sha256(_meaningful(body, ignore).encode()).hexdigest()[:16]


def auth_names(headers: Mapping[str, Any], query: str) -> tuple[str, ...]:
    """Which credentials a request carries (names only): ``('authorization',)``, ``('?key',)``."""
    names = [n.lower() for n, v in headers.items() if n.lower() in AUTH_HEADERS and v]
    names += [f"?{k.lower()}" for k, v in parse_qsl(query) if _auth_query(k) and v]
    return tuple(sorted(set(names)))


def _auth_query(name: str) -> bool:
    return name.lower() in AUTH_QUERY or _secret_key(name)


def _query_without_auth(query: str) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, v) for k, v in parse_qsl(query, keep_blank_values=True)
                        if not _auth_query(k)))


def _same_but_digest(recorded: RequestKey, sent: RequestKey) -> bool:
    return (recorded.method, recorded.path, recorded.query, recorded.auth) == (
        sent.method, sent.path, sent.query, sent.auth)


def _parsed(body: bytes | str | None) -> Any:
    if body is None or body in (b"", ""):
        return _NO_BODY
    raw = body.encode() if isinstance(body, str) else body
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return raw.decode("utf-8", "replace")


_NO_BODY = object()


def redacted_match(recorded: bytes | str | None, sent: bytes | str | None,
                   ignore: Sequence[str] = ()) -> bool:
    """Whether ``sent`` is the ``recorded`` body with secrets in the places the recording
    redacted: a stored ``"<redacted>"`` matches any value at that place, and a string holding
    ``<redacted>`` matches any text in its place (issue 35: a credential in the body was stored
    redacted, so replay never matched the live body). Everything else must be equal (top-level
    keys in ``ignore`` left out)."""
    old, new = _parsed(recorded), _parsed(sent)
    if isinstance(old, dict) and isinstance(new, dict):
        old = {k: v for k, v in old.items() if k not in ignore}
        new = {k: v for k, v in new.items() if k not in ignore}
    return _same_redacted(old, new)


def _same_redacted(old: Any, new: Any) -> bool:
    if isinstance(old, str) and REDACTED in old:
        if old == REDACTED:
            return True
        if not isinstance(new, str):
            return False
        pattern = ".+".join(re.escape(part) for part in old.split(REDACTED))
        return re.fullmatch(pattern, new, re.DOTALL) is not None
    if type(old) is not type(new):
        return False
    if isinstance(old, dict):
        return old.keys() == new.keys() and all(_same_redacted(v, new[k])
                                                for k, v in old.items())
    if isinstance(old, list):
        return len(old) == len(new) and all(map(_same_redacted, old, new))
    return bool(old == new)


@dataclass(frozen=True)
class RequestKey:
    """What must be equal for a recorded answer to be replayed."""

    method: str
    path: str
    query: tuple[tuple[str, str], ...]
    digest: str
    auth: tuple[str, ...]

    def describe(self) -> str:
        query = f"?{urlencode(self.query)}" if self.query else ""
        return f"{self.method} {self.path}{query} (body sha256:{self.digest})"


def request_key(method: str, uri: str, headers: Mapping[str, Any], body: bytes | str | None,
                ignore: Sequence[str] = ()) -> RequestKey:
    parts = urlsplit(uri)
    return RequestKey(method.upper(), parts.path.rstrip("/") or "/",
                      _query_without_auth(parts.query), body_digest(body, ignore),
                      auth_names(headers, parts.query))


# -- files --------------------------------------------------------------------------------------
def cassette_path(root: Path | str, provider: str, case_id: str) -> Path:
    """``<root>/<provider>/<case id>.yaml``."""
    return Path(root) / provider / f"{case_id}.yaml"


def snapshot_path(root: Path | str, provider: str, case_id: str) -> Path:
    """``<root>/requests/<provider>/<case id>.json``."""
    return Path(root).joinpath("requests", provider, f"{case_id}.json")


def write_atomic(path: Path, text: str) -> None:
    """Write through a temporary file and a rename: a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def record_command(provider: str, case_id: str, *, mode: str = "once",
                   key_hint: str | None = None) -> str:
    """The command that records the cassette of one case."""
    prefix = f"{key_hint}=... " if key_hint else ""
    return (f"{prefix}pytest --toolcall-provider={provider} --toolcall-live "
            f"--toolcall-cases='{case_id}' --toolcall-record-mode={mode}")


# -- loading ------------------------------------------------------------------------------------
@dataclass
class Interaction:
    """One recorded request and the answer to it (bodies as bytes)."""

    method: str
    uri: str
    request_headers: dict[str, list[str]]
    request_body: bytes
    status: int
    response_headers: dict[str, list[str]]
    response_body: bytes
    plays: int = 0

    @property
    def path(self) -> str:
        return urlsplit(self.uri).path

    def key(self, ignore: Sequence[str] = ()) -> RequestKey:
        return request_key(self.method, self.uri, self.request_headers, self.request_body, ignore)

    def header(self, name: str) -> str:
        for key, values in self.response_headers.items():
            if key.lower() == name.lower() and values:
                return str(values[0])
        return ""


@dataclass
class Cassette:
    path: Path
    interactions: list[Interaction] = field(default_factory=list)


def _load_yaml(path: Path) -> Any:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CassetteError(f"cassette {path}: not UTF-8 text ({exc}); delete it and record it "
                            "again") from None
    try:
        return yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise CassetteError(f"cassette {path}: not valid YAML{where}: {problem}; delete it and "
                            "record it again") from None


def _as_bytes(value: Any) -> bytes:
    if value is None:
        return b""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    return json.dumps(value, ensure_ascii=False).encode()  # a parsed body (wire-corpus style)


def _headers(value: Any, where: str) -> dict[str, list[str]]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise CassetteError(f"{where}: headers must be a mapping, got {type(value).__name__}")
    return {str(k): [str(x) for x in (v if isinstance(v, list) else [v])]
            for k, v in value.items()}


def _body(part: dict[str, Any]) -> bytes:
    if "parsed_body" in part:  # pydantic-ai's serializer stores JSON bodies parsed
        return _as_bytes(part["parsed_body"])
    body = part.get("body")
    if isinstance(body, dict):
        return _as_bytes(body.get("string"))
    return _as_bytes(body)


def parse_cassette(data: Any, path: Path) -> Cassette:
    """Check the shape of a loaded cassette; errors name the file, the interaction and field."""
    if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
        got = type(data).__name__ if not isinstance(data, dict) else f"keys {sorted(data)}"
        raise CassetteError(f"cassette {path}: expected a mapping with an 'interactions' list "
                            f"(vcrpy's format), got {got}; delete it and record it again")
    cassette = Cassette(path)
    for index, item in enumerate(data["interactions"]):
        where = f"cassette {path}, interaction #{index}"
        try:
            request, response = item["request"], item["response"]
            method, uri = str(request["method"]).upper(), str(request["uri"])
            status = response["status"]
            code = int(status["code"] if isinstance(status, dict) else status)
        except (KeyError, TypeError, ValueError) as exc:
            raise CassetteError(f"{where}: missing or malformed field {exc}; an interaction needs "
                                "request.method, request.uri and response.status.code") from None
        cassette.interactions.append(Interaction(
            method=method, uri=uri, request_headers=_headers(request.get("headers"), where),
            request_body=_body(request), status=code,
            response_headers=_headers(response.get("headers"), where),
            response_body=_body(response)))
    return cassette


def check_provider(cassette: Cassette, provider: str) -> None:
    """A clear error when the cassette holds another provider's traffic."""
    from pytest_toolcall.providers.base import DIALECT_NAMES, get_dialect

    if provider not in DIALECT_NAMES:
        return
    own = get_dialect(provider)
    for index, item in enumerate(cassette.interactions):
        if own.route(item.method, item.path):
            continue
        others = [n for n in DIALECT_NAMES if n != provider
                  and get_dialect(n).route(item.method, item.path)]
        whose = f"traffic of {others[0]}" if others else "traffic no known provider serves"
        raise CassetteError(
            f"cassette {cassette.path} holds {whose} (interaction #{index}: {item.method} "
            f"{item.path}), not {provider}'s. It is in the wrong folder or was recorded for "
            f"another provider: move it to the folder of {others[0] if others else 'its provider'}"
            f", or delete it and record it again for {provider}.")


def check_bodies(cassette: Cassette) -> None:
    """A successful answer the cassette says is JSON must be JSON: a body cut short or edited
    by hand is the cassette's fault (an error naming the file), never the adapter's
    ``live.accepted`` (issue 35). Streams (SSE, NDJSON) are split by the replay, not read here."""
    for index, item in enumerate(cassette.interactions):
        kind = ",".join(v for k, vs in item.response_headers.items()
                        if k.lower() == "content-type" for v in vs).lower()
        if not 200 <= item.status < 300 or "json" not in kind or any(
                s in kind for s in ("ndjson", "jsonl", "event-stream")):
            continue
        try:
            json.loads(item.response_body)
        except ValueError as exc:
            raise CassetteError(
                f"cassette {cassette.path}, interaction #{index}: the response body is not the "
                f"JSON its content-type ({kind}) says ({exc}; it starts "
                f"{item.response_body[:60]!r}); delete the cassette and record it again") from None


def load_cassette(path: Path | str, provider: str | None = None) -> Cassette:
    """Load and check a cassette written by the kit (or any vcrpy YAML cassette)."""
    path = Path(path)
    if not path.is_file():
        raise CassetteError(f"cassette {path} does not exist")
    cassette = parse_cassette(_load_yaml(path), path)
    if provider is not None:
        check_provider(cassette, provider)
        check_bodies(cassette)
    return cassette


def load_corpus_cassette(path: Path | str) -> Cassette:
    """A pydantic-ai style cassette (the kit's tests use ``tests/data/wire-corpus``): JSON
    bodies under ``parsed_body``, others under ``body.string``. Replay it with
    ``match='sequence'``."""
    return load_cassette(path)


# -- replay -------------------------------------------------------------------------------------
def _stream_events(body: bytes, content_type: str) -> list[bytes] | None:
    """A recorded stream split into its events (SSE: blank-line separated; NDJSON: lines)."""
    if "event-stream" in content_type:
        normal = body.replace(b"\r\n", b"\n")
        pieces = re.split(rb"(?<=\n\n)", normal)
        return [p for p in pieces if p]
    if "ndjson" in content_type or "jsonl" in content_type:
        return [line for line in body.splitlines(keepends=True) if line]
    return None


def rechunk(body: bytes, content_type: str, chunking: str, seed: int = 0) -> list[bytes]:
    """``body`` as transport chunks: a stream cut by the chunking policy; other bodies whole."""
    events = _stream_events(body, content_type)
    if chunking == "recorded" or events is None:
        return [body] if body else []
    from pytest_toolcall.cases import StreamPlan
    from pytest_toolcall.providers.fake.chunking import cut

    return cut(events, StreamPlan(chunking=chunking, seed=seed))  # type: ignore[arg-type]


class _Chunks(httpx.SyncByteStream, httpx.AsyncByteStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        yield from self.chunks

    async def __aiter__(self) -> Any:
        for chunk in self.chunks:
            yield chunk


_HOP_HEADERS = ("content-length", "content-encoding", "transfer-encoding", "connection")


class ReplayTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """Answers httpx requests from a cassette; never opens a socket.

    ``match='request'`` (the default): method, path, query, body digest and credential names
    must equal a recorded request, else :class:`UnmatchedRequest` names the request, the closest
    recorded one with a diff of the bodies, and ``record_hint`` (the command that records it).
    ``match='sequence'``: the recorded answers in order, whatever was asked (for real traffic
    recorded by another client, such as the wire corpus).
    """

    def __init__(self, cassette: Cassette, *, chunking: str = "seeded", seed: int = 0,
                 match: str = "request", ignore_body_keys: Sequence[str] = (),
                 redactor: Redactor | None = None, record_hint: str = "") -> None:
        if chunking not in CHUNKINGS:
            raise CassetteError(f"replay chunking {chunking!r}: use one of {CHUNKINGS}")
        if match not in ("request", "sequence"):
            raise CassetteError(f"replay match {match!r}: use 'request' or 'sequence'")
        self.cassette, self.chunking, self.seed, self.match = cassette, chunking, seed, match
        self.ignore = tuple(ignore_body_keys)
        self.redactor = redactor or Redactor()
        self.record_hint = record_hint
        self.requests: list[RequestKey] = []

    def _find(self, request: httpx.Request, body: bytes) -> Interaction:
        if self.match == "sequence":
            position = len(self.requests)
            self.requests.append(request_key(request.method, str(request.url), {}, body))
            if position >= len(self.cassette.interactions):
                raise UnmatchedRequest(
                    f"cassette {self.cassette.path} holds {len(self.cassette.interactions)} "
                    f"answer(s); request #{position + 1} ({request.method} {request.url.path}) "
                    "has none", method=request.method, path=request.url.path, digest="")
            return self.cassette.interactions[position]
        headers = self.redactor.headers(dict(request.headers))
        uri = self.redactor.uri(str(request.url))
        self.redactor.learn_body(body)  # a credential in the body, as recording stored it
        scrubbed = self.redactor.scrub_bytes(body)
        key = request_key(request.method, uri, headers, scrubbed, self.ignore)
        self.requests.append(key)
        found = [i for i in self.cassette.interactions if i.key(self.ignore) == key]
        if not found:
            # a field stored as "<redacted>" matches whatever is sent in its place (a key the
            # recording never saw as one, a secret of another run's environment)
            found = [i for i in self.cassette.interactions
                     if _same_but_digest(i.key(self.ignore), key)
                     and (redacted_match(i.request_body, scrubbed, self.ignore)
                          or redacted_match(i.request_body, body, self.ignore))]
        if not found:
            raise self._unmatched(key, scrubbed)
        # in recorded order, then again from the start (a case runs once per interface)
        item = min(found, key=lambda i: i.plays)
        item.plays += 1
        return item

    def _unmatched(self, key: RequestKey, body: bytes) -> UnmatchedRequest:
        """The error for a request no interaction answers; ``body`` is the scrubbed body. No
        secret is printed: both sides of the diff are scrubbed and masked."""
        from pytest_toolcall.core.redact import mask

        rerecord = True
        lines = [(f"no recorded interaction in {self.cassette.path} matches {key.describe()}; "
                 "the network is blocked in replay (record mode 'none').")]
        same_route = [i for i in self.cassette.interactions
                      if i.method == key.method and i.path.rstrip("/") == key.path]
        if not self.cassette.interactions:
            lines.append("The cassette holds no interactions.")
        elif not same_route:
            recorded = sorted({f"{i.method} {i.path}" for i in self.cassette.interactions})
            lines.append(f"Recorded routes: {', '.join(recorded)}.")
        else:
            closest = same_route[0]
            ckey = closest.key(self.ignore)
            if ckey.digest == key.digest and ckey.query == key.query and ckey.auth != key.auth:
                lines.append(f"Only the credentials differ: recorded with "
                             f"{list(ckey.auth) or 'none'}, sent with {list(key.auth) or 'none'}"
                             " (an adapter that stopped sending its key is a change too).")
            else:
                lines.append("The request body changed since it was recorded (a detected "
                             "change, not a silent replay):")
                old = mask(_meaningful(self.redactor.scrub_bytes(closest.request_body),
                                       self.ignore))
                new = mask(_meaningful(self.redactor.scrub_bytes(body), self.ignore))
                if old == new:  # they differ in secrets only, which no cassette holds
                    rerecord = False
                    lines[-1] = ("The request body differs from the recorded one in secret "
                                 "values only (masked here, never stored): recording again "
                                 "cannot help. Send the same request with any key; a "
                                 "credential belongs in a header or a field whose name says "
                                 "so (api_key, *_token, *secret*, *password*).")
                else:
                    lines += list(difflib.unified_diff(old.splitlines(), new.splitlines(),
                                                       "recorded", "sent now", lineterm="",
                                                       n=2))[:60]
        if self.record_hint and rerecord:
            lines.append(f"If the change is intended, record it again: {self.record_hint}")
        return UnmatchedRequest(mask("\n".join(lines)), method=key.method, path=key.path,
                                digest=key.digest)

    def _response(self, request: httpx.Request, item: Interaction) -> httpx.Response:
        headers = [(k, v) for k, values in item.response_headers.items()
                   if k.lower() not in _HOP_HEADERS for v in values]
        chunks = rechunk(item.response_body, item.header("content-type"), self.chunking,
                         self.seed)
        return httpx.Response(item.status, headers=headers, stream=_Chunks(chunks),
                              request=request)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self._response(request, self._find(request, request.read()))

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return self._response(request, self._find(request, await request.aread()))


# -- vcrpy (recording, and the network block around a replay) -----------------------------------
@contextlib.contextmanager
def vcr_context(path: Path, mode: str, redactor: Redactor,
                ignore_body_keys: Sequence[str] = (),
                refused: list[int] | None = None) -> Iterator[Any]:
    """vcrpy's cassette at ``path`` in ``mode``: records (secrets out) when the mode lets it,
    replays in one piece, and refuses any request it cannot answer when the mode is 'none'.

    With ``refused`` (a list), an answer with an error status (400 and above) is never recorded:
    its status is appended to ``refused`` instead, for the caller to drop the whole cassette."""
    if mode not in RECORD_MODES:
        raise CassetteError(f"record mode {mode!r}: use one of {RECORD_MODES}")
    import vcr  # lazily: only recording and replay need it

    ignore = tuple(ignore_body_keys)

    def toolcall_body(r1: Any, r2: Any) -> None:
        a, b = body_digest(r1.body, ignore), body_digest(r2.body, ignore)
        # a field stored redacted matches whatever the live request holds in its place
        assert a == b or redacted_match(r1.body, r2.body, ignore) or redacted_match(
            r2.body, r1.body, ignore), f"body sha256:{a} != sha256:{b}"

    def toolcall_query(r1: Any, r2: Any) -> None:
        a, b = (_query_without_auth(urlsplit(r.uri).query) for r in (r1, r2))
        assert a == b, f"query {a} != {b}"

    def toolcall_auth(r1: Any, r2: Any) -> None:
        a, b = (auth_names(dict(r.headers), urlsplit(r.uri).query) for r in (r1, r2))
        assert a == b, f"credentials {a} != {b}"

    recorder = vcr.VCR(record_mode=mode, decode_compressed_response=True)
    for matcher in (toolcall_body, toolcall_query, toolcall_auth):
        recorder.register_matcher(matcher.__name__, matcher)
    path.parent.mkdir(parents=True, exist_ok=True)
    with recorder.use_cassette(
        str(path), serializer="yaml",
        match_on=["method", "path", "toolcall_query", "toolcall_body", "toolcall_auth"],
        before_record_request=redactor.vcr_request,
        before_record_response=(redactor.vcr_response if refused is None
                                else _keep_successes(redactor.vcr_response, refused)),
        allow_playback_repeats=True,
    ) as cassette:
        yield cassette


def _keep_successes(scrub: Callable[[dict[str, Any]], dict[str, Any]],
                    refused: list[int]) -> Callable[[dict[str, Any]], dict[str, Any] | None]:
    def before_record_response(response: dict[str, Any]) -> dict[str, Any] | None:
        status = response.get("status", {}).get("code")
        if isinstance(status, int) and status >= 400:
            refused.append(status)
            return None  # vcrpy records nothing for None
        return scrub(response)

    return before_record_response


def unmatched_from_vcr(error: BaseException, path: Path, hint: str) -> UnmatchedRequest:
    """vcrpy's refusal turned into the kit's error (method, path, body digest, command)."""
    request = getattr(error, "failed_request", None)
    method = str(getattr(request, "method", "?"))
    req_path = str(getattr(request, "path", "?"))
    digest = body_digest(getattr(request, "body", None))
    return UnmatchedRequest(
        f"the cassette {path} holds no answer for {method} {req_path} (body sha256:{digest}) "
        f"and the record mode does not allow recording it. Record it: {hint}",
        method=method, path=req_path, digest=digest)


# -- request snapshots --------------------------------------------------------------------------
def request_snapshot(exchanges: Iterable[Any], redactor: Redactor | None = None) -> str:
    """What the adapter sent, as canonical JSON: method, path, query, stable headers, body.

    ``exchanges`` are the fake provider's :class:`~pytest_toolcall.providers.fake.Exchange` records.
    """
    return canonical_json(_snapshot_data(exchanges, redactor), indent=2) + "\n"


_UNPARSED = object()


def _snapshot_data(exchanges: Iterable[Any], redactor: Redactor | None = None) -> dict[str, Any]:
    """What :func:`request_snapshot` writes, before it is written as text."""
    redactor = redactor or Redactor()
    # two passes: every credential the requests carry is learned before any body is scrubbed,
    # so a key sent in a plain field of one request and as a credential in a later one is
    # masked in both (one pass left it in clear in the earlier request)
    seen = []
    for exchange in exchanges:
        headers = {k: v for k, v in exchange.headers.items()
                   if k.lower() not in _VOLATILE_HEADERS
                   and not k.lower().startswith("x-stainless")}
        if headers:
            redactor.headers(headers)  # learns the credential headers' values
        raw = exchange.body
        # the fake provider parsed these very bytes (Exchange.json); read as they are
        parsed: Any = getattr(exchange, "json", None)
        if parsed is None:
            try:
                parsed = json.loads(raw) if raw else None
            except (ValueError, UnicodeDecodeError):
                parsed = _UNPARSED
        if parsed is not _UNPARSED and not _no_credential_keys(raw):
            redactor.learn_json(parsed)
        seen.append((exchange, headers, raw, parsed))
    entries = []
    for exchange, headers, raw, parsed in seen:
        headers = redactor.headers(headers) if headers else {}
        scrubbed = redactor.scrub_bytes(raw)
        body_text = scrubbed.decode("utf-8", "replace")
        if (parsed is not _UNPARSED and scrubbed is raw and raw[:3] != b"\xef\xbb\xbf"
                and body_text.encode() == raw):
            # nothing was scrubbed from a UTF-8 body: the text parses to what the bytes did
            body: Any = parsed
        else:
            try:
                body = json.loads(body_text) if body_text else None
            except ValueError:
                body = body_text
        entries.append({"step": exchange.step, "method": exchange.method,
                        "path": redactor.uri(exchange.path), "headers": headers, "body": body})
    return {"requests": entries}


#: snapshot file text -> the compact canonical JSON of what it holds, or None when the text is
#: not exactly what request_snapshot() writes for it (then only a text comparison will do)
_SNAPSHOT_FORMS: dict[str, str | None] = {}


def _snapshot_unchanged(path: Path, data: Any) -> bool:
    """Whether the snapshot at ``path`` is exactly the text :func:`request_snapshot` makes of
    ``data``, without writing that text: indented JSON goes through the json module's pure
    Python encoder, five times slower than the compact form in C, and the two forms of the same
    value are equal exactly when the values are (the indentation follows from the value). Each
    snapshot file's own form is worked out once per process (keyed by its text)."""
    try:
        with open(path, "rb") as handle:  # (read_text's text layer costs more than the read)
            old = handle.read().decode("utf-8")
    except OSError:
        return False
    if "\r" in old:  # what read_text's universal newlines make of it
        old = old.replace("\r\n", "\n").replace("\r", "\n")
    if old not in _SNAPSHOT_FORMS:
        try:
            value = json.loads(old)
        except ValueError:
            form = None
        else:
            form = (canonical_json(value) if canonical_json(value, indent=2) + "\n" == old
                    else None)
        if len(_SNAPSHOT_FORMS) >= 4096:  # rewritten snapshots (--toolcall-snapshot-update)
            _SNAPSHOT_FORMS.clear()
        _SNAPSHOT_FORMS[old] = form
    form = _SNAPSHOT_FORMS[old]
    return form is not None and form == canonical_json(data)


def check_snapshot(path: Path, text: str, *, update: bool) -> str | None:
    """Compare ``text`` with the snapshot at ``path``.

    Returns ``None`` when equal (or written, with ``update``), else a unified diff. A missing
    snapshot is written only with ``update``: never created silently.
    """
    old = path.read_text(encoding="utf-8") if path.is_file() else None
    if old == text:
        return None
    if update:
        write_atomic(path, text)
        return None
    if old is None:
        return None
    diff = difflib.unified_diff(old.splitlines(), text.splitlines(), f"{path} (snapshot)",
                                "sent now", lineterm="")
    return "\n".join(diff)

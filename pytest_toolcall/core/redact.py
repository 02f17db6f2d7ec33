"""One value-based redactor for everything the kit writes or prints (issue 18).

Cassettes, request snapshots, the JSON and Markdown reports, JUnit properties, failure messages
and the terminal all mask through :func:`mask` (cassettes and snapshots through
:class:`pytest_toolcall.output.cassettes.Redactor`, which takes its values from :func:`known`). A
secret is masked by its *value*, wherever it appears, once the kit knows it:

- environment variables whose names say they hold one (:func:`secret_name`, the one rule
  for environment variables, headers, query parameters and JSON body keys), the user part of a
  URL such a variable holds (``SENTRY_DSN=https://KEY@host/1``), and the password of any URL
  held by any environment variable;
- values the kit was given or found and registered with :func:`register`: the api key a live run
  uses, the password of ``--toolcall-base-url``, credentials a cassette's redactor saw in headers,
  query parameters and JSON body fields;
- the secret the kit plants in a crashing tool's text (:data:`PLANTED`, which
  :mod:`pytest_toolcall.cases.tools` puts in its crash text), masked as
  ``[redacted: planted secret]`` so a reader knows the kit put it there;
- the password in any ``scheme://user:password@host`` found in the text;
- the start of a known secret cut short: any run of :data:`MIN_PREFIX` (8) or more
  characters, and at least half of the secret, that begins a known secret with no ``/`` and
  no space in it (a key, a token, a password; not a path or a URL, whose first characters are
  shared with unrelated text), wherever the text was cut. :func:`clip` masks first and then cuts, which is what every cut must do.

Masks say what was masked, never the value: ``[redacted $OPENAI_API_KEY]``,
``[redacted: planted secret]``, ``[redacted: password of --toolcall-base-url]``.
No pytest here and nothing else of the kit's: it sits at the bottom layer, so that
:class:`pytest_toolcall.core.errors.ConformanceFailure` masks its own text (a failure raised by
``run_case`` outside pytest carries no secret either); the plugin applies it to every report of
a suite item.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit

__all__ = ["MIN_PREFIX", "PLANTED", "PLANTED_LABEL", "clip", "env_secrets", "forget", "isolated",
           "known", "mask", "mask_url", "register", "secret_name"]

#: the secret the kit plants in crashing tools' text (``pytest_toolcall.cases.tools.SECRET``); it
#: must never reach the model, the client or anything the kit writes
PLANTED = "sk-tc-PLANTED-9f8e7d6c5b4a3928"
#: the label of the secret the kit plants in crashing tools' text
PLANTED_LABEL = "planted secret"
#: a name's words: runs of letters and digits, split at '_', '-', '.' and camelCase humps
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])|[0-9]+")
#: a word holding one of these holds a secret ("clientsecret", "dbpassword", "credentials")
_SECRET_STEMS = ("secret", "password", "passwd", "passphrase", "credential")
#: a word ending in one of these ("apikey", "accesstoken", "key"; not "keyword", "max_tokens")
_SECRET_ENDS = ("key", "token")
#: words that are secrets wherever they stand in the name
_SECRET_WORDS = frozenset({"authorization", "authentication", "session", "cookie"})
#: words that are secrets as a name's last word ("helicone-auth", "GH_PAT", "SENTRY_DSN"; not
#: "SSH_AUTH_SOCK")
_SECRET_LAST = frozenset({"auth", "pat", "dsn"})
#: whole names that hold secrets without saying so
_SECRET_WHOLE = frozenset({("database", "url")})
#: shorter values would blank out unrelated text ("1", "true", "openai")
MIN_SECRET = 8
#: the shortest start of a known secret masked on its own (a secret cut short): at least this
#: many characters and at least half of the secret. Fewer leave most of it unprinted, and are
#: often what every key of a vendor starts with ("sk-proj-") or an ordinary word (a placeholder
#: key "toolcall-placeholder-key" begins with "toolcall", which the kit prints everywhere)
MIN_PREFIX = 8
#: a URL's password is often short; shorter than this it is left to the URL pattern below
_MIN_URL_PASSWORD = 4
#: scheme://user:password@ anywhere in a text; the password must not contain '@', '/' or space
_URL_PASSWORD = re.compile(r"(?P<head>\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]*:)"
                           r"(?P<password>[^\s@/]+)(?P<at>@)")

_lock = threading.Lock()
_registered: dict[str, str] = {}
_version = [0]  # bumped on every change of _registered (the matcher's cache key)
#: pytest rewrites this variable before every phase of every test (its value is a node id, never
#: a secret): it is not read, so the masks built from the environment outlive a test phase
_VOLATILE_ENV = "PYTEST_CURRENT_TEST"


def secret_name(name: str) -> bool:
    """Whether a variable, header, query parameter or JSON key called ``name`` holds a secret.

    The one rule for all four (issue 35: body keys were matched by exact name and headers by
    substring, so a body field ``metadata.user_token`` was stored in clear). The name is split
    into words (``_``, ``-``, ``.``, camelCase): a secret when a word holds ``secret``,
    ``password``, ``passwd``, ``passphrase`` or ``credential``; ends in ``key`` or ``token``
    (``api_key``, ``apiKey``, ``x-api-key``, ``user_token``, ``accessToken``; not ``keyword``
    or ``max_tokens``); is ``authorization``, ``authentication``, ``session`` or ``cookie``; or
    is the last word and ``auth``, ``pat`` or ``dsn`` (``helicone-auth``, ``GH_PAT``,
    ``SENTRY_DSN``; not ``SSH_AUTH_SOCK``); and ``DATABASE_URL``."""
    name = str(name)
    if not name.isascii():  # the Kelvin sign lower-cases to an ASCII k: "api_\u212aey" is a key
        name = "".join(c.lower() if c.lower().isascii() else c for c in name)
    words = [w.lower() for w in _WORDS.findall(name)]
    if not words:
        return False
    if words[-1] in _SECRET_LAST or tuple(words) in _SECRET_WHOLE:
        return True
    return any(w in _SECRET_WORDS or w.endswith(_SECRET_ENDS)
               or any(stem in w for stem in _SECRET_STEMS) for w in words)


def register(value: str | None, label: str, *, min_length: int = MIN_SECRET) -> None:
    """Mask ``value`` from now on, wherever it appears, as ``[redacted: label]``. Values shorter
    than ``min_length`` are ignored (a 4-character "key" would mangle unrelated text)."""
    if value is None or not isinstance(value, (str, bytes)):
        return
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    value = value.strip()
    if (len(value) < max(min_length, _MIN_URL_PASSWORD) or value.startswith("[redacted")
            or value == "<redacted>"):
        return
    with _lock:
        before = len(_registered)
        _registered.setdefault(value, label)
        scheme, _, token = value.partition(" ")
        if token and scheme.lower() in ("bearer", "basic", "token") and len(token) >= min_length:
            _registered.setdefault(token.strip(), label)
        if len(_registered) != before:  # a value seen again (every item's api key) changes nothing
            _version[0] += 1
    for password in _url_passwords(value):
        register(password, label, min_length=_MIN_URL_PASSWORD)


def forget(value: str) -> None:
    """Stop masking a registered value (tests)."""
    with _lock:
        _version[0] += 1
        _registered.pop(value, None)


@contextlib.contextmanager
def isolated() -> Iterator[dict[str, str]]:
    """An empty registry for the block, the one before put back after it (tests: what a test
    registers must not mask the values another test compares, issue 35)."""
    with _lock:
        saved = dict(_registered)
        _registered.clear()
        _version[0] += 1
    try:
        yield _registered
    finally:
        with _lock:
            _registered.clear()
            _registered.update(saved)
            _version[0] += 1


def _url_passwords(text: str) -> list[str]:
    return [m.group("password") for m in _URL_PASSWORD.finditer(text)
            if len(m.group("password")) >= _MIN_URL_PASSWORD]


#: scheme://user@ or scheme://user:password@: the user part
_URL_USER = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://(?P<user>[^\s:/@]+)[:@]")


def _url_users(text: str) -> list[str]:
    return [m.group("user") for m in _URL_USER.finditer(text)
            if len(m.group("user")) >= MIN_SECRET]


def env_secrets(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Secret values in the environment -> ``$NAME`` (longest values win over their parts)."""
    env = os.environ if environ is None else environ
    found: dict[str, str] = {}
    for name, value in env.items():
        if name == _VOLATILE_ENV:
            continue
        value = (value or "").strip()
        if len(value) >= MIN_SECRET and secret_name(name):
            found.setdefault(value, f"${name}")
            for user in _url_users(value):  # SENTRY_DSN=https://KEY@host/1: the key is the user
                found.setdefault(user, f"${name}")
        for password in _url_passwords(value):
            found.setdefault(password, f"password in ${name}")
    return found


def _planted() -> dict[str, str]:
    return {PLANTED: PLANTED_LABEL}


def known(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every value the kit masks now -> what it is."""
    if environ is None:  # the process's own environment: the matcher's cache holds it
        return dict(_matcher(None)[1])
    return _known(environ)


def _known(environ: Mapping[str, str] | None) -> dict[str, str]:
    with _lock:
        values = dict(_registered)
    values.update(_planted())
    for value, label in env_secrets(environ).items():
        values.setdefault(value, label)
    return values


def _mark(label: str) -> str:
    return f"[redacted {label}]" if label.startswith("$") else f"[redacted: {label}]"


_cache: dict[str, Any] = {"key": None}


def _matcher(environ: Mapping[str, str] | None) -> tuple[Any, dict[str, str], Any, Any]:
    """One compiled alternation of every known value (longest first, so that a secret that
    begins another never leaves the rest of the longer one printed), and one of the first
    :data:`MIN_PREFIX` characters of each that may be cut short (with the values each begins);
    rebuilt only when the environment or the registered values change: masking runs on every
    report of every item."""
    # os.environ's own dict compares in C; walking the mapping would decode every entry
    env: Any = getattr(os.environ, "_data", os.environ) if environ is None else environ
    key = (_version[0], environ is None)
    seen = _cache.get("env")
    if environ is None and seen is not None:
        # the variable pytest rewrites before every test phase is no secret: the copy takes
        # its current value, so the comparison below (in C, no copy) looks at the others
        for volatile in (_VOLATILE_ENV, _VOLATILE_ENV.encode()):
            if volatile in env:
                seen[volatile] = env[volatile]
            else:
                seen.pop(volatile, None)
    if _cache["key"] != key or seen != env:
        _cache["env"] = dict(env)
        values = _known(environ)
        pattern = re.compile("|".join(re.escape(v) for v in sorted(values, key=len, reverse=True)))
        starts: dict[str, list[str]] = {}
        for value in sorted(values, key=len, reverse=True):
            if len(value) > MIN_PREFIX and not any(c.isspace() or c == "/" for c in value):
                starts.setdefault(value[:MIN_PREFIX], []).append(value)
        heads = re.compile("|".join(map(re.escape, starts))) if starts else None
        _cache.update(key=key, pattern=pattern, values=values, heads=heads, starts=starts)
        _cache["builds"] = _cache.get("builds", 0) + 1
    return _cache["pattern"], _cache["values"], _cache["heads"], _cache["starts"]


def _mask_starts(text: str, heads: Any, starts: dict[str, list[str]],
                 values: dict[str, str]) -> str:
    """``text`` with every run of :data:`MIN_PREFIX` or more characters that begins a known
    secret masked (the whole secrets are masked already): the longest such run at each place."""
    out: list[str] = []
    position = 0
    match = heads.search(text)
    while match is not None:
        begin = match.start()
        best, longest = "", 0
        for value in starts[match.group(0)]:
            length = MIN_PREFIX
            limit = min(len(value), len(text) - begin)
            while length < limit and text[begin + length] == value[length]:
                length += 1
            if length > longest and 2 * length >= len(value):  # at least half of it
                best, longest = value, length
        if not best:  # a few characters a secret starts with, most of it unprinted
            match = heads.search(text, begin + 1)
            continue
        out.append(text[position:begin])
        out.append(_mark(values[best]))
        position = begin + longest
        match = heads.search(text, position)
    out.append(text[position:])
    return "".join(out)


def mask(text: Any, environ: Mapping[str, str] | None = None) -> Any:
    """``text`` with every known secret, and every long start of one, replaced by a mark
    saying what it was; anything that is not a string comes back unchanged."""
    if not isinstance(text, str) or len(text) < _MIN_URL_PASSWORD:
        return text
    pattern, values, heads, starts = _matcher(environ)
    text = pattern.sub(lambda m: _mark(values[m.group(0)]), text)
    if heads is not None and len(text) >= MIN_PREFIX:
        text = _mask_starts(text, heads, starts, values)
    if "://" not in text:
        return text
    return _URL_PASSWORD.sub(lambda m: m.group("head") + "[redacted: password]" + m.group("at")
                             if not m.group("password").startswith("[redacted") else m.group(0),
                             text)


def clip(text: Any, limit: int, tail: str = "") -> str:
    """``text`` (``repr`` of anything but a string) masked, then cut to ``limit`` characters,
    ``tail`` (such as "…") included when it was cut: masking after the cut would miss a secret
    the cut fell inside (issue 35: 22 of a planted secret's 30 characters were printed)."""
    shown = mask(text if isinstance(text, str) else repr(text))
    return shown if len(shown) <= limit else shown[: max(limit - len(tail), 0)] + tail


def mask_url(url: str) -> str:
    """``url`` with the password of its userinfo masked (for hints that quote a URL)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return mask(url)
    if parts.password:
        # every place the password stands, not only its userinfo (a query may repeat it)
        url = url.replace(f":{parts.password}@", ":[redacted: password]@")
        return mask(url.replace(parts.password, "[redacted: password]"))
    return mask(url)

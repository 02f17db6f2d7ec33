"""One value-based redactor for everything the kit writes or prints (issue 18).

Cassettes, request snapshots, the JSON and Markdown reports, JUnit properties, failure messages
and the terminal all mask through :func:`mask` (cassettes and snapshots through
:class:`pytest_toolcall.output.cassettes.Redactor`, which takes its values from :func:`known`). A
secret is masked by its *value*, wherever it appears, once the kit knows it:

- environment variables whose names say they hold one (``*KEY*``, ``*TOKEN*``, ``*SECRET*``,
  ``*PASSWORD*``, ``*CREDENTIAL*``, ``*_PAT``, ``DATABASE_URL``, ``*_DSN``), and the password of
  any URL held by any environment variable;
- values the kit was given or found and registered with :func:`register`: the api key a live run
  uses, the password of ``--toolcall-base-url``, credentials a cassette's redactor saw in headers,
  query parameters and JSON body fields;
- the secret the kit plants in a crashing tool's text (:data:`PLANTED`, which
  :mod:`pytest_toolcall.cases.tools` puts in its crash text), masked as
  ``[redacted: planted secret]`` so a reader knows the kit put it there;
- the password in any ``scheme://user:password@host`` found in the text.

Masks say what was masked, never the value: ``[redacted $OPENAI_API_KEY]``,
``[redacted: planted secret]``, ``[redacted: password of --toolcall-base-url]``.
No pytest here and nothing else of the kit's: it sits at the bottom layer, so that
:class:`pytest_toolcall.core.errors.ConformanceFailure` masks its own text (a failure raised by
``run_case`` outside pytest carries no secret either); the plugin applies it to every report of
a suite item.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

__all__ = ["PLANTED", "PLANTED_LABEL", "env_secrets", "forget", "known", "mask", "mask_url", "register"]

#: the secret the kit plants in crashing tools' text (``pytest_toolcall.cases.tools.SECRET``); it
#: must never reach the model, the client or anything the kit writes
PLANTED = "sk-tc-PLANTED-9f8e7d6c5b4a3928"
#: the label of the secret the kit plants in crashing tools' text
PLANTED_LABEL = "planted secret"
#: environment variable names that hold secrets (searched anywhere in the upper-cased name)
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL")
#: names that hold secrets without saying so
_SECRET_NAMES = re.compile(r"(^|_)PAT$|^DATABASE_URL$|_DSN$|^DSN$")
#: shorter values would blank out unrelated text ("1", "true", "openai")
MIN_SECRET = 8
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


def register(value: str | None, label: str, *, min_length: int = MIN_SECRET) -> None:
    """Mask ``value`` from now on, wherever it appears, as ``[redacted: label]``. Values shorter
    than ``min_length`` are ignored (a 4-character "key" would mangle unrelated text)."""
    if not value:
        return
    value = str(value).strip()
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


def _url_passwords(text: str) -> list[str]:
    return [m.group("password") for m in _URL_PASSWORD.finditer(text)
            if len(m.group("password")) >= _MIN_URL_PASSWORD]


def env_secrets(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Secret values in the environment -> ``$NAME`` (longest values win over their parts)."""
    env = os.environ if environ is None else environ
    found: dict[str, str] = {}
    for name, value in env.items():
        if name == _VOLATILE_ENV:
            continue
        value = (value or "").strip()
        upper = name.upper()
        if len(value) >= MIN_SECRET and (_SECRET_NAME.search(upper)
                                         or _SECRET_NAMES.search(upper)):
            found.setdefault(value, f"${name}")
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


def _matcher(environ: Mapping[str, str] | None) -> tuple[Any, dict[str, str]]:
    """One compiled alternation of every known value (longest first), rebuilt only when the
    environment or the registered values change: masking runs on every report of every item."""
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
        _cache.update(key=key, pattern=pattern, values=values)
    return _cache["pattern"], _cache["values"]


def mask(text: Any, environ: Mapping[str, str] | None = None) -> Any:
    """``text`` with every known secret replaced by a mark saying what it was; anything that is
    not a string comes back unchanged."""
    if not isinstance(text, str) or len(text) < _MIN_URL_PASSWORD:
        return text
    pattern, values = _matcher(environ)
    text = pattern.sub(lambda m: _mark(values[m.group(0)]), text)
    if "://" not in text:
        return text
    return _URL_PASSWORD.sub(lambda m: m.group("head") + "[redacted: password]" + m.group("at")
                             if not m.group("password").startswith("[redacted") else m.group(0),
                             text)


def mask_url(url: str) -> str:
    """``url`` with the password of its userinfo masked (for hints that quote a URL)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return mask(url)
    if parts.password:
        return mask(url.replace(f":{parts.password}@", ":[redacted: password]@", 1))
    return mask(url)

"""Every exception pytest-toolcall raises or asks adapters to raise.

Two families never mix, so a reader always knows who is at fault::

    ToolcallError                  the kit could not run: fix your setup (or report a kit bug)
    ├── UsageError                 bad option, fixture, profile or adapter shape
    ├── CaseDefinitionError        a malformed conformance case (yours or a plugin's)
    └── KitError                   the kit itself failed; this is a pytest-toolcall bug

    ConformanceFailure             your implementation broke a clause (an AssertionError)

    ProviderError                  what an adapter raises when the provider answered with an error
    └── StreamError                an error event arrived in the middle of a stream
        └── IncompleteStreamError  the stream ended before the provider said it was done

Adapters are free to raise their own exception types; the ``ProviderError`` family is offered so
that reference adapters and shims have a typed, documented choice.
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.core.redact import clip, mask

__all__ = [
    "CaseDefinitionError",
    "ConformanceFailure",
    "FINAL_CODES",
    "IncompleteStreamError",
    "KitError",
    "ProviderError",
    "RETRYABLE_STATUSES",
    "StreamError",
    "ToolcallError",
    "UsageError",
    "retry_after_seconds",
    "status_is_retryable",
]


class ToolcallError(Exception):
    """Base of the errors that mean "the kit could not run", never "your adapter is wrong"."""


class UsageError(ToolcallError):
    """The kit was configured or called wrongly: an option, a fixture, a profile, an adapter shape."""


class CaseDefinitionError(ToolcallError):
    """A conformance case is malformed; raised when the case is registered or collected."""

    def __init__(self, case_id: str, problem: str) -> None:
        self.case_id = case_id
        self.problem = problem
        super().__init__(f"case {case_id!r} is malformed: {problem}")


class KitError(ToolcallError):
    """pytest-toolcall itself failed while running a case. Please report it with the case id."""


#: an argument left out (``expected=None`` is a value: the failure shows it)
_UNSET: Any = object()


class ConformanceFailure(AssertionError):
    """The implementation under test broke a clause of the contract.

    ``clause`` is a stable dotted name (``stream.tool_call.id_once``), ``expected`` and ``got``
    describe the difference in the user's terms, ``hint`` names the likely cause and fix.
    ``trace`` is filled in by the runner with the ladder of each tool call, ``level`` with the
    clause's level: ``"must"`` (a defect) or ``"should"`` (hardening), from
    :mod:`pytest_toolcall.cases.levels` (``None`` until the runner sets it).

    Every text it holds is masked (:func:`pytest_toolcall.core.redact.mask`): the secret the kit
    plants in a crashing tool, and every credential the kit knows, never reach a failure, even
    one raised by ``run_case`` outside pytest (issue 16).
    """

    def __init__(
        self,
        clause: str,
        message: str,
        *,
        expected: Any = _UNSET,
        got: Any = _UNSET,
        hint: str | None = None,
    ) -> None:
        self.clause = clause
        self.message = message = mask(message)
        #: whether the failure names an expected value: an expected None is shown as None
        self.has_expected = expected is not _UNSET
        self.expected = _masked(expected) if self.has_expected else None
        self.got = _masked(got) if got is not _UNSET else None
        self.hint = mask(hint)
        self.case_id: str | None = None
        self.provider: str | None = None
        self.interface: str | None = None
        self.trace: str | None = None
        self.level: str | None = None
        #: where the failure is an exception the implementation raised: the module of the
        #: innermost frame outside the standard library (the library's, or the adapter's own)
        self.frame: str | None = None
        #: that exception itself, for its traceback (pytest shows it as --tb asks, issue 32)
        self.crash: BaseException | None = None
        super().__init__(f"[{clause}] {message}")

    def render(self) -> str:
        """The failure block shown by pytest: clause, difference, hint, trace."""
        # the first line is what pytest's short summary shows: make it the verdict
        lines = [f"[{self.clause}] {self.message}"]
        where = f"conformance failure in case {self.case_id}" if self.case_id else "conformance failure"
        if self.provider:
            where += f" ({self.provider}"
            where += f", {self.interface} interface)" if self.interface else ")"
        lines.append(f"  {where}")
        if self.level is not None:
            lines.append(f"  level:    {_LEVEL_LINES.get(self.level, self.level)}")
        if self.has_expected:
            lines.extend(_value_lines("expected: ", self.expected))
        if self.has_expected or self.got is not None:
            # "got: None" says the value was missing; leaving the line out says nothing
            lines.extend(_value_lines("got:      ", self.got))
        if self.hint:
            lines.append(f"  hint:     {self.hint}")
        if self.trace:
            lines.append("  trace (where each tool call went):")
            lines.extend("    " + line for line in self.trace.splitlines())
        # the trace and values set after construction pass through the same mask
        return mask("\n".join(lines))


#: how a failure's level reads (pytest_toolcall.cases.levels.describe says the same)
_LEVEL_LINES = {
    "must": "must (a defect: it fails the run)",
    "should": "should (hardening, not a defect: it fails the run only with --toolcall-strict)",
}


def _masked(value: Any) -> Any:
    """``value`` with every string in it masked, inside lists, tuples and dicts too."""
    if isinstance(value, str):
        return mask(value)
    if type(value) in (list, tuple):
        return type(value)(_masked(v) for v in value)
    if type(value) is dict:
        return {_masked(k): _masked(v) for k, v in value.items()}
    return value


#: HTTP statuses where the same request may succeed later: timeouts, conflicts, rate limits,
#: the provider's own failures and Anthropic's 529 (what openai-python and anthropic-sdk-python
#: retry in ``_should_retry``: 408, 409, 429, >= 500; confirmed 2026-11-23)
RETRYABLE_STATUSES = frozenset({408, 409, 429})
#: provider codes that mean "final" whatever the status: OpenAI's used-up quota is a 429
#: ("insufficient_quota", OpenAI error-codes guide; confirmed 2026-11-23)
FINAL_CODES = frozenset({"insufficient_quota"})


def status_is_retryable(status: int | None) -> bool | None:
    """Whether a request that got ``status`` may succeed if sent again (``None``: unknown)."""
    if status is None:
        return None
    return status in RETRYABLE_STATUSES or status >= 500


class ProviderError(Exception):
    """The provider answered with an error; ``message`` holds the provider's own words.

    What a retrying caller needs (issue 12; the ``errors`` family checks it):

    - ``status``: the HTTP status (``None`` for an error inside a 200 stream);
    - ``type`` / ``code``: the provider's own error type and code (OpenAI ``error.type`` and
      ``error.code``, Anthropic ``error.type``, Gemini ``error.status`` such as
      ``RESOURCE_EXHAUSTED``);
    - ``retry_after``: the delay in seconds the provider asked for (``Retry-After`` or
      ``retry-after-ms``, Gemini's ``RetryInfo.retryDelay``), ``None`` when it named none;
    - ``retryable``: whether sending the same request again can help. Defaults from the
      status (408, 409, 429 and 5xx: yes) and the code (``FINAL_CODES``: OpenAI's 429
      ``insufficient_quota`` cannot be retried away); set it where the provider says
      otherwise (``x-should-retry``).
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        type: str | None = None,
        code: str | None = None,
        param: str | None = None,
        body: Any = None,
        retry_after: float | None = None,
        retryable: bool | None = None,
    ) -> None:
        self.message = message
        self.status = status
        self.type = type
        self.code = code
        self.param = param
        self.body = body
        self.retry_after = retry_after
        if retryable is None:
            retryable = (False if code in FINAL_CODES or type in FINAL_CODES
                         else status_is_retryable(status))
        self.retryable = retryable
        prefix = f"provider error {status}" if status is not None else "provider error"
        super().__init__(f"{prefix}: {message}")


class StreamError(ProviderError):
    """The provider sent an error in the middle of a stream."""


class IncompleteStreamError(StreamError):
    """The stream ended before the provider's end marker: the response is incomplete."""


def retry_after_seconds(headers: Any, body: Any = None) -> float | None:
    """The delay a provider asked for, in seconds: ``retry-after-ms``, then ``Retry-After``
    (seconds, or an HTTP date), then a Gemini ``google.rpc.RetryInfo`` detail in ``body``
    (``retryDelay: "13s"``); ``None`` when there is none."""
    import email.utils
    import time

    get = getattr(headers, "get", None)
    if get is not None:
        value = get("retry-after-ms")
        if value is not None:
            try:
                return float(value) / 1000
            except ValueError:
                pass
        value = get("retry-after")
        if value is not None:
            try:
                return float(value)
            except ValueError:
                when = email.utils.parsedate_tz(value)
                if when is not None:
                    return max(0.0, email.utils.mktime_tz(when) - time.time())
    error = body.get("error") if isinstance(body, dict) else None
    for detail in (error.get("details") or []) if isinstance(error, dict) else []:
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("RetryInfo"):
            delay = str(detail.get("retryDelay", ""))
            try:
                return float(delay.rstrip("s"))
            except ValueError:
                return None
    return None


#: the widest line of an expected/got value (issue 32: a got line ran to 314 columns)
VALUE_WIDTH = 100


def _value_lines(label: str, value: Any) -> list[str]:
    """``  label value``, masked first, then cut to 400 characters and wrapped at
    :data:`VALUE_WIDTH` columns, the continuation lines under the value."""
    import textwrap

    text = _short(mask(value if isinstance(value, str) else repr(value)))
    indent = "  " + " " * len(label)
    # whole lines of the value stay lines; a long one wraps at spaces (or inside a word)
    out: list[str] = []
    for part in text.splitlines() or [""]:
        out.extend(textwrap.wrap(part, VALUE_WIDTH - len(indent), break_on_hyphens=False,
                                 drop_whitespace=False) or [""])
    first, *rest = [line.rstrip() for line in out]
    return [f"  {label}{first}", *(indent + line.lstrip() for line in rest)]


def _short(value: Any, limit: int = 400) -> str:
    return clip(value, limit, "…")  # masked, then cut: a cut inside a secret would show its start


#: the kit's own source folder: its frames are left out of a user hook's or check's traceback
_KIT_DIR = __file__.rsplit("/core/", 1)[0] + "/"


def raised_by_user(what: str, exc: BaseException) -> str:
    """``what`` raised ``exc``: the exception and the user's own frames of its traceback (a
    conftest hook's, a custom check's), never the kit's, for a usage error (issue 35). Masked."""
    import traceback

    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not f.filename.startswith(_KIT_DIR)]
    text = "".join(traceback.format_list(frames)).rstrip()
    error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return mask(f"{what} raised {error}" + (f"\n{text}" if text else ""))

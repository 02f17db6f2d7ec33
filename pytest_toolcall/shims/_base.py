"""What every shim shares: the lazy import of its library, the factory call, the wire encoder.

A shim maps shapes and never repairs what its library got wrong: what the library hands back is
what the kit judges. The canonical request is turned into the library's own input with the
reference encoder of the dialect (the same bodies the reference adapters send, which are the
provider's documented shapes); everything after that is the library's doing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from ..errors import UsageError


def require(module: str, extra: str, shim: str) -> Any:
    """Import ``module`` or say which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise UsageError(
            f"shims.{shim} needs the {module.split('.')[0]!r} package, which is not installed "
            f"({exc}). Install it with: pip install 'pytest-toolcall[{extra}]'") from None


def encoder(provider: str) -> Any:
    """A reference adapter used only for its encoders (``build_body`` needs no client)."""
    from ..reference import _adapter_class

    cls = _adapter_class(provider)
    enc = cls.__new__(cls)
    enc.model = getattr(cls, "DEFAULT_MODEL", "toolcall-reference")
    return enc


class Shim:
    """``shims.<library>(factory)``: call it with the kit's endpoint to get the adapter.

    ``factory(endpoint)`` builds the library's client (or model) wired to the fake provider.
    """

    library = ""  #: the library, as the error messages name it
    expected = ""  #: what the factory must return, as the error messages name it

    def __init__(self, factory: Callable[[Any], Any]) -> None:
        if not callable(factory):
            raise UsageError(
                f"shims.{self.name}(factory): factory must be a callable taking the kit's "
                f"endpoint and returning {self.expected}, e.g. `lambda ep: ...`; got "
                f"{type(factory).__name__} {factory!r:.80}")
        self.factory = factory
        self.module = self.load()

    @property
    def name(self) -> str:
        return type(self).__name__.lower()

    def load(self) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def __call__(self, endpoint: Any) -> Any:
        client = self.factory(endpoint)
        self.check(client)
        return self.adapter(client)

    def check(self, client: Any) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def adapter(self, client: Any) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def wrong_kind(self, client: Any, why: str = "") -> UsageError:
        return UsageError(
            f"shims.{self.name}: the factory returned {type(client).__module__}."
            f"{type(client).__qualname__}, expected {self.expected}{why}")

    def __repr__(self) -> str:
        return f"shims.{self.name}({self.factory!r})"

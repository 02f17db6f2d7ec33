"""``--toolcall-adapter=shims.<library>:<module>:<factory>`` (ini ``toolcall_adapter``): a shim
set up without code. ``<module>:<factory>`` names the callable that builds the library's client
from the kit's endpoint; it is imported when the adapter is first needed, not at startup.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from pytest_toolcall.core.errors import UsageError

FORM = "shims.<library>:<module>:<factory>, e.g. shims.openai:my_app.models:make_client"


@dataclass(frozen=True)
class AdapterSpec:
    shim: str
    module: str
    attribute: str

    @property
    def dialect(self) -> str | None:
        """The dialect the shim speaks; None: that of the client the factory builds (the
        shim checks it against the endpoint's)."""
        from pytest_toolcall.shims import SHIMS

        return SHIMS[self.shim][1]

    def factory(self) -> Any:
        try:
            module = importlib.import_module(self.module)
        except ImportError as exc:
            raise UsageError(
                f"--toolcall-adapter: could not import module {self.module!r} ({exc}). Is it on "
                f"the path (run pytest from the project root, or set PYTHONPATH)?") from None
        target: Any = module
        for part in self.attribute.split("."):
            if not hasattr(target, part):
                raise UsageError(
                    f"--toolcall-adapter: module {self.module!r} has no attribute "
                    f"{self.attribute!r}. Expected {FORM}") from None
            target = getattr(target, part)
        if not callable(target):
            raise UsageError(
                f"--toolcall-adapter: {self.module}:{self.attribute} is a "
                f"{type(target).__name__}, not a callable; it must take the kit's endpoint and "
                f"return the library's client")
        return target

    def adapter(self, endpoint: Any) -> Any:
        from pytest_toolcall.shims import SHIMS

        if self.dialect is not None and endpoint.provider != self.dialect:
            raise UsageError(
                f"--toolcall-adapter: shims.{self.shim} speaks the {self.dialect!r} dialect, but "
                f"this suite item runs for {endpoint.provider!r}; run with "
                f"--toolcall-provider={self.dialect}")
        shim = SHIMS[self.shim][0](self.factory())
        return shim(endpoint)


def parse(value: str) -> AdapterSpec:
    """The spec in ``value``; a UsageError names what is wrong and the expected form."""
    from pytest_toolcall.shims import SHIMS

    parts = value.strip().split(":")
    if len(parts) != 3 or not all(p.strip() for p in parts):
        raise UsageError(f"--toolcall-adapter={value!r}: expected {FORM}")
    shim, module, attribute = (p.strip() for p in parts)
    name = shim.removeprefix("shims.")
    if name not in SHIMS:
        raise UsageError(
            f"--toolcall-adapter={value!r}: unknown shim {shim!r}. Known: "
            f"{', '.join('shims.' + n for n in SHIMS)}. Expected {FORM}")
    return AdapterSpec(name, module, attribute)

"""Reference implementations: small, correct, and the worked examples of the docs.

Here: the tool loop (``loop``), the history builder (``history``), the structured output
(``fallback``) and what the providers' reference adapters share (``_http``, ``_compat``). Each
provider's reference adapter is in its folder (``providers/<folder>/reference.py``, its
``ADAPTER``); ``reference_adapter`` and ``reference_profile`` find it by the provider's name.
"""

from __future__ import annotations

from typing import Any

from pytest_toolcall.core._names import PROVIDERS
from pytest_toolcall.core.errors import UsageError

__all__ = ["REFERENCE_CLAIMS", "provider_profile", "reference_adapter", "reference_profile",
           "request_body"]


def _module(provider: str) -> str:
    """The module of a built-in provider's reference adapter (its ``ADAPTER``)."""
    return f"pytest_toolcall.providers.{provider.replace('-', '_')}.reference"


def reference_adapter(endpoint: Any) -> Any:
    """The built-in reference adapter for ``endpoint.provider``, wired to the endpoint."""
    return _adapter_class(endpoint.provider).from_endpoint(endpoint)


#: reference adapters of providers that plugins added: name -> class
_PLUGIN_CLASSES: dict[str, Any] = {}


def register_class(provider: str, cls: Any) -> None:
    """The reference adapter class of a plugin's provider."""
    _PLUGIN_CLASSES[provider] = cls


def unregister_class(provider: str) -> None:
    _PLUGIN_CLASSES.pop(provider, None)


def _adapter_class(provider: str) -> Any:
    from importlib import import_module

    if provider in _PLUGIN_CLASSES:
        return _PLUGIN_CLASSES[provider]
    if provider not in PROVIDERS:
        raise UsageError(f"no reference adapter for provider {provider!r}")
    return import_module(_module(provider)).ADAPTER


def request_body(provider: str, request: Any, *, stream: bool = False) -> Any:
    """The body the reference adapter of ``provider`` sends for ``request``, built without a
    client (reference adapters' ``build_body`` reads only ``self.model`` and their encoders)."""
    cls = _adapter_class(provider)
    encoder = cls.__new__(cls)
    encoder.model = getattr(cls, "DEFAULT_MODEL", "toolcall-reference")
    return encoder.build_body(request, stream=stream)


#: what the reference implementations claim of themselves, beyond what the provider allows: the
#: OpenAI reference adapters target every OpenAI-compatible server (``compatible_with={'*'}``),
#: the Anthropic one reads the legacy usage shape, the reference loop honours cancellation and
#: has a handoff tool. An implementation of the user's that declared no profile claims none of
#: it (:func:`provider_profile`; issue 28)
REFERENCE_CLAIMS = frozenset({"compatible_with", "anthropic_legacy_usage", "cancellation",
                              "handoff_tools", "tool_timeout"})


def _overrides(provider: str) -> dict[str, Any]:
    from importlib import import_module

    return dict(getattr(import_module(_module(provider)), "PROFILE", {})
                if provider in PROVIDERS else {})


def provider_profile(provider: str) -> Any:
    """The profile of an implementation that declares none (the kit's default for anything but
    its own reference implementations): what ``provider`` allows (the ``tool_choice`` values
    it accepts, ``parallel_tool_calls``), and no claim the implementation has not made: no
    quirk of another server (``compatible_with`` empty), no legacy usage shape, no cancel hook,
    no handoff tool; every other field is :class:`Profile`'s default."""
    from pytest_toolcall.core.contracts import Profile

    return Profile(**{key: value for key, value in _overrides(provider).items()
                      if key not in REFERENCE_CLAIMS})


def reference_profile(provider: str) -> Any:
    """The profile of the reference adapter of ``provider``: what that provider supports
    (a module-level ``PROFILE`` dict in the adapter's module narrows the defaults)."""
    from pytest_toolcall.core.contracts import Profile

    overrides = _overrides(provider)
    # the kit's scripted tools answer at once; a short tool timeout keeps the hung-tool and
    # parallel cases (whose sleeps scale with it) fast across the whole dialect matrix: 0.1 s,
    # the timeout the kit's own tests give the framework loops (0.2 s until 2026-11-25; 0.1 s
    # passed every loop case of the 19-provider matrix four times over with the two cores
    # loaded by three busy processes besides). The
    # reference loop honours LoopRequest.cancel and stops on a handoff tool: it claims both, so
    # loop.cancelled and loop.handed_off run against it (and under the mutation self-check).
    # It enforces a declared model-call deadline: 1 s, so loop.model_deadline runs on it too
    return Profile(name=f"reference {provider}", **{
        "tool_timeout": 0.1, "cancellation": True, "handoff_tools": ("transfer_to_human",),
        "model_timeout": 1.0,
        **overrides})

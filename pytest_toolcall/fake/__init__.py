"""The scripted fake provider: speaks a provider's wire format, enforces its rules, records all."""

from .chunking import cut, cut_at
from .provider import DEFAULT_KEY, Endpoint, Exchange, FakeProvider, in_process_endpoint
from .server import serve

__all__ = ["DEFAULT_KEY", "Endpoint", "Exchange", "FakeProvider", "cut", "cut_at",
           "in_process_endpoint", "serve"]

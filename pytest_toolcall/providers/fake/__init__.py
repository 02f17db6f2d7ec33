"""The scripted fake provider: speaks a provider's wire format, enforces its rules, records all."""

from pytest_toolcall.providers.fake.chunking import cut, cut_at
from pytest_toolcall.providers.fake.provider import (
    DEFAULT_KEY,
    Endpoint,
    Exchange,
    FakeProvider,
    in_process_endpoint,
)
from pytest_toolcall.providers.fake.server import serve

__all__ = ["DEFAULT_KEY", "Endpoint", "Exchange", "FakeProvider", "cut", "cut_at",
           "in_process_endpoint", "serve"]

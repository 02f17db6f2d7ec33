"""Anthropic Messages (the anthropic wire): the facts the fake plays, each with
its source and the date it was confirmed.

Data only (the provider registry, ``pytest_toolcall.providers``, reads ``PROVIDER``);
docs/providers.md lists them."""

from __future__ import annotations

from pytest_toolcall.providers._facts import Provider

PROVIDER = Provider(name="anthropic", dialect="anthropic", family="anthropic")

"""Gemini generateContent (the gemini wire): the facts the fake plays, each with its source and the
date it was confirmed.

Data: ``facts.json`` beside this file, read and checked by ``_facts.load``; the provider
registry reads ``PROVIDER``, docs/providers.md lists the facts."""

from pytest_toolcall.providers._facts import load

PROVIDER = load(__file__)

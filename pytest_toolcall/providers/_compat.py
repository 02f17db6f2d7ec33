"""Pieces that several OpenAI-compatible dialects share word for word.

Only what is truly the same lives here; each service's own differences (its usage keys and their
order, its error envelope, its id format) stay in its module, next to their sources.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

from pytest_toolcall.cases import ErrorReply, Turn
from pytest_toolcall.core.model import Reasoning

__all__ = ["usage_tokens", "error_object", "reasoning_text", "wire_reasoning", "pieces",
           "message_calls", "minted", "switch_at", "thinking_type", "ALNUM", "LOWER_ALNUM"]

#: the letters and digits the fake mints ids from (a service's own order where its ids show it)
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
LOWER_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"


def minted(seed: str, length: int, alphabet: str = ALNUM) -> str:
    """``length`` characters of ``alphabet`` derived from ``seed`` (its SHA-256): the stable
    stand-in for an id a service makes at random (the same seed always mints the same id)."""
    digest = hashlib.sha256(seed.encode()).digest()
    return "".join(alphabet[b % len(alphabet)] for b in digest[:length])


def usage_tokens(turn: Turn) -> tuple[int, int, int]:
    """The scripted turn's ``(prompt, completion, total)`` tokens, 0 for the ones not given
    (each dialect lays them out in its own keys and order)."""
    u = turn.usage
    assert u is not None
    return u.input_tokens or 0, u.output_tokens or 0, u.total_tokens or 0


def error_object(error: ErrorReply, **override: Any) -> dict[str, Any]:
    """OpenAI's error object for a scripted error, ``message, type, param, code`` in that order
    (``override`` replaces values in place, the order kept)."""
    out: dict[str, Any] = {"message": error.message, "type": error.type, "param": error.param,
                           "code": error.code}
    out.update(override)
    return out


def reasoning_text(turn: Turn) -> str | None:
    """The thinking the fake sends for ``turn`` (DeepSeek's ``reasoning_content``, Groq's
    ``reasoning``, Mistral's thinking chunks), or None."""
    kept = [r for r in turn.reasoning if r.type == "thinking"]
    if not kept:
        return None
    return "".join(r.text or "" for r in kept)


def wire_reasoning(field: str) -> Callable[[Mapping[str, Any]], tuple[Reasoning, ...] | None]:
    """A reader for ``with_wire_reasoning``: an input assistant message's ``field`` (a string)
    as its thinking, else None."""

    def read(wire: Mapping[str, Any]) -> tuple[Reasoning, ...] | None:
        text = wire.get(field)
        return (Reasoning(type="thinking", text=text),) if isinstance(text, str) else None

    return read


def thinking_type(body: Mapping[str, Any]) -> bool | None:
    """The ``thinking: {"type": "enabled" | "disabled"}`` switch (DeepSeek's and GLM's request
    field, Fireworks takes it too) as the request's ``reasoning``; None when not sent."""
    thinking = body.get("thinking")
    if isinstance(thinking, Mapping) and thinking.get("type") in ("enabled", "disabled"):
        return thinking["type"] == "enabled"
    return None


def switch_at(key: str, field: str) -> Callable[[Mapping[str, Any]], bool | None]:
    """A ``thinking_switch`` that reads ``body[key][field]``: a bool, else None (Together's
    ``reasoning.enabled``, llama-server's ``chat_template_kwargs.enable_thinking``)."""

    def switch(body: Mapping[str, Any]) -> bool | None:
        outer = body.get(key)
        on = outer.get(field) if isinstance(outer, Mapping) else None
        return on if isinstance(on, bool) else None

    return switch


def pieces(text: str | None, size: int) -> list[str]:
    """``text`` cut into the pieces of at most ``size`` characters a stream sends it in ([] for
    no text or "")."""
    if not text:
        return []
    return [text[k:k + size] for k in range(0, len(text), size)]


def message_calls(turn: Turn, ids: list[str], *, indexed: bool = False) -> list[dict[str, Any]]:
    """A message's ``tool_calls`` in OpenAI's key order (``id``, ``type``, ``function``: ``name``,
    ``arguments`` text), led by the call's ``index`` where the service sends one; a service with
    another order spells its own."""
    return [{**({"index": k} if indexed else {}), "id": cid, "type": "function",
             "function": {"name": c.name, "arguments": c.arguments_text()}}
            for k, (cid, c) in enumerate(zip(ids, turn.tool_calls))]

"""JSON Schema meta-validation, cached: the same few tool schemas are checked on every request."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

__all__ = ["schema_problem"]


#: ``json.dumps(schema, sort_keys=True)``, with one encoder for every call (dumps builds one per
#: call when given options): tool schemas are keyed on every request the fake reads
_KEY = json.JSONEncoder(sort_keys=True)


def schema_problem(schema: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(where, message)`` when ``schema`` breaks the meta-schema it declares, else ``None``.

    The meta-schema is the one ``$schema`` names, draft 2020-12 when it names none.
    """
    try:
        key = _KEY.encode(schema)
    except (TypeError, ValueError):  # not JSON at all: nothing to cache on
        return _check(schema)
    return _cached(key)


@functools.lru_cache(maxsize=2048)
def _cached(key: str) -> tuple[str, str] | None:
    return _check(json.loads(key))


def _check(schema: Any) -> tuple[str, str] | None:
    from jsonschema import exceptions, validators

    validator = validators.validator_for(schema, default=validators.Draft202012Validator)
    try:
        validator.check_schema(schema)
    except exceptions.SchemaError as exc:
        return "/".join(str(p) for p in exc.absolute_path) or "(root)", exc.message
    return None

"""Negative controls for the Vertex AI case: the reference :class:`VertexAdapter` with ONE thing
broken each; the docstring names the bug and its public report. Above each, ``@fails`` names the
case that must fail it and the clause; the tables at the end collect them for
``tests/providers/test_controls.py``.

The bugs of the gemini wire are ``controls_gemini.py``'s: Vertex plays the same wire on its own
routes and auth, and ``gemini``'s cases are not run for it.
"""

from __future__ import annotations

from typing import Any

from provider_kit import collected, fails

from pytest_toolcall.providers.vertex.reference import VertexAdapter

__all__ = ["DropsVertexIds", "RemintsVertexIds", "ApiKeyOnVertex"]


@fails("wire.vertex_call_ids", "response.tool_calls.id")
class DropsVertexIds(VertexAdapter):
    """Drops the ids Vertex gives the calls, the workaround for Vertex's 400 before 2026-09
    (pydantic-ai #5081): the application can no longer pair results with calls by id."""

    def parse_call(self, part: dict[str, Any]) -> Any:
        call = dict(part)
        call["functionCall"] = {k: v for k, v in part["functionCall"].items() if k != "id"}
        return super().parse_call(call)


@fails("wire.vertex_call_ids", "response.tool_calls.id")
class RemintsVertexIds(VertexAdapter):
    """Replaces the ids Vertex gives the calls with its own."""

    def parse_call(self, part: dict[str, Any]) -> Any:
        call = super().parse_call(part)
        return call.model_copy(update={"id": f"mine_{call.name}"})


@fails("wire.single_call", "request.auth.missing", table="SHARED_CONTROLS")
class ApiKeyOnVertex(VertexAdapter):
    """The Gemini API's key header sent to Vertex (neuron-ai #437): every request is a 401."""

    def __init__(self, base_url: str, api_key: str, **kwargs: Any) -> None:
        super().__init__(base_url, api_key, **kwargs)
        self.headers = {"x-goog-api-key": api_key}


# -- what tests/providers/test_controls.py runs ---------------------------------------------------

PROVIDER = "vertex"
#: the path of every request the reference adapter sends
PATH = ("/v1/projects/toolcall-fake/locations/us-central1/publishers/google/models/"
        "gemini-2.5-flash:*")

#: (case id, broken adapter, the clause the case must name): the vertex case
CONTROLS = collected(__name__)

#: the shared cases, each with a bug of Vertex's auth it must catch there
SHARED_CONTROLS = collected(__name__, "SHARED_CONTROLS")


def check_sent(body: dict[str, Any]) -> None:
    """The ids Vertex gave the calls go back with them (Vertex takes them since 2026-09)."""
    sent = [p.get("functionCall") or p.get("functionResponse")
            for c in body.get("contents", ()) for p in c.get("parts", ())
            if "functionCall" in p or "functionResponse" in p]
    assert all(part.get("id") for part in sent)

"""The ``vertex`` provider (issue 13): Gemini on Vertex AI, the gemini wire on Vertex's routes.

Its rules (bearer auth, no ``id`` on functionCall / functionResponse) with their texts, the case
``wire.vertex_call_ids`` with its negative controls, and the reference adapter on every case
that applies to vertex.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_toolcall.cases import default_registry
from pytest_toolcall.providers.base import get_dialect
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.providers.fake.provider import Endpoint
from pytest_toolcall.reference import reference_profile
from pytest_toolcall.providers.vertex.reference import VertexAdapter
from pytest_toolcall.run.runner import run_case

V = get_dialect("vertex")
PATH = "/v1/projects/p1/locations/us-central1/publishers/google/models/gemini-2.5-flash"
PROFILE = reference_profile("vertex")


class DropsVertexIds(VertexAdapter):
    """Drops the ids Vertex gives the calls, the workaround for Vertex's 400 before 2026-09
    (pydantic-ai #5081): the application can no longer pair results with calls by id."""

    def parse_call(self, part: dict[str, Any]) -> Any:
        call = dict(part)
        call["functionCall"] = {k: v for k, v in part["functionCall"].items() if k != "id"}
        return super().parse_call(call)


class RemintsVertexIds(VertexAdapter):
    """Replaces the ids Vertex gives the calls with its own."""

    def parse_call(self, part: dict[str, Any]) -> Any:
        call = super().parse_call(part)
        return call.model_copy(update={"id": f"mine_{call.name}"})


class ApiKeyOnVertex(VertexAdapter):
    """The Gemini API's key header sent to Vertex (neuron-ai #437): every request is a 401."""

    def __init__(self, base_url: str, api_key: str, **kwargs: Any) -> None:
        super().__init__(base_url, api_key, **kwargs)
        self.headers = {"x-goog-api-key": api_key}


CONTROLS = [
    ("wire.vertex_call_ids", DropsVertexIds, "response.tool_calls.id"),
    ("wire.vertex_call_ids", RemintsVertexIds, "response.tool_calls.id"),
    ("wire.single_call", ApiKeyOnVertex, "request.auth.missing"),
]


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    ep = in_process_endpoint(FakeProvider("vertex"))
    yield ep
    ep.close()


@pytest.mark.parametrize(("case_id", "broken", "clause"), CONTROLS,
                         ids=[f"{c}-{b.__name__}" for c, b, _ in CONTROLS])
def test_case_fails_its_negative_control(case_id: str, broken: type, clause: str,
                                         endpoint: Endpoint) -> None:
    with pytest.raises(ConformanceFailure) as exc:
        run_case(default_registry()[case_id], broken.from_endpoint(endpoint), PROFILE, endpoint)
    assert exc.value.clause == clause, exc.value.render()


VERTEX_CASES = sorted(c.id for c in default_registry().select(dialect="vertex")
                      if c.contract == "chat" and all(PROFILE.claims(n) for n in c.needs))


@pytest.mark.parametrize("case_id", VERTEX_CASES)
def test_reference_adapter_passes(case_id: str, endpoint: Endpoint) -> None:
    run_case(default_registry()[case_id], VertexAdapter.from_endpoint(endpoint), PROFILE,
             endpoint)
    assert all(e.path.startswith("/v1/projects/toolcall-fake/locations/us-central1/publishers/"
                                 "google/models/") for e in endpoint.exchanges)
    # the ids Vertex gave the calls go back with them (Vertex takes them since 2026-09)
    sent = [p.get("functionCall") or p.get("functionResponse")
            for e in endpoint.exchanges for c in (e.json or {}).get("contents", ())
            for p in c.get("parts", ()) if "functionCall" in p or "functionResponse" in p]
    assert all(part.get("id") for part in sent)


def test_every_vertex_case_has_a_negative_control() -> None:
    own = {c.id for c in default_registry() if c.dialects == ("vertex",)}
    assert own == {"wire.vertex_call_ids"} <= {row[0] for row in CONTROLS}


# -- the dialect's rules, with their texts --------------------------------------------------------

def test_routes() -> None:
    assert V.route("POST", PATH + ":generateContent")
    assert V.route("POST", PATH + ":streamGenerateContent")
    assert V.route("POST", PATH.replace("/v1/", "/v1beta1/") + ":generateContent")
    assert not V.route("POST", "/v1beta/models/gemini-2.5-flash:generateContent")
    assert V.wants_stream({}, PATH + ":streamGenerateContent")
    assert V.not_found("POST", "/v1/x").status == 404


def test_bearer_auth_and_its_401s() -> None:
    assert V.check_auth({"authorization": "Bearer tok"}, {}, "tok") is None
    wrong = V.check_auth({"authorization": "Bearer nope"}, {}, "tok")
    assert wrong is not None and (wrong.status, wrong.rule) == (401, "auth.invalid")
    assert wrong.message.startswith("Request had invalid authentication credentials. Expected "
                                    "OAuth 2 access token")
    assert dict(wrong.body)["error"]["status"] == "UNAUTHENTICATED"
    missing = V.check_auth({}, {}, "tok")
    assert missing is not None and missing.message.startswith(
        "Request is missing required authentication credential.")
    key = V.check_auth({"x-goog-api-key": "tok"}, {}, "tok")
    assert key is not None and key.message.startswith("API keys are not supported by this API.")


@pytest.mark.parametrize(("part", "where"), [
    ({"functionCall": {"id": "c1", "name": "f", "args": {}}}, "function_call"),
    ({"functionResponse": {"id": "c1", "name": "f", "response": {}}}, "function_response"),
])
def test_an_id_is_accepted_as_on_the_gemini_api(part: dict[str, Any], where: str) -> None:
    """Vertex takes id on functionCall / functionResponse since its discovery revision
    20260921 (anomalyco/opencode PR #50504); its 400 'Unknown name "id"' is historical."""
    role = "model" if "functionCall" in part else "user"
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]},
                         {"role": role, "parts": [part]}]}
    for dialect in (V, get_dialect("gemini")):
        rejection = dialect.validate(body)
        assert rejection is None or rejection.rule != "messages.unknown_field", where


def test_vertex_sends_ids() -> None:
    from pytest_toolcall.cases import ScriptedCall, Turn

    turn = Turn(tool_calls=(ScriptedCall(id="call_1", name="f", arguments={}),))
    part = V.encode_response(turn, {})["candidates"][0]["content"]["parts"][0]
    assert part["functionCall"]["id"] == "call_1" and "thoughtSignature" in part

"""The ``vertex`` provider (issue 13): Gemini on Vertex AI, the gemini wire on Vertex's routes.

Its rules (its routes, bearer auth, ``id`` on functionCall / functionResponse) with their texts.
The case ``wire.vertex_call_ids`` with its negative controls (``controls_vertex.py``) and the
reference adapter on every case that applies to vertex run in ``test_controls.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_toolcall.providers.base import get_dialect

V = get_dialect("vertex")
PATH = "/v1/projects/p1/locations/us-central1/publishers/google/models/gemini-2.5-flash"


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


def test_gemini_3_on_vertex_refuses_an_unsigned_call_in_its_own_words() -> None:
    """Vertex's wording of the refusal (GewoonJaap/gemini-cli-openai #156), same rule."""
    from pytest_toolcall.providers.vertex.dialect import Vertex

    path = (f"{Vertex.base_path}/models/gemini-3-pro-preview:generateContent")
    contents = [{"role": "user", "parts": [{"text": "hi"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "f",
                                                                 "response": {"output": "ok"}}}]}]
    found = Vertex().validate_route(path, {"contents": contents})
    assert found is not None and found.rule == "messages.function_call.thought_signature"
    assert found.body["error"]["status"] == "INVALID_ARGUMENT"
    assert found.body["error"]["message"].startswith(
        "Unable to submit request because function call `default_api:f` in the 2. content "
        "block is missing a `thought_signature`.")
    contents[1]["parts"][0]["thoughtSignature"] = "c2ln"
    assert Vertex().validate_route(path, {"contents": contents}) is None

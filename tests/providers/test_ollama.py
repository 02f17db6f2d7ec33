"""The ``ollama`` dialect: the quirk its id cases rest on.

Its negative controls (``controls_ollama.py``, with the OpenAI-compatible route's) and the
reference adapter on every case that applies to ``ollama`` (and on the compatible route) run in
``test_controls.py``.
"""

from __future__ import annotations

from pytest_toolcall.cases import default_registry
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.providers.ollama.reference import OllamaAdapter
from pytest_toolcall.reference import reference_profile
from pytest_toolcall.run.runner import run_case

PROFILE = reference_profile("ollama")


def test_no_ids_reaches_the_adapter_as_missing() -> None:
    """The no_ids quirk really strips ids (else the ids_unique controls would prove nothing)."""
    endpoint = in_process_endpoint(FakeProvider("ollama"))
    run_case(default_registry()["wire.ollama_calls_without_ids"],
             OllamaAdapter.from_endpoint(endpoint), PROFILE, endpoint)
    sent = endpoint.exchanges[0].response_json["message"]["tool_calls"]
    assert [call.get("id") for call in sent] == [None, None, None]

"""The gemini dialect: which shared cases run for it.

Its negative controls (``controls_gemini.py``) and the reference adapter on every case that
applies to Gemini (shared ones included), also when it is wired to ``/v1``, run in
``test_controls.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from provider_kit import chat_cases


def test_shared_text_argument_cases_do_not_apply() -> None:
    """Gemini arguments are objects: the cases about argument text are not run for it."""
    gemini_cases = chat_cases("gemini")
    assert "wire.malformed_arguments" not in gemini_cases
    assert "stream.index_missing" not in gemini_cases
    assert "wire.single_call" in gemini_cases


class OtherGemini:
    """A correct Gemini chat adapter written another way than the reference (complete only):
    no memory of signatures (a model turn's signature comes from its own reasoning), each turn
    of results sent in call order whatever order the history gives them in, and the body's type
    checked before anything is read."""

    def __init__(self, endpoint: Any) -> None:
        self.endpoint = endpoint

    def complete(self, request: Any) -> Any:
        from pytest_toolcall.core.errors import ProviderError
        from pytest_toolcall.core.model import ChatResponse, ToolCall

        url = f"{self.endpoint.base_url}/models/{request.model or 'gemini-2.5-flash'}" \
              ":generateContent"
        answer = self.endpoint.client.post(url, json={"contents": self.contents(request)},
                                           headers={"x-goog-api-key": self.endpoint.api_key})
        data = answer.json()
        if answer.status_code >= 400 or not isinstance(data, dict) or not data.get("candidates"):
            raise ProviderError(f"Gemini answered {answer.status_code}: {answer.text[:200]}",
                                status=answer.status_code)
        parts = data["candidates"][0].get("content", {}).get("parts", [])
        calls = tuple(ToolCall.from_raw(id=p["functionCall"].get("id") or f"other_{n}",
                                        name=p["functionCall"]["name"],
                                        arguments=p["functionCall"].get("args"))
                      for n, p in enumerate(parts) if "functionCall" in p)
        text = "".join(p.get("text", "") for p in parts if not p.get("thought")) or None
        return ChatResponse(text=text, tool_calls=calls,
                            finish_reason="tool_calls" if calls else "stop")

    @staticmethod
    def contents(request: Any) -> list[dict[str, Any]]:
        from pytest_toolcall.core.model import AssistantMessage, ToolMessage, UserMessage

        results = {m.tool_call_id: m for m in request.messages if isinstance(m, ToolMessage)}
        out: list[dict[str, Any]] = []
        for message in request.messages:
            if isinstance(message, UserMessage):
                out.append({"role": "user", "parts": [{"text": message.content}]})
            elif isinstance(message, AssistantMessage):
                signed = [r.signature for r in message.reasoning
                          if r.type == "thinking" and r.signature and not r.text]
                parts: list[dict[str, Any]] = [{"text": message.content}] \
                    if message.content else []
                for n, call in enumerate(message.tool_calls):
                    part: dict[str, Any] = {"functionCall": {
                        "id": call.id, "name": call.name, "args": call.arguments or {}}}
                    if n == 0 and signed:
                        part["thoughtSignature"] = signed[0]
                    parts.append(part)
                out.append({"role": "model", "parts": parts})
                answers = [(c, results[c.id]) for c in message.tool_calls if c.id in results]
                if answers:
                    out.append({"role": "user", "parts": [{"functionResponse": {
                        "id": c.id, "name": c.name,
                        "response": {"error" if r.is_error else "output": r.content}}}
                        for c, r in answers]})
        return out


@pytest.mark.parametrize("case_id", ["wire.gemini_signed_history_replayed",
                                     "wire.gemini_results_out_of_order",
                                     "wire.gemini_success_not_object",
                                     "wire.gemini_failed_result"])
def test_an_adapter_written_another_way_passes(case_id: str) -> None:
    """The history cases added for the mutation target (issue 29) do not hold an adapter to
    the reference's structure: one that takes signatures from the history alone and puts
    results in call order passes them too."""
    from pytest_toolcall.cases import default_registry
    from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
    from pytest_toolcall.reference import provider_profile
    from pytest_toolcall.run.runner import run_case

    case = next(c for c in default_registry().select(("wire.*",), dialect="gemini")
                if c.id == case_id)
    endpoint = in_process_endpoint(FakeProvider("gemini"))
    profile = provider_profile("gemini").model_copy(update={"async_": False,
                                                            "streaming": False})
    try:
        run_case(case, OtherGemini(endpoint), profile, endpoint)
    finally:
        endpoint.close()

"""Issue 30 on the services' own Responses routes (DeepSeek's ``/responses``, OpenRouter's
``/api/v1/responses``): of OpenAI's Responses rules (``RESPONSES_RULES``) a route's fake refuses
the ones the service is shown to refuse (``confirmed_rules``: a fact with its source and date)
and the unavoidable ones (a body that is not JSON, an input that is no string nor array); a
request that breaks any other is taken, read kindly, and the breach reported as hardening
(clause ``request.unconfirmed``). ``openai-responses`` keeps refusing all of them.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from pytest_toolcall.cases import ErrorReply, Turn, default_registry
from pytest_toolcall.cases.levels import level_of
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.providers import get
from pytest_toolcall.providers.base import get_dialect, noting_breaches
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.providers.openai_responses.dialect import (
    RESPONSES_RULES,
    UNAVOIDABLE_RESPONSES_RULES,
    OpenAIResponses,
)
from pytest_toolcall.providers.openai_responses.probes import BREAKING, TOOL, body
from pytest_toolcall.providers.openai_responses.reference import OpenAIResponsesAdapter
from pytest_toolcall.reference import reference_profile
from pytest_toolcall.run.runner import run_case

#: (service, the path of its Responses route)
ROUTES = [("deepseek", "/responses"), ("openrouter", "/api/v1/responses")]
#: the rule no one-request body breaks (it needs a reasoning item of an earlier answer)
_NO_BODY = {"input.function_call.reasoning"}


def _route(name: str, path: str) -> Any:
    dialect = get_dialect(name).dialect_for(path)
    assert isinstance(dialect, OpenAIResponses) and dialect.route("POST", path), (name, path)
    return dialect


def test_every_rule_has_a_breaking_body() -> None:
    assert set(BREAKING) | _NO_BODY == set(RESPONSES_RULES)


@pytest.mark.parametrize(("name", "path"), ROUTES)
def test_every_refused_rule_has_a_source_and_a_date(name: str, path: str) -> None:
    """Each Responses rule the route refuses is unavoidable (with why) or confirmed by a fact
    of the service with a source and an ISO date."""
    dialect, provider = _route(name, path), get(name)
    assert not dialect.enforces_all_rules
    assert set(dialect.confirmed_rules) <= set(RESPONSES_RULES)
    assert set(dialect.lenient_rules) <= set(RESPONSES_RULES)
    refused = [rule for rule in RESPONSES_RULES if dialect.refuses(rule)]
    assert set(refused) - set(UNAVOIDABLE_RESPONSES_RULES) == set(dialect.confirmed_rules)
    for rule in refused:
        if rule in UNAVOIDABLE_RESPONSES_RULES:
            assert UNAVOIDABLE_RESPONSES_RULES[rule], rule
            continue
        fact = provider.facts[dialect.confirmed_rules[rule]]
        assert fact.source and fact.is_confirmed, (name, rule)
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", str(fact.confirmed)), (name, rule)


@pytest.mark.parametrize(("name", "path"), ROUTES)
@pytest.mark.parametrize("rule", sorted(BREAKING))
def test_each_breaking_body_as_its_status_says(name: str, path: str, rule: str) -> None:
    """Refused under its rule, in the service's shape, when the rule is confirmed or
    unavoidable; else taken with the rule noted (a later confirmed rule the same body breaks
    may still refuse it: an output without call_id leaves its call unanswered), and decoded
    kindly."""
    dialect = _route(name, path)
    own = dialect.encode_error(ErrorReply(status=400, message="m"))[1]
    with noting_breaches() as breaches:
        refused = dialect.validate(BREAKING[rule])
    if dialect.refuses(rule):
        assert refused is not None and refused.rule == rule, (rule, refused)
        assert refused.status == 400 and set(refused.body["error"]) >= {"message", "code"}
        assert set(refused.body) == set(own), dict(refused.body)
        assert breaches == []
        return
    assert rule in [b.rule for b in breaches], breaches
    assert all(b.body["error"]["message"] for b in breaches)  # OpenAI's words, to show
    if refused is not None:
        assert dialect.refuses(refused.rule) and set(refused.body) == set(own), refused
        return
    dialect.decode_request(BREAKING[rule])  # the kind reading never crashes


@pytest.mark.parametrize("rule", sorted(BREAKING))
def test_openai_responses_refuses_every_rule(rule: str) -> None:
    with noting_breaches() as breaches:
        refused = get_dialect("openai-responses").validate(BREAKING[rule])
    assert refused is not None and refused.rule == rule and breaches == []


def test_deepseek_pairs_in_its_own_words() -> None:
    """Fact responses_tool_pairing: DeepSeek's words and shape (param null), not OpenAI's."""
    dialect = _route("deepseek", "/responses")
    unanswered = dialect.validate(BREAKING["input.function_call.unanswered"])
    assert unanswered.body == {"error": {
        "message": "No tool output found for tool call call_A", "type": "invalid_request_error",
        "param": None, "code": "invalid_request_error"}}
    orphan = dialect.validate(BREAKING["input.function_call_output.orphan"])
    assert orphan.body["error"]["message"] == \
        "No tool call found for tool output with call_id call_A."


def test_openrouter_schema_refusal_names_the_field() -> None:
    """Fact responses_request_schema: 'Invalid Responses API request', the zod issue naming
    the item's missing field, OpenRouter's integer code."""
    refused = _route("openrouter", "/api/v1/responses").validate(
        BREAKING["input.function_call.name"])
    error = refused.body["error"]
    assert (error["message"], error["code"]) == ("Invalid Responses API request", 400)
    assert json.loads(error["metadata"]["raw"])[0]["path"] == ["input", 1, "name"]


def test_a_breach_before_a_confirmed_rule_does_not_hide_it() -> None:
    """The checks go on past a breach taken: a bad tool name and an orphan output on DeepSeek
    is refused for the orphan."""
    orphan = BREAKING["input.function_call_output.orphan"]
    with noting_breaches() as breaches:
        refused = _route("deepseek", "/responses").validate(
            dict(orphan, tools=[dict(TOOL, name="get weather")]))
    assert refused is not None and refused.rule == "input.function_call_output.orphan"
    assert [b.rule for b in breaches] == ["tools.name.pattern"]


# -- through a case: the negative control ----------------------------------------------------

class LooseParallel(OpenAIResponsesAdapter):
    """The reference Responses adapter sending ``parallel_tool_calls`` as a string (OpenAI's
    rule ``type``): the only defect, read the same by a service that takes it."""

    def build_body(self, request: Any, *, stream: bool) -> dict[str, Any]:
        return dict(super().build_body(request, stream=stream), parallel_tool_calls="true")


def _run(name: str, adapter_cls: Any = LooseParallel) -> Any:
    case = default_registry()["wire.tool_definitions_intact"]
    endpoint = in_process_endpoint(FakeProvider(name))
    try:
        return run_case(case, adapter_cls.from_endpoint(endpoint),
                        reference_profile("openai-responses"), endpoint, interfaces=["sync"])
    finally:
        endpoint.close()


def test_an_unconfirmed_responses_rule_is_hardening_on_deepseek() -> None:
    """DeepSeek's /responses is not shown to refuse a mistyped field: its fake takes the
    request, the case's own checks pass, and the breach is a should-level finding."""
    with pytest.raises(ConformanceFailure) as exc:
        _run("deepseek")
    failure = exc.value
    assert failure.clause == "request.unconfirmed"
    assert level_of(failure.clause, "wire.tool_definitions_intact") == "should"
    assert "rule type" in str(failure) and "not confirmed for deepseek" in str(failure)


def test_the_same_breach_is_a_defect_on_openai_responses() -> None:
    with pytest.raises(ConformanceFailure) as exc:
        _run("openai-responses")
    assert exc.value.clause == "request.type"
    assert level_of(exc.value.clause) == "must"


def test_the_reference_adapter_passes_on_deepseek_responses() -> None:
    """The control's twin: the unbroken adapter, no finding."""
    assert _run("deepseek", OpenAIResponsesAdapter)


def test_a_taken_breach_is_recorded_on_the_exchange() -> None:
    endpoint = in_process_endpoint(FakeProvider("openrouter"))
    endpoint.fake.expect(Turn(text="ok"))
    r = endpoint.client.post(endpoint.base_url + "/responses",
                             json=body(tools=[dict(TOOL, name="get weather")]),
                             headers={"authorization": f"Bearer {endpoint.api_key}"})
    assert r.status_code == 200
    exchange = endpoint.exchanges[-1]
    assert [b.rule for b in exchange.breaches] == ["tools.name.pattern"]
    assert [t.name for t in exchange.decoded.tools] == ["get weather"]
    endpoint.close()

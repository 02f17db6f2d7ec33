"""Issue 30: a service's fake enforces only what the service is shown to enforce.

Of OpenAI's request rules (``OPENAI_RULES``) a service's fake refuses the ones the service is
shown to refuse (``confirmed_rules``: a fact with its source and date) and the unavoidable ones
(a body that is not JSON, no messages: nothing to answer). A request that breaks any other is
taken, the kit reads it kindly, and the breach is reported as hardening: clause
``request.unconfirmed`` (``should``), naming OpenAI's rule and the service. ``openai`` itself
keeps refusing all of them.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from pytest_toolcall.cases import ErrorReply, Turn, default_registry
from pytest_toolcall.cases.levels import level_of
from pytest_toolcall.core._names import PROVIDERS
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.providers import get
from pytest_toolcall.providers.base import get_dialect, noting_breaches
from pytest_toolcall.providers.fake import FakeProvider, in_process_endpoint
from pytest_toolcall.providers.openai.dialect import (OPENAI_RULES, UNAVOIDABLE_RULES,
                                                      OpenAIChat)
from pytest_toolcall.providers.openai.probes import BREAKING
from pytest_toolcall.providers.openai.probes import USER as _USER
from pytest_toolcall.providers.openai.probes import body as _body
from pytest_toolcall.providers.openai.probes import result as _result
from pytest_toolcall.providers.openai.probes import tool as _tool
from pytest_toolcall.reference import _adapter_class, reference_profile
from pytest_toolcall.run.runner import run_case

_SERVICES = [n for n in PROVIDERS if n != "openai" and isinstance(get_dialect(n), OpenAIChat)]
#: a service's own reading that takes a body before OpenAI's rule sees it: service -> rules
_OWN_READING = {
    # llama-server reads a tool_choice that is no string as "auto" (json_value's fallback)
    "llamacpp": {"tool_choice.function.missing", "tool_choice.unknown_tool"},
    # the dated route names the deployment in the path: the body needs no model
    "azure-openai": {"model.missing"},
}


def test_every_rule_has_a_breaking_body() -> None:
    assert set(BREAKING) == set(OPENAI_RULES)


@pytest.mark.parametrize("rule", sorted(OPENAI_RULES))
def test_openai_refuses_every_rule(rule: str) -> None:
    """OpenAI's own rules stay confirmed on ``openai``: each breaking body is refused under its
    rule."""
    refused = get_dialect("openai").validate(BREAKING[rule])
    assert refused is not None and refused.status == 400, rule
    assert refused.rule == rule, refused.rule


@pytest.mark.parametrize("name", _SERVICES)
def test_every_refused_rule_has_a_source_and_a_date(name: str) -> None:
    """Each of OpenAI's rules a service's fake refuses is unavoidable (with why) or confirmed by
    a fact of the service with a source and an ISO date; each lenient rule says why."""
    dialect, provider = get_dialect(name), get(name)
    assert set(dialect.confirmed_rules) <= set(OPENAI_RULES)
    assert set(dialect.lenient_rules) <= set(OPENAI_RULES)
    for rule in OPENAI_RULES:
        if not dialect.refuses(rule):
            continue
        if rule in UNAVOIDABLE_RULES:
            assert UNAVOIDABLE_RULES[rule], rule
            continue
        fact = provider.facts[dialect.confirmed_rules[rule]]
        assert fact.source and fact.is_confirmed, (name, rule)
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", str(fact.confirmed)), (name, rule)
    for rule, why in dialect.lenient_rules.items():
        assert why and not dialect.refuses(rule) or rule in dialect.confirmed_rules, rule


@pytest.mark.parametrize("name", _SERVICES)
def test_a_service_fake_refuses_only_what_is_sourced(name: str) -> None:
    """A body breaking one of OpenAI's rules: refused under one of OpenAI's rules only when
    that rule is confirmed or unavoidable, in the service's shape; otherwise taken (or refused
    by a rule of the service's own) and decoded kindly."""
    dialect = get_dialect(name)
    own = dialect.encode_error(ErrorReply(status=400, message="m"))[1]
    for rule, body in BREAKING.items():
        with noting_breaches() as breaches:
            refused = dialect.validate(body)
        if refused is not None and refused.rule in OPENAI_RULES:
            assert dialect.refuses(refused.rule), (name, rule, refused.rule)
            assert set(refused.body) == set(own), (name, rule, dict(refused.body))
            continue  # refused for a sourced rule (Zhipu: any tool_choice but auto)
        if dialect.refuses(rule) or rule in dialect.lenient_rules:
            continue
        if refused is not None and refused.rule not in OPENAI_RULES:
            continue  # a rule of the service's own (Mistral's call id format), with its fact
        assert refused is None, (name, rule, refused and dict(refused.body))
        if rule not in _OWN_READING.get(name, ()):
            assert rule in [b.rule for b in breaches], (name, rule, breaches)
        dialect.decode_request(body)  # the kind reading never crashes


def test_groq_notes_every_unconfirmed_rule_alone() -> None:
    """Groq has no reading of its own: each unconfirmed rule is the one breach noted."""
    dialect = get_dialect("groq")
    for rule, body in BREAKING.items():
        if dialect.refuses(rule):
            continue
        with noting_breaches() as breaches:
            assert dialect.validate(body) is None, rule
        assert [b.rule for b in breaches] == [rule]
        assert breaches[0].body["error"]["message"], rule  # OpenAI's words, to show


def test_a_breach_before_a_confirmed_rule_does_not_hide_it() -> None:
    """The checks go on past an unconfirmed breach: a bad tool name and an orphan result on
    Azure is refused for the orphan (fact tool_pairing)."""
    body = _body(tools=[_tool(name="get weather")], messages=[_USER, _result()])
    with noting_breaches() as breaches:
        refused = get_dialect("azure-openai").validate(body)
    assert refused is not None and refused.rule == "messages.tool.orphan"
    assert [b.rule for b in breaches] == ["tools.name.pattern"]


# -- through a case: the negative controls -------------------------------------------------------

def _without_tool_type(name: str) -> Any:
    """The reference adapter of ``name``, sending its tools without ``"type"`` (OpenAI's rule
    tools.type.missing)."""
    base = _adapter_class(name)

    class UntypedTools(base):  # type: ignore[misc, valid-type]
        def encode_tool(self, tool: Any) -> dict[str, Any]:
            return {k: v for k, v in super().encode_tool(tool).items() if k != "type"}

    return UntypedTools


def _run(name: str, adapter_cls: Any, case_id: str = "wire.tool_definitions_intact") -> Any:
    case = default_registry()[case_id]
    endpoint = in_process_endpoint(FakeProvider(name))
    try:
        return run_case(case, adapter_cls.from_endpoint(endpoint), reference_profile(name),
                        endpoint, interfaces=["sync"]), endpoint
    finally:
        endpoint.close()


def test_an_unconfirmed_rule_is_taken_and_reported_as_hardening() -> None:
    """groq is not shown to refuse a type-less tool: the fake takes it, the case's own checks
    pass (the tool is read as a function tool), and the breach is a should-level finding."""
    with pytest.raises(ConformanceFailure) as exc:
        _run("groq", _without_tool_type("groq"))
    failure = exc.value
    assert failure.clause == "request.unconfirmed"
    assert level_of(failure.clause, "wire.tool_definitions_intact") == "should"
    assert "tools.type.missing" in str(failure) and "not confirmed for groq" in str(failure)
    assert failure.hint.startswith("OpenAI refuses tools[0].type"), failure.hint  # not groq


def test_the_same_breach_stays_a_defect_on_openai() -> None:
    with pytest.raises(ConformanceFailure) as exc:
        _run("openai", _without_tool_type("openai"))
    assert exc.value.clause == "request.tools.type.missing"
    assert level_of(exc.value.clause) == "must"


def test_a_lenient_rule_is_no_finding() -> None:
    """Mistral takes a type-less tool (fact tool_type_default): no finding at all."""
    runs, _ = _run("mistral", _without_tool_type("mistral"))
    assert runs


def test_a_confirmed_rule_is_refused_in_the_service_shape() -> None:
    """DeepSeek refuses a tool name outside OpenAI's pattern (fact tool_names), in its shape."""
    base = _adapter_class("deepseek")

    class SpacedNames(base):  # type: ignore[misc, valid-type]
        def encode_tool(self, tool: Any) -> dict[str, Any]:
            out = super().encode_tool(tool)
            out["function"] = dict(out["function"], name=out["function"]["name"] + " tool")
            return out

    case = default_registry()["wire.tool_definitions_intact"]
    endpoint = in_process_endpoint(FakeProvider("deepseek"))
    with pytest.raises(ConformanceFailure) as exc:
        run_case(case, SpacedNames.from_endpoint(endpoint), reference_profile("deepseek"),
                 endpoint, interfaces=["sync"])
    assert exc.value.clause == "request.tools.name.pattern"
    assert level_of(exc.value.clause) == "must"
    error = endpoint.exchanges[-1].rejection.body["error"]
    assert (error["param"], error["code"]) == (None, "invalid_request_error")
    endpoint.close()


def test_lmstudio_refuses_a_call_without_its_function_in_its_words() -> None:
    """Fact invalid_messages: LM Studio's words, its object shape."""
    refused = get_dialect("lmstudio").validate(BREAKING["messages.tool_calls.function"])
    assert refused is not None and refused.rule == "messages.tool_calls.function"
    assert refused.body["error"]["message"].startswith("Invalid 'messages' in payload.")


def test_groq_refuses_a_result_without_its_id_in_its_validator_words() -> None:
    """Fact tool_message_fields: Groq's words, Groq's shape (no param)."""
    endpoint = in_process_endpoint(FakeProvider("groq"))
    endpoint.fake.expect(Turn(text="ok"))
    r = endpoint.client.post(endpoint.base_url + "/chat/completions",
                             json=BREAKING["messages.tool.tool_call_id"],
                             headers={"authorization": f"Bearer {endpoint.api_key}"})
    assert r.status_code == 400
    assert r.json() == {"error": {
        "message": "'messages.2' : for 'role:tool' the following must be satisfied"
                   "[('messages.2.tool_call_id' : property 'tool_call_id' is missing)]",
        "type": "invalid_request_error"}}
    endpoint.close()


def test_a_taken_breach_is_recorded_on_the_exchange() -> None:
    """What the fake took is on the exchange (Exchange.breaches), decoded kindly: the type-less
    tool is a function tool; OpenAI's fake records none and refuses."""
    for name, taken in (("together", True), ("openai", False)):
        endpoint = in_process_endpoint(FakeProvider(name))
        endpoint.fake.expect(Turn(text="ok"))
        endpoint.client.post(endpoint.base_url + "/chat/completions",
                             json=BREAKING["tools.type.missing"],
                             headers={"authorization": f"Bearer {endpoint.api_key}"})
        exchange = endpoint.exchanges[-1]
        if taken:
            assert exchange.rejection is None and exchange.decode_error is None
            assert [b.rule for b in exchange.breaches] == ["tools.type.missing"]
            assert [t.name for t in exchange.decoded.tools] == ["get_weather"]
        else:
            assert exchange.rejection is not None and exchange.breaches == ()
        endpoint.close()

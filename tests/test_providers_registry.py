import pytest

from pytest_toolcall.providers import REGISTRY, Fact, Provider, get


def test_dialect_names_are_providers():
    for d in ("openai", "openai-responses", "anthropic", "gemini", "ollama"):
        assert get(d).dialect == d


def test_unknown_provider_lists_valid_names_by_family():
    with pytest.raises(KeyError) as exc:
        get("nope")
    openai_family = sorted(name for name, p in REGISTRY.items() if p.family == "openai")
    assert {"vllm", "groq", "azure-openai", "openai-responses"} <= set(openai_family)
    assert f"openai: {', '.join(openai_family)}" in str(exc.value)
    assert "gemini: gemini, vertex" in str(exc.value)


def test_malformed_provider_names_field():
    with pytest.raises(ValueError, match="field 'dialect'"):
        Provider(name="x", dialect="klingon", family="x")
    with pytest.raises(ValueError, match="facts\\['ids'\\]"):
        Provider(name="x", dialect="openai", family="openai", facts={"ids": "9 chars"})


def test_unconfirmed_fact():
    assert not Fact("x").is_confirmed
    assert Fact("x", "https://example", "2026-11-22").is_confirmed
    # the five dialects and every service, in the order --toolcall-provider=all runs them
    from pytest_toolcall.core._names import PROVIDERS

    assert tuple(REGISTRY) == PROVIDERS and len(REGISTRY) == 19


def test_vertex_is_a_gemini_provider_with_confirmed_facts():
    vertex = get("vertex")
    assert (vertex.dialect, vertex.family) == ("gemini", "gemini")
    assert vertex.facts and all(f.is_confirmed for f in vertex.facts.values())

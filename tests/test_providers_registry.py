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


def _load(tmp_path, data):
    import json

    from pytest_toolcall.providers._facts import load

    (tmp_path / "facts.json").write_text(json.dumps(data), encoding="utf-8")
    return load(str(tmp_path / "facts.py"))


def test_facts_json_loads_into_the_provider(tmp_path):
    got = _load(tmp_path, {
        "name": "svc", "dialect": "openai", "family": "openai", "about": "a service",
        "notes": ["a remark"],
        "facts": {"auth": {"value": "bearer", "source": "docs", "confirmed": "2026-11-25"},
                  "quota": {"value": "not confirmed"}},
        "quirks": {"sse_comments": {"value": "keep-alive lines", "source": "docs",
                                    "confirmed": "2026-11-25"}}})
    assert got == Provider(name="svc", dialect="openai", family="openai", facts={
        "auth": Fact("bearer", "docs", "2026-11-25"), "quota": Fact("not confirmed")},
        quirks={"sse_comments": Fact("keep-alive lines", "docs", "2026-11-25")})
    assert list(got.facts) == ["auth", "quota"]  # the file's order is the registry's


@pytest.mark.parametrize(("data", "match"), [
    ({"name": "s", "dialect": "openai", "family": "openai", "fact": {}},
     r"facts\.json: unknown key\(s\) fact"),
    ({"name": "s", "dialect": "openai", "family": "openai", "facts": {"auth": {"source": "x"}}},
     r"field facts\['auth'\] must be an object with a 'value'"),
    ({"name": "s", "dialect": "openai", "family": "openai",
      "facts": {"auth": {"value": "v", "source": "x", "confirmed": "25.11.2026"}}},
     r"facts\['auth'\]\.confirmed must be an ISO date"),
    ({"name": "s", "dialect": "openai", "family": "openai",
      "quirks": {"q": {"value": "v", "date": "2026-11-25"}}},
     r"quirks\['q'\] has unknown key\(s\) date"),
    ({"name": "s", "dialect": "klingon", "family": "openai"}, "field 'dialect'"),
])
def test_a_bad_facts_json_names_the_file_and_the_field(tmp_path, data, match):
    with pytest.raises(ValueError, match=match):
        _load(tmp_path, data)

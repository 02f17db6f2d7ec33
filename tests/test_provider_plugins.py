"""A provider from a plugin: the ``pytest_toolcall_providers`` hook (issue 13).

A project adds its in-house gateway from its conftest.py: data (a Provider with sourced quirks)
plus the dialect class its fake plays. ``--toolcall-provider=<name>`` then runs the suite against
it, its declared quirks included; a malformed provider stops the run before any case, naming the
hook's file, the provider and the field.
"""

from __future__ import annotations

import textwrap

import pytest

import tests.kit_imports  # noqa: F401 - the kit, before any pytester run: tests/kit_imports.py

pytest_plugins = ["pytester"]

GATEWAY = textwrap.dedent('''
    from pytest_toolcall.providers.openai.dialect import OpenAIChat
    from pytest_toolcall.providers import Fact, Provider


    class AcmeGateway(OpenAIChat):
        """ACME's gateway: OpenAI's Chat Completions under /llm/v2."""

        name, title, base_path = "acme", "ACME gateway", "/llm/v2"

        def route(self, method, path):
            return method == "POST" and path == "/llm/v2/chat/completions"


    def pytest_toolcall_providers(config):
        return [Provider(name="acme", dialect="openai", family="openai", fake=AcmeGateway,
                         facts={"routes": Fact("POST /llm/v2/chat/completions",
                                               "gateway runbook, section 2", "2026-11-01")},
                         quirks={"sse_comments": Fact("': ping' comments every 10 s",
                                                      "gateway runbook, section 4",
                                                      "2026-11-01")})]
''')


def test_a_plugin_provider_runs_the_suite_with_its_quirks(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(GATEWAY)
    result = pytester.runpytest("--toolcall-provider=acme", "-p", "no:randomly",
                                "-p", "no:cacheprovider", "-v")
    assert result.ret == 0, result.stdout.str()
    out = result.stdout.str()
    assert "stream acme" in out.replace("  ", " ") or "acme" in out
    # the items that ran, from -v (a --collect-only session of their own until issue 34): its
    # declared quirk runs in its own run; a quirk it does not declare does not
    ran = {line.split()[0] for line in result.outlines if line.startswith("toolcall::")}
    assert "toolcall::stream.sse_comment_lines[acme]" in ran
    assert "toolcall::stream.index_missing[acme]" not in ran
    assert "toolcall::wire.single_call[acme]" in ran


def test_all_and_the_unknown_name_message_include_it(pytester: pytest.Pytester) -> None:
    # imported before the runs: pytester restores sys.modules after each in-process run, and a
    # module first imported inside one would come back as a fresh copy, empty of any leftover
    from pytest_toolcall.providers import REGISTRY

    pytester.makeconftest(GATEWAY)
    listed = pytester.runpytest("--toolcall-provider=all", "--collect-only", "-q",
                                "-p", "no:randomly", "-p", "no:cacheprovider").stdout.str()
    assert "[acme]" in listed and "[openai]" in listed
    assert "acme" not in REGISTRY  # forgotten when the session ended
    result = pytester.runpytest("--toolcall-provider=acmee", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unknown provider 'acmee'" in result.stderr.str()
    assert "acme" in result.stderr.str().split("Valid providers:", 1)[1]
    # a session that stopped on a usage error forgets its plugin's providers too (pytest never
    # attaches the kit's pytest_unconfigure then: pluggy stops at the pytest_configure that raised)
    assert "acme" not in REGISTRY


@pytest.mark.parametrize(("returned", "names"), [
    ('[Provider(name="acme", dialect="openai", family="openai", fake=object)]',
     ["provider 'acme', field 'fake'", "is not a dialect class", "subclass"]),
    ('[Provider(name="Acme Gateway", dialect="openai", family="openai")]',
     ["provider 'Acme Gateway', field 'name'", "lower-case"]),
    ('[Provider(name="openai", dialect="openai", family="openai")]',
     ["field 'name'", "already a provider"]),
    ('[Provider(name="acme", dialect="openai", family="openai", '
     'quirks={"index_mising": Fact(True, "x", "2026-11-01")})]',
     ["field \"quirks['index_mising']\"", "unknown quirk", "index_missing"]),
    ('[Provider(name="acme", dialect="openai", family="openai", '
     'quirks={"index_missing": Fact(True)})]',
     ["field \"quirks['index_missing']\"", "a source and the date"]),
    ('[Provider(name="acme", dialect="soap", family="openai")]',
     ["could not build its providers", "field 'dialect' is 'soap'"]),
    ('{"name": "acme"}',
     ["returned a str", "pytest_toolcall.providers.Provider"]),
    # the well-formed one before the malformed one is forgotten too (asserted below)
    ('[Provider(name="acme-ok", dialect="openai", family="openai"), '
     'Provider(name="acme", dialect="openai", family="openai", fake=object)]',
     ["provider 'acme', field 'fake'"]),
])
def test_a_malformed_provider_is_a_usage_error_naming_the_field(
        pytester: pytest.Pytester, returned: str, names: list[str]) -> None:
    from pytest_toolcall.providers import REGISTRY  # before the run (see above)

    pytester.makeconftest(textwrap.dedent(f'''
        from pytest_toolcall.providers import Fact, Provider

        def pytest_toolcall_providers(config):
            return {returned}
    '''))
    result = pytester.runpytest("--toolcall-provider=openai", "-p", "no:randomly")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    err = result.stderr.str()
    assert "pytest_toolcall_providers hook in" in err and "conftest.py" in err
    for name in names:
        assert name in err, err
    assert "Traceback" not in err
    assert not {"acme", "acme-ok"} & set(REGISTRY)


def test_a_profile_may_name_a_plugin_provider(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(GATEWAY + textwrap.dedent('''
        import pytest
        from pytest_toolcall.core.contracts import Profile

        @pytest.fixture
        def toolcall_profile():
            return Profile(compatible_with={"acme"})
    '''))
    # in this process (the kit imported before any run: tests/kit_imports.py; a kit module
    # first imported inside an earlier in-process run came back as a second copy, whose event
    # classes the first copy's checks did not recognise, so this ran in a process of its own)
    result = pytester.runpytest_inprocess("--toolcall-provider=openai", "-k",
                                           "sse_comment_lines", "-p", "no:randomly",
                                           "-p", "no:cacheprovider", "-rs")
    # under openai the gateway's quirk now runs (and the reference passes it)
    result.assert_outcomes(passed=1)


def test_a_plugin_providers_fake_answers_with_its_wires_errors() -> None:
    """Issue 34: error bodies are a method of the provider's dialect class (``error_table``),
    so a plugin's provider whose fake subclasses a wire answers a scripted error kind in that
    wire's words; a class that gives its own ``error_table`` answers in its own. Before, the
    bodies were a function branching on the built-in names, and a plugin's provider had none."""
    from pytest_toolcall.cases import ErrorReply, Turn
    from pytest_toolcall.providers.anthropic.dialect import AnthropicMessages
    from pytest_toolcall.providers.fake import FakeProvider
    from pytest_toolcall.providers.fake.provider import in_process_endpoint
    from pytest_toolcall.providers.openai import errors as openai_errors

    class Acme(AnthropicMessages):
        name = "acme-errors"

    class Quiet(AnthropicMessages):
        name = "acme-quiet"

        @staticmethod
        def error_table(kind: str, delay: int | None = None) -> None:
            return None

    assert Acme().error_table("overloaded", None)[0] == 529, "Anthropic's own overloaded status"
    assert Acme().error_table("overloaded", None) != openai_errors.error_table("overloaded")
    fake = FakeProvider(Acme())
    fake.expect(Turn(error=ErrorReply(kind="rate_limit", retry_after=4)))
    ep = in_process_endpoint(fake)
    reply = ep.client.post(ep.base_url + "/v1/messages",
                           headers={"x-api-key": ep.api_key, "anthropic-version": "2023-06-01"},
                           json={"model": "m", "max_tokens": 1,
                                 "messages": [{"role": "user", "content": "hi"}]})
    assert reply.status_code == 429 and reply.headers["retry-after"] == "4"
    assert reply.json()["error"]["type"] == "rate_limit_error"
    assert Quiet().error_table("rate_limit", 4) is None

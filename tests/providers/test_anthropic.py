"""The ``anthropic`` dialect: what its controls are made of, and a second way to read its stream.

Its negative controls (``controls_anthropic.py``: every anthropic-only case has a row; the rows on
shared cases reproduce the WIRE.md §6 bugs of this wire, litellm #5063 and #5231) and the
reference adapter on every case that applies to the dialect run in ``test_controls.py``.
"""

from __future__ import annotations

import controls_anthropic as c  # tests/providers/ is on sys.path
from provider_kit import endpoint_fixture

from pytest_toolcall.cases import default_registry
from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.providers.anthropic.reference import AnthropicAdapter
from pytest_toolcall.providers.fake.provider import Endpoint
from pytest_toolcall.run.runner import run_case

endpoint = endpoint_fixture("anthropic")


def test_each_control_breaks_one_small_method() -> None:
    for name in c.__all__:
        broken = getattr(c, name)
        assert issubclass(broken, AnthropicAdapter)
        own = {m for m in ("complete", "acomplete", "stream", "astream") if m in vars(broken)}
        assert not own, f"{name} overrides an entry point; break one small method instead"


def test_real_bugs_are_reproduced() -> None:
    """litellm #5063 and #5231 (WIRE.md §6) each have a control that the suite catches."""
    sources = {name: getattr(c, name).__doc__ for name in c.__all__}
    assert any("litellm #5063" in doc for doc in sources.values())
    assert any("litellm #5231" in doc for doc in sources.values())


def test_event_dispatch_on_json_type_works_too(endpoint: Endpoint) -> None:
    """An adapter that ignores the ``event:`` line and dispatches on the JSON ``type`` passes the
    ping case as well: both ways of reading the stream are correct."""
    from pytest_toolcall.providers.anthropic.reference import AnthropicStreamAccumulator

    class ByType(AnthropicStreamAccumulator):
        def feed_line(self, line: str):  # type: ignore[no-untyped-def]
            if line.startswith("data:") and not self.done:
                import json

                data = json.loads(line[5:])
                return self.feed(data.get("type"), data)
            return ()

    class TypeDispatch(AnthropicAdapter):
        def new_accumulator(self) -> AnthropicStreamAccumulator:
            return ByType(self)

    case = default_registry()["stream.anthropic_pings_everywhere"]
    runs = run_case(case, TypeDispatch.from_endpoint(endpoint), Profile(), endpoint)
    assert [len(r.steps[0].response.tool_calls) for r in runs] == [3, 3]  # type: ignore[union-attr]
    pings = endpoint.exchanges[-1].response_body.count(b"event: ping\n")
    assert pings > 20  # the quirk really put pings between the events

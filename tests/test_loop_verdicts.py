"""Loop verdicts that were false on real libraries (issue 28, part 5), each with the real library
where it installs and a control the case must fail, with the clause asserted.

- ``loop.model_timeout`` on a loop that streams: the fake stalls after its 200 headers, and no
  client retries a stream once it has the headers (openai 3.57.0 ``_base_client.py``
  ``SyncAPIClient.request`` retries a timeout raised by ``_send_request``, which returns at the
  headers for a stream; ``_streaming.py`` ``Stream._iter_events`` raises APITimeoutError later,
  outside the retry loop). The case expected ``2 + model_retries`` calls; a streamed call that
  stalls now counts once (``policy.stalled_call``).
"""

from __future__ import annotations

from typing import Any

import pytest

import pytest_toolcall.conformance.loop as loop_cases
from pytest_toolcall.core.contracts import Profile
from pytest_toolcall.core.errors import ConformanceFailure
from pytest_toolcall.core.loop import LoopRequest
from pytest_toolcall.core.model import ChatRequest, ChatResponse, assemble_stream
from pytest_toolcall.reference.loop import ReferenceToolLoop, _State
from pytest_toolcall.run.runner import run_case

LOOP = {case.id: case for case in loop_cases.CASES}


# -- loop.model_timeout: a loop over the openai SDK, streaming or not ----------------------------

class _SdkModel:
    """The loop's model: the kit's openai shim over a real ``openai.OpenAI`` (the SDK's own
    retries: ``max_retries=2``), asking for a stream or for the whole answer. ``own_retries``:
    a loop that retries a failed call itself (the control)."""

    def __init__(self, endpoint: Any, stream: bool, own_retries: int = 0) -> None:
        import openai

        from pytest_toolcall import shims

        client = openai.OpenAI(base_url=endpoint.base_url, api_key=endpoint.api_key,
                               http_client=endpoint.client, max_retries=2)
        self.adapter = shims.openai(lambda _ep: client)(endpoint)
        self.streamed, self.own_retries = stream, own_retries

    def complete(self, request: ChatRequest) -> ChatResponse:
        for attempt in range(self.own_retries + 1):
            try:
                if self.streamed:
                    return assemble_stream(self.adapter.stream(request))
                return self.adapter.complete(request)
            except Exception:
                if attempt == self.own_retries:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover


class SdkLoop(ReferenceToolLoop):
    """The reference loop, its model calls made through the openai SDK on the fake."""

    def __init__(self, stream: bool, own_retries: int = 0, **kw: Any) -> None:
        super().__init__(**kw)
        self.streamed, self.own_retries = stream, own_retries

    def new_state(self, request: LoopRequest) -> _State:
        request.model = _SdkModel(request.endpoint, self.streamed, self.own_retries)
        return super().new_state(request)


#: the openai SDK retries twice by default: the profile declares it (docs/loops.md)
SDK_PROFILE = Profile(model_retries=2, timeout=20.0)


def _timeout_run(loop: SdkLoop) -> Any:
    pytest.importorskip("openai")
    profile = SDK_PROFILE.model_copy(update={"sync": True, "async_": False})
    try:
        return run_case(LOOP["loop.model_timeout"], loop, profile, loop_model="fake")
    except ConformanceFailure as failure:
        return failure


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_model_timeout_counts_the_sdks_retries_only_where_it_makes_them(stream: bool) -> None:
    runs = _timeout_run(SdkLoop(stream))
    assert not isinstance(runs, ConformanceFailure), runs.render()
    (run,) = runs
    assert run.result.stop_reason == "error"
    # the SDK retried the whole-answer call twice, and no stream
    assert run.model_calls == (2 if stream else 4)
    assert all(r.stream == stream for r in run.requests)


def test_control_a_streaming_loop_that_retries_the_stall_itself_fails() -> None:
    failure = _timeout_run(SdkLoop(stream=True, own_retries=2))
    assert isinstance(failure, ConformanceFailure) and failure.clause == "loop.model_calls", \
        failure


def test_control_a_whole_answer_loop_that_does_not_retry_fails() -> None:
    """The SDK's retries are declared (model_retries=2): a client built with max_retries=0
    under that profile makes 2 calls, not 4."""

    class NoRetries(_SdkModel):
        def __init__(self, endpoint: Any, stream: bool, own_retries: int = 0) -> None:
            super().__init__(endpoint, stream, own_retries)
            self.adapter.client = self.adapter.client.with_options(max_retries=0)

    class NoRetryLoop(SdkLoop):
        def new_state(self, request: LoopRequest) -> _State:
            request.model = NoRetries(request.endpoint, self.streamed)
            return ReferenceToolLoop.new_state(self, request)

    failure = _timeout_run(NoRetryLoop(stream=False))
    assert isinstance(failure, ConformanceFailure) and failure.clause == "loop.model_calls", \
        failure

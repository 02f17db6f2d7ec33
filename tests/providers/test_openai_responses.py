"""The openai-responses dialect: which shared cases run for it.

Its negative controls (``controls_openai_responses.py``) and the reference Responses adapter on
every case of the dialect (shared and specific) run in ``test_controls.py``.
"""

from __future__ import annotations

from pytest_toolcall.cases import default_registry

DIALECT = "openai-responses"


def test_the_shared_text_argument_cases_that_apply_run_for_the_dialect() -> None:
    ids = {case.id for case in default_registry().select(dialect=DIALECT)}
    assert {"wire.zero_args_empty_string", "wire.malformed_arguments", "stream.zero_args",
            "stream.parallel_interleaved", "stream.index_stuck_at_zero",
            "stream.index_missing", "stream.id_name_once"} <= ids
    # chat-completions-only mechanisms: null arguments, repeated id/name, the role chunk
    assert not {"stream.id_name_repeated", "stream.call_in_role_chunk",
                "stream.usage_chunk", "wire.zero_args_null"} & ids

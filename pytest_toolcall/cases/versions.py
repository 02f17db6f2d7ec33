"""The suite's versions: which built-in case each version added, and the one that runs now.

A project pins a suite version (``--toolcall-suite=0.3.0``, ini ``toolcall_suite``); the cases
added after it run only on request (*preview*: ``--toolcall-preview``), and a clause re-levelled
after it keeps the level it had then (:mod:`pytest_toolcall.cases.levels`). Upgrading the kit
then never turns a green project red; moving the pin does, on purpose. The package's version
follows the suite's (``pyproject.toml``), and ``CHANGELOG.md`` lists, per version, the cases and
clauses added, changed or re-levelled.

Versions before 0.4.0 were assigned after the fact: the package said 0.1.0 throughout and no
release was tagged, so each earlier version is the suite as it stood at the end of a day of
work, at the commit :data:`RELEASES` names; which case each added was read from git history
(``git log -S'"<case id>"'``, the commit that first wrote the id outside tests and docs).
"""

from __future__ import annotations

import re

__all__ = ["ADDED", "RELEASES", "SUITE_VERSION", "added_in", "check_version", "parse_version"]

#: the suite this kit runs when no version is pinned (the package version follows it)
SUITE_VERSION = "0.4.0"

#: version -> (date, the commit of the kit's repository the suite stood at, one line on it);
#: "unreleased" for the version under way
RELEASES: dict[str, tuple[str, str, str]] = {
    "0.1.0": ("2026-11-23", "6011856", "the five wire formats, the loop, history and "
                                       "structured-output contracts, cassettes and live cases"),
    "0.2.0": ("2026-11-24", "7add5d2", "the errors family, system and developer messages, "
                                       "reasoning replay, Vertex"),
    "0.3.0": ("2026-11-27", "f83dbd5", "fourteen services beyond the wire formats, with their "
                                       "own cases"),
    "0.4.0": ("unreleased", "", "levels (must, should), the versioned suite, cases from the census"),
}


def _ids(text: str) -> tuple[str, ...]:
    return tuple(text.split())


#: version -> the built-in cases it added (live cases included)
ADDED: dict[str, tuple[str, ...]] = {
    "0.1.0": _ids("""
        fallback.arguments_fail_schema fallback.fenced_json fallback.json_failing_schema
        fallback.json_in_prose fallback.json_in_text fallback.malformed_arguments
        fallback.other_tool_ignored fallback.plain_text fallback.tool_first
        history.all_calls_failed history.dedupe history.orphan_calls history.orphan_results
        history.random_histories history.result_stored_late history.results_without_id
        live.non_ascii_args live.parallel_calls live.round_trip live.stream_round_trip
        live.tool_choice_none live.tool_choice_required live.zero_args loop.all_failure_rounds
        loop.answered_once_in_order loop.duplicate_call_id loop.events
        loop.failure_rounds_not_iterations loop.failure_rounds_reset loop.iteration_cap
        loop.malformed_arguments loop.missing_required_argument loop.mixed_batch loop.model_error
        loop.parallel_dispatch loop.permanent_failure loop.retryable_failure_continues
        loop.sanitised_failures loop.tool_timeout loop.unknown_tool loop.usage_summed
        stream.anthropic_parallel_blocks stream.anthropic_pings_everywhere
        stream.anthropic_usage_legacy_delta stream.anthropic_usage_split
        stream.anthropic_zero_args_blocks stream.any_chunking stream.bytewise
        stream.call_in_role_chunk stream.gemini_calls_in_one_chunk stream.gemini_crlf_events
        stream.gemini_one_call_per_chunk stream.gemini_signature_echoed stream.id_name_once
        stream.id_name_repeated stream.index_missing stream.index_stuck_at_zero
        stream.malformed_arguments stream.mid_stream_error stream.ollama_error_line
        stream.ollama_index_stuck_at_zero stream.ollama_ndjson_split stream.parallel_interleaved
        stream.parallel_sequential stream.provider_error stream.responses_arguments_in_done_only
        stream.responses_call_id_from_item stream.responses_failed_event
        stream.responses_no_completed stream.responses_output_index
        stream.responses_usage_from_completed stream.same_as_complete stream.single_call_fragmented
        stream.sse_data_without_space stream.text_fragmented stream.truncated stream.usage_chunk
        stream.zero_args stream.zero_args_null wire.anthropic_is_error
        wire.anthropic_results_one_message wire.anthropic_tool_choice_parallel
        wire.anthropic_tool_results_first wire.assistant_text_replayed wire.error_not_json
        wire.gemini_calls_without_ids wire.gemini_id_less_results_paired
        wire.gemini_ids_and_signature_echoed wire.gemini_one_response_turn
        wire.gemini_stop_with_calls wire.malformed_arguments wire.malformed_success
        wire.non_ascii_arguments wire.ollama_calls_without_ids
        wire.ollama_done_reason_stop_with_calls wire.ollama_object_arguments
        wire.ollama_tool_name_on_results wire.parallel_calls wire.parallel_tool_calls_false
        wire.parallel_tool_calls_without_tools wire.provider_error
        wire.responses_call_id_not_item_id wire.responses_every_call_answered
        wire.second_turn_passthrough wire.single_call wire.strict_tool_intact wire.text_and_calls
        wire.text_only wire.tool_choice_auto wire.tool_choice_named wire.tool_choice_none
        wire.tool_choice_required wire.tool_definitions_intact wire.unknown_finish_reason
        wire.usage wire.zero_args_empty_object wire.zero_args_empty_string wire.zero_args_null
    """),
    "0.2.0": _ids("""
        errors.auth_invalid errors.connection_refused errors.connection_reset errors.context_length
        errors.gateway_html errors.in_stream errors.model_not_found errors.overloaded
        errors.permission_denied errors.quota_exhausted errors.rate_limited
        errors.rate_limited_stream errors.request_too_large errors.server_error
        errors.stream_cancelled errors.stream_stalled fallback.fence_other_language
        fallback.text_kept_when_tool_wins fallback.two_objects_in_prose history.call_id_reused
        history.call_repeated_in_one_turn history.empty_assistant_dropped
        history.results_in_call_order loop.argument_types loop.content_filtered loop.model_timeout
        loop.rate_limited loop.result_contents_match loop.stop_with_calls loop.text_with_calls
        loop.truncated_answer stream.anthropic_thinking_replayed stream.gemini_finish_on_last_chunk
        stream.responses_reasoning_replayed stream.sse_comment_lines
        wire.anthropic_foreign_id_pattern wire.anthropic_thinking_replayed
        wire.assistant_text_with_calls_replayed wire.developer_message wire.foreign_history
        wire.gemini_calls_without_signature wire.responses_reasoning_replayed wire.system_prompt
        wire.system_prompts_several
    """),
    "0.3.0": _ids("""
        errors.azure_prompt_filtered errors.deepseek_insufficient_balance
        errors.groq_tool_use_failed errors.llamacpp_jinja_required errors.lmstudio_string_error
        errors.vllm_auto_tool_choice_unconfigured fallback.braces_around_json
        fallback.fence_wins_over_prose fallback.tool_after_other_call loop.cancelled
        loop.handed_off stream.azure_call_in_role_chunk stream.azure_content_filter_results
        stream.azure_prompt_filter_chunk stream.cerebras_reasoning_decoded
        stream.cerebras_usage_on_finish_chunk stream.deepseek_reasoning_replayed
        stream.deepseek_usage_on_finish_chunk stream.fireworks_kimi_id_before_name
        stream.fireworks_reasoning_replayed stream.groq_reasoning_decoded
        stream.groq_usage_in_x_groq stream.groq_whole_calls stream.llamacpp_reasoning_replayed
        stream.lmstudio_error_event stream.lmstudio_numeric_call_ids
        stream.lmstudio_reasoning_content stream.mistral_content_chunks
        stream.mistral_whole_calls_on_finish_chunk stream.openrouter_error_event
        stream.openrouter_reasoning_details_replayed stream.openrouter_repeated_finish
        stream.openrouter_role_every_chunk stream.oversized_line
        stream.together_finish_after_tool_calls stream.together_reasoning_field
        stream.together_usage_on_last_chunk stream.unicode_line_separators
        stream.vllm_arguments_on_finish_chunk stream.vllm_error_then_done
        stream.vllm_reasoning_replayed stream.xai_reasoning_content stream.xai_whole_calls
        stream.zhipu_reasoning_replayed stream.zhipu_usage_on_finish_chunk
        stream.zhipu_whole_calls_on_finish_chunk wire.azure_content_filter_finish
        wire.cerebras_reasoning_decoded wire.deepseek_empty_reasoning_replayed
        wire.deepseek_keep_alive_lines wire.deepseek_reasoning_replayed
        wire.fireworks_reasoning_replayed wire.groq_reasoning_decoded
        wire.llamacpp_call_ids_replayed wire.llamacpp_reasoning_replayed
        wire.lmstudio_error_in_200_body wire.lmstudio_gpt_oss_reasoning
        wire.lmstudio_numeric_call_ids wire.lmstudio_reasoning_content wire.mistral_content_chunks
        wire.mistral_tool_call_id_format wire.openrouter_reasoning_details_replayed
        wire.together_reasoning_field wire.vertex_call_ids wire.vllm_named_choice_finish_stop
        wire.vllm_no_empty_tools wire.vllm_reasoning_replayed
        wire.vllm_stream_options_only_when_streaming wire.xai_error_body wire.xai_reasoning_content
        wire.xai_usage_reasoning_tokens wire.zhipu_call_ids_replayed wire.zhipu_reasoning_replayed
    """),
    "0.4.0": _ids("""
        loop.cancelled_tools_stopped loop.model_deadline loop.model_error_not_retried
        loop.overloaded_retried loop.rate_limit_retries_bounded loop.retry_after_capped
        history.reasoning_kept loop.anthropic_thinking_replayed loop.deepseek_reasoning_replayed
        loop.responses_reasoning_replayed loop.system_prompt_every_turn
        fallback.cut_call_not_repaired fallback.fence_other_language_json
        fallback.first_valid_call_wins history.results_in_call_order_random_ids
        history.text_beside_kept_calls stream.anthropic_consecutive_thinking
        loop.gemini_thought_signature_replayed wire.gemini_thought_not_answer
        stream.id_name_null errors.key_not_in_error
        wire.responses_incomplete stream.responses_incomplete_event wire.responses_failed
        stream.ollama_payload_on_done_line errors.ollama_tools_unsupported
        wire.ollama_calls_only_turn_replayed
        wire.gemini_prompt_blocked wire.gemini_text_in_parts wire.gemini_failed_result
        wire.gemini_signed_history_replayed wire.gemini_results_out_of_order
        wire.gemini_success_not_object wire.anthropic_text_in_blocks
        wire.responses_text_in_messages
    """),
}

_VERSION = re.compile(r"^\d+\.\d+\.\d+$")
_SINCE = {case_id: version for version, ids in ADDED.items() for case_id in ids}


def parse_version(version: str) -> tuple[int, ...]:
    """``"0.3.0"`` -> ``(0, 3, 0)``."""
    return tuple(int(part) for part in version.split("."))


def check_version(version: str) -> str:
    """``version`` when it is a suite version; a ``ValueError`` naming the known ones if not."""
    version = version.strip()
    if version not in RELEASES:
        shape = "" if _VERSION.match(version) else " (a version looks like 0.3.0)"
        raise ValueError(f"unknown suite version {version!r}{shape}; the suite versions are "
                         f"{', '.join(RELEASES)} (the newest, {SUITE_VERSION}, runs unpinned)")
    return version


def added_in(case_id: str) -> str:
    """The suite version that added the built-in case ``case_id``; a built-in case not in
    :data:`ADDED` is new in the version under way."""
    return _SINCE.get(case_id, SUITE_VERSION)

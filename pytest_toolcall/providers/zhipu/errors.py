"""Zhipu / Z.ai GLM: its own error answers, one per error kind (status, headers, body).

Confirmed 2026-11-25. Zhipu / Z.ai GLM (``{"error": {"code": "<business code, a string>",
"message"}}``, no type; docs.z.ai/api-reference/api-code): 429 code 1302 for concurrency, 1305 for
an overloaded model, 1113 for a used-up balance (a 429 no retry cures: the quota kind), 401 code
1000, 400 code 1211 for an unknown model and 1261 "Prompt exceeds max length"; no rate-limit header
and no Retry-After (measured). The texts are open.bigmodel.cn's; see ``_zhipu_table``.

The fake answers a scripted ``ErrorReply(kind=...)`` with ``error_table`` (the dialect's
``error_table``); ``providers.errors`` lists the kinds and which are retryable.
"""

from __future__ import annotations

from typing import Any


def _zhipu(code: str, message: str) -> dict[str, Any]:
    # Zhipu's business code is a string; there is no type (docs.z.ai/api-reference/api-code)
    return {"error": {"code": code, "message": message}}


def error_table(kind: str, delay: int | None = None) -> tuple[int, dict[str, str], Any] | None:
    """Confirmed 2026-11-25: the statuses and codes of docs.z.ai/api-reference/api-code (401
    authentication; 429 for concurrency, balance and account; 400 parameters), the wordings as
    open.bigmodel.cn answers them (Chinese; Z.ai answers in English), from recorded bodies:
    1302 concurrency (a public FAQ quoting the 429; z.ai: 'Rate limit reached for requests',
    measured with three concurrent requests: no Retry-After, no X-RateLimit-* headers), 1113
    balance (429; recorded bodies in several public test suites: 'Insufficient balance or no
    resource package. Please recharge.' on z.ai), 1000 authentication, 1211 unknown model,
    1261 'Prompt exceeds max length' (names no number), 1305 model overloaded (429), all in a
    gateway's live evidence of 2026-10-09 and other public fixtures. 500: the api-code page's
    'Internal Error'; the body's wording is NOT confirmed. No 403 is documented for chat."""
    if kind == "rate_limit":
        return 429, {}, _zhipu("1302", "您当前使用该API的并发数过高，请降低并发，或联系客服增加限额。")
    if kind == "quota":  # a 429 that no wait cures: the balance is used up
        return 429, {}, _zhipu("1113", "余额不足或无可用资源包,请充值。")
    if kind == "auth":
        return 401, {}, _zhipu("1000", "身份验证失败。")
    if kind == "model_not_found":
        return 400, {}, _zhipu("1211", "模型不存在，请检查模型代码。")
    if kind == "context_length":
        return 400, {}, _zhipu("1261", "Prompt exceeds max length")
    if kind == "server_error":  # not confirmed: the wording (the api-code page's title)
        return 500, {}, _zhipu("500", "Internal Error")
    if kind == "overloaded":
        return 429, {}, _zhipu("1305", "该模型当前访问量过大，请您稍后再试")
    return None

"""Gemini on Vertex AI: the gemini wire (``providers/gemini/dialect.py``) on Vertex's routes,
with a bearer token. The facts and their sources are in ``facts.py`` beside this file."""

from __future__ import annotations

import re
from collections.abc import Mapping

from pytest_toolcall.providers.base import Rejection
# the gemini wire's own error builder: Vertex answers in the same shape
from pytest_toolcall.providers.gemini.dialect import Gemini, _error
from pytest_toolcall.providers.vertex import errors as _errors

__all__ = ["DIALECT", "Vertex"]

_VERTEX_ROUTE = re.compile(r"^/(v1|v1beta1)/projects/[^/]+/locations/[^/]+/publishers/google/"
                           r"models/[^/:]+:(generateContent|streamGenerateContent)$")
#: Google's texts for a missing or wrong OAuth token (GoogleCloudPlatform/generative-ai #454,
#: quarkus-langchain4j #825, mscraftsman/generative-ai #51) and for an API key sent to Vertex
#: (a2a-samples #43, RedInk #40); confirmed 2026-11-23
_OAUTH = ("Expected OAuth 2 access token, login cookie or other valid authentication credential. "
          "See https://developers.google.com/identity/sign-in/web/devconsole-project.")
_NO_KEYS = ("API keys are not supported by this API. Expected OAuth2 access token or other "
            "authentication credentials that assert a principal. See "
            "https://cloud.google.com/docs/authentication")


class Vertex(Gemini):
    """The ``vertex`` provider: Gemini on Vertex AI, the gemini wire on Vertex's routes.

    ``POST /v1/projects/{p}/locations/{l}/publishers/google/models/{m}:generateContent`` and
    ``:streamGenerateContent`` (``?alt=sse``) and a bearer token (OAuth). Call ids as on the
    Gemini API (rechecked 2026-11-25): since Vertex's discovery revision 20260921 its v1 and
    v1beta1 ``FunctionCall`` and ``FunctionResponse`` define ``id`` (googleapis aiplatform_v1
    GoogleCloudAiplatformV1FunctionCall.id / FunctionResponse.id); anomalyco/opencode PR #50504
    (merged 2026-09-22) verified live that continuations carrying ids get a 200 on v1 and
    v1beta1 and that Vertex emits call ids; google-genai 3.6.1 sends ``id`` to Vertex.
    HISTORICAL, not played: before that Vertex answered 400 ``Unknown name "id"`` to an id
    (pydantic-ai #5081, vercel/ai #15664 and #15891, charmbracelet/fantasy #265, langchainjs
    #10266, anomalyco/opencode #44454 of 2026-08-23) and sent none. The JSON-array stream Vertex
    sends without ``alt=sse`` is not played.
    """

    #: this provider's own error answers, one per error kind (errors.py beside this file)
    error_table = staticmethod(_errors.error_table)

    name = "vertex"
    title = "Vertex AI generateContent (Gemini)"
    #: Vertex's wording of Gemini 3's refusal of an unsigned call of the current turn (the
    #: content block counted from 1), status INVALID_ARGUMENT: GewoonJaap/gemini-cli-openai
    #: #156 (2025-12-20) quotes it whole, google-gemini/gemini-cli #14437 (2025-12-03) and
    #: google/adk-python #4650 (2026-02-28) with the function's name; confirmed 2026-11-28
    UNSIGNED_CALL = ("Unable to submit request because function call `default_api:{name}` in "
                     "the {position}. content block is missing a `thought_signature`. Learn "
                     "more: https://docs.cloud.google.com/vertex-ai/generative-ai/docs/"
                     "thought-signatures")
    base_path = "/v1/projects/toolcall-fake/locations/us-central1/publishers/google"

    def route(self, method: str, path: str) -> bool:
        return method == "POST" and _VERTEX_ROUTE.match(path) is not None

    def not_found(self, method: str, path: str) -> Rejection:
        return _error(404, f"The requested URL {path} was not found on this server "
                      f"({method}); Vertex serves POST /v1/projects/{{project}}/locations/"
                      "{location}/publishers/google/models/{model}:generateContent and "
                      ":streamGenerateContent?alt=sse.", rule="route")

    def check_auth(self, headers: Mapping[str, str], query: Mapping[str, str],
                   key: str) -> Rejection | None:
        auth = headers.get("authorization", "")
        if not auth:
            if headers.get("x-goog-api-key") or query.get("key"):
                return _error(401, _NO_KEYS, rule="auth.missing")
            return _error(401, f"Request is missing required authentication credential. {_OAUTH}",
                          rule="auth.missing")
        if auth != f"Bearer {key}":
            return _error(401, f"Request had invalid authentication credentials. {_OAUTH}",
                          rule="auth.invalid")
        return None


#: the class the fake plays this provider with (``providers.base.get_dialect``)
DIALECT = Vertex

"""Gemini on Vertex AI (the gemini wire on Vertex's routes): the facts the fake plays, each with
its source and the date it was confirmed.

Data only (the provider registry, ``pytest_toolcall.providers``, reads ``PROVIDER``);
docs/providers.md lists them."""

from __future__ import annotations

from pytest_toolcall.providers._facts import Fact, Provider

_CONFIRMED = "2026-11-23"

#: Gemini on Vertex AI: the gemini wire on Vertex's routes (issue 13). Served by the ``vertex``
#: dialect class (pytest_toolcall.providers.gemini.dialect.Vertex) and the VertexAdapter reference.
VERTEX = Provider(name="vertex", dialect="gemini", family="gemini", facts={
    "routes": Fact("POST /v1/projects/{p}/locations/{l}/publishers/google/models/{m}:"
                   "generateContent and :streamGenerateContent?alt=sse",
                   "https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/"
                   "inference; neuron-ai #437, quarkus-langchain4j #825 (recorded URLs)",
                   _CONFIRMED),
    "auth": Fact("Authorization: Bearer <OAuth access token>; an API key is refused with 401 "
                 "'API keys are not supported by this API...'",
                 "GoogleCloudPlatform/generative-ai #454, a2a-samples #43, mscraftsman/"
                 "generative-ai #51", _CONFIRMED),
    "ids": Fact("id on functionCall / functionResponse as on the Gemini API (discovery revision "
                "20260921); before it, 400 'Invalid JSON payload received. Unknown name \"id\" "
                "at ...: Cannot find field.' (historical: pydantic-ai #5081, vercel/ai #15664)",
                "anomalyco/opencode PR #50504 (live-verified 200s on v1 and v1beta1); googleapis "
                "aiplatform_v1 FunctionCall.id / FunctionResponse.id; google-genai 3.6.1 "
                "models.py sends id to Vertex", "2026-11-25"),
    "error_shape": Fact("{error: {code, message, status}} as the Gemini API",
                        "pydantic-ai #5081 (a quoted 400 body)", _CONFIRMED),
})

PROVIDER = VERTEX

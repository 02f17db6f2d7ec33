"""A small loader for the recorded real traffic in ``../shared/wire-corpus`` (vcrpy-style YAML).

The corpus is test data kept next to the repository, never inside the package. Point
``TOOLCALL_WIRE_CORPUS`` at another copy of the ``wire-corpus`` folder (the one holding
``pydantic-ai/``) to use it instead.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

REPO_ROOT = Path(__file__).resolve().parent.parent
ENV_VAR = "TOOLCALL_WIRE_CORPUS"
OPENAI_CHAT_PATH = "/v1/chat/completions"


def corpus_root() -> Path:
    """The ``wire-corpus`` folder: ``$TOOLCALL_WIRE_CORPUS`` or ``<repo>/../shared/wire-corpus``."""
    override = os.environ.get(ENV_VAR)
    return Path(override) if override else REPO_ROOT.parent / "shared" / "wire-corpus"


def openai_chat_dir() -> Path:
    return corpus_root() / "pydantic-ai" / "openai-chat"


def openai_chat_files() -> list[Path]:
    """The YAML files of the OpenAI Chat folder, sorted; empty when the folder is absent."""
    folder = openai_chat_dir()
    return sorted(folder.glob("*.yaml")) if folder.is_dir() else []


@dataclass(frozen=True)
class Interaction:
    """One recorded request and the real provider's answer."""

    file: str
    index: int
    method: str
    uri: str
    request_body: Any  # parsed JSON, or None
    status: int
    response_json: Any  # parsed JSON body, or None
    response_text: str | None  # any other body (SSE, NDJSON) as text, or None
    response_headers: dict[str, str]  # what was kept of them (most were removed), lower case

    @property
    def host(self) -> str:
        return urlsplit(self.uri).netloc

    @property
    def path(self) -> str:
        return urlsplit(self.uri).path

    @property
    def is_openai_chat(self) -> bool:
        return self.method == "POST" and self.path.rstrip("/") == OPENAI_CHAT_PATH

    @property
    def where(self) -> str:
        return f"{self.file} interaction {self.index} ({self.method} {self.uri})"

    def sse_data(self) -> Iterator[str]:
        """The payload of every ``data:`` line of an SSE body, in order."""
        for line in (self.response_text or "").splitlines():
            if line.startswith("data:"):
                yield line[5:].strip()

    def sse_chunks(self) -> list[dict[str, Any]]:
        """The JSON chunks of an SSE body (``[DONE]`` left out)."""
        return [json.loads(d) for d in self.sse_data() if d != "[DONE]"]


def _body(part: dict[str, Any]) -> tuple[Any, str | None]:
    if "parsed_body" in part:
        return part["parsed_body"], None
    body = part.get("body")
    text = body.get("string") if isinstance(body, dict) else body
    if isinstance(text, bytes):
        text = text.decode()
    return None, text or None


def _headers(part: dict[str, Any]) -> dict[str, str]:
    out = {}
    for key, value in (part.get("headers") or {}).items():
        out[key.lower()] = value[0] if isinstance(value, list) and value else str(value)
    return out


@functools.lru_cache(maxsize=None)
def load(path: Path) -> tuple[Interaction, ...]:
    """Every interaction of one cassette (cached: several tests read the same file)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(path, encoding="utf-8") as handle:
        data = yaml.load(handle, Loader=loader)  # noqa: S506 - a safe loader
    out = []
    for n, item in enumerate(data.get("interactions") or ()):
        request, response = item["request"], item["response"]
        req_json, _ = _body(request)
        resp_json, resp_text = _body(response)
        out.append(Interaction(file=path.name, index=n, method=request.get("method", "POST"),
                               uri=request["uri"], request_body=req_json,
                               status=int(response["status"]["code"]),
                               response_json=resp_json, response_text=resp_text,
                               response_headers=_headers(response)))
    return tuple(out)

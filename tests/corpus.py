"""A small loader for the recorded real traffic in ``tests/data/wire-corpus`` (vcrpy-style YAML).

The corpus ships with the repository (its source and licence are in
``tests/data/wire-corpus/README.md``), never inside the package. Point ``TOOLCALL_WIRE_CORPUS`` at
another copy of the ``wire-corpus`` folder (the one holding ``pydantic-ai/``) to use it instead.
A missing folder is an error, never a silent skip: the tests that read it would test nothing.
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
#: the copy shipped with the repository
SHIPPED = REPO_ROOT / "tests" / "data" / "wire-corpus"


class CorpusMissing(RuntimeError):
    """The wire corpus is not where the tests look for it: a broken checkout or a bad override."""


def corpus_root() -> Path:
    """The ``wire-corpus`` folder: ``$TOOLCALL_WIRE_CORPUS`` or ``tests/data/wire-corpus``."""
    override = os.environ.get(ENV_VAR)
    return Path(override) if override else SHIPPED


def files(folder: str) -> list[Path]:
    """The YAML files of ``pydantic-ai/<folder>``, sorted; raises when there are none."""
    path = corpus_root() / "pydantic-ai" / folder
    found = sorted(path.glob("*.yaml")) if path.is_dir() else []
    if not found:
        where = (f"${ENV_VAR} points at {corpus_root()}" if os.environ.get(ENV_VAR)
                 else "the repository's copy is missing (a partial checkout?)")
        raise CorpusMissing(f"no wire corpus files in {path}: {where}. The corpus ships in "
                            f"tests/data/wire-corpus; unset {ENV_VAR} or point it at a folder "
                            "that holds pydantic-ai/<api>/*.yaml")
    return found


def openai_chat_dir() -> Path:
    return corpus_root() / "pydantic-ai" / "openai-chat"


def openai_chat_files() -> list[Path]:
    """The YAML files of the OpenAI Chat folder, sorted; raises when there are none."""
    return files("openai-chat")


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

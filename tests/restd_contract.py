"""Slurm 25.11's slurmrestd contract for the tests: its OpenAPI document and the answers recorded
from a real slurmrestd (../shared/slurmrestd-contract beside the checkout; see its README).

`validate()` checks one answer of pyslurmrestd against the document with openapi-core.
Slurm's document lists nested members in ``required`` as paths (``"nodes/count"``), which JSON
Schema reads as member names no object has; those entries (and the empty ``required`` lists
OpenAPI 3.0 forbids) are dropped, and ``int32`` formats are read as ``int64``: Slurm writes its
unsigned 32-bit numbers there (priority/basic's 4294901759 in ``priority.number``, as real
slurmrestd does). Nothing else in the document is changed.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

CONTRACT = Path(__file__).resolve().parents[1].parent / "shared" / "slurmrestd-contract"
DOCUMENT = CONTRACT / "openapi-v3-slurm-25.11.json"
RECORDED = CONTRACT / "recorded-25.11"


def _drop_path_requirements(node: Any) -> Any:
    if isinstance(node, dict):
        cleaned = {k: _drop_path_requirements(v) for k, v in node.items()}
        if cleaned.get("type") == "integer" and cleaned.get("format") == "int32":
            cleaned["format"] = "int64"
        if isinstance(cleaned.get("required"), list):
            cleaned["required"] = [r for r in cleaned["required"] if "/" not in r]
            if not cleaned["required"]:       # OpenAPI 3.0 wants a non-empty list or none
                del cleaned["required"]
        return cleaned
    if isinstance(node, list):
        return [_drop_path_requirements(v) for v in node]
    return node


@lru_cache(maxsize=1)
def document() -> dict[str, Any]:
    return json.loads(DOCUMENT.read_text())


@lru_cache(maxsize=1)
def _openapi() -> Any:
    from openapi_core import OpenAPI

    return OpenAPI.from_dict(_drop_path_requirements(document()))


@lru_cache(maxsize=1)
def ours() -> dict[str, Any]:
    """The document pyslurmrestd serves at /openapi/v3 (made by the same code, in process)."""
    import asyncio

    from pyslurm_restd.app import ENDPOINTS
    from pyslurm_restd.envelope import VERSIONS
    from pyslurm_restd.openapi_doc import document

    return asyncio.run(document(ENDPOINTS, VERSIONS))


@lru_cache(maxsize=1)
def _our_openapi() -> Any:
    from openapi_core import OpenAPI

    return OpenAPI.from_dict(ours())


def validate(method: str, path: str, status: int, body: str, content_type: str = "application/json") -> None:
    """Raise when the answer is not one Slurm's document allows for that request, or one the
    document pyslurmrestd serves does not describe."""
    from openapi_core.testing import MockRequest, MockResponse

    request = MockRequest("http://localhost", method.lower(), path.split("?")[0])
    response = MockResponse(data=body.encode(), status_code=status, content_type=content_type)
    _openapi().validate_response(request, response)
    _our_openapi().validate_response(request, response)


def recorded(version: str, name: str) -> Any:
    return json.loads((RECORDED / version.lstrip("v") / f"{name}.json").read_text())


def shape_differences(ours: Any, theirs: Any, where: str = "") -> list[str]:
    """Where our answer's JSON types differ from the recorded one's, for the keys both have and the
    keys the recording has that ours lacks (ours may not add keys Slurm does not send)."""
    problems: list[str] = []
    if isinstance(theirs, dict):
        if not isinstance(ours, dict):
            return [f"{where or '/'}: object expected"]
        for key, value in theirs.items():
            if key not in ours:
                # Slurm's null (a pending job's job_resources) breaks its own document: we leave it out.
                if value is not None:
                    problems.append(f"{where}/{key}: missing")
            else:
                problems += shape_differences(ours[key], value, f"{where}/{key}")
        problems += [f"{where}/{key}: not in Slurm's answer" for key in ours if key not in theirs]
    elif isinstance(theirs, list):
        if not isinstance(ours, list):
            return [f"{where}: list expected"]
        # Each of our items must have the shape of some recorded item (a pending job has no
        # job_resources, a running one has): report against the closest.
        for index, item in enumerate(ours[:20]):
            candidates = [shape_differences(item, other, f"{where}[{index}]") for other in theirs]
            if candidates:
                problems += min(candidates, key=len)
    elif theirs is not None and ours is not None:
        number = (int, float)
        same = (isinstance(ours, bool) == isinstance(theirs, bool)) and (
            type(ours) is type(theirs) or (isinstance(ours, number) and isinstance(theirs, number)))
        if not same:
            problems.append(f"{where}: {type(ours).__name__} where Slurm has {type(theirs).__name__}")
    return problems

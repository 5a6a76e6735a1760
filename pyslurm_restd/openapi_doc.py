"""``/openapi/v3``: an OpenAPI 3.0 document of the paths this daemon serves, with Slurm's
operationIds (``slurm_v0044_get_job``) and security schemes, so generated clients find them.
Response bodies are Slurm's ``v0.0.4x`` shapes; their schemas are in Slurm's own document."""
from __future__ import annotations

import re
from typing import Any, Iterable

from .endpoints import Endpoint
from .envelope import RELEASE

_PARAM = re.compile(r"\{(\w+)\}")
_PREFIX = {"slurmctld": "slurm", "slurmdbd": "slurmdb"}


def _operation(endpoint: Endpoint, version: str) -> dict[str, Any]:
    tag = _PREFIX[endpoint.plugin]
    return {
        "tags": [tag], "operationId": f"{tag}_{version.replace('.', '')}_{endpoint.operation}",
        "parameters": [{"in": "path", "name": name, "required": True, "schema": {"type": "string"}}
                       for name in _PARAM.findall(endpoint.path)],
        "responses": {"200": {"description": "success", "content": {"application/json": {"schema": {"type": "object"}}}},
                      "default": {"description": "error", "content": {"application/json": {"schema": {"type": "object"}}}}},
    }


def document(endpoints: Iterable[Endpoint], versions: Iterable[str]) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for version in versions:
        for endpoint in endpoints:
            path = f"/{_PREFIX[endpoint.plugin]}/{version}/{endpoint.path}"
            paths.setdefault(path, {})[endpoint.method.lower()] = _operation(endpoint, version)
    return {
        "openapi": "3.0.3",
        "info": {"title": "Slurm REST API (pyslurmrestd)", "version": f"Slurm-{'.'.join(RELEASE)}",
                 "description": "API to access and control Slurm"},
        "paths": paths,
        "security": [{"user": [], "token": []}, {"token": []}, {"bearerAuth": []}, {}],
        "components": {"securitySchemes": {
            "user": {"type": "apiKey", "name": "X-SLURM-USER-NAME", "in": "header"},
            "token": {"type": "apiKey", "name": "X-SLURM-USER-TOKEN", "in": "header"},
            "bearerAuth": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}}},
    }

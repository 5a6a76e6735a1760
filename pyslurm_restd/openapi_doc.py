"""``/openapi/v3``: an OpenAPI 3.0 document of the paths this daemon serves, with Slurm's
operationIds (``slurm_v0044_get_job``) and security schemes, so generated clients find them.
Its parameters and request bodies come from the endpoint table the routes are made from: the
query parameters each handler may read (Call.query refuses any other) and the schema of each
body, built from the field tables the request readers use (request_schemas). Response bodies
are Slurm's ``v0.0.4x`` shapes, described as objects."""
from __future__ import annotations

import re
from typing import Any, Iterable

from .endpoints import Endpoint
from .envelope import RELEASE

_PARAM = re.compile(r"\{(\w+)\}")
_PREFIX = {"slurmctld": "slurm", "slurmdbd": "slurmdb"}


def _operation(endpoint: Endpoint, version: str) -> dict[str, Any]:
    tag = _PREFIX[endpoint.plugin]
    operation: dict[str, Any] = {
        "tags": [tag], "operationId": f"{tag}_{version.replace('.', '')}_{endpoint.operation}",
        "parameters": [{"in": "path", "name": name, "required": True, "schema": {"type": "string"}}
                       for name in _PARAM.findall(endpoint.path)]
                      + [{"in": "query", "name": name, "required": False, "schema": {"type": "string"}}
                         for name in endpoint.query],
        "responses": {"200": {"description": "success", "content": {"application/json": {"schema": {"type": "object"}}}},
                      "default": {"description": "error", "content": {"application/json": {"schema": {"type": "object"}}}}},
    }
    if endpoint.body is not None:
        operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": endpoint.body}}}
    return operation


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

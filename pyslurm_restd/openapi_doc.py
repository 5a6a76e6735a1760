"""``/openapi/v3``: an OpenAPI 3.0 document of the paths this daemon serves, with Slurm's
operationIds (``slurm_v0044_get_job``) and security schemes, so generated clients find them.
Its parameters and request bodies come from the endpoint table the routes are made from: the
query parameters each handler may read (Call.query refuses any other) and the schema of each
body, built from the field tables the request readers use (request_schemas); the answers' schemas
are those of what the handlers write (response_schemas)."""
from __future__ import annotations

import re
from typing import Any

from . import response_schemas
from .endpoints import Endpoint
from .envelope import RELEASE

_PARAM = re.compile(r"\{(\w+)\}")
_PREFIX = {"slurmctld": "slurm", "slurmdbd": "slurmdb"}


def _operation(endpoint: Endpoint, version: str, answer: dict[str, Any]) -> dict[str, Any]:
    tag = _PREFIX[endpoint.plugin]
    operation: dict[str, Any] = {
        "tags": [tag], "operationId": f"{tag}_{version.replace('.', '')}_{endpoint.operation}",
        "parameters": [{"in": "path", "name": name, "required": True, "schema": {"type": "string"}}
                       for name in _PARAM.findall(endpoint.path)]
                      + [{"in": "query", "name": name, "required": False, "schema": {"type": "string"}}
                         for name in endpoint.query],
        "responses": {"200": {"description": "success", "content": {"application/json": {"schema": answer}}},
                      "default": {"description": "error", "content": {"application/json": {"schema": answer}}}},
    }
    if endpoint.body is not None:
        operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": endpoint.body}}}
    return operation


async def document(endpoints: tuple[Endpoint, ...], versions: tuple[str, ...]) -> dict[str, Any]:
    answers = await response_schemas.schemas(endpoints, versions)
    paths: dict[str, dict[str, Any]] = {}
    for version in versions:
        for endpoint in endpoints:
            path = f"/{_PREFIX[endpoint.plugin]}/{version}/{endpoint.path}"
            paths.setdefault(path, {})[endpoint.method.lower()] = _operation(
                endpoint, version, answers[(version, endpoint.plugin, endpoint.method, endpoint.path)])
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

"""The aiohttp application: Slurm's paths for each data parser version, the error contract for
unknown paths and unauthenticated requests, and the OpenAPI document."""
from __future__ import annotations

import grp
import json
import logging
import pwd
from dataclasses import dataclass
from typing import Awaitable, Callable

from aiohttp import web

from . import json_body, openapi_doc, slurm_routes, slurmdb_routes
from .endpoints import Call, Endpoint
from .json_body import BodyError
from .envelope import (AUTH_DOES_NOT_APPLY, UNKNOWN_URL, VERSIONS, Context, Outcome, RestError, accepts_gzip,
                       text_response)
from .request_auth import AuthModes, authenticate
from .shared_reads import SharedReads
from .upstream import Upstream

log = logging.getLogger(__name__)
ENDPOINTS: tuple[Endpoint, ...] = (*slurm_routes.ENDPOINTS, *slurmdb_routes.ENDPOINTS)
PREFIX = {"slurmctld": "slurm", "slurmdbd": "slurmdb"}
MAX_BODY = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Settings:
    cluster: str
    controllers: tuple[str, ...]
    accounting_host: str
    auth: AuthModes


def _group_of(user: str) -> str:
    try:
        return grp.getgrgid(pwd.getpwnam(user).pw_gid).gr_name
    except KeyError:
        return ""


def _source(request: web.Request) -> str:
    peer = request.transport.get_extra_info("peername") if request.transport else None
    if isinstance(peer, tuple):
        return f"[{peer[0]}]:{peer[1]}"
    return f"unix:{request.transport.get_extra_info('sockname') if request.transport else ''}"


def _handler(endpoint: Endpoint, version: str, settings: Settings, upstream: Upstream,
             reads: SharedReads) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    async def handle(request: web.Request) -> web.StreamResponse:
        caller = authenticate(request, settings.auth)
        if caller is None:
            return text_response(500, AUTH_DOES_NOT_APPLY)
        ctx = Context(version=version, plugin=endpoint.plugin, user=caller.user_name,
                      group=_group_of(caller.user_name), source=_source(request), cluster=settings.cluster,
                      accounting_host=settings.accounting_host)
        call = Call(request=request, ctx=ctx, caller=caller, upstream=upstream, controllers=settings.controllers,
                    declared=endpoint.query)
        try:
            if endpoint.method == "GET":
                outcome = await reads.answer((caller, request.path_qs), lambda: _run(endpoint, call))
            else:
                outcome = await _run(endpoint, call)
        except BodyError:
            log.info("%s %s: %s", request.method, request.path, json_body.FAILURE)
            answer = text_response(400, json_body.FAILURE)
            answer.headers["Connection"] = "Close"      # as slurmrestd closes after a rejected request
            return answer
        return ctx.respond_encoded(outcome, accepts_gzip(request.headers.get("Accept-Encoding", "")))

    return handle


async def _run(endpoint: Endpoint, call: Call) -> Outcome:
    request = call.request
    try:
        body = await endpoint.handler(call)
    except RestError as exc:
        log.info("%s %s: %s (%d)", request.method, request.path, exc.description, exc.error_number)
        return Outcome.of(endpoint.empty, [*call.errors, exc], call.warnings)
    return Outcome.of(body, call.errors, call.warnings)


def paths(endpoint: Endpoint, version: str) -> list[str]:
    """The path as Slurm's document spells it and the same without (or with) the trailing slash."""
    path = f"/{PREFIX[endpoint.plugin]}/{version}/{endpoint.path}"
    return [path, path.rstrip("/")] if path.endswith("/") else [path, path + "/"]


@web.middleware
async def slurm_errors(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
    """Unknown paths and methods get slurmrestd's plain-text 404."""
    try:
        return await handler(request)
    except (web.HTTPNotFound, web.HTTPMethodNotAllowed):
        return text_response(404, UNKNOWN_URL)


def build_app(settings: Settings, upstream: Upstream,
              extra_routes: Callable[[web.Application], None] | None = None) -> web.Application:
    app = web.Application(middlewares=[slurm_errors], client_max_size=MAX_BODY)
    reads = SharedReads()
    for version in VERSIONS:
        for endpoint in ENDPOINTS:
            handle = _handler(endpoint, version, settings, upstream, reads)
            for path in paths(endpoint, version):
                app.router.add_route(endpoint.method, path, handle)

    built: list[str] = []        # the document, made once (its answers' schemas run every handler)

    async def openapi(request: web.Request) -> web.StreamResponse:
        if authenticate(request, settings.auth) is None:
            return text_response(500, AUTH_DOES_NOT_APPLY)
        if not built:
            built.append(json.dumps(await openapi_doc.document(ENDPOINTS, VERSIONS)))
        return web.Response(text=built[0], content_type="application/json")

    for path in ("/openapi/v3", "/openapi/v3/", "/openapi", "/openapi.json"):
        app.router.add_get(path, openapi)
    if extra_routes is not None:
        extra_routes(app)
    return app

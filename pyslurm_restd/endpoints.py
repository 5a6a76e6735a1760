"""The endpoint table and what a handler is given.

A handler gets a `Call` and returns the body of a successful answer; it raises `RestError` to
fail, and the answer is then the endpoint's `empty` body (the fields its response schema
requires) with that error, as slurmrestd answers failures. Entries that do not end the request
(slurmrestd's resp_error with error number 0, resp_warn) go in `Call.errors` and
`Call.warnings`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, TypeVar

from aiohttp import web
from google.protobuf.message import Message

from pyslurm_common.errors import ERRNO, Strerror

from .envelope import AUTH_ERROR, CONNECTION_ERROR, UNEXPECTED, Context, RestError, RestWarning
from .json_body import parse_object
from .upstream import ACCOUNTING, CONTROLLER, Caller, Upstream, UpstreamError

Reply = TypeVar("Reply", bound=Message)
Handler = Callable[["Call"], Awaitable[dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class Endpoint:
    plugin: str                      # slurmctld (/slurm/) or slurmdbd (/slurmdb/)
    method: str
    path: str                        # below /slurm/v0.0.4x/, e.g. "job/{job_id}"
    operation: str                   # Slurm's operationId without the prefix: get_job -> slurm_v0044_get_job
    handler: Handler
    empty: dict[str, Any] = field(default_factory=dict)
    body: dict[str, Any] | None = None     # the request body's JSON schema (request_schemas), for /openapi/v3
    query: tuple[str, ...] = ()            # the query parameters the handler reads


@dataclass(slots=True)
class Call:
    request: web.Request
    ctx: Context
    caller: Caller
    upstream: Upstream
    controllers: tuple[str, ...]
    declared: tuple[str, ...] = ()          # the endpoint's query parameters (Endpoint.query)
    errors: list[RestError] = field(default_factory=list)
    warnings: list[RestWarning] = field(default_factory=list)

    @property
    def version(self) -> str:
        return self.ctx.version

    def param(self, name: str) -> str:
        return self.request.match_info[name]

    def query(self, name: str, default: str = "") -> str:
        """A query parameter the endpoint declares (what /openapi/v3 lists is what is read)."""
        if name not in self.declared:
            raise AssertionError(f"query parameter {name} is read but not declared for {self.request.path}")
        return self.request.query.get(name, default)

    async def json_body(self) -> dict[str, Any]:
        """The request's JSON object; BodyError (slurmrestd's plain-text 400) if it does not parse."""
        body = parse_object(await self.request.read())
        if body is None:
            raise RestError("Request body is not an object", 9001, "parse_http()")
        return body

    async def controller(self, method: str, request: Message, reply_type: type[Reply], source: str,
                         description: str) -> Reply:
        return await self._ask(CONTROLLER + method, request, reply_type, source, description)

    async def accounting(self, method: str, request: Message, reply_type: type[Reply], source: str,
                         description: str) -> Reply:
        return await self._ask(ACCOUNTING + method, request, reply_type, source, description)

    async def _ask(self, method: str, request: Message, reply_type: type[Reply], source: str,
                   description: str) -> Reply:
        try:
            return await self.upstream.call(self.caller, method, request, reply_type)
        except UpstreamError as exc:
            raise upstream_failure(exc, source, description) from exc


def upstream_failure(exc: UpstreamError, source: str, description: str) -> RestError:
    errno = ERRNO.get(exc.strerror, UNEXPECTED)
    if exc.strerror == Strerror.COMM_FAILURE:
        errno = CONNECTION_ERROR
    elif exc.strerror == Strerror.AUTH_FAILURE:
        errno = AUTH_ERROR
    plain = errno in (AUTH_ERROR, CONNECTION_ERROR) or not exc.detail
    return RestError(description=description if plain else exc.detail, error_number=errno, source=source,
                     error="" if errno == CONNECTION_ERROR else exc.strerror)

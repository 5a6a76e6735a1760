"""gRPC plumbing shared by the daemons: signed calls out, verified calls in.

* `Signer` attaches a fresh credential to every outgoing call.
* `AuthInterceptor` verifies the credential of every incoming call, refuses
  the call with UNAUTHENTICATED otherwise, and makes the caller's `Identity`
  available to the handler through `caller()`.
* `translate_errors` turns `SlurmError` raised by domain code into a gRPC
  status, so servicers only translate messages.
"""
from __future__ import annotations

import contextvars
import functools
import logging
import socket
from typing import Any, Awaitable, Callable, Iterable

import grpc

from . import step_credential
from .auth import CRED_METADATA_KEY, AuthError, Identity, Verifier, sign
from .errors import SlurmError

log = logging.getLogger(__name__)

_caller: contextvars.ContextVar[Identity] = contextvars.ContextVar("pyslurm_caller")

CHANNEL_OPTIONS = [
    ("grpc.max_receive_message_length", 256 * 1024 * 1024),
    ("grpc.max_send_message_length", 256 * 1024 * 1024),
    ("grpc.enable_retries", 0),
]


def caller() -> Identity:
    """The verified identity of the RPC being handled."""
    return _caller.get()


class Signer:
    def __init__(self, key: bytes, uid: int = 0, gid: int = 0, host: str | None = None) -> None:
        self._key = key
        self._identity = Identity(uid=uid, gid=gid, host=host or socket.gethostname())

    def metadata(self, identity: Identity | None = None) -> tuple[tuple[str, str], ...]:
        return ((CRED_METADATA_KEY, sign(self._key, identity or self._identity)),)

    def step_credential(self, job_id: int, step_id: int, uid: int, gid: int, node: str,
                        ranks: Iterable[int]) -> str:
        """The controller's signature on one node's part of a job step (step_credential.py)."""
        return step_credential.sign(self._key, job_id, step_id, uid, gid, node, ranks)


class Serving:
    """How many calls a server is handling right now (sdiag's "Server thread count")."""

    def __init__(self) -> None:
        self.count = 0


def _wrap_unary(handler: grpc.RpcMethodHandler, identity: Identity, serving: Serving) -> grpc.RpcMethodHandler:
    inner = handler.unary_unary

    async def behavior(request: Any, context: grpc.aio.ServicerContext) -> Any:
        token = _caller.set(identity)
        serving.count += 1
        try:
            return await inner(request, context)
        finally:
            serving.count -= 1
            _caller.reset(token)

    return grpc.unary_unary_rpc_method_handler(
        behavior,
        request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )


def _refusal(reason: str) -> grpc.RpcMethodHandler:
    async def refuse(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, f"Authentication failure: {reason}")

    return grpc.unary_unary_rpc_method_handler(refuse)


class AuthInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, verifier: Verifier, serving: Serving) -> None:
        self._verifier = verifier
        self._serving = serving

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        credential = next(
            (v for k, v in (details.invocation_metadata or ()) if k == CRED_METADATA_KEY), None
        )
        try:
            identity = self._verifier.verify(credential if isinstance(credential, str) else None)
        except AuthError as exc:
            log.warning("refused %s: %s", details.method, exc)
            return _refusal(str(exc))
        handler = await continuation(details)
        if handler is None or handler.unary_unary is None:
            return handler
        return _wrap_unary(handler, identity, self._serving)


def translate_errors(method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """Servicer method decorator: SlurmError -> gRPC status with Slurm's text."""

    @functools.wraps(method)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            return await method(self, request, context)
        except SlurmError as exc:
            await context.abort(getattr(grpc.StatusCode, exc.grpc_code), exc.status_details())

    return wrapper


def insecure_channel(address: str) -> grpc.aio.Channel:
    # Transport is plain TCP; authenticity comes from the signed credential on every call.
    return grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)


def make_server(verifier: Verifier, serving: Serving | None = None) -> grpc.aio.Server:
    """A server whose every call is authenticated; `serving` counts the calls in progress."""
    # No SO_REUSEPORT (gRPC's default): a second copy of a daemon must fail to listen, not
    # silently share the port with the first.
    return grpc.aio.server(interceptors=[AuthInterceptor(verifier, serving or Serving())],
                           options=[*CHANNEL_OPTIONS, ("grpc.so_reuseport", 0)])

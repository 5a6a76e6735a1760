"""gRPC plumbing shared by the daemons: signed calls out, verified calls in.

* `Signer` makes the credential for one outgoing call (its audience, method and body; see
  auth.py), and the controller's job credentials (job_credential.py).
* `ServerAuth` is a daemon's side: its role, port and per-start instance id, the answer to
  Hello (the proof that it holds the key) and the verifier whose nonce memory spans every
  server the process runs (a controller switching between standby and in charge keeps it).
* `AuthInterceptor` verifies the credential of every incoming call against the method and
  the request body, refuses it with UNAUTHENTICATED otherwise, answers a body that is no
  valid message with Slurm's "Unexpected message received", and makes the caller's
  `Identity` available to the handler through `caller()`. Each refusal is one log line; a
  handler that fails with anything but a gRPC abort answers Slurm's "Unexpected error" and logs
  one line (the traceback at debug level), never a Python exception name to the user.
* `translate_errors` turns `SlurmError` raised by domain code into a gRPC status, so
  servicers only translate messages.
"""
from __future__ import annotations

import contextvars
import functools
import logging
import secrets
import socket
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

import grpc
from google.protobuf.message import DecodeError

from . import job_credential
from .call_stats import Serving
from .auth import (CRED_METADATA_KEY, AuthError, Claim, CredentialSigner, Identity, Verifier, audience,
                   body_digest, hello_statement, prove, reply_statement)
from .errors import SlurmError, Strerror
from .rpc import auth_pb2

log = logging.getLogger(__name__)

_caller: contextvars.ContextVar[Identity] = contextvars.ContextVar("pyslurm_caller")

CHANNEL_OPTIONS = [
    ("grpc.max_receive_message_length", 256 * 1024 * 1024),
    ("grpc.max_send_message_length", 256 * 1024 * 1024),
    ("grpc.enable_retries", 0),
]
# A daemon that comes back (a restart, a failover) is connected to again within half a second:
# gRPC's default reconnect backoff grows to two minutes, and while it runs every call to that
# daemon fails at once (a controller's association watch on a restarted accounting daemon saw
# a change 9 s late after a 15 s outage). Nothing else is added: calls are not retried.
RECONNECT_OPTIONS = [("grpc.initial_reconnect_backoff_ms", 200), ("grpc.max_reconnect_backoff_ms", 500)]
HELLO_METHOD = "/pyslurm.Auth/Hello"
CHALLENGE_BYTES = 32
REPLY_PROOF_KEY = "x-pyslurm-reply-proof"   # trailing metadata of every answered call


def caller() -> Identity:
    """The verified identity of the RPC being handled."""
    return _caller.get()


class Signer:
    def __init__(self, key: bytes, uid: int = 0, gid: int = 0, host: str | None = None) -> None:
        self.key = key
        self._credentials = CredentialSigner(key)
        self._identity = Identity(uid=uid, gid=gid, host=host or socket.gethostname())

    def metadata(self, audience_: str, method: str, body: bytes,
                 identity: Identity | None = None) -> tuple[tuple[str, str], ...]:
        """The credential for one call: `identity` (default: this daemon's) may send exactly
        `body` to `method` of the daemon instance `audience_`."""
        return ((CRED_METADATA_KEY,
                 self._credentials.sign(identity or self._identity, audience_, method, body)),)

    def job_credential(self, launch: job_credential.Launch) -> str:
        """The controller's signature on one node's part of a job or step (job_credential.py)."""
        return job_credential.sign(self.key, launch)


class ServerAuth:
    """A daemon's identity as a server: one per process, shared by the servers it runs."""

    def __init__(self, key: bytes, role: str, port: int) -> None:
        self.key = key
        self.audience = audience(role, port, secrets.token_hex(16))
        self.verifier = Verifier(key, self.audience)

    def hello(self, request: auth_pb2.HelloRequest) -> auth_pb2.HelloReply:
        return auth_pb2.HelloReply(audience=self.audience,
                                   proof=prove(self.key, self.audience, hello_statement(request.challenge)))

    def reply_proof(self, claim: Claim, reply: bytes) -> tuple[tuple[str, str]]:
        return ((REPLY_PROOF_KEY, prove(self.key, self.audience, reply_statement(claim.nonce, reply))),)


@dataclass(frozen=True, slots=True)
class _Refused:
    """Stands for a request body that the handler must not see, and why."""
    code: grpc.StatusCode
    details: str
    log_line: str


def _checked_deserializer(claim: Claim, verifier: Verifier,
                          parse: Callable[[bytes], Any] | None) -> Callable[[bytes], Any]:
    """The request body must be the one the credential was signed for, the credential unspent,
    and the body a valid message."""

    def refused(reason: str) -> _Refused:
        return _Refused(grpc.StatusCode.UNAUTHENTICATED, f"Authentication failure: {reason}", reason)

    def deserialize(raw: bytes) -> Any:
        if body_digest(raw) != claim.body_digest:
            return refused("credential for another request")
        try:
            verifier.consume(claim)
        except AuthError as exc:
            return refused(str(exc))
        if parse is None:
            return raw
        try:
            return parse(raw)
        except (DecodeError, ValueError, TypeError) as exc:
            return _Refused(grpc.StatusCode.INVALID_ARGUMENT, SlurmError(Strerror.UNEXPECTED_MESSAGE).status_details(),
                            f"malformed request body ({len(raw)} bytes): {exc}")

    return deserialize


def _wrap_unary(handler: grpc.RpcMethodHandler, claim: Claim, server_auth: ServerAuth, method: str,
                serving: Serving) -> grpc.RpcMethodHandler:
    inner = handler.unary_unary
    serialize = handler.response_serializer

    async def behavior(request: Any, context: grpc.aio.ServicerContext) -> Any:
        if isinstance(request, _Refused):
            log.warning("refused %s from uid %d on %s: %s", method, claim.identity.uid, claim.identity.host,
                        request.log_line)
            await context.abort(request.code, request.details)
        token = _caller.set(claim.identity)
        serving.count += 1
        started = time.perf_counter_ns()
        try:
            reply = await inner(request, context)
        except grpc.aio.AbortError:
            raise
        except Exception as exc:  # noqa: BLE001 - a bug must not reach users as a Python exception name
            log.error("%s from uid %d failed: %s: %s", method, claim.identity.uid, type(exc).__name__, exc)
            log.debug("%s failed", method, exc_info=True)
            await context.abort(grpc.StatusCode.INTERNAL, SlurmError(Strerror.INTERNAL).status_details())
        finally:
            serving.count -= 1
            serving.answered(method, claim.identity.uid, (time.perf_counter_ns() - started) // 1000)
            _caller.reset(token)
        # Serialized here, once, to be proven; a reply already in wire form (GetJobs) is sent as it is.
        raw: bytes = serialize(reply) if serialize and not isinstance(reply, bytes) else reply
        context.set_trailing_metadata(server_auth.reply_proof(claim, raw))
        return raw

    return grpc.unary_unary_rpc_method_handler(
        behavior,
        request_deserializer=_checked_deserializer(claim, server_auth.verifier, handler.request_deserializer),
    )


def _refusal(reason: str) -> grpc.RpcMethodHandler:
    async def refuse(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, f"Authentication failure: {reason}")

    return grpc.unary_unary_rpc_method_handler(refuse)


class AuthInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, server_auth: ServerAuth, serving: Serving) -> None:
        self._auth = server_auth
        self._serving = serving

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        if details.method == HELLO_METHOD:
            return await continuation(details)
        credential = next(
            (v for k, v in (details.invocation_metadata or ()) if k == CRED_METADATA_KEY), None
        )
        try:
            claim = self._auth.verifier.verify(credential if isinstance(credential, str) else None, details.method)
        except AuthError as exc:
            log.warning("refused %s: %s", details.method, exc)
            return _refusal(str(exc))
        handler = await continuation(details)
        if handler is None or handler.unary_unary is None:
            return handler
        return _wrap_unary(handler, claim, self._auth, details.method, self._serving)


def _hello_handler(server_auth: ServerAuth) -> grpc.GenericRpcHandler:
    async def hello(request: auth_pb2.HelloRequest, context: grpc.aio.ServicerContext) -> auth_pb2.HelloReply:
        if len(request.challenge) != CHALLENGE_BYTES:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, SlurmError(Strerror.UNEXPECTED_MESSAGE).status_details())
        return server_auth.hello(request)

    return grpc.method_handlers_generic_handler("pyslurm.Auth", {"Hello": grpc.unary_unary_rpc_method_handler(
        hello, auth_pb2.HelloRequest.FromString, auth_pb2.HelloReply.SerializeToString)})


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
    # Transport is plain TCP; authenticity comes from the server's proof (Hello) and the signed
    # credential on every call.
    return grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS + RECONNECT_OPTIONS)


def make_server(server_auth: ServerAuth, serving: Serving | None = None) -> grpc.aio.Server:
    """A server whose every call is authenticated; `serving` counts the calls in progress."""
    # No SO_REUSEPORT (gRPC's default): a second copy of a daemon must fail to listen, not
    # silently share the port with the first.
    server = grpc.aio.server(interceptors=[AuthInterceptor(server_auth, serving or Serving())],
                             options=[*CHANNEL_OPTIONS, ("grpc.so_reuseport", 0)])
    server.add_generic_rpc_handlers((_hello_handler(server_auth),))
    return server

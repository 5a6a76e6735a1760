"""Calls to a daemon that first proved it holds the cluster key.

A `Peer` is one daemon of a known role behind one gRPC channel. Before the first credential goes
to it, it must answer Hello with a proof over our fresh random challenge (auth.prove): a process
squatting the port while the real daemon is down cannot make one, so it gets the challenge and
nothing else, and the call fails as UNAVAILABLE (the CLIs' "Unable to contact slurm controller").
Credentials then name the audience it announced (its role, port and per-start instance id), and
only while the connection it was proven on stays up: a channel that is not READY before a call
(the daemon went away, gRPC will connect anew) gets a new Hello first. Every answer must carry the
daemon's proof over our credential's nonce and the reply's digest, so the rare reconnection between
that check and the call (gRPC reconnects on its own) cannot pass off a squatter's reply either; and
what such a squatter caught is a credential for an instance that is gone. A restarted daemon
refuses credentials as meant for another instance; we say Hello again and retry once: the refusal
came before anything ran.

`SignedChannel` stands where a `grpc.aio.Channel` would, so the generated stubs work unchanged;
each call may name the identity it is made for (the auth agent signs for its callers).
"""
from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any, Callable

import grpc

from .auth import OTHER_INSTANCE, Identity, credential_nonce, hello_statement, proof_holds, reply_statement
from .rpc import auth_pb2
from .rpc_auth import CHALLENGE_BYTES, HELLO_METHOD, REPLY_PROOF_KEY, Signer

log = logging.getLogger(__name__)
HELLO_TIMEOUT = 10.0


class NotDelivered(grpc.aio.AioRpcError):
    """UNAVAILABLE, and the request reached no daemon that could act on it: the daemon could not be
    reached or did not prove that it holds the key (its Hello failed, or a reply came without the
    proof: a squatter's), so the request may go to another controller, or again later."""


def _not_delivered(exc: grpc.aio.AioRpcError) -> grpc.aio.AioRpcError:
    if exc.code() != grpc.StatusCode.UNAVAILABLE:
        return exc      # a Hello that timed out (a hung daemon) is not retried: Slurm's send timeout
    return NotDelivered(exc.code(), grpc.aio.Metadata(), grpc.aio.Metadata(), exc.details())


def _other_instance(exc: grpc.aio.AioRpcError) -> bool:
    return exc.code() == grpc.StatusCode.UNAUTHENTICATED and (exc.details() or "").endswith(OTHER_INSTANCE)


class Peer:
    def __init__(self, channel: grpc.aio.Channel, role: str, signer: Signer, address: str = "") -> None:
        self.channel = channel
        self.role = role
        self.address = address
        self._signer = signer
        self._audience: str | None = None
        self._lock = asyncio.Lock()
        self._hello = channel.unary_unary(HELLO_METHOD, request_serializer=auth_pb2.HelloRequest.SerializeToString,
                                          response_deserializer=auth_pb2.HelloReply.FromString)

    async def audience(self, timeout: float | None, **call_options: Any) -> str:
        """The audience of the daemon now behind the channel, proven with a fresh challenge."""
        async with self._lock:
            if self.channel.get_state() != grpc.ChannelConnectivity.READY:
                self._audience = None     # a new connection, maybe to someone else: prove it again
            if self._audience is None:
                self._audience = await self._introduce(timeout, **call_options)
            return self._audience

    async def _introduce(self, timeout: float | None, **call_options: Any) -> str:
        challenge = secrets.token_bytes(CHALLENGE_BYTES)
        reply = await self._hello(auth_pb2.HelloRequest(challenge=challenge),
                                  timeout=min(timeout or HELLO_TIMEOUT, HELLO_TIMEOUT), **call_options)
        role = reply.audience.split(":", 1)[0]
        if role != self.role or not proof_holds(self._signer.key, reply.audience, hello_statement(challenge),
                                                reply.proof):
            raise self._impostor("did not prove that it holds the cluster key: nothing sent to it")
        return reply.audience

    def _impostor(self, what: str) -> grpc.aio.AioRpcError:
        log.error("%s at %s %s", self.role, self.address or "its address", what)
        return NotDelivered(grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(),
                       f"{self.role} at {self.address} {what}")

    def forget(self, audience: str) -> None:
        if self._audience == audience:
            self._audience = None

    async def call(self, method: str, body: bytes, timeout: float | None = None,
                   identity: Identity | None = None, **call_options: Any) -> bytes:
        """Send `body` to `method` signed for `identity` (default: the signer's); the reply's bytes."""
        multicallable = self.channel.unary_unary(method)
        for attempt in (1, 2):
            try:
                audience = await self.audience(timeout, **call_options)
            except NotDelivered:
                raise
            except grpc.aio.AioRpcError as exc:
                raise _not_delivered(exc) from exc
            metadata = self._signer.metadata(audience, method, body, identity)
            call = multicallable(body, timeout=timeout, **call_options, metadata=metadata)
            try:
                reply: bytes = await call
            except grpc.aio.AioRpcError as exc:
                if attempt == 2 or not _other_instance(exc):
                    raise
                self.forget(audience)       # it restarted: introduce ourselves again
                continue
            nonce = credential_nonce(metadata[0][1])
            proof = dict(await call.trailing_metadata() or ()).get(REPLY_PROOF_KEY, "")
            if not isinstance(proof, str) or not proof_holds(self._signer.key, audience,
                                                             reply_statement(nonce, reply), proof):
                self.forget(audience)
                raise self._impostor("answered without the daemon's proof: reply ignored")
            return reply
        raise AssertionError("unreachable")


class SignedChannel:
    """A channel whose every call goes through `peer` (generated stubs take it)."""

    def __init__(self, peer: Peer) -> None:
        self.peer = peer

    def unary_unary(self, method: str, request_serializer: Callable[[Any], bytes] | None = None,
                    response_deserializer: Callable[[bytes], Any] | None = None,
                    _registered_method: bool = False) -> "_SignedCall":
        return _SignedCall(self.peer, method, request_serializer, response_deserializer)

    async def close(self) -> None:
        await self.peer.channel.close()


class _SignedCall:
    def __init__(self, peer: Peer, method: str, serialize: Callable[[Any], bytes] | None,
                 deserialize: Callable[[bytes], Any] | None) -> None:
        self._peer = peer
        self._method = method
        self._serialize = serialize
        self._deserialize = deserialize

    async def __call__(self, request: Any, timeout: float | None = None, identity: Identity | None = None,
                       **call_options: Any) -> Any:
        body = self._serialize(request) if self._serialize else request
        reply = await self._peer.call(self._method, body, timeout, identity, **call_options)
        return self._deserialize(reply) if self._deserialize else reply


def signed_channel(address: str, role: str, signer: Signer,
                   make_channel: Callable[[str], grpc.aio.Channel]) -> SignedChannel:
    return SignedChannel(Peer(make_channel(address), role, signer, address))

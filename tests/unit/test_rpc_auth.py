"""Signed calls over real gRPC (rpc_auth.py, rpc_client.py): a server proves it holds the key before a
client sends any credential; a credential works only for its call; a restarted daemon is met again;
a squatter learns nothing it could use; malformed bodies get Slurm's answer."""
from __future__ import annotations

import asyncio
import contextvars
import socket
from typing import Any, Awaitable, Callable

import grpc
import pytest

from pyslurm_common.auth import CONTROLLER, CRED_METADATA_KEY, OTHER_INSTANCE, Identity
from pyslurm_common.rpc import ctld_pb2, ctld_pb2_grpc, types_pb2
from pyslurm_common.rpc_auth import ServerAuth, Signer, caller, insecure_channel, make_server
from pyslurm_common.rpc_client import signed_channel

KEY = b"k" * 64
ALICE = Identity(1000, 1000, "login1")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Controller(ctld_pb2_grpc.ControllerServicer):
    """Answers Ping with who called, so tests see the verified identity."""

    def __init__(self) -> None:
        self.calls = 0

    async def Ping(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> ctld_pb2.PingReply:
        self.calls += 1
        return ctld_pb2.PingReply(host=f"{caller().uid}@{caller().host}")

    async def GetJobs(self, request: ctld_pb2.JobQuery, context: grpc.aio.ServicerContext) -> ctld_pb2.JobList:
        raise OverflowError("Python int too large to convert to C long")   # a bug, as a user would meet it


async def _serve(port: int, key: bytes = KEY) -> tuple[grpc.aio.Server, _Controller]:
    servicer = _Controller()
    server = make_server(ServerAuth(key, CONTROLLER, port))
    ctld_pb2_grpc.add_ControllerServicer_to_server(servicer, server)
    return await _start(server, port), servicer


def _stub(port: int, key: bytes = KEY) -> ctld_pb2_grpc.ControllerStub:
    return ctld_pb2_grpc.ControllerStub(signed_channel(f"127.0.0.1:{port}", CONTROLLER, Signer(key, uid=450),
                                                       insecure_channel))


_started: contextvars.ContextVar[list[grpc.aio.Server]] = contextvars.ContextVar("started")


async def _start(server: grpc.aio.Server, port: int) -> grpc.aio.Server:
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    _started.get().append(server)
    return server


def run(test: Callable[[int], Awaitable[None]]) -> None:
    """Runs `test` on a free port; every server it started is stopped, also when it fails (a
    server left running when its loop closes can keep the test process from exiting)."""
    async def main() -> None:
        _started.set([])
        try:
            await test(free_port())
        finally:
            for server in _started.get():
                await server.stop(None)

    asyncio.run(main())


def test_a_signed_call_reaches_the_handler_with_the_callers_identity() -> None:
    async def test(port: int) -> None:
        await _serve(port)
        stub = _stub(port)
        assert (await stub.Ping(types_pb2.Empty(), timeout=5)).host.startswith("450@")
        assert (await stub.Ping(types_pb2.Empty(), timeout=5, identity=ALICE)).host == "1000@login1"

    run(test)


def test_a_restarted_daemon_refuses_old_credentials_and_the_client_introduces_itself_again() -> None:
    async def test(port: int) -> None:
        server, _ = await _serve(port)
        stub = _stub(port)
        await stub.Ping(types_pb2.Empty(), timeout=5)
        await server.stop(None)
        _, servicer = await _serve(port)           # a new instance on the same port
        assert (await stub.Ping(types_pb2.Empty(), timeout=5, wait_for_ready=True)).host.startswith("450@")
        assert servicer.calls == 1

    run(test)


class _Squatter(grpc.GenericRpcHandler):
    """A process holding a stopped daemon's port: records every call and its metadata, answers
    Hello as well as it can without the key."""

    def __init__(self, fake_key: bytes | None) -> None:
        self.fake = ServerAuth(fake_key, CONTROLLER, 0) if fake_key else None
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self.bodies: list[bytes] = []

    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        self.seen.append((details.method, dict(details.invocation_metadata or ())))

        async def answer(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
            self.bodies.append(request)
            if details.method == "/pyslurm.Auth/Hello" and self.fake is not None:
                from pyslurm_common.rpc import auth_pb2
                return self.fake.hello(auth_pb2.HelloRequest.FromString(request)).SerializeToString()
            return b""

        return grpc.unary_unary_rpc_method_handler(answer)


@pytest.mark.parametrize("fake_key", [None, b"not the cluster key" * 4], ids=["no-answer", "wrong-key"])
def test_a_squatter_gets_no_credential_and_the_caller_sees_the_daemon_as_unreachable(fake_key: bytes | None) -> None:
    async def test(port: int) -> None:
        squatter = await _squat(port, fake_key)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await _stub(port).SignalJobs(ctld_pb2.SignalRequest(job_ids=[7], signal=9), timeout=5, identity=ALICE)
        assert info.value.code() == grpc.StatusCode.UNAVAILABLE
        assert [method for method, _ in squatter.seen] == ["/pyslurm.Auth/Hello"]
        assert not any(CRED_METADATA_KEY in metadata for _, metadata in squatter.seen)

    run(test)


async def _squat(port: int, fake_key: bytes | None) -> _Squatter:
    squatter = _Squatter(fake_key)
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((squatter,))
    await _start(server, port)
    return squatter


async def _raw_call(port: int, method: str, body: bytes, metadata: tuple[tuple[str, str], ...]) -> grpc.aio.AioRpcError:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await channel.unary_unary(method)(body, metadata=metadata, timeout=5)
    return info.value


async def _raw_ok(port: int, method: str, body: bytes, metadata: tuple[tuple[str, str], ...]) -> bytes:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        reply: bytes = await channel.unary_unary(method)(body, metadata=metadata, timeout=5)
    return reply


def test_a_credential_works_for_its_own_body_method_and_daemon_only() -> None:
    async def test(port: int) -> None:
        _, servicer = await _serve(port)
        peer = signed_channel(f"127.0.0.1:{port}", CONTROLLER, Signer(KEY), insecure_channel).peer
        audience = await peer.audience(5)
        signer = Signer(KEY, uid=1000)
        ping, body = "/pyslurm.Controller/Ping", types_pb2.Empty().SerializeToString()
        metadata = signer.metadata(audience, ping, body)
        other = await _raw_call(port, ping, b"\x0a\x01x", metadata)
        assert (other.code(), other.details()) == (grpc.StatusCode.UNAUTHENTICATED,
                                                   "Authentication failure: credential for another request")
        # the altered attempt did not spend the credential: the call it was made for still runs, once
        assert ctld_pb2.PingReply.FromString(await _raw_ok(port, ping, body, metadata)).host.startswith("1000@")
        again = await _raw_call(port, ping, body, metadata)
        assert again.details() == "Authentication failure: credential replayed"
        method = await _raw_call(port, ping, body, signer.metadata(audience, "/pyslurm.Controller/GetJobs", body))
        assert method.details() == "Authentication failure: credential for another method"
        stale = await _raw_call(port, ping, body, signer.metadata("slurmctld:1:x", ping, body))
        assert stale.details() == "Authentication failure: credential for another daemon instance"
        assert servicer.calls == 1

    run(test)


def test_a_malformed_body_is_answered_with_slurms_error_and_nothing_runs() -> None:
    async def test(port: int) -> None:
        _, servicer = await _serve(port)
        peer = signed_channel(f"127.0.0.1:{port}", CONTROLLER, Signer(KEY), insecure_channel).peer
        method, garbage = "/pyslurm.Controller/Ping", b"\xff\xff\xff\xff"
        error = await _raw_call(port, method, garbage, Signer(KEY).metadata(await peer.audience(5), method, garbage))
        assert (error.code(), error.details()) == (grpc.StatusCode.INVALID_ARGUMENT, "Unexpected message received")
        assert servicer.calls == 0

    run(test)


def test_a_squatter_taking_a_proven_daemons_port_between_two_calls_gets_no_credential() -> None:
    async def test(port: int) -> None:
        server, _ = await _serve(port)
        stub = _stub(port)
        await stub.Ping(types_pb2.Empty(), timeout=5)
        await server.stop(None)
        # the client has seen the daemon go: its proven connection is no longer READY
        await asyncio.wait_for(stub.Ping._peer.channel.wait_for_state_change(grpc.ChannelConnectivity.READY), 5)
        squatter = await _squat(port, b"not the cluster key" * 4)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stub.Ping(types_pb2.Empty(), timeout=5, wait_for_ready=True)
        assert info.value.code() == grpc.StatusCode.UNAVAILABLE
        assert [method for method, _ in squatter.seen] == ["/pyslurm.Auth/Hello"]

    run(test)


def test_what_a_squatter_catches_when_the_port_changes_hands_during_a_call_is_useless(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """gRPC reconnects on its own: a call can leave on a new connection (to a squatter) between the
    client's check that its proven connection is up and the call itself. The squatter's reply is
    not believed, and the credential it caught names the daemon instance that is gone, so a
    restarted daemon refuses it."""
    async def test(port: int) -> None:
        server, _ = await _serve(port)
        stub = _stub(port)
        await stub.Ping(types_pb2.Empty(), timeout=5)
        await server.stop(None)
        # the race, made certain: the client still believes its proven connection is up
        monkeypatch.setattr(stub.Ping._peer.channel, "get_state",
                            lambda try_to_connect=False: grpc.ChannelConnectivity.READY)
        squatter = await _squat(port, b"not the cluster key" * 4)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stub.Ping(types_pb2.Empty(), timeout=5, wait_for_ready=True)
        assert info.value.code() == grpc.StatusCode.UNAVAILABLE
        assert info.value.details().endswith("answered without the daemon's proof: reply ignored")
        caught = [(method, metadata[CRED_METADATA_KEY], body)
                  for (method, metadata), body in zip(squatter.seen, squatter.bodies) if CRED_METADATA_KEY in metadata]
        assert [method for method, _, _ in caught] == ["/pyslurm.Controller/Ping"]
        for server in _started.get():
            await server.stop(None)
        _, servicer = await _serve(port)       # the real daemon is back, a new instance
        for method, credential, body in caught:
            replay = await _raw_call(port, method, body, ((CRED_METADATA_KEY, credential),))
            assert (replay.code(), replay.details()) == (grpc.StatusCode.UNAUTHENTICATED,
                                                         f"Authentication failure: {OTHER_INSTANCE}")
        assert servicer.calls == 0

    run(test)


class _Relay(grpc.GenericRpcHandler):
    """A man in the middle: relays Hello to the real daemon, then answers calls itself."""

    def __init__(self, real_port: int) -> None:
        self.real = f"127.0.0.1:{real_port}"

    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        async def answer(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
            if details.method == "/pyslurm.Auth/Hello":
                async with grpc.aio.insecure_channel(self.real) as channel:
                    reply: bytes = await channel.unary_unary(details.method)(request, timeout=5)
                    return reply
            return ctld_pb2.PingReply(host="forged").SerializeToString()

        return grpc.unary_unary_rpc_method_handler(answer)


def test_a_reply_without_the_daemons_proof_is_not_believed() -> None:
    async def test(port: int) -> None:
        real_port = free_port()
        _, servicer = await _serve(real_port)
        relay = grpc.aio.server()
        relay.add_generic_rpc_handlers((_Relay(real_port),))
        await _start(relay, port)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await _stub(port).Ping(types_pb2.Empty(), timeout=5)
        assert info.value.code() == grpc.StatusCode.UNAVAILABLE
        assert info.value.details().endswith("answered without the daemon's proof: reply ignored")
        assert servicer.calls == 0

    run(test)


def test_a_failing_handler_answers_slurms_unexpected_error_not_a_python_exception_name() -> None:
    async def test(port: int) -> None:
        await _serve(port)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await _stub(port).GetJobs(ctld_pb2.JobQuery(), timeout=5)
        assert (info.value.code(), info.value.details()) == (grpc.StatusCode.INTERNAL, "Unexpected error")

    run(test)

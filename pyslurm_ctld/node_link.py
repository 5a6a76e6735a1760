"""Calls from the controller to node agents (launch, terminate, signal).

One gRPC channel per node, every call signed as the controller. Calls never
block the event loop's state changes: the controller fires them as tasks and
learns the outcome as events (a failed launch becomes a failed job).
"""
from __future__ import annotations

import logging

import grpc

from pyslurm_common.rpc import slurmd_pb2, slurmd_pb2_grpc
from pyslurm_common.rpc_auth import Signer, insecure_channel

log = logging.getLogger(__name__)
CALL_TIMEOUT = 10.0


class NodeLinkError(Exception):
    pass


class NodeLinks:
    def __init__(self, signer: Signer) -> None:
        self._signer = signer
        self._stubs: dict[str, tuple[str, slurmd_pb2_grpc.NodeAgentStub]] = {}

    def _stub(self, node: str, address: str) -> slurmd_pb2_grpc.NodeAgentStub:
        known = self._stubs.get(node)
        if known is None or known[0] != address:
            self._stubs[node] = (address, slurmd_pb2_grpc.NodeAgentStub(insecure_channel(address)))
        return self._stubs[node][1]

    async def _call(self, node: str, address: str, method: str, request: object) -> None:
        stub = self._stub(node, address)
        try:
            await getattr(stub, method)(request, timeout=CALL_TIMEOUT, metadata=self._signer.metadata())
        except grpc.aio.AioRpcError as exc:
            raise NodeLinkError(f"{method} on {node}: {exc.code().name}: {exc.details()}") from exc

    async def launch(self, node: str, address: str, launch: slurmd_pb2.BatchLaunch) -> None:
        await self._call(node, address, "LaunchBatch", launch)

    async def terminate(self, node: str, address: str, job_id: int, cause: str) -> None:
        await self._call(node, address, "TerminateJob", slurmd_pb2.TerminateRequest(job_id=job_id, cause=cause))

    async def signal(self, node: str, address: str, job_id: int, signal: int, batch_only: bool, full: bool) -> None:
        await self._call(node, address, "SignalJob", slurmd_pb2.NodeSignalRequest(
            job_id=job_id, signal=signal, batch_only=batch_only, full=full))

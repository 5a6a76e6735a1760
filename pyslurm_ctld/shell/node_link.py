"""Calls from the controller to node agents (launch, terminate, signal, step usage, reconfigure).

One gRPC channel per node, every call signed as the controller for that node agent. Calls never
block the event loop's state changes: the controller fires them as tasks and
learns the outcome as events (a failed launch becomes a failed job).
"""
from __future__ import annotations

import logging
from typing import Any

import grpc

from pyslurm_common.rpc import slurmd_pb2, slurmd_pb2_grpc, types_pb2
from pyslurm_common.auth import NODE_AGENT
from pyslurm_common.rpc_auth import Signer, insecure_channel
from pyslurm_common.rpc_client import signed_channel

log = logging.getLogger(__name__)
CALL_TIMEOUT = 10.0


class NodeLinkError(Exception):
    def __init__(self, message: str, code: str = "", details: str = "") -> None:
        super().__init__(message)
        self.code = code          # gRPC status name, e.g. FAILED_PRECONDITION
        self.details = details


class NodeLinks:
    def __init__(self, signer: Signer) -> None:
        self._signer = signer
        self._stubs: dict[str, tuple[str, slurmd_pb2_grpc.NodeAgentStub]] = {}

    def _stub(self, node: str, address: str) -> slurmd_pb2_grpc.NodeAgentStub:
        known = self._stubs.get(node)
        if known is None or known[0] != address:
            self._stubs[node] = (address, slurmd_pb2_grpc.NodeAgentStub(
                signed_channel(address, NODE_AGENT, self._signer, insecure_channel)))
        return self._stubs[node][1]

    async def _call(self, node: str, address: str, method: str, request: object) -> Any:
        stub = self._stub(node, address)
        try:
            return await getattr(stub, method)(request, timeout=CALL_TIMEOUT)
        except grpc.aio.AioRpcError as exc:
            details = exc.details() or ""
            # A SlurmError's details are "detail\nstrerror": one line here, since it ends up in
            # log lines that must each read as Slurm's.
            raise NodeLinkError(f"{method} on {node}: {exc.code().name}: {details.replace(chr(10), ': ')}",
                                exc.code().name, details) from exc

    async def launch(self, node: str, address: str, launch: slurmd_pb2.BatchLaunch) -> None:
        await self._call(node, address, "LaunchBatch", launch)

    async def launch_tasks(self, node: str, address: str, launch: slurmd_pb2.TaskLaunch) -> None:
        await self._call(node, address, "LaunchTasks", launch)

    async def terminate(self, node: str, address: str, job_id: int, cause: str, step: str = "") -> None:
        await self._call(node, address, "TerminateJob",
                         slurmd_pb2.TerminateRequest(job_id=job_id, cause=cause, step=step))

    async def signal(self, node: str, address: str, job_id: int, signal: int, batch_only: bool, full: bool,
                     step: str = "") -> None:
        await self._call(node, address, "SignalJob", slurmd_pb2.NodeSignalRequest(
            job_id=job_id, signal=signal, batch_only=batch_only, full=full, step=step))

    async def suspend(self, node: str, address: str, job_id: int, suspend: bool) -> None:
        await self._call(node, address, "SuspendJob", slurmd_pb2.SuspendRequest(job_id=job_id, suspend=suspend))

    async def notify(self, node: str, address: str, job_id: int, step: str, text: str) -> None:
        await self._call(node, address, "NotifyJob", slurmd_pb2.JobMessage(job_id=job_id, step=step, text=text))

    async def attach(self, node: str, address: str, job_id: int, step: str, io_host: str, io_port: int,
                     io_key: str) -> None:
        await self._call(node, address, "AttachStep", slurmd_pb2.StepAttach(
            job_id=job_id, step=step, io_host=io_host, io_port=io_port, io_key=io_key))

    async def step_usage(self, node: str, address: str, job_id: int, step_id: str) -> types_pb2.StepUsageList:
        """Live usage of the job's running steps on `node` (`step_id` "" = all of them)."""
        reply: types_pb2.StepUsageList = await self._call(
            node, address, "GetStepUsage", slurmd_pb2.NodeStepUsageQuery(job_id=job_id, step_id=step_id))
        return reply

    async def reconfigure(self, node: str, address: str) -> None:
        await self._call(node, address, "Reconfigure", types_pb2.Empty())

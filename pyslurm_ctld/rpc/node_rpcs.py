"""Nodes over the wire: scontrol update/create/delete node and sinfo (GetNodes), and the node
agents' registrations, heartbeats and reports of what ended (privileged callers only)."""
from __future__ import annotations

import logging
import time
from pathlib import Path

import grpc

from pyslurm_common.conf_records import parse_node_line
from pyslurm_common.config import ConfigError
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.gres import GresError, parse_gres
from pyslurm_common.rpc import ctld_pb2, types_pb2
from pyslurm_common.rpc_auth import caller, translate_errors

from ..translate import convert
from ..core import node_reconcile
from ..core.topology import (node_admin_change, node_creation, node_deletion, node_heartbeat, node_names,
                             node_notes_change, node_registered, reported_end)
from ..core.usage import node_usage
from ..model.events import BatchFinished, Event, StepFinished
from ..model.reservations import node_flags
from .servicer_base import ServicerBase, peer_host

log = logging.getLogger(__name__)


class NodeRpcs(ServicerBase):
    @translate_errors
    async def GetNodes(self, request: types_pb2.Empty, context: grpc.aio.ServicerContext) -> ctld_pb2.NodeList:
        usage = node_usage(self.state)
        reserved = node_flags(self.state.reservations.values(), int(time.time()))
        return ctld_pb2.NodeList(nodes=[convert.node_info(rec, usage[name], reserved.get(name, ()))
                                        for name, rec in self.state.nodes.items()])

    @translate_errors
    async def UpdateNodes(self, request: ctld_pb2.NodeUpdateRequest, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        self._require_privileged()
        notes = request.HasField("comment") or request.HasField("extra")
        events: list[Event] = []
        if request.state or not notes:      # nothing but a state, or nothing: the state decider says why
            events.append(node_admin_change(self.state, request.state, request.reason, request.names,
                                            caller().uid, int(time.time())))
        if notes:
            events.append(node_notes_change(self.state, request.names,
                                            request.comment if request.HasField("comment") else None,
                                            request.extra if request.HasField("extra") else None))
        for event in events:
            await self.ctl.commit(event)
        return types_pb2.Empty()

    @translate_errors
    async def DeleteNodes(self, request: ctld_pb2.NodeDeleteRequest, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        self._require_privileged()
        event = node_deletion(self.state, node_names(request.names))
        await self.ctl.commit(event)
        log.info("nodes %s deleted by uid %d", ",".join(event.nodes), caller().uid)
        return types_pb2.Empty()

    @translate_errors
    async def CreateNode(self, request: ctld_pb2.NodeCreateRequest, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        """scontrol create nodename=...: a dynamic node, defined before its pyslurmd -Z starts."""
        self._require_privileged()
        name = request.definition.split(None, 1)[0].partition("=")[2] if request.definition.strip() else ""
        if name in self.state.nodes:
            raise SlurmError(Strerror.INVALID_NODE_NAME, f"Node {name} already exists")
        await self._create_dynamic_node(name, request.definition)
        return types_pb2.Empty()

    @translate_errors
    async def RegisterNode(self, request: ctld_pb2.NodeRegistration, context: grpc.aio.ServicerContext) -> ctld_pb2.RegistrationReply:
        self._require_privileged()
        if request.dynamic_conf:
            await self._create_dynamic_node(request.name, request.dynamic_conf)
        rec = node_registered(self.state,
            request.name, time.time(), cpus=request.cpus, real_memory_mb=request.real_memory_mb,
            gpus=_gpu_count(request.gres),
            address=request.address or peer_host(context.peer()), port=request.port,
            boot_time=request.boot_time, slurmd_start_time=int(time.time()), arch=request.arch,
            os=request.os, cgroup_backend=request.cgroup_backend)
        self.ctl.report_node_changes()    # registration may bring a DOWN node back
        steps = await self._reconcile(rec.name, request)
        self.ctl.wake_scheduler()
        return ctld_pb2.RegistrationReply(accepted=True, reason=rec.reason, steps=steps)

    async def _create_dynamic_node(self, name: str, definition: str) -> None:
        try:
            node = parse_node_line(definition, Path(f"pyslurmd -Z --conf of {name}"))
        except ConfigError as exc:
            raise SlurmError(Strerror.INVALID_ARGUMENT, str(exc)) from exc
        if node.name != name:
            raise SlurmError(Strerror.INVALID_NODE_NAME, f"node {name} sent a definition of {node.name}")
        event = node_creation(self.state, node)
        if event is not None:
            await self.ctl.commit(event)
            log.info("node=%s dynamic node added: %s", name, definition)

    @translate_errors
    async def NodeHeartbeat(self, request: ctld_pb2.Heartbeat,
                            context: grpc.aio.ServicerContext) -> ctld_pb2.StepReconciliation:
        self._require_privileged()
        node_heartbeat(self.state, request.name, time.time(), request.cpu_load, request.free_memory_mb)
        self.ctl.gpu_idle.report(request.name, request.gpu_activity, self.state.jobs)
        return await self._reconcile(request.name, request)

    async def _reconcile(self, node: str, request: ctld_pb2.NodeRegistration | ctld_pb2.Heartbeat
                         ) -> ctld_pb2.StepReconciliation:
        """Record the ends the node reports, then settle what it runs against what it should.
        An agent older than these reports sends none (not an empty one): it runs what it runs."""
        if not request.HasField("steps"):
            return ctld_pb2.StepReconciliation()
        steps, now = request.steps, int(time.time())
        ends, acknowledged = convert.node_step_ends(steps, now)
        for event in ends:
            await self._commit_end(event)
        running = frozenset((step.job_id, step.step) for step in steps.running)
        outcome = node_reconcile.reconcile(self.state.jobs.on_node(node), node, running,
                                           self.state.nodes[node].boot_time, now)
        for event in outcome.events:
            await self.ctl.commit(event)
        return ctld_pb2.StepReconciliation(
            acknowledged=acknowledged,
            kill=[ctld_pb2.NodeStep(job_id=job_id, step=step) for job_id, step in outcome.kill])

    async def _commit_end(self, event: BatchFinished | StepFinished) -> None:
        for journaled in reported_end(event):
            await self.ctl.commit(journaled)

    @translate_errors
    async def CompleteBatch(self, request: ctld_pb2.BatchCompletion, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        self._require_privileged()
        await self._commit_end(convert.batch_end(request, int(time.time())))
        return types_pb2.Empty()

    @translate_errors
    async def CompleteStep(self, request: ctld_pb2.StepCompletion, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        self._require_privileged()
        await self._commit_end(convert.step_end(request, int(time.time())))
        return types_pb2.Empty()


def _gpu_count(gres: str) -> int:
    try:
        return sum(spec.count for spec in parse_gres(gres) if spec.name == "gpu") if gres else 0
    except GresError:
        return 0


"""Interactive work over the wire: salloc and srun (WaitAllocation, CreateStep,
CompleteAllocation), sattach (AttachStep) and sstat (GetStepUsage)."""
from __future__ import annotations

import logging
import os
import time

import grpc

from pyslurm_common.bounds import STEP_REQUEST, check_fields
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.hostlist import HostlistError, expand
from pyslurm_common.multi_prog import MAX_FILE_BYTES as MAX_MULTI_PROG_BYTES
from pyslurm_common.rpc import ctld_pb2, types_pb2
from pyslurm_common.rpc_auth import caller, translate_errors

from ..translate import convert, launch_messages
from ..core.steps import release, step_creation
from ..model.job import JobId
from ..shell.node_link import NodeLinkError
from ..core.step_layout import StepBusy, StepShape
from .servicer_base import ServicerBase, srun_address

log = logging.getLogger(__name__)


class StepRpcs(ServicerBase):
    @translate_errors
    async def WaitAllocation(self, request: ctld_pb2.AllocationWait, context: grpc.aio.ServicerContext) -> ctld_pb2.AllocationState:
        job = await self.ctl.wait_allocation(request.job_id, caller().uid, request.timeout_ms / 1000)
        return ctld_pb2.AllocationState(job=convert.job_info(job))

    @translate_errors
    async def CreateStep(self, request: ctld_pb2.StepRequest, context: grpc.aio.ServicerContext) -> ctld_pb2.StepReply:
        return await self._create_step(request, context)

    async def _create_step(self, request: ctld_pb2.StepRequest, context: grpc.aio.ServicerContext) -> ctld_pb2.StepReply:
        """The step placed, journaled and launched; busy when other steps hold what it needs."""
        if not request.argv:
            raise SlurmError(Strerror.INVALID_ARGUMENT, "no command to run")
        if len(request.multi_prog) > MAX_MULTI_PROG_BYTES:   # what srun refuses to send
            raise SlurmError(Strerror.INVALID_ARGUMENT, "multi_prog config file is too large")
        check_fields(request, STEP_REQUEST)
        try:
            nodelist = tuple(expand(request.nodelist)) if request.nodelist else ()
        except HostlistError as exc:
            raise SlurmError(Strerror.INVALID_NODE_NAME, str(exc)) from exc
        shape = StepShape(num_tasks=request.num_tasks, min_nodes=request.min_nodes, max_nodes=request.max_nodes,
                          cpus_per_task=request.cpus_per_task, exact=request.exact, overlap=request.overlap,
                          overcommit=request.overcommit,
                          nodelist=nodelist, distribution=request.distribution)
        name = request.name or os.path.basename(request.argv[0])
        try:
            event = step_creation(self.state, request.job_id, caller().uid, shape, name, tuple(request.argv),
                                  int(time.time()),
                                  request.resv_ports if request.HasField("resv_ports") else None)
        except StepBusy as busy:   # CPUs held by other steps (a node name), or reserved ports (its Strerror)
            why = busy.args[0] if busy.args and isinstance(busy.args[0], Strerror) else Strerror.STEP_NODES_BUSY
            return ctld_pb2.StepReply(job_id=request.job_id, busy=True, busy_reason=str(why))
        spec = launch_messages.step_spec(
            request, name, request.io_host or srun_address(context.peer(), self.ctl.cfg.controller_addr),
            self._requeued(request.job_id))
        step = await self.ctl.start_step(event, spec)
        return ctld_pb2.StepReply(job_id=request.job_id, step_id=step.step_id, nodes=step.nodes,
                                  tasks_per_node=step.tasks_per_node, num_tasks=step.num_tasks)

    @translate_errors
    async def AttachStep(self, request: ctld_pb2.StepAttachRequest,
                         context: grpc.aio.ServicerContext) -> ctld_pb2.StepAttachReply:
        """sattach. The stepds connect back to the address the request came from, never to one the
        caller names; the key (a bounded hex word, it travels in a stepd control line) is theirs."""
        io_port = 0 if request.layout_only else request.io_port
        if io_port and (io_port > 65535 or not 0 < len(request.io_key) <= 64
                        or any(c not in "0123456789abcdef" for c in request.io_key)):
            raise SlurmError(Strerror.INVALID_ARGUMENT, "sattach: bad listener port or key")
        try:
            uid = caller().uid
            private = "jobs" in self.ctl.cfg.private_data and not self._operator(uid)
            step, attached = await self.ctl.attach_step(
                request.job_id, request.step_id, uid, private,
                srun_address(context.peer(), self.ctl.cfg.controller_addr), io_port, request.io_key)
        except NodeLinkError as exc:
            log.warning("job=%d step %d attach: %s", request.job_id, request.step_id, exc)
            raise SlurmError(Strerror.COMM_FAILURE, str(exc)) from exc
        return ctld_pb2.StepAttachReply(nodes=step.nodes, tasks_per_node=step.tasks_per_node, attached=attached,
                                        distribution=step.distribution)

    def _requeued(self, job_id: int) -> bool:
        """A requeued job's steps append to their files by default, as its batch output does."""
        job = self.state.jobs.get(JobId(job_id))
        return job is not None and job.restarts > 0

    @translate_errors
    async def CompleteAllocation(self, request: ctld_pb2.AllocationRelease, context: grpc.aio.ServicerContext) -> types_pb2.Empty:
        await self.ctl.commit(release(self.state, request.job_id, caller().uid, request.exit_code,
                                                   request.exit_signal, int(time.time())))
        return types_pb2.Empty()

    @translate_errors
    async def GetStepUsage(self, request: ctld_pb2.StepUsageQuery, context: grpc.aio.ServicerContext) -> types_pb2.StepUsageList:
        try:
            return await self.ctl.step_usage(request.job_id, request.step_id, caller().uid)
        except NodeLinkError as exc:
            log.warning("job=%d step usage: %s", request.job_id, exc)
            raise SlurmError(Strerror.COMM_FAILURE, str(exc)) from exc

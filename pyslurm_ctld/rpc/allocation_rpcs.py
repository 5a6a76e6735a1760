"""srun outside an allocation in one call (AllocateWithStep): the job submitted as SubmitBatchJob
submits it, then, when the scheduling pass that follows starts it, its first step created as
CreateStep creates it. One round trip where srun made three (submit, wait, create the step); each
half keeps its own checks, credentials and journal lines, as it is the same code.

A job that pass leaves pending (or one refused its step for now, or that ended) comes back
without a step, and srun goes on as before: WaitAllocation, then CreateStep. A step that cannot be
created comes back as its error, with the job left running for srun to give back, as after a
CreateStep that failed.
"""
from __future__ import annotations

import asyncio

import grpc

from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import ctld_pb2
from pyslurm_common.rpc_auth import caller, translate_errors

from ..core.steps import allocation_of
from ..model.job import Job, JobState
from ..translate import convert
from .job_rpcs import JobRpcs
from .step_rpcs import StepRpcs

MAX_WAIT_MS = 10_000   # WaitAllocation's longest wait from srun (cli/allocation.py LATER_WAIT_MS)


class AllocationRpcs(JobRpcs, StepRpcs):
    @translate_errors
    async def AllocateWithStep(self, request: ctld_pb2.StepAllocationRequest,
                               context: grpc.aio.ServicerContext) -> ctld_pb2.StepAllocationReply:
        before = self.ctl.passes_begun   # read before the job exists: a later pass is one that saw it
        event = self._submission(request.job, context)
        submitted = asyncio.ensure_future(self.ctl.staged(event))
        job_id, uid = event.job.job_id, caller().uid
        passed = self.ctl.pass_now()
        if passed is None:   # a pass under way or held back: the loop's next pass decides
            await submitted
            job = await self.ctl.wait_allocation(job_id, uid, min(request.wait_ms, MAX_WAIT_MS) / 1000,
                                                 after_pass=before)
            return await self._with_step(job, request.step, context)
        try:   # the submission, the start and the step share one journal fsync (_with_step awaits it)
            return await self._with_step(allocation_of(self.state, job_id, uid), request.step, context)
        finally:
            await asyncio.gather(submitted, passed)

    async def _with_step(self, job: Job, request: ctld_pb2.StepRequest,
                         context: grpc.aio.ServicerContext) -> ctld_pb2.StepAllocationReply:
        """The reply for `job`: when it runs, with its first step created (or the step's error)."""
        reply = ctld_pb2.StepAllocationReply(job_id=job.job_id, job=convert.job_info(job))
        if job.state is JobState.RUNNING:
            step = ctld_pb2.StepRequest()
            step.CopyFrom(request)
            step.job_id = job.job_id
            try:
                reply.step.CopyFrom(await self._create_step(step, context))
            except SlurmError as exc:
                reply.step_error = exc.status_details()
        return reply

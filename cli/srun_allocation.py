"""srun outside an allocation: its job and first step in one call to the controller
(AllocateWithStep, pyslurm_ctld/rpc/allocation_rpcs.py), where submit, wait and CreateStep
took three.

The controller answers once the scheduling pass after the submission is done: with the running
job and its step (or the step's error), or with a job still pending, which then goes the usual
way (allocation.wait_until_started: Slurm's queued and allocated lines, --immediate, signals),
srun creating the step itself afterwards. The signals that cancel a pending request are held
during the call (one pass and the step's launch) and acted on once it has named the job: a job
still pending is revoked, as while srun waits for it; a running one is given back, as when srun
is interrupted creating its step.
"""
from __future__ import annotations

from collections.abc import Callable

from pyslurm_common.errors import SlurmError
from pyslurm_common.rpc import messages as pb

from . import allocation, client

PROG = "srun"


def allocate_with_step(desc: pb.JobDesc, step: pb.StepRequest, quiet: bool, immediate: int | None,
                       meanwhile: Callable[[], None]) -> tuple[pb.JobInfo, pb.StepAllocationReply | None]:
    """The job, running, and the controller's answer for its step (a StepReply or an error); or
    the job running after a wait and None: srun creates the step (CreateStep). `meanwhile` runs
    while the controller works (srun loads what running the step needs)."""
    desc.alloc_resp_port = allocation.response_port()
    request = pb.StepAllocationRequest(job=desc, step=step, wait_ms=allocation.FIRST_WAIT_MS)
    with allocation.held_signals() as held:
        try:
            call = client.controller_started("AllocateWithStep", request, timeout=allocation.FIRST_WAIT_MS / 1000 + 30)
            meanwhile()
            reply = call.reply(pb.StepAllocationReply)
        except SlurmError as exc:
            allocation.refused(PROG, exc)
    answered = reply.HasField("step") or bool(reply.step_error)
    if held:
        if not answered:
            allocation.revoke(PROG, reply.job_id)
        allocation.release(reply.job_id, exit_code=1)
        raise SystemExit(1)
    if answered:
        return reply.job, reply
    job = allocation.wait_until_started(PROG, reply.job_id, quiet, immediate=immediate)
    return job, None


def step_answer(reply: pb.StepAllocationReply) -> pb.StepReply:
    """The step as CreateStep would have answered: its reply, or its error raised."""
    if reply.step_error:
        raise SlurmError.from_status_details(reply.step_error)
    return reply.step

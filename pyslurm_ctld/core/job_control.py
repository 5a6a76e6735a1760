"""`scontrol requeue`, `requeuehold`, `suspend` and `resume`: who may, which jobs, and the event
(spec cli-squeue-sinfo-scontrol-scancel.md §3.6, scheduling-policy.md §1.3).

Pure checks over one job record, raising SlurmError with Slurm's words:
* requeue / requeuehold: the owner or an operator; batch jobs that allow requeue (else
  `Requested operation is presently disabled`), running, suspended or finished (`Incomplete`:
  not finished). A running or suspended run is killed (`DUE TO JOB REQUEUE`) and ends REQUEUED;
  once its processes are gone the job pends again with the same id (held with requeuehold).
* suspend / resume: operators and administrators only; a running job stops in place, a
  suspended one continues.
"""
from __future__ import annotations

from pyslurm_common.errors import SlurmError, Strerror

from ..model.events import JobRequeueRequested, JobResumed, JobSuspended
from ..model.job import Hold, Job, JobState
from ..sched.preemption import requeueable

def requeue_request(job: Job, uid: int, hold: bool, operator: bool, incomplete: bool, now: int) -> JobRequeueRequested:
    if job.request.interactive:
        raise SlurmError(Strerror.BATCH_ONLY)
    if job.state is JobState.PENDING:
        raise SlurmError(Strerror.JOB_PENDING)
    if job.completing or (incomplete and job.state.is_finished):
        raise SlurmError(Strerror.ALREADY_DONE)
    if not requeueable(job):
        raise SlurmError(Strerror.DISABLED)
    held = Hold.NONE if not hold else Hold.ADMIN if operator else Hold.USER
    return JobRequeueRequested(job.job_id, uid, held, now)


def suspension(job: Job, uid: int, operator: bool, suspend: bool, now: int) -> JobSuspended | JobResumed:
    if not operator:
        raise SlurmError(Strerror.ACCESS_DENIED)
    if job.state is JobState.PENDING:
        raise SlurmError(Strerror.JOB_PENDING)
    if job.state.is_finished:
        raise SlurmError(Strerror.ALREADY_DONE)
    if suspend:
        if job.state is not JobState.RUNNING:
            raise SlurmError(Strerror.JOB_NOT_RUNNING)
        return JobSuspended(job.job_id, uid, now)
    if job.state is not JobState.SUSPENDED:
        raise SlurmError(Strerror.JOB_NOT_SUSPENDED)
    return JobResumed(job.job_id, now)

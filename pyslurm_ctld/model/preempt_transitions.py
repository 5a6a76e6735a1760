"""What preemption, suspension and requeue do to a job record: pure functions from the record
and the event to the new record and the effects (the core stores the record).

* CANCEL: the run ends PREEMPTED (COMPLETING until its processes are gone; the stderr line
  says `DUE TO PREEMPTION`).
* REQUEUE: the same, and once the processes are gone the job is pending again with the same
  id (`requeued`): one more restart, a new submit time (accounting keeps the preempted run as
  its own record), eligible only after cred_expire + 1 seconds (Slurm's delay, reason
  BeginTime).
* SUSPEND (and `scontrol suspend`): the job stays on its nodes, stopped; its CPUs are free for
  others, its memory and GPUs are not. Resuming continues it; time suspended does not count
  towards its time limit.
* GraceTime: first the warning (SIGCONT + SIGTERM to the steps), the action at the deadline.
"""
from __future__ import annotations

import dataclasses
import signal

from pyslurm_common.preempt_conf import PreemptMode

from .events import Account, Effect, JobPreempted, JobRequeueRequested, JobResumed, SignalTasks, SuspendTasks, Terminate
from .job import Hold, Job, JobState, Preemption, Reason
from .job_steps import settled
from .states import transition

PREEMPTION_CAUSE = "PREEMPTION"
REQUEUE_CAUSE = "JOB REQUEUE"


def preempted(job: Job, event: JobPreempted) -> tuple[Job, list[Effect]]:
    """The warning or the action of a preemption (the job is RUNNING)."""
    assert job.allocation is not None
    mode = PreemptMode(event.mode)
    nodes = job.allocation.nodes
    if event.grace > 0 and job.preemption is None:
        job = dataclasses.replace(job, preemption=Preemption(mode, event.preemptor, event.time,
                                                             event.time + event.grace))
        return job, [SignalTasks(job.job_id, nodes, signal.SIGCONT, batch_only=False, full=False),
                     SignalTasks(job.job_id, nodes, signal.SIGTERM, batch_only=False, full=False)]
    noticed = job.preemption.noticed if job.preemption is not None else event.time
    preemption = Preemption(mode, event.preemptor, noticed, event.time)
    if mode is PreemptMode.SUSPEND:
        job = transition(job, JobState.SUSPENDED, preemption=preemption, suspend_time=event.time)
        return job, [SuspendTasks(job.job_id, nodes, True), Account(job)]
    job = settled(transition(job, JobState.PREEMPTED, completing=True, end_time=event.time,
                             preemption=preemption))
    return job, [Terminate(job.job_id, nodes, PREEMPTION_CAUSE), Account(job)]


def suspended(job: Job, time: int) -> tuple[Job, list[Effect]]:
    """`scontrol suspend` of a running job."""
    assert job.allocation is not None
    job = transition(job, JobState.SUSPENDED, suspend_time=time)
    return job, [SuspendTasks(job.job_id, job.allocation.nodes, True), Account(job)]


def resumed(job: Job, event: JobResumed) -> tuple[Job, list[Effect]]:
    assert job.allocation is not None
    # As Slurm's job record, suspend_time is now the resume: SecsPreSuspend and RunTime count from it.
    job = transition(job, JobState.RUNNING, preemption=None, suspend_time=event.time,
                     suspended_secs=job.suspended_secs + max(0, event.time - job.suspend_time))
    return job, [SuspendTasks(job.job_id, job.allocation.nodes, False), Account(job)]


def requeue_requested(job: Job, event: JobRequeueRequested, delay: int, priority: int) -> tuple[Job, list[Effect]]:
    """`scontrol requeue[hold]`: a running or suspended run is killed and ends REQUEUED (a
    suspended job comes back held, as in Slurm); a finished job pends again at once."""
    hold = event.hold if event.hold is not Hold.NONE else job.hold   # a hold set while it ran stays
    if job.state in (JobState.RUNNING, JobState.SUSPENDED):
        assert job.allocation is not None
        if job.state is JobState.SUSPENDED and hold is Hold.NONE:
            hold = Hold.ADMIN if event.by_uid != job.uid else Hold.USER
        job = settled(transition(job, JobState.REQUEUED, completing=True, end_time=event.time, hold=hold,
                                 preemption=None, reason=Reason(event.reason) if event.reason else job.reason))
        return job, [Terminate(job.job_id, job.allocation.nodes, REQUEUE_CAUSE), Account(job)]
    return requeued(dataclasses.replace(job, hold=hold), event.time, delay, priority)


def awaiting_requeue(job: Job) -> bool:
    """A run ended by `scontrol requeue`, by REQUEUE preemption or by the failure of one of its
    nodes (`requeue_on_end`) whose processes are all gone: the job goes back to the queue."""
    if job.completing:
        return False
    return (job.state is JobState.REQUEUED or (job.state is JobState.NODE_FAIL and job.requeue_on_end)
            or (job.state is JobState.PREEMPTED and job.preemption is not None
                and job.preemption.mode is PreemptMode.REQUEUE))


def requeued(job: Job, time: int, delay: int, priority: int) -> tuple[Job, list[Effect]]:
    """The job pending again with the same id, eligible `delay` seconds from now (held, with
    priority 0, if the record carries a hold)."""
    eligible = time + delay
    if job.hold is not Hold.NONE:
        priority = 0
    reason = (Reason.BEGIN_TIME if job.hold is Hold.NONE else Reason.HELD_ADMIN if job.hold is Hold.ADMIN
              else Reason.HELD_USER)
    # Accounting keys a run by (id, submit time): a run preempted within its first second still
    # gets a record of its own.
    submit_time = max(time, job.submit_time + 1)
    job = transition(
        job, JobState.PENDING, request=dataclasses.replace(job.request, begin_time=eligible),
        # held (requeuehold), it is not eligible until released, as a job submitted held: sacct
        # -D -j lists that pending record then, as Slurm does
        allocation=None, submit_time=submit_time, eligible_time=0 if job.hold is not Hold.NONE else eligible, start_time=0, end_time=0,
        restarts=job.restarts + 1, priority=priority, reason=reason, preemption=None,
        exit_code=0, exit_signal=0, usage=None, steps=(), next_step_id=0, batch_ended=False,
        suspend_time=0, suspended_secs=0, completing=False, requeue_on_end=False)
    return job, [Account(job)]



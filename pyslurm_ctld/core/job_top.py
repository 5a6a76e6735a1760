"""`scontrol top <job_list>`: a user's pending jobs go to the top of that user's jobs of the same
partition, account and QOS, by taking priority from those other jobs (Slurm 22.05, man
scontrol): the listed jobs, in their order, get the highest priorities the group had, and the
others give up, through a higher nice value, what the listed ones gained, so the user's share of
the machine barely changes.

Operators (root, SlurmUser, AdminLevel Operator) may top anyone's jobs; users only their own, and
only with SchedulerParameters=enable_user_top. An unknown id fails the whole request; jobs that
are not pending or are held are left out (their error is the answer when nothing is left).
Priorities here are a job's computed priority less its nice value, so a nice change moves a
priority by exactly as much: the events are nice changes (JobPriorityChanged), nothing else.
"""
from __future__ import annotations

from pyslurm_common.bounds import NICE_MAX
from pyslurm_common.errors import SlurmError, Strerror

from ..model.events import JobPriorityChanged
from ..model.job import Job, JobId, JobState
from .access import known_job
from .state import ClusterState


def _group(job: Job) -> tuple[object, ...]:
    return (job.uid, job.request.partition, job.request.account, job.request.qos)


def _movable(job: Job) -> bool:
    """A pending, not held job of a single partition whose priority can still go down."""
    return (job.state is JobState.PENDING and not job.hold.value and len(job.request.partitions) <= 1
            and job.priority > 1 and not job.admin_priority)


def topping(state: ClusterState, job_ids: list[int], uid: int, operator: bool, user_top: bool,
            now: int) -> list[JobPriorityChanged]:
    """The nice changes that put `job_ids` (in that order) first among the caller's jobs."""
    if not operator and not user_top:
        raise SlurmError(Strerror.ACCESS_DENIED)
    listed = [known_job(state, job_id) for job_id in job_ids]
    if not listed:
        raise SlurmError(Strerror.INVALID_JOB_ID)
    top: list[Job] = []
    chosen: set[JobId] = set()
    left_out: Strerror | None = None
    for job in listed:
        if job.uid != uid and not operator:
            raise SlurmError(Strerror.ACCESS_DENIED)
        if len(job.request.partitions) > 1:
            raise SlurmError(Strerror.PART_CONFIG_UNAVAILABLE)
        if job.state is not JobState.PENDING:
            left_out = Strerror.NOT_PENDING
        elif job.hold.value or job.priority == 0:
            left_out = Strerror.JOB_HELD
        elif job.job_id not in chosen:
            chosen.add(job.job_id)
            top.append(job)
    if not top:
        raise SlurmError(left_out or Strerror.INVALID_JOB_ID)
    group = _group(top[0])
    others = [job for job in state.jobs.values()
              if job.job_id not in chosen and _movable(job) and _group(job) == group]
    # The listed jobs take the group's highest priorities in their order, each below the one before.
    # As in Slurm a job's nice goes down by its gain but not below 0 (a negative nice is for
    # operators to give): one at nice 0 keeps its priority, and what is listed after it and the
    # others go below it.
    ranked = sorted((job.priority for job in [*top, *others]), reverse=True)
    events: list[JobPriorityChanged] = []
    taken = 0
    previous: int | None = None
    for job, target in zip(top, ranked):
        new = job.priority + max(0, min(job.request.nice, target - job.priority))
        if previous is not None and new >= previous:
            new = max(1, previous - 1)
        change = max(new - job.priority, job.request.nice - NICE_MAX)
        taken += change
        previous = job.priority + change
        if change:
            events.append(JobPriorityChanged(job.job_id, job.admin_priority, job.request.nice - change, now))
    floor = previous
    assert floor is not None   # `top` is never empty here
    # The others give back what the listed ones took, shared evenly, and each goes below the last
    # listed job (never below priority 1, which would read as held).
    for count, job in enumerate(others):
        share = max(0, taken) // (len(others) - count)
        loss = min(job.priority - 1, NICE_MAX - job.request.nice, max(share, job.priority - floor + 1))
        taken -= loss
        if loss > 0:
            events.append(JobPriorityChanged(job.job_id, job.admin_priority, job.request.nice + loss, now))
    return events

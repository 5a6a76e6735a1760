"""`scontrol top <job_list>`: a user's pending jobs go to the top of that user's jobs of the same
partition, account and QOS, by taking priority from those other jobs (Slurm 22.05, man
scontrol): the listed jobs, in their order, get the highest priorities the group had (through a
lower nice value, negative if need be, for a user too), and the others give up, through a higher
nice value, what the listed ones gained, shared evenly from the highest down (the remainder to
the lower ones), so the user's share of the machine does not change. As real Slurm 22.05.8 did
(root and a user with enable_user_top): group 39, 37, 36, top the 37: 39 (nice -2), 38, 35.
A listed job whose priority an administrator fixed (`scontrol update priority=`) takes the top
priority as its fixed one and takes nothing from the others (Slurm moves it there by a nice of
-2^31 and the others lose 2^31 between them, an overflow not copied).

Operators (root, SlurmUser, AdminLevel Operator) may top anyone's jobs; users only their own, and
only with SchedulerParameters=enable_user_top. Ids are read as Slurm's controller reads them
(`123`, `123_*`, an array task's `123_5`). An unknown id fails the whole request; jobs that
are not pending or are held are left out (their error is the answer when nothing is left).
Priorities here are a job's computed priority less its nice value, so a nice change moves a
priority by exactly as much: the events are nice changes (JobPriorityChanged), nothing else.
"""
from __future__ import annotations

from pyslurm_common.array_spec import parse_job_spec
from pyslurm_common.bounds import NICE_MAX
from pyslurm_common.errors import SlurmError, Strerror

from ..model.events import JobPriorityChanged
from ..model.job import Job, JobId, JobState
from .access import known_job
from .state import ClusterState


def _named(state: ClusterState, text: str) -> Job:
    """The record one listed id names, as Slurm's job_set_top reads it: `123` and `123_*` job
    123 (an array's pending remainder for an array id); `123_5` the record of array 123's task 5,
    or the remainder while 5 is still pending in it. One task id, no ranges (`123_[1-3]`)."""
    try:
        spec = parse_job_spec(text) if "[" not in text else None
    except ValueError:
        spec = None
    if spec is None:
        raise SlurmError(Strerror.INVALID_JOB_ID)
    if spec.tasks is None:
        return known_job(state, spec.job_id)
    (task,) = spec.tasks
    record = state.array_tasks.get(JobId(spec.job_id), {}).get(task)
    if record is not None and record in state.jobs:
        return state.jobs[record]
    master = state.jobs.get(JobId(spec.job_id))
    if master is not None and master.array is not None and master.array.is_remainder and task in master.array.pending:
        return master
    raise SlurmError(Strerror.INVALID_JOB_ID)


def _group(job: Job) -> tuple[object, ...]:
    return (job.uid, job.request.partition, job.request.account, job.request.qos)


def _movable(job: Job) -> bool:
    """A pending, not held job of a single partition whose priority can still go down."""
    return (job.state is JobState.PENDING and not job.hold.value and len(job.request.partitions) <= 1
            and job.priority > 1 and not job.admin_priority)


def topping(state: ClusterState, job_specs: list[str], uid: int, operator: bool, user_top: bool,
            now: int) -> list[JobPriorityChanged]:
    """The nice changes that put the jobs `job_specs` name (in that order) first among the
    caller's jobs."""
    if not operator and not user_top:
        raise SlurmError(Strerror.ACCESS_DENIED)
    listed = [_named(state, text) for text in job_specs]
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
    # The listed jobs take the group's highest priorities in their order.
    ranked = sorted((job.priority for job in [*top, *others]), reverse=True)
    events: list[JobPriorityChanged] = []
    taken = 0
    for job, target in zip(top, ranked):
        if job.admin_priority:
            if target != job.priority:
                events.append(JobPriorityChanged(job.job_id, target, job.request.nice, now))
            continue
        # nice - change stays within ±NICE_MAX
        change = max(job.request.nice - NICE_MAX, min(target - job.priority, job.request.nice + NICE_MAX))
        taken += change
        if change:
            events.append(JobPriorityChanged(job.job_id, 0, job.request.nice - change, now))
    # The others give back what the listed ones took, shared evenly from the highest down (never
    # below priority 1, which would read as held).
    others.sort(key=lambda job: (-job.priority, job.job_id))
    for count, job in enumerate(others):
        share = max(0, taken) // (len(others) - count)
        loss = min(job.priority - 1, NICE_MAX - job.request.nice, share)
        taken -= loss
        if loss > 0:
            events.append(JobPriorityChanged(job.job_id, job.admin_priority, job.request.nice + loss, now))
    return events

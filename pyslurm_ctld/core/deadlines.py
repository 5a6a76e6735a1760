"""--deadline, as slurmctld enforces it: a pending job whose shortest run (its --time-min, else
its time limit) can no longer end by the deadline ends as DEADLINE with reason DeadLine, and a
running job that reaches its deadline is ended the same way. Pure: state and `now` in, events out.
"""
from __future__ import annotations

from ..model.events import JobDeadlineMissed
from ..model.job import Job, JobState
from .state import ClusterState

UNLIMITED = -1


def shortest_run_s(job: Job) -> int:
    """Seconds the job needs at the least: --time-min, else its time limit (0 when unlimited)."""
    minutes = job.request.time_min_min or job.request.time_limit_min
    return 0 if minutes == UNLIMITED else minutes * 60


def missed(job: Job, now: int) -> bool:
    """Whether the job's --deadline is past meeting: pending, it could no longer end by it;
    running, it has come. The scheduling pass holds back (and ends) such a pending job."""
    deadline = job.request.deadline
    if not deadline:
        return False
    if job.state is JobState.PENDING:
        return now + shortest_run_s(job) > deadline
    return job.state is JobState.RUNNING and now >= deadline


def deadlines_missed(state: ClusterState, now: int) -> list[JobDeadlineMissed]:
    return [JobDeadlineMissed(job.job_id, now) for job in state.jobs.values() if missed(job, now)]

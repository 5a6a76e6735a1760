"""Who may act on what: root and SlurmUser are privileged; a job is its owner's (or theirs).

Raises SlurmError with Slurm's words: INVALID_JOB_ID for an unknown id, ACCESS_DENIED for
someone else's job.
"""
from __future__ import annotations

from pyslurm_common.errors import SlurmError, Strerror

from ..job import Job, JobId
from .state import ClusterState


def is_privileged(state: ClusterState, uid: int) -> bool:
    return uid == 0 or uid == state.slurm_uid


def owned_job(state: ClusterState, job_id: int, uid: int) -> Job:
    job = state.jobs.get(JobId(job_id))
    if job is None:
        raise SlurmError(Strerror.INVALID_JOB_ID)
    if job.uid != uid and not is_privileged(state, uid):
        raise SlurmError(Strerror.ACCESS_DENIED)
    return job


def known_job(state: ClusterState, job_id: int) -> Job:
    job = state.jobs.get(JobId(job_id))
    if job is None:
        raise SlurmError(Strerror.INVALID_JOB_ID)
    return job

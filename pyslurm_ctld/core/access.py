"""Who may act on what: root and SlurmUser are privileged; a job is its owner's (or theirs, or an
operator's: AdminLevel Operator/Administrator, or a coordinator's of its account).
Who sees what: Hidden=YES partitions, and the jobs only in them, are left out for users who
do not ask for all (squeue -a, sinfo -a); operators always see them (slurmctld's
build_visible_parts).

Raises SlurmError with Slurm's words: INVALID_JOB_ID for an unknown id, ACCESS_DENIED for
someone else's job (INVALID_USER_ID where Slurm's update_job refuses it).
"""
from __future__ import annotations

from collections.abc import Iterable

from pyslurm_common.conf_records import PartitionConfig
from pyslurm_common.errors import SlurmError, Strerror

from ..model.job import Job, JobId
from .state import ClusterState


def is_privileged(state: ClusterState, uid: int) -> bool:
    return uid == 0 or uid == state.slurm_uid


def owned_job(state: ClusterState, job_id: int, uid: int, coordinated: frozenset[str] = frozenset(),
              operator: bool = False) -> Job:
    """The job, if the caller may act on it (`may_act_on`); else Slurm's `Access/permission denied`."""
    job = known_job(state, job_id)
    if not may_act_on(state, job, uid, operator, coordinated):
        raise SlurmError(Strerror.ACCESS_DENIED)
    return job


def updatable_job(state: ClusterState, job_id: int, uid: int, operator: bool,
                  coordinated: frozenset[str] = frozenset()) -> Job:
    """Who may `scontrol update|hold|release` a job or signal its steps: as `may_act_on`.
    Someone else's job is Slurm 22.05's `Invalid user id` here, where requeue, cancelling the job
    and top say `Access/permission denied` (owned_job)."""
    job = known_job(state, job_id)
    if not may_act_on(state, job, uid, operator, coordinated):
        raise SlurmError(Strerror.INVALID_USER_ID)
    return job


def may_act_on(state: ClusterState, job: Job, uid: int, operator: bool, coordinated: frozenset[str]) -> bool:
    """Its owner, root, SlurmUser, an ``operator`` (AdminLevel Operator or Administrator: "can
    perform any slurm operation", man sacctmgr) or a coordinator of the job's account
    (``coordinated``: the caller's accounts as coordinator, sub-accounts included)."""
    return (job.uid == uid or operator or is_privileged(state, uid) or job.request.account in coordinated)


def known_job(state: ClusterState, job_id: int) -> Job:
    job = state.jobs.get(JobId(job_id))
    if job is None:
        raise SlurmError(Strerror.INVALID_JOB_ID)
    return job


def shown_partitions(partitions: Iterable[PartitionConfig], operator: bool, show_all: bool) -> list[PartitionConfig]:
    return [p for p in partitions if operator or show_all or not p.hidden]


def job_shown(job: Job, hidden: frozenset[str]) -> bool:
    """A job is left out only when every partition it may run in is hidden."""
    names = job.request.partitions or (job.request.partition,)
    return not hidden or not all(name in hidden for name in names)


def job_identity(state: ClusterState, uid: int, gid: int, run_as_uid: int | None,
                 run_as_gid: int | None) -> tuple[int, int]:
    """Who a new job runs as: the caller, or with --uid/--gid the user and group root (or
    SlurmUser) names; anyone else asking is refused, an unknown user is Slurm's `Invalid user id`."""
    if run_as_uid is None and run_as_gid is None:
        return uid, gid
    if not is_privileged(state, uid):
        raise SlurmError(Strerror.ACCESS_DENIED)
    if run_as_uid is not None:
        import pwd

        try:
            pwd.getpwuid(run_as_uid)
        except (KeyError, OverflowError):
            raise SlurmError(Strerror.INVALID_USER_ID) from None
    return (uid if run_as_uid is None else run_as_uid), (gid if run_as_gid is None else run_as_gid)

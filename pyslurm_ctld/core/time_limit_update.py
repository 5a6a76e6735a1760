"""`scontrol update jobid=N TimeLimit=...` (also `TimeLimit+=M` / `TimeLimit-=M`): the new limit.

Pure: the job, the words and who asks in, minutes (or UNLIMITED) out, or a SlurmError in
Slurm's words. Slurm's rules: a pending or running job; its owner may lower the limit, and
raise a pending job's within its partition's MaxTime; otherwise only an operator (root,
SlurmUser, AdminLevel Operator/Administrator) may raise it; `+=`/`-=`
change the current limit by that much (an unlimited job cannot be changed relatively); the
limit is whole minutes, seconds rounding up, at most what Slurm's uint32 holds (bounds.py).
"""
from __future__ import annotations

from pyslurm_common.bounds import TIME_LIMIT_MIN
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.units import UNLIMITED, parse_time_limit

from ..model.job import Job, JobState

_CHANGEABLE = (JobState.PENDING, JobState.RUNNING, JobState.SUSPENDED)


def new_time_limit(job: Job, sign: str, text: str, operator: bool, partition_max_min: int = UNLIMITED) -> int:
    """`sign` is "" for `TimeLimit=`, "+" or "-" for `TimeLimit+=` / `TimeLimit-=`; the owner
    may also raise a pending job's limit up to its partition's MaxTime (`partition_max_min`), as
    Slurm 22.05's _update_job does (checked on it: 10 -> 20 minutes under MaxTime=INFINITE)."""
    if job.state not in _CHANGEABLE or job.completing:
        raise SlurmError(Strerror.ALREADY_DONE)
    try:
        minutes = parse_time_limit(text)
    except ValueError:
        raise SlurmError(Strerror.INVALID_TIME_LIMIT) from None
    old = job.request.time_limit_min
    if sign:
        if minutes == UNLIMITED or old == UNLIMITED:
            raise SlurmError(Strerror.INVALID_TIME_LIMIT)
        minutes = old + minutes if sign == "+" else old - minutes
        if minutes <= 0:
            raise SlurmError(Strerror.INVALID_TIME_LIMIT)
        TIME_LIMIT_MIN.refuse(minutes)
    within_partition = job.state is JobState.PENDING and not _longer(minutes, partition_max_min)
    if not operator and _longer(minutes, old) and not within_partition:
        raise SlurmError(Strerror.ACCESS_DENIED)
    return minutes


def _longer(new: int, old: int) -> bool:
    if old == UNLIMITED:
        return False
    return new == UNLIMITED or new > old

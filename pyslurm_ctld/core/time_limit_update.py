"""`scontrol update jobid=N TimeLimit=...` (also `TimeLimit+=M` / `TimeLimit-=M`): the new limit.

Pure: the job, the words and who asks in, minutes (or UNLIMITED) out, or a SlurmError in
Slurm's words. Slurm's rules: a pending or running job; its owner may only lower the limit,
only an operator (root, SlurmUser, AdminLevel Operator/Administrator) may raise it; `+=`/`-=`
change the current limit by that much (an unlimited job cannot be changed relatively); the
limit is whole minutes, seconds rounding up, at most what Slurm's uint32 holds (bounds.py).
"""
from __future__ import annotations

from pyslurm_common.bounds import TIME_LIMIT_MIN
from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.units import UNLIMITED, parse_time_limit

from ..model.job import Job, JobState

_CHANGEABLE = (JobState.PENDING, JobState.RUNNING, JobState.SUSPENDED)


def new_time_limit(job: Job, sign: str, text: str, operator: bool) -> int:
    """`sign` is "" for `TimeLimit=`, "+" or "-" for `TimeLimit+=` / `TimeLimit-=`."""
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
    if not operator and _longer(minutes, old):
        raise SlurmError(Strerror.ACCESS_DENIED)
    return minutes


def _longer(new: int, old: int) -> bool:
    if old == UNLIMITED:
        return False
    return new == UNLIMITED or new > old

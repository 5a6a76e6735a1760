"""Priorities over the cluster state: the periodic recalculation (PriorityCalcPeriod), the
fairshare usage to journal, and what sprio and sshare show (priority/multifactor only). The
arithmetic lives in job_priorities.py and priority.py.
"""
from __future__ import annotations

import collections
import dataclasses
from typing import Iterator

from pyslurm_common.errors import SlurmError, Strerror

from ..model.events import UsageRecorded
from ..sched.fairshare import ShareRow
from ..model.job import Hold, JobState
from ..sched.priority import PriorityFactors
from . import usage
from .state import ClusterState


def recalculate_priorities(state: ClusterState, now: int) -> None:
    """Fairshare table and every pending job's priority (PriorityCalcPeriod; soft state)."""
    collections.deque(priority_recalculation(state, now), maxlen=0)


def priority_recalculation(state: ClusterState, now: int) -> Iterator[int]:
    """recalculate_priorities in chunks (JobPriorities.recalculation): the caller may yield between them."""
    state.priorities.refresh_shares(state.associations)
    return state.priorities.recalculation(state.jobs, state.priority_context, now)


def usage_update(state: ClusterState, now: int) -> UsageRecorded | None:
    """Fairshare usage up to `now`, to journal (priority/multifactor only)."""
    if not state.priorities.settings.multifactor:
        return None
    usage = state.priorities.usage_update(state.jobs.values(), state.associations, now)
    return UsageRecorded(usage.rows(), usage.time)


def pending_priority_factors(state: ClusterState, now: int) -> list[PriorityFactors]:
    """sprio: the factors of every pending job not held (computed now for a job that has
    none yet, its priority set from them). priority/multifactor only."""
    if not state.priorities.settings.multifactor:
        raise SlurmError(Strerror.DISABLED)
    result = []
    for job in list(state.jobs.values()):
        if job.state is JobState.PENDING and job.hold is Hold.NONE:
            if job.job_id not in state.priorities.factors:
                state.set_job(dataclasses.replace(job, priority=state.priority_of(job, now)))
            result.append(state.priorities.factors[job.job_id])
    return result


def fairshare_rows(state: ClusterState, now: int) -> list[ShareRow]:
    """sshare: every association with its usage as of `now`. priority/multifactor only."""
    if not state.priorities.settings.multifactor:
        raise SlurmError(Strerror.DISABLED)
    return state.priorities.live_shares(state.jobs.values(), state.associations, now)

"""The job state machine: which (from, to) changes exist, and the one setter.

Every state change of a job goes through `transition`, which refuses pairs
that are not in the table and logs `job=<id> FROM -> TO (reason)`.
"""
from __future__ import annotations

import dataclasses
import logging
from typing import Any

from .job import Job, JobState

log = logging.getLogger(__name__)

S = JobState
_TERMINAL_FROM_RUNNING = {S.COMPLETED, S.FAILED, S.CANCELLED, S.TIMEOUT, S.NODE_FAIL,
                          S.OUT_OF_MEMORY, S.PREEMPTED, S.DEADLINE, S.BOOT_FAIL}

TRANSITIONS: frozenset[tuple[JobState, JobState]] = frozenset(
    {(S.PENDING, S.RUNNING), (S.PENDING, S.CANCELLED), (S.PENDING, S.FAILED),
     (S.PENDING, S.DEADLINE),    # --deadline that can no longer be met
     (S.RUNNING, S.SUSPENDED), (S.SUSPENDED, S.RUNNING), (S.SUSPENDED, S.CANCELLED),
     (S.RUNNING, S.PENDING),     # requeue (the launch did not happen)
     (S.RUNNING, S.REQUEUED), (S.SUSPENDED, S.REQUEUED),    # scontrol requeue ends the run
     (S.SUSPENDED, S.NODE_FAIL)}
    # Requeue: a finished run's job pends again with the same id (once its processes are gone).
    | {(done, S.PENDING) for done in _TERMINAL_FROM_RUNNING | {S.REQUEUED}}
    | {(S.RUNNING, to) for to in _TERMINAL_FROM_RUNNING}
)


class IllegalTransition(Exception):
    pass


def transition(job: Job, to: JobState, **changes: Any) -> Job:
    if (job.state, to) not in TRANSITIONS:
        raise IllegalTransition(f"job={job.job_id} {job.state} -> {to} is not a legal transition")
    new = dataclasses.replace(job, state=to, **changes)
    log.info("job=%d %s -> %s (%s)", job.job_id, job.state, to, new.reason)
    return new

"""The controller's sdiag counters: jobs by outcome and main scheduler cycles.

Soft state, like Slurm's: counted from the moment the controller started serving
(recovery replays history through the same code and is not counted: the controller
starts a fresh record afterwards). Fed by `ClusterState.set_job` on every job state change and
by the controller shell, which times each scheduling pass.
"""
from __future__ import annotations

from dataclasses import dataclass

from .job import JobState


@dataclass(slots=True)
class ControllerStats:
    since: int
    jobs_submitted: int = 0
    jobs_started: int = 0
    jobs_completed: int = 0
    jobs_canceled: int = 0
    jobs_failed: int = 0          # every other end: FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY ...
    cycle_last_usec: int = 0
    cycle_max_usec: int = 0
    cycle_count: int = 0
    cycle_sum_usec: int = 0
    depth_sum: int = 0            # pending jobs examined, over all cycles
    queue_length: int = 0         # pending jobs at the last cycle
    last_cycle_time: int = 0

    def job_submitted(self) -> None:
        self.jobs_submitted += 1

    def job_changed(self, old: JobState, new: JobState) -> None:
        if new is JobState.RUNNING and old is JobState.PENDING:
            self.jobs_started += 1
        elif new.is_finished and not old.is_finished:
            if new is JobState.COMPLETED:
                self.jobs_completed += 1
            elif new is JobState.CANCELLED:
                self.jobs_canceled += 1
            else:
                self.jobs_failed += 1

    def schedule_cycle(self, usec: int, pending: int, now: int) -> None:
        self.cycle_last_usec = usec
        self.cycle_max_usec = max(self.cycle_max_usec, usec)
        self.cycle_count += 1
        self.cycle_sum_usec += usec
        self.depth_sum += pending
        self.queue_length = pending
        self.last_cycle_time = now

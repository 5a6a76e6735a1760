"""Job state names, as Slurm spells them: the one definition every package imports.

Owns the base states a job (or step) is in (`JobState`, numbered as Slurm's `job_states` enum:
squeue sorts by that number), which of them are still active, and every name squeue, sacct and
scancel accept or print with its compact code, flags included (COMPLETING, REQUEUE_HOLD ...),
in the order Slurm lists them. The controller stores `JobState` values; the wire, the accounting
store and the commands carry the same words as strings (a `StrEnum` compares equal to them).

Pure: no I/O, no errors.
"""
from __future__ import annotations

from .str_enum import StrEnum   # enum's, without importing enum (CLI start-up, issue 18)


class JobState(StrEnum):
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    SUSPENDED = "SUSPENDED"
    COMPLETED = "COMPLETED"
    CANCELLED = "CANCELLED"
    FAILED = "FAILED"
    TIMEOUT = "TIMEOUT"
    NODE_FAIL = "NODE_FAIL"
    PREEMPTED = "PREEMPTED"
    BOOT_FAIL = "BOOT_FAIL"
    DEADLINE = "DEADLINE"
    OUT_OF_MEMORY = "OUT_OF_MEMORY"
    REQUEUED = "REQUEUED"        # a run ended by `scontrol requeue` (the job itself pends again)

    @property
    def is_finished(self) -> bool:
        return self not in ACTIVE_STATES


# A job in one of these has not ended (squeue lists it, scancel signals it by default).
ACTIVE_STATES: frozenset[JobState] = frozenset({JobState.PENDING, JobState.RUNNING, JobState.SUSPENDED})

# Slurm's base state numbers (PENDING=0 ... OUT_OF_MEMORY=11); REQUEUED is a flag there, not a base.
BASE_STATE_NUMBERS: dict[str, int] = {
    state.value: number for number, state in enumerate(JobState) if state is not JobState.REQUEUED}

# Every state and flag name the commands accept or print -> its compact code, base states first,
# then the flags, in the order Slurm's squeue lists them ("Valid job states include: ...").
STATE_CODES: dict[str, str] = {
    JobState.PENDING: "PD",
    JobState.RUNNING: "R",
    JobState.SUSPENDED: "S",
    "COMPLETING": "CG",
    JobState.COMPLETED: "CD",
    JobState.CANCELLED: "CA",
    JobState.FAILED: "F",
    JobState.TIMEOUT: "TO",
    JobState.NODE_FAIL: "NF",
    JobState.PREEMPTED: "PR",
    JobState.BOOT_FAIL: "BF",
    JobState.DEADLINE: "DL",
    JobState.OUT_OF_MEMORY: "OOM",
    "CONFIGURING": "CF",
    JobState.REQUEUED: "RQ",
    "REQUEUE_HOLD": "RH",
    "REQUEUE_FED": "RF",
    "RESIZING": "RS",
    "RESV_DEL_HOLD": "RD",
    "REVOKED": "RV",
    "SPECIAL_EXIT": "SE",
    "SIGNALING": "SI",
    "STAGE_OUT": "SO",
    "STOPPED": "ST",
}

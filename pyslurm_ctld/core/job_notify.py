"""Lines for a job's user on its standard error (`scontrol notify`, the idle-GPU policy's
warnings): who may send one, and which stepd writes it.

Slurm 22.05 writes the line where the user reads the job: the batch step's error file, or the
terminal of each running step's srun for an interactive job. Only a running job has either; the
others are Slurm's `Requested operation is presently disabled`.
"""
from __future__ import annotations

from dataclasses import dataclass

from pyslurm_common.errors import SlurmError, Strerror

from ..model.job import Job, JobId, JobState
from .access import updatable_job
from .state import ClusterState

# What one line may hold; a node agent cuts it there too (its stepd reads 4 KB).
TEXT_LIMIT = 1000


@dataclass(frozen=True, slots=True)
class JobMessage:
    """A line for a job's user, written by the stepd of `step` on `node`."""

    job_id: JobId
    node: str
    step: str
    text: str


def message_targets(job: Job, text: str) -> list[JobMessage]:
    """Where the user reads it: the batch script's error file, else each running step's srun."""
    if job.allocation is None:
        return []
    if not job.request.interactive:
        return [JobMessage(job.job_id, job.allocation.batch_host, "batch", text)]
    return [JobMessage(job.job_id, step.nodes[0], str(step.step_id), text) for step in job.running_steps if step.nodes]


def notify(state: ClusterState, job_id: int, text: str, uid: int, operator: bool,
           coordinated: frozenset[str] = frozenset()) -> list[JobMessage]:
    """`scontrol notify`: its owner, root, SlurmUser, an operator or a coordinator of its account
    may write to a running job; someone else gets Slurm's `Invalid user id`, a job that is not
    running `Requested operation is presently disabled`. The text becomes one bounded line."""
    job = updatable_job(state, job_id, uid, operator, coordinated)
    if job.state is not JobState.RUNNING:
        raise SlurmError(Strerror.DISABLED)
    return message_targets(job, " ".join(text.split())[:TEXT_LIMIT])

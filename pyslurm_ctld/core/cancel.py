"""scancel: the events that cancel jobs, array tasks and pending array indices, and the signals
sent to running jobs. Only the owner, root, SlurmUser, an ``operator`` (AdminLevel) or a
coordinator of the job's account may (``coordinated``: the caller's accounts as coordinator).
"""
from __future__ import annotations

from pyslurm_common.array_spec import JobSpec
from pyslurm_common.errors import SlurmError, Strerror

from ..model.events import ArrayTasksCancelled, Effect, Event, JobCancelled, SignalTasks
from ..model.job import Job, JobId, JobState, Reason
from .access import owned_job
from .state import ClusterState

# Slurm's controller starts a job about a second after its submission: a signal sent right after
# sbatch finds it pending and scancel retries five seconds later, when the job's srun steps run.
# pyslurm starts it within milliseconds, so a job's first seconds with no step yet count as that
# window: a signal for its steps is retried rather than lost on processes that do not exist yet.
STEPLESS_START_S = 2


def cancellation(state: ClusterState, job_id: int, uid: int, now: int,
                 coordinated: frozenset[str] = frozenset(), operator: bool = False) -> JobCancelled:
    job = owned_job(state, job_id, uid, coordinated, operator)
    if job.state.is_finished:
        raise SlurmError(Strerror.ALREADY_DONE)
    pending_reason = str(job.reason) if job.state is JobState.PENDING and job.reason is not Reason.NONE else ""
    return JobCancelled(job.job_id, by_uid=uid, time=now, reason=pending_reason)


def named_records(state: ClusterState, spec: JobSpec, uid: int, coordinated: frozenset[str] = frozenset(),
                  operator: bool = False) -> tuple[list[Job], tuple[int, ...]]:
    """The records a command-line job id names, and the still-pending array indices it names.

    `123` names job 123, or every record of array 123 when 123 is an array id; `123_5`
    and `123_[1-3]` name tasks of array 123: the records of those that started, the
    indices of those still pending in the master. Raises INVALID_JOB_ID when nothing matches.
    """
    job = owned_job(state, spec.job_id, uid, coordinated, operator)
    array = job.array
    if array is None or array.array_job_id != job.job_id:
        if spec.tasks is not None:
            raise SlurmError(Strerror.INVALID_JOB_ID)
        return [job], ()
    members = state.array_tasks.get(job.job_id, {})
    if spec.tasks is None:
        records = [state.jobs[j] for j in set(members.values()) | {job.job_id} if j in state.jobs]
        return sorted(records, key=lambda r: r.job_id), ()
    pending = set(array.pending) if array.is_remainder and job.state is JobState.PENDING else set()
    records = [state.jobs[members[t]] for t in spec.tasks if t in members and members[t] in state.jobs]
    named_pending = tuple(t for t in spec.tasks if t in pending)
    if not records and not named_pending:
        raise SlurmError(Strerror.INVALID_JOB_ID)
    return records, named_pending


def cancellations(state: ClusterState, spec: JobSpec, uid: int, now: int,
                  coordinated: frozenset[str] = frozenset(), operator: bool = False) -> list[Event]:
    """scancel of one command-line id (see `named_records`): one event per record, plus one
    for the pending array indices it names. Raises like `cancellation` when nothing is left to cancel."""
    records, pending = named_records(state, spec, uid, coordinated, operator)
    active = [r for r in records if not r.state.is_finished]
    if not active and not pending:
        return [cancellation(state, records[0].job_id, uid, now, coordinated, operator)]   # raises: already done
    events: list[Event] = [cancellation(state, r.job_id, uid, now, coordinated, operator) for r in active]
    if pending:
        master = state.jobs[JobId(spec.job_id)]
        reason = str(master.reason) if master.reason is not Reason.NONE else ""
        events.append(ArrayTasksCancelled(master.job_id, pending, (), uid, now, reason))
    return events


def signalling(state: ClusterState, job_id: int, uid: int, signal: int, batch_only: bool, full: bool,
               now: int, coordinated: frozenset[str] = frozenset(), operator: bool = False) -> list[Effect]:
    """A signal for a running job's processes. Pending or suspended, a job has nothing to take
    it: slurmctld answers "try again later" there (scancel retries), never drops it; so too for
    its steps' signal in a just-started job none of whose steps has begun (STEPLESS_START_S)."""
    job = owned_job(state, job_id, uid, coordinated, operator)
    if job.state.is_finished:
        raise SlurmError(Strerror.ALREADY_DONE)
    if job.state is not JobState.RUNNING or job.allocation is None:
        raise SlurmError(Strerror.TRANSITION_STATE_NO_UPDATE)
    if (not batch_only and not full and job.next_step_id == 0
            and now - job.start_time < STEPLESS_START_S):
        raise SlurmError(Strerror.TRANSITION_STATE_NO_UPDATE)
    return [SignalTasks(job.job_id, job.allocation.nodes, signal, batch_only, full)]

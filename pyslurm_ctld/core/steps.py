"""Interactive work: srun steps placed in a job's allocation, their cancellation and signals,
salloc's release of its allocation, and which nodes sstat asks and sattach attaches to.
"""
from __future__ import annotations

from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.task_distribution import node_ranks

from ..model.events import AllocationReleased, Effect, SignalTasks, StepStarted, Terminate
from ..model.job import Job, JobState, Step
from .step_layout import StepShape, place_step
from .access import is_privileged, known_job, owned_job, updatable_job
from .reserved_ports import reserve_ports
from .state import ClusterState


_MAX_DISTRIBUTION = 64   # longer than any -m Slurm takes ("plane=N" and two more levels)


def allocation_of(state: ClusterState, job_id: int, uid: int) -> Job:
    """The job srun or salloc waits for (owner or privileged only)."""
    return owned_job(state, job_id, uid)


def step_creation(state: ClusterState, job_id: int, uid: int, shape: StepShape, name: str, argv: tuple[str, ...],
                  now: int, resv_ports: int | None = None) -> StepStarted:
    """A new step of a running job, placed in its allocation. Raises SlurmError when the step
    can never run, step_layout.StepBusy when other steps hold what it needs now."""
    job = owned_job(state, job_id, uid)
    if job.uid != uid and uid != 0:
        raise SlurmError(Strerror.ACCESS_DENIED)   # steps run as the job's user: only they (or root) make them
    if job.state is JobState.PENDING:
        raise SlurmError(Strerror.JOB_PENDING)
    if job.state is not JobState.RUNNING or job.allocation is None:
        raise SlurmError(Strerror.ALREADY_DONE)
    placement = place_step(job.allocation, job.running_steps, shape)
    ports = reserve_ports(state, placement.nodes, placement.tasks_per_node, resv_ports)
    step = Step(step_id=job.next_step_id, name=name, nodes=placement.nodes,
                tasks_per_node=placement.tasks_per_node, cpu_ids=placement.cpu_ids, start_time=now,
                argv=argv, distribution=_checked_distribution(shape.distribution), waiting_on=placement.nodes,
                resv_ports=ports)
    return StepStarted(job.job_id, step)


def _checked_distribution(distribution: str) -> str:
    """-m from the wire, kept with the step (journal, sattach): bounded, and one node_ranks reads."""
    try:
        if len(distribution) <= _MAX_DISTRIBUTION:
            node_ranks((1,), distribution)
            return distribution
    except ValueError:
        pass
    raise SlurmError(Strerror.INVALID_ARGUMENT, f"invalid task distribution {distribution[:_MAX_DISTRIBUTION]!r}")


def step_termination(state: ClusterState, job_id: int, step_id: int, uid: int,
                     operator: bool = False) -> list[Effect]:
    """scancel J.S: end one running step (its nodes report how it ended): its owner, root,
    SlurmUser or an ``operator`` (AdminLevel)."""
    job, step = _running_step(state, job_id, step_id, uid, operator)
    return [Terminate(job.job_id, step.nodes, "CANCELLED", step=str(step_id))]


def step_signalling(state: ClusterState, job_id: int, step_id: int, uid: int, signal: int,
                    operator: bool = False) -> list[Effect]:
    job, step = _running_step(state, job_id, step_id, uid, operator)
    return [SignalTasks(job.job_id, step.nodes, signal, batch_only=False, full=False, step=str(step_id))]


def step_attachment(state: ClusterState, job_id: int, step_id: int, uid: int, private: bool) -> tuple[Step, bool]:
    """The running step sattach asks for, and whether the caller may attach to it.

    As slurmctld's step layout: anyone sees it unless `private` (PrivateData=jobs and the caller
    no operator), then only its owner and the privileged; a pending or ended job and an unknown
    step are Slurm's errors. Only the owner or a privileged user may attach: for anyone else
    the nodes are not asked, as slurmd refuses them."""
    job = known_job(state, job_id)
    mine = job.uid == uid or is_privileged(state, uid)
    if private and not mine:
        raise SlurmError(Strerror.ACCESS_DENIED)
    if job.state is JobState.PENDING:
        raise SlurmError(Strerror.JOB_PENDING)
    if job.state is not JobState.RUNNING:
        raise SlurmError(Strerror.ALREADY_DONE)
    step = job.step(step_id)
    if step is None or not step.running:
        raise SlurmError(Strerror.INVALID_JOB_ID)
    return step, mine


def _running_step(state: ClusterState, job_id: int, step_id: int, uid: int, operator: bool) -> tuple[Job, Step]:
    job = updatable_job(state, job_id, uid, operator)   # someone else's: `Invalid user id`, as 22.05
    step = job.step(step_id)
    if step is None:
        raise SlurmError(Strerror.INVALID_JOB_ID)
    if not step.running:
        raise SlurmError(Strerror.ALREADY_DONE)
    return job, step


def release(state: ClusterState, job_id: int, uid: int, exit_code: int, exit_signal: int,
            now: int) -> AllocationReleased:
    """salloc is done with its allocation (or srun could not use it)."""
    job = owned_job(state, job_id, uid)
    if job.state.is_finished:
        raise SlurmError(Strerror.ALREADY_DONE)
    return AllocationReleased(job.job_id, exit_code, exit_signal, now)


def step_usage_hosts(state: ClusterState, job_id: int, step_id: str, uid: int) -> tuple[str, ...]:
    """The nodes to ask for the live usage of the job's steps (sstat): the batch host for the
    batch step, a step's nodes for that step, every node of the job for all of its steps;
    none when the job is not running. Only the owner or a privileged user may look."""
    job = owned_job(state, job_id, uid)
    if job.state is not JobState.RUNNING or job.allocation is None:
        return ()
    if step_id == "batch":
        return () if job.request.interactive else (job.allocation.batch_host,)
    if step_id:
        step = job.step(int(step_id)) if step_id.isdigit() else None
        return step.nodes if step is not None and step.running else ()
    return job.allocation.nodes

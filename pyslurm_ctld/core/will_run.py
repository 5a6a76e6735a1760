"""--test-only (sbatch, srun): when and where a job would start, without queueing it.

As slurmctld's will-run test, the job is placed against what runs now and when each running job
is expected to end (backfill's timeline, core/usage.py's capacity), not behind other pending
jobs; a job that could start at once starts now. The answer is Slurm's "Job N to start at ...
using N processors on nodes ... in partition ...". Pure apart from reading the state.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from pyslurm_common.errors import SlurmError, Strerror

from ..sched import scheduler
from ..sched.backfill import Backfill, running_jobs
from ..settings.sched_params import BackfillPolicy
from ..model.events import JobIdsUsed
from ..model.job import Hold, Job, Reason
from .scheduling import partition_views
from .state import ClusterState
from .usage import node_capacity, node_usage


@dataclass(frozen=True, slots=True)
class WillRun:
    job_id: int
    start_time: int
    cpus: int
    nodes: tuple[str, ...]
    partition: str


def will_run(state: ClusterState, job: Job, now: int) -> WillRun:
    """Where `job` (admitted, not queued) would start, and when; SlurmError when it never could."""
    usage = node_usage(state)
    capacities = {name: node_capacity(state, name, usage[name]) for name in state.nodes}
    views = partition_views(state)
    backfill = Backfill(state.options.backfill or BackfillPolicy(), capacities,
                        running_jobs(state.jobs.values(), now), now)
    candidate = dataclasses.replace(job, hold=Hold.NONE, reason=Reason.NONE)
    for decision in scheduler.schedule([candidate], capacities, views, {}, None, None, None, backfill):
        if isinstance(decision, scheduler.Start):
            return _answer(job, max(now, job.request.begin_time), decision.allocation,
                           decision.partition or job.request.partition)
        if decision.expected is not None:
            expected = decision.expected
            return _answer(job, max(expected.start_time, job.request.begin_time), expected.allocation,
                           expected.partition)
    raise SlurmError(Strerror.BAD_NODE_CONFIG)


def ids_spent(state: ClusterState) -> JobIdsUsed:
    """A --test-only submission uses its job id up, as Slurm's, and queues nothing."""
    return JobIdsUsed(state.next_job_id)


def _answer(job: Job, start: int, allocation: "scheduler.Allocation", partition: str) -> WillRun:
    return WillRun(job.job_id, start, sum(allocation.cpus_per_node), allocation.nodes, partition)

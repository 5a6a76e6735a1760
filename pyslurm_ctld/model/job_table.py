"""The controller's job table: a dict of jobs by id that keeps its MaxJobCount tally as it changes.

Slurm's MaxJobCount counts every active job record, a pending array's not-yet-split tasks one
each. Counting that by walking every job made each submission cost O(queue): 100k queued jobs
meant 100k visits per sbatch. Jobs are frozen and every change replaces the record through
`table[id] = job` (or removes it), so the tally moves by the difference of one job's weight.

The same way it keeps, per node, the jobs a node agent's report is compared with
(node_reconcile.py): those with an allocation that are active or still have a running step.
Each heartbeat used to walk every job, pending and finished ones too: O(jobs) per heartbeat,
times the number of agents; now it looks at the jobs on its own node.

And the jobs a scheduling pass walks (`in_play`): every pass used to walk every job, those
finished for good too, which stay until MinJobAge purges them (300 s by default): after a
benchmark's few thousand jobs, a 500-task array paid for each of them in every pass, about seven
walks a pass.
"""
from __future__ import annotations

from typing import Collection, Iterable

from .job import Job, JobId, JobState


def active_weight(job: Job) -> int:
    """What `job` counts against MaxJobCount: 0 once finished, its pending tasks for an array's
    remainder, else 1."""
    if not job.is_active:
        return 0
    if job.array is not None and job.array.is_remainder:
        return len(job.array.pending)
    return 1


def held_nodes(job: Job) -> frozenset[str]:
    """The nodes `job` may have processes on: an allocated job's nodes (its batch host and its
    steps' nodes included) while it is active or a step still runs; none otherwise."""
    if job.allocation is None or not (job.is_active or any(step.running for step in job.steps)):
        return frozenset()
    return frozenset((*job.allocation.nodes, job.allocation.batch_host,
                      *(node for step in job.steps for node in step.waiting_on))) - {""}


def in_play(job: Job) -> bool:
    """Whether a scheduling pass looks at `job`: active (pending, running, suspended or
    completing), or a run ended by requeue, preemption or a node failure that a pass may put
    back in the queue."""
    return (job.is_active or job.state is JobState.REQUEUED or job.state is JobState.PREEMPTED
            or job.requeue_on_end)


class JobTable(dict[JobId, Job]):
    """Jobs by id; `active_count` is the sum of `active_weight` over them, `on_node(name)` the
    jobs whose `held_nodes` include that node and `in_play()` those `in_play`, all kept up to date
    by every mutating method (a method this class does not override would bypass them, so the
    rarely used ones refuse)."""

    def __init__(self, jobs: Iterable[Job] = ()) -> None:
        super().__init__()
        self.active_count = 0
        self._by_node: dict[str, dict[JobId, Job]] = {}
        self._in_play: dict[JobId, Job] = {}
        for job in jobs:
            self[job.job_id] = job

    def __setitem__(self, job_id: JobId, job: Job) -> None:
        old = super().get(job_id)
        self.active_count += active_weight(job) - (active_weight(old) if old is not None else 0)
        self._unindex(old)
        for node in held_nodes(job):
            self._by_node.setdefault(node, {})[job_id] = job
        if in_play(job):
            self._in_play[job_id] = job
        else:
            self._in_play.pop(job_id, None)
        super().__setitem__(job_id, job)

    def __delitem__(self, job_id: JobId) -> None:
        self.active_count -= active_weight(self[job_id])
        self._unindex(self[job_id])
        self._in_play.pop(job_id, None)
        super().__delitem__(job_id)

    def _unindex(self, job: Job | None) -> None:
        for node in held_nodes(job) if job is not None else ():
            jobs = self._by_node[node]
            del jobs[job.job_id]
            if not jobs:
                del self._by_node[node]

    def on_node(self, node: str) -> Iterable[Job]:
        """The jobs that may have processes on `node` (held_nodes)."""
        return self._by_node.get(node, {}).values()

    def in_play(self) -> Collection[Job]:
        """The jobs `in_play`, in the table's order (submission order, as a walk of every job)."""
        return self._in_play.values()

    _MISSING = object()

    def pop(self, job_id: JobId, default: object = _MISSING) -> Job:   # type: ignore[override]
        if job_id in self:
            job = self[job_id]
            del self[job_id]
            return job
        if default is JobTable._MISSING:
            raise KeyError(job_id)
        return default   # type: ignore[return-value]

    def clear(self) -> None:
        super().clear()
        self.active_count = 0
        self._by_node.clear()
        self._in_play.clear()

    def _untallied(self, *args: object, **kwargs: object) -> None:
        raise TypeError("JobTable: assign or delete one job at a time (the MaxJobCount tally)")

    update = setdefault = popitem = __ior__ = _untallied   # type: ignore[assignment]

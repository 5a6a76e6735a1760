"""Each pending job's standing in its partitions, kept from one main pass to the next.

Which of a job's partitions could ever run it (with its need there), or why none could, depends
only on its request and on the pass's static inputs: the partitions as the scheduler sees them,
what every node has when empty (not what is free on it now), and whether users' sharing of
nodes counts. Working that out again for every pending job of every pass (the need lookup, the
per-shape fit table, the usable list) cost more at 50k pending jobs than the rest of the walk.
`StandingMemo` keeps each job's standing (scheduler.Standing) by job id while the job's request
object (frozen: a changed request is a new object) and those static inputs stay the same; a
pass whose static inputs differ starts afresh.

It also keeps the last pass's priority order of the queue, for a pass whose pending jobs are
the same objects. Only the main pass uses it (pass_plan.py): preemption's and will_run's trial
schedules see other partitions and nodes, and would throw the memo away each time. What a pass
does with a standing (holds, dependencies, reservations' fences, accounting limits, nodes down,
blocked partitions) is decided anew every pass; `schedule` without a memo works the same standing out per job, which
is what test_standing_memo compares against.

Entries live in two generations that turn over every `_GENERATION_PASSES` passes, as NeedMemo's:
an entry no pass used for a whole generation (the job started or ended) is dropped.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Generic, Mapping, TypeVar

from ..model.job import Job, JobId, JobRequest
from .node_fit import NodeCapacity

# What an empty node offers the static checks (scheduler._partition_reason, could_ever_fit,
# the CPU counts that spread -n over nodes): everything of NodeCapacity but what is free now,
# whether it is usable now, its weight and its users.
_STATIC_NODE = operator.attrgetter("name", "cpus", "memory_mb", "tmp_disk_mb", "features", "sockets",
                                   "cores_per_socket", "threads_per_core", "gpu_types")


@dataclass(slots=True)
class Remembered:
    """What a standing was decided for: the job's request and owner, under one static context.
    The scheduler's `Standing` adds what it decided."""

    request: JobRequest
    uid: int
    context: object


R = TypeVar("R", bound=Remembered)


class StandingMemo(Generic[R]):
    _GENERATION_PASSES = 16

    def __init__(self) -> None:
        self._current: dict[JobId, R] = {}
        self._previous: dict[JobId, R] = {}
        self.context: object = object()
        self._static: tuple[object, ...] | None = None
        self._passes = 0
        self._queue: tuple[list[Job], dict[str, int], list[Job], bool] | None = None

    def new_pass(self, partitions: Mapping[str, object], nodes: Mapping[str, NodeCapacity], by_user: bool) -> object:
        """The static context of this pass: the last pass's object when its inputs are equal, so
        standings decided then still hold; a new one (and no standings) when they differ."""
        self._passes += 1
        static = (by_user, list(partitions.items()), list(map(_STATIC_NODE, nodes.values())))
        if static != self._static:
            self._static, self.context = static, object()
            self._current, self._previous = {}, {}
        elif self._passes % self._GENERATION_PASSES == 0:
            self._previous, self._current = self._current, {}
        return self.context

    def standing(self, job: Job) -> R | None:
        """The job's standing under this pass's context, if a pass decided it already."""
        found = self._current.get(job.job_id)
        if found is None:
            found = self._previous.get(job.job_id)
            if found is None:
                return None
            self._current[job.job_id] = found
        if found.request is not job.request or found.uid != job.uid or found.context is not self.context:
            return None
        return found

    def keep(self, job_id: JobId, standing: R) -> R:
        self._current[job_id] = standing
        return standing

    def queue(self, pending: list[Job], tiers: Mapping[str, int]) -> tuple[list[Job], bool] | None:
        """The priority order and whether some job is --exclusive=user, as the last pass found
        them, when its pending jobs were these same objects in the same order under the same
        PriorityTiers (a changed job is a new object); None otherwise. Sorting and scanning 50k
        requests cost ~25 ms a pass; comparing the lists by identity ~1.5 ms."""
        last = self._queue
        if last is None or last[1] != tiers or len(last[0]) != len(pending) \
                or not all(map(operator.is_, last[0], pending)):
            return None
        return last[2], last[3]

    def keep_queue(self, pending: list[Job], tiers: Mapping[str, int], ordered: list[Job],
                   user_exclusive: bool) -> None:
        self._queue = (pending, dict(tiers), ordered, user_exclusive)

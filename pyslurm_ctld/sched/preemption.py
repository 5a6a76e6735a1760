"""Preemption decisions: which running jobs make room for which pending ones, and which
suspended jobs may run again (spec scheduling-policy.md §6).

Pure, like the scheduler it follows: the pass's pending decisions, the running jobs, the
free resources and `now` in; `Preempt` and `Resume` decisions out. The core turns them
into journaled events.

Who may preempt whom:
* preempt/partition_prio: a job of a partition with a higher PriorityTier preempts jobs of
  lower-tier partitions that share nodes with it; the victim's partition PreemptMode (else the
  global one) says what happens to it, its GraceTime how long it is warned first.
* preempt/qos: a job whose QOS lists the victim's QOS in `Preempt` (the same QOS only with
  WITHIN); the victim's QOS PreemptMode (else the global one), GraceTime, PreemptExemptTime.
  SUSPEND suspends only victims of other partitions: within one, Slurm time-slices (gang), so
  the job waits.

A pending job that waits for resources (`Resources`, or `Priority` behind one that does) looks
first at what is free and what jobs already on their way out will free; only if that is not
enough does it pick victims: preemptable jobs ordered lowest tier first, then smallest, then
youngest, added one by one until it fits, then each dropped again if it still fits without it,
so no job is preempted that the preemptor does not need. Victims younger than
PreemptExemptTime (CANCEL and REQUEUE only) are left alone. A suspended victim keeps its
memory and GPUs (Slurm's rule): only its CPUs are given to the preemptor.
"""
from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from typing import Iterable, Iterator, Mapping, Sequence

from pyslurm_common.preempt_conf import ModeSpec, PreemptConfig, PreemptMode

from . import scheduler
from ..model.associations import Qos
from ..model.events import JobPreempted, JobRequeued
from ..model.job import Allocation, Hold, Job, JobId, JobState, Reason
from .node_fit import NodeCapacity, job_need
from ..model.preempt_transitions import awaiting_requeue
from .reservation_fence import Fence

UNLIMITED = -1
_WAITING = (Reason.RESOURCES, Reason.PRIORITY)
# Pending jobs a pass looks for victims for (Slurm's quick pass looks at 100 jobs too); the next
# pass, right after the victims' events, goes on with the rest.
MAX_PREEMPTORS_PER_PASS = 100


@dataclass(frozen=True, slots=True)
class PartitionPreempt:
    """What preemption needs of one partition."""

    tier: int
    mode: ModeSpec | None = None   # None: the global PreemptMode
    grace_time: int = 0


@dataclass(frozen=True, slots=True)
class QosPreempt:
    """What preemption needs of one QOS (preempt/qos)."""

    preempt: frozenset[str] = frozenset()   # the QOS names jobs of this QOS may preempt
    mode: ModeSpec | None = None            # None: the global PreemptMode
    grace_time: int = 0
    exempt_time: int | None = None          # None: the global PreemptExemptTime


@dataclass(frozen=True, slots=True)
class Policy:
    config: PreemptConfig
    partitions: Mapping[str, PartitionPreempt]
    qos: Mapping[str, QosPreempt] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Preempt:
    """Preempt `victim` (mode CANCEL, REQUEUE or SUSPEND) so that `preemptor` can start;
    `grace` seconds of warning (SIGTERM) come first for CANCEL and REQUEUE."""

    victim: JobId
    preemptor: JobId
    mode: PreemptMode
    grace: int = 0


@dataclass(frozen=True, slots=True)
class Resume:
    job_id: JobId


class _Pool:
    """Resources per node: CPU ids, memory, GPU indices. Plain sets, copied for each trial."""

    def __init__(self, cpus: dict[str, set[int]], memory: dict[str, int], gpus: dict[str, set[int]]) -> None:
        self.cpus, self.memory, self.gpus = cpus, memory, gpus

    def subset(self, names: Iterable[str]) -> "_Pool":
        """A copy of the pool on `names` only."""
        kept = [n for n in names if n in self.cpus]
        return _Pool({n: set(self.cpus[n]) for n in kept}, {n: self.memory[n] for n in kept},
                     {n: set(self.gpus[n]) for n in kept})

    def add(self, job: Job, cpus_only: bool = False) -> None:
        alloc = job.allocation
        assert alloc is not None
        for index, node in enumerate(alloc.nodes):
            if node not in self.cpus:
                continue
            self.cpus[node].update(alloc.cpus_on(index))
            if not cpus_only:
                self.memory[node] += alloc.memory_mb_per_node[index]
                self.gpus[node].update(alloc.gpus_on(index))

    def take(self, alloc: Allocation) -> None:
        for index, node in enumerate(alloc.nodes):
            self.cpus[node].difference_update(alloc.cpus_on(index))
            self.memory[node] -= alloc.memory_mb_per_node[index]
            self.gpus[node].difference_update(alloc.gpus_on(index))

    def capacities(self, nodes: Mapping[str, NodeCapacity]) -> dict[str, NodeCapacity]:
        """The scheduler's view of the pool's nodes."""
        return {name: dataclasses.replace(nodes[name], free_cpu_ids=frozenset(self.cpus[name]),
                                          free_memory_mb=self.memory[name], free_gpus=frozenset(self.gpus[name]))
                for name in self.cpus if name in nodes}


def leaving(job: Job) -> bool:
    """Whether the job's resources are already on their way back: it is completing, or it was
    chosen as a victim and is in its grace time."""
    return job.allocation is not None and (job.completing or (job.state is JobState.RUNNING
                                                              and job.preemption is not None))


def plan(decisions: Sequence[scheduler.Decision], pending: Mapping[JobId, Job], running: Iterable[Job],
         nodes: Mapping[str, NodeCapacity], partitions: Mapping[str, scheduler.PartitionView],
         policy: Policy, now: int, fences: Mapping[JobId, Fence] | None = None) -> list[Preempt]:
    """Victims for the pending jobs of this pass that wait for resources, in the pass's order.

    `decisions` are the scheduler's for this pass (its starts have taken their resources from
    `nodes` already); `running` are the jobs holding allocations (running or completing);
    `fences`: the nodes reservations keep each job off, where it may not preempt either."""
    if not policy.config.enabled:
        return []
    held = [job for job in running if job.allocation is not None]
    pool = _Pool({n.name: set(n.free_cpu_ids) if n.usable else set() for n in nodes.values()},
                 {n.name: n.free_memory_mb if n.usable else 0 for n in nodes.values()},
                 {n.name: set(n.free_gpus) if n.usable else set() for n in nodes.values()})
    for decision in decisions:
        if isinstance(decision, scheduler.Start):
            pool.take(decision.allocation)
    for job in held:
        if leaving(job):
            pool.add(job)
    candidates = [job for job in held if job.state is JobState.RUNNING and job.preemption is None
                  and not job.completing]
    taken: set[JobId] = set()
    preempts: list[Preempt] = []
    # Who may be preempted depends on the preemptor's partition and QOS only: worked out once per pair.
    options: dict[tuple[str, str], list[tuple[Job, PreemptMode]]] = {}
    hopeless: set[tuple[object, ...]] = set()
    searched = 0
    for decision in decisions:
        if not isinstance(decision, scheduler.Pend) or decision.reason not in _WAITING:
            continue
        job = pending.get(decision.job_id)
        if job is None:
            continue
        for name in job.request.partitions or (job.request.partition,):
            part = partitions.get(name)
            if part is None:
                continue
            fence = fences.get(job.job_id) if fences else None
            if fence is not None:
                part = dataclasses.replace(part, nodes=tuple(n for n in part.nodes if n not in fence.off_limits))
            key = (part.name, job.request.qos)
            if key not in options:
                options[key] = sorted(((v, mode) for v in candidates
                                       for mode in (_victim_mode(job, part, v, policy, now),) if mode is not None),
                                      key=lambda vm: _victim_order(vm[0], partitions))
            # A shape that found no room once is not tried again in this pass (victims only get
            # fewer; what earlier victims leave over is seen by the next pass, right after).
            shape = (key, job.request.time_limit_min, job_need(job.request, part.def_mem_per_cpu_mb),
                     part.nodes if fence is not None else ())
            victims = (vm for vm in options[key] if vm[0].job_id not in taken)
            if shape in hopeless or next((vm for vm in options[key] if vm[0].job_id not in taken), None) is None:
                continue
            searched += 1
            if searched > MAX_PREEMPTORS_PER_PASS:
                return preempts
            chosen = _fit(job, part, victims, pool, nodes)
            if chosen is None:
                hopeless.add(shape)
                continue
            allocation, picked = chosen
            for victim, mode in picked:
                pool.add(victim, cpus_only=mode is PreemptMode.SUSPEND)
                taken.add(victim.job_id)
                preempts.append(Preempt(victim.job_id, job.job_id, mode, _grace(victim, mode, policy)))
            pool.take(allocation)
            break
    return preempts


def _victim_order(victim: Job, partitions: Mapping[str, scheduler.PartitionView]) -> tuple[int, int, int, int]:
    """Lowest tier first, then smallest, then youngest."""
    part = partitions.get(victim.request.partition)
    cpus = victim.allocation.total_cpus if victim.allocation else 0
    return (part.priority_tier if part else 0, cpus, -victim.start_time, -victim.job_id)


def _fit(job: Job, part: scheduler.PartitionView, victims: Iterator[tuple[Job, PreemptMode]], pool: _Pool,
         nodes: Mapping[str, NodeCapacity]) -> tuple[Allocation, list[tuple[Job, PreemptMode]]] | None:
    """Where `job` starts in `part` with the fewest of the `victims` it needs (taken in their
    order, read only as far as needed), or None if even all of them are not enough. With no victim needed (jobs on their way out free enough), the
    allocation comes with an empty list: the job waits for them, and nobody else counts on it."""
    single = dataclasses.replace(job, request=dataclasses.replace(job.request, partition=part.name, partitions=()))

    def place(with_victims: Sequence[tuple[Job, PreemptMode]]) -> Allocation | None:
        # Only nodes with a free CPU or a victim can take the job: the trial looks at those alone.
        names = {n for n, free in pool.cpus.items() if free}
        names.update(n for victim, _ in with_victims if victim.allocation for n in victim.allocation.nodes)
        trial = pool.subset(names)
        for victim, mode in with_victims:
            trial.add(victim, cpus_only=mode is PreemptMode.SUSPEND)
        view = dataclasses.replace(part, nodes=tuple(n for n in part.nodes if n in names))
        for decision in scheduler.schedule([single], trial.capacities(nodes), {part.name: view}):
            if isinstance(decision, scheduler.Start):
                return decision.allocation
        return None

    found = place(())
    if found is not None:
        return found, []
    # The shortest prefix that is enough (more victims only add resources): doubling until one
    # is, then halving back, so a job that needs few victims never tries many ...
    ordered: list[tuple[Job, PreemptMode]] = []

    def prefix(count: int) -> list[tuple[Job, PreemptMode]]:
        ordered.extend(itertools.islice(victims, count - len(ordered)))
        return ordered[:count]

    high = 1
    while place(prefix(high)) is None:
        if len(ordered) < high:    # every victim tried
            return None
        high *= 2
    high = min(high, len(ordered))
    low = high // 2 + 1
    while low < high:
        middle = (low + high) // 2
        if place(ordered[:middle]) is not None:
            high = middle
        else:
            low = middle + 1
    chosen = ordered[:low]
    # ... less any of it that turns out not to be needed.
    for victim in list(reversed(chosen)):
        rest = [c for c in chosen if c is not victim]
        if place(rest) is not None:
            chosen = rest
    allocation = place(chosen)
    assert allocation is not None
    return allocation, chosen


def _victim_mode(job: Job, part: scheduler.PartitionView, victim: Job, policy: Policy, now: int) -> PreemptMode | None:
    """What happens to `victim` if `job` (starting in `part`) preempts it; None if it may not.
    Reads only the job's QOS (and `part`), so the answer holds for every job of that pair."""
    assert victim.allocation is not None
    if not set(victim.allocation.nodes) & set(part.nodes):
        return None
    config = policy.config
    victim_part = policy.partitions.get(victim.request.partition)
    if config.preempt_type == "preempt/partition_prio":
        own = policy.partitions.get(part.name)
        if victim_part is None or own is None or victim_part.tier >= own.tier:
            return None
        spec = victim_part.mode or config.mode
        exempt = config.exempt_time
    elif config.preempt_type == "preempt/qos":
        qos = policy.qos.get(job.request.qos)
        victim_qos = policy.qos.get(victim.request.qos, QosPreempt())
        if qos is None or victim.request.qos not in qos.preempt:
            return None
        within = config.mode.within or (qos.mode is not None and qos.mode.within)
        if victim.request.qos == job.request.qos and not within:
            return None
        spec = victim_qos.mode or config.mode
        exempt = victim_qos.exempt_time if victim_qos.exempt_time is not None else config.exempt_time
        if spec.mode is PreemptMode.SUSPEND and victim.request.partition == part.name:
            # slurm.conf(5): under preempt/qos, SUSPEND within one partition is the gang
            # scheduler's time slicing, never a suspension; without OverSubscribe (pyslurm has no
            # gang scheduler) the job waits, as Slurm 22.05.8's does (Resources).
            return None
    else:
        return None
    mode = spec.mode
    if mode is PreemptMode.OFF:
        return None
    if mode is not PreemptMode.SUSPEND and exempt > 0 and now - victim.start_time < exempt:
        return None
    if mode is PreemptMode.REQUEUE and not requeueable(victim):
        return PreemptMode.CANCEL
    return mode


def qos_table(qos: Mapping[str, Qos]) -> dict[str, QosPreempt]:
    """What preempt/qos needs of accounting's QOS (PreemptMode as sacctmgr stores it, lower-case;
    `cluster` means the global PreemptMode)."""
    return {name: QosPreempt(frozenset(q.preempt), _qos_mode(q.preempt_mode), q.grace_time, q.preempt_exempt_time)
            for name, q in qos.items()}


def _qos_mode(text: str) -> ModeSpec | None:
    words = {w.strip().upper() for w in text.split(",") if w.strip()}
    if not words or words == {"CLUSTER"}:
        return None
    base = next((PreemptMode(w) for w in words if w in PreemptMode.__members__), PreemptMode.OFF)
    return ModeSpec(base, "GANG" in words, "WITHIN" in words)


def requeueable(job: Job) -> bool:
    """Batch jobs that allow it (--requeue, or JobRequeue=1 and not --no-requeue)."""
    return job.request.requeue and not job.request.interactive


def _grace(victim: Job, mode: PreemptMode, policy: Policy) -> int:
    if mode is PreemptMode.SUSPEND:
        return 0
    if policy.config.preempt_type == "preempt/qos":
        return policy.qos.get(victim.request.qos, QosPreempt()).grace_time
    part = policy.partitions.get(victim.request.partition)
    return part.grace_time if part is not None else 0


def resumable(suspended: Iterable[Job], active: Mapping[JobId, Job],
              nodes: Mapping[str, NodeCapacity]) -> list[Resume]:
    """Jobs suspended by preemption whose preemptor has ended and whose CPUs are free again
    (they kept their memory and GPUs). Suspended by an operator: only `scontrol resume`."""
    free = {n.name: set(n.free_cpu_ids) if n.usable else set() for n in nodes.values()}
    resumes = []
    for job in sorted(suspended, key=lambda j: j.job_id):
        preemption = job.preemption
        if job.state is not JobState.SUSPENDED or preemption is None or job.allocation is None:
            continue
        if preemption.preemptor in active:
            continue
        alloc = job.allocation
        wanted = [(node, set(alloc.cpus_on(i))) for i, node in enumerate(alloc.nodes)]
        if all(node in free and ids <= free[node] for node, ids in wanted):
            for node, ids in wanted:
                free[node] -= ids
            resumes.append(Resume(job.job_id))
    return resumes


def follow_ups(jobs: Iterable[Job], now: int) -> list[JobRequeued | JobPreempted]:
    """What earlier preemptions and requeues lead to now: runs ended by REQUEUE preemption or
    `scontrol requeue` whose processes are gone go back to the queue; victims whose grace time is
    over get the preemption itself."""
    events: list[JobRequeued | JobPreempted] = []
    for job in jobs:
        preemption = job.preemption
        if awaiting_requeue(job):
            events.append(JobRequeued(job.job_id, Hold.NONE, "", "", now))
        elif preemption is not None and job.state is JobState.RUNNING and now >= preemption.deadline:
            events.append(JobPreempted(job.job_id, preemption.preemptor, preemption.mode.value, now))
    return events

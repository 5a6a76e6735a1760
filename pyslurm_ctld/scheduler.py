"""The scheduling core: pending jobs + free resources + now -> decisions.

Pure: no I/O, no clock, no logging-as-control-flow. The daemon shell applies
the decisions through the job manager. Policy (this first cut, Slurm's
sched/builtin): jobs are taken in priority order (partition PriorityTier,
then job priority, submit time, job id); within a partition the first job
that cannot start for lack of resources blocks every later one (reason
`Resources` for it, `Priority` for those behind it). Jobs that cannot start
for reasons resources would not fix (hold, partition limits, a request no
node of the partition could ever satisfy) get that reason and block nothing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .job import Allocation, Hold, Job, JobId, JobRequest, Reason

UNLIMITED = -1


@dataclass(frozen=True, slots=True)
class NodeCapacity:
    name: str
    usable: bool          # registered, responding, not drained or down
    cpus: int
    memory_mb: int
    free_cpus: int
    free_memory_mb: int


@dataclass(frozen=True, slots=True)
class PartitionView:
    name: str
    nodes: tuple[str, ...]
    state: str            # UP, DOWN, DRAIN, INACTIVE
    max_time_min: int     # -1 unlimited
    max_nodes: int | None
    min_nodes: int
    priority_tier: int
    def_mem_per_cpu_mb: int = 0   # memory of jobs that ask for none (0: not tracked)


@dataclass(frozen=True, slots=True)
class Start:
    job_id: JobId
    allocation: Allocation


@dataclass(frozen=True, slots=True)
class Pend:
    job_id: JobId
    reason: Reason


Decision = Start | Pend


@dataclass(frozen=True, slots=True)
class _Need:
    nodes: int
    cpus_per_node: int
    memory_mb_per_node: int   # 0: memory not tracked for this job


def job_need(req: JobRequest, def_mem_per_cpu_mb: int) -> _Need:
    nodes = max(1, req.min_nodes)
    cpus_per_node = max(1, math.ceil(req.total_cpus / nodes))
    if req.mem_per_node_mb:
        memory = req.mem_per_node_mb
    else:
        memory = (req.mem_per_cpu_mb or def_mem_per_cpu_mb) * cpus_per_node
    return _Need(nodes=nodes, cpus_per_node=cpus_per_node, memory_mb_per_node=memory)


def _order_key(job: Job, partitions: Mapping[str, PartitionView]) -> tuple[int, int, int, int]:
    part = partitions.get(job.request.partition)
    tier = part.priority_tier if part else 0
    return (-tier, -job.priority, job.submit_time, job.job_id)


def _hold_reason(job: Job) -> Reason | None:
    if job.hold is Hold.USER:
        return Reason.HELD_USER
    if job.hold is Hold.ADMIN:
        return Reason.HELD_ADMIN
    return None


def _partition_reason(job: Job, part: PartitionView | None, need: _Need,
                      nodes: Mapping[str, NodeCapacity]) -> Reason | None:
    """A reason resources freeing up would not fix (partition state, limits, shape), or None."""
    if part is None:
        return Reason.PARTITION_CONFIG
    if part.state == "DOWN":
        return Reason.PARTITION_DOWN
    if part.state == "INACTIVE":
        return Reason.PARTITION_INACTIVE
    limit = job.request.time_limit_min
    if part.max_time_min != UNLIMITED and (limit == UNLIMITED or limit > part.max_time_min):
        return Reason.PARTITION_TIME_LIMIT
    if need.nodes > len(part.nodes) or (part.max_nodes is not None and need.nodes > part.max_nodes) \
            or need.nodes < part.min_nodes:
        return Reason.PARTITION_NODE_LIMIT
    fitting = [n for n in part.nodes if n in nodes and nodes[n].cpus >= need.cpus_per_node
               and nodes[n].memory_mb >= need.memory_mb_per_node]
    if len(fitting) < need.nodes:
        return Reason.PARTITION_CONFIG
    return None


def schedule(pending: Iterable[Job], nodes: Mapping[str, NodeCapacity],
             partitions: Mapping[str, PartitionView]) -> list[Decision]:
    free_cpus = {n.name: n.free_cpus if n.usable else 0 for n in nodes.values()}
    free_mem = {n.name: n.free_memory_mb if n.usable else 0 for n in nodes.values()}
    blocked: set[str] = set()
    decisions: list[Decision] = []
    # Whether a request could ever fit depends only on its shape: decide once per shape and pass.
    static_fit: dict[tuple[str, int, _Need], Reason | None] = {}
    for job in sorted(pending, key=lambda j: _order_key(j, partitions)):
        part = partitions.get(job.request.partition)
        need = job_need(job.request, part.def_mem_per_cpu_mb if part else 0)
        reason = _hold_reason(job)
        if reason is None:
            key = (job.request.partition, job.request.time_limit_min, need)
            if key not in static_fit:
                static_fit[key] = _partition_reason(job, part, need, nodes)
            reason = static_fit[key]
        if reason is not None:
            decisions.append(Pend(job.job_id, reason))
            continue
        assert part is not None
        if part.name in blocked:
            decisions.append(Pend(job.job_id, Reason.PRIORITY))
            continue
        chosen = _select_nodes(part.nodes, need, free_cpus, free_mem)
        if chosen is None:
            blocked.add(part.name)
            decisions.append(Pend(job.job_id, Reason.RESOURCES))
            continue
        for name in chosen:
            free_cpus[name] -= need.cpus_per_node
            free_mem[name] -= need.memory_mb_per_node
        decisions.append(Start(job.job_id, Allocation(
            nodes=tuple(chosen),
            cpus_per_node=(need.cpus_per_node,) * len(chosen),
            memory_mb_per_node=(need.memory_mb_per_node,) * len(chosen),
        )))
    return decisions


def _select_nodes(candidates: Sequence[str], need: _Need, free_cpus: Mapping[str, int],
                  free_mem: Mapping[str, int]) -> list[str] | None:
    fitting = [n for n in candidates
               if free_cpus.get(n, 0) >= need.cpus_per_node and free_mem.get(n, 0) >= need.memory_mb_per_node]
    if len(fitting) < need.nodes:
        return None
    # Best fit: the nodes with the fewest free CPUs first, keeping big holes for big jobs.
    fitting.sort(key=lambda n: (free_cpus[n], candidates.index(n)))
    return fitting[:need.nodes]


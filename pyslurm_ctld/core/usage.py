"""What is in use on each node, derived from the jobs that hold allocations (never stored, so it
cannot drift), and the scheduler's view of a node built from it. Allocations journaled before
CPU ids were tracked hold only a count: the lowest ids nobody names are charged for them.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from ..sched.node_fit import NodeCapacity, user_exclusive
from ..model.job import JobState
from .state import ClusterState


@dataclass(frozen=True, slots=True)
class NodeUsage:
    """What the jobs holding allocations use on one node."""

    cpu_ids: frozenset[int]
    memory_mb: int
    gpu_ids: frozenset[int] = frozenset()
    users: frozenset[int] = frozenset()   # uids of those jobs
    owner: int | None = None              # uid of an --exclusive=user job among them

    @property
    def cpus(self) -> int:
        return len(self.cpu_ids)


def node_usage(state: ClusterState) -> dict[str, NodeUsage]:
    """CPU ids, memory and GPU indices held on each node by running and completing jobs
    (and the memory and GPUs of suspended ones)."""
    cpu_ids: dict[str, set[int]] = {name: set() for name in state.nodes}
    gpu_ids: dict[str, set[int]] = {name: set() for name in state.nodes}
    mem = {name: 0 for name in state.nodes}
    users: dict[str, set[int]] = {name: set() for name in state.nodes}
    owners: dict[str, int] = {}
    counted_only: list[tuple[str, int]] = []
    for job in state.jobs.values():
        alloc = job.allocation
        suspended = job.state is JobState.SUSPENDED
        if alloc is None or not (job.state is JobState.RUNNING or job.completing or suspended):
            continue
        for index, node in enumerate(alloc.nodes):
            users[node].add(job.uid)
            if user_exclusive(job.request):
                owners[node] = job.uid
            mem[node] += alloc.memory_mb_per_node[index]
            gpu_ids[node].update(alloc.gpus_on(index))
            if suspended:   # a suspended job keeps its memory and GPUs, not its CPUs
                continue
            if alloc.cpu_ids:
                cpu_ids[node].update(alloc.cpus_on(index))
            else:
                counted_only.append((node, alloc.cpus_per_node[index]))
    # Allocations journaled before CPU ids were tracked hold only a count: charge it to the
    # lowest ids nobody names, so they still keep that many CPUs from new jobs.
    for node, count in counted_only:
        spare = sorted(set(range(state.nodes[node].config.cpus)) - cpu_ids[node])
        cpu_ids[node].update(spare[:count])
    return {name: NodeUsage(frozenset(cpu_ids[name]), mem[name], frozenset(gpu_ids[name]),
                            frozenset(users[name]), owners.get(name))
            for name in state.nodes}


@functools.cache
def _all_cpu_ids(cpus: int) -> frozenset[int]:
    return frozenset(range(cpus))


def node_capacity(state: ClusterState, name: str, usage: NodeUsage) -> NodeCapacity:
    """The scheduler's view of one node: what it has and which of it is free now."""
    rec = state.nodes[name]
    gpus = state.gpu_types[name]
    return NodeCapacity(
        name=name, usable=rec.usable, cpus=rec.config.cpus, memory_mb=rec.config.real_memory_mb,
        free_cpu_ids=_all_cpu_ids(rec.config.cpus) - usage.cpu_ids,
        free_memory_mb=rec.config.real_memory_mb - usage.memory_mb,
        gpu_types=gpus, free_gpus=frozenset(gpus) - usage.gpu_ids, weight=rec.config.weight,
        features=frozenset(rec.config.features), tmp_disk_mb=rec.config.tmp_disk_mb,
        sockets=rec.config.sockets, cores_per_socket=rec.config.cores_per_socket,
        threads_per_core=rec.config.threads_per_core, users=usage.users, owner=usage.owner)

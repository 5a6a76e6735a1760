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
    (and the memory and GPUs of suspended ones). Read from the job table's per-node index
    (JobTable.on_node), not by walking every job: at 50k pending jobs the walk was a tenth of a
    scheduling pass, and pending jobs hold nothing."""
    return {name: _usage_of(state, name) for name in state.nodes}


def _usage_of(state: ClusterState, name: str) -> NodeUsage:
    cpu_ids: set[int] = set()
    gpu_ids: set[int] = set()
    memory = 0
    users: set[int] = set()
    owner: int | None = None
    counted_only: list[int] = []
    for job in state.jobs.on_node(name):
        alloc = job.allocation
        suspended = job.state is JobState.SUSPENDED
        if alloc is None or not (job.state is JobState.RUNNING or job.completing or suspended) \
                or name not in alloc.nodes:    # the index also has jobs whose steps alone are here
            continue
        index = alloc.nodes.index(name)
        users.add(job.uid)
        if user_exclusive(job.request):
            owner = job.uid
        memory += alloc.memory_mb_per_node[index]
        gpu_ids.update(alloc.gpus_on(index))
        if suspended:   # a suspended job keeps its memory and GPUs, not its CPUs
            continue
        if alloc.cpu_ids:
            cpu_ids.update(alloc.cpus_on(index))
        else:
            counted_only.append(alloc.cpus_per_node[index])
    # Allocations journaled before CPU ids were tracked hold only a count: charge it to the
    # lowest ids nobody names, so they still keep that many CPUs from new jobs.
    for count in counted_only:
        spare = sorted(set(range(state.nodes[name].config.cpus)) - cpu_ids)
        cpu_ids.update(spare[:count])
    return NodeUsage(frozenset(cpu_ids), memory, frozenset(gpu_ids), frozenset(users), owner)


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

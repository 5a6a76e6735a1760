"""CoreCnt= of `scontrol create|update reservation`: which cores a core reservation holds.

As slurmctld with select/cons_tres: CoreCnt=N with Nodes= spreads N over those nodes (CoreCnt/NodeCnt
each, the first ones taking the remainder), CoreCnt=a,b,... gives each node of Nodes= its own
count; without Nodes= the cores come from the partition's nodes (PartitionName=, else the default
partition, which the reservation then names), lowest node first, as many free cores of each as it
has. A core is its node's `ThreadsPerCore` consecutive CPU ids; it is free when no running job
outside the reservation (unless IGNORE_JOBS) holds one of them past the start and no other
reservation in force then (unless either is MAINT or OVERLAP) holds it or its whole node. Too few
free cores: "Requested nodes are busy".
"""
from __future__ import annotations

from dataclasses import dataclass

from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.hostlist import HostlistError, expand
from pyslurm_common.reservation_spec import ReservationSpec

from ..model.job import JobState
from .state import ClusterState

_FOREVER = 1 << 62


@dataclass(frozen=True, slots=True)
class CorePlacement:
    nodes: tuple[str, ...]
    cpu_ids: tuple[tuple[int, ...], ...]   # per node, the CPU ids of its reserved cores
    partition: str                         # the partition the cores came from ("" for Nodes=)
    flag: str                              # SPEC_NODES for Nodes=, else none


def place_cores(state: ClusterState, spec: ReservationSpec, flags: set[str], start: int, end: int,
                name: str) -> CorePlacement:
    counts = spec.core_counts or ()
    held = _held_cpus(state, start, end, flags, name)
    if spec.nodes:
        names = listed_nodes(state, spec.nodes)
        if len(counts) == 1:
            base, extra = divmod(counts[0], len(names))
            counts = tuple(base + (i < extra) for i in range(len(names)))
        if len(counts) != len(names):
            raise SlurmError(Strerror.INVALID_CPU_COUNT)
        taken = [_free_cores(state, node, held.get(node, set()))[:count] for node, count in zip(names, counts)]
        if any(len(cores) < count for cores, count in zip(taken, counts)):
            raise SlurmError(Strerror.STEP_NODES_BUSY)
        chosen = [(node, cores) for node, cores in zip(names, taken) if cores]
        return CorePlacement(tuple(n for n, _ in chosen), tuple(_cpus(state, n, c) for n, c in chosen), "",
                             "SPEC_NODES")
    if len(counts) != 1:
        raise SlurmError(Strerror.INVALID_CPU_COUNT)   # per-node counts name no nodes
    part = state.partitions.get(spec.partition) if spec.partition else \
        next((p for p in state.partitions.values() if p.is_default), None)
    if part is None:
        raise SlurmError(Strerror.INVALID_PARTITION if spec.partition else Strerror.NO_DEFAULT_PARTITION)
    wanted, chosen = counts[0], []
    for node in part.nodes:
        if wanted <= 0:
            break
        if node not in state.nodes or not state.nodes[node].usable:
            continue
        cores = _free_cores(state, node, held.get(node, set()))[:wanted]
        if cores:
            chosen.append((node, cores))
            wanted -= len(cores)
    if wanted > 0:
        raise SlurmError(Strerror.STEP_NODES_BUSY)
    return CorePlacement(tuple(n for n, _ in chosen), tuple(_cpus(state, n, c) for n, c in chosen), part.name, "")


def listed_nodes(state: ClusterState, expression: str) -> tuple[str, ...]:
    """Nodes= as a hostlist of known nodes, or "Invalid node name specified"."""
    try:
        names = tuple(expand(expression))
    except HostlistError:
        raise SlurmError(Strerror.INVALID_NODE_NAME) from None
    if any(n not in state.nodes for n in names):
        raise SlurmError(Strerror.INVALID_NODE_NAME)
    return names


def _threads(state: ClusterState, node: str) -> int:
    return max(1, state.nodes[node].config.threads_per_core)


def _free_cores(state: ClusterState, node: str, held: set[int]) -> list[int]:
    threads = _threads(state, node)
    cores = state.nodes[node].config.cpus // threads
    return [core for core in range(cores) if not held & set(range(core * threads, (core + 1) * threads))]


def _cpus(state: ClusterState, node: str, cores: list[int]) -> tuple[int, ...]:
    threads = _threads(state, node)
    return tuple(cpu for core in cores for cpu in range(core * threads, (core + 1) * threads))


def _held_cpus(state: ClusterState, start: int, end: int, flags: set[str], name: str) -> dict[str, set[int]]:
    """CPU ids of each node that running jobs or other reservations hold during [start, end)."""
    held: dict[str, set[int]] = {}
    if "IGNORE_JOBS" not in flags:
        for job in state.jobs.values():
            if job.state is not JobState.RUNNING or job.allocation is None or job.request.reservation == name:
                continue
            limit = job.request.time_limit_min
            if (_FOREVER if limit < 0 else (job.start_time or 0) + limit * 60) <= start:
                continue
            for index, node in enumerate(job.allocation.nodes):
                held.setdefault(node, set()).update(job.allocation.cpus_on(index))
    if flags & {"MAINT", "OVERLAP"}:
        return held
    for record in state.reservations.values():
        if record.name == name or record.over(start) or {"MAINT", "OVERLAP"} & set(record.flags) \
                or not record.holds_nodes_during(start, end):
            continue
        reserved = record.reserved_cpus()
        for node in record.nodes:
            if node in state.nodes:
                held.setdefault(node, set()).update(reserved.get(node, range(state.nodes[node].config.cpus)))
    return held

"""Where a job step (srun) runs inside its job's allocation: nodes, tasks, CPUs.

Pure: the allocation, the steps running now and the request in, a placement out.
Tasks are laid out in blocks (ranks 0..k-1 on the first node, and so on), each
node's count as Slurm's block layout deals them: one per node in turn while the
node has a CPU (per task) left, so uneven nodes take uneven shares (-n3 over a
1- and a 2-CPU node: 1, 2); with -O/--overcommit, the tasks left when every CPU
has one go round the nodes again. As in Slurm 22.05, steps do not share CPUs: a
step holds every job CPU of its nodes, or with --exact (implied by -c) just
tasks x cpus-per-task of them (all of the node's, overcommitted); a step that
cannot get them now is busy and retried by srun. An --overlap step holds
nothing and never waits.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_common.job_environment import block_counts

from ..model.job import Allocation, Step


@dataclass(frozen=True, slots=True)
class StepShape:
    """What srun asked for; 0 means "not given"."""

    num_tasks: int = 0
    min_nodes: int = 0
    max_nodes: int = 0         # -N min-max: at most this many (0: min_nodes exactly, or no -N)
    cpus_per_task: int = 0
    exact: bool = False
    overlap: bool = False
    overcommit: bool = False   # -O: more tasks than CPUs
    nodelist: tuple[str, ...] = ()
    distribution: str = ""   # -m as given: which node runs which rank (task_distribution.py)


@dataclass(frozen=True, slots=True)
class Placement:
    nodes: tuple[str, ...]
    tasks_per_node: tuple[int, ...]
    cpu_ids: tuple[tuple[int, ...], ...]   # held per node; () for an --overlap step


class StepBusy(Exception):
    """Other steps hold the CPUs this one needs: srun retries."""


def place_step(alloc: Allocation, running: Iterable[Step], shape: StepShape) -> Placement:
    """Raises SlurmError when the allocation can never hold the step, StepBusy when not now."""
    per_task = max(1, shape.cpus_per_task)
    exact = shape.exact or shape.cpus_per_task > 0
    candidates = _candidate_nodes(alloc, shape)
    job_cpus = {node: alloc.cpus_on(i) or tuple(range(alloc.cpus_per_node[i]))
                for i, node in enumerate(alloc.nodes) if node in candidates}
    held = {} if shape.overlap else _held_cpus(running)
    free = {node: [c for c in ids if c not in held.get(node, ())] for node, ids in job_cpus.items()}
    capacity = {node: len(ids) // per_task for node, ids in job_cpus.items()}
    # Tasks each node could take now: a non-exact step needs the whole node to itself.
    room = {node: (len(free[node]) // per_task if exact or len(free[node]) == len(job_cpus[node]) else 0)
            for node in candidates}
    nodes, tasks = _layout(candidates, capacity, room, shape)
    if shape.overlap:
        return Placement(nodes, tasks, ())
    cpu_ids = []
    for node, count in zip(nodes, tasks):
        wanted = min(count * per_task, len(job_cpus[node])) if exact else len(job_cpus[node])
        if len(free[node]) < wanted:
            raise StepBusy(node)
        cpu_ids.append(tuple(free[node][:wanted]))
    return Placement(nodes, tasks, tuple(cpu_ids))


def _candidate_nodes(alloc: Allocation, shape: StepShape) -> list[str]:
    if not shape.nodelist:
        return list(alloc.nodes)
    outside = [n for n in shape.nodelist if n not in alloc.nodes]
    if outside:
        raise SlurmError(Strerror.BAD_NODE_CONFIG, f"node {outside[0]} is not in the job's allocation")
    return [n for n in alloc.nodes if n in shape.nodelist]   # allocation order


def _layout(candidates: list[str], capacity: dict[str, int], room: dict[str, int],
            shape: StepShape) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Nodes and tasks per node: -N nodes (the -w ones first), -n tasks dealt over them in
    blocks; without -N, or within an -N min-max range, as few nodes as hold the tasks (at least
    the minimum), preferring those with `room` now (with -O, as many as allowed when even all of
    them are short); without -n one task per node (a range: as many nodes as it allows)."""
    least = shape.min_nodes
    most = min(len(candidates), max(shape.max_nodes, least)) if shape.max_nodes else len(candidates)
    if least > len(candidates) or (shape.nodelist and least and not least <= len(candidates) <= most):
        raise SlurmError(Strerror.BAD_NODE_CONFIG)
    if shape.nodelist:
        nodes = candidates
    elif least and (not shape.max_nodes or shape.max_nodes <= least):
        nodes = candidates[:least]
    elif shape.num_tasks:
        nodes = _nodes_for_tasks(candidates, capacity, room, shape, max(1, least), most)
    else:
        nodes = candidates[:most]
    tasks_total = shape.num_tasks or len(nodes)
    if tasks_total < len(nodes):
        raise SlurmError(Strerror.BAD_NODE_CONFIG, "fewer tasks than nodes requested")
    if not shape.overcommit and (tasks_total > sum(capacity[node] for node in nodes)
                                 or any(capacity[node] == 0 for node in nodes)):
        raise SlurmError(Strerror.TOO_MANY_CPUS)
    return tuple(nodes), block_counts([capacity[node] for node in nodes], tasks_total)


def _nodes_for_tasks(candidates: list[str], capacity: dict[str, int], room: dict[str, int], shape: StepShape,
                     least: int, most: int) -> list[str]:
    """The fewest of `candidates` (least to most of them) whose CPUs hold the step's tasks."""
    within = candidates[:most]
    if sum(capacity[n] for n in within) < shape.num_tasks and shape.overcommit:
        return within[:max(least, min(most, shape.num_tasks))]
    ever = _fewest_nodes(candidates, capacity, shape.num_tasks)           # can it ever fit?
    if len(ever) > most:
        raise SlurmError(Strerror.TOO_MANY_CPUS)
    free_first = sorted(candidates, key=lambda n: room[n] == 0)          # stable: allocation order
    nodes = _fewest_nodes(free_first, room, shape.num_tasks, busy_if_short=True)
    if len(nodes) > most:
        raise StepBusy(",".join(candidates))
    return nodes + [n for n in free_first if n not in nodes][:least - len(nodes)]


def _fewest_nodes(candidates: list[str], capacity: dict[str, int], tasks: int,
                  busy_if_short: bool = False) -> list[str]:
    chosen, total = [], 0
    for node in candidates:
        if total >= tasks:
            break
        chosen.append(node)
        total += capacity[node]
    if total < tasks:
        if busy_if_short:
            raise StepBusy(",".join(candidates))
        raise SlurmError(Strerror.TOO_MANY_CPUS)
    return chosen


def _held_cpus(running: Iterable[Step]) -> dict[str, set[int]]:
    held: dict[str, set[int]] = {}
    for step in running:
        for node, ids in zip(step.nodes, step.cpu_ids):
            held.setdefault(node, set()).update(ids)
    return held

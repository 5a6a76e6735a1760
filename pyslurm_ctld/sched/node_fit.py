"""What a job needs of each node and what a node has: the vocabulary the scheduler
(scheduler.py), backfill (backfill.py) and preemption share, so none of them imports another
for it.

`NodeCapacity` is one node in a pass's snapshot (its free CPU ids, memory and GPU indices);
`Need` is what one node of a job must give it (`job_need`, memoised per version of a request by
`NeedMemo`); `could_ever_fit` says whether an empty node could hold it. Pure data.
"""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from pyslurm_common.job_environment import block_tasks_per_node

from . import features
from ..model.job import Job, JobRequest

_NO_GPUS: Mapping[str, tuple[int, ...]] = {"": ()}
_USER = "USER"   # OverSubscribe=USER, --exclusive=user
_OVER_SUBSCRIBE = operator.attrgetter("request.over_subscribe")


@dataclass(frozen=True, slots=True)
class NodeCapacity:
    name: str
    usable: bool          # registered, responding, not drained or down
    cpus: int
    memory_mb: int
    free_cpu_ids: frozenset[int]
    free_memory_mb: int
    gpu_types: Mapping[int, str] = field(default_factory=dict)   # every GPU: index -> type ("" untyped)
    free_gpus: frozenset[int] = frozenset()
    weight: int = 1       # Weight=: lower weights are allocated first
    features: frozenset[str] = frozenset()   # Features=, what --constraint asks for
    tmp_disk_mb: int = 0  # TmpDisk=, what --tmp asks for
    sockets: int = 1      # the node's topology, what -B / --sockets-per-node ... ask for
    cores_per_socket: int = 1
    threads_per_core: int = 1
    users: frozenset[int] = frozenset()   # uids of the jobs holding allocations here
    owner: int | None = None  # uid of an --exclusive=user job here: no other user's job may join
    _gpus_by_type: Mapping[str, tuple[int, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Derived once per snapshot: the static-fit check asks it for every pending job.
        if not self.gpu_types:
            object.__setattr__(self, "_gpus_by_type", _NO_GPUS)
            return
        ordered = sorted(self.gpu_types)
        by_type: dict[str, tuple[int, ...]] = {
            kind: tuple(i for i in ordered if self.gpu_types[i] == kind) for kind in set(self.gpu_types.values())}
        by_type[""] = tuple(ordered)      # a request without a type takes any GPU
        object.__setattr__(self, "_gpus_by_type", by_type)

    @property
    def free_cpus(self) -> int:
        return len(self.free_cpu_ids)

    def gpus_of_type(self, gpu_type: str) -> tuple[int, ...]:
        """Indices of this node's GPUs a request for `gpu_type` ("" any) may use, ascending."""
        return self._gpus_by_type.get(gpu_type, ())


@dataclass(frozen=True, slots=True)
class Need:
    nodes: int
    cpus_per_node: int
    memory_mb_per_node: int   # 0: memory not tracked for this job
    gpus_per_node: int = 0
    gpu_type: str = ""        # "" any
    required: tuple[str, ...] = ()   # -w: nodes the allocation must have
    excluded: tuple[str, ...] = ()   # -x: nodes it may not have
    constraint: features.Constraint = ()   # --constraint: what each node must have
    exclusive: bool = False   # whole nodes: every CPU and GPU of an idle node (memory as asked)
    tmp_disk_mb: int = 0      # --tmp: the node's TmpDisk must be at least this
    topology: tuple[int, int, int] = (0, 0, 0)   # -B S:C:T: the node's least sockets, cores, threads
    contiguous: bool = False  # --contiguous: consecutive nodes of the partition
    preferred: features.Constraint = ()   # --prefer: nodes with these first
    # Whose job it is, set only while some job of the pass shares by user (--exclusive=user):
    # None leaves every node's users out of the fit, and keeps needs shared across users.
    user: int | None = None
    user_exclusive: bool = False   # --exclusive=user: nodes no other user's job holds, and keeps them so
    # -n over several nodes, unevenly: the CPUs each node of the allocation takes, in its order,
    # as the tasks spread in blocks (3 tasks on 2 nodes: 2, 1); () every node takes cpus_per_node.
    cpus_by_node: tuple[int, ...] = ()

    def cpus_at(self, index: int) -> int:
        """The CPUs the `index`-th node of an allocation for this need takes."""
        return self.cpus_by_node[index] if self.cpus_by_node else self.cpus_per_node

    @property
    def least_cpus(self) -> int:
        """The fewest CPUs a node of the allocation takes (its smallest share)."""
        return min(self.cpus_by_node, default=self.cpus_per_node)

    def shares_fit(self, node_cpus: Iterable[int]) -> bool:
        """Whether nodes with these CPUs can each take a share: the largest shares on the largest."""
        largest = sorted(node_cpus, reverse=True)[:self.nodes]
        shares = sorted(self.cpus_by_node or (self.cpus_per_node,) * self.nodes, reverse=True)
        return len(largest) == len(shares) and all(cpus >= share for cpus, share in zip(largest, shares))

    def candidates(self, nodes: Sequence[str]) -> list[str]:
        return [n for n in nodes if n not in self.excluded]

    @property
    def tres(self) -> dict[str, int]:
        """What an allocation for this need holds, in accounting's TRES names."""
        cpus = sum(self.cpus_by_node) if self.cpus_by_node else self.cpus_per_node * self.nodes
        return {"cpu": cpus, "mem": self.memory_mb_per_node * self.nodes,
                "node": self.nodes, "gres/gpu": self.gpus_per_node * self.nodes}


def spread_node_count(req: JobRequest, node_cpus: Iterable[int]) -> int:
    """The job's node count where nodes have these CPUs: -N's; for -n without -N (Slurm's node
    range 1 to unbounded), the fewest nodes that hold the tasks spread evenly in blocks, within
    --ntasks-per-node (cons_tres picks the fewest nodes). When no count holds them, the least one,
    which admission then refuses as Slurm does (BAD_NODE_CONFIG)."""
    least = max(1, req.min_nodes)
    if req.node_count_given or not req.ntasks_given or req.overcommit:
        return least
    largest_first = sorted(node_cpus, reverse=True)
    per_task = max(1, req.cpus_per_task)
    for nodes in range(least, min(len(largest_first), req.num_tasks) + 1):
        tasks_per_node = math.ceil(req.num_tasks / nodes)
        if largest_first[nodes - 1] >= tasks_per_node * per_task \
                and (not req.ntasks_per_node or tasks_per_node <= req.ntasks_per_node):
            return nodes
    return least


def job_need(req: JobRequest, def_mem_per_cpu_mb: int, exclusive: bool = False, user: int | None = None,
             nodes: int = 0) -> Need:
    """What one node of the job needs; `exclusive`: the partition gives whole nodes; `user`: the
    job's uid where users' sharing of nodes counts (`Need.user`); `nodes`: the node count
    spread_node_count chose (0: -N's)."""
    nodes = nodes or max(1, req.min_nodes)
    cpus_per_node = max(1, math.ceil(req.total_cpus / nodes))
    cpus_by_node: tuple[int, ...] = ()
    if nodes > 1 and req.ntasks_given and (nodes > max(1, req.min_nodes) or req.num_tasks % nodes):
        # -n over several nodes (the spread's, or -N's when the tasks do not divide): each node
        # takes its tasks' CPUs (-N2 -n3: 2 and 1), not the largest share of each
        cpus_by_node = tuple(tasks * max(1, req.cpus_per_task)
                             for tasks in block_tasks_per_node(nodes, req.num_tasks, req.ntasks_given))
    if req.overcommit:   # -O: as if one task per node
        cpus_per_node = max(1, req.cpus_per_task)
    cpus_per_node = max(cpus_per_node, req.min_cpus_per_node)
    if req.cpus_per_gpu and req.gpus_per_node:
        cpus_per_node = max(cpus_per_node, req.cpus_per_gpu * req.gpus_per_node)
    if req.mem_per_node_mb:
        memory = req.mem_per_node_mb
    elif req.mem_per_gpu_mb and req.gpus_per_node:
        memory = req.mem_per_gpu_mb * req.gpus_per_node
    else:
        memory = (req.mem_per_cpu_mb or def_mem_per_cpu_mb) * cpus_per_node
    return Need(nodes=nodes, cpus_per_node=cpus_per_node, memory_mb_per_node=memory,
                 gpus_per_node=req.gpus_per_node, gpu_type=req.gpu_type if req.gpus_per_node else "",
                 required=req.required_nodes, excluded=req.excluded_nodes,
                 constraint=features.parse(req.features), exclusive=exclusive or whole_nodes(req),
                 tmp_disk_mb=req.tmp_disk_mb,
                 topology=(req.sockets_per_node, req.cores_per_socket, req.threads_per_core),
                 contiguous=req.contiguous and nodes > 1, preferred=features.parse(req.prefer),
                 user=user, user_exclusive=user_exclusive(req),
                 cpus_by_node=cpus_by_node if cpus_per_node == max(cpus_by_node, default=0) else ())


def whole_nodes(req: JobRequest) -> bool:
    """--exclusive (or =mcs, which without an MCS plugin keeps whole nodes): every CPU and GPU of
    its nodes. --exclusive=user is not: Slurm gives it what it asks and keeps other users away."""
    return req.exclusive and not user_exclusive(req)


def user_exclusive(req: JobRequest) -> bool:
    """--exclusive=user (OverSubscribe=USER): it shares nodes with its user's jobs only."""
    return req.over_subscribe == _USER


def any_user_exclusive(jobs: Iterable[Job]) -> bool:
    """Whether any of the jobs is user_exclusive: scanned in C (map with attrgetter), as the pass
    asks it of every pending job (a Python call per job was ~10 ms at 50k)."""
    return _USER in map(_OVER_SUBSCRIBE, jobs)


def shares_with(user: int, exclusive: bool, other_user: int, other_exclusive: bool) -> bool:
    """Whether a job of `user` may hold a node beside a job of `other_user` (`exclusive`:
    --exclusive=user), as Slurm's node owner filter: different users meet unless either is
    user-exclusive."""
    return user == other_user or not (exclusive or other_exclusive)


def user_allows(owner: int | None, users: frozenset[int], need: Need) -> bool:
    """A node with these users (and this --exclusive=user `owner`) lets `need`'s job on: no other
    user's user-exclusive job owns it, and a user-exclusive job finds no other user there."""
    if need.user is None:
        return True
    if owner is not None and owner != need.user:
        return False
    return not need.user_exclusive or users <= {need.user}


def has_topology(node: NodeCapacity, need: Need) -> bool:
    """The node's sockets, cores per socket and threads per core are at least what -B asks."""
    sockets, cores, threads = need.topology
    return node.sockets >= sockets and node.cores_per_socket >= cores and node.threads_per_core >= threads


class NeedMemo:
    """Each job's need per partition, computed once per version of its request instead of once
    per pass (at 50k pending jobs, job_need and hashing the needs were half of the pass).

    Keyed by the request's identity (and the partition, when it is not the request's own): a
    JobRequest is frozen, so a job whose request changes has a new one. Each entry holds its
    request, so its id cannot be reused while the entry lives. Entries live in two generations
    that turn over every `_GENERATION_PASSES` passes: a lookup that hits the current one costs
    one dict read (a turnover every pass cost a miss and a store per job, ~15 ms at 50k), and an
    entry no pass used for a whole generation is dropped. Equal needs are one shared object, so
    the pass's per-shape tables can key on identity."""

    _MAX_SHAPES = 4096   # distinct shapes remembered; past it they start afresh (only a cost)
    _GENERATION_PASSES = 16

    def __init__(self) -> None:
        self._current: dict[object, tuple[JobRequest, int, bool, int | None, Need, int]] = {}
        self._previous: dict[object, tuple[JobRequest, int, bool, int | None, Need, int]] = {}
        self._shapes: dict[Need, Need] = {}
        self._passes = 0

    def new_pass(self) -> None:
        self._passes += 1
        if self._passes % self._GENERATION_PASSES == 0:
            self._previous, self._current = self._current, {}
        if len(self._shapes) > self._MAX_SHAPES:
            self._shapes = {}

    def need(self, req: JobRequest, partition: str, def_mem_per_cpu_mb: int, exclusive: bool,
             user: int | None = None, nodes: int = 0) -> Need:
        key = id(req) if partition == req.partition else (id(req), partition)
        entry = self._current.get(key)
        if entry is None:
            entry = self._previous.get(key)
            if entry is not None:
                self._current[key] = entry
        if entry is None or entry[0] is not req or entry[1] != def_mem_per_cpu_mb or entry[2] is not exclusive \
                or entry[3] != user or entry[5] != nodes:
            need = job_need(req, def_mem_per_cpu_mb, exclusive, user, nodes)
            entry = self._current[key] = (req, def_mem_per_cpu_mb, exclusive, user, self._shapes.setdefault(need, need),
                                          nodes)
        return entry[4]


def could_ever_fit(node: NodeCapacity, need: Need) -> bool:
    """Whether the node, empty, has what one node of the request needs (its smallest CPU share:
    Need.shares_fit says whether the nodes together hold them all)."""
    if node.cpus < need.least_cpus or node.memory_mb < need.memory_mb_per_node \
            or node.tmp_disk_mb < need.tmp_disk_mb or not features.satisfied(need.constraint, node.features) \
            or not has_topology(node, need):
        return False
    return not need.gpus_per_node or len(node.gpus_of_type(need.gpu_type)) >= need.gpus_per_node

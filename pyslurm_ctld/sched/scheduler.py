"""The scheduling core: pending jobs + free resources + now -> decisions.

Pure: no I/O, no clock, no logging-as-control-flow. The daemon shell applies
the decisions through the core. Policy (this first cut, Slurm's
sched/builtin): jobs are taken in priority order (partition PriorityTier,
then job priority, submit time, job id); within a partition the first job
that cannot start for lack of resources blocks every later one (reason
`Resources` for it, `Priority` for those behind it). Jobs that cannot start
for reasons resources would not fix (hold, partition limits, a request no
node of the partition could ever satisfy) get that reason and block nothing.

Resources are specific: each node comes with the ids of its free CPUs and the global indices
of its free GPUs (with their types), and a start names the ones it takes: the lowest free CPU
ids, the lowest free GPU indices of the requested type. GPUs count like CPUs: a job that
waits for busy GPUs is `Resources` and blocks its partition.

A job array is one pending record (its master) however many tasks it has: the pass starts
its tasks lowest index first, as many as fit and as its `%N` throttle allows (given the
tasks already running, `array_running`), so an array costs one entry in the queue plus one
node selection per task that actually starts. Throttled tasks pend with JobArrayTaskLimit,
which blocks nothing.

Accounting limits (QOS, associations) are a `LimitGate` passed in (limits.py): a job over a
limit pends with the limit's reason and blocks nothing; each start is reported to the gate, so
a job started earlier in the pass counts toward the limits of the later ones (also between
tasks of one array).

With backfill (backfill.py), every job the rules above leave pending for Resources or Priority
is then placed in time, in the same priority walk: it starts now if that delays no job ahead of
it, else it is reserved at its earliest start (the Pend carries that `Reservation`), and what a
reservation holds leaves the "free now" view of the jobs behind it.
"""
from __future__ import annotations

import dataclasses
import operator
from dataclasses import dataclass
from typing import Iterable, Mapping, Protocol, Sequence

from . import features
from .backfill import Backfill, Reservation
from ..model.job import Allocation, Hold, Job, JobId, Reason
from .node_fit import (Need, NeedMemo, NodeCapacity, any_user_exclusive, could_ever_fit, has_topology,
                       spread_node_count, user_allows)
from .reservation_fence import Fence
from .standing_memo import Remembered, StandingMemo

UNLIMITED = -1
_UNDECIDED = object()   # a shape whose static fit this pass has not looked at yet


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
    exclusive: bool = False       # OverSubscribe=EXCLUSIVE: every job gets whole nodes


@dataclass(frozen=True, slots=True)
class Start:
    job_id: JobId
    allocation: Allocation
    array_task_id: int | None = None   # the index of the array task that starts (job_id is the master)
    partition: str | None = None       # where it starts, for a job submitted to several partitions
    time_limit_min: int = 0            # --time-min: the shortened limit it starts with (0: its own)


# Not frozen: a frozen dataclass's generated __init__ costs about 3x (one object.__setattr__ per
# field), and a pass at 50k pending jobs builds one Pend each (~40 ms of a 200 ms budget). Pends
# are built here and only read after.
@dataclass(slots=True)
class Pend:
    job_id: JobId
    reason: Reason
    expected: Reservation | None = None   # when and where backfill expects it to start


Decision = Start | Pend


@dataclass(slots=True)
class Standing(Remembered):
    """A job's standing in its partitions (standing_memo.py): those that could ever run it, with its
    need in each, and why one could not (the first found; None: all could). What a pass decides
    of the standing alone, it decides with the same Pend each time: building one per pending job
    was a tenth of the pass at 50k."""

    usable: tuple[tuple[str, Need], ...]
    names: frozenset[str]                 # the usable partitions' names
    reason: Reason | None
    pinned: bool                          # -w nodes: whether they are usable now is the pass's to see
    priority: Pend | None = None          # every usable partition blocked by a job ahead
    unusable: Pend | None = None          # no partition could ever run it


class LimitGate(Protocol):
    """Accounting limits of one pass (limits.LimitGate)."""

    def blocked(self, job: Job, partition: str, tres: Mapping[str, int]) -> Reason | None:
        """Why the job may not start in the partition with these TRES now, or None."""

    def started(self, job: Job, partition: str, tres: Mapping[str, int]) -> None:
        """A start decided in this pass: it counts from now on."""


_needs = NeedMemo()


def _hold_reason(job: Job) -> Reason | None:
    if job.hold is Hold.USER:
        return Reason.HELD_USER
    if job.hold is Hold.ADMIN:
        return Reason.HELD_ADMIN
    return None


def _partition_reason(job: Job, part: PartitionView | None, need: Need,
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
    if not set(need.required) <= set(part.nodes):
        return Reason.PARTITION_CONFIG
    if any(name in nodes and not could_ever_fit(nodes[name], need) for name in need.required):
        return Reason.PARTITION_CONFIG
    fitting = 0
    for name in need.candidates(part.nodes):
        if name in nodes and could_ever_fit(nodes[name], need):
            fitting += 1
            if fitting == need.nodes and not need.cpus_by_node:
                return None
    if need.cpus_by_node and fitting >= need.nodes and need.shares_fit(
            nodes[n].cpus for n in need.candidates(part.nodes) if n in nodes and could_ever_fit(nodes[n], need)):
        return None
    return Reason.PARTITION_CONFIG


class _Free:
    """What is still free during one pass; starts decided earlier in the pass take from it."""

    def __init__(self, nodes: Mapping[str, NodeCapacity]) -> None:
        self.nodes = nodes
        # Frozen sets, replaced (not mutated) when a start takes from a node: no copy per node per pass.
        nothing: frozenset[int] = frozenset()
        self.cpus = {n.name: n.free_cpu_ids if n.usable else nothing for n in nodes.values()}
        self.memory = {n.name: n.free_memory_mb if n.usable else 0 for n in nodes.values()}
        self.gpus = {n.name: n.free_gpus if n.usable else nothing for n in nodes.values()}
        self.weights = {n.name: n.weight for n in nodes.values()}
        # Who holds each node, for --exclusive=user (read only for needs that carry a user).
        self.users = {n.name: n.users for n in nodes.values()}
        self.owners = {n.name: n.owner for n in nodes.values()}

    def gpus_for(self, name: str, need: Need) -> list[int]:
        """Free GPUs of `name` of the requested type, lowest index first."""
        node = self.nodes.get(name)
        if node is None:
            return []
        free = self.gpus[name]
        return [i for i in node.gpus_of_type(need.gpu_type) if i in free]

    def fits(self, name: str, need: Need, cpus: int | None = None) -> bool:
        """Whether the node has what one node of `need` takes now (`cpus` CPUs: a spread need's
        last nodes take fewer than cpus_per_node)."""
        cpus = need.cpus_per_node if cpus is None else cpus
        if len(self.cpus.get(name, ())) < cpus or self.memory.get(name, 0) < need.memory_mb_per_node:
            return False
        if need.constraint and not features.satisfied(need.constraint, self.nodes[name].features):
            return False
        if self.nodes[name].tmp_disk_mb < need.tmp_disk_mb or not has_topology(self.nodes[name], need):
            return False
        if need.exclusive and not self._idle(name):
            return False
        if not user_allows(self.owners[name], self.users[name], need):
            return False
        return not need.gpus_per_node or len(self.gpus_for(name, need)) >= need.gpus_per_node

    def _idle(self, name: str) -> bool:
        node = self.nodes[name]
        return len(self.cpus[name]) == node.cpus and len(self.gpus[name]) == len(node.gpu_types)

    def take(self, name: str, need: Need, cpus: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Claim the lowest `cpus` free CPU ids and the GPU indices one node of the request needs
        (all of them for an exclusive job)."""
        if need.exclusive:
            cpu_ids, gpu_ids = tuple(sorted(self.cpus[name])), tuple(sorted(self.gpus[name]))
        else:
            cpu_ids = tuple(sorted(self.cpus[name])[:cpus])
            gpu_ids = tuple(self.gpus_for(name, need)[:need.gpus_per_node]) if need.gpus_per_node else ()
        self.cpus[name] = self.cpus[name].difference(cpu_ids)
        if gpu_ids:
            self.gpus[name] = self.gpus[name].difference(gpu_ids)
        self.memory[name] -= need.memory_mb_per_node
        self._hold_for_user(name, need)
        return cpu_ids, gpu_ids

    def mask(self, cpus_off: Mapping[str, frozenset[int]]) -> dict[str, frozenset[int]]:
        """Keep these CPU ids off for one job (a core reservation's fence); what was free of
        them, for `unmask` to give back once the job is placed."""
        masked = {name: self.cpus[name] & ids for name, ids in cpus_off.items() if name in self.cpus}
        for name, ids in masked.items():
            self.cpus[name] = self.cpus[name] - ids
        return masked

    def unmask(self, masked: Mapping[str, frozenset[int]]) -> None:
        for name, ids in masked.items():
            self.cpus[name] = self.cpus[name] | ids

    def claim(self, allocation: Allocation, need: Need) -> None:
        """Withdraw what backfill started or reserved (a reservation's ids may be busy now: then
        nothing changes for them; its memory, and its user's hold for --exclusive=user, are
        withheld now all the same, which is safe)."""
        for index, name in enumerate(allocation.nodes):
            self.cpus[name] = self.cpus[name].difference(allocation.cpus_on(index))
            self.gpus[name] = self.gpus[name].difference(allocation.gpus_on(index))
            self.memory[name] -= allocation.memory_mb_per_node[index]
            self._hold_for_user(name, need)

    def _hold_for_user(self, name: str, need: Need) -> None:
        if need.user is not None:
            self.users[name] = self.users[name] | {need.user}
            if need.user_exclusive:
                self.owners[name] = need.user


def schedule(pending: Iterable[Job], nodes: Mapping[str, NodeCapacity],
             partitions: Mapping[str, PartitionView],
             array_running: Mapping[JobId, int] | None = None,
             ineligible: Mapping[JobId, Reason] | None = None,
             eligible_tasks: Mapping[JobId, Sequence[int]] | None = None,
             limits: LimitGate | None = None,
             backfill: Backfill | None = None,
             fences: Mapping[JobId, Fence] | None = None,
             standings: StandingMemo[Standing] | None = None) -> list[Decision]:
    """Decisions for one pass. `array_running` counts the running tasks of each array (by array
    id); `ineligible` names jobs that may not start yet whatever the resources, with the reason
    (begin time, dependency): like held jobs, they pend and block nothing. `eligible_tasks`
    narrows an array's pending indices to those that may start (aftercorr). `limits`: the
    accounting limits, None when none are enforced. `backfill`, the pass's time map, places
    the jobs left waiting for resources. `fences`: the nodes reservations keep each job off
    (reservation_fence.py); a job they leave too few nodes pends with the fence's reason.
    `standings`: the main pass's memo of each job's standing in its partitions (standing_memo.py),
    None to work every standing out afresh."""
    running = array_running or {}
    waiting = ineligible or {}
    allowed = eligible_tasks or {}
    free = _Free(nodes)
    pending = list(pending)
    # Users count for node sharing only while some job shares by user (--exclusive=user): running
    # (a node has an owner) or pending; otherwise needs stay free of users, shared across them.
    tiers = {name: part.priority_tier for name, part in partitions.items()}
    queue = standings.queue(pending, tiers) if standings is not None else None
    if queue is None:
        queue = _priority_order(pending, tiers), any_user_exclusive(pending)
        if standings is not None:
            standings.keep_queue(pending, tiers, *queue)
    ordered, user_exclusive = queue
    by_user = any(n.owner is not None for n in nodes.values()) or user_exclusive
    blocked: set[str] = set()
    decisions: list[Decision] = []
    # Whether a request could ever fit depends only on its shape: decide once per shape and pass
    # (the memo gives equal shapes one object, alive through the pass, so its id is the key).
    static_fit: dict[tuple[str, int, int], Reason | None | object] = {}
    _needs.new_pass()
    node_cpus: dict[str, list[int]] = {}   # each partition's nodes' CPUs, for -n without -N
    context = standings.new_pass(partitions, nodes, by_user) if standings is not None else None
    no_hold = Hold.NONE   # bound once: the loop below runs once per pending job
    for job in ordered:
        reason = _hold_reason(job) if job.hold is not no_hold else waiting.get(job.job_id) if waiting else None
        if reason is not None:
            decisions.append(Pend(job.job_id, reason))
            continue
        request = job.request
        fence = fences.get(job.job_id) if fences else None
        standing = standings.standing(job) if standings is not None and fence is None else None
        usable: list[tuple[PartitionView, Need]] | None = None
        if standing is None:
            usable, reason = _usable(job, partitions, nodes, fence, by_user, static_fit, node_cpus)
            if standings is not None and fence is None:
                standing = standings.keep(job.job_id, Standing(
                    request, job.uid, context, tuple((p.name, n) for p, n in usable), frozenset(p.name for p, _ in usable),
                    reason, bool(request.required_nodes)))
        if standing is not None and limits is None:
            # The common case at scale, decided by the standing alone: no partition could ever run
            # the job, or every one that could is blocked by a job ahead of it and backfill will
            # not place it (none, or past bf_max_job_test; an array's tasks would pend for their
            # throttle first then, so they take the walk below).
            if not standing.usable:
                if standing.unusable is None:
                    standing.unusable = Pend(job.job_id, standing.reason or Reason.PARTITION_CONFIG)
                decisions.append(standing.unusable)
                continue
            if standing.names <= blocked and not standing.pinned \
                    and (backfill is None or (backfill.tested >= backfill.policy.max_job_test and job.array is None)):
                if standing.priority is None:
                    standing.priority = Pend(job.job_id, Reason.PRIORITY)
                decisions.append(standing.priority)
                continue
        if usable is None:
            assert standing is not None
            usable, reason = [(partitions[name], need) for name, need in standing.usable], standing.reason
        # A job submitted to several partitions (-p a,b) runs in whichever can start it first.
        names = request.partitions or (request.partition,)
        if limits is not None:
            usable, reason = _within_limits(job, usable, limits, reason)
        if not usable:
            expected = None
            if fence is not None and reason in _RESERVED and backfill is not None \
                    and backfill.tested < backfill.policy.max_job_test:
                expected = _around_reservations(job, partitions, nodes, by_user, static_fit, node_cpus, backfill, free)
            decisions.append(Pend(job.job_id, reason or Reason.PARTITION_CONFIG, expected))
            continue
        if request.required_nodes and any(not nodes[name].usable for name in request.required_nodes if name in nodes):
            # A -w node that is down or drained: waiting for it blocks nobody else (§2.2).
            decisions.append(Pend(job.job_id, Reason.REQ_NODE_NOT_AVAIL))
            continue
        if backfill is None and blocked and _all_blocked(usable, blocked):   # the common case behind a blocked job
            decisions.append(Pend(job.job_id, Reason.PRIORITY))
            continue
        tasks, rest_reason = _startable_tasks(job, running, allowed.get(job.job_id))
        if not tasks:
            decisions.append(Pend(job.job_id, rest_reason or Reason.ARRAY_TASK_LIMIT))
            continue
        waits_for: Reason | None = None
        masked = free.mask(fence.cpus_off) if fence is not None and fence.cpus_off else {}
        for part, need in usable:
            if part.name in blocked:
                waits_for = waits_for or Reason.PRIORITY
                continue
            started = 0
            over_limit: Reason | None = None
            for task in tasks:
                if started and limits is not None:    # the array's tasks started so far count
                    over_limit = limits.blocked(job, part.name, need.tres)
                    if over_limit is not None:
                        break
                allocation = _allocate(part.nodes, need, free)
                if allocation is None:
                    break
                decisions.append(Start(job.job_id, allocation, task, part.name if len(names) > 1 else None))
                if limits is not None:
                    limits.started(job, part.name, need.tres)
                if backfill is not None:
                    backfill.book(job.job_id, allocation, backfill.now,
                                  backfill.end_of(backfill.now, job.request.time_limit_min), need)
                started += 1
            tasks = tasks[started:]
            if not tasks:
                break
            if over_limit is not None:
                waits_for = over_limit
                break
            blocked.add(part.name)
            waits_for = Reason.RESOURCES
        expected: Reservation | None = None
        if tasks and backfill is not None and backfill.tested < backfill.policy.max_job_test \
                and waits_for in (None, Reason.RESOURCES, Reason.PRIORITY):
            tasks, expected = _backfill(job, tasks, usable, backfill, free, decisions, len(names) > 1, limits,
                                        fence.cpus_off if fence is not None else {})
        free.unmask(masked)
        if tasks:
            reason = waits_for or Reason.RESOURCES
            if reason is Reason.RESOURCES and not any(nodes[name].usable for part, _ in usable
                                                      for name in part.nodes if name in nodes):
                reason = Reason.NODES_UNAVAILABLE   # not a matter of resources: none of its nodes is up
            decisions.append(Pend(job.job_id, reason, expected))
        elif rest_reason is not None:
            decisions.append(Pend(job.job_id, rest_reason))
    return decisions


def _usable(job: Job, partitions: Mapping[str, PartitionView], nodes: Mapping[str, NodeCapacity],
            fence: Fence | None, by_user: bool, static_fit: dict[tuple[str, int, int], Reason | None | object],
            node_cpus: dict[str, list[int]]) -> tuple[list[tuple[PartitionView, Need]], Reason | None]:
    """The job's standing in its partitions: those that could ever run it (under its fence, if
    any), with its need in each, and the reason of the first that could not (None: all could)."""
    request = job.request
    usable: list[tuple[PartitionView, Need]] = []
    reason: Reason | None = None
    for name in request.partitions or (request.partition,):
        part = partitions.get(name)
        # -n without -N only: no call per job for the others
        spread = _node_count(job, part, nodes, node_cpus) if request.ntasks_given else 0
        need = _needs.need(request, name, part.def_mem_per_cpu_mb if part else 0, part is not None and part.exclusive,
                           job.uid if by_user else None, spread)
        key = (name, request.time_limit_min, id(need))
        static = static_fit.get(key, _UNDECIDED)
        if static is _UNDECIDED:
            static = static_fit[key] = _partition_reason(job, part, need, nodes)
        if static is None and fence is not None:
            part, static = _fenced(part, need, fence, nodes)
        if static is None:
            assert part is not None
            usable.append((part, need))
        elif reason is None:
            reason = static   # type: ignore[assignment]
    return usable, reason


def _node_count(job: Job, part: PartitionView | None, nodes: Mapping[str, NodeCapacity],
                node_cpus: dict[str, list[int]]) -> int:
    """The job's node count in the partition (0: -N's): for -n without -N, the fewest of the
    partition's nodes, as configured, that hold its tasks."""
    req = job.request
    if req.node_count_given or not req.ntasks_given or part is None:
        return 0
    if part.name not in node_cpus:
        node_cpus[part.name] = [nodes[n].cpus for n in part.nodes if n in nodes]
    return spread_node_count(req, node_cpus[part.name])


def _priority_order(pending: Iterable[Job], tiers: Mapping[str, int]) -> list[Job]:
    """The jobs by their partition's PriorityTier (`tiers`), then priority (both highest first),
    submit time, job id. Sorted in stable passes with C-level keys, lowest-order key first: a
    Python key function per job costs ~15 ms at 50k pending; the tier pass runs only when the
    tiers differ."""
    ordered = sorted(pending, key=_BY_SUBMIT_THEN_ID)
    ordered.sort(key=_BY_PRIORITY, reverse=True)   # reverse=True keeps equal keys in their order
    if len(set(tiers.values())) > 1 or any(job.request.partition not in tiers for job in ordered):
        ordered.sort(key=lambda j: tiers.get(j.request.partition, 0), reverse=True)
    return ordered


_BY_SUBMIT_THEN_ID = operator.attrgetter("submit_time", "job_id")
_BY_PRIORITY = operator.attrgetter("priority")


def _all_blocked(usable: list[tuple[PartitionView, Need]], blocked: set[str]) -> bool:
    for part, _ in usable:
        if part.name not in blocked:
            return False
    return True


def _fenced(part: PartitionView | None, need: Need, fence: Fence,
            nodes: Mapping[str, NodeCapacity]) -> tuple[PartitionView | None, Reason | None]:
    """The partition as the job may use it under its fence, or the fence's reason when what is
    left could never hold the job (a -w node fenced off counts as too few)."""
    assert part is not None
    if set(need.required) & fence.off_limits:
        return part, fence.reason
    left = tuple(n for n in part.nodes if n not in fence.off_limits)
    fitting = sum(1 for n in need.candidates(left) if n in nodes and could_ever_fit(nodes[n], need))
    if fitting < need.nodes:
        return part, fence.reason
    return dataclasses.replace(part, nodes=left), None


def _within_limits(job: Job, usable: list[tuple[PartitionView, Need]], limits: LimitGate,
                   reason: Reason | None) -> tuple[list[tuple[PartitionView, Need]], Reason | None]:
    """The partitions where the job is within its accounting limits, and the reason to give if
    there are none (the first limit found, unless another reason came first)."""
    within = []
    for part, need in usable:
        over = limits.blocked(job, part.name, need.tres)
        if over is None:
            within.append((part, need))
        elif reason is None:
            reason = over
    return within, reason


_RESERVED = (Reason.RESERVED_MAINT, Reason.RESERVED_OTHER)


def _around_reservations(job: Job, partitions: Mapping[str, PartitionView], nodes: Mapping[str, NodeCapacity],
                         by_user: bool, static_fit: dict[tuple[str, int, int], Reason | None | object],
                         node_cpus: dict[str, list[int]], backfill: Backfill, free: _Free) -> Reservation | None:
    """When a job that reservations to come keep off their nodes may start: backfill's earliest
    place for it around them (they are booked in its map), reserved there so later jobs queue behind
    it, as Slurm's backfill gives such a job a StartTime (squeue --start) while it pends for the
    reservation. Nothing is claimed now: it cannot start before the reservation anyway."""
    usable, _ = _usable(job, partitions, nodes, None, by_user, static_fit, node_cpus)
    if not usable:
        return None
    backfill.tested += 1
    limit = job.request.time_limit_min
    placed = backfill.place([(part.name, part.nodes, need) for part, need in usable], limit, free.weights)
    if placed is None or placed[1] <= backfill.now:
        return None
    partition, start, allocation = placed
    end = backfill.end_of(start, limit)
    need = next(need for part, need in usable if part.name == partition)
    reservation = Reservation(start, end, allocation, partition, backfill.holders(allocation, start))
    backfill.book(job.job_id, allocation, start, end, need)
    return reservation


def _backfill(job: Job, tasks: Sequence[int | None], usable: list[tuple[PartitionView, Need]],
              backfill: Backfill, free: _Free, decisions: list[Decision], several: bool,
              limits: LimitGate | None,
              cpus_off: Mapping[str, frozenset[int]]) -> tuple[Sequence[int | None], Reservation | None]:
    """Start what of a waiting job delays no reservation ahead of it, and reserve the rest at its
    earliest start: the tasks still pending, and the reservation of the first of them. A task
    the accounting limits stop (the array's earlier starts count) is neither started nor reserved.
    `cpus_off`: the CPU ids a core reservation's fence keeps the job off."""
    backfill.tested += 1
    limit = job.request.time_limit_min
    for index, task in enumerate(tasks):
        within = usable if limits is None else [
            (part, need) for part, need in usable if limits.blocked(job, part.name, need.tres) is None]
        options = [(part.name, part.nodes, need) for part, need in within]
        placed = backfill.place(options, limit, free.weights, cpus_off)
        if placed is None:
            return tasks[index:], None
        shortened = 0
        if placed[1] > backfill.now and job.request.time_min_min:
            shortened, placed = _shortened(backfill, options, free, limit, job.request.time_min_min, placed, cpus_off)
        partition, start, allocation = placed
        end = backfill.end_of(start, shortened or limit)
        placed_need = next(need for part, need in within if part.name == partition)
        free.claim(allocation, placed_need)
        if start == backfill.now:
            backfill.book(job.job_id, allocation, start, end, placed_need)
            decisions.append(Start(job.job_id, allocation, task, partition if several else None, shortened))
            if limits is not None:
                limits.started(job, partition, placed_need.tres)
            continue
        reservation = Reservation(start, end, allocation, partition, backfill.holders(allocation, start))
        backfill.book(job.job_id, allocation, start, end, placed_need)
        return tasks[index:], reservation
    return (), None


def _shortened(backfill: Backfill, options: list[tuple[str, Sequence[str], Need]], free: _Free, limit: int,
               time_min: int, placed: tuple[str, int, Allocation],
               cpus_off: Mapping[str, frozenset[int]]) -> tuple[int, tuple[str, int, Allocation]]:
    """--time-min: the longest limit from time_min up to (not including) the job's own with which
    it starts now, and where (Slurm's backfill shortens the limit so); (0, placed) when none does."""
    low, high = time_min, (limit - 1 if limit > 0 else backfill.policy.window_s // 60)
    best: tuple[int, tuple[str, int, Allocation]] = (0, placed)
    while low <= high:
        middle = (low + high) // 2
        found = backfill.place(options, middle, free.weights, cpus_off)
        if found is not None and found[1] == backfill.now:
            best, low = (middle, found), middle + 1
        else:
            high = middle - 1
    return best


def _startable_tasks(job: Job, running: Mapping[JobId, int],
                     allowed: Sequence[int] | None) -> tuple[Sequence[int | None], Reason | None]:
    """What may start of this pending record: itself (`None`), or the array indices that are
    `allowed` (default: every pending one) as far as its throttle allows; and the reason the
    other indices wait for (JobArrayTaskLimit, Dependency), None when there are none."""
    array = job.array
    if array is None or not array.is_remainder:
        return (None,), None
    indices = array.pending if allowed is None else allowed
    if array.throttle and len(indices) > array.throttle - running.get(array.array_job_id, 0):
        return indices[:max(0, array.throttle - running.get(array.array_job_id, 0))], Reason.ARRAY_TASK_LIMIT
    return indices, Reason.DEPENDENCY if len(indices) < len(array.pending) else None


def _allocate(candidates: Sequence[str], need: Need, free: _Free) -> Allocation | None:
    chosen = _select_nodes(candidates, need, free)
    if chosen is None:
        return None
    shares = _shares(chosen, need, free)
    assert shares is not None   # _select_nodes chose nodes that hold them
    taken = [free.take(name, need, cpus) for name, cpus in zip(chosen, shares)]
    return Allocation(
        nodes=tuple(chosen),
        cpus_per_node=tuple(len(cpu_ids) for cpu_ids, _ in taken),
        memory_mb_per_node=(need.memory_mb_per_node,) * len(chosen),
        cpu_ids=tuple(cpu_ids for cpu_ids, _ in taken),
        gpu_ids=tuple(gpu_ids for _, gpu_ids in taken),
    )


def _select_nodes(candidates: Sequence[str], need: Need, free: _Free) -> list[str] | None:
    allowed = need.candidates(candidates)
    fitting = [n for n in allowed if free.fits(n, need, min(need.cpus_by_node, default=need.cpus_per_node))]
    if len(fitting) < need.nodes or not set(need.required) <= set(fitting):
        return None
    if need.contiguous:
        return _contiguous(allowed, set(fitting), need)
    # The -w nodes, then the --prefer ones, then the lowest Weight, then best fit: the nodes with
    # the fewest free CPUs first, keeping big holes for big jobs.
    fitting.sort(key=lambda n: (n not in need.required,
                                bool(need.preferred) and not features.satisfied(need.preferred, free.nodes[n].features),
                                free.weights[n], len(free.cpus[n]), allowed.index(n)))
    # The allocation lists its nodes in the partition's order, as Slurm's node bitmap does: node 0
    # of SLURM_NODEID and rank 0 are on the first node of SLURM_JOB_NODELIST (where MPI launchers and
    # torch's MASTER_ADDR recipes put the root).
    chosen = sorted(fitting[:need.nodes], key=allowed.index)
    # An uneven need's first nodes take the most tasks (block layout): each must have its share;
    # else nodes that each have the largest share, as for an even need; else, where too few
    # nodes have that, the shares by the chosen nodes' room (_shares).
    if need.cpus_by_node and any(len(free.cpus[n]) < need.cpus_at(i) for i, n in enumerate(chosen)):
        roomy = [n for n in fitting if len(free.cpus[n]) >= need.cpus_per_node]
        if len(roomy) >= need.nodes and set(need.required) <= set(roomy[:need.nodes]):
            return sorted(roomy[:need.nodes], key=allowed.index)
        if _shares(chosen, need, free) is None:
            return None
    return chosen


def _shares(chosen: Sequence[str], need: Need, free: _Free) -> list[int] | None:
    """The CPUs each chosen node takes, in allocation order; None when they cannot. An even need
    takes its cpus_per_node of each. An uneven one (-n3 over two nodes: shares 2 and 1) gives its
    shares in block order (the first node the most) where the nodes hold them, else the largest
    shares to the nodes with the most free CPUs (a 1- and a 2-CPU node take 1 and 2): the tasks
    then follow each node's CPUs, as Slurm lays them (core/step_layout.block_counts)."""
    in_order = [need.cpus_at(index) for index in range(len(chosen))]
    if all(len(free.cpus[name]) >= cpus for name, cpus in zip(chosen, in_order)):
        return in_order
    if not need.cpus_by_node:
        return None
    roomiest = sorted(range(len(chosen)), key=lambda index: -len(free.cpus[chosen[index]]))
    shares = [0] * len(chosen)
    for index, cpus in zip(roomiest, sorted(need.cpus_by_node, reverse=True)):
        if len(free.cpus[chosen[index]]) < cpus:
            return None
        shares[index] = cpus
    return shares


def _contiguous(ordered: Sequence[str], fitting: set[str], need: Need) -> list[str] | None:
    """--contiguous: the first run of `need.nodes` consecutive nodes (in the partition's order)
    that all fit and hold every -w node; None when there is none."""
    for first in range(len(ordered) - need.nodes + 1):
        window = list(ordered[first:first + need.nodes])
        if set(window) <= fitting and set(need.required) <= set(window):
            return window
    return None

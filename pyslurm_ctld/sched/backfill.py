"""Backfill (sched/backfill): a time map of one scheduling pass, reservations for the jobs that
cannot start now, and starts now for lower-priority jobs that delay none of those reservations.

The map knows, per node, what is free now (the snapshot the pass starts from), when each running
job gives its CPUs, memory and GPUs back (start + time limit, rounded up to `bf_resolution`),
and what this pass has booked since: jobs it started (held from now to their time limit) and
reservations it made (held from their expected start to start + time limit). A job placed here
gets the earliest time, within `bf_window`, at which every node it needs has the specific CPU ids,
memory and GPUs free for its whole time limit: now (it may start), or later (it is reserved).

The scheduler (scheduler.py) walks the queue in priority order and asks `Backfill.consider` about
every job its main rules left pending for Resources or Priority (at most `bf_max_job_test` of
them). Reservations are made in that order, so a lower-priority job is only ever placed in what
higher-priority jobs left over: it starts now only if it fits beside every reservation or ends
before they begin. A pass never yields, so `bf_continue` has nothing to continue. It is cheap
enough (bench/bench_schedule.py: about 50 ms for 500 reservations on 1,000 nodes) to run in
every scheduling pass rather than every `bf_interval` seconds, which also keeps the main rules
of later passes from starting jobs on what a reservation holds.

Pure: `now` is an argument; no clock, no I/O, no configuration lookups.
"""
from __future__ import annotations

import heapq
import math
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

from ..model.job import Allocation, Job, JobId, JobState
from ..settings.sched_params import BackfillPolicy
from .node_fit import Need, NodeCapacity, could_ever_fit, shares_with, user_exclusive

FOREVER = 2**62    # the end of a booking without a time limit
_NO_JOB = JobId(0)  # what a reservation's booking holds for


@dataclass(frozen=True, slots=True)
class RunningJob:
    """What a running (or completing) job holds, and when it is expected to give it back."""

    job_id: JobId
    allocation: Allocation
    end_time: int                 # start + time limit; FOREVER without a limit; now for a completing job
    uid: int | None = None        # its user, and whether it keeps other users off (--exclusive=user)
    user_exclusive: bool = False


@dataclass(frozen=True, slots=True)
class Holder:
    """A job whose resources a reservation waits for, and when they are expected back."""

    job_id: JobId
    end_time: int                 # FOREVER: never (no time limit)
    running: bool                 # False: a higher-priority pending job reserved them first


@dataclass(frozen=True, slots=True)
class Reservation:
    """When and where a pending job is expected to start (squeue --start, StartTime, SchedNodes)."""

    start_time: int
    end_time: int                 # FOREVER without a time limit
    allocation: Allocation        # what it is expected to get: these CPU ids, memory and GPUs
    partition: str
    waits_for: tuple[Holder, ...]  # what holds its nodes until then, earliest end first

    @property
    def nodes(self) -> tuple[str, ...]:
        return self.allocation.nodes


@dataclass(frozen=True, slots=True)
class _Booking:
    job_id: JobId
    start: int
    end: int
    cpu_ids: frozenset[int]
    memory_mb: int
    gpus: frozenset[int]
    running: bool                 # a running job's hold (gives back at `end`), else booked this pass


@dataclass(frozen=True, slots=True)
class _UserHold:
    """A user's job on a node over [start, end), for --exclusive=user."""

    uid: int
    exclusive: bool
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class _Segment:
    """What is free on a node from `time` until the next segment begins."""

    time: int
    cpu_ids: frozenset[int]
    memory_mb: int
    gpus: frozenset[int]


@dataclass(slots=True)
class _NodeQueue:
    """The nodes one request may use, by (earliest start, weight, CPUs left beside it, order);
    entries of a node whose timeline changed since are stale and skipped."""

    position: dict[str, int]
    heap: list[tuple[int, int, int, int, int, str, tuple[tuple[int, ...], tuple[int, ...], int]]]
    seen: int                     # how much of Backfill._changed this heap has taken in


@dataclass(slots=True)
class _NodeTimeline:
    capacity: NodeCapacity
    now: int
    releases: list[_Booking] = field(default_factory=list)   # running jobs: free from `end` on
    booked: list[_Booking] = field(default_factory=list)     # this pass: held over [start, end)
    user_holds: list[_UserHold] = field(default_factory=list)   # whose jobs are here, and when
    version: int = 0
    _segments: list[_Segment] | None = None                  # derived; dropped by every booking

    def add(self, booking: _Booking) -> None:
        (self.releases if booking.running else self.booked).append(booking)
        self.version += 1
        self._segments = None

    def hold_for_user(self, hold: _UserHold) -> None:
        self.user_holds.append(hold)
        self.version += 1

    def _users_allow(self, need: Need, start: int, end: int) -> bool:
        """No job of another user over [start, end) keeps `need`'s job off (or is kept off by it)."""
        if need.user is None:
            return True
        return all(shares_with(need.user, need.user_exclusive, hold.uid, hold.exclusive)
                   for hold in self.user_holds if hold.start < end and hold.end > start)

    def segments(self) -> list[_Segment]:
        """What is free, from now on, between one change and the next (ascending times)."""
        if self._segments is None:
            times = {self.now}
            times.update(r.end for r in self.releases)
            for b in self.booked:
                times.update(t for t in (b.start, b.end) if self.now < t < FOREVER)
            cap = self.capacity
            segments = []
            for when in sorted(times):
                cpus, memory, gpus = cap.free_cpu_ids, cap.free_memory_mb, cap.free_gpus
                for r in self.releases:
                    if r.end <= when:
                        cpus, memory, gpus = cpus | r.cpu_ids, memory + r.memory_mb, gpus | r.gpus
                for b in self.booked:
                    if b.start <= when < b.end:
                        cpus, memory, gpus = cpus - b.cpu_ids, memory - b.memory_mb, gpus - b.gpus
                segments.append(_Segment(when, cpus, memory, gpus))
            self._segments = segments
        return self._segments

    def _free_from(self, first: int, end: int, need: Need,
                   off: frozenset[int] = frozenset()) -> tuple[frozenset[int], int, frozenset[int]]:
        """CPU ids (but `off`, a core reservation's fence), memory and GPUs free from segment
        `first` until `end`; stops early once it is clear they are too few for `need`."""
        segments = self.segments()
        seg = segments[first]
        cpus, memory, gpus = seg.cpu_ids - off, seg.memory_mb, seg.gpus
        for seg in segments[first + 1:]:
            if seg.time >= end or len(cpus) < need.cpus_per_node or memory < need.memory_mb_per_node:
                break
            cpus, memory, gpus = cpus & seg.cpu_ids, min(memory, seg.memory_mb), gpus & seg.gpus
        return cpus, memory, gpus

    def _fit(self, need: Need, first: int, end: int,
             off: frozenset[int] = frozenset()) -> tuple[tuple[int, ...], tuple[int, ...], int] | None:
        """The lowest CPU ids and GPU indices one node of `need` would hold from segment `first`
        until `end`, and how many CPUs would stay free beside it; None when it does not fit."""
        cpus, memory, gpus = self._free_from(first, end, need, off)
        if len(cpus) < need.cpus_per_node or memory < need.memory_mb_per_node:
            return None
        if not self._users_allow(need, self.segments()[first].time, end):
            return None
        if need.exclusive:      # whole node: every CPU and GPU it has, free the whole time
            cap = self.capacity
            if len(cpus) < cap.cpus or len(gpus) < len(cap.gpu_types):
                return None
            return tuple(sorted(cpus)), tuple(sorted(gpus)), 0
        gpu_ids: tuple[int, ...] = ()
        if need.gpus_per_node:
            usable = [i for i in self.capacity.gpus_of_type(need.gpu_type) if i in gpus]
            if len(usable) < need.gpus_per_node:
                return None
            gpu_ids = tuple(usable[:need.gpus_per_node])
        return tuple(sorted(cpus)[:need.cpus_per_node]), gpu_ids, len(cpus) - need.cpus_per_node

    def fit_at(self, need: Need, start: int, end: int,
               off: frozenset[int] = frozenset()) -> tuple[tuple[int, ...], tuple[int, ...], int] | None:
        """`_fit` for a job beginning at `start` (any time from now on)."""
        first = max(0, bisect_right([seg.time for seg in self.segments()], start) - 1)
        return self._fit(need, first, end, off)

    def earliest(self, need: Need, end_of: Callable[[int], int], horizon: int,
                 off: frozenset[int] = frozenset()) -> tuple[int, tuple[tuple[int, ...], tuple[int, ...], int]] | None:
        """The first time, up to `horizon`, at which one node of `need` fits here until `end_of` it,
        and what it would get then (`_fit`). A job may begin at any segment's beginning: in the
        middle of one it would find no more than at its beginning."""
        for index, seg in enumerate(self.segments()):
            if seg.time > horizon:
                break
            if len(seg.cpu_ids) < need.cpus_per_node or seg.memory_mb < need.memory_mb_per_node \
                    or len(seg.gpus) < need.gpus_per_node:
                continue
            fit = self._fit(need, index, end_of(seg.time), off)
            if fit is not None:
                return seg.time, fit
        return None


class Backfill:
    """The time map of one pass, and the placement of jobs in it, in priority order."""

    def __init__(self, policy: BackfillPolicy, nodes: Mapping[str, NodeCapacity],
                 running: Iterable[RunningJob], now: int) -> None:
        self.policy = policy
        self.now = now
        self.horizon = now + policy.window_s
        self.tested = 0
        self._nodes = {name: _NodeTimeline(cap, now) for name, cap in nodes.items() if cap.usable}
        self._earliest: dict[tuple[str, Need, int, frozenset[int]], tuple[int, int | None]] = {}   # per node version
        self._queues: dict[tuple[str, Need, int], _NodeQueue] = {}
        self._changed: list[str] = []     # every booking's nodes, in order: what queues must re-read
        self._ends = {job.job_id: job.end_time for job in running}   # as expected, before rounding
        for job in running:
            end = self.round_up(max(job.end_time, now + 1)) if job.end_time != FOREVER else FOREVER
            if job.uid is not None:
                for name in job.allocation.nodes:
                    if name in self._nodes:
                        self._nodes[name].hold_for_user(_UserHold(job.uid, job.user_exclusive, now, end))
            if end == FOREVER:
                continue      # it never gives anything back: the snapshot already counts it as taken
            for index, name in enumerate(job.allocation.nodes):
                timeline = self._nodes.get(name)
                if timeline is not None:
                    timeline.add(_Booking(
                        job.job_id, now, end, frozenset(job.allocation.cpus_on(index)),
                        job.allocation.memory_mb_per_node[index], frozenset(job.allocation.gpus_on(index)), True))

    def round_up(self, when: int) -> int:
        step = self.policy.resolution_s
        return when if step <= 1 else math.ceil(when / step) * step

    def end_of(self, start: int, time_limit_min: int) -> int:
        return FOREVER if time_limit_min < 0 else self.round_up(start + time_limit_min * 60)

    # ---- bookings ---------------------------------------------------------------------

    def book(self, job_id: JobId, allocation: Allocation, start: int, end: int, need: Need | None = None) -> None:
        """Hold an allocation's resources over [start, end): a start (start = now) or a reservation;
        and its user's hold, where `need` carries one (--exclusive=user)."""
        for index, name in enumerate(allocation.nodes):
            timeline = self._nodes.get(name)
            if timeline is None:
                continue
            if need is not None and need.user is not None:
                timeline.hold_for_user(_UserHold(need.user, need.user_exclusive, start, end))
            timeline.add(_Booking(job_id, start, end, frozenset(allocation.cpus_on(index)),
                                  allocation.memory_mb_per_node[index], frozenset(allocation.gpus_on(index)), False))
            self._changed.append(name)

    def hold_for_reservation(self, nodes: Iterable[str], start: int, end: int) -> None:
        """A reservation to come holds whole nodes over [start, end): jobs it keeps off them (the
        scheduler fences them) are reserved around it, so squeue --start shows when they may run, as
        Slurm's backfill does. Booked as no job (JobId 0): nothing waits for it as for a job."""
        for name in nodes:
            timeline = self._nodes.get(name)
            if timeline is None:
                continue
            cap = timeline.capacity
            timeline.add(_Booking(_NO_JOB, start, end, frozenset(range(cap.cpus)), cap.memory_mb,
                                  frozenset(cap.gpu_types), False))
            self._changed.append(name)

    # ---- placement --------------------------------------------------------------------

    def _earliest_on(self, name: str, need: Need, time_limit_min: int,
                     off: frozenset[int] = frozenset()) -> int | None:
        """The first time (within the window) this node alone fits one node of `need`, but for
        the CPU ids `off`."""
        timeline = self._nodes[name]
        key = (name, need, time_limit_min, off)
        cached = self._earliest.get(key)
        if cached is not None and cached[0] == timeline.version:
            return cached[1]
        found = None
        if could_ever_fit(timeline.capacity, need):
            first = timeline.earliest(need, lambda start: self.end_of(start, time_limit_min), self.horizon, off)
            found = None if first is None else first[0]
        self._earliest[key] = (timeline.version, found)
        return found

    def _first_node(self, partition: str, need: Need, candidates: Sequence[str], time_limit_min: int,
                    weights: Mapping[str, int]) -> tuple[int, Allocation] | None:
        """One node, no -w: the node where it starts earliest, preferred as the main pass prefers.

        Each (partition, request, time limit) keeps its nodes in a heap ordered by that choice;
        a booking changes few nodes, so a later job of the same shape re-reads only those."""
        key = (partition, need, time_limit_min)
        queue = self._queues.get(key)
        if queue is None:
            usable = [n for n in need.candidates(candidates)
                      if n in self._nodes and could_ever_fit(self._nodes[n].capacity, need)]
            queue = self._queues[key] = _NodeQueue({n: i for i, n in enumerate(usable)}, [], 0)
            changed: Iterable[str] = usable
        else:
            changed = {n for n in self._changed[queue.seen:] if n in queue.position}
        queue.seen = len(self._changed)
        for name in changed:
            timeline = self._nodes[name]
            first = timeline.earliest(need, lambda start: self.end_of(start, time_limit_min), self.horizon)
            if first is not None:
                start, fit = first
                heapq.heappush(queue.heap, (start, weights.get(name, 1), fit[2], queue.position[name],
                                            timeline.version, name, fit))
        while queue.heap:
            start, _, _, _, version, name, fit = queue.heap[0]
            if version == self._nodes[name].version:
                return start, Allocation((name,), (len(fit[0]),), (need.memory_mb_per_node,),
                                         cpu_ids=(fit[0],), gpu_ids=(fit[1],))
            heapq.heappop(queue.heap)
        return None

    def earliest(self, partition: str, need: Need, candidates: Sequence[str], time_limit_min: int,
                 weights: Mapping[str, int],
                 cpus_off: Mapping[str, frozenset[int]] | None = None) -> tuple[int, Allocation] | None:
        """The earliest start of `need` on `candidates` (in preference order) and the allocation
        it would get then, or None when it cannot start within the window. `cpus_off`: CPU ids a
        core reservation keeps the job off (such a job is placed node by node, not by the queues)."""
        off = cpus_off or {}
        if need.nodes == 1 and not need.required and not off:
            return self._first_node(partition, need, candidates, time_limit_min, weights)
        usable = [n for n in need.candidates(candidates) if n in self._nodes]
        if not set(need.required) <= set(usable):
            return None
        firsts = {n: t for n in usable
                  if (t := self._earliest_on(n, need, time_limit_min, off.get(n, frozenset()))) is not None}
        if len(firsts) < need.nodes:
            return None
        # Several nodes must be free at one common time: try every time at which what is free
        # on any of them changes, from the earliest at which enough of them could be.
        floor = sorted(firsts.values())[need.nodes - 1]
        times = sorted({seg.time for n in firsts for seg in self._nodes[n].segments()
                        if floor <= seg.time <= self.horizon})
        for start in times:
            end = self.end_of(start, time_limit_min)
            fitting = [n for n in firsts if self._nodes[n].fit_at(need, start, end, off.get(n, frozenset())) is not None]
            if len(fitting) >= need.nodes and set(need.required) <= set(fitting):
                return start, self._allocation(need, fitting, start, time_limit_min, weights, usable, off)
        return None

    def _allocation(self, need: Need, fitting: list[str], start: int, time_limit_min: int,
                    weights: Mapping[str, int], order: list[str], off: Mapping[str, frozenset[int]]) -> Allocation:
        end = self.end_of(start, time_limit_min)
        position = {n: i for i, n in enumerate(order)}
        fits = {n: fit for n in fitting
                if (fit := self._nodes[n].fit_at(need, start, end, off.get(n, frozenset()))) is not None}
        # The -w nodes, then as the main pass chooses: lowest weight, then best fit (fewest CPUs
        # left beside it).
        chosen = sorted(fits, key=lambda n: (n not in need.required, weights.get(n, 1), fits[n][2],
                                             position[n]))[:need.nodes]
        # An exclusive need's fit is the whole node; a spread one's last nodes take fewer CPUs.
        taken = tuple(fits[n][0] if need.exclusive else fits[n][0][:need.cpus_at(index)]
                      for index, n in enumerate(chosen))
        return Allocation(
            nodes=tuple(chosen), cpus_per_node=tuple(len(cpu_ids) for cpu_ids in taken),
            memory_mb_per_node=(need.memory_mb_per_node,) * len(chosen),
            cpu_ids=taken, gpu_ids=tuple(fits[n][1] for n in chosen))

    def holders(self, allocation: Allocation, start: int) -> tuple[Holder, ...]:
        """Who holds the reserved nodes between now and `start`: running jobs that end by then,
        and the earlier reservations and starts of this pass that overlap the wait."""
        seen: dict[JobId, Holder] = {}
        for name in allocation.nodes:
            timeline = self._nodes[name]
            for r in timeline.releases:
                if r.end <= start:
                    seen.setdefault(r.job_id, Holder(r.job_id, min(r.end, self._ends[r.job_id]), True))
            for b in timeline.booked:
                if b.start < start and b.end > self.now and b.job_id != _NO_JOB:
                    seen.setdefault(b.job_id, Holder(b.job_id, b.end, b.start <= self.now))
        return tuple(sorted(seen.values(), key=lambda h: (h.end_time, h.job_id)))

    def place(self, options: Sequence[tuple[str, Sequence[str], Need]], time_limit_min: int,
              weights: Mapping[str, int],
              cpus_off: Mapping[str, frozenset[int]] | None = None) -> tuple[str, int, Allocation] | None:
        """Where and when a job (one array task) starts earliest among its partitions' `options`
        (name, nodes, need): (partition, start time, allocation), or None beyond the window."""
        best: tuple[str, int, Allocation] | None = None
        for partition, nodes, need in options:
            found = self.earliest(partition, need, nodes, time_limit_min, weights, cpus_off)
            if found is not None and (best is None or found[0] < best[1]):
                best = (partition, found[0], found[1])
                if found[0] == self.now:
                    break
        return best


def running_jobs(jobs: Iterable[Job], now: int) -> list[RunningJob]:
    """What the jobs holding allocations hold, and until when: a running job until its start plus
    its time limit, a completing one (still cleaning up) until now."""
    held = []
    for job in jobs:
        if job.allocation is None:
            continue
        if job.completing:
            held.append(RunningJob(job.job_id, job.allocation, now, job.uid, user_exclusive(job.request)))
        elif job.state is JobState.RUNNING:
            limit = job.request.time_limit_min
            end = FOREVER if limit < 0 else job.start_time + limit * 60
            held.append(RunningJob(job.job_id, job.allocation, end, job.uid, user_exclusive(job.request)))
    return held

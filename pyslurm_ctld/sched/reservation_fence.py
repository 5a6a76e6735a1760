"""Reservations in a scheduling pass: which nodes each pending job must keep off, and why it
waits when that leaves it too few.

A job that names a reservation runs only on its nodes while it is in force: before it starts
the job waits with reason `Reservation`; if the reservation is gone, `ReservationDeleted`. A job of
a FLEX reservation may start before it and use nodes outside it: it keeps off only the nodes of
other reservations, as a job that names none; so may one of an ANY_NODES reservation once it is in
force.
Every other job keeps off the nodes of a reservation in force now, and off those of one that
starts before the job's time limit would end (so neither a start nor backfill puts a job on
nodes it would still hold when the reservation begins). Kept off MAINT nodes, it waits with
`ReqNodeNotAvail, Reserved for maintenance`; kept off others, with `ReqNodeNotAvail, May be
reserved for other job` (real Slurm 22.05's words for both). A core reservation (CoreCnt=) fences
CPU ids rather than nodes: its cores are off for other jobs, the rest of its nodes off for its own.
"""
from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..model.job import Job, JobId, Reason
from .node_fit import NodeCapacity
from ..model.reservations import ReservationRecord

_FOREVER = 1 << 62
_RESERVATION = operator.attrgetter("request.reservation")


@dataclass(frozen=True, slots=True)
class Fence:
    off_limits: frozenset[str]
    reason: Reason          # the pending reason when the fence leaves the job too few nodes
    cpus_off: Mapping[str, frozenset[int]] = field(default_factory=dict)   # CPU ids kept off on other nodes


def fences(pending: Iterable[Job], reservations: Mapping[str, ReservationRecord], nodes: Mapping[str, NodeCapacity],
           now: int) -> dict[JobId, Fence]:
    """The fence of each pending job that has one (`nodes`: every node, for its CPU count)."""
    live = [r for r in reservations.values() if not r.over(now)]
    everything = frozenset(nodes)
    if not live and not any(map(_RESERVATION, pending)):   # map with attrgetter: no Python frame per job
        return {}
    result: dict[JobId, Fence] = {}
    for job in pending:
        fence = _fence(job, reservations, live, nodes, now)
        if fence is not None:
            result[job.job_id] = fence
    return result


def _fence(job: Job, reservations: Mapping[str, ReservationRecord], live: list[ReservationRecord],
           nodes: Mapping[str, NodeCapacity], now: int) -> Fence | None:
    everything = frozenset(nodes)
    name = job.request.reservation
    if name:
        record = reservations.get(name)
        if record is None or record.over(now):
            return Fence(everything, Reason.RESERVATION_DELETED)
        if not record.flexible:
            if not record.active(now):
                return Fence(everything, Reason.RESERVATION)
            if not record.any_nodes:
                # A core reservation's jobs get its cores only: every other CPU of its nodes is off.
                others = {node: frozenset(range(nodes[node].cpus)) - ids
                          for node, ids in record.reserved_cpus().items() if node in nodes}
                return Fence(everything - frozenset(record.nodes), Reason.RESOURCES, others)
    limit = job.request.time_limit_min
    finish = _FOREVER if limit < 0 else now + max(1, limit) * 60
    holding = [r for r in live if r.name != name and r.nodes and r.holds_nodes_during(now, finish)]
    if not holding:
        return None
    reason = Reason.RESERVED_MAINT if any(r.maintenance for r in holding) else Reason.RESERVED_OTHER
    cpus_off: dict[str, frozenset[int]] = {}
    for record in holding:      # a core reservation keeps only its cores, the rest of its nodes stay usable
        for node, ids in record.reserved_cpus().items():
            cpus_off[node] = cpus_off.get(node, frozenset()) | ids
    return Fence(frozenset(n for r in holding if not r.cpu_ids for n in r.nodes), reason, cpus_off)


def windows_ahead(reservations: Mapping[str, ReservationRecord], now: int) -> list[tuple[tuple[str, ...], int, int]]:
    """(nodes, start, end) of each whole-node reservation still to begin: what backfill books so
    that a job it fences off is expected after it (core reservations fence CPU ids instead)."""
    ahead = []
    for record in reservations.values():
        start, end = record.window(now)
        if start > now and record.nodes and not record.cpu_ids and not record.over(now):
            ahead.append((record.nodes, start, end))
    return ahead

"""Hourly usage rollups: CPU-seconds per cluster and per (account, user), computed from the job
and event tables and stored in ``usage_cluster_hour`` / ``usage_assoc_hour`` (sreport reads them).

For each hour h (epoch multiples of 3600; the current hour up to now) and cluster:

* reported: the cluster's CPUs over the hour, from its size events (``event`` rows without node);
* allocated: every started job's allocated CPUs times its overlap with the hour (running jobs
  until now); also summed per (account, user);
* down: CPUs of nodes in a DOWN or DRAIN event times the overlap, at most what is not allocated;
* reserved (Slurm's "planned" since 23.02): CPUs of eligible jobs that wait (eligible until they
  started, or until they ended without starting, or now), at most what is neither allocated nor
  down;
* idle: the rest of the reported time; overcommitted: allocation beyond the reported time.

Idempotent: ``roll_up`` replaces the rows of every hour it computes, in one transaction, and
computes the hours from the earliest one a record may have changed. ``rollup_state`` keeps that:
``rolled_until`` (hours before it are done; the current hour is always done again) and
``dirty_from`` (the earliest hour a job or event record written since touched), which
``mark_dirty`` lowers in the same transaction as the record (``UPDATE ... WHERE dirty_from > x``,
atomic on every backend). Re-running changes nothing; records that arrive late (the controller's
outbox after an outage) get their hours computed again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import and_, delete, func, insert, or_, select, update
from sqlalchemy.orm import Session

from pyslurm_dbd.models import JobRow
from pyslurm_dbd.usage_models import AssocHourRow, ClusterHourRow, NodeEventRow, RollupStateRow

HOUR = 3600
NOTHING_DIRTY = 2**62


def hour_of(epoch: int) -> int:
    return epoch - epoch % HOUR


def mark_dirty(session: Session, times: Iterable[int]) -> None:
    """Make the next roll-up redo the hours from the earliest of ``times`` (0s ignored)."""
    earliest = min((t for t in times if t > 0), default=0)
    if earliest:
        session.execute(update(RollupStateRow).where(RollupStateRow.dirty_from > hour_of(earliest))
                        .values(dirty_from=hour_of(earliest)))


def roll_up(session: Session, now: int) -> int:
    """Compute every hour that needs it, up to the current one; returns how many were computed."""
    state = session.get_one(RollupStateRow, 1)    # migration 8 made it
    current = hour_of(now)
    first = min(state.rolled_until or current, state.dirty_from)
    if not state.rolled_until:
        first = min(first, _earliest_data_hour(session, current))
    if first > current:
        return 0
    end = now
    jobs = session.execute(select(
        JobRow.cluster, JobRow.account, JobRow.user_name, JobRow.alloc_cpus, JobRow.num_cpus, JobRow.state,
        JobRow.eligible_time, JobRow.start_time, JobRow.end_time,
    ).where(or_(
        and_(JobRow.start_time > 0, JobRow.start_time < end, or_(JobRow.end_time == 0, JobRow.end_time > first)),
        and_(JobRow.eligible_time > 0, JobRow.eligible_time < end,
             or_(JobRow.start_time > first,
                 and_(JobRow.start_time == 0, or_(JobRow.end_time == 0, JobRow.end_time > first)))),
    ))).all()
    events = session.execute(select(
        NodeEventRow.cluster, NodeEventRow.node, NodeEventRow.cpus, NodeEventRow.time_start, NodeEventRow.time_end,
    ).where(NodeEventRow.time_start < end, or_(NodeEventRow.time_end == 0, NodeEventRow.time_end > first))).all()
    hours = _compute(first, now, jobs, events)
    session.execute(delete(ClusterHourRow).where(ClusterHourRow.hour >= first))
    session.execute(delete(AssocHourRow).where(AssocHourRow.hour >= first))
    if hours.clusters:
        session.execute(insert(ClusterHourRow), [asdict(row) for row in hours.clusters])
    if hours.assocs:
        session.execute(insert(AssocHourRow), [
            {"cluster": c, "account": a, "user_name": u, "hour": h, "alloc_secs": secs}
            for (c, a, u, h), secs in sorted(hours.assocs.items())])
    session.execute(update(RollupStateRow).values(rolled_until=current, dirty_from=NOTHING_DIRTY))
    return (current - first) // HOUR + 1


@dataclass(slots=True)
class _ClusterHour:
    cluster: str
    hour: int
    cpu_count: int = 0
    alloc_secs: int = 0
    down_secs: int = 0
    pdown_secs: int = 0
    idle_secs: int = 0
    plan_secs: int = 0
    over_secs: int = 0


@dataclass(slots=True)
class _Hours:
    clusters: list[_ClusterHour]
    assocs: dict[tuple[str, str, str, int], int]


def _overlaps(start: int, end: int, first: int) -> Iterable[tuple[int, int]]:
    """(hour, seconds) of [start, end) in each hour from ``first`` on."""
    hour = max(hour_of(start), first)
    while hour < end:
        seconds = min(end, hour + HOUR) - max(start, hour)
        if seconds > 0:
            yield hour, seconds
        hour += HOUR


def _compute(first: int, now: int, jobs: Iterable[Any], events: Iterable[Any]) -> _Hours:
    """The rows of the hours from ``first`` to now, from the overlapping jobs and events."""
    reported: dict[tuple[str, int], int] = defaultdict(int)
    cpu_counts: dict[tuple[str, int], int] = {}
    down: dict[tuple[str, int], int] = defaultdict(int)
    alloc: dict[tuple[str, int], int] = defaultdict(int)
    plan: dict[tuple[str, int], int] = defaultdict(int)
    assocs: dict[tuple[str, str, str, int], int] = defaultdict(int)
    for cluster, node, cpus, start, end in events:
        for hour, seconds in _overlaps(start, end or now, first):
            if node:
                down[cluster, hour] += cpus * seconds
            else:
                reported[cluster, hour] += cpus * seconds
                cpu_counts[cluster, hour] = cpus
    for cluster, account, user, alloc_cpus, num_cpus, state, eligible, start, end in jobs:
        if start:
            for hour, seconds in _overlaps(start, end or now, first):
                alloc[cluster, hour] += (alloc_cpus or num_cpus) * seconds
                assocs[cluster, account, user, hour] += (alloc_cpus or num_cpus) * seconds
        waited_until = start or end or (now if state == "PENDING" else 0)
        if eligible and waited_until > eligible:
            for hour, seconds in _overlaps(eligible, waited_until, first):
                plan[cluster, hour] += num_cpus * seconds
    rows = []
    for key in sorted(set(reported) | set(alloc)):
        cluster, hour = key
        row = _ClusterHour(cluster, hour, cpu_counts.get(key, 0))
        total = reported.get(key, 0)
        row.alloc_secs = alloc.get(key, 0)
        row.over_secs = max(0, row.alloc_secs - total)
        free = max(0, total - row.alloc_secs)
        row.down_secs = min(down.get(key, 0), free)
        row.plan_secs = min(plan.get(key, 0), free - row.down_secs)
        row.idle_secs = free - row.down_secs - row.plan_secs
        rows.append(row)
    return _Hours(rows, assocs)


def _earliest_data_hour(session: Session, current: int) -> int:
    """The first hour anything happened in (the first roll-up of a database)."""
    candidates = [
        session.scalar(select(func.min(JobRow.start_time)).where(JobRow.start_time > 0)),
        session.scalar(select(func.min(JobRow.eligible_time)).where(JobRow.eligible_time > 0)),
        session.scalar(select(func.min(NodeEventRow.time_start))),
    ]
    found = [int(c) for c in candidates if c]
    return hour_of(min(found)) if found else current

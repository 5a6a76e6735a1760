"""Reservations in the accounting database: the controller's changes in, ``sacctmgr show
reservation`` answers out.

One row per reservation (cluster and the controller's reservation id) and start: a change
before the reservation started replaces its row; a change after it started, with another start
(a DAILY or WEEKLY reservation moved on, or a new StartTime), ends the row in force and opens
another. A reservation deleted before it started leaves no row; one deleted while in force ends
then. Records apply in time order and a record applied twice changes nothing, so the outbox's
retries are harmless.

``UnusedWall`` (Slurm's name) is computed when asked: the row's seconds up to now, less each
job of the reservation's CPU-seconds inside the row's window divided by the reservation's CPUs.
Errors propagate as ``sqlalchemy.exc.SQLAlchemyError`` with the batch rolled back.
"""
from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import BigInteger, Boolean, ColumnElement, Index, String, Text, UniqueConstraint, select
from sqlalchemy.orm import Mapped, Session, mapped_column, sessionmaker

from pyslurm_common.hostlist import HostlistError, expand
from pyslurm_common.rpc.dbd_pb2 import ReservationQuery, ReservationRecord
from pyslurm_dbd.models import Base, JobRow, SurrogateKey

_FIELDS = ("cluster", "name", "time_start", "time_end", "nodes", "node_count", "flags", "cpus", "users", "accounts")


class ReservationRow(Base):
    """One reservation (or one occurrence of a repeating one) as it was last changed."""

    __tablename__ = "reservation"
    __table_args__ = (
        UniqueConstraint("cluster", "id_resv", "time_start"),
        Index(None, "time_start"),
    )

    id: Mapped[int] = mapped_column(SurrogateKey, primary_key=True, autoincrement=True)
    cluster: Mapped[str] = mapped_column(String(64))
    id_resv: Mapped[int] = mapped_column(BigInteger)
    name: Mapped[str] = mapped_column(Text)
    time_start: Mapped[int] = mapped_column(BigInteger)
    time_end: Mapped[int] = mapped_column(BigInteger)
    nodes: Mapped[str] = mapped_column(Text, default="")
    node_count: Mapped[int] = mapped_column(BigInteger, default=0)
    flags: Mapped[str] = mapped_column(Text, default="")
    cpus: Mapped[int] = mapped_column(BigInteger, default=0)
    users: Mapped[str] = mapped_column(Text, default="")
    accounts: Mapped[str] = mapped_column(Text, default="")
    deleted: Mapped[bool] = mapped_column(Boolean, default=False)


class ReservationStore:
    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def record(self, records: Iterable[ReservationRecord]) -> None:
        """Apply a batch of changes in time order, in one transaction."""
        batch = sorted(records, key=lambda r: r.time)
        if not batch:
            return
        with self._sessions.begin() as session:
            for rec in batch:
                _apply(session, rec)
                session.flush()

    def query(self, q: ReservationQuery, now: int) -> list[ReservationRecord]:
        """Rows matching ``q``, by cluster and start, with their unused wall time."""
        stmt = select(ReservationRow).where(*_conditions(q, now)).order_by(
            ReservationRow.cluster, ReservationRow.time_start, ReservationRow.id_resv)
        wanted_nodes = set(q.nodes)
        with self._sessions() as session:
            rows = [row for row in session.scalars(stmt) if not wanted_nodes or wanted_nodes & _node_set(row.nodes)]
            return [ReservationRecord(id=row.id_resv, deleted=row.deleted, unused_wall=_unused(session, row, now),
                                      **{name: getattr(row, name) for name in _FIELDS}) for row in rows]


def _apply(session: Session, rec: ReservationRecord) -> None:
    current = session.scalars(
        select(ReservationRow).where(ReservationRow.cluster == rec.cluster, ReservationRow.id_resv == rec.id)
        .order_by(ReservationRow.time_start.desc())).first()
    started = current is not None and current.time_start <= rec.time
    if rec.deleted:
        if current is None:
            return
        if not started:
            session.delete(current)
        else:
            current.time_end, current.deleted = min(current.time_end, rec.time_end), True
        return
    if current is not None and (not started or current.time_start == rec.time_start):
        row = current
    else:
        if current is not None:
            current.time_end = min(current.time_end, max(current.time_start, rec.time))
        row = ReservationRow(cluster=rec.cluster, id_resv=rec.id)
        session.add(row)
    for name in _FIELDS:
        setattr(row, name, getattr(rec, name))


def _conditions(q: ReservationQuery, now: int) -> list[ColumnElement[bool]]:
    row = ReservationRow
    found: list[ColumnElement[bool]] = [row.time_start <= (q.end_time or now), row.time_end >= q.start_time]
    if q.clusters:
        found.append(row.cluster.in_(list(q.clusters)))
    if q.names:
        found.append(row.name.in_(list(q.names)))
    if q.ids:
        found.append(row.id_resv.in_(list(q.ids)))
    return found


def _node_set(hostlist: str) -> set[str]:
    try:
        return set(expand(hostlist)) if hostlist else set()
    except HostlistError:
        return set()


def _unused(session: Session, row: ReservationRow, now: int) -> float:
    """Seconds of the row's window up to now that its jobs left unused (Slurm's unused_wall)."""
    end = min(row.time_end, now)
    if end <= row.time_start:
        return 0.0
    jobs = session.execute(select(JobRow.start_time, JobRow.end_time, JobRow.num_cpus).where(
        JobRow.cluster == row.cluster, JobRow.reservation == row.name, JobRow.start_time > 0,
        JobRow.start_time < end))
    used = 0.0
    for start, stop, cpus in jobs:
        inside = min(stop or now, end) - max(start, row.time_start)
        if inside > 0 and row.cpus:
            used += inside * cpus / row.cpus
    return max(0.0, (end - row.time_start) - used)

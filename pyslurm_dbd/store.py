"""The accounting store: job records in, sacct answers out, over one SQLAlchemy engine URL.

``AccountingStore`` owns the engine and every transaction against the accounting database. The
controller sends ``JobRecord`` snapshots (full state of one job, sent again whenever the job
changes); ``record`` upserts them keyed by (cluster, job_id, submit_time) — one transaction per
batch, last snapshot wins, the steps of a job replaced by those of its snapshot. ``query`` answers
an ``AccountingQuery`` with every filter applied in SQL.

The code is portable across SQLite, MariaDB and PostgreSQL: upserts are select-then-update/insert
in the ORM, never dialect-specific ``ON CONFLICT`` / ``ON DUPLICATE KEY``. For SQLite the parent
directory of the file is created and connections use WAL with ``synchronous=NORMAL``.

The store is synchronous (the daemon calls it through ``asyncio.to_thread``) and thread-safe: each
call uses its own session. It does not authorise: who may see which users' jobs
(``AccountingQuery.all_users``) and the sacct default window are decided by the caller. Errors from
the database (unreachable, constraint, disk full) propagate as ``sqlalchemy.exc.SQLAlchemyError``
with the batch rolled back, so the sender can retry it; ``SchemaVersionError`` (from
``create_schema``, which runs ``pyslurm_dbd.migrations``) is fatal.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from google.protobuf import json_format
from sqlalchemy import ColumnElement, Engine, and_, create_engine, event, exists, or_, select
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, aliased, selectinload, sessionmaker

from pyslurm_common.rpc.dbd_pb2 import AccountingQuery, JobRecord, JobRecordBatch
from pyslurm_common.rpc.types_pb2 import GpuUsage, JobInfo, StepInfo
from pyslurm_dbd.association_models import AssociationRow, QosRow
from pyslurm_dbd.job_nodes import node_names_key, ran_on_any
from pyslurm_dbd.migrations import SchemaVersionError, migrate, stored_version
from pyslurm_dbd.models import JobRow, StepRow
from pyslurm_dbd.reservation_store import ReservationRow
from pyslurm_dbd.rollup import mark_dirty

__all__ = ["AccountingStore", "SchemaVersionError", "step_sort_key"]

log = logging.getLogger(__name__)

JobKey = tuple[str, int, int]
"""(cluster, job_id, submit_time): the identity of one job record."""

# JobInfo fields stored in a column of the same name (the key fields are handled apart).
_JOB_FIELDS: tuple[str, ...] = (
    "name", "user_id", "user_name", "group_id", "group_name", "account", "partition", "qos",
    "state", "reason", "exit_code", "exit_signal", "cancelled", "cancelled_by", "eligible_time",
    "start_time", "end_time", "time_limit_min", "nodes", "num_nodes", "num_cpus", "num_tasks",
    "mem_per_node_mb", "mem_per_cpu_mb", "work_dir", "restarts", "priority", "gpus", "tres_per_node",
    "array_job_id", "array_task_str", "array_remainder", "suspended_secs", "suspend_time",
    "features", "submit_line", "reservation",
)  # fmt: skip

# StepInfo fields stored in a column of the same name (step_id is the key).
_STEP_FIELDS: tuple[str, ...] = (
    "name", "state", "exit_code", "exit_signal", "start_time", "end_time", "nodes", "num_cpus",
    "num_tasks", "max_rss_kb", "user_cpu_usec", "system_cpu_usec", "max_rss_node",
)  # fmt: skip

# Named steps listed before the numbered ones, in this order (as sacct shows them).
_NAMED_STEP_RANK = {"batch": 0, "extern": 1, "interactive": 2}

# Largest number of job ids in one "IN (...)" while looking up a batch's existing rows.
_LOOKUP_CHUNK = 500


class AccountingStore:
    """Job records in one SQL database, reached by a SQLAlchemy URL."""

    def __init__(self, url: str) -> None:
        self._engine = _create_engine(url)
        self._sessions = sessionmaker(self._engine, expire_on_commit=False)

    @property
    def engine(self) -> Engine:
        """The engine, for migrations and diagnostics."""
        return self._engine

    @property
    def sessions(self) -> sessionmaker[Session]:
        """The session factory, for the association administration on the same database."""
        return self._sessions

    def create_schema(self) -> None:
        """Create or migrate the schema to the current version; safe to call on every start."""
        migrate(self._engine)

    def schema_version(self) -> int | None:
        """The version written in the database, or None when there is none."""
        with self._engine.connect() as conn:
            return stored_version(conn) or None

    def record(self, records: Iterable[JobRecord]) -> None:
        """Upsert a batch of job snapshots in one transaction; the later of two snapshots wins."""
        batch = list(records)
        if not batch:
            return
        with self._sessions.begin() as session:
            rows = _load_rows(session, {_record_key(r) for r in batch})
            for rec in batch:
                key = _record_key(rec)
                row = rows.get(key)
                if row is None:
                    row = JobRow(cluster=key[0], job_id=key[1], submit_time=key[2])
                    session.add(row)
                    rows[key] = row
                _apply_record(row, rec)
            # The hours a record covers need rolling up again (from when it waited or ran).
            mark_dirty(session, (t for rec in batch for t in (rec.job.eligible_time, rec.job.start_time)))
        log.debug("recorded %d job records", len(batch))

    def query(self, q: AccountingQuery, now: int) -> list[JobRecord]:
        """The records of :meth:`batch`, as a list."""
        return list(self.batch(q, now).records)

    def batch(self, q: AccountingQuery, now: int) -> JobRecordBatch:
        """Job records matching ``q``, ordered by job id then submit time; ``now`` ends the window
        when ``q.end_time`` is 0. With ``q.without_steps`` the records carry no steps (sacct -X)."""
        # Plain column rows, not ORM objects: at ~1,000 records the identity map and attribute
        # instrumentation were most of the query's time.
        stmt = (
            select(*_JOB_COLUMNS, _association_id(), _qos_id(), _reservation_id())
            .where(*_query_conditions(q, now))
            .order_by(JobRow.job_id, JobRow.submit_time, JobRow.id)
        )
        with self._engine.connect() as conn:
            rows = conn.execute(stmt).all()
            steps = {} if q.without_steps else _steps_of(conn, {row[0]: row[2] for row in rows})
        batch = JobRecordBatch()
        for row in rows:
            _fill_record(batch.records.add(), row, steps.get(row[0], ()))
        return batch

    def close(self) -> None:
        """Release every pooled connection."""
        self._engine.dispose()

    def __enter__(self) -> AccountingStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


# --- engine ---------------------------------------------------------------------------------


def _create_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets its directory, WAL and cross-thread connections."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)
    database = parsed.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"check_same_thread": False})
    event.listen(engine, "connect", _configure_sqlite)
    return engine


def _configure_sqlite(dbapi_connection: Any, _record: Any) -> None:
    """Per-connection SQLite settings: WAL journal, NORMAL sync, enforced foreign keys."""
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


# --- writing --------------------------------------------------------------------------------


def _record_key(rec: JobRecord) -> JobKey:
    return (rec.cluster, rec.job.job_id, rec.job.submit_time)


def _chunks(items: Sequence[int], size: int) -> Iterator[Sequence[int]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _load_rows(session: Session, keys: set[JobKey]) -> dict[JobKey, JobRow]:
    """The existing rows (with their steps) among ``keys``."""
    job_ids = sorted({job_id for _, job_id, _ in keys})
    found: dict[JobKey, JobRow] = {}
    for chunk in _chunks(job_ids, _LOOKUP_CHUNK):
        stmt = (
            select(JobRow).where(JobRow.job_id.in_(chunk)).options(selectinload(JobRow.steps))
        )
        for row in session.scalars(stmt):
            key = (row.cluster, row.job_id, row.submit_time)
            if key in keys:
                found[key] = row
    return found


def _apply_record(row: JobRow, rec: JobRecord) -> None:
    """Overwrite ``row`` with the snapshot ``rec``: job columns, then the set of steps."""
    for field in _JOB_FIELDS:
        setattr(row, field, getattr(rec.job, field))
    row.alloc_cpus = rec.alloc_cpus
    row.node_names = node_names_key(rec.job.nodes)
    _replace_steps(row, rec.steps)


def _replace_steps(row: JobRow, steps: Iterable[StepInfo]) -> None:
    """Make ``row.steps`` the snapshot's steps: update by step id, add new, drop missing.

    A step id given twice in one snapshot keeps its last values.
    """
    existing = {step.step_id: step for step in row.steps}
    kept: dict[str, StepRow] = {}
    for info in steps:
        step = kept.get(info.step_id) or existing.get(info.step_id)
        if step is None:
            step = StepRow(step_id=info.step_id)
        for field in _STEP_FIELDS:
            setattr(step, field, getattr(info, field))
        step.gpu_usage = _gpu_usage_text(info.gpus)
        kept[info.step_id] = step
    row.steps = list(kept.values())


# --- reading --------------------------------------------------------------------------------


def _query_conditions(q: AccountingQuery, now: int) -> list[ColumnElement[bool]]:
    """The WHERE clauses of ``q``: the filters, and unless ``q.duplicates`` only the latest of
    the matching records of each job id."""
    conditions = _filters(q, now, JobRow)
    if not q.duplicates:
        later = aliased(JobRow)
        conditions.append(~exists().where(
            later.cluster == JobRow.cluster, later.job_id == JobRow.job_id,
            later.submit_time > JobRow.submit_time, *_filters(q, now, later)))
    return conditions


def _filters(q: AccountingQuery, now: int, row: Any) -> list[ColumnElement[bool]]:
    """Each given filter of ``q`` and the time window, on ``row`` (``JobRow`` or an alias).

    Without states the window selects on eligibility; with states (``-s``) it selects the jobs
    that were in one of them during the window (``_state_conditions``).
    """
    conditions: list[ColumnElement[bool]] = [
        or_(*_state_conditions(q, now, row)) if q.states else _window_condition(q, now, row)]
    if q.job_ids:
        # An array id names every task of the array.
        ids = list(q.job_ids)
        conditions.append(or_(row.job_id.in_(ids), row.array_job_id.in_(ids)))
    if q.users:
        conditions.append(_name_or_id(row.user_name, row.user_id, q.users))
    if q.groups:
        conditions.append(_name_or_id(row.group_name, row.group_id, q.groups))
    if q.names:
        conditions.append(row.name.in_(list(q.names)))
    if q.partitions:
        conditions.append(row.partition.in_(list(q.partitions)))
    if q.accounts:
        conditions.append(row.account.in_(list(q.accounts)))
    if q.qos:
        conditions.append(row.qos.in_(list(q.qos)))
    if q.nodes:
        conditions.append(ran_on_any(row.node_names, q.nodes))
    return conditions


def _name_or_id(name: Any, number: Any, wanted: Sequence[str]) -> ColumnElement[bool]:
    """``-u``/``-g`` lists mix names and numeric ids."""
    ids = [int(item) for item in wanted if item.isdigit()]
    return or_(name.in_([item for item in wanted if not item.isdigit()]), number.in_(ids))


def _state_conditions(q: AccountingQuery, now: int, row: Any) -> list[ColumnElement[bool]]:
    """For each state of ``q``: the job was in it at some time in [start, end] (Slurm's rule).

    PENDING: eligible before the end and not started before the start; RUNNING: started before
    the end and not ended before the start (so it includes jobs that since finished);
    SUSPENDED is never recorded; a final state: the job is in it and ended within the window.
    """
    start, end = q.start_time, q.end_time or now
    found: list[ColumnElement[bool]] = []
    for state in {state.upper() for state in q.states}:
        if state == "PENDING":
            found.append(and_(row.eligible_time > 0, row.eligible_time <= end,
                              or_(row.start_time == 0, row.start_time >= start)))
        elif state == "RUNNING":
            found.append(and_(row.start_time > 0, row.start_time <= end,
                              or_(row.end_time == 0, row.end_time >= start)))
        else:
            found.append(and_(row.state == state, row.end_time > 0, row.end_time >= start,
                              row.end_time <= end))
    return found


def _association_id() -> Any:
    """The id of the job's association: the one of its partition, else the account-wide one."""
    return (
        select(AssociationRow.id)
        .where(AssociationRow.cluster == JobRow.cluster, AssociationRow.account == JobRow.account,
               AssociationRow.user == JobRow.user_name,
               AssociationRow.partition.in_([JobRow.partition, ""]))
        .order_by(AssociationRow.partition.desc())
        .limit(1)
        .correlate(JobRow)
        .scalar_subquery()
    )


def _qos_id() -> Any:
    return select(QosRow.id).where(QosRow.name == JobRow.qos).correlate(JobRow).scalar_subquery()


def _reservation_id() -> Any:
    """The id of the reservation the job names: the one of that name not over when it was submitted."""
    return (
        select(ReservationRow.id_resv)
        .where(JobRow.reservation != "", ReservationRow.cluster == JobRow.cluster,
               ReservationRow.name == JobRow.reservation, ReservationRow.time_end >= JobRow.submit_time)
        .order_by(ReservationRow.time_start)
        .limit(1)
        .correlate(JobRow)
        .scalar_subquery()
    )


def _window_condition(q: AccountingQuery, now: int, row: Any) -> ColumnElement[bool]:
    """Eligible at or before the window end and not ended before its start.

    A job that was never eligible (eligible_time 0, e.g. held) is only listed when the query
    names job ids; then it passes the eligibility half of the test, and without an end time so
    does one eligible later (pending on --begin), as real `sacct -j` lists it.
    """
    not_ended_before = or_(row.end_time == 0, row.end_time >= q.start_time)
    if q.job_ids and not q.end_time:
        return not_ended_before
    eligible_by_end = row.eligible_time <= (q.end_time or now)
    if not q.job_ids:
        eligible_by_end = and_(row.eligible_time > 0, eligible_by_end)
    return and_(eligible_by_end, not_ended_before)


def step_sort_key(step_id: str) -> tuple[int, int, str]:
    """Order of steps in a record: batch, extern, interactive, then numbered steps by number,
    then anything else by name."""
    if step_id in _NAMED_STEP_RANK:
        return (0, _NAMED_STEP_RANK[step_id], "")
    if step_id.isdigit():
        return (1, int(step_id), "")
    return (2, 0, step_id)


# What a query reads of a job: its key and row id, then the JobInfo columns (_to_record's order).
_JOB_COLUMNS = (JobRow.id, JobRow.cluster, JobRow.job_id, JobRow.submit_time, JobRow.alloc_cpus,
                *(getattr(JobRow, field) for field in _JOB_FIELDS))
_STEP_COLUMNS = (StepRow.job_pk, StepRow.step_id, StepRow.gpu_usage,
                 *(getattr(StepRow, field) for field in _STEP_FIELDS))


def _steps_of(conn: Any, job_ids: dict[int, int]) -> dict[int, list[StepInfo]]:
    """The steps of these job rows (row id -> job id), per row id, in sacct's order (batch,
    extern, then by number)."""
    found: dict[int, list[tuple[str, StepInfo]]] = {}
    for chunk in _chunks(list(job_ids), _LOOKUP_CHUNK):
        for job_pk, step_id, gpu_usage, *values in conn.execute(
                select(*_STEP_COLUMNS).where(StepRow.job_pk.in_(chunk))):
            info = StepInfo(job_id=job_ids[job_pk], step_id=step_id, **dict(zip(_STEP_FIELDS, values)),
                            gpus=_gpu_usage_list(gpu_usage))
            found.setdefault(job_pk, []).append((step_id, info))
    return {job_pk: [info for _, info in sorted(steps, key=lambda pair: step_sort_key(pair[0]))]
            for job_pk, steps in found.items()}


def _fill_record(record: JobRecord, row: Sequence[Any], steps: Iterable[StepInfo]) -> None:
    """Fill the empty ``record`` (added in place to the reply: building each record and then
    copying it into the batch took twice as long) from one row of _JOB_COLUMNS plus association,
    QOS and reservation ids, with ``steps``. Only the set columns are written: proto3 leaves the
    others at their defaults, as SQL's NULL, 0 and '' read."""
    row_id, cluster, job_id, submit_time, alloc_cpus, *values = row
    *fields, assoc_id, qos_id, reservation_id = values
    record.cluster, record.alloc_cpus, record.db_index = cluster, alloc_cpus, row_id
    record.assoc_id, record.qos_id, record.reservation_id = assoc_id or 0, qos_id or 0, reservation_id or 0
    job = record.job
    job.job_id, job.submit_time = job_id, submit_time
    for name, value in zip(_JOB_FIELDS, fields):
        if value:
            setattr(job, name, value)
    record.steps.extend(steps)


def _gpu_usage_text(gpus: Iterable[GpuUsage]) -> str:
    """A step's GPU figures as stored: a JSON list of GpuUsage objects, "" when it had none."""
    entries = [json_format.MessageToDict(g, preserving_proto_field_name=True) for g in gpus]
    return json.dumps(entries) if entries else ""


def _gpu_usage_list(text: str | None) -> list[GpuUsage]:
    return [json_format.ParseDict(entry, GpuUsage()) for entry in json.loads(text)] if text else []

"""Versioned schema migrations of the accounting database.

The database records its layout version in ``schema_version`` (one row). ``migrate`` runs the
numbered steps after that version, in order, each in its own transaction that also writes the
new version, so a crash between two steps leaves a database that the next start finishes
migrating. An empty database starts at version 0 and runs every step; there is no second
"create from scratch" path.

A step must be idempotent (MariaDB commits DDL implicitly, so a step can be cut in half) and may
only add: tables (``checkfirst``), columns, rows. It creates tables from the current models,
so a later step that adds a column to a table created by an earlier one must tolerate the column
being there already (``_add_missing_columns`` does).

Errors: ``SchemaVersionError`` (fatal) for a database newer than this code; SQL errors propagate
with the failing step rolled back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from sqlalchemy import Connection, Engine, Table, bindparam, delete, func, insert, inspect, select, text, update
from sqlalchemy.schema import CreateColumn

from pyslurm_dbd.association_models import AccountRow, AssociationRow, ClusterRow, QosRow, UserRow
from pyslurm_dbd.coordinators import CoordinatorRow
from pyslurm_dbd.job_nodes import node_names_key
from pyslurm_dbd.models import JobRow, SchemaVersion, StepRow
from pyslurm_dbd.reservation_store import ReservationRow
from pyslurm_dbd.rollup import NOTHING_DIRTY
from pyslurm_dbd.usage_models import AssocHourRow, ClusterHourRow, NodeEventRow, RollupStateRow

log = logging.getLogger(__name__)

DEFAULT_QOS = "normal"
"""The QOS every accounting database has (Slurm's id 1), given to new clusters' root."""


class SchemaVersionError(RuntimeError):
    """The database holds a schema this code does not know (fatal: refuse to touch it)."""


def _tables(*models: type) -> list[Table]:
    return [model.__table__ for model in models]  # type: ignore[attr-defined]


def _create_missing(conn: Connection, tables: Sequence[Table]) -> None:
    for table in tables:
        table.create(conn, checkfirst=True)


def _add_missing_columns(conn: Connection, table: Table, names: Sequence[str]) -> None:
    """``ALTER TABLE ... ADD COLUMN`` for each named model column the table lacks; the column's
    server default fills the existing rows."""
    present = {column["name"] for column in inspect(conn).get_columns(table.name)}
    preparer = conn.dialect.identifier_preparer
    for name in names:
        if name not in present:
            column_ddl = CreateColumn(table.c[name]).compile(dialect=conn.dialect)
            conn.execute(text(f"ALTER TABLE {preparer.format_table(table)} ADD COLUMN {column_ddl}"))


def _v1_jobs_and_steps(conn: Connection) -> None:
    """Job and step records (the layout sacct reads)."""
    _create_missing(conn, _tables(JobRow, StepRow))


def _v2_job_arrays(conn: Connection) -> None:
    """Job array columns (the layout pyslurm shipped as version 2)."""
    present = {column["name"] for column in inspect(conn).get_columns("job")}
    statements = {
        "array_job_id": ["ALTER TABLE job ADD COLUMN array_job_id BIGINT NOT NULL DEFAULT 0",
                         "CREATE INDEX ix_job_array_job_id ON job (array_job_id)"],
        # TEXT takes no default on every backend: add it nullable, then fill it.
        "array_task_str": ["ALTER TABLE job ADD COLUMN array_task_str TEXT", "UPDATE job SET array_task_str = ''"],
        "array_remainder": ["ALTER TABLE job ADD COLUMN array_remainder BOOLEAN NOT NULL DEFAULT FALSE"],
    }
    for column, ddl in statements.items():
        if column not in present:
            for statement in ddl:
                conn.execute(text(statement))


def _v3_associations_and_qos(conn: Connection) -> None:
    """Clusters, accounts, users, associations and QOS; the ``normal`` QOS."""
    _create_missing(conn, _tables(ClusterRow, AccountRow, UserRow, AssociationRow, QosRow))
    if conn.scalar(select(func.count()).select_from(QosRow).where(QosRow.name == DEFAULT_QOS)) == 0:
        conn.execute(insert(QosRow).values(name=DEFAULT_QOS, description="Normal QOS default"))


def _v4_job_gpus(conn: Connection) -> None:
    """GPUs of each job (sacct's gres/gpu TRES)."""
    _add_missing_columns(conn, _tables(JobRow)[0], ["gpus", "tres_per_node"])


def _v5_step_peak_node(conn: Connection) -> None:
    """The node of each step's peak memory (sacct MaxRSSNode)."""
    _add_missing_columns(conn, _tables(StepRow)[0], ["max_rss_node"])


def _v6_events_and_usage(conn: Connection) -> None:
    """Node events and the hourly usage rollups (sacctmgr show event, sreport)."""
    _create_missing(conn, _tables(NodeEventRow, ClusterHourRow, AssocHourRow))


def _v7_job_suspended_time(conn: Connection) -> None:
    """How long each job was suspended (sacct Suspended)."""
    _add_missing_columns(conn, _tables(JobRow)[0], ["suspended_secs", "suspend_time"])


def _v8_rollup_state(conn: Connection) -> None:
    """Where the hourly roll-up stands; existing usage rows are recomputed from the start."""
    _create_missing(conn, _tables(RollupStateRow))
    if conn.scalar(select(func.count()).select_from(RollupStateRow)) == 0:
        conn.execute(insert(RollupStateRow).values(id=1, rolled_until=0, dirty_from=NOTHING_DIRTY))


def _v9_job_node_names(conn: Connection) -> None:
    """Each job's nodes expanded into ``node_names`` (sacct -N), filled for existing records."""
    job = _tables(JobRow)[0]
    if "node_names" not in {column["name"] for column in inspect(conn).get_columns("job")}:
        # TEXT takes no default on every backend: add it nullable, then fill it.
        conn.execute(text("ALTER TABLE job ADD COLUMN node_names TEXT"))
    unfilled = conn.execute(select(job.c.id, job.c.nodes).where(job.c.node_names.is_(None))).all()
    if unfilled:
        conn.execute(update(job).where(job.c.id == bindparam("pk")).values(node_names=bindparam("names")),
                     [{"pk": pk, "names": node_names_key(nodes or "")} for pk, nodes in unfilled])


def _v10_job_constraints_and_submit_line(conn: Connection) -> None:
    """What each job asked for by --constraint and the command line that submitted it (sacct
    Constraints, SubmitLine); "" for the records written before."""
    present = {column["name"] for column in inspect(conn).get_columns("job")}
    for column in ("features", "submit_line"):
        if column not in present:
            conn.execute(text(f"ALTER TABLE job ADD COLUMN {column} TEXT"))
        conn.execute(text(f"UPDATE job SET {column} = '' WHERE {column} IS NULL"))


def _v11_step_gpu_usage(conn: Connection) -> None:
    """What each step's GPUs did (sacct gres/gpuutil and gres/gpumem, seff); "" for the records
    written before."""
    if "gpu_usage" not in {column["name"] for column in inspect(conn).get_columns("step")}:
        conn.execute(text("ALTER TABLE step ADD COLUMN gpu_usage TEXT"))
    conn.execute(text("UPDATE step SET gpu_usage = '' WHERE gpu_usage IS NULL"))


def _v12_reservations(conn: Connection) -> None:
    """Reservations (sacctmgr show reservation) and each job's reservation (sacct Reservation)."""
    if "reservation" not in {column["name"] for column in inspect(conn).get_columns("job")}:
        conn.execute(text("ALTER TABLE job ADD COLUMN reservation TEXT"))   # TEXT takes no default
    conn.execute(text("UPDATE job SET reservation = '' WHERE reservation IS NULL"))
    _create_missing(conn, _tables(ReservationRow))


def _v13_account_coordinators(conn: Connection) -> None:
    """Account coordinators (sacctmgr add coordinator, show user withcoord)."""
    _create_missing(conn, _tables(CoordinatorRow))


STEPS: dict[int, Callable[[Connection], None]] = {
    1: _v1_jobs_and_steps,
    2: _v2_job_arrays,
    3: _v3_associations_and_qos,
    4: _v4_job_gpus,
    5: _v5_step_peak_node,
    6: _v6_events_and_usage,
    7: _v7_job_suspended_time,
    8: _v8_rollup_state,
    9: _v9_job_node_names,
    10: _v10_job_constraints_and_submit_line,
    11: _v11_step_gpu_usage,
    12: _v12_reservations,
    13: _v13_account_coordinators,
}
SCHEMA_VERSION = max(STEPS)
"""The version this code reads and writes: the number of the last step."""


def stored_version(conn: Connection) -> int:
    """The version recorded in the database; 0 for an empty database."""
    if not inspect(conn).has_table(SchemaVersion.__tablename__):
        return 0
    return int(conn.scalar(select(func.max(SchemaVersion.version))) or 0)


def migrate(engine: Engine) -> int:
    """Bring the database to ``SCHEMA_VERSION``; returns the version it started from."""
    with engine.begin() as conn:
        start = stored_version(conn)
        _tables(SchemaVersion)[0].create(conn, checkfirst=True)
    if start > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"accounting database has schema version {start}, this pyslurmdbd knows version {SCHEMA_VERSION}"
        )
    for version in range(start + 1, SCHEMA_VERSION + 1):
        with engine.begin() as conn:
            STEPS[version](conn)
            conn.execute(delete(SchemaVersion))
            conn.execute(insert(SchemaVersion).values(version=version))
        # One log line whatever the docstring's layout: each log line must read as Slurm's.
        summary = " ".join((STEPS[version].__doc__ or "").split())
        log.info("accounting schema migrated to version %d (%s)", version, summary)
    return start

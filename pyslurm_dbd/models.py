"""SQL schema of the accounting database: one row per job record, one per step.

This module owns the table layout only (SQLAlchemy 2.0 typed declarative models); reading and
writing them is ``pyslurm_dbd.store``. The schema must work unchanged on SQLite, MariaDB and
PostgreSQL, so:

* every indexed or unique string column has an explicit length (MariaDB needs one), free-form
  user-supplied strings (job names, reasons, node lists, paths) are ``Text`` so that no value can
  make a write fail;
* unsigned 32-bit wire fields (ids, uids, counts) are ``BigInteger``: none of the three databases
  has an unsigned 32-bit type that all agree on, and a signed ``INTEGER`` would overflow;
* constraint and index names come from a naming convention, so migrations can refer to them.

Times are Unix epoch seconds, 0 meaning "not yet" / unknown, exactly as on the wire.

``SchemaVersion`` holds a single row with the version of the whole layout; the numbered steps
of ``pyslurm_dbd.migrations`` bring a database from any older version to the current one. The
association and QOS tables are in ``pyslurm_dbd.association_models``.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

_NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# Surrogate keys: BIGINT everywhere, but SQLite only auto-increments "INTEGER PRIMARY KEY".
SurrogateKey = BigInteger().with_variant(Integer(), "sqlite")


class Base(DeclarativeBase):
    """Declarative base of the accounting tables."""

    metadata = MetaData(naming_convention=_NAMING_CONVENTION)


class SchemaVersion(Base):
    """The version of the table layout; exactly one row."""

    __tablename__ = "schema_version"

    version: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)


class JobRow(Base):
    """The latest snapshot of one job, keyed by (cluster, job_id, submit_time)."""

    __tablename__ = "job"
    __table_args__ = (
        UniqueConstraint("cluster", "job_id", "submit_time"),
        Index(None, "job_id"),
        Index(None, "user_name"),
        Index(None, "eligible_time"),
        Index(None, "submit_time"),
        Index(None, "end_time"),
    )

    id: Mapped[int] = mapped_column(SurrogateKey, primary_key=True, autoincrement=True)
    cluster: Mapped[str] = mapped_column(String(64))
    job_id: Mapped[int] = mapped_column(BigInteger)
    submit_time: Mapped[int] = mapped_column(BigInteger)

    name: Mapped[str] = mapped_column(Text, default="")
    user_id: Mapped[int] = mapped_column(BigInteger, default=0)
    user_name: Mapped[str] = mapped_column(String(64), default="")
    group_id: Mapped[int] = mapped_column(BigInteger, default=0)
    group_name: Mapped[str] = mapped_column(String(64), default="")
    account: Mapped[str] = mapped_column(String(128), default="")
    partition: Mapped[str] = mapped_column(String(255), default="")
    qos: Mapped[str] = mapped_column(String(64), default="")
    state: Mapped[str] = mapped_column(String(32), default="")
    reason: Mapped[str] = mapped_column(Text, default="")
    exit_code: Mapped[int] = mapped_column(Integer, default=0)
    exit_signal: Mapped[int] = mapped_column(Integer, default=0)
    cancelled: Mapped[bool] = mapped_column(Boolean, default=False)
    cancelled_by: Mapped[int] = mapped_column(BigInteger, default=0)
    eligible_time: Mapped[int] = mapped_column(BigInteger, default=0)
    start_time: Mapped[int] = mapped_column(BigInteger, default=0)
    end_time: Mapped[int] = mapped_column(BigInteger, default=0)
    time_limit_min: Mapped[int] = mapped_column(BigInteger, default=0)
    nodes: Mapped[str] = mapped_column(Text, default="")
    alloc_cpus: Mapped[int] = mapped_column(BigInteger, default=0)
    num_nodes: Mapped[int] = mapped_column(BigInteger, default=0)
    num_cpus: Mapped[int] = mapped_column(BigInteger, default=0)
    num_tasks: Mapped[int] = mapped_column(BigInteger, default=0)
    mem_per_node_mb: Mapped[int] = mapped_column(BigInteger, default=0)
    mem_per_cpu_mb: Mapped[int] = mapped_column(BigInteger, default=0)
    work_dir: Mapped[str] = mapped_column(Text, default="")
    restarts: Mapped[int] = mapped_column(BigInteger, default=0)
    priority: Mapped[int] = mapped_column(BigInteger, default=0)
    # Version 2: job arrays (0 / "" / False for other jobs).
    array_job_id: Mapped[int] = mapped_column(BigInteger, default=0, index=True)
    array_task_str: Mapped[str] = mapped_column(Text, default="")
    array_remainder: Mapped[bool] = mapped_column(Boolean, default=False)
    # Added in schema version 4, hence the server defaults (rows written before have none).
    gpus: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    tres_per_node: Mapped[str] = mapped_column(String(255), default="", server_default="")
    # Added in schema version 7.
    suspended_secs: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    suspend_time: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    # Added in schema version 9: the allocated nodes as pyslurm_dbd.job_nodes searches them. A
    # LIKE '%,n1,%' cannot use an index, so none is kept: the window and other filters narrow.
    node_names: Mapped[str] = mapped_column(Text, default="")
    # Added in schema version 10: --constraint as given and the submitting command line.
    features: Mapped[str] = mapped_column(Text, default="")
    submit_line: Mapped[str] = mapped_column(Text, default="")
    # Added in schema version 12: --reservation ("" none).
    reservation: Mapped[str] = mapped_column(Text, default="")

    steps: Mapped[list[StepRow]] = relationship(
        back_populates="job", cascade="all, delete-orphan", passive_deletes=True
    )


class StepRow(Base):
    """The latest snapshot of one step of a job record."""

    __tablename__ = "step"
    __table_args__ = (UniqueConstraint("job_pk", "step_id"),)

    id: Mapped[int] = mapped_column(SurrogateKey, primary_key=True, autoincrement=True)
    job_pk: Mapped[int] = mapped_column(
        SurrogateKey, ForeignKey("job.id", ondelete="CASCADE")
    )
    step_id: Mapped[str] = mapped_column(String(32))
    name: Mapped[str] = mapped_column(Text, default="")
    state: Mapped[str] = mapped_column(String(32), default="")
    exit_code: Mapped[int] = mapped_column(Integer, default=0)
    exit_signal: Mapped[int] = mapped_column(Integer, default=0)
    start_time: Mapped[int] = mapped_column(BigInteger, default=0)
    end_time: Mapped[int] = mapped_column(BigInteger, default=0)
    nodes: Mapped[str] = mapped_column(Text, default="")
    num_cpus: Mapped[int] = mapped_column(BigInteger, default=0)
    num_tasks: Mapped[int] = mapped_column(BigInteger, default=0)
    max_rss_kb: Mapped[int] = mapped_column(BigInteger, default=0)
    user_cpu_usec: Mapped[int] = mapped_column(BigInteger, default=0)
    system_cpu_usec: Mapped[int] = mapped_column(BigInteger, default=0)
    # Added in schema version 5.
    max_rss_node: Mapped[str] = mapped_column(String(64), default="", server_default="")
    # Added in schema version 11: what each of its GPUs did, a JSON list of types.proto GpuUsage.
    gpu_usage: Mapped[str] = mapped_column(Text, default="")

    job: Mapped[JobRow] = relationship(back_populates="steps")

"""Schema migrations on SQLite, MariaDB and PostgreSQL: a version-1 database (as pyslurm 0.1
shipped it, with job records in it) is brought to the current version (array columns, the
association tables ...) without losing data."""

from __future__ import annotations

import pytest
from sqlalchemy import BigInteger, Boolean, Column, ForeignKey, Integer, MetaData, String, Table, Text
from sqlalchemy import create_engine, inspect, insert, select

from pyslurm_common.rpc.dbd_pb2 import AccountingQuery, JobRecord
from pyslurm_common.rpc.types_pb2 import JobInfo
from pyslurm_dbd import migrations
from pyslurm_dbd.association_models import QosRow
from pyslurm_dbd.store import AccountingStore


def _v1_metadata() -> MetaData:
    """The version-1 layout, frozen: job and step tables and the version table."""
    meta = MetaData()
    Table("schema_version", meta, Column("version", Integer, primary_key=True, autoincrement=False))
    Table(
        "job", meta,
        Column("id", BigInteger().with_variant(Integer(), "sqlite"), primary_key=True, autoincrement=True),
        Column("cluster", String(64)), Column("job_id", BigInteger), Column("submit_time", BigInteger),
        Column("name", Text), Column("user_id", BigInteger), Column("user_name", String(64)),
        Column("group_id", BigInteger), Column("group_name", String(64)), Column("account", String(128)),
        Column("partition", String(255)), Column("qos", String(64)), Column("state", String(32)),
        Column("reason", Text), Column("exit_code", Integer), Column("exit_signal", Integer),
        Column("cancelled", Boolean), Column("cancelled_by", BigInteger), Column("eligible_time", BigInteger),
        Column("start_time", BigInteger), Column("end_time", BigInteger), Column("time_limit_min", BigInteger),
        Column("nodes", Text), Column("alloc_cpus", BigInteger), Column("num_nodes", BigInteger),
        Column("num_cpus", BigInteger), Column("num_tasks", BigInteger), Column("mem_per_node_mb", BigInteger),
        Column("mem_per_cpu_mb", BigInteger), Column("work_dir", Text), Column("restarts", BigInteger),
        Column("priority", BigInteger),
    )  # fmt: skip
    Table(
        "step", meta,
        Column("id", BigInteger().with_variant(Integer(), "sqlite"), primary_key=True, autoincrement=True),
        Column("job_pk", BigInteger().with_variant(Integer(), "sqlite"), ForeignKey("job.id", ondelete="CASCADE")),
        Column("step_id", String(32)), Column("name", Text), Column("state", String(32)),
        Column("exit_code", Integer), Column("exit_signal", Integer), Column("start_time", BigInteger),
        Column("end_time", BigInteger), Column("nodes", Text), Column("num_cpus", BigInteger),
        Column("num_tasks", BigInteger), Column("max_rss_kb", BigInteger), Column("user_cpu_usec", BigInteger),
        Column("system_cpu_usec", BigInteger),
    )  # fmt: skip
    return meta


_JOB_DEFAULTS = dict(
    name="", user_id=0, group_id=0, group_name="", account="", partition="debug", qos="", reason="",
    exit_code=0, exit_signal=0, cancelled=False, cancelled_by=0, start_time=110, time_limit_min=5,
    nodes="n1", alloc_cpus=1, num_nodes=1, num_cpus=1, num_tasks=1, mem_per_node_mb=0,
    mem_per_cpu_mb=0, work_dir="/tmp", restarts=0, priority=1,
)  # fmt: skip


def _make_v1_database(url: str) -> None:
    meta = _v1_metadata()
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            meta.create_all(conn)
            conn.execute(insert(meta.tables["schema_version"]).values(version=1))
            job = meta.tables["job"]
            inserted = conn.execute(insert(job).values(
                cluster="lab", job_id=41, submit_time=100, user_name="alice", state="COMPLETED",
                eligible_time=100, end_time=200, **_JOB_DEFAULTS))  # fmt: skip
            conn.execute(insert(meta.tables["step"]).values(
                job_pk=inserted.inserted_primary_key[0], step_id="batch", name="batch", state="COMPLETED", exit_code=0, exit_signal=0,
                start_time=110, end_time=200, nodes="n1", num_cpus=1, num_tasks=1, max_rss_kb=2048,
                user_cpu_usec=5, system_cpu_usec=6))  # fmt: skip
    finally:
        engine.dispose()


def test_version_1_database_is_migrated_keeping_its_jobs(accounting_url: str) -> None:
    _make_v1_database(accounting_url)
    with AccountingStore(accounting_url) as store:
        assert store.schema_version() == 1
        store.create_schema()
        assert store.schema_version() == migrations.SCHEMA_VERSION
        (record,) = store.query(AccountingQuery(job_ids=[41]), now=1000)
        assert (record.cluster, record.job.user_name, record.job.state) == ("lab", "alice", "COMPLETED")
        assert [(s.step_id, s.max_rss_kb, s.max_rss_node) for s in record.steps] == [("batch", 2048, "")]  # v5
        assert (record.job.array_job_id, record.job.array_task_str) == (0, "")  # columns of version 2
        task = JobRecord(cluster="lab", job=JobInfo(job_id=43, array_job_id=42, array_task_str="1", submit_time=300,
                                                    eligible_time=300, name="", partition="debug"))
        store.record([task])
        assert [r.job.job_id for r in store.query(AccountingQuery(job_ids=[42]), now=1000)] == [43]
        assert (record.job.gpus, record.job.tres_per_node) == (0, "")  # columns added by version 4
        assert _ids(store.query(AccountingQuery(nodes=["n1"]), now=1000)) == [41]  # filled by version 9
        assert store.query(AccountingQuery(nodes=["n2"]), now=1000) == []
        assert (record.job.features, record.job.submit_line) == ("", "")  # columns of version 10
        assert [list(s.gpus) for s in record.steps] == [[]]  # column of version 11
        tables = set(inspect(store.engine).get_table_names())
        assert {"cluster", "account", "acct_user", "association", "qos"} <= tables
        assert {"event", "usage_cluster_hour", "usage_assoc_hour"} <= tables  # version 6
        with store.sessions() as session:
            assert session.scalars(select(QosRow.name)).all() == ["normal"]


def _ids(records: list[JobRecord]) -> list[int]:
    return [r.job.job_id for r in records]


def test_empty_database_runs_every_step(accounting_url: str) -> None:
    with AccountingStore(accounting_url) as store:
        assert store.schema_version() is None
        assert migrations.migrate(store.engine) == 0
        assert store.schema_version() == migrations.SCHEMA_VERSION
        assert migrations.migrate(store.engine) == migrations.SCHEMA_VERSION  # nothing left to do


def test_steps_are_idempotent(accounting_url: str) -> None:
    with AccountingStore(accounting_url) as store:
        store.create_schema()
        for step in migrations.STEPS.values():
            with store.engine.begin() as conn:
                step(conn)
        with store.sessions() as session:
            assert session.scalars(select(QosRow.name)).all() == ["normal"]


def test_newer_database_is_refused_untouched(accounting_url: str) -> None:
    with AccountingStore(accounting_url) as store:
        store.create_schema()
        with store.engine.begin() as conn:
            conn.execute(migrations.SchemaVersion.__table__.update().values(version=99))
        with pytest.raises(migrations.SchemaVersionError, match="schema version 99"):
            store.create_schema()
        assert store.schema_version() == 99

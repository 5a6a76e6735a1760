"""AccountingStore against real SQLite, MariaDB and PostgreSQL databases: upserts, sacct
filters, the window, durability."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select, text

from pyslurm_common.rpc.dbd_pb2 import AccountingQuery, JobRecord
from pyslurm_common.rpc.types_pb2 import JobInfo, StepInfo
from pyslurm_dbd.migrations import SCHEMA_VERSION
from pyslurm_dbd.store import AccountingStore, SchemaVersionError, step_sort_key

NOW = 10_000


def _step(step_id: str, state: str = "RUNNING", end: int = 0) -> StepInfo:
    return StepInfo(step_id=step_id, name=step_id, state=state, start_time=1100, end_time=end)


def _record(
    job_id: int,
    *,
    submit: int = 1000,
    eligible: int = 1000,
    end: int = 0,
    state: str = "RUNNING",
    user: str = "alice",
    name: str = "wrap",
    partition: str = "debug",
    steps: Sequence[StepInfo] = (),
    cluster: str = "lab",
) -> JobRecord:
    job = JobInfo(
        job_id=job_id,
        name=name,
        user_name=user,
        partition=partition,
        state=state,
        submit_time=submit,
        eligible_time=eligible,
        start_time=eligible if state != "PENDING" else 0,
        end_time=end,
    )
    rec = JobRecord(cluster=cluster, job=job, steps=list(steps), alloc_cpus=1)
    for step in rec.steps:
        step.job_id = job_id
    return rec


def _query(**fields: object) -> AccountingQuery:
    return AccountingQuery(**fields)  # type: ignore[arg-type]


def _as_sent(records: Sequence[JobRecord]) -> list[JobRecord]:
    """Query replies without the ids the daemon fills in (database index, association, QOS)."""
    for rec in records:
        rec.ClearField("db_index")
        rec.ClearField("assoc_id")
        rec.ClearField("qos_id")
    return list(records)


def _ids(records: Sequence[JobRecord]) -> list[int]:
    return [r.job.job_id for r in records]


def _sql(url: str, statement: str) -> list[tuple[object, ...]]:
    """Run one SQL statement on its own connection (outside the store), committing it."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            result = conn.execute(text(statement))
            return [tuple(row) for row in result] if result.returns_rows else []
    finally:
        engine.dispose()


def _count(url: str, table: str) -> int:
    ((n,),) = _sql(url, f"SELECT count(*) FROM {table}")
    return int(n)  # type: ignore[call-overload]


# --- schema and engine ----------------------------------------------------------------------


def test_create_schema_writes_the_current_version(store: AccountingStore, accounting_url: str) -> None:
    assert store.schema_version() == SCHEMA_VERSION == 13
    assert _sql(accounting_url, "SELECT version FROM schema_version") == [(13,)]


def test_sqlite_file_gets_its_directory_and_wal(tmp_path: Path) -> None:
    db_path = tmp_path / "acct" / "pyslurmdbd.sqlite"
    with AccountingStore(f"sqlite:///{db_path}") as s:
        s.create_schema()
    assert db_path.exists()
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def _array_task(job_id: int, array_job_id: int, task: str, remainder: bool = False) -> JobRecord:
    rec = _record(job_id)
    rec.job.array_job_id, rec.job.array_task_str, rec.job.array_remainder = array_job_id, task, remainder
    return rec


def test_array_id_names_every_task_of_the_array(store: AccountingStore) -> None:
    store.record([_array_task(7, 7, "3"), _array_task(8, 7, "1"), _array_task(9, 7, "2"), _record(10)])
    assert _ids(store.query(_query(job_ids=[7]), NOW)) == [7, 8, 9]
    assert _ids(store.query(_query(job_ids=[8]), NOW)) == [8]


def test_create_schema_twice_keeps_one_version_row(store: AccountingStore, accounting_url: str) -> None:
    store.create_schema()
    assert _count(accounting_url, "schema_version") == 1


def test_unknown_schema_version_is_refused(store: AccountingStore, accounting_url: str) -> None:
    _sql(accounting_url, "UPDATE schema_version SET version = 99")
    with pytest.raises(SchemaVersionError):
        store.create_schema()


# --- upserts --------------------------------------------------------------------------------


def test_same_record_twice_is_one_row(store: AccountingStore, accounting_url: str) -> None:
    rec = _record(1, steps=[_step("batch")])
    store.record([rec])
    store.record([rec])
    assert _count(accounting_url, "job") == 1
    assert _count(accounting_url, "step") == 1
    assert _as_sent(store.query(_query(job_ids=[1]), NOW)) == [rec]


def test_later_snapshot_updates_state_end_time_and_steps(
    store: AccountingStore, accounting_url: str
) -> None:
    store.record([_record(1, steps=[_step("batch"), _step("0"), _step("1")])])
    done = _record(
        1,
        state="COMPLETED",
        end=2000,
        steps=[_step("batch", "COMPLETED", 2000), _step("0", "COMPLETED", 1500)],
    )
    store.record([done])

    (got,) = store.query(_query(job_ids=[1]), NOW)
    assert got.job.state == "COMPLETED"
    assert got.job.end_time == 2000
    assert [(s.step_id, s.state, s.end_time) for s in got.steps] == [
        ("batch", "COMPLETED", 2000),
        ("0", "COMPLETED", 1500),
    ]
    assert _count(accounting_url, "job") == 1
    assert _count(accounting_url, "step") == 2  # step 1, absent from the snapshot, is gone


def test_two_snapshots_in_one_batch_last_wins(store: AccountingStore, accounting_url: str) -> None:
    store.record([_record(1, state="RUNNING"), _record(1, state="FAILED", end=1500)])
    (got,) = store.query(_query(job_ids=[1]), NOW)
    assert (got.job.state, got.job.end_time) == ("FAILED", 1500)
    assert _count(accounting_url, "job") == 1


def test_key_includes_cluster_and_submit_time(store: AccountingStore) -> None:
    store.record(
        [
            _record(7, submit=1000, end=1200, state="REQUEUED"),
            _record(7, submit=1300, eligible=1300),
            _record(7, submit=1000, cluster="other"),
        ]
    )
    got = store.query(_query(job_ids=[7], duplicates=True), NOW)
    assert [(r.cluster, r.job.submit_time) for r in got] == [
        ("lab", 1000),
        ("other", 1000),
        ("lab", 1300),
    ]


def test_all_stored_fields_round_trip(store: AccountingStore) -> None:
    job = JobInfo(
        job_id=42, name="train", user_id=1001, group_id=1002, user_name="bob",
        group_name="lab", partition="gpu", account="ml", qos="normal", state="CANCELLED",
        reason="None", priority=4294967295, num_nodes=2, num_cpus=8, num_tasks=4,
        mem_per_node_mb=64000, mem_per_cpu_mb=0, time_limit_min=-1, submit_time=100,
        eligible_time=101, start_time=102, end_time=103, nodes="n[1-2]", exit_code=0,
        exit_signal=15, work_dir="/home/bob", restarts=3, cancelled_by=1001, cancelled=True,
        gpus=4, tres_per_node="gres:gpu:a100:2",
    )  # fmt: skip
    step = StepInfo(
        job_id=42, step_id="0", name="python", state="CANCELLED", exit_code=0, exit_signal=15,
        start_time=102, end_time=103, nodes="n[1-2]", num_cpus=8, num_tasks=4,
    )  # fmt: skip
    rec = JobRecord(cluster="lab", job=job, steps=[step], alloc_cpus=8)
    store.record([rec])
    assert _as_sent(store.query(_query(job_ids=[42]), NOW)) == [rec]


def test_empty_batch_is_a_no_op(store: AccountingStore, accounting_url: str) -> None:
    store.record([])
    assert _count(accounting_url, "job") == 0


# --- filters --------------------------------------------------------------------------------


@pytest.fixture
def mixed(store: AccountingStore) -> AccountingStore:
    store.record(
        [
            _record(1, user="alice", name="wrap", partition="debug", state="COMPLETED", end=2000),
            _record(2, user="bob", name="train", partition="gpu", state="RUNNING"),
            _record(3, user="alice", name="train", partition="gpu", state="FAILED", end=2500),
            _record(4, user="carol", name="eval", partition="debug", state="PENDING"),
        ]
    )
    return store


def test_filter_job_ids(mixed: AccountingStore) -> None:
    assert _ids(mixed.query(_query(job_ids=[3, 1, 99]), NOW)) == [1, 3]


def test_filter_users(mixed: AccountingStore) -> None:
    assert _ids(mixed.query(_query(users=["alice"]), NOW)) == [1, 3]


def test_filter_names(mixed: AccountingStore) -> None:
    assert _ids(mixed.query(_query(names=["train", "eval"]), NOW)) == [2, 3, 4]


def test_filter_partitions(mixed: AccountingStore) -> None:
    assert _ids(mixed.query(_query(partitions=["debug"]), NOW)) == [1, 4]


def test_filter_states(mixed: AccountingStore) -> None:
    assert _ids(mixed.query(_query(states=["COMPLETED", "failed"]), NOW)) == [1, 3]


def test_filter_accounts_and_qos(store: AccountingStore) -> None:
    first, second, third = _record(1), _record(2), _record(3)
    first.job.account, second.job.account, third.job.account = "physics", "chem", "physics"
    first.job.qos, second.job.qos, third.job.qos = "normal", "normal", "high"
    store.record([first, second, third])
    assert _ids(store.query(_query(accounts=["physics"]), NOW)) == [1, 3]
    assert _ids(store.query(_query(qos=["normal"]), NOW)) == [1, 2]
    assert _ids(store.query(_query(accounts=["physics"], qos=["normal"]), NOW)) == [1]


def test_filter_nodes_finds_jobs_that_ran_on_any_of_them(store: AccountingStore) -> None:
    """-N matches whole node names inside each job's hostlist; `_` is no LIKE wildcard here."""
    allocations = {1: "n[1-3]", 2: "n10", 3: "gpu_1,n2", 4: "gpuX1", 5: ""}
    records = [_record(job_id) for job_id in allocations]
    for rec in records:
        rec.job.nodes = allocations[rec.job.job_id]
    store.record(records)
    assert _ids(store.query(_query(nodes=["n2"]), NOW)) == [1, 3]
    assert _ids(store.query(_query(nodes=["n1"]), NOW)) == [1]             # not n10
    assert _ids(store.query(_query(nodes=["n10", "n3"]), NOW)) == [1, 2]
    assert _ids(store.query(_query(nodes=["gpu_1"]), NOW)) == [3]          # not gpuX1
    assert _ids(store.query(_query(nodes=["n2"], job_ids=[3, 4]), NOW)) == [3]
    records[1].job.nodes = "n2"                                              # a newer snapshot
    store.record([records[1]])
    assert _ids(store.query(_query(nodes=["n2"]), NOW)) == [1, 2, 3]


def test_filters_combine(mixed: AccountingStore) -> None:
    q = _query(users=["alice"], names=["train"], partitions=["gpu"], states=["FAILED"])
    assert _ids(mixed.query(q, NOW)) == [3]
    assert mixed.query(_query(users=["carol"], states=["RUNNING"]), NOW) == []


def test_without_steps_leaves_them_out(store: AccountingStore) -> None:
    store.record([_record(1, steps=[_step("batch"), _step("0")])])
    (whole,) = store.query(_query(job_ids=[1]), NOW)
    (bare,) = store.query(_query(job_ids=[1], without_steps=True), NOW)
    assert len(whole.steps) == 2 and len(bare.steps) == 0 and bare.job == whole.job


def test_users_and_groups_by_name_or_number(store: AccountingStore) -> None:
    first, second = _record(1, user="alice"), _record(2, user="bob")
    first.job.user_id, second.job.user_id = 1001, 1002
    first.job.group_name, second.job.group_name = "lab", "staff"
    first.job.group_id, second.job.group_id = 500, 600
    store.record([first, second])
    assert _ids(store.query(_query(users=["1002"]), NOW)) == [2]
    assert _ids(store.query(_query(users=["alice", "1002"]), NOW)) == [1, 2]
    assert _ids(store.query(_query(groups=["600"]), NOW)) == [2]
    assert _ids(store.query(_query(groups=["lab"]), NOW)) == [1]


# --- -s/--state: in the state at some time in the window ------------------------------------


@pytest.fixture
def states(store: AccountingStore) -> AccountingStore:
    """1 ran 1100-2000 and completed; 2 runs since 3000; 3 pends (eligible 1000); 4 failed at 5000."""
    one = _record(1, eligible=1000, state="COMPLETED", end=2000)
    one.job.start_time = 1100
    two = _record(2, eligible=2900, state="RUNNING")
    two.job.start_time = 3000
    store.record([one, two, _record(3, eligible=1000, state="PENDING"),
                  _record(4, eligible=1000, state="FAILED", end=5000)])
    return store


def test_state_running_now_lists_only_what_runs_now(states: AccountingStore) -> None:
    # sacct -s R without -S/-E: start = end = now
    assert _ids(states.query(_query(states=["RUNNING"], start_time=NOW, end_time=NOW), NOW)) == [2]


def test_state_running_includes_jobs_that_ran_in_the_window(states: AccountingStore) -> None:
    q = _query(states=["RUNNING"], start_time=1500, end_time=3500)
    assert _ids(states.query(q, NOW)) == [1, 2, 4]  # 4 started at 1000 (eligible) and ended at 5000


def test_state_final_states_need_their_end_in_the_window(states: AccountingStore) -> None:
    assert _ids(states.query(_query(states=["COMPLETED"], start_time=1500, end_time=2500), NOW)) == [1]
    assert states.query(_query(states=["COMPLETED"], start_time=2500, end_time=9000), NOW) == []
    assert _ids(states.query(_query(states=["FAILED", "COMPLETED"], start_time=0, end_time=NOW), NOW)) == [1, 4]


def test_state_pending_means_eligible_and_not_yet_started(states: AccountingStore) -> None:
    assert _ids(states.query(_query(states=["PENDING"], start_time=NOW, end_time=NOW), NOW)) == [3]
    assert _ids(states.query(_query(states=["PENDING"], start_time=900, end_time=1050), NOW)) == [1, 3, 4]


def test_query_reply_carries_db_index_association_and_qos_ids(store: AccountingStore) -> None:
    from pyslurm_dbd.association_models import AssociationRow, QosRow

    rec = _record(1, user="alice")
    rec.job.account, rec.job.qos = "physics", "normal"
    store.record([rec, _record(2, user="bob")])
    with store.sessions.begin() as session:
        session.add(AssociationRow(cluster="lab", account="physics", user="alice", partition=""))
        session.add(AssociationRow(cluster="lab", account="physics", user="alice", partition="debug"))
    with store.sessions() as session:
        wanted = session.scalars(select(AssociationRow.id).where(AssociationRow.partition == "debug")).one()
        normal = session.scalars(select(QosRow.id).where(QosRow.name == "normal")).one()
    first, second = store.query(_query(), NOW)
    assert (first.assoc_id, first.qos_id) == (wanted, normal)  # the partition's association wins
    assert (second.assoc_id, second.qos_id) == (0, 0)
    assert first.db_index != second.db_index > 0


def test_unknown_job_id_gives_nothing(mixed: AccountingStore) -> None:
    assert mixed.query(_query(job_ids=[99]), NOW) == []


# --- the time window ------------------------------------------------------------------------


@pytest.fixture
def timeline(store: AccountingStore) -> AccountingStore:
    store.record(
        [
            _record(1, eligible=100, end=400, state="COMPLETED"),  # ended before the window
            _record(2, eligible=100, end=500, state="COMPLETED"),  # ended at the window start
            _record(3, eligible=100, state="RUNNING"),  # still running
            _record(4, eligible=800, end=900, state="COMPLETED"),  # inside the window
            _record(5, eligible=1000, state="PENDING"),  # eligible at the window end
            _record(6, eligible=1001, state="PENDING"),  # eligible after the window
        ]
    )
    return store


def test_window_lists_jobs_eligible_by_end_and_not_ended_before_start(
    timeline: AccountingStore,
) -> None:
    got = timeline.query(_query(start_time=500, end_time=1000), NOW)
    assert _ids(got) == [2, 3, 4, 5]


def test_window_end_zero_means_now(timeline: AccountingStore) -> None:
    assert _ids(timeline.query(_query(start_time=500), now=1000)) == [2, 3, 4, 5]
    assert _ids(timeline.query(_query(start_time=500), now=NOW)) == [2, 3, 4, 5, 6]


def test_window_start_zero_means_epoch(timeline: AccountingStore) -> None:
    assert _ids(timeline.query(_query(), NOW)) == [1, 2, 3, 4, 5, 6]


def test_window_applies_to_job_id_queries_too(timeline: AccountingStore) -> None:
    q = _query(job_ids=[1, 4, 6], start_time=500, end_time=1000)
    assert _ids(timeline.query(q, NOW)) == [4]


def test_a_job_eligible_later_is_listed_by_id_without_an_end_time(timeline: AccountingStore) -> None:
    """Pending on --begin: real `sacct -j` lists it (Slurm 22.05.8: PENDING, its Eligible an hour
    ahead); a window that ends before it is eligible still leaves it out, as without -j."""
    assert _ids(timeline.query(_query(job_ids=[6]), now=1000)) == [6]
    assert _ids(timeline.query(_query(job_ids=[6], start_time=500), now=1000)) == [6]
    assert _ids(timeline.query(_query(job_ids=[6], end_time=1000), now=1000)) == []
    assert _ids(timeline.query(_query(), now=1000)) == [1, 2, 3, 4, 5]


def test_held_job_is_listed_only_by_id(store: AccountingStore) -> None:
    store.record([_record(9, eligible=0, state="PENDING"), _record(10, eligible=100)])
    assert _ids(store.query(_query(), NOW)) == [10]
    assert _ids(store.query(_query(users=["alice"]), NOW)) == [10]
    assert _ids(store.query(_query(job_ids=[9]), NOW)) == [9]
    assert _ids(store.query(_query(job_ids=[9, 10], start_time=50), NOW)) == [9, 10]


# --- requeued jobs: one record per submission ----------------------------------------------


@pytest.fixture
def requeued(store: AccountingStore) -> AccountingStore:
    store.record(
        [
            _record(7, submit=1000, eligible=1000, end=1200, state="REQUEUED"),
            _record(7, submit=1300, eligible=1300, state="RUNNING"),
            _record(8, submit=1000, eligible=1000, end=1100, state="COMPLETED"),
            _record(7, submit=1000, cluster="other"),
        ]
    )
    return store


def test_only_the_latest_record_of_an_id_by_default(requeued: AccountingStore) -> None:
    got = requeued.query(_query(), NOW)
    assert [(r.cluster, r.job.job_id, r.job.state) for r in got] == [
        ("other", 7, "RUNNING"),
        ("lab", 7, "RUNNING"),
        ("lab", 8, "COMPLETED"),
    ]


def test_duplicates_lists_every_record(requeued: AccountingStore) -> None:
    got = requeued.query(_query(job_ids=[7], duplicates=True), NOW)
    assert [(r.cluster, r.job.submit_time) for r in got] == [("lab", 1000), ("other", 1000), ("lab", 1300)]


def test_latest_is_chosen_among_the_matching_records(requeued: AccountingStore) -> None:
    got = requeued.query(_query(states=["REQUEUED"]), NOW)
    assert [(r.job.job_id, r.job.submit_time) for r in got] == [(7, 1000)]
    window = requeued.query(_query(start_time=0, end_time=1250), NOW)
    assert [(r.cluster, r.job.job_id, r.job.submit_time) for r in window] == [
        ("lab", 7, 1000), ("other", 7, 1000), ("lab", 8, 1000)]


# --- ordering -------------------------------------------------------------------------------


def test_results_ordered_by_job_id_then_submit_time(store: AccountingStore) -> None:
    store.record([_record(12), _record(3, submit=1500), _record(3, submit=900), _record(7)])
    got = store.query(_query(duplicates=True), NOW)
    assert [(r.job.job_id, r.job.submit_time) for r in got] == [
        (3, 900),
        (3, 1500),
        (7, 1000),
        (12, 1000),
    ]


def test_steps_ordered_batch_first_then_by_number(store: AccountingStore) -> None:
    ids = ["10", "2", "extern", "0", "batch", "1"]
    store.record([_record(1, steps=[_step(i) for i in ids])])
    (got,) = store.query(_query(job_ids=[1]), NOW)
    assert [s.step_id for s in got.steps] == ["batch", "extern", "0", "1", "2", "10"]
    assert all(s.job_id == 1 for s in got.steps)


def test_step_sort_key_puts_unknown_names_last() -> None:
    assert sorted(["x", "3", "interactive", "batch"], key=step_sort_key) == [
        "batch",
        "interactive",
        "3",
        "x",
    ]


# --- durability -----------------------------------------------------------------------------


def test_second_store_on_same_database_sees_the_data(accounting_url: str) -> None:
    first = AccountingStore(accounting_url)
    first.create_schema()
    rec = _record(5, steps=[_step("batch")])
    first.record([rec])

    concurrent = AccountingStore(accounting_url)
    assert _as_sent(concurrent.query(_query(job_ids=[5]), NOW)) == [rec]
    concurrent.close()
    first.close()

    reopened = AccountingStore(accounting_url)
    reopened.create_schema()
    assert _as_sent(reopened.query(_query(job_ids=[5]), NOW)) == [rec]
    reopened.close()


def test_constraints_and_submit_line_are_stored(store: AccountingStore) -> None:
    rec = _record(1)
    rec.job.features, rec.job.submit_line = "a|b", "salloc -C a|b -N 1"
    store.record([rec])
    (got,) = store.query(_query(job_ids=[1]), NOW)
    assert (got.job.features, got.job.submit_line) == ("a|b", "salloc -C a|b -N 1")


def test_step_gpu_usage_round_trips(store: AccountingStore) -> None:
    step = _step("batch", "COMPLETED", end=1200)
    step.gpus.add(node="gpu1", index=2, samples=7, util_ave=41, util_max=99, mem_ave_bytes=2**30,
                  mem_max_bytes=3 * 2**30, power_max_mw=250_000, lost=True, foreign_pids=[7, 9])
    store.record([_record(5, steps=[step, _step("0")])])
    (got,) = store.query(_query(job_ids=[5]), NOW)
    assert [list(s.gpus) for s in got.steps] == [list(step.gpus), []]

"""Reservations in the accounting database (SQLite, MariaDB, PostgreSQL): changes before the
start replace the row, deletion before the start removes it and after ends it, a repeated
record changes nothing, the query's window and filters, and UnusedWall from the jobs that ran
in the reservation (sacct Reservation is stored with each job)."""
from __future__ import annotations

from typing import Any

from pyslurm_common.rpc.dbd_pb2 import AccountingQuery, JobRecord, ReservationQuery, ReservationRecord
from pyslurm_common.rpc.types_pb2 import JobInfo
from pyslurm_dbd.reservation_store import ReservationStore
from pyslurm_dbd.store import AccountingStore

T = 1_000_000


def _resv(**changes: Any) -> ReservationRecord:
    fields: dict[str, Any] = dict(cluster="lab", id=1, name="maint", time_start=T, time_end=T + 3600, nodes="n[1-2]",
                                  node_count=2, flags="MAINT,SPEC_NODES", cpus=8, users="root", time=T - 100)
    fields.update(changes)
    return ReservationRecord(**fields)


def _shown(resvs: ReservationStore, now: int = T + 7200, **query: Any) -> list[tuple[str, int, int, float]]:
    return [(r.name, r.time_start, r.time_end, r.unused_wall)
            for r in resvs.query(ReservationQuery(**query), now)]


def test_changes_before_the_start_replace_the_row_and_a_delete_removes_it(store: AccountingStore) -> None:
    resvs = ReservationStore(store.sessions)
    resvs.record([_resv()])
    resvs.record([_resv(), _resv(time_end=T + 1800, time=T - 50)])      # the outbox sent the first twice
    assert _shown(resvs) == [("maint", T, T + 1800, 1800.0)]
    resvs.record([_resv(deleted=True, time=T - 10)])
    assert _shown(resvs) == []


def test_a_deletion_in_force_ends_the_row_and_a_new_start_opens_another(store: AccountingStore) -> None:
    resvs = ReservationStore(store.sessions)
    resvs.record([_resv(flags="DAILY"), _resv(flags="DAILY", time_start=T + 86400, time_end=T + 90000,
                                              time=T + 3600)])
    assert [(r[1], r[2]) for r in _shown(resvs, now=T + 90000)] == [(T, T + 3600), (T + 86400, T + 90000)]
    resvs.record([_resv(deleted=True, time_start=T + 86400, time_end=T + 86500, time=T + 86500)])
    rows = resvs.query(ReservationQuery(), T + 90000)
    assert [(r.time_end, r.deleted) for r in rows] == [(T + 3600, False), (T + 86500, True)]


def test_query_window_and_filters(store: AccountingStore) -> None:
    resvs = ReservationStore(store.sessions)
    resvs.record([_resv(), _resv(id=2, name="course", nodes="n3", cluster="other", time_start=T + 10_000,
                                 time_end=T + 20_000)])
    assert [r[0] for r in _shown(resvs, now=T + 30_000)] == ["maint", "course"]
    assert [r[0] for r in _shown(resvs, now=T + 30_000, start_time=T + 5000)] == ["course"]
    assert [r[0] for r in _shown(resvs, now=T + 30_000, clusters=["lab"])] == ["maint"]
    assert [r[0] for r in _shown(resvs, now=T + 30_000, names=["course"])] == ["course"]
    assert [r[0] for r in _shown(resvs, now=T + 30_000, nodes=["n2"])] == ["maint"]
    assert [r[0] for r in _shown(resvs, now=T + 30_000, ids=[2])] == ["course"]


def test_unused_wall_counts_the_reservations_jobs(store: AccountingStore) -> None:
    resvs = ReservationStore(store.sessions)
    resvs.record([_resv()])
    job = JobInfo(job_id=5, submit_time=T, name="j", state="COMPLETED", start_time=T + 600, end_time=T + 1800,
                  num_cpus=4, reservation="maint")
    store.record([JobRecord(cluster="lab", job=job, alloc_cpus=4)])
    # 3600 s reserved, the job used half the CPUs for 1200 s: 600 s of the whole reservation.
    assert _shown(resvs) == [("maint", T, T + 3600, 3000.0)]
    assert _shown(resvs, now=T + 1200) == [("maint", T, T + 3600, 900.0)]
    stored = store.query(AccountingQuery(job_ids=[5]), T + 7200)
    assert [r.job.reservation for r in stored] == ["maint"]


def test_a_job_record_carries_the_id_of_the_reservation_it_named(store: AccountingStore) -> None:
    """sacct's ReservationId (real Slurm 22.05 fills it): the reservation of that name in force
    when the job was submitted, not an earlier one of the same name."""
    resvs = ReservationStore(store.sessions)
    resvs.record([_resv(id=3, time_start=T - 9000, time_end=T - 5000), _resv(id=7)])
    jobs = [JobInfo(job_id=i, submit_time=T + 10, name="j", state="COMPLETED", reservation=name)
            for i, name in ((5, "maint"), (6, ""), (8, "gone"))]
    store.record([JobRecord(cluster="lab", job=job) for job in jobs])
    stored = store.query(AccountingQuery(job_ids=[5, 6, 8]), T + 7200)
    assert [(r.job.job_id, r.reservation_id) for r in stored] == [(5, 7), (6, 0), (8, 0)]

"""Hourly usage rollups on SQLite, MariaDB and PostgreSQL: what each hour's CPUs did, per cluster
and per (account, user); re-running changes nothing; late records get their hours redone."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from pyslurm_common.rpc.dbd_pb2 import JobRecord, NodeEventRecord, UsageQuery
from pyslurm_common.rpc.types_pb2 import JobInfo
from pyslurm_dbd.daemon_stats import INTERNAL
from pyslurm_dbd.event_store import EventStore
from pyslurm_dbd.store import AccountingStore
from pyslurm_dbd.usage_models import AssocHourRow, ClusterHourRow
from pyslurm_dbd.usage_reports import UsageReports

H = 3600 * 1000        # an hour boundary


def _job(job_id: int, user: str, account: str, cpus: int, eligible: int, start: int, end: int,
         state: str = "COMPLETED") -> JobRecord:
    return JobRecord(cluster="lab", alloc_cpus=cpus if start else 0, job=JobInfo(
        job_id=job_id, user_name=user, account=account, num_cpus=cpus, state=state, submit_time=eligible,
        eligible_time=eligible, start_time=start, end_time=end))


@pytest.fixture
def history(store: AccountingStore) -> AccountingStore:
    """8 CPUs from H; alice's 2-CPU job runs H+600..H+4200; bob's 4-CPU job waits H..H+1800 and runs
    until H+2400; node n2 (4 CPUs) is DOWN H+3600..H+5400."""
    EventStore(store.sessions).record([
        NodeEventRecord(cluster="lab", time=H, cpus=8, cluster_nodes="n[1-2]"),
        NodeEventRecord(cluster="lab", node="n2", state="DOWN", reason="x", time=H + 3600, cpus=4),
        NodeEventRecord(cluster="lab", node="n2", state="", time=H + 5400, cpus=4),
    ])
    store.record([_job(1, "alice", "physics", 2, H + 600, H + 600, H + 4200),
                  _job(2, "bob", "chem", 4, H, H + 1800, H + 2400)])
    return store


def _hours(store: AccountingStore) -> list[tuple[int, ...]]:
    with store.sessions() as session:
        rows = session.scalars(select(ClusterHourRow).order_by(ClusterHourRow.hour)).all()
        return [(r.hour - H, r.cpu_count, r.alloc_secs, r.down_secs, r.plan_secs, r.idle_secs, r.over_secs)
                for r in rows]


def _assocs(store: AccountingStore) -> list[tuple[str, str, int, int]]:
    with store.sessions() as session:
        rows = session.scalars(select(AssocHourRow).order_by(AssocHourRow.hour, AssocHourRow.user_name)).all()
        return [(r.account, r.user_name, r.hour - H, r.alloc_secs) for r in rows]


EXPECTED_HOURS = [
    (0, 8, 6000 + 2400, 0, 4 * 1800, 28800 - 8400 - 7200, 0),
    (3600, 8, 2 * 600, 4 * 1800, 0, 28800 - 1200 - 7200, 0),
]


def test_each_hour_splits_the_cpus_by_what_they_did(history: AccountingStore) -> None:
    assert UsageReports(history.sessions).roll_up(H + 7200, INTERNAL) == 3
    assert _hours(history) == EXPECTED_HOURS
    assert _assocs(history) == [("physics", "alice", 0, 6000), ("chem", "bob", 0, 2400),
                                ("physics", "alice", 3600, 1200)]


def test_rolling_up_again_changes_nothing(history: AccountingStore, accounting_url: str) -> None:
    reports = UsageReports(history.sessions)
    reports.roll_up(H + 7200, INTERNAL)
    reports.roll_up(H + 7200, INTERNAL)
    assert _hours(history) == EXPECTED_HOURS
    reports.roll_up(H + 7300, INTERNAL)                          # 100 s into the next hour: idle so far
    assert _hours(history) == [*EXPECTED_HOURS, (7200, 8, 0, 0, 0, 800, 0)]
    with history.sessions() as session:
        assert session.scalar(select(func.count()).select_from(AssocHourRow)) == 3


def test_a_late_record_has_its_hours_rolled_up_again(history: AccountingStore) -> None:
    reports = UsageReports(history.sessions)
    reports.roll_up(H + 9000, INTERNAL)
    history.record([_job(3, "carol", "physics", 1, H + 100, H + 100, H + 200)])   # the outbox was late
    reports.roll_up(H + 9000, INTERNAL)
    first = _hours(history)[0]
    assert (first[2], first[5]) == (8400 + 100, 13200 - 100)
    assert ("physics", "carol", 0, 100) in _assocs(history)


def test_running_jobs_count_until_now_and_overcommit_shows(store: AccountingStore) -> None:
    EventStore(store.sessions).record([NodeEventRecord(cluster="lab", time=H, cpus=2, cluster_nodes="n1")])
    store.record([_job(1, "alice", "physics", 4, H, H, 0, state="RUNNING")])
    UsageReports(store.sessions).roll_up(H + 1800, INTERNAL)
    assert _hours(store) == [(0, 2, 4 * 1800, 0, 0, 0, 4 * 1800 - 2 * 1800)]


def test_report_sums_the_window(history: AccountingStore) -> None:
    report = UsageReports(history.sessions).report(UsageQuery(start_time=H, end_time=H + 7200), H + 7200)
    (lab,) = report.clusters
    assert (lab.cluster, lab.cpu_count, lab.alloc_secs, lab.down_secs, lab.plan_secs, lab.idle_secs) == (
        "lab", 8, 9600, 7200, 7200, 33600)
    assert [(u.user, u.account, u.alloc_secs) for u in report.users] == [("alice", "physics", 7200),
                                                                         ("bob", "chem", 2400)]
    only_second = UsageReports(history.sessions).report(
        UsageQuery(start_time=H + 3600, end_time=H + 7200, users=["alice"]), H + 7200)
    assert [(u.user, u.alloc_secs) for u in only_second.users] == [("alice", 1200)]

"""Node and cluster events on SQLite, MariaDB and PostgreSQL: periods from the controller's
records, replays changing nothing, and the sacctmgr show event filters."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pyslurm_common.rpc.dbd_pb2 import EventQuery, NodeEventRecord
from pyslurm_dbd.event_store import EventStore
from pyslurm_dbd.store import AccountingStore

NOW = 10_000


@pytest.fixture
def events(accounting_url: str) -> Iterator[EventStore]:
    store = AccountingStore(accounting_url)
    store.create_schema()
    yield EventStore(store.sessions)
    store.close()


def _rec(node: str, state: str, time: int, reason: str = "", uid: int = 0, cluster: str = "lab") -> NodeEventRecord:
    return NodeEventRecord(cluster=cluster, node=node, state=state, reason=reason, reason_uid=uid, time=time, cpus=4)


def _periods(events: EventStore, **query: object) -> list[tuple[str, str, int, int, str]]:
    found = events.query(EventQuery(**query), NOW)  # type: ignore[arg-type]
    return [(e.node, e.state, e.time_start, e.time_end, e.reason) for e in found]


def test_down_then_resume_is_one_closed_period(events: EventStore) -> None:
    events.record([_rec("n1", "DOWN", 100, "Not responding")])
    assert _periods(events) == [("n1", "DOWN", 100, 0, "Not responding")]
    events.record([_rec("n1", "", 250)])
    assert _periods(events) == [("n1", "DOWN", 100, 250, "Not responding")]


def test_records_of_one_batch_apply_in_time_order(events: EventStore) -> None:
    events.record([_rec("n1", "", 300), _rec("n1", "DOWN", 200, "bad"), _rec("n1", "DRAIN", 100, "disk", 1001)])
    assert _periods(events) == [("n1", "DRAIN", 100, 200, "disk"), ("n1", "DOWN", 200, 300, "bad")]
    (drain, _) = events.query(EventQuery(), NOW)
    assert drain.reason_uid == 1001 and drain.cpus == 4


def test_replayed_records_change_nothing(events: EventStore) -> None:
    batch = [_rec("n1", "DRAIN", 100, "disk"), _rec("n1", "", 200), _rec("n2", "DOWN", 150, "gone")]
    events.record(batch)
    events.record(batch)
    events.record([_rec("n2", "DOWN", 150, "gone")])      # the controller's restart sends it again
    assert _periods(events) == [("n1", "DRAIN", 100, 200, "disk"), ("n2", "DOWN", 150, 0, "gone")]


def test_cluster_size_opens_a_period_only_when_it_changes(events: EventStore) -> None:
    size = NodeEventRecord(cluster="lab", node="", time=50, cpus=8, cluster_nodes="n[1-2]")
    events.record([size])
    events.record([NodeEventRecord(cluster="lab", node="", time=70, cpus=8, cluster_nodes="n[1-2]")])
    events.record([NodeEventRecord(cluster="lab", node="", time=90, cpus=12, cluster_nodes="n[1-3]")])
    found = events.query(EventQuery(kind="cluster"), NOW)
    assert [(e.time_start, e.time_end, e.cpus, e.cluster_nodes) for e in found] == [
        (50, 90, 8, "n[1-2]"), (90, 0, 12, "n[1-3]")]
    assert _periods(events, kind="node") == []


def test_filters_and_window(events: EventStore) -> None:
    events.record([_rec("n1", "DOWN", 100, "a"), _rec("n1", "", 200), _rec("n2", "DRAIN", 300, "b", 7),
                   _rec("n3", "DOWN", 400, "c", cluster="other")])
    assert [p[0] for p in _periods(events, start_time=250)] == ["n2", "n3"]     # n1's ended before
    assert [p[0] for p in _periods(events, start_time=0, end_time=150)] == ["n1"]
    assert [p[0] for p in _periods(events, states=["drain"])] == ["n2"]
    assert [p[0] for p in _periods(events, nodes=["n1", "n3"])] == ["n1", "n3"]
    assert [p[0] for p in _periods(events, clusters=["other"])] == ["n3"]
    assert [p[0] for p in _periods(events, reasons=["b"])] == ["n2"]
    assert [p[0] for p in _periods(events, reason_uids=[7])] == ["n2"]

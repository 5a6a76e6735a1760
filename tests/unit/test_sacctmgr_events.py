"""sacctmgr show event: conditions, default window, columns and values."""
from __future__ import annotations

import calendar
import pwd

import pytest

from cli import sacctmgr_args, sacctmgr_events
from cli.print_fields import render
from pyslurm_common.rpc import messages as pb

NOW = float(calendar.timegm((2026, 12, 2, 15, 0, 0)))
YESTERDAY = calendar.timegm((2026, 12, 1, 0, 0, 0))


@pytest.fixture(autouse=True)
def _utc(utc: None) -> None:
    """Every test here runs in UTC."""


def _query(*words: str) -> "pb.EventQuery":
    request = sacctmgr_args.parse(["show", "event", *words])
    return sacctmgr_events.query(request.where, "lab", NOW)


def test_default_window_is_since_yesterday_midnight_on_the_local_cluster() -> None:
    q = _query()
    assert (q.start_time, q.end_time, list(q.clusters), q.kind) == (YESTERDAY, 0, ["lab"], "")


def test_states_ask_what_is_so_now() -> None:
    q = _query("where", "States=drain,down", "nodes=n1,n2")
    assert (q.start_time, list(q.states), list(q.nodes), q.kind) == (int(NOW), ["DRAIN", "DOWN"], ["n1", "n2"], "node")


def test_explicit_window_clusters_and_kinds() -> None:
    q = _query("Start=2026-11-30T00:00:00", "End=2026-12-01T00:00:00", "all_clusters", "cluster")
    assert (q.start_time, q.end_time, list(q.clusters), q.kind) == (
        calendar.timegm((2026, 11, 30, 0, 0, 0)), YESTERDAY, [], "cluster")
    assert _query("all_time", "Events=Node").start_time == 0 and _query("Events=Node").kind == "node"
    assert list(_query("user=root").reason_uids) == [0]


@pytest.mark.parametrize(("word", "message"), [
    ("Events=bogus", " Unknown event type: 'bogus'  Valid events are Cluster and Node."),
    ("States=idle", "Invalid state: idle\nValid node states are: DRAIN DOWN"),
    ("Colour=red", " Unknown condition: Colour=red"),
])
def test_bad_conditions(word: str, message: str) -> None:
    with pytest.raises(sacctmgr_events.EventArgumentError) as err:
        _query(word)
    assert str(err.value) == message


def test_default_node_listing() -> None:
    names, columns = sacctmgr_events.columns("", cluster_events=False)
    events = [pb.NodeEvent(cluster="lab", node="n1", state="DRAIN", reason="new disk", reason_uid=0,
                           time_start=YESTERDAY + 3600, time_end=0, cpus=4)]
    lines = render(columns, (sacctmgr_events.values(names, e, int(NOW)) for e in events))
    user = f"{pwd.getpwuid(0).pw_name}(0)"
    assert lines == [
        "   Cluster NodeName                  TimeStart             TimeEnd  State                         Reason "
        "      User ",
        "---------- --------------- ------------------- ------------------- ------ ------------------------------ "
        "---------- ",
        f"       lab n1              2026-12-01T01:00:00             Unknown  DRAIN                       new disk "
        f"{user:>10} ",
    ]


def test_cluster_listing_and_aliases() -> None:
    names, columns = sacctmgr_events.columns("", cluster_events=True)
    assert [c.name for c in columns] == ["Cluster", "CPU Cnt", "TimeStart", "TimeEnd", "Cluster Nodes"]
    size = pb.NodeEvent(cluster="lab", time_start=100, time_end=3700, cpus=8, cluster_nodes="n[1-2]")
    assert sacctmgr_events.values(names, size, int(NOW)) == ["lab", "8", "1970-01-01T00:01:40",
                                                             "1970-01-01T01:01:40", "n[1-2]"]
    names, _ = sacctmgr_events.columns("NodeName,Start,End,Duration,Event", cluster_events=False)
    assert names == ["NodeName", "TimeStart", "TimeEnd", "Duration", "Event"]
    assert sacctmgr_events.values(names[3:], size, int(NOW)) == ["01:00:00", "Cluster"]

"""Node events through the real controller, accounting daemon and sacctmgr: drain, down and resume
are recorded with reason, user and time, also while the accounting daemon is away."""
from __future__ import annotations

import pwd

from .conftest import Cluster, wait_for


def _events(cluster: Cluster, *conditions: str) -> list[list[str]]:
    out = cluster.run("sacctmgr", "-n", "-P", "show", "event", *conditions,
                      "format=NodeName,State,Reason,User,TimeStart,TimeEnd", check=True).stdout
    return [line.split("|") for line in out.splitlines()]


def test_drain_and_resume_make_one_closed_event(cluster: Cluster) -> None:
    node = cluster.run("sinfo", "-h", "-N", "-o", "%N", check=True).stdout.split()[0]
    cluster.run("scontrol", "update", f"nodename={node}", "state=drain", "reason=new disk", check=True)
    root = f"{pwd.getpwuid(0).pw_name}(0)"
    mine = (f"nodes={node}", "reason=new disk")    # the cluster is shared with other tests
    wait_for(lambda: len(_events(cluster, *mine)) == 1)
    (drained,) = _events(cluster, *mine)
    assert drained[:4] == [node, "DRAIN", "new disk", root] and drained[5] == "Unknown"
    assert _events(cluster, "states=drain", *mine) == [drained]          # open now
    cluster.run("scontrol", "update", f"nodename={node}", "state=resume", check=True)
    wait_for(lambda: _events(cluster, *mine)[0][5] != "Unknown")
    (closed,) = _events(cluster, *mine)
    assert closed[:5] == drained[:5] and closed[5] >= closed[4]
    # no longer drained now (once the second in which it ended is over)
    wait_for(lambda: _events(cluster, "states=drain", *mine) == [], timeout=5)
    header = cluster.run("sacctmgr", "show", "event", *mine, check=True).stdout.splitlines()[0]
    assert header.split() == ["Cluster", "NodeName", "TimeStart", "TimeEnd", "State", "Reason", "User"]
    size = cluster.run("sacctmgr", "-n", "-P", "show", "event", "events=cluster", check=True).stdout.split("|")
    assert size[0] == cluster.spec.cluster_name and int(size[1]) > 0


def test_events_wait_for_the_accounting_daemon(cluster: Cluster) -> None:
    node = cluster.run("sinfo", "-h", "-N", "-o", "%N", check=True).stdout.split()[-1]
    cluster.stop("dbd")
    cluster.run("scontrol", "update", f"nodename={node}", "state=drain", "reason=while away", check=True)
    cluster.run("scontrol", "update", f"nodename={node}", "state=resume", check=True)
    cluster.start("dbd")
    wait_for(lambda: cluster.run("sacctmgr", "-n", "show", "event").returncode == 0, timeout=30)
    wait_for(lambda: [e[:3] for e in _events(cluster, f"nodes={node}", "reason=while away")]
             == [[node, "DRAIN", "while away"]], timeout=30)
    (event,) = _events(cluster, f"nodes={node}", "reason=while away")
    assert event[5] != "Unknown"                       # the resume arrived too, in order

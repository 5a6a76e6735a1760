"""What the controller tells accounting about nodes: DOWN/DRAIN with reason, user and time, back in
service, the cluster size; driven through the core's real events."""
from __future__ import annotations

from pathlib import Path

from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.model.events import NodeAdminChanged, NodeFailed
from pyslurm_ctld.translate.node_events import NodeEvent, NodeEventWatcher

from tests.builders import make_manager


def test_baseline_reports_the_size_and_nodes_out_of_service(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    apply(mgr, NodeAdminChanged(("n2",), "DRAIN", "disk", 1001, 50))
    watcher = NodeEventWatcher()
    cpus = sum(rec.config.cpus for rec in mgr.nodes.values())
    assert watcher.baseline(mgr.nodes, 100) == [
        NodeEvent("n2", "DRAIN", "disk", 1001, 50, mgr.nodes["n2"].config.cpus),
        NodeEvent("", "", "", 0, 100, cpus, "n[1-2]"),
    ]
    assert watcher.changes(mgr.nodes, 120) == []     # nothing new


def test_down_drain_and_resume_each_report_once(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    watcher = NodeEventWatcher()
    watcher.baseline(mgr.nodes, 0)
    cpus = mgr.nodes["n1"].config.cpus
    apply(mgr, NodeFailed("n1", "Not responding", 200))
    assert watcher.changes(mgr.nodes, 205) == [NodeEvent("n1", "DOWN", "Not responding", 0, 200, cpus)]
    assert watcher.changes(mgr.nodes, 206) == []
    apply(mgr, NodeAdminChanged(("n1",), "RESUME", "", 0, 300))
    assert watcher.changes(mgr.nodes, 301) == [NodeEvent("n1", "", "", 0, 301, cpus)]
    apply(mgr, NodeAdminChanged(("n1", "n2"), "DRAIN", "maintenance", 1001, 400))
    assert [(e.node, e.state, e.reason_uid, e.time) for e in watcher.changes(mgr.nodes, 401)] == [
        ("n1", "DRAIN", 1001, 400), ("n2", "DRAIN", 1001, 400)]
    apply(mgr, NodeAdminChanged(("n1",), "DOWN", "dead", 0, 500))   # drained and down: DOWN
    assert [(e.node, e.state, e.reason) for e in watcher.changes(mgr.nodes, 501)] == [("n1", "DOWN", "dead")]

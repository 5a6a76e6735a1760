"""Which node changes accounting hears about: DOWN, DRAIN and back in service, and the cluster's size.

``NodeEventWatcher`` remembers the condition it last reported for each node and, asked after a
change, returns a ``NodeEvent`` for every node whose condition differs: DOWN (down, whatever the
drain flag), DRAIN, or back in service (empty state), with the reason, the user who gave it and
the time it took effect. ``baseline`` is what a (re)started controller reports: every node that
is DOWN or DRAIN now, and the cluster's size; the accounting daemon ignores what it already has.

Node conditions change through journaled events (``NODE_STATE_EVENTS``: node failure, admin
drain/down/resume, a batch step or prolog failure that drains its node, nodes joining or leaving)
and through registration (a node that answers again); the controller asks the watcher after
those only, so a job-only commit costs nothing here. Pure: no clock, no I/O.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pyslurm_common.hostlist import compress

from ..model.events import BatchFinished, JobRequeued, NodeAdminChanged, NodeCreated, NodeFailed, NodesDeleted
from ..model.nodes import NodeRecord

NODE_STATE_EVENTS = (NodeFailed, NodeAdminChanged, BatchFinished, JobRequeued, NodeCreated, NodesDeleted)
"""Journaled events whose apply can change a node's DOWN/DRAIN condition."""


@dataclass(frozen=True, slots=True)
class NodeEvent:
    """A node entered ``state`` (DOWN, DRAIN; "" = back in service) at ``time``; with an empty
    ``node``, the cluster has ``cpus`` CPUs on ``cluster_nodes`` from ``time`` on."""

    node: str
    state: str
    reason: str
    reason_uid: int
    time: int
    cpus: int
    cluster_nodes: str = ""


def _condition(rec: NodeRecord) -> tuple[str, str, int, int]:
    """(state, reason, uid, since) of a node; ("", "", 0, 0) while it is in service."""
    state = "DOWN" if rec.down else "DRAIN" if rec.drain else ""
    if not state:
        return ("", "", 0, 0)
    return (state, rec.reason, rec.reason_uid, rec.reason_time)


class NodeEventWatcher:
    """The last condition reported for each node, and the cluster size last reported."""

    def __init__(self) -> None:
        self._reported: dict[str, tuple[str, str, int, int]] = {}
        self._size: tuple[int, str] = (0, "")

    def baseline(self, nodes: Mapping[str, NodeRecord], now: int) -> list[NodeEvent]:
        """Every node out of service now, and the cluster's size (after a start or reconfigure)."""
        self._reported = {name: _condition(rec) for name, rec in nodes.items()}
        found = [self._event(rec, condition, now) for rec in nodes.values()
                 if (condition := _condition(rec))[0]]
        self._size = (0, "")
        return found + self._size_change(nodes, now)

    def changes(self, nodes: Mapping[str, NodeRecord], now: int) -> list[NodeEvent]:
        """Events for the nodes whose condition changed since last asked, and a changed size."""
        found = []
        for name, rec in nodes.items():
            condition = _condition(rec)
            if self._reported.get(name, ("", "", 0, 0)) != condition:
                self._reported[name] = condition
                found.append(self._event(rec, condition, now))
        for gone in set(self._reported) - set(nodes):
            del self._reported[gone]
        return found + self._size_change(nodes, now)

    @staticmethod
    def _event(rec: NodeRecord, condition: tuple[str, str, int, int], now: int) -> NodeEvent:
        state, reason, uid, since = condition
        return NodeEvent(rec.name, state, reason, uid, since or now, rec.config.cpus)

    def _size_change(self, nodes: Mapping[str, NodeRecord], now: int) -> list[NodeEvent]:
        size = (sum(rec.config.cpus for rec in nodes.values()), compress(sorted(nodes)) if nodes else "")
        if size == self._size:
            return []
        self._size = size
        return [NodeEvent("", "", "", 0, now, size[0], size[1])]

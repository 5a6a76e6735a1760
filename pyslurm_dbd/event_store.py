"""Node and cluster events: the controller's records in, ``sacctmgr show event`` answers out.

The controller sends a record each time a node goes DOWN or DRAIN (with reason, user and time),
comes back into service (empty state), and, at start and reconfiguration, the cluster's size
(empty node, its CPU count and nodes). ``record`` turns them into periods in the ``event``
table, one transaction per batch, in time order:

* DOWN/DRAIN at t: the node's open event, if it is another one, ends at t; a new one opens at t
  unless that very event (node, state, start) is already stored;
* back in service at t: the node's open event ends at t;
* cluster size at t: like DOWN/DRAIN, on the cluster's own row (empty node), when the CPU count
  or the nodes changed.

So a record sent twice (the controller's outbox retries, and it sends every current condition
again after its own restart) changes nothing the second time. ``query`` applies every filter in
SQL: events that overlap the window, by node, state, cluster, reason and user. Errors propagate
as ``sqlalchemy.exc.SQLAlchemyError`` with the batch rolled back.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import ColumnElement, and_, or_, select
from sqlalchemy.orm import Session, sessionmaker

from pyslurm_common.rpc.dbd_pb2 import EventQuery, NodeEvent, NodeEventRecord
from pyslurm_dbd.rollup import mark_dirty
from pyslurm_dbd.usage_models import NodeEventRow

_FIELDS = ("cluster", "node", "state", "reason", "reason_uid", "time_start", "time_end", "cpus",
           "cluster_nodes")


class EventStore:
    """Node and cluster events in the accounting database."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def record(self, records: Iterable[NodeEventRecord]) -> None:
        """Apply a batch of records in time order, in one transaction."""
        batch = sorted(records, key=lambda r: r.time)
        if not batch:
            return
        with self._sessions.begin() as session:
            for rec in batch:
                _apply(session, rec)
            mark_dirty(session, (rec.time for rec in batch))

    def query(self, q: EventQuery, now: int) -> list[NodeEvent]:
        """Events matching ``q``, by cluster, node and start time."""
        stmt = (select(NodeEventRow).where(*_conditions(q, now))
                .order_by(NodeEventRow.cluster, NodeEventRow.node, NodeEventRow.time_start))
        with self._sessions() as session:
            return [NodeEvent(**{name: getattr(row, name) for name in _FIELDS}) for row in session.scalars(stmt)]


def _apply(session: Session, rec: NodeEventRecord) -> None:
    open_row = session.scalars(
        select(NodeEventRow).where(NodeEventRow.cluster == rec.cluster, NodeEventRow.node == rec.node,
                                   NodeEventRow.time_end == 0)
        .order_by(NodeEventRow.time_start.desc())).first()
    if rec.node and not rec.state:                      # back in service
        if open_row is not None and open_row.time_start <= rec.time:
            open_row.time_end = rec.time
        return
    if open_row is not None and _same(open_row, rec):
        return
    if open_row is not None and open_row.time_start <= rec.time:
        open_row.time_end = rec.time
    elif open_row is not None:
        return                                          # an older record arriving late
    known = session.scalars(select(NodeEventRow.id).where(
        NodeEventRow.cluster == rec.cluster, NodeEventRow.node == rec.node,
        NodeEventRow.time_start == rec.time, NodeEventRow.state == rec.state)).first()
    if known is None:
        session.add(NodeEventRow(cluster=rec.cluster, node=rec.node, state=rec.state, reason=rec.reason,
                                 reason_uid=rec.reason_uid, time_start=rec.time, time_end=0, cpus=rec.cpus,
                                 cluster_nodes=rec.cluster_nodes))
    session.flush()


def _same(row: NodeEventRow, rec: NodeEventRecord) -> bool:
    if not rec.node:                                    # the cluster's size
        return (row.cpus, row.cluster_nodes) == (rec.cpus, rec.cluster_nodes)
    return (row.state, row.time_start) == (rec.state, rec.time)


def _conditions(q: EventQuery, now: int) -> list[ColumnElement[bool]]:
    row = NodeEventRow
    end = q.end_time or now
    found: list[ColumnElement[bool]] = [row.time_start <= end,
                                        or_(row.time_end == 0, row.time_end >= q.start_time)]
    if q.kind == "node":
        found.append(row.node != "")
    elif q.kind == "cluster":
        found.append(row.node == "")
    if q.nodes:
        found.append(row.node.in_(list(q.nodes)))
    if q.states:
        found.append(row.state.in_([s.upper() for s in q.states]))
    if q.clusters:
        found.append(row.cluster.in_(list(q.clusters)))
    if q.reasons:
        found.append(row.reason.in_(list(q.reasons)))
    if q.reason_uids:
        found.append(and_(row.node != "", row.reason_uid.in_(list(q.reason_uids))))
    return found

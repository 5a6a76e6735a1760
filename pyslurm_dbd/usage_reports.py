"""sreport's questions answered from the hourly rollups: per cluster and per (user, account) sums.

``UsageReports.report`` first brings the rollups up to date (``pyslurm_dbd.rollup.roll_up``, in
its own transaction), then sums the hours in [start, end) in SQL, grouped by cluster, or by
cluster, user and account. Who may see whose usage is decided by the caller (the servicer).
Errors propagate as ``sqlalchemy.exc.SQLAlchemyError``.
"""

from __future__ import annotations

import time

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from pyslurm_common.rpc.dbd_pb2 import ClusterUsage, UsageQuery, UsageReport, UserUsage
from pyslurm_dbd.daemon_stats import USER, RollupRuns
from pyslurm_dbd.rollup import roll_up
from pyslurm_dbd.usage_models import AssocHourRow, ClusterHourRow

_CLUSTER_SUMS = ("alloc_secs", "down_secs", "pdown_secs", "idle_secs", "plan_secs", "over_secs")


class UsageReports:
    """Usage sums over the rollups of one accounting database."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions
        self.runs = RollupRuns()

    def roll_up(self, now: int, cause: str) -> int:
        """Compute the hours that need it; returns how many were. Each run is tallied by its
        cause (daemon_stats.INTERNAL or USER) for sacctmgr show stats."""
        began = time.perf_counter_ns()
        try:
            with self._sessions.begin() as session:
                return roll_up(session, now)
        finally:
            self.runs.ran(cause, now, (time.perf_counter_ns() - began) // 1000)

    def report(self, q: UsageQuery, now: int) -> UsageReport:
        self.roll_up(now, USER)
        with self._sessions() as session:
            return UsageReport(clusters=self._clusters(session, q), users=self._users(session, q))

    @staticmethod
    def _clusters(session: Session, q: UsageQuery) -> list[ClusterUsage]:
        row = ClusterHourRow
        stmt = (select(row.cluster, func.sum(row.cpu_count), func.count(), *(func.sum(getattr(row, name))
                                                                            for name in _CLUSTER_SUMS))
                .where(row.hour >= q.start_time, row.hour < q.end_time).group_by(row.cluster).order_by(row.cluster))
        if q.clusters:
            stmt = stmt.where(row.cluster.in_(list(q.clusters)))
        found = []
        for cluster, cpu_sum, hours, *sums in session.execute(stmt):
            values = dict(zip(_CLUSTER_SUMS, (int(s or 0) for s in sums), strict=True))
            found.append(ClusterUsage(cluster=cluster, cpu_count=int(cpu_sum or 0) // max(1, hours), **values))
        return found

    @staticmethod
    def _users(session: Session, q: UsageQuery) -> list[UserUsage]:
        row = AssocHourRow
        stmt = (select(row.cluster, row.user_name, row.account, func.sum(row.alloc_secs))
                .where(row.hour >= q.start_time, row.hour < q.end_time)
                .group_by(row.cluster, row.user_name, row.account)
                .order_by(row.cluster, row.user_name, row.account))
        if q.clusters:
            stmt = stmt.where(row.cluster.in_(list(q.clusters)))
        if q.users:
            stmt = stmt.where(row.user_name.in_(list(q.users)))
        if q.accounts:
            stmt = stmt.where(row.account.in_(list(q.accounts)))
        return [UserUsage(cluster=c, user=u, account=a, alloc_secs=int(s or 0)) for c, u, a, s in session.execute(stmt)]

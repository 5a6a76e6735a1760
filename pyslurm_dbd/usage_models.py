"""SQL tables of cluster history: node events and the hourly usage rollups (what sreport reads).

* ``event``: one row per period a node spent DOWN or DRAIN (``node`` set), or per period the
  cluster had a given size (``node`` empty: its CPU count and node list). ``time_end`` 0 means
  the period is still open. Written by ``pyslurm_dbd.event_store`` from the controller's
  records; ``sacctmgr show event`` lists them.
* ``usage_cluster_hour``: per cluster and hour, CPU-seconds allocated to jobs, down (nodes in a
  DOWN event), planned down, idle, reserved (jobs eligible but waiting) and the total reported,
  plus the CPU count; ``usage_assoc_hour``: per cluster, account, user and hour, the
  CPU-seconds allocated to that user's jobs in that account. Both are derived data: computed by
  ``pyslurm_dbd.rollup`` from the job and event tables, replaced hour by hour, never edited.

Layout conventions as ``pyslurm_dbd.models`` (same metadata, explicit string lengths, BIGINT
seconds). Migrations 6 (events, rollups) and 8 (``rollup_state``, where the roll-up stands)
of ``pyslurm_dbd.migrations`` create these tables.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from pyslurm_dbd.models import Base, SurrogateKey


class NodeEventRow(Base):
    """A period a node was DOWN or DRAIN, or the cluster had a given size (empty node)."""

    __tablename__ = "event"
    __table_args__ = (
        UniqueConstraint("cluster", "node", "time_start", "state"),
        Index(None, "cluster", "node", "time_end"),
        Index(None, "time_start"),
    )

    id: Mapped[int] = mapped_column(SurrogateKey, primary_key=True, autoincrement=True)
    cluster: Mapped[str] = mapped_column(String(64))
    node: Mapped[str] = mapped_column(String(64), default="")
    state: Mapped[str] = mapped_column(String(32), default="")
    reason: Mapped[str] = mapped_column(Text, default="")
    reason_uid: Mapped[int] = mapped_column(BigInteger, default=0)
    time_start: Mapped[int] = mapped_column(BigInteger)
    time_end: Mapped[int] = mapped_column(BigInteger, default=0)
    cpus: Mapped[int] = mapped_column(BigInteger, default=0)
    cluster_nodes: Mapped[str] = mapped_column(Text, default="")


class RollupStateRow(Base):
    """Where the hourly roll-up stands (one row, id 1; see ``pyslurm_dbd.rollup``)."""

    __tablename__ = "rollup_state"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    rolled_until: Mapped[int] = mapped_column(BigInteger, default=0)
    dirty_from: Mapped[int] = mapped_column(BigInteger)


class ClusterHourRow(Base):
    """CPU-seconds of one cluster in one hour, by what the CPUs were doing."""

    __tablename__ = "usage_cluster_hour"
    __table_args__ = (UniqueConstraint("cluster", "hour"),)

    id: Mapped[int] = mapped_column(SurrogateKey, primary_key=True, autoincrement=True)
    cluster: Mapped[str] = mapped_column(String(64))
    hour: Mapped[int] = mapped_column(BigInteger)           # epoch seconds of the hour's start
    cpu_count: Mapped[int] = mapped_column(BigInteger, default=0)
    alloc_secs: Mapped[int] = mapped_column(BigInteger, default=0)
    down_secs: Mapped[int] = mapped_column(BigInteger, default=0)
    pdown_secs: Mapped[int] = mapped_column(BigInteger, default=0)
    idle_secs: Mapped[int] = mapped_column(BigInteger, default=0)
    plan_secs: Mapped[int] = mapped_column(BigInteger, default=0)
    over_secs: Mapped[int] = mapped_column(BigInteger, default=0)


class AssocHourRow(Base):
    """CPU-seconds one user's jobs in one account used in one hour."""

    __tablename__ = "usage_assoc_hour"
    __table_args__ = (UniqueConstraint("cluster", "account", "user_name", "hour"), Index(None, "hour"))

    id: Mapped[int] = mapped_column(SurrogateKey, primary_key=True, autoincrement=True)
    cluster: Mapped[str] = mapped_column(String(64))
    account: Mapped[str] = mapped_column(String(128))
    user_name: Mapped[str] = mapped_column(String(64))
    hour: Mapped[int] = mapped_column(BigInteger)
    alloc_secs: Mapped[int] = mapped_column(BigInteger, default=0)

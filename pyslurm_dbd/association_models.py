"""SQL schema of what sacctmgr manages: clusters, accounts, users, associations and QOS.

Table layout only (SQLAlchemy 2.0 typed models on the same ``Base`` as the job tables);
``pyslurm_dbd.admin`` reads and changes them. The portability rules of ``pyslurm_dbd.models``
apply (explicit string lengths for indexed columns, BIGINT numbers).

Conventions, as in Slurm's own accounting tables:

* a limit column is NULL when the limit is unset (no limit, or inherited from the parent);
* TRES limits are canonical text ``cpu=4,mem=1024,node=2`` (names in TRES id order, memory in
  MB), parsed and written by ``pyslurm_dbd.settings``;
* wall-clock limits are minutes, grace and exemption times seconds;
* the account tree lives in the associations: an account's association names its parent
  account on that cluster (``parent_account``, empty for ``root``), a user's association has
  ``user`` set and hangs below the account association of the same cluster;
* lists (an association's allowed QOS, a QOS's preemptable QOS and flags) are comma-separated
  names, in the order Slurm prints them.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Float, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from pyslurm_dbd.models import Base, SurrogateKey

SHARES_PARENT = 0x7FFFFFFF
"""``shares`` of an association whose fairshare is ``parent`` (Slurm's SLURMDB_FS_USE_PARENT)."""


class ClusterRow(Base):
    """A cluster known to accounting (``sacctmgr add cluster``)."""

    __tablename__ = "cluster"

    id: Mapped[int] = mapped_column(SurrogateKey, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    control_host: Mapped[str] = mapped_column(String(255), default="")
    control_port: Mapped[int] = mapped_column(Integer, default=0)
    rpc_version: Mapped[int] = mapped_column(Integer, default=0)


class AccountRow(Base):
    """An account: its name and descriptive text (its place in the tree is per cluster)."""

    __tablename__ = "account"

    id: Mapped[int] = mapped_column(SurrogateKey, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(128), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    organization: Mapped[str] = mapped_column(Text, default="")


class UserRow(Base):
    """A user known to accounting: admin level and default account."""

    __tablename__ = "acct_user"  # "user" is reserved in PostgreSQL

    id: Mapped[int] = mapped_column(SurrogateKey, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    admin_level: Mapped[str] = mapped_column(String(16), default="None")
    default_account: Mapped[str] = mapped_column(String(128), default="")


class AssociationRow(Base):
    """One node of the association tree: (cluster, account, user, partition) with its limits.

    ``user`` is empty for an account's own association; ``partition`` is empty unless the
    association is for one partition only.
    """

    __tablename__ = "association"
    __table_args__ = (UniqueConstraint("cluster", "account", "user", "partition"),)

    id: Mapped[int] = mapped_column(SurrogateKey, primary_key=True, autoincrement=True)
    cluster: Mapped[str] = mapped_column(String(64))
    account: Mapped[str] = mapped_column(String(128))
    user: Mapped[str] = mapped_column(String(64), default="")
    partition: Mapped[str] = mapped_column(String(255), default="")
    parent_account: Mapped[str] = mapped_column(String(128), default="")

    shares: Mapped[int] = mapped_column(BigInteger, default=1)
    priority: Mapped[int | None] = mapped_column(BigInteger, default=None)
    grp_jobs: Mapped[int | None] = mapped_column(BigInteger, default=None)
    grp_submit: Mapped[int | None] = mapped_column(BigInteger, default=None)
    grp_tres: Mapped[str | None] = mapped_column(Text, default=None)
    grp_wall: Mapped[int | None] = mapped_column(BigInteger, default=None)
    max_jobs: Mapped[int | None] = mapped_column(BigInteger, default=None)
    max_submit: Mapped[int | None] = mapped_column(BigInteger, default=None)
    max_tres: Mapped[str | None] = mapped_column(Text, default=None)
    max_tres_per_node: Mapped[str | None] = mapped_column(Text, default=None)
    max_wall: Mapped[int | None] = mapped_column(BigInteger, default=None)
    qos: Mapped[str] = mapped_column(Text, default="")
    default_qos: Mapped[str] = mapped_column(String(64), default="")


class QosRow(Base):
    """A quality of service with its priority, limits, usage factor and preemption settings."""

    __tablename__ = "qos"

    id: Mapped[int] = mapped_column(SurrogateKey, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    priority: Mapped[int] = mapped_column(BigInteger, default=0)
    flags: Mapped[str] = mapped_column(Text, default="")
    grace_time: Mapped[int] = mapped_column(BigInteger, default=0)
    preempt: Mapped[str] = mapped_column(Text, default="")
    preempt_mode: Mapped[str] = mapped_column(String(32), default="cluster")
    preempt_exempt_time: Mapped[int | None] = mapped_column(BigInteger, default=None)
    usage_factor: Mapped[float] = mapped_column(Float, default=1.0)
    usage_threshold: Mapped[float | None] = mapped_column(Float, default=None)

    grp_jobs: Mapped[int | None] = mapped_column(BigInteger, default=None)
    grp_submit: Mapped[int | None] = mapped_column(BigInteger, default=None)
    grp_tres: Mapped[str | None] = mapped_column(Text, default=None)
    grp_wall: Mapped[int | None] = mapped_column(BigInteger, default=None)
    max_tres: Mapped[str | None] = mapped_column(Text, default=None)
    max_tres_per_node: Mapped[str | None] = mapped_column(Text, default=None)
    max_tres_per_user: Mapped[str | None] = mapped_column(Text, default=None)
    max_tres_per_account: Mapped[str | None] = mapped_column(Text, default=None)
    max_wall: Mapped[int | None] = mapped_column(BigInteger, default=None)
    max_jobs_per_user: Mapped[int | None] = mapped_column(BigInteger, default=None)
    max_submit_per_user: Mapped[int | None] = mapped_column(BigInteger, default=None)
    max_jobs_per_account: Mapped[int | None] = mapped_column(BigInteger, default=None)
    max_submit_per_account: Mapped[int | None] = mapped_column(BigInteger, default=None)
    min_tres: Mapped[str | None] = mapped_column(Text, default=None)

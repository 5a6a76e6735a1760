"""sacctmgr's reads: clusters, accounts, users, associations and QOS matching a ``where``.

Everyone may read (Slurm's default without PrivateData=accounts/users). Filters are applied in
SQL; associations come back in tree order (``association_tree.tree_order``). Rows are returned
detached, for the servicer to translate. Errors: ``SlurmError`` INVALID_ARGUMENT for an unknown
condition.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pyslurm_dbd.admin import Setting, invalid
from pyslurm_dbd.association_models import AccountRow, AssociationRow, ClusterRow, QosRow, UserRow
from pyslurm_dbd.association_tree import tree_order
from pyslurm_dbd.settings import parse_name_list

_CONDITIONS = {"name": "names", "names": "names", "cluster": "clusters", "clusters": "clusters",
               "account": "accounts", "accounts": "accounts", "acct": "accounts", "user": "users",
               "users": "users", "partition": "partitions", "partitions": "partitions"}  # fmt: skip


@dataclass(slots=True)
class Listing:
    clusters: list[tuple[ClusterRow, AssociationRow | None]] = field(default_factory=list)
    accounts: list[AccountRow] = field(default_factory=list)
    users: list[UserRow] = field(default_factory=list)
    associations: list[AssociationRow] = field(default_factory=list)
    qos: list[QosRow] = field(default_factory=list)


def conditions(where: Sequence[Setting]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for s in where:
        name = _CONDITIONS.get(s.key.lower())
        if name is None or s.op != "=":
            raise invalid(f" Unknown condition: {s.key}{s.op}{s.value}")
        found.setdefault(name, []).extend(v for v in parse_name_list(s.value).split(",") if v)
    return found


def _associations(session: Session, cond: dict[str, list[str]], *, users: bool | None) -> list[AssociationRow]:
    stmt = select(AssociationRow)
    if users is not None:
        stmt = stmt.where(AssociationRow.user != "" if users else AssociationRow.user == "")
    for name, column in (("clusters", AssociationRow.cluster), ("accounts", AssociationRow.account),
                         ("users", AssociationRow.user), ("partitions", AssociationRow.partition)):
        if cond.get(name):
            stmt = stmt.where(column.in_(cond[name]))
    return tree_order(session.scalars(stmt))


class AssociationQueries:
    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def show(self, entity: str, where: Sequence[Setting], with_assoc: bool) -> Listing:
        cond = conditions(where)
        names = cond.get("names", [])
        listing = Listing()
        with self._sessions() as session:
            if entity == "cluster":
                clusters = names or cond.get("clusters", [])
                stmt = select(ClusterRow).order_by(ClusterRow.name)
                roots = {r.cluster: r for r in _associations(session, {"accounts": ["root"]}, users=False)
                         if not r.parent_account}
                listing.clusters = [(row, roots.get(row.name)) for row in
                                    session.scalars(stmt.where(ClusterRow.name.in_(clusters)) if clusters else stmt)]
            elif entity == "account":
                accounts = names or cond.get("accounts", [])
                stmt = select(AccountRow).order_by(AccountRow.name)
                listing.accounts = list(session.scalars(stmt.where(AccountRow.name.in_(accounts)) if accounts else stmt))
                if with_assoc:
                    cond = dict(cond, accounts=[a.name for a in listing.accounts])
                    listing.associations = _associations(session, cond, users=None)
            elif entity == "user":
                users = names or cond.get("users", [])
                stmt = select(UserRow).order_by(UserRow.name)
                listing.users = list(session.scalars(stmt.where(UserRow.name.in_(users)) if users else stmt))
                if with_assoc:
                    cond = dict(cond, users=[u.name for u in listing.users])
                    listing.associations = _associations(session, cond, users=True)
            elif entity == "association":
                listing.associations = _associations(session, cond, users=None)
            elif entity == "qos":
                stmt = select(QosRow).order_by(QosRow.id)
                listing.qos = list(session.scalars(stmt.where(QosRow.name.in_(names)) if names else stmt))
            else:
                raise invalid(f" Can't show {entity} entities")
        return listing

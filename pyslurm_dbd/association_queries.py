"""sacctmgr's reads: clusters, accounts, users, associations and QOS matching a ``where``.

Everyone may read, except what PrivateData hides from users without an AdminLevel (as Slurm):
``users`` shows them only their own user record and associations, ``accounts`` only the
accounts they have an association in. Filters are applied in SQL; associations come back in tree
order (``association_tree.tree_order``). Rows are returned detached, for the servicer to
translate. Errors: ``SlurmError`` INVALID_ARGUMENT for an unknown condition.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pyslurm_dbd.admin_requests import Caller, Setting, invalid
from pyslurm_dbd.association_models import AccountRow, AssociationRow, ClusterRow, QosRow, UserRow
from pyslurm_dbd.association_tree import tree_order
from pyslurm_dbd.coordinators import account_coordinators, coordinated_accounts, direct_grants
from pyslurm_dbd.settings import parse_name_list

_CONDITIONS = {"name": "names", "names": "names", "cluster": "clusters", "clusters": "clusters",
               "account": "accounts", "accounts": "accounts", "acct": "accounts", "user": "users",
               "users": "users", "partition": "partitions", "partitions": "partitions",
               "parent": "parents"}  # fmt: skip


@dataclass(slots=True)
class Listing:
    clusters: list[tuple[ClusterRow, AssociationRow | None]] = field(default_factory=list)
    accounts: list[AccountRow] = field(default_factory=list)
    users: list[UserRow] = field(default_factory=list)
    associations: list[AssociationRow] = field(default_factory=list)
    qos: list[QosRow] = field(default_factory=list)
    tres: list[tuple[str, str, int]] = field(default_factory=list)  # (type, name, id)
    coord_accounts: dict[str, list[str]] = field(default_factory=dict)        # user → accounts
    account_coordinators: dict[str, list[str]] = field(default_factory=dict)  # account → users
    coordinator_grants: set[tuple[str, str]] = field(default_factory=set)     # direct (user, account)


def conditions(where: Sequence[Setting]) -> dict[str, list[str]]:
    """``where`` as canonical condition → allowed values (lower-cased names)."""
    found: dict[str, list[str]] = {}
    for s in where:
        name = _CONDITIONS.get(s.key.lower())
        if name is None or s.op != "=":
            raise invalid(f" Unknown condition: {s.key}{s.op}{s.value}")
        found.setdefault(name, []).extend(v for v in parse_name_list(s.value).split(",") if v)
    return found


def matching_associations(session: Session, cond: dict[str, list[str]], *, users: bool | None) -> list[AssociationRow]:
    """Associations meeting ``cond``, in tree order: users' only (``users=True``), accounts' only
    (False) or both (None)."""
    stmt = select(AssociationRow)
    if users is not None:
        stmt = stmt.where(AssociationRow.user != "" if users else AssociationRow.user == "")
    for name, column in (("clusters", AssociationRow.cluster), ("accounts", AssociationRow.account),
                         ("users", AssociationRow.user), ("partitions", AssociationRow.partition),
                         ("parents", AssociationRow.parent_account)):
        if cond.get(name):
            stmt = stmt.where(column.in_(cond[name]))
    return tree_order(session.scalars(stmt))


Named = type[AccountRow] | type[UserRow] | type[ClusterRow] | type[QosRow]


def named_rows(session: Session, model: Named, names: list[str]) -> list[Any]:
    """Rows of ``model`` with these names (all when none given); QOS by id, others by name."""
    stmt = select(model).order_by(model.id if model is QosRow else model.name)
    return list(session.scalars(stmt.where(model.name.in_(names)) if names else stmt))


def admin_level(session: Session, caller: Caller) -> str:
    """``Administrator``, ``Operator`` or ``None``: root and SlurmUser are administrators."""
    if caller.privileged:
        return "Administrator"
    level = session.scalar(select(UserRow.admin_level).where(UserRow.name == caller.name))
    return level or "None"


def _hide_private(listing: Listing, viewer: str, private: frozenset[str], own_accounts: set[str]) -> None:
    if "users" in private:
        listing.users = [u for u in listing.users if u.name == viewer]
        listing.associations = [a for a in listing.associations if a.user == viewer]
    if "accounts" in private:
        listing.accounts = [a for a in listing.accounts if a.name in own_accounts]
        listing.associations = [a for a in listing.associations if a.account in own_accounts]


class AssociationQueries:
    def __init__(self, sessions: sessionmaker[Session], private: frozenset[str] = frozenset(),
                 tres: Sequence[tuple[str, str, int]] = ()) -> None:
        """``private``: the PrivateData words that apply here (``users``, ``accounts``); ``tres``:
        the cluster's TRES table (``settings.tres_table``)."""
        self._sessions = sessions
        self._private = private
        self._tres = list(tres)

    def admin_level(self, viewer: Caller) -> str:
        """The viewer's AdminLevel (``Administrator`` for root and SlurmUser)."""
        with self._sessions() as session:
            return admin_level(session, viewer)

    def definitions(self, cluster: str) -> Listing:
        """What the controller enforces: every user and QOS, the cluster's associations (tree
        order). For the controller only: PrivateData does not apply."""
        with self._sessions() as session:
            return Listing(users=named_rows(session, UserRow, []), qos=named_rows(session, QosRow, []),
                           associations=matching_associations(session, {"clusters": [cluster]}, users=None),
                           coord_accounts=coordinated_accounts(session))

    def show(self, entity: str, where: Sequence[Setting], with_assoc: bool, viewer: Caller) -> Listing:
        if entity == "tres":
            return Listing(tres=self._tres)
        with self._sessions() as session:
            listing = self._show(session, entity, where, with_assoc)
            if self._private and admin_level(session, viewer) == "None":
                own = set(session.scalars(select(AssociationRow.account).where(AssociationRow.user == viewer.name)))
                _hide_private(listing, viewer.name, self._private, own)
        return listing

    @staticmethod
    def _show(session: Session, entity: str, where: Sequence[Setting], with_assoc: bool) -> Listing:
        cond = conditions(where)
        names = cond.get("names", [])
        listing = Listing()
        if entity == "cluster":
            roots = {r.cluster: r for r in matching_associations(session, {"accounts": ["root"]}, users=False)
                     if not r.parent_account}
            listing.clusters = [(row, roots.get(row.name)) for row in
                                named_rows(session, ClusterRow, names or cond.get("clusters", []))]
        elif entity in ("account", "user"):
            model, plural = (AccountRow, "accounts") if entity == "account" else (UserRow, "users")
            rows = named_rows(session, model, names or cond.get(plural, []))
            setattr(listing, plural, rows)
            if entity == "user":
                listing.coord_accounts = coordinated_accounts(session, [row.name for row in rows])
            else:
                listing.account_coordinators = account_coordinators(session)
            listing.coordinator_grants = direct_grants(session)
            if with_assoc:
                cond = dict(cond, **{plural: [row.name for row in rows]})
                listing.associations = matching_associations(
                    session, cond, users=True if entity == "user" else None)
        elif entity == "association":
            listing.associations = matching_associations(session, cond, users=None)
        elif entity == "qos":
            listing.qos = named_rows(session, QosRow, names)
        else:
            raise invalid(f" Can't show {entity} entities")
        return listing

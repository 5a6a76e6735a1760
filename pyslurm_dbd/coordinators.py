"""Account coordinators (``sacctmgr add|remove coordinator``): the table and its changes.

A coordinator of an account is one of its users' managers: Slurm lets them act on the jobs and
user associations of that account and of every account below it. Only the direct grants are
stored (one row per user and account, as Slurm's ``acct_coord_table``); the sub-accounts are
derived from the association tree when read, so a sub-account added later is covered at once
and deleting an account leaves no stale grant below it to clean up.

Who may change users' associations is decided in ``admin`` (a coordinator: in its accounts only).
Who may change coordinators (as slurmdbd): Operators and Administrators anywhere; a coordinator
for the accounts it coordinates; anyone else gets ACCESS_DENIED. Errors are ``SlurmError``:
INVALID_ARGUMENT carrying the lines sacctmgr prints.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from sqlalchemy import String, UniqueConstraint, delete, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_dbd.admin_requests import NO_PRIVILEGE, AssocKey, ChangeReport, Setting, invalid
from pyslurm_dbd.association_models import AccountRow, AssociationRow, UserRow
from pyslurm_dbd.models import Base, SurrogateKey
from pyslurm_dbd.settings import parse_name_list


class CoordinatorRow(Base):
    """``user`` coordinates ``account`` and, through the tree, every account below it."""

    __tablename__ = "account_coordinator"
    __table_args__ = (UniqueConstraint("user", "account"),)

    id: Mapped[int] = mapped_column(SurrogateKey, primary_key=True, autoincrement=True)
    user: Mapped[str] = mapped_column(String(64))
    account: Mapped[str] = mapped_column(String(128))


_KEYS = {"account": "accounts", "accounts": "accounts", "acct": "accounts", "name": "users",
         "names": "users", "user": "users", "users": "users"}  # fmt: skip


def _request(names: Sequence[str], settings: Sequence[Setting]) -> tuple[list[str], list[str]]:
    """(users, accounts) named by ``Names=``/``Users=`` (or bare words) and ``Accounts=``."""
    found: dict[str, list[str]] = {"users": list(names), "accounts": []}
    for s in settings:
        kind = _KEYS.get(s.key.lower())
        if kind is None or s.op != "=":
            raise invalid(f" Unknown option: {s.key}{s.op}{s.value}")
        found[kind] += [v for v in parse_name_list(s.value).split(",") if v]
    return list(dict.fromkeys(found["users"])), list(dict.fromkeys(found["accounts"]))


def _check_known(session: Session, users: list[str], accounts: list[str]) -> None:
    known_accounts = set(session.scalars(select(AccountRow.name).where(AccountRow.name.in_(accounts))))
    for name in accounts:
        if name not in known_accounts:
            raise invalid(f" You specified a non-existent account '{name}'.")
    known_users = set(session.scalars(select(UserRow.name).where(UserRow.name.in_(users))))
    for name in users:
        if name not in known_users:
            raise invalid(f" You specified a non-existent user '{name}'.")


def _below(session: Session) -> dict[str, set[str]]:
    """Each account's sub-accounts (at any depth, on any cluster), itself included."""
    children: dict[str, set[str]] = defaultdict(set)
    for account, parent in session.execute(select(AssociationRow.account, AssociationRow.parent_account)
                                           .where(AssociationRow.user == "", AssociationRow.parent_account != "")):
        children[parent].add(account)
    below: dict[str, set[str]] = {}

    def walk(account: str) -> set[str]:
        if account not in below:
            below[account] = {account}   # set first: a cycle cannot recurse forever
            for child in children.get(account, ()):
                below[account] |= walk(child)
        return below[account]

    for account in set(children) | {a for kids in children.values() for a in kids}:
        walk(account)
    return below


def coordinated_accounts(session: Session, users: Iterable[str] | None = None) -> dict[str, list[str]]:
    """Each coordinator's accounts, direct grants and every account below them, sorted."""
    stmt = select(CoordinatorRow.user, CoordinatorRow.account)
    if users is not None:
        stmt = stmt.where(CoordinatorRow.user.in_(list(users)))
    below = _below(session)
    found: dict[str, set[str]] = defaultdict(set)
    for user, account in session.execute(stmt):
        found[user] |= below.get(account, {account})
    return {user: sorted(accounts) for user, accounts in found.items()}


def direct_grants(session: Session) -> set[tuple[str, str]]:
    """Every (user, account) granted itself, not only through a parent account."""
    return set(session.execute(select(CoordinatorRow.user, CoordinatorRow.account)).tuples())


def account_coordinators(session: Session) -> dict[str, list[str]]:
    """Each account's coordinators (direct or through a parent account), sorted."""
    found: dict[str, set[str]] = defaultdict(set)
    for user, accounts in coordinated_accounts(session).items():
        for account in accounts:
            found[account].add(user)
    return {account: sorted(users) for account, users in found.items()}


def coordinated_by(session: Session, user: str) -> set[str]:
    """The accounts ``user`` coordinates, sub-accounts included (empty for a plain user)."""
    return set(coordinated_accounts(session, [user]).get(user, ()))


def _may_change(session: Session, caller_name: str, caller_level: str, accounts: list[str]) -> None:
    if caller_level != "None":
        return
    mine = coordinated_by(session, caller_name)
    if not accounts or not set(accounts) <= mine:
        raise SlurmError(Strerror.ACCESS_DENIED, NO_PRIVILEGE)


def add_coordinators(session: Session, names: Sequence[str], settings: Sequence[Setting],
                     caller_name: str, caller_level: str) -> ChangeReport:
    """Grant each named user each named account; granting one twice is no error (as Slurm)."""
    users, accounts = _request(names, settings)
    if not accounts:
        raise invalid(" You need to specify an account list here.")
    if not users:
        raise invalid(" You need to specify a user list here.")
    _check_known(session, users, accounts)
    _may_change(session, caller_name, caller_level, accounts)
    held = set(session.execute(select(CoordinatorRow.user, CoordinatorRow.account)
                               .where(CoordinatorRow.user.in_(users))).tuples())
    for user in users:
        for account in accounts:
            if (user, account) not in held:
                session.add(CoordinatorRow(user=user, account=account))
    session.flush()
    return ChangeReport(names=users, associations=[AssocKey("", a, u) for u in users for a in accounts])


def remove_coordinators(session: Session, where: Sequence[Setting], caller_name: str,
                        caller_level: str) -> ChangeReport:
    """Withdraw the direct grants of the named users (all users when none) on the named accounts
    (all accounts when none); a grant only inherited from a parent account is not removable."""
    users, accounts = _request([], where)
    if not (users or accounts):
        raise invalid(" You need to specify a user list or account list here.")
    _check_known(session, users, accounts)
    _may_change(session, caller_name, caller_level, accounts)
    stmt = select(CoordinatorRow).order_by(CoordinatorRow.user, CoordinatorRow.account)
    if users:
        stmt = stmt.where(CoordinatorRow.user.in_(users))
    if accounts:
        stmt = stmt.where(CoordinatorRow.account.in_(accounts))
    report = ChangeReport()
    for row in session.scalars(stmt):
        report.associations.append(AssocKey("", row.account, row.user))
        if row.user not in report.names:
            report.names.append(row.user)
        session.delete(row)
    session.flush()
    return report


def forget_users(session: Session, users: Sequence[str]) -> None:
    """Drop the grants of deleted users (Slurm removes a deleted user's coordinator rows too)."""
    session.execute(delete(CoordinatorRow).where(CoordinatorRow.user.in_(list(users))))


def forget_accounts(session: Session, accounts: Sequence[str]) -> None:
    """Drop the grants on deleted accounts."""
    session.execute(delete(CoordinatorRow).where(CoordinatorRow.account.in_(list(accounts))))

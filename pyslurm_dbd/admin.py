"""sacctmgr's changes: add, modify and delete clusters, accounts, users, associations and QOS.

``AssociationAdmin.change`` runs one change in one transaction and reports what it did as a
``ChangeReport`` (what sacctmgr prints); with ``commit=False`` the same work is done and rolled
back, so the report of a change awaiting the user's confirmation is exactly what committing
would do. ``ensure_cluster`` registers the daemon's own cluster at start.

Who may change what (spec §3, Slurm's AdminLevel): root, SlurmUser and users with
AdminLevel=Administrator may change everything; Operators everything except granting
Administrator or demoting and deleting an Administrator; everyone else is refused with Slurm's "Your user doesn't have privilege to
perform this action" (``SlurmError`` ACCESS_DENIED). Reading is ``association_queries``.

Errors are ``SlurmError``: INVALID_ARGUMENT with the lines sacctmgr prints as its detail.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_dbd.admin_requests import NO_PRIVILEGE, AssocKey, Caller, ChangeReport, Setting, invalid
from pyslurm_dbd.association_models import AccountRow, AssociationRow, ClusterRow, QosRow, UserRow
from pyslurm_dbd.association_queries import Named, admin_level, conditions, matching_associations, named_rows
from pyslurm_dbd.association_tree import subtree
from pyslurm_dbd.coordinators import (add_coordinators, coordinated_by, forget_accounts, forget_users,
                                      remove_coordinators)
from pyslurm_dbd.migrations import DEFAULT_QOS
from pyslurm_dbd.settings import (ASSOCIATION_KEYS, QOS_KEYS, Key, SettingError, merge_list,
                                  parse_admin_level, parse_name_list)

ROOT = "root"


# --- settings as typed ----------------------------------------------------------------------


@dataclass(slots=True)
class _Split:
    """Settings split into the entity's own keys (by canonical name) and limit keys."""

    own: dict[str, Setting] = field(default_factory=dict)
    limits: list[tuple[Key, Setting]] = field(default_factory=list)


def _split(settings: Sequence[Setting], own: dict[str, str], limit_keys: dict[str, Key] | None) -> _Split:
    """Sort ``settings`` into ``own`` keys (alias → canonical) and ``limit_keys``; else an error."""
    result = _Split()
    for s in settings:
        lower = s.key.lower()
        if lower in own and s.op == "=":
            result.own[own[lower]] = s
        elif limit_keys is not None and lower in limit_keys:
            key = limit_keys[lower]
            if s.op != "=" and not key.is_list:
                raise invalid(f" Unknown option: {s.key}{s.op}{s.value}")
            result.limits.append((key, s))
        else:
            raise invalid(f" Unknown option: {s.key}{s.op}{s.value}",
                          " Use keyword 'where' to modify condition")
    return result


def _names(s: Setting | None) -> list[str]:
    return parse_name_list(s.value).split(",") if s is not None and s.value.strip() else []


def _apply_limits(session: Session, row: AssociationRow | QosRow, limits: list[tuple[Key, Setting]]) -> None:
    for key, s in limits:
        try:
            value = key.parse(s.value)
        except SettingError as exc:
            raise invalid(str(exc)) from None
        if key.column in ("qos", "default_qos", "preempt"):
            _check_qos_names(session, str(value))
        if key.is_list:
            value = merge_list(getattr(row, key.column) or "", s.op, str(value))
        setattr(row, key.column, value)
    if isinstance(row, AssociationRow) and row.default_qos and row.qos and row.default_qos not in row.qos.split(","):
        raise invalid(f" Default QOS '{row.default_qos}' is not in the QOS list '{row.qos}'")


def _check_qos_names(session: Session, names: str) -> None:
    wanted = {n for n in names.split(",") if n}
    unknown = sorted(wanted - set(session.scalars(select(QosRow.name).where(QosRow.name.in_(wanted)))))
    if unknown:
        raise invalid(f" Unknown QOS name '{unknown[0]}'")


def _limit_report(limits: list[tuple[Key, Setting]]) -> list[tuple[str, str]]:
    return [(key.name, f"{s.op.rstrip('=')}{s.value}" if s.op != "=" else s.value) for key, s in limits]


# --- lookups --------------------------------------------------------------------------------


def _clusters(session: Session, wanted: list[str]) -> list[str]:
    """The named clusters (each must exist), or every cluster when none is named."""
    known = list(session.scalars(select(ClusterRow.name).order_by(ClusterRow.name)))
    for name in wanted:
        if name not in known:
            raise invalid(f" This cluster '{name}' doesn't exist.", "        Contact your admin to add it to accounting.")
    return wanted or known


def _assoc(session: Session, key: AssocKey) -> AssociationRow | None:
    return session.scalars(select(AssociationRow).where(
        AssociationRow.cluster == key.cluster, AssociationRow.account == key.account,
        AssociationRow.user == key.user, AssociationRow.partition == key.partition)).first()


def _key(row: AssociationRow) -> AssocKey:
    return AssocKey(row.cluster, row.account, row.user, row.partition)


def _or_nothing(report: ChangeReport) -> ChangeReport:
    """The report, or the empty one when no entity or association was touched."""
    return report if report.names or report.associations else ChangeReport()


# --- add ------------------------------------------------------------------------------------


def _new_assoc(session: Session, key: AssocKey, parent: AssociationRow | None, limits: list[tuple[Key, Setting]]) -> AssociationRow:
    """A new association below ``parent`` (None for a cluster's root), with the parent's QOS."""
    row = AssociationRow(cluster=key.cluster, account=key.account, user=key.user, partition=key.partition,
                         parent_account=parent.account if parent is not None else "",
                         shares=1, qos=parent.qos if parent is not None else DEFAULT_QOS,
                         default_qos=parent.default_qos if parent is not None else "")
    _apply_limits(session, row, limits)
    session.add(row)
    session.flush()
    return row


def add_cluster(session: Session, names: list[str], settings: Sequence[Setting]) -> ChangeReport:
    split = _split(settings, {"name": "names", "names": "names", "cluster": "names"}, dict(ASSOCIATION_KEYS))
    report = ChangeReport(limits=_limit_report(split.limits))
    if session.scalars(select(AccountRow).where(AccountRow.name == ROOT)).first() is None:
        session.add(AccountRow(name=ROOT, description="default root account", organization=ROOT))
    if session.scalars(select(UserRow).where(UserRow.name == ROOT)).first() is None:
        session.add(UserRow(name=ROOT, admin_level="Administrator", default_account=ROOT))
    for name in names + _names(split.own.get("names")):
        if name in report.names or session.scalars(select(ClusterRow).where(ClusterRow.name == name)).first():
            continue
        session.add(ClusterRow(name=name))
        root = _new_assoc(session, AssocKey(name, ROOT), None, split.limits)
        _new_assoc(session, AssocKey(name, ROOT, ROOT), root, [])
        report.names.append(name)
    return report


_ADD_ACCOUNT_KEYS = {"name": "names", "names": "names", "cluster": "clusters", "clusters": "clusters",
                     "parent": "parent", "description": "description", "organization": "organization"}  # fmt: skip


def add_account(session: Session, names: list[str], settings: Sequence[Setting]) -> ChangeReport:
    split = _split(settings, _ADD_ACCOUNT_KEYS, dict(ASSOCIATION_KEYS))
    names = list(dict.fromkeys(names + _names(split.own.get("names"))))
    parent_name = (split.own["parent"].value.lower() if "parent" in split.own else ROOT)
    description = split.own.get("description")
    organization = split.own.get("organization")
    report = ChangeReport(
        settings=[("Description", description.value if description else "Account Name"),
                  ("Organization", organization.value if organization else "Parent/Account Name")],
        limits=_limit_report(split.limits))
    for cluster in _clusters(session, _names(split.own.get("clusters"))):
        parent = _assoc(session, AssocKey(cluster, parent_name))
        if parent is None:
            raise invalid(f" Parent account '{parent_name}' doesn't exist on cluster {cluster}",
                          "        Contact your admin to add this account.")
        for name in names:
            if _assoc(session, AssocKey(cluster, name)) is not None:
                continue
            if session.scalars(select(AccountRow).where(AccountRow.name == name)).first() is None:
                org = organization.value if organization else (parent_name if parent_name != ROOT else name)
                session.add(AccountRow(name=name, description=description.value if description else name,
                                       organization=org))
            _new_assoc(session, AssocKey(cluster, name), parent, split.limits)
            report.associations.append(AssocKey(cluster, name))
            if name not in report.names:
                report.names.append(name)
    return _or_nothing(report)


_ADD_USER_KEYS = {"name": "names", "names": "names", "cluster": "clusters", "clusters": "clusters",
                  "account": "accounts", "accounts": "accounts", "defaultaccount": "default_account",
                  "adminlevel": "admin_level", "partition": "partitions", "partitions": "partitions"}  # fmt: skip


def add_user(session: Session, names: list[str], settings: Sequence[Setting], caller_level: str) -> ChangeReport:
    split = _split(settings, _ADD_USER_KEYS, dict(ASSOCIATION_KEYS))
    names = list(dict.fromkeys(names + _names(split.own.get("names"))))
    given_default = _names(split.own.get("default_account"))[:1]
    # The default account is one of the user's accounts: named alone, or added to the list.
    accounts = list(dict.fromkeys(_names(split.own.get("accounts")) + given_default))
    level = _admin_level_setting(split.own.get("admin_level"), caller_level)
    report = ChangeReport(limits=_limit_report(split.limits))
    new_users = [n for n in names if session.scalars(select(UserRow).where(UserRow.name == n)).first() is None]
    if new_users and not accounts:
        raise invalid(" Need a default account for these users to add.")
    default_account = (given_default or accounts)[0] if accounts else ""
    for name in new_users:
        session.add(UserRow(name=name, admin_level=level or "None", default_account=default_account))
        report.names.append(name)
    if new_users:
        report.settings.append(("Default Account", default_account))
        if level:
            report.settings.append(("Admin Level", level))
    partitions = _names(split.own.get("partitions")) or [""]
    for cluster in _clusters(session, _names(split.own.get("clusters"))):
        for account in accounts:
            parent = _assoc(session, AssocKey(cluster, account))
            if parent is None:
                raise invalid(f" Account '{account}' doesn't exist on cluster {cluster}",
                              "        Contact your admin to add this account.")
            for name in names:
                for partition in partitions:
                    key = AssocKey(cluster, account, name, partition)
                    if _assoc(session, key) is None:
                        _new_assoc(session, key, parent, split.limits)
                        report.associations.append(key)
    return _or_nothing(report)


def add_qos(session: Session, names: list[str], settings: Sequence[Setting]) -> ChangeReport:
    split = _split(settings, {"name": "names", "names": "names"}, dict(QOS_KEYS))
    names = list(dict.fromkeys(names + _names(split.own.get("names"))))
    report = ChangeReport()
    for name in names:
        if session.scalars(select(QosRow).where(QosRow.name == name)).first() is not None:
            continue
        row = QosRow(name=name, description=name)
        session.add(row)
        _apply_limits(session, row, split.limits)
        session.flush()
        report.names.append(name)
    if report.names:
        described = any(key.column == "description" for key, _ in split.limits)
        report.settings = [] if described else [("Description", "QOS Name")]
        report.settings += _limit_report(split.limits)
    return report


def _admin_level_setting(setting: Setting | None, caller_level: str) -> str | None:
    if setting is None:
        return None
    try:
        level = parse_admin_level(setting.value)
    except SettingError as exc:
        raise invalid(str(exc)) from None
    if level == "Administrator" and caller_level != "Administrator":
        raise SlurmError(Strerror.ACCESS_DENIED, NO_PRIVILEGE)
    return level


def _protect_administrators(rows: Sequence[UserRow], caller_level: str) -> None:
    """Only an Administrator may demote or delete an Administrator."""
    if caller_level != "Administrator" and any(row.admin_level == "Administrator" for row in rows):
        raise SlurmError(Strerror.ACCESS_DENIED, NO_PRIVILEGE)


# --- modify ---------------------------------------------------------------------------------


def _modify_conditions(where: Sequence[Setting]) -> dict[str, list[str]]:
    """A modify must say what it modifies: without conditions Slurm refuses, and so do we."""
    cond = conditions(where)
    if not any(cond.values()):
        raise invalid(" You didn't set any conditions with 'WHERE'.")
    return cond


def _modify_assocs(session: Session, rows: list[AssociationRow], limits: list[tuple[Key, Setting]], report: ChangeReport) -> None:
    if not (limits and rows):
        return
    for row in rows:
        _apply_limits(session, row, limits)
        report.associations.append(_key(row))
    report.limits = _limit_report(limits)


_MODIFY_USER_KEYS = {"adminlevel": "admin_level", "defaultaccount": "default_account"}


def modify_user(session: Session, where: Sequence[Setting], settings: Sequence[Setting], caller_level: str) -> ChangeReport:
    cond = _modify_conditions(where)
    split = _split(settings, _MODIFY_USER_KEYS, dict(ASSOCIATION_KEYS))
    users = cond.get("names") or cond.get("users") or []
    rows = named_rows(session, UserRow, users)
    report = ChangeReport()
    level = _admin_level_setting(split.own.get("admin_level"), caller_level)
    if level:
        _protect_administrators(rows, caller_level)
    default = split.own.get("default_account")
    for row in rows if split.own else ():
        if level:
            row.admin_level = level
        if default:
            account = default.value.lower()
            if not session.scalars(select(AssociationRow).where(
                    AssociationRow.user == row.name, AssociationRow.account == account)).first():
                raise invalid(f" User '{row.name}' has no association with account '{account}'")
            row.default_account = account
        report.names.append(row.name)
    report.settings = [(name, value) for name, value in
                       (("Admin Level", level), ("Default Account", default and default.value.lower())) if value]
    assoc_where = dict(cond, users=[r.name for r in rows])
    _modify_assocs(session, matching_associations(session, assoc_where, users=True) if rows else [], split.limits, report)
    return _or_nothing(report)


def modify_account(session: Session, where: Sequence[Setting], settings: Sequence[Setting]) -> ChangeReport:
    cond = _modify_conditions(where)
    split = _split(settings, {"description": "description", "organization": "organization", "parent": "parent"},
                   dict(ASSOCIATION_KEYS))
    accounts = cond.get("names") or cond.get("accounts") or []
    rows = named_rows(session, AccountRow, accounts)
    report = ChangeReport()
    described = {k: s.value for k, s in split.own.items() if k in ("description", "organization")}
    for row in rows if described else ():
        for column, value in described.items():
            setattr(row, column, value)
        report.names.append(row.name)
    report.settings = [(k.capitalize(), v) for k, v in described.items()]
    assocs = matching_associations(session, dict(cond, accounts=[r.name for r in rows]), users=False) if rows else []
    if "parent" in split.own:
        _move(session, assocs, split.own["parent"].value.lower(), report)
    _modify_assocs(session, assocs, split.limits, report)
    return _or_nothing(report)


def _move(session: Session, assocs: list[AssociationRow], parent: str, report: ChangeReport) -> None:
    for row in assocs:
        if _assoc(session, AssocKey(row.cluster, parent)) is None:
            raise invalid(f" Parent account '{parent}' doesn't exist on cluster {row.cluster}")
        everything = session.scalars(select(AssociationRow).where(AssociationRow.cluster == row.cluster)).all()
        if any(r.account == parent and not r.user for r in subtree(everything, row)):
            raise invalid(f" Can't move account '{row.account}' below its own sub-account '{parent}'")
        row.parent_account = parent
        report.associations.append(_key(row))
    report.settings.append(("Parent", parent))


def modify_cluster(session: Session, where: Sequence[Setting], settings: Sequence[Setting]) -> ChangeReport:
    cond = _modify_conditions(where)
    split = _split(settings, {}, dict(ASSOCIATION_KEYS))
    clusters = cond.get("names") or cond.get("clusters") or []
    roots = matching_associations(session, {"clusters": clusters, "accounts": [ROOT]}, users=False)
    report = ChangeReport()
    _modify_assocs(session, [r for r in roots if not r.parent_account], split.limits, report)
    return _or_nothing(report)


def modify_qos(session: Session, where: Sequence[Setting], settings: Sequence[Setting]) -> ChangeReport:
    names = _modify_conditions(where).get("names") or []
    split = _split(settings, {}, dict(QOS_KEYS))
    report = ChangeReport(settings=_limit_report(split.limits))
    for row in named_rows(session, QosRow, names):
        _apply_limits(session, row, split.limits)
        report.names.append(row.name)
    return _or_nothing(report)


# --- delete ---------------------------------------------------------------------------------


def _named(cond: dict[str, list[str]], plural: str) -> list[str]:
    """The names a delete is about (``name=`` or e.g. ``users=``); deleting everything is refused."""
    names = cond.get("names") or cond.get(plural) or []
    if not names:
        raise invalid(" No conditions given")
    return names


def _delete_named(session: Session, model: Named, names: list[str], report: ChangeReport) -> None:
    for row in named_rows(session, model, names):
        report.names.append(row.name)
        session.delete(row)


def _check_default_accounts_kept(session: Session, report: ChangeReport) -> None:
    """A user keeping associations must keep one in its default account (Slurm refuses too)."""
    session.flush()
    for name in sorted({key.user for key in report.associations if key.user}):
        user = session.scalars(select(UserRow).where(UserRow.name == name)).first()
        left = set(session.scalars(select(AssociationRow.account).where(AssociationRow.user == name)))
        if user is not None and left and user.default_account not in left:
            raise invalid(f" Can't remove the default account '{user.default_account}' of user '{name}'"
                          " while it has other associations: change its DefaultAccount first")


def delete_user(session: Session, where: Sequence[Setting], caller_level: str,
                within: set[str] | None = None) -> ChangeReport:
    """Delete users, or only their associations matching ``where``'s accounts, clusters or
    partitions; ``within``: the only accounts the caller may touch (a coordinator's), others skipped."""
    cond = conditions(where)
    users = _named(cond, "users")
    report = ChangeReport()
    scoped = any(cond.get(k) for k in ("accounts", "clusters", "partitions"))
    if not scoped:
        _protect_administrators(named_rows(session, UserRow, users), caller_level)
    for row in matching_associations(session, dict(cond, users=users), users=True):
        if within is not None and row.account not in within:
            continue
        report.associations.append(_key(row))
        session.delete(row)
    if scoped:
        _check_default_accounts_kept(session, report)
    else:
        _delete_named(session, UserRow, users, report)
        forget_users(session, report.names)
    return report


def delete_account(session: Session, where: Sequence[Setting]) -> ChangeReport:
    cond = conditions(where)
    accounts = _named(cond, "accounts")
    if ROOT in accounts:
        raise invalid(" You can't remove the root account")
    report = ChangeReport()
    for top in matching_associations(session, dict(cond, accounts=accounts), users=False):
        everything = session.scalars(select(AssociationRow).where(AssociationRow.cluster == top.cluster)).all()
        for row in subtree(everything, top):
            if row not in session.deleted:
                report.associations.append(_key(row))
                session.delete(row)
    _check_default_accounts_kept(session, report)
    if not cond.get("clusters"):
        _delete_named(session, AccountRow, accounts, report)
        forget_accounts(session, report.names)
    return report


def delete_cluster(session: Session, where: Sequence[Setting]) -> ChangeReport:
    cond = conditions(where)
    clusters = _named(cond, "clusters")
    report = ChangeReport()
    for assoc in session.scalars(select(AssociationRow).where(AssociationRow.cluster.in_(clusters))):
        session.delete(assoc)
    _delete_named(session, ClusterRow, clusters, report)
    return report


def delete_qos(session: Session, where: Sequence[Setting]) -> ChangeReport:
    names = _named(conditions(where), "names")
    report = ChangeReport()
    _delete_named(session, QosRow, names, report)
    for assoc in session.scalars(select(AssociationRow)):
        assoc.qos = merge_list(assoc.qos, "-=", ",".join(report.names))
        if assoc.default_qos in report.names:
            assoc.default_qos = ""
    for qos in session.scalars(select(QosRow)):
        qos.preempt = merge_list(qos.preempt, "-=", ",".join(report.names))
    return report


# --- the entry point ------------------------------------------------------------------------


def _as_coordinator(session: Session, caller_name: str, action: str, entity: str, names: list[str],
                    where: Sequence[Setting], settings: Sequence[Setting]) -> ChangeReport:
    """A caller without an admin level, as Slurm's slurmdbd: a coordinator adds users to the accounts
    it coordinates (and those below), changes those associations' limits and deletes them; the
    user records (admin level, default account, the user itself) and everything else stay an
    Operator's. What the change touched is checked after it ran: a refusal rolls it all back."""
    mine = coordinated_by(session, caller_name)
    denied = SlurmError(Strerror.ACCESS_DENIED, NO_PRIVILEGE)
    if not mine or entity != "user":
        raise denied
    if action == "add":
        if any(s.key.lower() == "adminlevel" for s in settings):
            raise denied
        report = add_user(session, names, settings, "None")
    elif action == "modify":
        if any(s.key.lower() in _MODIFY_USER_KEYS for s in settings):   # the user record, not associations
            raise denied
        report = modify_user(session, where, settings, "None")
    else:
        if not conditions(where).get("accounts"):   # the whole user, or on every account
            raise denied
        report = delete_user(session, where, "None", within=mine)   # others' associations untouched
    if any(key.account not in mine for key in report.associations):
        raise denied
    return report

Handler = Callable[[Session, list[str], Sequence[Setting], Sequence[Setting], str], ChangeReport]
_HANDLERS: dict[tuple[str, str], Handler] = {
    ("add", "cluster"): lambda s, n, w, v, lvl: add_cluster(s, n, v),
    ("add", "account"): lambda s, n, w, v, lvl: add_account(s, n, v),
    ("add", "user"): lambda s, n, w, v, lvl: add_user(s, n, v, lvl),
    ("add", "qos"): lambda s, n, w, v, lvl: add_qos(s, n, v),
    ("modify", "cluster"): lambda s, n, w, v, lvl: modify_cluster(s, w, v),
    ("modify", "account"): lambda s, n, w, v, lvl: modify_account(s, w, v),
    ("modify", "user"): lambda s, n, w, v, lvl: modify_user(s, w, v, lvl),
    ("modify", "qos"): lambda s, n, w, v, lvl: modify_qos(s, w, v),
    ("delete", "cluster"): lambda s, n, w, v, lvl: delete_cluster(s, w),
    ("delete", "account"): lambda s, n, w, v, lvl: delete_account(s, w),
    ("delete", "user"): lambda s, n, w, v, lvl: delete_user(s, w, lvl),
    ("delete", "qos"): lambda s, n, w, v, lvl: delete_qos(s, w),
}  # fmt: skip


class AssociationAdmin:
    """The changes sacctmgr asks for, each in one transaction on the accounting database."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def change(self, caller: Caller, action: str, entity: str, names: Sequence[str],
               where: Sequence[Setting], settings: Sequence[Setting], commit: bool) -> ChangeReport:
        handler = _HANDLERS.get((action, entity))
        if handler is None and not (entity == "coordinator" and action in ("add", "delete")):
            raise invalid(f" Can't {action} {entity} entities")
        with self._sessions() as session:
            level = admin_level(session, caller)
            lowered = [n.lower() for n in names]
            if entity == "coordinator":   # coordinators may name coordinators too: checked there
                report = (add_coordinators(session, lowered, settings, caller.name, level) if action == "add"
                          else remove_coordinators(session, where, caller.name, level))
            elif level == "None":
                report = _as_coordinator(session, caller.name, action, entity, lowered, where, settings)
            else:
                report = handler(session, lowered, where, settings, level)
            if commit:
                session.commit()
            else:
                session.rollback()
            return report

    def ensure_cluster(self, name: str) -> bool:
        """Register ``name`` (root account and user, ``normal`` QOS) unless known; True if added."""
        with self._sessions.begin() as session:
            return bool(add_cluster(session, [name], []).names)

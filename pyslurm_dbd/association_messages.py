"""Translation between sacctmgr's wire messages and the association domain (rows, reports)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pyslurm_common.rpc import dbd_pb2
from pyslurm_dbd.admin import ChangeReport, Setting
from pyslurm_dbd.association_models import AccountRow, AssociationRow, QosRow, UserRow
from pyslurm_dbd.association_queries import Listing

_LIMIT_FIELDS = ("grp_jobs", "grp_submit", "grp_tres", "grp_wall", "max_jobs", "max_submit",
                 "max_tres", "max_tres_per_node", "max_wall")  # fmt: skip
_QOS_FIELDS = ("max_tres_per_user", "max_tres_per_account", "max_jobs_per_user", "max_submit_per_user",
               "max_jobs_per_account", "max_submit_per_account", "min_tres", "preempt_exempt_time",
               "usage_threshold")  # fmt: skip


def settings(messages: Iterable[dbd_pb2.Setting]) -> list[Setting]:
    return [Setting(key=m.key, value=m.value, op=m.op or "=") for m in messages]


def _copy_set(target: Any, row: Any, fields: Iterable[str]) -> None:
    """Copy the fields of ``row`` that are set (not NULL) onto ``target``."""
    for name in fields:
        value = getattr(row, name, None)
        if value is not None:
            setattr(target, name, value)


def _limits(row: AssociationRow | QosRow) -> dbd_pb2.Limits:
    limits = dbd_pb2.Limits()
    _copy_set(limits, row, _LIMIT_FIELDS)
    return limits


def _split(text: str) -> list[str]:
    return [item for item in text.split(",") if item]


def association(row: AssociationRow) -> dbd_pb2.AssociationRecord:
    record = dbd_pb2.AssociationRecord(
        key=dbd_pb2.AssociationKey(cluster=row.cluster, account=row.account, user=row.user, partition=row.partition),
        id=row.id, parent_account=row.parent_account, shares=row.shares, limits=_limits(row),
        qos=_split(row.qos), default_qos=row.default_qos)
    if row.priority is not None:
        record.priority = row.priority
    return record


def qos(row: QosRow) -> dbd_pb2.QosRecord:
    record = dbd_pb2.QosRecord(
        id=row.id, name=row.name, description=row.description, priority=row.priority, flags=_split(row.flags),
        grace_time=row.grace_time, preempt=_split(row.preempt), preempt_mode=row.preempt_mode,
        usage_factor=row.usage_factor, limits=_limits(row))
    _copy_set(record, row, _QOS_FIELDS)
    return record


def _user(row: UserRow, listing: Listing) -> dbd_pb2.UserRecord:
    accounts = listing.coord_accounts.get(row.name, [])
    return dbd_pb2.UserRecord(name=row.name, default_account=row.default_account, admin_level=row.admin_level,
                              coord_accounts=accounts, direct_coord_accounts=[
                                  a for a in accounts if (row.name, a) in listing.coordinator_grants])


def _account(row: AccountRow, listing: Listing) -> dbd_pb2.AccountRecord:
    users = listing.account_coordinators.get(row.name, [])
    return dbd_pb2.AccountRecord(name=row.name, description=row.description, organization=row.organization,
                                 coordinators=users, direct_coordinators=[
                                     u for u in users if (u, row.name) in listing.coordinator_grants])


def state(listing: Listing, version: str) -> dbd_pb2.AssociationState:
    return dbd_pb2.AssociationState(
        version=version, users=[_user(u, listing) for u in listing.users],
        associations=[association(a) for a in listing.associations], qos=[qos(q) for q in listing.qos])


def entities(listing: Listing) -> dbd_pb2.AssociationEntities:
    reply = dbd_pb2.AssociationEntities(
        accounts=[_account(a, listing) for a in listing.accounts],
        users=[_user(u, listing) for u in listing.users],
        associations=[association(a) for a in listing.associations],
        qos=[qos(q) for q in listing.qos],
        tres=[dbd_pb2.TresRecord(type=kind, name=name, id=number) for kind, name, number in listing.tres])
    for cluster, root in listing.clusters:
        record = reply.clusters.add(name=cluster.name, control_host=cluster.control_host,
                                    control_port=cluster.control_port, rpc_version=cluster.rpc_version)
        if root is not None:
            record.root.CopyFrom(association(root))
    return reply


def change_result(report: ChangeReport) -> dbd_pb2.AssociationChangeResult:
    return dbd_pb2.AssociationChangeResult(
        names=report.names,
        settings=[dbd_pb2.Setting(key=k, op="=", value=v) for k, v in report.settings],
        limits=[dbd_pb2.Setting(key=k, op="=", value=v) for k, v in report.limits],
        associations=[dbd_pb2.AssociationKey(cluster=a.cluster, account=a.account, user=a.user, partition=a.partition)
                      for a in report.associations])

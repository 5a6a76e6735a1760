"""sacctmgr show: the field table of each entity, default formats, and the rows to print.

Owns spec §3.3 of cli-sacct-sacctmgr-sprio-sshare.md: each field's format name, header and
default width; the default field lists of ``show assoc|account|user|qos|cluster|tres`` (with
``withassoc`` and ``WOLimits``); value formats (durations ``[D-]HH:MM:SS``, TRES with memory
units, Share ``parent``, blank unset limits). Rendering is ``cli.print_fields``.

Pure. Errors: :class:`cli.print_fields.FormatError` for an unknown field.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cli.print_fields import Column, Value, parse_field_list
from pyslurm_common import units

SHARES_PARENT = 0x7FFFFFFF  # Slurm's SLURMDB_FS_USE_PARENT, as the daemon stores it


@dataclass(frozen=True, slots=True)
class Row:
    """One output line: the entity and, for association columns, one of its associations;
    ``depth`` (``show assoc tree``) indents the Account column."""

    entity: Any = None
    assoc: Any = None
    depth: int | None = None


TREE_ACCOUNT_WIDTH = -20


def tree_depths(associations: Sequence[Any]) -> list[int]:
    """Depth of each association, given in tree order: root 0, a child one more than its parent
    (a user one more than its account); one whose parent is not listed counts as a root."""
    depth_of: dict[tuple[str, str], int] = {}
    depths = []
    for a in associations:
        if a.key.user:
            depth = depth_of.get((a.key.cluster, a.key.account), -1) + 1
        else:
            depth = depth_of.get((a.key.cluster, a.parent_account), -1) + 1 if a.parent_account else 0
            depth_of[(a.key.cluster, a.key.account)] = depth
        depths.append(depth)
    return depths


def _account(row: Row) -> Value:
    if row.assoc is None:
        return None
    return " " * (row.depth or 0) + row.assoc.key.account


@dataclass(frozen=True, slots=True)
class Field:
    header: str
    width: int
    get: Callable[[Row], Value]


def _opt(message: Any, name: str) -> int | None:
    return getattr(message, name) if message is not None and message.HasField(name) else None


def format_tres(text: str) -> str | None:
    """``cpu=4,mem=1024,node=2`` → ``cpu=4,mem=1G,node=2``; None when empty."""
    if not text:
        return None
    items = []
    for item in text.split(","):
        name, _, count = item.partition("=")
        items.append(f"mem={units.format_memory_mb(int(count))}" if name == "mem" else item)
    return ",".join(items)


def _minutes(value: int | None) -> str | None:
    return None if value is None else units.format_duration_hms(value * 60)


def _seconds(value: int | None) -> str | None:
    return None if value is None else units.format_duration_hms(value)


def _tres_count(text: str, name: str) -> int | None:
    for item in text.split(","):
        key, _, count = item.partition("=")
        if key == name:
            return int(count)
    return None


def _share(assoc: Any) -> Value:
    if assoc is None:
        return None
    return "parent" if assoc.shares == SHARES_PARENT else int(assoc.shares)


def _limit(name: str, kind: str = "count") -> Callable[[Any], Value]:
    def get(message: Any) -> Value:
        if message is None:
            return None
        limits = message.limits
        if kind == "tres":
            return format_tres(getattr(limits, name))
        value = _opt(limits, name)
        return _minutes(value) if kind == "minutes" else value
    return get


def _on_assoc(get: Callable[[Any], Value]) -> Callable[[Row], Value]:
    return lambda row: get(row.assoc)


def _blank(row: Row) -> Value:
    return None


ASSOCIATION_FIELDS: dict[str, Field] = {
    "Cluster": Field("Cluster", 10, _on_assoc(lambda a: a and a.key.cluster)),
    "Account": Field("Account", 10, _account),
    "User": Field("User", 10, _on_assoc(lambda a: a and a.key.user)),
    "Partition": Field("Partition", 10, _on_assoc(lambda a: a and a.key.partition)),
    "ParentName": Field("Par Name", 10, _on_assoc(lambda a: a and a.parent_account)),
    "ID": Field("ID", 6, _on_assoc(lambda a: a and int(a.id))),
    "Share": Field("Share", 9, _on_assoc(_share)),
    "Fairshare": Field("Share", 9, _on_assoc(_share)),
    "Priority": Field("Priority", 10, _on_assoc(lambda a: _opt(a, "priority"))),
    "GrpJobs": Field("GrpJobs", 7, _on_assoc(_limit("grp_jobs"))),
    "GrpTRES": Field("GrpTRES", 13, _on_assoc(_limit("grp_tres", "tres"))),
    "GrpSubmit": Field("GrpSubmit", 9, _on_assoc(_limit("grp_submit"))),
    "GrpWall": Field("GrpWall", 11, _on_assoc(_limit("grp_wall", "minutes"))),
    "GrpTRESMins": Field("GrpTRESMins", 13, _blank),
    "GrpTRESRunMins": Field("GrpTRESRunMins", 13, _blank),
    "MaxJobs": Field("MaxJobs", 7, _on_assoc(_limit("max_jobs"))),
    "MaxTRES": Field("MaxTRES", 13, _on_assoc(_limit("max_tres", "tres"))),
    "MaxTRESPerNode": Field("MaxTRESPerNode", 14, _on_assoc(_limit("max_tres_per_node", "tres"))),
    "MaxTRESMins": Field("MaxTRESMins", 13, _blank),
    "MaxSubmit": Field("MaxSubmit", 9, _on_assoc(_limit("max_submit"))),
    "MaxWall": Field("MaxWall", 11, _on_assoc(_limit("max_wall", "minutes"))),
    "MaxNodes": Field("MaxNodes", 8, _on_assoc(lambda a: a and _tres_count(a.limits.max_tres, "node"))),
    "MaxCPUs": Field("MaxCPUs", 8, _on_assoc(lambda a: a and _tres_count(a.limits.max_tres, "cpu"))),
    "MaxCPUMins": Field("MaxCPUMins", 11, _blank),
    "QOS": Field("QOS", 20, _on_assoc(lambda a: a and ",".join(sorted(a.qos)))),
    "DefaultQOS": Field("Def QOS", 9, _on_assoc(lambda a: a and a.default_qos)),
}

_ACCOUNT_FIELDS: dict[str, Field] = {
    "Account": Field("Account", 10, lambda r: r.entity.name),
    "Description": Field("Descr", 20, lambda r: r.entity.description),
    "Organization": Field("Org", 20, lambda r: r.entity.organization),
    "Coordinators": Field("Coord Accounts", 20, lambda r: ",".join(r.entity.coordinators)),
}

_USER_FIELDS: dict[str, Field] = {
    "User": Field("User", 10, lambda r: r.entity.name),
    "DefaultAccount": Field("Def Acct", 10, lambda r: r.entity.default_account),
    "AdminLevel": Field("Admin", 9, lambda r: r.entity.admin_level),
    "Coordinators": Field("Coord Accounts", 20, lambda r: ",".join(r.entity.coord_accounts)),
}


def _qos_limit(name: str, kind: str = "count") -> Callable[[Row], Value]:
    get = _limit(name, kind)
    return lambda row: get(row.entity)


def _qos_top(name: str, kind: str = "count") -> Callable[[Row], Value]:
    def get(row: Row) -> Value:
        if kind == "tres":
            return format_tres(getattr(row.entity, name))
        return _opt(row.entity, name)
    return get


_QOS_FIELDS: dict[str, Field] = {
    "Name": Field("Name", 10, lambda r: r.entity.name),
    "Description": Field("Descr", 20, lambda r: r.entity.description),
    "ID": Field("ID", 6, lambda r: int(r.entity.id)),
    "Priority": Field("Priority", 10, lambda r: int(r.entity.priority)),
    "GraceTime": Field("GraceTime", 10, lambda r: _seconds(int(r.entity.grace_time))),
    "Preempt": Field("Preempt", 10, lambda r: ",".join(r.entity.preempt)),
    "PreemptExemptTime": Field("PreemptExemptTime", 19, lambda r: _seconds(_opt(r.entity, "preempt_exempt_time"))),
    "PreemptMode": Field("PreemptMode", 11, lambda r: r.entity.preempt_mode),
    "Flags": Field("Flags", 40, lambda r: ",".join(r.entity.flags)),
    "UsageThres": Field("UsageThres", 10, lambda r: _float(_opt(r.entity, "usage_threshold"))),
    "UsageFactor": Field("UsageFactor", 11, lambda r: _float(r.entity.usage_factor)),
    "GrpTRES": Field("GrpTRES", 13, _qos_limit("grp_tres", "tres")),
    "GrpTRESMins": Field("GrpTRESMins", 13, _blank),
    "GrpTRESRunMins": Field("GrpTRESRunMins", 13, _blank),
    "GrpJobs": Field("GrpJobs", 7, _qos_limit("grp_jobs")),
    "GrpSubmit": Field("GrpSubmit", 9, _qos_limit("grp_submit")),
    "GrpWall": Field("GrpWall", 11, _qos_limit("grp_wall", "minutes")),
    "MaxTRES": Field("MaxTRES", 13, _qos_limit("max_tres", "tres")),
    "MaxTRESPerNode": Field("MaxTRESPerNode", 14, _qos_limit("max_tres_per_node", "tres")),
    "MaxTRESMins": Field("MaxTRESMins", 13, _blank),
    "MaxWall": Field("MaxWall", 11, _qos_limit("max_wall", "minutes")),
    "MaxTRESPU": Field("MaxTRESPU", 13, _qos_top("max_tres_per_user", "tres")),
    "MaxJobsPU": Field("MaxJobsPU", 9, _qos_top("max_jobs_per_user")),
    "MaxSubmitPU": Field("MaxSubmitPU", 11, _qos_top("max_submit_per_user")),
    "MaxTRESPA": Field("MaxTRESPA", 13, _qos_top("max_tres_per_account", "tres")),
    "MaxJobsPA": Field("MaxJobsPA", 9, _qos_top("max_jobs_per_account")),
    "MaxSubmitPA": Field("MaxSubmitPA", 11, _qos_top("max_submit_per_account")),
    "MinTRES": Field("MinTRES", 13, _qos_top("min_tres", "tres")),
}

_CLUSTER_FIELDS: dict[str, Field] = {
    **{name: f for name, f in ASSOCIATION_FIELDS.items() if name not in ("Cluster", "Account", "User")},
    "Cluster": Field("Cluster", 10, lambda r: r.entity.name),
    "ControlHost": Field("ControlHost", 15, lambda r: r.entity.control_host),
    "ControlPort": Field("ControlPort", 12, lambda r: int(r.entity.control_port)),
    "RPC": Field("RPC", 5, lambda r: int(r.entity.rpc_version)),
}


_TRES_FIELDS: dict[str, Field] = {
    "Type": Field("Type", 8, lambda r: r.entity.type),
    "Name": Field("Name", 15, lambda r: r.entity.name),
    "ID": Field("ID", 6, lambda r: int(r.entity.id)),
}


def _float(value: float | None) -> str | None:
    return None if value is None else f"{value:f}"


_ASSOC_LIMITS = ("Share,Priority,GrpJobs,GrpTRES,GrpSubmit,GrpWall,GrpTRESMins,MaxJobs,MaxTRES,"
                 "MaxTRESPerNode,MaxSubmit,MaxWall,MaxTRESMins,QOS,DefaultQOS,GrpTRESRunMins")
DEFAULTS = {
    "association": "Cluster,Account,User,Partition," + _ASSOC_LIMITS,
    "account": "Account,Description,Organization",
    "user": "User,DefaultAccount,AdminLevel",
    "qos": ("Name,Priority,GraceTime,Preempt,PreemptExemptTime,PreemptMode,Flags,UsageThres,UsageFactor,"
            "GrpTRES,GrpTRESMins,GrpTRESRunMins,GrpJobs,GrpSubmit,GrpWall,MaxTRES,MaxTRESPerNode,MaxTRESMins,"
            "MaxWall,MaxTRESPU,MaxJobsPU,MaxSubmitPU,MaxTRESPA,MaxJobsPA,MaxSubmitPA,MinTRES"),
    "cluster": "Cluster,ControlHost,ControlPort,RPC,Share,GrpJobs,GrpTRES,GrpSubmit,MaxJobs,MaxTRES,MaxSubmit,MaxWall,QOS,DefaultQOS",
    "tres": "Type,Name,ID",
}
_WITH_ASSOC = {
    "account": "Account,Description,Organization,Cluster,ParentName,User," + _ASSOC_LIMITS,
    "user": ("User,DefaultAccount,AdminLevel,Cluster,Account,Partition,Share,Priority,MaxJobs,MaxNodes,MaxCPUs,"
             "MaxSubmit,MaxWall,MaxCPUMins,QOS,DefaultQOS"),
}
_WO_LIMITS = {"association": "Cluster,Account,User,Partition"}


def field_table(entity: str, with_assoc: bool) -> dict[str, Field]:
    """The fields ``format=`` may name for a ``show <entity>``."""
    fixed = {"qos": _QOS_FIELDS, "cluster": _CLUSTER_FIELDS, "tres": _TRES_FIELDS}.get(entity)
    if fixed is not None:
        return fixed
    own = {"account": _ACCOUNT_FIELDS, "user": _USER_FIELDS}.get(entity, {})
    if entity == "association" or with_assoc:
        return {**ASSOCIATION_FIELDS, **own}
    return own


def _with_coordinators(entity: str, default: str) -> str:
    """``withcoord``: Slurm adds the column after a user's own fields, at the end for an account."""
    if entity == "user":
        return default.replace("AdminLevel", "AdminLevel,Coordinators", 1)
    return default + ",Coordinators" if entity == "account" else default


def columns(entity: str, spec: str, with_assoc: bool, wo_limits: bool,
            tree: bool = False, with_coord: bool = False) -> tuple[list[str], list[Column]]:
    """The chosen field names and their printed columns (header text, width); with ``tree`` the
    Account column is left-justified and 20 wide unless the format gives a width."""
    table = field_table(entity, with_assoc)
    default = (_WO_LIMITS.get(entity) if wo_limits else None) or (
        _WITH_ASSOC.get(entity) if with_assoc else None) or DEFAULTS[entity]
    if with_coord:
        default = _with_coordinators(entity, default)
    widths = {name: f.width for name, f in table.items()}
    if tree and "Account" in widths:
        widths["Account"] = TREE_ACCOUNT_WIDTH
    parsed = parse_field_list(spec or default, widths)
    return [c.name for c in parsed], [Column(table[c.name].header, c.width) for c in parsed]


def values(entity: str, names: Sequence[str], with_assoc: bool, row: Row) -> list[Value]:
    table = field_table(entity, with_assoc)
    return [table[name].get(row) for name in names]

"""``sacctmgr show event``: node and cluster events as Slurm lists them.

Conditions (``where`` optional, keys case-insensitive by prefix as Slurm's): ``Nodes=``,
``States=`` (DOWN, DRAIN), ``Start=``, ``End=``, ``Clusters=``, ``Reason=``, ``User=``,
``Events=Node|Cluster`` (a bare ``node``/``cluster`` word too), ``All_Clusters``, ``All_Time``.
The window (events overlapping it are listed) starts at yesterday's midnight, or now when
``States=`` is given, and ends now; only the local cluster's events unless ``Clusters=`` or
``All_Clusters``. Default columns: ``Cluster,NodeName,TimeStart,TimeEnd,State,Reason,User``;
with ``Events=Cluster``: ``Cluster,CPUCount,TimeStart,TimeEnd,ClusterNodes``. An open event ends
``Unknown``; User is ``name(uid)``.

Pure but for ``now`` and the user-name lookup. Errors: :class:`EventArgumentError` (text printed
as is, exit 1), :class:`cli.print_fields.FormatError` for an unknown field.
"""
from __future__ import annotations

import pwd
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pyslurm_common import units
from pyslurm_common.dates import parse_datetime
from pyslurm_common.rpc import messages as pb

from .print_fields import Column, Value, parse_field_list
from .sacctmgr_args import Spec

NODE_FIELDS = "Cluster,NodeName,TimeStart,TimeEnd,State,Reason,User"
CLUSTER_FIELDS = "Cluster,CPUCount,TimeStart,TimeEnd,ClusterNodes"
_ALIASES = {"start": "TimeStart", "end": "TimeEnd", "cpus": "CPUCount", "nodenames": "NodeName"}


class EventArgumentError(ValueError):
    """A condition sacctmgr does not understand (printed as is, exit 1)."""


@dataclass(frozen=True, slots=True)
class EventField:
    header: str
    width: int
    get: Callable[[pb.NodeEvent, int], Value]


def _user(event: pb.NodeEvent, _now: int) -> Value:
    if not event.node:
        return None
    try:
        name = pwd.getpwuid(event.reason_uid).pw_name
    except KeyError:
        name = str(event.reason_uid)
    return f"{name}({event.reason_uid})"


def _date(epoch: int) -> str:
    return units.format_timestamp(epoch, unknown="Unknown")


FIELDS: dict[str, EventField] = {
    "Cluster": EventField("Cluster", 10, lambda e, now: e.cluster),
    "ClusterNodes": EventField("Cluster Nodes", 20, lambda e, now: e.cluster_nodes if not e.node else None),
    "CPUCount": EventField("CPU Cnt", 7, lambda e, now: str(e.cpus)),
    "Duration": EventField("Duration", 13,
                           lambda e, now: units.format_duration_hms((e.time_end or now) - e.time_start)),
    "Event": EventField("Event", 7, lambda e, now: "Node" if e.node else "Cluster"),
    "NodeName": EventField("NodeName", -15, lambda e, now: e.node),
    "Reason": EventField("Reason", 30, lambda e, now: e.reason),
    "State": EventField("State", 6, lambda e, now: e.state if e.node else None),
    "TimeEnd": EventField("TimeEnd", 19, lambda e, now: _date(e.time_end)),
    "TimeStart": EventField("TimeStart", 19, lambda e, now: _date(e.time_start)),
    "User": EventField("User", 10, _user),
}  # fmt: skip


def columns(spec: str, cluster_events: bool) -> tuple[list[str], list[Column]]:
    """The chosen field names and their printed columns (header, width)."""
    return named_columns(spec or (CLUSTER_FIELDS if cluster_events else NODE_FIELDS), FIELDS, _ALIASES)


def named_columns(spec: str, fields: Mapping[str, Any], aliases: Mapping[str, str]) -> tuple[list[str], list[Column]]:
    """The field names of ``spec`` (``fields`` have a header and a width) and their columns; an
    alias stands for its field (``Start%25`` -> ``TimeStart%25``: Slurm's other names)."""
    items = []
    for item in spec.split(","):
        name, percent, width = item.strip().partition("%")
        if name:
            items.append(aliases.get(name.lower(), name) + percent + width)
    parsed = parse_field_list(items, {name: f.width for name, f in fields.items()})
    return [c.name for c in parsed], [Column(fields[c.name].header, c.width) for c in parsed]


def values(names: Sequence[str], event: pb.NodeEvent, now: int) -> list[Value]:
    return [FIELDS[name].get(event, now) for name in names]


def matches(key: str, word: str, least: int) -> bool:
    """Slurm's keyword test: ``key`` is a prefix of ``word`` at least ``least`` letters long."""
    return len(key) >= least and word.lower().startswith(key.lower())


def query(where: Sequence[Spec], local_cluster: str, now: float) -> pb.EventQuery:
    """The daemon query for ``show event`` with these conditions."""
    q = pb.EventQuery()
    all_time = all_clusters = False
    start: int | None = None
    for spec in where:
        key, value = spec.key, spec.value
        if key == "name":          # a bare word
            lower = value.lower()
            if matches(lower, "all_clusters", 5):
                all_clusters = True
            elif matches(lower, "all_time", 5):
                all_time = True
            else:
                q.kind = _kind(value)
        elif matches(key, "events", 1):
            q.kind = _kind(value)
        elif matches(key, "clusters", 1):
            q.clusters.extend(name_list(value))
        elif matches(key, "end", 1):
            q.end_time = parse_time(value, now)
        elif matches(key, "nodes", 1):
            q.nodes.extend(name_list(value))
        elif matches(key, "reason", 1):
            q.reasons.extend(name_list(value))
        elif matches(key, "start", 4):
            start = parse_time(value, now)
        elif matches(key, "states", 4):
            q.states.extend(_state(s) for s in name_list(value))
            q.kind = "node"
        elif matches(key, "user", 1):
            q.reason_uids.extend(_uid(u) for u in name_list(value))
            q.kind = "node"
        else:
            raise EventArgumentError(f" Unknown condition: {key}={value}")
    if not all_clusters and not q.clusters and local_cluster:
        q.clusters.append(local_cluster)
    if start is not None:
        q.start_time = start
    elif not all_time:
        q.start_time = int(now) if q.states else yesterday_midnight(now)
    return q


def name_list(value: str) -> list[str]:
    return [item for item in value.split(",") if item]


def _kind(value: str) -> str:
    kinds = {_event_kind(word) for word in name_list(value)}
    return kinds.pop() if len(kinds) == 1 else ""


def _event_kind(word: str) -> str:
    if "node".startswith(word.lower()):
        return "node"
    if "cluster".startswith(word.lower()):
        return "cluster"
    raise EventArgumentError(f" Unknown event type: '{word}'  Valid events are Cluster and Node.")


def _state(word: str) -> str:
    for state in ("DOWN", "DRAIN"):
        if len(word) >= 3 and state.startswith(word.upper()):
            return state
    raise EventArgumentError(f"Invalid state: {word}\nValid node states are: DRAIN DOWN")


def _uid(name: str) -> int:
    if name.isdigit():
        return int(name)
    try:
        return pwd.getpwnam(name).pw_uid
    except KeyError:
        raise EventArgumentError(f"Invalid user id: {name}") from None


def parse_time(text: str, now: float) -> int:
    try:
        return parse_datetime(text, now, past=True)
    except ValueError:
        raise EventArgumentError(f" Invalid time specification: {text}") from None


def yesterday_midnight(now: float) -> int:
    t = time.localtime(now)
    return int(time.mktime((t.tm_year, t.tm_mon, t.tm_mday - 1, 0, 0, 0, 0, 0, -1)))

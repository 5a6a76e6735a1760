"""``sacctmgr show reservation``: the reservations accounting recorded, as Slurm lists them.

Conditions (``where`` optional, keys by Slurm's prefixes): ``Clusters=``, ``End=``, ``Ids=``,
``Names=``, ``Nodes=``, ``Start=``. With no condition at all the window starts at yesterday's
midnight, as in Slurm; with any, only ``Start=``/``End=`` bound it. Default columns:
``Cluster,Name%15,TRES%30,TimeStart,TimeEnd,UnusedWall``; also ``ID``, ``Flags``, ``NodeNames``.
UnusedWall is Slurm's print_fields_double: ``%f`` when parsable, padded to 10 otherwise, in
exponent form when ``%f`` would not fit.

Pure but for ``now``. Errors: :class:`cli.sacctmgr_events.EventArgumentError` (text printed as
is, exit 1), :class:`cli.print_fields.FormatError` for an unknown field.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pyslurm_common import units
from pyslurm_common.rpc import messages as pb

from .print_fields import Column, Value
from .sacctmgr_args import Spec
from .sacctmgr_events import EventArgumentError, matches, name_list, named_columns, parse_time, yesterday_midnight

DEFAULT_FIELDS = "Cluster,Name%15,TRES%30,TimeStart,TimeEnd,UnusedWall"
_ALIASES = {"start": "TimeStart", "end": "TimeEnd", "nodenames": "NodeName", "nodes": "NodeName"}


@dataclass(frozen=True, slots=True)
class ResvField:
    header: str
    width: int
    get: Callable[[pb.ReservationRecord, bool], Value]


def _date(epoch: int) -> str:
    return units.format_timestamp(epoch, unknown="Unknown")


def double_cell(value: float, parsable: bool, width: int = 10) -> str:
    """Slurm's print_fields_double for a set value."""
    if parsable:
        return f"{value:f}"
    if len(f"{value:{width}f}") <= width:
        return f"{value:{width}f}"
    digits = width - max(0, len(f"{value:{width}.{width}e}") - width)
    return f"{value:{digits}.{digits}e}"


FIELDS: dict[str, ResvField] = {
    "Cluster": ResvField("Cluster", 10, lambda r, p: r.cluster),
    "Flags": ResvField("Flags", 20, lambda r, p: r.flags),
    "ID": ResvField("ID", 6, lambda r, p: r.id),
    "Name": ResvField("Name", 10, lambda r, p: r.name),
    "NodeName": ResvField("NodeName", -15, lambda r, p: r.nodes),
    "TimeEnd": ResvField("TimeEnd", 19, lambda r, p: _date(r.time_end)),
    "TimeStart": ResvField("TimeStart", 19, lambda r, p: _date(r.time_start)),
    "TRES": ResvField("TRES", 20, lambda r, p: f"cpu={r.cpus}" if r.cpus else ""),
    "UnusedWall": ResvField("UnusedWall", 10, lambda r, p: double_cell(r.unused_wall, p)),
}  # fmt: skip


def columns(spec: str) -> tuple[list[str], list[Column]]:
    """The chosen field names and their printed columns (header, width)."""
    return named_columns(spec or DEFAULT_FIELDS, FIELDS, _ALIASES)


def values(names: Sequence[str], resv: pb.ReservationRecord, parsable: bool) -> list[Value]:
    return [FIELDS[name].get(resv, parsable) for name in names]


def query(where: Sequence[Spec], now: float) -> pb.ReservationQuery:
    """The daemon query for ``show reservation`` with these conditions."""
    q = pb.ReservationQuery()
    for spec in where:
        key, value = spec.key, spec.value
        if key == "name" or matches(key, "names", 2):   # a bare word names reservations too
            q.names.extend(name_list(value))
        elif matches(key, "clusters", 1):
            q.clusters.extend(name_list(value))
        elif matches(key, "end", 1):
            q.end_time = parse_time(value, now)
        elif matches(key, "ids", 1):
            q.ids.extend(_id(i) for i in name_list(value))
        elif matches(key, "nodes", 2):
            q.nodes.extend(name_list(value))
        elif matches(key, "start", 5):
            q.start_time = parse_time(value, now)
        else:
            raise EventArgumentError(f" Unknown condition: {key}={value}")
    if not where:
        q.start_time = yesterday_midnight(now)
    return q


def _id(text: str) -> int:
    if not text.isdigit() or int(text) > 0xFFFFFFFD:
        raise EventArgumentError(f" Invalid reservation id: {text}")
    return int(text)

"""sreport's report window, time formats and the two reports pyslurm answers, as Slurm prints them.

* ``-t``: Seconds, Minutes (default), Hours, Percent, SecPer, MinPer, HourPer (case-insensitive
  abbreviations); values are TRES-seconds printed as ``%.0f`` of minutes/hours, ``%.2f%%`` of
  the total, or both (``123(45.67%)``).
* The window: ``end`` defaults to today 00:00 and is capped at now, ``start`` to yesterday 00:00;
  both are rounded to the nearest hour; at least one hour wide. The header shows end - 1 s.
* Header block unless ``-n`` (also when parsable): an 80-dash rule, the title with the window,
  ``Usage reported in CPU Minutes`` (``Usage reported in Percentage of Total`` for -t percent),
  the rule again; then the print_fields table.
* Usage columns are 8 wide plus one per digit beyond 8 of the largest value in seconds, plus 9
  in the ``*Per`` formats (Slurm's sreport_set_usage_col_width).
* ``cluster utilization`` (default ``Cluster,Allocated,Down,PLND Down,Idle,Reserved,Reported``):
  one row per cluster; percentages of its reported time, Reported as a percentage of the
  window's CPU time. ``user topusage`` (default ``Cluster,Login,Proper Name,Account,Used,Energy``):
  the TopCount (10) users by usage, one row per user and account (``Group``: one per user, the
  accounts joined); percentages of the cluster's allocated time.

Pure but for the ``pwd`` lookup of proper names. Errors: :class:`ReportError` (text printed on
stderr as is, exit 1).
"""
from __future__ import annotations

import pwd
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pyslurm_common import units
from pyslurm_common.rpc import messages as pb

from .print_fields import MAX_FIELD_WIDTH, Column, Parsable, Value, render

RULE = "-" * 80
HOUR = 3600


class ReportError(ValueError):
    """A bad option or field: the text sreport prints on stderr."""


@dataclass(frozen=True, slots=True)
class TimeFormat:
    name: str           # as the header prints it
    divisor: int        # 1 seconds, 60 minutes, 3600 hours, 0 percent only
    percent: bool


_TIME_FORMATS = (  # (word, shortest abbreviation, format), in Slurm's matching order
    ("secper", 6, TimeFormat("Seconds/Percentage of Total", 1, True)),
    ("minper", 4, TimeFormat("Minutes/Percentage of Total", 60, True)),
    ("hourper", 6, TimeFormat("Hours/Percentage of Total", HOUR, True)),
    ("seconds", 1, TimeFormat("Seconds", 1, False)),
    ("minutes", 1, TimeFormat("Minutes", 60, False)),
    ("hours", 1, TimeFormat("Hours", HOUR, False)),
    ("percent", 1, TimeFormat("Percentage of Total", 0, True)),
)
MINUTES = _TIME_FORMATS[4][2]


def abbreviates(word: str, name: str, shortest: int) -> bool:
    """Slurm's keyword test: ``word`` is ``name`` cut to at least ``shortest`` letters."""
    return len(word) >= shortest and name.startswith(word.lower())


def time_format(word: str) -> TimeFormat:
    for name, shortest, fmt in _TIME_FORMATS:
        if abbreviates(word, name, shortest):
            return fmt
    raise ReportError(f"unknown time format {word}")


def usage_text(secs: int, total: int, fmt: TimeFormat) -> str:
    """One usage value (Slurm's slurmdb_report_print_time)."""
    percent = secs * 100.0 / (total or 1)
    if not fmt.divisor:
        return f"{percent:.2f}%"
    amount = f"{secs / fmt.divisor:.0f}" if fmt.divisor > 1 else str(secs)
    return f"{amount}({percent:.2f}%)" if fmt.percent else amount


def usage_width(largest: int, fmt: TimeFormat) -> int:
    """Width of a usage column whose largest value is ``largest`` seconds."""
    width, order = 8, 100_000_000
    while largest >= order:
        width += 1
        order *= 10
    return width + (9 if fmt.divisor and fmt.percent else 0)


def _nearest_hour(epoch: int) -> int:
    t = time.localtime(epoch)
    minute = t.tm_min + (1 if t.tm_sec >= 30 else 0)
    hour_start = int(time.mktime((t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, 0, 0, 0, 0, -1)))
    return hour_start + (HOUR if minute >= 30 else 0)


def _midnight(now: float, days_back: int) -> int:
    t = time.localtime(now)
    return int(time.mktime((t.tm_year, t.tm_mon, t.tm_mday - days_back, 0, 0, 0, 0, 0, -1)))


def window(start: int | None, end: int | None, now: float) -> tuple[int, int]:
    """The report's [start, end) from ``start=``/``end=`` (None: not given)."""
    last = _midnight(now, 0) if end is None else _nearest_hour(min(end, int(now)))
    first = _midnight(now, 1) if start is None else _nearest_hour(start)
    return first, max(last, first + HOUR)


def header_block(title: str, start: int, end: int, fmt: TimeFormat, with_seconds: bool) -> list[str]:
    period = f"{title} {units.format_timestamp(start)} - {units.format_timestamp(end - 1)}"
    if with_seconds:
        period += f" ({end - start} secs)"
    unit = f"Usage reported in {fmt.name}" if not fmt.divisor else f"Usage reported in CPU {fmt.name}"
    return [RULE, period, unit, RULE]


@dataclass(frozen=True, slots=True)
class ReportField:
    header: str
    width: int              # 0: a usage column, sized by its largest value
    words: tuple[tuple[str, int], ...]   # (keyword, shortest abbreviation) that choose it


def parse_format(spec: str, fields: Sequence[ReportField]) -> list[tuple[ReportField, int | None]]:
    """``format=`` items (``name[%width]``) matched like Slurm's sreport: first field, in table
    order, whose keyword the item abbreviates far enough."""
    chosen = []
    for item in (part.strip() for part in spec.split(",")):
        if not item:
            continue
        word, _, width = item.partition("%")
        field = next((f for f in fields if any(abbreviates(word, name, n) for name, n in f.words)), None)
        if field is None:
            raise ReportError(f" Unknown field '{word}'")
        size = int(width) if width.lstrip("-").isdigit() else None
        if size is not None and abs(size) > MAX_FIELD_WIDTH:
            raise ReportError(f" Unknown field '{item}'")
        chosen.append((field, size))
    return chosen


def _columns(chosen: Sequence[tuple[ReportField, int | None]], largest: Callable[[ReportField], int],
             fmt: TimeFormat) -> list[Column]:
    return [Column(f.header, width if width is not None else f.width or usage_width(largest(f), fmt))
            for f, width in chosen]


# ------------------------------------------------------------------------- cluster utilization

CLUSTER = ReportField("Cluster", 9, (("cluster", 2),))
_ALLOCATED = ReportField("Allocated", 0, (("allocated", 2),))
_DOWN = ReportField("Down", 0, (("down", 1),))
_IDLE = ReportField("Idle", 0, (("idle", 1),))
_OVER = ReportField("Over Comm", 0, (("overcommitted", 1),))
_PDOWN = ReportField("PLND Down", 0, (("planneddown", 2), ("plnddown", 2)))
_RESERVED = ReportField("Reserved", 0, (("reserved", 3),))
_REPORTED = ReportField("Reported", 0, (("reported", 3),))
_COUNT = ReportField("TRES Count", 10, (("trescount", 5), ("cpucount", 2), ("count", 2)))
UTILIZATION_FIELDS = (_ALLOCATED, CLUSTER, _DOWN, _IDLE, _OVER, _PDOWN, _RESERVED, _REPORTED, _COUNT)
UTILIZATION_DEFAULT = "Cl,al,d,planned,i,res,rep"


def _reported(c: pb.ClusterUsage) -> int:
    return int(c.alloc_secs + c.down_secs + c.pdown_secs + c.idle_secs + c.plan_secs)


_CLUSTER_SECS: dict[str, Callable[[pb.ClusterUsage], int]] = {
    "Allocated": lambda c: int(c.alloc_secs), "Down": lambda c: int(c.down_secs),
    "Idle": lambda c: int(c.idle_secs), "Over Comm": lambda c: int(c.over_secs),
    "PLND Down": lambda c: int(c.pdown_secs), "Reserved": lambda c: int(c.plan_secs), "Reported": _reported,
}  # fmt: skip


def utilization(clusters: Sequence[pb.ClusterUsage], spec: str, fmt: TimeFormat, start: int, end: int,
                parsable: Parsable, header: bool) -> list[str]:
    chosen = parse_format(spec or UTILIZATION_DEFAULT, UTILIZATION_FIELDS)
    shown = [c for c in clusters if _reported(c) or c.alloc_secs]

    def largest(field: ReportField) -> int:
        return max((_CLUSTER_SECS[field.header](c) for c in shown), default=0)

    def cells(c: pb.ClusterUsage) -> list[Value]:
        row: list[Value] = []
        for field, _ in chosen:
            if field is CLUSTER:
                row.append(c.cluster)
            elif field is _COUNT:
                row.append(int(c.cpu_count))
            elif field is _REPORTED:
                row.append(usage_text(_reported(c), (end - start) * int(c.cpu_count), fmt))
            else:
                row.append(usage_text(_CLUSTER_SECS[field.header](c), _reported(c), fmt))
        return row

    lines = header_block("Cluster Utilization", start, end, fmt, with_seconds=False) if header else []
    return lines + render(_columns(chosen, largest, fmt), (cells(c) for c in shown),
                          parsable=parsable, header=header)


# ------------------------------------------------------------------------------ user topusage

_LOGIN = ReportField("Login", 9, (("login", 1),))
_PROPER = ReportField("Proper Name", 15, (("proper", 1),))
_ACCOUNT = ReportField("Account", 15, (("accounts", 1),))
_USED = ReportField("Used", 0, (("used", 1),))
_ENERGY = ReportField("Energy", 0, (("energy", 1),))
TOP_FIELDS = (_ACCOUNT, ReportField("Cluster", 9, (("cluster", 1),)), _ENERGY, _LOGIN, _PROPER, _USED)
TOP_DEFAULT = "Cl,L,P,A,U,Energy"


@dataclass(frozen=True, slots=True)
class TopUser:
    cluster: str
    user: str
    accounts: str
    alloc_secs: int


def top_users(users: Sequence[pb.UserUsage], group: bool, count: int) -> list[TopUser]:
    """The ``count`` biggest users of each cluster, by usage then name; with ``group`` one entry
    per user (accounts joined by ``, ``), else one per user and account."""
    merged: dict[tuple[str, str, str], TopUser] = {}
    for u in users:
        key = (u.cluster, u.user, "" if group else u.account)
        known = merged.get(key)
        accounts = f"{known.accounts}, {u.account}" if known else u.account
        merged[key] = TopUser(u.cluster, u.user, accounts, (known.alloc_secs if known else 0) + int(u.alloc_secs))
    found: list[TopUser] = []
    for cluster in sorted({key[0] for key in merged}):
        ranked = sorted((t for t in merged.values() if t.cluster == cluster), key=lambda t: (-t.alloc_secs, t.user))
        found += ranked[:count]
    return found


def _proper_name(user: str) -> str | None:
    try:
        gecos = pwd.getpwnam(user).pw_gecos
    except KeyError:
        return None
    return gecos.split(",")[0] or None


def topusage(users: Sequence[pb.UserUsage], spec: str, fmt: TimeFormat, start: int, end: int,
             parsable: Parsable, header: bool, group: bool, count: int) -> list[str]:
    chosen = parse_format(spec or TOP_DEFAULT, TOP_FIELDS)
    tops = top_users(users, group, count)
    cluster_totals: dict[str, int] = {}
    for u in users:
        cluster_totals[u.cluster] = cluster_totals.get(u.cluster, 0) + int(u.alloc_secs)

    def largest(field: ReportField) -> int:
        return max((t.alloc_secs for t in tops), default=0) if field is _USED else 0

    def cells(t: TopUser) -> list[Value]:
        by_field: dict[str, Value] = {
            "Account": t.accounts, "Cluster": t.cluster, "Login": t.user, "Proper Name": _proper_name(t.user),
            "Used": usage_text(t.alloc_secs, cluster_totals.get(t.cluster, 0), fmt),
            "Energy": usage_text(0, 0, fmt),
        }
        return [by_field[field.header] for field, _ in chosen]

    lines = (header_block(f"Top {count} Users", start, end, fmt, with_seconds=True) if header else [])
    return lines + render(_columns(chosen, largest, fmt), (cells(t) for t in tops), parsable=parsable, header=header)

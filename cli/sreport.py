"""sreport: usage reports from the accounting daemon's hourly rollups.

``sreport [-n] [-p|-P] [-t <format>] [-a] [-M <clusters>] cluster utilization [conditions]`` and
``... user topusage [conditions]``; conditions are Slurm's ``Start=``, ``End=``, ``Clusters=``,
``Format=`` and, for topusage, ``Users=`` (bare words too), ``Accounts=``, ``TopCount=``,
``Group``, ``All_Clusters``. Only the local cluster unless ``-a``/``All_Clusters``/``Clusters=``.
An unknown condition is reported (`` Unknown condition: X``) and the report still printed,
exit status 1, as Slurm does. Rendering is ``cli.sreport_format``.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Sequence

from pyslurm_common.dates import parse_datetime
from pyslurm_common.rpc import messages as pb

from . import client, sacct_database, sreport_format
from .app import die, run
from .option_tables import sreport as spec
from .print_fields import Parsable
from .query_command import parse
from .sreport_format import abbreviates as _abbreviates

PROG = "sreport"


def _sort_known(text: str) -> bool:
    """-s Name or Time (Slurm's _set_sort: any prefix of Name; Time whole, strncasecmp over 6)."""
    return bool(text) and ("name".startswith(text.lower()) or text.lower() == "time")


# Slurm's other reports, named so that asking for one says it is missing rather than invalid.
_OTHER_REPORTS = {
    "cluster": ("accountutilizationbyuser", "accountutilizationbyqos", "userutilizationbyaccount",
                "userutilizationbywckey", "wckeyutilizationbyuser"),
    "job": ("sizesbyaccount", "sizesbywckey", "sizesbyaccountandwckey"),
    "reservation": ("utilization",),
}


def sreport(args: Sequence[str]) -> None:
    """Generate reports from the accounting data."""
    values, operands = parse(spec, args)
    words = tuple(operands)
    if values.get("immediate"):   # in Slurm's long_options, handled by no case
        print("getopt error, returned i", file=sys.stderr)
        raise SystemExit(1)
    sort = values.get("sort")
    sort_text = sort if isinstance(sort, str) else ""   # --sort takes no argument in Slurm's table
    if sort is not None and not _sort_known(sort_text):
        # Slurm prints this (no newline) and goes on; the two reports here do not sort by it
        sys.stderr.write(f"unknown timesort format {sort_text or '(null)'}")
    if sum(1 for dest in ("all_clusters", "clusters", "local") if values.get(dest)) > 1:
        print("Only one cluster option can be used (--all_clusters OR --cluster OR --local)", file=sys.stderr)
        raise SystemExit(1)
    tres = values.get("tres")
    if tres is not None and tres.lower() != "cpu":
        die(f"-T/--tres {tres}: pyslurm reports CPU time only")
    noheader, parsable, parsable2 = (bool(values.get(d)) for d in ("noheader", "parsable", "parsable2"))
    time_word, all_clusters, clusters = values.get("time") or "minutes", bool(values.get("all_clusters")), \
        values.get("clusters")
    now = time.time()
    try:
        fmt = sreport_format.time_format(time_word)
    except sreport_format.ReportError as exc:
        die(str(exc))
    if len(words) < 2:
        die("You need to give a report type and a report, e.g. 'sreport cluster utilization'")
    which = _report(words[0], words[1])
    parsed = _conditions(list(words[2:]), which, now)
    if clusters:
        parsed.query.clusters.extend(clusters.split(","))
    if not (all_clusters or parsed.all_clusters or parsed.query.clusters):
        parsed.query.clusters.append(client.cluster_config().cluster_name)
    start, end = sreport_format.window(parsed.start, parsed.end, now)
    parsed.query.start_time, parsed.query.end_time = start, end
    usage = sacct_database.call("QueryUsage", parsed.query, pb.UsageReport)
    mode = Parsable.NO_TRAILING if parsable2 else Parsable.TRAILING if parsable else Parsable.NONE
    try:
        if which == "utilization":
            lines = sreport_format.utilization(list(usage.clusters), parsed.format, fmt, start, end, mode,
                                               not noheader)
        else:
            lines = sreport_format.topusage(list(usage.users), parsed.format, fmt, start, end, mode,
                                            not noheader, parsed.group, parsed.top_count)
    except sreport_format.ReportError as exc:
        print(str(exc), file=sys.stderr)
        raise SystemExit(1) from None
    sys.stdout.write("".join(line + "\n" for line in lines))
    if parsed.unknown:
        raise SystemExit(1)


def _report(kind: str, name: str) -> str:
    """``cluster utilization`` or ``user topusage`` (abbreviated as Slurm allows)."""
    if _abbreviates(kind, "cluster", 2) and _abbreviates(name, "utilization", 2):
        return "utilization"
    if _abbreviates(kind, "user", 2) and _abbreviates(name, "topusage", 1):
        return "topusage"
    if any(_abbreviates(kind, other_kind, 1) and any(_abbreviates(name, report, 3) for report in reports)
           for other_kind, reports in _OTHER_REPORTS.items()):
        die(f"report '{kind} {name}' is not available in pyslurm (cluster utilization and user topusage are)")
    die(f"Not valid report {kind} {name}")


class _Conditions:
    def __init__(self) -> None:
        self.query = pb.UsageQuery()
        self.start: int | None = None
        self.end: int | None = None
        self.format = ""
        self.group = False
        self.top_count = 10
        self.all_clusters = False
        self.unknown = False


def _conditions(words: list[str], which: str, now: float) -> _Conditions:
    found = _Conditions()
    for word in words:
        key, eq, value = word.partition("=")
        lower = key.lower()
        if not eq and len(lower) >= 1 and "all_clusters".startswith(lower):
            found.all_clusters = True
        elif not eq and which == "topusage" and "group".startswith(lower):
            found.group = True
        elif not eq and which == "topusage":
            found.query.users.extend(_names(key))
        elif eq and lower and "start".startswith(lower):
            found.start = _time(value, now)
        elif eq and lower and "end".startswith(lower):
            found.end = _time(value, now)
        elif eq and lower and "format".startswith(lower):
            found.format = ",".join(filter(None, (found.format, value)))
        elif eq and lower and "clusters".startswith(lower):
            found.query.clusters.extend(_names(value))
        elif eq and which == "topusage" and lower and "users".startswith(lower):
            found.query.users.extend(_names(value))
        elif eq and which == "topusage" and len(lower) >= 2 and ("accounts".startswith(lower) or lower == "acct"):
            found.query.accounts.extend(_names(value))
        elif eq and which == "topusage" and lower and "topcount".startswith(lower) and value.isdigit():
            found.top_count = int(value)
        else:
            print(f" Unknown condition: {word}\nUse keyword set to modify value", file=sys.stderr)
            found.unknown = True
    return found


def _names(value: str) -> list[str]:
    return [name for name in value.split(",") if name]


def _time(text: str, now: float) -> int:
    try:
        return parse_datetime(text, now, past=True)
    except ValueError:
        die(f"Invalid time specification: {text}")


def main() -> None:
    run(PROG, sreport)

"""sacctmgr show stats: the accounting daemon's statistics in the layout of Slurm 22.05's
sacctmgr_list_stats (times in microseconds).

pyslurm's RPCs carry pyslurm's method names (QueryJobs, RecordJobs ...) where Slurm prints
DBD_* message types, and the id beside each is the method's number in the Accounting service
(proto/dbd.proto) where Slurm prints the message type's number.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from .slurm_time import slurm_ctime

if TYPE_CHECKING:
    from pyslurm_common.rpc import dbd_pb2

RULE = "*" * 67
_CAUSES = (("internal", "Internal DBD rollup"), ("user", "User RPC rollup call"))
SORT_KEYS = ("ave_time", "total_time")


def _average(count: int, total: int) -> int:
    return total // count if count > 1 else total


def _rollup_lines(title: str, r: dbd_pb2.RollupCount) -> list[str]:
    return [f"\n{title} last ran {slurm_ctime(r.last_run)} ({r.last_run})",
            f"\tLast cycle:   {r.last_usec}", f"\tMax cycle:    {r.max_usec}", f"\tTotal time:   {r.total_usec}",
            f"\tTotal cycles: {r.count}", f"\tMean cycle:   {_average(r.count, r.total_usec)}"]


def _ordered(calls: list[dbd_pb2.CallCount], sort: str | None) -> list[dbd_pb2.CallCount]:
    """By count (the default), by average time or by total time; ties by total time, then id."""
    def key(c: dbd_pb2.CallCount) -> tuple[int, ...]:
        ident = c.uid if c.uid else _method_id(c.name)
        if sort == "ave_time":
            return (-_average(c.count, c.total_usec), ident)
        if sort == "total_time":
            return (-c.total_usec, ident)
        return (-c.count, -c.total_usec, ident)
    return sorted(calls, key=key)


@functools.cache
def _method_numbers() -> dict[str, int]:
    from pyslurm_common.rpc import dbd_pb2

    return {m.name: m.index + 1 for m in dbd_pb2.DESCRIPTOR.services_by_name["Accounting"].methods}


def _method_id(name: str) -> int:
    return _method_numbers().get(name, 0)


def render(stats: dbd_pb2.AccountingStats, now: int, sort: str | None = None) -> str:
    lines = [RULE, f"sacctmgr show stats output at {slurm_ctime(now)} ({now})",
             f"Data since                    {slurm_ctime(stats.time_start)} ({stats.time_start})",
             "All statistics are in microseconds", RULE]
    by_cause = {r.cause: r for r in stats.rollups if r.total_usec}
    for cause, title in _CAUSES:
        if cause in by_cause:
            lines += _rollup_lines(title, by_cause[cause])
    lines.append("\nRemote Procedure Call statistics by message type")
    for c in _ordered(list(stats.rpcs), sort):
        lines.append(f"\t{c.name:<25}({_method_id(c.name):5})"
                     f" count:{c.count:<6} ave_time:{_average(c.count, c.total_usec):<6} total_time:{c.total_usec}")
    lines.append("\nRemote Procedure Call statistics by user")
    for c in _ordered(list(stats.users), sort):
        lines.append(f"\t{c.name:<20}({c.uid:10})"
                     f" count:{c.count:<6} ave_time:{_average(c.count, c.total_usec):<6} total_time:{c.total_usec}")
    return "\n".join(lines) + "\n"

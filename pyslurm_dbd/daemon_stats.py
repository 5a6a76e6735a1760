"""sacctmgr show stats: what the accounting daemon has done since it started (Slurm's
DBD_GET_STATS): the calls it answered, per method and per user, and its usage roll-ups.

Soft state, reset by a restart, as Slurm's.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pyslurm_common.call_stats import Serving
from pyslurm_common.rpc import dbd_pb2
from pyslurm_common.users import user_name

INTERNAL = "internal"   # the daemon's own roll-up timer
USER = "user"           # brought up to date for an sreport query


@dataclass(slots=True)
class RollupTally:
    count: int = 0
    last_run: int = 0
    last_usec: int = 0
    max_usec: int = 0
    total_usec: int = 0


@dataclass(slots=True)
class RollupRuns:
    """Hourly roll-ups run, by cause (pyslurm keeps no daily or monthly tables: sreport sums hours)."""
    by_cause: dict[str, RollupTally] = field(default_factory=dict)

    def ran(self, cause: str, started: int, usec: int) -> None:
        tally = self.by_cause.setdefault(cause, RollupTally())
        tally.count += 1
        tally.last_run = started
        tally.last_usec = usec
        tally.max_usec = max(tally.max_usec, usec)
        tally.total_usec += usec


def accounting_stats(serving: Serving, rollups: RollupRuns) -> dbd_pb2.AccountingStats:
    return dbd_pb2.AccountingStats(
        time_start=serving.since,
        rpcs=[dbd_pb2.CallCount(name=name, count=t.count, total_usec=t.total_usec)
              for name, t in serving.by_method.items()],
        users=[dbd_pb2.CallCount(name=user_name(uid), uid=uid, count=t.count, total_usec=t.total_usec)
               for uid, t in serving.by_uid.items()],
        rollups=[dbd_pb2.RollupCount(interval="hour", cause=cause, count=t.count, last_run=t.last_run,
                                     last_usec=t.last_usec, max_usec=t.max_usec, total_usec=t.total_usec)
                 for cause, t in rollups.by_cause.items()])


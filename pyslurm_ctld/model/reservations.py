"""Advance reservations (scontrol create reservation): the record the controller keeps and
journals, and what follows from it alone (its current window, who may use it).

An HOURLY, DAILY or WEEKLY reservation is one record whose window repeats: `window(now)` is the
occurrence in force or next to come, so nothing has to roll it forward. A one-off reservation
whose end has passed is over (`over(now)`): it is shown and used no more, and the next
change of the reservations drops it.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from pyslurm_common.licenses import parse_licenses

# Slurm's order of the flags in `scontrol show reservation` (reservation_flags_string).
FLAG_ORDER = ("MAINT", "FLEX", "OVERLAP", "IGNORE_JOBS", "HOURLY", "DAILY", "WEEKLY", "SPEC_NODES", "ALL_NODES",
              "ANY_NODES", "PART_NODES")
_PERIOD = {"HOURLY": 3600, "DAILY": 86400, "WEEKLY": 7 * 86400}


@dataclass(frozen=True, slots=True)
class ReservationRecord:
    name: str
    reservation_id: int
    start_time: int                 # the first occurrence, as created or updated
    end_time: int
    nodes: tuple[str, ...]
    users: tuple[str, ...] = ()     # user names; all prefixed with '-': everyone but them
    accounts: tuple[str, ...] = ()  # likewise
    partition: str = ""
    flags: tuple[str, ...] = ()     # in FLAG_ORDER
    licenses: str = ""              # Licenses=, "name:count,..." ("" none): held from jobs outside it
    cpu_ids: tuple[tuple[int, ...], ...] = ()   # CoreCnt=: the CPU ids of its cores on each node; () whole nodes

    @property
    def period(self) -> int:
        """Seconds between occurrences, 0 for a one-off reservation."""
        return next((_PERIOD[f] for f in self.flags if f in _PERIOD), 0)

    def window(self, now: int) -> tuple[int, int]:
        """[start, end) of the occurrence in force at `now`, or of the next one."""
        start, end = self.start_time, self.end_time
        if self.period and now >= end:
            skipped = (now - end) // self.period + 1
            start, end = start + skipped * self.period, end + skipped * self.period
        return start, end

    def active(self, now: int) -> bool:
        start, end = self.window(now)
        return start <= now < end

    def over(self, now: int) -> bool:
        return not self.period and now >= self.end_time

    def holds_nodes_during(self, begin: int, finish: int) -> bool:
        """Whether an occurrence overlaps [begin, finish) (finish None-like: use a large value):
        it holds its nodes and licenses then."""
        start, end = self.window(begin)
        return start < finish and begin < end

    def admits(self, user: str, account: str) -> bool:
        """Slurm's rule: a job must match the users and the accounts, where each is given."""
        return _listed(self.users, user) and _listed(self.accounts, account)

    @property
    def maintenance(self) -> bool:
        return "MAINT" in self.flags

    @property
    def any_nodes(self) -> bool:
        """ANY_NODES (LICENSE_ONLY): its jobs use its licenses on any nodes (it may hold none)."""
        return "ANY_NODES" in self.flags

    def license_count(self, name: str) -> int:
        return parse_licenses(self.licenses).get(name, 0) if self.licenses else 0

    @property
    def flexible(self) -> bool:
        """FLEX: its jobs may start before it, end after it, and use nodes outside it."""
        return "FLEX" in self.flags

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ReservationRecord":
        return cls(**{**data, **{key: tuple(data[key]) for key in ("nodes", "users", "accounts", "flags")},
                      "cpu_ids": tuple(tuple(ids) for ids in data.get("cpu_ids", ()))})

    def reserved_cpus(self) -> dict[str, frozenset[int]]:
        """Node -> the CPU ids a core reservation holds there ({} for a whole-node one)."""
        return {node: frozenset(ids) for node, ids in zip(self.nodes, self.cpu_ids)}


def _listed(names: tuple[str, ...], name: str) -> bool:
    if not names:
        return True
    if all(n.startswith("-") for n in names):
        return name not in {n[1:] for n in names}
    return name in names


def node_flags(records: Iterable[ReservationRecord], now: int) -> dict[str, tuple[str, ...]]:
    """The node state flags reservations in force give their nodes (Slurm's set_node_maint_mode):
    RESERVED, and MAINTENANCE for a MAINT reservation."""
    maintenance: dict[str, bool] = {}
    for record in records:
        if record.active(now):
            for node in record.nodes:
                maintenance[node] = maintenance.get(node, False) or record.maintenance
    # In the order real Slurm's complete state string lists them (IDLE+MAINTENANCE+RESERVED).
    return {node: ("MAINTENANCE", "RESERVED") if maint else ("RESERVED",) for node, maint in maintenance.items()}


def ordered_flags(flags: set[str]) -> tuple[str, ...]:
    return tuple(f for f in FLAG_ORDER if f in flags)

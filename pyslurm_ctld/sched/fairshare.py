"""Fairshare: decayed usage per association and the fairshare factor computed from it.

Owns spec scheduling-policy.md §3.2 and §4:

* `charged`: usage brought up to `now`. Every user association's usage decays by
  `(1 - ln2 / PriorityDecayHalfLife)` per second (no decay for a half-life of 0), is zeroed at
  each PriorityUsageResetPeriod boundary, and grows by what its running jobs used since the
  last update: billing (allocated CPUs) x seconds x the QOS UsageFactor. Accounts' usage is
  the sum of the users' below them.
* `share_table`: one `ShareRow` per association in tree order (what sshare prints), with the
  fairshare factor of each user association: Fair Tree (the default; rank of the user in a
  depth-first walk ordered by Level Fairshare, ties sharing a rank) or, with PriorityFlags=NO_FAIR_TREE, the
  classic `2^(-effective usage / normalized shares / dampening)`.

Pure: associations, usage and `now` come in; nothing here reads a clock or does I/O. Usage is
kept by user association (account, user, partition); the controller journals it, so it
survives restarts.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from ..model.associations import SHARES_PARENT

AssociationKey = tuple[str, str, str]    # (account, user, partition); user "" for an account


class ShareHolder(Protocol):
    """What fairshare reads of an association (the controller's association snapshot has it)."""

    @property
    def account(self) -> str: ...
    @property
    def user(self) -> str: ...
    @property
    def partition(self) -> str: ...
    @property
    def parent_account(self) -> str: ...
    @property
    def shares(self) -> int: ...


def key_of(assoc: ShareHolder) -> AssociationKey:
    return (assoc.account, assoc.user, assoc.partition)


@dataclass(frozen=True, slots=True)
class Usage:
    """Decayed usage (billing-seconds) of each user association, as of `time`."""

    by_association: Mapping[AssociationKey, float]
    time: int

    def rows(self) -> tuple[tuple[str, str, str, float], ...]:
        """(account, user, partition, usage) rows, as the journal keeps them."""
        return tuple((*key, value) for key, value in sorted(self.by_association.items()))

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, str, str, float]], time: int) -> "Usage":
        return cls({(account, user, part): float(value) for account, user, part, value in rows}, time)


NO_USAGE = Usage({}, 0)


@dataclass(frozen=True, slots=True)
class RunningCharge:
    """A job that ran as fairshare charges it."""

    association: AssociationKey
    billing: float            # allocated CPUs (TRESBillingWeights default)
    start_time: int
    usage_factor: float = 1.0
    end_time: int = 0         # 0: still running


def decay_factor(seconds: float, half_life_s: int) -> float:
    """What usage is multiplied by over `seconds` (Slurm: (1 - ln2/half-life) per second)."""
    if half_life_s <= 0 or seconds <= 0:
        return 1.0
    return float((1.0 - math.log(2) / half_life_s) ** seconds)


def last_reset(now: int, period: str) -> int:
    """The latest PriorityUsageResetPeriod boundary at or before `now` (local time); 0 for
    NONE and NOW (NOW resets once, when the controller starts with it)."""
    if period in ("NONE", "NOW"):
        return 0
    day = datetime.fromtimestamp(now).replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "DAILY":
        start = day
    elif period == "WEEKLY":
        start = day - timedelta(days=day.weekday())
    elif period == "MONTHLY":
        start = day.replace(day=1)
    elif period == "QUARTERLY":
        start = day.replace(day=1, month=(day.month - 1) // 3 * 3 + 1)
    else:   # YEARLY
        start = day.replace(day=1, month=1)
    return int(start.timestamp())


def charged(usage: Usage, running: Iterable[RunningCharge], now: int, half_life_s: int,
            reset_period: str = "NONE") -> Usage:
    """`usage` brought from `usage.time` to `now`: decayed, reset at a period boundary crossed,
    plus what the jobs used in between (each from its start, if that is later, to its end)."""
    since = usage.time
    boundary = last_reset(now, reset_period)
    if since and boundary > since:
        base: dict[AssociationKey, float] = {}
        since = boundary
    else:
        factor = decay_factor(now - since, half_life_s) if since else 1.0
        base = {key: value * factor for key, value in usage.by_association.items()}
    for job in running:
        until = min(job.end_time, now) if job.end_time else now
        seconds = until - max(job.start_time, since)
        if seconds > 0 and job.usage_factor > 0:
            # Charged at the end of the interval; a finer split would only matter for
            # intervals near the half-life, far above PriorityCalcPeriod.
            base[job.association] = base.get(job.association, 0.0) + job.billing * seconds * job.usage_factor
    return Usage(base, now)


@dataclass(frozen=True, slots=True)
class ShareRow:
    """One association as sshare shows it."""

    account: str
    user: str                  # "" for an account's own association
    partition: str
    depth: int                 # 0 for root
    raw_shares: int | None     # None for root; SHARES_PARENT for Fairshare=parent
    norm_shares: float
    raw_usage: float
    norm_usage: float
    effective_usage: float
    fairshare: float | None    # None for accounts under Fair Tree
    level_fs: float | None     # Fair Tree only; inf when there is no usage


def share_table(associations: Sequence[ShareHolder], usage: Usage, fair_tree: bool = True,
                dampening: int = 1) -> list[ShareRow]:
    """Every association (tree order, root first, as given) with its shares, usage and factor."""
    tree = _Tree(associations, usage)
    if tree.root is None:
        return []
    if fair_tree:
        return tree.fair_tree_rows()
    return tree.classic_rows(max(1, dampening))


def factors_by_association(rows: Iterable[ShareRow]) -> dict[AssociationKey, float]:
    """The fairshare factor of each user association."""
    return {(r.account, r.user, r.partition): r.fairshare for r in rows if r.user and r.fairshare is not None}


class _Tree:
    """The association tree with subtree usage, for one computation."""

    def __init__(self, associations: Sequence[ShareHolder], usage: Usage) -> None:
        self.order = list(associations)
        self.children: dict[str, list[ShareHolder]] = {}
        self.root: ShareHolder | None = None
        for assoc in self.order:
            if assoc.user:
                self.children.setdefault(assoc.account, []).append(assoc)
            elif assoc.parent_account:
                self.children.setdefault(assoc.parent_account, []).append(assoc)
            elif self.root is None:
                self.root = assoc
        self.usage: dict[AssociationKey, float] = {}
        self.depth: dict[AssociationKey, int] = {}
        if self.root is not None:
            self._sum_usage(self.root, usage.by_association, 0, set())

    def _sum_usage(self, assoc: ShareHolder, raw: Mapping[AssociationKey, float], depth: int,
                   seen: set[str]) -> float:
        key = key_of(assoc)
        self.depth[key] = depth
        if assoc.user:
            total = raw.get(key, 0.0)
        else:
            seen.add(assoc.account)   # a broken tree (a cycle) must not recurse forever
            total = sum(self._sum_usage(child, raw, depth + 1, seen) for child in self.children.get(assoc.account, ())
                        if child.user or child.account not in seen)
        self.usage[key] = total
        return total

    def kids(self, assoc: ShareHolder) -> list[ShareHolder]:
        return [] if assoc.user else [c for c in self.children.get(assoc.account, ()) if key_of(c) in self.depth]

    @staticmethod
    def _level_shares(siblings: Sequence[ShareHolder]) -> int:
        return sum(s.shares for s in siblings if s.shares != SHARES_PARENT)

    def _row(self, assoc: ShareHolder, norm_shares: float, effective: float, fairshare: float | None,
             level_fs: float | None, total: float) -> ShareRow:
        key = key_of(assoc)
        is_root = assoc is self.root
        return ShareRow(assoc.account, assoc.user, assoc.partition, self.depth[key],
                        None if is_root else assoc.shares, norm_shares, self.usage[key],
                        self.usage[key] / total if total else 0.0, effective, fairshare, level_fs)

    # ---- Fair Tree -----------------------------------------------------------------

    def fair_tree_rows(self) -> list[ShareRow]:
        assert self.root is not None
        level: dict[AssociationKey, tuple[float, float, float]] = {}   # key -> (S, U, LF) within its level
        for assoc in self.order:
            kids = self.kids(assoc)
            shares = self._level_shares(kids)
            used = sum(self.usage[key_of(k)] for k in kids)
            for kid in kids:
                if kid.shares == SHARES_PARENT:
                    # Fairshare=parent: the association stands where its account stands.
                    level[key_of(kid)] = level.get(key_of(assoc), (1.0, 1.0, 1.0))
                    continue
                s = kid.shares / shares if shares else 0.0
                u = self.usage[key_of(kid)] / used if used else 0.0
                level[key_of(kid)] = (s, u, s / u if u else (math.inf if s else 0.0))
        users = [a for a in self.order if a.user and key_of(a) in self.depth]
        factors: dict[AssociationKey, float] = {}
        ranking = _Ranking(len(users))
        self._rank(self.kids(self.root), level, ranking, factors)
        total = self.usage[key_of(self.root)]
        rows = [self._row(self.root, 0.0, 1.0, None, None, total)]
        for assoc in self.order[1:]:
            key = key_of(assoc)
            if key not in self.depth:
                continue
            s, u, lf = level.get(key, (0.0, 0.0, 0.0))
            rows.append(self._row(assoc, s, u, factors.get(key) if assoc.user else None, lf, total))
        return rows

    def _rank(self, siblings: list[ShareHolder], level: Mapping[AssociationKey, tuple[float, float, float]],
              ranking: "_Ranking", factors: dict[AssociationKey, float], tied_in: bool = False) -> None:
        """Depth first, highest Level Fairshare first; users take ranks as they are met. A user
        whose Level Fairshare equals the sibling's before it shares that rank; the first child
        of an account tied with its own previous sibling does too (so on a cluster where nobody
        ran, every user ranks first)."""
        previous: float | None = None
        for index, sib in enumerate(sorted(siblings, key=lambda s: -level[key_of(s)][2])):
            lf = level[key_of(sib)][2]
            tied = tied_in if index == 0 else lf == previous
            previous = lf
            if sib.user:
                factors[key_of(sib)] = ranking.take(tied)
            else:
                self._rank(self.kids(sib), level, ranking, factors, tied)

    # ---- classic -------------------------------------------------------------------

    def classic_rows(self, dampening: int) -> list[ShareRow]:
        assert self.root is not None
        total = self.usage[key_of(self.root)]
        norm_shares: dict[AssociationKey, float] = {key_of(self.root): 1.0}
        effective: dict[AssociationKey, float] = {key_of(self.root): 1.0 if total else 0.0}
        for assoc in self.order:     # tree order: a parent comes before its children
            kids = self.kids(assoc)
            if not kids:
                continue
            shares = self._level_shares(kids)
            parent_key = key_of(assoc)
            for kid in kids:
                key = key_of(kid)
                if kid.shares == SHARES_PARENT:
                    norm_shares[key], effective[key] = norm_shares[parent_key], effective[parent_key]
                    continue
                fraction = kid.shares / shares if shares else 0.0
                norm_shares[key] = norm_shares[parent_key] * fraction
                own = self.usage[key] / total if total else 0.0
                # Below root, each level pulls toward its parent's effective usage; root's own
                # children count their usage alone (root's would be 1 for all of them).
                effective[key] = own if assoc is self.root else own + (effective[parent_key] - own) * fraction
        rows = []
        for assoc in self.order:
            key = key_of(assoc)
            if key not in self.depth:
                continue
            s = norm_shares.get(key, 0.0)
            factor = 2 ** (-effective[key] / s / dampening) if s else 0.0
            rows.append(self._row(assoc, 0.0 if assoc is self.root else s, effective.get(key, 0.0),
                                  factor, None, total))
        return rows


class _Ranking:
    """Fair Tree ranks: n for the first user met, one less for each next; a tied user keeps the
    rank of the one before. Factor = rank / n."""

    def __init__(self, users: int) -> None:
        self.users = users
        self.next = users
        self.rank = users

    def take(self, tied: bool) -> float:
        if not tied:
            self.rank = self.next
        self.next -= 1
        return self.rank / self.users if self.users else 0.0

"""Fairshare (pyslurm_ctld/sched/fairshare.py): usage, decay and reset (spec scheduling-policy.md
§3.2), Fair Tree (§4.2) and the classic formula (§4.1). Expected values worked out by hand."""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

import pytest

from pyslurm_ctld.sched.fairshare import (NO_USAGE, SHARES_PARENT, RunningCharge, Usage, charged, decay_factor,
                                          factors_by_association, last_reset, share_table)


@dataclass(frozen=True)
class Assoc:
    account: str
    user: str = ""
    parent_account: str = ""
    shares: int = 1
    partition: str = ""


def tree(a_shares: int = 2, b_shares: int = 1) -> list[Assoc]:
    """root -> accounts a (users a1, a2) and b (user b1), in tree order."""
    return [Assoc("root"), Assoc("a", parent_account="root", shares=a_shares), Assoc("a", "a1"), Assoc("a", "a2"),
            Assoc("b", parent_account="root", shares=b_shares), Assoc("b", "b1")]


def usage(**by_user: float) -> Usage:
    return Usage({(user[0], user, ""): value for user, value in by_user.items()}, 100)


def test_fair_tree_ranks_users_of_the_better_served_account_first() -> None:
    # a: S = 2/3, U = 100/200 -> LF 1.33; b: S = 1/3, U = 1/2 -> LF 0.67.
    # In a, a2 never ran (LF inf) before a1 (S 1/2, U 1 -> 0.5). Ranks 3, 2, 1 of n = 3.
    rows = share_table(tree(), usage(a1=100, b1=100))
    factors = factors_by_association(rows)
    assert factors == {("a", "a2", ""): 1.0, ("a", "a1", ""): pytest.approx(2 / 3), ("b", "b1", ""): pytest.approx(1 / 3)}
    by_name = {(r.account, r.user): r for r in rows}
    assert by_name[("a", "")].norm_shares == pytest.approx(2 / 3)
    assert by_name[("a", "")].effective_usage == pytest.approx(0.5)
    assert by_name[("a", "")].level_fs == pytest.approx(4 / 3)
    assert by_name[("a", "")].fairshare is None          # accounts have no factor under Fair Tree
    assert by_name[("a", "a2")].level_fs == math.inf
    assert by_name[("root", "")].raw_usage == 200 and by_name[("root", "")].raw_shares is None
    assert [r.depth for r in rows] == [0, 1, 2, 2, 1, 2]


def test_fair_tree_equal_level_fairshare_shares_a_rank() -> None:
    # Nobody ran: every LF is inf. Ties share a rank, also across tied accounts: all rank first.
    factors = factors_by_association(share_table(tree(), NO_USAGE))
    assert set(factors.values()) == {1.0}


def test_fair_tree_usage_over_share_loses() -> None:
    # b used everything although it has 1/3 of the shares: a's users come first.
    factors = factors_by_association(share_table(tree(), usage(b1=500)))
    assert factors[("b", "b1", "")] == pytest.approx(1 / 3)
    assert factors[("a", "a1", "")] == factors[("a", "a2", "")] == 1.0


def test_classic_formula() -> None:
    # root -> a (2 shares) -> a1; b (1) -> b1; usage 100 each of 200.
    assocs = [Assoc("root"), Assoc("a", parent_account="root", shares=2), Assoc("a", "a1"),
              Assoc("b", parent_account="root", shares=1), Assoc("b", "b1")]
    rows = {(r.account, r.user): r for r in share_table(assocs, usage(a1=100, b1=300), fair_tree=False)}
    # Accounts below root: UE = own normalized usage. a: 1/4, b: 3/4.
    # a1: UE = 1/4 + (1/4 - 1/4) x 1/1 = 1/4; S_a1 = 2/3: F = 2^(-(1/4)/(2/3)) = 2^-0.375
    assert rows[("a", "")].effective_usage == pytest.approx(0.25)
    assert rows[("a", "a1")].effective_usage == pytest.approx(0.25)
    assert rows[("a", "a1")].norm_shares == pytest.approx(2 / 3)
    assert rows[("a", "a1")].fairshare == pytest.approx(2 ** -0.375)
    # b1: UE 3/4, S 1/3: F = 2^-2.25
    assert rows[("b", "b1")].fairshare == pytest.approx(2 ** -2.25)
    assert rows[("b", "b1")].level_fs is None
    damped = {(r.account, r.user): r for r in share_table(assocs, usage(a1=100, b1=300), False, dampening=2)}
    assert damped[("b", "b1")].fairshare == pytest.approx(2 ** -1.125)


def test_classic_effective_usage_pulls_toward_the_parent() -> None:
    # root -> a (1) -> users a1 (1), a2 (3); usage a1 = 300 of 400 total (a2 none).
    assocs = [Assoc("root"), Assoc("a", parent_account="root"), Assoc("a", "a1"), Assoc("a", "a2", shares=3)]
    rows = {(r.account, r.user): r for r in share_table(assocs, usage(a1=300), fair_tree=False)}
    # UE_a = 300/300 = 1; a1: 1 + (1 - 1) x 1/4 = 1; a2: 0 + (1 - 0) x 3/4 = 0.75
    assert rows[("a", "a2")].effective_usage == pytest.approx(0.75)
    assert rows[("a", "a2")].fairshare == pytest.approx(2 ** -(0.75 / 0.75))


def test_fairshare_parent_stands_where_its_account_stands() -> None:
    assocs = [Assoc("root"), Assoc("a", parent_account="root"), Assoc("a", "a1", shares=SHARES_PARENT),
              Assoc("b", parent_account="root"), Assoc("b", "b1")]
    rows = {(r.account, r.user): r for r in share_table(assocs, usage(a1=10, b1=30), fair_tree=False)}
    assert rows[("a", "a1")].norm_shares == rows[("a", "")].norm_shares == 0.5


def test_decay_halves_usage_in_one_half_life() -> None:
    assert decay_factor(3600, 3600) == pytest.approx(0.5, abs=0.001)
    assert decay_factor(3600, 0) == 1.0
    decayed = charged(Usage({("a", "a1", ""): 1000.0}, 100), [], 100 + 7 * 86400, 7 * 86400)
    assert decayed.by_association[("a", "a1", "")] == pytest.approx(500, rel=0.001)
    assert decayed.time == 100 + 7 * 86400


def test_running_jobs_charge_cpu_seconds_times_usage_factor() -> None:
    key = ("a", "a1", "")
    before = Usage({}, 1000)
    jobs = [RunningCharge(key, 4, start_time=500, usage_factor=2.0), RunningCharge(key, 1, start_time=1050),
            RunningCharge(("b", "b1", ""), 8, start_time=0, usage_factor=0.0)]     # a free QOS
    after = charged(before, jobs, 1100, half_life_s=0)
    assert after.by_association == {key: 4 * 100 * 2.0 + 1 * 50}


def test_usage_reset_at_the_period_boundary() -> None:
    key = ("a", "a1", "")
    midnight = int(datetime(2026, 12, 2).timestamp())
    assert last_reset(midnight + 5000, "DAILY") == midnight
    assert last_reset(midnight + 5000, "NONE") == 0
    after = charged(Usage({key: 1e6}, midnight - 60), [RunningCharge(key, 2, start_time=midnight - 600)],
                    midnight + 30, 0, "DAILY")
    assert after.by_association == {key: 2 * 30}       # only what ran since midnight


def test_usage_round_trips_through_the_journal_form() -> None:
    before = Usage({("a", "a1", ""): 12.5, ("b", "b1", "p"): 3.0}, 77)
    assert Usage.from_rows(before.rows(), 77) == before

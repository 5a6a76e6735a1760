"""--exclusive=user (OverSubscribe=USER) in the pure scheduler and backfill.

Slurm 22.05 gives such a job what it asks (not whole nodes), on nodes that no other user's job
holds, and keeps other users' jobs off those nodes while it runs; its own user's jobs share them.
(Checked on real Slurm 22.05: NumCPUs=1 for `-n1 --exclusive=user`, the node shows Owner=root(0)
and another of root's jobs starts beside it.)
"""
from __future__ import annotations

import dataclasses

from pyslurm_ctld.sched.backfill import Backfill, RunningJob
from pyslurm_ctld.model.job import Allocation, Job, JobId, Reason
from pyslurm_ctld.sched.node_fit import NodeCapacity
from pyslurm_ctld.sched.scheduler import Pend, Start, schedule

from test_backfill import NOW, POLICY
from test_scheduler import by_name, job, node, outcome, partition, started

ALICE, BOB = 1000, 1001
TWO_NODES = {"batch": partition("batch", ["n1", "n2"])}
ONE_NODE = {"batch": partition("batch", ["n1"])}


def of(user: int, pending: Job) -> Job:
    return dataclasses.replace(pending, uid=user)


def user_exclusive(job_id: int, user: int, **request: object) -> Job:
    return of(user, job(job_id, exclusive=True, over_subscribe="USER", **request))


def held(n: NodeCapacity, *users: int, owner: int | None = None) -> NodeCapacity:
    return dataclasses.replace(n, users=frozenset(users), owner=owner)


def test_it_gets_the_cpus_it_asks_not_the_whole_node() -> None:
    got = started(schedule([user_exclusive(1, ALICE, num_tasks=2)], by_name(node("n1")), ONE_NODE))
    assert got[1].cpu_ids == ((0, 1),)


def test_plain_exclusive_still_takes_the_whole_node() -> None:
    got = started(schedule([of(ALICE, job(1, exclusive=True))], by_name(node("n1")), ONE_NODE))
    assert got[1].cpu_ids == ((0, 1, 2, 3),)


def test_it_avoids_nodes_another_users_job_holds() -> None:
    # n1 would be the best fit (fewest free CPUs) but bob runs there.
    nodes = by_name(held(node("n1", free_cpus=3), BOB), node("n2"))
    assert outcome(schedule([user_exclusive(1, ALICE)], nodes, TWO_NODES)) == {1: ("n2",)}


def test_it_shares_a_node_with_its_own_users_jobs() -> None:
    nodes = by_name(held(node("n1", free_cpus=3), ALICE), node("n2"))
    assert outcome(schedule([user_exclusive(1, ALICE)], nodes, TWO_NODES)) == {1: ("n1",)}


def test_other_users_stay_off_an_owned_node_and_its_user_joins_it() -> None:
    nodes = by_name(held(node("n1", free_cpus=3), ALICE, owner=ALICE), node("n2"))
    decisions = schedule([of(BOB, job(1)), of(ALICE, job(2))], nodes, TWO_NODES)
    assert outcome(decisions) == {1: ("n2",), 2: ("n1",)}


def test_another_user_waits_for_resources_while_the_owner_runs() -> None:
    nodes = by_name(held(node("n1", free_cpus=3), ALICE, owner=ALICE))
    decisions = schedule([of(BOB, job(1))], nodes, ONE_NODE)
    assert decisions == [Pend(JobId(1), Reason.RESOURCES)]


def test_a_start_in_the_pass_owns_the_node_for_the_jobs_after_it() -> None:
    # alice's user-exclusive job starts first; her next job joins it, bob's waits.
    jobs = [user_exclusive(1, ALICE), of(ALICE, job(2)), of(BOB, job(3))]
    assert outcome(schedule(jobs, by_name(node("n1")), ONE_NODE)) == {1: ("n1",), 2: ("n1",), 3: "Resources"}


def test_a_user_exclusive_job_waits_behind_another_users_start_in_the_pass() -> None:
    jobs = [of(BOB, job(1)), user_exclusive(2, ALICE)]
    assert outcome(schedule(jobs, by_name(node("n1")), ONE_NODE)) == {1: ("n1",), 2: "Resources"}


def test_without_user_exclusive_jobs_users_share_nodes_as_before() -> None:
    nodes = by_name(held(node("n1", free_cpus=3), ALICE))
    assert outcome(schedule([of(BOB, job(1))], nodes, ONE_NODE)) == {1: ("n1",)}


def _running(job_id: int, user: int, end: int, *, exclusive: bool) -> RunningJob:
    return RunningJob(JobId(job_id), Allocation(("n1",), (1,), (0,), cpu_ids=((0,),)), end, user, exclusive)


def test_backfill_reserves_another_user_after_the_owner_ends() -> None:
    # CPUs are free now, but alice's user-exclusive job holds n1 until 1600.
    nodes = by_name(held(node("n1", free_cpus=3), ALICE, owner=ALICE))
    backfill = Backfill(POLICY, nodes, [_running(90, ALICE, 1600, exclusive=True)], NOW)
    decisions = schedule([of(BOB, job(1, time_limit_min=10))], nodes, ONE_NODE, backfill=backfill)
    assert len(decisions) == 1 and isinstance(decisions[0], Pend)
    assert decisions[0].expected is not None and decisions[0].expected.start_time == 1620   # bf_resolution grid


def test_backfill_keeps_another_user_out_of_a_reserved_user_exclusive_window() -> None:
    # alice's user-exclusive job needs the whole node at 1620 (bob's first job ends then): bob's
    # long job, though CPUs are free now, would still run then and is reserved after alice's.
    nodes = by_name(held(node("n1", free_cpus=3), BOB))
    backfill = Backfill(POLICY, nodes, [_running(90, BOB, 1600, exclusive=False)], NOW)
    jobs = [user_exclusive(1, ALICE, time_limit_min=10), of(BOB, job(2, time_limit_min=60))]
    got = {d.job_id: d for d in schedule(jobs, nodes, ONE_NODE, backfill=backfill)}
    first, second = got[1], got[2]
    assert isinstance(first, Pend) and first.expected is not None and first.expected.start_time == 1620
    assert isinstance(second, Pend) and second.expected is not None and second.expected.start_time == 1620 + 600
    # A short job of bob's, done before alice's start, fills the gap now.
    short = of(BOB, job(3, time_limit_min=5))
    backfill = Backfill(POLICY, nodes, [_running(90, BOB, 1600, exclusive=False)], NOW)
    got = {d.job_id: d for d in schedule(jobs[:1] + [short], nodes, ONE_NODE, backfill=backfill)}
    assert isinstance(got[3], Start)

"""-n without -N: Slurm's node range is 1 to unbounded, and cons_tres places the tasks on the
fewest nodes that hold them, in blocks (3 one-CPU tasks on two 2-CPU nodes: 2 and 1). The pure
scheduler (scheduler.py, backfill.py, node_fit.spread_node_count) and admission (core/admission.py).
"""
from __future__ import annotations

from pathlib import Path

import pytest
from tests.builders import error_of, job_request, make_manager, schedule, submit
from tests.unit.test_scheduler import by_name, job, node, outcome, partition, parts, started

from pyslurm_common.errors import Strerror
from pyslurm_common.job_environment import block_tasks_per_node
from pyslurm_ctld.sched.backfill import Backfill, BackfillPolicy, RunningJob
from pyslurm_ctld.model.job import Allocation, JobId, JobState, Reason
from pyslurm_ctld.sched.node_fit import spread_node_count
from pyslurm_ctld.sched.scheduler import Pend
from pyslurm_ctld.sched.scheduler import schedule as schedule_pass

TWO_BY_TWO = by_name(node("n1", cpus=2), node("n2", cpus=2))
BATCH = parts(partition("batch", ["n1", "n2"]))
POLICY = BackfillPolicy(window_s=24 * 3600, resolution_s=60, max_job_test=500)


def spread(job_id: int, tasks: int, **request: object):  # type: ignore[no-untyped-def]
    """A job that gave -n and no -N."""
    return job(job_id, num_tasks=tasks, ntasks_given=True, node_count_given=False, **request)


def test_tasks_more_than_a_node_holds_go_on_the_fewest_nodes_in_blocks() -> None:
    alloc = started(schedule_pass([spread(1, 3)], TWO_BY_TWO, BATCH))[1]
    assert alloc.nodes == ("n1", "n2")
    assert alloc.cpus_per_node == (2, 1)      # block: the first node full, the rest on the next
    assert alloc.cpu_ids == ((0, 1), (0,))


def test_tasks_that_fit_one_node_stay_on_one_node() -> None:
    assert outcome(schedule_pass([spread(1, 2)], TWO_BY_TWO, BATCH)) == {1: ("n1",)}
    big = by_name(node("n1", cpus=2), node("n2", cpus=8))
    assert started(schedule_pass([spread(1, 3)], big, parts(partition("batch", ["n1", "n2"]))))[1].nodes == ("n2",)


def test_the_cpu_left_beside_a_spread_job_takes_another_job() -> None:
    decisions = schedule_pass([spread(1, 3), job(2)], TWO_BY_TWO, BATCH)
    alloc = started(decisions)
    assert alloc[1].cpus_per_node == (2, 1) and alloc[2].nodes == ("n2",) and alloc[2].cpu_ids == ((1,),)


def test_a_node_with_one_cpu_left_takes_the_last_task() -> None:
    """cons_tres starts -n3 now on a free node and one with a single CPU left (2 and 1)."""
    nodes = by_name(node("n1", cpus=2), node("n2", cpus=2, free_cpu_ids=[1]))
    alloc = started(schedule_pass([spread(1, 3)], nodes, BATCH))[1]
    assert alloc.nodes == ("n1", "n2") and alloc.cpu_ids == ((0, 1), (1,))
    # The first node (in the partition's order) takes two: with one CPU left there, two free nodes.
    nodes = by_name(node("n1", cpus=2, free_cpu_ids=[1]), node("n2", cpus=2), node("n3", cpus=2))
    three = parts(partition("batch", ["n1", "n2", "n3"]))
    alloc = started(schedule_pass([spread(1, 3)], nodes, three))[1]
    assert alloc.nodes == ("n2", "n3") and alloc.cpu_ids == ((0, 1), (0,))


def test_more_tasks_than_the_partition_holds_can_never_start() -> None:
    assert outcome(schedule_pass([spread(1, 5)], TWO_BY_TWO, BATCH)) == {1: "PartitionConfig"}
    assert outcome(schedule_pass([spread(1, 3, cpus_per_task=2)], TWO_BY_TWO, BATCH)) == {1: "PartitionConfig"}


def test_a_node_count_given_stays_the_node_count() -> None:
    """-N1 -n3 on 2-CPU nodes is one node or nothing, as in Slurm."""
    assert outcome(schedule_pass([job(1, num_tasks=3, ntasks_given=True, min_nodes=1)], TWO_BY_TWO, BATCH)) \
        == {1: "PartitionConfig"}


def test_ntasks_per_node_bounds_the_tasks_each_node_gets() -> None:
    nodes = by_name(*(node(f"n{i}", cpus=4) for i in range(1, 4)))
    views = parts(partition("batch", ["n1", "n2", "n3"]))
    alloc = started(schedule_pass([spread(1, 5, ntasks_per_node=2)], nodes, views))[1]
    assert alloc.nodes == ("n1", "n2", "n3") and alloc.cpus_per_node == (2, 2, 1)
    assert outcome(schedule_pass([spread(1, 7, ntasks_per_node=2)], nodes, views)) == {1: "PartitionConfig"}


def test_exclusive_spread_job_takes_whole_nodes() -> None:
    alloc = started(schedule_pass([spread(1, 3, exclusive=True)], TWO_BY_TWO, BATCH))[1]
    assert alloc.cpus_per_node == (2, 2)


def test_backfill_reserves_a_spread_job_in_blocks() -> None:
    """A job that waits is placed in time by backfill.place, which trims the last node the same way."""
    nodes = by_name(node("n1", cpus=2, free_cpus=0), node("n2", cpus=2, free_cpus=0))
    holds = [RunningJob(JobId(90), Allocation(("n1", "n2"), (2, 2), (0, 0), cpu_ids=((0, 1), (0, 1))), 2800)]
    decisions = schedule_pass([spread(1, 3, time_limit_min=60)], nodes, BATCH,
                              backfill=Backfill(POLICY, nodes, holds, 1000))
    (pend,) = decisions
    assert isinstance(pend, Pend) and pend.expected is not None
    assert pend.expected.nodes == ("n1", "n2") and pend.expected.allocation.cpus_per_node == (2, 1)
    assert pend.expected.allocation.cpu_ids == ((0, 1), (0,))


def test_admission_accepts_what_needs_two_nodes_and_a_node_count_given_stays_one_node(tmp_path: Path) -> None:
    conf = ("ClusterName=lab\nSlurmctldHost=head\nNodeName=n[1-2] CPUs=2 RealMemory=1000\n"
            "PartitionName=debug Nodes=n[1-2] Default=YES\n")
    mgr = make_manager(tmp_path, conf=conf)
    three = submit(mgr, num_tasks=3, ntasks_given=True, node_count_given=False)
    schedule(mgr)
    alloc = mgr.jobs[three.job_id].allocation
    assert mgr.jobs[three.job_id].state is JobState.RUNNING
    assert alloc is not None and alloc.nodes == ("n1", "n2") and alloc.cpus_per_node == (2, 1)
    assert three.request.min_nodes == 1          # the request keeps Slurm's range; the allocation has 2
    # -N1 -n3: within the partition's 4 CPUs but on no one node, which Slurm refuses.
    refused = error_of(submit, mgr, num_tasks=3, ntasks_given=True, min_nodes=1, node_count_given=True)
    assert refused.strerror == Strerror.BAD_NODE_CONFIG


def test_more_cpus_than_the_partition_has_are_accepted_to_pend_with_partition_config(tmp_path: Path) -> None:
    """Slurm 22.05 without EnforcePartLimits: -n5 (or -n3 -c2) on 2x2 CPUs is accepted and pends
    (checked against real sbatch); only a request within the partition's CPUs that no node
    configuration holds is refused."""
    conf = ("ClusterName=lab\nSlurmctldHost=head\nNodeName=n[1-2] CPUs=2 RealMemory=1000\n"
            "PartitionName=debug Nodes=n[1-2] Default=YES\n")
    mgr = make_manager(tmp_path, conf=conf)
    five = submit(mgr, num_tasks=5, ntasks_given=True, node_count_given=False)
    wide = submit(mgr, num_tasks=3, cpus_per_task=2, ntasks_given=True, node_count_given=False)
    assert five.reason is Reason.PARTITION_CONFIG and wide.reason is Reason.PARTITION_CONFIG
    schedule(mgr)
    for job_id in (five.job_id, wide.job_id):
        assert mgr.jobs[job_id].state is JobState.PENDING and mgr.jobs[job_id].reason is Reason.PARTITION_CONFIG
    assert error_of(submit, mgr, cpus_per_task=3).strerror == Strerror.BAD_NODE_CONFIG


@pytest.mark.parametrize("tasks, expected", [(1, 1), (2, 1), (3, 2), (4, 2)])
def test_spread_node_count(tasks: int, expected: int) -> None:
    req = job_request(num_tasks=tasks, ntasks_given=True, node_count_given=False)
    assert spread_node_count(req, [2, 2]) == expected
    assert spread_node_count(job_request(num_tasks=tasks, ntasks_given=True), [2, 2]) == 1   # -N given



def test_a_node_count_with_uneven_tasks_takes_each_nodes_share() -> None:
    """-N2 -n3: the nodes take 2 and 1 CPUs (not 2 each), so a 2-CPU and a 1-CPU node run it, in
    either order (the tasks then follow each node's CPUs: 1 and 2 where the first has one)."""
    n3 = dict(num_tasks=3, ntasks_given=True, min_nodes=2, node_count_given=True)
    pair = parts(partition("batch", ["n1", "n2"]))
    big_first = started(schedule_pass([job(1, **n3)], by_name(node("n1", cpus=2), node("n2", cpus=1)), pair))[1]
    assert big_first.cpus_per_node == (2, 1)
    small_first = started(schedule_pass([job(1, **n3)], by_name(node("n1", cpus=1), node("n2", cpus=2)), pair))[1]
    assert small_first.nodes == ("n1", "n2") and small_first.cpus_per_node == (1, 2)
    # on two 2-CPU nodes the job holds three CPUs, not four
    assert started(schedule_pass([job(1, **n3)], TWO_BY_TWO, BATCH))[1].cpus_per_node == (2, 1)
    # and their environment's SLURM_TASKS_PER_NODE follows the CPUs
    assert block_tasks_per_node(2, 3, True, small_first.cpus_per_node) == (1, 2)
    assert block_tasks_per_node(2, 3, True, (2, 2)) == (2, 1)
    assert block_tasks_per_node(1, 5, True, (1,)) == (5,)   # -O: one CPU, five tasks

"""The pure scheduler (pyslurm_ctld/sched/scheduler.py): pending jobs + free resources -> decisions.

Spec: scheduling-policy.md §2.1 (order), §2.2 (strict priority per partition, which reasons
block), §2.4 (eligibility reasons).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Iterable, Sequence

import pytest

from pyslurm_ctld.model.job import Allocation, Hold, Job, JobId
from pyslurm_ctld.sched.node_fit import NodeCapacity
from pyslurm_ctld.sched.scheduler import UNLIMITED, Decision, PartitionView, Pend, Start, schedule
from tests.builders import job_request

# ---- helpers -----------------------------------------------------------------------------

BASE_REQUEST = job_request(partition="batch", time_limit_min=10, work_dir="/home/alice")


def job(job_id: int, *, priority: int | None = None, submit: int = 0, hold: Hold = Hold.NONE,
        **request: Any) -> Job:
    """A pending job; by default earlier ids have higher priority (priority/basic)."""
    return Job(job_id=JobId(job_id), request=dataclasses.replace(BASE_REQUEST, **request),
               uid=1000, gid=1000, user_name="alice", group_name="alice", submit_time=submit,
               hold=hold, priority=1000 - job_id if priority is None else priority)


def node(name: str, cpus: int = 4, memory_mb: int = 4000, *, free_cpus: int | None = None,
         free_cpu_ids: Iterable[int] | None = None, free_memory_mb: int | None = None, usable: bool = True,
         gpus: int | Sequence[str] = 0, free_gpus: Iterable[int] | None = None) -> NodeCapacity:
    """A node; `free_cpus=N` leaves its N highest CPU ids free, `gpus` is a count or their types."""
    if free_cpu_ids is None:
        free_cpu_ids = range(cpus - (cpus if free_cpus is None else free_cpus), cpus)
    types = [""] * gpus if isinstance(gpus, int) else list(gpus)
    return NodeCapacity(name=name, usable=usable, cpus=cpus, memory_mb=memory_mb,
                        free_cpu_ids=frozenset(free_cpu_ids),
                        free_memory_mb=memory_mb if free_memory_mb is None else free_memory_mb,
                        gpu_types=dict(enumerate(types)),
                        free_gpus=frozenset(range(len(types)) if free_gpus is None else free_gpus))


def partition(name: str, nodes: Sequence[str], *, state: str = "UP", max_time_min: int = UNLIMITED,
              max_nodes: int | None = None, min_nodes: int = 0, priority_tier: int = 1,
              def_mem_per_cpu_mb: int = 0) -> PartitionView:
    return PartitionView(name=name, nodes=tuple(nodes), state=state, max_time_min=max_time_min,
                         max_nodes=max_nodes, min_nodes=min_nodes, priority_tier=priority_tier,
                         def_mem_per_cpu_mb=def_mem_per_cpu_mb)


def by_name(*items: NodeCapacity) -> dict[str, NodeCapacity]:
    return {n.name: n for n in items}


def parts(*items: PartitionView) -> dict[str, PartitionView]:
    return {p.name: p for p in items}


def outcome(decisions: Iterable[Decision]) -> dict[int, str | tuple[str, ...]]:
    """job id -> allocated nodes (started) or the pending reason's text."""
    return {d.job_id: d.allocation.nodes if isinstance(d, Start) else str(d.reason) for d in decisions}


def started(decisions: Iterable[Decision]) -> dict[int, Allocation]:
    return {d.job_id: d.allocation for d in decisions if isinstance(d, Start)}


ONE_NODE = by_name(node("n1"))
BATCH = parts(partition("batch", ["n1"]))


# ---- order ---------------------------------------------------------------------------------


def test_every_job_gets_exactly_one_decision_in_priority_order() -> None:
    jobs = [job(1, priority=10), job(2, priority=30), job(3, priority=20)]
    decisions = schedule(jobs, by_name(node("n1", cpus=8)), parts(partition("batch", ["n1"])))
    assert [d.job_id for d in decisions] == [2, 3, 1]
    assert all(isinstance(d, Start) for d in decisions)


def test_higher_priority_job_wins_the_last_cpus_even_if_submitted_later() -> None:
    jobs = [job(1, priority=10, submit=1, cpus_per_task=4), job(2, priority=50, submit=2, cpus_per_task=4)]
    assert outcome(schedule(jobs, ONE_NODE, BATCH)) == {2: ("n1",), 1: "Resources"}


def test_ties_are_broken_by_submit_time_then_job_id() -> None:
    jobs = [job(5, priority=1, submit=20), job(4, priority=1, submit=10), job(3, priority=1, submit=20)]
    assert [d.job_id for d in schedule(jobs, by_name(node("n1", cpus=8)), BATCH)] == [4, 3, 5]


def test_partition_priority_tier_goes_before_job_priority() -> None:
    nodes = by_name(node("n1"))
    views = parts(partition("low", ["n1"], priority_tier=1), partition("high", ["n1"], priority_tier=5))
    jobs = [job(1, priority=900, partition="low", cpus_per_task=4),
            job(2, priority=1, partition="high", cpus_per_task=4)]
    assert outcome(schedule(jobs, nodes, views)) == {2: ("n1",), 1: "Resources"}


# ---- blocking ------------------------------------------------------------------------------


def test_first_job_that_does_not_fit_blocks_its_partition() -> None:
    # Job 2 would fit after job 1 blocks: strict FIFO keeps it (and 3) pending behind job 1.
    jobs = [job(1, cpus_per_task=2), job(2, cpus_per_task=4), job(3, cpus_per_task=1), job(4, cpus_per_task=1)]
    assert outcome(schedule(jobs, ONE_NODE, BATCH)) == {
        1: ("n1",), 2: "Resources", 3: "Priority", 4: "Priority"}


def test_other_partitions_keep_starting_jobs_when_one_is_blocked() -> None:
    nodes = by_name(node("a1"), node("b1"))
    views = parts(partition("pa", ["a1"]), partition("pb", ["b1"]))
    jobs = [job(1, partition="pa", cpus_per_task=8),
            job(2, partition="pa", cpus_per_task=1),
            job(3, partition="pb", cpus_per_task=1)]
    # Job 1 asks for more CPUs than a1 has: that is a static reason and blocks nothing.
    assert outcome(schedule(jobs, nodes, views)) == {1: "PartitionConfig", 2: ("a1",), 3: ("b1",)}
    busy = by_name(node("a1", free_cpus=0), node("b1"))
    jobs = [job(1, partition="pa"), job(2, partition="pa"), job(3, partition="pb"), job(4, partition="pb")]
    assert outcome(schedule(jobs, busy, views)) == {1: "Resources", 2: "Priority", 3: ("b1",), 4: ("b1",)}


def test_a_blocked_partition_does_not_block_an_overlapping_partition() -> None:
    nodes = by_name(node("n1", free_cpus=1), node("n2", free_cpus=0))
    views = parts(partition("wide", ["n1", "n2"]), partition("narrow", ["n1"]))
    jobs = [job(1, partition="wide", min_nodes=2), job(2, partition="narrow"), job(3, partition="wide")]
    assert outcome(schedule(jobs, nodes, views)) == {1: "Resources", 2: ("n1",), 3: "Priority"}


def test_held_jobs_get_hold_reasons_and_block_nothing() -> None:
    jobs = [job(1, hold=Hold.USER, cpus_per_task=4), job(2, hold=Hold.ADMIN, cpus_per_task=4),
            job(3, cpus_per_task=4)]
    assert outcome(schedule(jobs, ONE_NODE, BATCH)) == {1: "JobHeldUser", 2: "JobHeldAdmin", 3: ("n1",)}


def test_hold_reason_comes_before_partition_reasons() -> None:
    views = parts(partition("batch", ["n1"], state="DOWN"))
    assert outcome(schedule([job(1, hold=Hold.ADMIN)], ONE_NODE, views)) == {1: "JobHeldAdmin"}


# ---- partition reasons (none of them blocks the partition) ---------------------------------


def test_partition_down_and_inactive() -> None:
    nodes = by_name(node("n1"), node("n2"))
    views = parts(partition("down", ["n1"], state="DOWN"), partition("off", ["n2"], state="INACTIVE"))
    jobs = [job(1, partition="down"), job(2, partition="off")]
    assert outcome(schedule(jobs, nodes, views)) == {1: "PartitionDown", 2: "PartitionInactive"}


def test_drained_partition_still_runs_queued_jobs() -> None:
    views = parts(partition("batch", ["n1"], state="DRAIN"))
    assert outcome(schedule([job(1)], ONE_NODE, views)) == {1: ("n1",)}


def test_partition_time_limit() -> None:
    views = parts(partition("batch", ["n1"], max_time_min=60))
    jobs = [job(1, time_limit_min=61), job(2, time_limit_min=UNLIMITED), job(3, time_limit_min=60)]
    assert outcome(schedule(jobs, ONE_NODE, views)) == {
        1: "PartitionTimeLimit", 2: "PartitionTimeLimit", 3: ("n1",)}


def test_unlimited_partition_accepts_any_time_limit() -> None:
    assert outcome(schedule([job(1, time_limit_min=UNLIMITED)], ONE_NODE, BATCH)) == {1: ("n1",)}


def test_partition_node_limits() -> None:
    nodes = by_name(node("n1"), node("n2"), node("n3"))
    views = parts(partition("small", ["n1", "n2"]), partition("capped", ["n1", "n2", "n3"], max_nodes=2),
                  partition("big", ["n1", "n2", "n3"], min_nodes=2))
    jobs = [job(1, partition="small", min_nodes=3),    # more nodes than the partition has
            job(2, partition="capped", min_nodes=3),   # over MaxNodes
            job(3, partition="big", min_nodes=1),      # under MinNodes
            job(4, partition="big", min_nodes=2)]
    result = outcome(schedule(jobs, nodes, views))
    assert (result[1], result[2], result[3]) == ("PartitionNodeLimit",) * 3
    assert isinstance(result[4], tuple) and len(result[4]) == 2


def test_request_no_node_of_the_partition_could_ever_satisfy_is_partition_config() -> None:
    nodes = by_name(node("small", cpus=2, memory_mb=1000), node("big", cpus=16, memory_mb=64000))
    views = parts(partition("batch", ["small"]), partition("all", ["small", "big"]))
    jobs = [job(1, cpus_per_task=4),                        # CPUs: only `big` has them, not in batch
            job(2, mem_per_node_mb=2000),                   # memory
            job(3, partition="nosuch"),                     # unknown partition
            job(4, cpus_per_task=4, partition="all"),
            job(5)]                                         # not blocked by 1 and 2
    assert outcome(schedule(jobs, nodes, views)) == {
        1: "PartitionConfig", 2: "PartitionConfig", 3: "PartitionConfig", 4: ("big",), 5: ("small",)}


def test_partition_config_counts_nodes_even_when_they_are_unusable_now() -> None:
    # A node that is down could come back: waiting for it is not PartitionConfig, but Slurm's
    # words for no node up (real Slurm 22.05.8, its one node drained).
    nodes = by_name(node("n1", usable=False))
    assert outcome(schedule([job(1), job(2)], nodes, BATCH)) == {
        1: "Nodes required for job are DOWN, DRAINED or reserved for jobs in higher priority partitions",
        2: "Priority"}


# ---- node choice ---------------------------------------------------------------------------


def test_unusable_nodes_are_never_chosen() -> None:
    nodes = by_name(node("down", usable=False), node("drained", usable=False), node("up", cpus=1))
    views = parts(partition("batch", ["down", "drained", "up"]))
    decisions = schedule([job(i) for i in range(1, 6)], nodes, views)
    assert outcome(decisions) == {1: ("up",), 2: "Resources", 3: "Priority", 4: "Priority", 5: "Priority"}


def test_memory_is_honoured_when_requested() -> None:
    nodes = by_name(node("n1", cpus=8, memory_mb=4000))
    jobs = [job(1, mem_per_node_mb=3000), job(2, mem_per_node_mb=2000), job(3, mem_per_cpu_mb=500)]
    # Job 2 does not fit the 1000 MB left: it blocks job 3 even though 3 would fit (500 MB).
    assert outcome(schedule(jobs, nodes, BATCH)) == {1: ("n1",), 2: "Resources", 3: "Priority"}
    assert started(schedule(jobs[:1], nodes, BATCH))[1].memory_mb_per_node == (3000,)


def test_memory_per_cpu_is_multiplied_by_the_cpus_on_each_node() -> None:
    nodes = by_name(node("n1", cpus=8, memory_mb=4000), node("n2", cpus=8, memory_mb=4000))
    views = parts(partition("batch", ["n1", "n2"]))
    alloc = started(schedule([job(1, min_nodes=2, num_tasks=6, mem_per_cpu_mb=100)], nodes, views))[1]
    assert alloc.cpus_per_node == (3, 3)
    assert alloc.memory_mb_per_node == (300, 300)


def test_memory_is_ignored_when_not_requested() -> None:
    nodes = by_name(node("n1", free_memory_mb=0))
    decisions = schedule([job(1), job(2, mem_per_cpu_mb=1)], nodes, BATCH)
    assert outcome(decisions) == {1: ("n1",), 2: "Resources"}
    assert started(decisions)[1].memory_mb_per_node == (0,)


def test_default_memory_per_cpu_applies_to_jobs_without_a_request() -> None:
    nodes = by_name(node("n1", cpus=4, memory_mb=4000))
    decisions = schedule([job(i) for i in range(1, 5)], nodes,
                         parts(partition("batch", ["n1"], def_mem_per_cpu_mb=1500)))
    assert outcome(decisions) == {1: ("n1",), 2: ("n1",), 3: "Resources", 4: "Priority"}
    assert started(decisions)[1].memory_mb_per_node == (1500,)


def test_explicit_memory_overrides_the_default() -> None:
    alloc = started(schedule([job(1, mem_per_node_mb=100)], ONE_NODE,
                             parts(partition("batch", ["n1"], def_mem_per_cpu_mb=1500))))[1]
    assert alloc.memory_mb_per_node == (100,)


def test_multi_node_job_gets_distinct_nodes_and_its_cpus_split_evenly() -> None:
    nodes = by_name(*(node(f"n{i}", cpus=4) for i in range(1, 5)))
    views = parts(partition("batch", [f"n{i}" for i in range(1, 5)]))
    alloc = started(schedule([job(1, min_nodes=3, num_tasks=7)], nodes, views))[1]
    assert len(set(alloc.nodes)) == 3
    assert alloc.cpus_per_node == (3, 3, 3)  # ceil(7 / 3) on each node
    assert alloc.total_cpus == 9


def test_multi_node_job_waits_when_too_few_nodes_have_room() -> None:
    nodes = by_name(node("n1"), node("n2", free_cpus=0), node("n3", usable=False))
    views = parts(partition("batch", ["n1", "n2", "n3"]))
    assert outcome(schedule([job(1, min_nodes=2), job(2)], nodes, views)) == {1: "Resources", 2: "Priority"}


def test_best_fit_prefers_the_node_with_the_fewest_free_cpus() -> None:
    nodes = by_name(node("roomy", cpus=8), node("snug", cpus=8, free_cpus=2), node("mid", cpus=8, free_cpus=5))
    views = parts(partition("batch", ["roomy", "snug", "mid"]))
    assert outcome(schedule([job(1, cpus_per_task=2)], nodes, views)) == {1: ("snug",)}
    assert outcome(schedule([job(1, cpus_per_task=3)], nodes, views)) == {1: ("mid",)}
    # Within one pass the free counts go down as jobs are placed: the hole left is filled first.
    decisions = schedule([job(1, cpus_per_task=4), job(2, cpus_per_task=1), job(3, cpus_per_task=4)],
                         nodes, views)
    assert outcome(decisions) == {1: ("mid",), 2: ("mid",), 3: ("roomy",)}


def test_best_fit_ties_go_to_partition_order() -> None:
    nodes = by_name(node("b"), node("a"), node("c"))
    views = parts(partition("batch", ["c", "a", "b"]))
    assert outcome(schedule([job(1, min_nodes=2)], nodes, views)) == {1: ("c", "a")}


def test_resources_used_by_earlier_decisions_are_not_given_twice() -> None:
    nodes = by_name(node("n1", cpus=8, memory_mb=1000), node("n2", cpus=8, memory_mb=1000))
    views = parts(partition("batch", ["n1", "n2"]))
    jobs = [job(i, num_tasks=2, mem_per_node_mb=400) for i in range(1, 7)]
    decisions = schedule(jobs, nodes, views)
    cpus = {"n1": 0, "n2": 0}
    mem = {"n1": 0, "n2": 0}
    for alloc in started(decisions).values():
        for name, c, m in zip(alloc.nodes, alloc.cpus_per_node, alloc.memory_mb_per_node):
            cpus[name] += c
            mem[name] += m
    assert len(started(decisions)) == 4  # two per node: memory (400 * 3 > 1000) stops the third
    assert all(c <= 8 for c in cpus.values()) and all(m <= 1000 for m in mem.values())
    assert [type(d) for d in decisions[4:]] == [Pend, Pend]


def test_no_pending_jobs_no_decisions() -> None:
    assert schedule([], ONE_NODE, BATCH) == []


def test_schedule_does_not_change_its_inputs() -> None:
    nodes = by_name(node("n1"))
    jobs = [job(1), job(2)]
    before = (dict(nodes), list(jobs))
    schedule(jobs, nodes, BATCH)
    assert (nodes, jobs) == before


# ---- specific CPUs and GPUs ------------------------------------------------------------------


def test_starts_name_the_lowest_free_cpu_ids() -> None:
    nodes = by_name(node("n1", cpus=8, free_cpu_ids={6, 1, 5, 3}))
    decisions = schedule([job(1, cpus_per_task=2), job(2), job(3)], nodes, BATCH)
    allocs = started(decisions)
    assert (allocs[1].cpu_ids, allocs[2].cpu_ids, allocs[3].cpu_ids) == (((1, 3),), ((5,),), ((6,),))
    assert all(a.gpu_ids == () for a in allocs.values())          # no GPUs asked, none given


def test_a_multi_node_job_gets_cpu_ids_on_each_node() -> None:
    nodes = by_name(node("n1", free_cpus=2), node("n2", free_cpu_ids={0, 2, 3}))
    alloc = started(schedule([job(1, min_nodes=2, num_tasks=4)], nodes, parts(partition("batch", ["n1", "n2"]))))[1]
    assert dict(zip(alloc.nodes, alloc.cpu_ids)) == {"n1": (2, 3), "n2": (0, 2)}


def test_gpus_are_the_lowest_free_indices() -> None:
    nodes = by_name(node("n1", gpus=4, free_gpus={3, 1, 2}))
    allocs = started(schedule([job(1, gpus_per_node=2), job(2, gpus_per_node=1)], nodes, BATCH))
    assert (allocs[1].gpu_ids, allocs[2].gpu_ids) == (((1, 2),), ((3,),))
    assert allocs[1].total_gpus == 2


def test_gpu_type_must_match_when_requested() -> None:
    nodes = by_name(node("n1", cpus=8, gpus=["a100", "a100", "v100", "v100"]))
    allocs = started(schedule([job(1, gpus_per_node=1, gpu_type="v100"), job(2, gpus_per_node=2, gpu_type="a100"),
                               job(3, gpus_per_node=1)], nodes, BATCH))
    assert (allocs[1].gpu_ids, allocs[2].gpu_ids, allocs[3].gpu_ids) == (((2,),), ((0, 1),), ((3,),))


def test_no_gpu_or_cpu_is_given_twice_in_a_pass() -> None:
    nodes = by_name(node("n1", cpus=8, gpus=4), node("n2", cpus=8, gpus=4))
    views = parts(partition("batch", ["n1", "n2"]))
    decisions = schedule([job(i, gpus_per_node=1, cpus_per_task=2) for i in range(1, 7)], nodes, views)
    allocs = started(decisions)
    assert len(allocs) == 6
    held = [(n, kind, i) for a in allocs.values() for n, cpus, gpus in zip(a.nodes, a.cpu_ids, a.gpu_ids)
            for kind, ids in (("cpu", cpus), ("gpu", gpus)) for i in ids]
    assert len(held) == len(set(held)) == 6 * 3


def test_busy_gpus_mean_resources_and_block_the_partition() -> None:
    nodes = by_name(node("n1", cpus=8, gpus=2, free_gpus={1}))
    jobs = [job(1, gpus_per_node=2), job(2), job(3, gpus_per_node=1)]
    # Job 1 could run once GPU 0 is free: it waits for Resources, and nothing behind it starts.
    assert outcome(schedule(jobs, nodes, BATCH)) == {1: "Resources", 2: "Priority", 3: "Priority"}


def test_gpu_requests_no_node_could_ever_satisfy_are_partition_config() -> None:
    nodes = by_name(node("gpu", gpus=["a100", "a100"]), node("cpu"))
    views = parts(partition("batch", ["gpu", "cpu"]))
    jobs = [job(1, gpus_per_node=3), job(2, gpus_per_node=1, gpu_type="h100"), job(3, gpus_per_node=1, min_nodes=2),
            job(4, gpus_per_node=2, gpu_type="a100")]
    assert outcome(schedule(jobs, nodes, views)) == {
        1: "PartitionConfig", 2: "PartitionConfig", 3: "PartitionConfig", 4: ("gpu",)}


def test_gpu_jobs_go_where_the_gpus_are_and_others_still_fill_the_rest() -> None:
    # Best fit alone would pick the snug CPU node; only the GPU node has what job 1 needs.
    nodes = by_name(node("snug", cpus=8, free_cpus=2), node("gpu", cpus=8, gpus=1))
    views = parts(partition("batch", ["snug", "gpu"]))
    assert outcome(schedule([job(1, gpus_per_node=1), job(2)], nodes, views)) == {1: ("gpu",), 2: ("snug",)}


def test_gpus_of_unusable_nodes_are_not_given() -> None:
    nodes = by_name(node("down", gpus=4, usable=False), node("up", gpus=1))
    views = parts(partition("batch", ["down", "up"]))
    assert outcome(schedule([job(1, gpus_per_node=2), job(2, gpus_per_node=1)], nodes, views)) == {
        1: "Resources", 2: "Priority"}
    assert outcome(schedule([job(2, gpus_per_node=1)], nodes, views)) == {2: ("up",)}


def test_allocation_shapes_are_checked() -> None:
    with pytest.raises(ValueError):
        Allocation(("n1",), (2,), (0,), cpu_ids=((0,),))            # 2 CPUs, 1 id
    with pytest.raises(ValueError):
        Allocation(("n1", "n2"), (1, 1), (0, 0), gpu_ids=((0,),))   # GPUs for one node of two
    with pytest.raises(ValueError):
        Allocation(("n1",), (1, 1), (0,))
    # "No GPUs" has one spelling, so allocations compare equal however they were built.
    assert Allocation(("a", "b"), (1, 1), (0, 0), gpu_ids=((), ())) == Allocation(("a", "b"), (1, 1), (0, 0))

"""The scheduler's memo of each job's need (node_fit.NeedMemo): computed once per version of a
job's request and partition settings, and never stale when either changes between passes."""
from __future__ import annotations

import dataclasses

from pyslurm_ctld.sched.node_fit import NeedMemo, job_need
from pyslurm_ctld.sched.scheduler import schedule
from tests.builders import job_request
from tests.unit.test_scheduler import BATCH, ONE_NODE, by_name, job, node, outcome, partition, parts


def test_a_changed_request_is_sized_again_in_the_next_pass() -> None:
    too_big = job(1, cpus_per_task=8)
    assert outcome(schedule([too_big], ONE_NODE, BATCH)) == {1: "PartitionConfig"}
    updated = dataclasses.replace(too_big, request=dataclasses.replace(too_big.request, cpus_per_task=2))
    assert outcome(schedule([updated], ONE_NODE, BATCH)) == {1: ("n1",)}


def test_a_changed_partition_default_memory_is_taken_in_the_next_pass() -> None:
    pending = [job(1, cpus_per_task=4)]
    nodes = by_name(node("n1", cpus=4, memory_mb=4000))
    thirsty = parts(partition("batch", ["n1"], def_mem_per_cpu_mb=2000))   # 8000 MB: no node holds it
    assert outcome(schedule(pending, nodes, thirsty)) == {1: "PartitionConfig"}
    assert outcome(schedule(pending, nodes, parts(partition("batch", ["n1"], def_mem_per_cpu_mb=500)))) \
        == {1: ("n1",)}


def test_the_same_request_in_two_partitions_gets_each_partitions_need() -> None:
    memo = NeedMemo()
    memo.new_pass()
    request = job_request(partition="a", cpus_per_task=2)
    assert memo.need(request, "a", 100, False).memory_mb_per_node == 200
    assert memo.need(request, "b", 300, False).memory_mb_per_node == 600
    assert memo.need(request, "b", 300, True).exclusive


def test_a_need_is_computed_once_and_equal_shapes_share_one_object() -> None:
    memo = NeedMemo()
    first, twin = job_request(partition="a"), job_request(partition="a")
    memo.new_pass()
    need = memo.need(first, "a", 0, False)
    assert need == job_need(first, 0)
    assert memo.need(twin, "a", 0, False) is need
    memo.new_pass()
    assert memo.need(first, "a", 0, False) is need


def test_an_entry_no_pass_used_for_a_generation_is_dropped() -> None:
    memo = NeedMemo()
    request, kept = job_request(partition="a"), job_request(partition="a", cpus_per_task=3)
    memo.new_pass()
    memo.need(request, "a", 0, False)
    need = memo.need(kept, "a", 0, False)
    for _ in range(2 * NeedMemo._GENERATION_PASSES):
        memo.new_pass()
        assert memo.need(kept, "a", 0, False) is need   # used every pass: survives the turnovers
    assert list(memo._current.values()) == [(kept, 0, False, None, need, 0)] and not memo._previous.keys() - memo._current.keys()

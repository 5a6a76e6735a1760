"""Backfill (pyslurm_ctld/sched/backfill.py) through the scheduler's priority walk.

Spec: scheduling-policy.md §2.3 (reserve the blocked job at the earliest time its resources free
up, start lower-priority jobs only when they delay no reservation), config-slurm-conf.md §3.1
(bf_window, bf_resolution, bf_max_job_test, bf_interval, SchedulerType).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pyslurm_common.config import ConfigError, load_config
from pyslurm_ctld.sched.backfill import FOREVER, Backfill, RunningJob
from pyslurm_ctld.settings.sched_params import BackfillPolicy
from pyslurm_ctld.model.job import Allocation, ArrayInfo, JobId, Reason
from pyslurm_ctld.settings.sched_params import scheduling_options
from pyslurm_ctld.sched.node_fit import NodeCapacity, job_need
from pyslurm_ctld.sched.scheduler import Decision, PartitionView, Pend, Start, schedule

from test_scheduler import by_name, job, node, partition

NOW = 1000
POLICY = BackfillPolicy(window_s=24 * 3600, resolution_s=60, max_job_test=500)


def running(job_id: int, name: str, cpu_ids: tuple[int, ...], end: int, memory_mb: int = 0,
            gpus: tuple[int, ...] = ()) -> RunningJob:
    return RunningJob(JobId(job_id), Allocation((name,), (len(cpu_ids),), (memory_mb,), cpu_ids=(cpu_ids,),
                                                gpu_ids=(gpus,) if gpus else ()), end)


def run(jobs: list, nodes: dict[str, NodeCapacity], parts: dict[str, PartitionView], holds: list[RunningJob],
        policy: BackfillPolicy = POLICY) -> dict[int, Decision]:
    decisions = schedule(jobs, nodes, parts, backfill=Backfill(policy, nodes, holds, NOW))
    return {d.job_id: d for d in decisions}


def test_the_blocked_job_is_reserved_and_a_short_job_fills_the_gap() -> None:
    # n1 is busy until 4600 (4 CPUs); n2 has 2 of 4 CPUs free until 2800.
    nodes = by_name(node("n1", free_cpus=0), node("n2", free_cpus=2))
    holds = [running(90, "n1", (0, 1, 2, 3), 4600), running(91, "n2", (0, 1), 2800)]
    parts = {"batch": partition("batch", ["n1", "n2"])}
    top = job(1, num_tasks=4, time_limit_min=60)        # needs a whole node: n2 at 2820 (grid)
    short = job(2, num_tasks=2, time_limit_min=30)      # ends 2800 < 2820: fits beside it now
    long = job(3, num_tasks=2, time_limit_min=120)      # would hold n2's CPUs past 2820
    got = run([top, short, long], nodes, parts, holds)
    assert isinstance(got[1], Pend) and got[1].reason is Reason.RESOURCES
    expected = got[1].expected
    assert expected is not None and (expected.start_time, expected.nodes) == (2820, ("n2",))
    assert expected.end_time == 2820 + 3600
    assert [(h.job_id, h.end_time, h.running) for h in expected.waits_for] == [(91, 2800, True)]
    assert isinstance(got[2], Start) and got[2].allocation.cpu_ids == ((2, 3),)
    # The long job cannot delay the top job: it is reserved after it, at n1's release.
    assert isinstance(got[3], Pend) and got[3].reason is Reason.PRIORITY
    assert got[3].expected is not None and got[3].expected.start_time == 4620


def test_without_backfill_the_short_job_waits_behind_the_blocked_one() -> None:
    nodes = by_name(node("n1", free_cpus=2))
    parts = {"batch": partition("batch", ["n1"])}
    decisions = schedule([job(1, num_tasks=4), job(2, num_tasks=1)], nodes, parts)
    assert decisions == [Pend(JobId(1), Reason.RESOURCES), Pend(JobId(2), Reason.PRIORITY)]


def test_a_start_of_the_main_rules_in_another_partition_avoids_a_reservation() -> None:
    # `small` (tier 2) is reserved on n1's CPUs 0-1 at 1800; `other` (tier 1, another partition on
    # the same node) would fit now on CPUs 2-3 but runs past 1800 on all four: it may take CPUs 2-3
    # only, so it fits, and the reserved CPUs stay out of its allocation.
    nodes = by_name(node("n1", free_cpus=2))
    holds = [running(90, "n1", (0, 1), 1800)]
    parts = {"hi": partition("hi", ["n1"], priority_tier=2), "lo": partition("lo", ["n1"])}
    top = job(1, partition="hi", num_tasks=4, time_limit_min=60)
    other = job(2, partition="lo", num_tasks=1, time_limit_min=600)
    got = run([top, other], nodes, parts, holds)
    assert got[1].expected is not None and got[1].expected.start_time == 1800      # type: ignore[union-attr]
    assert isinstance(got[2], Pend) and got[2].expected is not None
    assert got[2].expected.start_time == 1800 + 3600


def test_running_jobs_without_a_time_limit_never_give_their_nodes_back() -> None:
    nodes = by_name(node("n1", free_cpus=0))
    holds = [running(90, "n1", (0, 1, 2, 3), FOREVER)]
    got = run([job(1)], nodes, {"batch": partition("batch", ["n1"])}, holds)
    assert got[1] == Pend(JobId(1), Reason.RESOURCES)        # no expected start


def test_a_job_beyond_bf_window_gets_no_reservation() -> None:
    nodes = by_name(node("n1", free_cpus=0))
    holds = [running(90, "n1", (0, 1, 2, 3), NOW + 3 * 3600)]
    parts = {"batch": partition("batch", ["n1"])}
    narrow = BackfillPolicy(window_s=2 * 3600, resolution_s=60, max_job_test=500)
    assert run([job(1)], nodes, parts, holds, narrow)[1] == Pend(JobId(1), Reason.RESOURCES)
    assert run([job(1)], nodes, parts, holds)[1].expected.start_time == NOW + 3 * 3600 + 20  # type: ignore


def test_bf_resolution_rounds_ends_up_to_its_grid() -> None:
    nodes = by_name(node("n1", free_cpus=0))
    holds = [running(90, "n1", (0, 1, 2, 3), 1001)]
    coarse = BackfillPolicy(window_s=24 * 3600, resolution_s=600, max_job_test=500)
    got = run([job(1)], nodes, {"batch": partition("batch", ["n1"])}, holds, coarse)
    assert got[1].expected.start_time == 1200        # type: ignore[union-attr]


def test_bf_max_job_test_limits_the_jobs_placed_in_time() -> None:
    nodes = by_name(node("n1", free_cpus=0), node("n2", free_cpus=4))
    holds = [running(90, "n1", (0, 1, 2, 3), 2000)]
    parts = {"batch": partition("batch", ["n1", "n2"])}
    jobs = [job(1, num_tasks=8, min_nodes=2), job(2), job(3)]
    one = BackfillPolicy(window_s=24 * 3600, resolution_s=60, max_job_test=1)
    got = run(jobs, nodes, parts, holds, one)
    assert got[1].expected is not None                          # type: ignore[union-attr]
    assert got[2] == Pend(JobId(2), Reason.PRIORITY) and got[3] == Pend(JobId(3), Reason.PRIORITY)
    got = run(jobs, nodes, parts, holds)
    # Both single-CPU jobs fit on n2 now, but the two-node job holds n2 from 2040: only jobs ending
    # by then start (their limit is 10 minutes).
    assert isinstance(got[2], Start) and isinstance(got[3], Start)


def test_a_multi_node_job_is_reserved_when_enough_nodes_are_free_together() -> None:
    nodes = by_name(node("n1", free_cpus=0), node("n2", free_cpus=0), node("n3", free_cpus=4))
    holds = [running(90, "n1", (0, 1, 2, 3), 2000), running(91, "n2", (0, 1, 2, 3), 5000)]
    parts = {"batch": partition("batch", ["n1", "n2", "n3"])}
    got = run([job(1, num_tasks=8, min_nodes=2, time_limit_min=60)], nodes, parts, holds)
    expected = got[1].expected                                   # type: ignore[union-attr]
    assert expected is not None and expected.start_time == 2040 and expected.nodes == ("n1", "n3")


def test_gpus_are_reserved_by_index_and_type() -> None:
    nodes = by_name(node("g1", cpus=8, gpus=["a100", "a100"], free_gpus=[1]))
    holds = [running(90, "g1", (0,), 3000, gpus=(0,))]
    parts = {"gpu": partition("gpu", ["g1"])}
    top = job(1, partition="gpu", gpus_per_node=2, gpu_type="a100", time_limit_min=60)
    short = job(2, partition="gpu", gpus_per_node=1, time_limit_min=10)      # ends before 3000
    long = job(3, partition="gpu", gpus_per_node=1, time_limit_min=100)
    got = run([top, short, long], nodes, parts, holds)
    assert got[1].expected.allocation.gpu_ids == ((0, 1),)      # type: ignore[union-attr]
    assert isinstance(got[2], Start) and got[2].allocation.gpu_ids == ((1,),)
    assert isinstance(got[3], Pend)


def test_array_tasks_backfill_one_by_one_and_the_next_task_is_reserved() -> None:
    nodes = by_name(node("n1", free_cpus=2))
    holds = [running(90, "n1", (0, 1), 1600)]
    parts = {"batch": partition("batch", ["n1"])}
    top = job(1, num_tasks=4, time_limit_min=60)                     # reserved at 1620
    tasks = dataclasses.replace(job(2, time_limit_min=5), array=ArrayInfo(   # 5 minutes: end by 1320
        JobId(2), None, (1, 2, 3), 0, 3, 1, 3, 1))
    decisions = schedule([top, tasks], nodes, parts, backfill=Backfill(POLICY, nodes, holds, NOW))
    starts = [d for d in decisions if isinstance(d, Start)]
    assert [s.array_task_id for s in starts] == [1, 2]
    pend = decisions[-1]
    assert isinstance(pend, Pend) and pend.job_id == 2 and pend.expected is not None


@pytest.mark.parametrize(("params", "expected"), [
    ("", BackfillPolicy()),
    ("SchedulerParameters=bf_window=60,bf_resolution=300,bf_max_job_test=20,bf_interval=5,bf_continue\n",
     BackfillPolicy(window_s=3600, resolution_s=300, max_job_test=20)),
    ("SchedulerType=sched/builtin\n", None),
    ("SchedulerParameters=bf_interval=-1\n", None),
])
def test_scheduler_type_and_backfill_parameters(tmp_path: Path, params: str, expected: BackfillPolicy | None) -> None:
    conf = tmp_path / "slurm.conf"
    conf.write_text("ClusterName=c\nSlurmctldHost=h\nNodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n" + params)
    assert scheduling_options(load_config(conf)).backfill == expected


@pytest.mark.parametrize("params", ["SchedulerParameters=bf_window=soon\n", "SchedulerParameters=bf_resolution=0\n",
                                    "SchedulerType=sched/gang\n"])
def test_bad_backfill_settings_are_fatal_with_their_name(tmp_path: Path, params: str) -> None:
    conf = tmp_path / "slurm.conf"
    conf.write_text("ClusterName=c\nSlurmctldHost=h\nNodeName=n1 CPUs=1\nPartitionName=p Nodes=n1\n" + params)
    with pytest.raises(ConfigError, match="bf_window|bf_resolution|SchedulerType"):
        scheduling_options(load_config(conf))


def test_a_core_reservations_fence_keeps_its_cpus_out_of_the_time_map() -> None:
    nodes = by_name(node("n1"))
    bf = Backfill(POLICY, nodes, [], NOW)
    need = dataclasses.replace(job(1).request, num_tasks=2)
    two, three = job_need(need, 0), job_need(dataclasses.replace(need, num_tasks=3), 0)
    off = {"n1": frozenset({0, 1})}
    placed = bf.place([("batch", ("n1",), two)], 10, {}, off)
    assert placed is not None and placed[1] == NOW and placed[2].cpu_ids == ((2, 3),)
    assert bf.place([("batch", ("n1",), three)], 10, {}, off) is None
    assert bf.place([("batch", ("n1",), three)], 10, {}) is not None

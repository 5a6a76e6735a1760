"""--exclusive and partition OverSubscribe=EXCLUSIVE: whole nodes (cli-sbatch-srun-salloc.md:
"no node sharing; job gets all CPUs+GRES of its nodes but only the memory it asked for";
config-slurm-conf.md §5 OverSubscribe=EXCLUSIVE)."""
from __future__ import annotations

from pathlib import Path

from pyslurm_ctld.sched.backfill import Backfill
from pyslurm_ctld.settings.sched_params import BackfillPolicy
from pyslurm_ctld.core.scheduling import schedule_pass
from pyslurm_ctld.model.job import JobState, Reason
from pyslurm_ctld.sched.scheduler import Pend, Start, schedule

from test_backfill import running
from tests.builders import make_manager, run_job, submit
from test_scheduler import by_name, job, node, partition


def test_an_exclusive_job_takes_a_whole_idle_node_and_only_the_memory_it_asked_for() -> None:
    nodes = by_name(node("n1", free_cpus=3), node("n2", cpus=8, gpus=2))
    parts = {"batch": partition("batch", ["n1", "n2"])}
    decisions = schedule([job(1, exclusive=True, mem_per_node_mb=100)], nodes, parts)
    assert isinstance(decisions[0], Start)
    alloc = decisions[0].allocation
    assert (alloc.nodes, alloc.cpus_per_node, alloc.memory_mb_per_node) == (("n2",), (8,), (100,))
    assert alloc.cpu_ids == (tuple(range(8)),) and alloc.gpu_ids == ((0, 1),)


def test_no_job_shares_a_node_with_an_exclusive_one_and_it_waits_for_an_idle_node() -> None:
    nodes = by_name(node("n1", free_cpus=3))
    parts = {"batch": partition("batch", ["n1"])}
    assert schedule([job(1, exclusive=True)], nodes, parts) == [Pend(job(1).job_id, Reason.RESOURCES)]
    first, second = schedule([job(1, exclusive=True), job(2)], by_name(node("n1")), parts)
    assert isinstance(first, Start) and second == Pend(job(2).job_id, Reason.RESOURCES)


def test_an_exclusive_partition_gives_every_job_whole_nodes(tmp_path: Path) -> None:
    conf = ("ClusterName=lab\nSlurmctldHost=head\nNodeName=n[1-2] CPUs=4 RealMemory=4000\n"
            "PartitionName=whole Nodes=n[1-2] Default=YES OverSubscribe=EXCLUSIVE\n")
    mgr = make_manager(tmp_path, conf=conf)
    one = run_job(mgr, cpus_per_task=1)
    assert one.allocation is not None and one.allocation.cpus_per_node == (4,)
    two = run_job(mgr, cpus_per_task=1)
    assert two.allocation is not None and two.allocation.nodes != one.allocation.nodes
    third = submit(mgr, cpus_per_task=1)
    schedule_pass(mgr, 300)
    assert mgr.jobs[third.job_id].state is JobState.PENDING


def test_backfill_reserves_a_whole_node_for_an_exclusive_job() -> None:
    nodes = by_name(node("n1", free_cpus=3), node("n2", free_cpus=2))
    holds = [running(90, "n1", (0,), 1600), running(91, "n2", (0, 1), 3000)]
    parts = {"batch": partition("batch", ["n1", "n2"])}
    policy = BackfillPolicy(window_s=24 * 3600, resolution_s=60, max_job_test=500)
    top = job(1, exclusive=True, time_limit_min=60)
    short = job(2, time_limit_min=5)
    long = job(3, time_limit_min=60)        # would keep n1 from being whole: goes to n2
    decisions = {d.job_id: d for d in schedule([top, short, long], nodes, parts,
                                               backfill=Backfill(policy, nodes, holds, 1000))}
    reserved = decisions[1]
    assert isinstance(reserved, Pend) and reserved.expected is not None
    assert reserved.expected.start_time == 1620 and reserved.expected.allocation.cpu_ids == ((0, 1, 2, 3),)
    assert isinstance(decisions[2], Start) and isinstance(decisions[3], Start)
    assert decisions[3].allocation.nodes == ("n2",)

"""Job steps in the controller: placement (pyslurm_ctld/core/step_layout.py) and their life in the job
manager — srun-made jobs ending with step 0, salloc releases, scancel of one step, COMPLETING
until every step's processes are gone, node failure, and the journal round trip.

Spec: cli-sbatch-srun-salloc.md §3.1 (two modes, --exact/--overlap), §3.3 (block layout), §4-5.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from pyslurm_common.errors import SlurmError, Strerror
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.core.steps import release, step_creation, step_termination
from pyslurm_ctld.model.events import (AllocationReleased, BatchFinished, JobCancelled, Launch, NodeFailed,
                                       StepFinished, Terminate, event_from_dict, event_to_dict)
from pyslurm_ctld.model.job import Allocation, GpuUsage, Job, JobId, JobState, Reason, Step, StepUsage
from pyslurm_common.job_environment import block_counts
from pyslurm_ctld.core.step_layout import StepBusy, StepShape, place_step

from tests.builders import ALICE, BOB, ROOT, make_manager, schedule, submit

TWO_NODES = Allocation(nodes=("n1", "n2"), cpus_per_node=(4, 4), memory_mb_per_node=(100, 100),
                       cpu_ids=((0, 1, 2, 3), (0, 1, 2, 3)))


def running_step(nodes: tuple[str, ...], cpu_ids: tuple[tuple[int, ...], ...], step_id: int = 0) -> Step:
    return Step(step_id=step_id, name="s", nodes=nodes, tasks_per_node=tuple(1 for _ in nodes), cpu_ids=cpu_ids,
                start_time=1, waiting_on=nodes)


# ---- placement -----------------------------------------------------------------------------------

def test_block_layout_over_the_requested_nodes() -> None:
    placed = place_step(TWO_NODES, (), StepShape(num_tasks=3, min_nodes=2))
    assert placed.nodes == ("n1", "n2") and placed.tasks_per_node == (2, 1)
    # Not --exact: a step holds every job CPU of its nodes (Slurm 22.05's exclusive steps).
    assert placed.cpu_ids == ((0, 1, 2, 3), (0, 1, 2, 3))


def test_without_n_one_task_per_node_and_without_N_as_few_nodes_as_hold_the_tasks() -> None:
    assert place_step(TWO_NODES, (), StepShape()).tasks_per_node == (1, 1)
    assert place_step(TWO_NODES, (), StepShape(num_tasks=4)).nodes == ("n1",)
    # Counts are balanced over the nodes, ranks laid out in blocks (Slurm's -N2 -n3 is 2 + 1).
    assert place_step(TWO_NODES, (), StepShape(num_tasks=5)).tasks_per_node == (3, 2)


def test_exact_steps_share_a_node_and_wait_when_its_cpus_are_taken() -> None:
    shape = StepShape(num_tasks=1, exact=True)
    first = place_step(TWO_NODES, (), shape)
    assert first.cpu_ids == ((0,),)
    held = running_step(first.nodes, first.cpu_ids)
    assert place_step(TWO_NODES, (held,), shape).cpu_ids == ((1,),)
    whole = running_step(("n1",), ((0, 1, 2, 3),))
    with pytest.raises(StepBusy):
        place_step(TWO_NODES, (whole,), StepShape(num_tasks=1, nodelist=("n1",)))
    # Without -N/-w the step goes where CPUs are free now.
    assert place_step(TWO_NODES, (whole,), shape).nodes == ("n2",)


def test_overlap_steps_hold_nothing_and_never_wait() -> None:
    whole = running_step(("n1", "n2"), ((0, 1, 2, 3), (0, 1, 2, 3)))
    placed = place_step(TWO_NODES, (whole,), StepShape(overlap=True))
    assert placed.cpu_ids == () and placed.nodes == ("n1", "n2")


def test_cpus_per_task_sizes_an_exact_step() -> None:
    placed = place_step(TWO_NODES, (), StepShape(num_tasks=2, cpus_per_task=2))
    assert placed.nodes == ("n1",) and placed.cpu_ids == ((0, 1, 2, 3),)
    with pytest.raises(SlurmError) as info:
        place_step(TWO_NODES, (), StepShape(num_tasks=3, min_nodes=1, cpus_per_task=2))
    assert info.value.strerror == Strerror.TOO_MANY_CPUS


UNEVEN = Allocation(nodes=("n1", "n2"), cpus_per_node=(1, 2), memory_mb_per_node=(100, 100),
                   cpu_ids=((0,), (0, 1)))


def test_uneven_nodes_take_the_tasks_their_cpus_hold() -> None:
    # Slurm's block layout deals a task per node in turn while a node has a CPU left:
    # -N2 -n3 over a 1-CPU and a 2-CPU node is 1 + 2 (ranks 0 | 1, 2), not an even 2 + 1.
    placed = place_step(UNEVEN, (), StepShape(num_tasks=3, min_nodes=2))
    assert placed.tasks_per_node == (1, 2)
    with pytest.raises(SlurmError) as info:
        place_step(UNEVEN, (), StepShape(num_tasks=4, min_nodes=2))
    assert info.value.strerror == Strerror.TOO_MANY_CPUS


@pytest.mark.parametrize(("capacities", "tasks", "counts"), [
    ([4, 4], 5, (3, 2)), ([1, 2], 3, (1, 2)), ([4, 2, 4, 2], 12, (4, 2, 4, 2)),
    ([1, 1], 5, (3, 2)), ([2], 5, (5,)), ([4, 2], 8, (5, 3)),
])
def test_block_counts_as_slurm_deals_them(capacities: list[int], tasks: int, counts: tuple[int, ...]) -> None:
    assert block_counts(capacities, tasks) == counts


def test_overcommit_lays_more_tasks_than_cpus() -> None:
    # srun -N1 -n5 -O on a 1-CPU allocation (Slurm gives an -O job one CPU per task's -c):
    one_cpu = Allocation(nodes=("n1",), cpus_per_node=(1,), memory_mb_per_node=(100,), cpu_ids=((0,),))
    with pytest.raises(SlurmError) as info:
        place_step(one_cpu, (), StepShape(num_tasks=5, min_nodes=1))
    assert info.value.strerror == Strerror.TOO_MANY_CPUS
    placed = place_step(one_cpu, (), StepShape(num_tasks=5, min_nodes=1, overcommit=True))
    assert placed.tasks_per_node == (5,) and placed.cpu_ids == ((0,),)
    # --exact (-c) holds what the node has, not tasks x cpus of it
    exact = place_step(TWO_NODES, (), StepShape(num_tasks=6, min_nodes=1, cpus_per_task=1, overcommit=True))
    assert exact.tasks_per_node == (6,) and exact.cpu_ids == ((0, 1, 2, 3),)
    # without -N, when even every node is short the tasks go round all of them
    spread = place_step(TWO_NODES, (), StepShape(num_tasks=10, overcommit=True))
    assert spread.nodes == ("n1", "n2") and spread.tasks_per_node == (5, 5)
    # and when some nodes hold them, as few as do (as without -O)
    assert place_step(TWO_NODES, (), StepShape(num_tasks=3, overcommit=True)).nodes == ("n1",)


def test_a_node_range_takes_as_few_nodes_in_it_as_hold_the_tasks() -> None:
    # srun -N1-2 -n6 over two 4-CPU nodes: two (one holds only four); -N1-2 -n3: one
    assert place_step(TWO_NODES, (), StepShape(num_tasks=6, min_nodes=1, max_nodes=2)).tasks_per_node == (3, 3)
    assert place_step(TWO_NODES, (), StepShape(num_tasks=3, min_nodes=1, max_nodes=2)).nodes == ("n1",)
    # at least the minimum: -N2-3 -n2 is one task on each node
    assert place_step(TWO_NODES, (), StepShape(num_tasks=2, min_nodes=2, max_nodes=3)).tasks_per_node == (1, 1)
    # without -n, as many nodes as the range allows (srun -N-3 in a two-node job: both)
    assert place_step(TWO_NODES, (), StepShape(min_nodes=1, max_nodes=3)).nodes == ("n1", "n2")
    # the range's maximum too small for the tasks: never
    with pytest.raises(SlurmError) as info:
        place_step(TWO_NODES, (), StepShape(num_tasks=6, min_nodes=1, max_nodes=1))
    assert info.value.strerror == Strerror.TOO_MANY_CPUS
    # with -O, within it (srun -N-3 -n8 -O in a one-CPU-per-node job)
    one_each = Allocation(nodes=("n1", "n2"), cpus_per_node=(1, 1), memory_mb_per_node=(100, 100),
                          cpu_ids=((0,), (0,)))
    assert place_step(one_each, (), StepShape(num_tasks=8, min_nodes=1, max_nodes=3,
                                              overcommit=True)).tasks_per_node == (4, 4)


@pytest.mark.parametrize("shape", [StepShape(min_nodes=3), StepShape(nodelist=("n3",)),
                                   StepShape(num_tasks=1, min_nodes=2)])
def test_steps_the_allocation_can_never_hold(shape: StepShape) -> None:
    with pytest.raises(SlurmError) as info:
        place_step(TWO_NODES, (), shape)
    assert info.value.strerror == Strerror.BAD_NODE_CONFIG


# ---- in the core ----------------------------------------------------------------------------

def interactive_job(mgr: ClusterState, launcher: str, **request: Any) -> Job:
    job = submit(mgr, launcher=launcher, script="", **request)
    effects = schedule(mgr)
    assert not any(isinstance(e, Launch) for e in effects)   # nothing to launch: srun/salloc take over
    return mgr.jobs[job.job_id]


def start_step(mgr: ClusterState, job_id: int, uid: int = ALICE, now: int = 210, **shape: Any) -> Step:
    event = step_creation(mgr, job_id, uid, StepShape(**shape), "hostname", ("hostname",), now)
    apply(mgr, event)
    return event.step


def step_ended(mgr: ClusterState, job_id: int, step: Step, node: str, now: int = 220, **outcome: Any) -> list[Any]:
    values = {"exit_code": 0, "exit_signal": 0, **outcome}
    return apply(mgr, StepFinished(JobId(job_id), step.step_id, node, time=now, **values))


def test_an_srun_job_ends_with_its_step_zero(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = interactive_job(mgr, "srun", min_nodes=2)
    step = start_step(mgr, job.job_id)
    assert step.step_id == 0 and step.nodes == ("n1", "n2")
    step_ended(mgr, job.job_id, step, "n1", exit_code=3)
    assert mgr.jobs[job.job_id].state is JobState.RUNNING        # n2 has not reported yet
    step_ended(mgr, job.job_id, step, "n2", usage=StepUsage(10, 1, 1))
    done = mgr.jobs[job.job_id]
    assert (done.state, done.exit_code, done.completing, done.reason) == (JobState.FAILED, 3, False,
                                                                          Reason.NON_ZERO_EXIT)
    assert done.steps[0].state is JobState.FAILED and done.steps[0].end_time == 220


def test_a_steps_usage_sums_cpu_and_keeps_the_node_of_the_peak(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = interactive_job(mgr, "srun", min_nodes=2)
    step = start_step(mgr, job.job_id)
    gpu1, gpu2 = GpuUsage("n1", 0, 5, 90, 99, 2**30, 2**31), GpuUsage("n2", 1, 5, 10, 20, 0, 2**20, lost=True)
    step_ended(mgr, job.job_id, step, "n1", usage=StepUsage(500, 10, 1, "n1", (gpu1,)))
    step_ended(mgr, job.job_id, step, "n2", usage=StepUsage(900, 20, 2, "n2", (gpu2,)))
    assert mgr.jobs[job.job_id].steps[0].usage == StepUsage(900, 30, 3, "n2", (gpu1, gpu2))


def test_a_cancelled_part_ends_the_rest_of_the_step(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = interactive_job(mgr, "srun", min_nodes=2)
    step = start_step(mgr, job.job_id)
    effects = step_ended(mgr, job.job_id, step, "n1", cancelled=True, exit_signal=15)
    assert Terminate(job.job_id, ("n2",), "CANCELLED", step="0") in effects
    step_ended(mgr, job.job_id, step, "n2", exit_signal=15)
    assert mgr.jobs[job.job_id].state is JobState.CANCELLED


def test_steps_number_up_and_only_the_owner_makes_them(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = interactive_job(mgr, "salloc", min_nodes=2, num_tasks=2, ntasks_given=True)
    assert start_step(mgr, job.job_id, num_tasks=1, exact=True).step_id == 0
    assert start_step(mgr, job.job_id, num_tasks=1, exact=True).step_id == 1
    with pytest.raises(SlurmError) as info:
        step_creation(mgr, job.job_id, BOB, StepShape(), "x", ("x",), 230)
    assert info.value.strerror == Strerror.ACCESS_DENIED
    pending = submit(mgr, launcher="srun", script="", min_nodes=2)
    with pytest.raises(SlurmError) as info:
        step_creation(mgr, pending.job_id, ALICE, StepShape(), "x", ("x",), 230)
    assert info.value.strerror == Strerror.JOB_PENDING


def test_a_salloc_release_waits_for_running_steps(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = interactive_job(mgr, "salloc")
    step = start_step(mgr, job.job_id)
    effects = apply(mgr, release(mgr, job.job_id, ALICE, 0, 0, 230))
    released = mgr.jobs[job.job_id]
    assert released.state is JobState.COMPLETED and released.completing
    assert Terminate(job.job_id, step.nodes, "CANCELLED") in effects
    step_ended(mgr, job.job_id, step, step.nodes[0], cancelled=True, now=235)
    assert not mgr.jobs[job.job_id].completing and mgr.jobs[job.job_id].steps[0].state is JobState.CANCELLED
    with pytest.raises(SlurmError):
        release(mgr, job.job_id, ALICE, 0, 0, 240)


def test_cancelling_an_idle_salloc_job_completes_at_once(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = interactive_job(mgr, "salloc")
    apply(mgr, JobCancelled(job.job_id, ALICE, 230))
    assert mgr.jobs[job.job_id].state is JobState.CANCELLED and not mgr.jobs[job.job_id].completing


def test_a_batch_job_stays_completing_until_its_steps_are_gone(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = submit(mgr, min_nodes=2)
    schedule(mgr)
    step = start_step(mgr, job.job_id)
    effects = apply(mgr, BatchFinished(job.job_id, 0, 0, False, False, 250))
    assert Terminate(job.job_id, step.nodes, "CANCELLED") in effects
    assert mgr.jobs[job.job_id].state is JobState.COMPLETED and mgr.jobs[job.job_id].completing
    for node in step.nodes:
        step_ended(mgr, job.job_id, step, node, cancelled=True, now=252)
    assert not mgr.jobs[job.job_id].completing


def test_scancel_of_one_step_terminates_it_on_its_nodes(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = interactive_job(mgr, "salloc", min_nodes=2)
    step = start_step(mgr, job.job_id)
    assert step_termination(mgr, job.job_id, 0, ALICE) == [Terminate(job.job_id, step.nodes, "CANCELLED", step="0")]
    assert step_termination(mgr, job.job_id, 0, ROOT)
    with pytest.raises(SlurmError):
        step_termination(mgr, job.job_id, 0, BOB)
    assert step_termination(mgr, job.job_id, 0, BOB, operator=True)     # AdminLevel Operator/Administrator
    with pytest.raises(SlurmError) as info:
        step_termination(mgr, job.job_id, 7, ALICE)
    assert info.value.strerror == Strerror.INVALID_JOB_ID


def test_node_failure_ends_the_steps_that_ran_there(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = interactive_job(mgr, "srun", min_nodes=2)
    step = start_step(mgr, job.job_id)
    apply(mgr, NodeFailed("n2", "Not responding", 240))
    failed = mgr.jobs[job.job_id]
    assert failed.state is JobState.NODE_FAIL and failed.completing     # n1's part is being killed
    step_ended(mgr, job.job_id, step, "n1", cancelled=True, now=241)
    assert not mgr.jobs[job.job_id].completing
    assert mgr.jobs[job.job_id].steps[0].state is JobState.CANCELLED   # as the survivor reports the kill (Slurm 22.05: 1.0 CANCELLED 0:15)


def test_steps_survive_the_journal_round_trip(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = interactive_job(mgr, "srun", min_nodes=2)
    event = step_creation(mgr, job.job_id, ALICE, StepShape(), "hostname", ("hostname", "-s"), 210)
    assert event_from_dict(event_to_dict(event)) == event
    apply(mgr, event)
    finished = StepFinished(job.job_id, 0, "n1", 1, 9, 220, out_of_memory=True, usage=StepUsage(
        5, 6, 7, "n1", (GpuUsage("n1", 3, 4, 50, 60, 100, 200, 300_000, foreign_pids=(77,)),)))
    assert event_from_dict(event_to_dict(finished)) == finished
    apply(mgr, finished)
    released = AllocationReleased(job.job_id, 1, 0, 230)
    assert event_from_dict(event_to_dict(released)) == released
    live = mgr.jobs[job.job_id]
    assert Job.from_dict(dataclasses.asdict(live)) == live
    assert live.steps[0].end_state is JobState.OUT_OF_MEMORY and live.steps[0].waiting_on == ("n2",)


@pytest.mark.parametrize("seed", range(5))
def test_running_steps_never_share_a_cpu(seed: int) -> None:
    """Random step requests and ends against one allocation: every placement is inside the job's
    CPUs, and no CPU is ever held by two running steps (overlap steps hold none)."""
    import random

    rng = random.Random(seed)
    alloc = Allocation(nodes=("a", "b", "c"), cpus_per_node=(2, 4, 3), memory_mb_per_node=(1, 1, 1),
                       cpu_ids=((0, 1), (2, 3, 4, 5), (0, 4, 7)))
    running: list[Step] = []
    for step_id in range(300):
        if running and rng.random() < 0.4:
            running.pop(rng.randrange(len(running)))
            continue
        shape = StepShape(num_tasks=rng.choice([0, 1, 2, 3]), min_nodes=rng.choice([0, 0, 1, 2]),
                          cpus_per_task=rng.choice([0, 0, 1, 2]), exact=rng.random() < 0.5,
                          overlap=rng.random() < 0.1)
        try:
            placed = place_step(alloc, running, shape)
        except (StepBusy, SlurmError):
            continue
        assert sum(placed.tasks_per_node) == max(shape.num_tasks, len(placed.nodes))
        running.append(Step(step_id, "s", placed.nodes, placed.tasks_per_node, placed.cpu_ids, 0))
        held: set[tuple[str, int]] = set()
        for step in running:
            for node, ids in zip(step.nodes, step.cpu_ids):
                assert set(ids) <= set(alloc.cpu_ids[alloc.nodes.index(node)])
                for cpu in ids:
                    assert (node, cpu) not in held
                    held.add((node, cpu))


@pytest.mark.parametrize("peer, expected", [
    ("ipv4:10.0.0.7:41234", "10.0.0.7"),                  # srun on another host: where it came from
    ("ipv6:[fd00::7]:41234", "fd00::7"),
    ("ipv4:127.0.0.1:41234", "head"),                     # srun beside the controller: its address
    ("ipv4:127.0.1.1:41234", "head"),
    ("ipv6:[::1]:41234", "head"),
])
def test_nodes_reach_srun_at_an_address_they_can_route_to(peer: str, expected: str) -> None:
    from pyslurm_ctld.rpc.servicer_base import srun_address

    assert srun_address(peer, "head") == expected


def test_a_step_keeps_its_distribution_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    mgr = make_manager(tmp_path)
    job = interactive_job(mgr, "srun", min_nodes=2)
    step = start_step(mgr, job.job_id, num_tasks=2, distribution="cyclic")
    assert step.distribution == "cyclic" and Step.from_dict(dataclasses.asdict(step)) == step
    for bad in ("plane=x", "plane=" + "9" * 100):
        with pytest.raises(SlurmError) as refused:
            start_step(mgr, job.job_id, num_tasks=1, overlap=True, distribution=bad)
        assert refused.value.strerror == Strerror.INVALID_ARGUMENT

"""Virtual-time simulation of preemption through the core (schedule_pass -> events ->
apply, as the controller runs it), PreemptType=preempt/partition_prio with two partitions of
different PriorityTier over the same nodes, in each PreemptMode.

A fake clock jumps from event to event (arrival, natural end, processes gone after a kill).
After every step the harness checks, from the job records alone:

* no CPU id is held by two jobs at once (running or completing; a suspended job holds none),
  and no node has more memory allocated than it has (suspended jobs keep theirs);
* every victim ran in the low-tier partition and its preemptor is a high-tier job, which later
  starts; high-tier jobs are never preempted;
* in the end every job has finished: COMPLETED, or PREEMPTED in CANCEL mode.
"""
from __future__ import annotations

import dataclasses
import heapq
import random
from pathlib import Path

import pytest

from pyslurm_common.config import load_config
from pyslurm_ctld.core.admission import submission
from pyslurm_ctld.core.apply import apply
from pyslurm_ctld.core.scheduling import schedule_pass
from pyslurm_ctld.core.state import ClusterState
from pyslurm_ctld.core.topology import node_registered
from pyslurm_ctld.model.events import BatchFinished, Effect, JobPreempted, Launch, SuspendTasks, Terminate
from pyslurm_ctld.model.job import JobId, JobState

from .test_fifo_simulation import BASE_REQUEST

NODES = 12
CPUS = 8
MEMORY = 8000
JOBS = 400
HIGH_SHARE = 0.3

# The FIFO simulation's request; the core fills in the partition's time limit.
RAW = dataclasses.replace(BASE_REQUEST, time_limit_min=0)


def _manager(tmp_path: Path, mode: str) -> ClusterState:
    nodes = "\n".join(f"NodeName=n{i} CPUs={CPUS} RealMemory={MEMORY}" for i in range(NODES))
    names = ",".join(f"n{i}" for i in range(NODES))
    path = tmp_path / "slurm.conf"
    path.write_text(f"ClusterName=sim\nSlurmctldHost=head\nMinJobAge=0\nAuthInfo=cred_expire=20\n"
                    f"PreemptType=preempt/partition_prio\nPreemptMode={mode}\n{nodes}\n"
                    f"PartitionName=low Nodes={names} Default=YES PriorityTier=1\n"
                    f"PartitionName=high Nodes={names} PriorityTier=5\n")
    mgr = ClusterState(load_config(path), slurm_uid=450)
    for name in mgr.nodes:
        node_registered(mgr, name, 0.0, cpus=CPUS, real_memory_mb=MEMORY)
    return mgr


def _check_resources(mgr: ClusterState) -> None:
    cpus: dict[str, set[int]] = {name: set() for name in mgr.nodes}
    memory = {name: 0 for name in mgr.nodes}
    for job in mgr.jobs.values():
        alloc = job.allocation
        if alloc is None:
            continue
        holds_cpus = job.state is JobState.RUNNING or job.completing
        if not (holds_cpus or job.state is JobState.SUSPENDED):
            continue
        for index, node in enumerate(alloc.nodes):
            memory[node] += alloc.memory_mb_per_node[index]
            if holds_cpus:
                ids = set(alloc.cpus_on(index))
                assert not ids & cpus[node], f"CPUs {ids & cpus[node]} of {node} double-booked (job {job.job_id})"
                assert ids <= set(range(CPUS))
                cpus[node] |= ids
    for node, used in memory.items():
        assert used <= MEMORY, f"{node}: {used} MB allocated of {MEMORY}"


@pytest.mark.parametrize("mode", ["REQUEUE", "CANCEL", "SUSPEND,GANG"])
def test_high_tier_jobs_preempt_low_tier_ones_without_double_booking(tmp_path: Path, mode: str) -> None:
    rng = random.Random(f"preempt-{mode}")
    mgr = _manager(tmp_path, mode)
    queue: list[tuple[int, int, str, int, int]] = []   # (time, seq, kind, job or index, token)
    seq = 0

    def at(time: int, kind: str, ref: int, token: int = 0) -> None:
        nonlocal seq
        seq += 1
        heapq.heappush(queue, (time, seq, kind, ref, token))

    specs = []
    for index in range(JOBS):
        high = rng.random() < HIGH_SHARE
        specs.append(dict(partition="high" if high else "low", num_tasks=rng.choice((1, 2, 4, 8)),
                          mem_per_cpu_mb=rng.choice((0, 100, 500)), duration=rng.randint(20, 400)))
        at(rng.randint(0, 4000), "submit", index)
    duration: dict[JobId, int] = {}
    remaining: dict[JobId, int] = {}     # seconds left of a suspended run
    token: dict[JobId, int] = {}         # a finish event is stale once the run changed
    partition_of: dict[JobId, str] = {}
    preemptors: set[JobId] = set()
    preemptions = 0
    now = 0

    def bump(job_id: JobId) -> int:
        token[job_id] = token.get(job_id, 0) + 1
        return token[job_id]

    def perform(effects: list[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, Launch):
                job_id = effect.job.job_id
                at(now + duration[job_id], "end", job_id, bump(job_id))
            elif isinstance(effect, Terminate):
                at(now + 1, "gone", effect.job_id, bump(effect.job_id))
            elif isinstance(effect, SuspendTasks) and effect.suspend:
                job = mgr.jobs[effect.job_id]
                remaining[effect.job_id] = max(1, job.start_time + job.suspended_secs + duration[effect.job_id] - now)
                bump(effect.job_id)
            elif isinstance(effect, SuspendTasks):
                at(now + remaining.pop(effect.job_id), "end", effect.job_id, bump(effect.job_id))

    steps = 0
    while queue:
        steps += 1
        assert steps < 50000, "simulation did not settle"
        now, _, kind, ref, stamp = heapq.heappop(queue)
        if kind == "submit":
            spec = dict(specs[ref])
            run_for = spec.pop("duration")
            event = submission(mgr, dataclasses.replace(RAW, **spec), 1000, 1000, "alice", "alice", False, now)
            duration[event.job.job_id] = run_for
            partition_of[event.job.job_id] = spec["partition"]
            perform(apply(mgr, event))
        elif kind in ("end", "gone") and token.get(JobId(ref)) == stamp:
            signal_number = 0 if kind == "end" else 15
            perform(apply(mgr, BatchFinished(JobId(ref), 0, signal_number, False, False, now)))
        for _ in range(20):     # the controller's loop: passes until one has nothing to commit
            events = schedule_pass(mgr, now)
            if not events:
                break
            for event in events:
                if isinstance(event, JobPreempted):
                    assert partition_of[event.job_id] == "low" and partition_of[event.preemptor] == "high", event
                    preemptors.add(event.preemptor)
                    preemptions += 1
                perform(apply(mgr, event))
        _check_resources(mgr)
        if not queue and any(j.is_active for j in mgr.jobs.values()):
            at(now + 5, "tick", 0)    # requeued jobs wait for their eligible time

    assert preemptions > 10, "the workload should make high-tier jobs preempt"
    assert all(mgr.jobs[p].start_time for p in preemptors)
    final = {job.state for job in mgr.jobs.values()}
    expected = {JobState.COMPLETED, JobState.PREEMPTED} if mode == "CANCEL" else {JobState.COMPLETED}
    assert final <= expected, final
    if mode == "REQUEUE":
        assert any(job.restarts for job in mgr.jobs.values())
